"""The perceptron engine: :func:`train` and its :class:`TrainResult`.

One engine serves every variant ("last", "averaged", "voted", "pocket") and both
arithmetics (float64, and exact integers/rationals); the estimator
(:class:`markone.Perceptron`, in :mod:`markone.perceptron`) is a thin layer over the
same engine, and the compiled loops live in :mod:`markone._loops`. Nothing here
imports scikit-learn.

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

import functools
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np

from markone import _loops
from markone._internal.checks import (
    ConvergenceWarning,
    average_range_error,
    check_order,
    float_range_error,
    is_stream_run,
    raise_bad_row,
    run_epochs,
    warn_not_converged,
    zero_rows_error,
)
from markone._params import as_float, validate_core_params
from markone._internal.data import Dataset, as_dataset
from markone._internal.exact import fraction_text, to_fraction
from markone._internal.jit import entry_point
from markone._internal.rows import append_constant, signed_rows
from markone._internal.typing import ArrayLike, Order, Rational, Seed
from markone._internal.validation import (
    array_values,
    as_generator,
    check_matrix_or_sparse,
    dense_array,
    is_sparse,
    sparse_refused,
)
from markone._internal.html import result_html
from markone.online import predict_sign
from markone.variants import VARIANTS

__all__ = ["train", "TrainResult", "ConvergenceWarning", "augment",
           "VARIANTS"]




def augment(X: ArrayLike, intercept: bool = True,
            intercept_scale: float = 1.0) -> np.ndarray:
    """Return ``[X, c]`` (a column of ``c = intercept_scale`` appended) as float64.

    ``X`` is checked (or a checked :class:`markone._internal.data.Dataset`). Sparse input gives a canonical CSR matrix (the constant column stored).

    >>> augment([[1.0, 2.0]]).tolist()
    [[1.0, 2.0, 1.0]]
    >>> import scipy.sparse as sp
    >>> augment(sp.csr_array([[0.0, 2.0]]), intercept_scale=0.5).toarray().tolist()
    [[0.0, 2.0, 0.5]]
    """
    Xf = X.floats if isinstance(X, Dataset) else check_matrix_or_sparse(X)
    return append_constant(Xf, intercept, intercept_scale)


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

    w: Any
    last_w: Any
    mistakes: int
    epochs: int
    converged: bool
    mistakes_per_epoch: tuple
    variant: str = "last"
    exact: bool = False
    intercept_scale: Any = 1.0
    classes: Any = None
    mistake_indices: tuple | None = None
    weights_after: Any = None
    vote_vectors: Any = field(default=None)
    vote_counts: tuple | None = None

    @property
    def coef(self) -> Any:
        """The weights of the input features (``w`` without the intercept weight)."""
        return self.w[:-1] if self.intercept_scale is not None else self.w

    @property
    def intercept(self) -> Any:
        """The bias ``b`` in ``coef . x + b`` (the intercept weight times ``c``)."""
        if self.intercept_scale is None:
            return Fraction(0) if self.exact else 0.0
        return self.w[-1] * self.intercept_scale

    def _augmented(self, X):
        if self.exact and is_sparse(X):
            raise sparse_refused(X, what="an exact result's predictions")
        if self.exact:
            rows = [[to_fraction(v) for v in r] for r in dense_array(array_values(X))]
            if self.intercept_scale is not None:
                rows = [r + [self.intercept_scale] for r in rows]
            return np.array(rows, dtype=object)
        return augment(X, self.intercept_scale is not None,
                       1.0 if self.intercept_scale is None else self.intercept_scale)

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Scores of the prediction rule (for "voted": the weighted vote)."""
        A = self._augmented(X)
        if VARIANTS[self.variant].votes:
            V = np.array(self.vote_vectors, dtype=object if self.exact else float)
            return predict_sign(A @ V.T) @ np.array(self.vote_counts)
        w = np.array(self.w, dtype=object if self.exact else float)
        return A @ w

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predicted labels (the original classes; a zero score predicts +1)."""
        signs = predict_sign(self.decision_function(X))
        if self.classes is None:
            return signs
        return np.asarray(self.classes)[(signs > 0).astype(int)]

    def __repr__(self):
        def show(v):
            vals = list(v)
            txt = ", ".join(fraction_text(x) if self.exact else f"{float(x):.6g}"
                            for x in vals[:6])
            return f"[{txt}{', ...' if len(vals) > 6 else ''}]"

        return (
            f"TrainResult(variant={self.variant!r}, converged={self.converged}, "
            f"mistakes={self.mistakes}, epochs={self.epochs}, w={show(self.w)}"
            f"{', exact=True' if self.exact else ''})"
        )

    def _repr_html_(self):
        """Shown in Jupyter: what happened in words, the fields as a table."""
        state = "converged" if self.converged else "did not converge"
        return result_html(self, headline=f"{state} after {self.mistakes} mistakes in "
                                          f"{self.epochs} passes")


# ----------------------------------------------------------------------------------
# the engine


class _Overflow(Exception):
    """int64 arithmetic would overflow: the run restarts with Python integers."""


class _Engine:
    """Mutable state of one binary perceptron over rows ``yx`` (float64, int64 or
    object). ``lean`` engines (float, last iterate, no history) use the fastest kernel
    on ``(X, y, c)``; the others keep what every variant needs in O(d) (the averaging
    sum, the pocket vector, counters), and the history (mistake indices, survival
    runs, intermediate vectors) only when ``keep_history`` (``record=True`` or the
    voted variant)."""

    def __init__(self, d, dtype, *, lean, keep_history):
        self.dtype = dtype
        self.lean = lean
        self.keep_history = keep_history
        zero = np.zeros(d, dtype=dtype) if dtype != object else np.array([0] * d, dtype=object)
        self.w = zero.copy()
        self.acc = zero.copy()
        self.pocket = zero.copy()
        self.ctr = np.array([0, 0, 0, 1, 0], dtype=np.int64 if dtype != object else object)
        self.mistake_idx = []
        self.runs = []
        self.after = []
        # [0, 1]: where a lean pass stopped (code, position); [2]: the updates made
        # by lean_step()'s steps (counted in their kernel: learn_one's lean path)
        self._status = np.zeros(3, dtype=np.int64)
        # presentations so far, counted while they decide the path (small runs stay
        # uncompiled); lean_step()'s compiled steps are not counted: they come after
        self.presented = 0
        # the most presentations the run can make (set by train(); None: unknown)
        self.at_most: int | None = None

    def _pass(self, fn, idx, *args):
        """Run kernel ``fn`` (plain or compiled: :func:`markone._loops.pass_kernel`)
        for a pass over ``idx``; its other arguments are ``args``."""
        epoch = _loops.pass_kernel(fn, self.presented, idx.shape[0], self.at_most)
        self.presented += idx.shape[0]
        if epoch is not fn:  # compiled code reports these itself and never warns
            return epoch(*args)
        return _quiet(fn)(*args)

    def run_pass(self, yx, idx, eta, checks):
        """One pass over ``yx[idx]``; returns the number of mistakes."""
        if self.lean:  # yx is (X, y, c): labels and constant folded in on the fly
            return self._lean_pass(*yx, idx, eta)
        n = idx.shape[0]
        rec_idx = np.empty(n, dtype=np.int64)
        rec_run = np.empty(n, dtype=np.int64 if self.dtype != object else object)
        shape = (n, yx.shape[1]) if self.keep_history else (1, yx.shape[1])
        rec_w = np.empty(shape, dtype=self.dtype)
        if self.dtype == object:  # Python integers: always the plain body
            m = _loops.epoch_general(
                yx, idx, eta, self.w, self.acc, self.pocket, self.ctr, rec_idx, rec_run,
                rec_w, self.keep_history, 0, None, None)
        else:
            limit, xmax, l1max = checks if checks is not None else (0, _NO_X, 0)
            m = self._pass(
                _loops.epoch_general, idx, _loops.kernel_rows(yx), idx, eta, self.w,
                self.acc, self.pocket, self.ctr, rec_idx, rec_run, rec_w, self.keep_history,
                limit, xmax, l1max)
            if m < 0:
                raise _Overflow
            if self.dtype == np.float64 and not np.isfinite(self.w).all():
                raise float_range_error(int(rec_idx[max(m - 1, 0)]), "overflow")
        if self.keep_history:
            self.mistake_idx.extend(rec_idx[:m].tolist())
            self.runs.extend(rec_run[:m].tolist())
            self.after.extend(rec_w[:m].copy())
        return int(m)

    def _lean_pass(self, X, y, c, idx, eta):
        """The lean engine's pass over ``(X[idx], y[idx])`` with constant ``c``."""
        m = self._pass(_loops.epoch_last_xy, idx, _loops.kernel_rows(X), y, c, idx,
                       eta, self.w, self._status)
        if self._status[0]:
            self._raise_bad_row(X, idx)
        return int(m)

    def _raise_bad_row(self, X, idx):
        """Raise for the row a lean pass over ``X[idx]`` stopped at (``_status``)."""
        status = self._status
        code, status[0] = int(status[0]), 0
        raise_bad_row(X, int(idx[status[1]]), code)

    def step(self, x, sign, c, eta):
        """Present one float example ``x`` of label ``sign`` (constant ``c``, 0 for
        none) with the same compiled rule as a pass; returns 1 on an update, else 0."""
        if self.lean:
            return self._counted_step(x, float(sign), float(c), float(eta))
        row = np.empty((1, x.shape[0] + 1))
        row[0, :-1] = x
        row[0, -1] = c
        row *= sign
        if not np.isfinite(row).all():
            raise_bad_row(row, 0, 1)
        zero_rows_error(row)
        return self.run_pass(row, _ONE, eta, None)

    def _counted_step(self, x, sign, c, eta):
        """The lean :meth:`step`: learn_one's kernel
        (:func:`~markone._loops.counted_step`; plain, or the machine code of its one
        signature), its update returned (1 or 0), not counted in :attr:`step_updates`.
        One compiled step for both paths of ``learn_one`` (a kernel of its own was a
        second compile of the pass, about 2.5 s, for the layouts and label types its
        callers passed; issue 37)."""
        step = _loops.pass_kernel(_loops.counted_step, self.presented, 1, self.at_most)
        self.presented += 1
        step = _quiet(step) if step is _loops.counted_step else \
            entry_point(_loops.counted_step, _loops.COUNTED_STEP)
        status = self._status
        counted = int(status[2])
        stopped = step(x, sign, c, eta, self.w, status)
        updates, status[2] = int(status[2]) - counted, counted
        if stopped:
            self._raise_bad_row(x.reshape(1, -1), _ONE)
        return updates

    def lean_step(self):
        """``(step, w, status)`` of a lean engine (``None`` when not lean), to call as
        ``step(x, sign, c, eta, w, status)`` for one float64 row ``x`` of the width (any
        strides; the caller checks that) with ``w`` and ``status`` these: the step of
        ``learn_one``'s lean path, which counts its update in :attr:`step_updates`.

        While the engine has plain presentations to make, ``step`` is
        :func:`~markone._loops.counted_step` run plain (each call counts one); after
        them, the machine code of counted_step for one signature, called without numba's
        dispatch. ``step`` returns 0, or non-zero when the caller must act: a row to
        refuse (:attr:`stopped`, :meth:`refuse_step`), or else, from the plain step, the
        plain presentations are over (that step ran compiled; ask ``lean_step`` again
        for the compiled step)."""
        if not self.lean:
            return None
        plain = _loops.counted_step
        if _loops.pass_kernel(plain, self.presented, 1) is plain:
            return self._plain_step, self.w, self._status
        return entry_point(plain, _loops.COUNTED_STEP), self.w, self._status

    def _plain_step(self, x, sign, c, eta, w, status):
        plain = _loops.counted_step
        if _loops.pass_kernel(plain, self.presented, 1) is plain:
            self.presented += 1
            return _quiet(plain)(x, sign, c, eta, w, status)
        # the plain presentations are made (by these steps or by passes): compiled
        # from this one on, and non-zero to say so
        return entry_point(plain, _loops.COUNTED_STEP)(x, sign, c, eta, w, status) or 1

    @property
    def step_updates(self) -> int:
        """The updates made by :meth:`lean_step`'s steps (counted in its kernel)."""
        return int(self._status[2])

    @property
    def stopped(self) -> bool:
        """Whether a lean step stopped at a row to refuse (:meth:`refuse_step`)."""
        return bool(self._status[0])

    def refuse_step(self, x):
        """Raise for the row ``x`` that a :meth:`lean_step` step stopped at."""
        self._raise_bad_row(x.reshape(1, -1), _ONE)

    def prediction(self, variant):
        """The vector that predicts for ``variant`` (for "voted": the weighted average;
        :data:`markone.variants.VARIANTS` says how)."""
        return VARIANTS[variant].predicts(self)

    def averaged(self):
        T = int(self.ctr[0])
        if T == 0:
            return self.w.copy()
        if self.dtype == object or self.dtype == np.int64:
            return [Fraction((T + 1) * int(a) - int(b), T) for a, b in zip(self.w, self.acc)]
        avg = _quiet(_averaged_floats)(T, self.w, self.acc)
        if np.isfinite(avg).all():
            return avg
        return _rounded_once("averaged", lambda: [  # the same formula, exactly
            ((T + 1) * Fraction(float(a)) - Fraction(float(b))) / T
            for a, b in zip(self.w, self.acc)])

    def voted(self):
        """Return (vectors, counts, weighted average) of the vote."""
        vectors = [np.zeros_like(self.w)] + list(self.after)
        counts = self.runs + [int(self.ctr[1])]
        total = sum(counts)
        if total == 0:
            return vectors, counts, self.w.copy()
        if self.dtype == np.float64:
            avg = _quiet(_voted_floats)(counts, vectors, total)
            if not np.isfinite(avg).all():
                avg = _rounded_once("voted", lambda: [  # the same formula, exactly
                    sum(c * Fraction(float(v[j])) for c, v in zip(counts, vectors)) / total
                    for j in range(len(self.w))])
        else:
            avg = [Fraction(sum(int(c) * int(v[j]) for c, v in zip(counts, vectors)), total)
                   for j in range(len(self.w))]
        return vectors, counts, avg


def _averaged_floats(T, w, acc):
    """The averaged weights in float64: ``((T + 1) w - acc) / T``."""
    return ((T + 1) * w - acc) / T


def _voted_floats(counts, vectors, total):
    """The vote's weighted average in float64."""
    return sum(c * v for c, v in zip(counts, vectors)) / total


def _rounded_once(variant, rationals):
    """The float64 vector of ``rationals()``: an average whose float formula overflowed
    on the way (``(T + 1) w``, a count times a vector) although the weights it
    averages did not, computed again in exact rationals of the same floats and rounded
    once. Raise :class:`FloatRangeError` when the average itself is beyond float64 (or
    an inf accumulated)."""
    try:
        return np.array([float(q) for q in rationals()])
    except (OverflowError, ValueError):
        raise average_range_error(variant) from None


@functools.cache
def _quiet(fn):
    """Plain kernel ``fn`` run with overflow and invalid-value warnings off (the loops
    report those themselves): numpy's errstate as a decorator, made once per kernel
    (building the context manager on every call cost a plain learn_one a fifth of its
    time)."""
    return np.errstate(over="ignore", invalid="ignore")(fn)


_ONE = np.zeros(1, dtype=np.int64)
_NO_X = np.zeros(1, dtype=np.int64)


def train(X: ArrayLike, y: ArrayLike, *, intercept: bool = True,
          intercept_scale: Rational = 1.0, eta: Rational = 1.0, max_epochs: int = 1000,
          order: Order = "given", seed: Seed = None, variant: str = "last",
          exact: bool = False, record: bool = False) -> TrainResult:
    """Train a binary perceptron with Rosenblatt's rule from a zero start.

    Parameters
    ----------
    X : array-like (n_samples, n_features) or scipy.sparse matrix
        Inputs; with ``exact=True`` also ints, Fractions or strings like ``"3/4"``.
        Sparse input (any :mod:`scipy.sparse` format, matrix or array) runs a
        compiled CSR loop that touches only the stored entries; it supports every
        ``variant``, ``order`` and ``record``, not ``exact=True``. Its weights equal
        the dense run's bit for bit whenever the dot products are exact (e.g.
        integer-valued data).
        A DataFrame (or anything with ``to_numpy`` or ``__array__``) is read by its
        values, in every mode. ``X`` may also be a :class:`markone._internal.data.Dataset`
        (data already checked, labels in it; then ``y=None``).
    y : array-like (n_samples,)
        Two classes of any values (mapped to -1/+1, the sorted first to -1), or
        -1/+1 labels (then one class only is accepted too). Missing labels (None,
        NaN, pandas NA) are refused.
    intercept : bool
        Append the constant ``intercept_scale`` to every input (default True).
    intercept_scale : float or Fraction
        The constant appended (default 1.0); the intercept is ``w[-1] *
        intercept_scale``.
    eta : float
        Step size; with a zero start it changes no decision, only the scale of ``w``.
    max_epochs : int
        Stop after this many passes (then ``converged=False`` and a warning).
    order : "given", "shuffle" or sequence of int
        Presentation order per pass: as given, a fresh seeded permutation each pass,
        or an explicit online stream of example indices (repeats allowed) presented
        once per pass. A single pass of an explicit stream (``max_epochs=1``) is a
        run of that stream and does not warn about convergence.
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
    validate_core_params(dict(intercept=intercept, intercept_scale=intercept_scale, eta=eta,
                              max_epochs=max_epochs, order=order, seed=seed,
                              variant=variant), "train")
    data = as_dataset(X, y)
    if exact and data.sparse:
        raise sparse_refused(data.source, what="exact=True",
                             hint=", or drop exact=True: on integer-valued data "
                             "below 2**53 the float64 run is exact too")
    yx: Any  # int64/object rows (exact), (X, y, c) (lean) or float64 rows
    if exact:
        c = to_fraction(intercept_scale, where="intercept_scale ") if intercept else None
        yx, scale = data.signed_integers(intercept=intercept, intercept_scale=c)
        run_eta = 1
    else:
        yx, c, run_eta = _float_rows(data, intercept, intercept_scale, eta, order,
                                     variant == "last" and not record)
    n = yx[0].shape[0] if isinstance(yx, tuple) else yx.shape[0]
    order = check_order(order, n)
    engine, per_epoch = _run_guarded(yx, order, seed, run_eta, max_epochs, variant, record,
                                     exact)
    if per_epoch[-1] and not is_stream_run(order, max_epochs):
        warn_not_converged(max_epochs)
    unit = (to_fraction(eta, where="eta ") / scale) if exact else None
    return _result(engine, per_epoch, variant, exact, unit, c, data.classes, record)


def _float_rows(data, intercept, intercept_scale, eta, order, lean):
    """``(yx, c, eta)`` of a float run: ``(X, y, c)`` for the lean loop, else the
    signed rows."""
    # the lean path reads X as it is; NaN/inf and zero rows are caught by the loop
    # (an explicit stream may skip rows: then they are checked first)
    Xf = data.float_values if lean and isinstance(order, str) else data.floats
    c = as_float(intercept_scale, "intercept_scale", fix=_TRAIN_FIX) if intercept \
        else None
    run_eta = as_float(eta, "eta", fix=_TRAIN_FIX)
    yx = (Xf, data.y.astype(np.float64), c if intercept else 0.0) if lean \
        else _folded(data, data.y, c)
    return yx, c, run_eta


def _run_guarded(yx, order, seed, eta, max_epochs, variant, record, exact):
    """:func:`_run`, in int64 with overflow checks for exact integer rows (again in
    Python integers, with the same shuffles, when int64 would overflow)."""
    rng = _shuffle_rng(order, seed)
    if not (exact and yx.dtype == np.int64):
        return _run(yx, order, rng, eta, max_epochs, variant, record, checks=None)
    try:
        return _run(yx, order, rng, eta, max_epochs, variant, record,
                    checks=_overflow_checks(yx))
    except _Overflow:
        return _run(yx.astype(object), order, _shuffle_rng(order, seed), eta, max_epochs,
                    variant, record, checks=None)


#: What to do about an ``eta`` or ``intercept_scale`` that float64 cannot hold.
_TRAIN_FIX = ("pass exact=True to train with it exactly, or a value that float64 holds "
              "exactly (such as 0.5 or 2)")


def _shuffle_rng(order, seed):
    """The Generator that ``order="shuffle"`` draws from; None for the other orders,
    which draw nothing (``seed`` is checked already by the parameter table; a fresh
    Generator from the OS's entropy would cost more than a small run)."""
    return as_generator(seed) if isinstance(order, str) and order == "shuffle" else None


def _folded(X, y_pm1, c):
    """The rows ``y * [x, c]`` of the general engine (float64; ``c=None``: no
    column), after the zero-row check that ``c=None`` needs. ``X`` may be a
    :class:`Dataset` (then ``y_pm1`` is its labels): its signed rows, made once."""
    yx = X.signed_floats(c is not None, c or 1.0) if isinstance(X, Dataset) else \
        signed_rows(X, y_pm1, c is not None, c or 1.0)
    if c is None:
        zero_rows_error(yx)
    return yx


def _overflow_checks(yx):
    absx = np.abs(yx)
    l1max = max(1, int(absx.sum(axis=1, dtype=object).max()))
    if l1max > _loops.INT64_LIMIT:
        raise _Overflow
    return _loops.INT64_LIMIT, absx.max(axis=1).astype(np.int64), l1max


def _run(yx, order, rng, eta, max_epochs, variant, record, checks):
    """The epoch driver of :func:`markone._internal.checks.run_epochs` on a fresh engine."""
    engine = _new_engine(yx, variant, record)
    n = yx[0].shape[0] if engine.lean else yx.shape[0]
    epochs = iter(range(1, max_epochs + 1))
    per_epoch = run_epochs(
        lambda idx: _checked_pass(engine, yx, idx, eta, checks, next(epochs), max_epochs),
        order, n, max_epochs, rng)
    return engine, per_epoch


def _checked_pass(engine, yx, idx, eta, checks, epoch, max_epochs):
    """One pass. The lean loop checks every score itself; the general float loop
    (variants, records) checks its range after passes 16, 64, 256, ..., the last pass
    and the pass that converges (:func:`_check_float_range`, one matrix-vector product
    each), so no run reports a result that float64 overflow or underflow decided: a
    score of -inf judged "right" ends a run as surely as a real one."""
    if epoch == 1:   # the whole run's work bounds the path (pass_kernel)
        engine.at_most = max_epochs * idx.shape[0]
    m = engine.run_pass(yx, idx, eta, checks)
    if engine.dtype == np.float64 and not engine.lean and (
            epoch in _RANGE_CHECKS or epoch == max_epochs or m == 0):
        _check_float_range(yx, engine.w)
    return m


#: Epochs after which a float run that has not converged checks that float64 can
#: carry it (one matrix-vector product each: at most 1/16 of the run's work).
_RANGE_CHECKS = frozenset(16 * 4**k for k in range(12))


def _new_engine(yx, variant, record):
    if isinstance(yx, tuple):
        return _Engine(yx[0].shape[1] + 1, np.float64, lean=True, keep_history=False)
    return _Engine(yx.shape[1], yx.dtype, lean=False,
                   keep_history=record or VARIANTS[variant].votes)


_UNDERFLOW_ZONE = _loops.UNDERFLOW_ZONE


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
        small = np.flatnonzero(np.abs(s) < _UNDERFLOW_ZONE)  # |score| <= sum |terms|
        if small.size:
            a = abs(X[small]) @ np.abs(wx) + abs(wc)
            small = small[a < _UNDERFLOW_ZONE]
    if small.size:
        # a stored nonzero entry meets a nonzero weight (dense or sparse rows)
        live = (abs(X[small]) @ (wx != 0).astype(np.float64) > 0) | (wc != 0)
        if live.any():
            raise float_range_error(int(small[np.flatnonzero(live)[0]]), "underflow")


def _result(engine, per_epoch, variant, exact, unit, c, classes, record, drop_last=None):
    """The :class:`TrainResult` of ``engine`` (which stays usable: nothing is moved).

    ``drop_last``: leave out the last weight (that of a constant 0, kept by lean
    engines and the estimator's when there is no intercept); by default for lean
    engines without intercept."""
    if exact:
        def conv(v):  # int() first: a Fraction of an np.int64 keeps int64 parts
            return tuple((x if isinstance(x, Fraction) else Fraction(int(x))) * unit
                         for x in v)

        def conv_rows(rows):
            return tuple(conv(r) for r in rows)
    else:
        if drop_last is None:
            drop_last = engine.lean and c is None
        cut = slice(None, -1) if drop_last else slice(None)

        def conv(v):
            return np.array(v, dtype=float)[cut]

        def conv_rows(rows):
            return np.array(rows, dtype=float).reshape(len(rows), -1)[:, cut] if len(rows) \
                else np.empty((0, len(engine.w[cut])))

    vote_vectors = vote_counts = None
    if VARIANTS[variant].votes:
        vectors, counts, w = engine.voted()
        vote_vectors, vote_counts = conv_rows(vectors), tuple(int(k) for k in counts)
    else:
        w = engine.prediction(variant)
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
