"""Novikoff's bound on random separable data: mistakes never exceed (R/gamma)^2.

Setup (after Novikoff 1962; the figure in the style of Shalev-Shwartz & Ben-David,
*Understanding Machine Learning*, 2014, Thm 9.1): ``runs`` datasets of ``n`` points,
dataset ``i`` in dimension ``dims[i % len(dims)]``, drawn by
:func:`markone.datasets.separable`: labels from a random unit vector ``u``, points
closer than ``gamma`` to the hyperplane ``u.x = 0`` removed. Each dataset is trained
(homogeneous, no intercept) to convergence in a fresh shuffled order each pass, all of
them at once with :func:`markone.batch.train_many`. For each run, ``R = max ||x_i||``
and ``gamma_u = min_i y_i u.x_i >= gamma`` give Novikoff's bound ``(R/gamma_u)^2``;
the ratio mistakes / bound is at most 1 by the theorem.

``results.json``: ``runs``, ``max_ratio``, ``per_dimension`` (median and maximum ratio
per dimension), and the per-run ``dims``, ``mistakes``, ``bounds``, ``ratios``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from markone._internal.validation import child_seeds
from markone._internal.typing import JSONDict, PathLike
from markone._internal.style import count_axis, legend_outside, styled
from verify.margin import novikoff_bound
from sims._common import as_array, check_margin, chunked, inline, new_figure, save_figure
from markone.datasets import separable

__all__ = ["NAME", "DEFAULTS", "SMALL", "tasks", "run_task", "combine", "plot", "run"]

NAME = "novikoff"
DEFAULTS = {"runs": 300, "n": 200, "dims": [2, 5, 10, 20, 50, 100], "gamma": 0.1,
            "max_epochs": 10000, "batch": 50}
SMALL = {"runs": 12, "n": 60, "dims": [2, 10, 30], "batch": 5}


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """Batches of ``batch`` datasets, each dataset with its own seed drawn up front."""
    check_margin(config["gamma"])
    seeds = child_seeds(seed, config["runs"])
    dims = [config["dims"][i % len(config["dims"])] for i in range(config["runs"])]
    runs = list(zip(range(config["runs"]), dims, seeds))
    return [{"id": f"batch-{k:04d}", "runs": [list(r) for r in part],
             "n": config["n"], "gamma": config["gamma"],
             "max_epochs": config["max_epochs"]}
            for k, part in enumerate(chunked(runs, config["batch"]))]


def run_task(spec: JSONDict) -> JSONDict:
    """Generate the batch's datasets and train them together; one record per run."""
    from markone.batch import train_many

    Xs, ys, us, order_seeds = [], [], [], []
    for _, d, s in spec["runs"]:
        data_seed, order_seed = child_seeds(s, 2)
        X, y, u = separable(spec["n"], d, spec["gamma"], seed=data_seed)
        Xs.append(X)
        ys.append(y)
        us.append(u)
        order_seeds.append(order_seed)
    res = train_many(Xs, ys, intercept=False, order="shuffle", seeds=order_seeds,
                     max_epochs=spec["max_epochs"])
    out = []
    for b, (X, y, u) in enumerate(zip(Xs, ys, us)):
        R = float(np.linalg.norm(X, axis=1).max())
        gamma_u = float((y * (X @ u)).min())
        bound = novikoff_bound(R, gamma_u)
        out.append({"index": spec["runs"][b][0], "d": spec["runs"][b][1],
                    "mistakes": int(res.mistakes[b]), "epochs": int(res.epochs[b]),
                    "converged": bool(res.converged[b]), "R": R, "gamma": gamma_u,
                    "bound": bound, "ratio": int(res.mistakes[b]) / bound})
    return {"runs": out}


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """Per-run arrays, the largest ratio, and median/max ratio per dimension."""
    runs = sorted((r for t in task_results for r in t["runs"]), key=lambda r: r["index"])
    ratios = np.array([r["ratio"] for r in runs])
    dims = [r["d"] for r in runs]
    per_dim = {}
    for d in sorted(set(dims)):
        sel = ratios[[i for i, x in enumerate(dims) if x == d]]
        per_dim[str(d)] = {"runs": int(sel.size), "median_ratio": float(np.median(sel)),
                           "max_ratio": float(sel.max())}
    return {
        "runs": len(runs),
        "max_ratio": float(ratios.max()),
        "all_converged": all(r["converged"] for r in runs),
        "bound_exceeded": int(sum(r["mistakes"] > r["bound"] for r in runs)),
        "per_dimension": per_dim,
        "dims": dims,
        "mistakes": [r["mistakes"] for r in runs],
        "bounds": [r["bound"] for r in runs],
        "ratios": ratios.tolist(),
        "epochs": [r["epochs"] for r in runs],
    }


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """Mistakes against the bound (impossible region shaded) and ratios per dimension."""
    fig, (ax, bx) = new_figure(2)
    bounds, mistakes = as_array(results["bounds"]), as_array(results["mistakes"])
    dims = np.asarray(results["dims"])
    top = max(bounds.max(), mistakes.max()) * 1.1
    grid = np.array([0.0, top])
    ax.fill_between(grid, grid, top, color="0.85",
                    label="impossible: mistakes > (R/γ)²")
    ax.plot(grid, grid, "k-", lw=1)
    sc = ax.scatter(bounds, mistakes, c=np.log(dims), s=10, cmap="viridis")
    ax.set(xlim=(0, top), ylim=(0, top),
           xlabel="Novikoff bound (R/γ)²", ylabel="mistakes to convergence",
           title=f"Mistakes never exceed the bound\n({results['runs']} separable datasets)")
    ax.legend(loc="upper left")
    count_axis(ax.yaxis)
    cbar = fig.colorbar(sc, ax=ax)
    uniq = sorted(set(results["dims"]))
    cbar.set_ticks(np.log(uniq), labels=[str(d) for d in uniq])
    cbar.set_label("dimension d")
    per = results["per_dimension"]
    ratios = as_array(results["ratios"])
    bx.boxplot([ratios[dims == d] for d in uniq], tick_labels=[str(d) for d in uniq])
    bx.axhline(1.0, color="k", lw=1)
    bx.set(xlabel="dimension d", ylabel="mistakes / (R/γ)²", ylim=(0, 1.05),
           title=f"max ratio {results['max_ratio']:.2f}")
    bx.plot(range(1, len(uniq) + 1), [per[str(d)]["max_ratio"] for d in uniq], "r^",
            label="max")
    legend_outside(bx)
    return [save_figure(fig, out_dir, "novikoff")]


run = inline(__name__)
