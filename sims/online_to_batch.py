"""Online to batch: the mistake rate of one pass bounds the error of a random iterate.

Setup (the online-to-batch conversion: Cesa-Bianchi, Conconi & Gentile 2004;
Shalev-Shwartz & Ben-David 2014, §9.1 and exercise 9.5; Mohri et al. 2018, Thm 8.10):
points uniform on the unit circle, labelled by ``u = (1, 0)``, those with
``|x_1| < gamma`` removed, so ``R = 1`` and the margin is ``gamma``. One pass over ``n``
i.i.d. examples (no intercept), repeated ``runs`` times. The population error of an
iterate ``w`` is computed exactly: with ``theta`` the angle between ``w`` and ``u``
and ``alpha = arccos(gamma)`` (the support is the two arcs ``|phi| <= alpha`` and
``|phi - pi| <= alpha``), ``w`` misclassifies two arcs of length
``clip(theta - (pi/2 - alpha), 0, 2 alpha)`` each, out of ``4 alpha``; ``w = 0``
predicts +1 everywhere (error 1/2).

Because example ``t`` is independent of ``w_{t-1}``, the probability of a mistake at
step ``t`` equals the expected error of ``w_{t-1}``: the figure shows both. (Except at
step 1: training counts the zero score of ``w_0 = 0`` as a mistake, while ``w_0``
predicting +1 has error 1/2.) The iterate
chosen uniformly at random has expected error ``E[mistakes] / (n + 1)`` at most
``(R/gamma)^2 / (n + 1)``. ``results.json``: ``mean_mistakes``, ``expected_error``,
``bound``, and per step ``mistake_rate`` and ``mean_error``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from markone._internal.validation import as_generator, child_seeds
from markone._internal.typing import ArrayLike, JSONDict, PathLike, Seed
from markone._internal.style import legend_outside, styled
from verify.margin import novikoff_bound
from sims._common import check_margin, chunked, inline, new_figure, save_figure

__all__ = ["NAME", "DEFAULTS", "SMALL", "tasks", "run_task", "combine", "plot", "run",
           "arc_error", "sample_arcs"]

NAME = "online_to_batch"
DEFAULTS = {"runs": 2000, "n": 200, "gamma": 0.1, "batch": 500}
SMALL = {"runs": 40, "n": 50, "batch": 20}


def arc_error(W: ArrayLike, gamma: float) -> np.ndarray:
    """Exact population error of each row of ``W`` (shape ``(..., 2)``).

    The distribution is uniform on the unit circle without ``|x_1| < gamma``,
    labelled by ``sign(x_1)``; a zero vector predicts +1 (error 1/2).

    >>> arc_error([[1.0, 0.0], [-1.0, 0.0], [0.0, 0.0]], 0.1).tolist()
    [0.0, 1.0, 0.5]
    """
    W = np.asarray(W, dtype=float)
    alpha = np.arccos(gamma)
    theta = np.abs(np.arctan2(W[..., 1], W[..., 0]))
    err = np.clip(theta - (np.pi / 2 - alpha), 0.0, 2 * alpha) / (2 * alpha)
    return np.where((W == 0).all(axis=-1), 0.5, err)


def sample_arcs(n: int, gamma: float, seed: Seed = None) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points uniform on the unit circle with ``|x_1| >= gamma``, and labels.

    >>> X, y = sample_arcs(5, 0.1, seed=0)
    >>> X.shape, bool((np.abs(X[:, 0]) >= 0.1).all()), bool((y == np.sign(X[:, 0])).all())
    ((5, 2), True, True)
    """
    rng = as_generator(seed)
    alpha = np.arccos(gamma)
    phi = rng.uniform(-alpha, alpha, n) + np.pi * rng.integers(0, 2, n)
    X = np.column_stack([np.cos(phi), np.sin(phi)])
    return X, np.where(X[:, 0] > 0, 1, -1)


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """Batches of runs, one seed per run drawn up front."""
    check_margin(config["gamma"])
    seeds = child_seeds(seed, config["runs"])
    return [{"id": f"batch-{k:04d}", "seeds": part, "n": config["n"],
             "gamma": config["gamma"]}
            for k, part in enumerate(chunked(seeds, config["batch"]))]


def run_task(spec: JSONDict) -> JSONDict:
    """One pass per run, all runs at once; sums over runs of mistakes and errors."""
    from markone.batch import trace_many

    n, gamma = spec["n"], spec["gamma"]
    data = [sample_arcs(n, gamma, seed=s) for s in spec["seeds"]]
    stream = np.broadcast_to(np.arange(n), (len(data), n))
    last, _ = trace_many([X for X, _ in data], [y for _, y in data], stream,
                         intercept=False)
    W = np.concatenate([np.zeros((len(data), 1, 2)), last], axis=1)  # w_0 .. w_n
    mistake = (W[:, 1:] != W[:, :-1]).any(axis=2)                      # at step 1..n
    err = arc_error(W, gamma)
    return {"runs": len(data), "mistake_count": mistake.sum(axis=0).tolist(),
            "error_sum": err.sum(axis=0).tolist(),
            "mistakes_per_run": mistake.sum(axis=1).tolist()}


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """Averages over all runs, the random-iterate error and its bound."""
    runs = sum(t["runs"] for t in task_results)
    n, gamma = config["n"], config["gamma"]
    rate = np.sum([t["mistake_count"] for t in task_results], axis=0) / runs
    mean_err = np.sum([t["error_sum"] for t in task_results], axis=0) / runs
    per_run = np.concatenate([t["mistakes_per_run"] for t in task_results])
    return {
        "runs": runs, "n": n, "R": 1.0, "gamma": gamma,
        "mean_mistakes": float(per_run.mean()),
        "max_mistakes": int(per_run.max()),
        "expected_error": float(per_run.mean() / (n + 1)),
        "random_iterate_error": float(mean_err.mean()),
        "bound": novikoff_bound(1.0, gamma) / (n + 1),
        "mistake_rate": rate.tolist(),      # P(mistake at step t), t = 1..n
        "mean_error": mean_err.tolist(),    # E err(w_t), t = 0..n
    }


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """Mistake frequency at step t against the exact error of w_{t-1}."""
    fig, (ax,) = new_figure(width=6)
    t = np.arange(1, results["n"] + 1)
    ax.plot(t, results["mistake_rate"], "C0.", ms=3,
            label=f"frequency of a mistake at step t ({results['runs']} runs)")
    ax.plot(t, results["mean_error"][:-1], "C1-", label="exact error of w_{t-1}, mean")
    ax.axhline(results["expected_error"], color="C2", ls="--",
               label=f"random iterate: {results['expected_error']:.4f}")
    ax.axhline(results["bound"], color="k", ls=":",
               label=f"bound (R/γ)²/(n+1) = {results['bound']:.3f}")
    ax.set(xscale="log", yscale="log", xlabel="step t", ylabel="probability",
           title=f"online to batch on the circle\n(R = 1, γ = {results['gamma']:g})")
    legend_outside(ax)
    return [save_figure(fig, out_dir, "online_to_batch")]


run = inline(__name__)
