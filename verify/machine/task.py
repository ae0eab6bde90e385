"""The task as the machine sees it: A-unit patterns, R-unit targets, integer units.

Everything the claims of :mod:`verify.machine` are about, and nothing that decides
them: :func:`machine_task` (the patterns and targets ``MarkI.train`` uses),
:class:`Units` (weights in whole units: motor steps times ``Q``), :class:`Reduced` (one
R-unit's task with its A-units that always agree merged) and the hashes that tie a
report to its figures and to its machine. It imports nothing else from
:mod:`verify.machine`.

Examples
--------
>>> import numpy as np
>>> units = Units(0.5, (-2, 2))          # half-step increments: 2 units a step
>>> units.Q, units.e, units.lo, units.hi, units.steps(3)
(2, 1, -4, 4, Fraction(3, 2))
>>> red = Reduced(np.array([[1, 1, 0], [0, 0, 1]]), np.array([1, -1]), units)
>>> red.groups, red.P.tolist()           # A-units 0 and 1 agree: one column of 2
([array([2]), array([0, 1])], [[0, 2], [-1, 0]])
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from markone._internal.typing import ArrayLike
from markone._internal.validation import check_consistent_length
from markone.hardware import plugboard
from markone.hardware.faults import FaultPlan, damaged_patterns
from markone.hardware.machine import class_codes

if TYPE_CHECKING:
    from markone.hardware import MarkI
    from markone.hardware.faults import FaultPlan

__all__ = ["MachineTask", "machine_task", "Units", "Reduced", "data_hash",
           "patterns_hash", "NO_STOP", "trained_answers"]

#: Stand-in for "no end stop" in integer units (far beyond any reachable weight).
NO_STOP = 2**60


@dataclasses.dataclass(frozen=True)
class MachineTask:
    """A-unit patterns and R-unit targets of a task on one machine.

    ``patterns`` (n, n_a) uint8, ``targets`` (n, n_r) -1/+1, ``theta`` the threshold,
    ``inputs[r]`` the A-units wired to R-unit ``r``, ``settled`` the S-unit states.
    """

    patterns: np.ndarray
    targets: np.ndarray
    theta: int
    inputs: tuple
    settled: np.ndarray
    classes: np.ndarray


def machine_task(machine: MarkI, images: ArrayLike, labels: ArrayLike,
                 plan: FaultPlan | None = None) -> MachineTask:
    """The A-unit patterns and R-unit targets ``MarkI.train(images, labels)`` uses.

    The threshold is calibrated on ``images`` as a fresh ``train`` would (the machine
    itself is not changed); labels get the codes of their sorted classes. Hardware
    faults (``plan``, default the machine's own) count as happened: their patterns
    are the damaged ones, and an A-unit whose motor is stopped from the start is not
    an input of that R-unit (its weight stays 0).

    >>> from markone.hardware import MarkI
    >>> from markone.datasets import letters
    >>> images, labels = letters("AB", per_class=2, seed=0)
    >>> t = machine_task(MarkI(seed=0), images, labels)
    >>> t.patterns.shape, t.targets[:, 0].tolist(), t.theta
    ((4, 512), [-1, 1, -1, 1], 2)
    """
    X = machine._images(images)
    labels = np.asarray(labels)
    check_consistent_length(X, labels, names=("images", "labels"))
    p = machine.params
    settled = machine.retina.settled(X)
    if p.theta == "auto":
        theta = plugboard.calibrate_theta(machine.wiring, settled, p.theta_target_rate,
                                          p.n_excitatory, p.n_inhibitory)
    else:
        theta = int(p.theta)
    if plan is None:
        plan = machine.faults.plan if machine.faults is not None else FaultPlan()
    A = damaged_patterns(machine, settled, theta, plan)
    classes, idx = np.unique(labels, return_inverse=True)
    targets = class_codes(len(classes), p.n_r_units, p.class_code)[idx.ravel()]
    wired = (machine.runits.mask.copy() if machine.runits.mask is not None
             else np.ones((p.n_r_units, p.n_a_units), bool))
    for f in plan.faults:
        stopped = f.stopped_input()
        if stopped is not None:
            wired[stopped] = False
    inputs = tuple(np.flatnonzero(wired[r]) for r in range(p.n_r_units))
    return MachineTask(A, targets, int(theta), inputs, settled, classes)


def data_hash(task: MachineTask) -> str:
    """SHA-256 of the figures (their settled S-unit states) and the targets.

    >>> t = MachineTask(np.zeros((1, 1), np.uint8), np.ones((1, 1), np.int64), 1,
    ...                 (np.array([0]),), np.zeros((1, 1), np.uint8), np.array(["a"]))
    >>> len(data_hash(t)), data_hash(t) == patterns_hash(t)
    (64, False)
    """
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(task.settled, dtype=np.uint8).tobytes())
    h.update(np.ascontiguousarray(task.targets, dtype=np.int64).tobytes())
    return h.hexdigest()


def patterns_hash(task: MachineTask) -> str:
    """SHA-256 of what the claims are about on this machine: the A-unit patterns, the
    targets and each R-unit's inputs (see :func:`data_hash` for an example)."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(task.patterns, dtype=np.uint8).tobytes())
    h.update(np.ascontiguousarray(task.targets, dtype=np.int64).tobytes())
    for cols in task.inputs:
        h.update(np.ascontiguousarray(cols, dtype=np.int64).tobytes() + b"|")
    return h.hexdigest()


class Units:
    """Integer units for the weights: ``Q`` units per motor step, so that the
    increment ``e`` and the end stops ``lo``, ``hi`` are whole units (``stops``:
    whether there are end stops; without, ``lo, hi = -NO_STOP, NO_STOP``). See the
    module doc for an example."""

    def __init__(self, eta: float | Fraction, weight_range: tuple | None) -> None:
        parts = [Fraction(eta)] + ([Fraction(v) for v in weight_range]
                                   if weight_range is not None else [])
        self.Q = math.lcm(*(f.denominator for f in parts))
        self.eta = Fraction(eta)
        self.e = int(self.eta * self.Q)
        if weight_range is None:
            self.lo, self.hi = -NO_STOP, NO_STOP
        else:
            self.lo, self.hi = (int(Fraction(v) * self.Q) for v in weight_range)
        self.stops = weight_range is not None

    def steps(self, units: int) -> Fraction:
        """A count of units as motor steps (exact)."""
        return Fraction(int(units), self.Q)


class Reduced:
    """One R-unit's task with A-unit columns that always agree merged; all-zero
    columns dropped. ``P`` scores, ``D`` moves (units), ``groups`` the A-units of each
    merged column (indices into the R-unit's inputs); ``cols`` the A-units of the
    columns of ``X``. See the module doc for an example."""

    def __init__(self, X: np.ndarray, y: np.ndarray, units: Units,
                 cols: ArrayLike | None = None) -> None:
        active = np.flatnonzero(X.any(axis=0))
        uniq, inverse, counts = np.unique(X[:, active].T, axis=0, return_inverse=True,
                                          return_counts=True)
        self.groups = [active[inverse.ravel() == g] for g in range(len(uniq))]
        Xu = uniq.T.astype(np.int64)
        self.X, self.y = X, y
        self.cols = np.arange(X.shape[1]) if cols is None else np.asarray(cols)
        self.P = y[:, None] * Xu * counts[None, :]
        self.D = units.e * y[:, None] * Xu
        self.R_sq = int(X.sum(axis=1).max())
        self.n, self.d = Xu.shape

    def small(self) -> bool:
        """Small enough for the exact all-streams searches and Z3."""
        return self.d <= 64 and self.n <= 24


def trained_answers(machine: MarkI, run_or_weights: Any, images: ArrayLike,
                    labels: ArrayLike
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What decides the R-units' answers to the training figures: the weights
    ``(n_r, n_a)`` (checked), the figures' active A-units ``(n, n_a)`` (bool), the
    targets ``(n, n_r)`` (+/-1) and which potentiometers are wired ``(n_r, n_a)``."""
    w = _weights(run_or_weights, machine.params)
    A = machine.a_features(images).astype(bool)
    wired = (np.ones(w.shape, bool) if machine.runits.mask is None
             else np.asarray(machine.runits.mask, bool))
    return w, A, machine.code(labels), wired


def _weights(run_or_weights, p):
    """The weights of a run, or the weights given, checked."""
    w = np.asarray(getattr(run_or_weights, "weights", run_or_weights), dtype=np.float64)
    if w.shape != (p.n_r_units, p.n_a_units) or not np.isfinite(w).all():
        raise ValueError(f"run_or_weights must be a MachineRun or finite weights of "
                         f"shape ({p.n_r_units}, {p.n_a_units}), got shape {w.shape}.")
    return w
