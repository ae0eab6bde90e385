"""The small data sets that ship with markone or follow in closed form: iris, XOR and
parity. Public through :mod:`markone.datasets`; here so that the table reader
(:mod:`markone._table`, which accepts them by name) needs no import of ``datasets``.
"""

from __future__ import annotations

import itertools
from importlib import resources

import numpy as np

from markone._internal.validation import check_choice, check_int_at_least

__all__ = ["IRIS_FEATURES", "IRIS_CLASSES", "iris", "xor", "parity"]


#: Column names of :func:`iris` features.
IRIS_FEATURES = ("sepal_length", "sepal_width", "petal_length", "petal_width")
#: Species names, indexed by the labels of :func:`iris`.
IRIS_CLASSES = ("setosa", "versicolor", "virginica")


def iris() -> tuple[np.ndarray, np.ndarray]:
    """Fisher's iris data: ``X`` (150, 4) float64 in cm, ``y`` (150,) int in {0, 1, 2}.

    Columns are :data:`IRIS_FEATURES`; labels index :data:`IRIS_CLASSES`
    (50 flowers each, in that order). Source: R. A. Fisher (1936), *The use of
    multiple measurements in taxonomic problems*; measurements by E. Anderson (1935).

    >>> X, y = iris()
    >>> X.shape, np.bincount(y).tolist(), X[0].tolist()
    ((150, 4), [50, 50, 50], [5.1, 3.5, 1.4, 0.2])
    """
    text = resources.files("markone").joinpath("data/iris.csv").read_text()
    rows = [ln.split(",") for ln in text.splitlines() if ln and not ln.startswith("#")][1:]
    X = np.array([[float(v) for v in r[:4]] for r in rows])
    y = np.array([IRIS_CLASSES.index(r[4].strip()) for r in rows], dtype=np.int64)
    return X, y


def xor(encoding: str = "pm1") -> tuple[np.ndarray, np.ndarray]:
    """The XOR problem: ``X`` (4, 2), ``y`` (4,) = +1 where the two inputs differ.

    ``encoding="pm1"`` gives inputs in {-1, +1}; ``"01"`` in {0, 1}. Labels are -1/+1
    either way. No line separates the classes, so the perceptron cycles forever.

    >>> xor("01")[0].tolist()
    [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    """
    check_choice(encoding, "encoding", ("pm1", "01"))
    bits = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    y = np.where(bits[:, 0] != bits[:, 1], 1, -1).astype(np.int64)
    X = bits if encoding == "01" else 2 * bits - 1
    return X, y


def parity(k: int = 3, encoding: str = "pm1") -> tuple[np.ndarray, np.ndarray]:
    """Parity on ``k`` inputs: the ``2**k`` corners of the cube, ``y = +1`` where an odd
    number of inputs is on. Not linearly separable for ``k >= 2`` (``k = 2`` is XOR).

    ``encoding="pm1"`` gives inputs in {-1, +1} (on = +1); ``"01"`` in {0, 1}.

    >>> X, y = parity(3, "01")
    >>> X.shape, y.tolist()
    ((8, 3), [-1, 1, 1, -1, 1, -1, -1, 1])
    """
    k = check_int_at_least(k, "k", 1)
    check_choice(encoding, "encoding", ("pm1", "01"))
    bits = np.array(list(itertools.product([0, 1], repeat=k)), dtype=float)
    y = np.where(bits.sum(axis=1) % 2 == 1, 1, -1).astype(np.int64)
    return (bits if encoding == "01" else 2 * bits - 1), y
