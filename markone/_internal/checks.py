"""Checks and warnings shared by every learner: parameters, orders, bad rows.

One place says what a bad ``eta``, ``max_epochs``, ``order`` or input row is, and how
non-convergence is reported, so ``train`` and all the estimators fail the same way.

>>> check_order([2, 0, 2], 3).tolist()
[2, 0, 2]
>>> check_order([3], 3)
Traceback (most recent call last):
...
ValueError: order has index 3 outside [0, 3) for 3 examples.
"""

from __future__ import annotations

import warnings

import numpy as np

from markone._internal.io import counted
from markone._internal.validation import check_choice, refuse_nonfinite
from markone.errors import ConvergenceWarning, MarkoneError, convergence_warning

__all__ = ["ConvergenceWarning", "NotFittedError", "FloatRangeError", "float_range_error",
           "check_order", "epoch_indices", "run_epochs", "is_stream_run",
           "warn_not_converged", "zero_rows", "zero_rows_error", "raise_bad_row"]

def __getattr__(name):
    # scikit-learn's NotFittedError, imported on first use: importing scikit-learn
    # takes about a second, which every Mark I fleet worker would pay for nothing
    if name == "NotFittedError":
        from sklearn.exceptions import NotFittedError
        return NotFittedError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class FloatRangeError(MarkoneError, ValueError, ArithmeticError):
    """Float64 cannot carry these data: a score or a weight overflowed, or scores
    underflowed so that rounding, not the data, would decide the updates."""


def float_range_error(i, kind):
    """The :class:`FloatRangeError` for example ``i``: ``kind`` is ``"overflow"`` or
    ``"underflow"``; the message says what to do (exact arithmetic, or rescaling)."""
    what = ("its score or the weights overflowed float64 (beyond ~1.8e308)"
            if kind == "overflow" else
            "its score underflows float64: the terms x_j * w_j are below ~1e-292, "
            "where rounding to zero would decide the update, not the data")
    return FloatRangeError(f"{counted(i)}: {what}. {_RANGE_ADVICE}")


def average_range_error(variant):
    """The :class:`FloatRangeError` for a run whose last weights float64 carries but
    whose ``variant`` weights (an average) it does not.

    >>> str(average_range_error("averaged")).split(".")[0]
    'the averaged weights overflowed float64 (beyond ~1'
    """
    return FloatRangeError(f"the {variant} weights overflowed float64 (beyond ~1.8e308) "
                           f"although the last weights did not. {_RANGE_ADVICE}")


_RANGE_ADVICE = ("Train with exact=True (exact rationals, any magnitude), or rescale X "
                 "(multiplying every input, and intercept_scale, by one positive number "
                 "does not change a perceptron's decisions).")


def check_order(order, n):
    """Return a function ``epoch -> idx`` for ``order``, validating it."""
    if isinstance(order, str):
        check_choice(order, "order", ("given", "shuffle"))
        return order
    arr = np.asarray(order)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"order must be 'given', 'shuffle' or a non-empty 1-D sequence of example "
            f"indices, got shape {arr.shape}."
        )
    if arr.dtype.kind not in "iu":
        raise TypeError(f"order must hold integer indices, got dtype {arr.dtype}.")
    bad = (arr < 0) | (arr >= n)
    if bad.any():
        raise ValueError(
            f"order has index {int(arr[bad][0])} outside [0, {n}) for {n} examples."
        )
    return np.ascontiguousarray(arr, dtype=np.int64)


def epoch_indices(order, n, rng):
    if isinstance(order, np.ndarray):
        return order
    if order == "shuffle":
        return rng.permutation(n).astype(np.int64)
    return np.arange(n, dtype=np.int64)


def run_epochs(one_pass, order, n, max_epochs, rng):
    """The one epoch driver of every learner: passes until a clean one.

    Calls ``one_pass(idx)`` (which returns the updates it made) with the indices of
    each pass drawn by :func:`epoch_indices`, and stops after a pass without updates
    or after ``max_epochs`` passes. Returns the list of updates per pass.

    >>> run_epochs(lambda idx: int(idx[0]), check_order([2, 0], 3), 3, 5, None)
    [2, 2, 2, 2, 2]
    """
    per_epoch = []
    for _ in range(max_epochs):
        m = one_pass(epoch_indices(order, n, rng))
        per_epoch.append(m)
        if m == 0:
            break
    return per_epoch


def is_stream_run(order, max_epochs):
    """A single pass of an explicit stream runs it once: it is not asked to converge."""
    return not isinstance(order, str) and max_epochs == 1


def zero_rows(X):
    """Boolean mask of the all-zero rows of ``X`` (dense, or scipy.sparse CSR)."""
    if hasattr(X, "indptr"):
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        return np.bincount(rows[X.data != 0], minlength=X.shape[0]) == 0
    return ~np.any(X != 0, axis=1)


def zero_rows_error(yx):
    """Raise for the first all-zero row of ``yx`` (dense, or scipy.sparse CSR)."""
    zero = zero_rows(yx)
    if zero.any():
        raise_bad_row(yx, int(np.flatnonzero(zero)[0]), 2)


def raise_bad_row(X, i, status):
    """Raise the error for row ``i``: 1 = not finite (a NaN/inf input, or else an
    overflow), 2 = zero vector (no intercept), 3 = a score that underflows."""
    if status == 3:
        raise float_range_error(i, "underflow")
    if status == 1:  # the input row's own NaN or infinity, else an overflow
        refuse_nonfinite(X[i:i + 1], first_row=i)
        raise float_range_error(i, "overflow")
    raise ValueError(
        f"X[{i}] is the zero vector and intercept=False: its score is always 0, which "
        "counts as a mistake, so training could never converge. Remove it or use "
        "intercept=True.")


def warn_not_converged(max_epochs, what="the data", stacklevel=3):
    """Issue the :class:`ConvergenceWarning` that says what to do next."""
    warnings.warn(
        f"no pass without mistakes in max_epochs={max_epochs} passes over {what}; the "
        "data may not be linearly separable (check with `markone verify separable` or "
        "verify.check_separable). Raise "
        "max_epochs, or use variant='pocket' or 'averaged' for non-separable data.",
        convergence_warning(), stacklevel=stacklevel)
