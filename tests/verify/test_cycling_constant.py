"""verify.cycling_constant: Coq's cycling_K and proj_C in exact arithmetic.

Coq's vm_compute does not evaluate cycling_K (mathcomp's matrices are locked), so the
values are checked against hand computations from the Coq definitions and against the
inequalities the Coq theorems prove."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.cycling_constant import (cycling_constant, cycling_constant_digits,
                                     cycling_radius, proj_constant)


def test_one_example_by_hand():
    """Z = [z] in dimension one: the empty subset's constant is 0, span_C Z =
    proj_C [z] = 2/z^2, R2 = z^2, reach 0 = 1, drift 0 = 4 z^2 + 1,
    A_1 = z^2 + 2 drift 0 = 9 z^2 + 2, Q0 = 2 (2/z^2) A_1^2 + 2 z^2."""
    for z in (1, 2, 3, Fraction(1, 2)):
        level = 9 * Fraction(z) ** 2 + 2
        assert cycling_constant([[z]]) == 4 * level ** 2 / z ** 2 + 2 * z ** 2
    assert cycling_radius([[1]]) == 487


def test_gram_schmidt_constant_by_hand():
    # [1, 1] after [0, 1]: residue r = [1, 0], proj z = [0, 1], proj_C [[0, 1]] = 2
    assert proj_constant([[1, 1], [0, 1]]) == (2 * (1 + 2 * 1) + 2) / 1
    # a repeated vector adds no direction
    assert proj_constant([[3, 0], [3, 0]]) == proj_constant([[3, 0]]) == Fraction(2, 9)


rows = st.lists(st.lists(st.integers(-3, 3), min_size=2, max_size=2),
                min_size=1, max_size=3)


@settings(max_examples=40, deadline=None)
@given(rows, st.lists(st.integers(-5, 5), min_size=2, max_size=2))
def test_proj_constant_bounds_the_projection(N, x):
    """Span.v's proj_bound: ||proj N x||^2 <= proj_C N * sum (x.z)^2, exactly."""
    A = np.array(N, dtype=object)
    basis = [np.array(z, dtype=object) for z in N]
    # the projection by an independent Gram-Schmidt, first vector first, exactly
    ortho = []
    for z in basis:
        r = z - sum((Fraction(z @ q) / (q @ q) * q for q in ortho), 0 * z)
        if any(r):
            ortho.append(r)
    xv = np.array(x, dtype=object)
    p = sum((Fraction(xv @ q) / (q @ q) * q for q in ortho), 0 * xv)
    lhs = sum(a * a for a in p)
    rhs = proj_constant(N) * sum(int(xv @ z) ** 2 for z in A)
    assert lhs <= rhs


@settings(max_examples=15, deadline=None)
@given(rows, st.lists(st.integers(0, 2), max_size=30))
def test_every_run_stays_below_the_constant(Z, order):
    """BlockLevin.v's cycling_theorem: from zero, ||w_t||^2 <= cycling_K Z."""
    K = cycling_constant(Z)
    w = np.zeros(2, dtype=object)
    for i in order:
        z = np.array(Z[i % len(Z)], dtype=object)
        if w @ z <= 0:
            w = w + z
        assert w @ w <= K


def test_digits_and_xor_prefix():
    assert cycling_constant_digits([[1]]) == 3
    for Z in ([[1, 1, -1]], [[1, 1, -1], [-1, 1, 1]], [[1, 0], [3, 1]]):
        value = cycling_constant(Z)
        assert cycling_constant_digits(Z) == len(str(value.numerator // value.denominator))
    assert cycling_constant_digits([[1, 1, -1], [-1, 1, 1], [1, -1, 1]]) == 4915


def test_ragged_rows_are_refused():
    with pytest.raises(ValueError, match="different lengths"):
        cycling_constant([[1], [1, 2]])


def test_more_examples_than_can_be_computed_are_refused_at_once():
    # five examples would need billions of digits: refused before any work, naming
    # the limit and the command that finds a cycle instead
    with pytest.raises(ValueError, match=r"5 examples: .* at most 4 .*check_cycling"):
        cycling_constant([[1], [2], [3], [4], [5]])
