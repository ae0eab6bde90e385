"""The searches behind :mod:`verify.machine.drift_walk`: the float search for a
horizon at any size, its exact rounding and certification, the fewest intervals of a
retraining schedule, and the checks of their arguments.

The union bound depends on ``sd`` and ``t`` only through ``sd**2 t``; relative to the
smallest ``m**2 / k`` (or ``c**2``) of its terms, ``x = 2 sd**2 t / least``, it is
``sum n erfc(r / sqrt(x))`` with every ``r >= 1``: a float search on ``x`` works for a
walk of ``1e-320`` or ``1e300`` steps per sqrt(s) alike, and the time found is then
rounded and certified exactly.

>>> round_down(Fraction(2, 3)), round_down(Fraction(10) ** 400 / 3) == 333333 * Fraction(10) ** 394
(Fraction(333333, 500000), True)
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

from markone._internal.exact import fraction_g, int_text
from markone._internal.progress import search_bar
from verify._internal.budget import BUDGET, stopped_phrase, to_raise

__all__ = ["largest_time", "fewest_intervals", "round_down", "ratio_float", "scale_of",
           "scaled_estimate", "time_bytes", "listed_times", "positive",
           "probability_arg", "finite", "stopped_plan", "DIGITS", "LEAST_DELTA"]

#: Significant digits of a horizon before it is certified.
DIGITS = 6

#: The least ``delta`` taken: far below any bound that matters, far above the floor
#: of :data:`verify.machine.drift_walk.FLOOR_BITS`.
LEAST_DELTA = Fraction(1, 2**4096)

#: Bytes a listed retraining time takes besides its digits (a Fraction and its two
#: ints, and its place in the tuple).
_TIME_BYTES = 160




def largest_time(terms, sd, delta):
    """The largest time found (``DIGITS`` significant digits) whose certified bound
    is at most ``delta``; 0 when none is (an answer wrong, a potentiometer at its
    harmful stop). The search runs in floats on ``x = 2 sd**2 t / least`` (any
    ``sd``, any time: see :meth:`WalkTerms.estimate`), the rest exactly."""
    if terms.wrong or any(c == 0 for c, _ in terms.rooms):
        return Fraction(0)
    if not terms.answers:   # the bound is 0 at every time: nothing to search
        raise ValueError("no answer to bound: the machine has no training figures.")
    d = ratio_float(delta)
    lo, hi = 0.0, 1.0
    while scaled_estimate(terms._scale, hi) <= d and hi < 1e300:
        lo, hi = hi, 2 * hi
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if scaled_estimate(terms._scale, mid) <= d else (lo, mid)
    t = round_down(Fraction(lo) * terms._scale[0] / (2 * sd * sd))
    for shrink in range(200):      # each time a larger cut: a few steps at most
        if t == 0 or terms.probability(sd, t) <= delta:
            return t
        t = round_down(t * (1 - min(Fraction(1, 2), Fraction(2**shrink, 10**(DIGITS - 1)))))
    raise RuntimeError("BUG: no time certified below the float search's; please "
                       "report it")


def round_down(x):
    """``x`` >= 0 (a Fraction) rounded down to ``DIGITS`` significant digits, exactly
    (see the module's example)."""
    if not x > 0:
        return Fraction(0)
    exp = len(int_text(x.numerator)) - len(int_text(x.denominator))
    if x < Fraction(10) ** exp:     # floor(log10(x)) is exp or exp - 1
        exp -= 1
    scale = Fraction(10) ** (DIGITS - 1 - exp)
    return Fraction(math.floor(x * scale)) / scale


def finite(value):
    """True for a real ``value`` that is not inf or NaN (a rational always is, even
    beyond float range)."""
    return isinstance(value, numbers.Rational) or math.isfinite(float(value))


def ratio_float(x):
    """A Fraction >= 0 as a float: inf beyond float range, 0 below it."""
    try:
        return float(x)
    except OverflowError:
        return math.inf


def fewest_intervals(terms, sd, delta, over, horizon_s, budget):
    """The fewest intervals found with a certified bound of at most ``delta / n``
    each, or a count above ``budget`` (the fewest seen to be needed) when more
    than ``budget`` would be."""
    lo = max(1, math.ceil(over / horizon_s))   # the fewest that can work
    if lo > budget:
        return lo
    d = ratio_float(delta) * 0.999            # the estimate's safety margin
    n = lo
    while not terms.estimate(sd, over / n) * n <= d:
        if n >= budget:
            return n + 1
        lo, n = n + 1, min(budget, n + max(1, n // 8))
    while lo < n:                              # the fewest the estimate accepts
        mid = (lo + n) // 2
        lo, n = (lo, mid) if terms.estimate(sd, over / mid) * mid <= d else (mid + 1, n)
    while terms.probability(sd, over / n) > delta / n:
        if n >= budget:
            return n + 1
        n += 1    # certification failed by rounding: one interval more
    while n > 1 and terms.probability(sd, over / (n - 1)) <= delta / (n - 1):
        n -= 1    # the estimate's safety margin cost an interval
    return n


def time_bytes(step, n):
    """Bytes one listed time ``step * k`` (``k < n``) can take."""
    return _TIME_BYTES + (step.numerator.bit_length() + step.denominator.bit_length()
                          + n.bit_length()) // 4


def listed_times(step, n, progress):
    """The ``n - 1`` retraining times ``step * k``, with a progress bar."""
    times = []
    with search_bar(n - 1, "retraining times", progress, unit="time") as bar:
        for start in range(1, n, 10_000):
            stop = min(n, start + 10_000)
            times.extend(step * k for k in range(start, stop))
            bar.update(stop - start)
    return tuple(times)


def positive(value, name, expected):
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Fraction)) \
            or not finite(value) or value <= 0:
        raise ValueError(f"{name}(={value!r}) must be a finite number > 0: {expected}.")
    return Fraction(value)


def probability_arg(value):
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Fraction)) \
            or not 0 < value < 1:
        raise ValueError(f"delta(={value!r}) must be a probability strictly between 0 "
                         "and 1, e.g. delta=0.01.")
    # a float means the decimal it prints as (0.05 is 1/20, not the binary above it)
    delta = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    if delta < LEAST_DELTA:
        raise ValueError(f"delta(={value!r}) is below 2**-4096, smaller than any "
                         "probability this bound certifies; give a larger delta, e.g. "
                         "delta=1e-300.")
    return delta


def scale_of(terms: Any) -> tuple:
    """``(least, ratios)`` of a :class:`~verify.machine.drift_walk.WalkTerms`: the
    smallest ``m**2 / k`` and ``c**2`` (> 0), and ``(sqrt(m**2 / k / least), n)`` per
    term as floats >= 1 (inf beyond float range: such a term is 0 wherever the search
    looks)."""
    squares = ([(m * m / k, n) for m, k, n in terms.answers]
               + [(c * c, n) for c, n in terms.rooms])
    least = min((q for q, _ in squares if q > 0), default=Fraction(1))
    return least, tuple((math.sqrt(ratio_float(q / least)), n) for q, n in squares)


def scaled_estimate(scale: tuple, x: float) -> float:
    """The bound in floating point at ``x = 2 sd**2 t / least`` (``scale`` from
    :func:`scale_of`)."""
    if x <= 0:
        return 0.0
    root = math.sqrt(x)
    return sum(n * math.erfc(r / root) for r, n in scale[1])


def stopped_plan(stopped_by: str, n: int, step: Fraction, budget: int,
                 max_memory_gb: float | None) -> str:
    """Why a retraining schedule of ``n`` intervals of ``step`` seconds (at least
    ``n`` when the budget stopped it) was not made.

    >>> stopped_plan("budget", 101, Fraction(1, 3), 100, None)
    'it needs at least 101 intervals (of at most 0.333333 s); the budget (budget=100 intervals) stopped the search; raise budget'
    """
    count = str(n) if n < 10**15 else fraction_g(n)
    need = "at least " if stopped_by == BUDGET else ""
    why = stopped_phrase(stopped_by, budget, None, "intervals",
                         max_memory_gb=max_memory_gb)
    return (f"it needs {need}{count} intervals (of at most {fraction_g(step)} s); "
            f"{why}; raise {to_raise(stopped_by)}")
