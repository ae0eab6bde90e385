"""The convergence claim of one R-unit: does it learn on every fair stream?

Without a stop that bites the machine is the ideal perceptron; otherwise the clipped
reachable set decides it on small tasks, a certified clipped Novikoff ball
(:mod:`verify.machine.theory._projected`) proves it, and continuations of the stream that
reached a stop and periodic orders look for a stream that never learns
(``docs/theory/machine-claims.md``).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from typing import Any

import numpy as np

from markone._internal.io import plural
from markone._internal.typing import JSONDict
from verify._internal.budget import expired
from verify.machine.theory import _clipped
from verify.machine.theory import _projected
from verify.machine.theory._clipped import blocking_components
from verify.machine.claims._exact import invariant_evidence
from verify.machine.claims._context import SlotContext
from verify.machine.claims.methods import Method
from verify.machine.claims.registry import add_kind, decide, proves
from verify.machine.report import Claim

__all__ = ["convergence_claim", "CONVERGENCE_KINDS", "ideal_convergence", "exact_convergence",
           "continuation_orders", "continuation", "CONTINUE_PASSES", "PERIODIC_PASSES"]

#: The kinds of convergence claim the error-correction rule's searches give (the
#: ideal perceptron's follows from the end-stop claim instead).
CONVERGENCE_KINDS = (Method.ALL_STREAMS, Method.CLIPPED_BALL, Method.CONTINUATION,
                     Method.PERIODIC, Method.CONTINUATIONS_OPEN, Method.PERIODIC_OPEN)

# Their evidence: a cycle that blocks convergence (with the continuations that found
# it: a cycle alone would prove the claim, but the report states its search), or the
# certificate that it converges.
_BLOCKING = ("prefix", "cycle")
add_kind("converges", Method.IDEAL, True, evidence=())
add_kind("converges", Method.ALL_STREAMS, True, False,
         evidence={True: ("invariant_states", "invariant_groups"), False: _BLOCKING},
         optional=("continuations",))
add_kind("converges", Method.CLIPPED_BALL, True,
         evidence=("a_units", "center_numerators", "center_denominator", "min_decrease",
                   "reinforcement_bound"))
add_kind("converges", Method.CONTINUATION, False, evidence=(*_BLOCKING, "continuations"))
add_kind("converges", Method.PERIODIC, False, evidence=_BLOCKING,
         optional=("continuations",))
add_kind("converges", Method.CONTINUATIONS_OPEN, None, evidence=("continuations",))
add_kind("converges", Method.PERIODIC_OPEN, None, evidence=())

#: Passes at most that each continuation after a stream reaching a stop is run (the
#: compiled clipped update runs about 10,000 passes of 260 figures a second).
CONTINUE_PASSES = 5_000

#: Passes at most of each random periodic order tried besides the continuations.
PERIODIC_PASSES = 200


def ideal_convergence(end_stops):
    """Convergence when no end stop ever bites (it follows from the learnable and
    end-stop claims)."""
    bound = end_stops.evidence.get("reinforcement_bound")
    within = (f"within {bound} reinforcements (the end-stop claim's bound)"
              if bound is not None else "(Novikoff's theorem)")
    return Claim(True, Method.IDEAL,
                 f"learns for every order {within}, because no end stop ever bites", {})


def convergence_claim(base: Any) -> Claim:
    """Does the R-unit of ``base`` (its
    :class:`~verify.machine.claims._context.RUnitContext`, with its end-stop claim and the
    stream that reached a stop, if any) learn on every fair stream? The first claim
    of the slot's provers in their order."""
    return decide("converges", Convergence(base))


@dataclasses.dataclass
class Convergence(SlotContext):
    """What the convergence provers of one R-unit share: the R-unit (``base``: its
    task, search limits, end-stop claim and the stream that reached a stop read as
    attributes of this), and the continuations run so far (``after``, with whether
    each ran out of time)."""

    slot = "converges"
    after: list = dataclasses.field(default_factory=list)
    timed_out: list = dataclasses.field(default_factory=list)

    @property
    def end_stops(self) -> Claim:
        """The R-unit's end-stop claim."""
        return self.base.claims["end_stops"]

    def evidence(self) -> JSONDict:
        """The continuations as evidence, when there are any."""
        return {"continuations": self.after} if self.after else {}


@proves(Method.IDEAL, order=100)
def ideal(ctx: Convergence) -> Claim | None:
    """No end stop ever bites: the machine is the ideal perceptron."""
    return ideal_convergence(ctx.end_stops) if ctx.end_stops.holds else None


@proves(Method.ALL_STREAMS, order=110)
def all_streams(ctx: Convergence) -> Claim | None:
    """On a small task, every fair stream at once (the clipped reachable set)."""
    red, units = ctx.red, ctx.units
    if not red.small():
        return None
    graph = _clipped.reachable(red.P, red.D, units.lo, units.hi, budget=ctx.budget)
    return exact_convergence(graph, red) if graph.complete else None


@proves(Method.CLIPPED_BALL, order=120)
def clipped_ball(ctx: Convergence) -> Claim | None:
    """A certified centre inside the stops that every mistake brings closer."""
    red, units = ctx.red, ctx.units
    ball = _projected.projected_ball(red.X, red.y, e=units.e, lo=units.lo, hi=units.hi)
    return None if ball is None else _clipped_ball_claim(ball, red, ctx.hit)


@proves(Method.CONTINUATION, order=130)
def continuations(ctx: Convergence) -> Claim | None:
    """The stream that reached a stop, continued in fixed fair orders."""
    red, units, hit = ctx.red, ctx.units, ctx.hit
    if hit is None:
        return None
    for name, order in continuation_orders(red, units, hit):
        run = _clipped.run_passes(red.P, red.D, units.lo, units.hi, order,
                                  prefix=hit, max_passes=CONTINUE_PASSES,
                                  deadline=ctx.deadline)
        ctx.after.append(continuation(name, order, run))
        ctx.timed_out.append(run.timed_out)
        if run.cycle_start is not None:
            return _blocking_claim(list(hit) + order.tolist() * run.cycle_start,
                                   order.tolist() * run.period, Method.CONTINUATION,
                                   {"continuations": ctx.after})
    return None


@proves(Method.PERIODIC, order=140)
def periodic(ctx: Convergence) -> Claim | None:
    """The figures in the given order and random orders, from zero or after the
    stream that reached a stop, each until a pass-boundary setting recurs."""
    red, units, hit = ctx.red, ctx.units, ctx.hit
    for k in range(ctx.orders + 1):
        if expired(ctx.deadline):
            break
        order = np.arange(red.n) if k == 0 else ctx.rng.permutation(red.n)
        prefix = [] if hit is None or k % 2 == 0 else list(hit)
        run = _clipped.run_passes(red.P, red.D, units.lo, units.hi, order,
                                  prefix=prefix, max_passes=PERIODIC_PASSES,
                                  deadline=ctx.deadline)
        if run.cycle_start is not None:
            return _blocking_claim(prefix + order.tolist() * run.cycle_start,
                                   order.tolist() * run.period, Method.PERIODIC,
                                   ctx.evidence())
    return None


@proves(Method.CONTINUATIONS_OPEN, Method.PERIODIC_OPEN, order=150)
def undecided(ctx: Convergence) -> Claim:
    """Not decided: what was tried."""
    words = (f"no order among {ctx.orders + 1} tried keeps the machine from learning; "
             "not proven either way")
    if ctx.after:
        words = (f"a stop is reached (stream of {len(ctx.hit or ())}); continuing "
                 + "; ".join(_continuation_words(c, t)
                             for c, t in zip(ctx.after, ctx.timed_out))
                 + ", so this stream does not block in these continuations; whether "
                 "some stream blocks is not decided (" + words + ")")
    return Claim(None, Method.CONTINUATIONS_OPEN if ctx.after else Method.PERIODIC_OPEN,
                 words, ctx.evidence())


def _clipped_ball_claim(ball, red, hit):
    """Convergence for every stream from a certified centre inside the stops
    (:mod:`verify.machine.theory._projected`)."""
    reach = (f"an end stop can cut a move short (a stream of {len(hit)} presentations "
             "does it), but" if hit is not None else "whether or not an end stop is "
             "ever reached,")
    return Claim(True, Method.CLIPPED_BALL,
                 f"learns for every order: {reach} every mistake, cut short or not, "
                 f"brings the potentiometers closer to one setting inside the stops, "
                 f"so the machine makes at most {ball.mistakes} reinforcements of this "
                 "R-unit on any stream (clipping never blocks learning on this task; "
                 "re-check with verify.machine.check_projected_ball)",
                 {**ball.to_evidence(), "a_units": [int(c) for c in red.cols]})


def continuation_orders(red, units, hit):
    """Fair periodic orders to continue with after ``hit`` reached a stop, by name:
    the figures as given; the stream's own order (its figures in order of first
    appearance, then the others as given), which keeps pushing the way the search
    found; and the figures whose correction pushes the stopped weight further into
    its stop first (cut short every time while the weight sits there), the others
    after them as given."""
    n = red.n
    w = red.D[np.asarray(hit, np.int64)].sum(axis=0)   # ideal weights: it is the
    out = np.flatnonzero((w > units.hi) | (w < units.lo))  # machine until the cut
    g = int(out[0])
    sign = 1 if w[g] > units.hi else -1
    first = dict.fromkeys(int(i) for i in hit)
    own = list(first) + [i for i in range(n) if i not in first]
    push = sign * red.D[:, g] > 0
    orders = [("given", np.arange(n)), ("stream", np.array(own, np.int64)),
              ("pushing", np.r_[np.flatnonzero(push), np.flatnonzero(~push)])]
    unique, seen = [], set()
    for name, order in orders:
        if order.tobytes() not in seen:
            seen.add(order.tobytes())
            unique.append((name, order))
    return unique


def continuation(name: str, order: np.ndarray, run: _clipped.PassRun) -> JSONDict:
    """One continuation's outcome as JSON: ``converges`` (a pass without a mistake
    after ``passes`` passes and ``reinforcements`` corrections, prefix included),
    ``never learns`` (the pass-boundary state at ``cycle_start`` recurs ``period``
    passes later) or ``undecided`` (within ``passes`` passes, as far as the run went:
    rerun with ``max_passes=passes`` it ends in the same state, so
    :func:`recheck_report` recomputes every number)."""
    out = {"order": name, "order_indices": order.tolist(), "passes": run.passes,
           "reinforcements_after_prefix": run.mistakes - run.prefix_mistakes}
    if run.converged:
        out["outcome"] = "converges"
    elif run.cycle_start is not None:
        out.update(outcome="never learns", cycle_start=run.cycle_start,
                   period=run.period)
    else:
        out["outcome"] = "undecided"
    return out


def _continuation_words(c, timed_out):
    if c["outcome"] == "converges":
        return (f"in the {c['order']} order it still learns (pass {c['passes']} is "
                f"the first without a mistake, after "
                f"{c['reinforcements_after_prefix']} more reinforcements)")
    return (f"in the {c['order']} order it is undecided after "
            f"{plural(c['passes'], 'pass', 'passes')}"
            + (" (time budget)" if timed_out else ""))


def _blocking_claim(prefix, cycle, how, extra=None):
    ev = {"prefix": [int(i) for i in prefix], "cycle": [int(i) for i in cycle],
          **(extra or {})}
    return Claim(False, how,
                 f"never learns on a stream that shows every figure again and again: "
                 f"after a prefix of {len(prefix)} presentations, a cycle of "
                 f"{len(cycle)} presentations with mistakes brings the potentiometers "
                 "back to the same setting (end stops block the corrections)", ev)


def exact_convergence(graph, red):
    """Decide over every fair stream with the strongly connected components of the
    clipped mistake graph."""
    n_states = len(graph.states)
    comp, inside, bad = blocking_components(n_states, graph.src, graph.dst,
                                            graph.example, graph.correct)
    if bad.size == 0:
        ev = invariant_evidence(graph, red)
        return Claim(True, Method.ALL_STREAMS,
                     f"learns on every stream that shows every figure again and again: "
                     f"none of the {n_states} reachable settings of the potentiometers "
                     "lies on a cycle of mistakes that every figure leaves in place", ev)
    c = int(bad[0])
    members = np.flatnonzero(comp == c)
    s = int(members.min())
    prefix = graph.path_to(s)
    cycle = _covering_walk(graph, comp, c, s, red.n, inside)
    claim = _blocking_claim(prefix, cycle, Method.ALL_STREAMS)
    return claim


def _covering_walk(graph, comp, c, s, n, inside):
    """A closed walk from ``s`` inside component ``c`` that presents every figure and
    makes at least one mistake."""
    edges = np.flatnonzero(inside & (comp[graph.src] == c))
    out = {}
    for k in edges:
        out.setdefault(int(graph.src[k]), []).append(int(k))

    def path(a, b):
        if a == b:
            return []
        prev = {a: None}
        queue = deque([a])
        while queue:
            v = queue.popleft()
            for k in out.get(v, ()):
                t = int(graph.dst[k])
                if t not in prev:
                    prev[t] = k
                    if t == b:
                        steps = []
                        while prev[t] is not None:
                            steps.append(prev[t])
                            t = int(graph.src[prev[t]])
                        return steps[::-1]
                    queue.append(t)
        raise RuntimeError("BUG: no path inside a strongly connected set")  # pragma: no cover

    walk, here, mistakes = [], s, 0
    members = np.flatnonzero(comp == c)
    for i in range(n):
        # a state of c where figure i is correct (no move) or a mistake that stays in c
        where = [int(v) for v in members if v < len(graph.correct) and graph.correct[v, i]]
        stay = [int(k) for k in edges if graph.example[k] == i]
        if where:
            target, move = where[0], None
        else:
            target, move = int(graph.src[stay[0]]), stay[0]
        for k in path(here, target):
            walk.append(int(graph.example[k]))
            mistakes += 1
        here = target
        walk.append(i)
        if move is not None:
            here = int(graph.dst[move])
            mistakes += 1
    if mistakes == 0:   # all figures were correct where we went: take a mistake edge
        k = int(edges[0])
        for e in path(here, int(graph.src[k])):
            walk.append(int(graph.example[e]))
        walk.append(int(graph.example[k]))
        here = int(graph.dst[k])
    for k in path(here, s):
        walk.append(int(graph.example[k]))
    return walk
