"""Confidence intervals for the experiments' proportions (not part of the public API).

One formula, written once: the Wilson score interval of a binomial proportion, the set
of success probabilities ``p`` that the score test does not reject at the given
confidence, ``(phat - p)**2 <= z**2 * p * (1 - p) / n``. Its end points are the roots of
that quadratic in ``p``:

    centre = (phat + z**2 / (2 n)) / (1 + z**2 / n)
    half   = z / (1 + z**2 / n) * sqrt(phat (1 - phat) / n + z**2 / (4 n**2))

with ``z`` the two-sided normal quantile of ``confidence``. Unlike ``phat +/- z * sd``
it stays inside [0, 1], and it is not empty at 0 or n successes: with no success in
``n`` trials its upper end is ``z**2 / (n + z**2)``.

>>> lo, hi = wilson_interval(0, 10)
>>> lo, round(hi, 4)
(0.0, 0.2775)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
import numbers
from statistics import NormalDist

__all__ = ["wilson_interval", "clopper_pearson_interval", "median_interval",
           "median_values_needed", "normal_quantile", "clopper_pearson_low",
           "samples_to_match"]

#: The most samples :func:`samples_to_match` searches (a count past it is reported
#: as None, as one that never matches).
MAX_SAMPLES = 10**9
#: The relative slack of :func:`samples_to_match`'s comparison.
MATCH_RTOL = 1e-12


def normal_quantile(confidence: float) -> float:
    """The two-sided standard normal quantile ``z`` of ``confidence`` (in (0, 1)).

    >>> round(normal_quantile(0.95), 6)
    1.959964
    """
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or \
            not 0 < confidence < 1:
        raise ValueError(f"confidence(={confidence!r}) must be a number in (0, 1), "
                         "e.g. 0.95.")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95
                    ) -> tuple[float, float]:
    """The Wilson score interval ``(low, high)`` of ``successes`` out of ``trials``.

    Parameters
    ----------
    successes, trials : int
        Counts, ``0 <= successes <= trials`` and ``trials >= 1``.
    confidence : float
        Two-sided confidence level, in (0, 1).

    Returns
    -------
    (float, float)
        The end points (module doc), clipped into [0, 1] against rounding; exactly 0
        with no success and exactly 1 when every trial succeeded.

    Raises
    ------
    ValueError
        For counts that are not integers, no trials, or more successes than trials.

    Examples
    --------
    >>> [round(v, 4) for v in wilson_interval(5, 10)]
    [0.2366, 0.7634]
    >>> wilson_interval(10, 10)[1]
    1.0
    """
    _check_counts(successes, trials)
    z = normal_quantile(confidence)
    n, phat = int(trials), int(successes) / int(trials)
    scale = 1 + z * z / n
    centre = (phat + z * z / (2 * n)) / scale
    half = z / scale * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def _check_counts(successes, trials):
    """ValueError unless ``0 <= successes <= trials``, ``trials >= 1``, integers."""
    for name, v in (("successes", successes), ("trials", trials)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise ValueError(f"{name}(={v!r}) must be an integer count.")
    if trials < 1 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1; got "
                         f"successes={successes}, trials={trials}.")


def clopper_pearson_interval(successes: int, trials: int, confidence: float = 0.95
                             ) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval ``(low, high)`` of ``successes`` out of
    ``trials``: the binomial tail inversion of scipy's
    ``binomtest(successes, trials).proportion_ci(method="exact")``. It covers the
    true proportion with probability at least ``confidence`` for every proportion
    (Wilson's holds it on average), so it is wider.

    Raises
    ------
    ValueError
        As :func:`wilson_interval`.

    Examples
    --------
    >>> [round(v, 4) for v in clopper_pearson_interval(5, 10)]
    [0.1871, 0.8129]
    >>> lo, hi = clopper_pearson_interval(30, 30)
    >>> round(lo, 4), hi
    (0.8843, 1.0)
    """
    from scipy.stats import binomtest   # heavy: only the yield experiment needs it

    _check_counts(successes, trials)
    normal_quantile(confidence)          # the same check of the level
    ci = binomtest(int(successes), int(trials)).proportion_ci(
        confidence_level=float(confidence), method="exact")
    return float(ci.low), float(ci.high)


def median_interval(values: Sequence[float], confidence: float = 0.95
                    ) -> tuple[float, float]:
    """The exact distribution-free interval ``(low, high)`` of the median of the
    distribution ``values`` were drawn from: the order statistics ``x_(l)`` and
    ``x_(n+1-l)`` of the ``n`` sorted values, with ``l`` the largest such that a
    binomial ``B(n, 1/2)`` is at most ``l - 1`` with probability at most
    ``(1 - confidence) / 2``. As many values lie below the median as above it, so the
    interval covers it with probability at least ``confidence``, whatever the
    distribution (the binomial order-statistic interval; ties only widen it).

    Raises
    ------
    ValueError
        For too few values (at 95%, fewer than 6) or a level outside (0, 1).

    Examples
    --------
    >>> median_interval([5, 1, 4, 2, 3, 6])       # six values: min and max, 96.9%
    (1, 6)
    >>> median_interval(range(20))                # l = 6 at 95% (P(B <= 5) = 2.1%)
    (5, 14)
    >>> median_interval([1, 2, 3])
    Traceback (most recent call last):
    ...
    ValueError: 3 values are too few for a 0.95 interval of their median: give at least 6.
    """
    normal_quantile(confidence)          # the same check of the level
    x = sorted(values)
    n = len(x)
    tail, low_index = 0, 0
    for k in range(n):                   # P(B <= k), in exact integers over 2**n
        tail += math.comb(n, k)
        if tail * 2 > (1 - confidence) * 2 ** n:
            break
        low_index = k + 1
    if low_index == 0:
        raise ValueError(f"{n} values are too few for a {confidence:g} interval of "
                         f"their median: give at least {median_values_needed(confidence)}.")
    return x[low_index - 1], x[n - low_index]


def median_values_needed(confidence: float = 0.95) -> int:
    """The fewest values whose :func:`median_interval` exists at ``confidence``: the
    least ``n`` with ``P(B(n, 1/2) = 0) = 2**-n <= (1 - confidence) / 2``.

    >>> median_values_needed(0.95), median_values_needed(0.99)
    (6, 8)
    """
    normal_quantile(confidence)
    return next(m for m in range(1, 64) if 2 <= (1 - confidence) * 2 ** m)


def clopper_pearson_low(rate: float, trials: int, confidence: float = 0.95) -> float:
    """The lower end of the Clopper-Pearson interval of ``trials`` samples of which a
    fraction ``rate`` succeeded, ``B^-1((1 - confidence) / 2; rate n, (1 - rate) n + 1)``
    (the beta quantile; ``rate n`` need not be a whole number; 0 when it is 0): at
    whole counts, the ``low`` of :func:`clopper_pearson_interval`.

    >>> round(clopper_pearson_low(0.5, 10), 4), clopper_pearson_low(0.0, 10)
    (0.1871, 0.0)
    """
    from scipy.stats import beta   # heavy: only the yield experiment needs it

    normal_quantile(confidence)
    if not 0 <= rate <= 1 or trials < 1:
        raise ValueError(f"need 0 <= rate <= 1 and trials >= 1; got rate={rate}, "
                         f"trials={trials}.")
    k = rate * trials
    if k == 0:
        return 0.0
    return float(beta.ppf((1 - confidence) / 2, k, trials - k + 1))


def samples_to_match(rate: float, bound: float, confidence: float = 0.95) -> int | None:
    """The fewest samples ``n`` at which an estimate succeeding at ``rate`` has a
    Clopper-Pearson lower end (:func:`clopper_pearson_low`) of at least ``bound``
    (less :data:`MATCH_RTOL` of it: bounds computed alike in floats may differ in
    their last bits);
    None when no number does (``rate <= bound < 1``: the lower end stays below the rate
    it estimates) or only more than :data:`MAX_SAMPLES`. The lower end grows with
    ``n``, so the search doubles ``n`` and then bisects.

    >>> samples_to_match(1.0, clopper_pearson_low(1.0, 30)), samples_to_match(0.8, 0.9)
    (30, None)
    >>> samples_to_match(0.9, 0.8)
    65
    """
    if bound <= 0:
        return 1
    if rate <= bound:
        return None

    def enough(n: int) -> bool:
        return clopper_pearson_low(rate, n, confidence) >= bound * (1 - MATCH_RTOL)

    hi = 1
    while not enough(hi):
        if hi > MAX_SAMPLES:
            return None
        hi *= 2
    lo = hi // 2            # not enough (or 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi
