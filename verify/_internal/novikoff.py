"""Novikoff's mistake bound ``(R / gamma)**2``: the one definition in ``verify``.

Every module of ``verify`` (and every experiment of ``sims``, through the public
:func:`verify.margin.novikoff_bound`) computes the bound here, the same way: the
inputs are taken as the exact numbers they are (a float64 is an exact binary
fraction; an int or a Fraction is exact already), the quotient is formed exactly, and
only the answer is rounded, upward, to the smallest float64 not below it. So the bound
is never below the theorem's, whatever the inputs, and equal inputs give equal bounds.

* :func:`novikoff_bound`: ``(R / gamma)**2`` rounded up to a float64.
* :func:`novikoff_exact`: the same quotient as a Fraction (None without a margin).
* :func:`novikoff_mistakes`: the most mistakes the theorem allows, an integer, from an
  exact squared radius (the machine's claims, whose ``R**2`` is an integer sum).
* :func:`float_up`: a rational rounded up to a float64.

Examples
--------
>>> novikoff_bound(3.0, 1.0), novikoff_bound(1, 3) > 1 / 9, novikoff_bound(1.0, 0)
(9.0, True, inf)
>>> novikoff_exact(0.5, 0.25), novikoff_mistakes(10, Fraction(1, 2))
(Fraction(4, 1), 40)
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

__all__ = ["novikoff_bound", "novikoff_exact", "novikoff_mistakes", "float_up"]

#: The largest finite float64.
_FLOAT_MAX = 1.7976931348623157e308


def novikoff_bound(R: float | Fraction, gamma: float | Fraction) -> float:
    """``(R / gamma)**2`` rounded up: the smallest float64 at least the exact quotient
    of the numbers given (inf when ``gamma <= 0``, or beyond float64).

    Novikoff's theorem needs ``R`` at least the radius and ``gamma`` at most the
    margin; given such ends, this is a true mistake bound. Floats, ints and Fractions
    are taken exactly; the only rounding is the last one, upward.

    >>> novikoff_bound(3.0, 1.0), novikoff_bound(0.1, 0.3) > 1 / 9, novikoff_bound(1.0, 0)
    (9.0, True, inf)
    >>> novikoff_bound(Fraction(1, 3), 1) == float_up(Fraction(1, 9))
    True
    """
    return float_up(novikoff_exact(R, gamma))


def novikoff_exact(R: float | Fraction, gamma: float | Fraction
                   ) -> Fraction | None:
    """``(R / gamma)**2`` as an exact Fraction, the inputs taken exactly (None when
    ``gamma <= 0``: no margin, no bound; None as well when ``R`` is infinite).

    >>> novikoff_exact(0.5, 0.25), novikoff_exact(1, -1)
    (Fraction(4, 1), None)
    >>> novikoff_exact(math.nan, 1.0)
    Traceback (most recent call last):
    ...
    ValueError: Novikoff's bound needs a radius R, got nan.
    """
    if R != R:
        raise ValueError(f"Novikoff's bound needs a radius R, got {R!r}.")
    if not gamma > 0 or not math.isfinite(R):
        return None
    if not math.isfinite(gamma):
        return Fraction(0)
    return (_exact(R) / _exact(gamma)) ** 2


def novikoff_mistakes(R_sq: int | Fraction, gamma: float | Fraction) -> int:
    """The most mistakes Novikoff's theorem allows, ``floor(R_sq / gamma**2)``, exact,
    from the exact squared radius ``R_sq`` and a margin ``gamma > 0`` (a count of
    mistakes is an integer, so the floor of the exact bound is the bound).

    >>> novikoff_mistakes(2, Fraction(1, 2)), novikoff_mistakes(Fraction(9, 4), 0.5)
    (8, 9)
    """
    return math.floor(_exact(R_sq) / _exact(gamma) ** 2)


def _exact(v: float | Fraction) -> Fraction:
    """A number as the exact Fraction it is (a float exactly, numpy's floats too)."""
    return Fraction(v) if isinstance(v, numbers.Rational) else Fraction(float(v))


def float_up(q: Fraction | None) -> float:
    """The smallest float64 at least the rational ``q`` (inf beyond float64's range,
    and for None: no bound).

    >>> float_up(Fraction(1, 3)) > 1 / 3, float_up(Fraction(6)), float_up(Fraction(10**400))
    (True, 6.0, inf)
    """
    if q is None:
        return math.inf
    try:
        f = float(q)
    except OverflowError:
        return math.inf if q > 0 else -_FLOAT_MAX
    if math.isfinite(f) and Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    return f
