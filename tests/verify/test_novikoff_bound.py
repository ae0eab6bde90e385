"""Novikoff's ``(R / gamma)**2``: one definition, rounded up, used by every caller (#40).

The bound is the smallest float64 not below the exact quotient of the numbers given;
before, three callers rounded to nearest and could land an ulp below the theorem.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from verify import check_mistake_bound
from verify._internal.novikoff import float_up, novikoff_bound, novikoff_exact, novikoff_mistakes
from verify.adversary import novikoff_terms
from verify.bounds import intercept_cost
from verify.strategies import SeparableSet

positive = st.floats(min_value=5e-324, max_value=1e300, allow_nan=False,
                     allow_infinity=False)
rationals = st.fractions(min_value=Fraction(1, 10**6), max_value=10**6)


def is_float_ceiling(got, exact):
    """``got`` is the smallest float64 at least ``exact`` (inf past the largest)."""
    if math.isinf(got):
        return exact > Fraction(np.finfo(np.float64).max)
    return Fraction(got) >= exact and Fraction(math.nextafter(got, -math.inf)) < exact


@given(positive, positive)
def test_the_bound_of_floats_is_the_float_ceiling_of_the_exact_quotient(R, gamma):
    exact = (Fraction(R) / Fraction(gamma)) ** 2
    assert novikoff_exact(R, gamma) == exact
    assert is_float_ceiling(novikoff_bound(R, gamma), exact)


@given(rationals, rationals)
def test_exact_inputs_are_taken_exactly(R, gamma):
    assert is_float_ceiling(novikoff_bound(R, gamma), (R / gamma) ** 2)


@given(st.integers(0, 10**9), rationals)
def test_the_mistake_count_is_the_floor_of_the_exact_bound(R_sq, gamma):
    assert novikoff_mistakes(R_sq, gamma) == math.floor(Fraction(R_sq) / gamma ** 2)


@given(st.floats(allow_nan=False), st.floats(max_value=0.0, allow_nan=False))
def test_no_margin_no_bound(R, gamma):
    assert novikoff_exact(abs(R), gamma) is None
    assert novikoff_bound(abs(R), gamma) == math.inf


def test_edges():
    assert novikoff_bound(math.inf, 1.0) == math.inf
    assert novikoff_bound(1.0, math.inf) == 0.0
    assert novikoff_bound(1e300, 1e-300) == math.inf
    assert novikoff_bound(np.float32(0.5), np.int64(2)) == 0.0625
    assert float_up(None) == math.inf
    assert float_up(Fraction(-(10**400))) == -np.finfo(np.float64).max


def test_a_given_gamma_is_not_rounded_below_the_theorem():
    # (x / g)**2 in floats rounds to nearest, here an ulp below the exact quotient
    x, g = 8.449323344383977, 0.4682792227322452
    assert float(np.square(x / g)) < (Fraction(x) / Fraction(g)) ** 2
    r = check_mistake_bound([[x], [-x]], [1, -1], gamma=g, intercept=False)
    assert is_float_ceiling(r.bound, (Fraction(x) / Fraction(g)) ** 2)


def test_intercept_cost_says_novikoffs_bound_without_intercept_rounded_up():
    r = intercept_cost(R=3.0, b=0.0, gamma=0.7)
    assert is_float_ceiling(r.bound_no_b, (Fraction(3.0) / Fraction(0.7)) ** 2)


def test_the_terms_of_data_use_the_one_bound():
    R, gamma, bound = novikoff_terms([[1.0, 2.0], [-3.0, 0.5]], [1, -1], intercept=True)
    assert bound == novikoff_bound(R, gamma)


def test_a_strategys_bound_is_exact_then_rounded_up():
    s = SeparableSet(X=[[1, 2], [-3, 1]], y=[1, -1], u=[1, 1], min_score=2)
    # R**2 = 10, margin**2 = 4 / 2: (R / margin)**2 = 5 exactly
    assert s.bound == 5.0
    s = SeparableSet(X=[[1, 1]], y=[1], u=[1, 2], min_score=3)
    assert is_float_ceiling(s.bound, Fraction(2 * 5, 9))
