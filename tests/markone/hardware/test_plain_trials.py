"""The Mark I's steps run plain for small work and compiled after, bit for bit alike.

A process runs its first :data:`markone.hardware.trial.PLAIN_TRIALS` trials as plain
Python (no numba) and the rest compiled (per figure, or in segments). Here every step
of the trial kernel gives the same bytes plain and compiled on random inputs, whole
runs give the same fingerprint (weights, clock, counts, log) all plain, all compiled
and switching midway, and a small run in a new process never imports numba.
"""

from __future__ import annotations

import contextlib
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markone._internal.jit import compiled, is_compiled
from markone.hardware import MarkI, MarkIParams, plugboard, runits, trial
from markone.hardware.segments import run_segment
from test_hardware_golden import fingerprint
from test_hardware_segments import _images, _labels, physics


@contextlib.contextmanager
def plain_left(n):
    """The process's plain allowance set to ``n`` trials (restored after)."""
    before, trial.PLAIN.left = trial.PLAIN.left, n
    try:
        yield trial.PLAIN
    finally:
        trial.PLAIN.left = before


def _both(step, make_args):
    """``step`` plain and compiled on equal fresh arguments: (returns, arguments)."""
    out = []
    for fn in (step, compiled(step)):
        args = make_args()
        result = fn(*args)
        out.append((np.asarray(result).tobytes(),
                    [np.asarray(a).tobytes() for a in args]))
    return out


def _physics(rng):
    fields = {"photocell_rise_s": rng.choice([0.0, 0.02, 0.013]),
              "photocell_decay_s": rng.choice([0.0, 0.1, 0.07]),
              "exposure_s": rng.choice([None, 0.02]),
              "weight_range": [(-50, 50), (-2, 3), None][rng.integers(3)]}
    return trial.physics_of(MarkIParams(**fields))


def _look_args(rng, ph):
    n = int(rng.integers(1, 30))
    level, (light, x) = rng.random(n), rng.integers(0, 2, (2, n)).astype(float)
    return level, light, x, float(rng.random() / 10), ph, np.empty(n)


STEPS = {
    "look": (trial.look, _look_args),
    "settle_wait": (trial.settle_wait, lambda rng, ph: (
        float(rng.normal()), float(rng.normal()), ph, math.nan)),
    "settle": (trial.settle, lambda rng, ph: (
        rng.random(25), rng.integers(0, 2, 25).astype(float), float(rng.random()), ph,
        rng.integers(0, 2, 25 * int(rng.integers(0, 2))).astype(np.uint8))),
    "score_figures": (trial.score_figures, lambda rng, ph: (
        rng.normal(size=(4, 40)).round(3), rng.integers(0, 2, (6, 40)),
        np.empty((6, 4)))),
    "decide": (trial.decide, lambda rng, ph: (
        rng.integers(-2, 3, 8).astype(float), rng.choice([-1, 1], 8),
        bool(rng.integers(2)), np.empty(8, np.bool_), np.empty(8, np.int64))),
    "motor_seconds": (trial.motor_seconds, lambda rng, ph: (
        float(rng.integers(0, 9)), float(ph[0].motor_step_s))),
    "move": (runits._move, lambda rng, ph: (
        rng.integers(-4, 5, (4, 30)).astype(float), np.array([0, 2]),
        rng.normal(size=(2, 30)).round(2) * 3, -3.0, 2.5, np.empty((2, 30)),
        np.empty((2, 30)), np.empty(2, np.int64), np.empty(2))),
    "device_moves": (trial.device_moves, lambda rng, ph: (
        rng.normal(size=12) * 3, rng.random(12) + 0.5, 0.1, 0.3, rng.normal(size=12),
        0.7, rng.random(12) < 0.2, np.empty(12))),
    "creep": (trial.creep, lambda rng, ph: (
        rng.normal(size=(3, 10)), rng.random((3, 10)) < 0.5, float(rng.normal()),
        -1.5, 2.0)),
    "net_rows": (plugboard._net_rows, lambda rng, ph: (
        rng.integers(0, 2, (5, 36)).astype(float), rng.integers(0, 36, (20, 4)),
        np.array([1.0, 1.0, -1.0, -1.0]), np.empty((5, 20)))),
    "draw_picks": (plugboard._draw_picks, lambda rng, ph: (
        rng.integers(0, 2**32, 400, dtype=np.uint32), np.full(36, 3, np.int64),
        np.zeros((20, 5), np.int64), 0)),
}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(sorted(STEPS)))
def test_every_step_is_the_same_plain_and_compiled_hypo(seed, name):
    step, make = STEPS[name]
    ph = _physics(np.random.default_rng(seed))
    plain, fast = _both(step, lambda: make(np.random.default_rng(seed), ph))
    assert plain == fast


def assert_runs_agree(fields, seed, switch, presentations):
    """All plain, per figure; then compiled from the start (``switch`` 0) or after 37
    plain trials, with segments: the same fingerprint, log included."""
    params = MarkIParams(**{**fields, "class_code": "binary"})
    images, labels = _images[:6], _labels[:6]

    def run(left, segments):
        with plain_left(left):
            machine = MarkI(params, seed=seed, segments=segments)
            result = machine.train(images, labels, presentations=presentations, log=True)
            return fingerprint(result, machine, images)

    assert run(10**9, False) == run(switch, True) == run(switch, False)


@settings(max_examples=6, deadline=None)
@given(fields=physics, seed=st.integers(0, 2**16), switch=st.sampled_from([0, 37]))
def test_runs_are_the_same_plain_compiled_and_switching_hypo(fields, seed, switch):
    """45 presentations of 6 figures: every figure is seen plain and compiled, and the
    switch after 37 trials is crossed (the long runs are the slow test below)."""
    assert_runs_agree(fields, seed, switch, presentations=45)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(fields=physics, seed=st.integers(0, 2**16), switch=st.sampled_from([0, 37]))
def test_long_runs_are_the_same_plain_compiled_and_switching_hypo(fields, seed, switch):
    """The property above on 70 presentations and more machines."""
    assert_runs_agree(fields, seed, switch, presentations=70)


def test_small_runs_are_plain_and_spend_the_allowance():
    with plain_left(100) as plain:
        MarkI(seed=0).train(_images[:4], _labels[:4], presentations=30)
        # 30 trials, the wiring, the net input of the 4 figures' A-units once
        # (calibrating theta; their patterns are read off the same net input)
        assert plain.left == 100 - 30 - 1 - 4
    with plain_left(0):
        MarkI(seed=0).train(_images[:4], _labels[:4], presentations=30)
    assert is_compiled(run_segment)


def test_a_small_run_in_a_new_process_does_not_import_numba():
    code = """
import json, sys
from markone.datasets import letters
from markone.hardware import MarkI
images, labels = letters("ABCD", per_class=5, seed=0)
run = MarkI(seed=0).train(images, labels, max_epochs=50, log=True)
print(json.dumps([run.n_presentations, "numba" in sys.modules]))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    n, numba_loaded = json.loads(out.stdout.splitlines()[-1])
    assert 0 < n <= trial.PLAIN_TRIALS and numba_loaded is False


def test_a_fleet_larger_than_the_allowance_runs_compiled_from_its_start():
    # 2 machines x 60 presentations = 120 trials: more than 100 left, so the fleet
    # gives the allowance up at once (the runs are the same either way: above);
    # 2 x 30 = 60 trials fit, and the allowance is spent trial by trial
    from markone.hardware import MachineSpec, run_fleet
    specs = [MachineSpec(seed=0), MachineSpec(seed=1)]
    with plain_left(100) as plain:
        run_fleet(specs, _images[:4], _labels[:4], presentations=60)
        assert plain.left == 0
    with plain_left(100) as plain:
        run_fleet(specs, _images[:4], _labels[:4], presentations=30)
        # run_fleet's probe machine's wiring, then per machine its wiring, 30
        # trials, the 4 figures' net input and their 4 scores for the accuracy
        assert plain.left == 100 - 1 - 2 * (1 + 30 + 4 + 4)
