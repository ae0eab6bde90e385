"""Small helpers shared by the experiment modules (not part of the public API)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

__all__ = ["inline", "chunked", "new_figure", "save_figure", "as_array"]


def inline(module_name):
    """Make the module-level ``run(config=None, *, seed=0)`` of an experiment."""

    def run(config=None, *, seed=0):
        """Run this experiment in memory: tasks, run_task, combine (no files).

        ``config`` defaults to ``DEFAULTS`` (use ``sims.runner.make_config`` for
        ``size="small"``); returns the results dict that ``results.json`` holds.
        """
        from sims.runner import run_inline

        return run_inline(sys.modules[module_name], config, seed)

    return run


def chunked(items, size):
    """Split ``items`` into consecutive lists of at most ``size`` (the task batches)."""
    items = list(items)
    return [items[i:i + size] for i in range(0, len(items), size)]


def new_figure(ncols=1, *, width=5.0, height=4.0):
    """A figure with ``ncols`` axes side by side in markone's figure style
    (:mod:`markone._style`: 150 dpi, no text under 10 pt)."""
    from markone._style import new_figure as styled_figure

    return styled_figure(1, ncols, width=width, height=height)


def save_figure(fig, out_dir, name):
    """Write ``fig`` to ``out_dir/name.png`` in markone's figure style; return the
    path."""
    from markone._style import save_figure as save

    return save(fig, Path(out_dir) / f"{name}.png")


def as_array(values):
    """A float array from JSON lists (``"inf"``/``"nan"`` strings included)."""
    return np.asarray(values, dtype=float)
