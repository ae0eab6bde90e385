"""The perceptron's single online update: the one rule every learner in markone uses.

The estimators' ``learn_one``/``partial_fit``, the multiclass and kernel learners and
the Mark I's R-units all ask these functions whether a response is a mistake and what
increment to apply; the compiled loops in :mod:`markone._loops` implement the same
rule for speed and are tested against it.

The rule (Rosenblatt's error correction, with the convention that a score of exactly
zero is a mistake):

* mistake  when  ``y * (w . x) <= 0``
* update   ``w <- w + eta * y * x``

All functions broadcast, so one call can decide for many R-units at once.

Examples
--------
>>> w = np.zeros(3)
>>> x = np.array([1.0, 0.0, 1.0])
>>> bool(is_mistake(score(w, x), 1))      # a zero score is a mistake
True
>>> w, mistake = update(w, x, 1)
>>> w.tolist(), mistake
([1.0, 0.0, 1.0], True)
>>> update(w, x, 1)[1]                    # now correct: no update
False

Many R-units at once (rows of ``W``), each with its own target:

>>> W = np.array([[1.0, 0, 0], [0, 0, -1.0]])
>>> is_mistake(W @ x, np.array([1, 1])).tolist()
[False, True]
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.checks import check_order
from markone._internal.jit import kernel, plain_form, uncompiled
from markone._internal.typing import ArrayLike
from markone._internal.validation import check_int_at_least, check_matrix, check_vector
from markone._loops import FASTMATH, pass_kernel, row_dot, row_update

__all__ = ["score", "is_mistake", "signed_mistake", "increment", "update", "predict_sign",
           "argmax_run", "dual_run"]


def score(w: ArrayLike, x: ArrayLike) -> Any:
    """The activation ``w . x`` (works for float, int and Fraction object arrays)."""
    return np.dot(w, x)


def is_mistake(s: ArrayLike, y: ArrayLike, *, strict: bool = False) -> Any:
    """True where the signed score ``y * s`` is ``<= 0`` (zero counts as a mistake).

    ``strict=True`` is the other convention, found in some texts: a mistake only when
    ``y * s < 0`` (from a zero start it never updates; see :func:`verify.check_cycling`).

    >>> is_mistake(np.array([-1, 0, 1]), 1).tolist()
    [True, True, False]
    >>> is_mistake(np.array([-1, 0, 1]), 1, strict=True).tolist()
    [True, False, False]
    """
    if isinstance(s, (int, Fraction)) and isinstance(y, (int, np.integer)):
        signed = int(y) * s  # exact scalars: Python ints beyond int64 stay exact
    else:
        signed = np.asarray(y) * s
    return signed_mistake(signed, strict)


def signed_mistake(signed: Any, strict: bool = False) -> Any:
    """The rule itself, on a signed score ``y * s``: a mistake where it is ``<= 0``
    (``< 0`` with ``strict=True``).

    Plain comparisons, so that numba compiles this very function into the Mark I's
    trial kernel (:mod:`markone.hardware.trial`); :func:`is_mistake` and
    :func:`update` call it too.

    >>> signed_mistake(0.0), signed_mistake(0.0, strict=True), signed_mistake(-2)
    (True, False, True)
    """
    return signed < 0 if strict else signed <= 0


def increment(x: Any, y: Any, eta: Any = 1.0) -> Any:
    """The correction ``eta * y * x`` applied after a mistake on ``(x, y)``."""
    return eta * y * x


def update(w: Any, x: Any, y: Any, eta: Any = 1.0) -> tuple[Any, bool]:
    """One online step on ``(x, y)``: return ``(w_new, mistake)``.

    ``w`` is not modified; ``w_new`` is ``w`` itself when there was no mistake.
    """
    mistake = bool(is_mistake(score(w, x), y))
    if mistake:
        return w + increment(x, y, eta), True
    return w, False


def predict_sign(s: ArrayLike, zero: int = 1) -> np.ndarray:
    """Map scores to -1/+1, sending an exact zero to ``zero`` (default +1)."""
    s = np.asarray(s)
    return np.where(s > 0, 1, np.where(s < 0, -1, zero)).astype(np.int64)


def argmax_run(X: ArrayLike, classes: ArrayLike, order: ArrayLike,
               n_classes: int) -> tuple[np.ndarray, int]:
    """The argmax rule run once over the stream ``order`` from ``W = 0``, step 1:
    ``(W, mistakes)``, ``W`` of shape ``(n_classes, d)``.

    Each presentation of row ``i`` predicts the class of highest score ``W[k] . X[i]``
    (ties to the lowest index); a mistake adds ``X[i]`` to the row of its class
    ``classes[i]`` and subtracts it from the predicted one. ``X`` are the rows as
    given (append the intercept's constant column yourself). It is the pass
    :class:`markone.MulticlassPerceptron` runs (``max_epochs=1, order=order``),
    without scikit-learn: ``verify``'s conformance cases take their answers from it.

    >>> W, mistakes = argmax_run([[1, 0], [0, 1]], [0, 1], [0, 1, 0], 2)
    >>> W.tolist(), mistakes
    ([[0.0, -1.0], [0.0, 1.0]], 1)
    """
    X = np.ascontiguousarray(check_matrix(X))
    n_classes = check_int_at_least(n_classes, "n_classes", 1)
    cls = _class_codes(classes, X.shape[0], n_classes)
    idx = check_order(order, X.shape[0])
    W, T = np.zeros((n_classes, X.shape[1])), np.zeros(1, dtype=np.int64)
    work = idx.shape[0] * n_classes  # a presentation scores every class
    epoch = pass_kernel(_argmax_epoch, 0, work, work)
    epoch = _quiet_argmax if epoch is _argmax_epoch else epoch
    mistakes = epoch(X, cls, idx, 1.0, W, np.zeros_like(W), T)
    return W, int(mistakes)


def _class_codes(classes, n, n_classes):
    """``classes`` checked: one class index in ``[0, n_classes)`` per row."""
    cls = np.asarray(classes)
    if cls.shape != (n,) or cls.dtype.kind not in "iu" or (
            n and (cls.min() < 0 or cls.max() >= n_classes)):
        raise ValueError(f"classes must hold one class index in [0, {n_classes}) per "
                         f"row of X ({n}), got {classes!r}; encode the labels as 0, 1, ...")
    return cls.astype(np.int64)


def dual_run(G: ArrayLike, y: ArrayLike, order: ArrayLike) -> tuple[np.ndarray, int]:
    """The perceptron in dual form run once over the stream ``order`` from
    ``alpha = 0``: ``(alpha, mistakes)``.

    ``G`` is the kernel matrix of the examples (the intercept's ``c**2`` added, when
    there is one), ``y`` their -1/+1 labels. A presentation of ``i`` is a mistake when
    ``y_i sum_j alpha_j y_j G[j, i] <= 0``; then ``alpha_i += 1``. It is the pass
    :class:`markone.KernelPerceptron` runs on its kernel matrix (``max_epochs=1,
    order=order``), without scikit-learn: ``verify``'s conformance cases take their
    answers from it.

    >>> alpha, mistakes = dual_run([[2.0, 1.0], [1.0, 2.0]], [1, -1], [0, 1, 0, 1])
    >>> alpha.tolist(), mistakes
    ([1, 1], 2)
    """
    G = np.ascontiguousarray(check_matrix(G, name="G"))
    n = G.shape[0]
    if G.shape != (n, n):
        raise ValueError(f"G must be the square kernel matrix of the examples, got shape "
                         f"{G.shape}.")
    labels = check_vector(y, name="y", n_features=n)
    if not np.isin(labels, (-1.0, 1.0)).all():
        raise ValueError(f"y must hold -1/+1 labels, one per row of G, got "
                         f"{sorted(set(labels.tolist()))}; encode the two classes as -1 "
                         "and +1.")
    idx = check_order(order, n)
    alpha = np.zeros(n, dtype=np.int64)
    epoch = pass_kernel(_dual_epoch, 0, idx.shape[0], idx.shape[0])
    mistakes = uncompiled(epoch)(G, labels, idx, alpha, np.zeros(n))
    return alpha, int(mistakes)


# The passes of the multiclass and kernel learners (written once, plain Python, run
# plain or compiled by :func:`markone._loops.pass_kernel`'s rule on the work).

@kernel(fastmath=FASTMATH)
def _argmax_epoch(X, cls, idx, eta, W, acc, T):
    """One pass of the argmax rule over rows ``idx`` of ``X`` (dense, or a CSR triple:
    the row operations of :mod:`markone._loops`); returns the mistakes.

    ``W`` (K, d) is updated in place; ``acc`` accumulates ``step * Delta`` for the
    average (as in :func:`markone._loops.epoch_general`); ``T[0]`` counts
    presentations. Ties go to the lowest class index. The dot products may be summed
    in any order (SIMD, about 3x faster); on integer-valued data (exact in float64)
    that changes nothing, and NaN/inf never get here (inputs are checked first).
    """
    K = W.shape[0]
    mistakes = 0
    for t in range(idx.shape[0]):
        i = idx[t]
        best = 0
        top = 0.0
        for k in range(K):
            s = row_dot(X, i, W[k])
            if k == 0 or s > top:
                best = k
                top = s
        step = T[0] + 1
        c = cls[i]
        if best != c:
            row_update(X, i, eta, step, W[c], acc[c])
            row_update(X, i, -eta, step, W[best], acc[best])
            mistakes += 1
        T[0] = step
    return mistakes


#: The plain argmax pass, with numpy's overflow warnings off as the compiled pass has
#: them (an overflowing score is inf either way).
_quiet_argmax = np.errstate(over="ignore", invalid="ignore")(_argmax_epoch)


@kernel()
def _dual_epoch(G, y, idx, alpha, f):
    """One pass over ``idx``: a mistake on ``i`` when ``y[i] f[i] <= 0``; then
    ``alpha[i] += 1`` and every score moves by ``y[i] G[i, :]``. Returns the mistakes.

    ``f[j] = sum_i alpha[i] y[i] G[i, j]`` is kept up to date in place.
    """
    n = G.shape[1]
    mistakes = 0
    for t in range(idx.shape[0]):
        i = idx[t]
        if y[i] * f[i] <= 0:
            alpha[i] += 1
            yi = y[i]
            for j in range(n):
                f[j] += yi * G[i, j]
            mistakes += 1
    return mistakes


@plain_form(_dual_epoch)
def _dual_epoch_plain(G, y, idx, alpha, f):
    # the same products and sums as the loop, each score's update one numpy row
    # operation (elementwise: the same IEEE results bit for bit)
    mistakes = 0
    for i in idx.tolist():
        if y[i] * f[i] <= 0:
            alpha[i] += 1
            f += y[i] * G[i]
            mistakes += 1
    return mistakes
