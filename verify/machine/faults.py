"""A 1-minimal set of faults that still makes a task unlearnable on a damaged Mark I.

"Unlearnable" is decided exactly: some R-unit's task on the damaged A-unit patterns
(:func:`verify.machine.machine_task` with a sub-plan) has a Gordan certificate
``lambda >= 0``, not all zero, with ``sum_i lambda_i y_i x_i = 0``; "learnable" means
every R-unit in scope has an exact separating witness ``w`` (``y_i w . x_i > 0``).
The minimisation deletes faults while the rest stays certified unlearnable, and it
stays cheap on plans of thousands of faults because most steps need no solver:

1. **Certificate sweep.** A certificate of the current set ``S`` stays a certificate
   of ``S - f`` when the columns that dropping ``f`` changes (one A-unit for a cut wire
   or a stuck A-unit, the A-units a photocell feeds, one input re-wired for a stopped
   motor) still satisfy ``sum_i lambda_i y_i x_ij = 0``: one exact integer dot product
   per changed column. Faults are dropped one at a time (two faults that are harmless
   alone need not be harmless together), pass after pass, until a pass drops none.
   The patterns of ``S - f`` are updated column by column with the machine's own
   :func:`~markone.hardware.faults.fire_damaged`.
2. **Single deletions to a fixed point.** Each remaining fault is tried again on the
   whole sub-plan: the certificates and witnesses found so far are re-checked exactly
   first, and only when none decides is :func:`verify.check_separable` called (its
   new certificate then restarts the sweep). Damage need not be monotone (a second
   fault can restore what a first broke), so the pass is repeated until it drops
   none. When it ends, every fault of the result has been tested against the result
   itself, so

* the result alone makes the task unlearnable (a certificate), and
* removing any one of its faults makes it learnable (a witness for each),

unless a budget of separability checks ran out (``complete=False``) or a check was
undecided (the fault is then kept and listed in ``undecided``). Faults that do not
change the analysed task (drift, noise, motors that stop later) are dropped first,
without a test.

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
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from markone._internal.typing import ArrayLike, JSONDict
from verify._internal.budget import BUDGET, TIMEOUT, deadline_after, expired
from verify.machine.theory._subplans import SubPlans
from markone.hardware.faults import FaultPlan
from verify.separability import SeparabilityVerdict, check_separable

if TYPE_CHECKING:
    from markone.hardware import MarkI
    from markone.hardware.faults import FaultPlan
    from verify.separability import SeparabilityVerdict

__all__ = ["FaultMinimum", "minimal_faults", "static_fault", "check_r_unit_task"]

#: Most sub-plans :func:`minimal_faults` sends to :func:`verify.check_separable`
#: (those decided by a certificate or witness found before cost nothing).
MAX_TESTS = 400
#: Witnesses kept per R-unit for re-checking (the most recent ones).
KEEP_WITNESSES = 8
#: Entries above this use Python integers in the exact dot products.
_INT64_SAFE = 2**62


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
        Sub-plans decided (by a certificate or witness re-checked exactly, or by a
        new separability check).
    solver_checks : int
        Calls of :func:`verify.check_separable` (one per R-unit checked) they took;
        ``max_tests`` bounds the sub-plans that needed any.
    stopped_by : str
        When not ``complete``: ``"budget"`` (``max_tests``) or ``"timeout"``
        (``timeout_s``); else ``""``.
    """

    faults: tuple[int, ...]
    r_units: tuple[int, ...]
    complete: bool
    undecided: tuple[int, ...]
    tests: int
    solver_checks: int = 0
    stopped_by: str = ""

    def to_dict(self) -> JSONDict:
        """JSON-ready."""
        return {"faults": list(self.faults), "r_units": list(self.r_units),
                "complete": self.complete, "undecided": list(self.undecided),
                "tests": self.tests, "solver_checks": self.solver_checks,
                "stopped_by": self.stopped_by}


def _integers(values):
    """Fractions as integers of the same signs and ratios (times the lcm of their
    denominators), int64 when every product below stays exact, else Python ints."""
    den = math.lcm(*(v.denominator for v in values)) if len(values) else 1
    ints = [int(v * den) for v in values]
    big = sum(abs(v) for v in ints) >= _INT64_SAFE
    return np.array(ints, dtype=object if big else np.int64)


def _dot(M, v):
    """Exact ``M @ v`` for a 0/1 (or small integer) matrix ``M``."""
    if v.dtype == object:
        return M.astype(object) @ v
    return M.astype(np.int64) @ v


class _Oracle:
    """``unlearnable(indices)``: True (some R-unit in scope has a certificate), False
    (every one has a witness) or None, for the sub-plan of those faults; memoised.
    Certificates and witnesses found before are re-checked exactly first; R-units
    found broken before come first, so a True costs one check."""

    def __init__(self, damage, scope):
        self.damage, self.scope = damage, list(scope)
        self.memo, self.tests, self.solver, self.found = {}, 0, 0, 0
        self.solved = 0    # sub-plans that needed the solver
        self.certs = {r: [] for r in self.scope}       # integer lambda * y per figure
        self.witnesses = {r: [] for r in self.scope}   # integer w over all A-units

    def certified(self, r, A, cols):
        """A known certificate of R-unit ``r`` for patterns ``A`` on inputs ``cols``."""
        for cy in self.certs[r]:
            if not _dot(A[:, cols].T, cy).any():
                return cy
        return None

    def _witnessed(self, r, A, wired):
        y = self.damage.targets[:, r]
        for w in self.witnesses[r]:
            if not (w.astype(bool) & ~wired).any() and ((y * _dot(A, w)) > 0).all():
                return True
        return False

    def verdict(self, r, A, wired):
        """Exact verdict for R-unit ``r`` (True learnable): reuse, then the solver."""
        cols = np.flatnonzero(wired)
        if self.certified(r, A, cols) is not None:
            return False
        if self._witnessed(r, A, wired):
            return True
        self.solver += 1
        y = self.damage.targets[:, r]
        v = check_r_unit_task(A[:, cols], y)
        if v.separable is False:
            lam = [Fraction(v.certificate.get(i, 0)) for i in range(len(y))]
            self.certs[r].insert(0, _integers(lam) * y)
            self.found += 1
        elif v.separable:
            w = np.zeros(A.shape[1], dtype=object)
            w[cols] = list(v.witness)
            ints = _integers(list(w))
            self.witnesses[r] = [ints] + self.witnesses[r][:KEEP_WITNESSES - 1]
        return v.separable

    def unlearnable(self, indices, everyone=False):
        key = tuple(sorted(indices))
        if key in self.memo and not everyone:
            return self.memo[key]
        self.tests += 1
        d = self.damage
        d.set(key)
        before = self.solver
        verdicts = {}
        for r in list(self.scope):
            verdicts[r] = self.verdict(r, d.A, d.wired()[r])
            if verdicts[r] is False and not everyone:
                self.scope.remove(r)
                self.scope.insert(0, r)
                break
        self.solved += self.solver > before
        v = list(verdicts.values())
        self.memo[key] = (True if False in v else
                          False if all(x is True for x in v) else None)
        if everyone:
            return tuple(sorted(r for r, x in verdicts.items() if x is False))
        return self.memo[key]

    def sweep(self, keep, spent=lambda: False):
        """The certificate sweep (module doc, step 1) from the set ``keep``, which is
        certified unlearnable; returns the smaller set (still certified unlearnable
        when ``spent()`` cuts it short)."""
        d = self.damage
        d.set(keep)
        live = [(r, cy) for r in self.scope
                for cy in [self.certified(r, d.A, d.inputs(r))] if cy is not None]
        changed = True
        while changed and live:
            changed = False
            for i in sorted(d.keep):
                if spent():
                    return sorted(d.keep)
                cols, new, stops = change = d.without(i)
                after = d.wired(stops)
                ok = [(r, cy) for r, cy in live if self._survives(cy, r, cols, new, after)]
                if ok:
                    d.drop(i, change)
                    self.tests += 1
                    live, changed = ok, True
        return sorted(d.keep)

    def _survives(self, cy, r, cols, new, after):
        """Does certificate ``cy`` of R-unit ``r`` hold once columns ``cols`` become
        ``new`` and the inputs become ``after`` (only ever more inputs)?"""
        feeds = after[r, cols]
        if _dot(new[:, feeds].T, cy).any():
            return False
        restored = after[r] & ~self.damage.wired()[r]
        restored[cols] = False
        return not _dot(self.damage.A[:, restored].T, cy).any()


def minimal_faults(machine: MarkI, images: ArrayLike, labels: ArrayLike,
                   plan: FaultPlan | None = None, *, r_unit: int | None = None,
                   max_tests: int = MAX_TESTS,
                   timeout_s: float | None = None) -> FaultMinimum:
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
        Budget of sub-plans sent to :func:`verify.check_separable` (those decided by
        a certificate or witness found before are not counted): the work limit, so
        that the set found does not depend on the clock.
    timeout_s : float, optional
        Seconds after which no more sub-plans are tried, only when given.

    Returns
    -------
    FaultMinimum

    Raises
    ------
    ValueError
        When the task is not certified unlearnable with the whole plan (nothing to
        minimise), or ``r_unit`` is not an R-unit.
    """
    if plan is None:
        plan = machine.faults.plan if machine.faults is not None else FaultPlan()
    scope = _scope(r_unit, machine.params.n_r_units)
    oracle = _Oracle(SubPlans(machine, images, labels, plan), scope)
    # faults that do not change the analysed task (drift, noise, motors that stop
    # later) cannot matter to it: dropped without a test
    keep = [i for i, f in enumerate(plan.faults) if static_fault(f)]
    if oracle.unlearnable(keep) is not True:
        raise ValueError("the task is not certified unlearnable with this fault plan: "
                         "there is no unlearnable set of faults to minimise; check "
                         "check_machine(...).faults first.")

    deadline = deadline_after(timeout_s)

    def spent():
        return oracle.solved >= max_tests or expired(deadline)

    complete, changed = True, True
    undecided: list[int] = []
    while changed and complete:
        keep = oracle.sweep(keep, spent)
        keep, changed, undecided, complete = _single_deletions(oracle, keep, spent)
    return FaultMinimum(tuple(keep), oracle.unlearnable(keep, everyone=True), complete,
                        tuple(undecided), oracle.tests, oracle.solver,
                        "" if complete else TIMEOUT if expired(deadline) else BUDGET)


def _scope(r_unit, n_r):
    """The R-units a fault set must break: ``r_unit``, or all ``n_r`` of them."""
    if r_unit is not None and not (isinstance(r_unit, (int, np.integer))
                                   and 0 <= r_unit < n_r):
        raise ValueError(f"r_unit(={r_unit!r}) must be an R-unit index in [0, {n_r}).")
    return range(n_r) if r_unit is None else (int(r_unit),)


def _single_deletions(oracle, keep, spent):
    """One round of single deletions from ``keep``: ``(keep, changed, undecided,
    complete)``; it stops early at a new certificate (sweep with it first) or when
    the budget is ``spent()`` (then not complete)."""
    changed, undecided = False, []
    for i in list(keep):
        if spent():
            return keep, changed, undecided, False
        rest = [k for k in keep if k != i]
        known = oracle.found
        verdict = oracle.unlearnable(rest)
        if verdict is True:
            keep, changed = rest, True
            if oracle.found != known:
                break   # a new certificate: sweep with it first
        elif verdict is None:
            undecided.append(i)
    return keep, changed, undecided, True


def static_fault(fault: Any) -> bool:
    """True for the faults the analysed task models exactly: those that change the
    A-unit patterns (at any time: they count as happened) and motors stopped from
    the start (that A-unit is then no input of the R-unit): what each kind says of
    itself (:class:`markone.hardware.faults.Fault`)."""
    return bool(fault.changes_patterns) or fault.stopped_input() is not None


def check_r_unit_task(X: ArrayLike, y: ArrayLike, timeout_s: float | None = None
                      ) -> SeparabilityVerdict:
    """Is one R-unit's task (its A-unit patterns ``X``, n x d, and +/-1 targets
    ``y``) separable through the origin? :func:`verify.check_separable` without an
    intercept, and also when the R-unit has no inputs at all (``d == 0``: every
    motor stopped, every wire cut): its sum is then 0 on every figure, a mistake, so
    it cannot learn, and any one figure is the certificate.

    >>> import numpy as np
    >>> v = check_r_unit_task(np.zeros((2, 0), np.int64), [1, -1])
    >>> v.separable, v.certificate, v.method
    (False, {0: Fraction(1, 1)}, 'trivial')
    """
    X = np.asarray(X)
    if X.ndim == 2 and X.shape[1] == 0 and len(X):
        return SeparabilityVerdict(
            False, None, {0: Fraction(1)}, "trivial", True,
            "not separable: no A-unit reaches this R-unit (every motor stopped or "
            "every input cut), so its sum is 0 on every figure, a mistake", 0.0,
            intercept=False)
    return check_separable(X.astype(np.int64), y, intercept=False, progress=False,
                           timeout_s=timeout_s)
