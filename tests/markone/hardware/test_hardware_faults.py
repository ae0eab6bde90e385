"""Hardware faults as data (issue 12): no fault is the golden machine bit for bit; each
kind of fault does exactly what it says, at the machine time it is scheduled for."""

import json

import numpy as np
import pytest

from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from markone.hardware.faults import (AUnitStuck, CutWire, FaultPlan, MotorStopped,
                                     NoisySum, PhotocellStuck, PotentiometerDrift,
                                     apply_faults, damaged_patterns, random_faults)
from markone import InvalidParameterError, MarkoneError
from test_hardware_golden import GOLDEN, case_ids, dataset, fingerprint, make_params, \
    VARIANTS

LATE = 1e9   # machine seconds: scheduled, but never reached by these runs


def late_plan(machine):
    """One fault of every kind, all scheduled after the run ends: the fault hooks run
    on every presentation, and must change nothing."""
    return FaultPlan((PhotocellStuck(0, 1, LATE),
                      CutWire(0, int(machine.wiring.inputs[0, 0]), LATE),
                      AUnitStuck(1, 1, LATE), MotorStopped(0, 2, LATE),
                      PotentiometerDrift(0.5, LATE), NoisySum(0.5, LATE)), seed=3)


@pytest.fixture(scope="module")
def golden():
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("case_id", case_ids()[::3])
@pytest.mark.parametrize("plan", ["empty", "late"])
def test_no_fault_is_the_golden_machine(golden, case_id, plan):
    name, topology, seed = case_id.rsplit("-", 2)
    fields, kwargs = {v[0]: v[1:] for v in VARIANTS}[name]
    images, labels = dataset()
    machine = MarkI(make_params(fields, topology), seed=int(seed[4:]))
    apply_faults(machine, FaultPlan() if plan == "empty" else late_plan(machine))
    assert (machine.faults is None) == (plan == "empty")
    run = machine.train(images, labels, log=True, **kwargs)
    assert fingerprint(run, machine, images) == golden["runs"][case_id]


def test_a_cut_wire_changes_exactly_the_a_units_it_feeds():
    images, labels = letters("ABCDEFGH", per_class=3, seed=0)
    machine = MarkI(seed=0)
    theta = machine.calibrate(images)
    settled = machine.retina.settled(machine._images(images)).astype(np.int64)
    healthy = damaged_patterns(machine, settled, theta, FaultPlan())
    rng = np.random.default_rng(0)
    changed_any = 0
    for _ in range(40):
        a = int(rng.integers(machine.params.n_a_units))
        s = int(rng.choice(machine.wiring.inputs[a]))
        cut = damaged_patterns(machine, settled, theta, FaultPlan((CutWire(a, s),)))
        diff = np.flatnonzero((cut != healthy).any(axis=0))
        assert set(diff) <= {a}
        # and exactly when that wire carried the difference across the threshold
        sign = 1 if s in machine.wiring.excitatory[a] else -1
        net = (settled[:, machine.wiring.inputs[a]] * machine.wiring.signs).sum(axis=1)
        expect = ((net - sign * settled[:, s]) >= theta).astype(np.uint8)
        assert np.array_equal(cut[:, a], expect)
        changed_any += diff.size
    assert changed_any > 0


def test_a_cut_wire_in_the_running_machine():
    images, labels = letters("ABCD", per_class=2, seed=0)
    machine = MarkI(seed=0)
    a = 5
    s = int(machine.wiring.excitatory[a, 0])
    apply_faults(machine, FaultPlan((CutWire(a, s),)))
    run = machine.train(images, labels, max_epochs=2, log=True)
    settled = machine.retina.settled(machine._images(images))
    expect = damaged_patterns(machine, settled, run.theta)
    for rec in run.log:
        assert rec.active_a == tuple(np.flatnonzero(expect[rec.figure]))


def test_faults_happen_on_the_clock():
    images, labels = letters("AB", per_class=3, seed=0)
    machine = MarkI(MarkIParams(n_r_units=1), seed=0)
    at = 3.0
    apply_faults(machine, FaultPlan((AUnitStuck(7, 1, at_s=at),
                                     MotorStopped(0, 9, at_s=at))))
    run = machine.train(images, labels, presentations=60, log=True)
    assert run.log[-1].t_s > at > run.log[0].t_s
    for rec in run.log:
        if rec.t_s >= at:     # decided after the fault: A-unit 7 fires, weight 9 frozen
            assert 7 in rec.active_a
            assert all(j != 9 for _, j, _ in rec.changes)
    before = [rec for rec in run.log if rec.end_t_s <= at]
    assert any(7 not in rec.active_a for rec in before)


def test_stuck_photocell_and_dead_a_unit():
    images, labels = letters("AB", per_class=2, seed=0)
    machine = MarkI(seed=0)
    cell = int(machine.wiring.excitatory[0, 0])
    apply_faults(machine, FaultPlan((PhotocellStuck(cell, 1), AUnitStuck(3, 0))))
    run = machine.train(images, labels, max_epochs=3, log=True)
    A = machine.a_features(images)
    assert not A[:, 3].any()
    assert all(3 not in rec.active_a for rec in run.log)
    lit = machine.retina.settled(machine._images(images)).copy()
    lit[:, cell] = 1
    from markone.hardware import plugboard

    expect = plugboard.fire(machine.wiring, lit, run.theta)
    expect[:, 3] = 0
    assert np.array_equal(A, expect)


def test_drift_and_noise_are_seeded_and_deterministic():
    images, labels = letters("ABC", per_class=2, seed=0)

    def session(seed):
        machine = MarkI(seed=0)
        apply_faults(machine, FaultPlan((PotentiometerDrift(0.3), NoisySum(0.5)),
                                        seed=seed))
        return machine.train(images, labels, presentations=40).weights

    a, b, c = session(1), session(1), session(2)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert not np.array_equal(a, np.round(a))     # drift makes weights non-integer


def test_random_faults_counts_and_determinism():
    machine = MarkI(seed=0)
    plan = random_faults(machine, cut_wires=0.1, dead_a_units=0.05, stopped_motors=0.01,
                         dead_photocells=0.02, seed=4)
    kinds = [type(f).__name__ for f in plan.faults]
    assert kinds.count("CutWire") == 512
    assert kinds.count("AUnitStuck") == 26
    assert kinds.count("MotorStopped") == 41
    assert kinds.count("PhotocellStuck") == 8
    assert plan == random_faults(machine, cut_wires=0.1, dead_a_units=0.05,
                                 stopped_motors=0.01, dead_photocells=0.02, seed=4)
    json.dumps(plan.to_dict())


def test_bad_faults():
    machine = MarkI(seed=0)
    with pytest.raises(ValueError, match="no wire runs"):
        s = next(c for c in range(400) if c not in machine.wiring.inputs[0])
        apply_faults(machine, FaultPlan((CutWire(0, s),)))
    with pytest.raises(ValueError, match="names A-unit 513, but this machine has A-units 1..512"):
        apply_faults(machine, FaultPlan((AUnitStuck(512),)))
    with pytest.raises(ValueError, match="at_s"):
        MotorStopped(0, 0, at_s=-1)
    with pytest.raises(ValueError, match="0 or 1"):
        PhotocellStuck(0, value=2)
    with pytest.raises(ValueError, match="fraction"):
        random_faults(machine, cut_wires=1.5)
    with pytest.raises(TypeError, match="FaultPlan"):
        apply_faults(machine, [CutWire(0, 0)])


@pytest.mark.parametrize("second", [AUnitStuck(4), AUnitStuck(4, value=1)])
def test_a_plan_built_in_python_setting_one_part_twice_at_once_is_refused(second):
    """``FaultPlan(...)`` accepted A-unit 5 stuck on and dead at 0 s, the last entry
    winning, where a plan file naming both was refused (issue 37): one check, one
    message, the project's error for bad input."""
    faults = (AUnitStuck(4, value=1), CutWire(0, 0, at_s=1.0), second)
    with pytest.raises(InvalidParameterError) as built:
        FaultPlan(faults)
    with pytest.raises(InvalidParameterError) as read:
        FaultPlan.from_dict({"faults": [{"kind": type(f).__name__, **vars(f)}
                                        for f in faults]})
    assert str(built.value) == str(read.value)
    assert str(built.value).startswith("faults[0] (A-unit 5 stuck on) and faults[2] (")
    assert isinstance(built.value, MarkoneError)


def test_faults_that_add_up_or_happen_at_other_times_are_still_a_plan():
    plan = FaultPlan((NoisySum(0.5), NoisySum(0.5), PotentiometerDrift(1.0),
                      PotentiometerDrift(1.0), AUnitStuck(4, 1), AUnitStuck(4, at_s=2.0),
                      MotorStopped(0, 4), CutWire(4, 0)))
    assert FaultPlan.from_dict(plan.to_dict()) == plan


def test_drift_moves_only_the_potentiometers_that_are_wired():
    # with source sets an R-unit has no potentiometer outside its set: nothing there
    # drifts into its sum (before the fix every weight of the matrix random-walked)
    images, labels = letters("AB", per_class=2, seed=0)
    machine = MarkI(MarkIParams(topology="source_sets"), seed=0)
    apply_faults(machine, FaultPlan((PotentiometerDrift(0.5),), seed=1))
    machine.train(images, labels, max_epochs=3)
    mask = machine.runits.mask
    assert not machine.weights[~mask].any() and machine.weights[mask].any()


def test_a_plan_listed_out_of_time_order_ends_as_its_later_fault_says():
    """A-unit 5 stuck on at 2 s, listed before it dies at 1 s (issue 37): the running
    machine ends with it on, and so does the static analysis (damaged_patterns, what
    verify.machine analyses), as for the plan listed in time order."""
    images, labels = letters("AB", per_class=3, seed=0)
    machine = MarkI(MarkIParams(n_r_units=1), seed=0)
    listed = FaultPlan((AUnitStuck(4, 1, at_s=2), AUnitStuck(4, 0, at_s=1)))
    ordered = FaultPlan(listed.faults[::-1])
    assert listed.time_order() == (1, 0)
    apply_faults(machine, listed)
    run = machine.train(images, labels, presentations=60, log=True)
    assert run.log[-1].t_s > 2 and 4 in run.log[-1].active_a
    running = machine.a_features(images)
    assert running[:, 4].all()
    settled = machine.retina.settled(machine._images(images))
    for plan in (listed, ordered, None):   # None: the machine's own plan
        assert np.array_equal(damaged_patterns(machine, settled, run.theta, plan),
                              running)


def test_a_part_broken_now_before_its_scheduled_fault_ends_as_scheduled():
    """break_now lists its fault last, after a fault of the same part still to come:
    that one happens later, and the machine's plan is analysed so (issue 37)."""
    from markone.hardware.faults import break_now

    images, labels = letters("AB", per_class=3, seed=0)
    machine = MarkI(MarkIParams(n_r_units=1), seed=0)
    apply_faults(machine, FaultPlan((AUnitStuck(4, 1, at_s=10.0),)))
    machine.train(images, labels, presentations=4)
    assert 0 < machine.now_s < 10
    plan = break_now(machine, AUnitStuck(4))
    assert plan.faults[-1] == AUnitStuck(4, 0, machine.now_s)
    assert plan.time_order() == (1, 0)
    run = machine.train(images, labels, presentations=60)
    assert machine.now_s > 10 and machine.faults.a_value[4] == 1
    settled = machine.retina.settled(machine._images(images))
    assert np.array_equal(damaged_patterns(machine, settled, run.theta),
                          machine.a_features(images))


def test_a_part_broken_at_the_instant_its_scheduled_fault_happens_ends_as_broken_now():
    """The scheduled fault of the same part, due at the very time of break_now, has
    happened by then: break_now's fault replaces it in the plan (same part, same
    time) and in the machine, and the plan still tells the machine's patterns."""
    from markone.hardware.faults import break_now

    images, labels = letters("AB", per_class=3, seed=0)
    clock = MarkI(MarkIParams(n_r_units=1), seed=0)
    clock.train(images, labels, presentations=4)
    machine = MarkI(MarkIParams(n_r_units=1), seed=0)
    apply_faults(machine, FaultPlan((AUnitStuck(4, 1, at_s=clock.now_s),)))
    machine.train(images, labels, presentations=4)
    assert machine.now_s == clock.now_s and machine.faults.a_value[4] == 1
    plan = break_now(machine, AUnitStuck(4))
    assert plan.faults == (AUnitStuck(4, 0, clock.now_s),)
    run = machine.train(images, labels, presentations=10)
    assert machine.now_s > clock.now_s and machine.faults.a_value[4] == 0
    settled = machine.retina.settled(machine._images(images))
    assert np.array_equal(damaged_patterns(machine, settled, run.theta),
                          machine.a_features(images))
