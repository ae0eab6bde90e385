"""Gordan certificates without an LP, for data far from separable: least-squares
weights, made exact.

Signed rows ``z_i`` (``y_i [x_i, 1]``) are not separable exactly when some weights
``c >= 0``, not all 0, have ``sum_i c_i z_i = 0`` (Gordan). When the labels are
random and there are several times more rows than columns, the weights "all ones"
nearly do it: ``sum_i z_i`` is only a random walk's length, and the least-norm
correction ``delta`` with ``Z^T (1 + delta) = 0`` has entries of size about
``sqrt(d / n)``. So ``c = 1 + delta`` is positive on almost every row; the rows where
it is not are dropped and ``delta`` is computed again, a few rounds
(:func:`positive_weights`). LSQR finds ``delta`` in a few dozen products with ``Z``
and ``Z^T`` (the column-scaled system is well conditioned when ``n >> d``), where the
LP's dual simplex needs thousands of pivots, each a solve with a basis whose LU fills
in: on 20,000 x 2,000 sparse rows with random labels, 1.1 s of CPU for the weights and
6.2 s for their exact completion, against 125 s for the LP on 6,003 of the rows
(``benchmarks/bench_lp_exact.py --wide-scaling``, load 5 to 8 on 2 cores).

The float weights become an exact certificate as the LP's duals do
(:func:`exact_completion`): the weights of all rows but a basis ``B`` of ``d`` rows
are fixed at ``c_i`` rounded to a multiple of ``2**-FRACTION_BITS`` (exact dyadic
rationals), and ``Z_B^T c_B = -sum_{i not in B} c_i z_i`` is solved exactly
(:func:`verify._internal.basis.solve_exact`: p-adic lifting on float BLAS from
:data:`verify._internal.basis.DIXON_MIN_SIZE` columns on). The certificate holds when every ``c_B`` is
positive, which the exact solve decides; otherwise the caller falls back to the LP.
The basis is a maximum matching of columns to rows kept (all of weight at least
:data:`FLOOR`): structurally nonsingular; a solve that finds it singular gives None.

Only data whose signed rows are integers of at most :data:`MAX_ENTRY_BITS` bits on at
most ``2**MAX_ROW_BITS`` rows are taken (the weighted sums are then exact in int64
halves); other data go to the LP.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> Z = rng.integers(-3, 4, size=(60, 5)) * 1.0          # random signs: not separable
>>> c = positive_weights(Z)
>>> bool((c >= 0).all()), bool(np.abs(Z.T @ c).max() < 1e-9)
(True, True)
>>> cert = exact_completion(Z, c)
>>> all(v > 0 for v in cert.values())
True
>>> [sum(v * int(Z[i, j]) for i, v in cert.items()) for j in range(5)]
[Fraction(0, 1), Fraction(0, 1), Fraction(0, 1), Fraction(0, 1), Fraction(0, 1)]
"""

from __future__ import annotations

from fractions import Fraction
from collections.abc import Callable
from typing import Any

import numpy as np
from verify._internal.basis import solve_exact
from verify._internal.exact import dense_rows

__all__ = ["positive_weights", "exact_completion", "integer_rows_fit", "ROUNDS",
           "FLOOR", "MAX_DROPPED", "LSQR_ITERATIONS", "FRACTION_BITS", "MAX_ENTRY_BITS",
           "MAX_ROW_BITS"]

#: Rounds of "drop the rows of small weight, solve again" before giving up: work,
#: not time (random labels need two or three).
ROUNDS = 8
#: Smallest weight kept: rows whose float weight falls below it are dropped, so the
#: exact completion, which moves the basis's weights a little, keeps them positive.
FLOOR = 0.25
#: Share of the rows one round may drop: more, and the rows are far from random labels,
#: so the search gives up at once (random labels drop 2 % at n = 10 d and 19 % at
#: n = 3 d in the first round; 10,000 x 1,000 integers labelled by a hyperplane with
#: 50 flipped, 38 %, and no round found weights).
MAX_DROPPED = 0.3
#: LSQR iterations per round (it converges in a few dozen on these systems).
LSQR_ITERATIONS = 1000
#: The fixed weights are multiples of ``2**-FRACTION_BITS``.
FRACTION_BITS = 40
#: Entries of at most this many bits, and at most ``2**MAX_ROW_BITS`` rows: the exact
#: weighted column sums then fit int64, in two halves of the weights.
MAX_ENTRY_BITS, MAX_ROW_BITS = 20, 21


def integer_rows_fit(Z: Any) -> bool:
    """True when the rows of ``Z`` (dense or CSR) are integers that the exact sums
    of :func:`exact_completion` can carry (:data:`MAX_ENTRY_BITS`,
    :data:`MAX_ROW_BITS`).

    >>> integer_rows_fit(np.array([[1.0, -3.0]])), integer_rows_fit(np.array([[0.5]]))
    (True, False)
    """
    values = Z.data if hasattr(Z, "indptr") else np.asarray(Z)
    return bool(Z.shape[0] < 2**MAX_ROW_BITS
                and np.all(np.abs(values) < 2**MAX_ENTRY_BITS)
                and np.all(values == np.round(values)))


def positive_weights(Z: Any, *, rounds: int = ROUNDS, floor: float = FLOOR
                     ) -> np.ndarray | None:
    """Float weights ``c`` (``>= floor`` on the rows kept, 0 on the rows dropped) with
    ``Z^T c`` zero up to LSQR's rounding, or None when :data:`ROUNDS` rounds do not
    find them, a round drops more than :data:`MAX_DROPPED` of the rows, or fewer than
    twice as many rows as columns are left (then the rows are likely separable,
    Cover's count, and the LP decides).

    >>> positive_weights(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])) is None
    True
    """
    from scipy.sparse.linalg import lsqr

    n, width = Z.shape
    norms = np.sqrt(np.asarray(abs(Z).power(2).sum(axis=0)).ravel()
                    if hasattr(Z, "indptr") else (Z * Z).sum(axis=0))
    inverse = 1 / np.where(norms > 0, norms, 1.0)
    keep = np.arange(n)
    for _ in range(rounds):
        if keep.size < 2 * width:
            return None
        Zk = Z[keep]
        B = (Zk.multiply(inverse[None, :]).T.tocsr() if hasattr(Zk, "indptr")
             else (Zk * inverse).T)
        delta = lsqr(B, -(B @ np.ones(keep.size)), atol=1e-14, btol=1e-14,
                     iter_lim=LSQR_ITERATIONS)[0]
        c = 1 + delta
        low = c < floor
        if not low.any():
            weights = np.zeros(n)
            weights[keep] = c
            return weights
        if low.mean() > MAX_DROPPED:
            return None
        keep = keep[~low]
    return None


def exact_completion(Z: Any, c: np.ndarray, *,
                     probe: Callable[[np.ndarray], None] | None = None
                     ) -> dict[int, Fraction] | None:
    """An exact Gordan certificate ``{row: weight}`` of the integer rows ``Z`` from
    the float weights ``c`` of :func:`positive_weights`, or None (a singular basis,
    or a basis weight that is not positive). ``probe``, when given, sees the square
    basis matrix (int64, rows = columns of ``Z``) before it is solved, and may raise
    to stop.

    >>> Z = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    >>> exact_completion(Z, np.array([1.0, 1.0, 1.0]))
    {0: Fraction(1, 1), 1: Fraction(1, 1), 2: Fraction(1, 1)}
    """
    rows = np.flatnonzero(c > 0)
    basis = _basis_rows(Z, rows[np.argsort(-c[rows], kind="stable")])
    if basis is None:
        return None
    fixed = np.setdiff1d(rows, basis)
    units = np.round(c[fixed] * 2.0**FRACTION_BITS).astype(np.int64)
    if units.size and units.max() >= 2**42:   # beyond the int64 halves' range
        return None
    rhs = [-v for v in _exact_column_sums(Z, fixed, units)]
    A = np.ascontiguousarray(dense_rows(Z, basis).astype(np.int64).T)
    if probe is not None:
        probe(A)
    u = solve_exact(A, rhs)
    if u is None or any(v <= 0 for v in u):
        return None
    scale = Fraction(1, 2**FRACTION_BITS)
    cert = {int(i): int(m) * scale for i, m in zip(fixed, units)}
    cert.update((int(i), v * scale) for i, v in zip(basis, u))
    return dict(sorted(cert.items()))


def _basis_rows(Z, candidates):
    """``Z.shape[1]`` rows among ``candidates`` (taken in their order of preference)
    matched one to one to the columns (a structurally nonsingular square basis), or
    None when no such matching exists."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import maximum_bipartite_matching

    M = sp.csr_array(Z[candidates] if hasattr(Z, "indptr")
                     else np.asarray(Z)[candidates])
    M.eliminate_zeros()
    match = maximum_bipartite_matching(M.T.tocsr(), perm_type="column")  # column -> row
    if (match < 0).any():
        return None
    return np.sort(candidates[match])


def _exact_column_sums(Z, rows, units):
    """``sum_k units[k] * Z[rows[k]]`` exactly, as Python ints, on integer rows
    (:func:`integer_rows_fit`) and ``units`` below ``2**(2 * 21)``: two int64
    products, of the weights' high and low halves."""
    Zi = Z[rows].astype(np.int64)
    high, low = units >> 21, units & (2**21 - 1)
    if hasattr(Zi, "indptr"):
        sh, sl = Zi.T @ high, Zi.T @ low
    else:
        sh, sl = high @ Zi, low @ Zi
    return [(int(a) << 21) + int(b) for a, b in zip(sh, sl)]
