"""Small helpers shared by the experiment modules (not part of the public API)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from markone._internal.typing import JSONDict, PathLike

__all__ = ["inline", "chunked", "new_figure", "save_figure", "as_array"]

T = TypeVar("T")


def inline(module_name: str) -> Callable[..., JSONDict]:
    """Make the module-level ``run(config=None, *, seed=0)`` of an experiment."""

    def run(config: JSONDict | None = None, *, seed: int = 0) -> JSONDict:
        """Run this experiment in memory: tasks, run_task, combine (no files).

        ``config`` defaults to ``DEFAULTS`` (use ``sims.runner.make_config`` for
        ``size="small"``); returns the results dict that ``results.json`` holds.
        """
        from sims.runner import run_inline

        return run_inline(sys.modules[module_name], config, seed)

    return run


def chunked(items: Iterable[T], size: int) -> list[list[T]]:
    """Split ``items`` into consecutive lists of at most ``size`` (the task batches)."""
    items = list(items)
    return [items[i:i + size] for i in range(0, len(items), size)]


def new_figure(ncols: int = 1, *, width: float = 5.0, height: float = 4.0) -> Any:
    """A figure with ``ncols`` axes side by side in markone's figure style
    (:mod:`markone._internal.style`: 150 dpi, no text under 10 pt)."""
    from markone._internal.style import new_figure as styled_figure

    return styled_figure(1, ncols, width=width, height=height)


def save_figure(fig: Any, out_dir: PathLike, name: str) -> Path:
    """Write ``fig`` to ``out_dir/name.png`` in markone's figure style; return the
    path."""
    from markone._internal.style import save_figure as save

    return save(fig, Path(out_dir) / f"{name}.png")


def as_array(values: Any) -> np.ndarray:
    """A float array from JSON lists (``"inf"``/``"nan"`` strings included)."""
    return np.asarray(values, dtype=float)
