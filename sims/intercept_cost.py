"""The price of an intercept: the mistake bound as a function of the appended constant c.

Setup (the standard reduction of a biased separator to a homogeneous one, e.g.
Shalev-Shwartz & Ben-David 2014, §9.1; Mohri et al. 2018, §8.3.1; the optimum
c^2 = R|b| as in Cristianini & Shawe-Taylor, *An Introduction to Support Vector
Machines*, 2000, §2.1.1): ``n`` points uniform in a unit disc centred ``offset`` away
from the origin in R^``d`` (``d >= 2``), at 45 degrees from ``u``, labelled by the
hyperplane ``u.x + b = 0`` through the disc's centre (``||u|| = 1``, so
``b = -offset/sqrt(2)``), points closer than ``gamma`` removed. Appending a
constant ``c`` makes the separator ``(u, b/c)`` homogeneous: the radius becomes
``sqrt(R^2 + c^2)`` and the margin ``gamma / sqrt(1 + b^2/c^2)``, so

    bound(c) = (R^2 + c^2)(1 + b^2/c^2) / gamma^2,

minimal at ``c^2 = R|b|`` with value ``(R + |b|)^2 / gamma^2``
(:func:`verify.intercept_cost`). For each ``c`` of a grid the perceptron is trained
with ``intercept_scale=c`` over ``orders`` shuffled orders, and the best bound at that
``c`` (the maximum margin of the augmented data, :func:`verify.max_margin`) is shown.

``results.json``: ``c``, ``bound`` (the curve), ``c_opt``, ``bound_min``, ``checked``,
``best_bound``, ``mistakes_mean``, ``mistakes_max``, ``R``, ``b``, ``gamma``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from markone._internal.validation import as_generator, child_seeds
from markone._internal.typing import JSONDict, PathLike, Seed
from markone._internal.style import legend_outside, styled
from sims._common import check_between, chunked, inline, new_figure, save_figure
from markone.engine import augment
from verify import max_margin, intercept_cost

__all__ = ["NAME", "DEFAULTS", "SMALL", "tasks", "run_task", "combine", "plot", "run",
           "offset_data"]

NAME = "intercept_cost"
DEFAULTS = {"n": 200, "d": 2, "offset": 3.0, "gamma": 0.1, "c_min": 0.05,
            "c_max": 50.0, "n_c": 25, "orders": 20, "batch": 5}
SMALL = {"n": 60, "n_c": 6, "orders": 4, "batch": 3}


def offset_data(n: int, d: int, offset: float, gamma: float, seed: Seed = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """``(X, y, u, b)``: a unit disc ``offset`` from the origin, split through its centre.

    >>> X, y, u, b = offset_data(20, 2, 3.0, 0.1, seed=0)
    >>> bool(np.all(y * (X @ u + b) >= 0.1)), round(float(np.linalg.norm(u)), 12)
    (True, 1.0)
    """
    rng = as_generator(seed)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    v = rng.standard_normal(d)
    v -= (v @ u) * u                      # a unit vector orthogonal to u
    v /= np.linalg.norm(v)
    centre = offset * (u + v) / np.sqrt(2)  # 45 degrees from u: b = -offset/sqrt(2)
    b = -float(u @ centre)
    pts: list[np.ndarray] = []
    while sum(len(p) for p in pts) < n:
        g = rng.standard_normal((4 * n, d))
        g *= (rng.random((4 * n, 1)) ** (1 / d)) / np.linalg.norm(g, axis=1,
                                                                     keepdims=True)
        x = centre + g
        pts.append(x[np.abs(x @ u + b) >= gamma])
    X = np.concatenate(pts)[:n]
    return X, np.where(X @ u + b > 0, 1, -1), u, b


def _grid(config):
    return np.geomspace(config["c_min"], config["c_max"], config["n_c"]).tolist()


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """Batches of c values; every task rebuilds the same data from one seed."""
    check_between(config["gamma"], "gamma", 0, float("inf"), why="a margin of 0 bounds "
                  "nothing")
    check_between(config["c_min"], "c_min", 0, config["c_max"], why="the constants c "
                  "run from c_min up to c_max")
    data_seed, order_seed = child_seeds(seed, 2)
    keys = ("n", "d", "offset", "gamma", "orders")
    return [{"id": f"c-{k:03d}", "c": part, "data_seed": data_seed,
             "order_seed": order_seed, **{x: config[x] for x in keys}}
            for k, part in enumerate(chunked(_grid(config), config["batch"]))]


def run_task(spec: JSONDict) -> JSONDict:
    """Mistakes over shuffled orders and the max-margin bound at each c."""
    from markone.batch import train_many

    X, y, u, b = offset_data(spec["n"], spec["d"], spec["offset"], spec["gamma"],
                             seed=spec["data_seed"])
    seeds = child_seeds(spec["order_seed"], spec["orders"])
    out = []
    for c in spec["c"]:
        res = train_many([X] * len(seeds), [y] * len(seeds), intercept_scale=c,
                         order="shuffle", seeds=seeds, max_epochs=100_000)
        best = max_margin(augment(X, True, c), y, intercept=False)
        out.append({"c": c, "mistakes": res.mistakes.tolist(),
                    "converged": bool(res.converged.all()), "best_bound": best.bound})
    R = float(np.linalg.norm(X, axis=1).max())
    gamma = float((y * (X @ u + b)).min())
    return {"points": out, "R": R, "b": b, "gamma": gamma}


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """The theoretical curve next to the measured mistakes."""
    pts = [p for t in task_results for p in t["points"]]
    R, b, gamma = task_results[0]["R"], task_results[0]["b"], task_results[0]["gamma"]
    curve = [intercept_cost(R, b, gamma, c=p["c"]) for p in pts]
    return {
        "R": R, "b": b, "gamma": gamma,
        "c": [p["c"] for p in pts],
        "bound": [k.bound_at_c for k in curve],
        "c_opt": curve[0].c_opt, "bound_min": curve[0].bound_min,
        "checked": curve[0].checked, "bound_no_b": curve[0].bound_no_b,
        "best_bound": [p["best_bound"] for p in pts],
        "mistakes_mean": [float(np.mean(p["mistakes"])) for p in pts],
        "mistakes_max": [max(p["mistakes"]) for p in pts],
        "converged": all(p["converged"] for p in pts),
    }


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """Bound and mistakes against c, the optimum marked."""
    fig, (ax,) = new_figure(width=6.5)
    c = np.asarray(results["c"])
    ax.plot(c, results["bound"], "k-", label="bound (R²+c²)(1+b²/c²)/γ² for (u, b)")
    ax.plot(c, results["best_bound"], "C2--", label="best bound at c (max margin)")
    ax.plot(c, results["mistakes_max"], "C3v", ms=4, label="mistakes, worst order")
    ax.plot(c, results["mistakes_mean"], "C0o", ms=4, label="mistakes, mean")
    ax.axvline(results["c_opt"], color="0.5", ls=":",
               label=f"c² = R|b|: c = {results['c_opt']:.2f}")
    ax.set(xscale="log", yscale="log", xlabel="appended constant c",
           ylabel="mistakes", title=f"The cost of the intercept's constant c\nR = {results['R']:.2f}, |b| = "
           f"{abs(results['b']):.2f}, γ = {results['gamma']:.3f}")
    legend_outside(ax)
    return [save_figure(fig, out_dir, "intercept_cost")]


run = inline(__name__)
