"""How long a trained Mark I stays right, with probability at least ``1 - delta``,
while its potentiometers random-walk, and when to retrain it.

The fault :class:`~markone.hardware.faults.PotentiometerDrift` of ``sd`` moves every
potentiometer by an independent Gaussian of ``sd * sqrt(dt)`` steps over ``dt``
machine seconds: a Brownian motion, seen at the machine's decisions. R-unit ``r``'s
answer to training figure ``i`` has margin ``m = y * w . a_i`` (steps) over ``k``
active potentiometers; without end stops their sum is a Brownian motion of variance
``k sd^2 t``, and by the reflection principle it has come down by ``m`` at some time
before ``t`` (the answer has changed, a score of zero being a mistake) with
probability exactly ``erfc(m / (sd sqrt(2 k t)))``.

End stops only help a margin from the side it gains on; from the other side a stop
holds a potentiometer back where the free walk would have gone on, so the free walk's
bound is sound only while no potentiometer has met a stop on its harmful side. Each
such meeting has probability at most ``erfc(c / (sd sqrt(2 t)))``, ``c`` the room
between the weight and that stop (reflection principle again). The bound

``P(some answer changed by t) <= sum over answers erfc(m / (sd sqrt(2 k t)))
+ sum over potentiometers and harmful stops erfc(c / (sd sqrt(2 t)))``

is a union bound over every (figure, R-unit) answer and every (potentiometer, stop)
that matters; a decoded class can change only when an R-unit's answer does. It
increases with ``t``; :func:`walk_horizon` gives a time at which it is at most
``delta``, and :func:`retraining_schedule` splits a longer ``over_s`` into ``n``
equal intervals with the bound at most ``delta / n`` in each (a union over
intervals), when retraining restores these weights at each of the times.

**Arithmetic.** The margins and rooms are exact rationals (the weights as floats
are exact binary fractions); each term is enclosed by ball arithmetic (``arb`` from
python-flint, whose ``erfc`` is rigorous) and the reported probability is the upper
end of the enclosure of the sum: certified, not rounded. Floating point only finds the
candidate time, which is then certified.

Examples
--------
>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
...                 max_fanout=1, theta=1, n_r_units=1, weight_range=None)
>>> machine = MarkI(p, seed=0)
>>> figures, labels = np.array([[1, 0], [0, 1]]), ["a", "b"]
>>> run = machine.train(figures, labels)          # margins 1, one potentiometer each
>>> h = walk_horizon(machine, run, figures, labels, drift_sd=0.1, delta=0.01)
>>> h.horizon_s, h.probability <= h.delta          # 2 erfc(1 / (0.1 sqrt(2 t)))
(Fraction(7932, 625), True)
>>> round(2 * math.erfc(1 / (0.1 * math.sqrt(2 * 7932 / 625))), 6)
0.01
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections import Counter
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.exact import fraction_text
from markone._internal.typing import ArrayLike, JSONDict
from markone._internal.validation import check_int_at_least
from verify._internal.budget import BUDGET, MEMORY
from markone._internal.memory import memory_limit
from verify.machine.theory._walk_search import (fewest_intervals, largest_time, listed_times,
                                         positive, probability_arg, ratio_float,
                                         scale_of, scaled_estimate, stopped_plan,
                                         time_bytes)
from verify.machine.task import trained_answers
from markone.hardware import MarkI
from markone.hardware.faults import FaultPlan, PotentiometerDrift, apply_faults

__all__ = ["WalkHorizon", "RetrainingSchedule", "WalkTerms", "walk_terms",
           "walk_horizon", "retraining_schedule", "first_changes", "ARITHMETIC",
           "DEFAULT_BUDGET", "FLOOR_BITS"]

#: How the probabilities are computed (every result says it).
ARITHMETIC = ("certified: exact rational margins and rooms, each erfc term enclosed by "
              "arb ball arithmetic (python-flint), the upper end of the sum's enclosure")

#: The default ``budget``: the most intervals a retraining schedule may have (its
#: times are listed one by one, so this bounds the work and what is kept).
DEFAULT_BUDGET = 1_000_000

#: A certified probability below ``2**-FLOOR_BITS`` is reported as ``2**-FLOOR_BITS``
#: (still an upper bound): the exact value of a bound such as ``erfc(10**6)``, about
#: ``2**-1.4e12``, would take gigabytes to write as a fraction.
FLOOR_BITS = 65_536

@dataclasses.dataclass(frozen=True)
class WalkTerms:
    """The terms of the union bound, grouped: ``answers`` are ``(margin, active
    potentiometers, how many answers)``, ``rooms`` are ``(room to the harmful
    stop, how many potentiometers)``; ``wrong`` counts answers whose margin is already
    <= 0."""

    answers: tuple
    rooms: tuple
    wrong: int

    def probability(self, sd: Fraction, t: Fraction) -> Fraction:
        """A certified upper bound of the probability that some answer has changed
        by machine time ``t`` under a random walk of ``sd`` steps per sqrt(second)
        (1 when some answer is already wrong or ``t`` makes the bound exceed 1).

        >>> WalkTerms(((Fraction(1), 1, 2),), (), 0).probability(Fraction(1, 10), Fraction(0))
        Fraction(0, 1)
        """
        if self.wrong:
            return Fraction(1)
        if t <= 0:
            return Fraction(0)
        from flint import arb, fmpq

        def exact(x):
            return arb(fmpq(x.numerator, x.denominator))

        scale = exact(sd) * (2 * exact(t)).sqrt()       # sd sqrt(2 t)
        total = arb(0)
        for m, k, n in self.answers:
            total += n * (exact(m) / (scale * arb(k).sqrt())).erfc()
        for c, n in self.rooms:
            total += n * (exact(c) / scale).erfc()
        upper = total.upper()
        if upper == 0:
            return Fraction(1, 2**FLOOR_BITS)
        mantissa, exponent = upper.man_exp()
        if exponent + int(mantissa).bit_length() < -FLOOR_BITS:
            return Fraction(1, 2**FLOOR_BITS)   # an upper bound still, and short
        return min(Fraction(int(mantissa)) * Fraction(2) ** int(exponent), Fraction(1))

    def estimate(self, sd: float | Fraction, t: float | Fraction) -> float:
        """The same bound in floating point (to search for a time, not to claim),
        at any ``sd`` and ``t`` (beyond float range too: it depends on them only
        through ``sd**2 t``, taken relative to the smallest margin).

        >>> WalkTerms(((Fraction(1), 1, 2),), (), 0).estimate(1e-200, Fraction(10) ** 400) > 0
        True
        """
        if self.wrong:
            return 1.0
        if t <= 0 or not (self.answers or self.rooms):
            return 0.0
        least, _ = self._scale
        return scaled_estimate(self._scale, ratio_float(2 * Fraction(sd) ** 2
                                                        * Fraction(t) / least))

    @functools.cached_property
    def _scale(self) -> tuple:
        """The float search's scale (:func:`verify.machine.theory._walk_search.scale_of`)."""
        return scale_of(self)


def walk_terms(machine: Any, run_or_weights: Any, images: ArrayLike,
               labels: ArrayLike) -> WalkTerms:
    """The terms of the bound for ``machine`` with the trained weights
    ``run_or_weights`` on ``(images, labels)`` (see the module's doc)."""
    w, A, targets, wired = trained_answers(machine, run_or_weights, images, labels)
    stops = machine.params.weight_range
    margins: Counter = Counter()
    harmful = np.zeros((2,) + w.shape, dtype=bool)   # [hi, lo] side of each weight
    wrong = 0
    for i in range(len(A)):
        for r in range(w.shape[0]):
            active = np.flatnonzero(A[i] & wired[r])
            y = int(targets[i, r])
            m = y * sum((Fraction(float(w[r, j])) for j in active), Fraction(0))
            if m <= 0:
                wrong += 1
                continue
            margins[(m, len(active))] += 1
            harmful[0 if y > 0 else 1, r, active] = True
    rooms: Counter = Counter()
    if stops is not None:
        hi, lo = Fraction(stops[1]), Fraction(stops[0])
        for side, bound in ((0, hi), (1, lo)):
            for v in w[harmful[side]].tolist():
                rooms[abs(bound - Fraction(v))] += 1
    return WalkTerms(tuple((m, k, n) for (m, k), n in sorted(margins.items())),
                     tuple(sorted(rooms.items())), wrong)


@dataclasses.dataclass(frozen=True)
class RetrainingSchedule:
    """When to retrain (:func:`retraining_schedule`): at ``times_s``, every
    ``interval_s``, so that over ``over_s`` machine seconds the machine answers every
    training figure rightly with probability at least ``1 - delta``; in each interval
    the probability of a changed answer is at most ``per_interval`` (certified, at
    most ``delta / intervals``).

    A schedule that its ``budget`` or ``max_memory_gb`` stopped says so in
    ``stopped_by`` (``"budget"`` or ``"memory"``, see :mod:`verify._internal.budget`; ``""``
    when complete): then ``intervals`` is the fewest it was seen to need (at least
    that many), ``interval_s`` is ``over_s / intervals``, ``per_interval`` is None and
    no time is listed, and ``message`` says why (naming the parameter to raise)."""

    over_s: Fraction
    delta: Fraction
    intervals: int
    interval_s: Fraction
    per_interval: Fraction | None
    times_s: tuple = dataclasses.field(repr=False, default=())
    stopped_by: str = ""
    message: str = ""

    def to_dict(self) -> JSONDict:
        """JSON-ready (Fractions as strings)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out.update({k: None if out[k] is None else fraction_text(out[k])
                    for k in ("over_s", "delta", "interval_s", "per_interval")})
        out["times_s"] = [fraction_text(t) for t in self.times_s]
        return out


@dataclasses.dataclass(frozen=True)
class WalkHorizon:
    """The result of :func:`walk_horizon`.

    Attributes
    ----------
    horizon_s : Fraction
        Machine seconds within which every answer to every training figure stays
        right with probability at least ``1 - delta`` (0: some answer is already
        wrong, or a potentiometer sits at its harmful end stop).
    probability : Fraction
        The certified upper bound of the probability that some answer has changed by
        ``horizon_s`` (at most ``delta``).
    delta, drift_sd : Fraction
    answers, potentiometers : int
        The terms of the union bound: (figure, R-unit) answers, and potentiometers
        counted at a harmful end stop.
    wrong : int
        Answers already wrong.
    at_stop : int
        Potentiometers already at a harmful end stop (the bound then says nothing).
    schedule : RetrainingSchedule or None
    arithmetic : str
    stopped_by : str
        ``""``, or what stopped the schedule (``"budget"`` or ``"memory"``): its
        ``stopped_by``.
    """

    horizon_s: Fraction
    probability: Fraction
    delta: Fraction
    drift_sd: Fraction
    answers: int
    potentiometers: int
    wrong: int
    at_stop: int
    schedule: RetrainingSchedule | None = None
    arithmetic: str = ARITHMETIC
    stopped_by: str = ""

    def to_dict(self) -> JSONDict:
        """JSON-ready (Fractions as strings)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out.update({k: fraction_text(out[k]) for k in ("horizon_s", "probability",
                                                        "delta", "drift_sd")})
        out["schedule"] = None if self.schedule is None else self.schedule.to_dict()
        return out


def walk_horizon(machine: Any, run_or_weights: Any, images: ArrayLike,
                 labels: ArrayLike, *, drift_sd: Any, delta: Any,
                 over_s: Any = None, budget: int = DEFAULT_BUDGET,
                 max_memory_gb: float | None = None,
                 progress: bool | None = None) -> WalkHorizon:
    """A machine time within which a random walk of the potentiometers changes some
    answer to a training figure with probability at most ``delta`` (certified).

    Parameters
    ----------
    machine : markone.hardware.MarkI
        The machine (its wiring, threshold, end stops).
    run_or_weights : MachineRun or array (n_r_units, n_a_units)
        The trained weights, in motor steps.
    images, labels
        The training figures.
    drift_sd : number
        The walk: steps per sqrt(machine second), as ``PotentiometerDrift(sd)`` (a
        float is its exact binary value, the one the machine draws with).
    delta : number
        The probability allowed, in (0, 1) (a float is the decimal it prints as).
    over_s : number, optional
        Also give the :class:`RetrainingSchedule` for this many machine seconds.
    budget, max_memory_gb, progress
        Of the schedule: see :func:`retraining_schedule` (what stopped it is the
        result's ``stopped_by``).

    Returns
    -------
    WalkHorizon
    """
    sd = positive(drift_sd, "drift_sd", "steps per sqrt(second), e.g. 0.05")
    delta = probability_arg(delta)
    budget = check_int_at_least(budget, "budget", 1)
    memory_limit(max_memory_gb)                      # checked before any work
    terms = walk_terms(machine, run_or_weights, images, labels)
    horizon = largest_time(terms, sd, delta)
    at_stop = sum(n for c, n in terms.rooms if c == 0)
    schedule = (None if over_s is None else
                retraining_schedule(terms, sd, delta, over_s, horizon, budget=budget,
                                    max_memory_gb=max_memory_gb, progress=progress))
    return WalkHorizon(horizon, terms.probability(sd, horizon), delta, sd,
                       sum(n for *_, n in terms.answers) + terms.wrong,
                       sum(n for _, n in terms.rooms), terms.wrong, at_stop, schedule,
                       stopped_by="" if schedule is None else schedule.stopped_by)


def retraining_schedule(terms: WalkTerms, sd: Fraction, delta: Fraction, over_s: Any,
                        horizon_s: Fraction | None = None, *,
                        budget: int = DEFAULT_BUDGET, max_memory_gb: float | None = None,
                        progress: bool | None = None) -> RetrainingSchedule:
    """The fewest equal intervals of ``over_s`` found with a certified bound of at
    most ``delta / n`` in each; retraining at their ends (restoring the weights the
    terms come from) keeps every answer right over ``over_s`` with probability at
    least ``1 - delta``. ``horizon_s`` is :func:`walk_horizon`'s time for ``delta``
    (computed when not given).

    At most ``budget`` intervals are planned, and their times are listed only when
    they fit in ``max_memory_gb`` (counted from their digits, not measured);
    otherwise the schedule says what stopped it (``stopped_by``). ``progress`` shows
    a bar of the times listed (None: on a terminal, once it takes a while).

    >>> terms = WalkTerms(((Fraction(1), 1, 2),), (), 0)
    >>> s = retraining_schedule(terms, Fraction(1, 10), Fraction(1, 100), 1000)
    >>> s.intervals, s.interval_s, s.per_interval <= s.delta / s.intervals
    (176, Fraction(125, 22), True)
    >>> cut = retraining_schedule(terms, Fraction(1, 10), Fraction(1, 100), 1000, budget=100)
    >>> cut.stopped_by, cut.intervals, cut.times_s
    ('budget', 101, ())
    """
    over = positive(over_s, "over_s", "machine seconds, e.g. 3600")
    budget = check_int_at_least(budget, "budget", 1)
    if terms.wrong:
        raise ValueError("some answer to a training figure is already wrong: no "
                         "retraining schedule keeps the machine right; retrain first.")
    if horizon_s is None:
        horizon_s = largest_time(terms, sd, delta)
    if horizon_s <= 0:
        raise ValueError("a potentiometer sits at the end stop that works against its "
                         "answer: the bound says nothing; widen weight_range.")
    n = fewest_intervals(terms, sd, delta, over, horizon_s, budget)
    step = over / n
    stop = (BUDGET if n > budget else MEMORY if (n - 1) * time_bytes(step, n)
            > memory_limit(max_memory_gb) else "")
    if stop:
        return RetrainingSchedule(over, delta, n, step, None, stopped_by=stop, message=(
            stopped_plan(stop, n, step, budget, max_memory_gb)))
    return RetrainingSchedule(over, delta, n, step, terms.probability(sd, step),
                              listed_times(step, n, progress))


def first_changes(params: Any, seed: int, weights: ArrayLike, images: ArrayLike,
                  labels: ArrayLike, *, drift_sd: float, until_s: float,
                  walks: int) -> list[float | None]:
    """The bound's check on the SimPy machine: for each of ``walks`` seeded random
    walks (``FaultPlan((PotentiometerDrift(drift_sd),), seed=k)``, ``k = 0, 1, ...``),
    the machine time of the first decision at which some R-unit answers a training
    figure wrongly, or None when none does by ``until_s``.

    Each walk starts from ``MarkI(params, seed)`` with the threshold and classes that
    training on ``(images, labels)`` gives it, its potentiometers set to ``weights``; the training figures are shown in turn, and a wrong answer is seen
    at the decision of the figure it concerns (so at most as often as it happens).

    >>> import numpy as np
    >>> from markone.hardware import MarkIParams
    >>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1,
    ...                 n_inhibitory=0, max_fanout=1, theta=1, n_r_units=1)
    >>> figures, labels = np.array([[1, 0], [0, 1]]), ["a", "b"]
    >>> first_changes(p, 0, [[-1.0, 1.0]], figures, labels, drift_sd=0.01,
    ...               until_s=1.0, walks=2)          # 1 step of margin: no change yet
    [None, None]
    """
    out: list[float | None] = []
    for k in range(walks):
        machine = MarkI(params, seed=seed)
        machine.calibrate(images)     # the threshold training on these figures sets
        apply_faults(machine, FaultPlan((PotentiometerDrift(drift_sd),), seed=k))
        machine.runits.weights[:] = weights
        out.append(None)
        while out[-1] is None and machine.now_s <= until_s:   # a pass at a time
            session = machine.train(images, labels, max_epochs=1, warm_start=True,
                                    log=True)
            assert session.log is not None   # log=True
            decided = [p.end_t_s - p.motor_s for p in session.log if any(p.reinforced)]
            if decided:
                out[-1] = decided[0] if decided[0] <= until_s else math.inf
        if out[-1] == math.inf:
            out[-1] = None
    return out
