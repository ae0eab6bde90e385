"""The one trial kernel: what happens to the Mark I while one figure is shown.

A trial is: the photocells lag towards the new light until they settle (or the
exposure ends), the A/R logic (the R-units' sums over the active A-units,
:func:`score`), the trainer's decision with the learner core's rule
(:func:`markone.online.signed_mistake`), and the potentiometers' moves against their
end stops, which set how long the motors run. This module holds each of these steps
once, as a plain Python function that numba compiles on demand
(:mod:`markone._internal.jit`; no fast-math: every value is the IEEE result of the
same operations in the same order, plain or compiled), and both ways of running the
machine call them:

* the per-figure SimPy process (:meth:`MarkI._trial <markone.hardware.machine.MarkI>`,
  through :class:`~markone.hardware.retina.Retina`,
  :class:`~markone.hardware.plugboard.Pattern`,
  :class:`~markone.hardware.trainer.Trainer`,
  :class:`~markone.hardware.runits.RUnits` and
  :class:`~markone.hardware.motors.Motors`), one SimPy timeout per phase;
* the compiled segment loop (:func:`markone.hardware.segments.run_segment`), which runs
  a whole run of figures between two events of the clock.

**Plain, then compiled.** A process runs its first :data:`PLAIN_TRIALS` trials'
steps as plain Python (:data:`PLAIN`: no numba import, no compiler: a small job, such
as the demo's, starts at once) and later ones compiled, in a segment loop or one by
one; since plain and compiled steps give the same values bit for bit, the choice
changes the time a run takes, never its result
(``tests/markone/hardware/test_plain_trials.py``).

The physics travels as a named record (dtype :data:`PHYSICS`, built by
:func:`physics_of`), each value read by its name, never by position.

Examples
--------
>>> import math
>>> import numpy as np
>>> from markone.hardware.params import MarkIParams
>>> ph = physics_of(MarkIParams())
>>> float(ph[0]["rise_s"]), float(ph[0]["lo"]), float(ph[0]["exposure_s"])
(0.02, -50.0, nan)
>>> level, light, x = np.zeros(2), np.zeros(2), np.array([1.0, 0.0])
>>> rise, fall = look(level, light, x, 0.0, ph, level)
>>> wait = settle_wait(rise, fall, ph, math.nan)
>>> round(wait, 4)                                   # 20 ms * ln(1 / 0.05)
0.0599
>>> wrong, rows = np.empty(2, dtype=np.bool_), np.empty(2, dtype=np.int64)
>>> decide(np.array([0.0, 3.0]), np.array([1, 1]), False, wrong, rows)   # a zero errs
1
>>> wrong.tolist(), rows[:1].tolist()
([True, False], [0])
>>> motor_seconds(3.0, float(ph[0]["motor_step_s"])) == 3.0 * 0.2
True
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from markone._internal.jit import PlainWork, kernel, plain_form
from markone._loops import running_sums
from markone.online import signed_mistake

if TYPE_CHECKING:
    from markone.hardware.params import MarkIParams

__all__ = ["PLAIN_TRIALS", "TRIAL_OPS", "STEP_OPS", "trials_of", "PLAIN", "PHYSICS",
           "physics_of", "remains", "lag_cell", "look", "settle_wait",
           "settle", "score", "score_figures", "score_rows", "decide", "turn_to",
           "turn_units", "motor_seconds", "device_moves", "creep"]

#: A process runs this much work plain, in trials (a bulk step counts the trials its
#: element operations make, :func:`trials_of`): at about 0.2 ms a plain trial, some
#: 7 s of CPU, less than compiling the machine's kernels costs (about 9 s; loading
#: them from numba's cache, about 1 s, cannot be counted on after a fresh install).
#: Only work larger than that pays for its compiler.
PLAIN_TRIALS = 2**15

#: A plain trial's cost in element operations of numpy's whole-array steps (each a
#: nanosecond or so: some 0.1 ms): the unit :func:`trials_of` counts bulk steps in.
TRIAL_OPS = 2**16

#: A step of a plain loop that stays scalar Python (the wiring's random draws), in
#: the same element operations: a few microseconds.
STEP_OPS = 2**11

#: The plain work left to this process (:class:`markone._internal.jit.PlainWork`, in
#: trials): ``PLAIN.kernel(step)`` is the step as it runs now.
PLAIN = PlainWork(PLAIN_TRIALS)

def trials_of(ops: int) -> int:
    """The plain trials (at least one) that a bulk step of ``ops`` element operations
    counts as: its work, not its number of figures (the net input of 200 figures, 200
    x 512 A-units x 20 connections, is 32 trials of work, not 200).

    >>> trials_of(1), trials_of(200 * 512 * 20)
    (1, 32)
    """
    return max(-(-int(ops) // TRIAL_OPS), 1)


#: The learner core's mistake test, compiled into the kernel (the same function).
_mistake = kernel()(signed_mistake)


#: The physics of one machine as the kernel reads it: a record of plain floats, each by
#: name. ``exposure_s`` is NaN when the machine waits until the retina settles; ``lo``
#: and ``hi`` are the end stops (infinite without them). (A one-element
#: ``numpy.recarray``, because numba takes one from Python far faster than a named
#: tuple, and its record reads a field by name in plain Python too.)
PHYSICS = np.dtype([(name, np.float64) for name in (
    "rise_s", "decay_s", "tolerance", "s_threshold", "exposure_s", "logic_s",
    "motor_step_s", "lo", "hi")])


def physics_of(params: MarkIParams) -> np.ndarray:
    """The physics of ``params`` (a :class:`~markone.hardware.MarkIParams`) as the
    kernel reads it: a one-element record array of dtype :data:`PHYSICS`.

    >>> from markone.hardware.params import MarkIParams
    >>> ph = physics_of(MarkIParams(weight_range=None, exposure_s=0.5))
    >>> float(ph["exposure_s"][0]), float(ph["logic_s"][0]), float(ph["hi"][0])
    (0.5, 0.05, inf)
    """
    lo, hi = (-np.inf, np.inf) if params.weight_range is None else params.weight_range
    return np.array([(
        params.photocell_rise_s, params.photocell_decay_s, params.settle_tolerance,
        params.s_threshold, math.nan if params.exposure_s is None else params.exposure_s,
        params.logic_s, params.motor_step_s, lo, hi)], dtype=PHYSICS).view(np.recarray)


# ---------------------------------------------------------------------- the retina
@kernel()
def remains(dt: float, tau: float) -> float:
    """Fraction of a step still to go after ``dt`` seconds (time constant ``tau``).

    >>> remains(0.0, 0.02), remains(1.0, 0.0)
    (1.0, 0.0)
    """
    return math.exp(-dt / tau) if tau > 0 else 0.0


@kernel()
def lag_cell(level: float, light: float, up: float, down: float) -> float:
    """One cell at ``level`` after its lag towards ``light``, the factors ``up``
    (light above the level) and ``down`` precomputed: the IEEE operations of
    ``light + (level - light) * np.where(light > level, up, down)``, bit for bit."""
    return light + (level - light) * (up if light > level else down)


@kernel()
def look(level: np.ndarray, light: np.ndarray, x: np.ndarray, dt: float,
         physics: np.ndarray, out: np.ndarray) -> tuple[float, float]:
    """Bring the cells to the clock and show ``x``: ``out`` (may be ``level``) gets
    each cell after ``dt`` seconds of lag towards ``light`` (instant cells, both time
    constants 0, read their light); returns the worst rise
    and fall still to go towards ``x``, ``(max(x - out), max(out - x))``. ``physics``
    is a record array of :data:`PHYSICS` (so for the other steps)."""
    ph = physics[0]
    up, down = remains(dt, ph.rise_s), remains(dt, ph.decay_s)
    instant = not (ph.rise_s > 0 or ph.decay_s > 0)
    rise = fall = -np.inf
    for c in range(level.size):
        v = light[c] if instant else lag_cell(level[c], light[c], up, down)
        out[c] = v
        rise = max(rise, x[c] - v)
        fall = max(fall, v - x[c])
    return rise, fall


def _lagged(level, light, up, down, instant):
    """Every cell's :func:`lag_cell` at once (``light`` itself for instant cells)."""
    if instant:
        return np.array(light, dtype=np.float64)
    return light + (level - light) * np.where(light > level, up, down)


def _worst(values):
    """``max(-inf, v0, v1, ...)`` as the kernels' running ``max`` takes it (a NaN
    never replaces the running value: ``np.fmax``)."""
    return float(np.fmax.reduce(values, initial=-np.inf))


@plain_form(look)
def _look(level, light, x, dt, physics, out):
    ph = physics[0]
    v = _lagged(level, light, remains(dt, ph.rise_s), remains(dt, ph.decay_s),
                not (ph.rise_s > 0 or ph.decay_s > 0))
    out[:] = v
    return _worst(x - v), _worst(v - x)


@kernel()
def settle_wait(rise: float, fall: float, physics: np.ndarray, exposure_s: float
                ) -> float:
    """Seconds the machine looks at a figure: ``exposure_s`` unless it is NaN, else
    until the worst ``rise`` and ``fall`` are within the tolerance (each needs
    ``tau * log(gap / tolerance)``; instant cells need nothing)."""
    if not math.isnan(exposure_s):
        return exposure_s
    ph = physics[0]
    wait = 0.0
    if ph.rise_s > 0 and rise > ph.tolerance:
        wait = max(wait, ph.rise_s * math.log(rise / ph.tolerance))
    if ph.decay_s > 0 and fall > ph.tolerance:
        wait = max(wait, ph.decay_s * math.log(fall / ph.tolerance))
    return float(wait)   # plain, the record's fields are numpy floats: the same value


@kernel()
def settle(level: np.ndarray, x: np.ndarray, settle_s: float, physics: np.ndarray,
           expect: np.ndarray) -> bool:
    """In place: every cell ``level[c]`` after ``settle_s`` seconds of lag towards
    ``x[c]`` (instant cells read it). Returns whether the S-units then read ``expect`` (0/1 per cell; always
    True when ``expect`` is empty)."""
    ph = physics[0]
    up, down = remains(settle_s, ph.rise_s), remains(settle_s, ph.decay_s)
    instant = not (ph.rise_s > 0 or ph.decay_s > 0)
    threshold, check, same = ph.s_threshold, expect.size > 0, True
    for c in range(level.size):
        v = x[c] if instant else lag_cell(level[c], x[c], up, down)
        level[c] = v
        if check:
            same &= (v >= threshold) == (expect[c] != 0)
    return same


@plain_form(settle)
def _settle(level, x, settle_s, physics, expect):
    ph = physics[0]
    v = _lagged(level, x, remains(settle_s, ph.rise_s), remains(settle_s, ph.decay_s),
                not (ph.rise_s > 0 or ph.decay_s > 0))
    level[:] = v
    return expect.size == 0 or bool(np.array_equal(v >= ph.s_threshold, expect != 0))


# ---------------------------------------------------------------------- the scores
@kernel()
def score(weights: np.ndarray, active: np.ndarray, scores: np.ndarray) -> None:
    """``scores[r]``: R-unit ``r``'s weighted sum over the ``active`` A-units (their
    indices, ascending), ``weights`` being ``(n_r, n_a)``.

    The one scoring step of both paths, and of :meth:`MarkI.decision_function
    <markone.hardware.MarkI.decision_function>`: the sum starts at +0.0 and adds the
    active units' weights in ascending order, a fixed order, so equal weights give
    equal scores bit for bit wherever they are summed (a matrix product's order is
    the BLAS library's choice). Whole-step weights give exact integers, in any order.

    >>> import numpy as np
    >>> out = np.empty(2)
    >>> score(np.array([[1.0, 2.0, 4.0], [0.1, 0.2, 0.3]]), np.array([0, 2]), out)
    >>> out.tolist()                                     # 1 + 4, 0.1 + 0.3
    [5.0, 0.4]
    """
    for r in range(weights.shape[0]):
        total = 0.0
        for j in active:
            total += weights[r, j]
        scores[r] = total


#: figures scored per numpy call by the plain :func:`score_figures` (its temporary
#: holds this many times ``n_r * n_a`` floats)
_CHUNK = 64


@plain_form(score)
def _score(weights, active, scores):
    scores[:] = running_sums(weights[:, active])


@kernel()
def score_figures(weights: np.ndarray, A: np.ndarray, scores: np.ndarray) -> None:
    """:func:`score` of many figures: row ``scores[i]`` gets the sums over the
    A-units that fire in row ``A[i]`` (0/1, ``(n, n_a)``).

    >>> import numpy as np
    >>> out = np.empty((2, 1))
    >>> score_figures(np.array([[1.0, 2.0, 4.0]]), np.array([[0, 0, 1], [1, 1, 0]]),
    ...               out); out.tolist()
    [[4.0], [3.0]]
    """
    for i in range(A.shape[0]):
        score(weights, np.flatnonzero(A[i]), scores[i])


@kernel()
def score_rows(weights: np.ndarray, ptr: np.ndarray, idx: np.ndarray,
               scores: np.ndarray) -> None:
    """:func:`score` of many figures given by their active A-units as CSR: row
    ``scores[i]`` gets the sums over ``idx[ptr[i]:ptr[i + 1]]`` (ascending): what
    :func:`score_figures` computes from the 0/1 rows themselves.

    >>> import numpy as np
    >>> out = np.empty((2, 1))
    >>> score_rows(np.array([[1.0, 2.0, 4.0]]), np.array([0, 1, 3]),
    ...            np.array([2, 0, 1]), out); out.tolist()
    [[4.0], [3.0]]
    """
    for i in range(ptr.size - 1):
        score(weights, idx[ptr[i]:ptr[i + 1]], scores[i])


@plain_form(score_figures)
def _score_figures(weights, A, scores):
    # an A-unit that does not fire adds +0.0, which changes no running sum (one
    # started at +0.0 is never -0.0): the sums over the active units, bit for bit
    for i in range(0, A.shape[0], _CHUNK):
        fired = A[i:i + _CHUNK, None, :] != 0
        scores[i:i + _CHUNK] = running_sums(np.where(fired, weights, 0.0))


@plain_form(score_rows)
def _score_rows(weights, ptr, idx, scores):
    for i in range(ptr.size - 1):
        _score(weights, idx[ptr[i]:ptr[i + 1]], scores[i])


# ---------------------------------------------------------------------- the decision
@kernel()
def decide(scores: np.ndarray, target: np.ndarray, forced: bool, wrong: np.ndarray,
           rows: np.ndarray) -> int:
    """The trainer's decision on the R-units' ``scores``: ``wrong[r]`` is the core's
    mistake test (:func:`markone.online.signed_mistake` of ``target[r] * scores[r]``);
    ``rows`` starts with the R-units to reinforce (the wrong ones, or every one when
    ``forced``). Returns how many."""
    n_rows = 0
    for r in range(scores.size):
        wrong[r] = _mistake(target[r] * scores[r], False)
        if forced or wrong[r]:
            rows[n_rows] = r
            n_rows += 1
    return n_rows


# ---------------------------------------------------------------------- the motors
@kernel()
def turn_to(before: float, want: float, lo: float, hi: float) -> tuple[float, bool]:
    """Where a potentiometer at ``before`` asked to move by ``want`` stops (end stops
    ``lo``/``hi``: the value of ``np.clip(before + want, lo, hi)``), and whether an end
    stop cut the move short."""
    wanted = before + want
    after = min(max(wanted, lo), hi)
    return after, after != wanted and want != 0


@kernel()
def turn_units(before: np.ndarray, units: np.ndarray, want: np.ndarray, lo: float,
               hi: float, after: np.ndarray) -> tuple[int, float]:
    """One R-unit's potentiometers ``units`` (positions in ``before``) asked to move
    by ``want[p]`` (the ``p``-th of ``units``): ``after[j]`` gets where each stops.
    Returns ``(moves an end stop cut short, the largest move in steps)``."""
    n_blocked, largest = 0, 0.0
    for p in range(units.size):
        j = units[p]
        stop, cut = turn_to(before[j], want[p], lo, hi)
        n_blocked += cut
        after[j] = stop
        largest = max(largest, abs(stop - before[j]))
    return n_blocked, largest


def _stopped(wanted, lo, hi):
    """``min(max(wanted, lo), hi)`` element by element, as Python's ``max`` and
    ``min`` take them (the first argument unless the second is strictly beyond it)."""
    at_least = np.where(lo > wanted, lo, wanted)
    return np.where(hi < at_least, hi, at_least)


@plain_form(turn_units)
def _turn_units(before, units, want, lo, hi, after):
    old = before[..., units]
    wanted = old + want
    stop = _stopped(wanted, lo, hi)
    after[..., units] = stop
    cut = (stop != wanted) & (want != 0)
    return int(np.count_nonzero(cut)), float(np.fmax.reduce(np.abs(stop - old), initial=0.0))


@kernel()
def device_moves(want: np.ndarray, gain: np.ndarray, up_down: float, step_std: float,
                 noise: np.ndarray, sticky_steps: float, stuck: np.ndarray,
                 out: np.ndarray) -> None:
    """What potentiometers with device variation turn when asked to move ``want``
    steps (any shape; every other array the same shape): ``out`` gets each one's
    move, before the end stops.

    A move of ``n = |want|`` steps does nothing when ``n < sticky_steps`` or ``stuck``
    (stiction); else it turns ``max(n + step_std * sqrt(n) * noise, 0)`` of the
    potentiometer's own steps (cycle-to-cycle noise, ``noise`` standard normal), each
    ``gain`` times a nominal step (device-to-device), times ``1 + up_down`` up or
    ``1 - up_down`` down (asymmetry). With ``gain`` 1 and the rest 0 it is ``want``.

    >>> import numpy as np
    >>> want, one = np.array([2.0, -2.0, 0.5]), np.ones(3)
    >>> out = np.empty(3)
    >>> device_moves(want, np.array([1.5, 1.0, 1.0]), 0.25, 0.0, 0 * one, 1.0,
    ...              np.zeros(3, np.bool_), out); out.tolist()
    [3.75, -1.5, 0.0]
    """
    flat_w, flat_out = want.ravel(), out.ravel()
    flat_g, flat_n, flat_s = gain.ravel(), noise.ravel(), stuck.ravel()
    for k in range(flat_w.size):
        w = flat_w[k]
        n = abs(w)
        if n == 0 or n < sticky_steps or flat_s[k]:
            flat_out[k] = 0.0
            continue
        turned = max(n + step_std * math.sqrt(n) * flat_n[k], 0.0) * flat_g[k]
        flat_out[k] = turned * (1 + up_down) if w > 0 else -turned * (1 - up_down)


@plain_form(device_moves)
def _device_moves(want, gain, up_down, step_std, noise, sticky_steps, stuck, out):
    n = np.abs(want)
    with np.errstate(invalid="ignore"):
        turned = n + step_std * np.sqrt(n) * noise
    turned = np.where(0.0 > turned, 0.0, turned) * gain
    moved = np.where(want > 0, turned * (1 + up_down), -turned * (1 - up_down))
    still = (n == 0) | (n < sticky_steps) | (stuck != 0)
    out[...] = np.where(still, 0.0, moved)


@kernel()
def creep(weights: np.ndarray, wired: np.ndarray, shift: float, lo: float, hi: float
          ) -> None:
    """In place: every ``wired`` potentiometer of ``weights`` moved by ``shift``
    steps, stopped by the end stops ``lo``/``hi`` (deterministic drift).

    >>> import numpy as np
    >>> w = np.array([[0.0, 2.5, 0.0]])
    >>> creep(w, np.array([[True, True, False]]), 1.0, -3.0, 3.0); w.tolist()
    [[1.0, 3.0, 0.0]]
    """
    for r in range(weights.shape[0]):
        for j in range(weights.shape[1]):
            if wired[r, j]:
                weights[r, j] = min(max(weights[r, j] + shift, lo), hi)


@plain_form(creep)
def _creep(weights, wired, shift, lo, hi):
    weights[...] = np.where(wired, _stopped(weights + shift, lo, hi), weights)


@kernel()
def motor_seconds(longest: float, motor_step_s: float) -> float:
    """How long the motor phase runs: the slowest bank's ``longest`` move (in steps),
    the banks in parallel; 0 with instant motors or nothing to move."""
    if motor_step_s > 0 and longest > 0:
        return longest * motor_step_s
    return 0.0
