"""End-stop and convergence claims that follow from something decided before them.

Four provers come first in both slots, in this order: an R-unit whose task is not
proven learnable gets claims that repeat why (:func:`follows_from_learnable`); on a
machine whose potentiometers vary, the claims that variation leaves
(:func:`verify.machine._variation.under_variation`, order 1); under the forced or
gamma rule, the rule's exact analysis gives both claims
(:func:`rule_analysis`, :mod:`verify.machine.rules`); on a machine that no analysis
covers (noise, drift, faults that change the task over time) they are not assessed
(:func:`not_analysed`). Only on the error-correction rule do the provers of
:mod:`verify.machine._endstops` and :mod:`verify.machine._convergence` decide.

:func:`recheck_derived` re-checks such a claim by deriving it again from the report's
learnable claim, or from the machine's rule, and comparing; the forced rule's streams
are replayed too. :func:`derived_claims` tells the error-correction re-checks whether
their analysis applies at all.

Examples
--------
>>> from verify.machine.claims import provers
>>> [decide.__name__ for decide in provers("end_stops")][:4]
['follows_from_learnable', 'under_variation', 'rule_analysis', 'not_analysed']
"""

from __future__ import annotations

from typing import Any

from verify.machine._evidence import Refuted, claim_of, same_claim
from verify.machine._learnable import SEPARABLE, after_learnable, not_assessed
from verify.machine._rule_claims import RULE_KINDS, analyses, replay_forced, rule_claims
from verify.machine._variation import variation_claims
from verify.machine.claims import Method, proves, rechecks
from verify.machine.report import Claim

__all__ = ["follows_from_learnable", "rule_analysis", "not_analysed",
           "recheck_derived", "derived_claims", "require_error_correction"]


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


@proves(*RULE_KINDS["end_stops"], order=2, slot="end_stops")
@proves(*RULE_KINDS["converges"], order=2, slot="converges")
def rule_analysis(ctx: Any) -> Claim | None:
    """The claim (of ``ctx.slot``) of a learnable R-unit under the forced or gamma
    rule, from the rule's exact analysis (computed once for both slots)."""
    base = ctx.base
    if base.rules is None or base.rules[0] not in ("forced", "gamma"):
        return None
    if "rules" not in base.memo:
        base.memo["rules"] = rule_claims(base.X, base.y, base.units, *base.rules)
    return _of_slot(base.memo["rules"], ctx.slot)


@proves(Method.NOT_ASSESSED, order=3)
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
    :class:`~verify.machine._evidence.RecheckContext`) must have when they follow
    from its learnable claim or its rule, or None when the error-correction
    analyses decide them."""
    learnable = ctx.claim("learnable")
    if learnable["holds"] is not True:
        return after_learnable(claim_of(learnable))
    varied = variation_claims(ctx.machine.params, ctx.plan, len(ctx.task.patterns))
    if varied is not None:
        return varied
    dynamic, rules = _analyses(ctx)
    if rules is not None and rules[0] in ("forced", "gamma"):
        key = ("rules", ctx.r)
        if key not in ctx.memo:
            X, y, _ = ctx.r_unit()
            ctx.memo[key] = rule_claims(X.astype("int64"), y.astype("int64"),
                                        ctx.units, *rules)
        return ctx.memo[key]
    return None if dynamic else not_assessed()


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
    """Derive the claim again (:func:`derived_claims`) and compare; replay the
    forced rule's streams. Confirmed when it follows from a confirmed learnable
    claim or a replayed stream; the rules' other claims are recomputed but stay
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
        replayed = replay_forced(ctx, claim)
        if replayed is not None:
            return replayed
    if claim["holds"] is not None and learnable is not True and \
            ctx.confirmed("learnable"):
        return "follows from the learnable claim (confirmed): recomputed, the same claim"
    if claim["holds"] is None or rule not in ("forced", "gamma"):
        return None
    return ("unchecked", "recomputed by the rule's analysis (verify.machine.rules): "
            "the same claim and numbers, but no certificate to check independently")
