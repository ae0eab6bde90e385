"""The learner core: exact values from theory, properties against tiny reference
loops and scikit-learn, and a clear error for every kind of bad input."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import markone
from markone import ConvergenceWarning, datasets, online, train

# ---------------------------------------------------------------------------------
# reference loops, written independently of the engine (plain Python, Fractions)


def reference_run(X, y, *, intercept=True, c=1, eta=1, max_epochs=100, order=None):
    """Textbook perceptron in Fractions; returns the per-presentation history."""
    rows = [[Fraction(v) for v in x] + ([Fraction(c)] if intercept else []) for x in X]
    d = len(rows[0])
    w = [Fraction(0)] * d
    order = list(range(len(rows))) if order is None else list(order)
    history = []  # (w before, mistake?) per presentation
    per_epoch = []
    for _ in range(max_epochs):
        m = 0
        for i in order:
            s = sum(a * b for a, b in zip(w, rows[i]))
            mistake = y[i] * s <= 0
            history.append((tuple(w), mistake, i))
            if mistake:
                w = [a + Fraction(eta) * y[i] * b for a, b in zip(w, rows[i])]
                m += 1
        per_epoch.append(m)
        if m == 0:
            break
    return w, per_epoch, history


def reference_variants(X, y, **kw):
    w, per_epoch, history = reference_run(X, y, **kw)
    # w_t after presentation t = w before presentation t+1 (or final w)
    afters = [h[0] for h in history[1:]] + [tuple(w)]
    T = len(afters)
    averaged = [sum(a[j] for a in afters) / T for j in range(len(w))]
    # runs of consecutive correct predictions of each vector
    vectors, counts = [tuple([Fraction(0)] * len(w))], [0]
    for (before, mistake, i), after in zip(history, afters):
        if mistake:
            vectors.append(after)
            counts.append(0)
        else:
            counts[-1] += 1
    best = max(range(len(counts)), key=lambda k: (counts[k], -k))
    pocket = vectors[best]
    return dict(last=w, averaged=averaged, pocket=list(pocket), vectors=vectors,
                counts=counts, per_epoch=per_epoch)


small_ints = st.integers(-4, 4)


@st.composite
def int_datasets(draw, max_n=8, max_d=3):
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, max_d))
    X = draw(hnp.arrays(np.int64, (n, d), elements=small_ints))
    y = draw(hnp.arrays(np.int64, (n,), elements=st.sampled_from([-1, 1])))
    return X, y


def quiet_train(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return train(*args, **kw)


# ---------------------------------------------------------------------------------
# exact values


def test_hand_worked_two_points():
    # x1 = (1/2, 1) labelled +1, x2 = (-1/3, 1) labelled -1 (constant 1 appended).
    # w = 0 -> mistake on x1: w = (1/2, 1). Score of x2: -1/6 + 1 = 5/6 > 0, wrong
    # side -> w = (1/2 + 1/3, 1 - 1) = (5/6, 0). Then both are right: 2 mistakes.
    res = train([["1/2"], ["-1/3"]], [1, -1], exact=True)
    assert res.w == (Fraction(5, 6), Fraction(0))
    assert (res.mistakes, res.epochs, res.converged) == (2, 2, True)
    assert res.mistakes_per_epoch == (2, 0)
    assert res.coef == (Fraction(5, 6),) and res.intercept == 0


def test_and_gate_weights():
    res = train([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, -1, -1, 1])
    assert res.w.tolist() == [3.0, 2.0, -4.0]
    assert (res.mistakes, res.epochs) == (18, 9)
    assert res.predict([[1, 1], [1, 0]]).tolist() == [1, -1]


@given(m=st.integers(1, 40), data=st.data())
def test_orthonormal_exactly_m_mistakes(m, data):
    labels = data.draw(st.lists(st.sampled_from([-1, 1]), min_size=m, max_size=m))
    X, y = datasets.orthonormal(m, labels=labels)
    res = train(X, y, intercept=False)
    assert res.mistakes == m
    assert res.converged and res.epochs == 2
    assert res.w.tolist() == [float(v) for v in labels]


@pytest.mark.parametrize("encoding", ["pm1", "01"])
def test_xor_never_converges(encoding):
    X, y = datasets.xor(encoding)
    with pytest.warns(ConvergenceWarning, match="not be linearly separable"):
        res = train(X, y, max_epochs=200)
    assert not res.converged and res.epochs == 200
    assert all(m > 0 for m in res.mistakes_per_epoch)


def test_first_example_always_updates():
    res = train([[5.0, 1.0], [1.0, 5.0]], [1, 1], record=True)
    assert res.mistake_indices[0] == 0


# ---------------------------------------------------------------------------------
# properties


@given(int_datasets(), st.booleans(), st.integers(1, 6))
def test_same_weights_as_scikit_learn(data, intercept, epochs):
    from sklearn.linear_model import Perceptron as SkPerceptron

    X, y = data
    assume(len(np.unique(y)) == 2)
    assume(intercept or np.all(np.any(X != 0, axis=1)))
    Xf = X.astype(float)
    sk = SkPerceptron(shuffle=False, tol=None, eta0=1, max_iter=epochs, alpha=0.0,
                      fit_intercept=intercept)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk.fit(Xf, y)
    # scikit-learn keeps passing after a clean pass; the weights no longer change
    res = quiet_train(Xf, y, intercept=intercept, max_epochs=epochs)
    np.testing.assert_array_equal(res.coef, sk.coef_[0])
    assert res.intercept == (sk.intercept_[0] if intercept else 0.0)


@given(int_datasets(), st.sampled_from(markone.perceptron.VARIANTS), st.booleans())
def test_float_equals_exact_on_small_integers(data, variant, intercept):
    X, y = data
    if not intercept and not np.all(np.any(X != 0, axis=1)):
        return
    f = quiet_train(X.astype(float), y, variant=variant, intercept=intercept, max_epochs=30,
                    record=True)
    e = quiet_train(X.tolist(), y, variant=variant, intercept=intercept, max_epochs=30,
                    exact=True, record=True)
    assert (f.mistakes, f.epochs, f.converged) == (e.mistakes, e.epochs, e.converged)
    assert f.mistake_indices == e.mistake_indices
    np.testing.assert_allclose(f.w, [float(v) for v in e.w], rtol=1e-12, atol=1e-12)
    assert [float(v) for v in e.last_w] == f.last_w.tolist()


@given(int_datasets(max_n=7, max_d=3), st.booleans())
def test_variants_match_reference_loops(data, intercept):
    X, y = data
    if not intercept and not np.all(np.any(X != 0, axis=1)):
        return
    ref = reference_variants(X.tolist(), y.tolist(), intercept=intercept, max_epochs=12)
    for variant in ("last", "averaged", "pocket"):
        res = quiet_train(X.tolist(), y, intercept=intercept, max_epochs=12, exact=True,
                          variant=variant)
        assert list(res.w) == ref[variant], variant
        assert res.mistakes_per_epoch == tuple(ref["per_epoch"])
    voted = quiet_train(X.tolist(), y, intercept=intercept, max_epochs=12, exact=True,
                        variant="voted")
    assert [tuple(v) for v in voted.vote_vectors] == [tuple(v) for v in ref["vectors"]]
    assert list(voted.vote_counts) == ref["counts"]
    # the vote predicts sign(sum_k c_k sign(v_k . x))
    A = [list(x) + ([1] if intercept else []) for x in X.tolist()]
    expected = [sum(c * (1 if s > 0 else -1 if s < 0 else 1)
                    for c, s in zip(ref["counts"], [sum(a * b for a, b in zip(v, x))
                                                    for v in ref["vectors"]]))
                for x in A]
    assert voted.decision_function(X.tolist()).tolist() == expected


@settings(max_examples=25)
@given(st.integers(2, 30), st.integers(10, 120), st.floats(0.05, 0.3), st.integers(0, 2**32))
def test_mistakes_within_novikoff_bound(d, n, margin, seed):
    X, y, u = datasets.separable(n, d, margin, seed=seed)
    R = np.linalg.norm(X, axis=1).max()
    gamma = np.min(y * (X @ u))
    assert gamma >= margin
    for order in ("given", "shuffle"):
        res = train(X, y, intercept=False, order=order, seed=seed)
        assert res.converged
        assert res.mistakes <= (R / gamma) ** 2


@given(int_datasets(), st.integers(-20, 20), st.fractions(Fraction(1, 1000), 1000))
def test_eta_changes_no_decision(data, k, eta):
    # in float, a power of two scales exactly; in exact mode any positive eta does
    X, y = data
    a = quiet_train(X.astype(float), y, max_epochs=20, record=True)
    b = quiet_train(X.astype(float), y, max_epochs=20, record=True, eta=2.0**k)
    assert a.mistake_indices == b.mistake_indices
    assert b.w.tolist() == (2.0**k * a.w).tolist()
    ea = quiet_train(X.tolist(), y, max_epochs=20, exact=True, record=True)
    eb = quiet_train(X.tolist(), y, max_epochs=20, exact=True, record=True, eta=eta)
    assert ea.mistake_indices == eb.mistake_indices
    assert eb.w == tuple(eta * v for v in ea.w)


@given(int_datasets(max_n=6), st.lists(st.integers(0, 5), min_size=1, max_size=25))
def test_stream_rerun_matches_online_rule(data, stream):
    X, y = data
    stream = [i % len(X) for i in stream]
    res = quiet_train(X.astype(float), y, order=stream, max_epochs=1, record=True)
    w = np.zeros(X.shape[1] + 1)
    mistakes = []
    for i in stream:
        w, mistake = online.update(w, np.append(X[i], 1.0), y[i])
        if mistake:
            mistakes.append(i)
    assert res.last_w.tolist() == w.tolist()
    assert list(res.mistake_indices) == mistakes
    if mistakes:
        assert res.weights_after[-1].tolist() == w.tolist()


def test_shuffle_is_seeded():
    X, y, _ = datasets.separable(200, 5, 0.05, seed=1)
    a = train(X, y, order="shuffle", seed=7, record=True)
    b = train(X, y, order="shuffle", seed=7, record=True)
    c = train(X, y, order="shuffle", seed=8, record=True)
    assert a.mistake_indices == b.mistake_indices
    assert a.mistake_indices != c.mistake_indices


def test_labels_of_any_two_values():
    X = [[0.0], [1.0], [2.0], [3.0]]
    res = train(X, ["b", "b", "a", "a"])
    assert res.classes.tolist() == ["a", "b"]
    assert res.predict(X).tolist() == ["b", "b", "a", "a"]
    one_class = train([[1.0], [2.0]], [1, 1])  # -1/+1 labels: one class is fine
    assert one_class.converged and one_class.mistakes == 1


def test_exact_overflow_falls_back_to_python_ints():
    big = 2**61
    X = [[big, 1], [1, -big], [-big, big], [3, 3]]
    y = [1, -1, 1, -1]
    res = quiet_train(X, y, exact=True, max_epochs=40)
    w, per_epoch, _ = reference_run(X, y, max_epochs=40)
    assert list(res.w) == w
    assert res.mistakes_per_epoch == tuple(per_epoch)


def test_exact_accepts_strings_fractions_and_floats():
    res = train([["0.25", Fraction(1, 3)], [0.5, -2]], [1, -1], exact=True)
    w, _, _ = reference_run([[Fraction(1, 4), Fraction(1, 3)], [Fraction(1, 2), -2]], [1, -1])
    assert list(res.w) == w


# ---------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("X, y, kw, match", [
    ([[1.0, np.nan]], [1], {}, "NaN or infinity"),
    ([[1.0, 2.0], [np.inf, 0.0]], [1, -1], {}, r"first at X\[1, 0\]"),
    ([[1.0, 2.0], [1.0]], [1, -1], {}, "ragged"),
    (np.empty((0, 2)), [], {}, "empty"),
    ([[1.0], [2.0]], [1], {}, "2 samples but y has 1"),
    ([[1.0], [2.0], [3.0]], [0, 1, 2], {}, "3 classes"),
    ([[0.0, 0.0], [1.0, 1.0]], [1, -1], {"intercept": False}, "zero vector"),
    ([["x"], ["1"]], [1, -1], {"exact": True}, "not a number"),
    ([[1.0]], [1], {"max_epochs": 0}, "max_epochs"),
    ([[1.0]], [1], {"eta": 0}, "eta"),
    ([[1.0]], [1], {"eta": -1.0}, "eta"),
    ([[1.0], [2.0]], [1, -1], {"order": [0, 2]}, "outside"),
    ([[1.0], [2.0]], [1, -1], {"variant": "best"}, "variant"),
    ([[1.0], [2.0]], [1, -1], {"order": "random"}, "order"),
    ([1.0, 2.0], [1, -1], {}, "reshape"),
])
def test_bad_input_is_named(X, y, kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        train(X, y, **kw)


def test_nan_caught_with_explicit_order_even_if_unvisited():
    with pytest.raises(ValueError, match="NaN"):
        train([[1.0], [np.nan]], [1, -1], order=[0])
