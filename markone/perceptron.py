"""The perceptron: :func:`train`, its :class:`TrainResult`, and :class:`Perceptron`.

One engine serves every variant ("last", "averaged", "voted", "pocket") and both
arithmetics (float64, and exact integers/rationals); the estimator is a thin layer
over the same engine, and the compiled loops live in :mod:`markone._kernels`.

The rule is Rosenblatt's error correction with a zero start: on example ``(x, y)``
with ``y`` in {-1, +1}, a score ``y * w.x <= 0`` is a mistake (so a zero score is a
mistake, and the first example always updates), and a mistake adds ``eta * y * x``.
Training stops after the first pass without an update, or at ``max_epochs``.

Examples
--------
AND is linearly separable; the run converges and its weights can be checked by hand:

>>> import markone
>>> X = [[0, 0], [0, 1], [1, 0], [1, 1]]
>>> res = markone.train(X, [-1, -1, -1, 1])
>>> res.converged, res.mistakes, res.epochs
(True, 18, 9)
>>> res.w.tolist()          # [coef..., intercept weight]
[3.0, 2.0, -4.0]

Exactly, with rationals:

>>> markone.train([["1/2"], ["-1/3"]], [1, -1], exact=True).w
(Fraction(5, 6), Fraction(0, 1))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from markone import _kernels
from markone._checks import (
    VARIANTS,
    ConvergenceWarning,
    check_common,
    check_order,
    epoch_indices,
    float_range_error,
    raise_bad_row,
    warn_not_converged,
    zero_rows_error,
)
from markone._estimator import OnlineClassifier
from markone._exact import to_fraction, to_integer_matrix
from markone._validation import (
    as_generator,
    check_consistent_length,
    check_matrix,
    encode_binary_labels,
    labels_to_pm1,
)
from markone.online import predict_sign

__all__ = ["train", "TrainResult", "Perceptron", "ConvergenceWarning", "augment",
           "VARIANTS"]




def augment(X, intercept=True, intercept_scale=1.0):
    """Return ``[X, c]`` (a column of ``c = intercept_scale`` appended) as float64.

    >>> augment([[1.0, 2.0]]).tolist()
    [[1.0, 2.0, 1.0]]
    """
    X = check_matrix(X)
    if not intercept:
        return X
    return np.hstack([X, np.full((X.shape[0], 1), float(intercept_scale))])


# ----------------------------------------------------------------------------------
# results


@dataclass(frozen=True, repr=False)
class TrainResult:
    """What :func:`train` returns. Weights live in the augmented space.

    Attributes
    ----------
    w : ndarray or tuple of Fraction
        The variant's prediction vector (for "voted", the survival-weighted average
        of the intermediate vectors; predictions use the vote itself). With an
        intercept, ``w[-1]`` is the weight of the appended constant.
    last_w : ndarray or tuple of Fraction
        The last iterate.
    mistakes : int
        Total number of updates.
    epochs : int
        Passes made, the final clean pass included.
    converged : bool
        True when the last pass made no update.
    mistakes_per_epoch : tuple of int
    variant : str
    exact : bool
    intercept_scale : float, Fraction or None
        The appended constant ``c`` (None without an intercept).
    classes : ndarray or None
        The two original labels, ``classes[0] -> -1`` and ``classes[1] -> +1``.
    mistake_indices : tuple of int or None
        With ``record=True``: the example index of every update, in order.
    weights_after : ndarray, tuple or None
        With ``record=True``: the last iterate after each update (one row each).
    vote_vectors, vote_counts : for ``variant="voted"``: the intermediate vectors
        (the zero start first) and how many presentations each survived.
    """

    w: object
    last_w: object
    mistakes: int
    epochs: int
    converged: bool
    mistakes_per_epoch: tuple
    variant: str = "last"
    exact: bool = False
    intercept_scale: object = 1.0
    classes: object = None
    mistake_indices: tuple | None = None
    weights_after: object = None
    vote_vectors: object = field(default=None)
    vote_counts: tuple | None = None

    @property
    def coef(self):
        """The weights of the input features (``w`` without the intercept weight)."""
        return self.w[:-1] if self.intercept_scale is not None else self.w

    @property
    def intercept(self):
        """The bias ``b`` in ``coef . x + b`` (the intercept weight times ``c``)."""
        if self.intercept_scale is None:
            return Fraction(0) if self.exact else 0.0
        return self.w[-1] * self.intercept_scale

    def _augmented(self, X):
        if self.exact:
            rows = [[to_fraction(v) for v in r] for r in X]
            if self.intercept_scale is not None:
                rows = [r + [self.intercept_scale] for r in rows]
            return np.array(rows, dtype=object)
        return augment(X, self.intercept_scale is not None,
                       1.0 if self.intercept_scale is None else self.intercept_scale)

    def decision_function(self, X):
        """Scores of the prediction rule (for "voted": the weighted vote)."""
        A = self._augmented(X)
        if self.variant == "voted":
            V = np.array(self.vote_vectors, dtype=object if self.exact else float)
            return predict_sign(A @ V.T) @ np.array(self.vote_counts)
        w = np.array(self.w, dtype=object if self.exact else float)
        return A @ w

    def predict(self, X):
        """Predicted labels (the original classes; a zero score predicts +1)."""
        signs = predict_sign(self.decision_function(X))
        if self.classes is None:
            return signs
        return np.asarray(self.classes)[(signs > 0).astype(int)]

    def __repr__(self):
        def show(v):
            vals = list(v)
            txt = ", ".join(str(x) if self.exact else f"{float(x):.6g}" for x in vals[:6])
            return f"[{txt}{', ...' if len(vals) > 6 else ''}]"

        return (
            f"TrainResult(variant={self.variant!r}, converged={self.converged}, "
            f"mistakes={self.mistakes}, epochs={self.epochs}, w={show(self.w)}"
            f"{', exact=True' if self.exact else ''})"
        )


# ----------------------------------------------------------------------------------
# the engine


class _Overflow(Exception):
    """int64 arithmetic would overflow: the run restarts with Python integers."""


class _Engine:
    """Mutable state of one binary perceptron over rows ``yx`` (float64, int64 or
    object). ``lean`` engines (float, last iterate, no recording) use the fastest
    kernel; the others keep what every variant needs."""

    def __init__(self, d, dtype, *, lean, record_w):
        self.dtype = dtype
        self.lean = lean
        self.record_w = record_w
        zero = np.zeros(d, dtype=dtype) if dtype != object else np.array([0] * d, dtype=object)
        self.w = zero.copy()
        self.acc = zero.copy()
        self.pocket = zero.copy()
        self.ctr = np.array([0, 0, 0, 1, 0], dtype=np.int64 if dtype != object else object)
        self.mistake_idx = []
        self.runs = []
        self.after = []

    def run_pass(self, yx, idx, eta, checks):
        """One pass over ``yx[idx]``; returns the number of mistakes."""
        if self.lean:  # yx is (X, y, c): labels and constant folded in on the fly
            X, y, c = yx
            status = np.zeros(2, dtype=np.int64)
            m = _kernels.epoch_last_xy(X, y, c, idx, eta, self.w, status)
            if status[0]:
                raise_bad_row(X, int(idx[status[1]]), int(status[0]))
            return int(m)
        n = idx.shape[0]
        rec_idx = np.empty(n, dtype=np.int64)
        rec_run = np.empty(n, dtype=np.int64 if self.dtype != object else object)
        shape = (n, yx.shape[1]) if self.record_w else (1, yx.shape[1])
        rec_w = np.empty(shape, dtype=self.dtype)
        if self.dtype == object:
            m = _kernels.epoch_general.py_func(
                yx, idx, eta, self.w, self.acc, self.pocket, self.ctr, rec_idx, rec_run,
                rec_w, self.record_w, 0, None, None)
        else:
            limit, xmax, l1max = checks if checks is not None else (0, _NO_X, 0)
            m = _kernels.epoch_general(
                yx, idx, eta, self.w, self.acc, self.pocket, self.ctr, rec_idx, rec_run,
                rec_w, self.record_w, limit, xmax, l1max)
            if m < 0:
                raise _Overflow
        self.mistake_idx.extend(rec_idx[:m].tolist())
        self.runs.extend(rec_run[:m].tolist())
        if self.record_w:
            self.after.extend(rec_w[:m].copy())
        return int(m)

    def averaged(self):
        T = int(self.ctr[0])
        if T == 0:
            return self.w.copy()
        if self.dtype == object or self.dtype == np.int64:
            return [Fraction((T + 1) * int(a) - int(b), T) for a, b in zip(self.w, self.acc)]
        return ((T + 1) * self.w - self.acc) / T

    def voted(self):
        """Return (vectors, counts, weighted average) of the vote."""
        vectors = [np.zeros_like(self.w)] + list(self.after)
        counts = self.runs + [int(self.ctr[1])]
        total = sum(counts)
        if total == 0:
            return vectors, counts, self.w.copy()
        if self.dtype == np.float64:
            avg = sum(c * v for c, v in zip(counts, vectors)) / total
        else:
            avg = [Fraction(sum(int(c) * int(v[j]) for c, v in zip(counts, vectors)), total)
                   for j in range(len(self.w))]
        return vectors, counts, avg


_NO_X = np.zeros(1, dtype=np.int64)


def train(X, y, *, intercept=True, intercept_scale=1.0, eta=1.0, max_epochs=1000,
          order="given", seed=None, variant="last", exact=False, record=False):
    """Train a binary perceptron with Rosenblatt's rule from a zero start.

    Parameters
    ----------
    X : array-like (n_samples, n_features)
        Inputs; with ``exact=True`` also ints, Fractions or strings like ``"3/4"``.
    y : array-like (n_samples,)
        Two classes of any values (mapped to -1/+1, the sorted first to -1), or
        -1/+1 labels (then one class only is accepted too).
    intercept : bool
        Append the constant ``intercept_scale`` to every input (default True).
    eta : float
        Step size; with a zero start it changes no decision, only the scale of ``w``.
    max_epochs : int
        Stop after this many passes (then ``converged=False`` and a warning).
    order : "given", "shuffle" or sequence of int
        Presentation order per pass: as given, a fresh seeded permutation each pass,
        or an explicit online stream of example indices (repeats allowed) presented
        once per pass. A single pass of an explicit stream (``max_epochs=1``) is a
        replay and does not warn about convergence.
    seed : int, Generator or None
        For ``order="shuffle"``.
    variant : "last", "averaged", "voted" or "pocket"
        Which vector predicts: the last iterate, the average of the iterates after
        every presentation, the survival-weighted vote of all intermediate vectors
        (Freund & Schapire 1999), or the vector with the longest run of consecutive
        correct predictions (Gallant's pocket, 1986).
    exact : bool
        Train in exact integer arithmetic (int64 with overflow detection, Python ints
        beyond); the weights come back as tuples of Fraction.
    record : bool
        Also return the index of every mistake and the weights after it.

    Returns
    -------
    TrainResult

    Raises
    ------
    ValueError
        On NaN/inf, empty or ragged data, mismatched lengths, labels that are not two
        classes, a zero input vector without intercept, ``max_epochs < 1``,
        ``eta <= 0``, or an order index out of range.

    Examples
    --------
    XOR is not separable: the run stops at ``max_epochs`` and says so.

    >>> import warnings, markone
    >>> X, y = markone.datasets.xor()
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = markone.train(X, y, max_epochs=50)
    >>> res.converged, res.epochs, caught[0].category.__name__
    (False, 50, 'ConvergenceWarning')
    """
    eta = check_common(eta, max_epochs, variant, intercept_scale, intercept)
    y_pm1, classes = labels_to_pm1(y)
    if exact:
        n = len(X) if not isinstance(X, np.ndarray) else X.shape[0]
        check_consistent_length(range(n), y_pm1)
        c = to_fraction(intercept_scale, where="intercept_scale ") if intercept else None
        M, scale = to_integer_matrix(X, extra=(c,) if intercept else ())
        if intercept:
            c_int = int(c * scale)
            if M.dtype != object and c_int >= _kernels.INT64_LIMIT:
                M = M.astype(object)  # the scaled constant needs Python integers
            M = np.hstack([M, np.full((M.shape[0], 1), c_int, dtype=M.dtype)])
        yx = M * y_pm1.astype(M.dtype)[:, None]
        run_eta = 1
    elif variant == "last" and not record:
        # the lean path reads X as it is; NaN/inf and zero rows are caught by the loop
        explicit = not isinstance(order, str)
        Xf = check_matrix(X, check_finite=explicit)
        check_consistent_length(Xf, y_pm1)
        c = float(intercept_scale) if intercept else None
        yx = (Xf, y_pm1.astype(np.float64), c if intercept else 0.0)
        run_eta = float(eta)
    else:
        Xf = check_matrix(X)
        check_consistent_length(Xf, y_pm1)
        Xa = augment(Xf, intercept, intercept_scale)
        yx = np.ascontiguousarray(Xa * y_pm1[:, None])
        run_eta = float(eta)
        c = float(intercept_scale) if intercept else None
    if not intercept and not isinstance(yx, tuple):
        zero_rows_error(yx)
    n = yx[0].shape[0] if isinstance(yx, tuple) else yx.shape[0]
    order = check_order(order, n)
    rng = as_generator(seed)

    if exact and yx.dtype == np.int64:
        try:
            checks = _overflow_checks(yx)
            engine, per_epoch = _run(yx, order, rng, run_eta, max_epochs, variant, record,
                                     checks=checks)
        except _Overflow:
            rng = as_generator(seed)
            engine, per_epoch = _run(yx.astype(object), order, rng, run_eta, max_epochs,
                                     variant, record, checks=None)
    else:
        engine, per_epoch = _run(yx, order, rng, run_eta, max_epochs, variant, record,
                                 checks=None)
    converged = per_epoch[-1] == 0
    if not converged and not (isinstance(order, np.ndarray) and max_epochs == 1):
        warn_not_converged(max_epochs)
    unit = (Fraction(eta) / scale) if exact else None
    return _result(engine, per_epoch, variant, exact, unit, c, classes, record)


def _overflow_checks(yx):
    absx = np.abs(yx)
    l1max = max(1, int(absx.sum(axis=1, dtype=object).max()))
    if l1max > _kernels.INT64_LIMIT:
        raise _Overflow
    return _kernels.INT64_LIMIT, absx.max(axis=1).astype(np.int64), l1max


def _run(yx, order, rng, eta, max_epochs, variant, record, checks):
    lean = isinstance(yx, tuple)
    if lean:
        n, d = yx[0].shape[0], yx[0].shape[1] + 1
        engine = _Engine(d, np.float64, lean=True, record_w=False)
    else:
        n, d = yx.shape
        engine = _Engine(d, yx.dtype, lean=False, record_w=record or variant == "voted")
    per_epoch = []
    floats = engine.dtype == np.float64
    for epoch in range(1, max_epochs + 1):
        idx = epoch_indices(order, n, rng)
        m = engine.run_pass(yx, idx, eta, checks)
        per_epoch.append(m)
        if m == 0:
            break
        if floats and (epoch & (epoch - 1) == 0 or epoch == max_epochs):
            _check_float_range(yx, engine.w)  # epochs 1, 2, 4, 8, ... and the last
    return engine, per_epoch


#: Scores whose terms sum (in absolute value) below this are decided by underflow:
#: within 53 bits of the subnormal range, rounding to zero outweighs the data.
_UNDERFLOW_ZONE = 2.0**-969


def _check_float_range(yx, w):
    """Raise :class:`FloatRangeError` when float64 cannot carry this run: weights or
    scores that overflowed, or scores whose nonzero terms underflow."""
    if isinstance(yx, tuple):  # lean: (X, y, c), w has the constant's weight last
        X, _, c = yx
        wx, wc = w[:-1], w[-1] * c
    else:
        X, wx, wc = yx, w, 0.0
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        s = X @ wx + wc
        bad = np.flatnonzero(~np.isfinite(s))
        if bad.size or not np.isfinite(w).all():
            raise float_range_error(int(bad[0]) if bad.size else 0, "overflow")
        a = np.abs(X) @ np.abs(wx) + abs(wc)
    small = np.flatnonzero(a < _UNDERFLOW_ZONE)
    if small.size:
        live = ((X[small] != 0) & (wx != 0)).any(axis=1) | (wc != 0)
        if live.any():
            raise float_range_error(int(small[np.flatnonzero(live)[0]]), "underflow")


def _result(engine, per_epoch, variant, exact, unit, c, classes, record):
    if exact:
        def conv(v):  # int() first: a Fraction of an np.int64 keeps int64 parts
            return tuple((x if isinstance(x, Fraction) else Fraction(int(x))) * unit
                         for x in v)

        def conv_rows(rows):
            return tuple(conv(r) for r in rows)
    else:
        def conv(v):
            return np.array(v, dtype=float)

        def conv_rows(rows):
            return np.array(rows, dtype=float).reshape(len(rows), -1) if len(rows) else \
                np.empty((0, engine.w.shape[0]))

    vote_vectors = vote_counts = None
    if engine.lean and c is None:  # the unused constant's weight (always 0) goes
        engine.w = engine.w[:-1]
    if variant == "last":
        w = engine.w
    elif variant == "averaged":
        w = engine.averaged()
    elif variant == "pocket":
        w = engine.pocket
    else:
        vectors, counts, w = engine.voted()
        vote_vectors, vote_counts = conv_rows(vectors), tuple(int(k) for k in counts)
    return TrainResult(
        w=conv(w),
        last_w=conv(engine.w),
        mistakes=int(sum(per_epoch)),
        epochs=len(per_epoch),
        converged=per_epoch[-1] == 0,
        mistakes_per_epoch=tuple(int(m) for m in per_epoch),
        variant=variant,
        exact=exact,
        intercept_scale=c,
        classes=classes,
        mistake_indices=tuple(engine.mistake_idx) if record else None,
        weights_after=conv_rows(engine.after) if record else None,
        vote_vectors=vote_vectors,
        vote_counts=vote_counts,
    )


# ----------------------------------------------------------------------------------
# the estimator


class Perceptron(OnlineClassifier):
    """Binary perceptron with the scikit-learn estimator contract.

    A thin layer over the engine of :func:`train`: ``fit(X, y)`` equals
    ``train(X, y, ...)`` with the same settings; ``partial_fit`` makes one pass from
    the current state; ``learn_one``/``predict_one`` handle one example at a time and
    call the same update.

    Parameters
    ----------
    intercept, intercept_scale, eta, max_epochs, order, seed, variant
        As in :func:`train` (keyword-only, stored verbatim, checked in ``fit``).

    Attributes
    ----------
    coef_ : ndarray (1, n_features)
    intercept_ : ndarray (1,)
    classes_ : ndarray (2,)
    n_mistakes_, n_epochs_ : int
    converged_ : bool
    w_ : ndarray, the augmented prediction vector.
    result_ : TrainResult of the last fit (or of all partial fits so far).

    Examples
    --------
    >>> from markone import Perceptron
    >>> clf = Perceptron().fit([[0, 0], [0, 1], [1, 0], [1, 1]], ["no", "no", "no", "yes"])
    >>> clf.predict([[1, 1], [0, 1]]).tolist(), clf.n_mistakes_
    (['yes', 'no'], 18)
    >>> clf.learn_one([2, 2], "yes").predict_one([2, 2])
    'yes'
    """

    def __init__(self, *, intercept=True, intercept_scale=1.0, eta=1.0, max_epochs=1000,
                 order="given", seed=None, variant="last"):
        self.intercept = intercept
        self.intercept_scale = intercept_scale
        self.eta = eta
        self.max_epochs = max_epochs
        self.order = order
        self.seed = seed
        self.variant = variant

    def _validated(self):
        return check_common(self.eta, self.max_epochs, self.variant, self.intercept_scale,
                            self.intercept)

    def fit(self, X, y):
        """Train from zero on ``(X, y)`` (two classes); return ``self``."""
        self._validated()
        Xf = check_matrix(X)
        y_pm1, classes = encode_binary_labels(y)
        check_consistent_length(Xf, y_pm1)
        res = train(Xf, y_pm1, intercept=self.intercept, intercept_scale=self.intercept_scale,
                    eta=self.eta, max_epochs=self.max_epochs, order=self.order,
                    seed=self.seed, variant=self.variant)
        self._set_fitted(res, classes, Xf.shape[1])
        self._engine = None  # partial_fit after fit continues from the result
        return self

    def _set_fitted(self, res, classes, n_features):
        self.classes_ = classes
        self.n_features_in_ = n_features
        self.w_ = np.asarray(res.w, dtype=float)
        self.result_ = res
        self.coef_ = np.asarray(res.coef, dtype=float).reshape(1, -1)
        self.intercept_ = np.array([float(res.intercept)])
        self.n_mistakes_ = res.mistakes
        self.n_epochs_ = res.epochs
        self.converged_ = res.converged

    def partial_fit(self, X, y, classes=None):
        """One pass over ``(X, y)`` from the current state (``classes`` the first time)."""
        self._validated()
        Xf = check_matrix(X)
        first = not hasattr(self, "classes_")
        classes = self._classes_for_partial_fit(classes)
        if len(classes) != 2:
            raise ValueError(f"classes must hold exactly two labels, got {classes.tolist()}.")
        y_pm1, _ = encode_binary_labels(y, classes=classes, allow_single=True)
        check_consistent_length(Xf, y_pm1)
        if not first:
            Xf = self._check_X(Xf)
        Xa = augment(Xf, self.intercept, self.intercept_scale)
        yx = np.ascontiguousarray(Xa * y_pm1[:, None])
        if not self.intercept:
            zero_rows_error(yx)
        engine = getattr(self, "_engine", None)
        if engine is None:
            engine = _Engine(yx.shape[1], np.float64, lean=False,
                             record_w=self.variant == "voted")
            if not first:  # continue from fit(): only the last iterate carries over
                engine.w[:] = self.result_.last_w
            self._rng = as_generator(self.seed)
            self._per_epoch = [] if first else list(self.result_.mistakes_per_epoch)
            self._engine = engine
        order = check_order(self.order, yx.shape[0])
        m = engine.run_pass(yx, epoch_indices(order, yx.shape[0], self._rng),
                            float(self.eta), None)
        self._per_epoch.append(m)
        c = float(self.intercept_scale) if self.intercept else None
        res = _result(engine, self._per_epoch, self.variant, False, None, c, classes, False)
        self._set_fitted(res, classes, Xf.shape[1])
        return self

    def learn_one(self, x, y, classes=None):
        """Learn from one example (the same update as ``fit``); return ``self``.

        The first call needs ``classes`` unless the labels are -1/+1.
        """
        if not hasattr(self, "classes_") and classes is None and y in (-1, 1):
            classes = [-1, 1]
        return super().learn_one(x, y, classes=classes)

    def decision_function(self, X):
        """Signed scores (positive means ``classes_[1]``)."""
        self._check_fitted()
        return np.asarray(self.result_.decision_function(self._check_X(X)), dtype=float)

    def predict(self, X):
        """Predicted classes (a zero score predicts ``classes_[1]``)."""
        positive = predict_sign(self.decision_function(X)) > 0
        return self.classes_[positive.astype(int)]
