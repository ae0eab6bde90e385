"""End-stop and convergence claims that follow from something decided before them.

The provers placed below :data:`ANALYSES_FROM` in both slots derive their claims
rather than search for them, in this order: an R-unit whose task is not proven
learnable gets claims that repeat why (:func:`follows_from_learnable`, 0); on a
machine whose potentiometers vary, the claims that variation leaves
(:func:`verify.machine.claims._variation.under_variation`, 10); under the forced or gamma
rule, the rule's exact analysis gives both claims (:func:`rule_analysis`, 20,
:mod:`verify.machine.theory.rules`); on a machine that no analysis covers (noise, drift,
faults that change the task over time) they are not assessed (:func:`not_analysed`,
30). Only when none of them applies do the error-correction rule's provers of
:mod:`verify.machine.claims._end_stops` and :mod:`verify.machine.claims._converges` decide (from
100 on).

:func:`derived_claims` runs those same provers again for the re-check, on the
report's learnable claim and the machine: :func:`recheck_derived` compares a claim with
what they give (and re-runs the forced rule's streams), and the error-correction
re-checks refuse a claim of theirs where a derived one is due
(:func:`require_error_correction`). A new prover placed below 100 takes part in both
without another edit.

Examples
--------
>>> from verify.machine.claims.registry import provers
>>> [decide.__name__ for decide in provers("end_stops")][:5]
['follows_from_learnable', 'under_variation', 'rule_analysis', 'not_analysed', 'margin']
"""

from __future__ import annotations

from typing import Any

from verify.machine.claims._context import RUnitContext
from verify.machine.claims._converges import Convergence
from verify.machine.claims._end_stops import EndStops
from verify.machine.claims._evidence import claim_of, same_claim
from verify.errors import Refuted
from verify.machine.claims._learnable import SEPARABLE, after_learnable, not_assessed
from verify.machine.claims._rules import RULE_KINDS, analyses, rerun_forced, rule_claims
from verify.machine.claims.methods import Method
from verify.machine.claims.registry import add_kind, decide, proves, rechecks
from verify.machine.report import Claim

__all__ = ["follows_from_learnable", "rule_analysis", "not_analysed",
           "recheck_derived", "derived_claims", "require_error_correction",
           "ANALYSES_FROM"]

#: The provers of the end-stop and convergence slots placed below this derive their
#: claims from what was decided before them; the error-correction analyses start
#: here.
ANALYSES_FROM = 100

M = Method
# The kinds derived from what was decided before: a convergence claim that follows
# from the learnable one, "not assessed", and the forced and gamma rules' verdicts
# (:mod:`verify.machine.claims._rules`: one evidence for both claims of an R-unit, so
# each carries the other's fields as optional). The forced rule: mu always; passes
# (learns) or stream (never learns); the weight bound when every R-unit learns; the
# stream that hits a stop. The gamma rule: the centred task's verdict, its
# certificate or Novikoff's numbers; with whole steps the rounding branches and the
# exact chain.
_FORCED = ("passes", "stream", "max_weight", "hit_stream")
_NOVIKOFF = ("reinforcement_bound", "max_weight", "fits")
_CENTRED = ("learnable", *_NOVIKOFF)
_ROUNDING = ("learnable", "stall", "hit", "alpha")
_GAMMA = ("certificate", *_NOVIKOFF, "stall_log10", "chain")
for _method in SEPARABLE:
    add_kind("converges", _method, False, None, evidence=())
for _slot in ("end_stops", "converges"):
    add_kind(_slot, M.NOT_ASSESSED, None, evidence=(), optional=(*_ROUNDING, *_GAMMA))
add_kind("end_stops", M.FORCED_BOUND, True, evidence=("mu",), optional=_FORCED)
add_kind("end_stops", M.FORCED_HIT, False, evidence=("mu", "hit_stream"),
         optional=_FORCED)
add_kind("end_stops", M.FORCED_OPEN, None, evidence=("mu",), optional=_FORCED)
add_kind("converges", M.FORCED_LEARNS, True, None,
         evidence={True: ("mu", "passes"), None: ("mu",)},
         optional=("max_weight", "hit_stream"))
add_kind("converges", M.FORCED_NEVER, False, evidence=("mu", "stream"),
         optional=("max_weight", "hit_stream"))
add_kind("end_stops", M.GAMMA_CENTRED, True, None, evidence=_CENTRED)
add_kind("converges", M.GAMMA_CENTRED, True, False, None,
         evidence={True: _CENTRED, False: ("learnable",), None: ("learnable",)},
         optional=("certificate", *_NOVIKOFF))
add_kind("end_stops", M.GAMMA_ROUNDING, True, False,
         evidence={True: _ROUNDING, False: (*_ROUNDING, "stall_log10")}, optional=_GAMMA)
add_kind("converges", M.GAMMA_ROUNDING, None, evidence=_ROUNDING, optional=_GAMMA)
add_kind("converges", M.GAMMA_CHAIN, False, evidence=(*_ROUNDING, "chain"),
         optional=_GAMMA)


def _of_slot(pair: tuple, slot: str) -> Claim:
    """The claim of ``slot`` from an ``(end_stops, converges)`` pair."""
    return pair[("end_stops", "converges").index(slot)]


@proves(*SEPARABLE, order=0, slot="converges")
@proves(Method.NOT_ASSESSED, order=0, slot="end_stops")
def follows_from_learnable(ctx: Any) -> Claim | None:
    """The claim (of ``ctx.slot``) of an R-unit whose task is not proven learnable."""
    learnable = ctx.base.claims["learnable"]
    return None if learnable.holds is True else _of_slot(after_learnable(learnable),
                                                         ctx.slot)


@proves(*RULE_KINDS["end_stops"], order=20, slot="end_stops")
@proves(*RULE_KINDS["converges"], order=20, slot="converges")
def rule_analysis(ctx: Any) -> Claim | None:
    """The claim (of ``ctx.slot``) of a learnable R-unit under the forced or gamma
    rule, from the rule's exact analysis (computed once for both slots)."""
    base = ctx.base
    if base.rules is None or base.rules[0] not in ("forced", "gamma"):
        return None
    if "rules" not in base.memo:
        base.memo["rules"] = rule_claims(base.X, base.y, base.units, *base.rules)
    return _of_slot(base.memo["rules"], ctx.slot)


@proves(Method.NOT_ASSESSED, order=30)
def not_analysed(ctx: Any) -> Claim | None:
    """The claim (of ``ctx.slot``) of a learnable R-unit on a machine that only the
    learnable claim covers."""
    return None if ctx.base.dynamic else _of_slot(not_assessed(), ctx.slot)


def _analyses(ctx: Any) -> tuple:
    """``(dynamic, rules)`` of the re-checked machine (computed once)."""
    if "analyses" not in ctx.memo:
        ctx.memo["analyses"] = analyses(ctx.machine.params, ctx.plan, ctx.task,
                                        ctx.units)
    return ctx.memo["analyses"]


def derived_claims(ctx: Any) -> tuple | None:
    """The end-stop and convergence claims the R-unit of ``ctx`` (a
    :class:`~verify.machine.claims._evidence.RecheckContext`) must have when they follow
    from what was decided before them (the provers placed below
    :data:`ANALYSES_FROM`, run again on the report's learnable claim), or None when
    the error-correction analyses decide them (computed once per R-unit)."""
    key = ("derived", ctx.r)
    if key not in ctx.memo:
        dynamic, rules = _analyses(ctx)
        base = RUnitContext(ctx.r, ctx.task, ctx.units, dynamic, rules,
                            params=ctx.machine.params, plan=ctx.plan)
        base.claims["learnable"] = claim_of(ctx.claim("learnable"))
        pair = (decide("end_stops", EndStops(base), until=ANALYSES_FROM),
                decide("converges", Convergence(base), until=ANALYSES_FROM))
        ctx.memo[key] = None if None in pair else pair
    return ctx.memo[key]


def require_error_correction(ctx: Any, claim: dict) -> None:
    """Refute a claim of the error-correction analyses on an R-unit whose claims
    follow from its learnable claim or its rule."""
    want = derived_claims(ctx)
    if want is not None:
        raise Refuted(f"its method {claim['method']!r} is the error-correction rule's "
                      f"analysis, but this R-unit's {ctx.slot} claim follows from its "
                      f"learnable claim or its rule (as "
                      f"{_of_slot(want, ctx.slot).method!r})")


@rechecks(*SEPARABLE, slot="converges")
@rechecks(*RULE_KINDS["converges"], slot="converges")
@rechecks(*RULE_KINDS["end_stops"], slot="end_stops")
def recheck_derived(ctx: Any, claim: dict) -> Any:
    """Derive the claim again (:func:`derived_claims`) and compare; re-run the
    forced rule's streams. Confirmed when it follows from a confirmed learnable
    claim or a re-run stream; the rules' other claims are recomputed but stay
    unchecked (no certificate to check independently)."""
    want = derived_claims(ctx)
    if want is None:
        raise Refuted(f"its method {claim['method']!r} is for claims that follow from "
                      "the learnable claim or from the forced or gamma rule's analysis, "
                      "but this R-unit is learnable on the error-correction rule")
    same_claim(claim, _of_slot(want, ctx.slot), ctx.where)
    rule = _analyses(ctx)[1]
    rule = rule[0] if rule is not None else None
    learnable = ctx.claim("learnable")["holds"]
    if rule == "forced" and learnable:
        rerun = rerun_forced(ctx, claim)
        if rerun is not None:
            return rerun
    if claim["holds"] is not None and learnable is not True and \
            ctx.confirmed("learnable"):
        return "follows from the learnable claim (confirmed): recomputed, the same claim"
    if claim["holds"] is None or rule not in ("forced", "gamma"):
        return None
    return ("unchecked", "recomputed by the rule's analysis (verify.machine.theory.rules): "
            "the same claim and numbers, but no certificate to check independently")
