"""How long a trained Mark I stays right while its potentiometers drift.

For a bounded drift rate ``rho`` (motor steps per machine second, each potentiometer
moving at most that fast in either direction), :func:`drift_horizon` gives the machine
time before which no R-unit can answer a training figure wrongly, exactly. An R-unit's
answer to figure ``i`` has margin ``m = y * w . a_i`` (in steps; ``a_i`` the figure's
active A-units, ``y`` the R-unit's target). The worst drift turns every active
potentiometer against ``y`` at full speed until it meets its end stop, so after ``t``
seconds the margin has lost ``sum_j min(rho * t, d_j)``, where ``d_j`` is the room
between weight ``j`` and its stop on the losing side. The figure's horizon is the least
``t`` at which that loss reaches ``m`` (a score of exactly zero is a mistake), or never
when the stops leave too little room. Before the horizon no drift within the bound
changes a decision; at it, that worst drift does. Everything is computed in rationals.
For a random walk (``drift_sd=``, ``delta=``) it gives the certified time of
:func:`verify.machine.drift_walk.walk_horizon` instead.

Examples
--------
>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
...                 max_fanout=1, theta=1, n_r_units=1, weight_range=(-3, 3))
>>> machine = MarkI(p, seed=0)
>>> figures, labels = np.array([[1, 0], [0, 1]]), ["a", "b"]
>>> run = machine.train(figures, labels)
>>> h = drift_horizon(machine, run, figures, labels, drift_rate=0.5)
>>> h.horizon_s, h.figure, h.r_unit, h.margin
(Fraction(2, 1), 0, 0, Fraction(1, 1))
"""

from __future__ import annotations

import dataclasses
import numbers
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.exact import fraction_text
from markone._internal.typing import ArrayLike, JSONDict
from verify.machine.drift_walk import DEFAULT_BUDGET, WalkHorizon, walk_horizon
from verify.machine.task import trained_answers

__all__ = ["DriftHorizon", "drift_horizon", "figure_horizon"]


@dataclasses.dataclass(frozen=True)
class DriftHorizon:
    """The result of :func:`drift_horizon`.

    Attributes
    ----------
    horizon_s : Fraction or None
        Machine seconds before which no drift within ``drift_rate`` can change any
        R-unit's answer to any training figure; None: never (the end stops leave too
        little room). 0 when some answer is already wrong.
    figure, r_unit : int or None
        Where the horizon is reached first (None when never).
    margin : Fraction or None
        That answer's margin in steps.
    drift_rate : Fraction
    horizons_s : tuple of tuple
        Per figure, per R-unit: its own horizon (None: never).
    """

    horizon_s: Fraction | None
    figure: int | None
    r_unit: int | None
    margin: Fraction | None
    drift_rate: Fraction
    horizons_s: tuple = dataclasses.field(repr=False, default=())

    def to_dict(self) -> JSONDict:
        """JSON-ready (Fractions as strings)."""
        def text(v):
            return None if v is None else fraction_text(v)
        return {"horizon_s": text(self.horizon_s), "figure": self.figure,
                "r_unit": self.r_unit, "margin": text(self.margin),
                "drift_rate": fraction_text(self.drift_rate),
                "horizons_s": [[text(h) for h in row] for row in self.horizons_s]}


def figure_horizon(margin: Fraction, room: list[Fraction | None],
                   rate: Fraction) -> Fraction | None:
    """The least ``t`` with ``sum_j min(rate * t, room_j) >= margin`` (None: never;
    a room of None is unbounded).

    >>> figure_horizon(Fraction(3), [Fraction(1), None], Fraction(1))
    Fraction(2, 1)
    >>> figure_horizon(Fraction(3), [Fraction(1), Fraction(1)], Fraction(1)) is None
    True
    """
    if margin <= 0:
        return Fraction(0)
    bounded = sorted(r for r in room if r is not None)
    free = len(room) - len(bounded)
    spent = Fraction(0)            # the room of the potentiometers already at a stop
    for k, level in enumerate([*bounded, None]):
        moving = len(bounded) - k + free
        if moving == 0:
            return None
        need = (margin - spent) / moving    # every moving weight has drifted this far
        if level is None or need <= level:
            return need / rate
        spent += level
    return None   # unreachable: the loop returns at level None


def drift_horizon(machine: Any, run_or_weights: Any, images: ArrayLike,
                  labels: ArrayLike, *, drift_rate: Any = None, drift_sd: Any = None,
                  delta: Any = None, over_s: Any = None, budget: int | None = None,
                  max_memory_gb: float | None = None,
                  progress: bool | None = None) -> DriftHorizon | WalkHorizon:
    """The machine time before which drift changes no decision: exactly, for a
    bounded drift rate; with probability at least ``1 - delta``, for a random walk.

    Parameters
    ----------
    machine : markone.hardware.MarkI
        The machine (its wiring, threshold, faults and end stops).
    run_or_weights : MachineRun or array (n_r_units, n_a_units)
        The trained weights, in motor steps.
    images, labels
        The training figures.
    drift_rate : int, float or Fraction
        The most steps per machine second any potentiometer drifts (> 0): the exact
        horizon (a :class:`DriftHorizon`).
    drift_sd, delta, over_s
        Instead of ``drift_rate``: potentiometers that random-walk with ``drift_sd``
        steps per sqrt(second) (as ``PotentiometerDrift(sd)``), the probability
        ``delta`` allowed, and optionally the machine seconds to plan retraining
        for: :func:`verify.machine.drift_walk.walk_horizon` (a :class:`WalkHorizon`,
        certified).
    budget, max_memory_gb, progress
        With ``over_s``: the most retraining intervals planned (default
        :data:`~verify.machine.drift_walk.DEFAULT_BUDGET`), the memory their list of
        times may take, and a progress bar of it (see
        :func:`verify.machine.drift_walk.retraining_schedule`; what stopped it is
        the result's ``stopped_by``).

    Returns
    -------
    DriftHorizon or WalkHorizon
    """
    if (drift_rate is None) == (drift_sd is None):
        raise ValueError("give drift_rate (a bounded drift, steps per second) or "
                         "drift_sd and delta (a random walk), not both or neither.")
    if drift_sd is not None:
        if delta is None:
            raise ValueError("a random-walk drift needs delta, the probability allowed "
                             "that some answer changes, e.g. delta=0.01.")
        return walk_horizon(machine, run_or_weights, images, labels, drift_sd=drift_sd,
                            delta=delta, over_s=over_s, budget=(
                                DEFAULT_BUDGET if budget is None else budget),
                            max_memory_gb=max_memory_gb, progress=progress)
    if any(v is not None for v in (delta, over_s, budget, max_memory_gb)):
        raise ValueError("delta, over_s, budget and max_memory_gb are for a "
                         "random-walk drift (drift_sd); a bounded drift_rate has an "
                         "exact horizon.")
    rate = _rate(drift_rate)
    p = machine.params
    w, A, targets, wired = trained_answers(machine, run_or_weights, images, labels)
    exact = [[Fraction(float(v)) for v in row] for row in w]
    stops = p.weight_range
    horizons = tuple(tuple(_one(exact[r], np.flatnonzero(A[i] & wired[r]),
                                int(targets[i, r]), stops, rate)
                           for r in range(p.n_r_units)) for i in range(len(A)))
    per = tuple(tuple(h for h, _ in row) for row in horizons)
    horizon, figure, r_unit, margin = _first(horizons)
    return DriftHorizon(horizon, figure, r_unit, margin, rate, per)


def _first(horizons):
    """(horizon, figure, R-unit, margin) of the answer drift changes first, or four
    Nones when no drift within the rate changes any."""
    best = (None, None, None, None)
    for i, row in enumerate(horizons):
        for r, (h, m) in enumerate(row):
            if h is not None and (best[0] is None or h < best[0]):
                best = (h, i, r, m)
    return best


def _one(w, active, y, stops, rate):
    """(horizon, margin) of one R-unit's answer to one figure."""
    margin = y * sum((w[j] for j in active), Fraction(0))
    if stops is None:
        room = [None] * len(active)
    else:
        lo, hi = Fraction(stops[0]), Fraction(stops[1])
        room = [max(w[j] - lo, Fraction(0)) if y > 0 else max(hi - w[j], Fraction(0))
                for j in active]
    return figure_horizon(margin, room, rate), margin


def _rate(value):
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Fraction)) \
            or not (isinstance(value, numbers.Rational) or np.isfinite(float(value))) \
            or value <= 0:
        raise ValueError(f"drift_rate(={value!r}) must be a finite number of motor steps "
                         "per second > 0, e.g. drift_rate=0.01.")
    return Fraction(value)
