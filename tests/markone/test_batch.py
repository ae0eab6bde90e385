"""markone.batch: batched runs equal markone.train run by run."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import markone
from markone.batch import shuffle_orders, train_many, trace_many

pytestmark = pytest.mark.filterwarnings("ignore::markone.ConvergenceWarning")


dataset = st.integers(1, 6).flatmap(lambda d: st.integers(1, 12).flatmap(
    lambda n: st.tuples(
        st.lists(st.lists(st.integers(-3, 3), min_size=d, max_size=d), min_size=n,
                 max_size=n),
        st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))))


def _same(res, b, ref):
    assert np.array_equal(res.w[b], ref.w)
    assert res.mistakes[b] == ref.mistakes
    assert res.epochs[b] == ref.epochs
    assert res.converged[b] == ref.converged
    assert res.mistakes_per_epoch[b] == tuple(ref.mistakes_per_epoch)


@given(st.lists(dataset, min_size=1, max_size=6), st.booleans(),
       st.sampled_from(["given", "shuffle"]), st.integers(0, 2**32))
def test_train_many_equals_train_hypo(data, intercept, order, seed):
    Xs = [np.asarray(X, float) + 0.5 for X, _ in data]   # no all-zero rows
    ys = [np.asarray(y) for _, y in data]
    res = train_many(Xs, ys, intercept=intercept, order=order, seeds=seed,
                     max_epochs=20)
    assert len(res) == len(Xs)
    for b, (X, y) in enumerate(zip(Xs, ys)):
        ref = markone.train(X, y, intercept=intercept, order=order,
                            seed=res.seeds[b], max_epochs=20)
        _same(res, b, ref)


def test_train_many_explicit_streams_and_labels():
    rng = np.random.default_rng(3)
    Xs = [rng.standard_normal((7, 3)) for _ in range(3)]
    ys = [np.array(["a", "b"])[rng.integers(0, 2, 7)] for _ in range(3)]
    streams = [rng.integers(0, 7, 11) for _ in range(3)]
    res = train_many(Xs, ys, order=streams, max_epochs=4)
    for b in range(3):
        _same(res, b, markone.train(Xs[b], ys[b], order=streams[b], max_epochs=4))


def test_root_seed_draws_child_seeds_up_front():
    from markone._internal.validation import child_seeds

    X = np.array([[1.0, 2.0], [-1.0, -1.0], [2.0, 0.5]])
    res = train_many([X] * 4, [[1, -1, 1]] * 4, order="shuffle", seeds=11)
    assert res.seeds == tuple(child_seeds(11, 4))


def test_shuffle_orders_is_what_train_uses():
    orders = shuffle_orders(5, 6, 3)
    assert sorted(orders[1].tolist()) == list(range(6))
    rng = np.random.default_rng(5)
    assert np.array_equal(orders, [rng.permutation(6) for _ in range(3)])


@given(dataset, st.integers(1, 30), st.integers(0, 1000), st.integers(1, 4))
def test_trace_many_last_and_averaged_equal_train_hypo(data, T, seed, k):
    X, y = np.asarray(data[0], float) + 0.5, np.asarray(data[1])
    stream = np.random.default_rng(seed).integers(0, len(X), T)
    last, avg = trace_many([X], [y], [stream], record_every=k)
    assert last.shape == (1, T // k, X.shape[1] + 1)
    if T % k == 0:
        ref = markone.train(X, y, order=stream, max_epochs=1)
        assert np.array_equal(last[0, -1], ref.last_w)
        ref_avg = markone.train(X, y, order=stream, max_epochs=1, variant="averaged")
        np.testing.assert_allclose(avg[0, -1], ref_avg.w, rtol=1e-12, atol=1e-12)


def test_trace_many_records_every_step_of_a_stream():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    last, avg = trace_many([X], [[1, -1]], [[0, 1, 0, 1]], intercept=False)
    assert last[0].tolist() == [[1, 0], [1, -1], [1, -1], [1, -1]]
    assert avg[0, 1].tolist() == [1.0, -0.5]


@pytest.mark.parametrize("call, match", [
    (lambda: train_many([np.ones((2, 2))], []), "one label vector per dataset"),
    (lambda: train_many([], []), "Xs is empty"),
    (lambda: train_many([[[1.0, np.nan]]], [[1]]), r"Xs\[0\] contains NaN"),
    (lambda: train_many([np.ones((2, 2))], [[1, -1]], order="random"), "order"),
    (lambda: train_many([np.ones((2, 2))], [[1, -1]], order=[[0, 5]]), "outside"),
    (lambda: train_many([np.ones((2, 2))] * 2, [[1, -1]] * 2, order="shuffle",
                        seeds=[1]), "one seed per dataset"),
    (lambda: train_many([np.zeros((2, 2))], [[1, -1]], intercept=False),
     "all-zero row"),
    (lambda: trace_many([np.ones((2, 2)), np.ones((3, 2))], [[1, -1], [1, 1, -1]],
                        [[0], [0]]), "one shape"),
    (lambda: trace_many([np.ones((2, 2))], [[1, -1]], [[0, 2]]), "outside"),
])
def test_bad_input_is_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_parallel_equals_serial():
    rng = np.random.default_rng(8)
    Xs = [rng.standard_normal((30, 4)) for _ in range(6)]
    ys = [np.where(X @ [1, -2, 0.5, 1] + 0.3 > 0, 1, -1) for X in Xs]
    a = train_many(Xs, ys, order="shuffle", seeds=2, parallel=True)
    b = train_many(Xs, ys, order="shuffle", seeds=2)
    assert all(np.array_equal(u, v) for u, v in zip(a.w, b.w))
    assert a.mistakes_per_epoch == b.mistakes_per_epoch
    streams = np.stack([rng.permutation(30) for _ in range(6)])
    for x, y in zip(trace_many(Xs, ys, streams, parallel=True), trace_many(Xs, ys, streams)):
        assert np.array_equal(x, y)


def test_long_non_separable_runs_equal_train():
    X, y = markone.datasets.xor()
    res = train_many([X, X], [y, y], max_epochs=5000, order="shuffle", seeds=[0, 1])
    assert not res.converged.any() and res.epochs.tolist() == [5000, 5000]
    for b in range(2):
        _same(res, b, markone.train(X, y, max_epochs=5000, order="shuffle", seed=b))
    given = train_many([X], [y], max_epochs=5000)
    _same(given, 0, markone.train(X, y, max_epochs=5000))
