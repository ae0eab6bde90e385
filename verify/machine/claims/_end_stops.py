"""The end-stop claim of one R-unit: can an end stop ever cut a move short?

Novikoff's bounds from a certified margin, the one-signed argument, the exact
reachable set and the balls per weight (:mod:`verify.machine.theory._reach`) try to prove
that no stop bites; greedy, beam, random-order and Z3 searches look for a stream that
reaches one (``docs/theory/machine-claims.md``, ``docs/theory/machine-balls.md``).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.typing import JSONDict
from markone.hardware.runits import numbered
from verify._internal.budget import BUDGET, TIMEOUT, expired
from verify._internal.novikoff import novikoff_mistakes
from verify.machine.theory import _clipped
from verify.machine.theory import _reach
from verify.machine.theory import _stop_searches
from verify.machine.claims._context import SlotContext
from verify.machine.claims._exact import invariant_evidence
from verify.machine.claims.methods import Method
from verify.machine.claims.registry import add_kind, decide, proves
from verify.machine.theory._ball import margin_holds
from verify.machine.theory._stop_searches import greedy_streams, z3_hit
from verify.machine.report import Claim
from verify.machine.task import NO_STOP, Reduced, Units

__all__ = ["end_stop_claim", "END_STOP_KINDS", "split_notes", "margin_bounds",
           "stops_evidence", "one_signed",
           "NOVIKOFF_BOUNDS", "MAX_DIRECTIONS"]

#: The kinds of end-stop claim the error-correction rule's provers give.
END_STOP_KINDS = (Method.NOVIKOFF_COUNT, Method.NOVIKOFF_NORM, Method.ONE_SIGNED,
                  Method.EXACT_REACH, Method.BALL, Method.BALL_PUSHES, Method.Z3,
                  Method.MAX_MARGIN, Method.HIT_EXHAUSTIVE, Method.HIT_GREEDY,
                  Method.HIT_BEAM, Method.HIT_RANDOM, Method.HIT_Z3)

#: The end-stop bounds that follow from a certified margin alone.
NOVIKOFF_BOUNDS = (Method.NOVIKOFF_COUNT, Method.NOVIKOFF_NORM)

# Their evidence: the margin's numbers and the stops always (the first prover states
# them), the rest where it certifies; a stream that reaches a stop.
_BASE = ("R_sq", "gamma_lower", "weight_range", "increment_steps")
_REACH = ("invariant_states", "invariant_groups", "reachable_states")
_OPTIONAL = ("margin_direction", "reinforcement_bound", "novikoff_norm_bound_steps",
             "bound_used", "max_weight_steps", "min_weight_steps", "ball_directions",
             *_REACH)
for _method in (Method.NOVIKOFF_COUNT, Method.NOVIKOFF_NORM, Method.ONE_SIGNED,
                Method.BALL, Method.BALL_PUSHES, Method.Z3):
    add_kind("end_stops", _method, True, None, evidence=_BASE, optional=_OPTIONAL)
add_kind("end_stops", Method.EXACT_REACH, True, None,
         evidence={True: _BASE + _REACH, None: _BASE}, optional=_OPTIONAL)
add_kind("end_stops", Method.MAX_MARGIN, None, evidence=_BASE, optional=_OPTIONAL)
for _method in (Method.HIT_EXHAUSTIVE, Method.HIT_GREEDY, Method.HIT_BEAM,
                Method.HIT_RANDOM, Method.HIT_Z3):
    add_kind("end_stops", _method, False, evidence=(*_BASE, "stream"),
             optional=_OPTIONAL)


#: Most integer ball directions a report keeps as the evidence of an end-stop claim
#: (each is one integer per input of the R-unit); with more, the claim is not
#: re-checkable from the report.
MAX_DIRECTIONS = 256

#: End-stop evidence that records how a search went, not what the claim rests on:
#: kept out of the report (in ``Claim.notes``), since no re-check can recompute it.
SEARCH_NOTES = ("gamma_upper", "ball_max_weight_steps", "ball_min_weight_steps",
                "ball_refined", "ball_complete", "beam_furthest_steps", "beam_a_unit",
                "beam_runs")

#: The numbers Novikoff's argument derives from a certified margin.
MARGIN_NUMBERS = ("gamma_lower", "reinforcement_bound", "novikoff_norm_bound_steps")

#: A stated weight bound, kept only beside the certificate it is recomputed from.
BOUND_NUMBERS = ("bound_used", "max_weight_steps", "min_weight_steps")


def end_stop_claim(base: Any) -> Claim:
    """The end-stop claim of the R-unit of ``base`` (its
    :class:`~verify.machine.claims._context.RUnitContext`): the first claim of the slot's
    provers in their order, with only re-checkable evidence (the rest in its notes)
    once the error-correction analysis ran; ``base.hit`` is then the stream that
    reaches a stop, if one was found."""
    ctx = EndStops(base)
    claim = decide("end_stops", ctx)
    return split_notes(claim) if ctx.margin is not None else claim


def split_notes(claim):
    """Move the end-stop evidence that the report cannot back to ``notes``: search
    records, the margin numbers without the direction that certifies them, and a
    weight bound without its certificate."""
    ev, notes = dict(claim.evidence), dict(claim.notes)
    certified = {Method.ONE_SIGNED: True,
                 Method.EXACT_REACH: "invariant_states" in ev,
                 Method.BALL: "ball_directions" in ev,
                 **dict.fromkeys(NOVIKOFF_BOUNDS, "margin_direction" in ev)}
    moved = [*SEARCH_NOTES,
             *(MARGIN_NUMBERS if "margin_direction" not in ev else ()),
             *(BOUND_NUMBERS if not certified.get(ev.get("bound_used"), False) else ()),
             *(("reachable_states",) if "invariant_states" not in ev else ())]
    for key in moved:
        if key in ev:
            notes[key] = ev.pop(key)
    return dataclasses.replace(claim, evidence=ev, notes=notes)


def margin_bounds(red: Reduced, lower: Fraction, units: Units
                  ) -> tuple[JSONDict, int, int, Method]:
    """Novikoff's numbers from a margin of at least ``lower`` on one R-unit's task,
    and the better of his weight bound and the one-signed argument:
    ``(numbers, top, bottom, used)``, the bound in units (shared by
    :func:`check_machine` and :func:`recheck_report`)."""
    mistakes = novikoff_mistakes(red.R_sq, lower)
    norm = math.floor(Fraction(red.R_sq) / lower)
    bound, used = ((norm, Method.NOVIKOFF_NORM) if norm <= mistakes else
                   (mistakes, Method.NOVIKOFF_COUNT))
    top, bottom = bound * units.e, -bound * units.e
    one = one_signed(red)
    if one is not None and (one[0] < top or one[1] > bottom):
        (top, bottom), used = one, Method.ONE_SIGNED
        mistakes = min(mistakes, red.n)
    return ({"reinforcement_bound": mistakes,
             "novikoff_norm_bound_steps": str(norm * units.eta)}, top, bottom, used)


def stops_evidence(units: Units) -> JSONDict:
    """The end stops and increment as a claim's evidence states them."""
    return {"weight_range": None if not units.stops else
            [str(units.steps(units.lo)), str(units.steps(units.hi))],
            "increment_steps": str(units.eta)}


@dataclasses.dataclass
class EndStops(SlotContext):
    """What the end-stop provers of one R-unit share: the R-unit (``base``, whose
    task, units and search limits read as attributes of this), the evidence so far,
    the best bound proven (``top``, ``bottom`` in units, by the method ``used``,
    within ``mistakes`` reinforcements) and the stream that reaches a stop (``hit``)
    once one is found."""

    slot = "end_stops"
    ev: dict = dataclasses.field(default_factory=dict)
    margin: Any = None
    top: int = 0
    bottom: int = 0
    used: Method = Method.MAX_MARGIN
    mistakes: int = 0
    graph: Any = None
    proven: Any = None
    pushed: Any = None

    def hits(self, stream, how):
        """The claim that ``stream`` (found by the search ``how``) reaches a stop."""
        claim, self.base.hit = _hit_claim(self.red, self.units, stream, how, self.ev)
        return claim


@proves(Method.MAX_MARGIN, order=100)
def margin(ctx: EndStops) -> Claim | None:
    """Novikoff's bounds from the certified margin, and the one-signed argument."""
    from verify.margin import max_margin  # light start-up: the LP solver only for this claim

    red, units = ctx.red, ctx.units
    m = ctx.margin = max_margin(red.X.astype(np.float64), red.y, intercept=False)
    lower = Fraction(m.lower) if m.lower > 0 else None
    ctx.ev.update({"R_sq": red.R_sq, "gamma_lower": m.lower, "gamma_upper": m.upper,
                   **({"margin_direction": [float(v) for v in m.u]}
                      if m.lower > 0 and margin_holds(red.X, red.y, m.u, m.lower)
                      else {}),
                   **stops_evidence(units)})
    if lower is None:   # pragma: no cover - separable data have a positive margin
        return Claim(None, Method.MAX_MARGIN, "margin too thin to certify", ctx.ev)
    numbers, ctx.top, ctx.bottom, ctx.used = margin_bounds(red, lower, units)
    ctx.ev.update(numbers)
    ctx.mistakes = numbers["reinforcement_bound"]
    return None


@proves(order=110, slot="end_stops")
def exact_reach(ctx: EndStops) -> Claim | None:
    """On a small task, the exact set of weights any stream reaches: the tightest
    bound."""
    red = ctx.red
    if red.small():
        ctx.graph = _clipped.reachable(red.P, red.D, -NO_STOP, NO_STOP,
                                       budget=ctx.budget)
        if ctx.graph.complete:
            ctx.top = int(ctx.graph.states.max(initial=0))
            ctx.bottom = int(ctx.graph.states.min(initial=0))
            ctx.used = Method.EXACT_REACH
            ctx.ev["reachable_states"] = len(ctx.graph.states)
    return None


@proves(Method.NOVIKOFF_COUNT, Method.NOVIKOFF_NORM, Method.ONE_SIGNED,
        Method.EXACT_REACH, order=120)
def fits(ctx: EndStops) -> Claim | None:
    """No stop bites when the best bound so far fits inside the stops."""
    claim = _fits_claim(ctx.units, ctx.top, ctx.bottom, ctx.used, ctx.mistakes, ctx.ev)
    if claim is not None and ctx.used is Method.EXACT_REACH:
        ctx.ev.update(invariant_evidence(ctx.graph, ctx.red))
    return claim


@proves(Method.HIT_EXHAUSTIVE, order=130)
def exhaustive(ctx: EndStops) -> Claim | None:
    """The exact reachable set leaves the stops: the path to a state outside."""
    if ctx.used is not Method.EXACT_REACH:
        return None
    states, units = ctx.graph.states, ctx.units
    s = int(np.flatnonzero((states > units.hi).any(axis=1)
                           | (states < units.lo).any(axis=1))[0])
    return ctx.hits(ctx.graph.path_to(s), Method.HIT_EXHAUSTIVE)


@proves(Method.HIT_GREEDY, order=140)
def greedy(ctx: EndStops) -> Claim | None:
    """Greedy mistake streams (:func:`greedy_streams`) that reach a stop."""
    red, units = ctx.red, ctx.units
    for stream in greedy_streams(red, units, ctx.mistakes,
                                 np.asarray(ctx.margin.u, float)):
        if _clipped.run_passes(red.P, red.D, units.lo, units.hi, np.asarray(stream),
                               max_passes=1).first_clip >= 0:
            return ctx.hits(stream, Method.HIT_GREEDY)
    return None


@proves(Method.BALL, Method.BALL_PUSHES, order=150)
def balls(ctx: EndStops) -> Claim | None:
    """Each weight in its own ball, and in smaller ones at its pushes
    (:mod:`verify.machine.theory._reach`)."""
    red, units = ctx.red, ctx.units
    lo_inc, hi_inc = -(-units.lo // units.e), units.hi // units.e
    proven = ctx.proven = _reach.proven_reach(red.X, red.y, lo_inc, hi_inc,
                                              deadline=ctx.deadline)
    if proven is None:
        return None
    top, bottom = _reach.ball_evidence(red, units, proven, ctx.ev)
    if not (top < ctx.top or bottom > ctx.bottom):
        return None
    ctx.top, ctx.bottom = top, bottom
    ctx.used = Method.BALL_PUSHES if proven.pushed else Method.BALL
    claim = _fits_claim(units, top, bottom, ctx.used, ctx.mistakes, ctx.ev,
                        ": each weight lies in a ball around a separating direction "
                        "that no mistake can leave"
                        + ("; at the mistakes that push a weight further out it lies "
                           "in a smaller ball still" if proven.pushed else ""))
    # the directions alone re-check the bounds (kept when not too many)
    if claim is not None and not proven.pushed and \
            len(proven._ball.directions) <= MAX_DIRECTIONS:
        claim.evidence["ball_directions"] = _reach.ball_directions(red, proven)
    return claim


@proves(Method.HIT_BEAM, order=160)
def beam(ctx: EndStops) -> Claim | None:
    """The beam search for a stream that pushes a weight to its stop."""
    if ctx.proven is None:
        return None
    red, units = ctx.red, ctx.units
    lo_inc, hi_inc = -(-units.lo // units.e), units.hi // units.e
    pushed = ctx.pushed = _reach.pushed_reach(red.X, red.y, ctx.proven, lo_inc,
                                              hi_inc, deadline=ctx.deadline)
    ctx.ev.update(beam_furthest_steps=str(pushed.furthest * units.eta),
                  beam_a_unit=(None if pushed.column is None
                               else int(red.cols[pushed.column])),
                  beam_runs=len(pushed.tried))
    return None if pushed.stream is None else ctx.hits(pushed.stream, Method.HIT_BEAM)


@proves(Method.HIT_RANDOM, order=170)
def random_orders(ctx: EndStops) -> Claim | None:
    """Random periodic orders, each run until it reaches a stop or 200 passes."""
    red, units = ctx.red, ctx.units
    for _ in range(ctx.orders):
        if expired(ctx.deadline):
            break
        order = ctx.rng.permutation(red.n)
        run = _clipped.run_passes(red.P, red.D, units.lo, units.hi, order,
                                  max_passes=200)
        if run.first_clip >= 0:
            stream = np.tile(order, run.first_clip // red.n + 1)[:run.first_clip + 1]
            return ctx.hits(stream.tolist(), Method.HIT_RANDOM)
    return None


@proves(Method.Z3, Method.HIT_Z3, order=180)
def z3_bmc(ctx: EndStops) -> Claim | None:
    """Z3 bounded model checking to the Novikoff depth, on small tasks."""
    red, units, deadline = ctx.red, ctx.units, ctx.deadline
    if not (ctx.mistakes <= ctx.z3_depth and red.small()):
        return None
    found = z3_hit(red, units, ctx.mistakes, deadline)
    if found in (BUDGET, TIMEOUT):
        limit = ("within timeout_s" if found == TIMEOUT else
                 f"within its budget of {_stop_searches.Z3_RLIMIT:,} resource units "
                 "(Z3_RLIMIT)")
        return Claim(None, Method.Z3,
                     f"undecided: Z3 did not finish {limit} (the bound "
                     f"{units.steps(ctx.top)} steps exceeds the end stops and no "
                     "stream reaching them was found)", ctx.ev)
    if found is None:
        return Claim(True, Method.Z3,
                     f"no stream of up to {ctx.mistakes} reinforcements (the most any "
                     "order makes before a first cut) reaches an end stop: Z3 "
                     "proved it", ctx.ev)
    return ctx.hits(found, Method.HIT_Z3)


@proves(Method.NOVIKOFF_COUNT, Method.NOVIKOFF_NORM, Method.ONE_SIGNED,
        Method.EXACT_REACH, Method.BALL, Method.BALL_PUSHES, Method.MAX_MARGIN,
        order=190)
def undecided(ctx: EndStops) -> Claim:
    """Not decided: the best bound proven and how far the searches got."""
    return Claim(None, ctx.used, _undecided(ctx.units, ctx.top, ctx.bottom, ctx.used,
                                            ctx.pushed, ctx.ev), ctx.ev)


def one_signed(red):
    """``(top, bottom)`` in units when every A-unit is pushed one way only (all its
    figures want the same sign, as when every target is the same): then no figure
    ever scores below zero, a mistake needs every one of its active weights at zero,
    each weight moves once, and no figure is a mistake twice. Else None."""
    up, down = red.D.max(axis=0, initial=0), red.D.min(axis=0, initial=0)
    if ((up > 0) & (down < 0)).any():
        return None
    return int(up.max(initial=0)), int(down.min(initial=0))


def _fits_claim(units, top, bottom, used, mistakes, ev, why=""):
    """Record the bound ``used`` in ``ev``; the claim that no end stop ever bites when
    ``[bottom, top]`` (units) fits inside the stops, else None."""
    ev.update(bound_used=str(used), max_weight_steps=str(units.steps(top)),
              min_weight_steps=str(units.steps(bottom)))
    if top > units.hi or bottom < units.lo:
        return None
    return Claim(True, used,
                 f"no end stop ever cuts a move short: every weight stays within "
                 f"[{units.steps(bottom)}, {units.steps(top)}] steps for every order "
                 f"({used}{why}); the machine is the ideal perceptron on this task and "
                 f"learns it within {mistakes} reinforcements", ev)


def _undecided(units, top, bottom, used, pushed, ev):
    """Why the end-stop claim stays open: the best bound and the furthest push."""
    words = (f"the best bound proven ({used}) lets a weight reach "
             f"[{units.steps(bottom)}, {units.steps(top)}] steps, beyond the end stops "
             f"[{units.steps(units.lo)}, {units.steps(units.hi)}]")
    last = ev.get("ball_refined", [])[-1:]
    if last and ev.get("ball_complete"):
        words += (f" ({numbered('A-unit', last[0]['a_unit'])}'s {last[0]['by']} still allow"
                  f"{'s' if last[0]['by'] == 'own ball' else ''} "
                  f"{last[0]['bound_steps']} steps"
                  + (", about the best Novikoff's argument gives for it"
                     if last[0]["by"] == "own ball" else
                     ", with the mistake condition of the moves that raise it") + ")")
    elif last:
        words += (f" (the weight-by-weight balls stopped at their budget after "
                  f"{len(ev['ball_refined'])} weights)")
    if pushed is not None:
        words += (f", while the searches (greedy, {len(pushed.tried)} beam runs, random "
                  f"orders) pushed a weight only to {pushed.furthest * units.eta} "
                  "steps; not proven either way")
    else:
        words += ", and no stream reaching them was found"
    return words


def _hit_claim(red, units, stream, how, ev):
    """Cut ``stream`` at its first blocked move (checked with the clipped update)."""
    stream = [int(i) for i in stream]
    run = _clipped.run_passes(red.P, red.D, units.lo, units.hi,
                              np.asarray(stream), max_passes=1)
    if run.first_clip < 0:  # pragma: no cover - every search returns a hitting stream
        raise RuntimeError("BUG: a stream said to reach an end stop does not; please "
                           "report it with the data.")
    stream = stream[:run.first_clip + 1]
    ev = dict(ev, stream=stream)
    # "replay:" below is report text, which a re-check compares:
    # kept as written, so saved reports still re-check (docs/architecture.md)
    return Claim(False, how, f"an end stop cuts a move short after {len(stream)} "
                 f"presentations of a stream found by the {how} search (replay: "
                 "MarkI.train(images, labels, order=stream, max_epochs=1) has "
                 "saturated > 0 for this R-unit)", ev), stream
