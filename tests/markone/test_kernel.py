"""KernelPerceptron (dual form) and kernel_matrix."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import markone
from markone import ConvergenceWarning, KernelPerceptron
from markone.kernel import kernel_matrix


@st.composite
def binary_data(draw, max_n=14, max_d=3, lo=-3, hi=3):
    n = draw(st.integers(2, max_n))
    d = draw(st.integers(1, max_d))
    X = draw(arrays(np.int64, (n, d), elements=st.integers(lo, hi))).astype(float)
    y = np.array([-1, 1] + draw(st.lists(st.sampled_from([-1, 1]), min_size=n - 2,
                                         max_size=n - 2)))
    return X, y


orders = st.one_of(st.sampled_from(["given", "shuffle"]),
                   st.lists(st.integers(0, 1000), min_size=1, max_size=30))


def resolve(order, n):
    return order if isinstance(order, str) else np.array(order) % n


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fn(*args, **kwargs)


@given(binary_data(), st.booleans(), st.integers(1, 6), orders, st.integers(0, 99))
def test_linear_kernel_is_the_primal_run_hypo(data, intercept, epochs, order, seed):
    X, y = data
    if not intercept:  # a zero vector can never be learned without the intercept
        keep = X.any(axis=1)
        X, y = X[keep], y[keep]
        if len(set(y)) < 2:
            return
    order = resolve(order, len(X))
    kw = dict(intercept=intercept, max_epochs=epochs, order=order, seed=seed)
    primal = quiet(markone.train, X, y, record=True, **kw)
    dual = quiet(KernelPerceptron(**kw).fit, X, y)
    assert np.array_equal(dual.alpha_, np.bincount(primal.mistake_indices, minlength=len(X)))
    assert dual.mistakes_per_epoch_ == primal.mistakes_per_epoch
    assert dual.converged_ == primal.converged
    grid = np.array(np.meshgrid(*[np.arange(-4, 5)] * X.shape[1])).reshape(X.shape[1], -1).T
    for Z in (X, grid.astype(float)):
        assert np.array_equal(dual.decision_function(Z), primal.decision_function(Z))
        assert np.array_equal(dual.predict(Z), primal.predict(Z))


def quadratic_features(X):
    """Feature map of (x . z + 2)^2: [x_i x_j for all i, j], 2 x, 2 (integer-valued)."""
    return np.hstack([np.einsum("ni,nj->nij", X, X).reshape(len(X), -1), 2 * X,
                      np.full((len(X), 1), 2.0)])


@given(binary_data(), st.integers(1, 5))
def test_poly_kernel_is_the_primal_run_on_explicit_features_hypo(data, epochs):
    X, y = data
    dual = quiet(KernelPerceptron(kernel="poly", degree=2, gamma=1, coef0=2,
                                  intercept=False, max_epochs=epochs).fit, X, y)
    primal = quiet(markone.train, quadratic_features(X), y, intercept=False,
                   max_epochs=epochs, record=True)
    assert np.array_equal(dual.alpha_, np.bincount(primal.mistake_indices, minlength=len(X)))
    assert np.array_equal(dual.decision_function(X),
                          quadratic_features(X) @ np.asarray(primal.w))


@pytest.mark.parametrize("params", [dict(kernel="poly", degree=2), dict(kernel="rbf"),
                                    dict(kernel="rbf", gamma=3.0, intercept=False)])
def test_xor_is_learned_by_nonlinear_kernels(params):
    X, y = markone.datasets.xor()
    clf = KernelPerceptron(**params).fit(X, y)
    assert clf.converged_
    assert clf.predict(X).tolist() == y.tolist()
    assert clf.score(X, y) == 1.0


def test_xor_is_not_learned_by_the_linear_kernel():
    X, y = markone.datasets.xor()
    with pytest.warns(ConvergenceWarning, match="max_epochs=25"):
        clf = KernelPerceptron(max_epochs=25).fit(X, y)
    assert not clf.converged_ and clf.n_epochs_ == 25


def test_xor_poly_hand_worked():
    # k(x, z) + 1 = (x.z + 1)^2 + 1 on the +-1 corners: 10 on the diagonal, 2 off it
    # when the points differ in one coordinate, 2 when they are opposite (x.z = -2).
    X, y = markone.datasets.xor()
    clf = KernelPerceptron(kernel="poly", degree=2, gamma=1.0).fit(X, y)
    G = kernel_matrix(X, X, "poly", degree=2, gamma=1.0) + 1
    assert sorted(set(G.ravel().tolist())) == [2.0, 10.0]
    # pass 1: the scores before each update are 0, -2, 0, +2 against labels
    # -1, +1, +1, -1, so every example errs once; then
    # f(x_i) = 10 y_i + 2 sum_{j != i} y_j = 8 y_i, since the labels sum to zero
    assert clf.alpha_.tolist() == [1, 1, 1, 1] and clf.mistakes_per_epoch_ == (4, 0)
    assert np.array_equal(clf.decision_function(X), 8.0 * y)


def test_callable_kernel_equals_the_named_one():
    X, y = markone.datasets.xor()
    named = KernelPerceptron(kernel="poly", degree=2, gamma=1.0, coef0=1.0).fit(X, y)
    func = KernelPerceptron(kernel=lambda A, B: (A @ B.T + 1) ** 2).fit(X, y)
    assert np.array_equal(named.alpha_, func.alpha_)
    assert np.array_equal(named.decision_function(X), func.decision_function(X))


def test_rbf_default_gamma_and_values():
    X = np.array([[0.0, 0.0], [1.0, 2.0]])
    clf = KernelPerceptron(kernel="rbf", intercept=False).fit(X, [0, 1])
    assert clf.gamma_ == 0.5
    # pass 1: x0 errs (f = 0); x1: f = -exp(-0.5 * 5) < 0 errs; pass 2 is clean
    assert clf.alpha_.tolist() == [1, 1]
    z = np.array([[1.0, 1.0]])
    expected = -np.exp(-0.5 * 2) + np.exp(-0.5 * 1)
    np.testing.assert_allclose(clf.decision_function(z), [expected])


@given(binary_data(), st.integers(1, 4))
def test_partial_fit_passes_equal_fit_on_integer_data_hypo(data, epochs):
    X, y = data
    fitted = quiet(KernelPerceptron(max_epochs=epochs).fit, X, y)
    online = KernelPerceptron()
    for _ in range(epochs):
        online.partial_fit(X, y, classes=[-1, 1])
    assert np.array_equal(online.decision_function(X), fitted.decision_function(X))
    assert online.n_mistakes_ == fitted.n_mistakes_
    assert online.alpha_.sum() == fitted.alpha_.sum()


def test_learn_one_is_partial_fit_on_one_example():
    X, y = markone.datasets.xor()
    a, b = KernelPerceptron(kernel="rbf"), KernelPerceptron(kernel="rbf")
    a.partial_fit(X, y, classes=[-1, 1])
    for x, label in zip(X, y):
        b.learn_one(x, label, classes=[-1, 1])
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    assert a.predict_one(X[0]) == b.predict_one(X[0])
    assert len(b.support_vectors_) == b.n_mistakes_  # only mistakes are stored


def test_string_labels_and_shuffle_seed():
    X, y = markone.datasets.xor()
    labels = np.where(y > 0, "differ", "same")
    runs = [KernelPerceptron(kernel="rbf", order="shuffle", seed=s).fit(X, labels)
            for s in (4, 4)]
    assert runs[0].classes_.tolist() == ["differ", "same"]
    assert np.array_equal(runs[0].alpha_, runs[1].alpha_)
    assert runs[0].predict(X).tolist() == labels.tolist()


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("params, match", [
    (dict(kernel="sigmoid"), "kernel"), (dict(degree=0), "degree"),
    (dict(gamma=-1.0), "gamma"), (dict(coef0=-1.0), "coef0"),
    (dict(max_epochs=0), "max_epochs"), (dict(intercept_scale=0.0), "intercept_scale"),
    (dict(kernel=lambda A, B: A @ B.T[:, :1]), "callable"),
])
def test_bad_parameters_are_checked_in_fit(params, match):
    clf = KernelPerceptron(**params)
    with pytest.raises(ValueError, match=match):
        clf.fit([[1.0], [2.0]], [0, 1])


@pytest.mark.parametrize("X, y, match", [
    ([[1.0], [2.0], [3.0]], [0, 1, 2], "Only binary classification"),
    ([[1.0], [2.0]], [1, 1], "only one class"),
    ([[1.0], [np.inf]], [0, 1], "Input X contains infinity"),
    ([[1.0], [2.0]], [0], "inconsistent numbers of samples"),
    ([[[1.0]], [[2.0]]], [0, 1], "Found array with dim 3"),
])
def test_fit_bad_input(X, y, match):
    with pytest.raises(ValueError, match=match):
        KernelPerceptron().fit(X, y)


def test_zero_vector_in_feature_space_is_an_error():
    with pytest.raises(ValueError, match=r"X\[1\] has k\(x, x\) = 0"):
        KernelPerceptron(intercept=False).fit([[1.0], [0.0]], [0, 1])
    KernelPerceptron(intercept=False, kernel="rbf").fit([[1.0], [0.0]], [0, 1])


def test_partial_fit_and_predict_errors():
    clf = KernelPerceptron()
    with pytest.raises(ValueError, match="not fitted"):
        clf.predict([[1.0]])
    with pytest.raises(ValueError, match="classes must be passed"):
        clf.partial_fit([[1.0]], ["a"])
    clf.partial_fit([[1.0]], ["a"], classes=["a", "b"])
    with pytest.raises(ValueError, match=r"labels \['c'\] not among"):
        clf.partial_fit([[1.0]], ["c"])
    with pytest.raises(ValueError, match="X has 2 features"):
        clf.decision_function([[1.0, 2.0]])


def test_rational_intercept_scale_equals_its_float():
    X, y = [[1.0], [2.0], [-1.0]], [0, 1, 0]
    a = KernelPerceptron(intercept_scale="3/4").fit(X, y)
    b = KernelPerceptron(intercept_scale=0.75).fit(X, y)
    assert a.alpha_.tolist() == b.alpha_.tolist()
    with pytest.raises(ValueError, match="'intercept_scale' parameter"):
        KernelPerceptron(intercept_scale="3/0").fit(X, y)
