"""The Mark I with broken parts: accuracy and training time against the damage.

Setup: the emulated Mark I (:class:`markone.hardware.MarkI`, default physics) learns
``chars`` in the ``block`` typeface, ``per_class`` jittered figures each, for at most
``max_epochs`` passes, after a fraction of one kind of part has been broken from the
start (:func:`markone.hardware.faults.random_faults`): plugboard wires cut
(``cut_wires``), A-units dead (``dead_a_units``), or potentiometer motors stopped at
zero (``stopped_motors``). ``runs`` machines per point, each with its own wiring,
figures and damage (the same seeds across the fractions of a kind, so the curves are
paired). Measured: accuracy on the training figures and on fresh figures, passes and
machine time to train, whether the run converged, and whether the damaged task is
still learnable at all (every R-unit's task separable on the damaged A-unit patterns,
decided exactly by :func:`verify.check_separable`).

``results.json``: ``kinds``, ``fractions``, and ``[kind][fraction]`` tables (means over
runs, and standard deviations ``*_sd``) of ``train_accuracy``, ``test_accuracy``,
``epochs``, ``machine_time_s``, ``converged`` and ``learnable``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from markone._internal.validation import child_seeds
from markone._internal.typing import JSONDict, PathLike
from markone._internal.style import legend_outside, styled
from sims._common import check_letters, inline, new_figure, save_figure
from markone.datasets import letters
from verify.separability import check_separable

__all__ = ["NAME", "DEFAULTS", "SMALL", "tasks", "run_task", "combine", "plot", "run"]

NAME = "damage"
KINDS = ("cut_wires", "dead_a_units", "stopped_motors")
DEFAULTS = {"chars": "ABCDEFGHIJKLMNOP", "per_class": 4, "test_per_class": 2,
            "max_epochs": 30, "kinds": list(KINDS),
            "fractions": [0.0, 0.25, 0.5, 0.75, 0.9, 0.97], "runs": 5}
SMALL = {"chars": "ABCD", "per_class": 2, "test_per_class": 1, "max_epochs": 10,
         "fractions": [0.0, 0.5, 0.97], "runs": 2}
METRICS = ("train_accuracy", "test_accuracy", "epochs", "machine_time_s", "converged",
           "learnable")


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """One task per (kind, fraction, run); a run's seed is shared across fractions."""
    check_letters(config["chars"])
    keys = ("chars", "per_class", "test_per_class", "max_epochs")
    return [{"id": f"{kind}-f{i}-run{r}", "kind": kind, "fraction": f, "run": r,
             "seed": s, **{k: config[k] for k in keys}}
            for kind in config["kinds"]
            for r, s in enumerate(child_seeds(seed, config["runs"]))
            for i, f in enumerate(config["fractions"])]


def run_task(spec: JSONDict) -> JSONDict:
    """Break one machine, train it, and score it."""
    from markone.hardware import MarkI
    from markone.hardware.faults import apply_faults, random_faults
    from verify.machine import machine_task

    wiring, data, test, damage = child_seeds(spec["seed"], 4)
    X, y = letters(spec["chars"], per_class=spec["per_class"], seed=data)
    Xt, yt = letters(spec["chars"], per_class=spec["test_per_class"], seed=test)
    machine = MarkI(seed=wiring)
    plan = random_faults(machine, **{spec["kind"]: spec["fraction"]}, seed=damage)
    apply_faults(machine, plan)
    run = machine.train(X, y, max_epochs=spec["max_epochs"])
    task = machine_task(machine, X, y)
    learnable = all(
        check_separable(task.patterns[:, cols].astype(np.int64), task.targets[:, r],
                        intercept=False, progress=False).separable
        for r, cols in enumerate(task.inputs))
    return {"kind": spec["kind"], "fraction": spec["fraction"], "run": spec["run"],
            "faults": len(plan), "train_accuracy": machine.score(X, y),
            "test_accuracy": machine.score(Xt, yt), "epochs": run.epochs,
            "machine_time_s": run.sim_time_s, "converged": run.converged,
            "learnable": bool(learnable)}


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """Tables ``[kind][fraction]``: the mean and standard deviation over runs."""
    out = {"kinds": config["kinds"], "fractions": config["fractions"],
           "runs": config["runs"], "n_classes": len(config["chars"])}
    for m in METRICS:
        cells = [[[float(t[m]) for t in task_results
                   if t["kind"] == kind and t["fraction"] == f]
                  for f in config["fractions"]] for kind in config["kinds"]]
        out[m] = [[float(np.mean(c)) for c in row] for row in cells]
        out[f"{m}_sd"] = [[float(np.std(c)) for c in row] for row in cells]
    return out


_LABELS = {"cut_wires": "plugboard wires cut", "dead_a_units": "A-units dead",
           "stopped_motors": "motors stopped"}


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """Accuracy (fresh figures) and machine time against the fraction broken."""
    fig, (ax, bx) = new_figure(2, width=5)
    f = np.asarray(results["fractions"])
    for i, kind in enumerate(results["kinds"]):
        label = _LABELS.get(kind, kind)
        mean = np.asarray(results["test_accuracy"][i])
        sd = np.asarray(results["test_accuracy_sd"][i])
        ax.errorbar(f, mean, yerr=sd, fmt="o-", capsize=3, label=label)
        bx.plot(f, np.asarray(results["machine_time_s"][i]) / 60, "o-", label=label)
    chance = 1 / results["n_classes"]
    ax.axhline(chance, color="grey", lw=0.8, ls=":")
    ax.set(xlabel="fraction broken", ylabel="accuracy on fresh figures",
           ylim=(0, 1.02), title=f"Mark I with broken parts\n{results['n_classes']} "
           f"letters, {results['runs']} machines per point")
    legend_outside(ax)
    bx.set(xlabel="fraction broken", ylabel="machine time to train (minutes)",
           title="training time")
    legend_outside(bx)
    return [save_figure(fig, out_dir, "damage")]


run = inline(__name__)
