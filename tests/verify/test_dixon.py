"""Tests of verify._internal.dixon: the p-adic solver on float BLAS against FLINT's
``fmpq_mat.solve``, on random, degenerate (the prime divides det A), singular, huge and
adversarial systems; a wrong candidate is never returned."""

import math
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verify._internal.dixon as D
from markone._internal.jit import is_compiled
from verify._internal.dixon import default_primes, dixon_solve


def _flint(A, b):
    """The reference: FLINT's rational solve, None when singular."""
    d = len(A)
    if not d:
        return []
    M = flint.fmpq_mat(d, d, [int(v) for r in A for v in r])
    if M.rank() < d:
        return None
    x = M.solve(flint.fmpq_mat(d, 1, [int(v) for v in b]))
    return [Fraction(int(x[i, 0].p), int(x[i, 0].q)) for i in range(d)]


def _det(A):
    return int(flint.fmpz_mat([[int(v) for v in r] for r in A]).det()) if len(A) else 1


@pytest.fixture
def no_flint(monkeypatch):
    """The FLINT fallback made to fail: the p-adic route must answer by itself."""
    def refuse(A, b):
        raise AssertionError("fell back to FLINT")
    monkeypatch.setattr(D, "flint_solve", refuse)


@pytest.fixture
def flint_calls(monkeypatch):
    """Count the FLINT fallbacks (they still answer)."""
    calls = []
    real = D.flint_solve

    def spy(A, b):
        calls.append(len(b))
        return real(A, b)
    monkeypatch.setattr(D, "flint_solve", spy)
    return calls


def systems(max_d=7, entries=st.integers(-9, 9), rhs=st.integers(-10**6, 10**6)):
    return st.integers(1, max_d).flatmap(lambda d: st.tuples(
        st.lists(st.lists(entries, min_size=d, max_size=d), min_size=d, max_size=d),
        st.lists(rhs, min_size=d, max_size=d)))


@settings(max_examples=60)
@given(systems())
def test_random_systems_agree_with_flint(system):
    A, b = system
    expected = _flint(A, b)
    assert dixon_solve(A, b) == expected
    assert dixon_solve(np.array(A, dtype=np.int64), np.array(b)) == expected


@settings(max_examples=40)
@given(systems(max_d=6))
def test_nonsingular_systems_are_solved_without_flint(system):
    """When the prime does not divide det A, the lifting answers by itself (a test
    that FLINT answered would prove nothing about the p-adic route)."""
    A, b = system
    p = default_primes(1, D.LIFT_PRIME_BITS)[0]
    if _det(A) % p == 0:
        return
    real = D.flint_solve
    D.flint_solve = _refuse
    try:
        got = dixon_solve(A, b)
    finally:
        D.flint_solve = real
    assert got == _flint(A, b)


def _refuse(A, b):
    raise AssertionError("fell back to FLINT")


@settings(max_examples=40)
@given(systems(max_d=5, entries=st.integers(-3, 3)), st.sampled_from([2, 3, 5, 7]))
def test_small_forced_prime(system, p):
    """A tiny prime often divides det A: then the next prime, then FLINT; the answer
    is FLINT's either way."""
    A, b = system
    assert dixon_solve(A, b, primes=[p]) == _flint(A, b)
    assert dixon_solve(A, b, primes=[p, 11]) == _flint(A, b)


def test_prime_dividing_det_moves_to_the_next(no_flint):
    A, b = [[3, 0], [0, 5]], [1, 1]          # det 15
    assert dixon_solve(A, b, primes=[3, 5, 7]) == [Fraction(1, 3), Fraction(1, 5)]


def test_every_prime_dividing_det_goes_to_flint(flint_calls):
    A, b = [[3, 0], [0, 5]], [1, 2]
    assert dixon_solve(A, b, primes=[3, 5]) == [Fraction(1, 3), Fraction(2, 5)]
    assert flint_calls == [2]


@settings(max_examples=30)
@given(systems(max_d=6), st.integers(0, 5))
def test_singular_systems_give_none(system, which):
    """A repeated row (or a zero row) makes A singular: None, as the FLINT route."""
    A, b = system
    d = len(A)
    if d == 1:
        A = [[0]]
    else:
        A[which % d] = list(A[(which + 1) % d])
    assert _flint(A, b) is None
    assert dixon_solve(A, b) is None


def test_empty_and_one_by_one(no_flint):
    assert dixon_solve([], []) == []
    assert dixon_solve([[7]], [3]) == [Fraction(3, 7)]
    assert dixon_solve([[-7]], [0]) == [Fraction(0)]


@settings(max_examples=25)
@given(systems(max_d=4, entries=st.integers(-10**40, 10**40),
               rhs=st.integers(-10**60, 10**60)))
def test_huge_entries(system):
    """Entries beyond int64 take the Python-integer products; b beyond int64 starts
    the residual in Python integers."""
    A, b = system
    assert dixon_solve(A, b) == _flint(A, b)


def test_entries_needing_split_products(no_flint):
    """Rows whose sums times p pass 2**53 (the halves of the digits) and b beyond int64."""
    rng = np.random.default_rng(3)
    A = rng.integers(-2**33, 2**33, size=(6, 6))
    b = [int(v) * 10**25 for v in rng.integers(-100, 100, size=6)]
    assert dixon_solve(A, b) == _flint(A.tolist(), b)


def test_sparse_system_uses_the_sparse_product(no_flint):
    rng = np.random.default_rng(4)
    d = 40
    A = np.diag(rng.integers(1, 4, size=d)) * rng.choice([-1, 1], size=d)
    A[rng.integers(0, d, size=60), rng.integers(0, d, size=60)] = rng.integers(-3, 4, 60)
    A[np.arange(d), np.arange(d)] += 20            # keep it nonsingular
    b = rng.integers(-50, 50, size=d)
    kern = D._kernels(d)
    assert D._Residual(A, D._row_abs_sum(A), default_primes(1)[0], kern).csr is not None
    assert dixon_solve(A, b) == _flint(A.tolist(), b.tolist())


def test_adversarial_hilbert_and_distinct_denominators(no_flint):
    """A scaled Hilbert matrix (ill conditioned: huge numerators and denominators), and
    a diagonal whose components have pairwise different denominators (each needs its
    own factor of the common denominator)."""
    import math

    d = 12
    L = math.lcm(*range(1, 2 * d))
    H = [[L // (i + j + 1) for j in range(d)] for i in range(d)]
    b = [1] * d
    assert dixon_solve(H, b) == _flint(H, b)
    primes = [101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157]
    diag = [[primes[i] if i == j else 0 for j in range(d)] for i in range(d)]
    assert dixon_solve(diag, [1] * d) == [Fraction(1, q) for q in primes]


def test_a_wrong_reconstruction_is_never_returned(monkeypatch, flint_calls):
    """Rational reconstruction made to lie: no candidate passes the proof, and the
    answer (FLINT's, after the guaranteed steps) is still exact."""
    monkeypatch.setattr(D, "_ratrecon", lambda y, M, bound: (1, 1))
    A, b = [[2, 1], [1, 3]], [1, 1]
    assert dixon_solve(A, b) == [Fraction(2, 5), Fraction(1, 5)]
    assert flint_calls == [2]


def test_a_broken_step_falls_back(monkeypatch, flint_calls):
    """A residual that does not divide by p (a broken product) stops the lifting."""
    monkeypatch.setattr(D._Residual, "__call__", lambda self, r, x: None)
    assert dixon_solve([[2, 1], [1, 3]], [1, 1]) == [Fraction(2, 5), Fraction(1, 5)]
    assert flint_calls == [2]


@pytest.mark.parametrize("A, b, match", [
    ([[1.5]], [1], "integers only"),
    ([[1, 2]], [1], "square"),
    ([[1]], [1, 2], "square"),
])
def test_bad_input_is_refused(A, b, match):
    with pytest.raises(ValueError, match=match):
        dixon_solve(A, b)


def test_bad_primes_are_refused():
    with pytest.raises(ValueError, match="primes below"):
        dixon_solve([[1]], [1], primes=[4])
    with pytest.raises(ValueError, match="primes below"):
        dixon_solve([[1]], [1], primes=[2**31 - 1])


def test_modular_products_are_exact():
    """The blocked products modulo p equal Python's exact ones, for a prime near the
    top of the range and one that needs the split into halves."""
    rng = np.random.default_rng(5)
    for p in (default_primes(1)[0], default_primes(1, 26)[0]):
        X = rng.integers(0, p, size=(7, 3000)).astype(np.float64)
        Y = rng.integers(0, p, size=(3000, 2)).astype(np.float64)
        exact = (X.astype(np.int64).astype(object) @ Y.astype(np.int64).astype(object)) % p
        assert (D._mulmod(X, Y, p).astype(np.int64) == exact.astype(np.int64)).all()


@pytest.mark.slow
def test_larger_sparse_system_agrees_with_flint(no_flint):
    rng = np.random.default_rng(6)
    d = 300
    A = np.zeros((d, d), dtype=np.int64)
    for i in range(d):
        A[i, rng.choice(d, 10, replace=False)] = rng.integers(1, 4, 10)
    A[:, -1] = rng.choice([-1, 1], size=d)
    b = [int(v) << 30 for v in rng.integers(-2**30, 2**30, size=d)]
    if _det(A.tolist()) % default_primes(1, D.LIFT_PRIME_BITS)[0] == 0:
        pytest.skip("the prime divides det A")
    assert dixon_solve(A, b) == _flint(A.tolist(), b)


def test_solve_exact_lifts_from_the_threshold_on(monkeypatch):
    """The least-squares and basis routes' one solver: FLINT below DIXON_MIN_SIZE, the
    p-adic route from it on."""
    import verify._internal.basis as B

    used = []
    monkeypatch.setattr(B, "dixon_solve", lambda A, b: used.append("dixon") or [])
    monkeypatch.setattr(B, "flint_solve", lambda A, b: used.append("flint") or [])
    B.solve_exact([[1]] * (B.DIXON_MIN_SIZE - 1), [1] * (B.DIXON_MIN_SIZE - 1))
    B.solve_exact([[1]] * B.DIXON_MIN_SIZE, [1] * B.DIXON_MIN_SIZE)
    assert used == ["flint", "dixon"]


def test_least_squares_certificate_through_the_p_adic_route(monkeypatch, no_flint):
    """exact_completion's basis solved by the p-adic route (threshold lowered): the
    certificate is exact, and the trusted checker accepts it."""
    from types import SimpleNamespace

    import verify._internal.basis as B
    from verify import check_certificate
    from verify._internal.leastsq import exact_completion, positive_weights

    monkeypatch.setattr(B, "DIXON_MIN_SIZE", 2)
    rng = np.random.default_rng(7)
    X = rng.integers(-3, 4, size=(120, 8)).astype(float)
    y = rng.choice([-1, 1], size=120)
    Z = np.hstack([X, np.ones((120, 1))]) * y[:, None]
    cert = exact_completion(Z, positive_weights(Z))
    assert cert is not None and all(v > 0 for v in cert.values())
    verdict = SimpleNamespace(separable=False, intercept=True, witness=None,
                              certificate=cert)
    assert check_certificate(X, y, verdict)


# --------------------------------------------------------------------------------------
# the BLAS-grade LU (issue 45): compiled leaves, fused reductions, exact big-number steps


@settings(max_examples=15, deadline=None)
@given(systems(max_d=9, entries=st.integers(-3, 3)))
def test_compiled_kernels_agree_with_flint(system):
    """From COMPILE_FROM unknowns the leaves and small triangular inverses run as numba
    machine code: forced here on small systems, the answer is still FLINT's."""
    A, b = system
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(D, "COMPILE_FROM", 0)
        assert dixon_solve(A, b) == _flint(A, b)
    assert is_compiled(D._leaf_lu) and is_compiled(D._triangle_inverse)


@pytest.mark.parametrize("d, seed", [(13, 0), (17, 1), (24, 2)])
@pytest.mark.parametrize("compiled", [False, True])
def test_blocking_edges_on_small_systems(monkeypatch, no_flint, d, seed, compiled):
    """Tiny leaves, triangle leaves, solve blocks and product blocks (the inner
    dimension cut every 3 entries, with a reduction after each block), at sizes that
    are not multiples of them: every edge of the blocking is crossed, and the answer is
    FLINT's without FLINT."""
    for name, value in (("_LEAF", 2), ("_TRIANGLE_LEAF", 2), ("_SOLVE_BLOCK", 5),
                        ("_CHUNK_CAP", 3), ("COMPILE_FROM", 0 if compiled else 10**9)):
        monkeypatch.setattr(D, name, value)
    rng = np.random.default_rng(seed)
    A = rng.integers(-5, 6, size=(d, d))
    A[:, 0] = 0
    A[0, 0] = 1                     # the first column's pivot only in row 0 ...
    A[[0, d - 1]] = A[[d - 1, 0]]   # ... moved to the last row: a row swap is needed
    b = rng.integers(-100, 100, size=d)
    expected = _flint(A.tolist(), b.tolist())
    assert expected is not None
    assert dixon_solve(A, b) == expected


@pytest.mark.parametrize("p", [2, 3, 7, 2**21 - 9])
@settings(max_examples=30)
@given(st.lists(st.integers(-2**53, 2**53), min_size=1, max_size=40))
def test_reduce_gives_the_residues(p, values):
    x = np.array([v for v in values if abs(v) <= 2**53 - 2 * p], dtype=np.float64)
    got = D._reduce(x, p, np.empty_like(x))
    assert got.tolist() == [float(int(v) % p) for v in x.tolist()]


@pytest.mark.parametrize("p", [2, 7, 65521])
@settings(max_examples=30)
@given(st.lists(st.integers(-2**63, 2**63 - 1), min_size=1, max_size=12), st.integers(0, 2))
def test_residues_of_A_at_the_edges(p, values, edge):
    """``A mod p`` (the LU's input) equals Python's on int64 entries, on entries at
    ``-p``, ``-p + 1``, ``p - 1``, ``p`` (the edges of the fast path) and on Python
    integers beyond int64."""
    values = values + [[-p, -p + 1, p - 1, p][edge], [-p + 1, p - 1][edge % 2]]
    want = [float(v % p) for v in values]
    assert D._residues(np.array([values], dtype=np.int64), p).ravel().tolist() == want
    huge = np.array([values + [2**70]], dtype=object)
    assert D._residues(huge, p).ravel().tolist() == want + [float(2**70 % p)]


@settings(max_examples=40)
@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_squared_norms_exact_up_to_int64(m, n, data):
    """Hadamard's norms (the guaranteed steps): Python's exact sums of squares while
    ``max|A|^2 max(m, n)`` is below ``2**63`` (entries drawn up to that edge), within
    float rounding beyond it."""
    edge = math.isqrt((2**63 - 1) // max(m, n))
    top = data.draw(st.sampled_from([3, edge, edge + 1, 2**40]))
    A = np.array(data.draw(st.lists(st.lists(st.integers(-top, top), min_size=n, max_size=n),
                                    min_size=m, max_size=m)), dtype=np.int64)
    A[0, 0] = data.draw(st.sampled_from([top, -top]))      # the edge itself
    big = max(abs(int(v)) for v in A.ravel()) ** 2 * max(m, n) >= 2**63
    for axis, rows in ((0, A.T.tolist()), (1, A.tolist())):
        want = [sum(v * v for v in r) for r in rows]
        got = D._squared_norms(A, axis).tolist()
        if big:
            assert got == pytest.approx(want, rel=1e-12)
        else:
            assert got == want


def test_row_permutation_moves_the_rows():
    """:func:`_permute_rows` gives ``B[perm]`` for every permutation of a few rows,
    fixed rows included, on a strided view."""
    import itertools
    for perm in itertools.permutations(range(4)):
        big = np.arange(20.0).reshape(4, 5)
        want = big[list(perm), 1:].copy()
        D._permute_rows(big[:, 1:], np.array(perm))
        assert (big[:, 1:] == want).all() and (big[:, 0] == np.arange(0.0, 20.0, 5)).all()


@pytest.mark.parametrize("p", [2, 3, 65521, 2**21 - 9])
@settings(max_examples=30, deadline=None)
@given(st.data())
def test_schur_update_gives_the_residues(p, data):
    """``C <- (C - P) mod p`` (the LU's Schur update), compiled and plain, on a strided
    view of residues ``C`` and products ``P`` up to the bound of :func:`_plan`
    (``2**53 - 3 p``, the extremes drawn): Python's residues."""
    top = 2**53 - 3 * p
    m, n = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 5))
    Cv = data.draw(st.lists(st.integers(0, p - 1), min_size=m * n, max_size=m * n))
    Pv = data.draw(st.lists(st.one_of(st.integers(0, top), st.sampled_from([0, top, top - 1])),
                            min_size=m * n, max_size=m * n))
    want = [float((c - q) % p) for c, q in zip(Cv, Pv)]
    for form in _both(D._subtract_reduce):
        big = np.zeros((m, n + 1))
        C = big[:, 1:]                       # a view whose rows are not contiguous
        C[:] = np.array(Cv, dtype=np.float64).reshape(m, n)
        form(C, np.array(Pv, dtype=np.float64).reshape(m, n), p)
        assert C.ravel().tolist() == want and (big[:, 0] == 0).all()


def test_the_lus_kernels_are_compiled_once_for_blocks_of_any_layout():
    """The LU's blocks are slices of a panel, seldom contiguous ones: each kernel is
    compiled once, for any layout, and gives a whole matrix and a strided view of the
    same values the residues of its plain form (a C-ordered block was a second compile
    of each; issue 37)."""
    p = 7
    M = np.array([[2.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 3.0, 1.0]])
    T = np.array([[1.0, 0.0, 0.0], [3.0, 1.0, 0.0], [5.0, 2.0, 1.0]])

    def leaf(kern, A):
        perm = np.arange(3)
        assert kern(A, p, perm)
        return A.tolist(), perm.tolist()

    def inverse(kern, A):
        B = np.eye(3)
        kern(A, p, B)
        return B.tolist()

    def schur(kern, A):
        kern(A, np.full((3, 3), 4.0), p)
        return A.tolist()

    for fn, values, run in ((D._leaf_lu, M, leaf), (D._triangle_inverse, T, inverse),
                            (D._subtract_reduce, M, schur)):
        plain, kern = _both(fn)
        big = np.zeros((3, 4))
        big[:, 1:] = values
        assert run(kern, values.copy()) == run(kern, big[:, 1:]) == run(plain, values.copy())
        assert [sig[0].layout for sig in kern.signatures] == ["A"]


_FACTORS = [2, 3, 65521, 65537, 2**61 - 1, 10**40 + 121]   # primes each side of 2**16


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(_FACTORS), max_size=6), st.lists(st.tuples(
    st.integers(-10**30, 10**30), st.lists(st.sampled_from(_FACTORS), max_size=3)),
    min_size=1, max_size=8), st.booleans())
def test_fractions_reduced_with_one_big_gcd(den_factors, parts, as_fmpz):
    """Every component reduced, as Fraction would, whether the denominator's large
    primes (above 2**16) divide no numerator (one gcd for all) or some (every gcd):
    numerators and denominator built from primes each side of 2**16, zeros too."""
    den = math.prod(den_factors)
    nums = [v * math.prod(f) for v, f in parts]
    got = D._fractions([flint.fmpz(n) for n in nums] if as_fmpz else nums, den)
    want = [Fraction(n, den) for n in nums]
    assert [(g.numerator, g.denominator) for g in got] == \
        [(w.numerator, w.denominator) for w in want]
    assert all(type(g.numerator) is int and g == w for g, w in zip(got, want))


@settings(max_examples=60)
@given(st.integers(-10**80, 10**80), st.integers(1, 10**80), st.booleans())
def test_fraction_from_gmp_is_reduced(n, den, as_fmpz):
    """The reconstruction's fractions (reduced by GMP's gcd) equal, hash and print as
    Fraction's own."""
    if as_fmpz:
        n, den = flint.fmpz(n), flint.fmpz(den)
    got = D._fraction(n, den)
    want = Fraction(int(n), int(den))
    assert (got.numerator, got.denominator) == (want.numerator, want.denominator)
    assert type(got.numerator) is int and hash(got) == hash(want) and got == want


# --------------------------------------------------------------------------------------
# the lifting at memory speed (issue 45): compact factors, compiled substitution and
# residual, checked against exact Python integers, compiled and plain


def _exact_substitute(LU, perm, dinv, p, r):
    """The reference: forward and back substitution in Python integers."""
    d = len(LU)
    L = [[int(v) for v in row] for row in LU.tolist()]
    y = [0] * d
    for i in range(d):
        y[i] = (int(r[perm[i]]) - sum(L[i][j] * y[j] for j in range(i))) % p
    for i in range(d - 1, -1, -1):
        y[i] = (y[i] - sum(L[i][j] * y[j] for j in range(i + 1, d))) * int(dinv[i]) % p
    return y


def _both(fn):
    """The plain and the compiled form of kernel ``fn``."""
    from markone._internal.jit import compiled, uncompiled
    return uncompiled(fn), compiled(fn)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 27), st.sampled_from([5, 65521, 2**21 - 9]), st.integers(1, 5),
       st.integers(0, 2**32))
def test_substitution_is_exact_compiled_and_plain(d, p, chunk, seed):
    """Every row count around the eight-row groups, every block of the sums (``chunk``
    lowered), uint16 and uint32 factors, any int64 right-hand side: both forms give
    Python's residues."""
    rng = np.random.default_rng(seed)
    LU = rng.integers(0, p, size=(d, d)).astype(np.uint16 if p <= 2**16 else np.uint32)
    perm = rng.permutation(d).astype(np.int64)
    dinv = rng.integers(1, p, size=d)
    r = rng.integers(-2**62, 2**62, size=d)
    want = _exact_substitute(LU, perm, dinv, p, r)
    for form in _both(D._substitute):
        y = np.empty(d)
        form(LU, perm, dinv, p, chunk, r, y)
        assert y.tolist() == want


@pytest.mark.parametrize("p, dtype", [(65521, np.uint16), (2**21 - 9, np.uint32)])
@pytest.mark.parametrize("value", ["p-1", "p-2"])
def test_row_sums_exact_at_the_accumulation_bound(p, dtype, value):
    """Rows of the largest residues (p - 1; p - 2 makes every product odd, so a sum
    past 2**53 would lose its last bit) over more than one block: near 2**21, 2,048
    products of (p - 1)^2 fill a block to just under 2**53 (the bound _plan states);
    compiled and plain, one row and eight, equal Python's sums."""
    v = p - 1 if value == "p-1" else p - 2
    chunk = D._plan(p)
    n = 2 * chunk + 5 if chunk < 5000 else 5000
    assert chunk * (p - 1) ** 2 < 2**53
    row, y = np.full(n, v, dtype=dtype), np.full(n, float(v))
    want = n * v * v % p
    rows = np.tile(row, (9, 1))
    for one, eight in zip(_both(D._row_sum), _both(D._row_sums8)):
        assert one(row, y, p, chunk) == want
        for first, step in ((0, 1), (8, -1)):
            out = np.full(8, -1, dtype=np.int64)
            eight(rows, first, step, 0, y, p, chunk, out)
            assert out.tolist() == [want] * 8
    if p > 2**16 and value == "p-2":     # the bound is tight: two blocks' running sum is not exact
        assert np.cumsum(row[:2 * chunk].astype(np.float64) * y[:2 * chunk])[-1] \
            != 2 * chunk * v * v


def _exact_residual(A, x, r, p):
    t = [int(ri) - sum(int(a) * int(xi) for a, xi in zip(row, x)) for row, ri in zip(A, r)]
    return [v // p for v in t] if all(v % p == 0 for v in t) else None


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 9), st.sampled_from([np.int8, np.int32, np.int64]),
       st.integers(0, 2**32), st.booleans())
def test_residual_update_at_the_dtype_limits(d, dtype, seed, exact):
    """``r <- (r - A x) / p`` in int64 from A in its narrow type (entries at the type's
    limits), CSR and dense, compiled and plain: Python's quotients, or False when a
    division is not exact."""
    p = 65521
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    A = rng.choice([info.min, info.max, 0, -1, 1], size=(d, d)).astype(np.int64)
    if dtype == np.int64:       # keep |r| + S (p - 1) < 2**63, as _Residual demands
        A = A // (d * p * 4)
    x = rng.integers(0, p, size=d).astype(np.float64)
    r = rng.integers(-2**40, 2**40, size=d) * p
    if exact:                   # make every division exact
        r = r + (A @ x.astype(np.int64)) % p
    want = _exact_residual(A.tolist(), x.tolist(), r.tolist(), p)
    rows, cols = np.nonzero(A)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=d))]).astype(np.int64)
    csr = (indptr, cols.astype(np.int32), D._narrowest(A[rows, cols]))
    for csr_form, dense_form in zip(_both(D._residual_csr), _both(D._residual_dense)):
        for call in (lambda rr: csr_form(*csr, x, rr, p),
                     lambda rr: dense_form(D._narrowest(A), x, rr, p)):
            rr = r.copy()
            ok = call(rr)
            assert ok == (want is not None)
            if ok:
                assert rr.tolist() == want


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("top", [127, 32767, 2**31 - 1])
def test_systems_at_the_narrow_types_limits(monkeypatch, no_flint, compiled, top):
    """Entries at the limits of int8, int16 and int32 (A stored as int8 or int32,
    sparse and dense), b at +-2**40: FLINT's answer without FLINT."""
    monkeypatch.setattr(D, "COMPILE_FROM", 0 if compiled else 10**9)
    rng = np.random.default_rng(top % 1000)
    d = 14
    for density in (0.1, 0.9):
        A = np.where(rng.random((d, d)) < density, rng.choice([-top - 1, top], size=(d, d)), 0)
        A[np.arange(d), np.arange(d)] = top
        b = rng.choice([-2**40, 2**40, 1], size=d)
        if _det(A.tolist()) % default_primes(1, D.LIFT_PRIME_BITS)[0] == 0:
            continue
        assert dixon_solve(A, b) == _flint(A.tolist(), b.tolist())
