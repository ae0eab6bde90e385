"""Small helpers shared by the experiment modules (not part of the public API)."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from markone._internal.typing import JSONDict, PathLike
from markone._internal.style import new_figure as styled_figure, save_figure as save
from sims.runner import run_inline

__all__ = ["inline", "chunked", "new_figure", "save_figure", "as_array", "check_between",
           "check_margin", "check_letters"]

T = TypeVar("T")


def inline(module_name: str) -> Callable[..., JSONDict]:
    """Make the module-level ``run(config=None, *, seed=0)`` of an experiment."""

    def run(config: JSONDict | None = None, *, seed: int = 0) -> JSONDict:
        """Run this experiment in memory: tasks, run_task, combine (no files).

        ``config`` defaults to ``DEFAULTS`` (use ``sims.runner.make_config`` for
        ``size="small"``); returns the results dict that ``results.json`` holds.
        """
        return run_inline(sys.modules[module_name], config, seed)

    return run


def chunked(items: Iterable[T], size: int) -> list[list[T]]:
    """Split ``items`` into consecutive lists of at most ``size`` (the task batches)."""
    items = list(items)
    return [items[i:i + size] for i in range(0, len(items), size)]


def new_figure(ncols: int = 1, *, width: float = 5.0, height: float = 4.0) -> Any:
    """A figure with ``ncols`` axes side by side in markone's figure style
    (:mod:`markone._internal.style`: 150 dpi, no text under 10 pt)."""
    return styled_figure(1, ncols, width=width, height=height)


def save_figure(fig: Any, out_dir: PathLike, name: str) -> Path:
    """Write ``fig`` to ``out_dir/name.png`` in markone's figure style; return the
    path."""
    return save(fig, Path(out_dir) / f"{name}.png")


def as_array(values: Any) -> np.ndarray:
    """A float array from JSON lists (``"inf"``/``"nan"`` strings included)."""
    return np.asarray(values, dtype=float)


def check_between(value: Any, name: str, low: float, high: float, *,
                  low_included: bool = False, why: str = "") -> float:
    """``value`` if it is a finite number strictly between ``low`` and ``high`` (or
    equal to ``low`` with ``low_included``); a ValueError naming the setting otherwise.
    Settings outside make a claim vacuous (a margin of 0 bounds nothing) or
    meaningless, and are refused before any task is made.

    >>> check_between(0.1, "gamma", 0, 1)
    0.1
    >>> check_between(0.0, "gamma", 0, 1, why="a margin of 0 bounds nothing")
    Traceback (most recent call last):
    ...
    ValueError: gamma(=0.0) must be a number in (0, 1): a margin of 0 bounds nothing.
    """
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and \
        math.isfinite(value) and (low <= value if low_included else low < value) and \
        value < high
    if not ok:
        span = f"{'[' if low_included else '('}{low:g}, {high:g})"
        raise ValueError(f"{name}(={value!r}) must be a number in {span}"
                         f"{': ' + why if why else ''}.")
    return float(value)


def check_margin(gamma: Any) -> float:
    """``gamma`` if it is a margin of data in the unit ball: in (0, 1).

    >>> check_margin(0.1)
    0.1
    """
    return check_between(gamma, "gamma", 0, 1, why="a margin of 0 bounds nothing, and "
                         "the points lie in the unit ball")


def check_letters(chars: Any) -> str:
    """``chars`` if it names at least two capital letters A-Z, each once: one letter
    is no task to learn, and a letter twice is one class asked to answer two ways.

    >>> check_letters("ABCD")
    'ABCD'
    >>> check_letters("A")
    Traceback (most recent call last):
    ...
    ValueError: chars(='A') must be at least two capital letters A-Z, e.g. 'ABCD': one letter is no task to learn.
    """
    if not isinstance(chars, str) or len(chars) < 2 or \
            not all("A" <= c <= "Z" for c in chars):
        raise ValueError(f"chars(={chars!r}) must be at least two capital letters A-Z, "
                         "e.g. 'ABCD': one letter is no task to learn.")
    twice = sorted({c for c in chars if chars.count(c) > 1})
    if twice:
        raise ValueError(f"chars(={chars!r}) names {twice[0]!r} twice; name each letter "
                         "once.")
    return chars
