"""Exact arithmetic helpers for verification: floats taken as the exact numbers they are.

A float64 is an exact binary fraction ``m * 2**e``. These helpers turn float (and
rational) data into Python integers without losing a bit, compute exact dot products,
bound the rounding error of a floating-point dot product rigorously, and solve small
linear systems exactly. They are the "exact arithmetic disposes" half of
``verify``: a floating-point proposal (an LP solution, a perceptron's weights) becomes
a proof only after passing through here.

* :func:`float_rows_to_ints` / :func:`rows_to_ints`: data as integer rows, each a
  positive multiple of the original row (signs of dot products are unchanged).
* :func:`exact_dot` and :func:`float_dot_exact`: exact dot products.
* :func:`dot_error_bound`: a rigorous bound on ``|fl(A @ w) - A @ w|``.
* :func:`certify_positive`: prove ``A[i] . w > 0`` for all rows, with floats where the
  rounding bound allows and exact integers for the rest.
* :func:`null_vector`: an exact rational vector spanning the kernel of an integer
  matrix of corank one (p-adic lifting in numpy/numba for all but tiny systems,
  integer elimination for those).

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

import math
import operator
from fractions import Fraction

import numpy as np
from numba import njit

from markone._exact import to_fraction, to_fraction_matrix

__all__ = [
    "to_fraction",
    "float_to_ints",
    "float_rows_to_ints",
    "rows_to_ints",
    "exact_dot",
    "float_dot_exact",
    "dot_error_bound",
    "certify_positive",
    "null_vector",
    "blas_single_thread",
    "UNIT_ROUNDOFF",
]

#: Unit roundoff of IEEE double precision, ``2**-53``.
UNIT_ROUNDOFF = 2.0**-53
_TINY = 2.0**-1074  # smallest positive subnormal double


def float_to_ints(v):
    """Return ``(ints, e)`` with ``v[j] == ints[j] * 2**e`` exactly for a float vector.

    ``e`` is as large as possible (the common power of two is stripped), so integer
    data comes back as the integers themselves.
    """
    ints, exps = float_rows_to_ints(np.asarray(v, dtype=np.float64).reshape(1, -1))
    return ints[0], exps[0]


def float_rows_to_ints(A):
    """Exact integer rows of a finite float64 matrix: ``A[i] == ints[i] * 2**exps[i]``.

    Returns ``(ints, exps)``: a list of lists of Python ints, and a list of int
    exponents. Each row is a positive multiple of the original, so the sign of any
    dot product with a row is unchanged.
    """
    A = np.asarray(A, dtype=np.float64)
    if not np.isfinite(A).all():
        raise ValueError("A contains NaN or infinity; exact conversion needs finite numbers.")
    mant, ex = np.frexp(A)
    m = (mant * 2.0**53).astype(np.int64)  # exact: 53-bit mantissas
    tz = _trailing_zeros(m)
    e = ex.astype(np.int64) - 53 + tz
    m = m >> tz
    nz = m != 0
    out_ints, out_exps = [], []
    for i in range(A.shape[0]):
        if not nz[i].any():
            out_ints.append([0] * A.shape[1])
            out_exps.append(0)
            continue
        emin = int(e[i][nz[i]].min())
        shift = np.where(nz[i], e[i] - emin, 0)
        if int(shift.max()) <= 9:  # fits int64: |m| < 2**53, shifted by <= 9 bits
            row = (m[i] << shift).tolist()
        else:
            row = [int(a) << int(s) for a, s in zip(m[i].tolist(), shift.tolist())]
        out_ints.append(row)
        out_exps.append(emin)
    return out_ints, out_exps


def _trailing_zeros(m):
    """Number of trailing zero bits of each int64 (0 for zeros)."""
    a = np.abs(m)
    low = a & -a  # lowest set bit
    tz = np.zeros(m.shape, dtype=np.int64)
    nz = low != 0
    tz[nz] = np.log2(low[nz].astype(np.float64)).astype(np.int64)
    return tz


def rows_to_ints(X):
    """Exact integer rows of any numeric matrix: ``X[i] == ints[i] * scales[i]``.

    Float64 arrays are converted bit-exactly without Fractions; other input (ints,
    :class:`~fractions.Fraction`, strings like ``"3/4"``) goes through
    :func:`markone._exact.to_fraction`. ``scales`` are positive Fractions.

    >>> ints, scales = rows_to_ints([["1/2", "1/3"], [2, 4]])
    >>> ints, scales
    ([[3, 2], [1, 2]], [Fraction(1, 6), Fraction(2, 1)])
    """
    if isinstance(X, np.ndarray) and X.dtype.kind == "f" and X.dtype.itemsize <= 8:
        ints, exps = float_rows_to_ints(X)
        return ints, [Fraction(2) ** e for e in exps]
    if isinstance(X, np.ndarray) and X.dtype.kind in "iub":
        rows = [[int(v) for v in r] for r in X.tolist()]
        F = None
    else:
        F = to_fraction_matrix(X)
        rows = None
    ints, scales = [], []
    for i in range(len(rows) if F is None else len(F)):
        if F is None:
            r = rows[i]
            g = math.gcd(*r) or 1
            ints.append([v // g for v in r])
            scales.append(Fraction(g))
            continue
        r = F[i]
        den = math.lcm(*(v.denominator for v in r))
        num = [int(v * den) for v in r]
        g = math.gcd(*num) or 1
        ints.append([v // g for v in num])
        scales.append(Fraction(g, den))
    return ints, scales


def exact_dot(a, b):
    """Exact dot product of two sequences of ints or Fractions."""
    return sum(map(operator.mul, a, b), 0)


def float_dot_exact(a, b):
    """The exact rational value of the dot product of two float vectors."""
    ia, ea = float_to_ints(a)
    ib, eb = float_to_ints(b)
    return Fraction(exact_dot(ia, ib)) * Fraction(2) ** (ea + eb)


def dot_error_bound(A, w):
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
    A = np.asarray(A, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n = A.shape[1] + 1
    nu = n * UNIT_ROUNDOFF
    if nu >= 0.01:
        raise ValueError(f"dot products of length {n} are too long for this bound.")
    gamma = nu / (1 - nu)
    # s underestimates the exact sum by at most a factor (1 - gamma); a further 1%
    # covers the rounding of this very expression.
    with np.errstate(over="ignore", invalid="ignore"):
        s = np.abs(A) @ np.abs(w)
        return (gamma / (1 - gamma)) * 1.01 * s + (2 * n + 2) * _TINY


def certify_positive(A, w, *, rows=None):
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
    ints, _ = float_rows_to_ints(A[unsure])
    for r in ints:
        if exact_dot(r, wi) <= 0:
            return False, int(unsure.size)
    return True, int(unsure.size)


def blas_single_thread():
    """Context manager limiting BLAS to one thread (when threadpoolctl is installed).

    The verifiers make many small matrix calls (100 x 100 least squares, matrix-vector
    products); on a busy machine, multithreaded BLAS spends more time waking threads
    than computing (measured here: 30x slower under load). Without threadpoolctl this
    is a no-op.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


# --------------------------------------------------------------------------------------
# exact kernels of integer matrices


def null_vector(M):
    """Exact kernel vector of an integer (or rational) matrix whose kernel has dim 1.

    ``M`` has shape ``(m, k)`` and rank ``k - 1``. Returns a primitive integer vector
    ``v`` (a list of ``k`` Python ints with gcd 1) with ``M v = 0`` exactly, checked
    before returning. Systems with more than 8 columns are solved by p-adic (Dixon)
    lifting in numpy/numba, whatever the size of the entries; smaller ones (and the
    rare case where the modular pass is inconclusive) by integer Gauss-Jordan
    elimination.

    Raises
    ------
    ValueError
        When the kernel does not have dimension exactly one.
    """
    if isinstance(M, np.ndarray) and M.dtype.kind in "iu":
        ints = M.tolist()
    elif all(type(v) is int for r in M for v in r):
        ints = [list(r) for r in M]
    else:
        ints = []
        for r in M:
            r = [Fraction(v) for v in r]
            den = math.lcm(*(v.denominator for v in r)) if r else 1
            ints.append([int(v * den) for v in r])
    k = len(ints[0]) if ints else 0
    v = None
    if k > 8:
        v = _null_vector_dixon(ints)
        if v is not None and any(exact_dot(r, v) != 0 for r in ints):
            v = None  # unlucky prime or rank deficiency: decide by elimination
    if v is None:
        v = _null_vector_gauss(ints, k)
    if any(exact_dot(r, v) != 0 for r in ints):  # pragma: no cover - defensive
        raise ArithmeticError("exact kernel check failed")
    return v


def _primitive(v):
    """Divide an integer vector by the gcd of its entries."""
    g = math.gcd(*v)
    return [a // g for a in v] if g > 1 else list(v)


def _from_fractions(fracs):
    """Smallest integer multiple of a rational vector."""
    den = math.lcm(*(q.denominator for q in fracs))
    return _primitive([int(q * den) for q in fracs])


def _null_vector_gauss(ints, k):
    """Integer Gauss-Jordan (rows kept primitive); returns the kernel vector."""
    A = [_primitive(r) if any(r) else list(r) for r in ints]
    m = len(A)
    pivots = []
    r = 0
    for c in range(k):
        p = next((i for i in range(r, m) if A[i][c] != 0), None)
        if p is None:
            continue
        A[r], A[p] = A[p], A[r]
        piv, prow = A[r][c], A[r]
        for i in range(m):
            f = A[i][c]
            if i != r and f:
                A[i] = _primitive([piv * a - f * b for a, b in zip(A[i], prow)])
        pivots.append(c)
        r += 1
        if r == m:
            break
    free = [c for c in range(k) if c not in set(pivots)]
    if len(free) != 1:
        raise ValueError(
            f"the matrix has a kernel of dimension {len(free)}, not 1; null_vector "
            "needs corank one.")
    f = free[0]
    v = [Fraction(0)] * k
    v[f] = Fraction(1)
    for i, c in enumerate(pivots):
        v[c] = Fraction(-A[i][f], A[i][c])
    return _from_fractions(v)


_DIXON_PRIME = 2_097_143  # a prime below 2**21: int64 sums of products stay exact


_LIMB = 20  # bits per limb of a large integer matrix (limb @ digit stays in int64)


def _null_vector_dixon(ints):
    """Kernel vector of an integer matrix of corank one by p-adic lifting, or None.

    ``ints`` is a list of rows of Python ints of any size. A pivoting pass modulo a
    prime finds ``k - 1`` independent rows and columns and an LU factorisation of that
    square block ``B``; Dixon's lifting then solves ``B x = -a_free`` one p-adic digit
    at a time, to enough digits for rational reconstruction (Hadamard bound). Products
    with ``B`` run in int64 on 20-bit limbs of its entries, so only O(n) Python-int
    operations happen per digit. Returns None when the modular pass is inconclusive
    (unlucky prime or corank not one): the caller then eliminates exactly.
    """
    p = _DIXON_PRIME
    k = len(ints[0])
    Amod = np.array([[v % p for v in r] for r in ints], dtype=np.int64)
    piv_rows, piv_cols, lu = _modular_pivots(Amod)
    if len(piv_cols) != k - 1:
        return None
    free = next(c for c in range(k) if c not in set(piv_cols))
    B = [[ints[i][c] for c in piv_cols] for i in piv_rows]
    b = [-ints[i][free] for i in piv_rows]
    n = len(b)
    # Hadamard: every column's norm is at most sqrt(n) times its largest entry.
    colbits = [max(abs(row[c]).bit_length() for row in B) for c in range(n)]
    colbits.append(max(abs(v).bit_length() for v in b))
    logh = sum(colbits) + 0.5 * math.log2(max(n, 1)) * (n + 1)
    steps = int((2 * logh + 4) / math.log2(p)) + 2
    limbs = _limbs(B, max(1, -(-max(colbits[:-1]) // _LIMB)))
    digits = []
    r = b
    for _ in range(steps):
        x = _lu_solve_mod(*lu, np.array([v % p for v in r], dtype=np.int64))
        digits.append(x)
        bx = limbs[0] @ x
        if len(limbs) == 1:
            r = [(ri - bi) // p for ri, bi in zip(r, bx.tolist())]
        else:
            parts = [(Lt @ x).tolist() for Lt in limbs[1:]]
            r = [(ri - bi - sum(pt[j] << (_LIMB * (t + 1)) for t, pt in enumerate(parts)))
                 // p for j, (ri, bi) in enumerate(zip(r, bx.tolist()))]
    X = [0] * n
    for x in reversed(digits):
        X = [a * p + int(c) for a, c in zip(X, x.tolist())]
    mod = p ** steps
    den = None
    sol = []
    for a in X:
        if den is not None:
            num = (a * den) % mod
            if num > mod // 2:
                num -= mod
            if 2 * num * num < mod:
                sol.append(Fraction(num, den))
                continue
        q = _rational_reconstruct(a, mod)
        if q is None:
            return None
        den = q.denominator if den is None else math.lcm(den, q.denominator)
        sol.append(q)
    v = [Fraction(0)] * k
    v[free] = Fraction(1)
    for c, q in zip(piv_cols, sol):
        v[c] = q
    return _from_fractions(v)


def _limbs(B, T):
    """Signed 20-bit limbs of an integer matrix: ``B = sum_t limbs[t] * 2**(20 t)``."""
    mask = (1 << _LIMB) - 1
    if T == 1:
        return [np.array(B, dtype=np.int64)]
    out = np.zeros((T, len(B), len(B[0])), dtype=np.int64)
    for i, row in enumerate(B):
        for j, v in enumerate(row):
            a, sgn = abs(v), -1 if v < 0 else 1
            for t in range(T):
                out[t, i, j] = sgn * ((a >> (_LIMB * t)) & mask)
    return list(out)


def _modular_pivots(A):
    """Independent rows and columns of ``A`` (entries already reduced modulo the
    prime) and an LU factorisation ``(LU, perm, inverse diagonal)`` of the pivot
    block (None when singular)."""
    W = np.array(A, dtype=np.int64)  # a copy: the echelon pass works in place
    perm = np.arange(W.shape[0], dtype=np.int64)
    pcols = np.full(W.shape[0], -1, dtype=np.int64)
    rank = _echelon_mod(W, perm, pcols)
    piv_rows = perm[:rank].tolist()
    piv_cols = pcols[:rank].tolist()
    if rank == 0:
        return piv_rows, piv_cols, None
    LU = np.ascontiguousarray(A[np.ix_(piv_rows, piv_cols)])
    lperm = np.arange(rank, dtype=np.int64)
    dinv = np.zeros(rank, dtype=np.int64)
    if not _lu_mod(LU, lperm, dinv):
        return piv_rows, [], None
    return piv_rows, piv_cols, (LU, lperm, dinv)


@njit(cache=True, nogil=True)
def _inv_mod(a):  # pragma: no cover - compiled
    """Inverse of ``a`` modulo the prime, by Fermat: ``a**(p-2)``."""
    p = _DIXON_PRIME
    inv = 1
    e = p - 2
    a = a % p
    while e > 0:
        if e & 1:
            inv = (inv * a) % p
        a = (a * a) % p
        e >>= 1
    return inv


@njit(cache=True, nogil=True)
def _pivot_to(W, perm, r, c):  # pragma: no cover - compiled
    """Swap the first row ``>= r`` with a nonzero in column ``c`` into row ``r``
    (recording it in ``perm``); False when there is none."""
    m, k = W.shape
    for i in range(r, m):
        if W[i, c] != 0:
            if i != r:
                for j in range(k):
                    t = W[r, j]
                    W[r, j] = W[i, j]
                    W[i, j] = t
                t = perm[r]
                perm[r] = perm[i]
                perm[i] = t
            return True
    return False


@njit(cache=True, nogil=True)
def _lu_mod(LU, perm, dinv):  # pragma: no cover - compiled
    """In-place LU with row pivoting modulo the prime; False when singular."""
    p = _DIXON_PRIME
    n = LU.shape[0]
    for c in range(n):
        if not _pivot_to(LU, perm, c, c):
            return False
        inv = _inv_mod(LU[c, c])
        dinv[c] = inv
        for i in range(c + 1, n):
            f = (LU[i, c] * inv) % p
            LU[i, c] = f
            if f != 0:
                for j in range(c + 1, n):
                    LU[i, j] = (LU[i, j] - f * LU[c, j]) % p
    return True


@njit(cache=True, nogil=True)
def _lu_solve_mod(LU, perm, dinv, b):  # pragma: no cover - compiled
    """Solve ``B x = b`` modulo the prime from :func:`_lu_mod`'s factors."""
    p = _DIXON_PRIME
    n = LU.shape[0]
    y = np.empty(n, dtype=np.int64)
    for i in range(n):
        s = b[perm[i]] % p
        for j in range(i):
            s -= LU[i, j] * y[j]  # |terms| < 2**42; n of them stay in int64
        y[i] = s % p
    x = np.empty(n, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        s = y[i]
        for j in range(i + 1, n):
            s -= LU[i, j] * x[j]
        x[i] = ((s % p) * dinv[i]) % p
    return x


@njit(cache=True, nogil=True)
def _echelon_mod(W, perm, pcols):  # pragma: no cover - compiled
    """In-place row echelon form of ``W`` modulo :data:`_DIXON_PRIME` (a compile-time
    constant, so ``%`` compiles to multiplications), row swaps recorded in ``perm``
    and pivot columns in ``pcols``; returns the rank."""
    p = _DIXON_PRIME
    m, k = W.shape
    r = 0
    for c in range(k):
        if r == m:
            break
        if not _pivot_to(W, perm, r, c):
            continue
        inv = _inv_mod(W[r, c])
        for j in range(c, k):
            W[r, j] = (W[r, j] * inv) % p
        for i in range(r + 1, m):
            f = W[i, c]
            if f != 0:
                for j in range(c, k):
                    W[i, j] = (W[i, j] - f * W[r, j]) % p
        pcols[r] = c
        r += 1
    return r


def _rational_reconstruct(a, mod):
    """The fraction n/d with ``n = a d (mod mod)`` and ``|n|, d < sqrt(mod/2)``, or None."""
    bound = math.isqrt(mod // 2)
    r0, r1 = mod, a % mod
    s0, s1 = 0, 1
    while r1 > bound:
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        s0, s1 = s1, s0 - q * s1
    if s1 == 0 or abs(s1) > bound:
        return None
    return Fraction(r1, s1)
