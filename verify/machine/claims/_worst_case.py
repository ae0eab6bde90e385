"""The worst-case claim (issue 42): what the trained weights tolerate, exactly.

A claim about the whole machine (slot ``worst_case``, report format 3 on): with the
machine's present weights, per R-unit, the largest potentiometer error ``delta`` that
keeps every figure right, the most A-units that may die or stick at 1, and the table
of ``delta`` against the number of dead A-units
(:mod:`verify.machine.theory.worst_case`). Its evidence holds each R-unit's numbers
and witnesses and the SHA-256 of the weights they are about; the re-check re-runs
every witness on the machine (the perturbation ties or flips its figure exactly; the
dead or stuck A-units, as faults of the machine, break theirs) and recomputes every
number exactly. An untrained machine (every weight 0) is not assessed.

Examples
--------
>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> from verify.machine import check_machine
>>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
...                 max_fanout=1, theta=1, n_r_units=1)
>>> machine, figures = MarkI(p, seed=0), np.array([[1, 0], [0, 1]])
>>> check_machine(machine, figures, ["a", "b"]).worst_case.holds is None   # untrained
True
>>> run = machine.train(figures, ["a", "b"])
>>> claim = check_machine(machine, figures, ["a", "b"]).worst_case
>>> claim.holds, claim.evidence["r_units"][0]["tolerance"]
(True, '1')
"""

from __future__ import annotations

import dataclasses
import hashlib
from fractions import Fraction
from typing import Any

import numpy as np

from markone.hardware.faults import damaged_patterns
from markone.hardware.runits import numbered, r_unit_name
from verify.machine.claims._evidence import RECOMPUTED, fraction, same_claim, same_shape
from verify.errors import Refuted
from verify.machine.claims.registry import MACHINE, add_kind, add_slot, proves, rechecks
from verify.machine.report import Claim
from verify.machine.theory.worst_case import (RUnitWorstCase, first_wrong,
                                              trained_worst_case, wired_potentiometers)

__all__ = ["SLOT", "EXACT", "UNTRAINED", "worst_case_claim", "weights_hash",
           "worst_case", "recheck_worst_case"]

SLOT = "worst_case"
#: The methods (declared here, with the slot and kinds): the exact analysis, and a
#: machine that has not been trained.
EXACT, UNTRAINED = "exact worst case (box, dead and stuck A-units)", "untrained"

#: The fields of each R-unit's entry in the evidence.
FIELDS = tuple(f.name for f in dataclasses.fields(RUnitWorstCase))

add_slot(SLOT, MACHINE, since=3)
add_kind(SLOT, EXACT, True, False,
         evidence={True: ("weights_sha256", "r_units"),
                   False: ("weights_sha256", "r_unit", "figure", "margin")})
add_kind(SLOT, UNTRAINED, None, evidence=("weights_sha256",))


def weights_hash(weights: np.ndarray) -> str:
    """SHA-256 of the weights (float64, in motor steps) a worst case is about."""
    return hashlib.sha256(np.ascontiguousarray(weights, dtype=np.float64).tobytes()
                          ).hexdigest()


def worst_case_claim(machine, task) -> Claim:
    """The worst-case claim of ``machine``'s present weights on ``task`` (a
    :class:`~verify.machine.task.MachineTask` of it)."""
    w = machine.weights
    ev: dict[str, Any] = {"weights_sha256": weights_hash(w)}
    if not w.any():
        return Claim(None, UNTRAINED, "not assessed: every weight is 0 (the machine is "
                     "untrained, so it answers no figure right)", ev)
    wired = wired_potentiometers(machine)
    wrong = first_wrong(w, task.patterns, task.targets, wired)
    if wrong is not None:
        r, i, m = wrong
        ev.update(r_unit=r, figure=i, margin=str(m))
        return Claim(False, EXACT, f"{r_unit_name(r)} already answers "
                     f"{numbered('figure', i)} wrong (margin {m} steps): nothing is "
                     "tolerated", ev)
    units = trained_worst_case(w, task.patterns, task.targets, wired,
                               machine.params.weight_range)
    ev["r_units"] = [u.to_dict() for u in units]
    low = min(units, key=lambda u: (u.tolerance, u.r_unit))
    dead = min(units, key=lambda u: (u.dead, u.r_unit))
    return Claim(True, EXACT, f"every figure answered right; the least tolerance is "
                 f"{r_unit_name(low.r_unit)}'s {low.tolerance} steps per potentiometer "
                 f"({low.safe_steps} whole steps), the fewest dead A-units that break an "
                 f"answer {dead.dead + 1} ({r_unit_name(dead.r_unit)})", ev)


@proves(EXACT, UNTRAINED, order=0, slot=SLOT)
def worst_case(ctx) -> Claim:
    """The worst-case claim of the machine of ``ctx`` (its
    :class:`~verify.machine.claims._context.MachineContext`)."""
    return worst_case_claim(ctx.machine, ctx.task)


def _score(machine, task, units, value, figure, r):
    """The exact margin of R-unit ``r`` on ``figure`` once ``units`` are stuck at
    ``value`` (0: dead) as faults of the machine (its own faults kept)."""
    A = damaged_patterns(machine, task.settled[figure:figure + 1], task.theta)[0]
    A = A.astype(bool)
    A[list(map(int, units))] = bool(value)   # stuck over the machine's own faults
    wired = wired_potentiometers(machine)[r]
    y = int(task.targets[figure, r])
    return y * sum((Fraction(float(v)) for v in machine.weights[r][A & wired]),
                   Fraction(0))


def _well_formed(u, k, where):
    """ValueError unless the R-unit entry ``u`` (``k``-th) has exactly the fields of
    one, its witness A-units integers and its tolerance an exact number."""
    where = f"malformed machine report: {where} evidence.r_units[{k}]"
    if not isinstance(u, dict) or set(u) != set(FIELDS):
        raise ValueError(f"{where} must be an object with exactly the fields "
                         f"{list(FIELDS)}")
    if not all(type(j) is int for j in (*u["dead_units"], *u["stuck_units"])):
        raise ValueError(f"{where}: dead_units and stuck_units must list A-unit indices")
    try:
        fraction(u["tolerance"])
    except ValueError:
        raise ValueError(f"{where}.tolerance must be an exact number such as \"3\" or "
                         f"\"7/2\", got {u['tolerance'][:40]!r}") from None


def _rerun_witnesses(machine, task, u):
    """Re-run one R-unit's witnesses (its evidence ``u``, types checked) on the
    machine: each must tie or flip its figure (Refuted else)."""
    r, n, n_a = u["r_unit"], len(task.patterns), machine.params.n_a_units
    if not 0 <= r < machine.params.n_r_units:
        raise Refuted(f"its evidence names R-unit index {r}, which does not exist")
    name = r_unit_name(r)
    for key in ("tolerance_figure", "dead_figure", "stuck_figure"):
        if u[key] is not None and not 0 <= u[key] < n:
            raise Refuted(f"{name}'s {key} names a figure that does not exist")
    for key in ("dead_units", "stuck_units"):
        if any(not 0 <= j < n_a for j in u[key]) or len(set(u[key])) < len(u[key]):
            raise Refuted(f"{name}'s {key} names an A-unit twice or one that does "
                          "not exist")
    i, delta = u["tolerance_figure"], fraction(u["tolerance"])
    y = int(task.targets[i, r])
    active = task.patterns[i].astype(bool) & wired_potentiometers(machine)[r]
    pushed = y * sum((Fraction(float(v)) - delta * y
                      for v in machine.weights[r][active]), Fraction(0))
    if pushed > 0:
        raise Refuted(f"{name}'s witness: every active potentiometer turned "
                      f"{delta} steps against {numbered('figure', i)} leaves it right "
                      f"(margin {pushed}), so a larger tolerance would still hold")
    for key, value, what in (("dead", 0, "dead"), ("stuck", 1, "stuck at 1")):
        if u[key] is None:
            continue
        m = _score(machine, task, u[f"{key}_units"], value, u[f"{key}_figure"], r)
        if m > 0 or len(u[f"{key}_units"]) != u[key] + 1:
            raise Refuted(f"{name}'s witness: the {len(u[f'{key}_units'])} A-units "
                          f"{what} leave {numbered('figure', u[f'{key}_figure'])} "
                          f"right (margin {m}) or are not {key} + 1 of them")


@rechecks(EXACT, UNTRAINED, slot=SLOT)
def recheck_worst_case(ctx, claim) -> str | None:
    """The witnesses re-run on the machine, then the claim recomputed exactly: the
    same claim (ValueError when it is about other weights or malformed)."""
    machine = ctx.machine
    ev = claim["evidence"]
    if ev.get("weights_sha256") != weights_hash(machine.weights):
        raise ValueError("the worst_case claim is about other weights: its "
                         "weights_sha256 is not the machine's; re-check it on the "
                         "trained machine it was made for (the run it was made from)")
    expected = worst_case_claim(machine, ctx.task)
    same_shape(claim, expected, ctx.where)
    if claim["holds"] is True:
        if len(ev["r_units"]) != machine.params.n_r_units:
            raise Refuted(f"its evidence lists {len(ev['r_units'])} R-units, the "
                          f"machine has {machine.params.n_r_units}")
        for k, u in enumerate(ev["r_units"]):
            _well_formed(u, k, ctx.where)
            _rerun_witnesses(machine, ctx.task, u)
    same_claim(claim, expected, ctx.where)
    if claim["holds"] is not True:
        return None if claim["holds"] is None else RECOMPUTED
    return ("every witness re-run on the machine (each ties or flips its figure) "
            "and every bound recomputed exactly from its weights and figures")
