"""Exact arithmetic helpers for verification: floats taken as the exact numbers they are.

A float64 is an exact binary fraction ``m * 2**e``. These helpers turn float (and
rational) data into Python integers without losing a bit, compute exact dot products,
bound the rounding error of a floating-point dot product rigorously, and solve small
linear systems exactly. They are the "exact arithmetic disposes" half of
``verify``: a floating-point proposal (an LP solution, a perceptron's weights) becomes
a proof only after passing through here.

* :func:`float_to_ints`: a float vector as integers times a power of two (matrices:
  :func:`markone._internal.exact.signed_integer_rows` with ``per_row=True``, each row a
  positive multiple of the original, so signs of dot products are unchanged).
* :func:`exact_dot` and :func:`float_dot_exact`: exact dot products.
* :func:`dot_error_bound`: a rigorous bound on ``|fl(A @ w) - A @ w|``.
* :func:`certify_positive`: prove ``A[i] . w > 0`` for all rows, with floats where the
  rounding bound allows and exact integers for the rest.
* :func:`null_vector`: an exact integer vector spanning the kernel of an integer
  matrix of corank one (python-flint's exact null space).

Examples
--------
>>> import numpy as np
>>> ints, e = float_to_ints(np.array([0.5, 0.75, 3.0]))
>>> ints, e                      # 0.5 = 2 * 2**-2, 0.75 = 3 * 2**-2, 3 = 12 * 2**-2
([2, 3, 12], -2)
>>> float_dot_exact([0.1, 0.2], [1.0, 1.0]) == Fraction(0.1) + Fraction(0.2)
True
>>> A = np.array([[1.0, 1e-20], [1.0, -1.0]])
>>> certify_positive(A, np.array([1.0, 0.5]))
(True, 0)
>>> null_vector([[1, 1, -2]])            # kernel of a 1 x 3 matrix has dimension 2
Traceback (most recent call last):
...
ValueError: the matrix has a kernel of dimension 2, not 1; null_vector needs corank one.
>>> null_vector([[1, 0, -1], [0, 2, -1]])
[2, 1, 2]
"""

from __future__ import annotations

import contextlib
import math
import operator
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.exact import signed_integer_rows, to_fraction
from markone._internal.typing import ArrayLike

__all__ = [
    "to_fraction",
    "float_to_ints",
    "exact_dot",
    "float_dot_exact",
    "dot_error_bound",
    "certify_positive",
    "null_vector",
    "blas_single_thread",
    "dense_rows",
    "UNIT_ROUNDOFF",
]

#: Unit roundoff of IEEE double precision, ``2**-53``.
UNIT_ROUNDOFF = 2.0**-53
_TINY = 2.0**-1074  # smallest positive subnormal double


def float_to_ints(v: ArrayLike) -> tuple[list[int], int]:
    """Return ``(ints, e)`` with ``v[j] == ints[j] * 2**e`` exactly for a float vector.

    ``e`` is as large as possible (the common power of two is stripped), so integer
    data comes back as the integers themselves. (One row of
    :func:`markone._internal.exact.signed_integer_rows` with ``per_row=True``.)
    """
    ints, scales = signed_integer_rows(np.asarray(v, dtype=np.float64).reshape(1, -1),
                                       per_row=True)
    s = scales[0]   # 2**-e
    e = s.denominator.bit_length() - 1 - (s.numerator.bit_length() - 1)
    return ints[0], e


def exact_dot(a: Iterable[Any], b: Iterable[Any]) -> Any:
    """Exact dot product of two sequences of ints or Fractions."""
    return sum(map(operator.mul, a, b), 0)


def float_dot_exact(a: ArrayLike, b: ArrayLike) -> Fraction:
    """The exact rational value of the dot product of two float vectors."""
    ia, ea = float_to_ints(a)
    ib, eb = float_to_ints(b)
    return Fraction(exact_dot(ia, ib)) * Fraction(2) ** (ea + eb)


def dot_error_bound(A: Any, w: ArrayLike) -> np.ndarray:
    """Rigorous bounds on the rounding error of ``A @ w`` computed in float64.

    For each row, ``|fl(A[i] . w) - A[i] . w| <= bound[i]`` whatever the summation
    order (BLAS blocking, FMA, threads): the classical bound
    ``gamma_n * sum_j |A[i, j] w[j]|`` with ``gamma_n = n u / (1 - n u)``, inflated
    for the rounding of the bound itself, plus ``n`` times the smallest subnormal for
    underflow. Infinite where the sums overflow.

    >>> import numpy as np
    >>> b = dot_error_bound(np.array([[1.0, 2.0]]), np.array([3.0, 4.0]))
    >>> bool(0 < b[0] < 1e-13)
    True
    """
    if not _is_sparse(A):
        A = np.asarray(A, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n = A.shape[1] + 1  # (sparse rows have fewer terms: the bound holds all the more)
    nu = n * UNIT_ROUNDOFF
    if nu >= 0.01:
        raise ValueError(f"dot products of length {n} are too long for this bound.")
    gamma = nu / (1 - nu)
    # s underestimates the exact sum by at most a factor (1 - gamma); a further 1%
    # covers the rounding of this very expression.
    with np.errstate(over="ignore", invalid="ignore"):
        s = abs(A) @ np.abs(w)
        return (gamma / (1 - gamma)) * 1.01 * s + (2 * n + 2) * _TINY


def certify_positive(A: Any, w: ArrayLike, *, rows: ArrayLike | None = None
                     ) -> tuple[bool, int]:
    """Prove ``A[i] . w > 0`` exactly for every row (or the given ``rows``).

    Rows whose floating-point dot product exceeds its :func:`dot_error_bound` are
    proven without rationals; the remaining ones are decided in exact integer
    arithmetic. ``A`` and ``w`` are float64 and taken as the exact binary fractions
    they are.

    Returns
    -------
    (ok, n_exact) : (bool, int)
        ``ok`` is True when every row is strictly positive; ``n_exact`` counts the rows
        that needed exact arithmetic.
    """
    if not _is_sparse(A):
        A = np.asarray(A, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    if rows is not None:
        A = A[np.asarray(rows, dtype=np.int64)]
    if not np.isfinite(w).all():
        return False, 0
    with np.errstate(over="ignore", invalid="ignore"):
        s = A @ w
    bound = dot_error_bound(A, w)
    unsure = np.flatnonzero(~(s > bound))
    if unsure.size == 0:
        return True, 0
    if (s[unsure] < -bound[unsure]).any():  # certainly negative somewhere
        return False, 0
    wi, _ = float_to_ints(w)
    ints, _ = signed_integer_rows(dense_rows(A, unsure), per_row=True)
    for r in ints:
        if exact_dot(r, wi) <= 0:
            return False, int(unsure.size)
    return True, int(unsure.size)


def _is_sparse(A):
    return hasattr(A, "indptr") or hasattr(A, "tocsr")


def dense_rows(A: Any, rows: ArrayLike) -> np.ndarray:
    """Rows ``rows`` of a dense or :mod:`scipy.sparse` matrix, as a dense float64
    array (the stored entries are the exact values)."""
    rows = np.asarray(rows, dtype=np.int64)
    if _is_sparse(A):
        return A[rows].toarray()
    return np.asarray(A, dtype=np.float64)[rows]


_CONTROLLER: list[Any] = []


def blas_single_thread() -> contextlib.AbstractContextManager[Any]:
    """Context manager limiting BLAS to one thread (when threadpoolctl is installed).

    The verifiers make many small matrix calls (100 x 100 least squares, matrix-vector
    products); on a busy machine, multithreaded BLAS spends more time waking threads
    than computing (measured here: 30x slower under load). Without threadpoolctl this
    is a no-op. The libraries are looked up once per process (a
    ``ThreadpoolController``): a fresh lookup reads the process's memory map, about
    9 ms, which dominated many small separability checks.
    """
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - optional
        return contextlib.nullcontext()
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


# --------------------------------------------------------------------------------------
# exact kernels of integer matrices (python-flint)


def _integer_rows(M):
    """The rows of ``M`` as lists of Python ints, each rational row scaled by the lcm of
    its denominators (which changes no kernel)."""
    if isinstance(M, np.ndarray) and M.dtype.kind in "iu":
        return M.tolist()
    if all(type(v) is int for r in M for v in r):
        return [list(r) for r in M]
    ints = []
    for r in M:
        r = [Fraction(v) for v in r]
        den = math.lcm(*(v.denominator for v in r)) if r else 1
        ints.append([int(v * den) for v in r])
    return ints


def null_vector(M: Any) -> list[int]:
    """Exact kernel vector of an integer (or rational) matrix whose kernel has dim 1.

    ``M`` has shape ``(m, k)`` and rank ``k - 1``. Returns a primitive integer vector
    ``v`` (a list of ``k`` Python ints with gcd 1, first nonzero entry positive) with
    ``M v = 0`` exactly, checked before returning. The null space comes from FLINT's
    fraction-free elimination (:meth:`flint.fmpz_mat.nullspace`).

    Raises
    ------
    ValueError
        When the kernel does not have dimension exactly one.
    """
    import flint

    ints = _integer_rows(M)
    k = len(ints[0]) if ints else 0
    basis, nullity = flint.fmpz_mat(ints).nullspace()
    if nullity != 1:
        raise ValueError(f"the matrix has a kernel of dimension {nullity}, not 1; "
                         "null_vector needs corank one.")
    v = [int(basis[i, 0]) for i in range(k)]
    g = math.gcd(*v)
    if next(a for a in v if a) < 0:
        g = -g
    v = [a // g for a in v]
    if any(exact_dot(r, v) != 0 for r in ints):  # pragma: no cover - defensive
        raise ArithmeticError("exact kernel check failed")
    return v
