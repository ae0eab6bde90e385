"""The one data boundary: labelled inputs are checked once and converted on demand.

Every public function that takes ``(X, y)`` (:func:`markone.train`, and ``verify``'s
``check_separable``, ``max_margin``, ``worst_order``, ``check_cycling``,
``check_mistake_bound``, ``check_compression``, ...) starts with :func:`as_dataset`.
It reads a table by its *values* (a DataFrame, or anything with ``to_numpy`` or
``__array__``, is never iterated, which would give its column names), checks the
shape, maps the labels to -1/+1 (markone's one label rule) and returns a
:class:`Dataset`. The inside takes that object: the forms it needs (the float64
view, the exact rows as Fractions, the signed integer rows, the data hash
:attr:`Dataset.sha256`) are made from it once, when first asked for, and kept. A
public function handed a :class:`Dataset` (as ``verify`` hands one to
:func:`markone.train`, :func:`verify.max_margin` and the estimators' ``fit``) uses it
as it is, so one call validates and converts its data once. The estimators check
their inputs by scikit-learn's rules instead (its contract) and pass the checked rows
on as :meth:`Dataset.of_rows`; ``as_dataset(X, y, multiclass=True)`` takes labels of
more than two classes (:func:`verify.check_multiclass_bound`).

>>> data = as_dataset([[0, "1/2"], [1, 2]], ["no", "yes"])
>>> data.y.tolist(), data.classes.tolist(), data.shape, data.sparse
([-1, 1], ['no', 'yes'], (2, 2), False)
>>> data.floats.tolist(), data.fractions[0]
([[0.0, 0.5], [1.0, 2.0]], [Fraction(0, 1), Fraction(1, 2)])
>>> M, scale = data.signed_integers(intercept=True)
>>> M.tolist(), scale
([[0, -1, -2], [2, 4, 2]], Fraction(2, 1))
>>> as_dataset(data) is data
True
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from markone._internal.datahash import rows_sha256
from markone._internal.rows import signed_rows
from markone._internal.exact import (first_inexact, signed_integer_rows, to_fraction,
                            to_fraction_matrix)
from markone._internal.validation import (
    array_values,
    check_consistent_length,
    check_sparse,
    dense_array,
    encode_class_labels,
    float64_matrix,
    is_sparse,
    labels_to_pm1,
    refuse_nonfinite,
    rounding_refused,
    sparse_refused,
)

__all__ = ["Dataset", "as_dataset"]


class Dataset:
    """Labelled data that crossed the boundary: checked, labels as -1/+1.

    Made by :func:`as_dataset`, never by hand. The views are computed on first use
    and kept (the object is not meant to be changed).

    Attributes
    ----------
    source : ndarray or scipy.sparse CSR matrix
        The inputs as given: a 2-D numeric array, an object array of exact entries
        (Fractions, decimal strings, Python ints), or a canonical float64 CSR matrix.
        NaN and infinity are not looked for yet (:attr:`floats` refuses them, by
        position, when first asked for): a loop that reads every input once anyway
        catches them through its scores, without a pass of its own.
    y : ndarray of int64
        The labels as -1/+1 (with more than two classes: the class indices
        ``0..K-1``, see :attr:`multiclass`).
    classes : ndarray
        The two original labels (``classes[0] -> -1``), or ``[-1, 1]`` for labels
        that were -1/+1 already (with ``multiclass=True``: every class, sorted).
    name : str
        The inputs' name in error messages.
    sparse : bool
        True when the inputs are a scipy.sparse matrix (kept as CSR).
    """

    @classmethod
    def of_rows(cls, rows: Any, name: str = "X") -> Dataset:
        """Rows checked already, taken without another check, all labelled +1: rows
        the inside made from checked data (such as the signed rows ``y_i [x_i, 1]``),
        or the inputs an estimator checked by scikit-learn's rules (its label codes
        kept apart). ``rows`` is a finite float64 array or canonical CSR matrix, or
        an object array of Fractions (an exact estimator's inputs).

        >>> Dataset.of_rows(np.array([[1.0, -2.0]])).y.tolist()
        [1]
        """
        data = cls(rows, np.ones(rows.shape[0], dtype=np.int64), np.array([-1, 1]), name)
        if rows.dtype == object:
            data.__dict__.update(fractions=rows.tolist())
        else:
            data.__dict__.update(float_values=rows, floats=rows, exact_floats=rows)
        return data

    def __init__(self, source: Any, y: np.ndarray, classes: np.ndarray, name: str,
                 sparse: bool | None = None) -> None:
        self.source = source
        self.y = y
        self.classes = classes
        self.name = name
        self.sparse = is_sparse(source) if sparse is None else sparse
        self._integers: dict[tuple, tuple[np.ndarray, Fraction]] = {}
        self._signed: dict[tuple, Any] = {}

    @property
    def multiclass(self) -> bool:
        """True when the labels are class indices of three or more classes."""
        return len(self.classes) > 2

    @property
    def labels(self) -> np.ndarray:
        """The labels as given: ``classes`` indexed by the -1/+1 labels (or by the
        class indices of a multiclass Dataset).

        >>> as_dataset([[0], [1], [2]], ["b", "a", "b"]).labels.tolist()
        ['b', 'a', 'b']
        """
        return self.classes[self.class_indices]

    @property
    def class_indices(self) -> np.ndarray:
        """The labels as indices ``0..K-1`` of ``classes`` (-1/+1 labels: 0/1)."""
        return self.y if self.multiclass else (self.y + 1) // 2

    def relabelled(self, y: np.ndarray) -> Dataset:
        """The same inputs with other -1/+1 labels ``y`` (checked by the caller),
        sharing every form of the inputs made so far (the one-vs-rest problems of
        a multiclass learner, each a binary problem on the same inputs).

        >>> data = as_dataset([[1.0], [2.0]], [1, -1])
        >>> other = data.relabelled(np.array([1, 1]))
        >>> other.y.tolist(), other.floats is data.floats
        ([1, 1], True)
        """
        check_consistent_length(self.source, y, names=(self.name, "y"))
        other = Dataset(self.source, y, np.array([-1, 1]), self.name, self.sparse)
        other.__dict__.update({k: v for k, v in self.__dict__.items() if k in _INPUT_FORMS})
        return other

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_samples, n_features)``."""
        n, d = self.source.shape
        return int(n), int(d)

    @cached_property
    def single(self) -> bool:
        """True when every label is the same (one class only)."""
        return bool((self.y == self.y[0]).all())

    @cached_property
    def float_values(self) -> Any:
        """The inputs as float64 (C-contiguous, or CSR: the checked matrix itself, no
        copy), equal to them exactly; NaN and infinity are not looked for (for loops
        that check every score anyway, such as the lean training loop).

        Raises a ``ValueError`` naming the first entry that float64 would round."""
        if self.sparse:
            return self.source
        if self.source.dtype.kind not in "biuf":  # exact entries: converted one by one
            return float64_matrix(self.source, name=self.name, check_finite=False)
        if self._inexact_at is not None:
            raise rounding_refused(self.source, self._inexact_at, name=self.name)
        return float64_matrix(self.source, name=self.name, check_finite=False,
                              check_rounding=False)

    @cached_property
    def floats(self) -> Any:
        """:attr:`float_values`, after checking that every entry is finite."""
        refuse_nonfinite(self.float_values, name=self.name)
        return self.float_values

    @cached_property
    def _inexact_at(self) -> tuple | None:
        """Where float64 cannot hold a numeric input exactly (None: nowhere)."""
        return first_inexact(self.source)

    @cached_property
    def exact_floats(self) -> Any:
        """:attr:`floats` when float64 holds every input exactly, else None (exact
        arithmetic is then needed). Non-numbers, NaN and infinity are errors."""
        if self.sparse:
            return self.floats
        if self.source.dtype.kind in "biuf":
            return None if self._inexact_at is not None else self.floats
        out = np.empty(self.shape)
        for i, row in enumerate(self.fractions):
            for j, q in enumerate(row):
                try:
                    f = float(q)
                except OverflowError:
                    return None
                if Fraction(f) != q:
                    return None
                out[i, j] = f
        return out

    @cached_property
    def fractions(self) -> list[list[Fraction]]:
        """The inputs as rows of :class:`~fractions.Fraction` (dense only)."""
        if self.sparse:
            raise sparse_refused(self.source, name=self.name, what="exact arithmetic")
        return to_fraction_matrix(self.source, name=self.name)

    def signed_integers(self, *, intercept: bool = False, intercept_scale: Any = 1,
                        signed: bool = True) -> tuple[np.ndarray, Fraction]:
        """``(M, scale)``: the exact rows ``y_i [x_i, c]`` (``[x_i, c]`` when not
        ``signed``) times one common ``scale``, as integers (int64 when they fit).

        :func:`markone._internal.exact.signed_integer_rows` of the kept Fraction rows; the
        result is kept per question."""
        if signed:
            self._need_binary("signed rows")
        c = to_fraction(intercept_scale, where="intercept_scale ") if intercept else None
        key = (bool(intercept), c, signed)
        if key not in self._integers:
            self._integers[key] = signed_integer_rows(
                self.fractions, self.y if signed else None, intercept=intercept,
                intercept_scale=c, name=self.name)
        return self._integers[key]

    @cached_property
    def sha256(self) -> str:
        """The SHA-256 that names these data exactly (hex; computed on first use):
        :func:`markone._internal.datahash.rows_sha256` of the exact values and the
        -1/+1 labels, the hash certificates carry (version 2). Equal numbers give
        equal hashes however they were written or stored.

        >>> as_dataset([[0.5, 0]], [1]).sha256 == as_dataset([["1/2", 0]], [1]).sha256
        True

        Raises a ``ValueError`` for NaN or infinity, which have no exact value."""
        return self.data_sha256()

    def data_sha256(self, *, version: int = 2) -> str:
        """The data hash of the given ``version`` (1 names format ``/2`` certificates);
        :attr:`sha256` keeps version 2."""
        self._need_binary("the data hash")
        n, d = self.shape
        return rows_sha256(n, d, self._exact_entries(), self.y.tolist(), version=version)

    def _exact_entries(self):
        """Each example as ``(columns, numerators, denominator)`` of Python ints."""
        if self.sparse:
            A = self.floats
            for i in range(A.shape[0]):
                lo, hi = A.indptr[i], A.indptr[i + 1]
                q = [Fraction(float(v)) for v in A.data[lo:hi]]
                yield (A.indices[lo:hi].tolist(), *_common_denominator(q))
            return
        M, scale = self.signed_integers(signed=False)
        num, den = scale.denominator, scale.numerator  # x_i = M[i] / scale
        cols = list(range(M.shape[1]))
        for row in M.tolist():
            yield cols, [v * num for v in row], den

    def _need_binary(self, what):
        if self.multiclass:
            raise ValueError(f"{what} need -1/+1 labels, but these data have "
                             f"{len(self.classes)} classes.")

    def signed_floats(self, intercept: bool = True, intercept_scale: float = 1.0) -> Any:
        """The float64 rows ``y_i [x_i, c]`` (``y_i x_i`` without ``intercept``; a
        float64 array or CSR matrix) of :func:`markone._internal.rows.signed_rows`,
        made once per question and kept: callers read them and never change them.

        >>> data = as_dataset([[1.0], [2.0]], [1, -1])
        >>> data.signed_floats().tolist(), data.signed_floats() is data.signed_floats()
        ([[1.0, 1.0], [-2.0, -1.0]], True)
        """
        self._need_binary("signed rows")
        key = (bool(intercept), float(intercept_scale) if intercept else None)
        if key not in self._signed:
            self._signed[key] = signed_rows(self.floats, self.y, bool(intercept),
                                            intercept_scale)
        return self._signed[key]

    def __repr__(self) -> str:
        n, d = self.shape
        kind = "sparse" if self.sparse else str(self.source.dtype)
        return f"Dataset(n={n}, d={d}, {kind}, classes={self.classes.tolist()})"


#: The forms of the inputs a Dataset makes on first use (none depends on the labels).
_INPUT_FORMS = ("float_values", "floats", "_inexact_at", "exact_floats", "fractions")


def _common_denominator(values):
    """``(numerators, den)`` of Fractions over their least common denominator."""
    den = math.lcm(*(q.denominator for q in values)) if values else 1
    return [q.numerator * (den // q.denominator) for q in values], den


def as_dataset(X: Any, y: Any = None, *, name: str = "X", y_name: str = "y",
               multiclass: bool = False) -> Dataset:
    """Check labelled data once and return them as a :class:`Dataset`.

    Parameters
    ----------
    X : array-like (n_samples, n_features), scipy.sparse matrix, or Dataset
        Read by its values: a DataFrame (anything with ``to_numpy``) or an object
        with ``__array__`` is converted, never iterated. A :class:`Dataset` is
        returned as it is (then ``y`` must be None: the labels are in it).
    y : array-like (n_samples,)
        Two classes of any values, or -1/+1 labels (one class allowed); see
        :func:`markone._internal.validation.labels_to_pm1`.
    name, y_name : str
        The names of the inputs and of the labels in error messages.
    multiclass : bool
        Take two or more classes of any values (for multiclass learners): two come
        as -1/+1 (the sorted first is -1), more as class indices ``0..K-1`` of the
        sorted ``classes``.

    Raises
    ------
    ValueError, TypeError
        Ragged, empty or non-2-D inputs, a string, mismatched lengths, missing
        labels (None, NaN, pandas NA), labels that are not two classes.

    >>> as_dataset([[1.0], [2.0]], [1, 2], name="X").classes.tolist()
    [1, 2]
    >>> as_dataset([[1.0], [2.0], [3.0]], ["c", "a", "b"], multiclass=True).y.tolist()
    [2, 0, 1]
    >>> as_dataset([[1.0], [2.0]], [1, None])
    Traceback (most recent call last):
    ...
    ValueError: y[1] is None, a missing label; every example needs one: drop those examples or fill in their labels.
    """
    if isinstance(X, Dataset):
        if y is not None:
            raise TypeError("a Dataset carries its labels; pass y=None with it.")
        return X
    return _validated(X, y, name, y_name, multiclass)


def _validated(X, y, name, y_name="y", multiclass=False):
    """The checks of :func:`as_dataset` (the one place labelled inputs are checked)."""
    X = array_values(X)
    sparse = is_sparse(X)
    # NaN/inf are looked for when the floats are first asked for (Dataset.floats), as
    # for dense inputs: the lean training loop catches them through its scores instead
    source = check_sparse(X, name=name, check_finite=False) if sparse else \
        dense_array(X, name=name)
    if multiclass:
        y_pm1, classes = encode_class_labels(array_values(y), name=y_name)
        if len(classes) == 2:
            y_pm1 = 2 * y_pm1 - 1
    else:
        y_pm1, classes = labels_to_pm1(y, name=y_name)
    check_consistent_length(source, y_pm1, names=(name, y_name))
    return Dataset(source, y_pm1, classes, name, sparse)
