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

from markone._internal.typing import ArrayLike

__all__ = ["score", "is_mistake", "signed_mistake", "increment", "update", "predict_sign"]


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
