"""Comparing an answer with a run: exactly, within a relative tolerance, or up to
a positive factor (a learning rate other than 1 scales the weights, not the
decisions).

>>> from fractions import Fraction as F
>>> close([F(1), F(2)], [F(1), F(2) + F(1, 10**12)], 1e-9)
True
>>> scale_factor([F(1, 2), F(-1)], [F(1), F(-2)], 0)
Fraction(1, 2)
>>> reproduces({"w": [F(2), F(0)], "mistakes": 1}, {"w": [F(1), F(0)], "mistakes": 1}, 0)
Fraction(1, 2)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

__all__ = ["close", "scale_factor", "reproduces", "is_one", "simple_fraction"]


def close(got: Sequence[Any], want: Sequence[Any], tol: float) -> bool:
    """Exact equality, or within ``tol`` relative to the largest expected entry."""
    if len(got) != len(want):
        return False
    scale = max((abs(v) for v in want), default=Fraction(0))
    bound = Fraction(tol) * scale
    return all(abs(g - e) <= bound for g, e in zip(got, want))


def scale_factor(got: Sequence[Any], want: Sequence[Any], tol: float) -> Fraction | None:
    """k > 0 with got = k * want (within tol), or None."""
    if len(got) != len(want):
        return None
    pivot = max(range(len(want)), key=lambda j: abs(want[j]), default=None)
    if pivot is None or want[pivot] == 0:
        return Fraction(1) if all(g == 0 for g in got) else None
    k = Fraction(got[pivot]) / Fraction(want[pivot])
    if k <= 0 or not close(got, [k * v for v in want], tol):
        return None
    return k


def reproduces(candidate: Mapping[str, Any], got: Mapping[str, Any], tol: float, *,
               scale: bool = True) -> Fraction | None:
    """None, or the positive factor k with which ``candidate`` (a run's answer:
    ``w`` or ``predictions``, with ``mistakes``) gives ``got`` (parsed numbers; a
    count or weights alone are compared alone). A run from a start other than
    zero (its ``"scale"`` is False) gives it with the factor 1 only.

    >>> reproduces({"w": [2], "mistakes": 1, "scale": False}, {"w": [1],
    ...             "mistakes": 1}, 0) is None
    True
    """
    scale = scale and candidate.get("scale", True)
    if "mistakes" in got and got["mistakes"] != candidate["mistakes"]:
        return None
    if "predictions" in got:
        return Fraction(1) if got["predictions"] == candidate.get("predictions") else None
    w = [Fraction(v) for v in candidate["w"]]
    if not scale:
        return Fraction(1) if close(got["w"], w, tol) else None
    return scale_factor(got["w"], w, tol)


def is_one(k: Fraction) -> bool:
    """Is the factor 1 (to a part in 10^9)?"""
    return abs(k - 1) <= Fraction(1, 10**9)


def simple_fraction(k: Fraction) -> Fraction:
    """``k`` as the simple fraction (denominator up to 1000) it is within a part in
    10^9 (a float implementation's 1/10 or -1), else ``k`` itself.

    >>> simple_fraction(Fraction(0.1)), simple_fraction(Fraction(1, 3001))
    (Fraction(1, 10), Fraction(1, 3001))
    """
    simple = k.limit_denominator(1000)
    return simple if abs(simple - k) <= abs(k) / 10**9 else k
