"""Mistake bounds checked on runs of the core: Novikoff, Freund & Schapire, the cost of
an intercept, the multiclass (Kesler) bound, and sample compression.

* :func:`check_mistake_bound`: Novikoff (1962). On data separable with margin
  ``gamma`` by a unit vector, inside a ball of radius ``R``, the perceptron makes at most
  ``(R/gamma)^2`` mistakes, whatever the order. The check runs :func:`markone.train` and
  compares; a violation cannot happen, so it raises :class:`BoundViolation` as a bug.
* :func:`freund_schapire_bound`: Freund & Schapire (1999). On any sequence, for a unit
  ``u`` and ``gamma > 0``, with deviations ``d_t = max(0, gamma - y_t u.x_t)`` and
  ``D = ||d||``, one pass makes at most ``((R + D)/gamma)^2`` mistakes.
* :func:`intercept_cost`: an intercept learned by appending a constant ``c`` costs
  ``(R^2 + c^2)(1 + b^2/c^2)/gamma^2``, smallest at ``c^2 = R|b|`` where it is
  ``(R + |b|)^2/gamma^2``.
* :func:`check_multiclass_bound`: the argmax multiclass perceptron is the binary
  perceptron on Kesler's construction (``psi`` with ``x`` in the true class's block and
  ``-x`` in the predicted one's), so it makes at most ``2 (R/gamma)^2`` mistakes.
* :func:`check_compression`: re-running only the mistakes, in the order they happened,
  rebuilds the final weight vector exactly (the perceptron is a compression scheme).

Examples
--------
>>> X = [[0, 0], [0, 1], [1, 0], [1, 1]]; y = [-1, -1, -1, 1]      # AND
>>> r = check_mistake_bound(X, y, order="shuffle", runs=5, seed=0)
>>> r.held, max(r.mistakes) <= r.bound, round(r.bound, 6)
(True, True, 51.0)
>>> c = intercept_cost(R=1.0, b=4.0, gamma=0.5)
>>> c.c_opt, c.bound_min, c.checked
(2.0, 100.0, True)
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import Any

import numpy as np

from markone._internal.data import Dataset, as_dataset
from markone._internal.io import counted
from markone._internal.progress import search_bar
from markone._internal.typing import ArrayLike, Order, Seed
from markone._internal.validation import (
    check_choice,
    check_int_at_least,
    check_matrix,
    check_positive,
    child_seeds,
    each_child_seed,
    sparse_refused,
)
from markone import engine
from markone.engine import augment
from verify._internal.novikoff import novikoff_bound
from verify.errors import BoundViolation
from verify.margin import _radius, max_margin, scaled_data

__all__ = [
    "MistakeTally",
    "MistakeBoundReport",
    "FreundSchapireReport",
    "InterceptCost",
    "MulticlassBoundReport",
    "CompressionReport",
    "check_mistake_bound",
    "freund_schapire_bound",
    "intercept_bound",
    "intercept_cost",
    "check_multiclass_bound",
    "check_compression",
]

_RTOL = 1e-9   # slack for a float bound against an integer count


@dataclass(frozen=True)
class MistakeTally:
    """The mistakes of runs summed up as they come, in exact integers: how many runs,
    the fewest and the most mistakes of one run, and their total. It keeps no run, so
    its memory does not grow with the runs (``markone verify bound --runs 10**8``).

    >>> t = MistakeTally.of(iter([3, 5, 4]))
    >>> t.runs, t.fewest, t.most, t.total
    (3, 3, 5, 12)
    """

    runs: int = 0
    fewest: int = 0
    most: int = 0
    total: int = 0

    def add(self, mistakes: int) -> MistakeTally:
        """The tally with one more run, of ``mistakes`` mistakes."""
        m = int(mistakes)
        if not self.runs:
            return MistakeTally(1, m, m, m)
        return MistakeTally(self.runs + 1, min(self.fewest, m), max(self.most, m),
                            self.total + m)

    @classmethod
    def of(cls, counts: Iterable[int]) -> MistakeTally:
        """The tally of ``counts`` (each run's mistakes), read once, one at a time."""
        tally = cls()
        for c in counts:
            tally = tally.add(c)
        return tally


@dataclass(frozen=True)
class _BoundCheck:
    """Mistakes of runs against a bound (fields shared by the reports below)."""

    mistakes: tuple
    R: float
    gamma: float
    bound: float
    ratio: float
    held: bool
    tally: MistakeTally

    @property
    def stopped_by(self) -> str:
        """``"budget"`` when a run stopped at ``max_epochs`` before a clean pass (its
        mistakes so far were still checked), else ``""``."""
        return "" if getattr(self, "converged", True) else "budget"


def _judge(cls, counts, bound, bug, *, tally=None, **fields):
    """Build a report of ``cls`` on the mistakes of each run (``counts``; or, when
    only their ``tally`` was kept, ``()``); raise :class:`BoundViolation` (message
    ``bug``) when a run exceeded ``bound``."""
    counts = tuple(int(c) for c in counts)
    tally = MistakeTally.of(counts) if tally is None else tally
    held = tally.most <= bound * (1 + _RTOL)
    report = cls(mistakes=counts, bound=bound, ratio=tally.most / bound, held=held,
                 tally=tally, **fields)
    if not held:
        raise BoundViolation(f"BUG: a run made {tally.most} mistakes, more than "
                             f"{bug} = {bound:.6g}. Please report it with the data.",
                             report)
    return report


@dataclass(frozen=True)
class MistakeBoundReport(_BoundCheck):
    """Mistakes of runs of the core against Novikoff's bound ``(R/gamma)^2``.

    Attributes
    ----------
    mistakes : tuple of int
        Total mistakes of each run (until a clean pass); empty when the runs were
        only tallied (``per_run=False``).
    tally : MistakeTally
        The runs, the fewest and most mistakes of one, and their total.
    R, gamma, bound : float
        Radius of the (augmented) data, the margin used, ``(R/gamma)^2``.
    ratio : float
        Largest mistakes over the bound (<= 1).
    held : bool
        True (a violation raises :class:`BoundViolation`).
    gamma_source : str
        ``"max_margin"`` (certified, :func:`verify.max_margin`), ``"u"`` (the worst
        margin of the given ``u``) or ``"given"`` (trusted as passed).
    order, intercept : the runs' settings.
    converged : bool
        Whether every run reached a clean pass within ``max_epochs`` (when not, the
        mistakes counted so far were checked: a run still below the bound cannot yet
        contradict it).
    """

    gamma_source: str
    order: object = field(repr=False)
    intercept: bool = True
    converged: bool = True


def _margin_of(u, Z, name="u"):
    u = check_matrix(np.asarray(u).reshape(1, -1), name=name)[0]
    if u.shape[0] != Z.shape[1]:
        raise ValueError(
            f"{name} has {u.shape[0]} entries but the (augmented) inputs have "
            f"{Z.shape[1]}; with intercept=True append the intercept weight to {name}.")
    nu = np.linalg.norm(u)
    if not np.isfinite(nu) or nu == 0:
        raise ValueError(f"{name} must be a non-zero finite vector.")
    return u / nu, Z @ (u / nu)


def _train(data, **kw):
    """:func:`markone.train` on checked data, its convergence warning silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return engine.train(data, None, **kw)


def check_mistake_bound(X: ArrayLike, y: ArrayLike, *, order: Order = "given",
                        runs: int = 1, seed: Seed = None, u: ArrayLike | None = None,
                        gamma: float | None = None, intercept: bool = True,
                        exact: bool = False, max_epochs: int = 100_000,
                        progress: bool | None = None, per_run: bool = True
                        ) -> MistakeBoundReport:
    """Run the perceptron and check Novikoff's bound ``(R/gamma)^2`` on each run.

    Parameters
    ----------
    X, y : array-like
        Separable data (two classes, any labels); with ``exact=True`` also Fractions
        or strings like ``"3/4"``.
    order : "given", "shuffle" or sequence of int
        Presentation order (as in :func:`markone.train`); with ``"shuffle"`` each run
        has its own seed drawn from ``seed``.
    runs : int, default 1
    seed : int or Generator, optional
    u : array-like, optional
        A separating vector in the augmented space (intercept weight last); the margin
        is then its worst margin ``min_i y_i u.x_i / ||u||``.
    gamma : float, optional
        A margin to trust as given (with or without ``u``); by default the certified
        maximal margin of :func:`verify.max_margin`.
    intercept : bool, default True
    exact : bool, default False
        Train in exact arithmetic (any magnitude; the float run refuses data whose
        scores under- or overflow).
    max_epochs : int, default 100,000
        The budget of each run: at most ``min(bound, max_epochs)`` passes (a run makes
        at most ``bound`` mistakes, so with a finite bound it converges within
        ``bound + 1`` passes). A run stopped by the budget is reported with
        ``converged=False``, its mistakes so far still checked.
    progress : bool, optional
        Show a progress bar of the runs (tqdm, on stderr; ``None``: only on a
        terminal, once the runs take more than half a second). It changes no result.
    per_run : bool, default True
        Keep each run's mistakes in ``mistakes``; with False only their ``tally``
        (runs, fewest, most, total), so the memory does not grow with ``runs``.

    Returns
    -------
    MistakeBoundReport

    Raises
    ------
    ValueError
        When the data (or ``u``) do not separate: there is no bound to check.
    BoundViolation
        When a run exceeds the bound (a bug).

    Examples
    --------
    >>> import markone
    >>> X, y = markone.datasets.orthonormal(6, labels=[1, -1, 1, 1, -1, -1])
    >>> r = check_mistake_bound(X, y, intercept=False)
    >>> r.mistakes, round(r.bound, 9), round(r.ratio, 9)   # the bound is met
    ((6,), 6.0, 1.0)
    """
    runs = check_int_at_least(runs, "runs", 1)
    max_epochs = check_int_at_least(max_epochs, "max_epochs", 1)
    data = as_dataset(X, y)
    Zs, k = scaled_data(data, None, intercept)  # Z * 2**k, at the scale of 1 (or CSR)
    Rs = _radius(Zs)
    R = _pow2(Rs, -k)
    if gamma is not None:
        g, source = check_positive(gamma, "gamma"), "given"
        bound = novikoff_bound(R, g)
    elif u is not None:
        _, margins = _margin_of(u, Zs)
        gs, source = float(margins.min()), "u"
        if gs <= 0:
            raise ValueError(
                f"u does not separate the data (worst margin {_pow2(gs, -k):.6g} <= 0 "
                f"at {counted(np.argmin(margins))}); pass a separating u or omit it.")
        g, bound = _pow2(gs, -k), novikoff_bound(Rs, gs)
    else:
        m = max_margin(data, None, intercept=intercept)
        if not m.separable:
            raise ValueError(
                "the data are not linearly separable, so no mistake bound applies; "
                "see verify.check_cycling (bounded weights) or freund_schapire_bound.")
        g, source = float(m.lower), "max_margin"
        bound = m.bound   # Novikoff's at R rounded up and the margin's lower end
    epochs = int(min(bound + 2, max_epochs))
    mistakes, tally, converged = [], MistakeTally(), True
    with search_bar(runs, "check_mistake_bound: runs", progress, unit="run") as bar:
        for s in each_child_seed(seed, runs):   # one seed at a time: --runs 10**8
            r = _train(data, intercept=intercept, order=order, seed=s, exact=exact,
                       max_epochs=epochs)
            tally = tally.add(r.mistakes)
            if per_run:
                mistakes.append(r.mistakes)
            converged = converged and r.converged
            bar.update(1)
    bug = (f"Novikoff's bound (R/gamma)^2 with R={R:.6g}, gamma={g:.6g} from {source}"
           + (" (the given gamma may be larger than the true margin)"
              if source == "given" else ""))
    return _judge(MistakeBoundReport, mistakes, bound, bug, tally=tally, R=R,
                  gamma=g, gamma_source=source, order=order, intercept=bool(intercept),
                  converged=converged)


def _pow2(v, e):
    """``v * 2**e`` in float64 (inf or 0 beyond its range)."""
    with np.errstate(over="ignore", under="ignore"):
        return float(np.ldexp(v, e))


@dataclass(frozen=True)
class FreundSchapireReport(_BoundCheck):
    """One-pass mistakes against Freund & Schapire's ``((R + D)/gamma)^2``.

    ``deviations`` holds ``d_t = max(0, gamma - y_t u.x_t)`` along the stream,
    ``D = ||d||``; ``mistakes`` one pass per run (the stream as given, or random
    permutations of it with ``runs > 1``).
    """

    D: float
    deviations: np.ndarray = field(repr=False)


def freund_schapire_bound(X: ArrayLike, y: ArrayLike, u: ArrayLike, gamma: float, *,
                          order: Order = "given", runs: int = 1, seed: Seed = None,
                          intercept: bool = True) -> FreundSchapireReport:
    """Check the Freund-Schapire bound ``((R + D)/gamma)^2`` on one pass of a stream.

    Parameters
    ----------
    X, y : array-like
        Any data (need not be separable).
    u : array-like
        A direction in the (augmented) input space; normalised here.
    gamma : float
        The target margin (> 0).
    order : "given" or sequence of int
        The stream (repeats allowed). With ``runs > 1``, runs after the first present
        a fresh random permutation of the stream (``D`` does not change).
    runs : int, default 1
    seed : int or Generator, optional
    intercept : bool, default True

    Returns
    -------
    FreundSchapireReport

    Raises
    ------
    BoundViolation
        When a pass makes more mistakes than the bound (a bug).

    Examples
    --------
    XOR (not separable): with ``u`` the first axis and ``gamma = 1`` the two points on
    the wrong side (examples 1 and 3) deviate by 2 each, so ``D = 2 sqrt(2)`` and the
    bound is ``(sqrt(3) + 2 sqrt(2))^2``; one pass makes 4 mistakes:

    >>> import markone
    >>> X, y = markone.datasets.xor()
    >>> r = freund_schapire_bound(X, y, u=[1, 0, 0], gamma=1.0)
    >>> r.mistakes, r.deviations.tolist(), round(r.bound, 4)
    ((4,), [0.0, 2.0, 0.0, 2.0], 20.798)
    """
    runs = check_int_at_least(runs, "runs", 1)
    g = check_positive(gamma, "gamma")
    data = as_dataset(X, y)
    Z0 = augment(data, intercept)
    ypm = data.y
    if isinstance(order, str) and order != "given":
        raise ValueError(f"order(={order!r}) must be 'given' or a sequence of indices.")
    stream = np.arange(len(Z0)) if isinstance(order, str) else np.asarray(order)
    if stream.dtype.kind not in "iu":
        raise ValueError(f"order must be a sequence of integer indices, got {order!r}.")
    if stream.ndim != 1 or stream.size == 0 or stream.min() < 0 or stream.max() >= len(Z0):
        raise ValueError(f"order must be indices in [0, {len(Z0)}), got {order!r}.")
    _, margins = _margin_of(u, Z0 * ypm[:, None])
    dev = np.maximum(0.0, g - margins[stream])
    D = float(np.linalg.norm(dev))
    R = float(np.sqrt(np.einsum("ij,ij->i", Z0, Z0)[stream].max()))
    bound = ((R + D) / g) ** 2
    rng = np.random.default_rng(child_seeds(seed, 1)[0])
    counts = []
    for k in range(runs):
        s = stream if k == 0 else rng.permutation(stream)
        counts.append(_train(data, intercept=intercept, order=s, max_epochs=1).mistakes)
    return _judge(FreundSchapireReport, counts, bound,
                  f"Freund and Schapire's ((R + D)/gamma)^2 with R={R:.6g}, D={D:.6g}, "
                  f"gamma={g:.6g}", R=R, gamma=g, D=D, deviations=dev)


def intercept_bound(R: float, b: float, gamma: float, c: ArrayLike) -> Any:
    """Novikoff's bound after appending the constant ``c``:
    ``(R^2 + c^2)(1 + b^2/c^2)/gamma^2`` (vectorised over ``c``).

    >>> float(intercept_bound(1.0, 4.0, 0.5, 2.0))
    100.0
    """
    c = np.asarray(c, dtype=float)
    return (R * R + c * c) * (1 + b * b / (c * c)) / (gamma * gamma)


@dataclass(frozen=True)
class InterceptCost:
    """The mistake bound as a function of the appended constant ``c``.

    ``c_opt = sqrt(R|b|)`` and ``bound_min = (R + |b|)^2/gamma^2`` in closed form;
    ``numeric_c`` and ``numeric_min`` from a bounded scalar minimisation of
    :func:`intercept_bound` (over ``log c``); ``checked`` when the closed form attains
    ``bound_min`` at ``c_opt`` and the numeric minimum equals it (rtol 1e-6) without
    going below;
    ``bound_at_c`` the bound at the given ``c`` (None if not given), ``bound_no_b``
    the bound ``R^2/gamma^2`` of a separator through the origin.
    """

    R: float
    b: float
    gamma: float
    c_opt: float
    bound_min: float
    numeric_c: float
    numeric_min: float
    checked: bool
    c: float | None = None
    bound_at_c: float | None = None
    bound_no_b: float = 0.0


def intercept_cost(R: float, b: float, gamma: float, c: float | None = None
                   ) -> InterceptCost:
    """The cost of learning an intercept by appending a constant ``c``.

    For a separator ``u.x + b`` with ``||u|| = 1`` and margin ``gamma`` on data of
    radius ``R``, the augmented data have radius ``sqrt(R^2 + c^2)`` and the augmented
    separator ``(u, b/c)`` margin ``gamma/sqrt(1 + b^2/c^2)``.

    Parameters
    ----------
    R : float
        Radius of the inputs (> 0).
    b : float
        The separator's offset.
    gamma : float
        Its margin (> 0).
    c : float, optional
        A constant to evaluate the bound at (> 0).

    Returns
    -------
    InterceptCost

    Examples
    --------
    >>> r = intercept_cost(R=3.0, b=-12.0, gamma=1.0, c=1.0)
    >>> r.c_opt, r.bound_min, r.bound_at_c, r.checked
    (6.0, 225.0, 1450.0, True)
    """
    from scipy.optimize import minimize_scalar

    R = check_positive(R, "R")
    gamma = check_positive(gamma, "gamma")
    if isinstance(b, bool) or not np.isfinite(float(b)):
        raise ValueError(f"b(={b!r}) must be a finite number.")
    b = float(b)
    c_opt = math.sqrt(R * abs(b))
    best = (R + abs(b)) ** 2 / gamma**2
    # b == 0, or |b| below half an ulp of R (e.g. 5e-324, where b^2/c^2 underflows to
    # 0/0): the infimum is at c -> 0 (no intercept needed), R^2/gamma^2 in doubles
    b_used = 0.0 if R + abs(b) == R else b
    if b_used == 0:  # the infimum is at c -> 0: no intercept needed
        num_c, num_min = 0.0, R * R / gamma**2
    else:
        scale = math.log(c_opt)
        res = minimize_scalar(lambda t: float(intercept_bound(R, b, gamma, math.exp(t))),
                              bounds=(scale - 20, scale + 20), method="bounded",
                              options={"xatol": 1e-10})
        num_c, num_min = math.exp(res.x), float(res.fun)
    # the closed form must attain its value, and no c found numerically may beat it
    # (the minimiser itself is ill-conditioned when the curve is flat, e.g. b ~ 0)
    at_opt = best if b_used == 0 else float(intercept_bound(R, b, gamma, c_opt))
    checked = (math.isclose(at_opt, best, rel_tol=1e-9)
               and math.isclose(num_min, best, rel_tol=1e-6)
               and num_min >= best * (1 - 1e-9))
    at_c = None
    if c is not None:
        c = check_positive(c, "c")
        at_c = float(intercept_bound(R, b, gamma, c))
    return InterceptCost(R=R, b=b, gamma=gamma, c_opt=c_opt, bound_min=best,
                         numeric_c=num_c, numeric_min=num_min, checked=checked, c=c,
                         bound_at_c=at_c, bound_no_b=novikoff_bound(R, gamma))


@dataclass(frozen=True)
class MulticlassBoundReport(_BoundCheck):
    """Multiclass perceptron mistakes against ``2 (R/gamma)^2`` (Kesler).

    ``gamma`` is the multiclass margin ``min_i min_{k != y_i} (w_{y_i} - w_k).x_i`` of
    the best stacked unit ``W`` (from :func:`verify.max_margin` on the Kesler rows);
    ``R`` the radius of the (augmented) inputs.
    """

    n_classes: int
    converged: bool = True


def check_multiclass_bound(X: ArrayLike, y: ArrayLike, *, order: Order = "given",
                           runs: int = 1, seed: Seed = None, intercept: bool = True,
                           max_epochs: int = 100_000) -> MulticlassBoundReport:
    """Check ``2 (R/gamma)^2`` on runs of :class:`markone.MulticlassPerceptron`.

    Each argmax mistake (prediction ``p`` != class ``c``) is a mistake of the binary
    perceptron on Kesler's vector ``psi(x, c, p)`` (``W . psi = W[c].x - W[p].x <= 0``),
    whose norm is ``sqrt(2) ||x||``; the margin ``gamma`` is the maximal margin of all
    Kesler vectors (:func:`markone.multiclass.kesler_expand`) by a stacked unit ``W``.
    The bound is rounded up; the theorem is Coq's ``kesler_bound``
    (:data:`verify.coq.THEOREMS`).

    Parameters
    ----------
    X : array-like (n_samples, n_features)
    y : array-like (n_samples,)
        Class labels (any values, K >= 2 classes), linearly separable in the
        multiclass sense.
    order : "given" or "shuffle"
    runs : int, default 1
    seed : int or Generator, optional
    intercept : bool, default True
    max_epochs : int, default 100,000
        The budget of each run (as in :func:`check_mistake_bound`): at most
        ``min(bound, max_epochs)`` passes; ``converged`` says whether every run
        finished.

    Returns
    -------
    MulticlassBoundReport

    Raises
    ------
    ValueError
        When the classes are not linearly separable (no bound applies).
    BoundViolation
        When a run exceeds the bound (a bug).

    Examples
    --------
    >>> X = [[0, 3], [3, 0], [-3, -3], [1, 4], [4, 1]]; y = ["a", "b", "c", "a", "b"]
    >>> r = check_multiclass_bound(X, y, order="shuffle", runs=3, seed=0)
    >>> r.held, r.n_classes, max(r.mistakes) <= r.bound
    (True, 3, True)
    """
    from markone.multiclass import MulticlassPerceptron, kesler_expand

    runs = check_int_at_least(runs, "runs", 1)
    max_epochs = check_int_at_least(max_epochs, "max_epochs", 1)
    check_choice(order, "order", ("given", "shuffle"))
    data = as_dataset(X, y, multiclass=True)  # checked once, for every step below
    if data.sparse:
        raise sparse_refused(data.source, what="check_multiclass_bound")
    K = len(data.classes)
    P = kesler_expand(Dataset.of_rows(augment(data, intercept)), data.class_indices, K)
    m = max_margin(Dataset.of_rows(P), None, intercept=False)
    if not m.separable:
        raise ValueError("the classes are not linearly separable (Kesler's data are "
                         "not), so no mistake bound applies.")
    R = float(m.R) / math.sqrt(2)  # Kesler's vectors have norm sqrt(2) ||x||
    g = float(m.lower)
    # 2 (R/gamma)^2 rounded up: Coq's kesler_bound (verify.coq.THEOREMS) with a unit U
    bound = novikoff_bound(float(m.R), g)
    counts, converged = [], []
    for s in each_child_seed(seed, runs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = MulticlassPerceptron(strategy="argmax", intercept=intercept,
                                       order=order, seed=s,
                                       max_epochs=int(min(bound + 2, max_epochs)))
            clf.fit(data, None)
        counts.append(int(clf.n_mistakes_))
        converged.append(bool(getattr(clf, "converged_", True)))
    return _judge(MulticlassBoundReport, counts, bound,
                  f"the multiclass bound 2 (R/gamma)^2 with R={R:.6g}, gamma={g:.6g}",
                  R=R, gamma=g, n_classes=K, converged=all(converged))


@dataclass(frozen=True)
class CompressionReport:
    """Sample compression: the mistakes alone rebuild the final weights.

    ``mistake_indices`` is the stream of examples the run updated on, ``support`` the
    distinct examples among them (the compression set), ``reproduced`` whether a
    single pass over ``mistake_indices`` (each presentation again a mistake) gives
    exactly the final ``w``.
    """

    mistakes: int
    support: tuple
    mistake_indices: tuple = field(repr=False)
    reproduced: bool
    rerun_mistakes: int
    w: object = field(repr=False)


def check_compression(X: ArrayLike, y: ArrayLike, *, intercept: bool = True,
                      order: Order = "given", seed: Seed = None, max_epochs: int = 1000,
                      exact: bool = False) -> CompressionReport:
    """Rerun the core on the mistake examples alone, in mistake order; compare ``w``.

    Parameters
    ----------
    X, y : array-like
    intercept : bool, default True
    order, seed, max_epochs : as in :func:`markone.train`
    exact : bool, default False
        Train in exact arithmetic (then equality is of Fractions).

    Returns
    -------
    CompressionReport

    Examples
    --------
    >>> X = [[0, 0], [0, 1], [1, 0], [1, 1]]
    >>> r = check_compression(X, [-1, -1, -1, 1])
    >>> r.reproduced, r.mistakes, r.support
    (True, 18, (0, 1, 2, 3))
    """
    data = as_dataset(X, y)
    kw = dict(intercept=intercept, exact=exact)
    full = _train(data, order=order, seed=seed, max_epochs=max_epochs, record=True, **kw)
    idx = tuple(int(i) for i in full.mistake_indices)
    if not idx:
        return CompressionReport(mistakes=0, support=(), mistake_indices=(),
                                 reproduced=True, rerun_mistakes=0, w=full.last_w)
    again = _train(data, order=list(idx), max_epochs=1, **kw)
    same = (tuple(again.last_w) == tuple(full.last_w)) if exact else \
        bool(np.array_equal(again.last_w, full.last_w))
    return CompressionReport(mistakes=full.mistakes, support=tuple(sorted(set(idx))),
                             mistake_indices=idx,
                             reproduced=same and again.mistakes == len(idx),
                             rerun_mistakes=again.mistakes, w=full.last_w)
