"""The trained machine's worst case, exactly: potentiometer tolerance, dead and stuck
A-units, and both at once.

One R-unit with weights ``w`` (motor steps) answers a figure with 0/1 A-unit pattern
``x`` and wanted sign ``y`` right when its margin ``m = y w . x`` is > 0 (a tie is a
mistake, as the machine counts it). Every answer is exact: the weights are read as
the rationals they are (integers on a machine that moves in whole steps) and scaled to
integers, so every bound is a :class:`~fractions.Fraction` and every comparison is
made in integers.

* **Box.** Each potentiometer the R-unit uses off by at most ``delta``: the worst is
  ``dw_j = -delta y`` on every active ``j``, so the figure stays right iff
  ``m - delta |x|_1 > 0``. The tolerance is ``delta* = min_i m_i / |x_i|_1``: every
  ``delta < delta*`` is safe, and at ``delta*`` the witness perturbation makes the
  minimising figure tie.
* **Dead A-units** (output 0). Killing a set ``K`` takes ``sum_{j in K} y w_j x_j``
  from the margin; the worst ``k``-set for a figure is its ``k`` active A-units with
  the largest ``y w_j``. The largest safe ``k`` is one less than the fewest that
  break some figure; the witness is those ``k + 1`` A-units and the figure.
* **Stuck at 1.** An inactive A-unit stuck on adds ``y w_j``; the worst are the most
  negative. Some figure may never break (``k`` is then unlimited, None).
* **Both.** With at most ``k`` A-units dead and the box on the potentiometers of the
  live ones (a dead A-unit's potentiometer multiplies 0), the worst kills the top
  ``j <= k`` contributions and then pushes the box on the ``|x|_1 - j`` remaining
  active ones: ``delta*(k) = min_i min_{j <= k} (m_i - top_ij) / (|x_i|_1 - j)``.

Examples
--------
>>> import numpy as np
>>> X = np.array([[1, 1, 0], [0, 1, 1]])
>>> wc = r_unit_worst_case(np.array([3, 1, -2]), X, np.array([1, -1]))
>>> wc.tolerance, wc.tolerance_figure, wc.dead, wc.dead_units, wc.dead_figure
(Fraction(1, 2), 1, 0, (2,), 1)
>>> wc.tolerance_dead, wc.stuck
((Fraction(1, 2),), 0)
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.exact import fraction_text
from markone._internal.typing import ArrayLike, JSONDict
from verify.machine.drift import figure_horizon
from markone.hardware.runits import numbered, r_unit_name
from verify.machine.task import machine_task

__all__ = ["RUnitWorstCase", "r_unit_worst_case", "trained_worst_case", "worst_case",
           "first_wrong", "wired_potentiometers", "margins", "scaled_weights",
           "exact_min", "safe_steps", "dead_for"]

#: Relative gap below which two float ratios are compared exactly as Fractions (the
#: ratios are of integers below 2**53: distinct ones differ by far more).
_CLOSE = 1e-9


@dataclasses.dataclass(frozen=True)
class RUnitWorstCase:
    """One R-unit's exact worst case (weights in motor steps; A-units and figures
    0-based).

    Attributes
    ----------
    tolerance : Fraction
        ``delta*``: every perturbation of at most ``delta < delta*`` steps on each
        potentiometer keeps every figure right; at ``delta*`` the witness ties.
    tolerance_figure : int
        The figure the witness perturbation (``-delta* y`` on its active A-units)
        makes tie.
    safe_steps : int
        The most whole motor steps each potentiometer may be off with every figure
        right (the largest integer below ``delta*``).
    capped_by_stops : bool
        Whether the witness would turn some potentiometer past its end stop (then the
        machine itself cannot be pushed that far: see ``with_stops``).
    with_stops : Fraction or None
        The tolerance when no perturbation passes an end stop (None: none breaks any
        figure); equal to ``tolerance`` when the stops do not cap it.
    dead, dead_units, dead_figure
        The most A-units that may die (any of them) with every figure right; the
        ``dead + 1`` A-units whose death breaks ``dead_figure``.
    stuck, stuck_units, stuck_figure
        The same for A-units stuck at 1 (None, (), None: no number of them breaks
        any figure).
    tolerance_dead : tuple of Fraction
        ``delta*(k)`` for ``k = 0 .. dead``: with any ``k`` A-units dead, every box
        perturbation below it is safe (``tolerance_dead[0] == tolerance``).
    """

    r_unit: int
    tolerance: Fraction
    tolerance_figure: int
    safe_steps: int
    capped_by_stops: bool
    with_stops: Fraction | None
    dead: int
    dead_units: tuple
    dead_figure: int
    stuck: int | None
    stuck_units: tuple
    stuck_figure: int | None
    tolerance_dead: tuple

    def dead_at(self, steps: int) -> int | None:
        """The most A-units that may die with every potentiometer also off by up to
        ``steps`` whole steps (None: not even 0 dead is safe)."""
        return dead_for(self.tolerance_dead, steps)

    def to_dict(self) -> JSONDict:
        """JSON-ready (Fractions as strings)."""
        d = dataclasses.asdict(self)
        for k in ("tolerance", "with_stops"):
            d[k] = None if d[k] is None else fraction_text(d[k])
        d["tolerance_dead"] = [fraction_text(v) for v in self.tolerance_dead]
        d["dead_units"], d["stuck_units"] = list(self.dead_units), list(self.stuck_units)
        return d


def scaled_weights(w: ArrayLike) -> tuple[np.ndarray, int]:
    """``(W, Q)``: the weights times ``Q`` as exact integers (int64, or Python ints
    when they would overflow), ``Q`` the least common denominator.

    >>> scaled_weights(np.array([0.5, -2.0, 0.25]))
    (array([ 2, -8,  1]), 4)
    """
    w = np.asarray(w, dtype=np.float64)
    if not np.isfinite(w).all():
        raise ValueError("the weights must be finite numbers of motor steps")
    if (w == np.round(w)).all() and np.abs(w).max(initial=0) < 2**52:
        return w.astype(np.int64), 1
    fr = [Fraction(float(v)) for v in w.ravel()]
    Q = math.lcm(*(f.denominator for f in fr))
    ints = [f.numerator * (Q // f.denominator) for f in fr]
    big = max((abs(v) for v in ints), default=0) * max(w.size, 1) >= 2**62
    return np.array(ints, dtype=object if big else np.int64).reshape(w.shape), Q


def margins(W: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``y_i W . x_i`` for every figure (exact, in the units of ``W``)."""
    return y * (X.astype(W.dtype) @ W)


def exact_min(num: np.ndarray, den: np.ndarray) -> tuple[Fraction, int]:
    """The least ``num / den`` (``den > 0``) exactly, and its first flat index.

    >>> exact_min(np.array([1, 2, 1]), np.array([3, 6, 2]))
    (Fraction(1, 3), 0)
    """
    q = num.astype(np.float64) / den.astype(np.float64)
    low = q.min()
    near = np.flatnonzero(q <= low + abs(low) * _CLOSE + 1e-300)
    best = min((Fraction(int(num.flat[i]), int(den.flat[i])), int(i)) for i in near)
    return best


def safe_steps(delta: Fraction) -> int:
    """The largest whole number of steps strictly below ``delta``.

    >>> safe_steps(Fraction(3)), safe_steps(Fraction(7, 2)), safe_steps(Fraction(0))
    (2, 3, -1)
    """
    return math.ceil(delta) - 1


def dead_for(table: tuple, steps: Any) -> int | None:
    """The largest ``k`` with ``table[k] > steps`` (``table`` nonincreasing, the
    ``tolerance_dead`` of an R-unit); None when there is none.

    >>> dead_for((Fraction(3), Fraction(2), Fraction(1, 2)), 1)
    1
    """
    ok = [k for k, v in enumerate(table) if v > steps]
    return max(ok) if ok else None


def _sorted_desc(values: np.ndarray, keep: np.ndarray, fill: Any):
    """Each row's kept values in decreasing order (the others ``fill``, last), their
    columns and their running sums (column 0: the empty sum)."""
    v = np.where(keep, values, fill)
    order = np.argsort(-v if v.dtype != object else -v.astype(np.float64), axis=1,
                       kind="stable")
    s = np.take_along_axis(v, order, axis=1)
    cum = np.zeros((s.shape[0], s.shape[1] + 1), dtype=s.dtype)
    cum[:, 1:] = np.cumsum(s, axis=1)
    return order, cum


def _first_break(m: np.ndarray, cum: np.ndarray, count: np.ndarray):
    """Per figure: the fewest of its (sorted) units whose loss ``cum`` reaches its
    margin, among its first ``count``; ``count + 1`` where none does."""
    j = np.arange(cum.shape[1])
    hit = (m[:, None] - cum <= 0) & (j[None, :] <= count[:, None]) & (j[None, :] > 0)
    return np.where(hit.any(axis=1), hit.argmax(axis=1), count + 1)


def _units_witness(m, values, keep, cols, fill):
    """(k, units, figure) of the dead (or stuck) question: the most units any of
    which may fail, and the fewest that break a figure (k None: none can)."""
    order, cum = _sorted_desc(values, keep, fill)
    count = keep.sum(axis=1)
    need = _first_break(m, cum, count)
    breakable = need <= count
    if not breakable.any():
        return None, (), None, cum
    i = int(np.flatnonzero(breakable)[np.argmin(need[breakable])])
    k = int(need[i])
    return k - 1, tuple(int(cols[c]) for c in order[i, :k]), i, cum


def _with_stops(W, Q, X, y, m, box, stops):
    """(capped, tolerance with the stops): the least drift-like push at which some
    figure ties when no potentiometer passes its stop, branch and bound over the
    figures in order of their box tolerance."""
    lo, hi = (Fraction(v) for v in stops)
    w = [Fraction(int(v), Q) for v in W]

    def rooms(i):
        return [max(w[j] - lo if y[i] > 0 else hi - w[j], Fraction(0))
                for j in np.flatnonzero(X[i])]

    order = sorted(range(len(m)), key=lambda i: box[i])
    best = None
    for i in order:
        if best is not None and box[i] >= best:
            break
        h = figure_horizon(Fraction(int(m[i]), Q), rooms(i), Fraction(1))
        if h is not None and (best is None or h < best):
            best = h
    return best


def _combined(m, cum, count, dead):
    """``delta*(k)`` for ``k = 0 .. dead`` (in the units of the weights)."""
    K = dead + 1
    num = m[:, None] - cum[:, :K]
    den = count[:, None] - np.arange(K)[None, :]
    out = []
    for k in range(K):
        out.append(exact_min(num[:, :k + 1], den[:, :k + 1])[0])
    return tuple(out)


def r_unit_worst_case(w: ArrayLike, X: ArrayLike, y: ArrayLike, *, r_unit: int = 0,
                      cols: ArrayLike | None = None,
                      stops: tuple | None = None) -> RUnitWorstCase:
    """The exact worst case of one R-unit (see the module doc).

    Parameters
    ----------
    w : array (d,)
        The weights of the potentiometers the R-unit uses, in motor steps.
    X : array (n, d)
        The figures' A-unit patterns on those inputs (0/1).
    y : array (n,)
        The wanted signs (+/-1).
    r_unit : int
        The R-unit's number (for the result).
    cols : array (d,), optional
        The A-unit numbers of the inputs (default ``0 .. d-1``).
    stops : (lo, hi), optional
        The end stops, in steps (None: none).

    Raises
    ------
    ValueError
        When some figure is already answered wrong (margin <= 0): nothing is
        tolerated.
    """
    X = np.asarray(X).astype(bool)
    y = np.asarray(y).astype(np.int64)
    cols = np.arange(X.shape[1]) if cols is None else np.asarray(cols)
    W, Q = scaled_weights(w)
    m = margins(W, X, y)
    if not (m > 0).all():
        i = int(np.flatnonzero(~(m > 0))[0])
        raise ValueError(f"{r_unit_name(r_unit)} already answers figure {i + 1} wrong "
                         f"(margin {Fraction(int(m[i]), Q)} steps): it tolerates nothing")
    count = X.sum(axis=1).astype(np.int64)
    tol, fig = exact_min(m, count)
    tol = tol / Q
    contrib = y[:, None] * W[None, :]
    dead, dead_units, dead_fig, cum = _units_witness(m, contrib, X, cols,
                                                     fill=contrib.min() - 1)
    stuck, stuck_units, stuck_fig, _ = _units_witness(m, -contrib, ~X & (contrib < 0),
                                                      cols, fill=0)
    table = tuple(v / Q for v in _combined(m, cum, count, dead))
    capped, with_stops = False, tol
    if stops is not None:
        room = W[X[fig]] - stops[0] * Q if y[fig] > 0 else stops[1] * Q - W[X[fig]]
        capped = bool((room < tol * Q).any())
        if capped:
            box = [Fraction(int(m[i]), int(count[i]) * Q) for i in range(len(m))]
            with_stops = _with_stops(W, Q, X, y, m, box, stops)
    return RUnitWorstCase(r_unit, tol, fig, safe_steps(tol), capped, with_stops,
                          dead, dead_units, dead_fig, stuck, stuck_units, stuck_fig,
                          table)


def first_wrong(weights: ArrayLike, patterns: ArrayLike, targets: ArrayLike,
                wired: ArrayLike) -> tuple | None:
    """``(r_unit, figure, margin)`` of the first answer already wrong (margin <= 0,
    exact, in steps), or None when every R-unit answers every figure right.

    >>> first_wrong(np.array([[1.0, -1.0]]), np.array([[1, 1]]), np.array([[1]]),
    ...             np.ones((1, 2), bool))
    (0, 0, Fraction(0, 1))
    """
    A = np.asarray(patterns).astype(bool)
    T = np.asarray(targets)
    for r, row in enumerate(np.asarray(weights)):
        cols = np.flatnonzero(np.asarray(wired)[r])
        W, Q = scaled_weights(row[cols])
        m = margins(W, A[:, cols], T[:, r].astype(np.int64))
        bad = np.flatnonzero(~(m > 0))
        if bad.size:
            return r, int(bad[0]), Fraction(int(m[bad[0]]), Q)
    return None


def trained_worst_case(weights: ArrayLike, patterns: ArrayLike, targets: ArrayLike,
                       wired: ArrayLike, stops: tuple | None = None
                       ) -> tuple[RUnitWorstCase, ...]:
    """:func:`r_unit_worst_case` of every R-unit: ``weights`` ``(n_r, n_a)`` in steps,
    ``patterns`` ``(n, n_a)``, ``targets`` ``(n, n_r)``, ``wired`` ``(n_r, n_a)``
    (the potentiometers each R-unit has).

    >>> wc = trained_worst_case(np.array([[2.0, -1.0]]), np.array([[1, 0], [0, 1]]),
    ...                         np.array([[1], [-1]]), np.ones((1, 2), bool))
    >>> wc[0].tolerance, wc[0].dead, wc[0].stuck
    (Fraction(1, 1), 0, 0)
    """
    A = np.asarray(patterns).astype(bool)
    T = np.asarray(targets)
    out = []
    for r, row in enumerate(np.asarray(weights, dtype=np.float64)):
        cols = np.flatnonzero(np.asarray(wired)[r])
        out.append(r_unit_worst_case(row[cols], A[:, cols], T[:, r], r_unit=r,
                                     cols=cols, stops=stops))
    return tuple(out)


def worst_case(machine: Any, images: ArrayLike, labels: ArrayLike,
               weights: ArrayLike | None = None) -> tuple[RUnitWorstCase, ...]:
    """The exact worst case of every R-unit of a trained ``machine`` on its training
    figures (the A-unit patterns once every fault has happened; ``weights`` default
    the machine's own, in motor steps).

    Raises
    ------
    ValueError
        When some answer is already wrong (the message names it): retrain first.

    Examples
    --------
    >>> from markone.hardware import MarkI, MarkIParams
    >>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1,
    ...                 n_inhibitory=0, max_fanout=1, theta=1, n_r_units=1)
    >>> machine = MarkI(p, seed=0)
    >>> run = machine.train(np.array([[1, 0], [0, 1]]), ["a", "b"])
    >>> wc = worst_case(machine, np.array([[1, 0], [0, 1]]), ["a", "b"])[0]
    >>> wc.tolerance, wc.safe_steps, wc.dead, wc.dead_units
    (Fraction(1, 1), 0, 0, (0,))
    """
    task = machine_task(machine, images, labels)
    w = machine.weights if weights is None else np.asarray(weights, dtype=np.float64)
    wired = wired_potentiometers(machine)
    wrong = first_wrong(w, task.patterns, task.targets, wired)
    if wrong is not None:
        r, i, m = wrong
        raise ValueError(f"{r_unit_name(r)} already answers {numbered('figure', i)} "
                         f"wrong (margin {m} steps): it tolerates nothing; train the "
                         "machine until it answers every figure right")
    return trained_worst_case(w, task.patterns, task.targets, wired,
                              machine.params.weight_range)


def wired_potentiometers(machine: Any) -> np.ndarray:
    """``(n_r, n_a)`` bool: the potentiometers each R-unit has (its source set)."""
    p = machine.params
    mask = machine.runits.mask
    return (np.ones((p.n_r_units, p.n_a_units), bool) if mask is None
            else np.asarray(mask, bool))
