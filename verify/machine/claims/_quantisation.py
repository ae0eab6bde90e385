"""The quantisation claim: do whole motor steps ever round a requested move?"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from markone.hardware.runits import numbered, r_unit_name
from verify.machine.claims._evidence import RECOMPUTED, same_claim
from verify.machine.claims.methods import Method
from verify.machine.claims.registry import MACHINE, add_kind, add_slot, proves, rechecks
from verify.machine.claims._variation import variation_quantisation
from verify.machine.report import Claim

__all__ = ["quantisation_claim", "quantisation", "recheck_quantisation"]

_STEPS = ("quantize", "increment_steps", "units_per_step")
add_slot("quantisation", MACHINE)
add_kind("quantisation", Method.GAMMA_MOVES, True, False,
         evidence={True: _STEPS,
                   False: (*_STEPS, "figure", "r_unit", "a_unit", "move_steps")})
add_kind("quantisation", Method.FLOAT, True, None, evidence=_STEPS)
add_kind("quantisation", Method.WHOLE_INCREMENTS, True, evidence=_STEPS)
add_kind("quantisation", Method.VARIATION, None, evidence=("variation",))


def _gamma_fraction(task, eta):
    """The first gamma-rule move that is not a whole number of steps, as
    ``(figure, r_unit, a_unit, steps)``, or None when every move is whole: figure
    ``i`` moves each input of R-unit ``r`` by ``eta (x - k/d)`` (``k`` of its ``d``
    inputs active), active ones up, the others down."""
    for r, cols in enumerate(task.inputs):
        d = len(cols)
        for i, k in enumerate(task.patterns[:, cols].sum(axis=1).tolist()):
            if 0 < k < d:
                for x in (1, 0):
                    move = eta * (x - Fraction(k, d))
                    if move.denominator != 1:
                        j = int(cols[np.flatnonzero(task.patterns[i, cols] == x)[0]])
                        return i, r, j, move
    return None


@proves(Method.GAMMA_MOVES, Method.FLOAT, Method.WHOLE_INCREMENTS, Method.VARIATION,
        order=0, slot="quantisation")
def quantisation(ctx) -> Claim:
    """The quantisation claim of the machine of ``ctx`` (its
    :class:`~verify.machine.claims._context.MachineContext`)."""
    return quantisation_claim(ctx.machine.params, ctx.units, ctx.task)


@rechecks(Method.GAMMA_MOVES, Method.FLOAT, Method.WHOLE_INCREMENTS, Method.VARIATION,
          slot="quantisation")
def recheck_quantisation(ctx, claim) -> str | None:
    """The quantisation claim recomputed from the machine's parameters and figures:
    the same claim."""
    same_claim(claim, quantisation_claim(ctx.machine.params, ctx.units, ctx.task),
               ctx.where)
    return None if claim["holds"] is None else RECOMPUTED


def quantisation_claim(p, units, task):
    """Do whole motor steps ever round a move the rule of ``p`` asks for on
    ``task``? (Not decided when the potentiometers vary:
    :func:`verify.machine.claims._variation.variation_quantisation`.)"""
    varied = variation_quantisation(p)
    if varied is not None:
        return varied
    ev = {"quantize": p.quantize, "increment_steps": str(units.eta),
          "units_per_step": units.Q}
    if p.rule == "gamma":
        if not p.quantize:
            return Claim(True, Method.GAMMA_MOVES, "weights are real-valued "
                         "(quantize=False): no rounding", ev)
        found = _gamma_fraction(task, units.eta)
        if found is None:
            return Claim(True, Method.GAMMA_MOVES, "every gamma move on these figures "
                         "is a whole number of steps, so quantising never rounds", ev)
        i, r, j, move = found
        ev.update(figure=i, r_unit=r, a_unit=j, move_steps=str(move))
        return Claim(False, Method.GAMMA_MOVES,
                     f"the gamma rule asks for fractional moves (active A-units gain what "
                     f"the others lose): {numbered('figure', i)} moves {numbered('A-unit', j)} of "
                     f"{r_unit_name(r)} "
                     f"by {move} steps, which whole motor steps round stochastically, so "
                     "decisions can differ from the real-valued rule", ev)
    exact = units.Q & (units.Q - 1) == 0 and max(abs(units.lo), abs(units.hi),
                                                   units.e) < 2**40
    if not p.quantize:
        return Claim(exact or None, Method.FLOAT,
                     "weights are real-valued (quantize=False); the increments and end "
                     "stops are binary fractions, so float64 adds them exactly"
                     if exact else "weights are real-valued (quantize=False) with "
                     "increments that float64 may round; the claims above are about the "
                     "exact rule", ev)
    return Claim(True, Method.WHOLE_INCREMENTS,
                 f"every requested move is 0 or +/-{units.eta} steps, a whole number, so "
                 "quantising to motor steps never rounds: the machine's decisions are the "
                 "real-valued rule's, step for step (and, while no end stop bites, the "
                 "core perceptron's for any increment: zero start)", ev)
