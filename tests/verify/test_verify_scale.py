"""verify on sparse and larger data: the same exact verdicts from scipy.sparse input
(certificates that the trusted checker accepts, on the sparse matrix itself), and the
cutting-plane LP (a few rows, warm-started) agreeing with the whole LP."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from verify import check_certificate, check_separable
from verify._internal.cuts import solve_by_cuts


@st.composite
def sparse_labelled(draw, max_n=14, max_d=5):
    n = draw(st.integers(2, max_n))
    d = draw(st.integers(1, max_d))
    X = draw(hnp.arrays(np.int64, (n, d), elements=st.integers(-3, 3)))
    X = X * draw(hnp.arrays(np.bool_, (n, d)))
    for j in draw(st.lists(st.integers(0, d - 1), max_size=1)):
        X[:, j] = 0  # an empty column
    y = draw(hnp.arrays(np.int64, n, elements=st.sampled_from([-1, 1])))
    return X.astype(np.float64) / draw(st.sampled_from([1, 2, 8])), y


@settings(max_examples=40)
@given(sparse_labelled(), st.booleans(), st.sampled_from(["auto", "lp"]),
       st.sampled_from([sp.csr_matrix, sp.csc_array, sp.coo_matrix]))
def test_sparse_verdicts_equal_dense_and_check(data, intercept, method, kind):
    X, y = data
    if not intercept:
        X[~X.any(axis=1), 0] = 1.0  # zero rows without intercept: trivial, tested below
    A = kind(X)
    dense = check_separable(X, y, intercept=intercept, method=method)
    sparse = check_separable(A, y, intercept=intercept, method=method)
    assert sparse.separable == dense.separable
    assert sparse.exact
    # the trusted checker reads the sparse matrix itself, and the dense one
    assert check_certificate(A, y, sparse) is True
    assert check_certificate(X, y, sparse) is True


def test_sparse_trivial_cases():
    A = sp.csr_array(np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 2.0]]))
    v = check_separable(A, [1, -1, 1], intercept=False)
    assert (v.separable, v.method, v.certificate) == (False, "trivial", {1: 1})
    B = sp.csr_array(np.array([[0.0, 3.0], [1.0, 0.0], [0.0, 3.0]]))
    v = check_separable(B, [1, 1, -1])
    assert (v.separable, v.method, v.certificate) == (False, "trivial", {0: 1, 2: 1})
    assert check_certificate(B, [1, 1, -1], v)


def test_checker_refuses_a_wrong_sparse_witness():
    from verify import SeparabilityVerdict
    from verify.errors import CertificateError

    A = sp.csr_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    bad = SeparabilityVerdict(True, (1, -1, 0), None, "user", True, "", 0.0)
    with pytest.raises(CertificateError, match=r"fails on example 1 \(X\[0\]\)"):
        check_certificate(A, [1, 1], bad)


def thin_margin_data(n, d, flips, seed):
    """Integer points labelled by an affine hyperplane with a tiny offset: the
    perceptron needs far too many epochs, so the LP decides."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-10, 11, size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.5 > 0, 1, -1)
    y[rng.choice(n, flips, replace=False)] *= -1
    return X, y


@pytest.mark.parametrize("flips", [0, 5])
def test_cutting_planes_use_few_rows_and_agree_with_the_whole_lp(flips):
    from scipy.optimize import linprog

    X, y = thin_margin_data(3000, 6, flips, seed=flips)
    Z = np.hstack([X * y[:, None], y[:, None]]).astype(float)
    t, w, rows, lam = solve_by_cuts(Z)
    assert len(rows) < len(Z)
    Zs = Z / np.abs(Z).max(axis=1, keepdims=True)
    A = np.hstack([-Zs, np.ones((len(Z), 1))])
    c = np.zeros(Z.shape[1] + 1)
    c[-1] = -1
    full = linprog(c, A_ub=A, b_ub=np.zeros(len(Z)),
                   bounds=[(-1, 1)] * Z.shape[1] + [(None, 1)], method="highs")
    assert t == pytest.approx(-full.fun, abs=1e-9)
    v = check_separable(X, y, method="lp")
    assert v.separable == (flips == 0) == (t > 1e-7)
    assert check_certificate(X, y, v)


def test_sparse_certificate_on_a_large_sparse_matrix():
    """2000 sparse rows labelled by a hyperplane (separable), then three of them
    again, doubled, with the other label: the certificate is small, exact, and checks
    on the sparse matrix."""
    rng = np.random.default_rng(3)
    A = sp.random(2000, 300, density=0.01, random_state=4, format="csr",
                  data_rvs=lambda k: rng.integers(1, 5, k).astype(float))
    w = rng.normal(size=300)
    y = np.where(A @ w > 0, 1, -1)
    v = check_separable(A, y)
    assert v.separable and check_certificate(A, y, v)
    A2 = sp.vstack([A, A[:3] * 2], format="csr")
    y2 = np.r_[y, -y[:3]]
    v2 = check_separable(A2, y2)
    assert v2.separable is False
    assert check_certificate(A2, y2, v2)


@settings(max_examples=25)
@given(sparse_labelled(max_n=10, max_d=4), st.booleans())
def test_margin_bound_and_greedy_order_equal_on_sparse(data, intercept):
    from verify import check_mistake_bound, max_margin, worst_order

    X, y = data
    if not intercept:
        X[~X.any(axis=1), 0] = 1.0
    A = sp.csr_matrix(X)
    md, ms = max_margin(X, y, intercept=intercept), max_margin(A, y, intercept=intercept)
    assert md.separable == ms.separable
    if not md.separable:
        assert ms.certificate is not None and check_certificate(
            A, y, check_separable(A, y, intercept=intercept))
        return
    assert ms.lower <= md.upper and md.lower <= ms.upper  # both certified intervals
    assert ms.lower == pytest.approx(md.lower, rel=1e-9)
    bd = check_mistake_bound(X, y, intercept=intercept)
    bs = check_mistake_bound(A, y, intercept=intercept)
    assert bd.mistakes == bs.mistakes and bs.held
    gd = worst_order(X, y, intercept=intercept)
    gs = worst_order(A, y, intercept=intercept)
    assert gd.order == gs.order and gs.mistakes <= gs.bound


def test_svm_margin_and_exact_orders_say_to_densify():
    from verify import max_margin, worst_order

    A = sp.csr_array(np.array([[1.0, 0.0], [0.0, 1.0]]))
    with pytest.raises(TypeError, match=r"svm=True\) needs a dense array; pass X.toarray"):
        max_margin(A, [0, 1], svm=True)
    with pytest.raises((TypeError, ValueError), match="toarray|dense"):
        worst_order(A, [0, 1], method="exhaustive")


def test_cli_reads_sparse_npz_files(tmp_path, capsys):
    """A scipy.sparse.save_npz file of [X, y] (labels last) goes through the CLI's
    table loader: X stays sparse; the certificate file checks."""
    from markone.cli import main

    X = np.array([[0, 2, 0], [1, 0, 0], [0, 0, 3], [2, 2, 0]])
    y = np.array([1, 0, 1, 0])
    path = tmp_path / "data.npz"
    sp.save_npz(path, sp.hstack([sp.csr_matrix(X), y[:, None]], format="csr"))
    from markone.datasets import load_table

    Xs, ys = load_table(str(path))
    assert sp.issparse(Xs) and Xs.toarray().tolist() == X.tolist()
    assert ys.tolist() == y.tolist()
    assert main(["train", str(path)]) == 0
    cert = tmp_path / "cert.json"
    assert main(["verify", "separable", str(path), "--certificate", str(cert)]) == 0
    assert main(["verify", "check", str(cert)]) == 0
    one_column = tmp_path / "bad.npz"
    sp.save_npz(one_column, sp.csr_matrix(np.ones((3, 1))))
    assert main(["train", str(one_column)]) == 2
    assert "label column last" in capsys.readouterr().err


def test_wide_sparse_data_get_a_perceptron_budget_that_grows_with_d(train_budgets):
    # On wide data the LP needs about d pivots over the data's rows (at 10,000 columns
    # it did not finish in minutes), so the perceptron prover gets at least d // 4
    # epochs whatever the matrix's size; a fixed budget of entry visits gave a
    # 100,000 x 10,000 matrix with 1% non-zeros 10 epochs, and it needed 781.
    budgets = train_budgets
    rng = np.random.default_rng(3)
    n, d, k = 2000, 40_000, 60    # 122,000 stored entries with the intercept
    A = sp.csr_array((rng.integers(1, 4, n * k).astype(np.float64),
                      rng.integers(0, d, n * k), np.arange(0, n * k + 1, k)), shape=(n, d))
    s = A @ rng.normal(size=d)
    y = np.where(s > np.median(s), 1, -1)
    v = check_separable(A, y)
    # the columns that store an entry (and the intercept's): the LP's width; the
    # entry budget alone gives 1e8 // 122,000
    assert budgets == [(len(np.unique(A.indices)) + 1) // 4]
    assert v.separable is True and v.method == "perceptron"
    assert check_certificate(A, y, v)


def test_the_perceptron_prover_keeps_the_deadline(monkeypatch):
    # timeout_s bounds the perceptron too: a probe of _PROBE_EPOCHS passes times a
    # pass, and the full run is cut to the passes left before the deadline. The clock
    # is a fake one that each pass of the (real) run advances by one second, so the
    # test decides nothing by wall-clock time.
    import types

    import markone.engine
    import verify._internal.budget
    import verify.separability as sep

    clock = [0.0]
    budgets = []
    real_train = markone.engine.train

    def one_second_a_pass(*args, **kw):
        budgets.append(kw["max_epochs"])
        res = real_train(*args, **kw)
        clock[0] += res.epochs
        return res

    monkeypatch.setattr(markone.engine, "train", one_second_a_pass)
    fake_time = types.SimpleNamespace(perf_counter=lambda: clock[0])
    monkeypatch.setattr(sep, "time", fake_time)
    monkeypatch.setattr(verify._internal.budget, "time", fake_time)  # where the deadline is set
    # this test is about the deadline: lift the cap that keeps the perceptron of a
    # small problem within markone's uncompiled passes (tested on its own)
    monkeypatch.setattr(sep, "SMALL_LP_ENTRIES", 0)
    X, y = markone.datasets.xor()         # never converges: every pass is spent
    v = check_separable(np.tile(X, (30, 1)), np.tile(y, 30), timeout_s=100)
    assert budgets == [sep._PROBE_EPOCHS, 90]      # 100 s - 10 s of probe = 90 passes
    assert v.separable is None and "timeout_s=100" in v.message
    budgets.clear()
    clock[0] = 0.0
    v = check_separable(np.tile(X, (30, 1)), np.tile(y, 30))       # no deadline
    assert budgets == [1000] and v.separable is False
