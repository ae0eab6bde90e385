"""Tests of verify.separability: exact verdicts, certificates, edge cases, LP vs Z3."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify import check_certificate, check_separable
from verify.separability import SeparabilityVerdict
from verify.errors import CertificateError

AND = ([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, -1, -1, 1])
XOR = ([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1])


def _augmented(X, y, intercept):
    """Signed augmented rows as Fractions: the oracle's own view of the data."""
    rows = [[Fraction(v) for v in r] + ([Fraction(1)] if intercept else []) for r in X]
    return [[yi * v for v in r] for r, yi in zip(rows, y)]


def assert_proof(X, y, v):
    """Independent re-check (plain Fractions, no helper of the module under test)."""
    Z = _augmented(X, y, v.intercept)
    if v.separable:
        for z in Z:
            assert sum(a * b for a, b in zip(z, v.witness)) > 0
    else:
        assert v.certificate and all(lam > 0 for lam in v.certificate.values())
        total = [sum(v.certificate.get(i, 0) * Z[i][j] for i in range(len(Z)))
                 for j in range(len(Z[0]))]
        assert total == [0] * len(Z[0])
    assert check_certificate(X, y, v) is True


@pytest.mark.parametrize("method", ["auto", "lp", "z3"])
def test_and_separable_xor_not(method):
    v = check_separable(*AND, method=method)
    assert v.separable is True and v.exact
    assert_proof(*AND, v)
    v = check_separable(*XOR, method=method)
    assert v.separable is False and v.exact
    assert_proof(*XOR, v)


def test_xor_certificate_is_the_four_points_equally():
    v = check_separable(*XOR)
    assert v.certificate == {i: Fraction(1) for i in range(4)}


def test_duplicate_point_with_both_labels():
    X = [[1.5, 2.0], [3.0, -1.0], [1.5, 2.0]]
    y = [1, 1, -1]
    v = check_separable(X, y)
    assert v.separable is False
    assert v.certificate == {0: Fraction(1), 2: Fraction(1)}
    assert "same point" in v.message
    assert_proof(X, y, v)


def test_opposite_points_with_one_label_are_named_so_without_intercept():
    # y x cancels for x and -x with the same label: not "the same point with both
    # labels", which the message said of XOR's (-1, 1) and (1, -1) (#37)
    X = [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
    v = check_separable(X, [-1, 1, 1, -1], intercept=False)
    assert v.separable is False and v.certificate == {1: Fraction(1), 2: Fraction(1)}
    assert "opposite points (X[2] = -X[1]) with the same label" in v.message
    assert "same point" not in v.message
    assert_proof(X, [-1, 1, 1, -1], v)


def test_zero_vector_without_intercept():
    X = [[1.0, 2.0], [0.0, 0.0], [-1.0, 3.0]]
    y = [1, -1, 1]
    v = check_separable(X, y, intercept=False)
    assert v.separable is False and v.certificate == {1: Fraction(1)}
    assert_proof(X, y, v)
    v = check_separable(X, y, intercept=True)
    assert v.separable is True
    assert_proof(X, y, v)


@pytest.mark.parametrize("n", [3, 4, 7])
def test_collinear_alternating_labels(n):
    t = np.arange(n, dtype=float)
    X = np.stack([t, 2 * t + 1], axis=1)  # points on the line (t, 2t + 1)
    y = np.where(np.arange(n) % 2 == 0, 1, -1)
    for method in ("auto", "z3"):
        v = check_separable(X, y, method=method)
        assert v.separable is False
        assert_proof(X.tolist(), y.tolist(), v)


def test_one_class_only():
    X = [[1.0, 2.0], [-1.0, -2.0]]
    with pytest.raises(ValueError, match=r"only one class \('cat'\)"):  # as train says
        check_separable(X, ["cat", "cat"])
    v = check_separable(X, [1, 1])
    assert v.separable is True and "one class" in v.message
    assert_proof(X, [1, 1], v)
    v = check_separable(X, [-1, -1])
    assert v.separable is True and v.witness[-1] == -1
    assert_proof(X, [-1, -1], v)
    # through the origin, x and -x in one class cannot be separated
    v = check_separable(X, [1, 1], intercept=False)
    assert v.separable is False
    assert_proof(X, [1, 1], v)


@pytest.mark.parametrize("scale", [1e12, 1e-12])
def test_huge_and_tiny_coordinates(scale):
    for (X, y), expect in ((AND, True), (XOR, False)):
        Xs = (np.asarray(X, dtype=float) * scale).tolist()
        for method in ("auto", "lp", "z3"):
            v = check_separable(Xs, y, method=method)
            assert v.separable is expect
            assert_proof(Xs, y, v)


def test_mixed_huge_and_tiny_in_one_row():
    # Only the tiny second coordinate separates; the huge first one is common.
    X = [[1e12, 1e-12], [1e12, -1e-12], [1e12, 3e-12]]
    v = check_separable(X, [1, -1, 1], intercept=False)
    assert v.separable is True
    assert_proof(X, [1, -1, 1], v)
    v = check_separable(X + [[1e12, 2e-12]], [1, -1, 1, -1], intercept=False)
    assert v.separable is False
    assert_proof(X + [[1e12, 2e-12]], [1, -1, 1, -1], v)


def _doubling_chain(d, slack):
    """Integer data whose every witness has w_{k+1} > 2 w_k: margins ~ 2**-d.

    Rows (all labelled +1): e_1, e_{k+1} - 2 e_k, and the cap 2**(d-1+slack) e_1 - e_d,
    which a witness can satisfy only when slack >= 1.
    """
    rows = [[1] + [0] * (d - 1)]
    for k in range(d - 1):
        r = [0] * d
        r[k + 1], r[k] = 1, -2
        rows.append(r)
    cap = [0] * d
    cap[0], cap[-1] = 2 ** (d - 1 + slack), -1
    rows.append(cap)
    return rows, [1] * len(rows)


@pytest.mark.parametrize("d", [8, 40])
def test_exponentially_small_margins(d):
    X, y = _doubling_chain(d, slack=1)
    v = check_separable(X, y, intercept=False)
    assert v.separable is True
    assert_proof(X, y, v)
    w = v.witness
    assert all(w[k + 1] > 2 * w[k] for k in range(d - 1))
    X, y = _doubling_chain(d, slack=0)
    v = check_separable(X, y, intercept=False)
    assert v.separable is False
    assert_proof(X, y, v)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_nan_inf_rejected(bad):
    with pytest.raises(ValueError, match="NaN or infinity"):
        check_separable([[0.0, 1.0], [bad, 1.0]], [0, 1])


def test_empty_rejected():
    with pytest.raises(ValueError, match="empty"):
        check_separable(np.zeros((0, 2)), np.zeros(0))
    with pytest.raises(ValueError, match="empty"):
        check_separable([[0.0], [1.0]], [])


def test_bad_arguments_named():
    with pytest.raises(ValueError, match="method"):
        check_separable(*AND, method="simplex")
    with pytest.raises(ValueError, match="timeout_s"):
        check_separable(*AND, timeout_s=-1)
    with pytest.raises(ValueError, match="3 classes"):
        check_separable([[0.0], [1.0], [2.0]], [0, 1, 2])
    with pytest.raises(ValueError, match="samples"):
        check_separable([[0.0], [1.0]], [0, 1, 1])


def test_z3_timeout_gives_unknown():
    rng = np.random.default_rng(0)
    X = rng.integers(-50, 51, size=(300, 20))
    y = np.where(X @ rng.normal(size=20) > 0, 1, -1)
    v = check_separable(X, y, method="z3", timeout_s=0.001)
    assert v.separable is None and v.method == "timeout"
    assert v.witness is None and v.certificate is None and not v.exact
    assert "timeout_s" in v.message
    with pytest.raises(ValueError, match="unknown"):
        check_certificate(X, y, v)


def test_exact_rational_and_string_input():
    X = [["1/3", "2/3"], ["1/3", "0.5"], [Fraction(1, 7), 1]]
    y = [1, -1, 1]
    v = check_separable(X, y, intercept=False)
    assert v.separable is True
    assert_proof([[Fraction(c) for c in r] for r in X], y, v)
    # 1/3 + 1/3 = 2/3 exactly: these three points are on a line through the origin
    X = [["1/3", "1"], ["2/3", "2"], ["1", "3"]]
    v = check_separable(X, [1, -1, 1], intercept=False)
    assert v.separable is False
    assert_proof([[Fraction(c) for c in r] for r in X], [1, -1, 1], v)


def test_integers_beyond_float_precision():
    big = 2**60
    X = np.array([[big + 1, 1], [big, 1]], dtype=object)
    # (big + 1) - big = 1 exactly: separable through the origin only by w = (1, -big)
    for method in ("auto", "z3"):
        v = check_separable(X, [1, -1], intercept=False, method=method)
        assert v.separable is True
        assert_proof(X.tolist(), [1, -1], v)


def test_perceptron_method_and_provers_named():
    v = check_separable(*AND, method="perceptron")
    assert v.separable is True and v.method == "perceptron"
    v = check_separable(*XOR, method="perceptron")
    assert v.separable is None and "did not converge" in v.message


def test_verdict_is_frozen_and_not_a_bool():
    v = check_separable(*AND)
    with pytest.raises(AttributeError):
        v.separable = False
    with pytest.raises(TypeError, match="ambiguous"):
        bool(v)


def test_check_certificate_rejects_bad_proofs():
    X, y = XOR
    good = check_separable(X, y)
    for cert, msg in (({0: Fraction(1), 3: Fraction(1)}, "does not cancel"),
                      ({0: Fraction(1), 9: Fraction(1)}, "index 9"),
                      ({0: Fraction(-1), 1: Fraction(1)}, "must be > 0"),
                      ({}, "empty")):
        bad = SeparabilityVerdict(False, None, cert, "user", True, "", 0.0)
        with pytest.raises(CertificateError, match=msg):
            check_certificate(X, y, bad)
    bad = SeparabilityVerdict(True, (Fraction(1), Fraction(1)), None, "user", True, "", 0.0)
    with pytest.raises(CertificateError, match="expected 3"):
        check_certificate(X, y, bad)
    # a certificate for the homogeneous question does not prove the affine one
    assert check_certificate(X, y, good)
    v = check_separable([[1.0], [-1.0]], [1, 1], intercept=False)
    with pytest.raises(CertificateError):
        check_certificate([[1.0], [-1.0]], [1, 1], SeparabilityVerdict(
            False, None, v.certificate, "user", True, "", 0.0, intercept=True))


small_int_data = st.integers(1, 7).flatmap(lambda n: st.integers(1, 3).flatmap(
    lambda d: st.tuples(
        st.lists(st.lists(st.integers(-3, 3), min_size=d, max_size=d), min_size=n,
                 max_size=n),
        st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n),
        st.booleans())))


@given(small_int_data)
def test_lp_z3_auto_agree_and_certificates_check_hypo(data):
    X, y, intercept = data
    verdicts = [check_separable(X, y, intercept=intercept, method=m)
                for m in ("lp", "z3", "auto")]
    assert len({v.separable for v in verdicts}) == 1
    assert verdicts[0].separable is not None
    for v in verdicts:
        assert_proof(X, y, v)


wide_floats = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False,
                        allow_infinity=False, allow_subnormal=False, width=64)


@given(st.integers(2, 8).flatmap(lambda n: st.tuples(
    st.lists(st.lists(wide_floats, min_size=2, max_size=2), min_size=n, max_size=n),
    st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))))
def test_float_data_auto_matches_z3_hypo(data):
    X, y = data
    a = check_separable(X, y)
    b = check_separable(X, y, method="z3")
    assert a.separable == b.separable
    assert_proof(X, y, a)


extreme_floats = st.floats(min_value=-1e150, max_value=1e150, allow_nan=False,
                           allow_infinity=False, width=64)  # subnormals included


@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(st.lists(extreme_floats, min_size=2, max_size=2), min_size=n, max_size=n),
    st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n), st.booleans())))
def test_extreme_exponents_auto_matches_z3_hypo(data):
    X, y, intercept = data
    a = check_separable(X, y, intercept=intercept)
    b = check_separable(X, y, intercept=intercept, method="z3")
    assert a.separable == b.separable
    assert check_certificate(X, y, a) and check_certificate(X, y, b)


def test_agrees_with_perceptron_on_larger_integer_data():
    rng = np.random.default_rng(3)
    X = rng.integers(-10, 11, size=(300, 6))
    y = np.where(X @ rng.normal(size=6) + 0.5 > 0, 1, -1)
    v = check_separable(X, y)
    assert v.separable is True
    assert check_certificate(X, y, v)
    y[:40] *= -1
    v = check_separable(X, y)
    assert v.separable is False and len(v.certificate) <= X.shape[1] + 2
    assert check_certificate(X, y, v)


# --------------------------------------------------------------------------------------
# the exact helpers in verify._internal.exact (shared with the other verify modules)

from verify._internal import exact as _exact  # noqa: E402



# (the float rows as integers: tests/markone/test_exact_rows.py, for the constructor they share
# with the core)


@given(st.lists(st.floats(-1e300, 1e300, allow_nan=False), min_size=1, max_size=6).flatmap(
    lambda w: st.tuples(st.just(w), st.lists(st.lists(
        st.floats(-1e300, 1e300, allow_nan=False), min_size=len(w), max_size=len(w)),
        min_size=1, max_size=4))))
def test_dot_error_bound_is_rigorous_hypo(data):
    w, rows = data
    A, w = np.array(rows), np.array(w)
    with np.errstate(over="ignore", invalid="ignore"):
        s = A @ w
    bound = _exact.dot_error_bound(A, w)
    for i, r in enumerate(rows):
        if np.isfinite(s[i]) and np.isfinite(bound[i]):
            exact = sum(Fraction(a) * Fraction(b) for a, b in zip(r, w.tolist()))
            assert abs(Fraction(s[i]) - exact) <= Fraction(bound[i])


def test_certify_positive_uses_exact_rows_only_when_needed():
    A = np.array([[1.0, 1.0], [1.0, 1e-300], [1e16, -1e16 + 2]])
    w = np.array([1.0, 1.0])
    ok, n_exact = _exact.certify_positive(A, w)
    assert ok and n_exact == 1  # row 2 cancels catastrophically: decided exactly
    ok, _ = _exact.certify_positive(np.array([[1e16, -1e16]]), w)
    assert not ok  # exactly zero is not positive


def _kernel_by_fractions(rows, k):
    """The kernel's dimension and, when it is one, a spanning vector: plain Fraction
    Gauss-Jordan elimination, the oracle for python-flint."""
    A = [[Fraction(v) for v in r] for r in rows]
    pivots, r = [], 0
    for c in range(k):
        p = next((i for i in range(r, len(A)) if A[i][c] != 0), None)
        if p is None:
            continue
        A[r], A[p] = A[p], A[r]
        A[r] = [v / A[r][c] for v in A[r]]
        for i in range(len(A)):
            if i != r and A[i][c]:
                A[i] = [a - A[i][c] * b for a, b in zip(A[i], A[r])]
        pivots.append(c)
        r += 1
    free = [c for c in range(k) if c not in pivots]
    if len(free) != 1:
        return len(free), None
    v = [Fraction(0)] * k
    v[free[0]] = Fraction(1)
    for i, c in enumerate(pivots):
        v[c] = -A[i][free[0]]
    return 1, v


@given(st.integers(2, 40).flatmap(lambda k: st.lists(
    st.lists(st.integers(-3, 3), min_size=k, max_size=k), min_size=1, max_size=k + 1)))
def test_null_vector_matches_fraction_elimination_hypo(rows):
    k = len(rows[0])
    dim, ref = _kernel_by_fractions(rows, k)
    if dim != 1:
        with pytest.raises(ValueError, match=f"dimension {dim}, not 1"):
            _exact.null_vector(rows)
        return
    v = _exact.null_vector(rows)
    assert all(sum(a * b for a, b in zip(r, v)) == 0 for r in rows)
    ratio = {Fraction(a) / b for a, b in zip(v, ref) if b}
    assert len(ratio) == 1 and all((a == 0) == (b == 0) for a, b in zip(v, ref))
    assert math.gcd(*v) == 1 and next(a for a in v if a) > 0


def test_null_vector_of_rational_and_huge_entries():
    assert _exact.null_vector([["1/2", "1/3", "-5/6"]] * 1 + [[1, -1, 0]]) == [1, 1, 1]
    big = 10**40
    v = _exact.null_vector([[big, big + 1, 0], [0, 1, -1]])
    assert v == [big + 1, -big, -big]          # primitive, first entry positive


def test_null_vector_large_binary_system():
    rng = np.random.default_rng(5)
    A = rng.integers(0, 2, size=(120, 121))
    v = _exact.null_vector(A)
    assert any(v) and all(sum(int(a) * b for a, b in zip(r, v)) == 0 for r in A)


def test_verdicts_and_margins_serialise_to_json():
    import json

    from markone._internal.io import to_jsonable
    from verify import max_margin

    for y in AND[1], XOR[1]:
        v = check_separable(AND[0], y)
        doc = json.loads(json.dumps(to_jsonable(v)))
        assert doc["separable"] == v.separable
        if v.separable:
            assert tuple(map(Fraction, doc["witness"])) == v.witness
        else:
            assert {int(i): Fraction(c) for i, c in doc["certificate"].items()} == \
                v.certificate
        m = json.loads(json.dumps(to_jsonable(max_margin(AND[0], y))))
        assert m["separable"] == v.separable and len(m["u"]) == 3


@pytest.mark.slow
def test_mark1_sized_binary_certificate():
    rng = np.random.default_rng(11)
    X = (rng.random((2000, 512)) < 0.15).astype(float)
    y = rng.choice([-1, 1], 2000)
    # 2,000 rows of 512 small integers: wide and far from separable, so the auto path
    # decides it by least squares made exact; the LP, asked for, decides it too
    v = check_separable(X, y)
    assert v.separable is False and v.method == "leastsq"
    assert check_certificate(X, y, v)
    by_lp = check_separable(X, y, method="lp")
    assert by_lp.separable is False and by_lp.method == "lp"
    assert check_certificate(X, y, by_lp)


@given(small_int_data)
def test_cvc5_and_z3_agree_hypo(data):
    X, y, intercept = data
    a = check_separable(X, y, intercept=intercept, method="z3", solver="z3")
    b = check_separable(X, y, intercept=intercept, method="z3", solver="cvc5")
    assert a.separable == b.separable is not None
    assert b.method == "cvc5"
    assert_proof(X, y, b)


def test_smt_queries_are_saved_and_rerun_by_the_z3_executable(tmp_path):
    import shutil
    import subprocess
    import sysconfig

    z3 = shutil.which("z3", path=sysconfig.get_path("scripts")) or shutil.which("z3")
    assert z3, "the z3 executable of the z3-solver wheel is missing"
    for solver in ("z3", "cvc5"):
        out = tmp_path / solver
        v = check_separable(*XOR, method="z3", solver=solver, smt2_dir=out)
        assert v.separable is False
        files = sorted(out.glob("separability-*.smt2"))
        # the witness system (unsat), then the Gordan system (sat)
        answers = [subprocess.run([z3, str(f)], capture_output=True, text=True)
                   .stdout.split()[0] for f in files]
        assert answers == ["unsat", "sat"]
    with pytest.raises(ValueError, match="solver"):
        check_separable(*XOR, solver="yices")
    rng = np.random.default_rng(0)
    X = rng.integers(-50, 51, size=(300, 20))
    y = np.where(X @ rng.normal(size=20) > 0, 1, -1)
    v = check_separable(X, y, method="z3", solver="cvc5", timeout_s=0.001)
    assert v.separable is None and v.method == "timeout"


def test_rows_near_the_float64_limit_raise_no_overflow_warning():
    # the same point with both labels, near 1.8e308: the hash of the rows that finds
    # opposite pairs overflowed ("overflow encountered in matmul" on the CLI's stderr)
    import warnings

    X = np.array([[1.7e308, 1.7e308], [1.7e308, 1.7e308], [-1e308, 1.5e308]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = check_separable(X, [0, 1, 1])
    assert v.separable is False and v.method == "trivial"
    assert v.certificate == {0: 1, 1: 1}


def test_small_problems_give_the_perceptron_only_its_uncompiled_passes(train_budgets):
    """method="auto" on a small problem: the perceptron runs no more presentations
    than markone runs without a compiler, and no more than SMALL_PRESENTATIONS
    (about the LP's cost there, issue 32), and the LP decides the rest;
    method="perceptron" keeps its full budget (issue 26)."""
    from markone._internal.jit import PLAIN_PRESENTATIONS
    from verify.separability import SMALL_PRESENTATIONS

    budgets = train_budgets
    rng = np.random.default_rng(7)
    X = rng.integers(-9, 10, (500, 8))   # no repeated point: the trivial prover passes
    y = rng.choice([-1, 1], 500)
    v = check_separable(X, y)
    assert SMALL_PRESENTATIONS <= PLAIN_PRESENTATIONS
    assert budgets == [SMALL_PRESENTATIONS // 500] and v.method == "lp"
    assert v.separable is False and check_certificate(X, y, v)
    budgets.clear()
    assert check_separable(*XOR, method="perceptron").separable is None
    assert budgets == [1000]
