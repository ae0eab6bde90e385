"""Wolfe's min-norm-point algorithm in rationals, for the faces floats cannot find.

:func:`verify.margin.min_norm_point` runs in float64. Its minor cycle solves for the
nearest point of an affine hull through differences of the atoms; when the data mix
scales (features of 1e-100 beside the intercept's constant 1, or a margin 1e-16 times
the radius) those differences are nearly parallel, the solve loses every digit, a
weight comes out of the wrong sign, and the algorithm stops on a face that does not
hold the nearest point: the certified lower end is then 0 and the mistake bound inf.
No tolerance fixes that (the digits are gone), so :func:`exact_support` runs the same
algorithm on the same float rows in rationals (python-flint), where every sign is
right and the corral's atoms stay affinely independent; :mod:`verify.margin` uses it
only for small data whose float interval stayed unresolved.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from verify._internal.exact import exact_dot

__all__ = ["exact_support"]


def exact_support(Z: np.ndarray, max_iter: int) -> list[int]:
    """The rows of ``Z`` (float64) whose convex hull's nearest point to the origin is a
    positive combination of them, found by Wolfe's algorithm in exact arithmetic
    (at most ``max_iter`` major iterations; then the last corral).

    Every step is exact: the oracle's argmin, the affine minimiser of the corral (its
    KKT system, solved in rationals), the line search back into the simplex. The
    algorithm stops when the oracle finds no row below ``||x||**2`` (``x`` is then the
    nearest point) or ``x`` is the origin.

    >>> Z = np.array([[0, 0, -0.5], [0, -5e-101, -0.5], [-5e-101, 0, -0.5],
    ...               [5e-101, 5e-101, 0.5]])       # AND at 1e-100, with intercept
    >>> sorted(exact_support(Z, 100))
    [1, 2, 3]
    """
    import flint

    n, d = Z.shape
    rows = [[flint.fmpq(*Fraction(v).as_integer_ratio()) for v in r] for r in Z.tolist()]
    matrix = flint.fmpq_mat(n, d, [v for r in rows for v in r])
    norms = [sum((v * v for v in r), flint.fmpq(0)) for r in rows]
    keys = [min(range(n), key=norms.__getitem__)]
    lam = [flint.fmpq(1)]
    x = list(rows[keys[0]])
    for _ in range(max_iter):
        scores = matrix * flint.fmpq_mat(d, 1, x)
        j = min(range(n), key=lambda i: scores[i, 0])
        norm_sq = exact_dot(x, x)
        if norm_sq == 0 or scores[j, 0] >= norm_sq or j in keys:
            break
        keys, lam = keys + [j], lam + [flint.fmpq(0)]
        keys, lam, x = _minor_cycle(rows, keys, lam)
    return keys


def _minor_cycle(rows, keys, lam):
    """Wolfe's minor cycle, exactly: move to the affine minimiser of the corral while
    it lies in the simplex, else as far towards it as the simplex allows, dropping an
    atom whose weight reaches 0; ``(keys, lam, x)`` once the minimiser is inside."""
    while True:
        alpha = _affine_min([rows[k] for k in keys])
        if all(a > 0 for a in alpha):
            return keys, alpha, _combination(rows, keys, alpha)
        theta = min(l / (l - a) for l, a in zip(lam, alpha) if a <= 0)
        lam = [theta * a + (1 - theta) * l for l, a in zip(lam, alpha)]
        kept = [i for i, v in enumerate(lam) if v > 0]
        keys, lam = [keys[i] for i in kept], [lam[i] for i in kept]
        if len(keys) == 1:
            return keys, [lam[0] / lam[0]], list(rows[keys[0]])


def _affine_min(atoms: list[list[Any]]) -> list[Any]:
    """The weights (summing to 1) of the point of least norm in the affine hull of
    ``atoms``: the KKT system ``[G 1; 1' 0] [a; m] = [0; 1]``, ``G`` their Gram matrix,
    solved in rationals (the corral's atoms are affinely independent, so it is
    regular)."""
    import flint

    k = len(atoms)
    gram = [[exact_dot(a, b) for b in atoms] + [flint.fmpq(1)] for a in atoms]
    kkt = flint.fmpq_mat(gram + [[flint.fmpq(1)] * k + [flint.fmpq(0)]])
    rhs = flint.fmpq_mat(k + 1, 1, [flint.fmpq(0)] * k + [flint.fmpq(1)])
    sol = kkt.solve(rhs)
    return [sol[i, 0] for i in range(k)]


def _combination(rows, keys, weights):
    """``sum_i weights[i] * rows[keys[i]]``, exactly."""
    return [exact_dot(weights, column) for column in zip(*(rows[k] for k in keys))]
