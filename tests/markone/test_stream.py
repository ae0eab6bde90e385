"""One example at a time: learn_one/predict_one run the core's update in O(d).

A stream of learn_one calls is a re-run of ``train(X, y, order=stream, max_epochs=1)``
(the same weights and mistakes, for every variant); a learn_one is not an epoch; the
state does not grow with the stream unless the variant keeps history ("voted")."""

import contextlib
import itertools
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import markone
import markone._loops
from markone import KernelPerceptron, MulticlassPerceptron, Perceptron
from markone._loops import linear_scores, one_score


@contextlib.contextmanager
def _score_ops(limit):
    """``markone._loops.PLAIN_SCORE_OPS`` set to ``limit`` (restored after)."""
    before, markone._loops.PLAIN_SCORE_OPS = markone._loops.PLAIN_SCORE_OPS, limit
    try:
        yield
    finally:
        markone._loops.PLAIN_SCORE_OPS = before


@st.composite
def streams(draw, max_classes=2):
    n = draw(st.integers(1, 8))
    d = draw(st.integers(1, 4))
    X = draw(hnp.arrays(np.int64, (n, d), elements=st.integers(-3, 3))).astype(float)
    y = draw(hnp.arrays(np.int64, (n,), elements=st.integers(0, max_classes - 1)))
    stream = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=40))
    return X, y, stream


@given(streams(), st.sampled_from(markone.perceptron.VARIANTS), st.booleans())
def test_learn_one_stream_equals_train_rerun_hypo(data, variant, intercept):
    X, y, stream = data
    if not intercept:
        X[~X.any(axis=1), 0] = 1.0  # a zero row without intercept is refused
    clf = Perceptron(variant=variant, intercept=intercept)
    for i in stream:
        assert clf.learn_one(X[i], y[i], classes=[0, 1]) is clf
    res = markone.train(X, np.where(y == 1, 1, -1), order=stream, max_epochs=1,
                        variant=variant, intercept=intercept)
    assert clf.n_mistakes_ == res.mistakes
    assert clf.w_.tolist() == np.asarray(res.w).tolist()
    assert clf.n_epochs_ == 0 and clf.mistakes_per_epoch_ == ()  # no pass was made
    assert [clf.predict_one(x) for x in X] == clf.predict(X).tolist()


@given(streams(max_classes=4), st.sampled_from(["last", "averaged"]))
def test_multiclass_learn_one_stream_equals_fit_rerun_hypo(data, variant):
    X, y, stream = data
    classes = [0, 1, 2, 3]
    clf = MulticlassPerceptron(variant=variant)
    for i in stream:
        clf.learn_one(X[i], y[i], classes=classes)
    rerun = MulticlassPerceptron(variant=variant, order=stream, max_epochs=1)
    rerun.partial_fit(X, y, classes=classes)
    assert clf.n_mistakes_ == rerun.n_mistakes_
    assert np.array_equal(clf.w_, rerun.w_)
    assert [clf.predict_one(x) for x in X] == clf.predict(X).tolist()


@given(streams(), st.integers(1, 4))
def test_learn_one_continues_fit_like_partial_fit_hypo(data, epochs):
    X, y, _ = data
    y[:2] = [0, 1][:len(y)]
    if len(np.unique(y)) < 2:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        a = Perceptron(variant="averaged", max_epochs=epochs).fit(X, y)
        b = Perceptron(variant="averaged", max_epochs=epochs).fit(X, y)
    for x, t in zip(X, y):
        a.learn_one(x, t)
    b.partial_fit(X, y)
    assert np.array_equal(a.w_, b.w_) and a.n_mistakes_ == b.n_mistakes_
    assert a.n_epochs_ == b.n_epochs_ - 1  # the partial_fit was a pass, learn_one none


@pytest.mark.parametrize("variant, grows", [("last", False), ("averaged", False),
                                            ("pocket", False), ("voted", True)])
def test_stream_state_is_O_d_unless_voted(variant, grows):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 5))
    y = np.where(rng.random(4000) < 0.5, 1, -1)  # noise: mistakes all along
    clf = Perceptron(variant=variant)
    sizes = []
    for n in (200, 4000):
        for x, t in zip(X[len(sizes) and 200:n], y[len(sizes) and 200:n]):
            clf.learn_one(x, t)
        sizes.append(len(pickle.dumps(clf)))
    assert (sizes[1] > 2 * sizes[0]) == grows


def test_kernel_learn_one_stores_only_mistakes_and_is_no_epoch():
    X, y = markone.datasets.xor()
    clf = KernelPerceptron(kernel="poly", degree=2)
    for _ in range(3):
        for x, t in zip(X, y):
            clf.learn_one(x, t)
    assert clf.n_epochs_ == 0 and len(clf.support_vectors_) == clf.n_mistakes_ > 0
    assert [clf.predict_one(x) for x in X] == y.tolist()


@given(streams(), st.booleans(), st.sampled_from(["linear", "poly", "rbf"]))
def test_kernel_learn_one_stream_equals_rerun_hypo(data, intercept, kernel):
    # the linear kernel scores with its primal vector, the others with the support
    # set; either way the stream is one re-run pass (the same mistakes), and for the
    # linear kernel exactly train(order=stream, max_epochs=1), scores bit for bit
    X, y, stream = data
    if not intercept:
        X[~X.any(axis=1), 0] = 1.0  # k(0, 0) = 0 is refused without the intercept
    clf = KernelPerceptron(kernel=kernel, intercept=intercept)
    for i in stream:
        clf.learn_one(X[i], y[i], classes=[0, 1])
    rerun = KernelPerceptron(kernel=kernel, intercept=intercept, order=stream,
                              max_epochs=1).partial_fit(X, y, classes=[0, 1])
    assert clf.n_mistakes_ == rerun.n_mistakes_ == len(clf.dual_coef_)
    # the stream stores a row per mistake, the re-run one per example with its count,
    # so non-linear kernels sum the same terms grouped otherwise: equal to rounding
    np.testing.assert_allclose(clf.decision_function(X), rerun.decision_function(X),
                               rtol=1e-12, atol=1e-12)
    if kernel == "linear":
        res = markone.train(X, np.where(y == 1, 1, -1), order=stream, max_epochs=1,
                            intercept=intercept)
        assert clf.n_mistakes_ == res.mistakes
        assert np.array_equal(clf.decision_function(X), res.decision_function(X))
    assert [clf.predict_one(x) for x in X] == clf.predict(X).tolist()


def test_linear_kernel_learn_one_never_reads_the_support(monkeypatch):
    # O(d) a call: neither the stored rows nor any kernel matrix is touched
    def refuse(*args, **kwargs):
        raise AssertionError("the support set was read")

    X, y = markone.datasets.separable(300, 5, 0.1, seed=2)[:2]
    clf = KernelPerceptron()
    monkeypatch.setattr(markone.kernel, "_kernel", refuse)
    monkeypatch.setattr(markone._rows.Rows, "view", refuse)
    for x, t in zip(X, y):
        clf.learn_one(x, t)
        clf.predict_one(x)
    monkeypatch.undo()
    assert 0 < clf.n_mistakes_ == len(clf.support_vectors_)


def test_kernel_stream_costs_one_kernel_call_and_amortised_appends(monkeypatch):
    # rbf: each learn_one makes two kernel calls (k(x, x) and the row against the whole
    # support), and the stored arrays grow by doubling: O(log n) reallocations
    calls, grown = [0], [0]
    kernel, reserve = markone.kernel._kernel, markone._rows._reserve

    def counted_kernel(*args, **kwargs):
        calls[0] += 1
        return kernel(*args, **kwargs)

    def counted_reserve(buf, need):
        out = reserve(buf, need)
        grown[0] += out is not buf
        return out

    monkeypatch.setattr(markone.kernel, "_kernel", counted_kernel)
    monkeypatch.setattr(markone._rows, "_reserve", counted_reserve)
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(3000, 4)), rng.choice([-1, 1], 3000)  # noise: many mistakes
    clf = KernelPerceptron(kernel="rbf")
    for x, t in zip(X, y):
        clf.learn_one(x, t)
    assert calls[0] == 2 * len(X) - 1  # the first call has no support to score against
    m = clf.n_mistakes_
    assert m > 500
    # four growing arrays (counts, rows, coefficients, norms), each doubling from 16
    assert grown[0] <= 4 * int(np.ceil(np.log2(m / 16)))


@pytest.mark.parametrize("make", [Perceptron, MulticlassPerceptron, KernelPerceptron])
def test_learn_one_bad_input(make):
    clf = make()
    with pytest.raises(ValueError, match="classes must be passed"):
        clf.learn_one([1.0, 2.0], "a")
    clf.learn_one([1.0, 2.0], "a", classes=["a", "b"])
    with pytest.raises(ValueError, match="one sample of 2 features"):
        clf.learn_one([1.0, 2.0, 3.0], "a")
    with pytest.raises(ValueError, match="one sample of 2 features"):
        clf.predict_one([[1.0, 2.0]])
    with pytest.raises(ValueError, match=r"y='c' is not one of the classes \['a', 'b'\]"):
        clf.learn_one([1.0, 2.0], "c")
    with pytest.raises(ValueError, match="NaN or infinity"):
        clf.learn_one([np.nan, 2.0], "b")
    with pytest.raises(ValueError, match="differs from the classes"):
        clf.learn_one([1.0, 2.0], "a", classes=["a", "z"])
    before = clf.n_mistakes_
    clf.learn_one([1.0, 2.0], "b")  # a refused example changed nothing
    assert clf.n_mistakes_ == before + 1


def test_learn_one_zero_vector_without_intercept():
    clf = Perceptron(intercept=False)
    with pytest.raises(ValueError, match="zero vector and intercept=False"):
        clf.learn_one([0.0, 0.0], 1)


# predict_one and predict share one summation order ---------------------------------

_GRID = np.array(list(itertools.product(range(-3, 4), repeat=3)), dtype=float)


@pytest.mark.parametrize("make", [
    lambda: Perceptron(variant="averaged", max_epochs=3),
    lambda: Perceptron(variant="voted", max_epochs=3),
    lambda: MulticlassPerceptron(variant="averaged", max_epochs=3),
    lambda: KernelPerceptron(kernel="linear", max_epochs=3),
    lambda: KernelPerceptron(kernel="poly", degree=2, max_epochs=3),
], ids=["averaged", "voted", "multiclass", "kernel-linear", "kernel-poly"])
def test_predict_one_agrees_with_predict_on_ties(make):
    # averaged weights such as -0.9 make exact ties on an integer grid whose float
    # score is +-1e-16 depending on the summation order: a BLAS matrix product and a
    # single dot product disagreed on 6 of these points before the estimators scored
    # through markone._loops.linear_scores
    rng = np.random.default_rng(0)
    disagreements = 0
    for _ in range(60):
        X = rng.integers(-3, 4, size=(7, 3)).astype(float)
        y = rng.integers(0, 3 if isinstance(make(), MulticlassPerceptron) else 2, size=7)
        if len(np.unique(y)) < 2:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", markone.ConvergenceWarning)
            clf = make().fit(X, y)
        batch = clf.predict(_GRID)
        disagreements += sum(clf.predict_one(g) != b for g, b in zip(_GRID, batch))
    assert disagreements == 0


@given(st.integers(1, 6), st.integers(1, 5), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_linear_scores_sum_in_column_order_hypo(n, d, k, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < 0.6)
    W, b = rng.standard_normal((k, d)), rng.standard_normal(k)
    b[rng.random(k) < 0.3] = -0.0   # a zero sum plus -0.0: the loop's sign is kept
    oracle = np.empty((n, k))
    for i in range(n):
        for c in range(k):
            s = 0.0
            for j in range(d):   # Python floats: IEEE, left to right
                s += X[i, j] * W[c, j]
            oracle[i, c] = s + b[c]
    for rows, limit in itertools.product((X, sp.csr_array(X), sp.csr_matrix(X)),
                                         (markone._loops.PLAIN_SCORE_OPS, 0)):
        with _score_ops(limit):   # the numpy form, then the compiled loop
            S = linear_scores(rows, W, b)
            assert np.array_equal(S, oracle) and np.array_equal(
                np.signbit(S), np.signbit(oracle))
            assert np.array_equal(S[-1], linear_scores(X[-1:], W, b)[0])
        assert all(one_score(x, W[c], b[c]) == oracle[i, c]
                   for i, x in enumerate(X) for c in range(k))


# the lean path: a float64 row of the right width is taken as it is ---------------------

@pytest.mark.parametrize("make", [
    *(lambda v=v: Perceptron(variant=v) for v in markone.perceptron.VARIANTS),
    lambda: MulticlassPerceptron(variant="averaged"),
    lambda: KernelPerceptron(kernel="poly", degree=2),
], ids=[*markone.perceptron.VARIANTS, "multiclass", "kernel-poly"])
def test_lean_rows_learn_and_predict_as_lists_do(make):
    # float64 rows take the lean path after the first call; lists, big-endian rows
    # and rows with classes= go the general way: all end in the same state
    rng = np.random.default_rng(3)
    X = rng.integers(-3, 4, size=(300, 4)).astype(float)
    y = rng.integers(0, 3 if isinstance(make(), MulticlassPerceptron) else 2, size=300)
    classes = np.unique(y)
    lean, general, swapped = make(), make(), make()
    for x, t in zip(X, y):
        lean.learn_one(x, t, classes=None if hasattr(lean, "_code") else classes)
        general.learn_one(x.tolist(), t, classes=classes)
        swapped.learn_one(x.astype(">f8"), t, classes=None if hasattr(swapped, "_code")
                          else classes)
    assert lean.n_mistakes_ == general.n_mistakes_ == swapped.n_mistakes_ > 0
    assert np.array_equal(lean.decision_function(X), general.decision_function(X))
    assert np.array_equal(lean.decision_function(X), swapped.decision_function(X))
    assert [lean.predict_one(x) for x in X] == general.predict(X).tolist()
    assert [type(lean.predict_one(x)) for x in X[:2]] == [type(general.predict_one(
        x.tolist())) for x in X[:2]]


@pytest.mark.parametrize("make", [Perceptron, MulticlassPerceptron, KernelPerceptron])
def test_lean_rows_are_refused_as_lists_are(make):
    from sklearn.exceptions import NotFittedError
    clf = make()
    with pytest.raises(NotFittedError):
        clf.predict_one(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="classes must be passed"):
        clf.learn_one(np.array([1.0, 2.0]), "a")
    clf.learn_one(np.array([1.0, 2.0]), "a", classes=["a", "b"])
    with pytest.raises(ValueError, match="one sample of 2 features"):
        clf.learn_one(np.array([1.0, 2.0, 3.0]), "a")
    with pytest.raises(ValueError, match="one sample of 2 features"):
        clf.predict_one(np.array([[1.0, 2.0]]))
    with pytest.raises(ValueError, match=r"y='c' is not one of the classes \['a', 'b'\]"):
        clf.learn_one(np.array([1.0, 2.0]), "c")
    with pytest.raises(ValueError, match=r"y=\['a'\] is not one of the classes"):
        clf.learn_one(np.array([1.0, 2.0]), ["a"])
    with pytest.raises(ValueError, match="NaN or infinity"):
        clf.learn_one(np.array([np.nan, 2.0]), "b")
    with pytest.raises(ValueError, match="differs from the classes"):
        clf.learn_one(np.array([1.0, 2.0]), "a", classes=["a", "z"])
    before = clf.n_mistakes_
    clf.learn_one(np.array([1.0, 2.0]), "b")  # a refused example changed nothing
    assert clf.n_mistakes_ == before + 1


def test_a_lean_stream_past_the_plain_presentations_equals_train():
    # the first 4096 presentations run uncompiled, later ones compiled: one stream
    from markone._internal.jit import PLAIN_PRESENTATIONS
    rng = np.random.default_rng(4)
    n = PLAIN_PRESENTATIONS + 500
    X = rng.integers(-3, 4, size=(n, 5)).astype(float)
    y = np.where(X @ rng.standard_normal(5) + rng.standard_normal(n) > 0, 1, -1)
    clf = Perceptron()
    for x, t in zip(X, y):
        clf.learn_one(x, t)
    res = markone.train(X, y, order=np.arange(n), max_epochs=1)
    assert clf.n_mistakes_ == res.mistakes and clf.w_.tolist() == res.w.tolist()


@pytest.mark.parametrize("make", [lambda: Perceptron(), lambda: Perceptron(variant="voted"),
                                  lambda: Perceptron(variant="averaged"),
                                  lambda: MulticlassPerceptron(),
                                  lambda: KernelPerceptron(kernel="rbf")])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_predict_one_refuses_a_row_that_predict_refuses(make, bad):
    """NaN or inf in x: predict([x]) refuses, and so does predict_one(x), on the lean
    path (a float64 row) and on the general one (a list); it answered a class before."""
    est = make().partial_fit(np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, -2.0]]), [1, -1, 1],
                             classes=[-1, 1])
    row = np.array([bad, 1.0])
    with pytest.raises(ValueError, match="NaN|infinity"):
        est.predict([row])
    for x in (row, row.tolist()):
        with pytest.raises(ValueError, match="x contains NaN or infinity"):
            est.predict_one(x)


# the compiled lean path: after the plain presentations, one call of machine code -----

def _past_the_plain_presentations(clf, d=3, seed=5):
    """``clf`` after a partial_fit of PLAIN_PRESENTATIONS rows (its later
    learn_one calls may take the compiled path), and fresh integer rows for it."""
    from markone._internal.jit import PLAIN_PRESENTATIONS
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(PLAIN_PRESENTATIONS + 300, d)).astype(float)
    X[~X.any(axis=1), 0] = 1.0   # no zero row (refused when intercept=False)
    y = np.where(X @ rng.standard_normal(d) + rng.standard_normal(len(X)) > 0, "b", "a")
    n = PLAIN_PRESENTATIONS
    clf.partial_fit(X[:n], y[:n], classes=["a", "b"])
    return X[n:], y[n:]


def _twins(make=Perceptron):
    a, b = make(), make()
    X, y = _past_the_plain_presentations(a)
    _past_the_plain_presentations(b)
    return a, b, X, y


def _same_state(a, b):
    return a.n_mistakes_ == b.n_mistakes_ and a.w_.tobytes() == b.w_.tobytes()


def test_the_compiled_path_is_taken_and_counts_its_updates(monkeypatch):
    lean, general, X, y = _twins()
    lean.learn_one(X[0], y[0])      # the first call after partial_fit: the general path
    general.learn_one(X[0].tolist(), y[0])
    before = lean.n_mistakes_
    for x, t in zip(X[1:], y[1:]):
        lean.learn_one(x, t)
        general.learn_one(x.tolist(), t)
    assert lean._engine.step_updates == lean.n_mistakes_ - before > 0   # compiled
    assert general._engine.step_updates == 0   # lists took the general path
    assert _same_state(lean, general)
    assert lean.result_.mistakes == lean.n_mistakes_
    # the lean path calls nothing in Python: the general path is not reached
    monkeypatch.setattr(markone.perceptron.OnlineClassifier, "learn_one", None)
    lean.learn_one(X[0], y[0])


@pytest.mark.parametrize("convert", [
    lambda x: x.astype(np.float32), lambda x: x.astype(np.int64),
    lambda x: x.astype(">f8"), lambda x: np.repeat(x, 2)[::2],      # a strided view
    lambda x: np.asfortranarray(np.stack([x, x]))[0],
    lambda x: _read_only(x), lambda x: x.tolist(), lambda x: x.view(np.matrix)[0].A1,
], ids=["float32", "int64", "big-endian", "strided", "fortran-row", "read-only", "list",
        "from-matrix"])
def test_every_row_form_learns_as_a_float64_row_does(convert):
    lean, other, X, y = _twins()
    for x, t in zip(X, y):
        lean.learn_one(x, t)
        other.learn_one(convert(x), t)
    assert _same_state(lean, other)
    assert [lean.predict_one(convert(x)) for x in X] == lean.predict(X).tolist()


def _read_only(x):
    x = x.copy()
    x.flags.writeable = False
    return x


def test_the_compiled_path_refuses_what_the_general_path_refuses():
    clf, _, X, y = _twins()
    clf.learn_one(X[0], y[0])
    state = (clf.n_mistakes_, clf.w_.tobytes())
    bad = [(np.array([np.nan, 1.0, 2.0]), "a", "NaN or infinity"),
           (np.array([1.0, np.inf, 2.0]), "b", "NaN or infinity"),
           (np.array([1.0, 2.0]), "a", "one sample of 3 features"),
           (np.array([[1.0, 2.0, 3.0]]), "a", "one sample of 3 features"),
           (np.array([1.0, 2.0, 3.0]), "c", r"y='c' is not one of the classes"),
           (np.array([1.0, 2.0, 3.0]), ["a"], r"y=\['a'\] is not one of the classes"),
           (np.array([1.0, 2.0, 3.0], dtype=np.complex128), "a", "complex")]
    for x, t, message in bad:
        with pytest.raises(ValueError, match=message):
            clf.learn_one(x, t)
        assert (clf.n_mistakes_, clf.w_.tobytes()) == state   # nothing changed
    with pytest.raises(ValueError, match="differs from the classes"):
        clf.learn_one(X[0], "a", classes=["a", "z"])
    for x, _, _ in bad[:2]:
        with pytest.raises(ValueError, match="x contains NaN or infinity"):
            clf.predict_one(x)
    with pytest.raises(ValueError, match="Complex data not supported"):
        clf.predict_one(bad[-1][0])
    clf.learn_one(X[1], y[1])   # a refused row left the compiled state clean
    assert clf._engine._status[:2].tolist() == [0, 0]


def test_the_compiled_path_refuses_a_zero_row_without_intercept():
    clf = Perceptron(intercept=False)
    _past_the_plain_presentations(clf)
    assert clf.learn_one(np.array([1.0, 0.0, 0.0]), "b") is clf
    with pytest.raises(ValueError, match="zero vector and intercept=False"):
        clf.learn_one(np.zeros(3), "a")


def test_other_dtypes_compile_nothing_more():
    from markone._internal.jit import compiled
    clf, _, X, y = _twins()
    for x, t in zip(X[:20], y[:20]):
        for row in (x, x.astype(np.float32), x.astype(np.int64), np.repeat(x, 2)[::2]):
            clf.learn_one(row, t)
            clf.predict_one(row)
    assert len(compiled(markone._loops.counted_step).signatures) == 1
    assert len(compiled(markone._loops.one_index).signatures) == 1


def test_the_compiled_step_has_its_presentation_inlined():
    """The fast sibling of the next test: counted_step names the inlined in-order
    loop, not the pass."""
    step = markone._loops.counted_step
    assert "epoch_last_xy" not in step.__code__.co_names
    assert "_step_rows" in step.__code__.co_names
    assert markone._loops._step_rows.__jit_options__["inline"] == "always"


@pytest.mark.slow   # compiles counted_step afresh: some 3 s of CPU, more under load
def test_the_compiled_step_calls_no_pass():
    """counted_step has its one presentation compiled into it (a call of the pass,
    epoch_last_xy, cost a compiled learn_one about 0.06 µs of some 0.6, issue 38):
    its machine code calls no pass (epoch_last_xy, nor the loops it runs). Compiled
    afresh, since numba shows no code loaded from its cache."""
    import re

    from markone._internal.jit import load_numba

    numba = load_numba()
    step = markone._loops.counted_step
    fresh = numba.njit(fastmath=markone._loops.FASTMATH, nogil=False, _nrt=False)(step)
    fresh.compile(markone._loops.COUNTED_STEP)
    ir = fresh.inspect_llvm(fresh.signatures[0])
    body = re.search(r'^define [^@]*@"?_ZN7markone6_loops12counted_step(?s:.*?)^}', ir, re.M)
    calls = re.findall(r'call [^@\n]*@"?_ZN7markone6_loops\d+(\w+?)B', body.group(0))
    assert not {"epoch_last_xy", "rows_in_order", "listed_rows"} & set(calls)


def test_partial_fit_and_learn_one_interleave_on_the_compiled_path():
    lean, general, X, y = _twins()
    for k in range(0, 300, 50):
        for x, t in zip(X[k:k + 25], y[k:k + 25]):
            lean.learn_one(x, t)
            general.learn_one(x.tolist(), t)
        lean.partial_fit(X[k + 25:k + 50], y[k + 25:k + 50])
        general.partial_fit(X[k + 25:k + 50], y[k + 25:k + 50])
        assert _same_state(lean, general)
    assert lean.mistakes_per_epoch_ == general.mistakes_per_epoch_


def test_a_pickled_or_cloned_stream_continues_as_the_original():
    from sklearn.base import clone
    clf, _, X, y = _twins()
    for x, t in zip(X[:100], y[:100]):
        clf.learn_one(x, t)
    copy = pickle.loads(pickle.dumps(clf))   # the compiled shortcut is not pickled
    assert "_lean_learning" in clf.__dict__ and "_lean_learning" not in copy.__dict__
    for x, t in zip(X[100:], y[100:]):
        clf.learn_one(x, t)
        copy.learn_one(x, t)
        assert clf.predict_one(x) == copy.predict_one(x)
    assert _same_state(clf, copy)
    fresh = clone(clf)
    assert fresh.get_params() == clf.get_params() and not hasattr(fresh, "_engine")
    assert fresh.learn_one(X[0], "b", classes=["a", "b"]).n_mistakes_ == 1


def test_fit_and_set_params_drop_the_shortcuts():
    clf, twin, X, y = _twins(lambda: Perceptron(max_epochs=3))
    for x, t in zip(X, y):
        clf.learn_one(x, t)
        clf.predict_one(x)
    old = clf._engine
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        clf.fit(X[:50], y[:50])     # a new state: the shortcuts of the old one are gone
        twin.fit(X[:50], y[:50])
    for x, t in zip(X, y):
        clf.learn_one(x, t)
        twin.learn_one(x.tolist(), t)
    assert clf._engine is not old and _same_state(clf, twin)
    clf.predict_one(X[0])
    clf.set_params(variant="pocket")
    assert not {"_lean_learning", "_lean_predicting"} & set(clf.__dict__)


@pytest.mark.parametrize("variant", ["averaged", "pocket", "voted"])
def test_only_the_last_variant_has_compiled_shortcuts(variant):
    clf, twin, X, y = _twins(lambda: Perceptron(variant=variant))
    for x, t in zip(X[:50], y[:50]):
        clf.learn_one(x, t)
        twin.learn_one(x.tolist(), t)
        assert clf.predict_one(x) == twin.predict_one(x.tolist())
    assert _same_state(clf, twin) and clf._engine.lean_step() is None
    assert clf._lean_predicting[0] is None


def test_the_lean_path_runs_plain_then_compiled_as_train_does():
    # float64 rows take the lean path from the second call: the plain kernel for the
    # first PLAIN_PRESENTATIONS presentations (a refused one included), then compiled
    from markone._internal.jit import PLAIN_PRESENTATIONS
    rng = np.random.default_rng(6)
    n = PLAIN_PRESENTATIONS + 50
    X = rng.integers(-3, 4, size=(n, 4)).astype(float)
    y = np.where(X @ rng.standard_normal(4) + rng.standard_normal(n) > 0, 1, -1)
    clf, steps = Perceptron(), []
    for i, (x, t) in enumerate(zip(X, y)):
        if i == PLAIN_PRESENTATIONS - 1:   # the last plain presentation is refused
            with pytest.raises(ValueError, match="NaN or infinity"):
                clf.learn_one(np.full(4, np.nan), 1)
        clf.learn_one(x, t)
        steps.append(clf._lean_learning[2])
    plain, compiled = steps[0], steps[-1]
    assert plain.__self__ is clf._engine and compiled is not plain  # plain: counting
    assert steps == [plain] * (PLAIN_PRESENTATIONS - 1) + [compiled] * 51
    res = markone.train(X, y, order=np.arange(n), max_epochs=1)  # the refusal: no step
    assert clf.n_mistakes_ == res.mistakes and clf.w_.tolist() == res.w.tolist()
    assert clf._engine.step_updates == clf.n_mistakes_ - 1   # all but the first call's


def test_a_pass_that_makes_the_plain_presentations_ends_the_plain_steps(monkeypatch):
    # the plain step of a learner whose partial_fit made the plain presentations runs
    # its next presentation compiled, as train would, and hands over
    from markone._internal.jit import PLAIN_PRESENTATIONS
    X, y = _past_the_plain_presentations(Perceptron())   # rows to use
    clf = Perceptron()
    for x, t in zip(X[:10], y[:10]):
        clf.learn_one(x, t, classes=None if hasattr(clf, "_code") else ["a", "b"])
    plain = clf._lean_learning[2]
    rows = np.tile(X, (PLAIN_PRESENTATIONS // len(X) + 1, 1))[:PLAIN_PRESENTATIONS]
    clf.partial_fit(rows, np.resize(y, len(rows)))
    assert clf._lean_learning[2] == plain                 # not told yet

    def refuse(fn):
        raise AssertionError("a plain step after the plain presentations")

    monkeypatch.setattr(markone.engine, "_quiet", refuse)
    before = clf.n_mistakes_
    clf.learn_one(X[20], y[20])
    monkeypatch.undo()
    assert clf._lean_learning[2] != plain
    twin = Perceptron()
    for x, t in zip(X[:10], y[:10]):
        twin.learn_one(x.tolist(), t, classes=["a", "b"])
    twin.partial_fit(rows, np.resize(y, len(rows)))
    twin.learn_one(X[20].tolist(), y[20])
    assert _same_state(clf, twin) and clf.n_mistakes_ - before in (0, 1)
