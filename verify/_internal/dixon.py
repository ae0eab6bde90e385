"""Exact solutions of square integer systems by p-adic (Dixon) lifting on float BLAS.

``A x = b`` with ``A`` an integer ``d x d`` matrix and ``b`` an integer vector has the
rational solution ``x = A^{-1} b``, whose numerators and denominator are determinants
(Cramer's rule), thousands of digits long on the wide bases of
:mod:`verify._internal.leastsq`. :func:`dixon_solve` finds it without big-number linear
algebra:

1. **one LU modulo a prime** ``p < 2**21`` (:data:`PRIME_BITS`): a recursive LU with
   row pivoting (Toledo's), every product a float64 matrix product (BLAS) whose inputs
   are residues in ``[0, p)``. A product of two residues is below ``2**42``; the inner
   dimension is cut into blocks of 2,048 (:func:`_plan`), so that every partial sum
   stays below ``2**53`` and is exact whatever order BLAS adds in. A Schur update
   ``C - X Y`` is computed as ``C + X (p - Y)`` (every term non-negative) and reduced
   once a block by :func:`_reduce` (``x - floor(x / p) p``, fixed up: ``np.fmod`` took
   30 times as long on sums near ``2**53``). The narrow leaves (16 columns) and the
   small triangular inverses (64) are scalar loops that numba compiles from
   :data:`COMPILE_FROM` unknowns. (A prime near ``2**26`` needs one factor split into
   13-bit halves: twice the products, for 24 % more bits a lifting step);
2. **Hensel lifting**: ``x_i = A^{-1} r_i mod p`` (one pass over the LU factors a step,
   blocked triangular solves with the diagonal blocks inverted once) and
   ``r_{i+1} = (r_i - A x_i) / p``, the division checked exact in integers, so that
   ``A (x_0 + p x_1 + ... + p^{k-1} x_{k-1}) = b - p^k r_k`` holds exactly;
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
   Python's integers at that size.

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

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from markone._internal.jit import compiled, kernel
from verify._internal.exact import blas_single_thread

__all__ = ["dixon_solve", "flint_solve", "default_primes", "PRIME_BITS", "PRIMES_TRIED",
           "COMPILE_FROM"]

#: The primes are the largest below ``2**PRIME_BITS``: a product of two residues is
#: below ``2**52``, exact in float64.
PRIME_BITS = 21
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


def _mulsub(C: np.ndarray, X: np.ndarray, Y: np.ndarray, p: int) -> None:
    """``C <- (C - X @ Y) mod p`` in place, for residues: ``C + X @ (p - Y)`` (every
    term non-negative, the sum bounded as :func:`_plan` says), reduced once a block."""
    chunk = min(_plan(p), _CHUNK_CAP)
    negY = np.where(Y == 0, 0.0, p - Y)
    for s in range(0, X.shape[1], chunk):
        prod = X[:, s:s + chunk] @ negY[s:s + chunk]
        prod += C
        _reduce(prod, p, C)


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


@kernel()
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


@kernel()
def _triangle_inverse(T: np.ndarray, p: int, lower: bool, B: np.ndarray) -> None:
    """``B <- T^{-1} mod p`` for a small triangular block ``T``, unit lower (its strict
    lower part is read) or upper, ``B`` the identity on entry: substitution on the
    identity's rows (scalar loops: numba compiles them)."""
    k = T.shape[0]
    if lower:
        for j in range(k - 1):
            for r in range(j + 1, k):
                f = int(T[r, j])
                if f:
                    for c in range(j + 1):
                        B[r, c] = (int(B[r, c]) - f * int(B[j, c])) % p
        return
    for j in range(k - 1, -1, -1):
        inv = _inverse_mod(int(T[j, j]), p)
        for c in range(j, k):
            B[j, c] = int(B[j, c]) * inv % p
        for r in range(j):
            f = int(T[r, j])
            if f:
                for c in range(j, k):
                    B[r, c] = (int(B[r, c]) - f * int(B[j, c])) % p


class _Kernels(NamedTuple):
    """The leaf LU and the small triangular inverse, compiled or plain."""

    leaf_lu: Any
    triangle_inverse: Any


def _kernels(d: int) -> _Kernels:
    """The kernels for a ``d x d`` system: numba's from :data:`COMPILE_FROM` unknowns
    (importing numba and loading them from the disk cache costs about half a second),
    plain Python below (the same arithmetic: the path changes the time, never the
    answer)."""
    if d >= COMPILE_FROM:
        return _Kernels(compiled(_leaf_lu), compiled(_triangle_inverse))
    return _Kernels(_leaf_lu, _triangle_inverse)


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
    M[:, h:] = M[first, h:]
    _lower_solve(M[:h, :h], M[:h, h:], p, kern)
    _mulsub(M[h:, h:], M[h:, :h], M[:h, h:], p)
    second = _lu(M[h:, h:], p, kern)
    if second is None:
        return None
    M[h:, :h] = M[h:, :h][second]
    return np.concatenate([first[:h], first[h:][second]])


def _lower_solve(L: np.ndarray, B: np.ndarray, p: int, kern: _Kernels) -> None:
    """``B <- L^{-1} B mod p`` in place, ``L`` unit lower triangular (its strict lower
    part is read)."""
    k = L.shape[0]
    if k <= _TRIANGLE_LEAF:
        B[:] = _mulmod(_small_inverse(L, p, kern, lower=True), B, p)
        return
    h = k // 2
    _lower_solve(L[:h, :h], B[:h], p, kern)
    _mulsub(B[h:], L[h:, :h], B[:h], p)
    _lower_solve(L[h:, h:], B[h:], p, kern)


def _upper_solve(U: np.ndarray, B: np.ndarray, p: int, kern: _Kernels) -> None:
    """``B <- U^{-1} B mod p`` in place, ``U`` upper triangular, invertible mod p."""
    k = U.shape[0]
    if k <= _TRIANGLE_LEAF:
        B[:] = _mulmod(_small_inverse(U, p, kern, lower=False), B, p)
        return
    h = k // 2
    _upper_solve(U[h:, h:], B[h:], p, kern)
    _mulsub(B[:h], U[:h, h:], B[h:], p)
    _upper_solve(U[:h, :h], B[:h], p, kern)


def _small_inverse(T: np.ndarray, p: int, kern: _Kernels, *, lower: bool) -> np.ndarray:
    """The inverse modulo ``p`` of a small triangular block: unit lower (its strict
    lower part) or upper."""
    B = np.eye(T.shape[0])
    kern.triangle_inverse(T, p, lower, B)
    return B


class _Factors:
    """``P A = L U`` modulo ``p``, kept for :meth:`solve` as block rows
    (:data:`_SOLVE_BLOCK` high): the inverses ``Li_k``, ``Ui_k`` of the diagonal blocks of
    ``L`` and ``U``, and, in place of the off-diagonal parts, ``-Li_k L_k,<k`` and
    ``-Ui_k U_k,>k`` (mod p). A block of the solution is then one sum of two products,
    reduced once: ``y_k = Li_k r_k + (-Li_k L_k,<k) y_<k``, then
    ``x_k = Ui_k y_k + (-Ui_k U_k,>k) x_>k``."""

    def __init__(self, M: np.ndarray, perm: np.ndarray, p: int, kern: _Kernels):
        self.M, self.perm, self.p = M, perm, p
        d = M.shape[0]
        cuts = [*range(0, d, _SOLVE_BLOCK), d]
        self.blocks = list(zip(cuts[:-1], cuts[1:]))
        self.lower: list[np.ndarray] = []
        self.upper: list[np.ndarray] = []
        for s, e in self.blocks:
            for solve, out in ((_lower_solve, self.lower), (_upper_solve, self.upper)):
                eye = np.eye(e - s)
                solve(M[s:e, s:e], eye, p, kern)
                out.append(eye)
        for (s, e), low, up in zip(self.blocks, self.lower, self.upper):
            for part, inverse in ((M[s:e, :s], low), (M[s:e, e:], up)):
                if part.size:
                    part[:] = _mulmod(inverse, part, p)
                    np.subtract(p, part, out=part, where=part != 0)

    def solve(self, R: np.ndarray) -> np.ndarray:
        """``A^{-1} R mod p`` for residues ``R`` (d x n)."""
        M, p = self.M, self.p
        y = R[self.perm]
        for (s, e), inverse in zip(self.blocks, self.lower):
            y[s:e] = _dot_sum([(inverse, y[s:e]), (M[s:e, :s], y[:s])], p)
        for (s, e), inverse in zip(reversed(self.blocks), reversed(self.upper)):
            y[s:e] = _dot_sum([(inverse, y[s:e]), (M[s:e, e:], y[e:])], p)
        return y


def _factor(A: np.ndarray, p: int) -> _Factors | None:
    """The LU of ``A`` modulo ``p``, or None when ``p`` divides ``det A``."""
    M = np.mod(A, p).astype(np.float64)
    kern = _kernels(M.shape[0])
    perm = _lu(M, p, kern)
    return None if perm is None else _Factors(M, perm, p, kern)


# --------------------------------------------------------------------------------------
# exact products with A, the lifting, the reconstruction


def _row_abs_sum(A: np.ndarray) -> int:
    """``max_i sum_j |A_ij|`` exactly."""
    if A.dtype != object and np.abs(A.astype(np.float64)).sum(axis=1).max(initial=0) < 2.0**61:
        return int(np.abs(A).sum(axis=1).max(initial=0))
    return max((sum(abs(int(v)) for v in r) for r in A.tolist()), default=0)


class _Product:
    """Exact ``A @ x`` for residue vectors ``x`` (entries below ``p``): float64 (CSR
    when sparse), ``x`` split into halves when a row's sum could reach ``2**53``;
    Python integers when even that is not exact."""

    def __init__(self, A: np.ndarray, S: int, p: int):
        self.limb = 0
        self.exact_int64 = S * p < 2**62
        if S * (p - 1) < _EXACT:
            self.limb = 0
        elif S * 2**13 < _EXACT and p <= 2**26:
            self.limb = 13
        else:
            self.exact_int64 = False
        if not self.exact_int64:
            self.A = A.astype(object)
            return
        F = A.astype(np.float64)
        if np.count_nonzero(F) <= 0.2 * F.size:
            import scipy.sparse as sp

            F = sp.csr_array(F)
        self.A = F

    def __call__(self, x: np.ndarray) -> np.ndarray:
        if not self.exact_int64:
            return self.A.dot(x.astype(np.int64).astype(object))
        if not self.limb:
            return (self.A @ x).astype(np.int64)
        high = np.floor(x * (1.0 / 2**self.limb))
        low = x - high * 2**self.limb
        both = self.A @ np.stack([low, high], axis=1)
        return (both[:, 1].astype(np.int64) << self.limb) + both[:, 0].astype(np.int64)


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
            F = A.astype(np.float64)
            logs.append((np.log2(np.maximum((F * F).sum(axis=axis), 1.0)) / 2).tolist())
    log_d = min(sum(logs[0]), sum(logs[1]))
    log_n = _log2(sum(int(v) * int(v) for v in b.tolist())) / 2 + sum(logs[0]) - min(logs[0])
    bmax = max((abs(int(v)) for v in b.tolist()), default=0)
    bits = max(log_n, log_d) * 2 + 1 + _log2(S + bmax + 1) + 8
    return max(1, math.ceil(bits / math.log2(p)))


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


def _fraction(n: Any, den: Any) -> Fraction:
    """``n / den`` (``den > 0``) as a Fraction, reduced by GMP's gcd: ``Fraction(n,
    den)`` would run Python's gcd on numbers of thousands of digits (for ``d``
    components twice: a reduced pair is checked again), several seconds at d = 4,000.

    >>> _fraction(6, 4), _fraction(-3, 1), _fraction(0, 5)
    (Fraction(3, 2), Fraction(-3, 1), Fraction(0, 1))
    """
    g = n.gcd(den) if hasattr(n, "gcd") else math.gcd(n, den)
    out = Fraction.__new__(Fraction)
    # The slots Fraction's own constructors fill (CPython's fractions.py since 3.2).
    out._numerator, out._denominator = int(n // g), int(den // g)  # type: ignore[attr-defined]
    return out


def _assemble(D: np.ndarray, p: int) -> list[Any]:
    """``sum_i D[i, j] p^i`` for every column ``j`` of the digit matrix ``D``, as
    :class:`flint.fmpz` (GMP: products and remainders of numbers of thousands of digits
    several times faster than Python's): pairs of digits in int64, then halving rounds.

    >>> [int(v) for v in _assemble(np.array([[1, 2], [3, 4], [5, 6]]), 10)]
    [531, 642]
    """
    import flint   # the exact integers of GMP

    if D.shape[0] % 2:
        D = np.concatenate([D, np.zeros((1, D.shape[1]), dtype=D.dtype)])
    pairs = D[0::2].astype(np.int64) + D[1::2].astype(np.int64) * p
    vals: Any = np.empty(pairs.shape, dtype=object)
    vals[:] = [[flint.fmpz(v) for v in row] for row in pairs.tolist()]
    q = flint.fmpz(p) * p
    while vals.shape[0] > 1:
        if vals.shape[0] % 2:
            vals = np.concatenate([vals, np.full((1, vals.shape[1]), flint.fmpz(0))])
        vals = vals[0::2] + vals[1::2] * q
        q *= q
    return list(vals[0])


class _Lifting:
    """The p-adic digits of ``A^{-1} b`` so far, and the residual of the identity
    ``A X = b - p^k r``."""

    def __init__(self, A, b, factors, p, steps, S):
        self.A, self.b, self.factors, self.p, self.S = A, b, factors, p, S
        self.product = _Product(A, S, p)
        self.digits = np.zeros((steps, A.shape[0]), dtype=np.int32)
        self.k = 0
        self.r = self._narrow(b.astype(object))
        d = A.shape[0]
        self.tracked = sorted({0, d // 2})
        self.values = [0] * len(self.tracked)
        self.pk = 1

    def _narrow(self, r: np.ndarray) -> np.ndarray:
        """``r`` as int64 when it and the next step's sums fit."""
        if r.dtype == object and self.product.exact_int64 and all(
                abs(v) < 2**62 - self.S * self.p for v in r.tolist()):
            return r.astype(np.int64)
        return r

    def step(self) -> bool:
        """One digit; False when the residual's division by ``p`` is not exact (a
        broken step: the caller falls back)."""
        p = self.p
        x = self.factors.solve(np.mod(self.r, p).astype(np.float64)[:, None])[:, 0]
        t = self.r - self.product(x)
        q = t // p
        if not (q * p == t).all():
            return False
        self.r = self._narrow(q) if q.dtype == object else q
        xi = x.astype(np.int64)
        self.digits[self.k] = xi
        for n, j in enumerate(self.tracked):
            self.values[n] += int(xi[j]) * self.pk
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
        return [_fraction(n, den) for n in nums]


def _integer_array(v: Any, what: str) -> np.ndarray:
    """``v`` as an int64 array, or an object array of Python ints when an entry reaches
    ``2**62``; a non-integer entry is refused."""
    arr = v if isinstance(v, np.ndarray) else np.array(v, dtype=object)
    if arr.dtype.kind in "iu":
        if not (arr.size and np.abs(arr.astype(np.float64)).max() >= 2.0**62):
            return arr.astype(np.int64)
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
    chosen = default_primes() if primes is None else list(primes)
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
