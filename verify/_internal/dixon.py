"""Exact solutions of square integer systems by p-adic (Dixon) lifting on float BLAS.

``A x = b`` with ``A`` an integer ``d x d`` matrix and ``b`` an integer vector has the
rational solution ``x = A^{-1} b``, whose numerators and denominator are determinants
(Cramer's rule), thousands of digits long on the wide bases of
:mod:`verify._internal.leastsq`. :func:`dixon_solve` finds it without big-number linear
algebra:

1. **one LU modulo a prime** ``p`` (below ``2**LIFT_PRIME_BITS`` = ``2**16`` by
   default, any prime below ``2**21`` = ``2**PRIME_BITS`` accepted): a recursive LU
   with row pivoting (Toledo's), every product a float64 matrix product (BLAS) whose
   inputs are residues in ``[0, p)``. The inner dimension is cut into blocks
   (:func:`_plan`: 2,048 near ``2**21``, none needed below ``2**16`` for ``d`` up to
   ``2**21``) so that every partial sum stays below ``2**53`` and is exact whatever
   order BLAS adds in. A Schur update ``C - X Y`` is subtracted and reduced in one
   compiled pass a block (:func:`_subtract_reduce`: ``x - floor(x / p) p``, fixed up,
   as :func:`_reduce` does with numpy; ``np.fmod`` took 30 times as long on sums near
   ``2**53``), and only the rows that the pivots moved are copied
   (:func:`_permute_rows`). The narrow leaves (16 columns) and the small triangular
   inverses (64) are scalar loops that numba compiles from :data:`COMPILE_FROM`
   unknowns. The
   factors are then kept in the narrowest exact type, one ``d x d`` uint16 matrix
   (uint32 for ``p > 2**16``) with the inverses of ``U``'s diagonal;
2. **Hensel lifting**: ``x_i = A^{-1} r_i mod p`` and ``r_{i+1} = (r_i - A x_i) / p``,
   the division checked exact in int64 (Python integers when the entries are too
   large), so that ``A (x_0 + p x_1 + ... + p^{k-1} x_{k-1}) = b - p^k r_k`` holds
   exactly. A step is two compiled calls: :func:`_substitute` reads
   the compact factors once (forward and back substitution, eight rows at a time,
   float64 sums of uint16 x float64 products, exact by :func:`_plan`'s bound), and
   :func:`_residual_csr` (or :func:`_residual_dense`) updates the residual from ``A``
   stored in its narrowest integer type. The lifting is bound by the bytes it
   streams: 2 bytes an entry for 16 bits of the solution, where float64 residues of
   a prime below ``2**21`` cost 8 bytes for 21 bits (3 times the bytes for the same
   bits). A uint32 step near ``2**21`` gained as many bits a second as a uint16 one
   (6.5 ms for 21 bits against 4.9 ms for 16 at d = 4,000), for twice the memory;
3. **rational reconstruction** with a common denominator: two tracked components are
   reconstructed (extended Euclid) every 1/32 of the guaranteed steps; when they look
   converged, every component is, ``num_j = den X_j mod p^k`` (symmetric), and the
   candidate is **proved**: ``A num - den b`` is a multiple of ``p^k`` by the identity
   above, and smaller than ``p^k`` in absolute value by a bound computed in exact
   integers (``max row sum |A| * max |num| + max |b| * den``), hence zero: no product
   with ``A`` in big integers. A candidate that fails the proof is not returned; the
   lifting goes on, up to the number of steps Hadamard's bound guarantees
   (:func:`_steps_needed`). The numbers of thousands of digits (the p-adic expansions,
   the remainders, the gcds) are :class:`flint.fmpz` (GMP), several times faster than
   Python's integers at that size; a component's expansion is FLINT's evaluation of
   the polynomial of its digits at ``p``. The proved fractions are reduced with one
   gcd of the denominator's size for all of them when a product of the numerators
   shows it is enough (:func:`_fractions`).

Whenever a step cannot prove itself (``p`` divides ``det A``: the next prime; a failed
division or a candidate still unproved after the guaranteed number of steps: FLINT),
:func:`flint_solve` answers; a singular ``A`` gives None, as FLINT's route does.

Examples
--------
>>> dixon_solve([[1, 4], [8, 3]], [1, 2])
[Fraction(5, 29), Fraction(6, 29)]
>>> dixon_solve([[2, 0], [0, 4]], [1, 1], primes=[2, 3])    # 2 divides det: next prime
[Fraction(1, 2), Fraction(1, 4)]
>>> dixon_solve([[1, 2], [2, 4]], [1, 1]) is None             # singular
True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from markone._internal.jit import compiled, kernel, plain_form, uncompiled
from verify._internal.exact import blas_single_thread

__all__ = ["dixon_solve", "flint_solve", "default_primes", "PRIME_BITS", "LIFT_PRIME_BITS",
           "PRIMES_TRIED", "COMPILE_FROM"]

#: The primes are the largest below ``2**PRIME_BITS``: a product of two residues is
#: below ``2**52``, exact in float64.
PRIME_BITS = 21
#: :func:`dixon_solve`'s own primes are the largest below ``2**LIFT_PRIME_BITS``: their
#: residues fit uint16, and a lifting step, which streams the LU factors once, reads 2
#: bytes an entry for 16 bits of the solution (8 bytes for 21 bits in float64).
LIFT_PRIME_BITS = 16
#: Primes tried before FLINT when each divides ``det A`` (a singular ``A`` is singular
#: modulo every prime: FLINT then says so).
PRIMES_TRIED = 2
#: From this many unknowns the LU's leaves and small triangular inverses run compiled
#: (:func:`_kernels`).
COMPILE_FROM = 200
#: Largest inner block of a product modulo p (:func:`_plan` allows 2,048 near
#: ``2**21``; a test lowers it to reach the blocks' edges on small systems).
_CHUNK_CAP = 2**62
#: Below this width the recursive LU and triangular solves loop over columns.
_LEAF = 16
#: Triangular blocks up to this size are inverted by substitution, then applied as one
#: product.
_TRIANGLE_LEAF = 64
#: Width of the diagonal blocks of a lifting step's triangular solves.
_SOLVE_BLOCK = 256
#: Entries of float64 integers are exact below this.
_EXACT = 2.0**53
#: Reconstruction attempts over the guaranteed number of steps (each costs an extended
#: Euclid on two tracked components).
_ATTEMPTS = 32
#: Components rebuilt at once in a full attempt (it stops at the first failing batch).
_BATCH = 64
#: A tracked component counts as converged when its numerator's and denominator's bits
#: leave this many bits of ``p^k`` spare (random residues reconstruct to about none).
_SPARE_BITS = 20
#: Components of a non-final attempt allowed their own reconstruction (a denominator
#: factor the tracked ones lack) before the attempt is given up.
_EXTRA_FACTORS = 8


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    return all(n % f for f in range(2, math.isqrt(n) + 1))


def default_primes(count: int = PRIMES_TRIED, bits: int = PRIME_BITS) -> list[int]:
    """The ``count`` largest primes below ``2**bits``, largest first.

    >>> default_primes(2, 5)
    [31, 29]
    """
    out: list[int] = []
    n = 2**bits - 1
    while len(out) < count and n > 1:
        if _is_prime(n):
            out.append(n)
        n -= 1
    return out


def flint_solve(A: Any, b: Sequence[int]) -> list[Fraction] | None:
    """The exact solution of ``A x = b`` by FLINT (:meth:`flint.fmpz_mat.solve`), or None
    when ``A`` is singular.

    >>> flint_solve([[2]], [1])
    [Fraction(1, 2)]
    """
    import flint

    if not len(A):
        return []
    rows = A.tolist() if isinstance(A, np.ndarray) else A
    try:
        x: Any = flint.fmpz_mat([list(map(int, r)) for r in rows]).solve(
            flint.fmpz_mat([[int(v)] for v in b]))
    except ZeroDivisionError:   # FLINT: "singular matrix in solve()"
        return None
    num, den = x.numer_denom()
    den = int(den)
    return [Fraction(int(num[i, 0]), den) for i in range(len(b))]


# --------------------------------------------------------------------------------------
# arithmetic modulo p on float64 arrays (residues in [0, p), every sum exact)


def _plan(p: int) -> int:
    """The inner dimension's block for products modulo ``p``: a block's sum of products
    of residues, plus a residue, stays below ``2**53 - 2 p`` (:func:`_reduce`'s
    margin; 2,048 for ``p`` near ``2**21``).

    >>> _plan(2**21 - 9), _plan(3)
    (2048, 2251799813685245)
    """
    return max(1, (2**53 - 3 * p) // max(1, (p - 1) ** 2))


def _reduce(x: np.ndarray, p: int, out: np.ndarray) -> np.ndarray:
    """``out <- x mod p`` for float64 integers ``|x| <= 2**53 - 2 p``: ``x - q p`` with
    ``q = floor(x / p)`` up to one (a product by ``1 / p``; ``q p`` and the difference
    are exact integers below ``2**53``), then one fix-up each side. ``np.fmod`` gives the
    same residues 30 times more slowly here (its bit-by-bit division of quotients up
    to ``2**32``).

    >>> _reduce(np.array([-1.0, 7.0, 2.0**52]), 7, np.empty(3))
    array([6., 0., 2.])
    """
    q = np.floor(x * (1.0 / p))
    q *= p
    np.subtract(x, q, out=out)
    np.add(out, p, out=out, where=out < 0)
    np.subtract(out, p, out=out, where=out >= p)
    return out


def _mulmod(X: np.ndarray, Y: np.ndarray, p: int) -> np.ndarray:
    """``(X @ Y) mod p`` exactly, for float64 residues ``X`` (m x k), ``Y`` (k x n)."""
    return _dot_sum([(X, Y)], p)


def _dot_sum(pairs: Sequence[tuple[np.ndarray, np.ndarray]], p: int) -> np.ndarray:
    """``(sum_i X_i @ Y_i) mod p`` for residues, the inner dimensions cut into blocks
    and the sum reduced whenever the products added since the last reduction would
    pass :func:`_plan`'s count.

    >>> _dot_sum([(np.array([[3.0]]), np.array([[4.0]])), (np.ones((1, 2)), np.ones((2, 1)))], 5)
    array([[4.]])
    """
    chunk = min(_plan(p), _CHUNK_CAP)
    acc: np.ndarray | None = None
    used = 0
    for X, Y in pairs:
        for s in range(0, X.shape[1], chunk):
            part = X[:, s:s + chunk] @ Y[s:s + chunk]
            width = min(chunk, X.shape[1] - s)
            if acc is None:
                acc, used = part, width
                continue
            if used + width > chunk:
                _reduce(acc, p, acc)
                used = 0
            acc += part
            used += width
    assert acc is not None, "an empty product"
    return _reduce(acc, p, acc)


def _mulsub(C: np.ndarray, X: np.ndarray, Y: np.ndarray, p: int, kern: _Kernels) -> None:
    """``C <- (C - X @ Y) mod p`` in place, for residues: one BLAS product a block of
    the inner dimension (its sums bounded as :func:`_plan` says), subtracted and
    reduced in one pass (:func:`_subtract_reduce`)."""
    chunk = min(_plan(p), _CHUNK_CAP)
    for s in range(0, X.shape[1], chunk):
        kern.subtract_reduce(C, X[:, s:s + chunk] @ Y[s:s + chunk], p)


#: The one signature each of the LU's kernels is compiled for: its matrices any
#: layout (``[:, :]``), the blocks of a panel being slices, seldom contiguous ones (a
#: row, a leaf at the panel's left edge, a test's whole matrix), which ran the same
#: code compiled a second time, for C order (issue 37).
_BLOCKS_OF_PANELS = {
    "_subtract_reduce": "(float64[:, :], float64[:, ::1], int64)",   # C - P: P a product
    "_leaf_lu": "(float64[:, :], int64, int64[::1])",
    "_triangle_inverse": "(float64[:, :], int64, float64[:, :])",
}


@kernel(signatures=[_BLOCKS_OF_PANELS["_subtract_reduce"]])
def _subtract_reduce(C: np.ndarray, P: np.ndarray, p: int) -> None:
    """``C <- (C - P) mod p`` for residues ``C`` and a product ``P`` of residues below
    ``2**53 - 3 p`` (:func:`_plan`): :func:`_reduce`'s arithmetic, in one pass over
    the two matrices (numpy's eight passes and three temporaries of ``C``'s size
    took 0.48 s of the LU's 2.3 s of CPU at d = 4,000, this pass 0.09 s). No
    fast-math flags: every step is an exact IEEE operation.

    >>> C = np.array([[0.0, 6.0]])
    >>> _subtract_reduce(C, np.array([[1.0, 2.0**52]]), 7)
    >>> C.tolist()
    [[6.0, 4.0]]
    """
    inv = 1.0 / p
    m, n = C.shape
    for i in range(m):
        for j in range(n):
            x = C[i, j] - P[i, j]
            v = x - np.floor(x * inv) * p
            if v < 0.0:
                v += p
            elif v >= p:
                v -= p
            C[i, j] = v


@plain_form(_subtract_reduce)
def _subtract_reduce_plain(C, P, p):
    """:func:`_subtract_reduce` in numpy (``P`` overwritten; the same operations)."""
    np.subtract(C, P, out=P)
    _reduce(P, p, C)


@kernel()
def _inverse_mod(a: int, p: int) -> int:
    """``a^{-1} mod p`` for ``a`` prime to ``p`` (extended Euclid; numba compiles it).

    >>> _inverse_mod(3, 7)
    5
    """
    r0, r1, t0, t1 = p, a % p, 0, 1
    while r1:
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        t0, t1 = t1, t0 - q * t1
    return t0 % p


@kernel(signatures=[_BLOCKS_OF_PANELS["_leaf_lu"]])
def _leaf_lu(M: np.ndarray, p: int, perm: np.ndarray) -> bool:
    """Column-by-column LU modulo ``p`` of the narrow panel ``M`` in place, rows
    pivoted (the first nonzero) and swapped, ``perm`` swapped alike; False when a
    column has no pivot. Scalar loops: numba compiles them (:func:`_kernels`)."""
    m, n = M.shape
    for j in range(n):
        i = j
        while i < m and M[i, j] == 0.0:
            i += 1
        if i == m:
            return False
        if i != j:
            for c in range(n):
                M[i, c], M[j, c] = M[j, c], M[i, c]
            perm[i], perm[j] = perm[j], perm[i]
        inv = _inverse_mod(int(M[j, j]), p)
        for r in range(j + 1, m):
            if M[r, j] != 0.0:
                f = int(M[r, j]) * inv % p
                M[r, j] = f
                for c in range(j + 1, n):
                    M[r, c] = (int(M[r, c]) - f * int(M[j, c])) % p
    return True


@kernel(signatures=[_BLOCKS_OF_PANELS["_triangle_inverse"]])
def _triangle_inverse(T: np.ndarray, p: int, B: np.ndarray) -> None:
    """``B <- T^{-1} mod p`` for a small unit lower triangular block ``T`` (its strict
    lower part is read), ``B`` the identity on entry: substitution on the identity's
    rows (scalar loops: numba compiles them)."""
    k = T.shape[0]
    for j in range(k - 1):
        for r in range(j + 1, k):
            f = int(T[r, j])
            if f:
                for c in range(j + 1):
                    B[r, c] = (int(B[r, c]) - f * int(B[j, c])) % p


#: numba's fast-math flags for the lifting's sums: reassociation (vectorised sums) and
#: fused multiply-adds. Both are exact here: every partial sum of products of residues
#: is an integer below ``2**53`` (the block of :func:`_plan`), so every order of the
#: additions, and every rounding of a fused one, gives the same exact integer.
_EXACT_SUMS = {"reassoc", "contract"}


@kernel(fastmath=_EXACT_SUMS)
def _row_sum(row: np.ndarray, y: np.ndarray, p: int, chunk: int) -> int:
    """``sum_j row[j] y[j] mod p`` for residues (``row`` uint16 or uint32, ``y``
    float64, as long): float64 sums of ``chunk`` products, each reduced at once. Exact:
    ``chunk (p - 1)^2 < 2**53`` (:func:`_plan`), so every partial sum is an exact
    integer whatever order the additions take. (Each block is a view looped from 0:
    numba then knows the indices are not negative and the loop vectorises; a loop
    from ``lo > 0`` ran 3 times slower.)

    >>> _row_sum(np.array([3, 4, 5], dtype=np.uint16), np.array([1.0, 2.0, 6.0]), 7, 2)
    6
    """
    total = 0
    for s in range(0, row.size, chunk):
        part, ys = row[s:s + chunk], y[s:s + chunk]
        acc = 0.0
        for j in range(part.size):
            acc += part[j] * ys[j]
        total = (total + int(acc)) % p
    return total


@kernel(fastmath=_EXACT_SUMS)
def _row_sums8(M: np.ndarray, first: int, step: int, lo: int, y: np.ndarray, p: int,
               chunk: int, out: np.ndarray) -> None:
    """``out[q] <- sum_j M[first + q step, lo + j] y[j] mod p`` for the eight rows ``q =
    0 .. 7`` (``step`` 1 or -1): :func:`_row_sum`'s exact blocks, each entry of ``y``
    loaded once for the eight rows. Near one core's memory speed: a step at d = 4,000
    took 2.3 ms of CPU, against 3.4 ms four rows at a time.

    >>> out = np.zeros(8, dtype=np.int64)
    >>> _row_sums8(np.eye(9, dtype=np.uint16), 0, 1, 1, np.arange(1.0, 9.0), 5, 2, out)
    >>> out.tolist()         # rows 0..7 from column 1: row q has its 1 at column q
    [0, 1, 2, 3, 4, 0, 1, 2]
    """
    out[:] = 0
    n = y.size
    for s in range(0, n, chunk):
        e = min(s + chunk, n)
        ys = y[s:e]
        a0, a1 = M[first, lo + s:lo + e], M[first + step, lo + s:lo + e]
        a2, a3 = M[first + 2 * step, lo + s:lo + e], M[first + 3 * step, lo + s:lo + e]
        a4, a5 = M[first + 4 * step, lo + s:lo + e], M[first + 5 * step, lo + s:lo + e]
        a6, a7 = M[first + 6 * step, lo + s:lo + e], M[first + 7 * step, lo + s:lo + e]
        s0, s1, s2, s3, s4, s5, s6, s7 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        for j in range(ys.size):
            v = ys[j]
            s0 += a0[j] * v
            s1 += a1[j] * v
            s2 += a2[j] * v
            s3 += a3[j] * v
            s4 += a4[j] * v
            s5 += a5[j] * v
            s6 += a6[j] * v
            s7 += a7[j] * v
        out[0], out[1] = (out[0] + int(s0)) % p, (out[1] + int(s1)) % p
        out[2], out[3] = (out[2] + int(s2)) % p, (out[3] + int(s3)) % p
        out[4], out[5] = (out[4] + int(s4)) % p, (out[5] + int(s5)) % p
        out[6], out[7] = (out[6] + int(s6)) % p, (out[7] + int(s7)) % p


#: Rows of a lifting step's substitution that share one pass over the solved part
#: (:func:`_row_sums8`).
_GROUP = 8


@kernel(fastmath=_EXACT_SUMS)
def _substitute(LU: np.ndarray, perm: np.ndarray, dinv: np.ndarray, p: int, chunk: int,
                r: np.ndarray, y: np.ndarray) -> None:
    """``y <- A^{-1} r mod p`` from ``P A = L U`` modulo ``p`` in one compact matrix
    (``L``'s strict lower part, unit diagonal implied, and ``U``; uint16 or uint32):
    forward then back substitution, one read of the factors, eight rows at a time
    (:func:`_row_sums8` over the solved part they share, then the few products
    inside the eight, each below ``p^2``); ``dinv`` holds the inverses of ``U``'s
    diagonal, ``r`` any int64 values (reduced here), ``y`` float64 residues on return.

    >>> LU = np.array([[2, 1], [3, 2]], dtype=np.uint16)    # L = [[1, 0], [3, 1]], U = [[2, 1], [0, 2]]
    >>> y = np.empty(2)
    >>> _substitute(LU, np.array([0, 1]), np.array([3, 3]), 5, 4, np.array([1, 1]), y)
    >>> y.tolist()      # A = L U = [[2, 1], [6, 5]] (mod 5): A y = (1, 1)
    [1.0, 4.0]
    """
    d = LU.shape[0]
    g = _GROUP
    sums = np.zeros(g, dtype=np.int64)
    i = 0
    while i < d:            # rows i .. i + n - 1 of L
        n = g if i + g <= d else 1
        if n == g:
            _row_sums8(LU, i, 1, 0, y[:i], p, chunk, sums)
        else:
            sums[0] = _row_sum(LU[i, :i], y[:i], p, chunk)
        for q in range(n):
            acc = sums[q]
            for t in range(q):
                acc += int(LU[i + q, i + t]) * int(y[i + t])
            y[i + q] = (r[perm[i + q]] - acc % p) % p
        i += n
    i = d
    while i > 0:            # rows i - 1 down to i - n of U
        n = g if i >= g else 1
        if n == g:
            _row_sums8(LU, i - 1, -1, i, y[i:], p, chunk, sums)
        else:
            sums[0] = _row_sum(LU[i - 1, i:], y[i:], p, chunk)
        for q in range(n):
            row = i - 1 - q
            acc = sums[q]
            for t in range(q):
                acc += int(LU[row, i - 1 - t]) * int(y[i - 1 - t])
            y[row] = (int(y[row]) - acc % p) % p * dinv[row] % p
        i -= n


@plain_form(_substitute)
def _substitute_plain(LU, perm, dinv, p, chunk, r, y):
    """:func:`_substitute` with a numpy dot product a block of a row (the same exact
    sums, for small systems without numba)."""
    d = LU.shape[0]
    rp = np.mod(r, p)

    def row_sum(i, lo, hi):
        total = 0
        for s in range(lo, hi, chunk):
            e = min(s + chunk, hi)
            total = (total + int(LU[i, s:e].astype(np.float64) @ y[s:e])) % p
        return total

    for i in range(d):
        y[i] = (int(rp[perm[i]]) - row_sum(i, 0, i)) % p
    for i in range(d - 1, -1, -1):
        y[i] = (int(y[i]) - row_sum(i, i + 1, d)) % p * int(dinv[i]) % p


@kernel()
def _store_quotient(r: np.ndarray, i: int, t: int, p: int) -> bool:
    """``r[i] <- t / p`` when the division is exact; False otherwise.

    >>> r = np.zeros(1, dtype=np.int64)
    >>> _store_quotient(r, 0, -14, 7), r.tolist(), _store_quotient(r, 0, 5, 7)
    (True, [-2], False)
    """
    q = t // p
    if q * p != t:
        return False
    r[i] = q
    return True


@kernel()
def _residual_csr(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, x: np.ndarray,
                  r: np.ndarray, p: int) -> bool:
    """``r <- (r - A x) / p`` in int64, ``A`` in CSR (``data`` in its narrowest integer
    type), ``x`` float64 residues; False (``r`` then partly updated) when a division
    is not exact. The caller bounds ``|r| + S (p - 1) < 2**63`` (:class:`_Residual`).

    >>> r = np.array([7, 9])
    >>> _residual_csr(np.array([0, 1, 3]), np.array([0, 0, 1]), np.array([1, 2, 1], np.int8),
    ...               np.array([1.0, 3.0]), r, 2), r.tolist()
    (True, [3, 2])
    """
    for i in range(r.size):
        t = r[i]
        for k in range(indptr[i], indptr[i + 1]):
            t -= np.int64(data[k]) * np.int64(x[indices[k]])
        if not _store_quotient(r, i, t, p):
            return False
    return True


@plain_form(_residual_csr)
def _residual_csr_plain(indptr, indices, data, x, r, p):
    """:func:`_residual_csr` in numpy: the row sums are differences of a running sum of
    the products, in int64 (a running sum that wraps past ``2**63`` still gives every
    row sum exactly: the arithmetic is modulo ``2**64`` and each row sum is smaller)."""
    prods = data.astype(np.int64) * x[indices].astype(np.int64)
    run = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(prods)])
    return _store_quotients(r, r - (run[indptr[1:]] - run[indptr[:-1]]), p)


@kernel()
def _residual_dense(A: np.ndarray, x: np.ndarray, r: np.ndarray, p: int) -> bool:
    """:func:`_residual_csr` for a dense ``A`` (its narrowest integer type).

    >>> r = np.array([7, 9])
    >>> _residual_dense(np.array([[1, 0], [2, 1]], np.int8), np.array([1.0, 3.0]), r, 2), r.tolist()
    (True, [3, 2])
    """
    for i in range(r.size):
        t = r[i]
        row = A[i]
        for j in range(row.size):
            t -= np.int64(row[j]) * np.int64(x[j])
        if not _store_quotient(r, i, t, p):
            return False
    return True


@plain_form(_residual_dense)
def _residual_dense_plain(A, x, r, p):
    """:func:`_residual_dense` in numpy (int64 products, exact as bounded)."""
    return _store_quotients(r, r - A.astype(np.int64) @ x.astype(np.int64), p)


def _store_quotients(r: np.ndarray, t: np.ndarray, p: int) -> bool:
    """:func:`_store_quotient` for every entry at once."""
    q = t // p
    if not (q * p == t).all():
        return False
    r[:] = q
    return True


class _Kernels(NamedTuple):
    """The LU's leaves, small triangular inverses and Schur updates, the lifting's
    substitution and residual updates: compiled or plain."""

    leaf_lu: Any
    triangle_inverse: Any
    subtract_reduce: Any
    substitute: Any
    residual_csr: Any
    residual_dense: Any


def _kernels(d: int) -> _Kernels:
    """The kernels for a ``d x d`` system: numba's from :data:`COMPILE_FROM` unknowns
    (importing numba and loading them from the disk cache costs about half a second),
    plain Python below (the same arithmetic: the path changes the time, never the
    answer)."""
    every = (_leaf_lu, _triangle_inverse, _subtract_reduce, _substitute, _residual_csr,
             _residual_dense)
    if d >= COMPILE_FROM:
        return _Kernels(*map(compiled, every))
    return _Kernels(*map(uncompiled, every))


def _lu(M: np.ndarray, p: int, kern: _Kernels) -> np.ndarray | None:
    """In-place LU modulo ``p`` of the ``m x n`` panel ``M`` (``m >= n``) with row
    pivoting (Toledo's recursion: the work is in :func:`_mulsub`): returns the row
    order, or None when the columns are dependent modulo ``p``."""
    n = M.shape[1]
    if n <= _LEAF:
        perm = np.arange(M.shape[0])
        return perm if kern.leaf_lu(M, p, perm) else None
    h = n // 2
    first = _lu(M[:, :h], p, kern)
    if first is None:
        return None
    _permute_rows(M[:, h:], first)
    _lower_solve(M[:h, :h], M[:h, h:], p, kern)
    _mulsub(M[h:, h:], M[h:, :h], M[:h, h:], p, kern)
    second = _lu(M[h:, h:], p, kern)
    if second is None:
        return None
    _permute_rows(M[h:, :h], second)
    return np.concatenate([first[:h], first[h:][second]])


def _permute_rows(B: np.ndarray, perm: np.ndarray) -> None:
    """``B <- B[perm]`` in place, copying only the rows that move: a leaf's pivoting
    moves at most twice its width of rows, so the deep levels of :func:`_lu` move a
    few rows of thousands (copying them all took 3.9 s of the LU's 25 s at d =
    10,000).

    >>> B = np.arange(8.0).reshape(4, 2)
    >>> _permute_rows(B, np.array([0, 2, 1, 3]))
    >>> B.tolist()
    [[0.0, 1.0], [4.0, 5.0], [2.0, 3.0], [6.0, 7.0]]
    """
    moved = np.flatnonzero(perm != np.arange(perm.size))
    if moved.size:
        B[moved] = B[perm[moved]]


def _lower_solve(L: np.ndarray, B: np.ndarray, p: int, kern: _Kernels) -> None:
    """``B <- L^{-1} B mod p`` in place, ``L`` unit lower triangular (its strict lower
    part is read)."""
    k = L.shape[0]
    if k <= _TRIANGLE_LEAF:
        B[:] = _mulmod(_small_inverse(L, p, kern), B, p)
        return
    h = k // 2
    _lower_solve(L[:h, :h], B[:h], p, kern)
    _mulsub(B[h:], L[h:, :h], B[:h], p, kern)
    _lower_solve(L[h:, h:], B[h:], p, kern)


def _small_inverse(T: np.ndarray, p: int, kern: _Kernels) -> np.ndarray:
    """The inverse modulo ``p`` of a small unit lower triangular block (its strict lower
    part is read)."""
    B = np.eye(T.shape[0])
    kern.triangle_inverse(T, p, B)
    return B


class _Factors:
    """``P A = L U`` modulo ``p``, kept for :meth:`solve` in the narrowest exact type: one
    ``d x d`` matrix of uint16 residues for ``p <= 2**16`` (uint32 above), ``L``'s
    strict lower part and ``U``, with the inverses of ``U``'s diagonal. A lifting step
    reads it once (:func:`_substitute`): 2 bytes an entry for 16 bits of the solution,
    where float64 residues of a prime below ``2**21`` cost 8 bytes for 21 bits."""

    def __init__(self, M: np.ndarray, perm: np.ndarray, p: int, kern: _Kernels):
        self.LU = M.astype(np.uint16 if p <= 2**16 else np.uint32)
        self.perm, self.p, self.kern = perm.astype(np.int64), p, kern
        self.dinv = np.array([pow(int(v), -1, p) for v in np.diagonal(M).tolist()],
                             dtype=np.int64)
        self.chunk = min(_plan(p), _CHUNK_CAP)
        self.y = np.empty(M.shape[0])

    def solve(self, r: np.ndarray) -> np.ndarray:
        """``A^{-1} r mod p`` (float64 residues; a buffer the next call overwrites) for
        int64 ``r``."""
        self.kern.substitute(self.LU, self.perm, self.dinv, self.p, self.chunk, r, self.y)
        return self.y


def _residues(A: np.ndarray, p: int) -> np.ndarray:
    """``A mod p`` as float64 residues: ``p`` added to the negative entries when every
    entry is above ``-p`` and below ``p`` (the usual small entries; int64's division
    took 1.9 s at d = 10,000, numpy's float reduction with its temporaries as long),
    else by ``np.mod`` (Python integers too).

    >>> _residues(np.array([[-1, 6], [0, -6]]), 7).tolist()
    [[6.0, 6.0], [0.0, 1.0]]
    >>> _residues(np.array([[-7, 2**60]]), 7).tolist()
    [[0.0, 1.0]]
    """
    if A.dtype != object and A.size and -p < int(A.min()) and int(A.max()) < p:
        M = A.astype(np.float64)
        np.add(M, p, out=M, where=M < 0)
        return M
    return np.mod(A, p).astype(np.float64)


def _factor(A: np.ndarray, p: int) -> _Factors | None:
    """The LU of ``A`` modulo ``p``, or None when ``p`` divides ``det A``."""
    M = _residues(A, p)
    kern = _kernels(M.shape[0])
    perm = _lu(M, p, kern)
    return None if perm is None else _Factors(M, perm, p, kern)


# --------------------------------------------------------------------------------------
# exact products with A, the lifting, the reconstruction


def _row_abs_sum(A: np.ndarray) -> int:
    """``max_i sum_j |A_ij|`` exactly: in int64 when ``d max|A|`` stays below
    ``2**62``, in Python integers otherwise.

    >>> _row_abs_sum(np.array([[1, -3], [2, 2]]))
    4
    """
    if A.dtype != object and A.size:
        top = max(abs(int(A.max())), abs(int(A.min())))
        if top * A.shape[1] < 2**62:
            return int(np.abs(A).sum(axis=1).max())
    return max((sum(abs(int(v)) for v in r) for r in A.tolist()), default=0)


def _narrowest(A: np.ndarray) -> np.ndarray:
    """The int64 array ``A`` as int8 or int32 when that holds it (int16 is left out: one
    compiled signature fewer for each residual kernel, for entries rarely in
    128..32767).

    >>> _narrowest(np.array([-128, 127])).dtype, _narrowest(np.array([128])).dtype
    (dtype('int8'), dtype('int32'))
    """
    low, high = (int(A.min()), int(A.max())) if A.size else (0, 0)
    for t in (np.int8, np.int32):
        if np.iinfo(t).min <= low and high <= np.iinfo(t).max:
            return A.astype(t)
    return A


class _Residual:
    """``r <- (r - A x) / p`` for residue vectors ``x``, the division checked exact: in
    int64 by :func:`_residual_csr` or :func:`_residual_dense` (``A`` stored in its
    narrowest type, CSR when sparse) while ``|r| + S p < 2**63`` holds, which
    ``|r| <= max(|b|, S)`` keeps true step after step (``|r'| <= (|r| + S (p - 1)) /
    p``); in Python integers otherwise."""

    def __init__(self, A: np.ndarray, S: int, p: int, kern: _Kernels):
        self.p, self.kern = p, kern
        self.fits = A.dtype != object and S * p < 2**62
        self.limit = 2**62 - S * p
        if not self.fits:
            self.A = A.astype(object)
            return
        self.csr: tuple[np.ndarray, ...] | None = None
        rows, cols = np.nonzero(A)
        if rows.size <= 0.2 * A.size:
            indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=A.shape[0]))])
            self.csr = (indptr.astype(np.int64), cols.astype(np.int32), _narrowest(A[rows, cols]))
        self.A = _narrowest(A)

    def narrow(self, r: np.ndarray) -> np.ndarray:
        """``r`` as int64 when the int64 update is exact for it."""
        if r.dtype == object and self.fits and all(abs(v) < self.limit for v in r.tolist()):
            return r.astype(np.int64)
        return r

    def __call__(self, r: np.ndarray, x: np.ndarray) -> np.ndarray | None:
        """The next residual (in place when int64), or None when ``r - A x`` does not
        divide by ``p``."""
        if r.dtype != object:
            ok = (self.kern.residual_csr(*self.csr, x, r, self.p) if self.csr is not None
                  else self.kern.residual_dense(self.A, x, r, self.p))
            return r if ok else None
        prod = self.A.dot(x.astype(np.int64).astype(object)) if not self.fits else \
            (self.A.astype(np.int64) @ x.astype(np.int64)).astype(object)
        t = r - prod
        q = t // self.p
        return self.narrow(q) if (q * self.p == t).all() else None


def _steps_needed(A: np.ndarray, b: np.ndarray, S: int, p: int) -> int:
    """Lifting steps after which reconstruction must succeed and its proof hold:
    ``p^k > 2 N D (S + max|b| + 1)``, with Hadamard's bounds ``D`` on ``|det A|`` (the
    product of the column norms, or of the row norms) and ``N`` on every numerator
    (Cramer: ``b`` replaces a column, so ``|b| D / min column norm``), plus 8 bits for
    the rounding of the logarithms."""
    logs = []
    for axis in (0, 1):
        if A.dtype == object:
            sq = [sum(int(v) * int(v) for v in r) for r in (A.T if axis == 0 else A).tolist()]
            logs.append([_log2(v) / 2 for v in sq])
        else:
            sq = _squared_norms(A, axis).astype(np.float64)
            logs.append((np.log2(np.maximum(sq, 1.0)) / 2).tolist())
    log_d = min(sum(logs[0]), sum(logs[1]))
    log_n = _log2(sum(int(v) * int(v) for v in b.tolist())) / 2 + sum(logs[0]) - min(logs[0])
    bmax = max((abs(int(v)) for v in b.tolist()), default=0)
    bits = max(log_n, log_d) * 2 + 1 + _log2(S + bmax + 1) + 8
    return max(1, math.ceil(bits / math.log2(p)))


def _squared_norms(A: np.ndarray, axis: int) -> np.ndarray:
    """The squared norms of ``A``'s columns (``axis`` 0) or rows (1): exact int64 sums
    without a temporary when ``max|A|^2 d`` stays below ``2**63`` (a float copy of
    ``A`` and its square, made for each axis, took 3.2 s at d = 10,000, these 0.15
    s), float64 sums otherwise.

    >>> _squared_norms(np.array([[1, -2], [3, 0]]), 0).tolist(), _squared_norms(np.array([[2**40]]), 1)
    ([10, 4], array([1.20892582e+24]))
    """
    top = max(-int(A.min()), int(A.max())) if A.size else 0
    if top * top * max(A.shape) < 2**63:
        return np.einsum("ij,ij->j" if axis == 0 else "ij,ij->i", A, A)
    F = A.astype(np.float64)
    return (F * F).sum(axis=axis)


def _log2(v: int) -> float:
    """``log2`` of a positive integer of any size (0 for 0)."""
    if v <= 0:
        return 0.0
    shift = max(0, v.bit_length() - 60)
    return math.log2(v >> shift) + shift


def _ratrecon(y: Any, M: Any, bound: Any) -> tuple[Any, Any] | None:
    """``(n, e)`` with ``n = e y mod M``, ``|n| <= bound``, ``0 < e <= bound`` (extended
    Euclid on :class:`flint.fmpz`, stopped at the first remainder within the bound), or
    None.

    >>> [int(v) for v in _ratrecon(3, 7, 2)]        # 3 = -1/2 (mod 7)
    [-1, 2]
    """
    import flint   # the exact integers of GMP

    r0, r1 = flint.fmpz(M), flint.fmpz(y) % M
    t0, t1 = flint.fmpz(0), flint.fmpz(1)
    while r1 > bound:
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        t0, t1 = t1, t0 - q * t1
    if t1 == 0 or abs(t1) > bound:
        return None
    return (-r1, -t1) if t1 < 0 else (r1, t1)


def _fraction(n: Any, den: Any, within: Any = None) -> Fraction:
    """``n / den`` (``den > 0``) as a Fraction, reduced by GMP's gcd: ``Fraction(n,
    den)`` would run Python's gcd on numbers of thousands of digits (for ``d``
    components twice: a reduced pair is checked again), several seconds at d = 4,000.
    ``within``, when given, is a divisor of ``den`` known to hold every common factor
    of ``n`` and ``den`` (:func:`_fractions`): the gcd is taken with it.

    >>> _fraction(6, 4), _fraction(-3, 1), _fraction(0, 5), _fraction(10, 12, 2)
    (Fraction(3, 2), Fraction(-3, 1), Fraction(0, 1), Fraction(5, 6))
    """
    base = den if within is None else within
    g = n.gcd(base) if hasattr(n, "gcd") else math.gcd(n, base)
    out = Fraction.__new__(Fraction)
    # The slots Fraction's own constructors fill (CPython's fractions.py since 3.2).
    out._numerator, out._denominator = int(n // g), int(den // g)  # type: ignore[attr-defined]
    return out


#: :func:`_fractions` splits the primes below this off a common denominator.
_SMALL_PRIMES = 2**16


@functools.lru_cache(maxsize=1)
def _small_primorial() -> int:
    """The product of the primes below :data:`_SMALL_PRIMES` (a sieve).

    >>> _small_primorial() % 30, _small_primorial().bit_length()
    (0, 94027)
    """
    sieve = np.ones(_SMALL_PRIMES, dtype=bool)
    sieve[:2] = False
    for i in range(2, math.isqrt(_SMALL_PRIMES) + 1):
        if sieve[i]:
            sieve[i * i::i] = False
    return math.prod(np.flatnonzero(sieve).tolist())


def _fractions(nums: Sequence[Any], den: Any) -> list[Fraction]:
    """``[n / den for n in nums]`` reduced (:func:`_fraction`), with one gcd of numbers
    of the denominator's size for all of them when it proves enough: ``den = s r``,
    ``s`` its part made of primes below :data:`_SMALL_PRIMES`; when the product of the
    nonzero ``n mod r`` is prime to ``r``, no nonzero ``n`` shares a prime with ``r``
    (a prime dividing a product divides a factor), so each fraction is reduced by
    ``gcd(n, s)``, ``s`` a small number. Otherwise every ``gcd(n, den)`` is taken (a
    gcd of 120,000-bit numbers costs about 2 ms: 20 s at d = 10,000).

    >>> _fractions([6, -9, 0, 35], 12)
    [Fraction(1, 2), Fraction(-3, 4), Fraction(0, 1), Fraction(35, 12)]
    >>> _fractions([7 * 65537, 5], 2 * 65537)      # 65537 is prime: every gcd taken
    [Fraction(7, 2), Fraction(5, 131074)]
    """
    import flint   # the exact integers of GMP

    den = flint.fmpz(den)
    nums = [flint.fmpz(n) for n in nums]
    small, rest = flint.fmpz(1), den
    g = rest.gcd(flint.fmpz(_small_primorial()))
    while g > 1:                    # every power of the small primes that den holds
        small, rest = small * g, rest // g
        g = rest.gcd(g)
    product = flint.fmpz(1)
    for n in nums:
        if n:
            product = product * (n % rest) % rest
    within = small if product.gcd(rest) == 1 else den
    return [_fraction(n, den, within if n else den) for n in nums]


def _assemble(D: np.ndarray, p: int) -> list[Any]:
    """``sum_i D[i, j] p^i`` for every column ``j`` of the digit matrix ``D``, as
    :class:`flint.fmpz`: FLINT evaluates the polynomial of the digits at ``p`` (GMP
    numbers; 3 times faster than halving rounds of Python-level products).

    >>> [int(v) for v in _assemble(np.array([[1, 2], [3, 4], [5, 6]]), 10)]
    [531, 642]
    """
    import flint   # the exact integers of GMP

    at = flint.fmpz(p)
    return [flint.fmpz_poly(col)(at) for col in D.T.tolist()]


class _Lifting:
    """The p-adic digits of ``A^{-1} b`` so far, and the residual of the identity
    ``A X = b - p^k r``."""

    def __init__(self, A, b, factors, p, steps, S):
        self.A, self.b, self.factors, self.p, self.S = A, b, factors, p, S
        self.residual = _Residual(A, S, p, factors.kern)
        self.digits = np.zeros((steps, A.shape[0]), dtype=factors.LU.dtype)
        self.k = 0
        self.r = self.residual.narrow(b.astype(object))
        d = A.shape[0]
        self.tracked = sorted({0, d // 2})
        self.values = [0] * len(self.tracked)
        self.pk = 1

    def step(self) -> bool:
        """One digit; False when the residual's division by ``p`` is not exact (a
        broken step: the caller falls back)."""
        p = self.p
        r = self.r if self.r.dtype != object else np.mod(self.r, p).astype(np.int64)
        x = self.factors.solve(r)
        self.digits[self.k] = x
        nxt = self.residual(self.r, x)
        if nxt is None:
            return False
        self.r = nxt
        for n, j in enumerate(self.tracked):
            self.values[n] += int(x[j]) * self.pk
        self.pk *= p
        self.k += 1
        return True

    def candidate(self, final: bool) -> list[Fraction] | None:
        """The solution, proved, or None (not converged, or unproved)."""
        import flint   # the exact integers of GMP

        M = flint.fmpz(self.pk)
        bound = M.__floordiv__(2).isqrt()
        den = flint.fmpz(1)
        for v in self.values:
            got = _ratrecon(v * den, M, bound)
            if got is None:
                return None
            n, e = got
            if not final and n.bit_length() + e.bit_length() > M.bit_length() - _SPARE_BITS:
                return None
            den *= e
        nums = self._numerators(den, M, bound, final)
        return None if nums is None else self._proved(nums[0], nums[1], M)

    def _numerators(self, den, M, bound, final):
        """``(nums, den)`` with ``nums[j] = den X_j mod M`` (symmetric), ``den`` grown
        where a component needs its own factor, or None."""
        half, nums, extra = M // 2, [], 0
        for s in range(0, self.A.shape[0], _BATCH):
            for X in _assemble(self.digits[:self.k, s:s + _BATCH], self.p):
                z = den * X % M
                z = z - M if z > half else z
                if abs(z) > bound:
                    extra += 1
                    got = _ratrecon(z, M, bound)
                    if got is None or (extra > _EXTRA_FACTORS and not final):
                        return None
                    if got[1] <= 0 or (got[0] - got[1] * z) % M:   # n = e z (mod M)
                        return None
                    z, e = got
                    nums = [v * e for v in nums]
                    den *= e
                nums.append(z)
        return nums, den

    def _proved(self, nums, den, M):
        """``nums / den`` when ``|A nums - den b| < M`` (it is a multiple of ``M``)."""
        bmax = max((abs(int(v)) for v in self.b.tolist()), default=0)
        if den <= 0 or self.S * max(map(abs, nums), default=0) + bmax * den >= M:
            return None
        return _fractions(nums, den)


def _integer_array(v: Any, what: str) -> np.ndarray:
    """``v`` as an int64 array, or an object array of Python ints when an entry reaches
    ``2**62``; a non-integer entry is refused."""
    arr = v if isinstance(v, np.ndarray) else np.array(v, dtype=object)
    if arr.dtype.kind in "iu":
        if not arr.size or (int(arr.max()) < 2**62 and int(arr.min()) > -2**62):
            return arr.astype(np.int64, copy=False)
        arr = arr.astype(object)
    flat = arr.ravel().tolist()
    if not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in flat):
        raise ValueError(f"dixon_solve: {what} must hold integers only; "
                         "scale rationals to integers first.")
    ints = [int(x) for x in flat]
    conv = np.empty(len(ints), dtype=np.int64 if all(abs(x) < 2**62 for x in ints)
                    else object)
    conv[:] = ints
    return conv.reshape(arr.shape)


def _as_integers(A: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """``A`` (square) and ``b`` as integer arrays (:func:`_integer_array`); a wrong
    shape is refused."""
    A2, b2 = _integer_array(A, "A"), _integer_array(b, "b")
    if A2.ndim != 2 or A2.shape[0] != A2.shape[1] or b2.shape != (A2.shape[0],):
        raise ValueError(f"dixon_solve: A must be square and b as long as its side; got "
                         f"A of shape {A2.shape} and b of shape {b2.shape}.")
    return A2, b2


def dixon_solve(A: Any, b: Any, *, primes: Iterable[int] | None = None
                ) -> list[Fraction] | None:
    """The exact solution of the square integer system ``A x = b``, or None when ``A``
    is singular, by p-adic lifting modulo a prime (module docstring).

    Parameters
    ----------
    A, b : integer arrays or nested lists (Python ints of any size)
    primes : the primes to try, in order (default :func:`default_primes`); each must
        be a prime below ``2**PRIME_BITS``. When every one divides ``det A``, or a
        step cannot be proved, FLINT solves (:func:`flint_solve`).

    Returns
    -------
    list of Fraction or None
        Always exact: the candidate is proved before it is returned.

    >>> dixon_solve([[3]], [-6])
    [Fraction(-2, 1)]
    """
    if not len(A) and not len(b):
        return []
    A, b = _as_integers(A, b)
    chosen = default_primes(bits=LIFT_PRIME_BITS) if primes is None else list(primes)
    for p in chosen:
        if not (2 <= p < 2**PRIME_BITS and _is_prime(p)):
            raise ValueError(f"dixon_solve: primes must be primes below 2**{PRIME_BITS}; "
                             f"got {p}.")
    with blas_single_thread():
        for p in chosen:
            factors = _factor(A, p)
            if factors is None:
                continue
            return _lift(A, b, factors, p)
    return flint_solve(A, b.tolist())


def _lift(A: np.ndarray, b: np.ndarray, factors: _Factors, p: int
          ) -> list[Fraction] | None:
    """Lift until a candidate is proved; FLINT when the guaranteed steps do not."""
    S = _row_abs_sum(A)
    steps = _steps_needed(A, b, S, p)
    lifting = _Lifting(A, b, factors, p, steps, S)
    stride = max(1, steps // _ATTEMPTS)
    while lifting.k < steps:
        if not lifting.step():
            break
        if lifting.k % stride == 0 or lifting.k == steps:
            x = lifting.candidate(final=lifting.k == steps)
            if x is not None:
                return x
    return flint_solve(A, b.tolist())
