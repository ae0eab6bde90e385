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
from itertools import repeat
from fractions import Fraction
from typing import Any, Callable, TypeVar, cast

__all__ = ["CertificateError", "CertificateUnreadable", "check_certificate",
           "check_certificate_file", "read_certificate", "certificate_document",
           "data_sha256", "file_sha256", "Claim", "exact_rows", "labels_pm1",
           "CERTIFICATE_FORMAT"]

#: The ``format`` tag of certificate files (``markone verify separable --certificate``).
CERTIFICATE_FORMAT = "markone.verify.separability/2"


class CertificateError(ValueError):
    """A witness or certificate that does not prove what it claims (says why)."""


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
    total = [0] * d
    for i, c in coef.items():
        ci = c.numerator * (den // c.denominator)
        if isinstance(rows[i], tuple):
            for j, v in zip(*rows[i]):
                total[j] += ci * v
        else:
            total = [t + ci * v for t, v in zip(total, rows[i])]
    for j, t in enumerate(total):
        if t != 0:
            raise CertificateError(f"the certificate does not cancel: coordinate {j} of "
                                   f"sum lambda_i y_i [x_i{aug} is {Fraction(t, den)}, "
                                   "not 0.")


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
    lists (the stored entries; a repeated entry adds up, exactly), with their
    positive scales, as in :func:`exact_rows`."""
    A = X.tocsr()
    n, d = A.shape
    if n == 0 or d == 0:
        raise ValueError(f"X is empty (shape {A.shape}); at least one sample with one "
                         "feature is needed.")
    ptr, cols, vals = A.indptr.tolist(), A.indices.tolist(), A.data.tolist()
    rows, scales = [], []
    for i in range(n):
        c, v = cols[ptr[i]:ptr[i + 1]], vals[ptr[i]:ptr[i + 1]]
        if len(set(c)) < len(c):  # repeated entries: add them up exactly first
            entries: dict[int, Any] = {}
            for j, q in zip(c, v):
                entries[j] = entries.get(j, 0) + _number(q, f"X[{i}, {j}]")
            c, v = list(entries), list(entries.values())
        nums, den = _scaled(v, i, c)
        rows.append((c + [d], nums + [den]) if intercept else (c, nums))
        scales.append(_unit(den))
    return rows, scales


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


@_gc_paused
def data_sha256(X: Any, y: Any) -> str:
    """The SHA-256 that names labelled data exactly: the same numbers and labels give
    the same hash, however they are written (``0.5``, ``"1/2"``, ``Fraction(1, 2)``).

    The hashed text is ``"markone-data/1"``, then ``n d``, then one line per example
    (its entries as reduced fractions ``p/q``, or integers, separated by spaces), then
    the labels as ``+1``/``-1`` (markone's label rule), each line ending in a newline;
    anyone can recompute it without markone.

    >>> data_sha256([[0.5]], ["b"]) == data_sha256([["1/2"]], ["b"]) != data_sha256([[0.5]], [-1])
    True
    >>> import scipy.sparse as sp
    >>> data_sha256(sp.csr_array([[0.0, 0.5]]), [1]) == data_sha256([[0, "1/2"]], [1])
    True
    """
    sparse = hasattr(X, "tocsr") and hasattr(X, "shape")
    rows, scales = (_sparse_rows if sparse else exact_rows)(X, intercept=False)
    d = X.shape[1] if sparse else len(rows[0])
    signs = labels_pm1(y)
    if len(rows) != len(signs):
        raise ValueError(f"X has {len(rows)} samples but y has {len(signs)}.")
    h = hashlib.sha256(f"markone-data/1\n{len(rows)} {d}\n".encode())
    for r, sc in zip(rows, scales):
        if sparse:  # the same text as the dense matrix gives: zeros written out
            full = [0] * d
            for j, v in zip(*r):
                full[j] = v
            r = full
        h.update((_fractions_text(r, sc.denominator) + "\n").encode())
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
                         source: str | os.PathLike[str] | dict[str, Any] | None = None
                         ) -> dict[str, Any]:
    """The certificate file's content (a JSON-ready dict) for a decided ``verdict``.

    The data are embedded exactly (ints and float64 as JSON numbers, anything else,
    a longdouble's extra bits included, as an exact ``"p/q"`` string) and named by
    :func:`data_sha256`; ``source`` is a path (its SHA-256 is recorded, for
    :func:`check_certificate_file` to compare when the file is present) or a dict
    (e.g. ``{"builtin": "xor"}``).

    >>> from types import SimpleNamespace as V
    >>> doc = certificate_document([[0], [1]], [0, 1], V(separable=True, intercept=True,
    ...     witness=(2, -1), certificate=None, method="user", message=""))
    >>> doc["format"], doc["witness"], doc["data_sha256"] == data_sha256([[0], [1]], [0, 1])
    ('markone.verify.separability/2', ['2', '-1'], True)
    """
    if verdict.separable not in (True, False):
        raise ValueError("the verdict is unknown (separable=None): there is no proof "
                         "to write.")
    X = [row if _plain_numbers(row) else [_json_number(v) for v in row]
         for row in _plain(X)]
    y = [_json_label(v) for v in _plain(y)]
    if isinstance(source, (str, os.PathLike)):
        source = {"path": str(source), "sha256": file_sha256(source)}
    doc = {
        "format": CERTIFICATE_FORMAT,
        "data": {"X": X, "y": y},
        "data_sha256": data_sha256(X, y),
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
    if fmt != CERTIFICATE_FORMAT:
        raise CertificateUnreadable(f"{path} is not a markone certificate (expected "
                                    f"format {CERTIFICATE_FORMAT!r}); {how}.")
    _validate(doc, str(path))
    claim = Claim(doc["separable"], doc["intercept"], doc["witness"], doc["certificate"],
                  doc)
    return doc["data"]["X"], doc["data"]["y"], claim


def _validate(doc, path):
    """Check every field's presence and type; raise CertificateUnreadable naming it."""
    def bad(field, what):
        raise CertificateUnreadable(f"{path}: {field} {what}.")

    for key in ("data", "data_sha256", "intercept", "separable", "witness",
                "certificate"):
        if key not in doc:
            raise CertificateUnreadable(f"{path} misses the field {key!r}.")
    data = doc["data"]
    if not isinstance(data, dict) or "X" not in data or "y" not in data:
        bad("data", "must be an object with X and y")
    X, y = data["X"], data["y"]
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
    if not isinstance(y, list) or len(y) != len(X):
        bad("data.y", f"must be a list of {len(X)} labels (one per row of X)")
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
    2. the embedded data's hash is recomputed (:func:`data_sha256`) and must equal
       ``data_sha256``: edited data are caught even when the proof still holds on them;
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
    got = data_sha256(X, y)
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
