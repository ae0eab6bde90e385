"""The scikit-learn adapters: sklearn's own estimator checks, and sklearn as an oracle."""

import pathlib
import re
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.linear_model import Perceptron as SkPerceptron  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import markone  # noqa: E402
from markone import ConvergenceWarning  # noqa: E402
from markone.sklearn import (  # noqa: E402
    KernelPerceptronClassifier,
    MulticlassPerceptronClassifier,
    PerceptronClassifier,
)

ADAPTERS = [
    PerceptronClassifier(),
    PerceptronClassifier(variant="averaged", order="shuffle", seed=0),
    MulticlassPerceptronClassifier(),
    MulticlassPerceptronClassifier(strategy="ovr", variant="averaged"),
    KernelPerceptronClassifier(),
    KernelPerceptronClassifier(kernel="rbf"),
]


@parametrize_with_checks(ADAPTERS)
def test_sklearn_check_estimator(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


@st.composite
def integer_data(draw, max_classes):
    K = draw(st.integers(2, max_classes))
    n = draw(st.integers(K, 16))
    d = draw(st.integers(1, 4))
    X = draw(arrays(np.int64, (n, d), elements=st.integers(-4, 4))).astype(float)
    y = np.array(list(range(K)) + draw(st.lists(st.integers(0, K - 1), min_size=n - K,
                                                max_size=n - K)))
    return X, y


def quiet_fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # markone's and sklearn's ConvergenceWarning
        return estimator.fit(X, y)


def sklearn_perceptron(epochs):
    return SkPerceptron(shuffle=False, tol=None, eta0=1, max_iter=epochs, fit_intercept=True)


@given(integer_data(max_classes=2), st.integers(1, 8))
def test_binary_weights_equal_sklearn_perceptron_hypo(data, epochs):
    # sklearn updates on y * score <= 0 as markone does (a zero score is a mistake);
    # it always runs max_iter passes, markone stops at a clean pass that changes nothing
    X, y = data
    sk = quiet_fit(sklearn_perceptron(epochs), X, y)
    ours = quiet_fit(PerceptronClassifier(max_epochs=epochs), X, y)
    assert np.array_equal(ours.coef_, sk.coef_)
    assert np.array_equal(ours.intercept_, sk.intercept_)
    assert np.array_equal(ours.result_.w, np.append(sk.coef_[0], sk.intercept_))
    # predictions agree except on a zero score: markone predicts classes_[1] there
    # (its documented convention), sklearn classes_[0]
    zero = sk.decision_function(X) == 0
    assert np.array_equal(ours.predict(X)[~zero], sk.predict(X)[~zero])
    assert (ours.predict(X)[zero] == ours.classes_[1]).all()


@given(integer_data(max_classes=4), st.integers(1, 8))
def test_ovr_weights_equal_sklearn_perceptron_hypo(data, epochs):
    # sklearn's multiclass Perceptron is one-vs-rest over the same binary rule; for two
    # classes it keeps one vector, that of class 1
    X, y = data
    sk = quiet_fit(sklearn_perceptron(epochs), X, y)
    ours = quiet_fit(MulticlassPerceptronClassifier(strategy="ovr", max_epochs=epochs),
                     X, y)
    rows = slice(1, None) if len(ours.classes_) == 2 else slice(None)
    assert np.array_equal(ours.coef_[rows], sk.coef_)
    assert np.array_equal(ours.intercept_[rows], sk.intercept_)


def test_adapters_are_the_markone_estimators():
    X, y = markone.datasets.iris()
    plain = quiet_fit(markone.MulticlassPerceptron(max_epochs=40, order="shuffle",
                                                   seed=3), X, y)
    adapted = quiet_fit(MulticlassPerceptronClassifier(max_epochs=40, order="shuffle",
                                                       seed=3), X, y)
    assert isinstance(adapted, markone.MulticlassPerceptron)
    assert np.array_equal(plain.coef_, adapted.coef_)
    assert clone(adapted).get_params() == adapted.get_params()
    assert adapted.n_features_in_ == 4


def test_grid_search_over_kernels():
    X, y = markone.datasets.xor()
    X = np.vstack([X, 0.9 * X])
    y = np.concatenate([y, y])
    grid = GridSearchCV(KernelPerceptronClassifier(max_epochs=20),
                        {"kernel": ["linear", "rbf"]}, cv=2)
    quiet_fit(grid, X, y)
    assert grid.best_params_ == {"kernel": "rbf"} and grid.best_score_ == 1.0


def test_binary_adapters_say_so_on_three_classes():
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        KernelPerceptronClassifier().fit([[0.0], [1.0], [2.0]], [0, 1, 2])


def test_only_markone_sklearn_imports_sklearn():
    root = pathlib.Path(markone.__file__).parent
    importers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                       if re.search(r"^\s*(import|from)\s+sklearn\b", p.read_text(),
                                    re.MULTILINE))
    assert importers == ["sklearn.py"]
