"""Fleets trained side by side (``markone.hardware.lockstep``), bit for bit as alone.

A group of many machines of one parameter set trains in lockstep: one numpy step per
figure over the machine axis, their wirings drawn together
(``plugboard.wire_many``). Here every such path is checked against the machine
trained alone (weights, clock, counts, per-pass series, accuracy, exactly), the
wirings against ``plugboard.wire``, the work rule that picks the groups, and that a
fleet past the process's plain allowance neither imports numba nor compiles.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from markone._internal.io import to_jsonable
from markone._internal.jit import compiled, uncompiled
from markone.datasets import letters
from markone.hardware import MachineSpec, MarkI, MarkIParams, lockstep, plugboard, run_fleet
from markone.hardware import fleet, segments, trial
from test_hardware_wiring import EDGE_PLUGBOARDS


def exact(run, accuracy):
    """Everything a run left, as exact JSON text (floats by repr)."""
    return json.dumps(to_jsonable({"run": run.to_dict(), "accuracy": accuracy}),
                      sort_keys=True)


def alone(params, seed, images, labels, train):
    machine = MarkI(params, seed=seed)
    run = machine.train(images, labels, **train)
    return exact(run, machine.score(images, labels))


def side_by_side(params, seeds, images, labels, train):
    machines, runs = lockstep.train_side_by_side(params, seeds, images, labels, train)
    return [None if run is None else exact(run, machine.score(images, labels))
            for machine, run in zip(machines, runs)]


CASES = {
    "default, presentations": (MarkIParams(), dict(presentations=120)),
    "passes until clean": (MarkIParams(), dict(max_epochs=40)),
    "shuffled by each machine": (MarkIParams(), dict(max_epochs=30, order="shuffle")),
    "shuffled from one seed": (MarkIParams(), dict(max_epochs=30, order="shuffle",
                                                   seed=3)),
    "explicit order": (MarkIParams(), dict(max_epochs=5, order=[3, 1, 1, 0, 6])),
    "forced rule": (MarkIParams(), dict(presentations=90, rule="forced")),
    "source sets, end stops": (MarkIParams(topology="source_sets", weight_range=(-2, 2)),
                               dict(presentations=150)),
    "ideal (instant cells)": (MarkIParams.ideal(), dict(max_epochs=20)),
    "instant motors": (MarkIParams(motor_step_s=0.0), dict(presentations=80)),
    "exposure set": (MarkIParams(exposure_s=0.5), dict(presentations=80)),
    "two increments a step": (MarkIParams(increment_steps=2.0, weight_range=(-3, 5)),
                              dict(presentations=100)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_side_by_side_runs_are_the_runs_alone(case):
    params, train = CASES[case]
    images, labels = letters("ABCDEFG", per_class=2, seed=0)
    seeds = [0, 5, 11]
    got = side_by_side(params, seeds, images, labels, train)
    assert None not in got   # none left the lockstep: every path was run side by side
    assert got == [alone(params, s, images, labels, train) for s in seeds]


def test_a_machine_whose_figure_leaves_a_segment_leaves_the_lockstep():
    # a short exposure: the cells do not settle on the figure's cached S-state
    images, labels = letters("ABC", per_class=1, seed=0)
    machines, runs = lockstep.train_side_by_side(MarkIParams(exposure_s=0.01), [0, 1],
                                                 images, labels, {"presentations": 20})
    assert runs == [None, None]


def test_a_fleet_in_lockstep_is_the_fleet_trained_one_by_one(monkeypatch):
    # a fresh plain allowance: in a worker whose earlier tests spent it, the fleet
    # trained one by one compiled the segment loop (15 s of CPU with a fresh numba
    # cache, issue 37); plain and compiled runs are the same (test_plain_trials.py)
    monkeypatch.setattr(trial.PLAIN, "left", trial.PLAIN_TRIALS)
    images, labels = letters("ABCDE", per_class=1, seed=0)
    specs = MachineSpec.grid([0, 1, 2], weight_range=[(-50, 50), (-1, 1)]) + [
        MachineSpec(MarkIParams(), seed=4, faults={"dead_a_units": 0.1, "seed": 1}),
        MachineSpec(MarkIParams(exposure_s=0.01), seed=3),
        MachineSpec(MarkIParams(exposure_s=0.01), seed=4),
        MachineSpec(MarkIParams(photocell_noise_sd=0.1), seed=2)]
    monkeypatch.setattr(lockstep, "LOCKSTEP_MACHINES", 2)
    assert [len(g) for g in lockstep.lockstep_groups(specs, {})] == [3, 3, 2]
    together = run_fleet(specs, images, labels, presentations=60)
    monkeypatch.setattr(lockstep, "LOCKSTEP_MACHINES", len(specs) + 1)
    assert lockstep.lockstep_groups(specs, {}) == []
    one_by_one = run_fleet(specs, images, labels, presentations=60)
    assert [exact(f.run, f.accuracy) for f in together] == [
        exact(f.run, f.accuracy) for f in one_by_one]


def test_the_work_rule_groups_many_machines_of_one_parameter_set():
    n = lockstep.LOCKSTEP_MACHINES
    specs = MachineSpec.grid(range(n), weight_range=[(-50, 50), (-1, 1)]) + \
        MachineSpec.grid(range(n - 1), base=MarkIParams(rule="forced"))
    groups = lockstep.lockstep_groups(specs, {"presentations": 10})
    assert groups == [list(range(n)), list(range(n, 2 * n))]   # n - 1 train alone
    # what a step cannot take: faults, noise, device variation
    for spec in (MachineSpec(seed=0, faults={"dead_a_units": 0.1}),
                 MachineSpec(MarkIParams(photocell_noise_sd=0.1)),
                 MachineSpec(MarkIParams(step_std=0.1))):
        assert lockstep.lockstep_groups([spec] * n, {}) == []
    # one generator shared by the machines in turn, or a bar per machine: one by one
    assert lockstep.lockstep_groups(specs, {"seed": np.random.default_rng(0)}) == []
    assert lockstep.lockstep_groups(specs, {"progress": True}) == []
    # a large group is cut into balanced batches
    big = MachineSpec.grid(range(lockstep.LOCKSTEP_BATCH + 2))
    assert [len(g) for g in lockstep.lockstep_groups(big, {})] == [
        lockstep.LOCKSTEP_BATCH // 2 + 1] * 2
    # a fleet of more trials in all compiles: the work rule, not the machines
    assert len(lockstep.lockstep_groups(specs, {}, lockstep.LOCKSTEP_TRIALS)) == 2
    assert lockstep.lockstep_groups(specs, {}, lockstep.LOCKSTEP_TRIALS + 1) == []
    # many figures: fewer machines a batch, their patterns within LOCKSTEP_BYTES
    n_a = MarkIParams().n_a_units
    many = lockstep.LOCKSTEP_BYTES // (n * 2 * n_a)   # figures: n machines fit twice
    sizes = [len(g) for g in lockstep.lockstep_groups(big, {}, 0, many)]
    assert max(sizes) <= n * 2 and sum(sizes) == len(big) and \
        len(sizes) == -(-len(big) // (n * 2))
    assert lockstep.lockstep_groups(big, {}, 0, many * 3) == []   # n / 1.5 fit


def test_a_fleet_counts_its_trials_in_all_for_the_rule(monkeypatch):
    seen = []
    monkeypatch.setattr(fleet, "lockstep_groups",
                        lambda specs, train, trials, figures: seen.append(
                            (trials, figures)) or [])
    images, labels = letters("ABC", per_class=1, seed=0)
    run_fleet(MachineSpec.grid(range(4)), images, labels, workers=1, chunks=2,
              max_epochs=2)
    assert seen == [(4 * 3 * 2, 3)] * 2   # each task: the fleet's 4 machines x 3 x 2


@pytest.mark.parametrize("fields", [{}, *EDGE_PLUGBOARDS, dict(
    retina_shape=(4, 4), n_a_units=50, n_excitatory=3, n_inhibitory=2, max_fanout=16)])
# the last: some seeds refuse, with wire's error; a tail shuffle is left to wire
def test_wirings_drawn_together_are_those_drawn_one_by_one(fields):
    params = MarkIParams(**fields)
    seeds = list(range(12)) + [2**40 + 3]
    try:
        one_by_one = [plugboard.wire(params, s) for s in seeds]
    except ValueError as exc:
        with pytest.raises(ValueError, match=re.escape(str(exc))):
            plugboard.wire_many(params, seeds)
        return
    together = plugboard.wire_many(params, seeds)
    for a, b in zip(together, one_by_one):
        np.testing.assert_array_equal(a.excitatory, b.excitatory)
        np.testing.assert_array_equal(a.inhibitory, b.inhibitory)


def test_draws_side_by_side_take_rejected_and_missing_words_as_one_by_one():
    # a word whose low part is 0 is rejected by a span that is not a power of two
    # (row 1's third draw takes another word); a bound of 0 takes no word (row 2);
    # a row whose words run out is marked (row 3)
    rng = np.random.default_rng(0)
    words = rng.integers(0, 2**32, size=(4, 12), dtype=np.uint32)
    words[1, 2] = 0
    highs = np.array([[5, 6, 9, 399], [5, 6, 9, 399], [0, 6, 7, 399], [0, 6, 7, 399]])
    cursor, good = np.array([0, 0, 3, 10]), np.ones(4, dtype=bool)
    start = cursor.copy()
    got = plugboard._below_rows(words, cursor, highs, good)
    for m in range(3):
        at = start[m:m + 1].copy()
        assert got[m].tolist() == [plugboard._below(words[m], at, h) for h in highs[m]]
        assert cursor[m] == at[0]
    assert (cursor - start)[:3].tolist() == [4, 5, 3]
    assert good.tolist() == [True, True, True, False]


def test_the_whole_steps_check_is_the_same_plain_and_compiled():
    rng = np.random.default_rng(1)
    for W in [rng.integers(-5, 6, size=(3, 7)).astype(float), np.zeros((2, 3)),
              np.array([[1.0, -0.0]]), np.array([[1.5, 2.0]]), np.array([[np.nan]]),
              np.array([[np.inf, 1.0]]), np.array([[7.0, -9.0]])]:
        for lo, hi in [(-np.inf, np.inf), (-5.0, 5.0), (-8.0, 8.0)]:
            plain = uncompiled(segments._largest_whole)(W, lo, hi)
            assert plain == compiled(segments._largest_whole)(W, lo, hi), (W, lo, hi)


def test_a_fleet_past_the_plain_allowance_imports_no_numba():
    # 70 machines x 500 presentations: more than a process's plain trials, which
    # compiled the segment loop (some 10 s of CPU after a fresh install)
    code = ("import sys; from markone.datasets import letters; "
            "from markone.hardware import MachineSpec, run_fleet, trial; "
            "im, lab = letters('ABCDEFGHIJKLMNOPQRSTUVWXYZ', per_class=1, seed=0); "
            "assert 70 * 500 > trial.PLAIN_TRIALS; "
            "fleet = run_fleet(MachineSpec.grid(range(70)), im, lab, presentations=500); "
            "print(len(fleet), 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["70", "False"]
