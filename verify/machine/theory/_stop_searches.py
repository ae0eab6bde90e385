"""Searches for a stream that reaches an end stop: greedy mistake streams, and Z3's
bounded model checking of every stream up to a depth.

They serve the end-stop provers (:mod:`verify.machine.claims._end_stops`) and, for a true
claim that has no certificate, its re-check (a greedy stream that reaches a stop
refutes it). Z3 is limited by its own deterministic work count (:data:`Z3_RLIMIT`),
and by the clock only when the user gives ``timeout_s``.

Examples
--------
>>> import numpy as np
>>> from verify.machine.task import Reduced, Units
>>> units = Units(1, (-1, 1))
>>> red = Reduced(np.array([[1, 0], [0, 1], [1, 1]]), np.array([1, -1, 1]), units)
>>> z3_hit(red, units, 4)          # three mistakes push weight 0 to 2, past the stop
[1, 0, 2]
"""

from __future__ import annotations

import math

import numpy as np

from verify._internal.budget import BUDGET, TIMEOUT, expired, seconds_left
from verify.adversary import _greedy_run

__all__ = ["greedy_streams", "z3_hit", "Z3_RLIMIT"]

#: Z3 resource units (its deterministic ``rlimit`` count) at most of the bounded model
#: checking of one R-unit's end stops (it can otherwise run for many minutes on a
#: small task): a few seconds of Z3's work on an idle machine.
Z3_RLIMIT = 20_000_000

def greedy_streams(red, units, mistakes, u):
    """Greedy mistake streams of the ideal rule: push the weight that is furthest out
    further, and :mod:`verify.adversary`'s rules (largest growth of ``||w||``, least
    violated, least progress along the max-margin direction ``u``)."""
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
