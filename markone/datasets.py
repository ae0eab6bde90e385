"""Datasets: small shipped data and generators with known answers.

Every function returns ``(X, y)`` as numpy arrays (``separable`` also returns the
unit vector ``u`` that labels the points). Labels are -1/+1 unless stated.

* :func:`iris` — Fisher's 150 flowers (shipped CSV): ``X`` (150, 4) in cm, ``y`` 0/1/2.
* :func:`xor` — the four XOR points, not linearly separable.
* :func:`parity` — all 2^k corners of the cube labelled by parity (k = 2 is XOR).
* :func:`orthonormal` — the worst case of Novikoff's bound: exactly ``m`` mistakes.
* :func:`separable` — random points in the unit ball with a guaranteed margin.
* :func:`letters`, :func:`shapes` — figures on the Mark I's 20 x 20 retina
  (from :mod:`markone._figures`).
* :func:`load_table` — your own data: a CSV (or semicolon-, tab-, space-separated) or
  ``.npz`` file, or a built-in name (``xor``, ``parity3``, ``iris``).
* :func:`digit_limit` — how long a number written as text may be (a table cell, a
  string in ``X``): at most :data:`MAX_DIGITS` digits written out in full by default.

>>> X, y = xor()
>>> X.tolist(), y.tolist()
([[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]], [-1, 1, 1, -1])
"""

from __future__ import annotations

import numpy as np

from markone._internal.exact import MAX_DIGITS, NumberTooLong, digit_limit
from markone._figures import letters, shapes
from markone._shipped import IRIS_CLASSES, IRIS_FEATURES, iris, parity, xor
from markone._table import BUILTIN_TABLES, InexactCell, load_table
from markone._internal.typing import ArrayLike, Seed
from markone._internal.validation import as_generator, check_int_at_least, check_positive

__all__ = ["iris", "IRIS_FEATURES", "IRIS_CLASSES", "xor", "parity", "orthonormal",
           "separable", "letters", "shapes", "load_table", "BUILTIN_TABLES", "InexactCell",
           "digit_limit", "MAX_DIGITS", "NumberTooLong"]


def orthonormal(m: int, d: int | None = None,
                labels: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The orthonormal worst case: ``X`` = the first ``m`` unit vectors of R^d.

    With ``R = 1`` and, for ``u = sum_i y_i e_i / sqrt(m)``, margin ``m**-0.5``,
    Novikoff's bound ``(R / gamma)**2 = m`` is met exactly: a perceptron without
    intercept makes one mistake per example, whatever the labels.

    Parameters
    ----------
    m : int
        Number of examples (>= 1).
    d : int, optional
        Dimension (>= m; default m).
    labels : sequence of -1/+1, optional
        Labels (default all +1).

    >>> X, y = orthonormal(2, d=3, labels=[1, -1])
    >>> X.tolist(), y.tolist()
    ([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [1, -1])
    """
    m = check_int_at_least(m, "m", 1)
    d = m if d is None else check_int_at_least(d, "d", 1)
    if d < m:
        raise ValueError(f"d(={d}) must be >= m(={m}): R^d holds at most d orthonormal vectors.")
    X = np.eye(m, d)
    if labels is None:
        y = np.ones(m, dtype=np.int64)
    else:
        y = np.asarray(labels)
        if y.shape != (m,) or not np.isin(y, (-1, 1)).all():
            raise ValueError(f"labels must be {m} values in {{-1, +1}}, got {labels!r}.")
        y = y.astype(np.int64)
    return X, y


def separable(n: int, d: int, margin: float,
              seed: Seed = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random linearly separable data with a known margin: ``(X, y, u)``.

    Points are uniform in the unit ball of R^d (so ``R <= 1``); ``u`` is a random unit
    vector, ``y = sign(u . x)``, and points closer than ``margin`` to the hyperplane
    ``u . x = 0`` are rejected and redrawn, so every point has ``y * u . x >= margin``.
    The separator passes through the origin (train with ``intercept=False`` to apply
    Novikoff's bound with this ``u``).

    >>> X, y, u = separable(50, 3, 0.1, seed=0)
    >>> X.shape, bool(np.all(y * (X @ u) >= 0.1)), bool(np.all(np.linalg.norm(X, axis=1) <= 1))
    ((50, 3), True, True)
    """
    n = check_int_at_least(n, "n", 1)
    d = check_int_at_least(d, "d", 1)
    margin = check_positive(margin, "margin", allow_zero=True)
    if margin >= 1:
        raise ValueError(f"margin(={margin}) must be < 1: the points lie in the unit ball.")
    rng = as_generator(seed)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    out, have, tries = [], 0, 0
    while have < n:
        k = max(64, 2 * (n - have))
        g = rng.standard_normal((k, d))
        g /= np.linalg.norm(g, axis=1, keepdims=True)
        pts = g * rng.random((k, 1)) ** (1.0 / d)
        keep = pts[np.abs(pts @ u) >= margin]
        out.append(keep)
        have += len(keep)
        tries += k
        if tries > 1000 * n and have < n:
            raise ValueError(
                f"margin(={margin}) leaves almost no room in the unit ball of R^{d}; "
                "choose a smaller margin.")
    X = np.concatenate(out)[:n]
    y = np.where(X @ u > 0, 1, -1).astype(np.int64)
    return X, y, u
