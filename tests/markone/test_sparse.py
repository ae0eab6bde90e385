"""Sparse input (scipy.sparse) in the learner core: the compiled CSR loop runs the
same perceptron as the dense loop, bit for bit, on every variant; scikit-learn's
sparse Perceptron agrees; and where sparse input is not supported the error says so."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import markone
from markone import train
from markone._internal.validation import check_matrix, check_sparse

SPARSE_TYPES = (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.csc_array,
                sp.coo_array, sp.lil_matrix)


@st.composite
def sparse_int_data(draw, max_n=25, max_d=8):
    """Small integers (or quarters: exact dyadic sums) under a random sparsity
    pattern; rows and columns left empty on purpose, labels of two classes."""
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    values = draw(hnp.arrays(np.int64, (n, d), elements=st.integers(-4, 4)))
    mask = draw(hnp.arrays(np.bool_, (n, d)))
    X = values * mask
    for i in draw(st.lists(st.integers(0, n - 1), max_size=3)):
        X[i] = 0  # empty rows
    for j in draw(st.lists(st.integers(0, d - 1), max_size=2)):
        X[:, j] = 0  # empty columns
    X = X.astype(np.float64)
    if draw(st.booleans()):
        X = X / 4
    y = draw(hnp.arrays(np.int64, n, elements=st.sampled_from([-1, 1])))
    return X, y


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        return fn(*args, **kw)


def assert_same_run(a, b):
    np.testing.assert_array_equal(a.w, b.w, strict=True)
    np.testing.assert_array_equal(a.last_w, b.last_w, strict=True)
    assert a.mistakes_per_epoch == b.mistakes_per_epoch
    assert a.converged == b.converged
    assert a.mistake_indices == b.mistake_indices
    if a.weights_after is not None:
        np.testing.assert_array_equal(a.weights_after, b.weights_after)
    if a.vote_vectors is not None:
        np.testing.assert_array_equal(a.vote_vectors, b.vote_vectors)
        assert a.vote_counts == b.vote_counts


@given(sparse_int_data(), st.sampled_from(markone.perceptron.VARIANTS), st.booleans(),
       st.booleans(), st.sampled_from(["given", "shuffle", "stream"]),
       st.sampled_from(SPARSE_TYPES), st.integers(1, 6))
def test_sparse_equals_dense_bit_for_bit(data, variant, intercept, record, order, kind,
                                         epochs):
    X, y = data
    if not intercept:
        X[~X.any(axis=1), 0] = 1.0  # a zero row without intercept is refused (tested below)
    if order == "stream":
        order = np.random.default_rng(len(y)).integers(0, len(y), 2 * len(y)).tolist()
    kw = dict(variant=variant, intercept=intercept, record=record, order=order, seed=3,
              max_epochs=epochs)
    dense = quiet(train, X, y, **kw)
    sparse = quiet(train, kind(X), y, **kw)
    assert_same_run(dense, sparse)
    scores = dense.decision_function(X), sparse.decision_function(sp.csr_array(X))
    if variant == "averaged":  # fractional weights: A @ w sums in another order
        np.testing.assert_allclose(*scores, rtol=1e-12, atol=1e-12)
    else:  # integer (or quarter) weights: exact scores
        np.testing.assert_array_equal(*scores)


@given(sparse_int_data(max_n=30, max_d=10), st.integers(1, 5))
def test_same_weights_as_scikit_learn_sparse(data, epochs):
    from sklearn.linear_model import Perceptron as SkPerceptron

    X, y = data
    assume(len(np.unique(y)) == 2)
    # scikit-learn damps the intercept's steps on sparse input (by 0.01), so the
    # intercept is a stored column of ones here, the same for both
    Xs = sp.hstack([sp.csr_matrix(X), np.ones((len(y), 1))], format="csr")
    sk = SkPerceptron(shuffle=False, tol=None, eta0=1, max_iter=epochs, alpha=0.0,
                      fit_intercept=False)
    quiet(sk.fit, Xs, y)
    res = quiet(train, Xs, y, intercept=False, max_epochs=epochs)
    np.testing.assert_array_equal(res.w, sk.coef_[0])


def test_shuffle_uses_the_same_orders():
    rng = np.random.default_rng(5)
    X = (rng.random((200, 30)) < 0.1) * rng.integers(1, 4, (200, 30)).astype(float)
    y = rng.choice([-1, 1], 200)
    a = quiet(train, X, y, order="shuffle", seed=11, max_epochs=20)
    b = quiet(train, sp.csr_array(X), y, order="shuffle", seed=11, max_epochs=20)
    assert_same_run(a, b)
    assert a.mistakes > 0


def test_estimator_fit_partial_fit_predict_sparse():
    rng = np.random.default_rng(2)
    X = (rng.random((60, 12)) < 0.2) * rng.integers(-3, 4, (60, 12)).astype(float)
    y = rng.choice(["a", "b"], 60)
    d = quiet(markone.Perceptron(max_epochs=5).fit, X, y)
    s = quiet(markone.Perceptron(max_epochs=5).fit, sp.csr_matrix(X), y)
    np.testing.assert_array_equal(d.coef_, s.coef_)
    np.testing.assert_array_equal(d.predict(X), s.predict(sp.csc_array(X)))
    d.partial_fit(X, y)
    s.partial_fit(sp.coo_array(X), y)
    np.testing.assert_array_equal(d.w_, s.w_)


def test_canonical_format_sums_duplicates_without_touching_the_input():
    A = sp.coo_array(([1.0, 2.0, -3.0], ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
    B = sp.csr_matrix((np.array([1.0, 2.0]), np.array([1, 1]), np.array([0, 2, 2])),
                      shape=(2, 2))
    assert not B.has_canonical_format
    C = check_sparse(B)
    assert C.toarray().tolist() == [[0.0, 3.0], [0.0, 0.0]]
    assert B.nnz == 2 and B.data.tolist() == [1.0, 2.0]  # the caller's matrix unchanged
    res = quiet(train, A, [1, -1], max_epochs=3)
    ref = quiet(train, A.toarray(), [1, -1], max_epochs=3)
    assert_same_run(res, ref)


@pytest.mark.parametrize("A, kw, exc, match", [
    (sp.csr_array(np.array([[1.0, np.nan], [0.0, 1.0]])), {}, ValueError,
     r"NaN or infinity \(first at X\[0, 1\]\)"),
    (sp.csr_array(np.array([[1.0, 0.0], [0.0, np.inf]])), {"variant": "pocket"},
     ValueError, r"X\[1, 1\]"),
    (sp.csr_array((0, 3)), {}, ValueError, "empty"),
    (sp.csr_array(np.eye(2)), {"exact": True}, TypeError,
     r"exact=True needs a dense array; pass X.toarray\(\)"),
    (sp.csr_array(np.array([[1.0], [0.0]])), {"intercept": False}, ValueError,
     r"X\[1\] is the zero vector"),
    # a stored 0.0 is a zero row too (the loop looks at the values, not the pattern)
    (sp.csr_array(([1.0, 0.0], [0, 0], [0, 1, 2]), shape=(2, 1)), {"intercept": False},
     ValueError, r"X\[1\] is the zero vector"),
    (sp.csr_array(np.array([[1.0], [0.0]])), {"intercept": False, "variant": "voted"},
     ValueError, r"X\[1\] is the zero vector"),
    (sp.csr_array(np.array([[1.0], [2.0], [3.0]])), {}, ValueError,
     "3 samples but y has 2"),
    (sp.csr_array(np.array([[1 + 1j, 0]])), {}, TypeError, "must hold numbers"),
])
def test_bad_sparse_input_is_named(A, kw, exc, match):
    with pytest.raises(exc, match=match):
        train(A, [1, -1], **kw)


@pytest.fixture(autouse=True)
def small_allowance(monkeypatch):
    """Runs of more than PLAIN_PRESENTATIONS (4,096) presentations in all, not
    markone._loops.PLAIN_RUN, compile: :func:`big_sparse`'s runs meet the compiled
    pass (the path changes no result on exact data, only the time)."""
    from markone import _loops
    monkeypatch.setattr(_loops, "PLAIN_RUN", _loops.PLAIN_PRESENTATIONS)


def big_sparse(n=8200, d=40, seed=6):
    """n rows of 3 stored small integers (n > PLAIN_PRESENTATIONS: with
    :func:`small_allowance`, the first pass is compiled), labels from a hyperplane
    plus noise."""
    rng = np.random.default_rng(seed)
    cols = np.sort(rng.choice(d, size=(n, 3)), axis=1)  # repeats are summed
    vals = rng.integers(1, 4, size=(n, 3)).astype(np.float64)
    A = sp.csr_array((vals.ravel(), cols.ravel().astype(np.int32),
                      np.arange(0, 3 * n + 1, 3, dtype=np.int32)), shape=(n, d))
    A.sum_duplicates()
    y = np.where(A @ rng.standard_normal(d) + rng.standard_normal(n) > 0, 1, -1)
    return A, y


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("kw", [dict(), dict(order="shuffle", seed=2),
                                dict(intercept=False), dict(variant="pocket"),
                                dict(order=[0, 4999, 3])])
def test_nan_in_the_last_row_is_refused_as_in_a_dense_run(bad, kw):
    # no pass looks for NaN before the lean loop: its scores find it (compiled here,
    # since 8,200 rows are past the plain allowance), with the dense run's message
    A, y = big_sparse()
    A.data[-1] = bad
    col = int(A.indices[-1])
    with pytest.raises(ValueError) as sparse_error:
        quiet(train, A, y, max_epochs=2, **kw)
    with pytest.raises(ValueError) as dense_error:
        quiet(train, A.toarray(), y, max_epochs=2, **kw)
    assert str(sparse_error.value) == str(dense_error.value) == (
        f"X contains NaN or infinity (first at X[{A.shape[0] - 1}, {col}]); "
        "remove or impute those entries before training.")


def test_the_lean_loop_reads_the_callers_arrays_without_a_finite_pass(monkeypatch):
    # int32 indices reach the loop as they are (no copy to int64 or of the values),
    # and no NaN scan runs first; the general loop (pocket) does check first
    from markone import _loops
    from markone._internal import checks, data, validation

    A, y = big_sparse()
    seen, scans = [], []
    real_rows, real_refuse = _loops.kernel_rows, validation.refuse_nonfinite
    monkeypatch.setattr(_loops, "kernel_rows",
                        lambda X: seen.append(real_rows(X)) or seen[-1])
    for module in (checks, data, validation):  # every caller of the NaN scan
        monkeypatch.setattr(module, "refuse_nonfinite",
                            lambda X, **kw: scans.append(X) or real_refuse(X, **kw))
    quiet(train, A, y, max_epochs=2)
    data, indices, indptr = seen[0]
    assert data is A.data and indices is A.indices and indptr is A.indptr
    assert indices.dtype == np.int32 and scans == []
    quiet(train, A, y, max_epochs=2, variant="pocket")
    assert len(scans) == 1


def test_int32_and_int64_indices_give_the_same_weights():
    A, y = big_sparse()
    B = sp.csr_array((A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)),
                     shape=A.shape)
    for kw in (dict(), dict(intercept=False), dict(order="shuffle", seed=4),
               dict(variant="averaged")):
        a, b = quiet(train, A, y, max_epochs=3, **kw), quiet(train, B, y, max_epochs=3, **kw)
        assert_same_run(a, b)
        assert_same_run(a, quiet(train, A.toarray(), y, max_epochs=3, **kw))
        assert a.mistakes > 0


def test_dense_only_functions_say_so_never_ragged():
    A = sp.csr_matrix(np.eye(3))
    with pytest.raises(TypeError, match=r"csr_matrix of shape \(3, 3\).*toarray") as e:
        check_matrix(A)
    assert "ragged" not in str(e.value)


def test_sparse_integers_beyond_float64_are_refused_not_rounded():
    A = sp.csr_array(np.array([[0, 2**53 + 1], [1, 0]], dtype=np.int64))
    with pytest.raises(ValueError, match=r"X\[0, 1\] = 9007199254740993 .*not exactly"):
        train(A, [1, -1])
    B = sp.csr_array(np.array([[0, 2**53], [1, 0]], dtype=np.int64))  # exact: accepted
    assert train(B, [1, -1]).converged


@pytest.mark.parametrize("strategy", ["argmax", "ovr"])
@pytest.mark.parametrize("variant", ["last", "averaged"])
def test_multiclass_sparse_equals_dense(strategy, variant):
    rng = np.random.default_rng(4)
    X = (rng.random((80, 15)) < 0.25) * rng.integers(-3, 4, (80, 15)).astype(float)
    X[5] = 0  # an empty row
    y = rng.choice(["a", "b", "c"], 80)
    kw = dict(strategy=strategy, variant=variant, max_epochs=4)
    d = quiet(markone.MulticlassPerceptron(**kw).fit, X, y)
    s = quiet(markone.MulticlassPerceptron(**kw).fit, sp.csr_matrix(X), y)
    np.testing.assert_array_equal(d.w_, s.w_)
    np.testing.assert_array_equal(d.predict(X), s.predict(sp.csc_array(X)))
    d.partial_fit(X[:30], y[:30])
    s.partial_fit(sp.coo_matrix(X[:30]), y[:30])
    np.testing.assert_array_equal(d.w_, s.w_)


def sparse_aware_poly(A, B):
    """(a . b + 1)^2 on dense or sparse operands (a user's kernel for sparse data)."""
    K = A @ B.T
    return ((K.toarray() if sp.issparse(K) else np.asarray(K)) + 1.0) ** 2


KERNEL_SETTINGS = [dict(), dict(kernel="poly", degree=2), dict(kernel="poly", gamma=0.5),
                   dict(kernel="rbf"), dict(kernel="rbf", gamma=0.25, intercept=False),
                   dict(kernel=sparse_aware_poly)]


@given(sparse_int_data(max_n=16, max_d=6), st.sampled_from(KERNEL_SETTINGS),
       st.sampled_from(SPARSE_TYPES), st.integers(1, 4),
       st.sampled_from(["given", "shuffle"]))
def test_kernel_perceptron_sparse_equals_dense_hypo(data, params, kind, epochs, order):
    X, y = data
    assume(len(np.unique(y)) == 2)
    if params.get("intercept") is False:
        X[~X.any(axis=1), 0] = 1.0  # k(0, 0) = 0 is refused without the intercept
    kw = dict(params, max_epochs=epochs, order=order, seed=1)
    dense = quiet(markone.KernelPerceptron(**kw).fit, X, y)
    sparse = quiet(markone.KernelPerceptron(**kw).fit, kind(X), y)
    np.testing.assert_array_equal(dense.alpha_, sparse.alpha_, strict=True)
    assert dense.mistakes_per_epoch_ == sparse.mistakes_per_epoch_
    assert sp.issparse(sparse.support_vectors_)  # stored sparse, never written out
    np.testing.assert_array_equal(sparse.support_vectors_.toarray(), dense.support_vectors_)
    np.testing.assert_array_equal(dense.dual_coef_, sparse.dual_coef_)
    for Z in (X, sp.csr_array(X), X[::-1].copy()):  # dense and sparse queries alike
        np.testing.assert_array_equal(dense.decision_function(Z),
                                      sparse.decision_function(Z), strict=True)
        np.testing.assert_array_equal(dense.predict(Z), sparse.predict(Z))
    # continuing: a sparse batch on the dense model, a dense one on the sparse model,
    # then one example at a time
    dense.partial_fit(kind(X[::-1]), y[::-1])
    sparse.partial_fit(X[::-1], y[::-1])
    for x, t in zip(X, y):
        dense.learn_one(x, t)
        sparse.learn_one(x, t)
    np.testing.assert_array_equal(dense.alpha_, sparse.alpha_)
    np.testing.assert_array_equal(dense.decision_function(X), sparse.decision_function(X))
    assert [dense.predict_one(x) for x in X] == [sparse.predict_one(x) for x in X]


def test_kernel_perceptron_sparse_stays_sparse():
    # 2,000 x 100,000 with 5 stored entries a row: the dense matrix would need 1.6 GB
    rng = np.random.default_rng(8)
    n, d = 2000, 100_000
    A = sp.random_array((n, d), density=5 / d, rng=rng, format="csr",
                        data_sampler=lambda size: rng.integers(1, 4, size).astype(float))
    y = np.where(rng.random(n) < 0.5, 1, -1)
    clf = quiet(markone.KernelPerceptron(kernel="rbf", max_epochs=3).fit, A, y)
    S = clf.support_vectors_
    assert S.format == "csr" and S.shape == (int((clf.alpha_ > 0).sum()), d)
    assert S.nnz <= A.nnz
    assert clf.predict(A[:50]).shape == (50,)
