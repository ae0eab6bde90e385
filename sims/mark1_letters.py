"""The Mark I learning letters, swept over motor speed and potentiometer range.

Setup (the June 1960 demonstration: printed letters recognised without error in one
typeface after training, 85% in a second one, per the US Navy press caption; see
``shared/MARK1.md`` and Bishop 2006 §4.1.7): the 26 capitals in the ``block``
typeface, ``per_class`` jittered figures each (:func:`markone.datasets.letters`),
shown to the emulated machine (:class:`markone.hardware.MarkI`: 20 x 20 photocells,
512 randomly wired A-units, 8 R-units with a binary class code, motor-driven
potentiometers) for at most ``max_epochs`` passes with error-correction training. Swept:
the seconds per motor step and the end stops of the potentiometers (``(-k, k)`` for
each ``k`` in ``weight_range``, ``None`` for no limit), ``runs`` wirings each (the same
wiring and figures across the grid within a run). Measured: accuracy on the training
figures, on fresh jittered figures of the same typeface and on the ``serif`` typeface,
and machine time (settling, logic and motors, in simulated seconds).

``results.json``: ``motor_step_s``, ``weight_range``, and ``[speed][range]`` tables
(means over runs) of ``train_accuracy``, ``test_accuracy``, ``other_typeface_accuracy``,
``machine_time_s``, ``epochs``, ``saturated``; ``speed_changes_nothing_learned`` (the
motors' speed changes time only, never the weights).
"""

from __future__ import annotations

import hashlib
import string
from pathlib import Path

import numpy as np

from markone._internal.validation import child_seeds
from markone._internal.typing import JSONDict, PathLike
from markone._internal.style import legend_outside, styled
from sims._common import check_letters, inline, new_figure, save_figure
from markone.datasets import letters

__all__ = ["NAME", "DEFAULTS", "SMALL", "tasks", "run_task", "combine", "plot", "run"]

NAME = "mark1_letters"
DEFAULTS = {"chars": string.ascii_uppercase, "per_class": 10, "test_per_class": 4,
            "max_epochs": 30, "motor_step_s": [0.05, 0.2, 0.8],
            "weight_range": [3, 10, 50, None], "runs": 1}
SMALL = {"chars": "ABCD", "per_class": 3, "test_per_class": 2, "max_epochs": 10,
         "motor_step_s": [0.05, 0.2], "weight_range": [3, None], "runs": 1}


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """One task per (run, speed, range); within a run one seed for wiring and data."""
    check_letters(config["chars"])
    keys = ("chars", "per_class", "test_per_class", "max_epochs")
    return [{"id": f"run{r}-speed{i}-range{j}", "run": r, "seed": s,
             "motor_step_s": speed, "weight_range": k, **{x: config[x] for x in keys}}
            for r, s in enumerate(child_seeds(seed, config["runs"]))
            for i, speed in enumerate(config["motor_step_s"])
            for j, k in enumerate(config["weight_range"])]


def run_task(spec: JSONDict) -> JSONDict:
    """Train one machine and score it on three sets of figures."""
    from markone.hardware import MarkI, MarkIParams

    wiring, train_seed, test_seed, other_seed = child_seeds(spec["seed"], 4)
    chars = spec["chars"]
    X, y = letters(chars, per_class=spec["per_class"], seed=train_seed)
    Xt, yt = letters(chars, per_class=spec["test_per_class"], seed=test_seed)
    Xo, yo = letters(chars, per_class=spec["test_per_class"], seed=other_seed,
                     typeface="serif")
    k = spec["weight_range"]
    params = MarkIParams(motor_step_s=spec["motor_step_s"],
                         weight_range=None if k is None else (-k, k))
    machine = MarkI(params, seed=wiring)
    run = machine.train(X, y, max_epochs=spec["max_epochs"])
    return {"run": spec["run"], "motor_step_s": spec["motor_step_s"], "weight_range": k,
            "train_accuracy": float(machine.score(X, y)),
            "test_accuracy": float(machine.score(Xt, yt)),
            "other_typeface_accuracy": float(machine.score(Xo, yo)),
            "machine_time_s": run.sim_time_s, "epochs": run.epochs,
            "converged": run.converged, "saturated": int(run.saturated.sum()),
            "weights_sha256": hashlib.sha256(
                np.ascontiguousarray(run.weights, dtype=np.float64).tobytes()).hexdigest()}


METRICS = ("train_accuracy", "test_accuracy", "other_typeface_accuracy",
           "machine_time_s", "epochs", "saturated")


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """Tables ``[speed][range]`` of each metric, averaged over runs."""
    speeds, ranges = config["motor_step_s"], config["weight_range"]
    out = {"motor_step_s": speeds, "weight_range": ranges, "runs": config["runs"],
           "n_classes": len(config["chars"])}
    for m in METRICS:
        out[m] = [[float(np.mean([t[m] for t in task_results
                                  if t["motor_step_s"] == s and t["weight_range"] == k]))
                   for k in ranges] for s in speeds]
    same = all(
        len({t["weights_sha256"] for t in task_results
             if t["run"] == r and t["weight_range"] == k}) == 1
        for r in range(config["runs"]) for k in ranges)
    out["speed_changes_nothing_learned"] = same
    return out


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """Accuracy against the weight range; machine time against motor speed."""
    fig, (ax, bx) = new_figure(2, width=5)
    ranges = ["∞" if k is None else str(k) for k in results["weight_range"]]
    x = np.arange(len(ranges))
    i = len(results["motor_step_s"]) // 2           # accuracy does not depend on speed
    for key, lab in (("train_accuracy", "training figures"),
                     ("test_accuracy", "new figures, same typeface"),
                     ("other_typeface_accuracy", "second typeface")):
        ax.plot(x, results[key][i], "o-", label=lab)
    ax.set_xticks(x, ranges)
    ax.set(xlabel="potentiometer end stops ±k (motor steps)", ylabel="accuracy",
           ylim=(0, 1.02),
           title=f"Mark I accuracy against the end stops\n{results['n_classes']} letters "
                 f"(chance {1 / results['n_classes']:.2f})")
    legend_outside(ax)
    speeds = np.asarray(results["motor_step_s"])
    for j, lab in enumerate(ranges):  # stops never reached give the same line as ±∞:
        wider = len(ranges) - 1 - j     # each drawn inside a wider one, both stay seen
        bx.plot(speeds, [row[j] / 60 for row in results["machine_time_s"]],
                marker="o", ms=5 + 3 * wider, mfc="none" if wider else None,
                mew=2, lw=1.5 + wider, ls=("-", "--", "-.", ":")[j % 4],
                label=f"±{lab}")
    bx.set_xscale("log")
    bx.set_xticks(speeds, [f"{v:g}" for v in speeds])
    bx.minorticks_off()
    bx.set(xlabel="seconds per motor step",
           ylabel="machine time to train (minutes)", title="machine time")
    legend_outside(bx, title="end stops")
    return [save_figure(fig, out_dir, "mark1_letters")]


run = inline(__name__)
