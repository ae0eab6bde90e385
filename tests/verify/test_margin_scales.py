"""Wolfe's algorithm at every scale: the interval holds the exact margin and is tight.

Float Wolfe's minor cycle solves through differences of its atoms; with features of
1e-100 beside the intercept's constant 1 those differences are parallel to 16 digits,
a weight came out with the wrong sign and the algorithm stopped on a face without the
nearest point. ``max_margin`` then certified ``[0.0, 3.4e-16]`` for AND scaled by
1e-100 (true margin 3.5e-101) and the mistake bound was inf. A power-of-two rescaling
cannot help (the scales are mixed within each row); the face is now found again by
Wolfe's algorithm in rationals (:mod:`verify._internal.wolfe_exact`) when the float interval
stays unresolved. The oracle is exact: every face of the hull tried in rationals.
"""

import math
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import verify._internal.wolfe_exact
from test_margin_bounds import exact_novikoff, hull_min_norm_sq, _rows  # on sys.path
from verify import max_margin
from verify.margin import float_up, min_norm_point

AND = (np.array([[0.0, 0], [0, 1], [1, 0], [1, 1]]), np.array([-1, -1, -1, 1]))

#: Scales of the features beside the intercept's 1: ordinary, tiny, subnormal, huge.
SCALES = [1.0, 2.0**-40, 1e-8, 1e-100, 1e-200, 1e-300, 2.0**-1000, 1e-310, 1e100,
          1e300]


def _checked(X, y, intercept):
    """max_margin against the exact oracle: the verdict, the interval around the exact
    margin, and the bound within a millionth above the theorem's exact value (rounded
    up to float64, so inf only beyond its range)."""
    m = max_margin(X, y, intercept=intercept)
    separable = hull_min_norm_sq(_rows(X.tolist(), y.tolist(), intercept)) > 0
    assert m.separable == separable
    if not separable:
        assert m.bound == float("inf") and m.upper == 0.0
        return m
    gamma_sq, exact = exact_novikoff(X.tolist(), y.tolist(), intercept)
    assert Fraction(m.lower) ** 2 <= gamma_sq <= Fraction(m.upper) ** 2
    assert m.bound_exact is not None
    assert exact <= m.bound_exact <= exact * (1 + Fraction(1, 10**6))
    assert m.bound == float_up(m.bound_exact)
    return m


@pytest.mark.parametrize("scale", SCALES, ids=repr)
def test_and_beside_the_intercept_at_every_scale(scale):
    """The issue's case: the interval was [0.0, 3.4e-16] from 1e-100 down."""
    X, y = AND
    m = _checked(X * scale, y, True)
    # resolved, not just bracketed (to a few steps of 2**-1074 when it is subnormal)
    assert m.upper - m.lower <= max(1e-12 * m.upper, 16 * 2.0**-1074)


def test_the_float_support_was_a_wrong_face():
    """Float Wolfe on AND at 1e-100 stops on rows {0, 3} (its interval [0, 3.4e-16]);
    the nearest point is on rows {1, 2, 3}, where the rational run goes."""
    X, y = AND
    Z = np.column_stack([X * 1e-100, np.ones(4)]) * y[:, None] / 2
    _, _, keys, _ = min_norm_point(Z)
    assert sorted(keys) == [0, 3]
    assert sorted(verify._internal.wolfe_exact.exact_support(Z, 100)) == [1, 2, 3]


points = st.integers(2, 5).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(st.integers(-6, 6), st.integers(-6, 6)), min_size=n, max_size=n,
             unique=True),
    st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n)))


@given(points, st.sampled_from(SCALES), st.sampled_from(["features", "rows"]))
def test_the_interval_holds_the_exact_margin_at_every_scale_hypo(data, scale, how):
    """Small integer data with the features scaled (beside the intercept's 1: mixed
    scales) or the whole rows scaled (no intercept): the exact verdict, an interval
    around the exact margin and a finite exact bound within 1e-6 of the theorem's."""
    pts, y = data
    X, y = np.array(pts, dtype=float) * scale, np.array(y)
    _checked(X, y, intercept=how == "features")


@given(points, st.sampled_from([2.0**-1000, 2.0**-60, 2.0**500]))
def test_a_power_of_two_changes_no_bound_hypo(data, scale):
    """Rows scaled by a power of two (exact): the same verdict and bound as at scale 1,
    and an interval scaled exactly."""
    pts, y = data
    X, y = np.array(pts, dtype=float), np.array(y)
    a, b = max_margin(X, y, intercept=False), max_margin(X * scale, y, intercept=False)
    assert (a.separable, a.bound) == (b.separable, b.bound)
    if a.separable:   # (a negative lower end of unseparable data is rounded outward)
        assert (a.lower * scale, a.upper * scale) == (b.lower, b.upper)


def test_ordinary_scales_never_need_the_rational_run(monkeypatch):
    """At scale 1 the float interval resolves: the rational run is never asked for,
    so nothing changes there (the AND doctest's numbers; 150 random data sets, with
    and without the intercept)."""
    def refuse(*a, **k):
        raise AssertionError("the rational run was needed at scale 1")

    monkeypatch.setattr(verify._internal.wolfe_exact, "exact_support", refuse)
    m = max_margin(*AND)
    assert (m.lower, m.upper, m.bound) == (0.24253562503633144, 0.24253562503633416,
                                           51.000000000000654)
    rng = np.random.default_rng(0)
    for _ in range(150):
        n = int(rng.integers(2, 7))
        X, y = rng.integers(-6, 7, size=(n, 2)).astype(float), rng.choice([-1, 1], n)
        for intercept in (True, False):
            max_margin(X, y, intercept=intercept)


#: Two column scales at most 1e300 apart: the data at the working scale (largest
#: entry 1) then stay within float64 (1e-100 beside 1e300 would put the smaller
#: column below 5e-324 there, and only its rounding would be certified).
SPREADS = [(a, b) for a in SCALES for b in SCALES
           if abs(math.log10(a) - math.log10(b)) <= 300]


@given(points, st.sampled_from(SPREADS), st.booleans())
def test_columns_of_different_scales_hypo(data, scales, intercept):
    """Each feature at its own scale (1e-300 beside 1, subnormals beside 1, 1e-8
    beside 1e100), with or without the intercept: the same exact checks."""
    pts, y = data
    X = np.array(pts, dtype=float) * np.array(scales)
    _checked(X, np.array(y), intercept)


@pytest.mark.parametrize("pts, y, gamma", [
    ([(0, 0), (1, 1), (1, 0)], [-1, 1, -1], Fraction(1, 2 * 2**40)),
    ([(0, 0), (0, 3), (0, 2)], [-1, 1, 1], Fraction(1, 2**40)),
], ids=["every weight rounded to 0", "an interior face"])
def test_what_the_property_found(pts, y, gamma):
    """Features of 2**-40 beside the constant 1. The first raised IndexError (float
    Wolfe's line search zeroed every weight and dropped every atom); the second was
    certified within [gamma / 2, 1.5 gamma] from a face the rational test now rejects."""
    m = _checked(np.array(pts, dtype=float) * 2.0**-40, np.array(y), True)
    lower, upper = Fraction(m.lower), Fraction(m.upper)
    assert lower <= gamma <= upper <= lower * (1 + Fraction(1, 10**12))


@pytest.mark.parametrize("form", ["csr", "strings"])
def test_sparse_and_exact_input_at_1e_100(form, tmp_path, capsys):
    """The same AND at 1e-100 as a sparse matrix and as decimal strings (read
    exactly, rounded once), and through ``markone verify margin``: a resolved interval
    around 1e-100 / sqrt(8) and the bound 8e200, not inf."""
    import scipy.sparse as sp

    from markone.cli import main

    cells = [["0", "0"], ["0", "1e-100"], ["1e-100", "0"], ["1e-100", "1e-100"]]
    X = sp.csr_matrix(AND[0] * 1e-100) if form == "csr" else cells
    m = max_margin(X, AND[1])
    gamma_sq = Fraction(1, 8 * 10**200)
    assert Fraction(m.lower) ** 2 <= gamma_sq <= Fraction(m.upper) ** 2
    assert m.upper <= m.lower * (1 + 1e-12) and 8e200 <= m.bound < 8.0000001e200
    path = tmp_path / "and.csv"
    path.write_text("".join(f"{a},{b},{t}\n" for (a, b), t in zip(cells, [0, 0, 0, 1])))
    assert main(["verify", "margin", str(path)]) == 0
    assert "mistake bound 8.0000000000000" in capsys.readouterr().out


def radius_sq(rows):
    """The exact squared radius of the stored floats of ``rows``."""
    return max(sum(Fraction(v) ** 2 for v in r) for r in rows)


@pytest.mark.parametrize("scale", [1e-310, 1e-318, 1.0, 1e300])
def test_R_keeps_its_digits_on_subnormal_data(scale, tmp_path, capsys):
    """Issue 46: R is a float64, which holds only ~5 digits at 1e-320; R_exact and the
    printed R (R_shown) keep 53 bits at any scale: against the exact radius of the
    stored data (a Fraction), rounded up and within 2**-52 of it, relative."""
    from markone.cli import main

    X = np.array([[3.0, 1.0], [-2.0, -2.5]]) * scale
    m = max_margin(X, [1, -1], intercept=False)
    exact = radius_sq(X.tolist())
    assert m.R_exact ** 2 >= exact and (m.R_exact * (1 - Fraction(1, 2**52))) ** 2 < exact
    assert Fraction(m.R) >= m.R_exact                      # the float: rounded up too
    shown = Fraction(m.R_shown)                            # 17 digits, rounded up
    assert shown ** 2 >= exact and (shown * (1 - Fraction(1, 10**15))) ** 2 < exact
    # the command reads the cells as the decimals written (exactly), and prints R
    cells = [[f"{v:.17g}" for v in r] for r in X.tolist()]
    path = tmp_path / "d.csv"
    path.write_text("".join(f"{a},{b},{t}\n" for (a, b), t in zip(cells, [1, 0])))
    assert main(["verify", "margin", str(path), "--no-intercept"]) == 0
    printed = Fraction(re.search(r"R = (\S+) \(rounded up\)", capsys.readouterr().out)[1])
    exact = max(sum(Fraction(v) ** 2 for v in r) for r in cells)
    assert printed ** 2 >= exact and (printed * (1 - Fraction(1, 10**15))) ** 2 < exact


@pytest.mark.parametrize("cells, y, intercept", [
    ([["1e400"], ["2e400"]], [-1, 1], True),
    ([["1e400", "1"], ["1e400", "2"]], [-1, 1], True),
    ([["1e400", "-1"], ["1e400", "3"]], [-1, 1], False),
    ([["1e-400", "1e400"], ["3e-400", "1e400"], ["2e-400", "-1e400"]], [-1, 1, 1], True),
])
def test_data_beyond_float64_at_any_one_scale_get_their_exact_margin(cells, y, intercept):
    """Cells of 1e400 beside the intercept's 1 (or beside a 1 of their own): scaled
    into float64's range the 1 underflows, and the certified interval was [0.0, inf]
    (true, useless). The margin is found again in rationals at the data's own scale:
    an interval around the exact margin (the oracle tries every face), resolved, the
    exact bound, and gamma^2 in the message."""
    m = max_margin(cells, y, intercept=intercept)
    gamma_sq, exact = exact_novikoff(cells, y, intercept)
    assert m.separable and Fraction(m.lower) ** 2 <= gamma_sq <= Fraction(m.upper) ** 2
    assert "beyond float64's range at any one scale" in m.message
    shown = re.search(r"found in exact rationals: gamma\^2 = (about )?(\S+)", m.message)
    assert shown and math.isclose(float(Fraction(shown[2]) / gamma_sq), 1.0, rel_tol=1e-5)
    assert m.bound_exact == exact and m.bound == float_up(exact)   # (R/gamma)^2 exactly
    if gamma_sq < Fraction(2.0**-1074) ** 2:   # the margin itself is below float64
        assert (m.lower, m.upper) == (0.0, 2.0**-1074)
        return
    assert 0 < m.lower and m.upper - m.lower <= 1e-12 * m.upper


@pytest.mark.parametrize("text, flags, exact", [
    ("a,b,label\n1e-400,0,1\n-1e-400,0,0\n", [], 10**800 + 1),
    ("a,b,label\n1e-400,1,1\n-1e-400,1,0\n", [], 2 * 10**800 + 1),
    ("a,b,label\n1e-400,1,1\n-1e-400,1,0\n", ["--no-intercept"], 10**800 + 1),
])
def test_a_margin_below_float64_gets_its_exact_mistake_bound(text, flags, exact, tmp_path,
                                                             capsys):
    """Issue 37 (walk): a margin below float64's range (1e-400 beside a 1) was found in
    exact rationals, gamma^2 = 10**-800 exactly, yet ``markone verify margin`` printed
    ``mistake bound inf``. The bound (R/gamma)^2 is exact too: printed rounded up to 17
    digits, saying so, never inf."""
    from markone.cli import main

    path = tmp_path / "tiny.csv"
    path.write_text(text)
    assert main(["verify", "margin", str(path), *flags]) == 0
    out = capsys.readouterr().out
    printed = Fraction(re.search(r"mistake bound (\S+): ", out)[1])
    assert exact <= printed <= exact * (1 + Fraction(1, 10**16))
    assert "gamma^2 = 10**-800" in out and "(R^2 and gamma^2 exact, the quotient " \
        "rounded up)" in out
    with pytest.raises(SystemExit):             # and the help says when the ends are exact
        main(["verify", "margin", "--help"])
    assert "R^2 and gamma^2 exact when the margin is beyond float64" in " ".join(
        capsys.readouterr().out.split())


def test_data_beyond_float64_too_many_for_rationals_say_what_to_do(monkeypatch, tmp_path,
                                                                   capsys):
    """Too many for the rational run: the interval stays wide, and the message says
    why and which command decides exactly."""
    from markone.cli import main

    monkeypatch.setattr("verify.margin._EXACT_ENTRIES", 0)
    path = tmp_path / "far.csv"
    path.write_text("a,label\n1e400,0\n2e400,1\n")
    assert main(["verify", "margin", str(path)]) == 0
    out = capsys.readouterr().out
    assert "certified in [0.0, inf]" in out
    assert "too many to find the margin in exact rationals here" in out
    assert "`markone verify separable` decides separability exactly" in out


@pytest.mark.parametrize("text, flags, says", [
    ("a,label\n1e400,1\n-1e400,0\n", [], r"gamma = 0\.853366838953\d* \* 2\*\*1329"),
    ("a,label\n1e-400,1\n-1e-400,0\n", ["--no-intercept"], r"\* 2\*\*-1328"),
])
def test_a_margin_beyond_float64_points_to_its_full_form(text, flags, says, tmp_path,
                                                         capsys):
    """``markone verify margin``'s first line shows float64's ends ([1.8e308, inf],
    [0.0, 5e-324]) and says the margin lies beyond them and where it is in full."""
    from markone.cli import main

    path = tmp_path / "far.csv"
    path.write_text(text)
    assert main(["verify", "margin", str(path), *flags]) == 0
    first, *rest = capsys.readouterr().out.splitlines()
    assert first.endswith("(beyond float64's range: the last line gives it in full)")
    assert re.search(says, rest[-1])
