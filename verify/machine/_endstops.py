"""The end-stop claim of one R-unit: can an end stop ever cut a move short?

Novikoff's bounds from a certified margin, the one-signed argument, the exact
reachable set and the balls per weight (:mod:`verify.machine._reach`) try to prove
that no stop bites; greedy, beam, random-order and Z3 searches look for a stream that
reaches one (``docs/theory/machine-claims.md``, ``docs/theory/machine-balls.md``).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.typing import ArrayLike, JSONDict
from verify._budget import BUDGET, TIMEOUT, expired, seconds_left
from verify.machine import _clipped, _reach
from verify.machine._context import SlotContext
from verify.machine.claims import Method, decide, proves
from verify.machine.report import Claim
from verify.machine.task import NO_STOP, Reduced, Units

__all__ = ["end_stop_claim", "END_STOP_KINDS", "split_notes", "margin_bounds", "margin_holds",
           "stops_evidence", "one_signed", "greedy_streams", "z3_hit",
           "invariant_evidence", "NOVIKOFF_BOUNDS", "MAX_DIRECTIONS", "MAX_INVARIANT",
           "Z3_RLIMIT"]

#: The kinds of end-stop claim the error-correction rule's provers give.
END_STOP_KINDS = (Method.NOVIKOFF_COUNT, Method.NOVIKOFF_NORM, Method.ONE_SIGNED,
                  Method.EXACT_REACH, Method.BALL, Method.BALL_PUSHES, Method.Z3,
                  Method.MAX_MARGIN, Method.HIT_EXHAUSTIVE, Method.HIT_GREEDY,
                  Method.HIT_BEAM, Method.HIT_RANDOM, Method.HIT_Z3)

#: The end-stop bounds that follow from a certified margin alone.
NOVIKOFF_BOUNDS = (Method.NOVIKOFF_COUNT, Method.NOVIKOFF_NORM)


def margin_holds(X: ArrayLike, y: ArrayLike, u: ArrayLike, lower: float) -> bool:
    """True when the direction ``u`` (floats, taken as the exact rationals they are)
    has margin at least ``lower`` on every ``(x_i, y_i)``:
    ``y_i u . x_i > 0`` and ``(y_i u . x_i)^2 >= lower^2 ||u||^2``, in integers.

    >>> margin_holds([[1, 0], [0, 1]], [1, -1], [1.0, -1.0], 0.7)
    True
    >>> margin_holds([[1, 0], [0, 1]], [1, -1], [1.0, -1.0], 0.75)   # 1/sqrt(2) < 0.75
    False
    """
    fu = [Fraction(float(v)) for v in np.asarray(u, dtype=float)]
    g = Fraction(float(lower))
    if g <= 0 or not fu:
        return False
    q = math.lcm(*(f.denominator for f in fu))
    U = np.array([int(f * q) for f in fu], dtype=object)
    X = np.asarray(X).astype(object)
    if X.shape[1] != len(U):
        return False
    scores = np.asarray(y).astype(object) * X.dot(U)
    N = sum(v * v for v in U)
    return bool(min(scores) > 0 and all(v * v * g.denominator ** 2
                                        >= g.numerator ** 2 * N for v in scores))


#: Most integer ball directions a report keeps as the evidence of an end-stop claim
#: (each is one integer per input of the R-unit); with more, the claim is not
#: re-checkable from the report.
MAX_DIRECTIONS = 256

#: Most integers (states times merged A-units) of a reachable set a report keeps as
#: the inductive invariant behind an "exact reachable states" claim.
MAX_INVARIANT = 100_000

#: Z3 resource units (its deterministic ``rlimit`` count) at most of the bounded model
#: checking of one R-unit's end stops (it can otherwise run for many minutes on a
#: small task): a few seconds of Z3's work on an idle machine.
Z3_RLIMIT = 20_000_000

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
    :class:`~verify.machine._context.RUnitContext`): the first claim of the slot's
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
    mistakes = math.floor(Fraction(red.R_sq) / lower ** 2)
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


@proves(Method.MAX_MARGIN, order=10)
def margin(ctx: EndStops) -> Claim | None:
    """Novikoff's bounds from the certified margin, and the one-signed argument."""
    from verify.margin import max_margin

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


@proves(order=20, slot="end_stops")
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
        Method.EXACT_REACH, order=30)
def fits(ctx: EndStops) -> Claim | None:
    """No stop bites when the best bound so far fits inside the stops."""
    claim = _fits_claim(ctx.units, ctx.top, ctx.bottom, ctx.used, ctx.mistakes, ctx.ev)
    if claim is not None and ctx.used is Method.EXACT_REACH:
        ctx.ev.update(invariant_evidence(ctx.graph, ctx.red))
    return claim


@proves(Method.HIT_EXHAUSTIVE, order=40)
def exhaustive(ctx: EndStops) -> Claim | None:
    """The exact reachable set leaves the stops: the path to a state outside."""
    if ctx.used is not Method.EXACT_REACH:
        return None
    states, units = ctx.graph.states, ctx.units
    s = int(np.flatnonzero((states > units.hi).any(axis=1)
                           | (states < units.lo).any(axis=1))[0])
    return ctx.hits(ctx.graph.path_to(s), Method.HIT_EXHAUSTIVE)


@proves(Method.HIT_GREEDY, order=50)
def greedy(ctx: EndStops) -> Claim | None:
    """Greedy mistake streams (:func:`greedy_streams`) that reach a stop."""
    red, units = ctx.red, ctx.units
    for stream in greedy_streams(red, units, ctx.mistakes,
                                 np.asarray(ctx.margin.u, float)):
        if _clipped.run_passes(red.P, red.D, units.lo, units.hi, np.asarray(stream),
                               max_passes=1).first_clip >= 0:
            return ctx.hits(stream, Method.HIT_GREEDY)
    return None


@proves(Method.BALL, Method.BALL_PUSHES, order=60)
def balls(ctx: EndStops) -> Claim | None:
    """Each weight in its own ball, and in smaller ones at its pushes
    (:mod:`verify.machine._reach`)."""
    red, units = ctx.red, ctx.units
    lo_inc, hi_inc = -(-units.lo // units.e), units.hi // units.e
    proven = ctx.proven = _reach.proven_reach(red.X, red.y, lo_inc, hi_inc,
                                              deadline=ctx.deadline)
    if proven is None:
        return None
    top, bottom = _ball_evidence(red, units, proven, ctx.ev)
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
        claim.evidence["ball_directions"] = _directions(red, proven)
    return claim


@proves(Method.HIT_BEAM, order=70)
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


@proves(Method.HIT_RANDOM, order=80)
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


@proves(Method.Z3, Method.HIT_Z3, order=90)
def z3_bmc(ctx: EndStops) -> Claim | None:
    """Z3 bounded model checking to the Novikoff depth, on small tasks."""
    red, units, deadline = ctx.red, ctx.units, ctx.deadline
    if not (ctx.mistakes <= ctx.z3_depth and red.small()):
        return None
    found = z3_hit(red, units, ctx.mistakes, deadline)
    if found in (BUDGET, TIMEOUT):
        limit = ("within timeout_s" if found == TIMEOUT else
                 f"within its budget of {Z3_RLIMIT:,} resource units (Z3_RLIMIT)")
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
        order=100)
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


def _ball_evidence(red, units, proven, ev):
    """Record the per-weight ball bounds in ``ev``; return their ``(top, bottom)``
    in units."""
    top = int(proven.upper.max(initial=0)) * units.e
    bottom = int(proven.lower.min(initial=0)) * units.e
    refined = []
    for j, s in proven.refined:
        b = int(proven.upper[j]) if s > 0 else -int(proven.lower[j])
        refined.append({"a_unit": int(red.cols[j]), "sign": s,
                        "bound_steps": str(units.steps(b * units.e)),
                        "by": "balls at its pushes" if (j, s) in proven.pushed
                        else "own ball"})
    ev.update(ball_max_weight_steps=str(units.steps(top)),
              ball_min_weight_steps=str(units.steps(bottom)), ball_refined=refined,
              ball_complete=proven.complete)
    return top, bottom


def _directions(red, proven):
    """The ball's integer directions as lists over the R-unit's inputs (0 on the
    A-units that no figure activates)."""
    out = []
    for U in proven._ball.directions:
        full = [0] * red.X.shape[1]
        for c, v in zip(proven._cols.tolist(), np.asarray(U).tolist()):
            full[c] = int(v)
        out.append(full)
    return out


def _undecided(units, top, bottom, used, pushed, ev):
    """Why the end-stop claim stays open: the best bound and the furthest push."""
    words = (f"the best bound proven ({used}) lets a weight reach "
             f"[{units.steps(bottom)}, {units.steps(top)}] steps, beyond the end stops "
             f"[{units.steps(units.lo)}, {units.steps(units.hi)}]")
    last = ev.get("ball_refined", [])[-1:]
    if last and ev.get("ball_complete"):
        words += (f" (A-unit {last[0]['a_unit']}'s {last[0]['by']} still allow"
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
    return Claim(False, how, f"an end stop cuts a move short after {len(stream)} "
                 f"presentations of a stream found by the {how} search (replay: "
                 "MarkI.train(images, labels, order=stream, max_epochs=1) has "
                 "saturated > 0 for this R-unit)", ev), stream


def greedy_streams(red, units, mistakes, u):
    """Greedy mistake streams of the ideal rule: push the weight that is furthest out
    further, and :mod:`verify.adversary`'s rules (largest growth of ``||w||``, least
    violated, least progress along the max-margin direction ``u``)."""
    from verify.adversary import _greedy_run

    w = np.zeros(red.d, np.int64)
    Pf = red.P.astype(np.float64)   # small integers: float64 products are exact (BLAS)
    stream = []
    while len(stream) <= mistakes:
        wrong = np.flatnonzero(Pf @ w <= 0)
        if wrong.size == 0:
            break
        nxt = w[None, :] + red.D[wrong]
        reach = np.maximum(nxt.max(axis=1) / max(units.hi, 1),
                           nxt.min(axis=1) / min(units.lo, -1))
        k = int(wrong[np.argmax(reach)])
        stream.append(k)
        w = w + red.D[k]
        if w.max() > units.hi or w.min() < units.lo:
            break
    yield stream
    YX = (red.y[:, None] * red.X).astype(np.float64)
    for rule in ("norm", "least", "align"):
        yield _greedy_run(YX, rule, u, mistakes + 1)


def z3_hit(red, units, depth, deadline=None):
    """A stream of at most ``depth`` mistakes whose ideal weights leave the end
    stops, None when Z3 proves there is none, or what stopped it first: ``"budget"``
    (:data:`Z3_RLIMIT` resource units in all) or ``"timeout"`` (``deadline``)."""
    import z3

    ctx = z3.Context()   # its own: the work counted is this search's alone
    P = red.P.tolist()
    D = red.D.tolist()
    w = [z3.IntVal(0, ctx)] * red.d
    solver = z3.Solver(ctx=ctx)
    solver.set("random_seed", 0)

    def used():
        stats = solver.statistics()
        return stats.get_key_value("rlimit count") if "rlimit count" in stats.keys() else 0

    def check():
        if used() >= Z3_RLIMIT:
            raise _Undecided(BUDGET)
        if expired(deadline):
            raise _Undecided(TIMEOUT)
        solver.set("rlimit", Z3_RLIMIT - used())
        if deadline is not None:
            solver.set("timeout", max(1, math.ceil(seconds_left(deadline) * 1000)))
        answer = solver.check()
        if answer == z3.unknown:   # Z3 says "canceled" for either limit: count
            raise _Undecided(BUDGET if used() >= Z3_RLIMIT or deadline is None
                             else TIMEOUT)
        return answer

    choices, outside = [], []
    for k in range(depth):
        c = z3.Int(f"c{k}", ctx)
        choices.append(c)
        solver.add(c >= 0, c < red.n)
        score = z3.Sum([z3.If(c == i, z3.Sum([P[i][j] * w[j] for j in range(red.d)]),
                              0) for i in range(red.n)])
        solver.add(score <= 0)
        w = [w[j] + z3.Sum([z3.If(c == i, D[i][j], 0) for i in range(red.n)])
             for j in range(red.d)]
        outside.append(z3.Or([z3.Or(v > units.hi, v < units.lo) for v in w]))
        solver.push()
        solver.add(outside[-1])
        try:
            if check() == z3.sat:
                model = solver.model()
                return [model.eval(ci).as_long() for ci in choices]
            solver.pop()
            if check() != z3.sat:   # no stream of k + 1 mistakes at all
                return None
        except _Undecided as stop:
            return stop.args[0]
    return None


class _Undecided(Exception):
    """Z3 answered unknown: ``args[0]`` says what stopped it (``"budget"`` or
    ``"timeout"``)."""


def invariant_evidence(graph, red):
    """A complete reachable set as evidence that re-checks without a search (an
    inductive invariant over the merged A-units), or nothing when it is too large."""
    if graph.states.size > MAX_INVARIANT:
        return {}
    return {"invariant_states": graph.states.tolist(),
            "invariant_groups": [[int(c) for c in g] for g in red.groups]}
