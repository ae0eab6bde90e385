"""Input validation shared by every part of markone.

One place checks arrays, labels, seeds and scalar parameters, so that every public
function fails the same way: a ``ValueError`` (or ``TypeError``) whose message names
the argument, what was expected, what came, and how to fix it.

Examples
--------
>>> import numpy as np
>>> check_matrix([[0, 1], [1, 0]]).dtype
dtype('float64')
>>> check_matrix([[1.0, float("nan")]])
Traceback (most recent call last):
...
ValueError: X contains NaN or infinity (first at X[0, 1]); remove or impute those entries before training.
>>> y, classes = encode_binary_labels(["cat", "dog", "cat"])
>>> y.tolist(), classes.tolist()
([-1, 1, -1], ['cat', 'dog'])
"""

from __future__ import annotations

import decimal
import numbers
from typing import Any

import numpy as np

from markone._internal.shapes import check_consistent_length, is_sparse, sparse_refused
from markone._internal.exact import (first_inexact, describe_number, inexact_entry,
                                     NumberTooLong, float64_of)

__all__ = [
    "check_matrix",
    "check_matrix_or_sparse",
    "array_values",
    "dense_array",
    "float64_matrix",
    "refuse_missing_labels",
    "check_label_values",
    "refuse_nonfinite",
    "rounding_refused",
    "check_sparse",
    "canonical_csr",
    "float64_input",
    "is_sparse",
    "sparse_refused",
    "check_vector",
    "check_consistent_length",
    "encode_binary_labels",
    "encode_class_labels",
    "check_pm1_labels",
    "labels_to_pm1",
    "as_generator",
    "child_seeds",
    "each_child_seed",
    "check_positive",
    "check_int_at_least",
    "check_choice",
]


def check_matrix(X, *, name="X", dtype=np.float64, allow_empty=False, check_finite=True):
    """Return ``X`` as a C-contiguous 2-D array of ``dtype``, or raise a clear error.

    Rejects ragged input, non-numeric entries, 1-D or 3-D arrays, empty arrays (unless
    ``allow_empty``) and NaN/inf (unless ``check_finite=False``, for callers that
    detect them on the way). Never copies an array that already fits. A DataFrame
    (or anything with ``to_numpy`` or ``__array__``) is read by its values.
    """
    X = array_values(X)
    if is_sparse(X):
        raise sparse_refused(X, name=name)
    arr = dense_array(X, name=name, allow_empty=allow_empty)
    return float64_matrix(arr, name=name, dtype=dtype, check_finite=check_finite)


def array_values(X):
    """The values of a table-like ``X`` as an ndarray, never by iterating it (a
    DataFrame iterates over its column *names*): anything with ``to_numpy``
    (pandas, polars) or ``__array__``. Columns of different types come back as an
    object array, so that no value is rounded to a common type (an int64 column
    beside a float column). ndarrays, sparse matrices and sequences are returned as
    they are.

    >>> class Table:
    ...     def to_numpy(self, dtype=None):
    ...         return np.array([[1, 2]], dtype=dtype)
    >>> array_values(Table()).tolist(), array_values([[3]])
    ([[1, 2]], [[3]])
    """
    if isinstance(X, np.ndarray) or is_sparse(X):
        return X
    if hasattr(X, "to_numpy"):
        return X.to_numpy(dtype=object) if _mixed_dtypes(X) else X.to_numpy()
    if hasattr(X, "__array__"):
        return np.asarray(X)
    return X


def _mixed_dtypes(table):
    """True for a table whose columns have more than one dtype."""
    try:
        return len({str(t) for t in table.dtypes}) > 1
    except (AttributeError, TypeError):  # no per-column dtypes (a Series, an array)
        return False


def dense_array(X, *, name="X", allow_empty=False):
    """``X`` as a 2-D ndarray of what it holds (numbers, or an object array of exact
    entries such as Fractions and decimal strings), converted to nothing else; the
    shape checks of :func:`check_matrix` (a string, ragged rows, 1-D, 3-D, empty)."""
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be a 2-D array of numbers, got a string.")
    try:
        arr = _as_array(X)
    except ValueError as exc:  # ragged nested sequences
        raise ValueError(
            f"{name} is ragged (rows of different lengths); every row must have the "
            "same number of features."
        ) from exc
    if arr.ndim == 1:
        raise ValueError(
            f"{name} must be 2-D (n_samples, n_features), got a 1-D array of shape "
            f"{arr.shape}; use X.reshape(-1, 1) for one feature or X.reshape(1, -1) "
            "for one sample."
        )
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (n_samples, n_features), got {arr.ndim}-D shape "
            f"{arr.shape}; flatten each sample, e.g. X.reshape(len(X), -1)."
        )
    if not allow_empty and (arr.shape[0] == 0 or arr.shape[1] == 0):
        raise ValueError(
            f"{name} is empty (shape {arr.shape}); at least one sample with at least "
            "one feature is needed."
        )
    if arr.dtype.kind not in "biufOUS":
        _refuse_complex_inputs(arr, name)
        raise TypeError(
            f"{name} must hold numbers, got dtype {arr.dtype}; convert it with "
            "np.asarray(X, dtype=float) or use exact=True for rational strings."
        )
    return arr


def _refuse_complex_inputs(arr, name):
    """Refuse an array of complex numbers by name (exact=True, the remedy for other
    dtypes, does not apply to them).

    >>> _refuse_complex_inputs(np.array([[1 + 2j]]), "X")
    Traceback (most recent call last):
    ...
    TypeError: X holds complex numbers (dtype complex128): a perceptron needs real inputs; pass X.real if every imaginary part is 0, or the two parts as features of their own (np.hstack([X.real, X.imag])).
    """
    if arr.dtype.kind == "c":
        raise TypeError(
            f"{name} holds complex numbers (dtype {arr.dtype}): a perceptron needs real "
            f"inputs; pass {name}.real if every imaginary part is 0, or the two parts as "
            f"features of their own (np.hstack([{name}.real, {name}.imag])).")


def float64_matrix(arr, *, name="X", dtype=np.float64, check_finite=True,
                   check_rounding=True):
    """A 2-D array of :func:`dense_array` as a C-contiguous array of ``dtype``,
    rounding nothing: Fractions and decimal strings that float64 holds exactly are
    converted, any entry that would round is refused by position and value (unless
    ``check_rounding`` is False: the caller has looked already); NaN and infinity are
    refused unless ``check_finite`` is False."""
    if arr.dtype.kind in "OUS" and np.dtype(dtype) == np.float64:
        arr = _exact_floats(arr, name)  # Fractions, "0.5": exactly, or refused by name
    if arr.dtype == object:
        raise ValueError(
            f"{name} is ragged or holds non-numeric objects; pass a rectangular array "
            "of numbers (use exact=True for Fractions or strings like '3/4')."
        )
    if arr.dtype.kind not in "biuf":
        _refuse_complex_inputs(arr, name)
        raise TypeError(
            f"{name} must hold numbers, got dtype {arr.dtype}; convert it with "
            "np.asarray(X, dtype=float) or use exact=True for rational strings."
        )
    if np.dtype(dtype) == np.float64 and check_rounding:
        _refuse_rounding(arr, name)
    arr = np.ascontiguousarray(arr, dtype=dtype)
    if check_finite and arr.dtype.kind == "f":
        refuse_nonfinite(arr, name=name)
    return arr


def refuse_nonfinite(arr, *, name="X", first_row=0):
    """Raise for the first NaN or infinity of a float array or a CSR matrix, by row
    (counted from ``first_row``: ``arr`` may be one row of a larger matrix) and column.

    >>> import scipy.sparse as sp
    >>> refuse_nonfinite(sp.csr_array([[1.0, 0.0, 0.0], [0.0, 0.0, -np.inf]]))
    Traceback (most recent call last):
    ...
    ValueError: X contains NaN or infinity (first at X[1, 2]); remove or impute those entries before training.
    """
    if hasattr(arr, "indptr"):  # CSR: the stored entries, in row order
        bad = np.flatnonzero(~np.isfinite(arr.data))
        if bad.size:
            k = int(bad[0])
            i = int(np.searchsorted(arr.indptr, k, side="right") - 1)
            _raise_nonfinite(name, first_row + i, int(arr.indices[k]))
        return
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        _raise_nonfinite(name, first_row + int(i), int(j))


def _raise_nonfinite(name, i, j):
    raise ValueError(
        f"{name} contains NaN or infinity (first at {name}[{i}, {j}]); "
        "remove or impute those entries before training."
    )


def _as_array(X):
    """``np.asarray(X)``, except that a nested list mixing strings and numbers keeps
    its numbers as they are (NumPy would turn ``np.float16(1/64)`` into the string
    ``'0.01563'`` and ``0.1`` into ``'0.1'``, another number), and one mixing
    booleans with numbers keeps its booleans (NumPy would make ``True`` a 1), for the
    checks to name them."""
    arr = np.asarray(X)
    if isinstance(X, np.ndarray):
        return arr
    if arr.dtype.kind in "US" or (arr.dtype.kind in "iuf" and arr.ndim == 2
                                  and _holds_bool(X)):
        return np.asarray(X, dtype=object)
    return arr


def _holds_bool(rows):
    """True when a nested sequence of numbers holds a boolean."""
    return any(isinstance(v, (bool, np.bool_)) for row in rows for v in row)




def check_sparse(X, *, name="X", allow_empty=False, check_finite=True):
    """Return sparse ``X`` as a canonical float64 CSR matrix, or raise a clear error.

    Any :mod:`scipy.sparse` format (CSR, CSC, COO, ... matrices and the ``*_array``
    types) is converted to CSR with sorted, summed duplicate entries (so each stored
    entry is added once, as the dense matrix has it); the stored values are checked
    for numeric type, for values float64 would round, and (unless ``check_finite`` is
    False: :class:`markone._internal.data.Dataset` looks when its ``floats`` are first
    asked for, and the lean training loop sees every score anyway) for NaN/inf.
    Never copies a matrix that already fits.

    >>> import scipy.sparse as sp
    >>> A = check_sparse(sp.coo_array(([1, 2, 5], ([0, 0, 1], [1, 1, 0])), shape=(2, 3)))
    >>> A.format, A.dtype, A.toarray().tolist()
    ('csr', dtype('float64'), [[0.0, 3.0, 0.0], [5.0, 0.0, 0.0]])
    """
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got a sparse "
                         f"array of shape {X.shape}.")
    if not allow_empty and (X.shape[0] == 0 or X.shape[1] == 0):
        raise ValueError(
            f"{name} is empty (shape {X.shape}); at least one sample with at least "
            "one feature is needed.")
    if X.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold numbers, got a sparse matrix of dtype {X.dtype}; "
            "convert it with X.astype(float).")
    A = _canonical_layout(X)
    if A.dtype != np.float64:
        k = first_inexact(A.data)
        if k is not None:
            i = int(np.searchsorted(A.indptr, k[0], side="right") - 1)
            raise ValueError(
                f"{name}[{i}, {int(A.indices[k[0]])}] = {A.data[k[0]]} ({A.dtype}) is "
                "not exactly a float64, so float arithmetic would round it; round it "
                "deliberately with X.astype(float), or pass X.toarray() to an exact "
                "function.")
        A = A.astype(np.float64)
    if check_finite:
        refuse_nonfinite(A, name=name)
    return _one_index_type(A)


def canonical_csr(X):
    """A float64 sparse matrix, checked already (by scikit-learn's ``check_array``),
    as the canonical CSR matrix of :func:`check_sparse`, without checking its values
    again: sorted and summed duplicate entries, one integer type for ``indptr`` and
    ``indices``. Never copies a matrix that already fits.

    >>> import scipy.sparse as sp
    >>> A = sp.csr_array(([1.0, 2.0], [1, 1], [0, 2]), shape=(1, 3))
    >>> canonical_csr(A).toarray().tolist()
    [[0.0, 3.0, 0.0]]
    """
    return _one_index_type(_canonical_layout(X))


def _canonical_layout(X):
    """``X`` as CSR with sorted, summed duplicate entries (copied only if needed)."""
    A = X if X.format == "csr" else X.tocsr()
    if not A.has_canonical_format:
        A = A.copy() if A is X else A
        A.sum_duplicates()
    return A


#: The largest count (stored entries, columns) a CSR matrix indexes in int32.
_INT32_INDEX = 2**31 - 1


def _one_index_type(A):
    """A CSR matrix whose ``indptr`` and ``indices`` share one integer type: int32
    where the matrix fits (scipy's own choice), else int64. The compiled loops need
    one, and with one per size a kernel is compiled once for both (a matrix that came
    with int64 indices it does not need costs a copy of them, not a compile)."""
    index = np.int32 if max(A.nnz, A.shape[1]) <= _INT32_INDEX else np.int64
    if A.indptr.dtype != index or A.indices.dtype != index:
        import scipy.sparse

        A = scipy.sparse.csr_matrix((A.data, A.indices.astype(index),
                                     A.indptr.astype(index)), shape=A.shape)
    return A


def check_matrix_or_sparse(X, *, name="X", allow_empty=False):
    """:func:`check_sparse` for sparse input, :func:`check_matrix` (float64) for the
    rest: the one entry point of every function that takes both."""
    X = array_values(X)
    if is_sparse(X):
        return check_sparse(X, name=name, allow_empty=allow_empty)
    return check_matrix(X, name=name, allow_empty=allow_empty)


def _refuse_rounding(arr, name):
    """Raise when converting ``arr`` to float64 would round an entry (a longdouble
    with more bits, an integer beyond 2**53): nothing is rounded without a word."""
    k = first_inexact(arr)
    if k is not None:
        raise rounding_refused(arr, k, name=name)


def rounding_refused(arr, k, *, name="X"):
    """The ``ValueError`` for entry ``k`` of a numeric array, which float64 cannot
    hold exactly (:func:`markone._internal.exact.first_inexact` finds it)."""
    value = np.format_float_scientific(arr[k], unique=True) if arr.dtype.kind == "f" \
        else str(arr[k])
    return _rounding_error(name, k, f"{value} ({arr.dtype})")


def float64_input(X, *, name="X"):
    """``X`` ready for a conversion to float64 that rounds nothing, for callers that
    convert with another library (scikit-learn's ``validate_data``).

    Returns ``X`` itself when it is float64 already, numeric (dense or sparse) with
    every entry exactly a float64, or a DataFrame-like; an object or string array or
    nested list of numbers that float64 holds exactly (``Fraction(1, 2)``, ``"1/4"``)
    comes back as the float64 array it equals. Raises a ``ValueError`` naming the
    first entry that would be rounded (a longdouble with more bits, an integer beyond
    2**53, ``Fraction(1, 3)``, ``"0.1"``, ``"1e-400"``). Input that is not a
    rectangular array of numbers is returned as it is, for that library's message.

    >>> float64_input([[0.5, "1/4"]]).tolist()
    [[0.5, 0.25]]
    >>> float64_input([["0.1"]])
    Traceback (most recent call last):
    ...
    ValueError: X[0, 0] = '0.1' is not exactly a float64, so float arithmetic would round it. Use exact arithmetic (markone.train(..., exact=True); verify.check_separable takes it exactly), or round it deliberately with np.asarray(X, dtype=float).
    """
    if is_sparse(X):
        if X.dtype.kind in "biuf" and X.dtype != np.float64:
            check_sparse(X, name=name)  # names the entry that would round
        return X
    if isinstance(X, np.ndarray) and X.dtype == np.float64:
        return X
    try:
        arr = _as_array(X)
    except (ValueError, TypeError):
        return X
    if arr.dtype.kind in "biuf":
        _refuse_rounding(arr, name)
    elif arr.dtype.kind in "OUS":
        bad = inexact_entry(arr)
        if bad is not None:
            raise _rounding_error(name, tuple(int(i) for i in bad[0]),
                                  describe_number(bad[1]))
        if arr.ndim == 2 and not hasattr(X, "columns"):  # (DataFrames keep their names)
            out = _exact_floats(arr, name)
            return out if out.dtype == np.float64 else X
    return X


def _rounding_error(name, k, shown):
    return ValueError(
        f"{name}[{', '.join(map(str, k))}] = {shown} is not exactly a float64, so float "
        "arithmetic would round it. Use exact arithmetic (markone.train(..., "
        "exact=True); verify.check_separable takes it exactly), or round it "
        "deliberately with np.asarray(X, dtype=float).")


def _exact_floats(arr, name):
    """An object or string array of numbers as float64, when float64 holds every
    entry exactly (``Fraction(1, 2)``, ``"0.25"``, ints up to 2**53); an entry that
    would round is refused by position and value. Arrays holding non-numbers come
    back unchanged, for the caller's own message."""
    out = np.empty(arr.shape, dtype=np.float64)
    for k in np.ndindex(arr.shape):
        v = arr[k]
        try:
            f = float64_of(v)
        except NumberTooLong as exc:
            raise NumberTooLong(f"{name}[{', '.join(map(str, k))}]: {exc}", exc.text) \
                from None
        except (TypeError, ValueError):
            return arr
        if f is None:
            raise _rounding_error(name, k, describe_number(v))
        out[k] = f
    return out


def check_vector(v, *, name="x", n_features=None, dtype=np.float64):
    """Return one sample ``v`` as a contiguous 1-D array, checking its length."""
    arr = check_matrix(np.asarray(v).reshape(1, -1) if np.ndim(v) == 1 else v,
                       name=name, dtype=dtype)
    if arr.shape[0] != 1:
        raise ValueError(f"{name} must be one sample (1-D), got shape {np.shape(v)}.")
    arr = arr[0]
    if n_features is not None and arr.shape[0] != n_features:
        raise ValueError(
            f"{name} has {arr.shape[0]} features but the model was fitted with "
            f"{n_features}."
        )
    return arr




def _as_label_array(y, name):
    if isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D sequence of labels, got a string.")
    check_label_values(y, name=name)
    arr = np.asarray(y)
    if arr.ndim == 2 and 1 in arr.shape:
        raise ValueError(
            f"{name} must be 1-D, got shape {arr.shape}; use y.ravel() to flatten it."
        )
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}.")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; at least one labelled sample is needed.")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        i = int(np.flatnonzero(~np.isfinite(arr))[0])
        what = "NaN, a missing label" if np.isnan(arr[i]) else f"{arr[i]}, not a label"
        raise ValueError(f"{name}[{i}] is {what}; every example needs a label (NaN or "
                         "infinity is none): drop those examples or fill in their labels.")
    return arr


def check_label_values(y: Any, *, name: str = "y") -> None:
    """Refuse labels that cannot be compared, the same way at every entry point
    (``markone.train``, the estimators, ``verify``, the Mark I, the command line):
    a missing label (None, NaN, pandas NA, NaT) by position; a value that is no
    label (a complex number, a set, an object: labels are real numbers, strings or
    bytes); and labels of different kinds (``[1, "a"]``, ``[b"a", "a"]``), which
    cannot be ordered. A list is checked value by value, before NumPy would turn
    ``[1, "a"]`` into the strings ``["1", "a"]``. Shapes are the caller's.

    >>> check_label_values(["a", "b", "a"])
    >>> check_label_values([1, "a"])
    Traceback (most recent call last):
    ...
    TypeError: y mixes labels of types int, str, which cannot be ordered; give every label the same type (all strings, or all numbers).
    >>> check_label_values([1, {2}])
    Traceback (most recent call last):
    ...
    TypeError: y[1] is {2} (set), not a label: labels are real numbers, strings or bytes; map them to those first.
    """
    values = array_values(y)
    if isinstance(values, (str, bytes)) or is_sparse(values):
        return                       # the caller refuses these, with its own words
    if not isinstance(values, np.ndarray):
        try:
            arr = np.asarray(values)
        except (TypeError, ValueError):
            return                   # ragged or no sequence: the shape checks say so
        if arr.ndim == 1 and arr.dtype.kind in "USOc":   # a mix hides in a common type
            raw, values = list(values), np.empty(len(arr), dtype=object)
            values[:] = raw
        else:
            values = arr
    if values.dtype.kind == "c":
        _refuse_complex(name, 0, values[0].item())
    if values.dtype == object and values.ndim == 1:
        _refuse_missing_labels(values, name)


def refuse_missing_labels(y, *, name="y"):
    """:func:`check_label_values` (its former name, kept for the estimators'
    callers): a missing label by position, a value that is no label, labels of
    kinds that cannot be ordered together.

    >>> refuse_missing_labels(["a", None])
    Traceback (most recent call last):
    ...
    ValueError: y[1] is None, a missing label; every example needs one: drop those examples or fill in their labels.
    """
    check_label_values(y, name=name)


#: The kinds of values that are labels; labels of one kind can be ordered.
_LABEL_KINDS = (((numbers.Real, decimal.Decimal, np.bool_), "number"), (str, "string"),
                ((bytes, np.bytes_), "bytes"))


def _label_kind(t):
    """The kind of a label of type ``t`` (None: not a label)."""
    return next((kind for types, kind in _LABEL_KINDS if issubclass(t, types)), None)


def _refuse_missing_labels(arr, name):
    """Raise for the first missing label (None, NaN, pandas NA, NaT) by position, for
    the first value that is no label, and for labels of kinds that cannot be
    ordered together (``[1, "a"]``)."""
    items = arr.tolist()
    for i, v in enumerate(items):
        if _is_missing(v):
            raise ValueError(f"{name}[{i}] is {v!r}, a missing label; every example "
                             "needs one: drop those examples or fill in their labels.")
    types = set(map(type, items))
    kinds = {t: _label_kind(t) for t in types}
    if None in kinds.values():
        i, v = next((i, v) for i, v in enumerate(items) if kinds[type(v)] is None)
        if isinstance(v, numbers.Complex):
            _refuse_complex(name, i, v)
        raise TypeError(f"{name}[{i}] is {_shown_label(v)} ({type(v).__name__}), not a "
                        "label: labels are real numbers, strings or bytes; map them to "
                        "those first.")
    if len(set(kinds.values())) > 1:
        _refuse_mixed(types, name)
    try:
        np.unique(arr)
    except TypeError:
        _refuse_mixed(types, name)


def _refuse_complex(name, i, v):
    raise ValueError(f"Complex data not supported as labels: {name}[{i}] is {v!r}; "
                     "labels are real numbers, strings or bytes; map them to those first.")


def _refuse_mixed(types, name):
    names = sorted({t.__name__ for t in types})
    raise TypeError(f"{name} mixes labels of types {', '.join(names)}, which cannot "
                    "be ordered; give every label the same type (all strings, or "
                    "all numbers).") from None


def _shown_label(v):
    """A label for a one-line message."""
    text = repr(v)
    return text if len(text) <= 40 else text[:36] + "..."


def _is_missing(v):
    """True for None and for values unequal to themselves (NaN, NaT) or whose
    comparison has no truth value (pandas NA)."""
    if v is None:
        return True
    try:
        return bool(v != v)
    except (TypeError, ValueError):
        return True


def encode_binary_labels(y, *, name="y", classes=None, allow_single=False):
    """Map labels of any two values to -1/+1; return ``(y_pm1, classes)``.

    ``classes`` (sorted, as ``np.unique`` gives them) maps ``classes[0] -> -1`` and
    ``classes[1] -> +1``. Given ``classes``, labels outside them are an error. With
    ``allow_single`` a one-class ``y`` that is already -1/+1 is accepted.
    """
    arr = _as_label_array(y, name)
    if classes is None:
        classes = np.unique(arr)
    else:
        classes = np.asarray(classes)
        unknown = np.setdiff1d(np.unique(arr), classes)
        if unknown.size:
            raise ValueError(
                f"{name} has labels {unknown.tolist()} not among the classes "
                f"{classes.tolist()} given at the first fit."
            )
    if len(classes) > 2:
        raise ValueError(
            f"{name} has {len(classes)} classes {classes.tolist()[:10]}, but a binary "
            "perceptron needs exactly two; use MulticlassPerceptron for more."
        )
    if len(classes) == 1:
        if allow_single:
            return check_pm1_labels(arr, name=name), classes
        raise ValueError(
            f"{name} has only one class ({_plain(classes[0])!r}); a classifier needs "
            "samples of two classes, or -1/+1 labels (pass classes=[a, b] to "
            "partial_fit to fix both up front)."
        )
    y_pm1 = np.where(arr == classes[1], 1, -1).astype(np.int64)
    return y_pm1, classes


def _plain(value):
    """A NumPy scalar as the Python value it holds (for messages: 'a', not np.str_)."""
    return value.item() if isinstance(value, np.generic) else value


def encode_class_labels(y, *, name="y", classes=None):
    """Map labels of two or more values to indices ``0..K-1``; return ``(idx, classes)``.

    ``classes`` (``np.unique`` of ``y``, or of the ``classes`` given, e.g. at a first
    ``partial_fit``; always sorted) fixes the order: ``classes[k] -> k``. Labels outside
    the given ``classes`` and fewer than two classes are errors.

    >>> idx, classes = encode_class_labels(["b", "c", "a", "b"])
    >>> idx.tolist(), classes.tolist()
    ([1, 2, 0, 1], ['a', 'b', 'c'])
    """
    arr = _as_label_array(y, name)
    if classes is None:
        classes = np.unique(arr)
    else:
        classes = np.unique(_as_label_array(classes, "classes"))
        unknown = np.setdiff1d(np.unique(arr), classes)
        if unknown.size:
            raise ValueError(
                f"{name} has labels {unknown.tolist()[:10]} not among the classes "
                f"{classes.tolist()[:10]} given at the first fit; pass every class to "
                "the first partial_fit (classes=...)."
            )
    if len(classes) < 2:
        raise ValueError(
            f"{name} has only one class ({classes[0]!r}); a classifier needs samples "
            "of at least two classes (pass classes=[...] to partial_fit to fix them "
            "up front)."
        )
    return np.searchsorted(classes, arr).astype(np.int64), classes


#: The classes of labels that are -1/+1 already (copied for each caller).
_PM1_CLASSES = np.array([-1, 1])


def labels_to_pm1(y, *, name="y"):
    """Labels for the core: -1/+1 labels pass through (one class allowed); any two
    other values are mapped with :func:`encode_binary_labels`. Returns
    ``(y_pm1, classes)``. One class of another value is refused: it has no side
    (+1 or -1) of its own. Missing labels (None, NaN, pandas NA) are refused by
    position.

    >>> labels_to_pm1([1, 1])[0].tolist(), labels_to_pm1([0, 5])[1].tolist()
    ([1, 1], [0, 5])
    """
    arr = np.asarray(array_values(y))
    if arr.ndim == 1 and arr.size and arr.dtype.kind in "iuf" and (
            (arr == 1) | (arr == -1)).all():  # two comparisons: a fifth of np.isin's cost
        return arr.astype(np.int64), _PM1_CLASSES.copy()
    arr = _as_label_array(array_values(y), name)
    first = arr[0]
    if (arr == first).all():  # one class of another value: which side is it on?
        raise ValueError(
            f"{name} has only one class ({_plain(first)!r}), which has no side (+1 or "
            "-1) of its own; pass samples of two classes, or label every sample +1 (or "
            "-1), which asks whether one side holds them all.")
    return encode_binary_labels(arr, name=name)


def check_pm1_labels(y, *, name="y"):
    """Return ``y`` as int64 -1/+1 labels, or raise if any label is not -1 or +1."""
    arr = _as_label_array(y, name)
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be -1/+1 numbers here, got dtype {arr.dtype}.")
    ok = (arr == 1) | (arr == -1)
    if not ok.all():
        bad = arr[~ok][0]
        raise ValueError(
            f"{name} must contain only -1 and +1 here, found {bad!r}; map your two "
            "classes with markone._internal.validation.encode_binary_labels or the estimators."
        )
    return arr.astype(np.int64)


def as_generator(seed):
    """Turn ``seed`` (None, int, ``SeedSequence`` or ``Generator``) into a Generator.

    >>> bool(as_generator(0).integers(10) == as_generator(0).integers(10))
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, (numbers.Integral, np.random.SeedSequence)):
        if isinstance(seed, numbers.Integral) and seed < 0:
            raise ValueError(f"seed(={seed}) must be a non-negative integer.")
        return np.random.default_rng(seed)
    raise TypeError(
        f"seed must be None, a non-negative int or a numpy.random.Generator, got "
        f"{type(seed).__name__}."
    )


def child_seeds(seed, n):
    """Draw ``n`` independent integer seeds up front from ``seed``.

    Results of many-run experiments then do not depend on the order in which the runs
    are scheduled.

    >>> child_seeds(1, 3) == child_seeds(1, 3)
    True
    """
    return list(each_child_seed(seed, n))


def each_child_seed(seed, n):
    """The seeds of :func:`child_seeds`, the same ones, drawn one at a time: a
    request for many runs starts at once and keeps one seed, not ``n``.

    >>> list(each_child_seed(1, 3)) == child_seeds(1, 3)
    True
    """
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(
        None if seed is None else int(seed) if isinstance(seed, numbers.Integral)
        else int(as_generator(seed).integers(2**63))
    )
    for _ in range(n):   # spawn(1) n times gives the children spawn(n) gives
        yield int(ss.spawn(1)[0].generate_state(1, np.uint64)[0] >> np.uint64(1))


def check_positive(value, name, *, allow_zero=False):
    """Return ``value`` as float if it is a finite number > 0 (>= 0 with allow_zero)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}.")
    try:
        v = float(value)
    except OverflowError:
        raise ValueError(f"{name}(={value}) is beyond float64's range (~1.8e308); "
                         "rescale it.") from None
    if not np.isfinite(v) or v < 0 or (v == 0 and not allow_zero) or (v == 0) != (value == 0):
        op = ">= 0" if allow_zero else "> 0"
        if v == 0 and value != 0:
            raise ValueError(f"{name}(={value}) underflows float64 to 0; rescale it.")
        raise ValueError(f"{name}(={value!r}) must be a finite number {op}.")
    return v


def check_int_at_least(value, name, minimum):
    """Return ``value`` as int if it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name}(={value}) must be >= {minimum}.")
    return int(value)


def check_choice(value, name, choices):
    """Return ``value`` if it is one of ``choices``, else name the valid ones."""
    if value not in choices:
        raise ValueError(
            f"{name}(={value!r}) must be one of {', '.join(map(repr, choices))}."
        )
    return value
