"""Bounds on each weight from the ball at the move that pushes it: the mistake condition.

Weight ``j`` only grows (``sign = +1``; ``-1`` mirrors it) by a mistake on a figure
``k`` with ``sign z_kj > 0``, so at a state that is reachable **and** where ``k`` is a
mistake: inside the ball of :mod:`verify.machine.theory._ball` cut by the hyperplane
``z_k . w = 0``, a smaller ball of centre ``(u - t z_k)/2``. The proof that every
reachable state then has ``sign w_j <= max(0, max_k b_k + sign z_kj)``, and how ``u``
and ``t`` are chosen and certified in integers, is on the theory page
``docs/theory/machine-balls.md`` (section "The ball at the push").

Examples
--------
A-units 0 and 1 see both figures, A-unit 2 only the positive one. Every stream keeps
``w_0 >= -1`` (``w_0 = w_1``, and the negative figure, the only one that lowers them,
is a mistake only where ``w_0 + w_1 >= 0``); Novikoff's facts allow ``w_0`` down to
-2:

>>> import numpy as np
>>> from verify.machine.theory import _ball
>>> Z, r = np.array([[-1, -1, 0], [1, 1, 1]]), np.array([2, 3])
>>> ball, u = _ball.weight_direction(Z, r, 0, -1)
>>> ball
2
>>> p = push_bound(Z, r, 0, -1, u=u)
>>> p.bound, p.figure, p.caps      # at a mistake on figure 0, -w_0 <= 0
(1, 0, {0: 0})
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from markone._internal.typing import ArrayLike
from verify._internal.budget import expired
from verify.machine.theory import _ball

__all__ = ["PushBound", "best_cut", "certify_cap", "push_bound"]


@dataclasses.dataclass(frozen=True)
class PushBound:
    """Certified ``sign * w_j <= bound`` over every reachable state.

    ``caps[k]`` is the certified bound ``b_k`` on ``sign * w_j`` at the states where
    the pushing figure ``k`` (a row of ``Z``) is a mistake; ``bound`` is
    ``max(0, max_k caps[k] + sign z_kj)``; ``figure`` the ``k`` that attains it
    (None without pushing figures: the weight never moves that way); ``reoptimised``
    the figures whose ``u`` was re-solved for their own cap.
    """

    bound: int
    figure: int | None
    caps: dict
    reoptimised: tuple = ()


def certify_cap(Z: ArrayLike, r: ArrayLike, j: int, sign: int, k: int, u: ArrayLike,
                t: float) -> int | None:
    """The exact bound ``b_k`` on ``sign * w_j`` at every reachable state where ``k``
    is a mistake, from a float direction ``u`` (``z_i . u > 0`` for all ``i``) and a
    cut ``t >= 0`` (see the module doc); None when the rounded ``u`` does not separate.

    >>> Z, r = np.array([[1, 1], [-1, 0]]), np.array([2, 1])
    >>> certify_cap(Z, r, 1, 1, 0, np.array([-1.0, 3.0]), 0.0)   # the plain ball
    3
    >>> certify_cap(Z, r, 1, 1, 0, np.array([-1.0, 3.0]), 3.0)   # v = (-4, 0)
    2
    """
    d = _Direction.make(Z, r, u)
    if d is None or not (t >= 0 and math.isfinite(t)):
        return None
    return d.cap(j, sign, k, t)


class _Direction:
    """A float ``u`` rounded to integers ``U`` (``SCALE_BITS`` bits) with its exact
    ``rho = max_i r_i / z_i . U``, ``||U||^2`` and ``m = Z U`` (ints)."""

    def __init__(self, Z, U, scale, rho, m):
        self.Z, self.U, self.scale, self.rho, self.m = Z, U, scale, rho, m
        self.N = sum(v * v for v in U)

    @classmethod
    def make(cls, Z, r, u):
        rounded = _ball._rounded(Z, r, u)
        if rounded is None:
            return None
        U, scale, rho, m = rounded
        return cls(np.asarray(Z, np.int64), [int(v) for v in U], scale, rho,
                   [int(v) for v in m])

    def cap(self, j, sign, k, t):
        """Floor of ``rho (sign V_j + ceil ||V||) / 2`` with ``V = U - T z_k``,
        ``T = round(t scale) >= 0`` (``t`` finite and ``>= 0``)."""
        T = int(round(float(t) * self.scale))
        zk = self.Z[k]
        rk = int(zk @ zk)
        N = self.N - 2 * T * self.m[k] + T * T * rk     # ||U - T z_k||^2, exact
        s = math.isqrt(N)
        s += s * s != N
        vj = self.U[j] - T * int(zk[j])
        return (self.rho.numerator * (sign * vj + s)) // (2 * self.rho.denominator)


def best_cut(u: ArrayLike, z: ArrayLike, j: int, sign: int) -> float:
    """The ``t >= 0`` that minimises ``sign (u - t z)_j + ||u - t z||`` (floats): the
    cap of the ball of ``u`` cut by ``z . w <= 0``, for ``sign z_j > 0``.

    >>> best_cut(np.array([-1.0, 3.0]), np.array([1.0, 1.0]), 1, 1)
    3.0
    """
    u = np.asarray(u, np.float64)
    z = np.asarray(z, np.float64)
    c, rk, m = sign * z[j], float(z @ z), float(z @ u)
    gap = max(float(u @ u) - m * m / rk, 0.0)   # ||u||^2 - (z.u)^2 / r, >= 0
    if rk <= c * c:   # z = c e_j: every t >= m / r gives the same value
        return float(max(m / rk, 0.0))
    return float(max(m / rk + c * math.sqrt(gap / (rk * (rk - c * c))), 0.0))


def push_bound(Z: ArrayLike, r: ArrayLike, j: int, sign: int, *, u: ArrayLike,
               qp: object = None, target: float | None = None, iterations: int = 4,
               deadline: float | None = None) -> PushBound | None:
    """The certified bound on ``sign * w_j`` from the balls at its pushes.

    Every pushing figure gets the closed-form cut of the ball of ``u`` (a direction
    with ``z_i . u > 0``; its own weight's best ball is a good one). With ``qp`` (the
    solver of a :class:`verify.machine.theory._ball.BallBounds` of the same ``Z``), the figures whose
    cap leaves ``sign * w_j`` above ``target`` (all of them without a target), the
    highest first, get their own ``u`` and ``t`` by ``iterations`` alternations,
    until one stays above ``target`` (then the weight cannot be proven inside it) or
    the ``deadline`` (a :func:`time.perf_counter` time) passes; the figures left keep
    their closed-form caps, so the bound stays sound. None when ``u`` does not
    separate.
    """
    Z = np.asarray(Z, np.int64)
    u = np.asarray(u, np.float64)
    push = np.flatnonzero(sign * Z[:, j] > 0)
    shared = _Direction.make(Z, r, u)
    if shared is None:
        return None
    caps: dict[int, int] = {}
    for k in push:
        # t = 0 too: the plain ball of u, so rounding never makes a cap worse
        b = min(shared.cap(j, sign, int(k), best_cut(u, Z[k], j, sign)),
                shared.cap(j, sign, int(k), 0.0))
        caps[int(k)] = b
    step = {int(k): int(sign * Z[k, j]) for k in push}
    redone = []
    if isinstance(qp, _ball._QP):
        for k in sorted(caps, key=lambda k: -(caps[k] + step[k])):
            if target is not None and caps[k] + step[k] <= target:
                break
            if expired(deadline):
                break
            redone.append(k)
            b = _reoptimise(qp, Z, r, j, sign, k, u, iterations)
            if b is not None and b < caps[k]:
                caps[k] = b
            if target is not None and caps[k] + step[k] > target:
                break   # this figure keeps the bound above target: no proof
    if not caps:
        return PushBound(0, None, caps, ())
    figure = max(caps, key=lambda k: (caps[k] + step[k], -k))
    return PushBound(max(0, caps[figure] + step[figure]), figure, caps, tuple(redone))


def _reoptimise(qp, Z, r, j, sign, k, u, iterations):
    """The best certified cap of figure ``k`` over block-coordinate steps of
    ``min ||u - t z_k + s sign e_j||^2 / (4 s)``: project ``t z_k - s sign e_j`` onto
    ``{u : Z u >= r}``, then the best ``t`` for that ``u``, ``s = ||u - t z_k||``."""
    zk = Z[k].astype(np.float64)
    t = best_cut(u, zk, j, sign)
    s = float(np.linalg.norm(u - t * zk))
    best = None
    for _ in range(iterations):
        p = t * zk
        p[j] -= s * sign
        v = qp.project(p)
        if v is None:   # pragma: no cover - HiGHS failed: keep what we have
            break
        t = best_cut(v, zk, j, sign)
        b = certify_cap(Z, r, j, sign, k, v, t)
        if b is not None and (best is None or b < best):
            best = b
        s = float(np.linalg.norm(v - t * zk))
    return best
