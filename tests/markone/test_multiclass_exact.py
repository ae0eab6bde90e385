"""MulticlassPerceptron(exact=True): exact scores, ties and weights (argmax and OvR)."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

import markone
from markone import ConvergenceWarning, MulticlassPerceptron

N = 2**53
#: Class scores 2^53 + 1 - 2^53: float64 cancels the 1 and every class ties at 0.
CANCEL_X = [[N, 1, N], [1, 1, -1], [0, 1, 0]]
CANCEL_Y, CANCEL_ORDER = [1, 1, 2], [0, 1, 1, 2]


def fraction_argmax(X, c, K, order, eta=Fraction(1)):
    """A ten-line argmax perceptron in Fractions (no intercept): (W, mistakes)."""
    W = [[Fraction(0)] * len(X[0]) for _ in range(K)]
    mistakes = 0
    for i in order:
        scores = [sum(w * Fraction(x) for w, x in zip(W[k], X[i])) for k in range(K)]
        p = scores.index(max(scores))  # first maximum: ties to the lowest index
        if p != c[i]:
            W[c[i]] = [w + eta * Fraction(x) for w, x in zip(W[c[i]], X[i])]
            W[p] = [w - eta * Fraction(x) for w, x in zip(W[p], X[i])]
            mistakes += 1
    return W, mistakes


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return call(*args, **kwargs)


@st.composite
def integer_data(draw, min_classes=2):
    K = draw(st.integers(min_classes, 4))
    n = draw(st.integers(K, 12))
    d = draw(st.integers(1, 3))
    X = draw(st.lists(st.lists(st.integers(-3, 3), min_size=d, max_size=d),
                      min_size=n, max_size=n))
    c = draw(st.permutations(list(range(K)))) + draw(
        st.lists(st.integers(0, K - 1), min_size=n - K, max_size=n - K))
    X = np.array(X, dtype=float)
    X[(X == 0).all(axis=1)] = 1.0  # no zero rows: they are refused without intercept
    return X, np.array(c), K


# --- the case float64 cannot get right ------------------------------------------------


def test_cancelling_scores_give_the_right_class_only_in_exact_mode():
    # after the mistake on x0 (a tie, predicted 0), class 1 scores x1 as
    # 2^53 + 1 - 2^53 = 1 and class 0 as -1: exactly, class 1 is predicted (correct);
    # float64 rounds 2^53 + 1 to 2^53 and all three classes tie: class 0, a mistake
    X = np.array(CANCEL_X, dtype=float)
    after_x0 = {exact: MulticlassPerceptron(intercept=False, order=[0], exact=exact)
                .partial_fit(X, CANCEL_Y, classes=[0, 1, 2]) for exact in (False, True)}
    assert after_x0[True].decision_function(X[1:2]).tolist() == [[-1, 1, 0]]
    assert after_x0[False].decision_function(X[1:2]).tolist() == [[0, 0, 0]]
    assert after_x0[True].predict_one(X[1]) == 1 and after_x0[False].predict_one(X[1]) == 0
    # the whole stream: 2 mistakes exactly; float64 errs on x1 too (then x1 again is
    # correct and x2 a mistake in both)
    runs = {exact: MulticlassPerceptron(intercept=False, order=CANCEL_ORDER, exact=exact)
            .partial_fit(X, CANCEL_Y, classes=[0, 1, 2]) for exact in (False, True)}
    exact, floating = runs[True], runs[False]
    assert exact.n_mistakes_ == 2 and floating.n_mistakes_ == 3
    assert exact.coef_.tolist() == [[-N, -1, -N], [N, 0, N], [0, 1, 0]]
    assert all(type(v) is Fraction for v in exact.coef_.ravel())
    assert exact.intercept_.tolist() == [0, 0, 0]
    W, m = fraction_argmax(CANCEL_X, CANCEL_Y, 3, CANCEL_ORDER)
    assert exact.coef_.tolist() == W and exact.n_mistakes_ == m


def test_exact_inputs_beyond_float64_are_taken_exactly():
    # 2^53 + 1 and 1/3 have no float64; exact mode takes them, scores them exactly
    X = [[N + 1, "1/3"], [-N, Fraction(-1, 3)], [0, 1]]
    clf = quiet(MulticlassPerceptron(intercept=False, exact=True, eta="1/2").fit,
                X, ["a", "b", "c"])
    W, m = fraction_argmax(X, [0, 1, 2], 3, list(range(3)) * clf.n_epochs_,
                           eta=Fraction(1, 2))
    assert clf.coef_.tolist() == W and clf.n_mistakes_ == m
    assert clf.predict(X).tolist() == ["a", "b", "c"] and clf.converged_
    with pytest.raises(ValueError, match="not exactly a float64"):
        MulticlassPerceptron(intercept=False).fit(X, ["a", "b", "c"])


@given(integer_data(), st.integers(1, 3), st.data())
def test_exact_equals_the_fraction_loop_on_rationals_hypo(data, epochs, draw):
    X, c, K = data
    denominators = draw.draw(st.lists(st.integers(1, 7), min_size=X.shape[1],
                                      max_size=X.shape[1]))
    Q = [[Fraction(int(v), q) for v, q in zip(row, denominators)] for row in X]
    clf = quiet(MulticlassPerceptron(intercept=False, exact=True, max_epochs=epochs,
                                     order=list(range(len(Q)))).partial_fit,
                Q, c, classes=range(K))
    for _ in range(epochs - 1):
        clf.partial_fit(Q, c)
    W, m = fraction_argmax(Q, c, K, list(range(len(Q))) * epochs)
    assert clf.coef_.tolist() == W and clf.n_mistakes_ == m


# --- exact and float64 agree where float64 is exact ----------------------------------


@settings(settings.get_profile("ci"))
@given(integer_data(), st.sampled_from(["argmax", "ovr"]),
       st.sampled_from(["last", "averaged"]), st.booleans(), st.integers(1, 4))
def test_exact_equals_float_on_integer_data_hypo(data, strategy, variant, intercept,
                                                 epochs):
    X, c, K = data
    params = dict(strategy=strategy, variant=variant, intercept=intercept,
                  max_epochs=epochs, order="shuffle", seed=3)
    fitted = {exact: quiet(MulticlassPerceptron(exact=exact, **params).fit, X, c)
              for exact in (False, True)}
    floating, exact = fitted[False], fitted[True]
    assert exact.coef_.dtype == object and exact.intercept_.dtype == object
    # the iterates are equal (Fraction == float compares exactly); an average is one
    # division, which float64 rounds correctly: the exact average rounded is its value
    assert exact._W.tolist() == floating._W.tolist()
    same = (lambda q, f: q == f) if variant == "last" else (lambda q, f: float(q) == f)
    for attr in ("coef_", "intercept_"):
        got, want = getattr(exact, attr).ravel(), getattr(floating, attr).ravel()
        assert all(same(q, f) for q, f in zip(got, want)), attr
    assert exact.mistakes_per_epoch_ == floating.mistakes_per_epoch_
    assert exact.predict(X).tolist() == floating.predict(X).tolist()
    # the stream API continues both the same way, one example at a time
    for x, y in zip(X[::-1], c[::-1]):
        exact.learn_one(x, y)
        floating.learn_one(x, y)
        assert exact.predict_one(x) == floating.predict_one(x)
    assert exact._W.tolist() == floating._W.tolist()
    assert exact.n_mistakes_ == floating.n_mistakes_


def test_ovr_rows_are_exact_train_runs():
    X, c = [["1/2", 1], [-1, "1/3"], [0, -1], [2, 2]], np.array([0, 1, 2, 0])
    clf = quiet(MulticlassPerceptron(strategy="ovr", exact=True, max_epochs=5).fit, X, c)
    for k in range(3):
        res = quiet(markone.train, X, np.where(c == k, 1, -1), exact=True, max_epochs=5)
        assert tuple(clf.w_[k]) == res.w


# --- errors, parameters, the estimator contract --------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_inputs_get_the_exact_modes_message(bad):
    X = [[1.0, 2.0], [bad, 0.0], [0.0, 1.0]]
    with pytest.raises(ValueError) as from_train:
        markone.train(X[:2], [1, -1], exact=True)
    clf = MulticlassPerceptron(exact=True)
    with pytest.raises(ValueError) as from_fit:
        clf.fit(X, [0, 1, 2])
    assert str(from_fit.value) == str(from_train.value) \
        == f"X[1, 0] is {bad}; exact mode needs finite numbers (no NaN or infinity)."
    clf.fit([[1, 0], [0, 1], [-1, -1]], [0, 1, 2])
    with pytest.raises(ValueError, match="exact mode needs finite numbers"):
        clf.predict([[bad, 0]])
    for call in (clf.predict_one, lambda x: clf.learn_one(x, 0)):
        with pytest.raises(ValueError, match=r"x\[0, 0\] is .*exact mode needs finite"):
            call([bad, 0])


def test_exact_is_a_parameter_checked_in_fit():
    clf = MulticlassPerceptron(exact=True)
    assert clf.get_params()["exact"] is True and clone(clf).exact is True
    assert MulticlassPerceptron().get_params()["exact"] is False
    with pytest.raises(markone.InvalidParameterError, match="'exact' parameter"):
        MulticlassPerceptron(exact="yes").fit([[1], [2]], [0, 1])


def test_partial_fit_refuses_a_changed_mode_and_predict_keeps_the_fitted_one():
    X, y = [[1, 0], [0, 1], [-1, -1]], [0, 1, 2]
    clf = MulticlassPerceptron(exact=True).fit(X, y)
    clf.set_params(exact=False)
    assert type(clf.coef_[0, 0]) is Fraction
    assert clf.predict(X).tolist() == y
    with pytest.raises(ValueError, match="call fit to restart"):
        clf.partial_fit(X, y)
    assert clf.fit(X, y).coef_.dtype == np.float64


def test_sparse_input_is_refused_in_exact_mode():
    sp = pytest.importorskip("scipy.sparse")
    with pytest.raises(TypeError, match="dense data is required"):
        MulticlassPerceptron(exact=True).fit(sp.csr_array([[1.0], [2.0]]), [0, 1])
