"""Numbers at the edges (issue 17): every finite number is taken exactly or refused.

Verdicts are compared with an exact oracle written here with Fractions only (no
markone code on its path), over magnitudes from 1e-300 to 1e300, every NumPy float
dtype, Fractions with huge numerators or denominators, and decimal strings; certified
margin intervals are checked against margins computed exactly.
"""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import markone
import verify
from markone._internal.checks import FloatRangeError
from markone._internal.exact import exactly_float64, to_fraction
from markone._internal.validation import check_matrix

# ------------------------------------------------------------------------------------
# the oracle: Fractions only


def _dot(a, b):
    return sum((p * q for p, q in zip(a, b)), Fraction(0))


def oracle_separable_2d(Z):
    """Exact: do the 2-D vectors ``Z`` lie in an open half-plane?

    The cone of valid ``w`` is an open angular interval bounded by perpendiculars of
    the ``z_i``; when it is narrower than pi the sum of its two boundary rays lies
    inside, when it is exactly pi the ``z_i`` are all one direction and ``z_0`` works.
    So trying every sum of two (signed) perpendiculars, and every ``z_i``, is complete.
    """
    perps = []
    for z in Z:
        perps.append((-z[1], z[0]))
        perps.append((z[1], -z[0]))
    cands = [tuple(a + b for a, b in zip(p, q)) for p, q in itertools.combinations(perps, 2)]
    cands += [tuple(z) for z in Z]
    return any(all(_dot(w, z) > 0 for z in Z) for w in cands)


def signed_rows(X, y, intercept):
    return [[v * t for v in r] + ([Fraction(t)] if intercept else []) for r, t in zip(X, y)]


# ------------------------------------------------------------------------------------
# strategies: small integer patterns at extreme scales, in every representation

KINDS = ("float64", "float32", "float16", "longdouble", "fraction", "string", "int")
EXP_RANGE = {"float64": (-1000, 1000), "float32": (-120, 100), "float16": (-12, 10),
             "longdouble": (-1000, 1000), "fraction": (-2000, 2000),
             "string": (-400, 400), "int": (0, 1400)}


@st.composite
def exact_problems(draw, d):
    """``(X in its representation, exact Fractions of X, y)`` with ``d`` features."""
    kind = draw(st.sampled_from(KINDS))
    n = draw(st.integers(1, 5))
    ints = draw(st.lists(st.lists(st.integers(-4, 4), min_size=d, max_size=d),
                         min_size=n, max_size=n))
    y = draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
    lo, hi = EXP_RANGE[kind]
    e = draw(st.integers(lo, hi))
    if kind in ("float64", "float32", "float16"):
        exact = [[Fraction(a) * Fraction(2) ** e for a in r] for r in ints]
        X = np.array([[float(v) for v in r] for r in exact]).astype(kind)
    elif kind == "longdouble":  # 64-bit mantissas: a tweak of 2**-60 float64 cannot hold
        tweak = draw(st.integers(-3, 3))
        exact = [[Fraction(a) * Fraction(2) ** e * (1 + Fraction(tweak * (i + 1), 2**60))
                  for a in r] for i, r in enumerate(ints)]
        X = np.array([[np.longdouble(a) * np.longdouble(2) ** e
                       * (1 + np.longdouble(tweak * (i + 1)) * np.longdouble(2) ** -60)
                       for a in r] for i, r in enumerate(ints)], dtype=np.longdouble)
    elif kind == "fraction":  # huge numerators or denominators
        base = draw(st.sampled_from([3, 10, 7]))
        exact = [[Fraction(a) * Fraction(base) ** (e // 3) for a in r] for r in ints]
        X = [[v for v in r] for r in exact]
    elif kind == "string":
        exact = [[Fraction(a) * Fraction(10) ** e for a in r] for r in ints]
        X = [[f"{a}e{e}" for a in r] for r in ints]
    else:  # Python ints beyond int64 and float64
        exact = [[Fraction(a * 10**e) for a in r] for r in ints]
        X = [[a * 10**e for a in r] for r in ints]
    if kind not in ("fraction", "string", "int"):
        # the test's own check that the array holds the exact values it claims
        assert [[Fraction(*v.as_integer_ratio()) for v in r] for r in X] == exact
    return kind, X, exact, y


@given(exact_problems(d=1))
def test_verdicts_equal_the_exact_oracle(problem):
    kind, X, exact, y = problem
    Z = signed_rows(exact, y, intercept=True)
    expected = oracle_separable_2d(Z)
    v = verify.check_separable(X, y, intercept=True)
    assert v.separable is expected, (kind, exact, y)
    assert verify.check_certificate(X, y, v)


@given(exact_problems(d=2))
def test_verdicts_without_intercept_equal_the_exact_oracle(problem):
    kind, X, exact, y = problem
    Z = signed_rows(exact, y, intercept=False)
    v = verify.check_separable(X, y, intercept=False)
    assert v.separable is oracle_separable_2d(Z), (kind, exact, y)
    assert verify.check_certificate(X, y, v)


def within(lo, g, hi):
    """``lo <= g <= hi`` exactly, for float bounds (possibly infinite)."""
    return (lo == -np.inf or Fraction(lo) <= g) and (hi == np.inf or g <= Fraction(hi))


def _exact_margin_1d(exact, y):
    """gamma of 1-D data through the origin: the best of u = +1 and u = -1."""
    z = [r[0] * t for r, t in zip(exact, y)]
    return max(min(z), min(-v for v in z))


def _exact_svm_1d(exact, y):
    """Half the gap between the two classes on a line (<= 0 when they overlap)."""
    pos = [r[0] for r, t in zip(exact, y) if t > 0]
    neg = [r[0] for r, t in zip(exact, y) if t < 0]
    return max(min(pos) - max(neg), min(neg) - max(pos)) / 2


@given(exact_problems(d=1))
def test_certified_margin_intervals_contain_the_exact_margin(problem):
    kind, X, exact, y = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = verify.max_margin(X, y, intercept=False)
    gamma = _exact_margin_1d(exact, y)
    assert m.separable is (gamma > 0)
    assert within(m.lower, gamma, m.upper), (kind, exact, y, m)
    if gamma > 0:
        assert within(m.lower, Fraction(m.gamma), m.upper)
        assert m.lower > 0 or gamma < 2**-1074  # below the smallest float: 0 is honest
    if len(set(y)) == 2:
        s = verify.max_margin(X, y, svm=True)
        g = _exact_svm_1d(exact, y)
        assert s.separable is (g > 0)
        assert within(s.lower, g, s.upper), (kind, exact, y, s)


@given(st.lists(st.lists(st.integers(-3, 3), min_size=2, max_size=2), min_size=1,
                max_size=4), st.lists(st.sampled_from([-1, 1]), min_size=4, max_size=4),
       st.integers(-1074, 1023))
def test_float_training_is_exact_or_says_float_cannot_carry_it(ints, labels, e):
    """Small integers times 2**e: float arithmetic is exact unless it under- or
    overflows, and then train says so (never a wrong run, an IndexError or a loop)."""
    y = labels[:len(ints)]
    with np.errstate(over="ignore", under="ignore"):
        X = np.ldexp(np.array(ints, dtype=float), e)
    if not np.all(np.ldexp(X, -e) == np.array(ints)):
        return  # the data themselves underflow: a different problem
    if not (np.abs(X).sum(axis=1) > 0).all():
        return  # zero rows without intercept are refused for their own reason
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = markone.train(ints, y, intercept=False, exact=True, max_epochs=60)
        try:
            res = markone.train(X, y, intercept=False, max_epochs=60)
        except FloatRangeError as exc:
            assert "exact=True" in str(exc)
            return
    assert (res.mistakes, res.converged) == (ref.mistakes, ref.converged)
    assert [Fraction(v) for v in res.w] == [v * Fraction(2) ** e for v in ref.w]


# ------------------------------------------------------------------------------------
# the cases of the issue, one by one


def _ld_pair():
    a = np.array([[1.0], [1.0]], dtype=np.longdouble)
    a[1, 0] += np.longdouble(2) ** -60
    return a


def test_longdouble_is_exact_or_refused():
    a = _ld_pair()
    if exactly_float64(a) is not None:  # pragma: no cover - no extended precision here
        pytest.skip("longdouble is float64 on this platform")
    assert to_fraction(a[1, 0]) == 1 + Fraction(1, 2**60)
    v = verify.check_separable(a, [0, 1])
    assert v.separable and verify.check_certificate(a, [0, 1], v)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = markone.train(a, [0, 1], exact=True, max_epochs=1).w
    assert w == (Fraction(1, 2**60), Fraction(0))   # -[1, 1] + [1 + 2**-60, 1]
    with pytest.raises(ValueError, match=r"X\[1, 0\] = 1.0000000000000000009.*exact=True"):
        markone.train(a, [0, 1])
    m = verify.max_margin(a, [0, 1], intercept=True)
    # float64 rounds the two rows to one point: the margin is found in exact rationals
    # (2**-61 / sqrt(2) for rows 2**-60 apart, the constant 1 beside them)
    assert m.separable and "found in exact rationals" in m.message
    assert m.lower <= 2**-61 / np.sqrt(2) <= m.upper and 0 < m.lower


def test_check_matrix_refuses_integers_that_float64_would_round():
    with pytest.raises(ValueError, match=r"X\[0, 1\] = 9007199254740993 \(int64\)"):
        check_matrix(np.array([[0, 2**53 + 1]]))
    assert check_matrix(np.array([[2**60]]))[0, 0] == 2.0**60  # a float64: fine


@pytest.mark.parametrize("value", ["1e-400", Fraction(1, 3**700), 10**400])
def test_exact_inputs_beyond_float64(value):
    X = [[value], [-value if not isinstance(value, str) else "-" + value]]
    v = verify.check_separable(X, [1, 0])
    assert v.separable and verify.check_certificate(X, [1, 0], v)
    v = verify.check_separable(X + X, [1, 0, 0, 1])
    assert v.separable is False and verify.check_certificate(X + X, [1, 0, 0, 1], v)
    m = verify.max_margin(X, [1, 0], intercept=False)
    g = to_fraction(value)
    assert within(m.lower, g, m.upper)


def test_exact_training_with_a_tiny_decimal_and_an_intercept():
    res = markone.train([["1e-20"], ["-1e-20"]], [1, 0], exact=True)
    assert res.w == (Fraction(2, 10**20), Fraction(0))


@pytest.mark.parametrize("x", [1e-200, 1e-160, 1e150, 1e300, 1.7e308])
def test_max_margin_at_extreme_magnitudes(x):
    m = verify.max_margin([[x]], [1], intercept=False)
    assert m.lower <= x <= m.upper and 0 < m.lower
    m = verify.max_margin([[x], [-x]], [1, 0], svm=True)
    assert m.lower <= x <= m.upper and np.isfinite(m.gamma)


def test_margin_beyond_float64_is_rounded_outward_and_said():
    m = verify.max_margin([["1e-400"]], [1], intercept=False)
    assert m.lower == 0.0 < m.upper and "outside float64's range" in m.message
    m = verify.max_margin([[10**400]], [1], intercept=False)
    assert m.lower == np.finfo(float).max and m.upper == float("inf")


def test_float_training_underflow_and_overflow_say_so():
    with pytest.raises(FloatRangeError, match="underflows.*exact=True"):
        markone.train([[1e-200, 0], [0, 1e-200]], [1, 0], intercept=False)
    with pytest.raises(FloatRangeError, match="overflowed.*exact=True"):
        markone.train([[1e308], [-1e308]], [1, 0])
    with pytest.raises(FloatRangeError, match="overflowed"):
        markone.train([[1e308, 1e308], [-1e308, 1e308]], [1, 0], variant="averaged")
    ok = markone.train([[1e-200, 0], [0, 1e-200]], [1, 0], intercept=False, exact=True)
    assert ok.converged


def test_bounds_at_tiny_magnitudes():
    r = verify.check_mistake_bound([[1e-200], [-1e-200]], [1, 0], intercept=False,
                                   exact=True)
    assert r.held and r.mistakes == (1,) and r.bound >= 1
    with pytest.raises(FloatRangeError):  # float training cannot carry it: said
        verify.check_mistake_bound([[1e-200, 0], [0, 1e-200]], [1, 0], intercept=False)
    # the greedy search never finishes here (the bound is infinite): a small budget
    # stops it as the default one did, 100x sooner (11 s of CPU; issue 37)
    a = verify.worst_order([[1e-200], [2e-200], [-1e-200]], [1, 1, 0], budget=1000)
    assert a.mistakes <= a.bound and a.stopped_by == "budget"


def test_search_budgets():
    c = verify.orthonormal_case(300)          # closed form: no least squares
    assert (c.mistakes, c.bound, c.R, c.complete) == (300, 300.0, 1.0, True)
    X = np.random.default_rng(0).integers(-3, 4, (20, 3))
    y = np.where(X @ [1, 2, -1] + 0.5 > 0, 1, -1)
    a = verify.worst_order(X, y, method="z3", timeout_s=0.5, budget=1000)
    assert not a.complete and a.mistakes <= a.bound


def test_mistake_bound_budget_with_a_huge_bound():
    # margin ~1e-12 relative: the bound is ~1e24, the runs are capped by max_epochs
    X = [[1.0, 0.0], [1.0, 1e-12]]
    r = verify.check_mistake_bound(X, [1, 0], max_epochs=50)
    assert r.held and r.bound > 1e20


# ------------------------------------------------------------------------------------
# every representation, mixed, through every public entry point: the exact answer or
# a refusal that names the first entry float64 cannot hold (never a silent rounding)

#: A problem's common scale: a power of two, of ten, a 700-digit denominator, or the
#: extra bits of a longdouble (1 + 2**-60); the data are small integers times it.
SCALES = ("pow2", "pow10", "third", "ld")


def fits_float64(q):
    """The oracle's own test: is the Fraction ``q`` exactly a float64?"""
    try:
        return Fraction(float(q)) == q
    except OverflowError:
        return False


def decimal_string(q):
    """``q`` as an exact decimal string (``"125e-3"``) when its denominator has only
    the prime factors 2 and 5, else None."""
    den, k2, k5 = q.denominator, 0, 0
    while den % 2 == 0:
        den, k2 = den // 2, k2 + 1
    while den % 5 == 0:
        den, k5 = den // 5, k5 + 1
    if den != 1:
        return None
    k = max(k2, k5)
    return f"{q.numerator * 10**k // q.denominator}e-{k}"


def binary_float(q, dtype):
    """``q`` as a NumPy scalar of ``dtype`` when that dtype holds it exactly."""
    if q == 0:
        return dtype(0)
    if q.denominator & (q.denominator - 1):  # not dyadic
        return None
    with np.errstate(all="ignore"):
        e = -(q.denominator.bit_length() - 1)
        v = np.ldexp(dtype(q.numerator), e) if abs(q.numerator) < 2**63 else None
    if v is None or not np.isfinite(v) or Fraction(*v.as_integer_ratio()) != q:
        return None
    return v


def _one_plus_2m60(a):
    v = np.longdouble(a) * (1 + np.longdouble(2) ** -60)
    return v if Fraction(*v.as_integer_ratio()) == Fraction(a) * (1 + Fraction(1, 2**60)) \
        else None


@st.composite
def entry(draw, q, scale_kind, a):
    """One number of exact value ``q`` (= a * scale) in a representation drawn from
    those that hold it exactly."""
    forms = {"fraction": lambda: q, "p/q": lambda: str(q)}
    if decimal_string(q) is not None:
        forms["decimal"] = lambda: decimal_string(q)
    if q.denominator == 1:
        forms["int"] = lambda: int(q)
    for dt in (np.float16, np.float32, np.float64, np.longdouble):
        v = binary_float(q, dt)
        if v is not None:
            forms[dt.__name__] = lambda v=v: v
    if scale_kind == "ld" and _one_plus_2m60(a) is not None:
        forms["longdouble+"] = lambda: _one_plus_2m60(a)
    if fits_float64(q):
        forms["float"] = lambda: float(q)
    return forms[draw(st.sampled_from(sorted(forms)))]()


@st.composite
def mixed_problems(draw, d, n_max=4, k=4):
    """``(X, exact, y, scale, dyadic)``: small integers times one scale, each entry in
    its own representation (a list of lists, or one NumPy array of a float dtype
    that holds every entry)."""
    n = draw(st.integers(1, n_max))
    ints = draw(st.lists(st.lists(st.integers(-k, k), min_size=d, max_size=d),
                         min_size=n, max_size=n))
    y = draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
    kind = draw(st.sampled_from(SCALES))
    if kind == "pow2":
        scale = Fraction(2) ** draw(st.integers(-1000, 1000))
    elif kind == "pow10":
        scale = Fraction(10) ** draw(st.integers(-400, 400))
    elif kind == "third":
        scale = Fraction(1, 3 ** draw(st.sampled_from([1, 5, 1470])))  # 1470: 702 digits
    else:
        scale = 1 + Fraction(1, 2**60)
    exact = [[a * scale for a in r] for r in ints]
    X = [[draw(entry(q, kind, a)) for q, a in zip(rq, ra)] for rq, ra in zip(exact, ints)]
    dtype = draw(st.sampled_from([None, np.float16, np.float32, np.float64, np.longdouble]))
    if dtype is not None:
        arr = [[binary_float(q, dtype) for q in r] for r in exact]
        if kind == "ld" and dtype is np.longdouble:
            arr = [[_one_plus_2m60(a) for a in r] for r in ints]
        if all(v is not None for r in arr for v in r):
            X = np.array(arr, dtype=dtype)
    # the test's own check that X holds the exact values it claims
    assert [[to_fraction(v) for v in r] for r in X] == exact
    return X, exact, y, scale, kind == "pow2"


def first_unfit(exact):
    """``"X[i, j]"`` of the first entry (row by row) that is not exactly a float64."""
    for i, r in enumerate(exact):
        for j, q in enumerate(r):
            if not fits_float64(q):
                return f"X[{i}, {j}]"
    return None


def oracle_train(exact, y, *, c=None, eta=1, max_epochs=50):
    """The perceptron in Fractions: ``(w, mistakes, epochs, converged)``."""
    rows = [list(r) + ([c] if c is not None else []) for r in exact]
    w = [Fraction(0)] * len(rows[0])
    total = 0
    for epoch in range(1, max_epochs + 1):
        made = 0
        for x, t in zip(rows, y):
            if t * _dot(w, x) <= 0:
                w = [a + eta * t * b for a, b in zip(w, x)]
                made += 1
        total += made
        if made == 0:
            return w, total, epoch, True
    return w, total, max_epochs, False


def oracle_longest_stream(Z):
    """The most mistakes any stream can force on signed rows ``Z`` (separable), by a
    memoised search over every reachable weight vector, in Fractions."""
    memo = {}

    def longest(w):
        if w not in memo:
            memo[w] = 0  # (no cycles on separable data)
            memo[w] = max([1 + longest(tuple(a + b for a, b in zip(w, z)))
                           for z in Z if _dot(w, z) <= 0], default=0)
        return memo[w]

    return longest(tuple(Fraction(0) for _ in Z[0]))


def refused_naming(exc, where):
    """A clear refusal: a ValueError naming the entry (or parameter) and exact mode."""
    return isinstance(exc, ValueError) and where in str(exc) and "exact" in str(exc)


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@given(mixed_problems(d=1))
def test_every_representation_gets_the_exact_verdict_and_margin(problem):
    X, exact, y, _, _ = problem
    v = verify.check_separable(X, y, intercept=True)
    assert v.separable is oracle_separable_2d(signed_rows(exact, y, True))
    assert verify.check_certificate(X, y, v)
    m = quiet(verify.max_margin, X, y, intercept=False)
    assert within(m.lower, _exact_margin_1d(exact, y), m.upper), (exact, y, m)


@given(mixed_problems(d=2), st.sampled_from([1, 2, "1/4", Fraction(3), "1/3", "0.1",
                                             2**53 + 1, "1e-400", np.float32(0.5),
                                             np.longdouble(1) + np.longdouble(2) ** -60]))
def test_every_representation_trains_exactly_or_is_refused_by_name(problem, eta):
    """``train(exact=True)`` equals the Fraction loop; float ``train`` and
    ``Perceptron().fit`` equal it too (power-of-two scales: exact float arithmetic)
    or refuse, naming the first entry float64 cannot hold, or ``eta``."""
    X, exact, y, scale, dyadic = problem
    q_eta = to_fraction(eta)
    w, mistakes, epochs, converged = oracle_train(exact, y, c=scale, eta=q_eta)
    kw = dict(intercept_scale=scale, eta=eta, max_epochs=50)
    res = quiet(markone.train, X, y, exact=True, **kw)
    assert (list(res.w), res.mistakes, res.epochs, res.converged) == \
        (w, mistakes, epochs, converged)
    where = first_unfit(exact) or ("intercept_scale" if not fits_float64(scale) else
                                   "eta" if not fits_float64(q_eta) else None)
    fits = [lambda: quiet(markone.train, X, y, **kw).w]
    if len(set(y)) == 2:  # (a classifier needs two classes)
        fits.append(lambda: quiet(markone.Perceptron(**kw).fit, X, y).w_)
    for fit in fits:
        try:
            got = fit()
        except FloatRangeError:
            assert where is None  # float64 cannot carry the run: said, exact=True fixes
            continue
        except ValueError as exc:
            assert where is not None and refused_naming(exc, where), (exc, where)
            continue
        assert where is None, f"{where} was rounded silently"
        if dyadic and q_eta.denominator & (q_eta.denominator - 1) == 0:
            assert [Fraction(v) for v in got] == w


@given(mixed_problems(d=2, n_max=3, k=2))
def test_every_representation_adversary_is_exact(problem):
    """``worst_order`` keeps the data exactly (``AdversarialOrder.X``), its stream is
    the longest any order can force (exhaustive), its ``w`` is the exact re-run, and
    the case file written from it reads back to the same numbers."""
    import json

    from markone._internal.io import to_jsonable
    from verify.cli.adversary import case_document
    from verify.conformance.protocol import from_legacy_case

    X, exact, y, _, _ = problem
    Z = signed_rows(exact, y, intercept=False)
    if any(all(v == 0 for v in z) for z in Z) or not oracle_separable_2d(Z):
        with pytest.raises(ValueError):
            verify.worst_order(X, y, intercept=False, method="exhaustive")
        return
    a = verify.worst_order(X, y, intercept=False, method="exhaustive")
    assert [[Fraction(v) for v in r] for r in a.X] == exact
    assert isinstance(a.X, np.ndarray) is (first_unfit(exact) is None)
    assert a.mistakes == oracle_longest_stream(Z) and a.complete
    w = [Fraction(0)] * 2
    for i in a.order:
        assert _dot(w, Z[i]) <= 0  # every presentation of the stream is a mistake
        w = [p + q for p, q in zip(w, Z[i])]
    assert [Fraction(v) for v in a.w] == w
    case = from_legacy_case(json.loads(json.dumps(to_jsonable(case_document(a, "t")))))
    rows = case["problem"].get("X_exact") or case["problem"]["X"]
    assert [[Fraction(v) for v in r] for r in rows] == exact
    assert [Fraction(v) for v in case["expected"]["w"]] == w
    where = first_unfit(exact)
    try:
        g = verify.worst_order(X, y, intercept=False, method="greedy")
    except ValueError as exc:
        assert where is not None and refused_naming(exc, where), (exc, where)
    else:
        assert where is None and g.mistakes <= a.mistakes
    # exact=True: any representation; the stream found is counted exactly
    g = verify.worst_order(X, y, intercept=False, method="greedy", exact=True)
    assert [[Fraction(v) for v in r] for r in g.X] == exact and g.mistakes <= a.mistakes
    w = [Fraction(0)] * 2
    for i in g.order:
        assert _dot(w, Z[i]) <= 0
        w = [p + q for p, q in zip(w, Z[i])]
    assert [Fraction(v) for v in g.w] == w and g.mistakes == len(g.order)


@given(mixed_problems(d=2, n_max=3, k=2))
def test_every_representation_checks_the_mistake_bound_exactly(problem):
    X, exact, y, _, dyadic = problem
    Z = signed_rows(exact, y, intercept=False)
    if any(all(v == 0 for v in z) for z in Z) or not oracle_separable_2d(Z):
        return  # no bound applies (refused for that reason, tested elsewhere)
    _, mistakes, _, converged = oracle_train(exact, y, max_epochs=10**4)
    assert converged
    r = verify.check_mistake_bound(X, y, intercept=False, exact=True)
    assert r.held and r.mistakes == (mistakes,)
    where = first_unfit(exact)
    try:
        f = verify.check_mistake_bound(X, y, intercept=False)
    except FloatRangeError:
        assert where is None
    except ValueError as exc:
        assert where is not None and refused_naming(exc, where), (exc, where)
    else:
        assert where is None and f.held and (not dyadic or f.mistakes == (mistakes,))


#: Decimal strings of any size, as a table's cells hold them.
CELLS = st.one_of(
    st.builds(lambda a, e: f"{a}e{e}", st.integers(-9, 9), st.integers(-400, 400)),
    st.builds(lambda a, k: str(Fraction(a, 3**k)), st.integers(-9, 9),
              st.sampled_from([0, 1, 1470])),
    st.sampled_from(["1e-400", "-1e-400", "123456789012345678901234567890", "0.1",
                     "-0.375", "1/3", str(2**53 + 1), str(2**60)]),
    st.integers(-4, 4).map(str))


@given(st.lists(st.tuples(CELLS, st.sampled_from(["a", "b"])), min_size=1, max_size=4))
def test_tables_and_commands_never_round_a_cell(rows):
    """``load_table`` keeps every cell's value; ``exact=False`` refuses the first cell
    float64 cannot hold, by line and column; ``markone train`` writes the exact
    weights to its --json file (choosing exact arithmetic by itself) and prints them
    as ``fraction_shown`` shows them, and ``verify separable`` gives the exact
    verdict, through the command line's own entry point."""
    import contextlib
    import io
    import json
    import os
    import tempfile

    from markone._internal.exact import fraction_shown

    from markone.cli import main
    from markone.datasets import load_table

    exact = [[Fraction(c)] for c, _ in rows]
    y = [1 if t == "b" else -1 for _, t in rows]
    unfit = [i for i, r in enumerate(exact) if not fits_float64(r[0])]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.csv")
        with open(path, "w") as fh:
            fh.write("x,label\n" + "".join(f"{c},{t}\n" for c, t in rows))
        X, labels = load_table(path)
        assert [[Fraction(v) for v in r] for r in X] == exact
        assert (X.dtype == np.float64) is not unfit and labels.tolist() == [t for _, t in rows]
        if unfit:
            with pytest.raises(ValueError, match=f"line {unfit[0] + 2}, column 1 \\(x\\): "
                               f"'{rows[unfit[0]][0]}'"):
                load_table(path, exact=False)
        out, saved = io.StringIO(), os.path.join(tmp, "run.json")
        with contextlib.redirect_stdout(out):
            status = main(["train", path, "--max-epochs", "50", "--json", saved])
        w, _, _, converged = oracle_train(exact, y, c=Fraction(1), max_epochs=50)
        if len(set(y)) == 2:  # (one class: the labels map to -1 or +1 by name)
            text = out.getvalue()
            printed = [ln.split(": ", 1)[1] for ln in text.splitlines()
                       if ln.startswith(("coef: ", "intercept: "))]
            with open(saved) as fh:
                written = [Fraction(v) for v in json.load(fh)["w"]]
            if unfit:
                assert ", ".join(printed) == ", ".join(map(fraction_shown, w)), text
            if unfit or all(q.denominator == 1 and abs(q) <= 2**20 for r in exact
                            for q in r):  # (small integers: float arithmetic is exact)
                assert written == w, text
            assert status == (0 if converged else 1)
            assert ("exact arithmetic" in text) is bool(unfit)
        else:
            assert status == 2  # one class of names: refused (no -1/+1 to map to)
        with contextlib.redirect_stdout(io.StringIO()):
            status = main(["verify", "separable", path])
        assert status == (2 if len(set(y)) == 1 else
                          0 if oracle_separable_2d(signed_rows(exact, y, True)) else 1)


# ------------------------------------------------------------------------------------
# every command that reads a table: exact, or one line naming the cell (exit 2)

TABLE_COMMANDS = (["train"], ["verify", "separable"], ["verify", "margin"],
                  ["verify", "bound"], ["verify", "cycling"], ["adversary", "greedy"],
                  ["adversary", "exhaustive"], ["adversary", "z3"])


def _run(argv, tmp_path, capsys):
    from markone.cli import main

    if argv[0] == "adversary":
        argv = argv + ["--out", str(tmp_path / "case.json")]
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("command", TABLE_COMMANDS, ids=" ".join)
def test_a_division_by_zero_cell_is_a_clean_error_in_every_command(command, tmp_path,
                                                                   capsys):
    path = tmp_path / "z.csv"
    path.write_text("x1,x2,label\n1,2,a\n3,1/0,b\n")
    status, out, err = _run(command + [str(path)], tmp_path, capsys)
    assert status == 2 and out == ""
    assert err.strip().endswith(f"{path}, line 3, column 2 (x2): '1/0' divides by zero.")
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "case.json").exists()


@pytest.mark.parametrize("command", TABLE_COMMANDS, ids=" ".join)
def test_every_command_computes_exactly_on_cells_float64_cannot_hold(command, tmp_path,
                                                                    capsys):
    """Cells ``1e-400`` and ``1e-401`` (below float64's range, and tenths of the
    unit): the answer of the same table scaled by 10**401 (a common positive factor
    changes no decision without an intercept); the greedy search, which ranks in
    float64, first refuses in one line naming the file, line, column and cell, its
    --exact and the exact commands, then, with --exact, computes that answer exactly."""
    import json

    tiny, ints = tmp_path / "tiny.csv", tmp_path / "ints.csv"
    tiny.write_text("x1,x2,label\n1e-400,1e-401,a\n-3e-400,1e-401,b\n2e-400,-1e-401,b\n")
    ints.write_text("x1,x2,label\n10,1,a\n-30,1,b\n20,-1,b\n")
    argv = command + ["--no-intercept"]
    if command == ["train"]:
        argv += ["--json", str(tmp_path / "run.json")]
    status, out, err = _run(argv + [str(tiny)], tmp_path, capsys)
    if command == ["adversary", "greedy"]:
        assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
        assert f"{tiny}, line 2, column 1 (x1): '1e-400' underflows float64 to 0; " in err
        assert "markone adversary exhaustive" in err and "pass --exact" in err
        argv += ["--exact"]
        status, out, err = _run(argv + [str(tiny)], tmp_path, capsys)
    assert status in (0, 1, 4) and err == "", err   # 4: z3's query budget, as on `ints`
    case = json.loads((tmp_path / "case.json").read_text()) if argv[0] == "adversary" \
        else None
    run = json.loads((tmp_path / "run.json").read_text()) if argv[0] == "train" else None
    ref_status, ref_out, _ = _run(argv + [str(ints)], tmp_path, capsys)
    assert status == ref_status
    if run is not None:
        assert "trained in exact arithmetic (as with --exact)" in out
        ref = json.loads((tmp_path / "run.json").read_text())
        assert [Fraction(v) for v in run["w"]] == [Fraction(v) / 10**401 for v in ref["w"]]
        assert out.split("coef: ")[1].split("\n")[0] == "-10**-400, -201 * 10**-401"
    elif command == ["verify", "bound"]:
        assert "the runs are exact" in out and "held: True" in out
    if case is not None:
        ref_case = json.loads((tmp_path / "case.json").read_text())
        assert case["expected_mistakes"] == ref_case["expected_mistakes"]  # (any stream)
        assert [[Fraction(v) for v in r] for r in case["X"]] == \
            [[Fraction(v) / 10**401 for v in r] for r in ref_case["X"]]


def test_train_rounds_a_weight_too_long_to_read_and_writes_it_exactly(tmp_path, capsys):
    """Weights of 40 digits are printed 'about' their six significant digits, with a
    note naming where they are exact (the --json file, or the flag when none was
    asked for); the exact weights are in that file."""
    import json

    path, saved = tmp_path / "long.csv", tmp_path / "run.json"
    path.write_text(f"x1,x2,label\n1/{3**40},2,b\n3,1/{7**20},a\n")
    w = [Fraction(1, 3**40) - 3, 2 - Fraction(1, 7**20)]   # two mistakes, then none
    status, out, err = _run(["train", "--no-intercept", str(path)], tmp_path, capsys)
    assert status == 0 and err == ""
    assert "\ncoef: about -3, about 2\nintercept: 0\nnote: a weight too long to read is " \
        "shown rounded to 6 significant digits ('about ...'); --json OUT writes every " \
        "weight exactly.\n" in out
    status, out, err = _run(["train", "--no-intercept", str(path), "--json", str(saved)],
                            tmp_path, capsys)
    assert status == 0 and f"; {saved} holds every weight exactly.\n" in out
    assert [Fraction(v) for v in json.loads(saved.read_text())["w"]] == w


# ------------------------------------------------------------------------------------
# eta and intercept_scale in every float learner: exactly, or refused by name

UNFIT_PARAMETERS = [Fraction(1, 3), "0.1", 2**53 + 1, "1e-400", 10**400,
                    np.longdouble(1) + np.longdouble(2) ** -60]
FIT_PARAMETERS = [Fraction(1, 4), "1/2", 2**60, np.float16(0.1), np.float32(3.5),
                  np.longdouble(0.75), "3"]
_AND = ([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, -1, -1, 1])


def _float_learners(**kw):
    """Every float learner that takes the parameters ``kw``, as ``f() -> weights``."""
    from markone.batch import train_many

    X, y = _AND
    out = {"train": lambda: markone.train(X, y, **kw).w,
           "Perceptron": lambda: markone.Perceptron(**kw).fit(X, y).w_,
           "MulticlassPerceptron": lambda: markone.MulticlassPerceptron(**kw).fit(
               X, [0, 0, 1, 2]).coef_,
           "train_many": lambda: train_many([X], [y], **kw).w[0]}
    if "eta" not in kw:
        out["KernelPerceptron"] = lambda: markone.KernelPerceptron(**kw).fit(X, y).alpha_
    return out


@pytest.mark.parametrize("name", ["eta", "intercept_scale"])
@pytest.mark.parametrize("value", UNFIT_PARAMETERS, ids=repr)
def test_float_learners_refuse_a_parameter_float64_cannot_hold(name, value):
    for learner, fit in _float_learners(**{name: value}).items():
        with pytest.raises(ValueError, match=f"^{name}=.* (is not exactly a float64|"
                           "underflows float64|is beyond float64's range).*exact=True"):
            quiet(fit)
    exact = quiet(markone.train, *_AND, exact=True, **{name: value})  # exact mode: exact
    plain = quiet(markone.train, *_AND, exact=True)
    if name == "eta":  # from a zero start eta scales the weights and changes no decision
        assert exact.w == tuple(to_fraction(value) * v for v in plain.w)
        assert exact.mistakes_per_epoch == plain.mistakes_per_epoch


@pytest.mark.parametrize("value", FIT_PARAMETERS, ids=repr)
def test_float_learners_take_a_parameter_float64_holds_exactly(value):
    """Exactly: with a zero start ``eta`` scales the weights by exactly its value."""
    plain = _float_learners()
    for learner, fit in _float_learners(eta=value).items():
        got, ref = quiet(fit), quiet(plain[learner])
        assert [Fraction(v) for v in np.ravel(got)] == \
            [to_fraction(value) * Fraction(v) for v in np.ravel(ref)], learner
    for learner, fit in _float_learners(intercept_scale=value).items():
        quiet(fit)  # taken (an exact float64 constant)


def test_the_estimators_one_example_at_a_time_take_numbers_exactly_or_refuse():
    clf = markone.Perceptron().fit([["1/2", 0], [0, Fraction(-3, 4)]], [1, -1])
    assert clf.w_.tolist() == [0.5, 0.75, 0.0]
    clf.learn_one(["1/4", np.float16(0.5)], 1).partial_fit([[np.float32(0.25), 1]], [1])
    assert clf.predict_one(["1/2", "0"]) == 1
    for bad, where in [(["0.1", 0], r"x\[0, 0\] = '0.1'"),
                       ([0, 2**53 + 1], r"x\[0, 1\] = 9007199254740993")]:
        with pytest.raises(ValueError, match=where + ".*exact=True"):
            clf.learn_one(bad, 1)
        with pytest.raises(ValueError, match=where.replace("x", "X") + ".*exact=True"):
            clf.predict([bad])


@pytest.mark.parametrize("variant", ["last", "averaged", "voted", "pocket"])
def test_a_score_of_minus_inf_judged_right_is_refused_in_every_variant(variant):
    # X[1]'s score is -inf (both terms -inf, never nan), which a run judges "right": a
    # converged run whose decisions float64 overflow made, refused on the pass that
    # converges whatever the compiler makes of the sum (it was returned as converged,
    # with averaged weights of inf, when the range was checked only after mistakes)
    with pytest.raises(FloatRangeError, match="overflowed.*exact=True"):
        markone.train([[1e308, 1e308], [-1e308, -1e308]], [1, 0], variant=variant)


@pytest.mark.parametrize("variant", ["averaged", "voted"])
@pytest.mark.parametrize("eta", [1e308, 1.7e308])
def test_an_average_of_weights_in_range_is_in_range(variant, eta):
    # (T + 1) w - acc and count * w overflow, the average (here w itself) does not:
    # the same formula in exact rationals, rounded once, without a RuntimeWarning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = markone.train([[1.0], [-1.0]], [1, 0], eta=eta, intercept=False,
                          variant=variant)
    assert r.converged and r.w.tolist() == r.last_w.tolist() == [eta]
