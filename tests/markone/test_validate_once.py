"""Validate once (issue 25): one public call checks and converts its inputs once.

A spy replaces every reference to the checkers (``check_matrix``,
``check_matrix_or_sparse``, ``dense_array``, ``check_sparse``, scikit-learn's
``check_array``) and to the rounding probe (``first_inexact``) in every loaded module,
however it was imported, and records the calls whose argument is the user's ``X`` or
an array of its shape. ``worst_order`` used to pass ``X`` through ``check_matrix`` 3
times and ``first_inexact`` twice; ``check_multiclass_bound`` checked it once per run,
plus ``augment`` and ``kesler_expand``; a one-vs-rest ``fit`` once per class. The
signed rows ``y_i [x_i, 1]`` are made once per call too.
"""

import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.utils.validation as skv

import markone
import verify
from markone._internal import exact, validation

#: What checks or converts the inputs (one of them, once, per call).
CHECKS = {"check_matrix": validation.check_matrix,
          "check_matrix_or_sparse": validation.check_matrix_or_sparse,
          "dense_array": validation.dense_array,
          "check_sparse": validation.check_sparse,
          "check_array": skv.check_array}
#: The probe that looks at every entry for one float64 would round (once at most).
PROBES = {"first_inexact": exact.first_inexact}

X_FLOAT = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -2.0], [-2.0, -1.5]])
X_INT = np.array([[1, 2], [2, 1], [-1, -2], [-2, -1]])
Y2 = np.array([1, 1, -1, -1])
Y3 = np.array([0, 1, 2, 2])

CALLS = {
    "worst_order": lambda X: verify.worst_order(X, Y2),
    "check_separable": lambda X: verify.check_separable(X, Y2),
    "max_margin": lambda X: verify.max_margin(X, Y2),
    "check_multiclass_bound": lambda X: verify.check_multiclass_bound(X, Y3, runs=3,
                                                                      seed=0),
    "Perceptron.fit": lambda X: markone.Perceptron().fit(X, Y2),
    "Perceptron.fit averaged": lambda X: markone.Perceptron(variant="averaged").fit(X, Y2),
    "Perceptron.fit voted": lambda X: markone.Perceptron(variant="voted").fit(X, Y2),
    "Perceptron.fit pocket": lambda X: markone.Perceptron(variant="pocket").fit(X, Y2),
    "Perceptron.partial_fit": lambda X: markone.Perceptron().partial_fit(X, Y2),
    "MulticlassPerceptron.fit": lambda X: markone.MulticlassPerceptron().fit(X, Y3),
    "MulticlassPerceptron.fit ovr": lambda X: markone.MulticlassPerceptron(
        strategy="ovr").fit(X, Y3),
    "KernelPerceptron.fit": lambda X: markone.KernelPerceptron(kernel="rbf").fit(X, Y2),
}
DENSE_ONLY = {"check_multiclass_bound"}


class Spy:
    """Counts the calls of functions on one ``X``, wherever they are referenced (a
    spied function called by another, as ``check_matrix`` calls ``dense_array``, is
    part of that one call)."""

    def __init__(self, monkeypatch, X, functions):
        self.X, self.calls, self.depth = X, [], 0
        # one look through every loaded module for all the functions, not one look
        # per function (1 s of the file's 5.5 s of CPU, issue 37); by identity:
        # ``value is fn``
        wrappers = {id(fn): self._wrap(name, fn) for name, fn in functions.items()}
        found = [(module, attr, wrappers[id(value)])
                 for module in list(sys.modules.values())
                 for attr, value in list(getattr(module, "__dict__", {}).items())
                 if id(value) in wrappers]
        for module, attr, wrapper in found:
            monkeypatch.setattr(module, attr, wrapper)

    def _wrap(self, name, fn):
        def counted(*args, **kwargs):
            arg = args[0] if args else None
            if not self.depth and (arg is self.X or
                                   getattr(arg, "shape", None) == self.X.shape):
                self.calls.append(name)
            self.depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1
        return counted


def spied(monkeypatch, call, X):
    """The spied calls of one run (after a first run has imported what it needs: a
    module imported while the spy is in place would keep the spy)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        CALLS[call](X)
        spy = Spy(monkeypatch, X, {**CHECKS, **PROBES})
        CALLS[call](X)
    return spy.calls


@pytest.mark.parametrize(("call", "kind"), [
    (call, kind) for kind in ("float64", "int64", "csr") for call in CALLS
    if not (kind == "csr" and call in DENSE_ONLY)])
def test_one_call_checks_its_inputs_once(call, kind, monkeypatch):
    X = {"float64": X_FLOAT, "int64": X_INT, "csr": sp.csr_array(X_FLOAT)}[kind]
    calls = spied(monkeypatch, call, X)
    checks = [c for c in calls if c in CHECKS]
    assert len(checks) == 1, calls
    # the rounding probe: once on int64 inputs (where it has work), never twice
    assert calls.count("first_inexact") == 1 if kind == "int64" else \
        calls.count("first_inexact") <= 1, calls


@pytest.mark.parametrize("call", ["worst_order", "check_mistake_bound", "max_margin"])
@pytest.mark.parametrize("kind", ["float64", "csr"])
def test_one_call_makes_the_signed_rows_of_its_data_once(call, kind, monkeypatch):
    """worst_order made y_i [x_i, 1] three times (for its search, the margin of
    Novikoff's bound, and the re-run); the Dataset keeps the one copy."""
    from markone._internal import rows

    X = X_FLOAT if kind == "float64" else sp.csr_array(X_FLOAT)
    run = {"worst_order": lambda: verify.worst_order(X, Y2),
           "check_mistake_bound": lambda: verify.check_mistake_bound(X, Y2, runs=2),
           "max_margin": lambda: verify.max_margin(X, Y2)}[call]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run()
        spy = Spy(monkeypatch, X, {"signed_rows": rows.signed_rows})
        run()
    assert spy.calls == ["signed_rows"]


def test_the_spy_sees_a_second_check():
    """The spy itself can fail: a call that checks twice is counted twice."""
    mp = pytest.MonkeyPatch()
    try:
        spy = Spy(mp, X_FLOAT, CHECKS)
        validation.check_matrix(X_FLOAT)
        markone.Perceptron().fit(X_FLOAT, Y2)
    finally:
        mp.undo()
    assert spy.calls == ["check_matrix", "check_array"]


def test_an_estimator_takes_a_checked_dataset_as_it_is(monkeypatch):
    from markone._internal.data import as_dataset

    data = as_dataset(X_INT, ["a", "b", "c", "c"], multiclass=True)
    assert data.floats is data.floats  # the float64 view, made once, here
    spy = Spy(monkeypatch, data, {**CHECKS, **PROBES})
    clf = markone.MulticlassPerceptron().fit(data, None)
    assert spy.calls == []
    same = markone.MulticlassPerceptron().fit(X_INT, ["a", "b", "c", "c"])
    assert clf.classes_.tolist() == ["a", "b", "c"] and clf.n_features_in_ == 2
    assert np.array_equal(clf.coef_, same.coef_)
    binary = markone.Perceptron().fit(as_dataset(X_INT, ["no", "no", "yes", "yes"]), None)
    assert binary.classes_.tolist() == ["no", "yes"]
    with pytest.raises(TypeError, match="carries its labels"):
        markone.Perceptron().fit(as_dataset(X_INT, Y2), Y2)
    with pytest.raises(ValueError, match="Only binary classification"):
        markone.Perceptron().fit(data, None)
