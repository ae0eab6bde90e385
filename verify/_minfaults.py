"""A 1-minimal set of faults that still makes a task unlearnable on a damaged Mark I.

"Unlearnable" is decided exactly: some R-unit's task on the damaged A-unit patterns
(:func:`verify.machine.machine_task` with a sub-plan) has a Gordan certificate from
:func:`verify.check_separable`; "learnable" means every R-unit in scope has an exact
separating witness. Deletion-based minimisation: faults are dropped in chunks (halves,
quarters, ..., single faults, as in delta debugging) whenever the rest is still
certified unlearnable, and then single faults again, pass after pass, until a whole
pass drops none. Damage need not be monotone (a second fault can restore what a first
broke), which is why the last pass is repeated to a fixed point: when it ends, every
fault of the result has been tested against the result itself, so

* the result alone makes the task unlearnable (a certificate), and
* removing any one of its faults makes it learnable (a witness for each),

unless a budget of separability checks ran out (``complete=False``) or a check was
undecided (the fault is then kept and listed in ``undecided``).

Examples
--------
Two cells, each seen by its own A-unit; killing either A-unit blinds the R-unit to
one figure (a score of 0 is a mistake), so of three faults one alone is the cause:

>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> from markone.hardware.faults import AUnitStuck, FaultPlan, NoisySum, apply_faults
>>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
...                 max_fanout=1, theta=1, n_r_units=1)
>>> machine = MarkI(p, seed=0)
>>> apply_faults(machine, FaultPlan((NoisySum(0.5), AUnitStuck(0, value=0),
...                                  AUnitStuck(0, value=0, at_s=3.0))))
>>> m = minimal_faults(machine, np.array([[1, 0], [0, 1]]), ["a", "b"])
>>> m.faults, m.complete, m.r_units
((2,), True, (0,))
"""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

import numpy as np

from markone._typing import ArrayLike, JSONDict

if TYPE_CHECKING:
    from markone.hardware import MarkI
    from markone.hardware.faults import FaultPlan

__all__ = ["FaultMinimum", "minimal_faults", "static_fault"]

#: Most separability decisions (one per sub-plan tried) :func:`minimal_faults` makes.
MAX_TESTS = 400


@dataclasses.dataclass(frozen=True)
class FaultMinimum:
    """A 1-minimal unlearnable subset of a fault plan (see the module doc).

    Attributes
    ----------
    faults : tuple of int
        Indices into the plan's faults.
    r_units : tuple of int
        The R-units that the subset alone makes unlearnable (certified).
    complete : bool
        False when the budget of checks ran out: the subset is still certified
        unlearnable, but maybe not 1-minimal.
    undecided : tuple of int
        Faults kept only because a check without them was undecided.
    tests : int
        Separability decisions made.
    """

    faults: tuple[int, ...]
    r_units: tuple[int, ...]
    complete: bool
    undecided: tuple[int, ...]
    tests: int

    def to_dict(self) -> JSONDict:
        """JSON-ready."""
        return {"faults": list(self.faults), "r_units": list(self.r_units),
                "complete": self.complete, "undecided": list(self.undecided),
                "tests": self.tests}


class _Oracle:
    """``unlearnable(indices)``: True (some R-unit in scope has a certificate), False
    (every one has a witness) or None, for the sub-plan of those faults; memoised.
    R-units found broken before are checked first, so a True costs one check."""

    def __init__(self, machine, images, labels, plan, scope):
        self.machine, self.images, self.labels = machine, images, labels
        self.plan, self.scope = plan, list(scope)
        self.memo, self.tests = {}, 0

    def _verdicts(self, indices, stop_at_broken):
        from verify.machine import machine_task
        from verify.separability import check_separable

        keep = set(indices)
        sub = type(self.plan)(tuple(f for i, f in enumerate(self.plan.faults)
                                    if i in keep), self.plan.seed)
        t = machine_task(self.machine, self.images, self.labels, plan=sub)
        out = {}
        for r in self.scope:
            X = t.patterns[:, t.inputs[r]].astype(np.int64)
            out[r] = check_separable(X, t.targets[:, r], intercept=False,
                                     progress=False).separable
            if out[r] is False and stop_at_broken:
                self.scope.remove(r)
                self.scope.insert(0, r)
                break
        return out

    def unlearnable(self, indices):
        key = tuple(sorted(indices))
        if key not in self.memo:
            self.tests += 1
            v = list(self._verdicts(key, True).values())
            self.memo[key] = (True if False in v else
                              False if all(x is True for x in v) else None)
        return self.memo[key]

    def broken(self, indices):
        """Every R-unit in scope that these faults make unlearnable (certified)."""
        return tuple(sorted(r for r, v in self._verdicts(indices, False).items()
                            if v is False))


def minimal_faults(machine: MarkI, images: ArrayLike, labels: ArrayLike,
                   plan: FaultPlan | None = None, *, r_unit: int | None = None,
                   max_tests: int = MAX_TESTS,
                   deadline: float | None = None) -> FaultMinimum:
    """A 1-minimal subset of ``plan`` that keeps the task unlearnable (module doc).

    Parameters
    ----------
    machine : markone.hardware.MarkI
    images, labels : arrays
        The task, as for :func:`verify.machine.check_machine`.
    plan : markone.hardware.faults.FaultPlan, optional
        Default: the machine's own plan.
    r_unit : int, optional
        Minimise for this R-unit only (default: the task is unlearnable when any
        R-unit is).
    max_tests : int
        Budget of separability decisions (sub-plans tried).
    deadline : float, optional
        A ``time.perf_counter()`` value after which no more sub-plans are tried.

    Returns
    -------
    FaultMinimum

    Raises
    ------
    ValueError
        When the task is not certified unlearnable with the whole plan (nothing to
        minimise), or ``r_unit`` is not an R-unit.
    """
    from markone.hardware.faults import FaultPlan

    if plan is None:
        plan = machine.faults.plan if machine.faults is not None else FaultPlan()
    n_r = machine.params.n_r_units
    if r_unit is not None and not (isinstance(r_unit, (int, np.integer))
                                   and 0 <= r_unit < n_r):
        raise ValueError(f"r_unit(={r_unit!r}) must be an R-unit index in [0, {n_r}).")
    scope = range(n_r) if r_unit is None else (int(r_unit),)
    oracle = _Oracle(machine, images, labels, plan, scope)
    # faults that do not change the analysed task (drift, noise, motors that stop
    # later) cannot matter to it: dropped without a test
    keep = [i for i, f in enumerate(plan.faults) if static_fault(f)]
    if oracle.unlearnable(keep) is not True:
        raise ValueError("the task is not certified unlearnable with this fault plan: "
                         "there is no unlearnable set of faults to minimise; check "
                         "check_machine(...).faults first.")

    def spent():
        return oracle.tests >= max_tests or (deadline is not None
                                             and time.perf_counter() > deadline)

    complete = True
    # chunks: halves, quarters, ... (a fault plan of a damaged machine can be large)
    size = len(keep) // 2
    while size > 1 and complete:
        start = 0
        while start < len(keep):
            if spent():
                complete = False
                break
            rest = keep[:start] + keep[start + size:]
            if rest and oracle.unlearnable(rest) is True:
                keep = rest
            else:
                start += size
        size //= 2
    undecided: list[int] = []
    changed = True
    while changed and complete:   # single deletions, to a fixed point
        changed, undecided = False, []
        for i in list(keep):
            if spent():
                complete = False
                break
            rest = [k for k in keep if k != i]
            verdict = oracle.unlearnable(rest)
            if verdict is True:
                keep, changed = rest, True
            elif verdict is None:
                undecided.append(i)
    return FaultMinimum(tuple(keep), oracle.broken(keep), complete, tuple(undecided),
                        oracle.tests)


def static_fault(fault: object) -> bool:
    """True for the faults the analysed task models exactly: those that change the
    A-unit patterns (at any time: they count as happened) and motors stopped from
    the start (that A-unit is then no input of the R-unit)."""
    from markone.hardware.faults import PATTERN_FAULTS, MotorStopped

    return isinstance(fault, PATTERN_FAULTS) or (isinstance(fault, MotorStopped)
                                                 and fault.at_s == 0)
