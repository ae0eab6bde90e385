"""The suite's multiclass and kernel answers are the estimators' (issue 38).

``markone adversary suite`` takes the answers of its multiclass and kernel cases from
markone's passes (:func:`markone.online.argmax_run`, :func:`markone.online.dual_run`)
without importing scikit-learn; these tests train markone's estimators on each such
case, as the suite did before, and compare the written answers bit for bit.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest

from markone import KernelPerceptron, MulticlassPerceptron
from markone.online import argmax_run, dual_run
from verify.conformance.cases import build_cases
from verify.conformance.protocol import exact_vector

CASES = {c["id"]: c for c in build_cases()}
#: The cases whose answers an estimator gave before (ids stable since suite 1).
MULTICLASS = ("multiclass-argmax-ties", "multiclass-stream-order")
KERNEL = ("kernel-dual-counts", "kernel-stream-order", "kernel-dual-count-slips")


@pytest.mark.parametrize("cid", MULTICLASS)
def test_a_multiclass_answer_is_the_estimators(cid):
    p = CASES[cid]["problem"]
    clf = MulticlassPerceptron(intercept=True, order=p["order"], max_epochs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(p["X"], p["y"])
    W = np.hstack([clf.coef_, clf.intercept_[:, None]])
    assert CASES[cid]["expected"] == {
        "mistakes": int(clf.n_mistakes_),
        "W": [exact_vector(Fraction(float(v)) for v in row) for row in W],
        "predictions": [int(k) for k in clf.predict(p["queries"])]}


@pytest.mark.parametrize("cid", KERNEL)
def test_a_kernel_answer_is_the_estimators(cid):
    p = CASES[cid]["problem"]
    clf = KernelPerceptron(kernel="poly", degree=2, gamma=1.0, coef0=1.0,
                           order=p["order"], max_epochs=1).fit(p["X"], p["y"])
    assert CASES[cid]["expected"] == {"mistakes": int(clf.n_mistakes_),
                                      "alpha": [int(a) for a in clf.alpha_]}


def test_the_passes_are_the_estimators_on_random_streams():
    # beyond the suite's cases: float rows, long streams, ties; bit for bit
    rng = np.random.default_rng(38)
    X = rng.integers(-3, 4, (30, 3)).astype(float)
    y, order = rng.integers(0, 4, 30), rng.integers(0, 30, 200)
    clf = MulticlassPerceptron(intercept=False, order=order, max_epochs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    W, mistakes = argmax_run(X, y, order, 4)
    assert (W.tobytes(), mistakes) == (clf.w_.tobytes(), clf.n_mistakes_)
    A, s = rng.standard_normal((30, 5)), np.where(y % 2, 1, -1)
    G = A @ A.T + 0.5  # a kernel matrix: positive diagonal
    kp = KernelPerceptron(kernel=lambda A, B: G[A[:, 0].astype(int)][:, B[:, 0].astype(int)],
                          intercept=False, order=order, max_epochs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kp.fit(np.arange(30.0)[:, None], s)
    alpha, mistakes = dual_run(G, s, order)
    assert (alpha.tolist(), mistakes) == (kp.alpha_.tolist(), kp.n_mistakes_)


@pytest.mark.parametrize(("call", "words"), [
    (lambda: argmax_run([[1.0]], [2], [0], 2), "classes must hold one class index"),
    (lambda: argmax_run([[1.0]], [0], [1], 2), "order has index 1"),
    (lambda: dual_run([[1.0, 0.0]], [1], [0]), "square kernel matrix"),
    (lambda: dual_run([[1.0]], [2], [0]), r"-1/\+1 labels"),
])
def test_bad_input_is_refused_by_name(call, words):
    with pytest.raises(ValueError, match=words):
        call()
