"""The two quantities of Novikoff's proof, measured after every mistake of one run.

Setup (Novikoff 1962; Shalev-Shwartz & Ben-David 2014, proof of Thm 9.1; Mohri et al.
2018, Thm 8.8): ``n`` points in R^d from :func:`markone.datasets.separable` with
margin ``gamma`` (``u`` known), trained without intercept in a shuffled order, every
update recorded. After the k-th mistake the proof shows

* ``u . w_k >= k * gamma_u``  (each update gains at least ``gamma_u`` along ``u``),
* ``||w_k|| <= sqrt(k) * R``  (each update adds at most ``R^2`` to ``||w||^2``),

and since ``u . w_k <= ||w_k||`` the two lines cross at ``k = (R/gamma_u)^2``: no run
can make more mistakes. ``results.json``: ``k``, ``u_dot_w``, ``norm_w``, ``k_gamma``,
``sqrt_k_R``, ``R``, ``gamma``, ``bound``, ``mistakes`` and the two checks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from markone._internal.validation import child_seeds
from markone._internal.typing import JSONDict, PathLike
from markone._internal.style import count_axis, legend_outside, styled
from verify.margin import novikoff_bound
from sims._common import check_margin, inline, new_figure, save_figure
import markone
from markone.datasets import separable

__all__ = ["NAME", "DEFAULTS", "SMALL", "tasks", "run_task", "combine", "plot", "run"]

NAME = "proof_quantities"
DEFAULTS = {"n": 200, "d": 100, "gamma": 0.1}
SMALL = {"n": 50, "d": 20}


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """One run."""
    check_margin(config["gamma"])
    return [{"id": "run", **config, "seed": child_seeds(seed, 1)[0]}]


def run_task(spec: JSONDict) -> JSONDict:
    """Train once with ``record=True`` and project every iterate on ``u``."""
    data_seed, order_seed = child_seeds(spec["seed"], 2)
    X, y, u = separable(spec["n"], spec["d"], spec["gamma"], seed=data_seed)
    res = markone.train(X, y, intercept=False, order="shuffle", seed=order_seed,
                        record=True, max_epochs=10_000)
    W = np.asarray(res.weights_after)
    R = float(np.linalg.norm(X, axis=1).max())
    gamma_u = float((y * (X @ u)).min())
    return {"u_dot_w": (W @ u).tolist(), "norm_w": np.linalg.norm(W, axis=1).tolist(),
            "R": R, "gamma": gamma_u, "converged": bool(res.converged),
            "epochs": int(res.epochs)}


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """The measured quantities next to the proof's lines."""
    (r,) = task_results
    k = np.arange(1, len(r["u_dot_w"]) + 1)
    k_gamma = k * r["gamma"]
    sqrt_k_R = np.sqrt(k) * r["R"]
    return {
        "k": k.tolist(), "u_dot_w": r["u_dot_w"], "norm_w": r["norm_w"],
        "k_gamma": k_gamma.tolist(), "sqrt_k_R": sqrt_k_R.tolist(),
        "R": r["R"], "gamma": r["gamma"], "bound": novikoff_bound(r["R"], r["gamma"]),
        "mistakes": int(k.size), "converged": r["converged"], "epochs": r["epochs"],
        # with a relative tolerance for the rounding of float dot products
        "lower_holds": bool(np.all(np.asarray(r["u_dot_w"]) >= k_gamma * (1 - 1e-12))),
        "upper_holds": bool(np.all(np.asarray(r["norm_w"]) <= sqrt_k_R * (1 + 1e-12))),
    }


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """u.w_k and ||w_k|| between the lines k*gamma and sqrt(k)*R."""
    fig, (ax,) = new_figure(width=6)
    bound = results["bound"]
    k = np.arange(1, int(np.ceil(bound)) + 2)
    ax.plot(k, k * results["gamma"], "C0--", lw=1, label="k·γ (lower bound on u·w)")
    ax.plot(k, np.sqrt(k) * results["R"], "C1--", lw=1,
            label="√k·R (upper bound on ‖w‖)")
    ax.plot(results["k"], results["u_dot_w"], "C0o-", ms=3, label="u·w_k")
    ax.plot(results["k"], results["norm_w"], "C1s-", ms=3, label="‖w_k‖")
    ax.axvline(bound, color="k", lw=1, ls=":")
    ax.text(bound, 0, " (R/γ)²", va="bottom", ha="right", rotation=90)
    ax.set(xlabel="mistakes k", ylabel="length",
           title=f"The two inequalities of Novikoff's proof\n"
                 f"{results['mistakes']} mistakes, bound {bound:.0f}")
    count_axis(ax.xaxis)
    legend_outside(ax)
    return [save_figure(fig, out_dir, "proof_quantities")]


run = inline(__name__)
