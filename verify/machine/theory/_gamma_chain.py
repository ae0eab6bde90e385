"""The gamma rule with whole motor steps on a small task: learning with probability 1.

With end stops and whole steps an R-unit's weights take finitely many values, and
every rounding outcome of a move (each fractional entry to the step below or above)
has positive probability. Shown one fixed order every pass, the weights at the starts
of the passes are a finite Markov chain whose transitions are all the rounding
outcomes of the pass; a pass without a mistake moves nothing, so the states that
classify every figure are absorbing and the only ones where training ends. In a finite
chain the run ends with probability 1 exactly when from every state reachable from
zero such a state is reachable (a graph question, decided here by search); otherwise
the search returns a **trap**: a reachable state from which no rounding ever learns,
with the rounding outcomes that lead there, so with positive probability the machine
never learns on that order.

Exact on tasks where the machine's float64 moves round as the exact ones (every
figure activates 0, all, or a number ``k`` of the ``d`` inputs with ``eta k / d``
fractional) and integer stops; :func:`decide` returns None past its budget of states.

>>> import numpy as np
>>> X, y = np.array([[1, 0], [0, 1]]), np.array([1, -1])
>>> decide(X, y, 1, -1, 1, [0, 1])["learns"]       # every rounding path can learn
True
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.typing import ArrayLike

__all__ = ["decide"]

#: Most pass-start states searched.
MAX_STATES = 20_000
#: Most inputs (each move has up to 2**d rounding outcomes).
MAX_INPUTS = 8


def _options(x, y, eta, d):
    """Per entry, the whole steps a move can round to (one when it is whole)."""
    k = int(x.sum())
    out = []
    for j in range(d):
        r = Fraction(eta * int(y)) * (int(x[j]) - Fraction(k, d))
        out.append((math.floor(r), math.ceil(r)) if r.denominator > 1 else (int(r),))
    return out


def decide(X: ArrayLike, y: ArrayLike, eta: int, lo: int, hi: int,
           order: ArrayLike, max_states: int = MAX_STATES) -> dict[str, Any] | None:
    """Does the quantised gamma rule learn with probability 1 on ``order`` (module
    doc)? Returns None when the task is outside the exact model or the budget, else a
    dict: ``learns`` (True: with probability 1; False: ``trap``, a reachable state
    from which no rounding learns, and ``path``, the rounding outcome of each move
    that leads there), ``states`` (pass-start states searched)."""
    X = np.asarray(X, np.int64)
    y = np.asarray(y, np.int64)
    d = X.shape[1]
    k = X.sum(axis=1)
    if d > MAX_INPUTS or any(0 < kk < d and (eta * kk) % d == 0 for kk in k):
        return None
    chain = _Chain(X, y, eta, lo, hi, [int(i) for i in order], max_states)
    graph = chain.search()
    if graph is None:
        return None
    succ, parent = graph
    traps = _traps(succ)
    if not traps:
        return {"learns": True, "states": len(succ)}
    trap = min(traps, key=lambda w: (_depth(parent, w), w))
    path: list = []
    w = trap
    while parent[w] is not None:
        w, how = parent[w]
        path[:0] = [list(o) for o in how]
    return {"learns": False, "states": len(succ), "trap": list(trap), "path": path}


class _Chain:
    """The finite chain of pass-start weights of the quantised gamma rule on one
    order: each move's rounding outcomes (``opts``), clipped to ``[lo, hi]``."""

    def __init__(self, X, y, eta, lo, hi, order, max_states):
        n, d = X.shape
        self.opts = [list(itertools.product(*_options(X[i], y[i], eta, d)))
                     for i in range(n)]
        self.rows = [tuple(int(v) for v in X[i]) for i in range(n)]
        self.signs = [int(v) for v in y]
        self.lo, self.hi, self.order, self.max_states = lo, hi, order, max_states
        self.d = d

    def right(self, i, w):
        return self.signs[i] * sum(a * b for a, b in zip(self.rows[i], w)) > 0

    def learned(self, w):
        return all(self.right(i, w) for i in range(len(self.rows)))

    def one_pass(self, w):
        """Pass-end states from ``w``, each with the rounding outcomes (one tuple per
        move that rounds) that reach it; None beyond the budget."""
        now = {w: ()}
        for i in self.order:
            nxt: dict[tuple, tuple] = {}
            fractional = len(self.opts[i]) > 1
            for v, how in now.items():
                if self.right(i, v):
                    nxt.setdefault(v, how)
                    continue
                for o in self.opts[i]:
                    u = tuple(min(max(a + b, self.lo), self.hi) for a, b in zip(v, o))
                    if u not in nxt:
                        nxt[u] = how + ((o,) if fractional else ())
            now = nxt
            if len(now) > self.max_states:
                return None
        return now

    def search(self):
        """``(succ, parent)``: the pass-end states of every reachable pass-start state
        (none once learned) and how each was first reached; None beyond the budget."""
        start = (0,) * self.d
        succ: dict[tuple, dict] = {}
        parent: dict[tuple, Any] = {start: None}
        todo = [start]
        while todo:
            w = todo.pop()
            if self.learned(w):
                succ[w] = {}
                continue
            ends = self.one_pass(w)
            if ends is None or len(parent) > self.max_states:
                return None
            succ[w] = ends
            for u, how in ends.items():
                if u not in parent:
                    parent[u] = (w, how)
                    todo.append(u)
        return succ, parent


def _traps(succ):
    """The states from which no rounding reaches a learned state."""
    good = {w for w in succ if not succ[w]}          # learned: absorbing
    back: dict[tuple, list] = {w: [] for w in succ}
    for w, ends in succ.items():
        for u in ends:
            back[u].append(w)
    stack = list(good)
    while stack:
        for v in back[stack.pop()]:
            if v not in good:
                good.add(v)
                stack.append(v)
    return [w for w in succ if w not in good]


def _depth(parent, w):
    n = 0
    while parent[w] is not None:
        w, n = parent[w][0], n + 1
    return n
