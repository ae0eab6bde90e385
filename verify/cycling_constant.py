"""The cycling theorem's constant, computed exactly as Coq defines it.

``verify/coq/BlockLevin.v`` proves ``||w_t||^2 <= ||w_0||^2 + cycling_K Z`` for every
perceptron run over a finite set ``Z`` of examples (rows ``z = y x``), and
``CyclingIntegers.v`` bounds transient + period on integer data by
``(2 * cycling_R Z + 1)^n`` passes. This module follows those definitions line by line
in exact arithmetic (:class:`fractions.Fraction`): :func:`proj_constant` is ``proj_C``
(Span.v), :func:`cycling_constant` is ``cycling_K`` and :func:`cycling_radius` is
``cycling_R``. The constant grows about as a fourth power per level, so only very small
sets give a number worth printing; :func:`cycling_constant_digits` gives its size.

>>> cycling_constant([[1]])
Fraction(486, 1)
>>> cycling_radius([[1]])
487
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

__all__ = ["proj_constant", "cycling_constant", "cycling_radius",
           "cycling_constant_digits"]

Vector = tuple[Fraction, ...]


def _dot(u: Vector, v: Vector) -> Fraction:
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


def _proj(N: tuple[Vector, ...], x: Vector) -> Vector:
    """``proj N x`` of Span.v: Gram-Schmidt, the head of ``N`` added last."""
    if not N:
        return tuple(Fraction(0) for _ in x)
    z, rest = N[0], N[1:]
    r = tuple(a - b for a, b in zip(z, _proj(rest, z)))
    p = _proj(rest, x)
    rr = _dot(r, r)
    if rr == 0:
        return p
    c = _dot(x, r) / rr
    return tuple(a + c * b for a, b in zip(p, r))


@lru_cache(maxsize=None)
def _proj_C(N: tuple[Vector, ...]) -> Fraction:
    if not N:
        return Fraction(0)
    z, rest = N[0], N[1:]
    pz = _proj(rest, z)
    r = tuple(a - b for a, b in zip(z, pz))
    rr = _dot(r, r)
    if rr == 0:
        return _proj_C(rest)
    return (_proj_C(rest) * (rr + 2 * _dot(pz, pz)) + 2) / rr


#: The most examples whose constant is computed: XOR's first 2, 3 and 4 rows give 75,
#: 4,915 and 1,258,854 digits (the last in about 10 s), the digits multiplied by about
#: 4^m with the m-th example, so five would need about a billion digits.
MAX_EXAMPLES = 4


def _vectors(Z: Sequence[Sequence[int | Fraction]]) -> tuple[Vector, ...]:
    rows = tuple(tuple(Fraction(a) for a in z) for z in Z)
    if len({len(z) for z in rows}) > 1:
        raise ValueError("the examples have different lengths: give rows z = y x of "
                         "one dimension")
    return rows


def proj_constant(N: Sequence[Sequence[int | Fraction]]) -> Fraction:
    """``proj_C N`` of Span.v: ``||proj N x||^2 <= proj_C N * sum_(z in N) (x.z)^2``.

    >>> proj_constant([[1, 0], [0, 2]])
    Fraction(5, 2)
    """
    return _proj_C(_vectors(N))


def _masks(k: int) -> list[tuple[bool, ...]]:
    """``masks k`` of BlockLevin.v, in its order."""
    if k == 0:
        return [()]
    return [(b, *bs) for b in (True, False) for bs in _masks(k - 1)]


def _subsets(Z: tuple[Vector, ...]) -> list[tuple[Vector, ...]]:
    """``mask bs Z`` for every ``bs`` of ``masks (size Z)`` (repeats kept)."""
    return [tuple(z for b, z in zip(bs, Z) if b) for bs in _masks(len(Z))]


def _Q0(Z: tuple[Vector, ...], C: Fraction, K: Fraction, R2: Fraction) -> Fraction:
    """``Q0 Z C K R2`` of BlockLevin.v's section Far, through ``reach``, ``drift``
    and ``level``."""
    m = len(Z)

    def reach(a: Fraction) -> Fraction:
        return C * m * a ** 2 + K + 1

    def drift(a: Fraction) -> Fraction:
        return 4 * reach(a) ** 2 * R2 + 1

    level = Fraction(0)
    for _ in range(m):
        level = level + K + R2 + 2 * drift(level)
    return 2 * (C * (m * level ** 2)) + 2 * R2


@lru_cache(maxsize=None)
def _cycK(k: int, Z: tuple[Vector, ...]) -> Fraction:
    """``cycK k Z`` of BlockLevin.v."""
    if k == 0:
        return Fraction(0)
    subsets = _subsets(Z)
    K = sum((_cycK(k - 1, N) if len(N) < len(Z) else Fraction(0) for N in subsets),
            Fraction(0))
    span_C = sum((_proj_C(N) for N in subsets), Fraction(0))
    sqnorms = sum((_dot(z, z) for z in Z), Fraction(0))
    return _Q0(Z, span_C, K, sqnorms) + K


def cycling_constant(Z: Sequence[Sequence[int | Fraction]]) -> Fraction:
    """``cycling_K Z``: every run over the examples ``Z`` (rows ``z = y x``), in any
    order, has ``||w_t||^2 <= ||w_0||^2 + cycling_K Z`` (Coq: ``cycling_bounded``).

    The order of ``Z`` matters to the value (Gram-Schmidt and the masks follow it),
    not to the theorem.

    >>> cycling_constant([])
    Fraction(0, 1)
    >>> cycling_constant([[2]])
    Fraction(1452, 1)
    """
    if len(Z) > MAX_EXAMPLES:
        raise ValueError(
            f"{len(Z)} examples: the cycling constant is computed for at most "
            f"{MAX_EXAMPLES} (XOR's four give 1,258,854 digits, five would need about a "
            "billion). For the cycle of larger data use "
            "verify.check_cycling, which finds it and its bound exactly.")
    rows = _vectors(Z)
    return _cycK(len(rows) + 1, rows)


def cycling_radius(Z: Sequence[Sequence[int | Fraction]]) -> int:
    """``cycling_R Z = |numq (cycling_K Z)| + 1``: on integer examples transient +
    period is at most ``(2 cycling_R Z + 1)^n`` passes (Coq: ``integer_cycles``).

    >>> cycling_radius([[1], [-1]]) > cycling_constant([[1], [-1]])
    True
    """
    return abs(cycling_constant(Z).numerator) + 1


def cycling_constant_digits(Z: Sequence[Sequence[int | Fraction]]) -> int:
    """The number of decimal digits of ``cycling_K Z``'s integer part.

    >>> cycling_constant_digits([[1]])
    3
    """
    value = cycling_constant(Z)
    whole = value.numerator // value.denominator
    digits = max(1, (whole.bit_length() - 1) * 30102 // 100000)  # a lower bound
    while 10 ** digits <= whole:
        digits += 1
    return digits
