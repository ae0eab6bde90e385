"""What every markone estimator shares: scikit-learn's contract and the stream API.

:class:`OnlineClassifier` is a scikit-learn classifier (``BaseEstimator`` and
``ClassifierMixin``): constructor arguments are keyword-only and stored verbatim, and
``fit``/``partial_fit``/``learn_one`` check them against one declarative table,
``_parameter_constraints`` (:mod:`markone._params`: scikit-learn's idea, without its
private module); inputs go
through ``validate_data`` (``n_features_in_``, ``feature_names_in_`` from DataFrames)
and the targets through ``check_classification_targets``, so the errors are the ones
scikit-learn users know. markone adds its own wording only where it knows more (a zero
row with ``intercept=False``, the convergence warning).

Learning itself is three hooks per learner: ``_start`` (zero state for the classes and
width), ``_pass`` (one pass over rows ``idx``, returning the updates) and
``_learn_row`` (one example, the same rule, O(d)). ``fit`` runs the one epoch driver of
:func:`markone._internal.checks.run_epochs`; ``partial_fit`` is one pass; ``learn_one`` is one
example and **not** an epoch: it adds to ``n_mistakes_`` but not to ``n_epochs_``.

The parameter table (:data:`markone._params.CORE_CONSTRAINTS`) also checks
:func:`markone.train`'s arguments, so the function and the estimators accept and refuse
the same values. This module imports scikit-learn; :func:`markone.train` does not
import it (instant start: :mod:`markone._params` holds what both need).
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from markone._internal.checks import (
    check_order,
    epoch_indices,
    is_stream_run,
    run_epochs,
    warn_not_converged,
)
from markone._params import CORE_CONSTRAINTS, validate_parameter_constraints
from markone._internal.data import Dataset
from markone._internal.exact import fraction_array
from markone._internal.typing import ArrayLike, Label
from markone._internal.validation import (as_generator, canonical_csr, encode_binary_labels,
                                          encode_class_labels, float64_input, is_sparse,
                                          refuse_missing_labels)

E = TypeVar("E", bound="OnlineClassifier")
_FLOAT64 = np.dtype(np.float64)

__all__ = ["OnlineClassifier"]

_NOT_FINITE = "x contains NaN or infinity; remove or impute those entries."


def refuse_non_finite(x) -> None:
    """Refuse one example ``x`` holding NaN or infinity (``learn_one``/``predict_one``
    of the learners whose score would hide it: a kernel, a vote)."""
    if not np.isfinite(x).all():
        raise ValueError(_NOT_FINITE)


def _all_finite(score) -> bool:
    """True when one example's score (a number, or one per class) is finite; a number
    is tested without numpy's per-call cost (``predict_one`` is a hot path). Exact
    scores (an object array of Fractions) are finite numbers by construction."""
    try:
        return math.isfinite(score)
    except TypeError:   # one score per class
        scores = np.asarray(score)
        return scores.dtype == object or bool(np.isfinite(scores).all())


def _canonical(X):
    """Sparse input (checked by scikit-learn) as the canonical float64 CSR matrix the
    compiled loops read."""
    return canonical_csr(X) if is_sparse(X) else X


def _dataset_xy(data, y, exact):
    """The inputs (float64, or exact: an object array of Fractions) and the labels as
    given of a checked Dataset."""
    if y is not None:
        raise TypeError("a Dataset carries its labels; pass y=None with it.")
    return (np.array(data.fractions, dtype=object) if exact else data.floats), data.labels


#: ``y`` of a call that checks inputs only (scikit-learn's word for it).
_NO_LABELS = "no_validation"


class OnlineClassifier(ClassifierMixin, BaseEstimator):
    """Base of markone's estimators: ``fit``/``partial_fit``/``learn_one``/``predict_one``.

    Subclasses set ``_binary`` and ``_parameter_constraints`` and define ``__init__``
    (keyword-only arguments stored verbatim), ``_start``, ``_pass``, ``_learn_row`` and
    ``decision_function``; ``_prepare(data, codes)`` turns the checked inputs (a
    :class:`~markone._internal.data.Dataset` of float64 rows, converted no more) and
    the label codes into what ``_pass`` reads.
    """

    _binary = True
    _parameter_constraints: dict = dict(CORE_CONSTRAINTS)
    #: scipy.sparse formats the learner takes (converted to canonical CSR); False:
    #: dense only (scikit-learn's validation then says to use ``X.toarray()``).
    _accept_sparse: Any = ("csr", "csc", "coo")
    #: Names of per-instance shortcuts derived from the state (a learner's lean
    #: ``learn_one``/``predict_one`` paths), rebuilt on demand: dropped when the state
    #: restarts, on ``set_params`` and from a pickle (they may hold compiled code).
    _shortcuts: tuple[str, ...] = ()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = not self._binary
        tags.input_tags.sparse = bool(self._accept_sparse)
        return tags

    def _forget_shortcuts(self) -> None:
        for name in self._shortcuts:
            self.__dict__.pop(name, None)

    def set_params(self: E, **params: Any) -> E:
        """Set the constructor's parameters, as scikit-learn's ``set_params``;
        returns ``self``."""
        self._forget_shortcuts()
        return super().set_params(**params)

    def __getstate__(self):
        state = dict(super().__getstate__())
        for name in self._shortcuts:
            state.pop(name, None)
        return state

    # checks -------------------------------------------------------------------------
    def _check_params(self) -> None:
        """Check the constructor's arguments against ``_parameter_constraints``."""
        validate_parameter_constraints(self._parameter_constraints,
                                       self.get_params(deep=False), type(self).__name__)

    def _validate_xy(self, X, y, *, reset: bool):
        """``(X, y)`` checked once by scikit-learn's rules: ``X`` as float64 (or
        canonical CSR; exact learners: Fractions), ``n_features_in_`` and
        ``feature_names_in_`` set or compared. A
        :class:`~markone._internal.data.Dataset` is checked already: its float64
        view (or its Fractions) and its labels are taken as they are."""
        exact = self._exact_input(reset)
        if isinstance(X, Dataset):
            X, y = validate_data(self, *_dataset_xy(X, y, exact), reset=reset,
                                 skip_check_array=True)
        else:
            refuse_missing_labels(y)  # by position (scikit-learn: "Unknown label type")
            X, y = self._checked_input(X, y, reset=reset, exact=exact)
        check_classification_targets(y)
        if self._binary:
            kind = type_of_target(y, input_name="y", raise_unknown=True)
            if kind != "binary":
                raise ValueError(
                    f"Only binary classification is supported. The type of the target "
                    f"is {kind}; use markone.MulticlassPerceptron for more classes.")
        return X, y

    def _checked_input(self, X, y=_NO_LABELS, *, reset: bool, exact: bool):
        """``X`` (and ``y``, if given) by scikit-learn's ``validate_data``: ``X`` as
        float64 that rounds nothing, or canonical CSR; with ``exact``, as an object
        array of Fractions (NaN and infinity refused as :func:`markone.train`'s exact
        mode refuses them)."""
        if exact:  # scikit-learn checks shapes, names and labels; the entries stay exact
            out = validate_data(self, X, y, reset=reset, dtype=None,
                                ensure_all_finite=False, accept_sparse=False)
        else:
            X = float64_input(X)  # the estimators train in float64: never on rounded X
            out = validate_data(self, X, y, reset=reset, dtype=np.float64,
                                accept_sparse=self._accept_sparse)
        X = out if y is _NO_LABELS else out[0]
        X = fraction_array(X) if exact else _canonical(X)
        return X if y is _NO_LABELS else (X, out[1])

    def _exact_input(self, reset: bool) -> bool:
        """True when this call reads exact numbers: a learner with an ``exact``
        parameter, from its value (a new fit) or from the fitted state's mode."""
        if "exact" not in self._parameter_constraints:
            return False
        return bool(self.exact) if reset else self.__dict__.get("_exact", False)

    def _encode(self, y, classes=None):
        """``(codes, classes)``: -1/+1 for binary learners, ``0..K-1`` otherwise."""
        if self._binary:
            return encode_binary_labels(y, classes=classes, allow_single=classes is not None)
        return encode_class_labels(y, classes=classes)

    def _first_classes(self, classes, y=None):
        """The classes a ``partial_fit``/``learn_one`` must be told the first time."""
        if classes is None:
            if self._binary and y is not None and np.isin(np.asarray(y), (-1, 1)).all():
                return np.array([-1, 1])  # -1/+1 labels need no ``classes``
            raise ValueError(
                "classes must be passed to the first call of partial_fit (or "
                "learn_one), e.g. partial_fit(X, y, classes=[0, 1]): later batches "
                "may not show every class.")
        classes = np.unique(np.asarray(classes))
        if self._binary and len(classes) != 2:
            raise ValueError(f"classes must hold exactly two labels for a binary "
                             f"learner, got {classes.tolist()}.")
        return classes

    def _check_same_classes(self, classes):
        if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(
                f"classes={np.unique(classes).tolist()} differs from the classes "
                f"{self.classes_.tolist()} of the first fit; call fit to restart.")

    def _begin(self, classes, n_features: int) -> None:
        self._forget_shortcuts()
        self.classes_ = classes
        self.n_features_in_ = n_features
        self._row_shape = (n_features,)
        self._code = {c.item() if hasattr(c, "item") else c: code for c, code in
                      zip(classes, self._encode(classes, classes)[0].tolist())}
        self._rng = as_generator(self.seed)
        self._per_epoch: list = []
        self._mistakes = 0
        self._start(classes, n_features)

    # learning -------------------------------------------------------------------------
    def fit(self: E, X: ArrayLike, y: ArrayLike) -> E:
        """Train from zero on ``(X, y)``; return ``self``.

        Passes over the data in ``order`` until one makes no update, or
        ``max_epochs`` passes (then a :class:`~markone.ConvergenceWarning`).
        """
        self._check_params()
        X, y = self._validate_xy(X, y, reset=True)
        codes, classes = self._encode(y)
        self._begin(classes, X.shape[1])
        self._fit_passes(Dataset.of_rows(X), codes)
        return self

    def _fit_passes(self, data: Dataset, codes: np.ndarray) -> None:
        prepared = self._prepare(data, codes)
        n = data.shape[0]
        order = check_order(self.order, n)
        per_epoch = run_epochs(lambda idx: self._pass(prepared, idx), order, n,
                               self.max_epochs, self._rng)
        self._record_passes(per_epoch)
        if per_epoch[-1] and not is_stream_run(order, self.max_epochs):
            warn_not_converged(self.max_epochs, stacklevel=4)

    def _record_passes(self, per_epoch) -> None:
        self._per_epoch.extend(int(m) for m in per_epoch)
        self._mistakes += int(sum(per_epoch))

    def partial_fit(self: E, X: ArrayLike, y: ArrayLike,
                    classes: ArrayLike | None = None) -> E:
        """One pass over ``(X, y)`` from the current state; return ``self``.

        ``classes`` (every class the model will see) is needed the first time, unless
        a binary learner gets -1/+1 labels.
        """
        self._check_params()
        first = not hasattr(self, "_code")
        if not first and self._exact_input(True) != self._exact_input(False):
            raise ValueError(f"exact={self.exact!r} differs from the arithmetic of the "
                             "first fit; call fit to restart in the new mode.")
        X, y = self._validate_xy(X, y, reset=first)
        if first:
            classes = self._first_classes(classes, y)
        else:
            self._check_same_classes(classes)
            classes = self.classes_
        codes, _ = self._encode(y, classes)
        if first:
            self._begin(classes, X.shape[1])
        prepared = self._prepare(Dataset.of_rows(X), codes)
        order = check_order(self.order, X.shape[0])
        self._record_passes([self._pass(prepared, epoch_indices(order, X.shape[0],
                                                                self._rng))])
        self._end_partial_fit()
        return self

    def _end_partial_fit(self):
        """Hook: what a learner does after the pass of a ``partial_fit``."""

    def learn_one(self: E, x: ArrayLike, y: Label,
                  classes: ArrayLike | None = None) -> E:
        """Learn from one example with the same rule as ``fit``; return ``self``.

        O(d) per call, constant in the number of examples seen (the kernel learner
        with a non-linear kernel: O(d x support), since a score needs the support
        set, which grows with the mistakes); a ``learn_one`` is not an epoch. The first call
        needs ``classes`` unless a binary learner gets -1/+1 labels. Parameters are
        checked when the first call creates the state (``fit``/``partial_fit`` check
        them every time).
        """
        if classes is None and self._is_row(x):  # the lean path: nothing to convert
            try:
                code = self._code[y]
            except (KeyError, TypeError):
                pass  # not a class: the general path below says so
            else:
                self._mistakes += self._learn_row(x, code)
                return self
        if not hasattr(self, "_code"):
            self._check_params()
            classes = self._first_classes(classes, [y])
            self._begin(classes, len(np.ravel(x)))
        elif classes is not None:
            self._check_same_classes(classes)
        try:
            code = self._code[y]
        except (KeyError, TypeError):
            raise ValueError(f"y={y!r} is not one of the classes "
                             f"{self.classes_.tolist()} given at the first fit.") from None
        self._mistakes += self._learn_row(self._one_row(x), code)
        return self

    def _is_row(self, x) -> bool:
        """True when ``x`` is already what :meth:`_one_row` makes (a float64 ndarray of
        the width learned), on a started state: ``learn_one`` and ``predict_one``
        take it as it is. Other inputs go through :meth:`_one_row`."""
        return (x.__class__ is np.ndarray and x.dtype is _FLOAT64
                and x.shape == self.__dict__.get("_row_shape"))

    def _one_row(self, x):
        x = np.asarray(x)
        if self._exact_input(False):  # no lean path comes here (no row shape is kept)
            x = fraction_array(x[None], name="x")[0] if x.ndim == 1 else x
        elif x.dtype.kind == "c":  # as fit and predict refuse it (a cast drops x.imag)
            raise ValueError(f"Complex data not supported: x has dtype {x.dtype}; "
                             f"pass real numbers (x.real, if that is what you mean).")
        elif x.dtype != np.float64:  # exactly, or refused by value (no silent rounding)
            if x.ndim == 1:
                x = float64_input(x.reshape(1, -1), name="x").reshape(-1)
            x = x.astype(np.float64)
        if x.shape != (self.n_features_in_,):
            raise ValueError(
                f"x must be one sample of {self.n_features_in_} features (a 1-D "
                f"sequence), got shape {x.shape}.")
        return x

    # prediction -------------------------------------------------------------------------
    def _checked_X(self, X):
        check_is_fitted(self)
        return self._checked_input(X, reset=False, exact=self._exact_input(False))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predicted classes (ties: a zero binary score predicts ``classes_[1]``, a
        multiclass tie the lowest class index)."""
        index = self._predict_index(self.decision_function(X))
        return self.classes_[index]

    def _predict_index(self, scores):
        scores = np.asarray(scores)
        if scores.ndim == 1:
            return (scores >= 0).astype(int)
        return np.argmax(scores, axis=1)

    def predict_one(self, x: ArrayLike) -> Any:
        """Predict the class of one example (O(d))."""
        if not self._is_row(x):  # a started state has a row shape: fitted
            check_is_fitted(self)
            x = self._one_row(x)
        score = self._score_one(x)
        if not _all_finite(score):   # a linear score of NaN or inf is never finite
            raise ValueError(_NOT_FINITE[:-1] + ", or its score overflows float64.")
        return self.classes_[self._index_one(score)].item()

    def _index_one(self, score):
        """The class index of one example's score: :meth:`_predict_index` of it as a
        batch of one (a learner may say the same faster)."""
        return self._predict_index(np.asarray(score)[None])[0]

    def _score_one(self, x):
        return np.asarray(self.decision_function(x[None, :]))[0]

    # counts -----------------------------------------------------------------------------
    @property
    def n_mistakes_(self) -> int:
        """Updates made so far (passes of ``fit``/``partial_fit`` and ``learn_one``)."""
        check_is_fitted(self)
        return self._mistakes + self._state_updates()

    def _state_updates(self) -> int:
        """Hook: updates a learner counts in its compiled state (a lean
        ``learn_one`` path) rather than in ``_mistakes``."""
        return 0

    @property
    def n_epochs_(self) -> int:
        """Passes made (``fit``'s final clean pass included; one per ``partial_fit``)."""
        check_is_fitted(self)
        return len(self._per_epoch)

    @property
    def mistakes_per_epoch_(self) -> tuple:
        """Updates in each pass (``learn_one`` calls are in no pass)."""
        check_is_fitted(self)
        return tuple(self._per_epoch)

    @property
    def converged_(self) -> bool:
        """True when the last pass made no update."""
        check_is_fitted(self)
        return bool(self._per_epoch) and self._per_epoch[-1] == 0

