"""Bounds on each weight of the ideal perceptron from zero: the Novikoff ball.

Every weight vector that any stream can reach from zero lies in a ball of centre
``u/2`` through 0, for any ``u`` with ``z_i . u >= r_i`` (``z_i = y_i x_i``,
``r_i = ||x_i||^2``); the best ``u`` for one weight solves a convex problem (HiGHS
proposes it in floating point, integers and fractions certify it). The proof, and why
no argument from Novikoff's two facts does better, is on the theory page
``docs/theory/machine-balls.md``; :mod:`verify.machine.theory._cap` adds the mistake condition
of the move that pushes a weight further. :func:`margin_holds` checks, in integers, the
margin that Novikoff's argument starts from.

Examples
--------
Two orthogonal examples of the same class: each weight reaches 1 and no more.

>>> import numpy as np
>>> b = ball_bounds(np.array([[1, 0], [0, 1]]), np.array([1, 1]))
>>> b.upper.tolist(), b.lower.tolist()
([1, 1], [0, 0])
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.typing import ArrayLike
from verify._internal.budget import expired

__all__ = ["BallBounds", "ball_bounds", "certify", "integer_bounds", "margin_holds",
           "weight_direction"]

#: Bits of the integer rounding of a floating-point ``u``.
SCALE_BITS = 30


@dataclasses.dataclass(frozen=True)
class BallBounds:
    """Certified ``lower <= w_j <= upper`` (whole increments) for every weight ``j``.

    ``u`` is the shared (minimum-norm) direction; ``refined`` lists the
    ``(weight, sign)`` pairs whose bound got their own direction, ``pushed`` those
    among them whose own ball still left ``[lo, hi]`` and that the balls at their
    pushes (:mod:`verify.machine.theory._cap`) made smaller; ``complete`` is False when a budget
    stopped the refinement before every weight outside ``[lo, hi]`` was tried.
    ``directions`` are the integer directions whose :func:`integer_bounds` were
    combined (the shared one first): without ``pushed``, the elementwise smallest of
    their bounds is ``upper`` and ``lower``, which re-checks the bounds exactly.
    """

    upper: np.ndarray
    lower: np.ndarray
    u: np.ndarray
    refined: tuple
    complete: bool
    qp: object = dataclasses.field(default=None, repr=False, compare=False)
    pushed: tuple = ()
    directions: tuple = dataclasses.field(default=(), repr=False, compare=False)


def certify(Z: ArrayLike, r: ArrayLike,
            u: ArrayLike) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact integer bounds ``(upper, lower)`` from one direction ``u`` (floats).

    ``u`` is rounded to integers ``U`` (``SCALE_BITS`` bits); with
    ``rho = max_i r_i / (z_i . U)`` (exact; every ``z_i . U`` must be positive) the
    reachable weights satisfy ``rho (U_j - ||U||)/2 <= w_j <= rho (U_j + ||U||)/2``,
    with ``||U||`` rounded up to an integer. Returns None when ``U`` does not
    separate.

    >>> up, lo = certify(np.array([[1, 1]]), np.array([2]), np.array([1.0, 1.0]))
    >>> up.tolist(), lo.tolist()      # rho = 1, ||U|| < 2^30 * 1.4143: both reach 1
    ([1, 1], [0, 0])
    """
    rounded = _rounded(Z, r, u)
    if rounded is None:
        return None
    return integer_bounds(Z, r, rounded[0])


def integer_bounds(Z: ArrayLike, r: ArrayLike,
                   U: ArrayLike) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`certify` for an integer direction ``U`` (Python ints throughout, any
    size): the bounds ``floor(rho (U_j + s)/2)`` and ``-floor(rho (s - U_j)/2)`` with
    ``rho = max_i r_i / (z_i . U)`` and ``s = ceil(||U||)``; None unless every
    ``z_i . U > 0``. A re-check of a ball needs only this.

    >>> up, lo = integer_bounds(np.array([[1, 1]]), np.array([2]), [3, 3])
    >>> up.tolist(), lo.tolist()      # rho = 1/3, s = 5: floor(8/6), -floor(2/6)
    ([1, 1], [0, 0])
    """
    U = [int(v) for v in np.asarray(U, dtype=object).ravel()]
    Z = np.asarray(Z)
    top = max((abs(v) for v in U), default=0)
    if Z.dtype != object and top * int(np.abs(Z).sum(axis=1).max(initial=0)) < 2**62:
        m = (Z.astype(np.int64) @ np.array(U, np.int64)).tolist()   # exact in int64
    else:
        m = Z.astype(object).dot(np.array(U, dtype=object)).tolist()
    if len(m) and min(m) <= 0:
        return None
    rho = max((Fraction(int(ri), int(mi)) for ri, mi in zip(r, m)), default=Fraction(0))
    N = sum(v * v for v in U)
    s = math.isqrt(N)
    s += s * s != N
    p, q = rho.numerator, rho.denominator
    upper = np.array([(p * (v + s)) // (2 * q) for v in U], np.int64)
    lower = np.array([-((p * (s - v)) // (2 * q)) for v in U], np.int64)
    return upper, lower


def _rounded(Z, r, u):
    """``(U, scale, rho, m)``: ``u`` rounded to integers ``U = rint(u scale)`` of
    ``SCALE_BITS`` bits, ``m = Z U`` and ``rho = max_i r_i / m_i`` (exact), so that
    ``rho U`` satisfies ``z_i . (rho U) >= r_i``; None when some ``m_i <= 0``."""
    u = np.asarray(u, np.float64)
    top = float(np.abs(u).max(initial=0.0))
    if not np.isfinite(top) or top == 0:
        return None
    scale = 2.0 ** SCALE_BITS / top
    U = np.rint(u * scale).astype(np.int64)
    m = np.asarray(Z, np.int64) @ U        # |Z| small, |U| <= 2^30: exact in int64
    if m.min(initial=1) <= 0:
        return None
    return U, scale, max(Fraction(int(ri), int(mi)) for ri, mi in zip(r, m)), m


def _highs():
    import highspy

    core = getattr(getattr(highspy, "_core", None), "_Highs", highspy.Highs)
    h = core()   # the bare class: highspy.Highs() prints a banner (see _cuts)
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    return h, highspy


def _hessian(highspy, lower):
    """A HiGHS Hessian from the lower triangle (scipy CSC) of a symmetric matrix."""
    hess = highspy.HighsHessian()
    hess.dim_ = lower.shape[0]
    hess.format_ = highspy.HessianFormat.kTriangular
    hess.start_ = lower.indptr.astype(np.int32)
    hess.index_ = lower.indices.astype(np.int32)
    hess.value_ = lower.data.astype(np.float64)
    return hess


class _QP:
    """The projection ``u = argmin ||u - p||^2`` subject to ``Z u >= r`` in HiGHS.

    First through its dual ``min_{lam >= 0} lam.G.lam/4 - lam.(r - Z p)`` with
    ``G = Z Z^T`` (n variables instead of d, ``u = p + Z^T lam / 2``); HiGHS can give
    up on that one when ``G`` is singular (more examples than A-units), and then the
    primal (d variables, constraints ``Z u >= r``) is solved instead.
    """

    def __init__(self, Z, r):
        import scipy.sparse as sp

        self.Zf = np.asarray(Z, np.float64)
        self.r = np.asarray(r, np.float64)
        n, d = self.Zf.shape
        h, highspy = _highs()
        h.addCols(n, -self.r, np.zeros(n), np.full(n, highspy.kHighsInf), 0,
                  np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
        h.passHessian(_hessian(highspy, sp.csc_matrix(np.tril(self.Zf @ self.Zf.T / 2))))
        self.dual, self._highspy, self._primal = h, highspy, None

    def _primal_model(self):
        import scipy.sparse as sp

        if self._primal is None:
            n, d = self.Zf.shape
            h, highspy = _highs()
            inf = highspy.kHighsInf
            h.addCols(d, np.zeros(d), np.full(d, -inf), np.full(d, inf), 0,
                      np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
            S = sp.csr_matrix(self.Zf)
            h.addRows(n, self.r, np.full(n, inf), S.nnz, S.indptr[:-1].astype(np.int32),
                      S.indices.astype(np.int32), S.data)
            h.passHessian(_hessian(highspy, sp.identity(d, format="csc") * 2.0))
            self._primal = h
        return self._primal

    def project(self, p):
        """The point of ``{u : Z u >= r}`` nearest ``p`` (floats; None if HiGHS
        fails both ways)."""
        optimal = self._highspy.HighsModelStatus.kOptimal
        n, d = self.Zf.shape
        h = self.dual
        h.changeColsCost(n, np.arange(n, dtype=np.int32), self.Zf @ p - self.r)
        h.run()
        if h.getModelStatus() == optimal:
            lam = np.asarray(h.getSolution().col_value)
            return p + self.Zf.T @ lam / 2
        h = self._primal_model()                 # min ||u||^2 - 2 p.u, Z u >= r
        h.changeColsCost(d, np.arange(d, dtype=np.int32), -2.0 * np.asarray(p, float))
        h.run()
        if h.getModelStatus() != optimal:
            return None   # pragma: no cover
        return np.asarray(h.getSolution().col_value)


def ball_bounds(Z: ArrayLike, r: ArrayLike, *, lo: float | None = None,
                hi: float | None = None, max_refine: int = 16, iterations: int = 4,
                deadline: float | None = None,
                push: Callable[..., Any] | None = None) -> BallBounds | None:
    """Certified bounds on every weight reachable from zero (see the module doc).

    Parameters
    ----------
    Z : int array (n, d)
        Signed examples ``y_i x_i`` (separable through the origin, no zero rows).
    r : int array (n,)
        ``||x_i||^2``.
    lo, hi : int, optional
        The range that matters (end stops, in increments). Weights whose shared
        bound leaves it get their own ``u``, the furthest out first, until one is
        still outside (then no ball proves the range), or ``max_refine`` weights
        or the ``deadline`` (a ``time.perf_counter()`` value) have been used.
    iterations : int
        Alternations ``s = ||u||`` of each refinement.
    push : callable, optional
        The bound from the balls at a weight's pushes, called as
        :func:`verify.machine.theory._cap.push_bound` is (the mistake condition of the move
        that raises it): a weight whose own ball leaves ``[lo, hi]`` gets it when it is
        smaller. None: the balls alone.

    Returns
    -------
    BallBounds, or None when HiGHS found no separating direction.
    """
    Z = np.asarray(Z, np.int64)
    qp = _QP(Z, r)
    u = qp.project(np.zeros(Z.shape[1]))
    cert = None if u is None else certify(Z, r, u)
    if cert is None:
        return None
    upper, lower = cert
    ref = _Refinement(Z, r, qp, u, upper, lower)
    complete = True
    if lo is None and hi is None:
        return BallBounds(upper, lower, u, (), True, qp,
                          directions=tuple(ref.directions))
    hi = math.inf if hi is None else hi
    lo = -math.inf if lo is None else lo
    while (out := _furthest_out(upper, lower, lo, hi)) is not None:
        if len(ref.refined) >= max_refine or expired(deadline):
            complete = False
            break
        j, sign = out
        if out in ref.refined:   # pragma: no cover - a refined bound outside ends it
            break
        if not ref.tighten(j, sign, hi if sign > 0 else -lo, push, deadline,
                           iterations):
            break
    return BallBounds(upper, lower, u, tuple(ref.refined), complete, qp,
                      tuple(ref.pushed), tuple(ref.directions))


def _furthest_out(upper, lower, lo, hi):
    """``(j, sign)`` of the bound furthest beyond ``[lo, hi]``, None when all are
    inside."""
    over = np.r_[upper - hi, lo - lower]
    k = int(np.argmax(over))
    if over[k] <= 0:
        return None
    return (k, 1) if k < len(upper) else (k - len(upper), -1)


class _Refinement:
    """The weight-by-weight refinement of :func:`ball_bounds`: ``upper`` and
    ``lower`` tightened in place, the weights ``refined`` (and ``pushed``) so far, and
    the integer ``directions`` used."""

    def __init__(self, Z, r, qp, u, upper, lower):
        self.Z, self.r, self.qp, self.u = Z, r, qp, u
        self.upper, self.lower = upper, lower
        self.refined: list[tuple[int, int]] = []
        self.pushed: list[tuple[int, int]] = []
        self.directions = [_rounded(Z, r, u)[0]]

    def tighten(self, j, sign, limit, push, deadline, iterations):
        """Weight ``j``'s own ball (and the balls at its pushes while still above
        ``limit``); False when the refinement ends here (still above ``limit``)."""
        Z, r, upper, lower = self.Z, self.r, self.upper, self.lower
        self.refined.append((j, sign))
        best, where, cert = _refine(self.qp, Z, r, self.u, j, sign, iterations)
        if best is None:   # pragma: no cover - HiGHS failed: keep the shared bound
            return False
        # every direction bounds every weight: keep the smallest bound of each
        self.directions.append(_rounded(Z, r, where)[0])
        np.minimum(upper, cert[0], out=upper)
        np.maximum(lower, cert[1], out=lower)
        if _bound_of(upper, lower, j, sign) > limit and push is not None:
            cut = push(Z, r, j, sign, u=where, qp=self.qp, target=limit,
                       deadline=deadline)
            if _lowers(cut, upper, lower, j, sign):
                self.pushed.append((j, sign))
        return _bound_of(upper, lower, j, sign) <= limit


def _bound_of(upper, lower, j, sign):
    """The bound on ``sign * w_j``."""
    return upper[j] if sign > 0 else -lower[j]


def _lowers(cut, upper, lower, j, sign):
    """Apply the bound at the pushes ``cut`` to weight ``j`` when it is smaller;
    True when it was."""
    if cut is None or cut.bound >= _bound_of(upper, lower, j, sign):
        return False
    if sign > 0:
        upper[j] = cut.bound
    else:
        lower[j] = -cut.bound
    return True


def weight_direction(Z: ArrayLike, r: ArrayLike, j: int, sign: int, *,
                     u: ArrayLike | None = None, iterations: int = 4,
                     qp: object = None) -> tuple[int | None, np.ndarray | None]:
    """``(bound, u)``: the certified bound on ``sign * w_j`` from the best ball found
    for weight ``j`` and that ball's direction ``u`` (None, None if HiGHS fails).
    ``qp``: the solver of a :class:`BallBounds` of the same ``Z`` (saves setting
    it up again).

    >>> Z = np.array([[1, 0], [0, 1]])
    >>> weight_direction(Z, np.array([1, 1]), 0, 1)[0]
    1
    """
    Z = np.asarray(Z, np.int64)
    qp = _QP(Z, r) if not isinstance(qp, _QP) else qp
    if u is None:
        u = qp.project(np.zeros(Z.shape[1]))
    return _refine(qp, Z, r, u, j, sign, iterations)[:2]


def _refine(qp, Z, r, u, j, sign, iterations):
    """The smallest certified bound on ``sign * w_j`` over a few alternations, the
    direction that gave it and that direction's bounds on every weight."""
    s = float(np.linalg.norm(u))
    best, where, bounds = None, None, None
    for _ in range(iterations):
        p = np.zeros(Z.shape[1])
        p[j] = -s * sign                      # min ||u + s sign e_j||^2, Z u >= r
        v = qp.project(p)
        if v is None:   # pragma: no cover
            break
        cert = certify(Z, r, v)
        if cert is not None:
            b = int(cert[0][j]) if sign > 0 else -int(cert[1][j])
            if best is None or b < best:
                best, where, bounds = b, v, cert
        s_new = float(np.linalg.norm(v))
        if abs(s_new - s) <= 1e-9 * s:
            break
        s = s_new
    return best, where, bounds


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
