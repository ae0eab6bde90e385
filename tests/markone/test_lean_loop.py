"""The lean training loop on dense rows (issue 32): in-order rows and listed rows.

:func:`markone._loops.epoch_last_xy` presents the positions where the order lists
the rows in order (all of them for ``order="given"``) by a loop whose row number is
its counter, and the rest by a loop that reads the order; no pass looks for NaN or
infinity first, the scores find them. So:

* a NaN or infinity anywhere (first row, last row, last column, a row only an
  explicit order reaches) is refused with the same message, by row and column, for
  every variant and order, ``record=True``, on the plain path (small runs) and the
  compiled one (a first pass past the plain allowance);
* the two loops, the plain and the compiled path, and scikit-learn end with the same
  weights bit for bit on exact data, also when an order leaves the in-order loop
  part of the way through a pass.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import markone
from markone import _loops
from markone._internal import jit
from markone._internal.validation import float64_matrix

#: Rows of the compiled case: with :func:`small_allowance`, a run of more than
#: PLAIN_PRESENTATIONS presentations in all compiles after its first
#: PLAIN_PRESENTATIONS, so this one is compiled from its first pass; 3,000 rows
#: switch at the second pass.
BIG = jit.PLAIN_PRESENTATIONS + 904


@pytest.fixture(autouse=True)
def small_allowance(monkeypatch):
    """Runs of more than PLAIN_PRESENTATIONS in all (not markone._loops.PLAIN_RUN)
    compile, so that these tests meet the compiled pass on small data (the path
    changes no result on exact data, only the time)."""
    monkeypatch.setattr(_loops, "PLAIN_RUN", jit.PLAIN_PRESENTATIONS)


def integer_problem(n, d=7, seed=3):
    """n x d small integers (every dot product exact), labels from a hyperplane
    plus noise (the runs make mistakes in every pass)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    y = np.where(X @ rng.standard_normal(d) + rng.standard_normal(n) > 0, 1, -1)
    return X, y


def swapped(n, k):
    """The order 0, 1, ..., n-1 with positions k and k + 1 swapped: in order up to k,
    listed from there on."""
    order = list(range(n))
    order[k], order[k + 1] = order[k + 1], order[k]
    return order


def train(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        return markone.train(*args, **kw)


def message(i, j):
    return (f"X contains NaN or infinity (first at X[{i}, {j}]); remove or "
            "impute those entries before training.")


SETTINGS = [dict(), dict(order="shuffle", seed=4), dict(intercept=False),
            dict(variant="averaged"), dict(variant="voted"), dict(variant="pocket"),
            dict(record=True), "in order", "swapped", "reversed"]


def order_of(setting, n):
    """The keyword arguments of a setting (an explicit order made for ``n`` rows)."""
    if setting == "in order":
        return dict(order=list(range(n)))
    if setting == "swapped":
        return dict(order=swapped(n, n // 2))
    if setting == "reversed":
        return dict(order=list(range(n))[::-1])
    return setting


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("n", [40, BIG], ids=["plain", "compiled"])
@pytest.mark.parametrize("setting", SETTINGS, ids=repr)
def test_nan_or_inf_anywhere_is_refused_by_row_and_column(bad, n, setting):
    X, y = integer_problem(n)
    d = X.shape[1]
    kw = order_of(setting, n)
    for i, j in [(0, 0), (n - 1, d - 1), (n // 2, d - 1), (n // 2 + 1, 3)]:
        Xb = X.copy()
        Xb[i, j] = bad
        with pytest.raises(ValueError) as error:
            train(Xb, y, max_epochs=3, **kw)
        assert str(error.value) == message(i, j)


def test_a_row_an_explicit_order_never_reaches_is_refused_too():
    # the loop would not meet row 5: an explicit order checks every row first
    X, y = integer_problem(BIG)
    X[5, 2] = np.nan
    with pytest.raises(ValueError) as error:
        train(X, y, order=[0, 1, 2, 3, 4, 6, 7], max_epochs=2)
    assert str(error.value) == message(5, 2)


@pytest.mark.parametrize("make_idx", [
    lambda n: np.arange(n), lambda n: np.array(swapped(n, n // 3)),
    lambda n: np.arange(n)[::-1].copy(), lambda n: np.r_[np.arange(n), np.arange(n)],
    lambda n: np.r_[np.arange(n // 2), np.zeros(5, np.int64), np.arange(n)]],
    ids=["in order", "swapped", "reversed", "twice", "in order, repeats, again"])
@pytest.mark.parametrize("c", [1.0, 0.0])
@pytest.mark.parametrize("strided", [False, True])
def test_the_compiled_pass_equals_the_plain_pass_bit_for_bit(make_idx, c, strided):
    # on exact data (quarters) the paths make the same sums; three passes, weights
    # kept; rows with gaps between their entries too (the prefetch hint reads none),
    # which the compiled pass gets as training hands them over: C-ordered
    # (float64_matrix), the one layout it is compiled for (issue 37)
    rng = np.random.default_rng(8)
    n, d = 300, 37
    X = rng.integers(-9, 10, (n, d)) / 4
    if strided:
        X = np.repeat(X, 2, axis=1)[:, ::2]
    y = np.where(rng.standard_normal(n) > 0, 1.0, -1.0)
    idx = make_idx(n)
    outcomes = []
    for fn, rows in ((_loops.epoch_last_xy, X),
                     (jit.compiled(_loops.epoch_last_xy), float64_matrix(X))):
        w, status = np.zeros(d + 1), np.zeros(2, dtype=np.int64)
        runs = [fn(rows, y, c, idx, 0.5, w, status) for _ in range(3)]
        outcomes.append((runs, w.tobytes(), status.tolist()))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0][0] > 0 and outcomes[0][2] == [0, 0]


@pytest.mark.parametrize("where", ["in order part", "listed part"])
def test_a_stop_reports_its_position_in_either_loop(where):
    X, y = integer_problem(200)
    idx = np.array(swapped(200, 100))
    t = 60 if where == "in order part" else 150
    X[idx[t], 4] = np.inf
    for fn in (_loops.epoch_last_xy, jit.compiled(_loops.epoch_last_xy)):
        w, status = np.zeros(X.shape[1] + 1), np.zeros(2, dtype=np.int64)
        with np.errstate(invalid="ignore", over="ignore"):
            fn(X, y.astype(float), 1.0, idx, 1.0, w, status)
        assert status.tolist() == [1, t]


@pytest.mark.parametrize("n", [600, 3000, BIG], ids=["plain", "switching", "compiled"])
@pytest.mark.parametrize("intercept", [True, False])
def test_identical_weights_to_scikit_learn(n, intercept):
    from sklearn.linear_model import Perceptron as SkPerceptron

    X, y = integer_problem(n, d=12)
    res = train(X, y, max_epochs=4, intercept=intercept)
    sk = SkPerceptron(shuffle=False, tol=None, eta0=1, max_iter=4, alpha=0.0,
                      fit_intercept=intercept)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk.fit(X, y)
    assert res.mistakes > 0 and res.epochs == 4
    assert res.coef.tobytes() == sk.coef_[0].tobytes()
    assert res.intercept == sk.intercept_[0]
    # an explicit order that leaves the in-order loop gives the run of that order
    order = swapped(n, n // 2)
    listed = train(X, y, max_epochs=4, intercept=intercept, order=order)
    rerun = train(X[order], y[order], max_epochs=4, intercept=intercept)
    assert listed.w.tobytes() == rerun.w.tobytes()
