"""Fleets of Mark I machines: the same runs wherever they ran (issue 16)."""

import dataclasses
import json
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markone.datasets import letters
from markone._internal.io import to_jsonable
from markone.cli import main
from markone.hardware import FleetRun, MachineSpec, MarkI, MarkIParams, run_fleet
from markone._internal import parallel
from markone.hardware import _packed as packing
from markone.hardware.faults import (AUnitStuck, FaultPlan, MotorStopped, apply_faults,
                                     random_faults)


def data():
    return letters("ABCDE", per_class=1, seed=0, typeface=("block", "serif"))


def exact(fleet_run):
    """Everything a fleet machine left, as exact JSON text (floats by repr)."""
    return json.dumps(to_jsonable({"run": fleet_run.run.to_dict(),
                                   "accuracy": fleet_run.accuracy,
                                   "seed": fleet_run.spec.seed}), sort_keys=True)


SPECS = MachineSpec.grid([0, 3], weight_range=[(-50, 50), (-2, 2)],
                         topology=["full", "source_sets"]) + [
    MachineSpec(MarkIParams(photocell_noise_sd=0.1, rule="gamma"), seed=5),
    MachineSpec(MarkIParams.ideal(), seed=1)]


def test_fleet_machine_equals_the_machine_trained_alone():
    images, labels = data()
    fleet = run_fleet(SPECS, images, labels, presentations=40)
    assert [f.spec for f in fleet] == SPECS
    for spec, f in zip(SPECS, fleet):
        machine = MarkI(spec.params, seed=spec.seed)
        run = machine.train(images, labels, presentations=40)
        np.testing.assert_array_equal(f.run.weights, run.weights)
        assert f.run.sim_time_s == run.sim_time_s
        assert f.accuracy == machine.score(images, labels)
        assert f.run.log is None


@pytest.mark.parametrize("relabel", [lambda y: y, lambda y: 10 - np.searchsorted(
    np.unique(y), y)])
def test_machines_given_the_figures_checked_once_run_as_each_alone(relabel):
    # a task checks the figures and finds the classes once per params (TrainingSet);
    # every machine's whole run, classes and predictions are those it makes alone
    from markone.hardware.fleet import _train_machines
    images, labels = data()
    labels = relabel(labels)[::-1]   # classes met out of order, strings or numbers
    specs = [MachineSpec(seed=s) for s in (0, 1, 2)] + [
        MachineSpec(MarkIParams(n_r_units=3, weight_range=(-2, 2)), seed=4)]
    fleet = _train_machines((specs, packing.pack(np.asarray(images, float)), labels,
                             {"presentations": 25}, [], 2**30))
    for spec, f in zip(specs, fleet):
        machine = MarkI(spec.params, seed=spec.seed)
        run = machine.train(images, labels, presentations=25)
        assert exact(f) == exact(FleetRun(spec, run, machine.score(images, labels)))


def test_a_task_scores_its_machines_as_score_does_whatever_the_figures_layout():
    # a worker checks the figures once per retina shape for the accuracies: figures
    # as (n, rows, cols), flat, or on machines of two retina shapes give score()'s
    from markone.hardware.fleet import _train_machines
    images, labels = data()
    small = letters("ABCDE", per_class=1, seed=0, size=12,
                    typeface=("block", "serif"))[0]
    specs = [MachineSpec(seed=0), MachineSpec(MarkIParams(weight_range=(-2, 2)), 3)]
    for figures, params in [(images, None), (images.reshape(len(images), -1), None),
                            (small, MarkIParams(retina_shape=(12, 12)))]:
        task_specs = specs if params is None else [MachineSpec(params, 1), MachineSpec(
            params.replace(topology="source_sets"), 2)]
        fleet = _train_machines((task_specs, packing.pack(np.asarray(figures)), labels,
                                 {"presentations": 30}))
        for spec, f in zip(task_specs, fleet):
            machine = MarkI(spec.params, seed=spec.seed)
            machine.train(figures, labels, presentations=30)
            assert f.accuracy == machine.score(figures, labels)


def test_fleet_is_the_same_here_on_two_processes_and_on_dask(monkeypatch):
    pytest.importorskip("dask.distributed")
    images, labels = data()
    here = [exact(f) for f in run_fleet(SPECS, images, labels, max_epochs=3)]
    assert len(set(here)) == len(SPECS)   # different machines, different runs
    for start in ("fork", "spawn"):   # a forked worker inherits this process's state
        monkeypatch.setattr(parallel, "start_method", lambda start=start: start)
        two = [exact(f) for f in run_fleet(SPECS, images, labels, max_epochs=3,
                                           workers=2)]
        assert two == here, start
    monkeypatch.undo()
    on_dask = [exact(f) for f in run_fleet(SPECS, images, labels, max_epochs=3,
                                           dask="local", chunks=3)]
    assert on_dask == here


@pytest.mark.slow
def test_fleet_on_a_local_dask_cluster_of_two_processes():
    # dask="local" with workers=2 starts two worker processes (threads would share
    # the GIL); the runs are the same as here
    pytest.importorskip("dask.distributed")
    images, labels = data()
    here = [exact(f) for f in run_fleet(SPECS[:4], images, labels, max_epochs=2)]
    assert [exact(f) for f in run_fleet(SPECS[:4], images, labels, max_epochs=2,
                                        dask="local", workers=2)] == here


def test_chunks_change_nothing():
    images, labels = data()
    one = [exact(f) for f in run_fleet(SPECS[:5], images, labels, presentations=20)]
    for chunks in (2, 5, 99):
        assert [exact(f) for f in run_fleet(SPECS[:5], images, labels,
                                            presentations=20, chunks=chunks)] == one


def test_grid_order_and_bases():
    specs = MachineSpec.grid([4, 5], base=MarkIParams.ideal(), rule=["forced", "gamma"])
    assert [(s.seed, s.params.rule, s.params.motor_step_s) for s in specs] == [
        (4, "forced", 0.0), (5, "forced", 0.0), (4, "gamma", 0.0), (5, "gamma", 0.0)]
    assert MachineSpec.grid([]) == []


@pytest.mark.parametrize("build, error, match", [
    (lambda: MachineSpec(seed=-1), ValueError, "seed"),
    (lambda: MachineSpec(seed=None), ValueError, "seed"),
    (lambda: MachineSpec(seed=True), ValueError, "seed"),
    (lambda: MachineSpec(params={"topology": "full"}), TypeError, "MarkIParams"),
    (lambda: MachineSpec.grid([0], topology="full"), TypeError, "list of values"),
    (lambda: MachineSpec.grid([0], weight_range=[(1, 2)]), ValueError, "weight_range"),
])
def test_bad_specs_are_named(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_faults_travel_with_their_machine():
    images, labels = data()
    plan = FaultPlan((AUnitStuck(a_unit=3, value=1), MotorStopped(r_unit=0, a_unit=3)))
    drawn = {"dead_a_units": 0.2, "noise_sd": 0.5, "seed": 4}
    specs = [MachineSpec(seed=1, faults=plan), MachineSpec(seed=2, faults=drawn),
             MachineSpec(seed=2)]
    fleet = run_fleet(specs, images, labels, presentations=60)
    assert fleet[0].run.weights[0, 3] == 0.0          # its motor never turned
    for spec, f in zip(specs[:2], fleet):
        machine = MarkI(spec.params, seed=spec.seed)
        apply_faults(machine, plan if spec.faults is plan
                     else random_faults(machine, **drawn))
        run = machine.train(images, labels, presentations=60)
        np.testing.assert_array_equal(f.run.weights, run.weights)
        assert f.accuracy == machine.score(images, labels)
    assert not np.array_equal(fleet[1].run.weights, fleet[2].run.weights)
    two = run_fleet(specs, images, labels, presentations=60, workers=2)
    assert [exact(f) for f in two] == [exact(f) for f in fleet]


@pytest.mark.parametrize("faults, error, match", [
    ({"dead": 0.1}, ValueError, "unknown key"), (["CutWire"], TypeError, "FaultPlan"),
    ({"dead_a_units": 2.0}, ValueError, "dead_a_units"),
])
def test_bad_faults_are_named(faults, error, match):
    images, labels = data()
    with pytest.raises(error, match=match):
        run_fleet([MachineSpec(faults=faults)], images, labels, presentations=2)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(specs=[]), ValueError, "empty"),
    (dict(specs=[MarkIParams()]), TypeError, "specs\\[0\\].*MachineSpec"),
    (dict(log=True), TypeError, "log"),
    (dict(warm_start=True), TypeError, "warm_start"),
    (dict(epoch=3), TypeError, "epoch"),
    (dict(workers=0), ValueError, "workers"),
    (dict(dask="localhost"), ValueError, "dask"),
    (dict(chunks=0), ValueError, "chunks"),
    (dict(images=np.full((10, 400), 2.0)), ValueError, "light levels"),
    (dict(labels=["A"]), ValueError, "images"),
])
def test_bad_fleet_arguments_are_named(kwargs, error, match):
    images, labels = data()
    args = dict(specs=[MachineSpec()], images=images, labels=labels)
    args.update(kwargs)
    with pytest.raises(error, match=match):
        run_fleet(args.pop("specs"), args.pop("images"), args.pop("labels"),
                  presentations=5, **args)


def test_an_error_in_a_machine_reaches_the_caller():
    images, labels = data()
    with pytest.raises(ValueError, match="presentations"):
        run_fleet([MachineSpec()], images, labels, presentations=0)


def test_fleet_run_repr():
    images, labels = data()
    f = run_fleet([MachineSpec(seed=2)], images, labels, presentations=3)[0]
    assert isinstance(f, FleetRun) and repr(f).startswith("FleetRun(seed=2, accuracy=")


def test_cli_fleet(tmp_path, capsys):
    out = tmp_path / "fleet.json"
    assert main(["machine", "fleet", "--machines", "2", "--presentations", "30",
                 "--chars", "ABC", "--vary", "weight_range=[[-50, 50], [-1, 1]]",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    # one table row per weight range (the CLI prints a table per varied parameter)
    assert "4 machines" in text and "\n(-1, 1)              2 " in text
    rows = json.loads(out.read_text())["machines"]
    assert [(r["seed"], r["params"]["weight_range"]) for r in rows] == [
        (0, [-50, 50]), (1, [-50, 50]), (0, [-1, 1]), (1, [-1, 1])]
    images, labels = letters("ABC", per_class=1, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-1, 1)), seed=1)
    machine.train(images, labels, presentations=30)
    assert rows[3]["accuracy"] == machine.score(images, labels)


@pytest.mark.parametrize("vary, match", [
    ("weight_range", "NAME=JSON_LIST"), ("weight_range=[]", "NAME=JSON_LIST"),
    ("weight_range=(1,2)", "NAME=JSON_LIST"), ("colour=[1]", "not a machine parameter"),
    ("photocell_noise_sd=[-1]", "photocell_noise_sd"),
])
def test_cli_fleet_bad_vary(vary, match, capsys):
    assert main(["machine", "fleet", "--machines", "1", "--presentations", "2",
                 "--chars", "AB", "--vary", vary]) == 2
    assert match in capsys.readouterr().err


def test_a_run_travels_compactly_and_comes_back_bit_for_bit():
    images, labels = data()
    fleet = run_fleet(SPECS, images, labels, presentations=40)   # gamma: fractions
    for f in fleet:
        back = pickle.loads(pickle.dumps(f))
        assert exact(back) == exact(f)
        for field in dataclasses.fields(f.run):
            sent, got = getattr(f.run, field.name), getattr(back.run, field.name)
            if isinstance(sent, np.ndarray):
                assert (got.dtype, got.shape, got.tobytes()) == \
                    (sent.dtype, sent.shape, sent.tobytes())
    plain = pickle.dumps({f.name: getattr(fleet[0].run, f.name)
                          for f in dataclasses.fields(fleet[0].run)})
    assert len(pickle.dumps(fleet[0].run)) < len(plain) / 3


@pytest.mark.parametrize("array", [
    np.array([0.0, -0.0, 2.0]), np.array([1.0, np.nan]), np.array([np.inf, 1.0]),
    np.array([0.5, 1.0]), np.array([2.0**40, 1.0]), np.array([2**40, -1]),
    np.array([1, 2], dtype=np.int32), np.zeros((0, 3))])
def test_packing_leaves_what_it_cannot_hold_exactly(array):
    assert packing.pack(array) is array


@pytest.mark.parametrize("array", [
    np.array([[-50.0, 0.0], [3.0, 50.0]], order="F"), np.array([[300, -2]]),
    np.arange(40_000).reshape(200, 200)])
def test_packing_restores_dtype_order_and_bits(array):
    packed = packing.pack(array)
    assert isinstance(packed, packing.Packed) and packed.values.nbytes < array.nbytes
    back = packing.unpack(pickle.loads(pickle.dumps(packed)))
    assert (back.dtype, back.shape, back.tobytes("A"), back.flags.f_contiguous) == \
        (array.dtype, array.shape, array.tobytes("A"), array.flags.f_contiguous)


#: values at and beyond the bounds of the packed types, fractions, -0.0, NaN, inf
_EDGES = [0.0, -0.0, 0.5, -1.5, 127.0, 128.0, -128.0, -129.0, 32767.0, 32768.0,
          -32769.0, 2.0**31 - 1, 2.0**31, -(2.0**31), -(2.0**31) - 1, 2.0**53,
          np.nan, np.inf, -np.inf]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(-300, 300).map(float), st.sampled_from(_EDGES)),
                min_size=1, max_size=12), st.booleans())
def test_packing_is_exact_bit_for_bit_and_only_for_whole_numbers(values, as_int):
    """pack/unpack of any float64 array (and of the int64 array of its whole numbers)
    restores it bit for bit, and packs exactly the arrays of whole numbers without
    -0.0 that int32 holds, in the smallest type that holds them."""
    array = np.array(values)
    if as_int:
        array = np.array([int(v) for v in values if np.isfinite(v)] or [0],
                         dtype=np.int64)
    packed = packing.pack(array)
    back = packing.unpack(pickle.loads(pickle.dumps(packed)))
    assert (back.dtype, back.shape, back.tobytes()) == \
        (array.dtype, array.shape, array.tobytes())
    whole = bool(np.isfinite(array).all() and (array == np.round(array)).all()
                 and not np.signbit(array[array == 0]).any()
                 and -(2**31) <= array.min() and array.max() <= 2**31 - 1)
    assert isinstance(packed, packing.Packed) == whole
    if whole:
        small = next(t for t in (np.int8, np.int16, np.int32)
                     if np.iinfo(t).min <= array.min() and array.max() <= np.iinfo(t).max)
        assert packed.values.dtype == small


class _FirstMachine(Exception):
    """Raised by a spy at a fleet's first training call."""


@pytest.mark.parametrize("machines, plain_left", [(40, 0), (30, "all")])
def test_a_large_fleet_in_small_tasks_compiles_from_its_first_task(
        machines, plain_left, monkeypatch):
    # 40 machines x 1,000 presentations (40,000 trials) exceed the plain allowance
    # (32,768): the fleet compiles from its first trial, although each of its tasks
    # (one machine: 1,000 trials) fits the allowance (before: every worker ran its
    # first 32 tasks plain, some 30 times slower); 30 machines (30,000) stay plain
    from markone._internal.jit import PlainWork
    from markone.hardware import fleet as fleet_module
    from markone.hardware.trial import PLAIN_TRIALS
    plain = PlainWork(PLAIN_TRIALS)
    monkeypatch.setattr(fleet_module, "PLAIN", plain)
    seen = []

    def first_train(*args, **kwargs):
        seen.append(plain.left)
        raise _FirstMachine

    monkeypatch.setattr(MarkI, "train", first_train)
    images, labels = letters("AB", per_class=1, seed=0)
    with pytest.raises(_FirstMachine):
        run_fleet(MachineSpec.grid(range(machines)), images, labels,
                  presentations=1000, chunks=machines)
    assert seen == [PLAIN_TRIALS if plain_left == "all" else plain_left]
