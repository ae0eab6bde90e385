"""markone.Perceptron: the estimator contract, and equality with train()."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import markone
from markone import ConvergenceWarning, Perceptron, datasets, online, train
from markone import NotFittedError


def test_fit_equals_train():
    X, y = datasets.iris()
    X, y = X[y < 2][:, 2:], y[y < 2]  # setosa vs versicolor, petals: separable
    clf = Perceptron().fit(X, y)
    res = train(X, y)
    assert clf.converged_ and clf.n_mistakes_ == res.mistakes and clf.n_epochs_ == res.epochs
    np.testing.assert_array_equal(clf.coef_[0], res.coef)
    assert clf.intercept_[0] == res.intercept
    assert clf.score(X, y) == 1.0
    assert clf.classes_.tolist() == [0, 1]


@given(hnp.arrays(np.int64, (6, 2), elements=st.integers(-3, 3)),
       hnp.arrays(np.int64, (6,), elements=st.sampled_from([-1, 1])),
       st.sampled_from(markone.perceptron.VARIANTS), st.integers(1, 5))
def test_partial_fit_passes_equal_train_epochs(X, y, variant, passes):
    clf = Perceptron(variant=variant)
    clf.partial_fit(X, y, classes=[-1, 1])
    for _ in range(passes - 1):
        clf.partial_fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = train(X, y, variant=variant, max_epochs=passes)
    if res.epochs == passes:  # train stops at a clean pass; partial_fit does not
        np.testing.assert_allclose(clf.w_, res.w, rtol=1e-12, atol=1e-12)


def test_learn_one_is_the_online_rule():
    rng = np.random.default_rng(3)
    X = rng.integers(-3, 4, size=(40, 3)).astype(float)
    y = np.where(X[:, 0] - X[:, 1] > 0, 1, -1)
    clf = Perceptron()
    w = np.zeros(4)
    for x, t in zip(X, y):
        clf.learn_one(x, t)
        w, _ = online.update(w, np.append(x, 1.0), t)
        assert clf.w_.tolist() == w.tolist()
    assert clf.predict_one(X[0]) in (-1, 1)


def test_string_classes_round_trip_and_pickle():
    X = [[0.0], [1.0], [2.0], [3.0]]
    clf = Perceptron().fit(X, ["lo", "lo", "hi", "hi"])
    assert clf.predict(X).tolist() == ["lo", "lo", "hi", "hi"]
    clone = pickle.loads(pickle.dumps(clf))
    assert clone.predict(X).tolist() == clf.predict(X).tolist()


def test_constructor_stores_verbatim_and_checks_in_fit():
    clf = Perceptron(eta=-1)  # stored as given ...
    assert clf.get_params()["eta"] == -1
    with pytest.raises(ValueError, match="eta"):  # ... and rejected in fit
        clf.fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(TypeError):
        Perceptron(1.0)  # keyword-only
    assert "variant='voted'" in repr(Perceptron(variant="voted"))


def test_estimator_bad_input():
    with pytest.raises(ValueError, match="only one class"):
        Perceptron().fit([[0.0], [1.0]], [1, 1])
    with pytest.raises(NotFittedError, match="not fitted"):
        Perceptron().predict([[0.0]])
    with pytest.raises(ValueError, match="classes must be passed"):
        Perceptron().partial_fit([[0.0]], [2])
    clf = Perceptron().fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(ValueError, match="features"):
        clf.predict([[0.0, 1.0]])
    with pytest.raises(ValueError, match="not among the classes"):
        clf.partial_fit([[0.0]], [7])
