"""The maximum margin gamma(D) with a certified interval, R, and Novikoff's (R/gamma)^2.

For labelled data ``D = {(x_i, y_i)}`` and ``z_i = y_i [x_i, 1]`` (augmented; without
the 1 when ``intercept=False``), the worst-case margin of the best unit vector,

    gamma(D) = max_{||u|| = 1} min_i u . z_i,

is, when positive, the distance from the origin to the convex hull of ``{z_i}``
(von Neumann / Gilbert duality). Wolfe's min-norm-point algorithm finds the nearest
hull point ``p`` (a convex combination of at most d + 1 of the ``z_i``); both sides of
the duality then certify the answer:

* ``lower = min_i u . z_i`` for the unit vector ``u = p / ||p||`` (any unit vector's
  worst margin is a lower bound for the best), and
* ``upper = ||p||`` (every unit vector ``v`` has ``min_i v . z_i <= v . p <= ||p||``
  because ``p`` is a convex combination of the ``z_i``).

Both bounds are computed in floating point with rigorous rounding-error bounds
(:func:`verify._internal.exact.dot_error_bound`), so ``lower <= gamma(D) <= upper`` holds for the
exact data. When the hull contains the origin, the data are not separable
(``gamma <= 0``); then :func:`verify.check_separable` supplies the exact Gordan
certificate and ``upper = 0``.

With ``svm=True`` the margin is the hard-margin SVM's: a free intercept that is not in
the norm, ``max_{||w|| = 1, b} min_i y_i (w . x_i + b)``, which is half the distance
between the convex hulls of the two classes; Wolfe's algorithm runs on their
difference polytope through a linear-minimisation oracle, never forming its vertices.

**The result is the interval.** ``gamma`` is a convenience (the midpoint, or the lower
end when float64 does not resolve the margin); the mistake bound derived from it uses
the ends that make it a true bound: ``R`` rounded up (exactly: the smallest float whose
square is at least the largest squared norm), ``gamma`` the lower end, the quotient
rounded up. It instantiates the theorem for the perceptron that learns the way the
question is asked (``bound_theorem`` says which):

* Novikoff (1962), ``(R / gamma)**2``, in the augmented space ``[x, 1]`` (the
  perceptron learning its intercept with the constant 1) or through the origin;
* with ``svm=True``, the intercept theorem with ``c = 1`` (Novikoff in the augmented
  space, the SVM's ``(u, b)`` as comparator; :mod:`verify.proofs`, ``intercept.*``):
  ``(R**2 + 1) (1 + b**2) / gamma**2`` with ``R`` the radius of the inputs. The SVM's
  ``(R / gamma)**2`` bounds no perceptron that learns its intercept.
"""

from __future__ import annotations

import dataclasses
import decimal
import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.exact import fraction_shown
from markone._internal.io import plural
from markone._internal.html import ShownInJupyter
from markone._internal.typing import ArrayLike
from markone._internal.data import Dataset, as_dataset
from markone._internal.validation import check_positive, is_sparse, sparse_refused
from markone._internal.rows import signed_rows
from verify._internal import wolfe_exact
from verify._internal.exact import UNIT_ROUNDOFF, blas_single_thread, dense_rows, dot_error_bound
from verify._internal.novikoff import float_up, novikoff_bound, novikoff_exact
from verify.certificate.cycles import signed_integer_rows
from verify.certificate.kernel import exact_number
from verify.separability import check_separable

__all__ = ["Margin", "max_margin", "min_norm_point", "scaled_data", "novikoff_bound",
           "intercept_theorem_bound", "float_up", "WitnessNovikoff", "witness_novikoff"]


@dataclasses.dataclass(frozen=True)
class Margin(ShownInJupyter):
    """The maximum margin of a labelled data set, with a certified interval.

    Attributes
    ----------
    gamma : float
        An estimate of the maximum worst-case margin, used by no bound: the midpoint
        of ``[lower, upper]`` when separable and the interval is resolved (relative
        width at most ``sqrt(rtol)``; typically 1e-12), the certified ``lower`` when
        the margin is too thin for float64 to resolve it (see ``message``), and 0.0
        when not separable (the hull of ``{y_i x_i}`` contains the origin). The
        result is the interval ``[lower, upper]`` (:attr:`interval`).
    u : ndarray
        A unit vector that attains ``lower``: in the augmented space (last entry the
        intercept weight) by default; in feature space with ``svm=True``. When
        float64 cannot resolve the margin and the interval is found again in exact
        arithmetic (small dense data), ``lower`` is attained by the exact direction
        and ``u`` is that direction rounded to float64.
    offset : float
        The decision function's constant: ``u[-1]`` (times the constant 1) with an
        intercept, 0.0 without, the SVM's ``b`` with ``svm=True``.
    lower, upper : float
        Rigorous bounds ``lower <= gamma(D) <= upper`` for the exact data, rounded
        outward when the margin is beyond float64's range (``message`` then gives it
        as a multiple of a power of two).
    R : float
        Largest norm of an (augmented) input, Novikoff's radius, rounded up (the
        smallest float64 at least the exact radius of the data as given).
    bound : float
        A mistake bound of the perceptron on these data, for every order of
        presentation: the theorem named by ``bound_theorem``, instantiated at ``R``
        and the *lower* end of the interval, rounded up (inf when not separable).
        Without ``svm``: Novikoff's ``(R / lower)**2``. With ``svm=True``: the
        intercept theorem's ``(R**2 + 1) (1 + b**2) / lower**2`` for the perceptron
        that learns its intercept (it was ``(R / gamma)**2``, which bounds no such
        perceptron).
    separable : bool
        Whether some unit vector has a positive margin on every example.
    support : tuple of int
        Examples whose convex combination is the nearest hull point (the support
        vectors); with ``svm=True`` both classes' support examples.
    weights : tuple of float
        The convex weights of ``support`` (summing to 1, per class with ``svm=True``).
    certificate : dict or None
        When not separable: the exact Gordan certificate of
        :func:`verify.check_separable` (index -> Fraction).
    intercept, svm : bool
        The question that was answered.
    iterations : int
        Major iterations of Wolfe's algorithm.
    message : str
        What was found, in words.
    time_s : float
        Wall-clock seconds taken.
    bound_theorem : str
        The theorem ``bound`` instantiates, in words: which perceptron it is about
        (with its intercept as the theorem has it) and which ends it uses.
    bound_exact : Fraction or None
        ``bound`` before rounding up: the theorem's expression evaluated exactly at
        the floats it uses, or at the exact ``R**2`` and ``gamma**2`` when the margin
        was found in exact rationals (``bound_theorem`` says which; a bound beyond
        float64's range, where ``bound`` is inf, is still a number here, and printed
        rounded up to 17 digits); None when not separable.
    R_exact : Fraction or None
        ``R`` before rounding to float64: the radius rounded up to 53 significant
        bits at the data's own scale, exactly. Equal to ``R`` on data of ordinary
        size; on subnormal data (``1e-310``), where a float64 holds fewer digits,
        it keeps all of them, and beyond float64's range (where ``R`` is inf) it is
        still a number (:attr:`R_shown` prints it).
    """

    gamma: float
    u: np.ndarray
    offset: float
    lower: float
    upper: float
    R: float
    bound: float
    separable: bool
    support: tuple
    weights: tuple
    certificate: dict | None
    intercept: bool
    svm: bool
    iterations: int
    message: str
    time_s: float
    bound_theorem: str = ""
    bound_exact: Fraction | None = dataclasses.field(default=None, repr=False)
    R_exact: Fraction | None = dataclasses.field(default=None, repr=False)

    @property
    def R_shown(self) -> str:
        """``R`` as printed: the float, or when the float holds fewer digits than
        the radius has (subnormal data) or is inf, its exact value rounded up to 17
        significant digits.

        >>> m = max_margin([[3e-310, 1e-310], [-2e-310, -2.5e-310]], [1, -1],
        ...                intercept=False)
        >>> m.R_shown, repr(m.R)      # the stored floats' radius: 3.20156211871643385...e-310
        ('3.2015621187164341e-310', '3.20156211871646e-310')
        """
        if self.R_exact is None or (math.isfinite(self.R)
                                    and Fraction(self.R) == self.R_exact):
            return repr(self.R)
        return _digits_up(self.R_exact)

    @property
    def interval(self) -> tuple[float, float]:
        """The result: ``(lower, upper)``, certified to contain the margin."""
        return (self.lower, self.upper)

    @property
    def gap(self) -> float:
        """Relative width of the certified interval, ``(upper - lower) / upper``."""
        return (self.upper - self.lower) / self.upper if self.upper > 0 else 0.0


def max_margin(X: ArrayLike, y: ArrayLike, *, intercept: bool = True, svm: bool = False,
               rtol: float = 1e-12, max_iter: int | None = None) -> Margin:
    """The maximum margin of ``(X, y)``: a certified interval, and a mistake bound.

    Parameters
    ----------
    X : array-like (n_samples, n_features)
        Finite numbers of any kind: floats of any NumPy precision, ints, Fractions or
        strings like ``"3/4"``. Float64 data are used as they are; anything float64
        cannot hold exactly (a longdouble's extra bits, ``"1e-400"``, ``10**400``) is
        rounded once and the interval widened by that rounding (said in ``message``).
        Any magnitude: the work is done at the scale of 1 (a power-of-two rescaling,
        exact), so squares never underflow nor sums overflow.
    y : array-like (n_samples,)
        Two classes of any values (the sorted first is -1), or -1/+1 labels (one
        class only is then accepted).
    intercept : bool
        Margin in the augmented space ``[x, 1]`` (the perceptron's with intercept;
        the intercept weight is part of the unit vector). False: through the origin.
    svm : bool
        Instead, the hard-margin SVM margin: free intercept, not in the norm.
    rtol : float
        Stop when ``upper - lower <= rtol * upper`` (default 1e-12). An interval
        wider than ``sqrt(rtol)`` (relative) is said to be unresolved by float64:
        ``gamma`` is then its lower end.
    max_iter : int, optional
        Cap on Wolfe's major iterations (default ``20 * (n + d)``).

    Returns
    -------
    Margin

    Raises
    ------
    ValueError
        On NaN/inf, empty data, mismatched lengths, labels that are not two classes,
        ``svm=True`` with one class only, or ``svm=True`` with ``intercept=False``.

    Examples
    --------
    AND on {0,1}^2 (labels -1 except for (1, 1)) through the origin of the augmented
    space: the best unit vector is (2, 2, -3)/sqrt(17), margin 1/sqrt(17).

    >>> import numpy as np
    >>> X = [[0, 0], [0, 1], [1, 0], [1, 1]]
    >>> m = max_margin(X, [-1, -1, -1, 1])
    >>> bool(m.separable), round(m.gamma * 17**0.5, 9), np.round(m.u * 17**0.5, 6)
    (True, 1.0, array([ 2.,  2., -3.]))
    >>> bool(m.lower <= 1 / 17**0.5 <= m.upper), round(m.bound, 6)   # R^2 = 3
    (True, 51.0)
    >>> print(m.bound_theorem)
    Novikoff (1962) in the augmented space [x, 1]: the perceptron that learns its intercept (constant 1) makes at most (R/gamma)^2 mistakes in any order (R rounded up, gamma the lower end of its interval)

    XOR is not separable: gamma is 0 and an exact certificate says why.

    >>> m = max_margin([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1])
    >>> m.separable, m.gamma, m.upper, sorted(m.certificate)
    (False, 0.0, 0.0, [0, 1, 2, 3])

    The SVM margin of two points 4 apart is 2, with offset b = -2 for u = 1. A
    perceptron that learns its intercept is bounded by the intercept theorem,
    (R^2 + 1)(1 + b^2)/gamma^2 = 17 * 5 / 4, not by the SVM's (R/gamma)^2 = 4:

    >>> m = max_margin([[0.0], [4.0]], [0, 1], svm=True)
    >>> round(m.gamma, 12), round(m.offset, 12), round(m.bound, 9)
    (2.0, -2.0, 21.25)
    """
    t0 = time.perf_counter()
    if svm and not intercept:   # refused, not silently ignored
        raise ValueError("svm=True is the hard-margin SVM's margin, whose intercept is "
                         "free; intercept=False does not apply to it: drop one of the two.")
    with blas_single_thread():
        return _max_margin(X, y, intercept, svm, rtol, max_iter, t0)


def _max_margin(X, y, intercept, svm, rtol, max_iter, t0):
    data = as_dataset(X, y)
    y_pm1 = data.y
    rtol = check_positive(rtol, "rtol")
    prob = _scaled_problem(data, intercept, svm)
    n, d = prob.Z.shape
    if max_iter is None:
        max_iter = 20 * (n + d)
    if svm:
        m = _svm_margin(prob, y_pm1, rtol, max_iter, t0)
    else:
        Z = prob.Z
        R = _radius(Z, prob.delta)
        p, lam, support, iters = min_norm_point(Z, rtol=rtol, max_iter=max_iter)
        u, lower = _unit_and_lower(Z, p)
        lower -= prob.delta
        upper = _hull_norm_upper(Z, support, lam) + prob.delta
        if upper - lower > math.sqrt(rtol) * upper:   # float64 does not resolve it
            u, lower, upper = _exact_interval(
                Z, support, prob.delta, lambda: lower > 0 or _separable(prob, intercept),
                max_iter) or (u, lower, upper)
        offset = float(u[-1]) if intercept else 0.0
        if lower > 0:
            m = _separable_margin(u, lower, upper, R, support, lam, intercept, iters, t0,
                                  offset=offset, rtol=rtol,
                                  bound=novikoff_exact(R, lower))
        else:
            m = _unseparated(prob, y_pm1, intercept, u, lower, upper, R, support, lam,
                             iters, t0, svm=False, offset=offset)
        if m.separable and m.message == "thin" and prob.delta:
            return _at_the_data_scale(_unscaled(m, prob, t0), prob, max_iter, t0)
    return _unscaled(m, prob, t0)


#: Why a margin of exact data is found again in rationals at the data's own scale.
_FAR_APART = ("the exact data are beyond float64's range at any one scale (their "
              "largest cell and their margin are too far apart)")


def _at_the_data_scale(m, prob, max_iter, t0):
    """The margin ``m`` of exact data that no one float64 scale holds (cells of 1e400
    beside the intercept's 1: scaled into range, the 1 underflows), found again in
    rationals on the exact data when they are small: its interval, and ``gamma**2``
    exactly in the message. ``m`` as it was when the data are large or the exact
    nearest point is not found."""
    F, y = prob.data.fractions, prob.data.y
    found = None
    if len(F) * (len(F[0]) + 1) <= _EXACT_ENTRIES:
        Z = np.empty((len(F), len(F[0]) + int(m.intercept)), dtype=object)
        Z[:] = [[v * int(t) for v in r] + ([Fraction(int(t))] if m.intercept else [])
                for r, t in zip(F, y)]
        found = _interval_on(Z, wolfe_exact.exact_support(Z, max_iter), 0.0, exact=True)
    if found is None or not found[3]:
        return dataclasses.replace(m, message=(
            f"{m.message}; {_FAR_APART}, and too many to find the margin in exact "
            "rationals here: `markone verify separable` decides separability exactly, "
            "with an exact witness"))
    u, lower, upper, _, gamma_sq = found
    # the nearest point is exact, so gamma^2 is: (R/gamma)^2 exactly, even when gamma
    # is below float64's range and its lower end rounds to 0.0
    bound = max(sum(v * v for v in row) for row in Z) / gamma_sq
    out = dataclasses.replace(
        m, u=u, offset=float(u[-1]) if m.intercept else 0.0, lower=lower, upper=upper,
        gamma=0.5 * (lower + upper) if math.isfinite(upper) else lower,
        bound=float_up(bound), bound_exact=bound,
        bound_theorem=_bound_theorem(m, ends=_EXACT_ENDS))
    shown = fraction_shown(gamma_sq)
    message = (f"{_message(out, thin=False)}; {_FAR_APART}, so the margin was found in "
               f"exact rationals: gamma^2 = {shown}"
               f"{' (its exact fraction is too long to show)' if 'about' in shown else ''}")
    return dataclasses.replace(out, message=message, time_s=time.perf_counter() - t0)


# --------------------------------------------------------------------------------------
# numbers at the edges: one power of two brings the data into float64's comfortable
# range; exact data that float64 cannot hold are rounded once, with the rounding bound


@dataclasses.dataclass(frozen=True)
class _ScaledProblem:
    """The data as float64, scaled by ``2**k``: ``Z`` (signed, augmented rows; or the
    plain inputs for the SVM) differs from the exact scaled data by at most ``delta``
    in the norm of every row. ``data`` are the checked data, for the exact verdicts."""

    Z: np.ndarray
    k: int
    delta: float
    data: Dataset
    #: the exact verdicts on ``data`` decided so far, by intercept (decided once)
    verdicts: dict = dataclasses.field(default_factory=dict, compare=False, repr=False)


def _scaled_problem(data, intercept, svm):
    """Float64 data within range (largest entry in [1/2, 1)), and how it was made.

    A margin scales with the data (``gamma(2**k D) = 2**k gamma(D)``, the SVM's too),
    so working at the scale of 1 avoids the underflow of squares below ~1e-154 and the
    overflow of sums near 1e308; multiplying by a power of two is exact. Exact input
    (Fractions, strings, longdouble or integers that float64 cannot hold) is scaled in
    exact arithmetic and rounded once; ``delta`` bounds that rounding.
    """
    if data.sparse:
        return _scaled_sparse(data, intercept, svm)
    if data.exact_floats is not None:
        return _scaled_floats(data, intercept, svm)
    return _scaled_fractions(data, intercept, svm)


def _scaled_floats(data, intercept, svm):
    """:func:`_scaled_problem` of data that float64 holds exactly."""
    Z = data.exact_floats if svm else data.signed_floats(intercept)  # (made once)
    top = float(np.abs(Z).max())
    k = 0 if top == 0 else -math.frexp(top)[1]
    with np.errstate(under="ignore"):
        Zs = np.ldexp(Z, k)
    inexact = k < 0 and not np.array_equal(np.ldexp(Zs, -k), Z)
    delta = math.sqrt(Z.shape[1]) * 2.0**-1073 if inexact else 0.0
    return _ScaledProblem(Zs, k, delta, data)


def _scaled_fractions(data, intercept, svm):
    """:func:`_scaled_problem` of exact data (scaled exactly, rounded once).

    In integers: an entry ``p / q`` scaled by ``2**k`` rounds to the float
    ``(p 2**k) / q`` (Python's integer division is correctly rounded, as
    ``float(Fraction)`` is), and its rounding error is summed per row over a common
    denominator: the same numbers as in Fractions, without a gcd per operation."""
    F = data.fractions
    rows = _ratios(F, data.y, intercept, svm)
    top = max((abs(v) for r in F for v in r), default=Fraction(0))
    if intercept and not svm:
        top = max(top, Fraction(1))
    k = 0 if top == 0 else -_floor_log2(top) - 1
    up, down = (1 << k, 1) if k >= 0 else (1, 1 << -k)
    Zs = np.array([[(p * up) / (q * down) for p, q in r] for r in rows])
    # the rounding of each row, exactly: only the entries float64 could not hold count
    # (an exact constant 1 beside entries of 1e-21 adds nothing)
    error_sq = max((_rounding_sq(r, fr, up, down) for r, fr in zip(rows, Zs.tolist())),
                   default=Fraction(0))
    return _ScaledProblem(Zs, k, _sqrt_up(error_sq), data)


def _ratios(F, y_pm1, intercept, svm):
    """The rows :func:`_scaled_fractions` scales, as ``(numerator, denominator)``
    pairs: the signed, augmented examples (the plain inputs for the SVM)."""
    if svm:
        return [[(v.numerator, v.denominator) for v in r] for r in F]
    return [[(v.numerator * int(t), v.denominator) for v in r]
            + ([(int(t), 1)] if intercept else []) for r, t in zip(F, y_pm1)]


def _rounding_sq(row, floats, up, down):
    """``sum((f - p up / (q down))**2)`` over a row's entries ``(p, q)`` and their
    floats ``f``, exactly (a Fraction)."""
    num, den = 0, 1
    for (p, q), f in zip(row, floats):
        fn, fd = f.as_integer_ratio()
        e_num, e_den = fn * q * down - p * up * fd, fd * q * down
        if e_num:
            num, den = num * e_den * e_den + e_num * e_num * den, den * e_den * e_den
    return Fraction(num, den)


def _sqrt_up(q):
    """The smallest float64 whose square is at least the rational ``q >= 0``.

    >>> _sqrt_up(Fraction(4)), _sqrt_up(Fraction(2)) ** 2 >= 2, _sqrt_up(Fraction(0))
    (2.0, True, 0.0)
    """
    return _sqrt_bounds(q)[1]


def _sqrt_bounds(q):
    """Floats ``(down, up)`` with ``down**2 <= q <= up**2`` for a rational ``q >= 0``,
    each within an ulp or two of ``sqrt(q)`` at any magnitude (an integer square root
    of ``q`` scaled to 110 bits, never a float square that underflows).

    >>> _sqrt_bounds(Fraction(9, 4)), _sqrt_bounds(Fraction(10) ** -320)
    ((1.5, 1.5), (1e-160, 1.0000000000000001e-160))
    """
    if q == 0:
        return 0.0, 0.0
    s = max(0, (110 - q.numerator.bit_length() + q.denominator.bit_length()) // 2 + 1)
    r = math.isqrt(math.floor(q * 4**s))   # r <= sqrt(q) 2**s < r + 1
    below = Fraction(r, 2**s)
    return -float_up(-below), float_up(below if below**2 == q else Fraction(r + 1, 2**s))


def _scaled_sparse(data, intercept, svm):
    """:func:`_scaled_problem` for scipy.sparse input: the signed rows stay CSR and
    only their stored entries are scaled (exactly, by a power of two)."""
    Xs = data.source
    if svm:
        raise sparse_refused(Xs, what="max_margin(svm=True)")
    Z = data.signed_floats(intercept)
    top = float(np.abs(Z.data).max()) if Z.nnz else 0.0
    k = 0 if top == 0 else -math.frexp(top)[1]
    Zs = Z.copy()
    with np.errstate(under="ignore"):
        Zs.data = np.ldexp(Z.data, k)
    inexact = k < 0 and not np.array_equal(np.ldexp(Zs.data, -k), Z.data)
    delta = math.sqrt(Z.shape[1]) * 2.0**-1073 if inexact else 0.0
    return _ScaledProblem(Zs, k, delta, data)


def scaled_data(X: ArrayLike, y: ArrayLike, intercept: bool = True
                ) -> tuple[np.ndarray, int]:
    """The signed (augmented) examples ``y_i [x_i, 1]`` scaled by ``2**k`` into
    float64's comfortable range (largest entry in [1/2, 1)); returns ``(Z, k)``.

    Quantities that do not depend on the scale (``R / gamma``, a direction's worst
    margin relative to ``R``) can be computed on ``Z`` without under- or overflow.
    Exact input that float64 cannot hold is rounded once (to nearest).

    >>> Z, k = scaled_data([[1e-200], [-3e-200]], [1, 0], intercept=False)
    >>> bool(Z.max() < 1 <= 2 * Z.max()), k > 600
    (True, True)
    """
    prob = _scaled_problem(as_dataset(X, y), intercept, svm=False)
    return prob.Z, prob.k


def _floor_log2(q):
    """``floor(log2(q))`` of a positive Fraction, exactly."""
    e = q.numerator.bit_length() - q.denominator.bit_length()
    return e if Fraction(2) ** e <= q else e - 1


def _unscaled(m, prob, t0):
    """The margin of the scaled problem, brought back to the data's scale: each
    bound rounded outward, and said when float64 cannot show it."""
    k = prob.k
    lower, lo_ok = _times_pow2(m.lower, -k, -1)
    upper, up_ok = _times_pow2(m.upper, -k, +1)
    R, _ = _times_pow2(m.R, -k, +1)
    gamma = 0.0 if not m.separable else float(np.clip(
        _times_pow2(m.gamma, -k, 0)[0], lower, upper))
    if math.isinf(gamma):  # beyond float64: the largest float, still certified
        gamma = lower
    offset = _times_pow2(m.offset, -k, 0)[0] if m.svm else m.offset
    out = dataclasses.replace(m, lower=lower, upper=upper, R=R, gamma=gamma,
                              offset=offset, R_exact=Fraction(m.R) * Fraction(2) ** -k,
                              bound_theorem=_bound_theorem(m) if m.separable else "")
    message = _message(out, thin=m.message == "thin")
    if prob.delta:
        message += ("; the exact data were rounded to float64 once and the interval "
                    f"widened by that rounding ({prob.delta:.3g} at the working scale)")
    if not (lo_ok and up_ok):
        message += (f"; the margin lies outside float64's range: gamma = {m.gamma!r} * "
                    f"2**{-k}, certified within [{m.lower!r}, {m.upper!r}] * 2**{-k}, "
                    "shown here rounded outward")
    return dataclasses.replace(out, message=message, time_s=time.perf_counter() - t0)


def _message(m, *, thin):
    """The margin in words: the certified interval, then the mistake bound and the
    theorem it instantiates."""
    if not m.separable:
        return (f"not separable: the convex hull of the signed examples contains the "
                "origin (exact certificate on "
                f"{plural(len(m.certificate), 'example')}); "
                "gamma <= 0")
    what = "SVM margin" if m.svm else "margin"
    interval = f"certified within [{m.lower!r}, {m.upper!r}]"
    if thin:
        head = (f"separable (exact witness), but the {what} is too thin for float64 to "
                f"resolve: {interval}; gamma is the lower end")
    else:
        head = f"separable with {what} {interval} (midpoint {m.gamma:.12g})"
    return f"{head}; mistake bound {_shown_up(m.bound, m.bound_exact)}: {m.bound_theorem}"


def _shown_up(value, exact):
    """A bound as printed: the float, or beyond float64 the exact value rounded up to
    17 significant digits.

    >>> _shown_up(float("inf"), Fraction(10**320 + 1))
    '1.0000000000000001e+320'
    """
    if math.isfinite(value) or exact is None:
        return repr(value)
    return _digits_up(exact)


def _digits_up(exact):
    """A positive rational rounded up to 17 significant digits, as text."""
    with decimal.localcontext() as ctx:
        ctx.prec, ctx.rounding = 17, decimal.ROUND_CEILING
        q = decimal.Decimal(exact.numerator) / decimal.Decimal(exact.denominator)
    return f"{q:e}".lower()


#: The ends a mistake bound is taken at when the margin was found in exact rationals.
_EXACT_ENDS = "R^2 and gamma^2 exact, the quotient rounded up"


def _bound_theorem(m, ends="R rounded up, gamma the lower end of its interval"):
    """The theorem that ``m.bound`` instantiates, in words, at the ``ends`` it uses."""
    if m.svm:
        return ("the intercept theorem with c = 1 (Novikoff in the augmented space "
                "[x, 1], the SVM's (u, b) as comparator): the perceptron that learns its "
                "intercept (constant 1) makes at most (R^2 + 1)(1 + b^2)/gamma^2 mistakes "
                f"in any order ({ends}, b = offset)")
    where = "in the augmented space [x, 1]" if m.intercept else "through the origin"
    who = ("the perceptron that learns its intercept (constant 1)" if m.intercept
           else "the perceptron without intercept")
    return (f"Novikoff (1962) {where}: {who} makes at most (R/gamma)^2 mistakes in any "
            f"order ({ends})")


def _times_pow2(v, e, direction):
    """``(v * 2**e, exact)`` in float64, rounded down (direction -1), up (+1) or to
    nearest (0) when inexact; an overflow rounds down to the largest float."""
    with np.errstate(over="ignore", under="ignore"):
        out = float(np.ldexp(v, e))
    if not math.isfinite(v):
        return out, True
    true = Fraction(v) * Fraction(2) ** e
    if math.isinf(out):
        if direction * out < 0:
            return math.copysign(np.finfo(np.float64).max, out), False
        return out, False
    got = Fraction(out)
    if got == true or direction == 0:
        return out, got == true
    if (got - true) * direction < 0:  # rounded the wrong way: one step outward
        out = float(np.nextafter(out, direction * np.inf))
    return out, False


def _separable_margin(u, lower, upper, R, support, lam, intercept, iters, t0, *,
                      offset, rtol, bound, svm=False):
    """A separable margin with its exact mistake ``bound``; ``gamma`` the midpoint, or
    the lower end (message ``"thin"``) when the interval is wider than
    ``sqrt(rtol)``."""
    thin = upper - lower > math.sqrt(rtol) * upper
    return Margin(
        gamma=lower if thin else 0.5 * (lower + upper), u=u, offset=offset, lower=lower,
        upper=upper, R=R, bound=float_up(bound), bound_exact=bound, separable=True,
        support=tuple(int(i) for i in support),
        weights=tuple(float(v) for v in lam), certificate=None, intercept=intercept,
        svm=svm, iterations=iters,
        message="thin" if thin else "", time_s=time.perf_counter() - t0)


def _unseparated(prob, y_pm1, intercept, u, lower, upper, R, support, lam, iters, t0, *,
                 svm, offset):
    """Decide exactly when the float margin is not positive."""
    verdict = _verdict(prob, intercept)
    if verdict.separable is None:  # pragma: no cover - needs a solver timeout
        raise RuntimeError(f"could not decide separability: {verdict.message}")
    if verdict.separable:
        # Too thin for float64: the exact witness gives the certified lower end.
        w = _witness_floats(verdict.witness, prob.k if svm else 0)
        Z = _signed(prob.Z, y_pm1, True) if svm else prob.Z
        low2 = _worst_margin(Z, w, -1 if svm else None) - prob.delta
        bound = None
        if low2 > lower:
            lower = low2
            if svm:
                u, offset = w[:-1] / np.linalg.norm(w[:-1]), w[-1] / np.linalg.norm(w[:-1])
                bound = _intercept_exact(R, lower, w[:-1], w[-1], prob.k)
            else:
                u = w / np.linalg.norm(w)
                offset = float(u[-1]) if intercept else 0.0
                bound = novikoff_exact(R, lower)
        gamma = max(lower, 0.0)  # conservative: the bound uses the lower end
        return Margin(
            gamma=gamma, u=u, offset=offset, lower=gamma, upper=upper, R=R,
            bound=float_up(bound), bound_exact=bound, separable=True,
            support=tuple(int(i) for i in support), weights=tuple(float(v) for v in lam),
            certificate=None, intercept=intercept, svm=svm, iterations=iters,
            message="thin", time_s=time.perf_counter() - t0)
    cert = verdict.certificate
    assert cert is not None   # not separable: a certificate comes with the verdict
    return Margin(
        gamma=0.0, u=u, offset=offset, lower=min(lower, 0.0), upper=0.0, R=R,
        bound=float("inf"), separable=False, support=tuple(sorted(cert)),
        weights=tuple(float(cert[i] / sum(cert.values())) for i in sorted(cert)),
        certificate=cert, intercept=intercept, svm=svm, iterations=iters,
        message="", time_s=time.perf_counter() - t0)


def _witness_floats(witness, k):
    """An exact witness (Fractions) as float64, its direction kept: scaled by a power
    of two to the range of 1 first; with ``k`` the last entry (the SVM's offset) is
    multiplied by ``2**k`` to match data scaled by ``2**k``."""
    w = [Fraction(v) for v in witness]
    if k:
        w[-1] *= Fraction(2) ** k
    top = max(abs(v) for v in w)
    e = -_floor_log2(top) if top else 0
    return np.array([float(v * Fraction(2) ** e) for v in w])


def intercept_theorem_bound(R: float, lower: float, u: np.ndarray, b: float, k: int = 0
                            ) -> float:
    """The intercept theorem with ``c = 1``, rounded up: a perceptron that learns its
    intercept (the constant 1 appended) makes at most
    ``(R**2 + 1) (1 + b**2 / ||u||**2) / lower**2`` mistakes when
    ``y_i (u . x_i + b) / ||u|| >= lower > 0`` and ``||x_i|| <= R`` on every example
    (:mod:`verify.proofs`, ``intercept.*``: Novikoff in the augmented space with the
    comparator ``(u, b) / ||u||``, of squared norm ``1 + b**2 / ||u||**2``).

    ``R``, ``lower`` and ``b`` may be given for the data scaled by ``2**k``, the
    constant then being ``2**k``; the bound does not depend on the scale. Exact in
    rationals from the floats given (``u`` need not be a unit vector), then rounded up.

    >>> intercept_theorem_bound(4.0, 2.0, np.array([1.0]), -2.0)   # 17 * 5 / 4
    21.25
    """
    return float_up(_intercept_exact(R, lower, u, b, k))


@dataclasses.dataclass(frozen=True)
class WitnessNovikoff:
    """Novikoff's bound with a witness's own margin (:func:`witness_novikoff`): its
    least score ``gamma``, the largest squared norm ``R2`` of the signed rows, the
    witness's squared norm ``norm_sq``, and ``mistakes``, the most mistakes the theorem
    allows, ``floor(R2 * norm_sq / gamma**2)`` (all exact)."""

    gamma: Fraction
    R2: Fraction
    norm_sq: Fraction
    mistakes: int


def witness_novikoff(X: ArrayLike, y: ArrayLike, witness: Any, *,
                     intercept: bool = True) -> WitnessNovikoff:
    """Novikoff's bound from a separating witness ``w`` itself, exactly: with
    ``gamma = min_i y_i w.[x_i, 1]`` and ``R2 = max_i ||[x_i, 1]||**2``, the perceptron
    from zero makes at most ``R2 ||w||**2 / gamma**2`` mistakes on every stream of the
    data (Coq: ``check_witness_novikoff``, whose conclusion is this formula times
    ``gamma**2``; it starts from the extracted checker's acceptance of ``w``).

    >>> b = witness_novikoff([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1], [2, 2, -3])
    >>> b.gamma, b.R2, b.norm_sq, b.mistakes                 # AND: 3 * 17 / 1
    (Fraction(1, 1), Fraction(3, 1), Fraction(17, 1), 51)

    Raises ValueError when ``w`` does not separate the data (``gamma <= 0``).
    """
    zs, den = signed_integer_rows(X, y, intercept=intercept)
    w = [exact_number(v, "the witness") if isinstance(v, str) else Fraction(v)
         for v in witness]
    if len(w) != len(zs[0]):
        raise ValueError(f"the witness has {len(w)} entries, the rows {len(zs[0])}.")
    wden = math.lcm(*(v.denominator for v in w))
    wi = [int(v * wden) for v in w]
    gamma = Fraction(min(sum(map(int.__mul__, wi, z)) for z in zs), wden * den)
    norm_sq = Fraction(sum(v * v for v in w))
    if gamma <= 0:
        raise ValueError(f"the witness does not separate the data: its least score is "
                         f"{gamma}, not > 0.")
    R2 = Fraction(max(sum(v * v for v in z) for z in zs), den * den)
    return WitnessNovikoff(gamma, R2, norm_sq, math.floor(R2 * norm_sq / gamma ** 2))


def _intercept_exact(R, lower, u, b, k=0):
    """:func:`intercept_theorem_bound` as a Fraction (None when ``lower <= 0``)."""
    if not lower > 0:
        return None
    c_sq = Fraction(2) ** (2 * k)
    u_sq = sum(Fraction(v) ** 2 for v in np.asarray(u, dtype=np.float64).tolist())
    comparator_sq = 1 + Fraction(b) ** 2 / (c_sq * u_sq)
    return (Fraction(R) ** 2 + c_sq) * comparator_sq / Fraction(lower) ** 2


def _signed(Xf, y, intercept):
    """The signed (augmented) examples ``y_i [x_i, 1]`` (exact: sign flips only)."""
    return signed_rows(Xf, y, intercept)


def _row_sq_norms(Z):
    """Squared norm of every row of a dense or sparse matrix."""
    if is_sparse(Z):
        return np.asarray(Z.multiply(Z).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", Z, Z)


def _radius(Z, delta=0.0):
    """The largest row norm rounded up (plus ``delta``, the rounding of exact data,
    also rounded up): the smallest float whose square is at least the exact largest
    squared norm. The float squared norms pick the candidate rows; their exact
    squared norms (of the stored values, in rationals) decide."""
    sq = _row_sq_norms(Z)
    top = float(sq.max())
    slack = 2 * (Z.shape[1] + 2) * UNIT_ROUNDOFF * top + Z.shape[1] * 2.0**-1074
    candidates = np.flatnonzero(sq >= top - 2 * slack)
    exact = max(sum(Fraction(v) ** 2 for v in _stored_values(Z, i)) for i in candidates)
    R = _sqrt_up(exact)
    return float_up(Fraction(R) + Fraction(delta)) if delta else R


def _stored_values(Z, i):
    """The values of row ``i`` of a dense or CSR matrix (a sparse row's stored
    entries only), as Python floats."""
    if is_sparse(Z):
        return Z.data[Z.indptr[i]:Z.indptr[i + 1]].tolist()
    return Z[i].tolist()


def _unit_and_lower(Z, p):
    """Unit vector along ``p`` and a rigorous lower bound of its worst margin on ``Z``."""
    norm = float(np.linalg.norm(p))
    if norm == 0 or not np.isfinite(norm):
        u = np.zeros(Z.shape[1])
        u[-1] = 1.0
    else:
        u = p / norm
    return u, _worst_margin(Z, u)


def _worst_margin(Z, w, n_norm=None):
    """Rigorous lower bound of ``min_i Z_i . w / ||w[:n_norm]||`` for the exact data.

    The dot products carry :func:`verify._internal.exact.dot_error_bound`; the norm is bounded
    above (or below, for a negative numerator) by its own rounding error, squares that
    underflow included.
    """
    s = Z @ w
    low = float(np.min(s - dot_error_bound(Z, w)))
    v = w[:n_norm]
    k = v.size + 4
    sq = float(v @ v)
    if sq == 0:
        return -np.inf
    nrm_hi = math.sqrt(sq + v.size * 2.0**-1073) * (1 + k * UNIT_ROUNDOFF)
    nrm_lo = math.sqrt(sq) * (1 - k * UNIT_ROUNDOFF)
    low = low / nrm_hi if low >= 0 else low / nrm_lo
    return low * (1 - 4 * UNIT_ROUNDOFF) if low > 0 else low * (1 + 4 * UNIT_ROUNDOFF)


#: Entries (n x d) up to which an interval that float64 does not resolve is found again
#: in rationals (:func:`_exact_interval`).
_EXACT_ENTRIES = 50_000


def _exact_interval(Z, support, delta, separable=None, max_iter=None):
    """The interval again, in rationals: the nearest point ``p`` of the affine hull of
    the support rows (with every weight positive it is a point of the hull, so
    ``||p||`` is an upper end) and the exact worst margin of the direction ``p`` (a
    lower end); both widened by ``delta``. Returns ``(u, lower, upper)``, ``u`` the
    direction rounded to float64; None for large data, or when ``p`` is not
    in the hull (then the floats' interval stands).

    When the float support is not the nearest point's face (float Wolfe stopped on
    a wrong one: mixed scales cost its minor cycle every digit; the exact test is
    that some row lies below ``p``) and ``separable()`` says the data are separable, the support is found again by Wolfe's algorithm in
    rationals (:func:`verify._internal.wolfe_exact.exact_support`, ``max_iter`` iterations).

    >>> Z = np.array([[2.0**-70, 1.0], [2.0**-69, 1.0], [2.0**-70, -1.0]])
    >>> u, lower, upper = _exact_interval(Z, [0, 2], 0.0)
    >>> u.tolist(), lower == upper == 2.0**-70
    ([1.0, 0.0], True)
    >>> _exact_interval(Z, [0, 1], 0.0) is None                  # a wrong face
    True
    >>> _exact_interval(Z, [0, 1], 0.0, lambda: True, 10)[1] == 2.0**-70
    True
    """
    if Z.shape[0] * Z.shape[1] > _EXACT_ENTRIES:
        return None
    if is_sparse(Z):  # small: the dense rows' rationals, so sparse and dense agree
        Z = Z.toarray()
    found = _interval_on(Z, support, delta)
    if (found is None or not found[3]) and separable is not None and separable():
        found = _interval_on(Z, wolfe_exact.exact_support(Z, max_iter), delta) or found
    return None if found is None else found[:3]


def _separable(prob, intercept):
    """The exact verdict on the problem's data (True, False, or None if undecided)."""
    return _verdict(prob, intercept).separable


def _verdict(prob, intercept):
    """:func:`check_separable` on the problem's data, decided once a problem (the
    bounds and the not-separable margin both ask for it)."""
    if intercept not in prob.verdicts:
        prob.verdicts[intercept] = check_separable(prob.data, None, intercept=intercept,
                                                   progress=False)
    return prob.verdicts[intercept]


def _interval_on(Z, support, delta, exact=False):
    """:func:`_exact_interval` on the given support (dense ``Z``), and whether its
    point is the nearest point of the hull (no row below it: ``min z . p >= ||p||**2``;
    the interval then is as narrow as the roundings of its ends); with ``exact``
    also ``||p||**2``, the squared margin when the point is the nearest."""
    every = [[Fraction(v) for v in row] for row in Z.tolist()]
    p = _hull_point([every[i] for i in support], Z.shape[1])
    if p is None:
        return None
    norm_sq = sum(v * v for v in p)
    worst = min(sum(a * b for a, b in zip(row, p)) for row in every)
    if norm_sq == 0 or worst <= 0:
        return None
    lower, upper = _widened(_sqrt_bounds(worst * worst / norm_sq)[0],
                            _sqrt_bounds(norm_sq)[1], delta)
    top = max(abs(v) for v in p)
    u = np.array([float(v / top) for v in p])
    found = u / np.linalg.norm(u), lower, upper, worst >= norm_sq
    return (*found, norm_sq) if exact else found


def _widened(lower, upper, delta):
    """``[lower, upper]`` widened by ``delta`` (the rounding of the scaled data),
    outwards."""
    if delta:
        lower = -float_up(Fraction(delta) - Fraction(lower))
        upper = float_up(Fraction(upper) + Fraction(delta))
    return lower, upper


def _hull_point(rows, d):
    """The exact point of least norm in the affine hull of ``rows`` when it lies in
    their convex hull (no negative weight), else None."""
    weights = _affine_hull_weights(rows)
    if weights is None or any(w < 0 for w in weights):
        return None
    return [sum(w * r[j] for w, r in zip(weights, rows)) for j in range(d)]


def _affine_hull_weights(rows):
    """The exact weights of the point of least norm in the affine hull of ``rows``
    (its KKT system solved over the rationals), or None when it is singular."""
    import flint

    k = len(rows)
    kkt = [[sum(a * b for a, b in zip(r, t)) for t in rows] + [1] for r in rows]
    kkt = [[flint.fmpq(v.numerator, v.denominator) for v in map(Fraction, r)]
           for r in kkt + [[1] * k + [0]]]
    try:
        sol = flint.fmpq_mat(kkt).solve(flint.fmpq_mat([[0]] * k + [[1]]))
    except ZeroDivisionError:
        return None
    return [Fraction(int(sol[i, 0].p), int(sol[i, 0].q)) for i in range(k)]


def _hull_norm_upper(Z, support, lam):
    """Rigorous upper bound of ``||sum lam_i Z_i|| / sum lam_i`` (a hull point's norm),
    squares that underflow included."""
    S = dense_rows(Z, support).T
    lam = np.asarray(lam, dtype=np.float64)
    p = S @ lam
    err = dot_error_bound(S, lam)
    k = len(lam) + Z.shape[1] + 4
    sq = float(((np.abs(p) + err) ** 2).sum()) + p.size * 2.0**-1073
    num = math.sqrt(sq) * (1 + k * UNIT_ROUNDOFF)
    den = float(lam.sum()) * (1 - k * UNIT_ROUNDOFF)
    return num / den


def min_norm_point(Z: Any, *, rtol: float = 1e-12, max_iter: int = 10_000,
                   lmo: Callable[[np.ndarray], tuple[Any, np.ndarray]] | None = None
                   ) -> tuple[np.ndarray, np.ndarray, list, int]:
    """Wolfe's algorithm: the point of minimum norm in the convex hull of the rows of Z.

    Parameters
    ----------
    Z : ndarray or scipy.sparse CSR (n, d)
        The points (rows).
    rtol : float
        Stop when ``||p||**2 - min_i p . Z_i <= rtol * ||p||**2`` (Wolfe's criterion).
    max_iter : int
        Cap on major iterations.
    lmo : callable, optional
        Linear minimisation oracle ``lmo(x) -> (key, atom)`` returning a point of the
        polytope minimising ``x . atom`` (default: the rows of ``Z``, key = row index).
        Lets the algorithm run on polytopes given implicitly (e.g. a Minkowski
        difference); ``Z`` then only supplies a starting atom in its first row.

    Returns
    -------
    (p, weights, keys, iterations)
        The nearest point, the convex weights of the atoms ``keys`` that make it.

    Examples
    --------
    >>> import numpy as np
    >>> p, lam, keys, _ = min_norm_point(np.array([[1.0, 2.0], [1.0, -2.0]]))
    >>> p.tolist(), sorted(keys)
    ([1.0, 0.0], [0, 1])
    """
    if not is_sparse(Z):
        Z = np.asarray(Z, dtype=np.float64)
    custom = lmo is not None
    if lmo is None:
        def lmo(x):
            i = int(np.argmin(Z @ x))
            return i, dense_rows(Z, [i])[0]
    norms = _row_sq_norms(Z)
    if custom:
        key0, atom0 = lmo(dense_rows(Z, [0])[0])
    else:
        key0 = int(np.argmin(norms))
        atom0 = dense_rows(Z, [key0])[0]
    keys = [key0]
    atoms = [np.asarray(atom0, dtype=np.float64)]
    lam = np.array([1.0])
    x = atoms[0].copy()
    it = 0
    scale = float(max(norms.max(), 1e-300))
    for it in range(1, max_iter + 1):
        key, atom = lmo(x)
        xx = float(x @ x)
        gap = xx - float(x @ atom)
        if gap <= rtol * xx or xx <= 1e-30 * scale or key in keys:
            break
        keys.append(key)
        atoms.append(np.asarray(atom, dtype=np.float64))
        lam = np.append(lam, 0.0)
        keys, atoms, lam, x = _minor_cycle(keys, atoms, lam)
    return x, lam, keys, it


def _minor_cycle(keys, atoms, lam):
    """Wolfe's minor cycle: move the weights ``lam`` of ``atoms`` towards the affine
    minimiser, dropping atoms whose weight reaches zero, until it lies inside their
    hull (or one atom is left). Returns ``(keys, atoms, lam, x)``."""
    while True:
        S = np.array(atoms)
        alpha = _affine_min(S)
        if (alpha > 0).all():
            return keys, atoms, alpha, alpha @ S
        neg = alpha <= 0
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = lam[neg] / (lam[neg] - alpha[neg])
        theta = float(np.min(ratios))
        theta = min(max(theta, 0.0), 1.0)
        lam = theta * alpha + (1 - theta) * lam
        drop = np.flatnonzero(neg)[int(np.argmin(ratios))]
        lam[drop] = 0.0
        keep = lam > 0
        if not keep.any():   # rounding zeroed every weight: keep the largest alone
            keep[int(np.argmax(lam))] = True
            lam = keep.astype(np.float64)
        keys = [k for k, kp in zip(keys, keep) if kp]
        atoms = [a for a, kp in zip(atoms, keep) if kp]
        lam = lam[keep] / lam[keep].sum()
        x = lam @ np.array(atoms)
        if len(atoms) == 1:
            return keys, atoms, lam, x


def _affine_min(S):
    """Coefficients (sum 1) of the point of minimum norm in the affine hull of rows S."""
    k = S.shape[0]
    if k == 1:
        return np.ones(1)
    D = (S[1:] - S[0]).T
    # least squares by QR, as LAPACK's gelsy (numpy's: scipy.linalg costs 0.4 s to
    # import); a wide or rank-deficient D takes the SVD's minimum-norm solution
    if D.shape[0] >= D.shape[1]:
        q, r = np.linalg.qr(D)
        diag = np.abs(np.diag(r))
        if diag.min() > np.finfo(float).eps * D.shape[0] * diag.max():
            return _with_first(np.linalg.solve(r, -(q.T @ S[0])))
    return _with_first(np.linalg.lstsq(D, -S[0], rcond=None)[0])


def _with_first(beta):
    """Affine coefficients ``[1 - sum(beta), beta...]``."""
    return np.concatenate([[1.0 - beta.sum()], beta])


# --------------------------------------------------------------------------------------
# hard-margin SVM: half the distance between the class hulls


def _svm_margin(prob, y, rtol, max_iter, t0):
    Xf = prob.Z
    P, N = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    if P.size == 0 or N.size == 0:
        raise ValueError(
            "svm=True needs examples of both classes; with one class only the SVM "
            "margin is unbounded (use svm=False for the perceptron's margin).")
    XP, XN = Xf[P], Xf[N]

    def lmo(x):
        i = int(np.argmin(XP @ x))
        j = int(np.argmax(XN @ x))
        return (int(P[i]), int(N[j])), XP[i] - XN[j]

    start = (Xf[P[0]] - Xf[N[0]])[None, :]
    p, lam, keys, iters = min_norm_point(start, rtol=rtol, max_iter=max_iter, lmo=lmo)
    R = _radius(Xf, prob.delta)
    norm = float(np.linalg.norm(p))
    u = p / norm if norm > 0 else np.zeros_like(p)
    b = -0.5 * (float(np.min(XP @ u)) + float(np.max(XN @ u)))  # midway between hulls
    # any (u, b) gives a rigorous lower bound: min_i y_i (u . x_i + b) / ||u||
    lo = _worst_margin(_signed(Xf, y, True), np.append(u, b), -1) if norm > 0 else -np.inf
    lo -= prob.delta
    # the hull point sum_k lam_k (x_i - x_j) / 2, as one convex combination of the rows
    # x_i and -x_j with weights lam/2 each (exact negation, no rounded differences)
    rows = np.array([Xf[i] for i, _ in keys] + [-Xf[j] for _, j in keys])
    up = _hull_norm_upper(rows, range(len(rows)), np.concatenate([lam, lam])) + prob.delta
    support = sorted({i for key in keys for i in key})
    weights = _class_weights(keys, lam, support)
    if lo > 0:
        return _separable_margin(u, lo, up, R, support, weights,
                                 True, iters, t0, offset=b, svm=True, rtol=rtol,
                                 bound=_intercept_exact(R, lo, u, b, prob.k))
    return _unseparated(prob, y, True, u, lo, up, R, support, weights, iters, t0,
                        svm=True, offset=b)


def _class_weights(keys, lam, support):
    """Per-example convex weights (within its class) of the SVM's two hull points."""
    w = dict.fromkeys(support, 0.0)
    for (i, j), v in zip(keys, lam):
        w[i] += float(v)
        w[j] += float(v)
    return [w[s] for s in support]
