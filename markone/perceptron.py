"""The perceptron estimator: :class:`Perceptron`, a thin layer over :mod:`markone.engine`.

``Perceptron().fit(X, y)`` equals :func:`markone.train` with the same settings (the
same compiled passes, bit for bit), as scikit-learn's ``Perceptron`` is a thin layer
over its SGD engine. This module imports scikit-learn; :func:`markone.train` lives in
:mod:`markone.engine`, which does not, so a small question answered by ``train`` never
pays for importing scikit-learn. ``train``, ``TrainResult``, ``augment`` and
``VARIANTS`` are importable from here too, as before.

>>> from markone.perceptron import Perceptron
>>> clf = Perceptron().fit([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1])   # AND
>>> clf.coef_.tolist(), clf.intercept_.tolist(), clf.n_mistakes_
([[3.0, 2.0]], [-4.0], 18)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from markone import _loops
from markone._estimator import OnlineClassifier, refuse_non_finite
from markone._params import as_float
from markone._internal.jit import entry_point
from markone._internal.typing import ArrayLike, Label, Order, Rational, Seed
from markone.online import predict_sign
from markone.engine import (
    VARIANTS,
    ConvergenceWarning,
    TrainResult,
    _checked_pass,
    _Engine,
    _folded,
    _result,
    augment,
    train,
)

__all__ = ["Perceptron", "train", "TrainResult", "ConvergenceWarning", "augment", "VARIANTS"]

_FLOAT64 = np.dtype(np.float64)
#: The lean paths of a learner that has none yet: a row shape that no row has.
_NO_LEARNING: tuple[Any, ...] = (None, {}, None, 0.0, 0.0, None, None)
_NO_PREDICTING: tuple[Any, ...] = (None, None, None, 0.0, ())


class Perceptron(OnlineClassifier):
    """Binary perceptron: a scikit-learn classifier, and a stream learner.

    A thin layer over the engine of :func:`train`: ``fit(X, y)`` equals
    ``train(X, y, ...)`` with the same settings (the same compiled passes, bit for
    bit); ``partial_fit`` makes one pass from the current state; ``learn_one`` and
    ``predict_one`` handle one example in O(d), with the same compiled update, and a
    stream of ``learn_one`` calls ends where ``train(X, y, order=stream,
    max_epochs=1)`` ends. Every variant continues exactly after ``fit``.

    Parameters
    ----------
    intercept, intercept_scale, eta, max_epochs, order, seed, variant
        As in :func:`train` (keyword-only, stored verbatim, checked by scikit-learn's
        parameter validation in ``fit`` and ``partial_fit``). ``eta`` and
        ``intercept_scale`` may be ``Fraction`` or strings like ``"1/2"`` (markone's
        extension); the estimator trains in float64 (``train(exact=True)`` is the
        exact mode).

    Attributes
    ----------
    coef_ : ndarray (1, n_features)
    intercept_ : ndarray (1,)
    classes_ : ndarray (2,)
        ``classes_[0]`` is -1 inside the core, ``classes_[1]`` is +1.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When ``X`` was a DataFrame with string column names.
    w_ : ndarray
        The prediction vector in the augmented space, as :attr:`TrainResult.w`.
    n_mistakes_ : int
        Updates so far (``fit``, ``partial_fit`` and ``learn_one``).
    n_epochs_ : int
        Passes so far (``fit``'s final clean pass included; a ``learn_one`` is none).
    mistakes_per_epoch_ : tuple of int
    converged_ : bool
        The last pass made no update.
    result_ : TrainResult
        Everything above as :func:`train` returns it (built on access).

    Examples
    --------
    >>> from markone import Perceptron
    >>> clf = Perceptron().fit([[0, 0], [0, 1], [1, 0], [1, 1]], ["no", "no", "no", "yes"])
    >>> clf.predict([[1, 1], [0, 1]]).tolist(), clf.n_mistakes_
    (['yes', 'no'], 18)
    >>> clf.learn_one([2, 2], "yes").predict_one([2, 2])
    'yes'

    One example at a time from nothing (-1/+1 labels need no ``classes``):

    >>> stream = Perceptron()
    >>> for x, y in [([1, 0], 1), ([0, 1], -1), ([2, 1], 1)]:
    ...     _ = stream.learn_one(x, y)
    >>> stream.w_.tolist(), stream.n_mistakes_, stream.n_epochs_
    ([1.0, -1.0, 0.0], 2, 0)
    """

    # the lean paths: learn_one/predict_one's shortcuts, made by the general path
    _shortcuts = ("_lean_learning", "_lean_predicting")
    _lean_learning = _NO_LEARNING
    _lean_predicting = _NO_PREDICTING

    def __init__(self, *, intercept: bool = True, intercept_scale: Rational = 1.0,
                 eta: Rational = 1.0, max_epochs: int = 1000, order: Order = "given",
                 seed: Seed = None, variant: str = "last") -> None:
        self.intercept = intercept
        self.intercept_scale = intercept_scale
        self.eta = eta
        self.max_epochs = max_epochs
        self.order = order
        self.seed = seed
        self.variant = variant

    # one example at a time: the lean paths --------------------------------------------
    def learn_one(self, x: ArrayLike, y: Label,
                  classes: ArrayLike | None = None) -> Perceptron:
        """Learn from one example with the same rule as ``fit``; return ``self``
        (:meth:`OnlineClassifier.learn_one <markone._estimator.OnlineClassifier.learn_one>`).

        A float64 NumPy row of the width learned with a label of the classes (and no
        ``classes=``) takes the lean path: one call of the step kernel, which also
        refuses NaN, infinity and a zero row without intercept; compiled code once
        the learner has made its plain presentations (the first 4,096, run
        uncompiled). Any other input is converted and checked first, with the same
        result.
        """
        if classes is None and x.__class__ is np.ndarray and x.dtype is _FLOAT64:
            shape, signs, step, c, eta, w, status = self._lean_learning
            if x.shape == shape:  # the types that step was compiled for
                try:
                    sign = signs[y]
                except (KeyError, TypeError):
                    pass  # not a class: the general path says so
                else:
                    if step(x, sign, c, eta, w, status):
                        self._after_lean_step(x)
                    return self
        super().learn_one(x, y, classes)
        self._lean_learning = self._learning_shortcut()
        return self

    def _after_lean_step(self, x):
        """A lean step returned non-zero: refuse the row it stopped at, or else take
        the compiled step now that the plain presentations are made."""
        self._lean_learning = self._learning_shortcut()
        if self._engine.stopped:
            self._engine.refuse_step(x)

    def _learning_shortcut(self):
        lean_step = self._engine.lean_step()
        if lean_step is None:
            return _NO_LEARNING
        step, w, status = lean_step
        signs = {label: float(code) for label, code in self._code.items()}
        return self._row_shape, signs, step, self._c, self._eta, w, status

    def predict_one(self, x: ArrayLike) -> Any:
        """Predict the class of one example (O(d)); a float64 NumPy row of the width
        learned is one call of compiled code for the ``"last"`` variant."""
        if x.__class__ is np.ndarray and x.dtype is _FLOAT64:
            shape, index, w, c, labels = self._lean_predicting
            if x.shape == shape:
                i = index(x, w, c)
                if i >= 0:  # else not finite: the general path refuses it
                    return labels[i]
        label = super().predict_one(x)
        self._lean_predicting = self._predicting_shortcut()
        return label

    def _predicting_shortcut(self):
        if self.variant != "last":
            return _NO_PREDICTING
        labels = tuple(self.classes_[i].item() for i in (0, 1))
        return (self._row_shape, entry_point(_loops.one_index, _loops.ONE_INDEX),
                self._engine.w, self._c, labels)

    def _state_updates(self):
        return self._engine.step_updates

    # the three hooks of OnlineClassifier ---------------------------------------------
    def _start(self, classes, n_features):
        self._c = as_float(self.intercept_scale, "intercept_scale") if self.intercept else 0.0
        self._eta = as_float(self.eta, "eta")
        lean = self.variant == "last"
        self._engine = _Engine(n_features + 1, np.float64, lean=lean,
                               keep_history=VARIANTS[self.variant].votes)
        self._passes = 0

    def _prepare(self, data, codes):
        if self._engine.lean:
            return data.floats, codes.astype(np.float64), self._c
        return _folded(augment(data, True, self._c), codes, None)

    def _pass(self, data, idx):
        self._passes += 1
        return _checked_pass(self._engine, data, idx, self._eta, None, self._passes,
                             self.max_epochs)

    def _learn_row(self, x, code):
        return self._engine.step(x, code, self._c, self._eta)

    # fitted values ------------------------------------------------------------------
    def _w(self):
        check_is_fitted(self)
        return np.asarray(self._engine.prediction(self.variant), dtype=float)

    @property
    def w_(self) -> np.ndarray:
        """The prediction vector ``[coef..., intercept weight]`` (no intercept weight
        when ``intercept=False``)."""
        w = self._w()
        return w.copy() if self.intercept else w[:-1].copy()

    @property
    def coef_(self) -> np.ndarray:
        """Weights of the features, shape (1, n_features)."""
        return self._w()[:-1].reshape(1, -1).copy()

    @property
    def intercept_(self) -> np.ndarray:
        """The bias ``b`` in ``coef . x + b``, shape (1,)."""
        return np.array([self._w()[-1] * self._c])

    @property
    def result_(self) -> TrainResult:
        """The :class:`TrainResult` of the passes and examples so far."""
        check_is_fitted(self)
        res = _result(self._engine, self._per_epoch or [0], self.variant, False, None,
                      self._c if self.intercept else None, self.classes_, False,
                      drop_last=not self.intercept)
        return replace(res, mistakes=self.n_mistakes_, epochs=self.n_epochs_,
                       converged=self.converged_, mistakes_per_epoch=self.mistakes_per_epoch_)

    # prediction -----------------------------------------------------------------------
    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Signed scores (positive means ``classes_[1]``; for "voted": the vote)."""
        return self._scores(self._checked_X(X))

    def _score_one(self, x):
        if VARIANTS[self.variant].votes:
            refuse_non_finite(x)     # a vote of signs would hide NaN or inf
            return self._scores(x[None, :])[0]
        w = self._engine.prediction(self.variant)  # float64 (fitted: predict_one checked)
        return np.float64(_loops.one_score(x, w, w[-1] * self._c))

    def _index_one(self, score):
        # _predict_index of a batch of one: (score >= 0) as the index into classes_
        return int(score >= 0)

    def _scores(self, X):
        # one summation order for a batch and for one example (linear_scores), so
        # that predict_one(x) == predict([x])[0] even on an exact tie
        if VARIANTS[self.variant].votes:
            vectors, counts, _ = self._engine.voted()
            V = np.array(vectors, dtype=float).reshape(len(counts), -1)
            S = _loops.linear_scores(X, V[:, :-1], V[:, -1] * self._c)
            return (predict_sign(S) @ np.array(counts)).astype(float)
        w = self._w()
        return _loops.linear_scores(X, w[None, :-1], w[-1:] * self._c)[:, 0]
