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

from markone._internal.jit import compiled, is_compiled, uncompiled
from markone.hardware import MarkI, MarkIParams, plugboard, runits, trial
from markone.hardware import segments
from markone.hardware.segments import run_passes
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
    """``step`` plain (its numpy form, where it has one) and compiled on equal fresh
    arguments: (returns, arguments)."""
    out = []
    for fn in (uncompiled(step), compiled(step)):
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


def _signed_zeros(rng, a):
    """``a`` with some entries -0.0 and some +0.0 (the sums' sign of zero is tested)."""
    a = a.copy()
    a[rng.random(a.shape) < 0.2] = -0.0
    a[rng.random(a.shape) < 0.1] = 0.0
    return a


STEPS = {
    "look": (trial.look, _look_args),
    "settle_wait": (trial.settle_wait, lambda rng, ph: (
        float(rng.normal()), float(rng.normal()), ph, math.nan)),
    "settle": (trial.settle, lambda rng, ph: (
        rng.random(25), rng.integers(0, 2, 25).astype(float), float(rng.random()), ph,
        rng.integers(0, 2, 25 * int(rng.integers(0, 2))).astype(np.uint8))),
    "score_figures": (trial.score_figures, lambda rng, ph: (
        _signed_zeros(rng, rng.normal(size=(4, 40)).round(3)),
        rng.integers(0, 2, (70, 40)), np.empty((70, 4)))),
    "score": (trial.score, lambda rng, ph: (
        _signed_zeros(rng, rng.normal(size=(3, 40)).round(2)),
        np.flatnonzero(rng.random(40) < rng.random()), np.empty(3))),
    "score_rows": (trial.score_rows, lambda rng, ph: (
        _signed_zeros(rng, rng.normal(size=(4, 30)) / 7),
        np.array([0, 3, 3, 7]), rng.integers(0, 30, 7), np.empty((3, 4)))),
    "turn_units": (trial.turn_units, lambda rng, ph: (
        rng.integers(-4, 5, 30).astype(float), rng.permutation(30)[:9],
        _signed_zeros(rng, rng.normal(size=9).round(1) * 3), -3.0, 2.5, np.zeros(30))),
    "decode_unique": (segments._decode_unique, lambda rng, ph: (
        _signed_zeros(rng, rng.normal(size=(20, 3))), *segments._nearest(
            np.array([[1, 1, 1], [-1, 1, 1], [1, -1, -1], [-1, -1, 1]])),
        np.empty(20, np.int64))),
    "decide": (trial.decide, lambda rng, ph: (
        rng.integers(-2, 3, 8).astype(float), rng.choice([-1, 1], 8),
        bool(rng.integers(2)), np.empty(8, np.bool_), np.empty(8, np.int64))),
    "motor_seconds": (trial.motor_seconds, lambda rng, ph: (
        float(rng.integers(0, 9)), float(ph[0].motor_step_s))),
    "move": (runits._move, lambda rng, ph: (
        rng.integers(-4, 5, (4, 30)).astype(float), np.array([0, 2]),
        rng.normal(size=(2, 30)).round(2) * 3, -3.0, 2.5, np.empty((2, 30)),
        np.empty((2, 30)), np.empty(2, np.int64), np.empty(2))),
    # R-units by A-units, as Devices.moves passes them (1-D rows were a second
    # compile, which no caller makes: issue 37)
    "device_moves": (trial.device_moves, lambda rng, ph: (
        rng.normal(size=(3, 4)) * 3, rng.random((3, 4)) + 0.5, 0.1, 0.3,
        rng.normal(size=(3, 4)), 0.7, rng.random((3, 4)) < 0.2, np.empty((3, 4)))),
    "creep": (trial.creep, lambda rng, ph: (
        rng.normal(size=(3, 10)), rng.random((3, 10)) < 0.5, float(rng.normal()),
        -1.5, 2.0)),
    "net_rows": (plugboard._net_rows, lambda rng, ph: (
        rng.integers(0, 2, (36, 5)).astype(float), rng.integers(0, 36, (20, 4)),
        np.array([1.0, 1.0, -1.0, -1.0]), np.empty((20, 5)))),
    "net_rows_fractions": (plugboard._net_rows, lambda rng, ph: (
        _signed_zeros(rng, rng.normal(size=(36, 130)) / 3), rng.integers(0, 36, (20, 5)),
        np.array([1.0, 1.0, 1.0, -1.0, -1.0]), np.empty((20, 130)))),
    "draw_picks": (plugboard._draw_picks, lambda rng, ph: (
        rng.integers(0, 2**32, 400, dtype=np.uint32), np.full(36, 3, np.int64),
        np.zeros((20, 5), np.int64), 0)),
}


@settings(max_examples=60, deadline=None)
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


def _fixed_work(params, n_figures):
    """The work units a machine spends besides its trials, by the work rule: its
    wiring's draws (two scalar steps per connection) and the net input of the
    ``n_figures`` figures' A-units (calibrating theta; their patterns are read off
    the same net input)."""
    links = params.n_a_units * (params.n_excitatory + params.n_inhibitory)
    net = trial.trials_of(n_figures * links) if n_figures else 0
    return trial.trials_of(2 * links * trial.STEP_OPS) + net


def test_work_counts_operations_not_figures():
    # the net input of 200 figures is 32 trials of work (the plain form sums them
    # in milliseconds), where the old rule counted 200
    assert trial.trials_of(200 * 512 * 20) == 32
    assert trial.trials_of(1) == trial.trials_of(trial.TRIAL_OPS) == 1
    assert trial.trials_of(trial.TRIAL_OPS + 1) == 2
    params = MarkIParams(n_excitatory=12, n_inhibitory=8)
    board = plugboard.wire(params, seed=0)
    with plain_left(1000) as plain:
        plugboard.net_input(board, np.zeros((200, 400), np.uint8))
        assert plain.left == 1000 - 32


def test_small_runs_are_plain_and_spend_the_allowance():
    params = MarkIParams()
    start = 10**4
    with plain_left(start) as plain:
        MarkI(seed=0).train(_images[:4], _labels[:4], presentations=30)
        assert plain.left == start - 30 - _fixed_work(params, 4)
    with plain_left(0):
        MarkI(seed=0).train(_images[:4], _labels[:4], presentations=30)
    assert is_compiled(run_passes)


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
    # 2 machines x 60 presentations = 120 trials: more than left (100 beyond the
    # machines' fixed work), so the fleet gives the allowance up at once (the runs
    # are the same either way: above); 2 x 30 = 60 trials fit, and the allowance is
    # spent trial by trial
    from markone.hardware import MachineSpec, run_fleet
    specs = [MachineSpec(seed=0), MachineSpec(seed=1)]
    params = MarkIParams()
    wiring = _fixed_work(params, 0)
    # run_fleet's probe machine's wiring, then per machine its wiring, 30 trials,
    # the 4 figures' net input and their 4 scores for the accuracy
    per_machine = _fixed_work(params, 4) + trial.trials_of(
        4 * params.n_r_units * params.n_a_units)
    start = wiring + 100
    with plain_left(start) as plain:
        run_fleet(specs, _images[:4], _labels[:4], presentations=60)
        assert plain.left == 0
    with plain_left(start + 2 * per_machine) as plain:
        run_fleet(specs, _images[:4], _labels[:4], presentations=30)
        assert plain.left == start + 2 * per_machine - wiring - 2 * (per_machine + 30)
