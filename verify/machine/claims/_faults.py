"""The faults claim: is a damaged machine's task still learnable, and which faults
broke it (with a 1-minimal set from :func:`verify.machine.faults.minimal_faults`)?
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from collections.abc import Sequence

from markone._internal.typing import ArrayLike, JSONDict
from markone.hardware.faults import FaultPlan, describe_fault
from markone.hardware.runits import r_unit_name
from verify._internal.budget import seconds_left
from verify.machine.claims._evidence import same_claim
from verify.errors import Refuted
from verify.machine.claims.methods import Method
from verify.machine.claims.registry import MACHINE, add_kind, add_slot, proves, rechecks
from verify.machine.faults import check_r_unit_task, minimal_faults
from verify.machine.report import Claim
from verify.machine.task import machine_task

if TYPE_CHECKING:
    from markone.hardware import MarkI

__all__ = ["faults", "recheck_faults", "fault_claim", "fault_evidence", "learnable_with", "fault_culprits"]


FAULT_KINDS = (Method.NO_FAULTS, Method.FAULTS_LEARNABLE, Method.FAULTS_BREAK)

_PLAN = ("plan", "faults", "kinds", "unlearnable_r_units")
add_slot("faults", MACHINE)
add_kind("faults", Method.NO_FAULTS, True, evidence=())
add_kind("faults", Method.FAULTS_LEARNABLE, True, evidence=_PLAN)
add_kind("faults", Method.FAULTS_BREAK, False, evidence=(*_PLAN, "culprits"),
         optional=("minimal",))


@proves(*FAULT_KINDS, order=0)
def faults(ctx) -> Claim:
    """The faults claim of the machine of ``ctx`` (its
    :class:`~verify.machine.claims._context.MachineContext`)."""
    return fault_claim(ctx.machine, ctx.images, ctx.labels, ctx.plan, ctx.reports,
                       ctx.deadline)


def fault_claim(machine, images, labels, plan, reports, deadline=None):
    """Is the damaged task still learnable, and which faults made it impossible?"""
    if plan is None or not len(plan):
        return Claim(True, Method.NO_FAULTS, "the machine has no faults", {})
    broken = [r.r_unit for r in reports if r.learnable.holds is False]
    ev = fault_evidence(plan, broken)
    if not broken:
        return Claim(True, Method.FAULTS_LEARNABLE,
                     f"with its faults ({plan.describe()}) every R-unit's task is "
                     "still learnable", ev)

    culprits = fault_culprits(machine, images, labels, plan, broken)
    ev["culprits"] = culprits
    minimum = notes = None
    if any(c["healthy"] for c in culprits.values()):
        # limited by work (faults.MAX_TESTS checks), the clock only with timeout_s
        minimum = minimal_faults(machine, images, labels, plan,
                                 timeout_s=seconds_left(deadline))
        found = minimum.to_dict()
        notes = {k: found.pop(k) for k in ("tests", "solver_checks", "stopped_by")}
        ev["minimal"] = dict(found, kinds=[
            type(plan.faults[i]).__name__ for i in minimum.faults])
    words = [_culprit_words(int(r), c, plan) for r, c in culprits.items()]
    if minimum is not None:
        words.append(_minimum_words(plan, minimum))
    return Claim(False, Method.FAULTS_BREAK,
                 "the damage makes the task unlearnable: " + "; ".join(words), ev,
                 {"minimal": notes} if notes else {})


def fault_evidence(plan: FaultPlan, broken: Sequence[int]) -> JSONDict:
    """The evidence every faults claim starts with: the plan itself (so that a reader
    knows which wires were cut), its size and kinds, and the R-units it broke (shared
    by :func:`fault_claim` and :func:`recheck_report`)."""
    return {"plan": plan.to_dict(), "faults": len(plan), "kinds": list(plan.kinds()),
            "unlearnable_r_units": list(broken)}


def _culprit_words(r, culprit, plan):
    """What broke R-unit ``r``, in words, each fault named by what broke."""
    if not culprit["healthy"]:
        return f"{r_unit_name(r)} was not learnable before the damage either"
    why = (f"the {', '.join(culprit['kinds'])} faults alone" if culprit["kinds"]
           else "only the faults together")
    if culprit["faults"]:
        why += (" (each of these on its own: "
                + "; ".join(describe_fault(plan.faults[i]) for i in culprit["faults"])
                + ")")
    return f"{r_unit_name(r)}: {why}"


def learnable_with(machine: MarkI, images: ArrayLike, labels: ArrayLike,
                   plan: FaultPlan, r: int) -> bool | None:
    """Is R-unit ``r``'s task learnable when only the faults of ``plan`` happened?"""
    t = machine_task(machine, images, labels, plan=plan)
    return check_r_unit_task(t.patterns[:, t.inputs[r]], t.targets[:, r]).separable


def fault_culprits(machine: MarkI, images: ArrayLike, labels: ArrayLike,
                   plan: FaultPlan, broken: Sequence[int]) -> JSONDict:
    """For each R-unit of ``broken``: whether it was learnable without the faults
    (``healthy``), the kinds of fault that alone break it, and (up to 32 faults) the
    single faults that alone do (exact; shared by :func:`check_machine` and
    :func:`recheck_report`)."""
    def breaks(sub, r):
        return learnable_with(machine, images, labels, sub, r) is False

    culprits = {}
    for r in broken:
        if breaks(plan.only(_none), r):
            culprits[str(r)] = {"healthy": False, "kinds": [], "faults": []}
            continue
        kinds = [k for k in plan.kinds() if breaks(plan.only(_of_kind(k)), r)]
        single = []
        if len(plan) <= 32:
            single = [i for i, f in enumerate(plan.faults)
                      if breaks(plan.only(_this(f)), r)]
        culprits[str(r)] = {"healthy": True, "kinds": kinds, "faults": single}
    return culprits


def _none(fault):
    return False


def _of_kind(name):
    return lambda fault: type(fault).__name__ == name


def _this(chosen):
    return lambda fault: fault is chosen


def _minimum_words(plan, minimum):
    """The minimal set of faults in words."""
    if not minimum.faults:
        return "the task is unlearnable even without any of the faults"
    chosen = FaultPlan(tuple(plan.faults[i] for i in minimum.faults))
    what = chosen.describe(limit=8)
    listed = (f"faults {list(minimum.faults)} of the plan" if len(minimum.faults) <= 8
              else f"{len(minimum.faults)} faults")
    units = ", ".join(map(r_unit_name, minimum.r_units))
    if minimum.complete and not minimum.undecided:
        return (f"1-minimal set: {listed} ({what}) make R-unit(s) {units} unlearnable "
                f"on their own, and without any one of them the task is learnable "
                f"({minimum.tests} exact checks)")
    why = ("the budget of checks ran out" if not minimum.complete
           else f"checks without faults {list(minimum.undecided)} were undecided")
    return (f"{listed} ({what}) make R-unit(s) {units} unlearnable on their own; not "
            f"proven 1-minimal: {why} after {minimum.tests} checks")


@rechecks(*FAULT_KINDS)
def recheck_faults(ctx, claim) -> str:
    """The faults claim: recomputed, except the smallest set of faults, which is
    re-checked (it breaks its R-units; said 1-minimal, no fault of it is spare)."""
    plan = ctx.plan
    if plan is None or not len(plan):
        same_claim(claim, fault_claim(ctx.machine, ctx.images, ctx.labels, plan, ()),
                   ctx.where)
        return "the machine has no faults"
    broken = [r["r_unit"] for r in ctx.report["r_units"]
              if r["learnable"]["holds"] is False]
    ev = fault_evidence(plan, broken)
    if broken:
        ev["culprits"] = fault_culprits(ctx.machine, ctx.images, ctx.labels, plan,
                                        broken)
    minimal = claim["evidence"].get("minimal")
    if minimal is not None:
        ev["minimal"] = minimal
    same_claim(claim, Claim(not broken, Method.FAULTS_BREAK if broken
                            else Method.FAULTS_LEARNABLE, claim["message"], ev),
               ctx.where)
    if minimal is None:
        if broken and any(c["healthy"] for c in ev["culprits"].values()):
            raise Refuted("it has no smallest set of faults, which check_machine "
                          "always gives when a healthy R-unit was broken")
        return "recomputed: the faults, their kinds and the culprits are the machine's"
    _check_minimal_set(ctx, minimal, broken)
    return ("recomputed: the faults and culprits are the machine's, and the smallest "
            "set breaks the task" + (" and is 1-minimal (exact)"
                                     if minimal["complete"] else ""))


def _check_minimal_set(ctx, minimal, broken):
    """The smallest set of faults, re-checked: well formed, its faults the machine's,
    it breaks the R-units it names and, said 1-minimal, no fault of it is spare."""
    plan = ctx.plan
    spec = {"faults": list, "r_units": list, "complete": bool, "undecided": list,
            "kinds": list}
    if set(minimal) != set(spec) or not all(isinstance(minimal[k], t)
                                            for k, t in spec.items()):
        raise ValueError("malformed machine report: faults evidence.minimal must have "
                         "faults, r_units, complete, undecided and kinds")
    chosen = minimal["faults"]
    if any(type(i) is not int or not 0 <= i < len(plan) for i in chosen) or \
            len(set(chosen)) != len(chosen):
        raise Refuted("the smallest set names faults the machine does not have")
    if any(i not in chosen for i in minimal["undecided"]):
        raise Refuted("the smallest set's undecided faults are not in the set")
    if minimal["kinds"] != [type(plan.faults[i]).__name__ for i in chosen]:
        raise Refuted("the smallest set's kinds are not those of its faults")
    if not minimal["r_units"] or any(r not in broken for r in minimal["r_units"]):
        raise Refuted("the smallest set names R-units that are not broken")
    _breaks(ctx, chosen, minimal)


def _breaks(ctx, chosen, minimal):
    """The chosen faults alone break each R-unit named; said 1-minimal (complete and
    nothing undecided), without any one of them the task is learnable again."""
    plan = ctx.plan

    def learnable(faults, r):
        return learnable_with(ctx.machine, ctx.images, ctx.labels,
                              FaultPlan(tuple(plan.faults[j] for j in faults)), r)

    for r in minimal["r_units"]:
        if learnable(chosen, r) is not False:
            raise Refuted(f"the smallest set of faults alone leaves {r_unit_name(r)} "
                          "learnable")
    if minimal["complete"] and not minimal["undecided"]:
        for i in chosen:
            rest = [j for j in chosen if j != i]
            if any(learnable(rest, r) is False for r in minimal["r_units"]):
                raise Refuted(f"the set is not 1-minimal: without fault {i} it still "
                              "breaks the task")
