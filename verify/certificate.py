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
are. Labels follow markone's rule: -1/+1 numbers pass through; any two other values
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
import json
import math
import numbers
import operator
from itertools import repeat
from fractions import Fraction

__all__ = ["CertificateError", "check_certificate", "check_certificate_file",
           "read_certificate", "Claim", "exact_rows", "labels_pm1", "CERTIFICATE_FORMAT"]

#: The ``format`` tag of certificate files (``markone verify separable --certificate``).
CERTIFICATE_FORMAT = "markone.verify.separability/1"


class CertificateError(ValueError):
    """A witness or certificate that does not prove what it claims (says why)."""


def check_certificate(X, y, verdict):
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
    rows, scales = exact_rows(X, intercept=bool(verdict.intercept))
    if len(rows) != len(signs):
        raise ValueError(f"X has {len(rows)} samples but y has {len(signs)}.")
    aug = ", 1]" if verdict.intercept else "]"
    if verdict.separable:
        _check_witness(rows, scales, signs, verdict.witness, aug)
    else:
        _check_gordan(rows, scales, signs, verdict.certificate, aug)
    return True


def _check_witness(rows, scales, signs, witness, aug):
    d = len(rows[0])
    if isinstance(witness, (str, bytes, dict)) or not hasattr(witness, "__len__") \
            or len(witness) != d:
        size = len(witness) if isinstance(witness, (list, tuple)) else "no"
        raise CertificateError(f"the witness has {size} entries, expected {d} (features"
                               f"{' + intercept' if aug != ']' else ''}).")
    w = [_number(v, "the witness") for v in witness]
    den = math.lcm(*(v.denominator for v in w))
    wi = [v.numerator * (den // v.denominator) for v in w]
    for i, r in enumerate(rows):
        s = signs[i] * sum(map(operator.mul, r, wi))
        if s <= 0:
            raise CertificateError(f"the witness fails on example {i}: y * w . [x{aug} = "
                                   f"{Fraction(s, den) * scales[i]}, not > 0.")


def _check_gordan(rows, scales, signs, certificate, aug):
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
    total = [0] * len(rows[0])
    for i, c in coef.items():
        ci = c.numerator * (den // c.denominator)
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
    if hasattr(data, "tolist"):
        data = data.tolist()
    return data


def exact_rows(X, *, intercept):
    """Exact integer rows of ``[X, 1]`` (or ``X``) and their positive scales.

    Returns ``(rows, scales)`` with ``[x_i, 1] == rows[i] * scales[i]`` exactly:
    ``rows[i]`` a list of Python ints, ``scales[i]`` a positive Fraction.

    >>> exact_rows([["1/2", 0.25]], intercept=True)
    ([[2, 1, 4]], [Fraction(1, 4)])
    """
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
        if set(map(type, row)) == {float} and all(map(math.isfinite, row)):
            # the common case, finite Python floats: their denominators are powers
            # of two, so the largest is the least common multiple
            nums, dens = zip(*map(float.as_integer_ratio, row))
            den = max(dens)
        else:
            nums, dens = zip(*((q.numerator, q.denominator) for q in
                               (_number(v, f"X[{i}, {j}]") for j, v in enumerate(row))))
            den = math.lcm(*dens)
        rows.append(list(map(operator.mul, nums, map(operator.floordiv, repeat(den), dens)))
                    + ([den] if intercept else []))
        scales.append(Fraction(1, den))
    return rows, scales


def labels_pm1(y):
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


@dataclasses.dataclass(frozen=True)
class Claim:
    """What a certificate file claims: the fields :func:`check_certificate` reads,
    plus the whole document (``fields``) for callers that show or bind more of it."""

    separable: object
    intercept: bool
    witness: object
    certificate: object
    fields: dict


def read_certificate(path):
    """Read a certificate file; return ``(X, y, claim)`` (``claim`` a :class:`Claim`).

    Raises :class:`CertificateError` when the file is not JSON (e.g. truncated), not a
    markone certificate, or misses a field.
    """
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CertificateError(f"{path} is not valid JSON ({exc}); is it truncated? "
                               "Write it again with `markone verify separable FILE "
                               "--certificate OUT.json`.") from None
    if not isinstance(doc, dict) or doc.get("format") != CERTIFICATE_FORMAT:
        raise CertificateError(f"{path} is not a markone certificate (expected format "
                               f"{CERTIFICATE_FORMAT!r}).")
    try:
        X, y = doc["data"]["X"], doc["data"]["y"]
        claim = Claim(doc["separable"], doc["intercept"], doc["witness"],
                      doc["certificate"], doc)
    except (KeyError, TypeError) as exc:
        raise CertificateError(f"{path} misses the field {exc}.") from None
    if not isinstance(claim.intercept, bool):
        raise CertificateError(f"{path}: intercept must be true or false.")
    if claim.certificate is not None and not isinstance(claim.certificate, dict):
        raise CertificateError(f"{path}: the certificate must map example indices to "
                               "weights.")
    return X, y, claim


def check_certificate_file(path):
    """Check the certificate file at ``path`` against the data it carries.

    Returns its :class:`Claim` when the proof holds; raises :class:`CertificateError`
    (or ValueError for invalid data) otherwise.
    """
    X, y, claim = read_certificate(path)
    check_certificate(X, y, claim)
    return claim
