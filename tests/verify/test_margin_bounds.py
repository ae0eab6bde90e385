"""Every mistake bound ``verify margin`` prints, checked against brute force.

A printed bound must hold for every order of presentation: on tiny data the
exhaustive worst order (:func:`verify.worst_order`, ``method="exhaustive"``) and actual
runs of :func:`markone.train` never exceed it, in the Python result, in its message and
in the command's text. Where the perceptron's mistakes are too many to count (points of
size 1e-21 beside the intercept's 1), the bound must be at least the theorem's exact
value, computed here in rationals from the nearest point of the convex hull (every face
of the hull tried), and the interval must contain the exact margin.
"""

import itertools
import re
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import markone
from markone.cli import main
from verify import max_margin, worst_order
from _oracles import fraction_solve

# ---- the exact oracle: the nearest point of a convex hull, face by face ---------------


def hull_min_norm_sq(points):
    """Exact squared distance from the origin to the convex hull of ``points``
    (tuples of Fractions): the nearest point lies in the relative interior of a face,
    where it is the nearest point of that face's affine hull with positive weights."""
    d = len(points[0])
    best = None
    for k in range(1, min(len(points), d + 1) + 1):
        for face in itertools.combinations(points, k):
            G = [[sum(a * b for a, b in zip(p, q)) for q in face] for p in face]
            A = [row + [Fraction(1)] for row in G] + [[Fraction(1)] * k + [Fraction(0)]]
            sol = fraction_solve(A, [Fraction(0)] * k + [Fraction(1)])
            if sol is None or any(a < 0 for a in sol[:k]):
                continue
            sq = sum(sol[i] * sol[j] * G[i][j] for i in range(k) for j in range(k))
            best = sq if best is None else min(best, sq)
    return best


def _rows(X, y, intercept):
    return [tuple(Fraction(v) * t for v in list(x) + ([1] if intercept else []))
            for x, t in zip(X, y)]


def exact_novikoff(X, y, intercept=True):
    """``(gamma^2, (R/gamma)^2)`` exactly, for labels -1/+1."""
    Z = _rows(X, y, intercept)
    gamma_sq = hull_min_norm_sq(Z)
    return gamma_sq, max(sum(v * v for v in z) for z in Z) / gamma_sq


def exact_svm_margin_sq(X, y):
    """The SVM margin squared: a quarter of the squared distance between the hulls."""
    P = [x for x, t in zip(X, y) if t > 0]
    N = [x for x, t in zip(X, y) if t < 0]
    diffs = [tuple(Fraction(a) - Fraction(b) for a, b in zip(p, q)) for p in P for q in N]
    return hull_min_norm_sq(diffs) / 4


def test_oracle_on_and():
    """AND: gamma = 1/sqrt(17), R^2 = 3, so (R/gamma)^2 = 51 (the doctest's numbers)."""
    assert exact_novikoff([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, -1, -1, 1]) == \
        (Fraction(1, 17), 51)
    assert exact_svm_margin_sq([[0], [4]], [-1, 1]) == 4


# ---- what is printed, read back -----------------------------------------------------

BOUND = re.compile(r"mistake bound (\S+): ")


def printed_bounds(text):
    """Every mistake bound in a text, exactly as printed (Decimal: no rounding, any
    magnitude)."""
    found = [Decimal(v) for v in BOUND.findall(text)]
    assert found, f"no mistake bound printed in: {text}"
    return found


def cli_text(tmp_path, capsys, X, y, *flags, strings=None):
    """The output of ``markone verify margin`` on a CSV of the data."""
    path = tmp_path / "data.csv"
    cells = strings if strings is not None else [[repr(v) for v in x] for x in X]
    header = ",".join(f"x{j}" for j in range(len(cells[0]))) + ",y"
    path.write_text(header + "\n" + "".join(
        ",".join(row) + f",{t}\n" for row, t in zip(cells, y)))
    main(["verify", "margin", str(path), *flags])
    return capsys.readouterr().out


def every_bound(m, text):
    """The bounds a user can read: the result's field, its message, the command's."""
    return [Decimal(m.bound)] + printed_bounds(m.message) + printed_bounds(text)


def _flags(intercept, svm):
    return (["--no-intercept"] if not intercept else []) + (["--svm"] if svm else [])


# ---- small data: every order, exhaustively --------------------------------------------

SMALL = {
    "and": ([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, -1, -1, 1]),
    "7,2,-3": ([[7], [2], [-3]], [1, -1, -1]),
    "3,1,-3": ([[3], [1], [-3]], [1, -1, -1]),
    "triangle": ([[2, 1], [1, 2], [-1, -1]], [1, 1, -1]),
    "offset pair": ([[4], [3]], [1, -1]),
}
MODES = [(True, False), (False, False), (True, True)]   # (intercept, svm)


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("intercept, svm", MODES)
def test_every_printed_bound_holds_on_the_worst_order(name, intercept, svm, tmp_path,
                                                      capsys):
    X, y = SMALL[name]
    Z = _rows(X, y, intercept)
    m = max_margin(X, y, intercept=intercept, svm=svm)
    if not intercept and hull_min_norm_sq(Z) == 0:  # no separator through the origin
        assert m.separable is False  # so no theorem applies and no bound is printed
        return
    text = cli_text(tmp_path, capsys, X, y, *_flags(intercept, svm))
    # the perceptron the bound speaks of learns its intercept when svm=True
    worst = worst_order(X, y, intercept=intercept or svm, method="exhaustive")
    assert worst.complete
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = [markone.train(X, y, intercept=intercept or svm, order="shuffle", seed=s,
                              max_epochs=10_000).mistakes for s in range(5)]
    for bound in every_bound(m, text):
        assert worst.mistakes <= bound and max(runs) <= bound
    if not svm:   # the theorem's exact value, at most a few roundings above it
        gamma_sq, exact = exact_novikoff(X, y, intercept)
        assert m.lower ** 2 <= gamma_sq <= m.upper ** 2
        assert all(exact <= Fraction(b) <= exact * (1 + Fraction(1, 10**9))
                   for b in every_bound(m, text))


def test_the_svm_margin_alone_bounds_no_perceptron_that_learns_its_intercept():
    """(R/gamma)^2 with the SVM's margin was printed as the bound: 7.84 here, while an
    order makes 17 mistakes, and 576 on six points where one run makes 627."""
    m = max_margin([[7], [2], [-3]], [1, -1, -1], svm=True)
    assert (m.R / m.upper) ** 2 < 17 == worst_order([[7], [2], [-3]], [1, -1, -1],
                                                   method="exhaustive").mistakes
    assert m.bound == pytest.approx(170)     # (49 + 1)(1 + 4.5^2) / 2.5^2
    X6 = [[10, 0], [11, 1], [12, 0], [9, 0], [8, 1], [7, 0]]
    y6 = [1, 1, 1, -1, -1, -1]
    m6 = max_margin(X6, y6, svm=True)
    run = markone.train(X6, y6, max_epochs=10_000)
    assert run.converged and (m6.R / m6.upper) ** 2 < run.mistakes == 627 <= m6.bound
    assert m6.bound_theorem.startswith("the intercept theorem with c = 1")


# ---- tiny scales: beyond counting, against the theorem's exact value --------------------


@pytest.mark.parametrize("scale", ["1e-21", "1e-160"])
def test_tiny_points_beside_the_intercept(scale, tmp_path, capsys):
    """Points of size 1e-21 beside the constant 1: float64 does not resolve the margin
    (Wolfe's interval was [1e-21, 3.4e-16]) and its midpoint was used, printing 3.5e31
    for a bound of 1e42 (and 1e176 for 1e320). The bound uses the lower end; the
    command reads the decimal cells exactly."""
    s = Fraction(scale)
    X, y = [[s], [2 * s], [-s]], [1, 1, -1]
    cells = [[scale], ["2" + scale[1:]], ["-" + scale]]
    gamma_sq, exact = exact_novikoff(X, y)
    assert exact == (1 + 4 * s * s) / (s * s)
    m = max_margin(cells, y)
    assert Fraction(m.lower) ** 2 <= gamma_sq <= Fraction(m.upper) ** 2
    text = cli_text(tmp_path, capsys, None, y, strings=cells)
    shown = printed_bounds(m.message) + printed_bounds(text)
    assert all(exact <= Fraction(b) <= 2 * exact for b in shown)
    assert m.bound >= exact and m.bound_exact >= exact   # inf beyond float64
    # float64 alone left [1e-21, 3.4e-16]; found again in rationals, the interval is
    # as tight as the rounding of the cells allows
    assert m.upper <= m.lower * (1 + 1e-12) and m.gamma == 0.5 * (m.lower + m.upper)


@pytest.mark.parametrize("scale", ["1e-21", "1e-160"])
def test_tiny_points_svm(scale, tmp_path, capsys):
    """The SVM path at tiny scales: the interval contains the exact SVM margin, and
    the bound is at least Novikoff's exact bound in the augmented space (the best any
    comparator can give)."""
    s = Fraction(scale)
    X, y = [[s], [2 * s], [-s]], [1, 1, -1]
    cells = [[scale], ["2" + scale[1:]], ["-" + scale]]
    m = max_margin(cells, y, svm=True)
    assert Fraction(m.lower) ** 2 <= exact_svm_margin_sq(X, y) <= Fraction(m.upper) ** 2
    _, augmented = exact_novikoff(X, y)
    text = cli_text(tmp_path, capsys, None, y, "--svm", strings=cells)
    for b in printed_bounds(m.message) + printed_bounds(text):
        assert Fraction(b) >= augmented
    assert m.bound_exact >= augmented
