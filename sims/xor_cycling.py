"""XOR: the perceptron never converges, but its weights cycle on a bounded orbit.

Setup (Minsky & Papert, *Perceptrons*, 1969, ch. 11 (the cycling theorem, proved by
Block & Levin 1970); the XOR example as in Bishop 2006 §4.1.7): the four XOR points in
the -1/+1 and the 0/1 encodings, with an intercept, presented again and again in the
given order. The core trains exactly (``exact=True``, integer weights) for
``max_epochs`` passes (XOR never converges, so all of them) and records every update;
:func:`verify.check_cycling` finds the exact transient and period of the cyclic
trajectory and, over *all* orders at once, the finite set of reachable weight vectors
and its largest norm: bounded whatever the order.

``results.json``, per encoding: ``trajectory`` (weights after each update),
``transient`` and ``period_updates`` / ``period_epochs``, ``cycle``,
``reachable_states`` and ``max_norm_sq`` (all orders), and ``periodic`` (the core's
trajectory repeats with the period found).
"""

from __future__ import annotations

from pathlib import Path
import warnings

import numpy as np

from markone._internal.style import count_axis, legend_outside, styled
from markone._internal.typing import JSONDict, PathLike
from sims._common import inline, new_figure, save_figure
import markone
from markone.datasets import xor
from verify import check_cycling

__all__ = ["NAME", "DEFAULTS", "SMALL", "tasks", "run_task", "combine", "plot", "run"]

NAME = "xor_cycling"
DEFAULTS = {"max_epochs": 6, "encodings": ["pm1", "01"]}
SMALL = {"max_epochs": 4}


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """One task per encoding (nothing random: ``seed`` is unused)."""
    return [{"id": enc, "encoding": enc, "max_epochs": config["max_epochs"]}
            for enc in config["encodings"]]


def run_task(spec: JSONDict) -> JSONDict:
    """The exact trajectory and the cycle report of one encoding."""
    X, y = xor(spec["encoding"])
    Xi = X.astype(np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        res = markone.train(Xi, y, exact=True, record=True,
                            max_epochs=spec["max_epochs"])
    traj = [[int(v) for v in w] for w in res.weights_after]
    cyc = check_cycling(Xi, y, progress=False)  # the runner shows the sweep's bar
    every = check_cycling(Xi, y, order="all", progress=False)
    p, t0 = cyc.period_updates, cyc.transient
    periodic = all(traj[i] == traj[i + p] for i in range(max(t0 - 1, 0), len(traj) - p))
    return {"encoding": spec["encoding"], "trajectory": traj,
            "mistakes_per_epoch": list(res.mistakes_per_epoch),
            "converged": bool(res.converged), "transient": t0,
            "period_updates": p, "period_epochs": cyc.period_epochs,
            "cycle": [list(w) for w in cyc.cycle], "periodic": periodic,
            "reachable_states": every.states, "max_norm_sq": every.max_norm_sq,
            "reachable_complete": every.complete,
            "trajectory_max_norm_sq": max(sum(v * v for v in w) for w in traj)}


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """One entry per encoding."""
    return {"encodings": {r["encoding"]: r for r in task_results},
            "bounded": all(r["trajectory_max_norm_sq"] <= r["max_norm_sq"]
                           for r in task_results),
            "periodic": all(r["periodic"] for r in task_results)}


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """Each weight after every update; the periodic part shaded."""
    encs = results["encodings"]
    fig, axes = new_figure(len(encs), width=4.5, height=3.5)
    for ax, (enc, r) in zip(axes, encs.items()):
        W = np.asarray(r["trajectory"])
        k = np.arange(1, len(W) + 1)
        for j, lab in enumerate(["w₁", "w₂", "b (intercept)"]):
            ax.step(k, W[:, j], where="post", marker=".", label=lab)
        ax.axvspan(max(r["transient"], 1), len(W), color="0.9", zorder=0,
                   label=f"cycle: period {r['period_updates']} updates")
        ax.set(xlabel="update", ylabel="weight",
               title=f"XOR ({enc}): {r['reachable_states']} states reachable,\n"
                     f"max ‖w‖² {r['max_norm_sq']}")
        count_axis(ax.xaxis), count_axis(ax.yaxis)
        legend_outside(ax)
    return [save_figure(fig, out_dir, "xor_cycling")]


run = inline(__name__)
