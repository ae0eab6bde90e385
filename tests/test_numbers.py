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
from markone._checks import FloatRangeError
from markone._exact import exactly_float64, to_fraction
from markone._validation import check_matrix

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
    assert m.separable and m.lower >= 0 and "rounded to float64 once" in m.message


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
    a = verify.worst_order([[1e-200], [2e-200], [-1e-200]], [1, 1, 0])
    assert a.mistakes <= a.bound


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
