"""Tests of verify.margin: certified max margins against exact values and brute force."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from markone import datasets
from verify import check_certificate, check_separable, max_margin
from verify.margin import min_norm_point


def _signed(X, y, intercept):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    Z = X * y[:, None]
    return np.hstack([Z, y[:, None].astype(float)]) if intercept else Z


def brute_force_distance(Z):
    """Distance from the origin to conv(rows of Z), by enumerating faces.

    The nearest point lies in the relative interior of a face spanned by at most
    dim + 1 affinely independent rows; for each subset, solve the affine problem and
    keep it when its convex weights are >= 0. Valid when the origin is outside.
    """
    best = np.inf
    k_max = min(len(Z), Z.shape[1] + 1)
    for k in range(1, k_max + 1):
        for S in itertools.combinations(range(len(Z)), k):
            P = Z[list(S)]
            G = P @ P.T
            A = np.block([[2 * G, np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
            rhs = np.zeros(k + 1)
            rhs[-1] = 1
            try:
                sol = np.linalg.solve(A, rhs)
            except np.linalg.LinAlgError:
                continue
            lam = sol[:k]
            if (lam >= -1e-12).all():
                best = min(best, float(np.linalg.norm(lam @ P)))
    return best


def test_and_margin_is_one_over_sqrt17():
    X, y = [[0, 0], [0, 1], [1, 0], [1, 1]], [-1, -1, -1, 1]
    m = max_margin(X, y)
    exact = 17 ** -0.5
    assert m.separable and m.lower <= exact <= m.upper
    assert m.gap <= 1e-12
    np.testing.assert_allclose(m.u * 17**0.5, [2, 2, -3], atol=1e-9)
    assert m.R == pytest.approx(3**0.5) and m.bound == pytest.approx(51)
    assert m.offset == m.u[-1]


@pytest.mark.parametrize("m_", [1, 3, 10])
def test_orthonormal_margin_and_bound_are_exact(m_):
    X, y = datasets.orthonormal(m_)
    m = max_margin(X, y, intercept=False)
    assert m.lower <= m_**-0.5 <= m.upper
    assert m.R == 1.0 and m.bound == pytest.approx(m_, rel=1e-9)
    assert sorted(m.support) == list(range(m_))


@pytest.mark.parametrize("scale", [1e12, 1e-12])
def test_margin_scales_with_data(scale):
    X, y = datasets.orthonormal(4)
    m = max_margin(X * scale, y, intercept=False)
    assert m.lower <= scale / 2 <= m.upper
    assert m.gap <= 1e-12


def test_xor_not_separable_with_certificate():
    X, y = [[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1]
    m = max_margin(X, y)
    assert not m.separable and m.gamma == 0.0 and m.upper == 0.0 and m.lower <= 0
    assert m.bound == np.inf
    assert check_certificate(X, y, check_separable(X, y)) and m.certificate
    assert "not separable" in m.message


def test_lower_and_upper_are_rigorous_in_exact_arithmetic():
    X, y, _ = datasets.separable(300, 5, 0.05, seed=1)
    m = max_margin(X, y)
    Z = _signed(X, y, True)
    u = [Fraction(v) for v in m.u]
    uu = sum(v * v for v in u)
    worst = min(sum(Fraction(a) * b for a, b in zip(z, u)) for z in Z)
    lower = Fraction(m.lower)
    assert worst > 0 and worst * worst >= lower * lower * uu  # min z.u/||u|| >= lower
    lam = [Fraction(v) for v in m.weights]
    p = [sum(lk * Fraction(Z[i][j]) for lk, i in zip(lam, m.support)) / sum(lam)
         for j in range(Z.shape[1])]
    assert sum(v * v for v in p) <= Fraction(m.upper) ** 2  # a hull point within upper


def test_relative_gap_within_1e9_on_random_data():
    X, y, _ = datasets.separable(2000, 20, 0.02, seed=2)
    for intercept in (True, False):
        m = max_margin(X, y, intercept=intercept)
        assert m.separable and (m.upper - m.lower) <= 1e-9 * m.upper
        assert m.gamma >= 0.02 if not intercept else m.gamma > 0


def test_one_class_and_svm_errors():
    m = max_margin([[1.0, 2.0], [2.0, 1.0]], [1, 1])
    assert m.separable and m.gamma > 0
    with pytest.raises(ValueError, match="both classes"):
        max_margin([[1.0, 2.0], [2.0, 1.0]], [1, 1], svm=True)
    with pytest.raises(ValueError, match="NaN"):
        max_margin([[np.nan, 1.0], [2.0, 1.0]], [0, 1])
    with pytest.raises(ValueError, match="rtol"):
        max_margin([[0.0], [1.0]], [0, 1], rtol=0)
    with pytest.raises(ValueError, match="not a number"):
        max_margin([["1/3"], ["one"]], [0, 1])
    m = max_margin([["1/3"], ["1"]], [0, 1], svm=True)  # exact input: rounded once
    assert Fraction(m.lower) <= Fraction(1, 3) <= Fraction(m.upper)


def test_svm_without_intercept_is_refused_not_ignored(capsys):
    # `verify margin --svm --no-intercept` printed "SVM margin (free intercept)": the
    # flag was dropped in silence (#37)
    from markone.cli import main

    with pytest.raises(ValueError, match="svm=True .* intercept=False does not apply"):
        max_margin([[0.0], [4.0]], [0, 1], svm=True, intercept=False)
    assert main(["verify", "margin", "xor:01", "--svm", "--no-intercept"]) == 2
    assert capsys.readouterr().err.endswith(
        "error: --svm is the hard-margin SVM's margin, whose intercept is free; "
        "--no-intercept does not apply to it: drop one of the two.\n")


def test_svm_margin_of_known_sets():
    m = max_margin([[0.0, 0.0], [4.0, 0.0], [4.0, 3.0]], [0, 1, 1], svm=True)
    assert m.lower <= 2.0 <= m.upper and m.gap <= 1e-12
    np.testing.assert_allclose(m.u, [1.0, 0.0], atol=1e-12)
    assert m.offset == pytest.approx(-2.0)
    m = max_margin(*datasets.xor(), svm=True)
    assert not m.separable and m.certificate


def _segment_distance(a, b, c, d):
    """Distance between segments ab and cd in the plane (0 when they cross)."""
    def point_seg(p, q, r):
        qr = r - q
        t = 0.0 if not qr.any() else np.clip((p - q) @ qr / (qr @ qr), 0, 1)
        return float(np.linalg.norm(p - (q + t * qr)))

    def cross(o, p, q):
        return (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0])

    if (cross(a, b, c) * cross(a, b, d) < 0) and (cross(c, d, a) * cross(c, d, b) < 0):
        return 0.0
    return min(point_seg(a, c, d), point_seg(b, c, d), point_seg(c, a, b),
               point_seg(d, a, b))


coords = st.integers(-6, 6)
planar = st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(coords, coords), min_size=n, max_size=n, unique=True),
    st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n)))


@given(planar, st.booleans())
def test_max_margin_matches_brute_force_hypo(data, intercept):
    pts, y = data
    X = np.array(pts, dtype=float)
    m = max_margin(X, y, intercept=intercept)
    assert m.lower <= m.gamma <= m.upper
    v = check_separable(X, y, intercept=intercept)
    assert m.separable == v.separable
    if m.separable:
        oracle = brute_force_distance(_signed(X, y, intercept))
        assert m.lower <= oracle * (1 + 1e-9) and oracle <= m.upper * (1 + 1e-9)
    else:
        assert m.gamma == 0.0 and m.upper == 0.0
        assert check_certificate(X, y, v)


@given(planar)
def test_svm_margin_is_half_the_hull_distance_hypo(data):
    pts, y = data
    X = np.array(pts, dtype=float)
    y = np.array(y)
    if len(set(y.tolist())) < 2:
        return
    m = max_margin(X, y, svm=True)
    P, N = X[y > 0], X[y < 0]
    segs = lambda A: [(a, b) for a in A for b in A]  # noqa: E731 - includes points
    dist = min(_segment_distance(a, b, c, d) for a, b in segs(P) for c, d in segs(N))
    crossing = check_separable(X, y).separable is False
    if crossing:
        assert not m.separable
    else:
        assert m.lower <= dist / 2 * (1 + 1e-9) and dist / 2 <= m.upper * (1 + 1e-9)


def test_min_norm_point_simplex_corner():
    Z = np.eye(3)
    p, lam, keys, _ = min_norm_point(Z)
    np.testing.assert_allclose(p, [1 / 3] * 3)
    assert sorted(keys) == [0, 1, 2] and lam.sum() == pytest.approx(1)


def test_exponentially_thin_margin_is_bracketed_conservatively():
    from test_separability import _doubling_chain  # tests/ is on sys.path under pytest

    X, y = _doubling_chain(40, slack=1)  # every witness has w_{k+1} > 2 w_k
    m = max_margin(X, y, intercept=False)
    assert m.separable and 0 < m.lower <= m.gamma <= m.upper
    assert m.lower < 2.0**-39  # e_1 . u = u_1 <= 2**-39 for a unit witness u
    assert m.bound >= (m.R / m.upper) ** 2
