"""Exact rational input for the core: parse, scale to integers, and back.

Exact training works on integers: every entry is parsed to a :class:`~fractions.Fraction`
(ints, Fractions, strings like ``"3/4"`` or ``"0.25"``, and floats as the exact binary
fractions they are), then the whole array is multiplied by the least common multiple
of the denominators. A perceptron's decisions are unchanged by a positive rescaling of
its inputs, so training on the integers and dividing the weights by that multiple gives
the exact rational run.

:func:`signed_integer_rows` is the one constructor of the exact signed rows
``y_i [x_i, c]`` as integers that the core's exact training and ``verify``
(separability certificates, cycling) all use: one common scale, or one per row.

>>> import numpy as np
>>> Z, scale = signed_integer_rows([["1/2", 3]], [-1], intercept=True)
>>> Z.tolist(), scale
([[-1, -6, -2]], Fraction(2, 1))
>>> rows, scales = signed_integer_rows(np.array([[0.5, 3.0], [2.0**-1074, 0.0]]),
...                                    per_row=True)
>>> rows, scales == [2, 2**1074]
([[1, 6], [1, 0]], True)

Every float is the exact rational it stores, whatever its precision: a
``np.longdouble`` is read with ``as_integer_ratio()``, never through float64.

>>> import numpy as np
>>> to_fraction(np.longdouble(1) + np.longdouble(2) ** -60) == 1 + Fraction(1, 2**60)
True
>>> exactly_float64(np.array([0.5, 3], dtype=np.longdouble)).dtype
dtype('float64')
>>> exactly_float64(np.array([1 + np.longdouble(2) ** -60])) is None  # would round
True

A scalar parameter of float training (a step size, an intercept constant) is taken
when float64 holds it exactly, and refused, by name and value, when it does not:

>>> exact_float("3/4", name="eta")
0.75
>>> exact_float(Fraction(1, 3), name="eta", fix="pass exact=True")
Traceback (most recent call last):
...
ValueError: eta=Fraction(1, 3) is not exactly a float64 (float arithmetic would use 0.3333333333333333 instead); pass exact=True.
"""

from __future__ import annotations

import contextlib
import contextvars
import decimal
import math
import numbers
import re
from collections.abc import Iterator
from fractions import Fraction
from typing import Any, Literal, overload

import numpy as np

from markone._internal.shapes import check_consistent_length, is_sparse, sparse_refused
from markone.errors import MarkoneError

__all__ = ["to_fraction", "to_fraction_matrix", "fraction_array", "signed_integer_rows", "fits_int64",
           "exactly_float64", "first_inexact", "float64_of", "exact_float",
           "describe_number", "inexact_entry", "parse_number", "digit_limit",
           "NumberTooLong", "MAX_DIGITS", "int_text", "fraction_text", "STR_BITS",
           "text_shown", "int_of_digits", "fraction_g", "fraction_pow10", "int_shown",
           "fraction_shown"]

#: The default limit on the size of a number written as text (a string, a table
#: cell, a Decimal): its digits plus its exponent, that is the digits it has when
#: written out in full. ``"1e100000000"`` is short, but its value is an integer of
#: 100,000,001 digits: minutes of work before anything else could happen.
MAX_DIGITS = 10_000

_DIGIT_LIMIT: contextvars.ContextVar[int] = contextvars.ContextVar("max_digits",
                                                                  default=MAX_DIGITS)


class NumberTooLong(MarkoneError, ValueError):
    """A number written as text is beyond the digit limit (:func:`digit_limit`);
    ``text`` is that text, ``size`` its digits when written out in full (an upper
    bound, never computed by writing it out) and ``limit`` the limit it broke."""

    def __init__(self, message: str, text: str, size: int = 0, limit: int = 0) -> None:
        super().__init__(message)
        self.text, self.size, self.limit = text, size, limit


@contextlib.contextmanager
def digit_limit(max_digits: int) -> Iterator[int]:
    """Within the block, numbers written as text may have up to ``max_digits`` digits
    when written out in full (default :data:`MAX_DIGITS`; the exponent counts:
    ``"1e20000"`` has 20,001). Ints and Fractions have no limit.

    >>> with digit_limit(30_000):
    ...     parse_number("1e20000") == 10**20000
    True
    >>> parse_number("1e20000")
    Traceback (most recent call last):
    ...
    markone._internal.exact.NumberTooLong: '1e20000' has 20001 digits when written out in full, beyond max_digits=10000; raise the limit (with markone.datasets.digit_limit(N): ...), or pass the number as an int or a Fraction (no limit).
    """
    if isinstance(max_digits, bool) or not isinstance(max_digits, numbers.Integral) \
            or max_digits < 1:
        raise ValueError(f"max_digits(={max_digits!r}) must be a whole number >= 1.")
    token = _DIGIT_LIMIT.set(int(max_digits))
    try:
        yield int(max_digits)
    finally:
        _DIGIT_LIMIT.reset(token)


# Python's own syntax of a rational string (fractions.Fraction's), underscores included
_RATIONAL = re.compile(r"""\A\s*(?P<sign>[-+]?)(?=\d|\.\d)(?P<num>\d*|\d+(_\d+)*)
    (?:(?:/(?P<denom>\d+(_\d+)*))?
      |(?:\.(?P<decimal>(\d+(_\d+)*)?))?(?:[eE](?P<exp>[-+]?\d+(_\d+)*))?)\s*\Z""",
                       re.VERBOSE)
_DIGITS = re.compile(r"\d")
_EXPONENT = re.compile(r"[eE]([-+]?[\d_]+)\s*\Z")
#: Digit strings up to this long go to int() whole (Python refuses beyond 4300).
_INT_CHUNK = 4000
#: Integers of up to this many bits (about 3600 digits) are written by ``str()``
#: whole; longer ones by :func:`int_text`.
STR_BITS = 12_000


def parse_number(text: str, *, where: str = "", max_digits: int | None = None
                 ) -> Fraction:
    """The exact value of a number written as text (``"3"``, ``"-1/2"``, ``"0.25"``,
    ``"1e-400"``, ``"1_000"``), within the digit limit: ``max_digits`` when given,
    else :func:`digit_limit`'s (the one reader of number text: data files, exact
    inputs, and the conformance protocol's answers with their own limit).

    Raises :class:`NumberTooLong` (a ``ValueError``) beyond the limit, before any
    big number is made (``"1e1000000000"`` is refused as fast as ``"1e5"`` is read),
    and ``ValueError``/``ZeroDivisionError`` for text that is not a number. Numbers of
    any length up to the limit are read, beyond Python's own 4300-digit limit on
    ``int(str)``.

    >>> parse_number("1_000.5"), parse_number(" -3/4 ")
    (Fraction(2001, 2), Fraction(-3, 4))
    >>> parse_number("1" * 5000) == int("1" * 1000) * 10**4000 + int("1" * 4000)
    True
    >>> try:
    ...     parse_number("2e5000", max_digits=4000)
    ... except NumberTooLong as exc:
    ...     print(exc.size, exc.limit)
    5001 4000
    """
    size = _written_size(text)
    limit = _DIGIT_LIMIT.get() if max_digits is None else max_digits
    if size > limit:
        raise NumberTooLong(
            f"{where}{text_shown(text)} has {size} digits when written out in full, beyond "
            f"max_digits={limit}; raise the limit (with markone.datasets.digit_limit(N): "
            "...), or pass the number as an int or a Fraction (no limit).", text, size,
            limit)
    match = _RATIONAL.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a number")
    num = int_of_digits(match["num"] or "0")
    if match["denom"]:
        den = int_of_digits(match["denom"])
    else:
        den = 1
        if match["decimal"]:
            decimals = match["decimal"].replace("_", "")
            num, den = num * 10 ** len(decimals) + int_of_digits(decimals), 10 ** len(decimals)
        exp = int(match["exp"].replace("_", "")) if match["exp"] else 0
        num, den = (num * 10**exp, den) if exp >= 0 else (num, den * 10**-exp)
    return Fraction(-num if match["sign"] == "-" else num, den)


def int_text(n: int) -> str:
    """``str(n)`` for an integer of any size (Python's ``str`` refuses ints beyond
    4300 digits): halves written separately, so that exact results of any size can
    be printed and saved.

    >>> text = int_text(7 * 10**5000 + 3)
    >>> len(text), text[:3], text[-3:]
    (5001, '700', '003')
    """
    n = int(n)
    if n < 0:
        return "-" + int_text(-n)
    if n.bit_length() <= STR_BITS:
        return str(n)
    half = n.bit_length() * 3 // 20  # about half of its digits (log10(2) > 0.3)
    high, low = divmod(n, 10**half)
    return int_text(high) + int_text(low).rjust(half, "0")


def int_shown(n: int, longest: int = 15) -> str:
    """An integer as a person reads it in a message: all its digits when it has at
    most ``longest``, else about its value in six significant digits and how many
    digits it has (an exact Novikoff bound on data of 1e400 has 800: its digits
    help no one; a file or the Python API keeps the exact value).

    >>> int_shown(123456), int_shown(75 * 10**798)
    ('123456', 'about 7.5e+799 (an integer of 800 digits)')
    """
    text = int_text(n)
    if len(text.lstrip("-")) <= longest:
        return text
    return f"about {fraction_g(int(n))} (an integer of {len(text.lstrip('-'))} digits)"


def fraction_text(q: Any) -> str:
    """``str(q)`` of a Fraction (``"p/q"``, or ``"p"``) or an int, of any size.

    >>> fraction_text(Fraction(-3, 4)), fraction_text(Fraction(6, 3)), fraction_text(5)
    ('-3/4', '2', '5')
    """
    q = Fraction(q)
    top = int_text(q.numerator)
    return top if q.denominator == 1 else f"{top}/{int_text(q.denominator)}"


def fraction_g(q: Any, digits: int = 6) -> str:
    """``q`` (a Fraction or int of any size) written as ``format(float(q), f".{digits}g")``
    would write it, without a float: rounded half to even from its exact value, so a
    number beyond float range (``10**-400``, ``10**400``) is written too.

    >>> fraction_g(Fraction(3, 1580)), fraction_g(Fraction(10) ** 400), fraction_g(0)
    ('0.00189873', '1e+400', '0')
    >>> fraction_g(Fraction(-1, 3) / 10**320, 3)
    '-3.33e-321'
    """
    q = Fraction(q)
    if q == 0:
        return "0"
    if q < 0:
        return "-" + fraction_g(-q, digits)
    exp = _decimal_exponent(q)
    mantissa = round(q * Fraction(10) ** (digits - 1 - exp))   # half to even
    if mantissa == 10**digits:             # 9.999995 rounds up to 10.0000
        mantissa, exp = 10 ** (digits - 1), exp + 1
    text = str(mantissa)
    if -4 <= exp < digits:                 # fixed notation, as %g chooses
        point = exp + 1
        body = ("0." + "0" * -point + text if point <= 0 else
                text[:point] + "." + text[point:] if point < len(text) else
                text + "0" * (point - len(text)))
        return body.rstrip("0").rstrip(".") if "." in body else body
    body = (text[0] + "." + text[1:]).rstrip("0").rstrip(".")
    return f"{body}e{'-' if exp < 0 else '+'}{abs(exp):02d}"


def _decimal_exponent(q):
    """``floor(log10(q))`` of a Fraction ``q > 0``, exactly."""
    exp = len(int_text(q.numerator)) - len(int_text(q.denominator))
    return exp if q >= Fraction(10) ** exp else exp - 1


def fraction_pow10(q: Any) -> str:
    """``q`` exactly, short: ``"a/b * 10**k"`` with the powers of ten of its numerator
    and denominator taken out (plain ``"p/q"`` when that is no longer).

    >>> fraction_pow10(Fraction(3, 158 * 10**298)), fraction_pow10(Fraction(10**320, 8))
    ('3/158 * 10**-298', '125 * 10**317')
    >>> fraction_pow10(Fraction(3, 4)), fraction_pow10(Fraction(-1, 10**320))
    ('3/4', '-10**-320')
    """
    q = Fraction(q)
    plain_text = fraction_text(q)
    num, den, k = q.numerator, q.denominator, 0
    for _ in range(len(plain_text)):
        if num and num % 10 == 0:
            num, k = num // 10, k + 1
        elif den % 10 == 0:
            den, k = den // 10, k - 1
        else:
            break
    if k == 0:
        return plain_text
    short = (f"{'-' if num < 0 else ''}10**{k}" if abs(num) == den == 1 else
             f"{fraction_text(Fraction(num, den))} * 10**{k}")
    return short if len(short) < len(plain_text) else plain_text


def fraction_shown(q: Any, longest: int = 24) -> str:
    """A rational as a person reads it in a message: exactly when that is short
    (``p/q``, its powers of ten taken out as :func:`fraction_pow10` does), else
    ``about`` its value in six significant digits. A weight of 401 digits helps no
    one on a screen; a file (``markone train --json``) or the Python API keeps the
    exact value. The caller says where the exact values are when it shows an
    ``about``.

    >>> fraction_shown(Fraction(-2, 5)), fraction_shown(Fraction(-103, 5 * 10**400))
    ('-2/5', '-103/5 * 10**-400')
    >>> fraction_shown(Fraction(1, 3**700))
    'about 1.03543e-334'
    """
    text = fraction_pow10(q)
    return text if len(text) <= longest else f"about {fraction_g(q)}"


def text_shown(text: str) -> str:
    """A text for a one-line message: its repr, cut after 24 characters when long.

    >>> text_shown("0.5"), text_shown("1" * 5000)
    ("'0.5'", "'111111111111111111111111'... (5000 characters)")
    """
    return repr(text) if len(text) <= 40 else f"{text[:24]!r}... ({len(text)} characters)"


def _written_size(text):
    """Digits of a number string plus the size of its exponent (an upper bound on
    the digits of its value written out), without making any big number."""
    digits = len(_DIGITS.findall(text))
    exp = _EXPONENT.search(text)
    if exp is None:
        return digits
    e = exp.group(1).replace("_", "")
    size = abs(int(e)) if len(e) <= 20 else 10**20
    return digits - len(_DIGITS.findall(exp.group(1))) + size


def int_of_digits(s: str) -> int:
    """``int(s)`` of a string of decimal digits (a sign and underscores allowed) of
    any length: Python's ``int`` refuses more than 4300 digits. No digit limit (for
    text markone made, or a solver wrote; text from users goes through
    :func:`parse_number`).

    >>> int_of_digits("-" + "9" * 5000) == -(10**5000 - 1)
    True
    """
    s = s.replace("_", "").strip()
    if len(s) <= _INT_CHUNK:
        return int(s)
    if s[0] in "+-":
        return -int_of_digits(s[1:]) if s[0] == "-" else int_of_digits(s[1:])
    value = 0
    for i in range(0, len(s), _INT_CHUNK):
        chunk = s[i:i + _INT_CHUNK]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def to_fraction(value, *, where=""):
    """Parse one number exactly; reject NaN, inf, bools and non-numeric strings."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool) or isinstance(value, np.bool_):
        raise TypeError(f"{where}got a boolean {value!r}; pass 0/1 as numbers.")
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise _not_finite(where, value)
        return parse_number(str(value), where=where)
    if isinstance(value, np.floating):  # any precision, longdouble included: exactly
        if not np.isfinite(value):
            raise _not_finite(where, value)
        return Fraction(*value.as_integer_ratio())
    if isinstance(value, numbers.Real):
        f = float(value)
        if not math.isfinite(f):
            raise _not_finite(where, f)
        if f != value:  # a Real that float() rounds (e.g. a Decimal): refuse, not guess
            raise ValueError(
                f"{where}{value!r} of type {type(value).__name__} is not exactly a "
                "float64; pass it as a Fraction or a decimal string.")
        return Fraction(f)
    if isinstance(value, (str, np.str_)):
        text = str(value).strip()
        try:
            return parse_number(text, where=where)
        except NumberTooLong:
            raise
        except (ValueError, ZeroDivisionError):
            raise ValueError(
                f"{where}{value!r} is not a number; exact mode accepts integers, "
                "fractions like '3/4' and decimals like '0.25'."
            ) from None
    raise TypeError(f"{where}{value!r} of type {type(value).__name__} is not a number.")


def _not_finite(where, value):
    """The error for a NaN or an infinity given to exact arithmetic."""
    return ValueError(f"{where}is {value}; exact mode needs finite numbers (no NaN or "
                      "infinity).")


def to_fraction_matrix(X, *, name="X"):
    """Parse a 2-D array-like into a list of rows of Fractions, checking its shape."""

    if is_sparse(X):  # exact arithmetic works on dense rows of Python numbers
        raise sparse_refused(X, name=name, what="exact arithmetic")
    if isinstance(X, np.ndarray) and X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}.")
    rows = [list(r) for r in X]
    if not rows or not rows[0]:
        raise ValueError(f"{name} is empty; at least one sample with one feature is needed.")
    width = len(rows[0])
    out = []
    for i, r in enumerate(rows):
        if len(r) != width:
            raise ValueError(
                f"{name} is ragged: {name}[{i}] has {len(r)} entries, {name}[0] has {width}."
            )
        try:
            out.append([v if type(v) is Fraction else to_fraction(v) for v in r])
        except (TypeError, ValueError):  # parse again, naming the bad entry
            for j, v in enumerate(r):
                to_fraction(v, where=f"{name}[{i}, {j}] ")
            raise
    return out


def fraction_array(X: Any, *, name: str = "X") -> np.ndarray:
    """:func:`to_fraction_matrix` as a 2-D object array (the exact estimators' rows).

    >>> fraction_array([[1, "1/3"]]).tolist()
    [[Fraction(1, 1), Fraction(1, 3)]]
    """
    rows = to_fraction_matrix(X, name=name)
    out = np.empty((len(rows), len(rows[0])), dtype=object)
    out[:] = rows
    return out


def _integer_matrix(X, *, name="X", extra=()):
    """Return ``(M, scale)``: integers ``M = X * scale`` with ``scale`` the lcm of all
    denominators (of ``X`` and of the ``extra`` numbers). ``M`` is int64 when every
    entry fits, else an object array of Python ints (the common-scale road of
    :func:`signed_integer_rows`).

    >>> M, scale = _integer_matrix([["1/2", "3"], [0.25, 1]])
    >>> M.tolist(), scale
    ([[2, 12], [1, 4]], Fraction(4, 1))
    """
    F = to_fraction_matrix(X, name=name)
    nums = [[v.numerator for v in r] for r in F]
    dens = [[v.denominator for v in r] for r in F]
    N, D = _int64_pair(nums, dens)
    scale = _lcm_of_denominators(D, dens, extra)
    if N is not None and D is not None and N.size:
        top = max(abs(int(N.max())), abs(int(N.min())))
        if scale < 2**62 and top * scale < 2**62:
            return N * (scale // D), Fraction(scale)
    arr = np.array([[n * (scale // d) for n, d in zip(rn, rd)] for rn, rd in zip(nums, dens)],
                   dtype=object)
    return (arr.astype(np.int64) if fits_int64(arr) else arr), Fraction(scale)


def _int64_pair(nums, dens):
    """Numerators and denominators as int64 arrays (the common case: they fit, and so
    does the result), or ``(None, None)``."""
    try:
        return np.array(nums, dtype=np.int64), np.array(dens, dtype=np.int64)
    except OverflowError:
        return None, None


def _lcm_of_denominators(D, dens, extra):
    """The lcm of the denominators (``D`` as int64 when they fit) and of ``extra``'s."""
    den_set = set(np.unique(D).tolist()) if D is not None else {d for r in dens for d in r}
    den_set.update(Fraction(e).denominator for e in extra)
    return math.lcm(*den_set)


@overload
def signed_integer_rows(X: Any, y: Any = ..., *, intercept: bool = ...,
                        intercept_scale: Any = ..., per_row: Literal[False] = ...,
                        name: str = ...) -> tuple[np.ndarray, Fraction]: ...


@overload
def signed_integer_rows(X: Any, y: Any = ..., *, intercept: bool = ...,
                        intercept_scale: Any = ..., per_row: Literal[True],
                        name: str = ...) -> tuple[list[list[int]], list[Fraction]]: ...


def signed_integer_rows(X: Any, y: Any = None, *, intercept: bool = False,
                        intercept_scale: Any = 1, per_row: bool = False, name: str = "X"
                        ) -> tuple[Any, Any]:
    """The exact rows ``z_i = y_i [x_i, c]`` as integers, and the scale that makes them.

    The one constructor of exact integer rows: the core's exact training
    (:func:`markone.train` with ``exact=True``), and ``verify``'s separability
    certificates and cycling search all build their integer rows here.

    Parameters
    ----------
    X : array-like (n, d)
        Ints, Fractions, rational or decimal strings, or floats of any NumPy precision
        (each taken as the exact binary fraction it stores).
    y : array-like (n,) of -1/+1, optional
        Row signs (default: all +1).
    intercept : bool
        Append the constant ``intercept_scale`` (any exact number) to every row.
    per_row : bool
        False: one common scale, the lcm of every denominator, so that all rows are
        scaled alike (what a perceptron run needs: its updates add rows). True: each
        row gets its own positive scale (a power of two for float64 rows, the fastest
        road for certificates, where only signs of dot products with each row count).
    name : str
        The argument's name in error messages.

    Returns
    -------
    Z, scale
        ``per_row=False``: ``Z`` an integer ndarray (int64 when every entry is below
        2**62 in magnitude, else an object array of Python ints) and ``scale`` a
        positive Fraction with ``Z == scale * z`` exactly. ``per_row=True``: ``Z`` a
        list of rows of Python ints and ``scale`` a list of positive Fractions, with
        ``Z[i] == scale[i] * z_i`` exactly.

    Raises
    ------
    ValueError, TypeError
        For NaN, infinity, booleans, non-numeric strings, ragged or empty ``X``,
        naming the entry.
    """
    c = to_fraction(intercept_scale, where="intercept_scale ") if intercept else None
    signs = None if y is None else np.asarray(y).astype(np.int64)
    if per_row:
        floats = _float64_rows(X, signs, c)
        if floats is not None:
            return _float_rows_pow2(floats)
        rows = _fraction_rows(X, signs, c, name)
        out, scales = [], []
        for r in rows:
            den = math.lcm(*(v.denominator for v in r))
            out.append([int(v * den) for v in r])
            scales.append(Fraction(den))
        return out, scales
    M, scale = _integer_matrix(X, name=name, extra=() if c is None else (c,))
    if c is not None:
        c_int = int(c * scale)
        if M.dtype != object and c_int >= 2**62:
            M = M.astype(object)  # the scaled constant needs Python integers
        M = np.hstack([M, np.full((M.shape[0], 1), c_int, dtype=M.dtype)])
    if signs is not None:
        check_consistent_length(M, signs, names=(name, "y"))
        M = M * signs.astype(M.dtype)[:, None]
    return np.ascontiguousarray(M), scale


def _fraction_rows(X, signs, c, name):
    """Rows of Fractions ``y_i [x_i, c]`` (``c=None``: no constant)."""
    rows = to_fraction_matrix(X, name=name)
    if signs is not None:
        check_consistent_length(rows, signs, names=(name, "y"))
    tail = [] if c is None else [c]
    if signs is None:
        return [r + tail for r in rows]
    return [[v if s > 0 else -v for v in r + tail] for r, s in zip(rows, signs.tolist())]


def _float64_rows(X, signs, c):
    """``y_i [x_i, c]`` as a finite float64 matrix when that is exact, else None."""
    if is_sparse(X) or not isinstance(X, np.ndarray) or X.ndim != 2 or X.size == 0:
        return None
    if c is not None and Fraction(float(c)) != c:
        return None
    A = exactly_float64(X)
    if A is None or not np.isfinite(A).all():
        return None   # the exact road names the bad entry
    if signs is not None:
        if len(signs) != len(A):
            return None
        A = A * signs[:, None]
    if c is not None:
        col = float(c) if signs is None else float(c) * signs.astype(np.float64)
        A = np.column_stack([A, np.broadcast_to(col, (len(A),))])
    return A


def _float_rows_pow2(A):
    """Integer rows of a finite float64 matrix, each scaled by its own power of two:
    ``(ints, scales)`` with ``ints[i] == scales[i] * A[i]`` exactly, the power as small
    as it can be (integer rows come back as themselves)."""
    mant, ex = np.frexp(A)
    m = (mant * 2.0**53).astype(np.int64)  # exact: 53-bit mantissas
    tz = _trailing_zeros(m)
    e = ex.astype(np.int64) - 53 + tz
    m = m >> tz
    nz = m != 0
    out_ints, out_scales = [], []
    for i in range(A.shape[0]):
        if not nz[i].any():
            out_ints.append([0] * A.shape[1])
            out_scales.append(Fraction(1))
            continue
        emin = int(e[i][nz[i]].min())
        shift = np.where(nz[i], e[i] - emin, 0)
        if int(shift.max()) <= 9:  # fits int64: |m| < 2**53, shifted by <= 9 bits
            row = (m[i] << shift).tolist()
        else:
            row = [int(a) << int(s) for a, s in zip(m[i].tolist(), shift.tolist())]
        out_ints.append(row)
        out_scales.append(Fraction(1, 2**emin) if emin >= 0 else Fraction(2**-emin))
    return out_ints, out_scales


def _trailing_zeros(m):
    """Number of trailing zero bits of each int64 (0 for zeros)."""
    a = np.abs(m)
    low = a & -a  # lowest set bit
    tz = np.zeros(m.shape, dtype=np.int64)
    nz = low != 0
    tz[nz] = np.log2(low[nz].astype(np.float64)).astype(np.int64)
    return tz


def fits_int64(arr, limit=2**62):
    """True when every entry of an integer array has magnitude below ``limit``."""
    if arr.size == 0:
        return True
    return max(abs(int(arr.max())), abs(int(arr.min()))) < limit


def exactly_float64(X):
    """``X`` as a float64 ndarray when that conversion is exact, else None.

    Exact: float16/32/64 arrays, longdouble arrays whose every entry is a float64, and
    integer arrays whose entries are (|v| <= 2**53 or otherwise representable). Object
    and string arrays (Fractions, ``"3/4"``), and anything that would round, give None:
    the caller then takes the exact road. Shape and finiteness are not checked here.
    """
    arr = X if isinstance(X, np.ndarray) else None
    if arr is None:
        try:
            arr = np.asarray(X)
        except (ValueError, OverflowError):
            return None
    if arr.dtype.kind not in "biuf":
        return None
    if first_inexact(arr) is not None:
        return None
    return arr.astype(np.float64)


def first_inexact(arr):
    """Index of the first entry of a numeric array that float64 cannot hold exactly
    (None when all can): longdouble entries with more bits or range than float64,
    integers beyond 2**53 that are not a float64. NaN and inf count as exact."""
    arr = np.asarray(arr)
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:
        with np.errstate(over="ignore", invalid="ignore"):
            back = arr.astype(np.float64).astype(arr.dtype)
        bad = ~((back == arr) | np.isnan(arr))
    elif arr.dtype.kind in "iu" and arr.dtype.itemsize >= 8:
        big = (arr > 2**53) | (arr < -(2**53)) if arr.dtype.kind == "i" else arr > 2**53
        bad = np.zeros(arr.shape, dtype=bool)
        for k in zip(*np.nonzero(big)):
            v = int(arr[k])
            bad[k] = int(float(v)) != v
    else:
        return None
    if not bad.any():
        return None
    return tuple(int(i) for i in np.argwhere(bad)[0])


def float64_of(value):
    """The float64 that equals the number ``value`` exactly, or None when there is none
    (it would round, underflow or overflow). ``value`` is anything :func:`to_fraction`
    reads (ints, Fractions, decimal strings, floats of any NumPy precision); errors of
    :func:`to_fraction` (not a number, NaN, inf, a boolean) propagate.

    >>> float64_of("0.25"), float64_of("0.1"), float64_of(2**53 + 1), float64_of("1e-400")
    (0.25, None, None, None)
    """
    if type(value) is float:  # a Python float is a float64 (NaN/inf: exactly too)
        return value
    if isinstance(value, np.floating) and value.dtype.itemsize <= 8:
        return float(value)
    q = to_fraction(value)
    try:
        f = float(q)
    except OverflowError:
        return None
    return f if Fraction(f) == q else None


def describe_number(value):
    """``value`` for an error message: its repr, with the type of a NumPy scalar
    (``np.longdouble`` printed with every digit it holds).

    >>> describe_number(Fraction(1, 3)), describe_number("0.1")
    ('Fraction(1, 3)', "'0.1'")
    """
    if isinstance(value, (np.str_, np.bytes_)):
        value = value.item()
    if isinstance(value, np.floating):
        return (f"{np.format_float_scientific(value, unique=True)} "
                f"({value.dtype.name})")
    if isinstance(value, np.generic):
        return f"{value.item()!r} ({value.dtype.name})"
    if isinstance(value, int) and abs(value) > 10**40:  # keep messages one line
        text = int_text(abs(value))
        return f"an integer of {len(text)} digits ({int_text(value)[:12]}...)"
    text = repr(value)
    return text if len(text) <= 80 else text[:60] + "...)"


def exact_float(value, *, name, fix="pass a value that float64 holds exactly (such "
                "as 0.5 or 2), or use exact arithmetic"):
    """``value`` (an int, Fraction, decimal string or float of any NumPy precision) as
    the float64 that equals it, or a ``ValueError`` that names ``name``, the value and
    ``fix``: float arithmetic never starts from a rounded number.

    Validity (positivity, type) is the caller's table of constraints; this only
    refuses rounding, underflow and overflow.
    """
    if isinstance(value, str):
        value = value.strip()
    f = float64_of(value)
    if f is not None:
        return f
    q = to_fraction(value)
    try:
        near = float(q)
        what = (f"underflows float64 to {near!r}" if near == 0 else
                f"is not exactly a float64 (float arithmetic would use {near!r} instead)")
    except OverflowError:
        what = "is beyond float64's range (about 1.8e308)"
    raise ValueError(f"{name}={describe_number(value)} {what}; {fix}.")


def inexact_entry(arr):
    """``(index, value)`` of the first entry of an object or string array that float64
    cannot hold exactly, or None when every entry is a number float64 holds exactly.

    Entries that are not finite numbers at all (words, NaN, None) are left to the
    caller's own checks (they are skipped here)."""
    flat = arr.reshape(-1)
    for k in range(flat.shape[0]):
        v = flat[k]
        if type(v) is float:
            continue
        try:
            if float64_of(v) is None:
                return np.unravel_index(k, arr.shape), v
        except (TypeError, ValueError):
            continue
    return None
