"""Exact re-runs for the re-checks: the clipped update in integers, a stream that
must reach an end stop, and a reachable set given as evidence
(:func:`invariant_evidence` writes it), checked as an inductive invariant
(:func:`closed_set`).

Examples
--------
>>> import numpy as np
>>> X, y = np.array([[1, 0], [0, 1]]), np.array([-1, 1])
>>> w, mistakes, cut = clipped_run(X, y, 1, 0, 1, [0, 1, 0])
>>> w.tolist(), mistakes, cut          # figure 0 wants weight -1: the stop at 0 cuts it
([0, 1], 3, 0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from markone._internal.typing import JSONDict
from verify.errors import Refuted
from verify.machine.task import Units

__all__ = ["clipped_run", "check_hits", "closed_set", "invariant_evidence",
           "MAX_INVARIANT"]

#: Most integers (states times merged A-units) of a reachable set a report keeps as
#: the inductive invariant behind an "exact reachable states" claim.
MAX_INVARIANT = 100_000


def clipped_run(X: np.ndarray, y: np.ndarray, e: int, lo: int, hi: int, stream: Any,
                w: np.ndarray | None = None, forced: bool = False
                ) -> tuple[np.ndarray, int, int | None]:
    """The clipped update along ``stream`` in integer units: ``(w, mistakes, cut)``,
    ``cut`` the index of the first presentation whose move an end stop cut short.
    ``forced``: every presentation moves (the forced rule), not only mistakes."""
    Z = (y[:, None] * X).astype(np.int64)   # 0/+-1; weights within the stops: exact
    w = np.zeros(X.shape[1], np.int64) if w is None else w.copy()
    mistakes, cut = 0, None
    for t, i in enumerate(stream):
        z = Z[i]
        wrong = int(z @ w) <= 0
        mistakes += wrong
        if wrong or forced:
            want = w + e * z
            w = np.minimum(np.maximum(want, lo), hi)
            if cut is None and (w != want).any():
                cut = t
    return w, mistakes, cut


def check_hits(X: np.ndarray, y: np.ndarray, units: Units, stream: list[int],
               rerun: Any, r: int, forced: bool = False) -> None:
    """Refute unless the stream's last move is cut short by an end stop, exactly and
    on the machine (``rerun``: a :class:`~verify.machine.claims._evidence.Rerun`)."""
    _, _, cut = clipped_run(X, y, units.e, units.lo, units.hi, stream, forced=forced)
    if cut is None or cut != len(stream) - 1:
        raise Refuted("the stream does not end with a move cut short by an end stop")
    run = rerun(lambda m: m.train(rerun.images, rerun.labels, order=stream,
                                   max_epochs=1))
    if not run.saturated[r] > 0:
        raise Refuted("on the machine the stream reaches no end stop")


def invariant_evidence(graph: Any, red: Any) -> JSONDict:
    """A complete reachable set as evidence that re-checks without a search (an
    inductive invariant over the merged A-units), or nothing when it is too large."""
    if graph.states.size > MAX_INVARIANT:
        return {}
    return {"invariant_states": graph.states.tolist(),
            "invariant_groups": [[int(c) for c in g] for g in red.groups]}


def closed_set(X: np.ndarray, y: np.ndarray, ev: JSONDict, units: Units,
               clipped: bool) -> tuple | None:
    """``(S, edges, correct)`` of a reachable set given as evidence
    (``invariant_states`` over merged A-units ``invariant_groups``), once checked: the
    groups are disjoint, each group's A-units agree on every figure, A-units in no
    group are never active, the set holds zero and every mistake move from a member
    (clipped by the stops when ``clipped``) lands in it. ``edges`` are
    ``(src, dst, figure)`` and ``correct[s, i]``. None when the evidence has no such
    set."""
    groups, states = ev.get("invariant_groups"), ev.get("invariant_states")
    if groups is None and states is None:
        return None
    if groups is None or states is None:
        raise Refuted("a reachable set needs both invariant_states and "
                      "invariant_groups")
    P, D = _merged_moves(X, y, groups, units)
    S, index = _state_rows(states, len(groups))
    correct = (S @ P.T) > 0
    edges = []
    for k, s_ in enumerate(S):
        for i in np.flatnonzero(~correct[k]):
            child = s_ + D[i]
            if clipped:
                child = np.minimum(np.maximum(child, units.lo), units.hi)
            j = index.get(child.tobytes())
            if j is None:
                raise Refuted("a mistake move leaves the invariant")
            edges.append((k, j, int(i)))
    return S, edges, correct


def _merged_moves(X, y, groups, units):
    """``(P, D)`` over the invariant's merged A-units, once its groups are checked:
    disjoint inputs of the R-unit, each agreeing on every figure, and every A-unit
    left out never active."""
    d = X.shape[1]
    flat = [c for g in groups for c in g]
    if any(not 0 <= c < d for c in flat) or len(set(flat)) != len(flat) or not all(
            groups):
        raise Refuted("the invariant's groups are not disjoint sets of the R-unit's "
                      "inputs")
    Xi = X.astype(np.int64)
    if Xi[:, np.setdiff1d(np.arange(d), flat)].any():
        raise Refuted("an A-unit outside the invariant's groups is active")
    for g in groups:
        if (Xi[:, g] != Xi[:, [g[0]]]).any():
            raise Refuted("the A-units of one of the invariant's groups disagree")
    Xu = Xi[:, [g[0] for g in groups]]
    yi = y.astype(np.int64)[:, None]
    P = yi * Xu * np.array([len(g) for g in groups], dtype=np.int64)
    return P, units.e * yi * Xu


def _state_rows(states, width):
    """The invariant's states as int64 rows and an index of them, once checked:
    rows of ``width`` integers within reach of int64, none twice, zero among them."""
    if any(len(row) != width for row in states):
        raise Refuted("the invariant's states are not integer rows, one per group")
    S = np.array(states, dtype=object).reshape(len(states), width)
    if any(abs(v) > 2 ** 62 for v in S.flat):
        raise Refuted("the invariant's states are beyond any reachable weight")
    S = S.astype(np.int64)
    index = {row.tobytes(): k for k, row in enumerate(S)}
    if len(index) != len(S):
        raise Refuted("the invariant lists a state twice")
    if np.zeros(width, np.int64).tobytes() not in index:
        raise Refuted("the invariant does not hold the zero start")
    return S, index
