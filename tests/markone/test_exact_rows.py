"""One constructor of exact signed integer rows (issue 11): ``markone._internal.exact.
signed_integer_rows`` gives back exactly the rational rows ``y_i [x_i, c]``, and the
core's exact training, ``check_cycling`` and ``check_separable`` all build on it."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import markone
from markone._internal.exact import signed_integer_rows
from verify import check_cycling, check_separable
from verify._internal.exact import float_to_ints

LONG_BITS = np.finfo(np.longdouble).nmant   # 63 on x86-64, 52 where it is a double


@st.composite
def exact_cells(draw):
    """``(cell, value)``: a number in one of the accepted spellings and its exact
    rational value, known by construction (never parsed back)."""
    kind = draw(st.sampled_from(["int", "fraction", "decimal", "float64", "float32",
                                 "longdouble", "huge", "tiny"]))
    if kind == "int":
        v = draw(st.integers(-10**6, 10**6))
        return v, Fraction(v)
    if kind == "fraction":
        q = Fraction(draw(st.integers(-1000, 1000)), draw(st.integers(1, 1000)))
        return q, q
    if kind == "decimal":
        digits, places = draw(st.integers(-10**8, 10**8)), draw(st.integers(0, 12))
        text = f"{'-' if digits < 0 else ''}{abs(digits) // 10**places}." \
               f"{abs(digits) % 10**places:0{places}d}" if places else str(digits)
        return text, Fraction(digits, 10**places)
    if kind == "float64":
        m, e = draw(st.integers(-2**53, 2**53)), draw(st.integers(-1074, 960))
        return float(Fraction(m) * Fraction(2) ** e), Fraction(m) * Fraction(2) ** e
    if kind == "float32":
        m, e = draw(st.integers(-2**24, 2**24)), draw(st.integers(-140, 100))
        return np.float32(float(m) * 2.0**e), Fraction(m) * Fraction(2) ** e
    if kind == "longdouble":   # beyond float64: an integer plus 2**-k, k up to 60
        a, k = draw(st.integers(-7, 7)), draw(st.integers(1, min(60, LONG_BITS - 3)))
        return np.longdouble(a) + np.longdouble(2) ** -k, a + Fraction(1, 2**k)
    if kind == "huge":
        v = draw(st.integers(2**62, 2**200)) * draw(st.sampled_from([1, -1]))
        return v, Fraction(v)
    m, p = draw(st.integers(-9, 9)), draw(st.integers(300, 450))
    return f"{m}e-{p}", Fraction(m, 10**p)   # "3e-400": no float holds it


@st.composite
def exact_data(draw):
    n, d = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    cells = [[draw(exact_cells()) for _ in range(d)] for _ in range(n)]
    y = draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
    c = draw(st.sampled_from([None, 1, Fraction(1, 3), "0.5", 2.0**-30]))
    return ([[v for v, _ in r] for r in cells], [[q for _, q in r] for r in cells], y, c)


def oracle_rows(Q, y, c):
    """The rows ``y_i [x_i, c]`` in Fractions, from the construction's values."""
    tail = [] if c is None else [Fraction(c) if not isinstance(c, float) else
                                 Fraction(*c.as_integer_ratio())]
    return [[s * q for q in r + tail] for r, s in zip(Q, y)]


@given(exact_data())
def test_common_scale_gives_the_rational_rows_back_hypo(data):
    X, Q, y, c = data
    Z, scale = signed_integer_rows(X, y, intercept=c is not None,
                                   intercept_scale=1 if c is None else c)
    assert isinstance(scale, Fraction) and scale > 0
    assert Z.dtype in (np.int64, object)
    if Z.dtype == np.int64:
        assert np.abs(Z).max() < 2**62     # int64 only with headroom for updates
    assert all(type(v) in (int, np.int64) for v in Z.ravel().tolist())
    assert [[Fraction(int(v)) / scale for v in r] for r in Z.tolist()] == \
        oracle_rows(Q, y, c)


@given(exact_data())
def test_per_row_scales_give_the_rational_rows_back_hypo(data):
    X, Q, y, c = data
    Z, scales = signed_integer_rows(X, y, intercept=c is not None,
                                    intercept_scale=1 if c is None else c, per_row=True)
    assert all(s > 0 for s in scales)
    assert [[Fraction(v) / s for v in r] for r, s in zip(Z, scales)] == \
        oracle_rows(Q, y, c)
    assert all(type(v) is int for r in Z for v in r)


@given(st.lists(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=3,
                         max_size=3), min_size=1, max_size=5))
def test_per_row_float64_rows_are_exact_powers_of_two_hypo(rows):
    """The float64 road (certificates): each row times a power of two, smallest
    integers (an odd entry in every nonzero row)."""
    Z, scales = signed_integer_rows(np.array(rows), per_row=True)
    for r, zr, s in zip(rows, Z, scales):
        assert [Fraction(v) for v in r] == [Fraction(a) / s for a in zr]
        assert s.numerator == 1 or s.denominator == 1
        assert (s.numerator * s.denominator) & (s.numerator * s.denominator - 1) == 0
        assert not any(zr) or any(a % 2 for a in zr)
    ints, e = float_to_ints(np.array(rows[0]))
    assert [Fraction(v) for v in rows[0]] == [a * Fraction(2) ** e for a in ints]


BAD = [([["1", "x"], ["2", "3"]], "X[0, 1] 'x' is not a number"),
       ([[1, 2], [np.nan, 1]], "X[1, 0] is nan"),
       ([[1, True], [0, 1]], "X[0, 1] got a boolean")]


@pytest.mark.parametrize("X, message", BAD)
def test_the_core_cycling_and_separability_refuse_alike(X, message):
    """The same bad entry gets the same words from every caller of the constructor."""
    y = [1, -1]
    calls = [lambda: signed_integer_rows(X, y, intercept=True),
             lambda: markone.train(X, y, exact=True),
             lambda: check_cycling(X, y)]
    if not isinstance(X[0][0], float):   # float NaN: check_separable's float road
        calls.append(lambda: check_separable(np.array(X, dtype=object), y))
    for call in calls:
        with pytest.raises((ValueError, TypeError), match=message.replace("[", r"\[")):
            call()


def test_cycling_parses_its_constant_as_the_constant():
    """``check_cycling``'s constant goes through the constructor's ``intercept_scale``
    (it used to be appended to the data, and a bad one was blamed on a column of X)."""
    with pytest.raises(ValueError, match="intercept_scale 'abc' is not a number"):
        check_cycling([[1, 2], [3, 4]], [1, -1], intercept_scale="abc")


RATIONAL = [["1/3", "0.25"], ["-2/7", 1], [5, "-1e-30"], ["2/3", "3/5"]]
LABELS = [1, -1, -1, 1]


def test_exact_training_weights_are_sums_of_the_shared_rows():
    """An exact run's weights are the constructor's rows at its mistakes, summed, over
    the constructor's scale: the core trains on exactly these integers."""
    Z, scale = signed_integer_rows(RATIONAL, LABELS, intercept=True, intercept_scale="1/2")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        res = markone.train(RATIONAL, LABELS, exact=True, intercept_scale="1/2",
                            record=True, max_epochs=30)
    total = sum((Z[i].astype(object) for i in res.mistake_indices), np.zeros(3, object))
    assert list(res.w) == [Fraction(int(v)) / scale for v in total]


def test_cycling_states_step_by_the_shared_rows():
    """``check_cycling``'s integer states move by exactly the constructor's rows, and
    its ``scale`` is the constructor's."""
    X = [["1/2", 0], [0, "1/3"], ["-1/2", 0], [0, "-1/3"]]
    y = ["a", "b", "a", "b"]   # XOR-like: no separator through any constant
    rep = check_cycling(X, y, intercept_scale="1/5")
    Z, scale = signed_integer_rows(X, [-1, 1, -1, 1], intercept=True,
                                   intercept_scale="1/5")
    assert rep.scale == scale and rep.period_updates
    states = [np.array(s, dtype=object) for s in rep.cycle]
    for j, i in enumerate(rep.cycle_indices):
        step = states[(j + 1) % len(states)] - states[j]
        assert step.tolist() == Z[i].tolist()


@given(exact_data())
def test_the_trusted_checker_reads_the_same_rows_hypo(data):
    """``verify.certificate`` keeps its own standard-library reader (the small trusted
    checker imports no numpy, so it cannot share the constructor); on every input the
    two must read the same rational rows ``[x_i, 1]``."""
    from verify.certificate import exact_rows

    X, Q, _, _ = data
    ours, our_scales = signed_integer_rows(X, intercept=True, per_row=True)
    theirs, their_scales = exact_rows(X, intercept=True)
    assert [[Fraction(v) / s for v in r] for r, s in zip(ours, our_scales)] == \
        [[v * s for v in r] for r, s in zip(theirs, their_scales)] == \
        [r + [Fraction(1)] for r in Q]
