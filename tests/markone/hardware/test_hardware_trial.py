"""The one trial kernel (markone.hardware.trial) and the per-machine segments setting.

Both paths of the machine run these functions; that they give the same machine bit for
bit is tested in test_hardware_segments.py and against the golden runs. Here: each
step's exact values, that the decision is the learner core's own rule, and that the
fast path is a setting of one machine, not of the process.
"""

import math

import numpy as np
import pytest

from markone import online
from markone._internal.jit import compiled
from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from markone.hardware import trial
from markone.hardware.segments import Segments


@pytest.mark.parametrize("how", ["plain", "compiled"])
def test_the_decision_is_the_cores_rule_compiled(how):
    # the very function of markone.online, not a copy of it (plain, or compiled in)
    assert trial._mistake is online.signed_mistake
    decide = trial.decide if how == "plain" else compiled(trial.decide)
    scores = np.array([0.0, -1.0, 2.0, -0.0, 3.0])
    target = np.array([1, 1, 1, -1, -1])
    wrong, rows = np.empty(5, dtype=np.bool_), np.empty(5, dtype=np.int64)
    n = decide(scores, target, False, wrong, rows)
    assert wrong.tolist() == online.is_mistake(scores, target).tolist() \
        == [True, True, False, True, True]
    assert rows[:n].tolist() == [0, 1, 3, 4]
    assert decide(scores, target, True, wrong, rows) == 5   # forced: every one
    assert rows.tolist() == [0, 1, 2, 3, 4]


def test_signed_mistake_is_what_is_mistake_says():
    for signed in (-1, 0, 0.0, -0.0, 2.5):
        assert online.signed_mistake(signed) == bool(online.is_mistake(signed, 1))
        assert online.signed_mistake(signed, strict=True) == \
            bool(online.is_mistake(signed, 1, strict=True))


def test_turn_units_stops_at_the_end_stops():
    before = np.array([0.0, 2.0, -3.0, 1.0])
    after = before.copy()
    units = np.array([1, 2, 3])
    blocked, largest = trial.turn_units(before, units, np.array([2.0, -2.0, 0.0]),
                                        -4.0, 3.0, after)
    # unit 1: 2 + 2 stops at 3 (cut); unit 2: -3 - 2 stops at -4 (cut); unit 3 asks 0
    assert after.tolist() == [0.0, 3.0, -4.0, 1.0]
    assert (blocked, largest) == (2, 1.0)


def test_motor_seconds_is_the_slowest_bank():
    assert trial.motor_seconds(3.0, 0.2) == 3.0 * 0.2
    assert trial.motor_seconds(0.0, 0.2) == trial.motor_seconds(3.0, 0.0) == 0.0


def test_the_retina_steps_settle_as_the_closed_form_says():
    ph = trial.physics_of(MarkIParams())
    level, light, x = np.zeros(3), np.zeros(3), np.array([1.0, 0.0, 0.5])
    rise, fall = trial.look(level, light, x, 0.0, ph, level)
    assert (rise, fall) == (1.0, 0.0)
    wait = trial.settle_wait(rise, fall, ph, math.nan)
    assert wait == ph[0]["rise_s"] * math.log(1.0 / ph[0]["tolerance"])
    assert trial.settle_wait(rise, fall, ph, 0.25) == 0.25     # an exposure is kept
    before = level.copy()
    assert trial.settle(level, x, wait, ph, np.array([1, 0, 0], dtype=np.uint8))
    assert np.allclose(level, [0.95, 0.0, 0.475], rtol=0, atol=1e-15)
    # the same lag, and the S-units (threshold 0.5) do not read [1, 0, 1]
    assert not trial.settle(before, x, wait, ph, np.array([1, 0, 1], dtype=np.uint8))
    assert before.tolist() == level.tolist()


def test_physics_names_every_parameter_it_carries():
    p = MarkIParams(photocell_rise_s=0.03, photocell_decay_s=0.2, settle_tolerance=0.01,
                    s_threshold=0.4, exposure_s=None, logic_s=0.07, motor_step_s=0.3,
                    weight_range=(-7, 9))
    ph = trial.physics_of(p)
    assert ph.shape == (1,) and ph.dtype == trial.PHYSICS
    assert {name: float(ph[0][name]) for name in trial.PHYSICS.names} == pytest.approx(
        {"rise_s": 0.03, "decay_s": 0.2, "tolerance": 0.01, "s_threshold": 0.4,
         "exposure_s": math.nan, "logic_s": 0.07, "motor_step_s": 0.3, "lo": -7.0,
         "hi": 9.0}, nan_ok=True, rel=0, abs=0)
    free = trial.physics_of(MarkIParams(weight_range=None))[0]
    assert (free["lo"], free["hi"]) == (-math.inf, math.inf)


def test_segments_are_a_setting_of_each_machine():
    images, labels = letters("AB", per_class=2, seed=0)
    slow, fast = MarkI(seed=0, segments=False), MarkI(seed=0)
    assert (slow.segments, fast.segments) == (False, True)
    for machine in (slow, fast):   # the two at once, in one process
        machine.train(images, labels, presentations=3)
    ask = [Segments.for_session(m, m._images(images), m._trainer(None), m._new_stats(),
                                None, 10) for m in (slow, fast)]
    assert ask[0] is None and ask[1] is not None
    slow.segments = True            # an attribute, changed between sessions
    assert Segments.for_session(slow, slow._images(images), slow._trainer(None),
                                slow._new_stats(), None, 10) is not None


def test_segments_must_be_a_bool():
    with pytest.raises(TypeError, match="segments must be True or False, got 'no'"):
        MarkI(seed=0, segments="no")


def test_instant_cells_read_their_light_exactly():
    # both time constants 0: the catch-up reads the old light, the settled retina the
    # new one, bit for bit (a -0.0 light too), and there is no gap to wait for
    ph = trial.physics_of(MarkIParams.ideal())
    level, light, x = np.array([0.3, 0.7]), np.array([-0.0, 1.0]), np.array([1.0, -0.0])
    out = np.empty(2)
    trial.look(level, light, x, 0.5, ph, out)
    assert out.tobytes() == light.tobytes()
    assert trial.settle_wait(2.0, 2.0, ph, math.nan) == 0.0
    assert trial.settle(out, x, 0.0, ph, np.array([1, 0], dtype=np.uint8))
    assert out.tobytes() == x.tobytes()
