"""The re-check of an end-stop claim of the error-correction rule, from its evidence.

``R_sq``, the stops and the increment are recomputed; the margin direction must have
margin ``gamma_lower`` (exactly), and Novikoff's numbers are recomputed from it; a
stated bound (``bound_used``, ``max_weight_steps``, ``min_weight_steps``) is recomputed
from its certificate (the margin, the one-signed patterns, the reachable set as an
inductive invariant, the ball directions: :data:`BOUND_CERTIFICATES`); a stream must
have its last move cut short, exactly and on a copy of the machine. A bound inside
the stops makes the claim true, a stream false. A true claim with no certificate (Z3,
the balls at the pushes) is first tried against the greedy streams: one that reaches
a stop refutes it; else it stays unchecked.

Examples
--------
>>> sorted(m.name for m in BOUND_CERTIFICATES)
['BALL', 'EXACT_REACH', 'NOVIKOFF_COUNT', 'NOVIKOFF_NORM', 'ONE_SIGNED']
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from verify.machine.theory import _clipped
from verify.machine.theory._ball import integer_bounds, margin_holds
from verify.machine.claims._derived import require_error_correction
from verify.machine.claims._end_stops import (END_STOP_KINDS, margin_bounds, one_signed,
                                              stops_evidence)
from verify.machine.claims._evidence import (evidence, expect, fraction, stream_of,
                                             verdict)
from verify.errors import Refuted
from verify.machine.claims._exact import check_hits, closed_set
from verify.machine.theory._stop_searches import greedy_streams
from verify.machine.claims.methods import Method
from verify.machine.claims.registry import rechecks

__all__ = ["recheck_end_stops", "BOUND_CERTIFICATES", "END_STOP_FIELDS"]

#: The evidence fields of an end-stop claim.
END_STOP_FIELDS = ("R_sq", "gamma_lower", "margin_direction", "reinforcement_bound",
                   "novikoff_norm_bound_steps", "weight_range", "increment_steps",
                   "bound_used", "max_weight_steps", "min_weight_steps",
                   "reachable_states", "invariant_states", "invariant_groups",
                   "ball_directions", "stream")

#: The weight bounds a report can hold with their certificate, by ``bound_used``:
#: each recomputes ``(top, bottom)`` in units from the evidence.
BOUND_CERTIFICATES: dict[Method, Callable[..., tuple[int, int]]] = {}


def _certifies(*methods: Method) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        BOUND_CERTIFICATES.update(dict.fromkeys(methods, fn))
        return fn
    return register


@rechecks(*END_STOP_KINDS)
def recheck_end_stops(ctx: Any, claim: dict) -> str | None:
    """The end-stop claim of the error-correction rule (see the module doc)."""
    require_error_correction(ctx, claim)
    ev = evidence(claim, END_STOP_FIELDS, ctx.where)
    units, (X, y, red) = ctx.units, ctx.r_unit()
    for k, v in stops_evidence(units).items():
        expect(ev, k, v, "the machine")
    margin = _margin(red, ev, units)
    bound = _bound(red, X, y, ev, units, margin)
    fits = bound is not None and bound[0] <= units.hi and bound[1] >= units.lo
    if "stream" in ev:
        stream = stream_of(ev, "stream", len(y))
        check_hits(X, y, units, stream, ctx.rerun, ctx.r)
        if fits:
            raise Refuted("its stream reaches an end stop inside the bound it states")
        return verdict(claim, False, f"the stream of {len(stream)} presentations has "
                       "its last move cut short, in exact arithmetic and on the "
                       "machine", "no end stop is ever reached")
    if claim["holds"] is False:
        raise Refuted("it has no stream that reaches an end stop")
    return _no_stream(claim, ev, units, red, bound, fits)


def _margin(red, ev, units):
    """The margin block: ``R_sq`` recomputed; Novikoff's numbers recomputed from a
    margin direction that has margin ``gamma_lower``. Returns the bounds
    ``(top, bottom, used)`` it gives, or None without a direction."""
    expect(ev, "R_sq", red.R_sq, "the largest number of active inputs")
    has = [k for k in ("gamma_lower", "margin_direction", "reinforcement_bound",
                       "novikoff_norm_bound_steps") if k in ev]
    if not has:
        return None
    if "margin_direction" not in ev or "gamma_lower" not in ev:
        raise Refuted(f"its {has[0]} has no margin direction and gamma_lower to "
                      "recompute it from")
    if not margin_holds(red.X, red.y, ev["margin_direction"], ev["gamma_lower"]):
        raise Refuted("the margin direction does not have margin gamma_lower")
    numbers, top, bottom, used = margin_bounds(red, Fraction(float(ev["gamma_lower"])),
                                               units)
    for k, v in numbers.items():
        if ev.get(k) != v:
            raise Refuted(f"the margin gives {k} = {v!r}, not {ev.get(k)!r}")
    return top, bottom, str(used)


def _bound(red, X, y, ev, units, margin):
    """The stated weight bound recomputed from its certificate: ``(top, bottom)`` in
    units, or None when no bound is stated."""
    stated = [k for k in ("bound_used", "max_weight_steps", "min_weight_steps")
              if k in ev]
    if not stated:
        if "reachable_states" in ev or "invariant_states" in ev:
            raise Refuted("it has a reachable set but no bound stated from it")
        return None
    if len(stated) < 3:
        raise Refuted("a bound needs bound_used, max_weight_steps and "
                      "min_weight_steps together")
    used = ev["bound_used"]
    try:
        certificate = BOUND_CERTIFICATES.get(Method(used))
    except ValueError:
        certificate = None
    if certificate is None:
        raise Refuted(f"the bound {used!r} has no certificate a report can hold")
    top, bottom = certificate(red, X, y, ev, units, margin)
    for key, v in (("max_weight_steps", top), ("min_weight_steps", bottom)):
        if fraction(ev[key]) != units.steps(v):
            raise Refuted(f"the {used} bound gives {key} = {units.steps(v)}, not "
                          f"{ev[key]}")
    return top, bottom


@_certifies(Method.NOVIKOFF_COUNT, Method.NOVIKOFF_NORM)
def novikoff_margin_bound(red, X, y, ev, units, margin):
    """Novikoff's bound: the one the certified margin gives (see :func:`_margin`)."""
    used = ev["bound_used"]
    if margin is None:
        raise Refuted(f"the bound {used!r} has no margin direction to derive it")
    if margin[2] != used:
        raise Refuted(f"the margin and the patterns give the bound {margin[2]!r}, "
                      f"not {used!r}")
    return margin[:2]


@_certifies(Method.ONE_SIGNED)
def one_signed_bound(red, X, y, ev, units, margin):
    """Every A-unit pushed one way only, so each weight moves once."""
    one = one_signed(red)
    if one is None:
        raise Refuted("an A-unit is pushed both ways, so the one-signed argument "
                      "does not apply")
    if margin is not None and margin[2] != ev["bound_used"]:
        raise Refuted(f"the margin and the patterns give the bound {margin[2]!r}, "
                      f"not {ev['bound_used']!r}")
    return margin[:2] if margin is not None else one


@_certifies(Method.EXACT_REACH)
def reachable_bound(red, X, y, ev, units, margin):
    """The exact reachable set, an inductive invariant
    (:func:`verify.machine.claims._exact.closed_set`)."""
    closed = closed_set(X, y, ev, units, clipped=False)
    if closed is None:
        raise Refuted("the exact reachable bound has no reachable set to check")
    expect(ev, "reachable_states", len(closed[0]), "the reachable set")
    return int(closed[0].max(initial=0)), int(closed[0].min(initial=0))


@_certifies(Method.BALL)
def ball_bound(red, X, y, ev, units, margin):
    """The per-weight balls from their integer directions, in increments."""
    dirs = ev.get("ball_directions")
    if not dirs:
        raise Refuted("the ball bound has no ball directions")
    Z = (y[:, None] * X).astype(np.int64)
    r = (X * X).sum(axis=1).astype(np.int64)
    upper = lower = None
    for k, U in enumerate(dirs):
        if len(U) != X.shape[1]:
            raise Refuted(f"ball direction {k} is not {X.shape[1]} integers")
        try:
            b = integer_bounds(Z, r, U)
        except OverflowError as exc:   # a bound beyond int64: beyond any stop
            raise Refuted(f"ball direction {k} bounds a weight beyond 2^63 "
                          "increments") from exc
        if b is None:
            raise Refuted(f"ball direction {k} does not separate the figures")
        upper = b[0] if upper is None else np.minimum(upper, b[0])
        lower = b[1] if lower is None else np.maximum(lower, b[1])
    moves = X.any(axis=0)          # an A-unit no figure activates keeps its weight 0
    return (int(upper[moves].max(initial=0)) * units.e,
            int(lower[moves].min(initial=0)) * units.e)


def _no_stream(claim, ev, units, red, bound, fits):
    """An end-stop claim without a stream: its stated bound must back its verdict,
    and a true claim without one must survive the greedy streams."""
    holds, method = claim["holds"], claim["method"]
    if bound is not None and not fits and holds:
        raise Refuted("the bound it states reaches beyond the end stops, yet it says "
                      "no end stop is reached")
    if bound is not None and holds and method != ev["bound_used"]:
        raise Refuted(f"it is decided by {method!r} but states the bound "
                      f"{ev['bound_used']!r}")
    if fits:
        return verdict(claim, True, f"the {ev['bound_used']} bound, recomputed from "
                       f"its certificate, keeps every weight within "
                       f"[{units.steps(bound[1])}, {units.steps(bound[0])}] steps, "
                       "inside the stops (exact)", "no end stop is ever reached")
    if holds:
        found = _greedy_refutes(red, units, ev)
        if found is not None:
            raise Refuted(f"a greedy stream of {len(found)} presentations reaches an "
                          "end stop")
    return None


def _greedy_refutes(red, units, ev):
    """A greedy stream (as :func:`check_machine` tries first) that reaches a stop,
    or None: a quick test of a true end-stop claim that has no certificate."""
    if "margin_direction" not in ev:
        return None
    u = np.asarray(ev["margin_direction"], float)
    for stream in greedy_streams(red, units, int(ev["reinforcement_bound"]), u):
        run = _clipped.run_passes(red.P, red.D, units.lo, units.hi,
                                  np.asarray(stream, np.int64), max_passes=1)
        if run.first_clip >= 0:
            return [int(i) for i in stream[:run.first_clip + 1]]
    return None
