"""MulticlassPerceptron (argmax/Kesler and one-vs-rest) and kesler_expand."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import markone
from markone import ConvergenceWarning, MulticlassPerceptron
from markone.multiclass import kesler_expand
from markone.engine import augment


def textbook_argmax(X, c, K, epochs, order=None):
    """A plain-Python argmax perceptron: returns (last W, averaged W, per-epoch mistakes)."""
    Xa = [list(map(float, row)) + [1.0] for row in X]
    d = len(Xa[0])
    W = [[0.0] * d for _ in range(K)]
    total = [[0.0] * d for _ in range(K)]
    steps, per_epoch = 0, []
    for _ in range(epochs):
        m = 0
        for i in (range(len(Xa)) if order is None else order):
            scores = [sum(wj * xj for wj, xj in zip(W[k], Xa[i])) for k in range(K)]
            p = scores.index(max(scores))  # first maximum: ties to the lowest index
            if p != c[i]:
                for j in range(d):
                    W[c[i]][j] += Xa[i][j]
                    W[p][j] -= Xa[i][j]
                m += 1
            steps += 1
            for k in range(K):
                for j in range(d):
                    total[k][j] += W[k][j]
        per_epoch.append(m)
        if m == 0:
            break
    return np.array(W), np.array(total) / steps, per_epoch


@st.composite
def multiclass_data(draw, max_classes=4, min_classes=2):
    K = draw(st.integers(min_classes, max_classes))
    n = draw(st.integers(K, 14))
    d = draw(st.integers(1, 3))
    X = draw(arrays(np.int64, (n, d), elements=st.integers(-3, 3)))
    c = np.array(draw(st.permutations(list(range(K))))
                 + draw(st.lists(st.integers(0, K - 1), min_size=n - K, max_size=n - K)))
    return X.astype(float), c, K


def quiet_fit(clf, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clf.fit(X, y)


# --- exact values worked by hand -------------------------------------------------------


def test_hand_worked_three_classes():
    # pass 1: x0 ties (all scores 0) -> class 0, correct; x1 predicted 0 -> W1 += x1,
    # W0 -= x1; x2 scores (1, -1, 0) -> predicted 0 -> W2 += x2, W0 -= x2. Pass 2 clean.
    X = np.array([[1, 0], [0, 1], [-1, -1]])
    clf = MulticlassPerceptron(intercept=False).fit(X, [10, 20, 30])
    assert clf.coef_.tolist() == [[1, 0], [0, 1], [-1, -1]]
    assert clf.intercept_.tolist() == [0, 0, 0]
    assert clf.mistakes_per_epoch_ == (2, 0)
    assert (clf.n_mistakes_, clf.n_epochs_, clf.converged_) == (2, 2, True)
    assert clf.classes_.tolist() == [10, 20, 30]


def test_hand_worked_with_intercept_and_eta():
    # augmented inputs [x, 2]; x0 = [1, 2] class 1: tie -> predicted 0: W1 = 3*[1, 2],
    # W0 = -3*[1, 2]. x1 = [-1, 2] class 0: scores W0.x1 = -9, W1.x1 = 9 -> predicted 1:
    # W0 += 3*[-1, 2] -> [-6, 0], W1 -= 3*[-1, 2] -> [6, 0]. Pass 2: x0 scores (-6, 6),
    # x1 scores (6, -6): clean.
    clf = MulticlassPerceptron(intercept_scale=2, eta=3).fit([[1], [-1]], ["b", "a"])
    assert clf.w_.tolist() == [[-6, 0], [6, 0]]
    assert clf.coef_.tolist() == [[-6], [6]]
    assert clf.intercept_.tolist() == [0, 0]
    assert clf.mistakes_per_epoch_ == (2, 0)
    assert clf.decision_function([[1], [0]]).tolist() == [12, 0]   # s1 - s0
    assert clf.predict([[1], [0], [-1]]).tolist() == ["b", "a", "a"]  # tie -> "a"


def test_zero_start_first_example_of_class_0_makes_no_update():
    clf = MulticlassPerceptron().learn_one([1.0, 1.0], "x", classes=["x", "y", "z"])
    assert clf.n_mistakes_ == 0 and not clf.coef_.any()
    clf.learn_one([1.0, 1.0], "z")
    assert clf.n_mistakes_ == 1
    assert clf.w_.tolist() == [[-1, -1, -1], [0, 0, 0], [1, 1, 1]]


# --- properties against independent oracles --------------------------------------------


@given(multiclass_data(), st.integers(1, 6))
def test_argmax_equals_textbook_loop_hypo(data, epochs):
    X, c, K = data
    W, avg, per_epoch = textbook_argmax(X, c, K, epochs)
    last = quiet_fit(MulticlassPerceptron(max_epochs=epochs), X, c)
    assert np.array_equal(last.w_, W)
    assert list(last.mistakes_per_epoch_) == per_epoch
    averaged = quiet_fit(MulticlassPerceptron(max_epochs=epochs, variant="averaged"), X, c)
    np.testing.assert_allclose(averaged.w_, avg, rtol=1e-12, atol=1e-12)


@given(multiclass_data(), st.integers(1, 4))
def test_argmax_is_train_on_kesler_vectors_of_its_mistakes_hypo(data, epochs):
    X, c, K = data
    clf = MulticlassPerceptron(max_epochs=epochs, order="given")
    quiet_fit(clf, X, c)
    # re-run one example at a time, noting each mistake and the class predicted there
    online = MulticlassPerceptron()
    rows, rivals = [], []
    for _ in range(clf.n_epochs_):
        for i in range(len(X)):
            p = online.predict_one(X[i]) if hasattr(online, "classes_") else 0
            if p != c[i]:
                rows.append(i)
                rivals.append(p)
            online.learn_one(X[i], c[i], classes=range(K))
    assert np.array_equal(online.w_, clf.w_)  # learn_one runs the same rule as fit
    assert len(rows) == clf.n_mistakes_
    if not rows:
        return
    psi = kesler_expand(augment(X)[rows], c[rows], K, rival=rivals)
    res = markone.train(psi, np.ones(len(rows)), intercept=False, max_epochs=1,
                        order=np.arange(len(rows)))
    assert res.mistakes == len(rows)           # the binary rule errs on every one
    assert np.array_equal(np.asarray(res.w).reshape(K, -1), clf.w_)


@given(multiclass_data(max_classes=2),
       st.lists(st.integers(0, 100), min_size=1, max_size=40))
def test_two_classes_equal_binary_kesler_until_a_class0_tie_hypo(data, picks):
    X, c, _ = data
    stream = np.array([p % len(X) for p in picks])
    # the first presentation at which an example of class 0 meets a tie
    online, tie_at = MulticlassPerceptron(), len(stream)
    for t, i in enumerate(stream):
        if c[i] == 0 and (not hasattr(online, "classes_")
                          or online.decision_function(X[i:i + 1])[0] == 0):
            tie_at = t
            break
        online.learn_one(X[i], c[i], classes=[0, 1])
    psi = kesler_expand(augment(X), c, 2)          # one vector per example
    for stop in {tie_at, min(tie_at + 1, len(stream))}:
        if stop == 0:
            continue
        part = stream[:stop]
        multi = MulticlassPerceptron(order=part, max_epochs=1).fit(X, c)
        binary = markone.train(psi, np.ones(len(X)), intercept=False, order=part,
                               max_epochs=1)
        if stop == tie_at:  # before the first class-0 tie the runs are identical
            assert np.array_equal(np.asarray(binary.w).reshape(2, -1), multi.w_)
            assert binary.mistakes == multi.n_mistakes_
        else:               # at the tie the binary rule updates, argmax does not
            assert binary.mistakes == multi.n_mistakes_ + 1


@given(st.integers(0, 2**32 - 1), st.integers(2, 5), st.integers(2, 6))
def test_separable_data_converge_within_kesler_bound_hypo(seed, K, d):
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(K, d))
    U /= np.linalg.norm(U)                      # ||U||_F = 1
    X = rng.normal(size=(400, d))
    S = X @ U.T
    c = S.argmax(axis=1)
    rivals = np.where(np.arange(K) == c[:, None], -np.inf, S).max(axis=1)
    margin = S[np.arange(len(X)), c] - rivals
    keep = margin >= 0.05
    X, c, margin = X[keep], c[keep], margin[keep]
    if len(np.unique(c)) < 2:
        return
    gamma, R = margin.min(), np.linalg.norm(X, axis=1).max()
    clf = MulticlassPerceptron(intercept=False, max_epochs=100_000).fit(X, c)
    assert clf.converged_
    assert clf.n_mistakes_ <= 2 * (R / gamma) ** 2
    assert np.array_equal(clf.predict(X), clf.classes_[np.searchsorted(clf.classes_, c)])


@given(multiclass_data(min_classes=3), st.integers(1, 5),
       st.sampled_from(["last", "averaged"]))
def test_ovr_rows_are_binary_train_runs_hypo(data, epochs, variant):
    X, c, K = data
    clf = quiet_fit(MulticlassPerceptron(strategy="ovr", max_epochs=epochs,
                                         variant=variant), X, c)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        runs = [markone.train(X, np.where(c == k, 1, -1), max_epochs=epochs,
                              variant=variant) for k in range(K)]
    assert np.array_equal(clf.w_, np.array([r.w for r in runs]))
    assert clf.n_mistakes_ == sum(r.mistakes for r in runs)
    assert clf.converged_ == all(r.converged for r in runs)
    scores = X @ clf.coef_.T + clf.intercept_
    assert np.array_equal(clf.predict(X), np.argmax(scores, axis=1))


@pytest.mark.parametrize("strategy", ["argmax", "ovr"])
@given(data=multiclass_data(), epochs=st.integers(1, 4))
def test_partial_fit_passes_equal_fit_hypo(strategy, data, epochs):
    X, c, K = data
    fitted = quiet_fit(MulticlassPerceptron(strategy=strategy, max_epochs=epochs), X, c)
    online = MulticlassPerceptron(strategy=strategy)
    for _ in range(epochs):
        online.partial_fit(X, c, classes=np.arange(K))
    assert np.array_equal(online.w_, fitted.w_)
    if fitted.n_epochs_ == epochs:  # no early stop: the same presentations
        assert online.mistakes_per_epoch_ == fitted.mistakes_per_epoch_
    # the average too, for the weight vectors whose run made all `epochs` passes
    avg_fit = quiet_fit(MulticlassPerceptron(strategy=strategy, variant="averaged",
                                             max_epochs=epochs), X, c)
    avg_online = MulticlassPerceptron(strategy=strategy, variant="averaged")
    for _ in range(epochs):
        avg_online.partial_fit(X, c, classes=np.arange(K))
    if strategy == "argmax":
        full = np.full(K, fitted.n_epochs_ == epochs)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            full = np.array([markone.train(X, np.where(c == k, 1, -1),
                                           max_epochs=epochs).epochs == epochs
                             for k in range(K)])
    np.testing.assert_allclose(avg_online.w_[full], avg_fit.w_[full], rtol=1e-12,
                               atol=1e-9)


def test_ovr_learn_one_uses_the_online_rule():
    X = np.array([[1.0, 2.0], [2.0, -1.0], [-1.0, -1.0]])
    clf = MulticlassPerceptron(strategy="ovr")
    W = np.zeros((3, 3))
    for i, x in enumerate(X):
        clf.learn_one(x, i, classes=[0, 1, 2])
        for k in range(3):
            W[k] = markone.online.update(W[k], np.append(x, 1.0), 1 if k == i else -1)[0]
    assert np.array_equal(clf.w_, W)


def test_kesler_identity_and_shapes():
    rng = np.random.default_rng(3)
    X, c, W = rng.normal(size=(5, 3)), np.array([0, 2, 1, 2, 0]), rng.normal(size=(3, 3))
    psi = kesler_expand(X, c, 3)
    assert psi.shape == (10, 9)
    pairs = [(i, k) for i in range(5) for k in range(3) if k != c[i]]
    expected = [W[c[i]] @ X[i] - W[k] @ X[i] for i, k in pairs]
    np.testing.assert_allclose(psi @ W.ravel(), expected)
    np.testing.assert_allclose(np.linalg.norm(psi, axis=1),
                               np.sqrt(2) * np.linalg.norm(X[[i for i, _ in pairs]], axis=1))


def test_shuffle_is_seeded():
    X, y = markone.datasets.iris()
    runs = [quiet_fit(MulticlassPerceptron(order="shuffle", seed=s, max_epochs=5), X, y)
            for s in (1, 1, 2)]
    assert np.array_equal(runs[0].w_, runs[1].w_)
    assert not np.array_equal(runs[0].w_, runs[2].w_)


def test_iris_warns_and_averaging_helps():
    X, y = markone.datasets.iris()
    with pytest.warns(ConvergenceWarning, match="max_epochs=30"):
        last = MulticlassPerceptron(max_epochs=30).fit(X, y)
    assert not last.converged_ and last.n_epochs_ == 30
    with pytest.warns(ConvergenceWarning, match="one-vs-rest"):
        MulticlassPerceptron(strategy="ovr", max_epochs=30).fit(X, y)
    with pytest.warns(ConvergenceWarning):
        averaged = MulticlassPerceptron(max_epochs=30, variant="averaged",
                                        order="shuffle", seed=0).fit(X, y)
    assert averaged.decision_function(X).shape == (150, 3)
    assert averaged.score(X, y) >= 0.95   # 0.973 with this seed


def test_no_warning_when_converged_or_rerunning_a_stream():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MulticlassPerceptron().fit([[1.0], [-1.0], [3.0]], [1, 0, 1])
        MulticlassPerceptron(order=[0, 1, 0], max_epochs=1).fit(
            [[1.0, 0.0], [0.0, 1.0]], [1, 0])


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("X, y, match", [
    ([[1.0], [2.0]], [3, 3], "only one class"),
    ([[1.0], [float("nan")]], [0, 1], "NaN"),
    ([1.0, 2.0], [0, 1], "Expected 2D array"),
    ([[1.0], [2.0]], [0, 1, 1], "samples"),
    ([[0.0], [1.0]], [1, 0], r"X\[0\] is the zero vector"),
])
def test_fit_bad_input(X, y, match):
    with pytest.raises(ValueError, match=match):
        MulticlassPerceptron(intercept=False).fit(X, y)


@pytest.mark.parametrize("params, match", [
    (dict(strategy="ovo"), "strategy"), (dict(variant="voted"), "variant"),
    (dict(max_epochs=0), "max_epochs"), (dict(eta=0), "eta"),
    (dict(order=[0, 5]), "outside"),
])
def test_bad_parameters_are_checked_in_fit(params, match):
    clf = MulticlassPerceptron(**params)            # stored verbatim, no check yet
    assert clf.get_params()[next(iter(params))] == next(iter(params.values()))
    with pytest.raises(ValueError, match=match):
        clf.fit([[1.0], [2.0]], [0, 1])


def test_zero_vector_of_class_0_is_fine_without_intercept():
    clf = MulticlassPerceptron(intercept=False).fit([[0.0], [1.0]], [0, 1])
    assert clf.converged_
    with pytest.raises(ValueError, match="zero vector"):
        MulticlassPerceptron(strategy="ovr", intercept=False).fit([[0.0], [1.0]], [0, 1])


def test_partial_fit_errors():
    clf = MulticlassPerceptron()
    with pytest.raises(ValueError, match="classes must be passed"):
        clf.partial_fit([[1.0]], [0])
    clf.partial_fit([[1.0]], [0], classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"labels \[7\] not among the classes"):
        clf.partial_fit([[1.0]], [7])
    with pytest.raises(ValueError, match="has 2 features"):
        clf.partial_fit([[1.0, 2.0]], [0])
    with pytest.raises(ValueError, match="differs"):
        clf.partial_fit([[1.0]], [0], classes=[0, 1])
    with pytest.raises(ValueError, match="at least two"):
        MulticlassPerceptron().partial_fit([[1.0]], [0], classes=[0])


def test_predict_errors():
    with pytest.raises(ValueError, match="not fitted"):
        MulticlassPerceptron().predict([[1.0]])
    clf = MulticlassPerceptron().fit([[1.0], [2.0], [3.0]], [0, 1, 2])
    with pytest.raises(ValueError, match="X has 2 features"):
        clf.predict([[1.0, 2.0]])
    with pytest.raises(ValueError, match="kesler|rival"):
        kesler_expand([[1.0]], [0], 2, rival=[0])


def test_params_roundtrip_and_repr():
    clf = MulticlassPerceptron(strategy="ovr", max_epochs=5)
    assert clf.set_params(eta=2.0) is clf and clf.eta == 2.0
    assert repr(clf) == "MulticlassPerceptron(eta=2.0, max_epochs=5, strategy='ovr')"
    with pytest.raises(ValueError, match="Invalid parameter 'gamma'"):
        clf.set_params(gamma=1)
