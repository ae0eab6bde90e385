"""Plumbing shared by every markone estimator (not public).

Parameter access in the scikit-learn style (constructor arguments are keyword-only and
stored verbatim; ``get_params`` reads them from the ``__init__`` signature), the
fitted-state check, input checks against the fitted width, the first-call ``classes``
rule of ``partial_fit``, the one-example API (``learn_one``/``predict_one`` are
``partial_fit``/``predict`` on a batch of one, so they call the same update), scoring,
and the convergence warning. The learning itself lives in each estimator's module.
"""

from __future__ import annotations

import inspect
import numbers

import numpy as np

from markone._validation import check_matrix_or_sparse
from markone._checks import NotFittedError, check_common

__all__ = ["OnlineClassifier", "check_core_params"]


def check_core_params(eta, max_epochs, variant, intercept_scale, intercept):
    """Check the parameters shared with :func:`markone.train`; return ``eta`` as float.

    The estimators train in float64, so ``eta`` and ``intercept_scale`` must be real
    numbers here (``train(exact=True)`` also takes Fractions and strings).
    """
    for name, value in (("eta", eta), ("intercept_scale", intercept_scale)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{name} must be a real number, got {value!r}.")
    return float(check_common(eta, max_epochs, variant, intercept_scale, intercept))


class OnlineClassifier:
    """Base of estimators with ``fit``/``partial_fit``/``learn_one``/``predict_one``.

    Subclasses define ``__init__`` (keyword-only arguments stored verbatim), ``fit``,
    ``partial_fit(X, y, classes=None)`` and ``decision_function``/``predict``.
    """

    @classmethod
    def _param_names(cls):
        params = inspect.signature(cls.__init__).parameters.values()
        return [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]

    def get_params(self, deep=True):
        """The constructor arguments, as stored."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set constructor arguments (checked at the next fit); return ``self``."""
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"invalid parameter {name!r} for {type(self).__name__}; valid "
                    f"parameters are {valid}.")
            setattr(self, name, value)
        return self

    def __repr__(self):
        defaults = {p.name: p.default for p in
                    inspect.signature(type(self).__init__).parameters.values()}
        changed = [f"{k}={v!r}" for k, v in self.get_params().items()
                   if not (v is defaults[k] or (isinstance(v, (str, int, float))
                                                and v == defaults[k]))]
        return f"{type(self).__name__}({', '.join(changed)})"

    # state checks -----------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "classes_"):
            raise NotFittedError(
                f"This {type(self).__name__} is not fitted yet; call fit(X, y) or "
                "partial_fit(X, y, classes=...) first.")

    def _check_X(self, X):
        """``X`` as float64 (dense, or canonical CSR when sparse), with the width the
        model was fitted with."""
        Xf = check_matrix_or_sparse(X)
        if Xf.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {Xf.shape[1]} features, but {type(self).__name__} was fitted "
                f"with {self.n_features_in_}; pass samples with the same features.")
        return Xf

    def _classes_for_partial_fit(self, classes):
        """The classes of this ``partial_fit``: given the first time, then fixed."""
        if hasattr(self, "classes_"):
            if classes is not None and not np.array_equal(np.unique(classes),
                                                          self.classes_):
                raise ValueError(
                    f"classes={np.unique(classes).tolist()} differs from the classes "
                    f"{self.classes_.tolist()} of the first fit; call fit to restart.")
            return self.classes_
        if classes is None:
            raise ValueError(
                "classes must be passed to the first call of partial_fit (or "
                "learn_one), e.g. partial_fit(X, y, classes=[0, 1, 2]): later batches "
                "may not show every class.")
        return np.unique(np.asarray(classes))

    # one example at a time ----------------------------------------------------------
    def learn_one(self, x, y, classes=None):
        """Learn from one example with the same update as ``fit``; return ``self``."""
        return self.partial_fit(np.asarray(x, dtype=float).reshape(1, -1), [y],
                                classes=classes)

    def predict_one(self, x):
        """Predict the class of one example."""
        return self.predict(np.asarray(x, dtype=float).reshape(1, -1))[0].item()

    def score(self, X, y):
        """Mean accuracy on ``(X, y)``."""
        return float(np.mean(self.predict(X) == np.asarray(y)))
