"""How far one R-unit's weights can go from zero, over every order of presentation.

From both sides, in whole increments of the ideal perceptron (the machine until an
end stop first cuts a move short):

* :func:`proven_reach` bounds every weight with the Novikoff ball of
  :mod:`verify.machine.theory._ball` (certified; refined weight by weight against the end stops,
  and a weight whose own ball leaves them by the balls at the mistakes that push it,
  :mod:`verify.machine.theory._cap`);
* :func:`pushed_reach` looks for a stream that drives a weight outside the end stops
  with the beam search of :mod:`verify.machine.theory._push`, aimed at the weights whose ball leaves
  the most room, each guided by its own ball, in stages of growing width.

Examples
--------
Two A-units; every stream keeps ``w_0`` in ``[-1, 1]`` and ``w_1`` in ``[0, 2]``
(the exact reachable set, from :func:`verify.machine.theory._clipped.reachable`). The balls prove
a little more room than that; the search pushes ``w_1`` past a stop at 1:

>>> import numpy as np
>>> X, y = np.array([[1, 1], [1, 0]]), np.array([1, -1])
>>> p = proven_reach(X, y, -5, 5)
>>> p.upper.tolist(), p.lower.tolist()
([1, 3], [-2, 0])
>>> pushed_reach(X, y, proven_reach(X, y, -1, 1), -1, 1).stream
[0, 1, 1, 0]
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from markone._internal.typing import ArrayLike
from verify._internal.budget import expired
from verify.machine.theory import _ball
from verify.machine.theory import _cap
from verify.machine.theory._push import gram_matrix, push_stream

__all__ = ["Proven", "Pushed", "proven_reach", "pushed_reach", "ball_evidence",
           "ball_directions"]

#: Beam widths tried in turn, and how many target weights each stage keeps.
STAGES = ((16, 6), (64, 3), (256, 1), (1024, 1))
#: Most weights refined one by one per R-unit: the refinement's budget of work (each
#: is a few small QPs), so that the bounds do not depend on the clock.
MAX_REFINE = 1024


@dataclasses.dataclass(frozen=True)
class Proven:
    """Certified ``lower <= w_j <= upper`` for every column ``j`` of ``X`` (increments;
    columns never active stay 0); ``refined`` the ``(column, sign)`` pairs that got
    their own ball, ``pushed`` those whose bound came from the balls at their pushes;
    ``complete`` False when a budget cut the refinement short."""

    upper: np.ndarray
    lower: np.ndarray
    refined: tuple
    complete: bool
    _Z: np.ndarray = dataclasses.field(repr=False)
    _rows: np.ndarray = dataclasses.field(repr=False)
    _cols: np.ndarray = dataclasses.field(repr=False)
    _ball: _ball.BallBounds = dataclasses.field(repr=False)
    pushed: tuple = ()


@dataclasses.dataclass(frozen=True)
class Pushed:
    """The search's result: ``stream`` (example indices of ``X``) whose ideal weights
    leave the range, or None; ``furthest`` the largest ``sign * w_j`` reached and
    ``column``, ``sign`` where; ``tried`` the ``(column, sign, width)`` runs."""

    stream: list | None
    furthest: int
    column: int | None
    sign: int
    tried: tuple


def proven_reach(X: ArrayLike, y: ArrayLike, lo: int, hi: int, *,
                 deadline: float | None = None, max_refine: int = MAX_REFINE
                 ) -> Proven | None:
    """Ball bounds on every weight of the ideal perceptron on ``(X, y)`` (0/1 patterns,
    -1/+1 targets, separable through the origin), refined against ``[lo, hi]`` on at
    most ``max_refine`` weights (or until ``deadline``, only when one is given: the
    user's ``timeout_s``). None when no separating direction was found."""
    X = np.asarray(X, np.int64)
    cols = np.flatnonzero(X.any(axis=0))
    Xa, rows = np.unique(X[:, cols], axis=0, return_index=True)
    Z = np.asarray(y)[rows, None] * Xa
    b = _ball.ball_bounds(Z, (Xa * Xa).sum(axis=1), lo=lo, hi=hi, deadline=deadline,
                          max_refine=max_refine, push=_cap.push_bound)
    if b is None:
        return None
    upper = np.zeros(X.shape[1], np.int64)
    lower = np.zeros(X.shape[1], np.int64)
    upper[cols], lower[cols] = b.upper, b.lower
    refined = tuple((int(cols[j]), s) for j, s in b.refined)
    pushed = tuple((int(cols[j]), s) for j, s in b.pushed)
    return Proven(upper, lower, refined, b.complete, Z, rows, cols, b, pushed)


def pushed_reach(X: ArrayLike, y: ArrayLike, proven: Proven, lo: int, hi: int, *,
                 deadline: float | None = None,
                 stages: tuple[tuple[int, int], ...] = STAGES) -> Pushed:
    """Beam searches for a stream whose ideal weights leave ``[lo, hi]``, aimed at the
    weights ``proven`` leaves most room outside it (see the module doc)."""
    Z, rows, cols = proven._Z, proven._rows, proven._cols
    r = (Z * Z).sum(axis=1)
    G = gram_matrix(Z)
    b = proven._ball
    over = np.r_[b.upper - hi, lo - b.lower]
    first = stages[0][1] if stages else 0
    targets = [(int(k), 1) if k < len(b.upper) else (int(k) - len(b.upper), -1)
               for k in np.argsort(-over, kind="stable")[:first] if over[k] > 0]
    guides: dict[tuple[int, int], np.ndarray | None] = {}
    best = {t: -1 for t in targets}
    tried: list[tuple[int, int, int]] = []
    furthest, column, side = 0, None, 1
    for width, keep in stages:
        ranked = sorted(targets, key=lambda t: -best[t])[:keep]
        for j, sign in ranked:
            if expired(deadline):
                return Pushed(None, furthest, column, side, tuple(tried))
            if (j, sign) not in guides:
                guides[j, sign] = _ball.weight_direction(Z, r, j, sign, u=b.u,
                                                         qp=b.qp)[1]
            stream, reached = push_stream(Z, j, sign, lo, hi, u=guides[j, sign],
                                          width=width, reach=True, gram=G)
            tried.append((int(cols[j]), sign, width))
            best[j, sign] = max(best[j, sign], reached)
            if reached > furthest:
                furthest, column, side = reached, int(cols[j]), sign
            if stream is not None:
                return Pushed([int(rows[k]) for k in stream], reached, int(cols[j]),
                              sign, tuple(tried))
    return Pushed(None, furthest, column, side, tuple(tried))


def ball_evidence(red: Any, units: Any, proven: Proven, ev: dict) -> tuple[int, int]:
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


def ball_directions(red: Any, proven: Proven) -> list[list[int]]:
    """The ball's integer directions as lists over the R-unit's inputs (0 on the
    A-units that no figure activates)."""
    out = []
    for U in proven._ball.directions:
        full = [0] * red.X.shape[1]
        for c, v in zip(proven._cols.tolist(), np.asarray(U).tolist()):
            full[c] = int(v)
        out.append(full)
    return out
