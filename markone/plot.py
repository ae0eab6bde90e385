"""Figures of the learner core: data with the learned boundary, mistakes per pass,
the weight vectors of a cycle.

Plot functions draw on a matplotlib ``Axes`` that the caller gives, so they compose
into any figure; matplotlib is imported only when they run.

>>> import matplotlib; matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt, markone
>>> X, y = markone.datasets.xor("01")
>>> fig, ax = plt.subplots()
>>> ax = plot_boundary(ax, X, y, markone.train([[0, 0], [1, 1]], [-1, 1]))
>>> plt.close(fig)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from markone._internal.typing import ArrayLike
__all__ = ["plot_boundary", "plot_mistakes", "plot_cycle"]

CLASS_COLOURS = ("#d95f02", "#1b9e77")


def plot_boundary(ax: Any, X: ArrayLike, y: ArrayLike, result: Any, *,
                  labels: Sequence[str] | None = None, title: str | None = None,
                  margin: float = 0.08) -> Any:
    """Scatter 2-D data ``(X, y)`` and draw the line ``coef . x + intercept = 0``.

    The half-plane the result predicts as the second class is shaded lightly.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"plot_boundary draws 2-D data; X has shape {X.shape}.")
    classes = np.unique(y)
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = (hi - lo) * margin + 1e-9
    lo, hi = lo - pad, hi + pad
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], 200), np.linspace(lo[1], hi[1], 200))
    coef = np.array([float(v) for v in result.coef])
    b = float(result.intercept)
    z = gx * coef[0] + gy * coef[1] + b
    ax.contourf(gx, gy, z > 0, levels=[-0.5, 0.5, 1.5], colors=["#fdf0e6", "#e6f5f0"])
    ax.contour(gx, gy, z, levels=[0.0], colors="k", linewidths=1.5)
    for k, c in enumerate(classes[:2]):
        pts = X[y == c]
        name = labels[k] if labels is not None else str(c)
        ax.scatter(pts[:, 0], pts[:, 1], s=22, color=CLASS_COLOURS[k], edgecolor="k",
                   linewidth=0.4, label=name, zorder=3)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.legend(loc="best")
    if title:
        ax.set_title(title)
    return ax


def plot_mistakes(ax: Any, result: Any, *, title: str | None = None) -> Any:
    """Bar chart of mistakes per pass of a :class:`~markone.TrainResult`."""
    m = np.asarray(result.mistakes_per_epoch)
    from matplotlib.ticker import MaxNLocator  # light start-up: matplotlib only to draw

    ax.bar(np.arange(1, len(m) + 1), m, color="#7570b3")
    ax.set_xlabel("pass through the data")
    ax.set_ylabel("mistakes in the pass")
    for axis in (ax.xaxis, ax.yaxis):  # counts: whole-number ticks
        axis.set_major_locator(MaxNLocator(integer=True))
    if title:
        ax.set_title(title)
    return ax


def plot_cycle(ax: Any, cycle: Sequence[Sequence[Any]], *,
               names: Sequence[str] | None = None,
               steps: Sequence[str] | None = None, title: str | None = None) -> Any:
    """A cycle of weight vectors as a table that can be read: one column per state
    (in the order visited, the first repeated at the end to close the loop), one
    row per weight, each cell printed with its value and coloured by it.

    ``cycle`` is a sequence of weight vectors (as ``verify.check_cycling(...).cycle``);
    ``names`` labels the weights (default ``w1, w2, ...``), ``steps`` the columns
    (default ``state 1, state 2, ..., state 1 again``).

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> ax = plot_cycle(ax, [(0, 0), (1, -1)], names=["w1", "b"])
    >>> [t.get_text() for t in ax.texts]
    ['0', '1', '0', '0', '-1', '0']
    >>> plt.close(fig)
    """
    W = np.asarray(cycle, dtype=float)
    if W.ndim != 2 or not len(W):
        raise ValueError(f"plot_cycle draws a sequence of weight vectors; cycle has "
                         f"shape {W.shape}.")
    names = [f"w{i + 1}" for i in range(W.shape[1])] if names is None else list(names)
    steps = ([f"state {k + 1}" for k in range(len(W))] + ["state 1 again"]
             if steps is None else list(steps))
    if len(names) != W.shape[1] or len(steps) != len(W) + 1:
        raise ValueError(f"plot_cycle needs {W.shape[1]} names and {len(W) + 1} steps "
                         f"(the first state again at the end); got {len(names)} and "
                         f"{len(steps)}.")
    table = np.vstack([W, W[:1]]).T            # rows: weights, columns: states
    lim = max(float(np.abs(table).max()), 1.0)
    ax.imshow(table, cmap="RdBu_r", vmin=-2 * lim, vmax=2 * lim, aspect="auto")
    for (row, col), value in np.ndenumerate(table):
        ax.text(col, row, f"{value:g}", ha="center", va="center", fontsize=14)
    ax.set_xticks(range(len(steps)), steps)
    ax.set_yticks(range(len(names)), names)
    ax.tick_params(length=0)
    if title:
        ax.set_title(title)
    return ax
