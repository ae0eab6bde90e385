"""Adding a kind of fault is its record class and its registration (issue 40).

This file alone defines a new kind, "a row of photocells dead", with what happens to
the machine, its words, its range check and its effect on the A-unit patterns:
plans, plan files, descriptions, the running machine, break_now and verify.machine's
analysed task take it (the minimisation rebuilds its patterns), and after it is
unregistered plans refuse it as before.
"""

import dataclasses
from typing import ClassVar

import numpy as np
import pytest

from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from markone.hardware.faults import (FAULT_KINDS, Fault, FaultPlan, PhotocellStuck,
                                     apply_faults, break_now, damaged_patterns,
                                     fault_kind, remove_fault_kind)
from verify.machine.theory._subplans import SubPlans
from verify.machine.faults import static_fault

PARAMS = MarkIParams(retina_shape=(4, 4), n_a_units=24, n_excitatory=3, n_inhibitory=1,
                     max_fanout=8, theta=1, n_r_units=1)


@pytest.fixture
def row_dead():
    """The toy kind registered for one test, then unregistered."""

    @fault_kind
    @dataclasses.dataclass(frozen=True)
    class PhotocellRowDead(Fault):
        """Every photocell of retina row ``row`` reads 0."""

        changes_patterns: ClassVar[bool] = True
        row: int
        at_s: float = 0.0

        def happen(self, damage):
            width = damage.machine.params.retina_shape[1]
            damage.cell[self.row * width:(self.row + 1) * width] = 0

        def words(self):
            return f"photocell row {self.row} dead"

        def fits(self, params, wiring, n_s):
            if not 0 <= self.row < params.retina_shape[0]:
                raise ValueError(f"PhotocellRowDead: row(={self.row}) is out of range.")

        def counted(self):
            return "photocell rows dead"

    yield PhotocellRowDead
    remove_fault_kind("PhotocellRowDead")


def cells_of_row(row, width=4):
    return tuple(PhotocellStuck(c, 0) for c in range(row * width, (row + 1) * width))


def task():
    images, labels = letters("AB", per_class=3, seed=0)
    small = images[:, ::5, ::5][:, :4, :4]      # 4 x 4 figures for the small retina
    return small, labels


def test_a_plan_takes_the_new_kind_in_words_files_and_checks(row_dead):
    plan = FaultPlan((row_dead(1),), seed=3)
    assert plan.kinds() == ("PhotocellRowDead",)
    assert FaultPlan.from_dict(plan.to_dict()) == plan
    assert plan.describe() == "photocell row 1 dead"
    assert FaultPlan(tuple(row_dead(r) for r in range(3))).describe(limit=1) == (
        "3 photocell rows dead")
    assert static_fault(row_dead(0))
    with pytest.raises(ValueError, match="row"):
        apply_faults(MarkI(PARAMS, seed=0), FaultPlan((row_dead(9),)))


def test_the_machine_breaks_as_the_same_cells_stuck_would(row_dead):
    images, labels = task()
    runs = []
    for plan in (FaultPlan((row_dead(2),)), FaultPlan(cells_of_row(2))):
        machine = MarkI(PARAMS, seed=0)
        apply_faults(machine, plan)
        runs.append(machine.train(images, labels, max_epochs=3))
    assert np.array_equal(runs[0].weights, runs[1].weights)
    machine = MarkI(PARAMS, seed=0)
    assert break_now(machine, row_dead(0)).describe() == "photocell row 0 dead"


def test_the_analysed_task_and_its_sub_plans_rebuild_the_new_kind(row_dead):
    images, labels = task()
    machine = MarkI(PARAMS, seed=0)
    settled = machine.retina.settled(machine._images(images))
    faults = (row_dead(0), *cells_of_row(3)[:2], row_dead(2))
    plans = SubPlans(machine, images, labels, FaultPlan(faults))
    assert plans.other == {0, 3}
    plans.set(range(len(faults)))
    theta = plans.theta
    assert np.array_equal(plans.A, damaged_patterns(machine, settled, theta,
                                                    FaultPlan(faults)))
    for i in range(len(faults)):
        cols, new, _ = plans.without(i)
        rest = FaultPlan(tuple(f for j, f in enumerate(faults) if j != i))
        expected = damaged_patterns(machine, settled, theta, rest)
        A = plans.A.copy()
        A[:, cols] = new
        assert np.array_equal(A, expected), i


def test_after_removal_plans_refuse_it(row_dead):
    remove_fault_kind("PhotocellRowDead")
    assert list(FAULT_KINDS) == ["PhotocellStuck", "CutWire", "AUnitStuck", "MotorStopped",
                                 "PotentiometerDrift", "NoisySum"]
    with pytest.raises(TypeError, match="fault records"):
        FaultPlan((row_dead(0),))
    with pytest.raises(ValueError, match="not a fault"):
        FaultPlan.from_dict({"faults": [{"kind": "PhotocellRowDead", "row": 0}]})
    with pytest.raises(ValueError, match="built in"):
        remove_fault_kind("CutWire")
