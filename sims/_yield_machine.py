"""One damaged Mark I of the yield experiment: built, decided, certified, re-checked.

The parts of :mod:`sims.certified_yield` about a single machine (not part of the public API):
:func:`machine_and_task` builds it from its seed, :func:`decide_machine` decides it
and writes its certificate documents, :func:`claim_parts` says which data each
certificate file is about, and :func:`recheck_machine` checks a machine's files
against the machine built again.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markone._internal.typing import JSONDict, PathLike
from markone._internal.validation import check_choice, child_seeds
from markone.datasets import letters
from verify.certificate import check_certificate_file, data_sha256
from verify.errors import CertificateError

__all__ = ["FILE_CLAIMS", "machine_and_task", "claim_parts", "decide_machine",
           "recheck_machine", "train_machine"]

#: The certificate files of a machine, by the last word of their names: the plan
#: each is about.
FILE_CLAIMS = {"machine": "all faults", "minimal": "the 1-minimal faults",
               "minimality": "the 1-minimal faults, each one repaired in turn"}


def machine_and_task(spec: JSONDict, machine_seed: int) -> tuple:
    """``(machine, plan, images, labels)``: the damaged machine of ``spec`` with seed
    ``machine_seed`` (a :class:`~markone.hardware.MarkI` with its fault plan applied)
    and the task's figures, as :func:`sims.certified_yield.run_task` builds them."""
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


def claim_parts(machine: Any, images: Any, labels: Any, which: str,
                kept: Sequence[Any] = ()) -> list:
    """The stacked parts (:mod:`sims._certified`) that certificate file ``which`` is
    about: ``"machine"`` the damaged machine's task (its own fault plan),
    ``"minimal"`` the task with only the faults ``kept``, ``"minimality"`` the task
    with the faults ``kept`` but one, for each one in turn."""
    from markone.hardware.faults import FaultPlan
    from sims._certified import machine_parts
    from verify.machine import machine_task

    check_choice(which, "which", FILE_CLAIMS)
    kept = list(kept)
    plans = ([None] if which == "machine" else [FaultPlan(tuple(kept))]
             if which == "minimal" else
             [FaultPlan(tuple(kept[:i] + kept[i + 1:])) for i in range(len(kept))])
    return [part for plan in plans
            for part in machine_parts(machine_task(machine, images, labels, plan=plan))]


def decide_machine(spec: JSONDict, run: int, seed: int) -> JSONDict:
    """Decide machine ``run`` (seed ``seed``) of task ``spec``: its record, with its
    certificate documents by file name (module doc of :mod:`sims.certified_yield`)."""
    from markone.hardware.faults import describe_fault
    from sims._certified import certificate, decide, machine_parts
    from verify.machine import machine_task, minimal_faults

    machine, plan, images, labels = machine_and_task(spec, seed)
    stem = f"{spec['kind']}-r{spec['rate_index']}-m{run:03d}"
    source = {"experiment": "yield", "kind": spec["kind"], "rate": spec["rate"],
              "run": run, "machine_seed": seed}
    task = machine_task(machine, images, labels)
    parts = machine_parts(task)  # = claim_parts(..., "machine"), which recheck uses
    verdict = decide(parts)
    live = int(task.patterns.any(axis=0).sum())
    certificates: dict[str, JSONDict] = {}
    out: JSONDict = {"run": run, "learnable": verdict.separable, "faults": len(plan),
                     "live_a_units": live, "minimal": None, "minimal_faults": None,
                     "minimal_complete": None, "certificates": certificates}
    if verdict.separable is None:
        return out
    certificates[f"{stem}-machine.json"] = certificate(
        parts, verdict, {**source, "plan": FILE_CLAIMS["machine"]})
    if verdict.separable:
        return out
    least = minimal_faults(machine, images, labels, max_tests=spec["max_tests"])
    kept = [plan.faults[i] for i in least.faults]
    out.update(minimal=[describe_fault(f) for f in kept],
               minimal_faults=list(least.faults), minimal_complete=least.complete)
    # with no fault kept (the machine cannot learn even unbroken) "each one repaired
    # in turn" claims nothing: no minimality file (its stack would be empty)
    for which in ("minimal", "minimality")[:1 + (least.complete and bool(kept))]:
        sub = claim_parts(machine, images, labels, which, kept)
        sub_verdict = decide(sub)
        if sub_verdict.separable is (which == "minimality"):
            certificates[f"{stem}-{which}.json"] = certificate(
                sub, sub_verdict, {**source, "plan": FILE_CLAIMS[which]})
    return out


def train_machine(spec: JSONDict, seed: int) -> JSONDict:
    """Monte Carlo's verdict on machine ``seed`` of ``spec``: trained once from zero,
    a fresh seeded permutation of the figures each pass (its own seed, the third child
    of ``seed``), at most ``spec["mc_epochs"]`` passes; ``trained`` when a pass ends
    without a mistake (then the machine can learn; otherwise Monte Carlo cannot tell)."""
    machine, _, images, labels = machine_and_task(spec, seed)
    run = machine.train(images, labels, max_epochs=spec["mc_epochs"], order="shuffle",
                        seed=child_seeds(seed, 3)[2])
    return {"trained": bool(run.converged), "trained_epochs": int(run.epochs)}


def recheck_machine(files_dir: PathLike, record: JSONDict, spec: JSONDict,
                    seed: int) -> int:
    """Check one machine's files (in ``files_dir``) against the machine built again
    from ``spec`` and ``seed``; return how many files were checked."""
    from sims._certified import stack

    machine, plan, images, labels = machine_and_task(spec, seed)
    kept = [plan.faults[j] for j in record["minimal_faults"] or ()]
    wanted = {"machine"} if record["learnable"] is not None else set()
    if record["learnable"] is False:
        wanted |= {"minimal"} | ({"minimality"} if record["minimal_complete"] and kept
                                 else set())
    names = {name[:-len(".json")].rsplit("-", 1)[1]: name
             for name in record["certificates"]}
    if not wanted <= set(names):
        raise CertificateError(f"machine {record['run']} of {spec['id']}: no "
                               f"{' or '.join(sorted(wanted - set(names)))} certificate.")
    for which, name in names.items():
        claim = check_certificate_file(Path(files_dir) / name)
        X, y = stack(claim_parts(machine, images, labels, which, kept))
        if data_sha256(X, y) != claim.fields["data_sha256"]:
            raise CertificateError(f"{name}: its data are not the patterns of the "
                                   f"machine it names ({FILE_CLAIMS[which]}).")
        says = record["learnable"] if which == "machine" else which == "minimality"
        if claim.separable != says:
            raise CertificateError(f"{name}: proves {'' if claim.separable else 'not '}"
                                   f"separable, but results.json says otherwise.")
    return len(names)
