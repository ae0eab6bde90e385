"""Exact verification of the separability LP's own basis: HiGHS proposes, FLINT disposes.

The LP of :func:`verify.check_separable` (:mod:`verify._internal.cuts`), on integer rows ``r_k``
(each a positive multiple of an example's signed row ``z_k``) with ``s_k = max_j |r_kj|``,
is

    max t  s.t.  r_k . w - s_k t >= 0 (the LP's rows k),  -1 <= w_j <= 1,  t <= 1

(HiGHS solves it on the floating-point rows ``z_k / max|z_k|``: the same LP, rounded).
A simplex basis is a combinatorial object: which rows hold with equality (their slack
is nonbasic, *tight*), which columns are basic, and at which bound every other
column sits. Its two linear systems have exact rational solutions:

* the **vertex** ``(w, t)`` (:func:`exact_vertex`): the tight rows with equality, the
  nonbasic columns at their bounds. When ``t > 0`` and every example has
  ``z_i . w > 0``, ``w`` is an exact separating witness;
* the **duals** ``mu`` of the tight rows (:func:`exact_duals`): ``sum_k mu_k r_kj = 0``
  on every basic weight column, ``sum_k mu_k s_k = 1`` when ``t`` is basic. When every
  ``mu_k >= 0`` and the sum vanishes on the nonbasic columns too, ``mu`` is an exact
  Gordan certificate (:func:`gordan_from_duals` checks all of it).

Both are one square integer system of the basis's size (at most ``d + 1``), solved
exactly (:func:`solve_exact`: FLINT on small systems, p-adic lifting on float BLAS on
the 1,000 x 1,000 systems of wide data, where an SMT solver does not finish). A basis that rounding made
wrong (singular, not square, a negative dual, a violated row) gives None, never a
false proof: the caller repairs or falls back.

Examples
--------
XOR with an intercept (rows ``y_i [x_i, 1]``, so ``d = 3`` weights): all four rows
tight, every column basic; the duals are the Gordan certificate, each point weighing
the same.

>>> rows = [[0, 0, -1], [0, 1, 1], [1, 0, 1], [-1, -1, -1]]
>>> basis = LPBasis(tight=(0, 1, 2, 3), basic=(0, 1, 2, 3), upper=())
>>> mu = exact_duals(rows, basis, 3)
>>> [str(m) for m in mu], gordan_from_duals(rows, mu)
(['1/4', '1/4', '1/4', '1/4'], True)

A forged basis proves nothing: leaving out a point and pinning the intercept weight
at its bound gives duals that do not cancel in that column.

>>> fake = LPBasis(tight=(0, 1, 2), basic=(0, 1, 3), upper=())
>>> mu = exact_duals(rows[:3], fake, 3)
>>> [str(m) for m in mu], gordan_from_duals(rows[:3], mu)
(['1', '0', '0'], False)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from fractions import Fraction
import numpy as np

from verify._internal.dixon import dixon_solve, flint_solve

__all__ = ["LPBasis", "exact_vertex", "exact_duals", "gordan_from_duals", "solve_exact",
           "DIXON_MIN_SIZE"]


@dataclasses.dataclass(frozen=True)
class LPBasis:
    """A simplex basis of the separability LP, as positions and column indices.

    Attributes
    ----------
    tight : tuple of int
        Positions (in the LP's own row order) of the rows whose slack is nonbasic:
        at the vertex they hold with equality, ``r_k . w = s_k t``.
    basic : tuple of int
        The basic columns: ``0 .. d-1`` the weights, ``d`` the margin ``t``.
    upper : tuple of int
        Nonbasic columns at their upper bound (``w_j = 1``, or ``t = 1``); every
        other nonbasic weight sits at ``-1``.
    """

    tight: tuple[int, ...]
    basic: tuple[int, ...]
    upper: tuple[int, ...]

    @property
    def square(self) -> bool:
        """True when there are as many tight rows as basic columns (a basis of the
        LP's structural part; HiGHS gives one whenever it reports optimal)."""
        return len(self.tight) == len(self.basic)


#: From this size on :func:`solve_exact` lifts p-adically on float BLAS
#: (:func:`verify._internal.dixon.dixon_solve`), below it FLINT solves. Measured on the
#: bases of ``benchmarks/bench_lp_exact.py --wide-scaling``'s data (a right-hand side of
#: 60 bits, CPU seconds, best of 3, load 20 on 2 cores): FLINT / p-adic 0.72 at 201,
#: 1.0 at 301, 1.11 at 501, 1.43 at 1,001.
DIXON_MIN_SIZE = 400


def solve_exact(A: Sequence[Sequence[int]] | np.ndarray, b: Sequence[int]
                ) -> list[Fraction] | None:
    """The exact solution ``x`` of the square integer system ``A x = b``, or None when
    ``A`` is singular.

    FLINT (:meth:`flint.fmpz_mat.solve`) solves systems smaller than
    :data:`DIXON_MIN_SIZE`; larger ones are lifted p-adically on float BLAS
    (:func:`verify._internal.dixon.dixon_solve`, FLINT its fallback). Either way the
    answer is exact.

    >>> solve_exact([[1, 4], [8, 3]], [1, 2])
    [Fraction(5, 29), Fraction(6, 29)]
    >>> solve_exact([[1, 2], [2, 4]], [1, 1]) is None
    True
    >>> solve_exact([], [])
    []
    """
    if len(A) >= DIXON_MIN_SIZE:
        return dixon_solve(A, b)
    return flint_solve(A, b)


def _check_columns(basis, d):
    """Refuse a basis naming a column that the LP on ``d`` weights does not have."""
    for j in (*basis.basic, *basis.upper):
        if not 0 <= j <= d:
            raise ValueError(f"basis column {j} is outside the LP's columns 0..{d} "
                             f"(d={d}).")


def _basic_matrix(tight_rows, basis, d):
    """Columns ``basis.basic`` of the tight rows ``[r_k, -s_k]``: the structural part
    of the basis matrix (tight rows x basic columns)."""
    out = []
    for r in tight_rows:
        s = max((abs(v) for v in r), default=0)
        out.append([-s if j == d else r[j] for j in basis.basic])
    return out


def exact_vertex(tight_rows: Sequence[Sequence[int]], basis: LPBasis, d: int
                 ) -> tuple[list[Fraction], Fraction] | None:
    """The basis's vertex ``(w, t)`` in exact rationals, or None (singular or not square).

    ``tight_rows`` are the integer rows ``r_k`` of the basis's tight rows, in the
    order of ``basis.tight``. The vertex has ``r_k . w = s_k t`` on them and every
    nonbasic column at its bound. It is a witness when ``t > 0`` *and* it is positive
    on every example, which the caller checks (rows outside the LP included).

    AND with an intercept: HiGHS's optimal basis has the last three rows tight, the
    intercept weight at its lower bound -1, the other columns basic.

    >>> rows = [[0, 0, -1], [0, -1, -1], [-1, 0, -1], [1, 1, 1]]
    >>> w, t = exact_vertex(rows[1:], LPBasis(tight=(1, 2, 3), basic=(0, 1, 3),
    ...                                        upper=()), 3)
    >>> [str(v) for v in w], str(t)
    (['2/3', '2/3', '-1'], '1/3')
    """
    _check_columns(basis, d)
    if not basis.square:
        return None
    basic = set(basis.basic)
    upper = set(basis.upper)
    bound = {j: (1 if j in upper else -1) for j in range(d + 1) if j not in basic}
    rhs = []
    for r in tight_rows:
        s = max((abs(v) for v in r), default=0)
        known = sum(r[j] * b for j, b in bound.items() if j < d)
        rhs.append(-known + (s * bound[d] if d in bound else 0))
    x = solve_exact(_basic_matrix(tight_rows, basis, d), rhs)
    if x is None:
        return None
    value = {j: Fraction(b) for j, b in bound.items()}
    value.update(zip(basis.basic, x))
    return [value[j] for j in range(d)], value[d]


def exact_duals(tight_rows: Sequence[Sequence[int]], basis: LPBasis, d: int
                ) -> list[Fraction] | None:
    """The basis's dual multipliers ``mu`` of its tight rows, in exact rationals, or
    None (singular, not square, or ``t`` nonbasic: then the LP's optimum is ``t = 1``
    and there is no certificate to read).

    They solve ``B^T mu = c_B``: ``sum_k mu_k r_kj = 0`` for each basic weight ``j``
    and ``sum_k mu_k s_k = 1`` for the margin ``t``.

    >>> exact_duals([[2], [-1]], LPBasis(tight=(0, 1), basic=(0, 1), upper=()), 1)
    [Fraction(1, 4), Fraction(1, 2)]
    >>> exact_duals([[2]], LPBasis(tight=(0,), basic=(2,), upper=()), 1)
    Traceback (most recent call last):
    ...
    ValueError: basis column 2 is outside the LP's columns 0..1 (d=1).
    """
    _check_columns(basis, d)
    if not basis.square or d not in basis.basic:
        return None
    A = _basic_matrix(tight_rows, basis, d)
    At = [list(col) for col in zip(*A)] if A else []
    rhs = [-1 if j == d else 0 for j in basis.basic]   # the t column is -s_k: sign flip
    return solve_exact(At, rhs)


def gordan_from_duals(tight_rows: Sequence[Sequence[int]],
                      mu: Sequence[Fraction] | None) -> bool:
    """True when ``mu`` (one multiplier per row) is an exact Gordan certificate of
    the rows: every ``mu_k >= 0``, some ``> 0``, and ``sum_k mu_k r_k = 0`` in every
    column (the nonbasic columns included, which the basis's duals do not promise).

    >>> gordan_from_duals([[1, 1], [-2, -2]], [Fraction(2), Fraction(1)])
    True
    >>> gordan_from_duals([[1, 1], [-2, -1]], [Fraction(2), Fraction(1)])
    False
    >>> gordan_from_duals([[1, 1]], None)
    False
    """
    if mu is None or any(m < 0 for m in mu) or not any(mu):
        return False
    den = math.lcm(*(Fraction(m).denominator for m in mu))
    ints = [int(m * den) for m in mu]
    width = len(tight_rows[0]) if len(tight_rows) else 0
    return all(sum(c * r[j] for c, r in zip(ints, tight_rows) if c) == 0
               for j in range(width))
