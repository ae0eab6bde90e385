"""Novikoff's bound is tight: on m orthonormal examples the perceptron makes m mistakes.

Setup (the classic worst case, e.g. Shalev-Shwartz & Ben-David 2014, §9.1.2, and
Mohri, Rostamizadeh & Talwalkar, *Foundations of Machine Learning*, 2nd ed., §8.3):
for ``m = 1..m_max`` the examples are the unit vectors ``e_1..e_m`` of R^m
(:func:`markone.datasets.orthonormal`) with random -1/+1 labels. Then ``R = 1`` and
the unit vector ``u = sum_i y_i e_i / sqrt(m)`` has margin ``1/sqrt(m)``, which is the
largest possible, so the bound is ``(R/gamma)^2 = m``. Trained without intercept (zero
start, a zero score is a mistake), every example is a mistake exactly once, in the given
order and in every shuffled order: the bound is met with equality.

``results.json``: ``m``, ``bound`` (= m), ``mistakes_given``, ``mistakes_shuffled``,
and ``all_equal`` (every run made exactly m mistakes).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from markone._internal.validation import as_generator, child_seeds
from markone._internal.typing import JSONDict, PathLike
from markone._internal.style import count_axis, legend_outside, styled
from sims._common import inline, new_figure, save_figure
from markone.datasets import orthonormal

__all__ = ["NAME", "DEFAULTS", "SMALL", "tasks", "run_task", "combine", "plot", "run"]

NAME = "orthonormal_tight"
DEFAULTS = {"m_max": 100}
SMALL = {"m_max": 12}


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """One task: every m at once (the batch trains them together)."""
    return [{"id": "all", "m_max": config["m_max"], "seed": child_seeds(seed, 1)[0]}]


def run_task(spec: JSONDict) -> JSONDict:
    """Train on e_1..e_m with random labels, in the given and in a shuffled order."""
    from markone.batch import train_many

    label_seed, order_seed = child_seeds(spec["seed"], 2)
    rng = as_generator(label_seed)
    ms = list(range(1, spec["m_max"] + 1))
    data = [orthonormal(m, labels=rng.choice([-1, 1], size=m)) for m in ms]
    Xs, ys = [X for X, _ in data], [y for _, y in data]
    given = train_many(Xs, ys, intercept=False)
    shuffled = train_many(Xs, ys, intercept=False, order="shuffle", seeds=order_seed)
    margins = [float((y * (X @ (y / np.sqrt(len(y))))).min()) for X, y in data]
    return {"m": ms, "mistakes_given": given.mistakes.tolist(),
            "mistakes_shuffled": shuffled.mistakes.tolist(),
            "converged": bool(given.converged.all() and shuffled.converged.all()),
            "gamma_u": margins}


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """The mistakes per m next to the bound m."""
    (r,) = task_results
    m = r["m"]
    return {"m": m, "bound": m, "mistakes_given": r["mistakes_given"],
            "mistakes_shuffled": r["mistakes_shuffled"], "gamma_u": r["gamma_u"],
            "converged": r["converged"],
            "all_equal": r["mistakes_given"] == m and r["mistakes_shuffled"] == m}


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """Mistakes against m, on the line of the bound."""
    fig, (ax,) = new_figure()
    m = np.asarray(results["m"])
    ax.plot(m, m, "k-", lw=1, label="bound (R/γ)² = m")
    ax.plot(m, results["mistakes_given"], "o", ms=4, mfc="none", label="given order")
    ax.plot(m, results["mistakes_shuffled"], "x", ms=3, label="shuffled order")
    ax.set(xlabel="m (orthonormal examples)", ylabel="mistakes",
           title="the bound is met with equality")
    count_axis(ax.xaxis), count_axis(ax.yaxis)
    legend_outside(ax)
    return [save_figure(fig, out_dir, "orthonormal_tight")]


run = inline(__name__)
