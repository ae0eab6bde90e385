"""The small trusted checker: does a separability proof hold on its data?

Everything else in :mod:`verify` *proposes* (the perceptron, HiGHS, Z3, cvc5, the
exact solvers); this module alone *decides*, and it is the one piece a sceptic must
read. It depends on nothing but the Python standard library (:mod:`fractions`,
:mod:`math`, :mod:`json`) and the data: no NumPy, no solver, no other markone module.

A claim about labelled data ``(x_i, y_i)`` is about the signed rows
``z_i = y_i [x_i, 1]`` (without the 1 when ``intercept`` is False):

* a **witness** ``w`` proves *separable* when ``w . z_i > 0`` for every ``i``;
* a **certificate** ``{i: lambda_i}`` proves *not separable* when every
  ``lambda_i > 0`` and ``sum_i lambda_i z_i = 0`` (then
  ``sum_i lambda_i (w . z_i) = 0`` for every ``w``, so no ``w`` is positive on all
  rows: Gordan's theorem of the alternative).

Numbers are read exactly: ints, :class:`~fractions.Fraction`, strings such as
``"3/4"`` or ``"0.1"``, and binary floats of any precision as the exact fractions they
are. A :mod:`scipy.sparse` matrix is read through its stored entries (duck-typed:
its ``tocsr()``; no import), row by row, without ever forming the dense matrix. Labels follow markone's rule: -1/+1 numbers pass through; any two other values
map the sorted first to -1; a single class of any other value is +1.

Examples
--------
>>> from types import SimpleNamespace as Claim
>>> X, y = [[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 0]          # XOR
>>> check_certificate(X, y, Claim(separable=False, intercept=True, witness=None,
...                               certificate={0: 1, 1: 1, 2: 1, 3: 1}))
True
>>> check_certificate(X, y, Claim(separable=False, intercept=True, witness=None,
...                               certificate={0: 1, 1: 1, 2: 1, 3: 2}))
Traceback (most recent call last):
...
verify.certificate.CertificateError: the certificate does not cancel: coordinate 0 of sum lambda_i y_i [x_i, 1] is -1, not 0.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import hashlib
import json
import math
import numbers
import operator
import os
import re
from itertools import compress, islice, repeat
from fractions import Fraction
from typing import Any, Callable, TypeVar, cast

__all__ = ["CertificateError", "CertificateUnreadable", "check_certificate",
           "check_certificate_file", "read_certificate", "certificate_document",
           "certificate_json", "data_sha256", "file_sha256", "Claim", "SparseData",
           "exact_rows", "labels_pm1", "CERTIFICATE_FORMAT"]

#: The ``format`` tag of certificate files (``markone verify separable --certificate``).
#: Format ``/3`` adds the sparse data layout and hashes the data by their non-zero
#: entries (:func:`data_sha256` version 2); ``/2`` files still read and check.
CERTIFICATE_FORMAT = "markone.verify.separability/3"

#: The formats this checker reads, each with the version of its data hash.
_FORMATS = {"markone.verify.separability/2": 1, CERTIFICATE_FORMAT: 2}


class CertificateError(ValueError):
    """A witness or certificate that does not prove what it claims (says why)."""


@dataclasses.dataclass(frozen=True)
class SparseData:
    """A sparse matrix in compressed sparse row form, as plain lists: the
    ``"layout": "csr"`` data of a certificate file, and a matrix the checker reads
    like a scipy.sparse one (it has ``shape`` and ``tocsr()``).

    Row ``i`` holds ``values[k]`` at column ``indices[k]`` for ``indptr[i] <= k <
    indptr[i + 1]``; every other entry is 0. The form is canonical: the columns of a
    row strictly increase (no entry twice) and no stored value is 0, so one matrix
    has one encoding. The constructor checks all of it, in time O(n + nnz), and
    raises ValueError naming the first field that is wrong.

    >>> A = SparseData((2, 3), [0, 1, 1], [2], ["1/2"])
    >>> data_sha256(A, [1, -1]) == data_sha256([[0, 0, "1/2"], [0, 0, 0]], [1, -1])
    True
    >>> SparseData((2, 3), [0, 2, 2], [1, 1], [5, 6])
    Traceback (most recent call last):
    ...
    ValueError: indices: row 0 names column 1 twice (or out of order); the columns of a row must strictly increase.
    """

    shape: tuple[int, int]
    indptr: list[int]
    indices: list[int]
    values: list[Any]

    def __post_init__(self):
        shape, ptr, cols, vals = self.shape, self.indptr, self.indices, self.values
        if not isinstance(shape, (list, tuple)) or len(shape) != 2 or \
                not _ints(shape) or min(shape) < 1:
            raise ValueError(f"shape is {shape!r}; it must be [n, d], two positive "
                             "integers.")
        object.__setattr__(self, "shape", tuple(shape))
        n, d = shape
        for name, a in (("indptr", ptr), ("indices", cols), ("values", vals)):
            if not isinstance(a, list):
                raise ValueError(f"{name} must be a list, not {type(a).__name__}.")
        if len(ptr) != n + 1 or not _ints(ptr):
            raise ValueError(f"indptr must be n + 1 = {n + 1} integers (shape {n} x {d}),"
                             f" got {len(ptr)} entries.")
        if ptr[0] != 0 or ptr[-1] != len(cols) or len(vals) != len(cols):
            raise ValueError(f"indptr runs from {ptr[0]} to {ptr[-1]}, but it must run "
                             f"from 0 to the number of entries: {len(cols)} indices and "
                             f"{len(vals)} values.")
        if not all(map(operator.le, ptr, islice(ptr, 1, None))):
            i = next(i for i in range(n) if ptr[i] > ptr[i + 1])
            raise ValueError(f"indptr decreases at row {i} ({ptr[i]} then {ptr[i + 1]});"
                             " it must be non-decreasing.")
        if not _ints(cols):
            raise ValueError("indices must be integers.")
        if cols and (min(cols) < 0 or max(cols) >= d):
            j = min(cols) if min(cols) < 0 else max(cols)
            raise ValueError(f"indices holds column {j}, outside 0..{d - 1} (shape {n} x"
                             f" {d}).")
        for i in range(n):
            if not _increasing(cols[ptr[i]:ptr[i + 1]]):
                c = cols[ptr[i]:ptr[i + 1]]
                j = next(c[k] for k in range(1, len(c)) if c[k] <= c[k - 1])
                raise ValueError(f"indices: row {i} names column {j} twice (or out of "
                                 "order); the columns of a row must strictly increase.")
        if not _plain_numbers(vals):
            for k, v in enumerate(vals):
                if isinstance(v, (list, dict)) or v is None:
                    raise ValueError(f"values[{k}] is {v!r}, not a number.")
                if _number(v, f"values[{k}]") == 0:
                    break
            else:
                return
        elif 0 not in vals:
            return
        k = next(k for k, v in enumerate(vals) if _number(v, "") == 0)
        raise ValueError(f"values[{k}] is {vals[k]!r}, a zero: only the non-zero "
                         "entries are stored.")

    def tocsr(self) -> SparseData:
        """The matrix itself (it is in CSR form already)."""
        return self


def _ints(xs):
    """True when every entry of ``xs`` is a Python int (booleans are not)."""
    return set(map(type, xs)) <= {int}


_F = TypeVar("_F", bound=Callable[..., Any])


def _gc_paused(func: _F) -> _F:
    """Run ``func`` with Python's cyclic garbage collector paused. Reading the data
    makes one list of ints per row (10^5 lists, no reference cycles), and the
    collector would traverse them again and again: 5x the time on 100,000 x 100."""
    @functools.wraps(func)
    def paused(*args, **kwargs):
        was = gc.isenabled()
        gc.disable()
        try:
            return func(*args, **kwargs)
        finally:
            if was:
                gc.enable()
    return cast(_F, paused)


@_gc_paused
def check_certificate(X: Any, y: Any, verdict: Any) -> bool:
    """Re-check a verdict's witness or certificate from scratch, in exact arithmetic.

    Parameters
    ----------
    X : 2-D array-like of numbers
        The data, read exactly (see the module docstring).
    y : 1-D sequence of labels
    verdict : object with ``separable``, ``intercept``, ``witness``, ``certificate``
        A :class:`verify.SeparabilityVerdict`, or anything with those attributes.

    Returns
    -------
    True
        When the proof holds.

    Raises
    ------
    CertificateError
        Naming what fails (the example, the coordinate, the weight).
    ValueError
        When the verdict is unknown (nothing to check) or the data are invalid.

    Examples
    --------
    >>> from types import SimpleNamespace as Claim
    >>> check_certificate([[0.0], [1.0]], [0, 1], Claim(separable=True, intercept=True,
    ...                   witness=(2, -1), certificate=None))
    True
    >>> check_certificate([[0.0], [1.0]], [0, 1], Claim(separable=True, intercept=True,
    ...                   witness=(-1, 0), certificate=None))
    Traceback (most recent call last):
    ...
    verify.certificate.CertificateError: the witness fails on example 0: y * w . [x, 1] = 0, not > 0.
    """
    if verdict.separable is None:
        raise ValueError("the verdict is unknown (separable=None): there is no witness "
                         "or certificate to check; rerun check_separable with a longer "
                         "timeout_s.")
    if verdict.separable not in (True, False):
        raise CertificateError(f"separable={verdict.separable!r} must be True or False.")
    signs = labels_pm1(y)
    if hasattr(X, "tocsr") and hasattr(X, "shape"):
        rows, scales = _sparse_rows(X, intercept=bool(verdict.intercept))
        d = X.shape[1] + bool(verdict.intercept)
    else:
        rows, scales = exact_rows(X, intercept=bool(verdict.intercept))
        d = len(rows[0])
    if len(rows) != len(signs):
        raise ValueError(f"X has {len(rows)} samples but y has {len(signs)}.")
    aug = ", 1]" if verdict.intercept else "]"
    if verdict.separable:
        _check_witness(rows, scales, signs, verdict.witness, aug, d)
    else:
        _check_gordan(rows, scales, signs, verdict.certificate, aug, d)
    return True


def _dot(row, w):
    """Exact ``row . w`` of integer rows: a dense row (list), or a sparse one
    (``(columns, values)``, the stored entries only)."""
    if isinstance(row, tuple):
        cols, vals = row
        return sum(map(operator.mul, vals, map(w.__getitem__, cols)))
    return sum(map(operator.mul, row, w))


def _check_witness(rows, scales, signs, witness, aug, d):
    if isinstance(witness, (str, bytes, dict)) or not hasattr(witness, "__len__") \
            or len(witness) != d:
        size = len(witness) if isinstance(witness, (list, tuple)) else "no"
        raise CertificateError(f"the witness has {size} entries, expected {d} (features"
                               f"{' + intercept' if aug != ']' else ''}).")
    w = [_number(v, "the witness") for v in witness]
    den = math.lcm(*(v.denominator for v in w))
    wi = [v.numerator * (den // v.denominator) for v in w]
    for i, r in enumerate(rows):
        s = signs[i] * _dot(r, wi)
        if s <= 0:
            raise CertificateError(f"the witness fails on example {i}: y * w . [x{aug} = "
                                   f"{Fraction(s, den) * scales[i]}, not > 0.")


def _check_gordan(rows, scales, signs, certificate, aug, d):
    if not certificate:
        raise CertificateError("the certificate is empty; it needs at least one "
                               "positive weight.")
    coef = {}
    for i, lam in certificate.items():
        if isinstance(i, bool) or not isinstance(i, (numbers.Integral, str)) or \
                not str(i).lstrip("-").isdigit():
            raise CertificateError(f"the certificate names example {i!r}, which is not "
                                   "an index.")
        i, lam = int(i), _number(lam, "a certificate weight")
        if not 0 <= i < len(rows):
            raise CertificateError(f"the certificate names example {i}, but there are "
                                   f"{len(rows)} examples.")
        if i in coef:
            raise CertificateError(f"the certificate names example {i} twice.")
        if lam <= 0:
            raise CertificateError(f"the certificate's weight of example {i} is {lam}; "
                                   "every weight must be > 0.")
        coef[i] = lam * scales[i] * signs[i]
    den = math.lcm(*(c.denominator for c in coef.values()))
    if isinstance(rows[0], tuple):  # sparse: only the columns the rows store, so the
        sums: dict[int, int] = {}   # work is the rows' entries, whatever d says
        for i, c in coef.items():
            ci = c.numerator * (den // c.denominator)
            for j, v in zip(*rows[i]):
                sums[j] = sums.get(j, 0) + ci * v
        total = sorted((j, t) for j, t in sums.items() if t != 0)
    else:
        dense = [0] * d
        for i, c in coef.items():
            ci = c.numerator * (den // c.denominator)
            dense = [t + ci * v for t, v in zip(dense, rows[i])]
        total = [(j, t) for j, t in enumerate(dense) if t != 0]
    if total:
        j, t = total[0]
        raise CertificateError(f"the certificate does not cancel: coordinate {j} of "
                               f"sum lambda_i y_i [x_i{aug} is {Fraction(t, den)}, not 0.")


# --------------------------------------------------------------------------------------
# reading the data exactly


def _number(v, where):
    """One number, exactly, as a Fraction; bools, NaN, inf and non-numbers refused."""
    if isinstance(v, Fraction):
        return v
    if isinstance(v, bool) or type(v).__name__ in ("bool", "bool_"):  # NumPy bools too
        raise ValueError(f"{where} has a boolean {v!r}; pass 0/1 as numbers.")
    if isinstance(v, numbers.Integral):
        return Fraction(int(v))
    if isinstance(v, str):
        e = _EXPONENT.search(v)
        if len(v) > MAX_NUMBER_CHARS or (e and abs(int(e.group(1))) > MAX_EXPONENT):
            raise ValueError(f"{where} has a number too large to expand ({len(v)} "
                             f"characters, exponent {e.group(1) if e else 'none'}); "
                             f"the checker reads at most {MAX_NUMBER_CHARS} characters "
                             f"and |exponent| <= {MAX_EXPONENT}.")
        try:
            return Fraction(v.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{where} has {v!r}, which is not a number (use integers, "
                             "fractions like '3/4' or decimals like '0.25').") from None
    try:  # float, numpy floats of every precision, Decimal: exact ratios
        return Fraction(*v.as_integer_ratio())
    except (ValueError, OverflowError):
        raise ValueError(f"{where} has {v!r}; only finite numbers can be checked.") \
            from None
    except (AttributeError, TypeError):
        raise ValueError(f"{where} has {v!r} of type {type(v).__name__}, which is not a "
                         "number.") from None


def _plain(data):
    """Array-likes (NumPy, pandas) as nested Python lists, without importing them."""
    if hasattr(data, "to_numpy"):
        data = data.to_numpy()
    if hasattr(data, "tocsr") and hasattr(data, "toarray"):  # scipy.sparse: written out
        data = data.toarray()
    if hasattr(data, "tolist"):
        data = data.tolist()
    return data


def exact_rows(X: Any, *, intercept: bool) -> tuple[list[list[int]], list[Fraction]]:
    """Exact integer rows of ``[X, 1]`` (or ``X``) and their positive scales.

    Returns ``(rows, scales)`` with ``[x_i, 1] == rows[i] * scales[i]`` exactly:
    ``rows[i]`` a list of Python ints, ``scales[i]`` a positive Fraction.

    >>> exact_rows([["1/2", 0.25]], intercept=True)
    ([[2, 1, 4]], [Fraction(1, 4)])
    """
    # a 2-D NumPy integer array's tolist() holds rows of Python ints: nothing to scale
    ints = getattr(getattr(X, "dtype", None), "kind", None) in ("i", "u") and \
        getattr(X, "ndim", None) == 2
    X = _plain(X)
    if isinstance(X, (str, bytes)) or not hasattr(X, "__len__") or not len(X):
        raise ValueError("X must be a non-empty 2-D array-like (n_samples, n_features).")
    rows, scales, width = [], [], None
    for i, row in enumerate(X):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise ValueError(f"X must be 2-D: row {i} is {row!r}, not a sequence.")
        if width is None:
            width = len(row)
            if width == 0:
                raise ValueError("X has no features; at least one is needed.")
        elif len(row) != width:
            raise ValueError(f"X is ragged: row {i} has {len(row)} entries, row 0 has "
                             f"{width}.")
        nums, den = (row, 1) if ints else _scaled(row, i, range(width))
        rows.append(nums + [den] if intercept else nums)
        scales.append(_unit(den))
    return rows, scales


def _sparse_rows(X, *, intercept):
    """Exact integer rows of a sparse ``[X, 1]`` as ``(columns, values)`` pairs of
    lists (the non-zero entries in increasing column order; a repeated entry adds up,
    exactly), with their positive scales, as in :func:`exact_rows`."""
    n, d, ptr, cols, vals = _csr_lists(X)
    rows, scales = [], []
    for c, nums, den in _sparse_entries(n, ptr, cols, vals):
        rows.append((c + [d], nums + [den]) if intercept else (c, nums))
        scales.append(_unit(den))
    return rows, scales


def _csr_lists(X):
    """``(n, d, indptr, indices, values)`` of a sparse matrix, as Python lists: a
    :class:`SparseData`, or a scipy.sparse matrix or array (through its ``tocsr()``)."""
    A = X.tocsr()
    n, d = A.shape
    if n == 0 or d == 0:
        raise ValueError(f"X is empty (shape {tuple(A.shape)}); at least one sample "
                         "with one feature is needed.")
    if isinstance(A, SparseData):
        return n, d, A.indptr, A.indices, A.values
    return n, d, A.indptr.tolist(), A.indices.tolist(), A.data.tolist()


def _increasing(c):
    """True when the list ``c`` is strictly increasing."""
    return all(map(operator.lt, c, islice(c, 1, None)))


def _in_column_order(i, c, v):
    """Row ``i``'s stored entries (columns ``c``, values ``v``) in increasing column
    order, an entry stored twice added up exactly (as Fractions)."""
    entries: dict[int, Any] = {}
    for j, q in zip(c, v):
        entries[j] = entries.get(j, 0) + _number(q, f"X[{i}, {j}]")
    c = sorted(entries)
    return c, [entries[j] for j in c]


def _sparse_entries(n, ptr, cols, vals):
    """Row by row, ``(columns, nums, den)``: the row's non-zero entries in increasing
    column order, exactly ``nums[k] / den`` (Python ints; entries stored twice added
    up exactly, stored zeros dropped). One row at a time: nothing dense is made."""
    for i in range(n):
        c, v = cols[ptr[i]:ptr[i + 1]], vals[ptr[i]:ptr[i + 1]]
        if not _increasing(c):
            c, v = _in_column_order(i, c, v)
        nums, den = _scaled(v, i, c)
        if 0 in nums:
            c, nums = list(compress(c, nums)), list(compress(nums, nums))
        yield c, nums, den


def _scaled(values, i, columns):
    """``(nums, den)``: Python ints and one positive int with ``values[k] == nums[k] /
    den`` exactly; ``den`` is the least common denominator of the row (``values`` sit
    in row ``i`` at ``columns``, for the error messages).

    >>> _scaled([0.5, 3, "1/3"], 0, range(3))
    ([3, 18, 2], 6)
    """
    kinds = set(map(type, values))
    if kinds <= {int}:  # integers (bool is its own type): nothing to scale
        return list(values), 1
    if kinds == {float} and all(map(float.is_integer, values)):  # integer-valued floats
        return list(map(int, values)), 1
    if kinds == {float} and all(map(math.isfinite, values)):
        # finite Python floats: their denominators are powers of two, so the largest
        # is the least common multiple
        nums, dens = zip(*map(float.as_integer_ratio, values))
        den = max(dens)
    else:
        nums, dens = zip(*((q.numerator, q.denominator) for q in
                           (_number(v, f"X[{i}, {j}]") for j, v in zip(columns, values))))
        den = math.lcm(*dens)
    if den == 1:
        return list(nums), 1
    return list(map(operator.mul, nums, map(operator.floordiv, repeat(den), dens))), den


@functools.lru_cache(maxsize=4096)
def _unit(den):
    """``Fraction(1, den)``, made once per denominator (most rows share a few)."""
    return Fraction(1, den)


def labels_pm1(y: Any) -> list[int]:
    """Labels as a list of -1/+1 ints, by markone's rule.

    >>> labels_pm1(["cat", "dog", "cat"]), labels_pm1([1, -1]), labels_pm1([0, 0])
    ([-1, 1, -1], [1, -1], [1, 1])
    """
    y = _plain(y)
    if isinstance(y, (str, bytes)) or not hasattr(y, "__len__") or not len(y):
        raise ValueError("y must be a non-empty 1-D sequence of labels.")
    if all(type(v) in (int, float) and v in (-1, 1) for v in y):
        return [int(v) for v in y]
    try:
        classes = sorted(set(y))
    except TypeError:
        raise ValueError("y has labels that cannot be compared (mixed types or nested "
                         "sequences); give two classes of one type.") from None
    if len(classes) > 2:
        raise ValueError(f"y has {len(classes)} classes {classes[:10]}, but separability "
                         "is about two; map them to two classes first.")
    return [1 if len(classes) == 1 or v == classes[1] else -1 for v in y]


# --------------------------------------------------------------------------------------
# certificate files


#: Certificates written before they named their data (no ``data_sha256``).
_OLD_FORMATS = ("markone.verify.separability/1",)

#: Limits on one number in a certificate file: characters, and the decimal exponent
#: (``1e-400`` is fine; ``1e999999999`` would take the checker hours to expand).
MAX_NUMBER_CHARS = 100_000
MAX_EXPONENT = 100_000

_HEX64 = re.compile(r"[0-9a-f]{64}")
_EXPONENT = re.compile(r"[eE]([+-]?\d+)\s*$")


class CertificateUnreadable(CertificateError):
    """The file cannot be read as a certificate: not JSON (e.g. truncated), not
    markone's format, a required field missing or of the wrong type, a value that is
    not a finite number. ``markone verify check`` exits 2 on it (1 is for proofs that
    fail or data that do not match their hashes)."""


@dataclasses.dataclass(frozen=True)
class Claim:
    """What a certificate file claims: the fields :func:`check_certificate` reads,
    plus the whole document (``fields``) for callers that show or bind more of it.
    ``source_checked`` says whether the source file was found (``source_file``) and
    its hash compared (by :func:`check_certificate_file`)."""

    separable: object
    intercept: bool
    witness: object
    certificate: object
    fields: dict
    source_checked: bool = False
    source_file: object = None

    @property
    def data_version(self) -> int:
        """The version of :func:`data_sha256` that names this file's data."""
        return _FORMATS[self.fields["format"]]


@_gc_paused
def data_sha256(X: Any, y: Any, *, version: int = 2) -> str:
    """The SHA-256 that names labelled data exactly: the same numbers and labels give
    the same hash, however they are written (``0.5``, ``"1/2"``, ``Fraction(1, 2)``)
    and however they are stored (a dense array, a scipy.sparse matrix, a
    :class:`SparseData`).

    The hashed text (``version=2``, format ``/3`` certificates) is the line
    ``markone-data/2``, then ``n d``, then one line per example: the columns of its
    non-zero entries in increasing order, separated by spaces, a ``:``, and those
    entries as reduced fractions ``p/q`` (or integers), separated by spaces (an
    example of zeros only is the line ``:``); then the labels as ``+1``/``-1``
    (markone's label rule). Every line ends in a newline, and the text is UTF-8.
    Its length, and the time to hash it, grow with the non-zero entries only.

    ``version=1`` is the hash of format ``/2`` certificates: ``markone-data/1``, then
    ``n d``, then every entry of every example written out, zeros included.

    >>> data_sha256([[0.5]], ["b"]) == data_sha256([["1/2"]], ["b"]) != data_sha256([[0.5]], [-1])
    True
    >>> import scipy.sparse as sp
    >>> data_sha256(sp.csr_array([[0.0, 0.5]]), [1]) == data_sha256([[0, "1/2"]], [1])
    True
    >>> import hashlib
    >>> data_sha256([[0, "1/2", 3], [0, 0, 0]], [1, -1]) == hashlib.sha256(
    ...     b"markone-data/2\\n2 3\\n1 2:1/2 3\\n:\\n+1 -1\\n").hexdigest()
    True
    """
    if version not in (1, 2):
        raise ValueError(f"version={version!r}; the data hashes are versions 1 and 2.")
    sparse = hasattr(X, "tocsr") and hasattr(X, "shape")
    if sparse:
        n, d, ptr, cols, vals = _csr_lists(X)
        rows: Any = _sparse_entries(n, ptr, cols, vals)
    else:
        dense, scales = exact_rows(X, intercept=False)
        n, d = len(dense), len(dense[0])
        rows = ((list(compress(range(d), r)), list(compress(r, r)), sc.denominator)
                for r, sc in zip(dense, scales))
    signs = labels_pm1(y)
    if n != len(signs):
        raise ValueError(f"X has {n} samples but y has {len(signs)}.")
    h = hashlib.sha256(f"markone-data/{version}\n{n} {d}\n".encode())
    for c, nums, den in rows:
        if version == 2:
            h.update(f"{' '.join(map(str, c))}:{_fractions_text(nums, den)}\n".encode())
        else:  # every entry written out, zeros included
            full = [0] * d
            for j, v in zip(c, nums):
                full[j] = v
            h.update((_fractions_text(full, den) + "\n").encode())
    h.update((" ".join("+1" if t > 0 else "-1" for t in signs) + "\n").encode())
    return h.hexdigest()


def _fractions_text(nums, den):
    """The numbers ``nums[j] / den`` as ``str(Fraction)`` writes them (reduced ``p/q``,
    or ``p``), separated by spaces.

    >>> _fractions_text([3, -2, 0, 6], 6)
    '1/2 -1/3 0 1'
    """
    if den == 1:
        return " ".join(map(str, nums))
    out = []
    for v in nums:
        g = math.gcd(v, den)
        out.append(str(v // g) if g == den else f"{v // g}/{den // g}")
    return " ".join(out)


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes (hex)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def certificate_document(X: Any, y: Any, verdict: Any, *,
                         source: str | os.PathLike[str] | dict[str, Any] | None = None,
                         layout: str | None = None) -> dict[str, Any]:
    """The certificate file's content (a JSON-ready dict) for a decided ``verdict``.

    The data are embedded exactly (ints and float64 as JSON numbers, anything else,
    a longdouble's extra bits included, as an exact ``"p/q"`` string) and named by
    :func:`data_sha256`; ``source`` is a path (its SHA-256 is recorded, for
    :func:`check_certificate_file` to compare when the file is present) or a dict
    (e.g. ``{"builtin": "xor"}``).

    ``layout`` is how the data are stored: ``"dense"`` (``data.X``, a list of rows) or
    ``"csr"`` (``data.layout``, ``shape``, ``indptr``, ``indices``, ``values``: the
    non-zero entries only, as :class:`SparseData`); by default ``"csr"`` for a sparse
    ``X`` (scipy.sparse or :class:`SparseData`), which is then never made dense (time
    and memory O(n + nnz)), and ``"dense"`` otherwise. The hash is the same either way.
    Write the document with :func:`certificate_json`.

    >>> from types import SimpleNamespace as V
    >>> doc = certificate_document([[0], [1]], [0, 1], V(separable=True, intercept=True,
    ...     witness=(2, -1), certificate=None, method="user", message=""))
    >>> doc["format"], doc["witness"], doc["data_sha256"] == data_sha256([[0], [1]], [0, 1])
    ('markone.verify.separability/3', ['2', '-1'], True)
    >>> sp = certificate_document([[0], [1]], [0, 1], V(separable=True, intercept=True,
    ...     witness=(2, -1), certificate=None), layout="csr")
    >>> sp["data"], sp["data_sha256"] == doc["data_sha256"]
    ({'layout': 'csr', 'shape': [2, 1], 'indptr': [0, 0, 1], 'indices': [0], 'values': [1], 'y': [0, 1]}, True)
    """
    if verdict.separable not in (True, False):
        raise ValueError("the verdict is unknown (separable=None): there is no proof "
                         "to write.")
    sparse = hasattr(X, "tocsr") and hasattr(X, "shape")
    if layout is None:
        layout = "csr" if sparse else "dense"
    if layout not in ("dense", "csr"):
        raise ValueError(f"layout={layout!r} must be 'dense' or 'csr'.")
    y = [_json_label(v) for v in _plain(y)]
    data: dict[str, Any]
    if layout == "dense":
        rows = [row if _plain_numbers(row) else [_json_number(v) for v in row]
                for row in _plain(X)]
        data, named = {"X": rows, "y": y}, rows
    else:
        named = _json_csr(X if sparse else _dense_to_csr(X))
        data = {"layout": "csr", "shape": list(named.shape), "indptr": named.indptr,
                "indices": named.indices, "values": named.values, "y": y}
    if isinstance(source, (str, os.PathLike)):
        source = {"path": str(source), "sha256": file_sha256(source)}
    doc = {
        "format": CERTIFICATE_FORMAT,
        "data": data,
        "data_sha256": data_sha256(named, y),
        "intercept": bool(verdict.intercept),
        "separable": bool(verdict.separable),
        "witness": None if not verdict.separable else
        [str(_number(v, "the witness")) for v in verdict.witness],
        "certificate": None if verdict.separable else
        {str(int(i)): str(_number(v, "a certificate weight"))
         for i, v in verdict.certificate.items()},
        "method": str(getattr(verdict, "method", "")),
        "message": str(getattr(verdict, "message", "")),
    }
    if source is not None:
        doc["source"] = dict(source)
    return doc


def _json_csr(X):
    """A sparse ``X`` as a canonical :class:`SparseData` of JSON-ready exact values
    (see :func:`_json_number`), made row by row from its stored entries."""
    n, d, ptr, cols, vals = _csr_lists(X)
    if isinstance(X, SparseData):  # canonical already; only the values may need words
        values = vals if _plain_numbers(vals) else [_json_number(v) for v in vals]
        return SparseData((n, d), ptr, cols, values)
    if getattr(X, "has_canonical_format", False) and 0 not in vals \
            and _plain_numbers(vals):  # sorted, no entry twice, no zero: as stored
        if set(map(type, vals)) == {float} and all(map(float.is_integer, vals)):
            vals = list(map(int, vals))  # the same numbers, written shorter
        return SparseData((n, d), ptr, cols, vals)
    indptr, indices, values = [0], [], []
    for i in range(n):
        c, v = cols[ptr[i]:ptr[i + 1]], vals[ptr[i]:ptr[i + 1]]
        if not _increasing(c):
            c, v = _in_column_order(i, c, v)
        for j, q in zip(c, v):
            if _number(q, f"X[{i}, {j}]") != 0:
                indices.append(j)
                values.append(_json_number(q))
        indptr.append(len(indices))
    return SparseData((n, d), indptr, indices, values)


def _dense_to_csr(X):
    """A dense ``X`` (nested lists, NumPy) as a :class:`SparseData` of its non-zero
    entries, exactly."""
    rows = _plain(X)
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__len__") or not len(rows):
        raise ValueError("X must be a non-empty 2-D array-like (n_samples, n_features).")
    d = len(rows[0]) if hasattr(rows[0], "__len__") else 0
    indptr, indices, values = [0], [], []
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != d:
            raise ValueError(f"X must be 2-D with rows of one length: row {i} is {row!r}.")
        for j, v in enumerate(row):
            if _number(v, f"X[{i}, {j}]") != 0:
                indices.append(j)
                values.append(_json_number(v))
        indptr.append(len(indices))
    return SparseData((len(rows), d), indptr, indices, values)


def certificate_json(doc: dict[str, Any]) -> str:
    """The text of a certificate file: indented, key-sorted JSON, except that the
    data's long lists are written compactly (a row of ``X`` per line; ``indptr``,
    ``indices``, ``values`` and ``y`` one line each), so a file of many numbers stays
    about as large as the numbers.

    >>> print(certificate_json({"format": "f", "data": {"X": [[0, 1], [2, 3]], "y": [1, 2]}}))
    {
      "data": {
        "X": [
          [0, 1],
          [2, 3]
        ],
        "y": [1, 2]
      },
      "format": "f"
    }
    <BLANKLINE>
    """
    def compact(v):
        return json.dumps(v, allow_nan=False)

    def indented(v):  # as json.dumps(doc, indent=2) writes a top-level value
        return json.dumps(v, indent=2, sort_keys=True, allow_nan=False) \
            .replace("\n", "\n  ")

    parts = []
    for key in sorted(doc):
        value = doc[key]
        if key == "data" and isinstance(value, dict):
            items = []
            for k in sorted(value):
                v = value[k]
                if k == "X" and isinstance(v, list) and v:
                    text = "[\n      " + ",\n      ".join(map(compact, v)) + "\n    ]"
                else:
                    text = compact(v)
                items.append(f"    {compact(k)}: {text}")
            text = "{\n" + ",\n".join(items) + "\n  }"
        else:
            text = indented(value)
        parts.append(f"  {compact(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _plain_numbers(row):
    """True when ``row`` holds only ints or only finite floats (JSON numbers as
    they are); then :func:`_json_number` would return each entry unchanged."""
    kinds = set(map(type, row))
    return kinds <= {int} or (kinds == {float} and all(map(math.isfinite, row)))


def _json_number(v):
    """One data entry for JSON, exactly: strings as given, ints, floats that are
    float64 values as JSON numbers, anything else as its exact ``"p/q"``."""
    q = _number(v, "X")  # exact; refuses NaN, inf, booleans and non-numbers
    if isinstance(v, str):
        return v.strip()
    if isinstance(v, numbers.Integral):
        return int(v)
    try:
        f = float(q)
    except OverflowError:
        return str(q)
    return f if Fraction(f) == q else str(q)


def _json_label(v):
    if isinstance(v, bool) or type(v).__name__ in ("bool", "bool_"):
        raise ValueError(f"y has a boolean label {v!r}; use 0/1 or names.")
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        f = float(v)
        if not math.isfinite(f) or f != v:
            raise ValueError(f"y has the label {v!r}, which JSON cannot hold exactly.")
        return f
    if isinstance(v, str):
        return v
    raise ValueError(f"y has the label {v!r} of type {type(v).__name__}; labels are "
                     "numbers or strings.")


@_gc_paused
def read_certificate(path: str | os.PathLike[str]) -> tuple[Any, Any, Claim]:
    """Read a certificate file; return ``(X, y, claim)`` (``claim`` a :class:`Claim`).

    Validates the schema: the format tag, every required field and its type (the
    string ``"false"`` is not a boolean), every number finite and of bounded size.

    Raises
    ------
    CertificateUnreadable
        When the file is not JSON (e.g. truncated), not a markone certificate, or a
        field is missing or malformed; the message names the field.
    """
    how = "write it again with `markone verify separable FILE --certificate OUT.json`"
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CertificateUnreadable(f"{path} is not valid JSON ({exc}); is it "
                                    f"truncated? {how[0].upper()}{how[1:]}.") from None
    except UnicodeDecodeError:
        raise CertificateUnreadable(f"{path} is not a text file; {how}.") from None
    except (ValueError, RecursionError) as exc:  # 4300+ digit ints, absurd nesting
        raise CertificateUnreadable(f"{path} cannot be read: {str(exc)[:120]}.") \
            from None
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if fmt in _OLD_FORMATS:
        raise CertificateUnreadable(f"{path} is in the old format {fmt!r}, which does not "
                                    f"name its data (no data_sha256); {how}.")
    if fmt not in _FORMATS:
        raise CertificateUnreadable(f"{path} is not a markone certificate (expected "
                                    f"format {CERTIFICATE_FORMAT!r}); {how}.")
    X = _validate(doc, str(path))
    claim = Claim(doc["separable"], doc["intercept"], doc["witness"], doc["certificate"],
                  doc)
    return X, doc["data"]["y"], claim


def _validate(doc, path):
    """Check every field's presence and type; raise CertificateUnreadable naming it.
    Return the data matrix: the rows (dense layout) or a :class:`SparseData`."""
    def bad(field, what):
        raise CertificateUnreadable(f"{path}: {field} {what}.")

    for key in ("data", "data_sha256", "intercept", "separable", "witness",
                "certificate"):
        if key not in doc:
            raise CertificateUnreadable(f"{path} misses the field {key!r}.")
    data = doc["data"]
    if not isinstance(data, dict) or "y" not in data:
        bad("data", "must be an object with X and y (or a sparse layout and y)")
    layout = data.get("layout", "dense")
    if layout == "csr" and doc["format"] == CERTIFICATE_FORMAT:
        missing = [k for k in ("shape", "indptr", "indices", "values") if k not in data]
        if missing:
            bad("data", f"has layout 'csr' but no {', '.join(missing)}")
        try:
            X: Any = SparseData(data["shape"], data["indptr"], data["indices"],
                                data["values"])
        except ValueError as exc:
            raise CertificateUnreadable(f"{path}: data.{exc}") from None
        n = X.shape[0]
    elif layout == "dense" and "X" in data:
        X = data["X"]
        if not isinstance(X, list) or not X or not all(isinstance(r, list) for r in X):
            bad("data.X", "must be a non-empty list of rows")
        d = len(X[0])
        if d == 0 or any(len(r) != d for r in X):
            bad("data.X", "must have rows of one non-zero length")
        for i, r in enumerate(X):
            if _plain_numbers(r):
                continue  # JSON integers or finite floats: nothing to refuse
            for j, v in enumerate(r):
                _file_number(v, f"data.X[{i}][{j}]", path)
        n = len(X)
    else:
        bad("data", f"has layout {layout!r} and keys {sorted(data)}; it must hold X "
            f"(dense) or, in format {CERTIFICATE_FORMAT!r}, layout 'csr' with shape, "
            "indptr, indices and values")
    y = data["y"]
    if not isinstance(y, list) or len(y) != n:
        bad("data.y", f"must be a list of {n} labels (one per row of X)")
    for i, v in enumerate(y):
        if isinstance(v, bool) or v is None or isinstance(v, (list, dict)) or \
                (isinstance(v, float) and not math.isfinite(v)):
            bad(f"data.y[{i}]", f"is {v!r}; labels are numbers or strings")
    try:
        labels_pm1(y)
    except ValueError as exc:
        bad("data.y", f"is not two classes ({exc})")
    if not isinstance(doc["data_sha256"], str) or not _HEX64.fullmatch(doc["data_sha256"]):
        bad("data_sha256", "must be 64 lowercase hex digits")
    for key in ("intercept", "separable"):
        if not isinstance(doc[key], bool):
            bad(key, f"is {doc[key]!r}; it must be true or false (a JSON boolean)")
    if doc["separable"]:
        if not isinstance(doc["witness"], list):
            bad("witness", "must be a list of numbers when separable is true")
        for j, v in enumerate(doc["witness"]):
            _file_number(v, f"witness[{j}]", path)
        if doc["certificate"] is not None:
            bad("certificate", "must be null when separable is true")
    else:
        cert = doc["certificate"]
        if not isinstance(cert, dict) or not cert:
            bad("certificate", "must map example indices to weights when separable is "
                "false")
        for i, v in cert.items():
            if not i.isdigit():
                bad("certificate", f"names {i!r}, which is not an example index")
            _file_number(v, f"certificate[{i!r}]", path)
        if doc["witness"] is not None:
            bad("witness", "must be null when separable is false")
    src = doc.get("source")
    if src is not None:
        if not isinstance(src, dict):
            bad("source", "must be an object")
        if "path" in src and not isinstance(src["path"], str):
            bad("source.path", "must be a string")
        if "path" in src and not (isinstance(src.get("sha256"), str)
                                  and _HEX64.fullmatch(src["sha256"])):
            bad("source.sha256", "must be 64 lowercase hex digits")
    for key in ("method", "message"):
        if key in doc and not isinstance(doc[key], str):
            bad(key, "must be a string")
    return X


def _file_number(v, where, path):
    try:
        if isinstance(v, (list, dict)) or v is None:
            raise ValueError(f"{where} is {v!r}, not a number")
        _number(v, where)
    except ValueError as exc:
        raise CertificateUnreadable(f"{path}: {exc}") from None


def check_certificate_file(path: str | os.PathLike[str]) -> Claim:
    """Check the certificate file at ``path``: its schema, its data, its proof.

    1. the schema (:func:`read_certificate`);
    2. the embedded data's hash is recomputed (:func:`data_sha256`, the version of
       the file's format) and must equal ``data_sha256``: edited data are caught even
       when the proof still holds on them;
    3. when ``source.path`` names a file that is present (as written, or next to the
       certificate), its SHA-256 must equal ``source.sha256``;
    4. the proof, on the embedded data (:func:`check_certificate`).

    Returns its :class:`Claim` (``source_checked`` True when step 3 compared a file).

    Raises
    ------
    CertificateUnreadable
        When the file cannot be read as a certificate (``verify check`` exit 2).
    CertificateError
        When a hash does not match or the proof fails (``verify check`` exit 1).
    """
    X, y, claim = read_certificate(path)
    got = data_sha256(X, y, version=claim.data_version)
    if got != claim.fields["data_sha256"]:
        raise CertificateError(f"{path}: the embedded data do not match their hash "
                               f"(data_sha256 {claim.fields['data_sha256'][:12]}..., the "
                               f"data hash to {got[:12]}...): the data or the labels were "
                               "edited after the certificate was written.")
    checked, found = False, None
    src = claim.fields.get("source") or {}
    if "path" in src:
        found = _find_source(src["path"], path)
        if found is not None:
            if file_sha256(found) != src["sha256"]:
                raise CertificateError(f"{path}: the source file {found} has changed since "
                                       "the certificate was written (its SHA-256 differs "
                                       "from source.sha256).")
            checked = True
    check_certificate(X, y, claim)
    return dataclasses.replace(claim, source_checked=checked, source_file=found)


def _find_source(name, cert_path):
    """The source file as written, or next to the certificate; None when absent."""
    import os

    for cand in (name, os.path.join(os.path.dirname(os.fspath(cert_path)), name)):
        if os.path.isfile(cand):
            return cand
    return None
