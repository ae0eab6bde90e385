"""The analysed task of every sub-plan of a fault plan, updated fault by fault.

:func:`verify.machine.faults.minimal_faults` deletes faults one at a time from a plan
of thousands; :class:`SubPlans` keeps the damaged A-unit patterns of the current set
and changes only the columns a deleted fault touched (with the machine's own
:func:`~markone.hardware.faults.fire_damaged`), so that no sub-plan is rebuilt from
the figures.

Examples
--------
>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> from markone.hardware.faults import AUnitStuck, FaultPlan
>>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
...                 max_fanout=1, theta=1, n_r_units=1)
>>> plans = SubPlans(MarkI(p, seed=0), np.array([[1, 0], [0, 1]]), ["a", "b"],
...                  FaultPlan((AUnitStuck(0, value=0),)))
>>> sorted(plans.stuck_a.items())
[(0, (0, 0))]
"""

from __future__ import annotations

import numpy as np

from verify.machine.task import machine_task
from markone.hardware.faults import (AUnitStuck, CutWire, FaultPlan, PhotocellStuck,
                                     damaged_patterns, fire_damaged)
from markone.hardware.plugboard import Wiring

__all__ = ["SubPlans"]


class SubPlans:
    """The analysed task of every sub-plan of ``plan``: the damaged A-unit patterns
    ``A`` (figures x A-units) and each R-unit's inputs, kept for one current set of
    faults and updated fault by fault.

    Only static faults (:func:`verify.machine.faults.static_fault`) enter; counts, not flags, hold the cut
    wires and stopped motors (a plan may name one part twice), and a stuck part takes
    the value of its last fault in time order (:meth:`~markone.hardware.faults.
    FaultPlan.time_order`), as the machine does.
    The patterns of a kind of fault without its own update here (a kind added since)
    are rebuilt from the figures with :func:`~markone.hardware.faults.damaged_patterns`:
    slower, and as exact.
    """

    def __init__(self, machine, images, labels, plan):
        base = machine_task(machine, images, labels, plan=FaultPlan())
        self.settled, self.theta = base.settled, base.theta
        self.targets = base.targets
        self.wiring = machine.wiring
        self.healthy = np.zeros((machine.params.n_r_units, machine.params.n_a_units),
                                bool)
        for r, cols in enumerate(base.inputs):
            self.healthy[r, cols] = True
        self.machine, self.faults = machine, plan.faults
        self.happens = {i: k for k, i in enumerate(plan.time_order())}  # i -> its turn
        self.cut_cols = {}      # fault -> (a_unit, columns of wiring.inputs[a_unit])
        self.stuck_a, self.stuck_cell, self.motor = {}, {}, {}
        self.other = set()      # pattern faults of other kinds: patterns rebuilt
        own = {   # the kinds updated column by column: their table, their entry
            CutWire: (self.cut_cols, lambda f: (f.a_unit, np.flatnonzero(
                self.wiring.inputs[f.a_unit] == f.s_unit))),
            AUnitStuck: (self.stuck_a, lambda f: (f.a_unit, f.value)),
            PhotocellStuck: (self.stuck_cell, lambda f: (f.cell, f.value))}
        for i, f in enumerate(plan.faults):
            if type(f) in own:
                table, entry = own[type(f)]
                table[i] = entry(f)
            elif f.stopped_input() is not None:
                self.motor[i] = f.stopped_input()
            elif f.changes_patterns:
                self.other.add(i)
        self._sub = {}

    def set(self, keep):
        """Make ``keep`` (fault indices) the current set and build its task."""
        self.keep = set(keep)
        n_a, k = self.wiring.inputs.shape
        self.cuts = np.zeros((n_a, k), np.int64)
        for i in self.keep & self.cut_cols.keys():
            a, cols = self.cut_cols[i]
            self.cuts[a, cols] += 1
        self.stops = np.zeros(self.healthy.shape, np.int64)
        for i in self.keep & self.motor.keys():
            self.stops[self.motor[i]] += 1
        self.a_value = self._last(self.stuck_a, self.wiring.inputs.shape[0])
        self.cell = self._last(self.stuck_cell, self.wiring.n_s)
        self.s = self._read(self.cell)
        self.A = self._fire(self.s, self.cuts > 0, self.a_value)
        if self.keep & self.other:
            self.A = self._rebuilt(self.keep)

    def _rebuilt(self, keep):
        """The patterns of the pattern faults ``keep``, from the figures."""
        plan = FaultPlan(tuple(self.faults[j] for j in sorted(keep)
                               if self.faults[j].changes_patterns))
        return damaged_patterns(self.machine, self.settled, self.theta, plan)

    def _last(self, stuck, size, without=None):
        value = np.full(size, -1, np.int8)
        for i in sorted(self.keep & stuck.keys(), key=self.happens.__getitem__):
            if i != without:
                value[stuck[i][0]] = stuck[i][1]
        return value

    def _read(self, cell):
        s = np.array(self.settled, dtype=np.uint8)
        bad = cell >= 0
        s[:, bad] = cell[bad]
        return s

    def _fire(self, s, cut, a_value, a=None):
        """Patterns of all A-units, or of A-unit ``a`` only (a one-unit wiring)."""
        if a is None:
            return fire_damaged(self.wiring, s, self.theta, cut, a_value)
        if a not in self._sub:
            w = self.wiring
            self._sub[a] = Wiring(w.excitatory[a:a + 1], w.inhibitory[a:a + 1], w.n_s)
        return fire_damaged(self._sub[a], s, self.theta, cut[a:a + 1],
                            a_value[a:a + 1])[:, 0]

    def wired(self, stops=None):
        """``(n_r, n_a)`` bool: which A-units feed each R-unit."""
        return self.healthy & ((self.stops if stops is None else stops) == 0)

    def inputs(self, r):
        return np.flatnonzero(self.wired()[r])

    def without(self, i):
        """What dropping fault ``i`` from the current set changes: ``(columns, new
        patterns of those columns, new stop counts or None)``."""
        none = np.zeros(0, np.int64), np.zeros((len(self.A), 0), np.uint8), None
        if self.keep & self.other and self.faults[i].changes_patterns:
            A = self._rebuilt(self.keep - {i})
            cols = np.flatnonzero((A != self.A).any(axis=0))
            return cols, A[:, cols], None
        if i in self.cut_cols:
            a, cols = self.cut_cols[i]
            cuts = self.cuts[a].copy()
            cuts[cols] -= 1
            if np.array_equal(cuts > 0, self.cuts[a] > 0):
                return none
            cut = self.cuts > 0
            cut[a] = cuts > 0
            return np.array([a]), self._fire(self.s, cut, self.a_value, a)[:, None], None
        if i in self.stuck_a:
            a = self.stuck_a[i][0]
            a_value = self._last(self.stuck_a, len(self.a_value), without=i)
            return (np.array([a]),
                    self._fire(self.s, self.cuts > 0, a_value, a)[:, None], None)
        if i in self.stuck_cell:
            s = self._read(self._last(self.stuck_cell, len(self.cell), without=i))
            A = self._fire(s, self.cuts > 0, self.a_value)
            cols = np.flatnonzero((A != self.A).any(axis=0))
            return cols, A[:, cols], None
        if i in self.motor:
            stops = self.stops.copy()
            stops[self.motor[i]] -= 1
            return none[0], none[1], stops
        return none

    def drop(self, i, change):
        """Drop fault ``i`` (``change`` from :meth:`without`)."""
        cols, new, stops = change
        self.keep.discard(i)
        if i in self.cut_cols:
            a, c = self.cut_cols[i]
            self.cuts[a, c] -= 1
        elif i in self.stuck_a:
            self.a_value = self._last(self.stuck_a, len(self.a_value))
        elif i in self.stuck_cell:
            self.cell = self._last(self.stuck_cell, len(self.cell))
            self.s = self._read(self.cell)
        if stops is not None:
            self.stops = stops
        self.A[:, cols] = new
