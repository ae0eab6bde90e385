"""Certified yield: the fraction of randomly damaged Mark Is that can still learn a task.

Setup: ``runs`` Mark Is (:class:`markone.hardware.MarkI` with ``n_a_units`` A-units
and ``n_r_units`` R-units, the other parameters at their defaults), each with its own wiring, are damaged from the
start by :func:`markone.hardware.faults.random_faults` at each rate of ``rates`` for
each kind of ``kinds`` (its fraction options: ``dead_a_units``, ``cut_wires``,
``stopped_motors``, ``dead_photocells``; the same machines and damage seeds at every
rate, so the curves are paired). The task is the same for every machine: the letters
``chars``, ``per_class`` jittered figures each, drawn once from the root seed.

Each damaged machine is *decided exactly*: learnable when every R-unit's targets are
separable on its live A-unit patterns (an exact witness), unlearnable when one R-unit's
are not (a Gordan certificate), and then :func:`verify.machine.minimal_faults` names a
1-minimal set of its faults (work budget ``max_tests``): alone they make the task
unlearnable, and without any one of them it is learnable. Each verdict is written as a
certificate file that ``markone verify check`` re-checks
(:mod:`sims._certified`), into ``OUT/yield/certificates/``:

``KIND-rRATE-mRUN-machine.json``
    the damaged machine's task, learnable (witness) or not (certificate);
``KIND-rRATE-mRUN-minimal.json``
    an unlearnable machine's task with only its 1-minimal faults (certificate);
``KIND-rRATE-mRUN-minimality.json``
    the same task with each one of those faults repaired in turn, every one learnable
    (one witness for all), when the minimisation completed.

Yield at a rate is the fraction learnable, with its Wilson score interval at
``confidence`` (:func:`sims._stats.wilson_interval`). Every verdict is limited by work
(separability checks, ``max_tests``), never by the clock.

``results.json``: ``kinds``, ``rates``, and per kind a list over rates of ``learnable``,
``decided``, ``yield``, ``low``, ``high`` (the interval), ``mean_minimal`` (the mean
size of the 1-minimal fault sets) and ``machines`` (one record per machine: its run,
verdict, number of faults, live A-units, the minimal faults named by what broke, and
its certificate files).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from markone._internal.style import legend_outside, styled
from markone._internal.typing import JSONDict, PathLike
from markone._internal.validation import check_choice, child_seeds
from sims._common import chunked, inline, new_figure, save_figure

__all__ = ["NAME", "DEFAULTS", "SMALL", "FILES", "tasks", "run_task", "combine",
           "plot", "files", "run", "machine_and_task"]

NAME = "yield"
#: The fraction options of :func:`markone.hardware.faults.random_faults`.
KINDS = ("dead_a_units", "cut_wires", "stopped_motors", "dead_photocells")
#: The folder (in ``OUT/yield``) of the certificate files.
FILES = "certificates"
DEFAULTS = {"chars": "ABCD", "per_class": 3, "n_a_units": 64, "n_r_units": 2,
            "kinds": ["dead_a_units", "cut_wires"],
            "rates": [0.0, 0.2, 0.4, 0.5, 0.6, 0.65, 0.7, 0.8, 0.9], "runs": 30,
            "batch": 10, "confidence": 0.95, "max_tests": 400}
SMALL = {"kinds": ["dead_a_units"], "rates": [0.0, 0.7, 0.95], "runs": 4, "batch": 2}


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """One task per (kind, rate, batch of machines); the figures' seed and each
    machine's seed are drawn from ``seed`` up front and shared across rates."""
    for kind in config["kinds"]:
        check_choice(kind, "kind", KINDS)
    data_seed, machines_seed = child_seeds(seed, 2)
    runs = list(enumerate(child_seeds(machines_seed, config["runs"])))
    keys = ("chars", "per_class", "n_a_units", "n_r_units", "max_tests")
    return [{"id": f"{kind}-r{i}-b{b}", "kind": kind, "rate": rate, "rate_index": i,
             "data_seed": data_seed, "machines": [[r, s] for r, s in batch],
             **{k: config[k] for k in keys}}
            for kind in config["kinds"]
            for i, rate in enumerate(config["rates"])
            for b, batch in enumerate(chunked(runs, config["batch"]))]


def machine_and_task(spec: JSONDict, machine_seed: int) -> tuple:
    """``(machine, plan, images, labels)``: the damaged machine of ``spec`` with seed
    ``machine_seed`` (a :class:`~markone.hardware.MarkI` with its fault plan applied)
    and the task's figures, as :func:`run_task` builds them."""
    from markone.datasets import letters
    from markone.hardware import MarkI, MarkIParams
    from markone.hardware.faults import apply_faults, random_faults

    images, labels = letters(spec["chars"], per_class=spec["per_class"],
                             seed=spec["data_seed"])
    wiring, damage = child_seeds(machine_seed, 2)
    params = MarkIParams(n_a_units=spec["n_a_units"], n_r_units=spec["n_r_units"])
    machine = MarkI(params, seed=wiring)
    plan = random_faults(machine, **{spec["kind"]: spec["rate"]}, seed=damage)
    apply_faults(machine, plan)
    return machine, plan, images, labels


def run_task(spec: JSONDict) -> JSONDict:
    """Decide each machine of the batch, with its certificates (module doc)."""
    return {"kind": spec["kind"], "rate": spec["rate"],
            "machines": [_decide_machine(spec, run, seed)
                         for run, seed in spec["machines"]]}


def _decide_machine(spec, run, seed):
    from markone.hardware.faults import FaultPlan, describe_fault
    from sims._certified import certificate, decide, machine_parts
    from verify.machine import machine_task, minimal_faults

    machine, plan, images, labels = machine_and_task(spec, seed)
    stem = f"{spec['kind']}-r{spec['rate_index']}-m{run:03d}"
    source = {"experiment": NAME, "kind": spec["kind"], "rate": spec["rate"],
              "run": run, "machine_seed": seed}
    task = machine_task(machine, images, labels)
    parts = machine_parts(task)
    verdict = decide(parts)
    live = int(task.patterns.any(axis=0).sum())
    out = {"run": run, "learnable": verdict.separable, "faults": len(plan),
           "live_a_units": live, "minimal": None, "minimal_complete": None,
           "certificates": {}}
    if verdict.separable is None:
        return out
    out["certificates"][f"{stem}-machine.json"] = certificate(
        parts, verdict, {**source, "plan": "all faults"})
    if verdict.separable:
        return out
    least = minimal_faults(machine, images, labels, max_tests=spec["max_tests"])
    kept = [plan.faults[i] for i in least.faults]
    out["minimal"] = [describe_fault(f) for f in kept]
    out["minimal_complete"] = least.complete
    sub = machine_parts(machine_task(machine, images, labels, plan=FaultPlan(tuple(kept))))
    out["certificates"][f"{stem}-minimal.json"] = certificate(
        sub, decide(sub), {**source, "plan": "the 1-minimal faults"})
    if least.complete:
        repaired = [part for i in range(len(kept)) for part in machine_parts(machine_task(
            machine, images, labels, plan=FaultPlan(tuple(kept[:i] + kept[i + 1:]))))]
        each = decide(repaired)
        if each.separable:
            out["certificates"][f"{stem}-minimality.json"] = certificate(
                repaired, each, {**source, "plan": "the 1-minimal faults, each one "
                                 "repaired in turn"})
    return out


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """Per kind and rate: the yield, its Wilson interval and the machines' records."""
    from sims._stats import wilson_interval

    out: JSONDict = {"kinds": config["kinds"], "rates": config["rates"],
                     "runs": config["runs"], "chars": config["chars"],
                     "n_a_units": config["n_a_units"], "n_r_units": config["n_r_units"],
                     "confidence": config["confidence"]}
    for kind in config["kinds"]:
        rows: dict[str, list] = {k: [] for k in ("learnable", "decided", "yield", "low",
                                                 "high", "mean_minimal", "machines")}
        for rate in config["rates"]:
            machines = sorted((m for t in task_results
                               if t["kind"] == kind and t["rate"] == rate
                               for m in t["machines"]), key=lambda m: m["run"])
            decided = [m for m in machines if m["learnable"] is not None]
            good = sum(m["learnable"] for m in decided)
            low, high = wilson_interval(good, len(decided), config["confidence"]) \
                if decided else (0.0, 1.0)
            sizes = [len(m["minimal"]) for m in decided if m["minimal"] is not None]
            for key, value in (("learnable", good), ("decided", len(decided)),
                               ("yield", good / len(decided) if decided else None),
                               ("low", low), ("high", high),
                               ("mean_minimal", float(np.mean(sizes)) if sizes else None),
                               ("machines", [_record(m) for m in machines])):
                rows[key].append(value)
        out[kind] = rows
    return out


def _record(machine):
    """A machine's record in ``results.json``: its certificates by file name only."""
    return {**{k: v for k, v in machine.items() if k != "certificates"},
            "certificates": sorted(machine["certificates"])}


def files(config: JSONDict, task_results: list[JSONDict]) -> dict[str, str]:
    """The certificate files, ``{name: text}`` (written into ``OUT/yield/FILES``)."""
    from verify.certificate import certificate_json

    return {name: certificate_json(doc) for t in task_results for m in t["machines"]
            for name, doc in m["certificates"].items()}


_LABELS = {"cut_wires": "plugboard wires cut", "dead_a_units": "A-units dead",
           "stopped_motors": "motors stopped", "dead_photocells": "photocells dead"}


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """Yield against the fault rate, one curve per kind, with Wilson intervals."""
    fig, (ax,) = new_figure(1, width=6)
    rates = np.asarray(results["rates"], dtype=float)
    for kind in results["kinds"]:
        row = results[kind]
        y = np.asarray([np.nan if v is None else v for v in row["yield"]], dtype=float)
        ax.fill_between(rates, row["low"], row["high"], alpha=0.2)
        ax.plot(rates, y, "o-", label=_LABELS.get(kind, kind))
    ax.set(xlabel="fraction broken", ylabel="yield (fraction still able to learn)",
           ylim=(-0.02, 1.02),
           title=f"Certified yield: {results['chars']} on Mark Is of "
           f"{results['n_a_units']} A-units\n{results['runs']} machines per point, "
           f"{round(100 * results['confidence'])} % Wilson intervals")
    legend_outside(ax)
    return [save_figure(fig, out_dir, "yield")]


run = inline(__name__)
