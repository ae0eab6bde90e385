"""Device variation (markone.hardware.devices, MarkIParams' variation fields): off by
default, seeded, exact where the model gives a number, and the same on the
per-figure path whether or not the machine may use segments (it falls back)."""

import numpy as np
import pytest

from markone.hardware import MarkI, MarkIParams
from markone.hardware.params import VARIATION_FIELDS
from test_hardware_golden import fingerprint
from test_hardware_segments import _images, _labels, both_ways

#: One setting of each kind of variation (and all of them at once).
SETTINGS = [{"step_dtod": 0.3}, {"step_std": 0.5}, {"up_down": 0.25},
            {"drift_rate": 0.05}, {"sticky_steps": 2.0, "increment_steps": 2},
            {"sticky_prob": 0.3},
            {"step_dtod": 0.2, "step_std": 0.3, "up_down": -0.2, "drift_rate": -0.02,
             "sticky_steps": 0.5, "sticky_prob": 0.1}]

IMAGES, LABELS = _images[:6], _labels[:6]


def test_every_variation_is_off_by_default_and_labelled_assumed():
    p = MarkIParams()
    assert p.variation == {} and MarkI(p, seed=0).runits.devices is None
    rows = {r.name: r for r in p.describe()}
    for name in VARIATION_FIELDS:
        assert getattr(p, name) == 0
        assert rows[name].provenance == "assumed"
        assert rows[name].note.startswith("modelling assumption, not documented")


@pytest.mark.parametrize("fields", SETTINGS)
def test_the_same_machine_with_or_without_segments(fields):
    params = MarkIParams(**fields)
    (fast, _), (slow, _) = both_ways(
        lambda: MarkI(params, seed=4),
        lambda m: m.train(_images, _labels, presentations=150, log=True))
    assert fast == slow


@pytest.mark.parametrize("fields", SETTINGS)
def test_seeded_and_reproducible(fields):
    def weights(seed):
        machine = MarkI(MarkIParams(**fields), seed=seed)
        return machine.train(IMAGES, LABELS, presentations=60).weights
    assert np.array_equal(weights(1), weights(1))
    healthy = MarkI(seed=1).train(IMAGES, LABELS, presentations=60).weights
    assert not np.array_equal(weights(1), healthy)     # the variation does something


def test_step_spread_moves_each_potentiometer_by_its_own_step():
    params = MarkIParams(step_dtod=0.3, weight_range=None)
    machine = MarkI(params, seed=2)
    run = machine.train(IMAGES, LABELS, max_epochs=30)
    gains = machine.runits.devices.gains
    moving = gains > 0                    # a gain below 0 is drawn as 0: stuck
    assert not run.weights[~moving].any()
    steps = run.weights[moving] / gains[moving]   # whole numbers of the device's steps
    assert np.allclose(steps, np.round(steps), rtol=0, atol=1e-9) and steps.any()
    assert not np.array_equal(run.weights, np.round(run.weights))
    # drawn once per machine: a reset keeps them, another seed draws others
    machine.reset()
    assert machine.runits.devices.gains is gains
    assert not np.array_equal(MarkI(params, seed=3).runits.devices.gains, gains)


def test_up_down_asymmetry_on_one_potentiometer():
    p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                    max_fanout=1, theta=1, n_r_units=1, up_down=0.25, weight_range=None)
    machine = MarkI(p, seed=0)
    wired = int(machine.wiring.excitatory[0, 0])   # the S-unit of A-unit 0
    image = np.zeros(2)
    image[wired] = 1.0
    machine.learn_one(image, "a")                   # zero sum: a mistake, down (-1)
    machine.learn_one(image, "b")                   # -0.75 for b: a mistake, up
    assert machine.weights[0, 0] == -0.75 + 1.25
    assert machine.classes_.tolist() == ["a", "b"]


@pytest.mark.parametrize("fields", [{"sticky_steps": 1.5}, {"sticky_prob": 1.0}])
def test_sticky_potentiometers_that_never_move(fields):
    run = MarkI(MarkIParams(**fields), seed=0).train(IMAGES, LABELS, max_epochs=3)
    assert not run.weights.any() and not run.converged and run.mistakes.sum() > 0


def test_drift_creeps_to_the_clock_of_the_last_decision():
    # nothing moves (every move sticks): the weights are the creep alone, up to the stops
    p = MarkIParams(sticky_prob=1.0, drift_rate=0.5, weight_range=(-3, 3),
                    topology="source_sets")
    machine = MarkI(p, seed=0)
    run = machine.train(IMAGES, LABELS, presentations=40, log=True)
    last_decision = run.log[-1].end_t_s          # the motors never ran
    expected = np.where(machine.runits.mask, min(0.5 * last_decision, 3.0), 0.0)
    assert machine.now_s == last_decision and 0.5 * run.log[10].end_t_s < 3
    assert np.array_equal(machine.weights, expected)   # unwired ones stay 0


def test_cycle_to_cycle_noise_never_turns_a_move_backwards():
    from markone.hardware.devices import Devices

    p = MarkIParams(n_a_units=64, n_r_units=2, step_std=3.0, up_down=0.5)
    d = Devices.of(p, np.random.default_rng(0))
    want = np.tile([1.0, -1.0, 4.0, -4.0], (2, 16))
    moves = d.moves(np.array([0, 1]), want, np.random.default_rng(1))
    assert (moves * want >= 0).all() and (moves == 0).any()   # some stop at 0
    assert moves[:, 2::4].mean() > moves[:, 0::4].mean() > 0


@pytest.mark.parametrize("fields, message", [
    ({"step_dtod": -0.1}, r"step_dtod\(=-0.1\) must be >= 0"),
    ({"step_std": float("nan")}, r"step_std\(=nan\) must be a finite number"),
    ({"up_down": 1}, r"up_down\(=1\) must be strictly between -1 and 1"),
    ({"drift_rate": float("inf")}, r"drift_rate\(=inf\) must be a finite number"),
    ({"sticky_prob": 1.5}, r"sticky_prob\(=1.5\) must be a probability"),
    ({"sticky_steps": True}, r"sticky_steps\(=True\) must be a finite number"),
])
def test_bad_variation_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        MarkIParams(**fields)
