"""The trusted kernel: does a separability proof hold on its data?

Every prover in :mod:`verify` only *proposes*; this module alone *decides*: it is the one
file a sceptic must read. It imports nothing but the Python standard library (a test
loads it on its own and counts its lines); certificate files are read outside it, but
number text by :func:`exact_number` here, on purpose (not markone's ``parse_number``).

The signed rows are ``z_i = y_i [x_i, 1]`` (without the 1 when ``intercept`` is False).
A **witness** ``w`` proves *separable* when ``w . z_i > 0`` for every ``i``; a
**certificate** ``{i: lambda_i}`` proves *not separable* when every ``lambda_i > 0`` and
``sum_i lambda_i z_i = 0`` (then ``sum_i lambda_i (w . z_i) = 0`` for every ``w``:
Gordan's theorem of the alternative). Every number is read exactly (:func:`number`).
"""

from __future__ import annotations

import math
import numbers
import operator
import re
from fractions import Fraction
from itertools import compress, islice, repeat
from typing import Any

__all__ = ["CertificateError", "check_certificate", "exact_rows", "sparse_rows",
           "labels_pm1", "exact_number", "number", "decimal_int", "plain", "csr_lists",
           "MAX_NUMBER_CHARS", "MAX_EXPONENT"]

#: The longest number string read, and its largest |exponent| ("1e999999999": hours).
MAX_NUMBER_CHARS, MAX_EXPONENT = 100_000, 100_000

_ONE, _D = Fraction(1), r"[0-9]+(?:_[0-9]+)*"  # digits, "_" between digit groups
_NUMBER = re.compile(rf"([+-]?)(?:({_D})/({_D})|(?=\.?[0-9])({_D})?(?:\.({_D})?)?"
                     rf"(?:[eE]([+-]?{_D}))?)", re.ASCII)  # p/q, or a decimal


class CertificateError(ValueError):
    """A witness or certificate that does not prove what it claims (says why)."""


def check_certificate(X: Any, y: Any, verdict: Any) -> bool:
    """Re-check a verdict's witness or certificate from scratch, in exact arithmetic.

    ``verdict`` has ``separable``, ``intercept``, ``witness``, ``certificate`` (e.g. a
    :class:`verify.SeparabilityVerdict`). True when the proof holds; else
    :class:`CertificateError` names what fails (the example, the coordinate, the weight).

    >>> from types import SimpleNamespace as V
    >>> check_certificate([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 0], V(  # XOR
    ...     separable=False, intercept=True, witness=None, certificate={0: 1, 1: 1, 2: 1, 3: 1}))
    True
    """
    if verdict.separable is None:
        raise ValueError("the verdict is unknown (separable=None): nothing to check; "
                         "rerun check_separable with a longer timeout_s.")
    if verdict.separable not in (True, False):
        raise CertificateError(f"separable={verdict.separable!r} must be True or False.")
    signs, intercept = labels_pm1(y), bool(verdict.intercept)
    sparse = hasattr(X, "tocsr") and hasattr(X, "shape")
    rows, scales = (sparse_rows if sparse else exact_rows)(X, intercept=intercept)
    if len(rows) != len(signs):
        raise ValueError(f"X has {len(rows)} samples but y has {len(signs)}.")
    aug = ", 1]" if intercept else "]"
    if verdict.separable:
        d = X.shape[1] + intercept if sparse else len(rows[0])
        _check_witness(rows, scales, signs, verdict.witness, aug, d)
    else:
        _check_gordan(rows, scales, signs, verdict.certificate, aug)
    return True


def _check_witness(rows, scales, signs, witness, aug, d):
    if isinstance(witness, (str, bytes, dict)) or not hasattr(witness, "__len__") \
            or len(witness) != d:
        size = len(witness) if isinstance(witness, (list, tuple)) else "no"
        raise CertificateError(f"the witness has {size} entries, expected {d} (features"
                               f"{' + intercept' if aug != ']' else ''}).")
    w = [number(v, "the witness") for v in witness]
    den = math.lcm(*(v.denominator for v in w))
    wi = [v.numerator * (den // v.denominator) for v in w]
    for i, r in enumerate(rows):  # a dense row of ints, or sparse (columns, values)
        s = signs[i] * (sum(map(operator.mul, r[1], map(wi.__getitem__, r[0])))
                        if isinstance(r, tuple) else sum(map(operator.mul, r, wi)))
        if s <= 0:
            raise CertificateError(f"the witness fails on example {i + 1} (X[{i}]): y * "
                                   f"w . [x{aug} = {_show(Fraction(s, den) * scales[i])}, "
                                   "not > 0.")


def _check_gordan(rows, scales, signs, certificate, aug):
    if not certificate:
        raise CertificateError("the certificate is empty; it needs a positive weight.")
    coef = {}
    for key, lam in certificate.items():
        i, lam = _index(key), number(lam, "a certificate weight")
        if not 0 <= i < len(rows):
            raise CertificateError(f"the certificate names the index {_show(i)}, but the "
                                   f"indices are 0..{len(rows) - 1}.")
        if i in coef:
            raise CertificateError(f"the certificate names the index {i} twice.")
        if lam <= 0:
            raise CertificateError(f"the certificate's weight lambda[{i}] is "
                                   f"{_show(lam)}; every weight must be > 0.")
        coef[i] = lam * scales[i] * signs[i]
    den = math.lcm(*(c.denominator for c in coef.values()))
    sums: dict[int, int] = {}  # the columns the rows store: sparse work is their entries
    for i, c in coef.items():
        ci, row = c.numerator * (den // c.denominator), rows[i]
        for j, v in (zip(*row) if isinstance(row, tuple) else enumerate(row)):
            sums[j] = sums.get(j, 0) + ci * v
    j, t = min(((j, t) for j, t in sums.items() if t), default=(0, 0))
    if t:
        raise CertificateError(f"the certificate does not cancel: coordinate {j + 1} "
                               f"of sum lambda_i y_i [x_i{aug} (index {j}) is "
                               f"{_show(Fraction(t, den))}, not 0.")


def _index(key):
    """An example index: an int, or a string of decimal digits (not True, not 1.5)."""
    if isinstance(key, numbers.Integral) and not isinstance(key, bool):
        return int(key)
    if isinstance(key, str) and re.fullmatch("[0-9]+", key, re.ASCII):
        return decimal_int(key)
    raise CertificateError(f"the certificate names {key!r:.60}, not an index (0, 1, 2...).")


def _show(v):
    """``v`` for a message (strings quoted), or its size when Python will not print it."""
    try:
        return repr(v) if isinstance(v, str) else str(v)
    except ValueError:  # an int of more than sys.get_int_max_str_digits() digits
        return "(a number of more than 4,300 digits)"


def decimal_int(digits: str) -> int:
    """The int of ASCII digits, however many (``int(str)`` stops at 640 to 4,300)."""
    if len(digits) <= 640:
        return int(digits)
    k = len(digits) // 2
    return decimal_int(digits[:-k]) * 10 ** k + decimal_int(digits[-k:])


def exact_number(text: str, where: str, max_number_chars: int = MAX_NUMBER_CHARS,
                 max_exponent: int = MAX_EXPONENT,
                 how: str = "pass it as an int or a Fraction instead") -> Fraction:
    """A number string's exact value: ``"3/4"``, ``"-0.1"``, ``"2e-5"`` (ASCII digits, ``_``
    between digit groups), at most ``max_number_chars`` long, ``|exponent| <=
    max_exponent``; else ValueError naming ``where`` (and the limit and ``how`` to raise
    it, ``{limit}`` its name). Python's 4,300-digit limit on ``int(str)`` does not apply.

    >>> exact_number("-1_000.5e-1", "x"), exact_number(" 3/6 ", "x")
    (Fraction(-2001, 20), Fraction(1, 2))
    """
    if len(text) > max_number_chars:
        raise ValueError(f"{where} has a number of {len(text):,} characters, over the "
                         f"limit of {max_number_chars:,} "
                         f"({how.format(limit='max_number_chars')}).")
    m = _NUMBER.fullmatch(text.strip())
    if m is None or (m[3] and not m[3].strip("_0")):
        raise ValueError(f"{where} has {text[:80]!r}, which is not a number (use "
                         "integers, fractions like '3/4' or decimals like '0.25').")
    sign = -1 if m[1] == "-" else 1
    num, den, whole, frac, exp = ((g or "").replace("_", "") for g in m.groups()[1:])
    if den:
        return Fraction(sign * decimal_int(num), decimal_int(den))
    e = exp.lstrip("+-").lstrip("0")
    if len(e) > 9 or (e and int(e) > max_exponent):
        raise ValueError(f"{where} has a number with the exponent {exp[:12]}"
                         f"{'...' * (len(exp) > 12)}, over the limit |exponent| <= "
                         f"{max_exponent:,} ({how.format(limit='max_exponent')}).")
    e10 = (-1 if exp.startswith("-") else 1) * int(e or "0") - len(frac)
    return sign * decimal_int(whole + frac) * Fraction(10) ** e10


def number(v: Any, where: str) -> Fraction:
    """One number exactly, as a Fraction: ints, Fractions, floats of any precision (their
    binary fractions), strings (:func:`exact_number`); bools, NaN, inf refused."""
    if isinstance(v, Fraction):
        return v
    if isinstance(v, bool) or type(v).__name__ in ("bool", "bool_"):  # NumPy bools too
        raise ValueError(f"{where} has a boolean {v!r}; pass 0/1 as numbers.")
    if isinstance(v, numbers.Integral):
        return Fraction(int(v))
    if isinstance(v, str):
        return exact_number(v, where)
    try:  # float, numpy floats of every precision, Decimal: exact ratios
        return Fraction(*v.as_integer_ratio())
    except (ValueError, OverflowError, AttributeError, TypeError):
        what = "only finite numbers can be checked" if hasattr(v, "as_integer_ratio") \
            else f"{type(v).__name__} is not a number"
        raise ValueError(f"{where} has {_show(v):.80}; {what}.") from None


def plain(data: Any) -> Any:
    """Array-likes (NumPy, pandas, scipy.sparse) as nested Python lists, no import."""
    data = data.to_numpy() if hasattr(data, "to_numpy") else data
    data = data.toarray() if hasattr(data, "tocsr") and hasattr(data, "toarray") else data
    return data.tolist() if hasattr(data, "tolist") else data


def exact_rows(X: Any, *, intercept: bool) -> tuple[list[list[int]], list[Fraction]]:
    """Integer rows of ``[X, 1]`` (or ``X``) and scales: ``[x_i, 1] == rows[i] * scales[i]``
    (a 2-D NumPy integer array's rows are Python ints already: not scaled).

    >>> exact_rows([["1/2", 0.25]], intercept=True)
    ([[2, 1, 4]], [Fraction(1, 4)])
    """
    ints = getattr(getattr(X, "dtype", None), "kind", "") in ("i", "u") and X.ndim == 2
    X = plain(X)
    if isinstance(X, (str, bytes)) or not hasattr(X, "__len__") or not len(X):
        raise ValueError("X must be a non-empty 2-D array-like (n_samples, n_features).")
    rows, scales, width = [], [], None
    for i, row in enumerate(X):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise ValueError(f"X must be 2-D: X[{i}] is {_show(row):.80}, not a sequence.")
        width = len(row) if width is None else width
        if not width or len(row) != width:
            raise ValueError(f"X is ragged: X[{i}] has {len(row)} entries, X[0] has "
                             f"{width}." if width else "X has no features; one is needed.")
        nums, den = (row, 1) if ints else _scaled(row, i, range(width))
        rows.append(nums + [den] if intercept else nums)
        scales.append(_ONE if den == 1 else Fraction(1, den))
    return rows, scales


def sparse_rows(X: Any, *, intercept: bool) -> tuple[list, list[Fraction]]:
    """Rows of a sparse ``[X, 1]`` as ``(columns, ints)``: its non-zero entries by
    increasing column (an entry stored twice added up), scaled as :func:`exact_rows`."""
    n, d, ptr, cols, vals = csr_lists(X)
    rows, scales = [], []
    for i in range(n):
        c, v = cols[ptr[i]:ptr[i + 1]], vals[ptr[i]:ptr[i + 1]]
        if not all(map(operator.lt, c, islice(c, 1, None))):  # sort; add repeats exactly
            merged: dict[int, Any] = {}
            for j, q in zip(c, v):
                merged[j] = merged.get(j, 0) + number(q, f"X[{i}, {j}]")
            c, v = sorted(merged), [merged[j] for j in sorted(merged)]
        nums, den = _scaled(v, i, c)
        if 0 in nums:
            c, nums = list(compress(c, nums)), list(compress(nums, nums))
        rows.append((c + [d], nums + [den]) if intercept else (c, nums))
        scales.append(_ONE if den == 1 else Fraction(1, den))
    return rows, scales


def csr_lists(X: Any) -> tuple[int, int, list, list, list]:
    """``(n, d, indptr, indices, data)`` of ``X.tocsr()`` as lists, checked: ``indptr``
    rises from 0 to the number of entries, every index is an int in ``0..d-1``."""
    A = X.tocsr()
    (n, d), ptr, cols, vals = A.shape, plain(A.indptr), plain(A.indices), plain(A.data)
    if not (n and d and len(ptr) == n + 1 and ptr[0] == 0 and ptr[-1] == len(cols) ==
            len(vals) and set(map(type, ptr)) | set(map(type, cols)) <= {int} and
            all(map(operator.le, ptr, islice(ptr, 1, None))) and
            (not cols or 0 <= min(cols) and max(cols) < d)):
        raise ValueError(f"X is not a sparse matrix of shape {n} x {d} (n, d >= 1): its "
                         "indptr must rise from 0 to the entries, its indices lie in "
                         f"0..{d - 1}.")
    return n, d, ptr, cols, vals


def _scaled(values, i, columns):
    """Ints ``nums`` and the least ``den`` with ``values[k] == nums[k] / den`` exactly."""
    kinds = set(map(type, values))
    if kinds <= {int}:  # integers (bool is its own type): nothing to scale
        return list(values), 1
    if kinds == {float} and all(map(float.is_integer, values)):  # integer-valued floats
        return list(map(int, values)), 1
    if kinds == {float} and all(map(math.isfinite, values)):
        nums, dens = zip(*map(float.as_integer_ratio, values))
        den = max(dens)  # powers of two: the largest is the least common multiple
    else:
        nums, dens = zip(*((q.numerator, q.denominator) for q in
                           (number(v, f"X[{i}, {j}]") for j, v in zip(columns, values))))
        den = math.lcm(*dens)
    if den == 1:
        return list(nums), 1
    return list(map(operator.mul, nums, map(operator.floordiv, repeat(den), dens))), den


def labels_pm1(y: Any) -> list[int]:
    """Labels as -1/+1 ints, by markone's rule: -1/+1 numbers pass through; of two other
    values the sorted first is -1; a single class of any other value is +1.

    >>> labels_pm1(["cat", "dog", "cat"]), labels_pm1([1, -1]), labels_pm1([0, 0])
    ([-1, 1, -1], [1, -1], [1, 1])
    """
    y = plain(y)
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
        raise ValueError(f"y has {len(classes)} classes {_show(classes[:10]):.200}, but "
                         "separability is about two; map them to two classes first.")
    return [1 if len(classes) == 1 or v == classes[1] else -1 for v in y]
