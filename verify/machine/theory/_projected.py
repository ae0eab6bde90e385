"""Convergence *with* end stops: when clipping provably never blocks learning.

An R-unit with end stops makes, on a mistake on figure ``i`` (``y_i x_i . w <= 0``),
the move ``w <- clip(w + e y_i x_i, lo, hi)``: every potentiometer stops at its own end.
Clipping coordinate by coordinate is the Euclidean projection onto the box
``[lo, hi]^d``, and projecting onto a convex set never moves a point away from a point
of the set. So for any centre ``a`` inside the stops,

    ||w' - a||^2  <=  ||w + e y_i x_i - a||^2
                   =  ||w - a||^2 + 2 e y_i x_i . w + e^2 r_i - 2 e y_i x_i . a
                  <=  ||w - a||^2 - (2 e y_i x_i . a - e^2 r_i),

with ``r_i = ||x_i||^2`` (the number of active A-units) and ``y_i x_i . w <= 0`` on a
mistake. If ``a`` lies inside the stops and ``y_i x_i . a > e r_i / 2`` for every
figure, every mistake, cut short or not, brings the weights closer to ``a`` by at
least ``delta = min_i (2 e y_i x_i . a - e^2 r_i) > 0``. From the zero start the
machine therefore makes at most ``||a||^2 / delta`` mistakes on *any* stream: the end
stops may bite, but they never keep it from learning, in any order. (Without stops
this is the ball of :mod:`verify.machine.theory._ball` with ``a = u/2``; inside the box it is the
projected perceptron.)

Finding ``a`` is a linear programme (maximise the slack ``t`` in
``y_i x_i . a - e r_i / 2 >= t``, ``lo <= a_j <= hi``), solved by HiGHS in floating
point; only the certificate counts: ``a`` is rounded to a rational ``A / 2^k`` inside
the stops, and the inequalities and the bound are recomputed exactly in integers
(:func:`check_projected_ball` re-checks a certificate from its numbers alone). When
the best ``a`` has ``t <= 0`` the argument says nothing (clipping may or may not
block).

Examples
--------
Two figures on their own A-units, targets -1 and +1, stops at +/-1 increment: the
centre ``(-1, 1)`` is inside the stops and each score ``1`` exceeds ``r/2 = 1/2``:

>>> import numpy as np
>>> X, y = np.array([[1, 0], [0, 1]]), np.array([-1, 1])
>>> c = projected_ball(X, y, e=1, lo=-1, hi=1)
>>> c.mistakes, c.center().tolist()
(2, [-1.0, 1.0])

With stops at ``(0, 1)`` the first weight can never go negative: no centre exists.

>>> projected_ball(X, y, e=1, lo=0, hi=1) is None
True
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np

from markone._internal.typing import ArrayLike, JSONDict
from markone.hardware.runits import numbered

__all__ = ["ProjectedBall", "projected_ball", "check_projected_ball"]

#: Bits of the rounding of the floating-point centre.
SCALE_BITS = 20
#: Stops beyond this many units count as absent in the linear programme.
UNBOUNDED = 2**40


@dataclasses.dataclass(frozen=True)
class ProjectedBall:
    """A certificate that the clipped update makes at most ``mistakes`` mistakes.

    ``numerators / denominator`` is the centre ``a`` (one entry per weight, inside
    the stops); ``min_decrease`` the least squared-distance decrease per mistake;
    ``slack`` the linear programme's floating-point margin ``t`` (for the record).
    """

    numerators: tuple
    denominator: int
    mistakes: int
    min_decrease: Fraction
    slack: float

    def center(self) -> np.ndarray:
        """The centre ``a`` as floats (for plots; the exact one is the fraction)."""
        return np.array([v / self.denominator for v in self.numerators])

    def to_evidence(self) -> JSONDict:
        """The certificate as JSON-ready evidence (integers as ints, exact fractions
        as strings)."""
        return {"center_numerators": [int(v) for v in self.numerators],
                "center_denominator": int(self.denominator),
                "reinforcement_bound": int(self.mistakes),
                "min_decrease": str(self.min_decrease)}


def _signed(X, y):
    """``Z = y_i x_i`` and ``r_i = ||x_i||^2`` as exact integers (int64 or Python
    ints)."""
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"X must be 2-D with one target per row; got shapes {X.shape} "
                         f"and {y.shape}")
    if not (np.issubdtype(X.dtype, np.integer) or X.dtype == bool
            or (X.dtype == object and all(type(v) is int for v in X.flat))):
        raise TypeError(f"X must hold integers (A-unit outputs); got dtype {X.dtype}")
    if not np.isin(y, (-1, 1)).all():
        raise ValueError("y must hold targets -1 and +1")
    Z = X.astype(object) * y.astype(np.int64).astype(object)[:, None]
    return Z, (Z * Z).sum(axis=1)


def _exact_bound(Z, r, e, lo, hi, A, q):
    """``(mistakes, min_decrease)`` for the centre ``A / q`` (Python ints), or the
    reason it is not a certificate."""
    for j, v in enumerate(A):
        if not lo * q <= v <= hi * q:
            return (f"the centre's weight of {numbered('A-unit', j)} is {v}/{q}, "
                    "outside the end stops "
                    f"[{lo}, {hi}]")
    if len(Z) == 0:
        return 0, Fraction(0)
    gains = 2 * e * Z.dot(np.array(A, dtype=object)) - e * e * r * q
    i = int(np.argmin(gains))
    if gains[i] <= 0:
        return (f"{numbered('figure', i)}: its score at the centre is not above e r/2 "
                f"(short by {Fraction(-int(gains[i]), 2 * e * q)}), so a mistake on it "
                "need not bring the weights closer")
    decrease = Fraction(int(gains[i]), q)
    return int(Fraction(sum(v * v for v in A), q * q) / decrease), decrease


def check_projected_ball(X: ArrayLike, y: ArrayLike, e: int, lo: int, hi: int,
                         numerators: ArrayLike, denominator: int) -> tuple[int, Fraction]:
    """Re-check a centre ``numerators / denominator`` exactly (integers only).

    Returns ``(mistakes, min_decrease)``: the most mistakes the clipped update makes
    from zero on any stream. Raises ValueError naming the first condition that fails
    (a centre weight outside the stops, or a figure whose score at the centre is not
    above ``e r_i / 2``).

    >>> check_projected_ball([[1, 0], [0, 1]], [-1, 1], 1, -1, 1, [-2, 2], 2)
    (2, Fraction(1, 1))
    >>> check_projected_ball([[1, 0], [0, 1]], [-1, 1], 1, 0, 1, [-1, 1], 1)
    Traceback (most recent call last):
    ...
    ValueError: the centre's weight of A-unit 1 is -1/1, outside the end stops [0, 1]
    """
    Z, r = _signed(X, y)
    A = list(np.asarray(numerators, dtype=object).ravel().tolist())
    for j, v in enumerate([*A, denominator, e, lo, hi]):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            what = (f"centre numerator {j}" if j < len(A) else
                    ("denominator", "e", "lo", "hi")[j - len(A)])
            raise TypeError(f"{what} must be an integer, got {v!r}")
    A = [int(v) for v in A]
    q, e, lo, hi = int(denominator), int(e), int(lo), int(hi)
    if q <= 0 or e <= 0:
        raise ValueError(f"denominator and increment must be positive; got {q} and {e}")
    if len(A) != Z.shape[1]:
        raise ValueError(f"the centre has {len(A)} entries for {Z.shape[1]} weights")
    out = _exact_bound(Z, r, e, lo, hi, A, q)
    if isinstance(out, str):
        raise ValueError(out)
    return out


def projected_ball(X: ArrayLike, y: ArrayLike, *, e: int, lo: int,
                   hi: int) -> ProjectedBall | None:
    """A certified centre for the clipped update (see the module doc), or None.

    Parameters
    ----------
    X : int array (n, d)
        The A-unit outputs of each figure (the R-unit's inputs).
    y : array (n,) of -1/+1
        The R-unit's targets.
    e, lo, hi : int
        The increment and the end stops, in the same whole units.

    Returns None when no centre inside the stops has every slack positive (the
    argument does not apply), else the :class:`ProjectedBall` with the smallest
    mistake bound among the LP centre scaled by ``1, 7/8, ..., 1/8``.
    """
    from scipy.optimize import linprog

    Zx, r = _signed(X, y)
    Z = Zx.astype(np.float64)
    n, d = Z.shape
    if n == 0:
        return ProjectedBall(tuple([0] * d), 1, 0, Fraction(0), float("inf"))
    used = np.flatnonzero(np.abs(Z).sum(axis=0) > 0)
    box = (None if lo <= -UNBOUNDED else lo, None if hi >= UNBOUNDED else hi)
    cost = np.zeros(len(used) + 1)
    cost[-1] = -1.0
    A_ub = np.hstack([-Z[:, used], np.ones((n, 1))])
    b_ub = -e * r.astype(np.float64) / 2
    bounds = [box] * len(used) + [(None, float(e) * float(r.max()) * 4 + 1)]
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0 or res.x[-1] <= 0:
        return None
    q = 2 ** SCALE_BITS
    A = [0] * d
    for j, v in zip(used.tolist(), res.x[:-1].tolist()):
        A[j] = min(max(int(round(v * q)), lo * q), hi * q)
    best = None
    for k in range(8, 0, -1):   # a shorter centre can give a smaller bound
        out = _exact_bound(Zx, r, e, lo, hi, [v * k for v in A], 8 * q)
        if isinstance(out, str):
            continue
        m, dec = out
        if best is None or m < best.mistakes:
            best = ProjectedBall(tuple(v * k for v in A), 8 * q, m, dec,
                                 float(res.x[-1]))
    return best
