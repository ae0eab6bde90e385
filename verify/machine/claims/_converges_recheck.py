"""The re-check of a convergence claim of the error-correction rule, from its
evidence.

A ``prefix`` and ``cycle`` must bring the weights back after a pass with mistakes,
exactly and on the machine (false); a centre must pass
:func:`verify.machine.theory._projected.check_projected_ball` with the stated bound and
decrease (true); a clipped reachable set must be closed and free of blocking cycles
(true); every continuation is run again from the end-stop stream for its stated passes
and must end as stated. "Equals the ideal perceptron" is derived again from the
end-stop claim and rests on the learnable and end-stop claims (:func:`recheck_ideal`).
A true claim with nothing to check is first tried against the periodic orders that
:func:`verify.check_machine` tries; else it stays unchecked.

Examples
--------
>>> from verify.machine.claims.registry import kind_of
>>> kind_of("converges", "periodic order").recheck is recheck_converges
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from verify.machine.theory import _clipped
from verify.machine.theory._clipped import blocking_components
from verify.machine.claims._converges import (CONVERGENCE_KINDS, PERIODIC_PASSES,
                                         continuation, continuation_orders,
                                         ideal_convergence)
from verify.machine.claims._derived import require_error_correction
from verify.machine.claims._evidence import (a_units_of, claim_of, evidence, fraction,
                                             same_claim, stream_of, verdict)
from verify.errors import Refuted
from verify.machine.claims._exact import clipped_run, closed_set
from verify.machine.theory._projected import check_projected_ball
from verify.machine.claims.methods import Method
from verify.machine.claims.registry import rechecks
from verify.machine.retrain import retrain_on_stream

__all__ = ["recheck_converges", "recheck_ideal", "CONVERGENCE_FIELDS"]

#: The evidence fields of a convergence claim.
CONVERGENCE_FIELDS = ("prefix", "cycle", "continuations", "invariant_states",
                      "invariant_groups", "center_numerators", "center_denominator",
                      "reinforcement_bound", "min_decrease", "a_units")


@rechecks(Method.IDEAL)
def recheck_ideal(ctx: Any, claim: dict) -> str | None:
    """"Equals the ideal perceptron": derived again from the end-stop claim, and it
    rests on the learnable and end-stop claims (confirmed only when both are)."""
    require_error_correction(ctx, claim)
    learnable, end_stops = ctx.claim("learnable"), ctx.claim("end_stops")
    same_claim(claim, ideal_convergence(claim_of(end_stops)), ctx.where)
    if learnable["holds"] is not True or end_stops["holds"] is not True:
        raise Refuted("it rests on the learnable and end-stop claims both holding, "
                      "and they do not both say so")
    if ctx.confirmed("learnable") and ctx.confirmed("end_stops"):
        return ("learnable and no end stop ever bites (both confirmed): the machine is "
                "the ideal perceptron, which learns separable data")
    return None


@rechecks(*CONVERGENCE_KINDS)
def recheck_converges(ctx: Any, claim: dict) -> str | None:
    """The convergence claim of the error-correction rule (see the module doc)."""
    require_error_correction(ctx, claim)
    ev = evidence(claim, CONVERGENCE_FIELDS, ctx.where)
    end_stops = ctx.claim("end_stops")
    hit = (end_stops["evidence"]["stream"] if ctx.confirmed("end_stops")
           and end_stops["holds"] is False else None)
    implied = _blocking(ctx, ev, hit) + _centre(ctx, ev) + _all_streams(ctx, ev)
    if len({v for v, _ in implied}) > 1:
        raise Refuted("its evidence shows both that it learns and that it does not")
    if not implied:
        if claim["holds"] is False or claim["method"] == Method.CLIPPED_BALL:
            raise Refuted(f"it has no certificate ({claim['method']} always gives one)")
        if claim["holds"]:
            _periodic_refutes(ctx.r_unit()[2], ctx.units, hit)
        return None
    return verdict(claim, implied[0][0], implied[0][1], "it learns on every fair stream")


def _blocking(ctx, ev, hit):
    """The continuations run again, and a prefix and cycle re-run:
    ``[(False, why), ...]`` for each that shows a stream that never learns."""
    units, (X, y, red) = ctx.units, ctx.r_unit()
    implied = []
    if "continuations" in ev:
        blocking = _continuations(red, units, ev["continuations"], hit)
        if blocking is not None:
            implied.append((False, "a continuation, run again, never learns"))
            if "prefix" in ev and (ev["prefix"], ev["cycle"]) != blocking:
                raise Refuted("its prefix and cycle are not the continuation's")
    if "prefix" in ev or "cycle" in ev:
        prefix, cycle = stream_of(ev, "prefix", len(y)), stream_of(ev, "cycle", len(y))
        _blocks(ctx, X, y, prefix, cycle)
        implied.append((False, f"after the prefix of {len(prefix)}, the cycle of "
                        f"{len(cycle)} comes back to the same weights with mistakes, "
                        "exactly and on the machine"))
    return implied


def _blocks(ctx, X, y, prefix, cycle):
    """The cycle brings the weights back after a pass with mistakes, exactly and on
    the machine, and shows every figure."""
    units, rerun = ctx.units, ctx.rerun
    if sorted(set(cycle)) != list(range(len(y))):
        raise Refuted("the cycle does not show every figure, so it is no fair stream")
    w, _, _ = clipped_run(X, y, units.e, units.lo, units.hi, prefix + cycle)
    for _ in range(2):
        again, mistakes, _ = clipped_run(X, y, units.e, units.lo, units.hi, cycle, w)
        if mistakes == 0 or (again != w).any():
            raise Refuted("the cycle does not bring the weights back after a pass "
                          "with mistakes")
    out = rerun(lambda m: retrain_on_stream(m, rerun.images, rerun.labels, prefix,
                                         cycle, r_unit=ctx.r))
    if not out["returns"] or out["converged"]:
        raise Refuted("the machine does not repeat the cycle")


def _continuations(red, units, conts, hit):
    """Run every continuation again from the end-stop stream ``hit`` for its stated
    passes; returns a blocking ``(prefix, cycle)`` when one never learns."""
    if hit is None:
        raise Refuted("it has continuations but no confirmed end-stop stream to "
                      "continue")
    named = {name: order for name, order in continuation_orders(red, units, hit)}
    blocking = None
    for c in conts:
        order = named.get(c["order"])
        if order is None or order.tolist() != c["order_indices"]:
            raise Refuted(f"the continuation order {c['order']!r} is not the one "
                          "check_machine derives from the stream")
        if not 1 <= c["passes"] <= 10 ** 6:
            raise Refuted(f"a continuation of {c['passes']} passes is out of range")
        run = _clipped.run_passes(red.P, red.D, units.lo, units.hi, order, prefix=hit,
                                  max_passes=c["passes"])
        again = continuation(c["order"], order, run)
        if again != c:
            diff = sorted(k for k in set(again) | set(c) if again.get(k) != c.get(k))
            raise Refuted(f"the {c['order']} continuation, run again, gives "
                          + ", ".join(f"{k} = {again.get(k)!r}" for k in diff)
                          + f", not {', '.join(repr(c.get(k)) for k in diff)}")
        if c["outcome"] == "never learns" and blocking is None:
            blocking = (list(hit) + order.tolist() * c["cycle_start"],
                        order.tolist() * c["period"])
    return blocking


def _periodic_refutes(red, units, hit):
    """Raise when the figures in the given order, from zero or after the end-stop
    stream, block learning (as :func:`check_machine` tries first): a quick test of
    a true convergence claim that has no certificate."""
    for prefix in ([], *([hit] if hit else [])):
        run = _clipped.run_passes(red.P, red.D, units.lo, units.hi, np.arange(red.n),
                                  prefix=prefix, max_passes=PERIODIC_PASSES)
        if run.cycle_start is not None:
            after = " after the stream" if prefix else ""
            raise Refuted(f"the figures in the given order{after} never learn: a "
                          "pass-boundary setting recurs with mistakes")


def _centre(ctx, ev):
    """A clipped Novikoff ball's centre and its numbers, re-checked by
    :func:`verify.machine.theory._projected.check_projected_ball`: ``[(True, why)]``, or
    ``[]`` without a centre."""
    units = ctx.units
    centre = [k for k in ("center_numerators", "center_denominator",
                          "reinforcement_bound", "min_decrease") if k in ev]
    if not centre:
        if "a_units" in ev:
            raise Refuted("it names a_units without a centre")
        return []
    if len(centre) < 4:
        raise Refuted("a centre needs center_numerators, center_denominator, "
                      "reinforcement_bound and min_decrease together")
    try:
        bound, decrease = check_projected_ball(
            a_units_of(ctx, ev).astype(np.int64), ctx.task.targets[:, ctx.r],
            units.e, units.lo, units.hi, ev["center_numerators"],
            ev["center_denominator"])
    except (ValueError, TypeError) as exc:
        raise Refuted(str(exc)) from exc
    if bound != ev["reinforcement_bound"] or decrease != fraction(ev["min_decrease"]):
        raise Refuted(f"the centre gives the bound {bound} and the decrease "
                      f"{decrease}, not {ev['reinforcement_bound']} and "
                      f"{ev['min_decrease']}")
    return [(True, f"the centre lies inside the stops and every figure's slack is "
             f"positive (exact): at most {bound} reinforcements on any stream")]


def _all_streams(ctx, ev):
    """A clipped reachable set, re-checked as closed; whether a fair stream can stay
    on a cycle of mistakes in it: ``[(verdict, why)]``, or ``[]`` without a set."""
    X, y, _ = ctx.r_unit()
    closed = closed_set(X.astype(np.int64), y.astype(np.int64), ev, ctx.units,
                        clipped=True)
    if closed is None:
        return []
    S, edges, correct = closed
    src, dst, fig = (np.array([e[k] for e in edges], np.int64).reshape(-1)
                     for k in range(3))
    if blocking_components(len(S), src, dst, fig, correct)[2].size:
        return [(False, "some fair stream stays on a cycle of mistakes in its clipped "
                 "reachable set")]
    return [(True, f"the {len(S)} settings are closed under every clipped mistake and "
             "none lies on a cycle of mistakes that every figure leaves in place "
             "(exact)")]
