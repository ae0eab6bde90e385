"""Golden runs of the Mark I: every output bit for bit as recorded (issue 16).

``tests/data/machine_golden.json`` was recorded from the machine *before* it was made
faster, for a set of seeds, physics (default, ideal, photocell noise, end stops that
bite, short exposures that blend figures, the three rules, one-hot codes, shuffles,
early stops, warm starts, single figures through ``learn_one``) and both topologies.
Each run is reduced to a fingerprint: small results exactly (machine time, mistakes,
per-pass numbers), large arrays (weights, the log) as SHA-256 of their exact bytes.
Any change to what the machine does, however small, changes a fingerprint.

Re-record (only for an intended change of behaviour, said so in the commit):
``PYTHONPATH=. python tests/markone/hardware/test_hardware_golden.py --record``.
"""

import dataclasses
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from _paths import TESTS

GOLDEN = TESTS / "data" / "machine_golden.json"

# (name, MarkIParams fields, train keyword arguments); each runs for every seed and
# topology. Small retina sizes keep the whole file fast; the default one is there too.
VARIANTS = [
    ("default", {}, {"presentations": 120}),
    ("default_epochs", {}, {"max_epochs": 4}),
    ("ideal", "ideal", {"max_epochs": 6}),
    ("ideal_presentations", "ideal", {"presentations": 90}),
    ("noise", {"photocell_noise_sd": 0.15}, {"presentations": 100}),
    ("end_stops", {"weight_range": (-2, 3)}, {"presentations": 150}),
    ("short_exposure", {"exposure_s": 0.03}, {"presentations": 100}),
    ("zero_exposure", {"exposure_s": 0.0, "photocell_noise_sd": 0.05},
     {"presentations": 60}),
    ("no_lag_slow_motor", {"photocell_rise_s": 0.0, "photocell_decay_s": 0.3,
                           "motor_step_s": 0.37, "logic_s": 0.013},
     {"presentations": 80}),
    ("gamma", {"rule": "gamma", "weight_range": (-4, 4)}, {"presentations": 90}),
    ("gamma_unquantized", {"rule": "gamma", "quantize": False, "weight_range": None},
     {"presentations": 60}),
    ("forced", {"rule": "forced"}, {"presentations": 70}),
    ("one_hot", {"class_code": "one_hot", "theta": 1}, {"max_epochs": 3}),
    ("shuffle", {"photocell_noise_sd": 0.1}, {"max_epochs": 3, "order": "shuffle"}),
    ("increment_3", {"increment_steps": 3, "weight_range": (-7, 7)},
     {"presentations": 80}),
]
SEEDS = (0, 7)
TOPOLOGIES = ("full", "source_sets")
CHARS = "ABCDEFG"


def _sha(data):
    return hashlib.sha256(data).hexdigest()[:32]


def array_hash(a):
    """SHA-256 of an array's dtype, shape and exact bytes."""
    a = np.ascontiguousarray(a)
    return _sha(f"{a.dtype.str}{a.shape}".encode() + a.tobytes())


def log_hash(records):
    """SHA-256 of the log as the JSON file stores it (floats by exact repr)."""
    return _sha(json.dumps([dataclasses.asdict(r) for r in records]).encode())


def dataset():
    images, labels = letters(CHARS, per_class=1, seed=0, typeface=("block", "serif"))
    return images, labels


def make_params(fields, topology):
    if fields == "ideal":
        return MarkIParams.ideal(topology=topology)
    return MarkIParams(topology=topology, **fields)


def fingerprint(run, machine, images):
    """Everything a run leaves, exactly (small values) or hashed (arrays, the log)."""
    out = {
        "theta": run.theta, "rule": run.rule, "classes": list(run.classes),
        "codes": array_hash(run.codes), "sim_time_s": run.sim_time_s,
        "now_s": machine.now_s, "n_presentations": run.n_presentations,
        "epochs": run.epochs, "converged": run.converged,
        "mistakes": run.mistakes.tolist(), "reinforcements": run.reinforcements.tolist(),
        # the per-pass series under the keys they were recorded with (format 1 names)
        "saturated": run.saturated.tolist(), "epoch_errors": list(run.errors_per_epoch),
        "epoch_mistakes": list(run.mistakes_per_epoch),
        "epoch_end_s": list(run.end_s_per_epoch),
        "weights": array_hash(run.weights), "weights_initial":
            array_hash(run.weights_initial),
        "weight_mask": None if run.weight_mask is None else array_hash(run.weight_mask),
        "wiring": array_hash(np.hstack([run.excitatory, run.inhibitory])),
        "decision_function": array_hash(machine.decision_function(images)),
        "predictions": machine.predict(images).tolist(),
    }
    if run.log is not None:
        out["log"] = log_hash(run.log)
        out["log_len"] = len(run.log)
        out["figures"] = array_hash(run.figures)
    return out


def case_ids():
    return [f"{name}-{topology}-seed{seed}" for name, _, _ in VARIANTS
            for topology in TOPOLOGIES for seed in SEEDS]


def run_case(case_id, log, segments=True):
    """Train the machine of ``case_id`` from scratch (``segments=False``: every
    figure on the per-figure path); return ``(run, machine)``."""
    name, topology, seed = case_id.rsplit("-", 2)
    fields, kwargs = {v[0]: v[1:] for v in VARIANTS}[name]
    images, labels = dataset()
    machine = MarkI(make_params(fields, topology), seed=int(seed[4:]), segments=segments)
    return machine.train(images, labels, log=log, **kwargs), machine


def warm_start_case(topology, log):
    """Two sessions, the second continuing the first with other figures."""
    images, labels = dataset()
    machine = MarkI(MarkIParams(topology=topology, photocell_noise_sd=0.05), seed=3)
    first = machine.train(images[:8], labels[:8], presentations=40, log=log)
    second = machine.train(images, labels, presentations=50, log=log, warm_start=True)
    return [fingerprint(first, machine, images[:8]), fingerprint(second, machine, images)]


def learn_one_case(topology):
    """Single figures through ``learn_one``, with and without an exposure override."""
    images, labels = dataset()
    machine = MarkI(MarkIParams(topology=topology, photocell_noise_sd=0.05), seed=5)
    machine.calibrate(images)
    records = []
    for i, exposure in enumerate([None, 0.01, None, 0.0, 0.2, None] * 3):
        k = i % len(images)
        records.append(machine.learn_one(images[k], labels[k], exposure_s=exposure))
    return {"log": log_hash(records), "now_s": machine.now_s,
            "weights": array_hash(machine.weights),
            "classes": machine.classes_.tolist()}


def record():
    images, _ = dataset()
    golden = {"images": array_hash(images), "runs": {}}
    for case_id in case_ids():
        run, machine = run_case(case_id, log=True)
        golden["runs"][case_id] = fingerprint(run, machine, images)
    for topology in TOPOLOGIES:
        golden["runs"][f"warm_start-{topology}"] = warm_start_case(topology, log=True)
        golden["runs"][f"learn_one-{topology}"] = learn_one_case(topology)
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(golden['runs'])} golden runs in {GOLDEN}")


@pytest.fixture(scope="module")
def golden():
    return json.loads(GOLDEN.read_text())


def test_golden_dataset_unchanged(golden):
    # a failure here means the letters changed, not the machine
    assert array_hash(dataset()[0]) == golden["images"]


def test_golden_covers_the_cases(golden):
    assert set(case_ids()) <= set(golden["runs"])
    assert len(golden["runs"]) == len(case_ids()) + 2 * len(TOPOLOGIES)


def _without_log(expected):
    return {k: v for k, v in expected.items() if k not in ("log", "log_len", "figures")}


@pytest.mark.parametrize("case_id", case_ids())
def test_golden_run(golden, case_id):
    expected = golden["runs"][case_id]
    run, machine = run_case(case_id, log=True)
    images = dataset()[0]
    assert fingerprint(run, machine, images) == expected
    # the same session without the log leaves the same machine
    run, machine = run_case(case_id, log=False)
    assert fingerprint(run, machine, images) == _without_log(expected)


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_golden_warm_start(golden, topology):
    expected = golden["runs"][f"warm_start-{topology}"]
    assert warm_start_case(topology, log=True) == expected
    assert warm_start_case(topology, log=False) == [_without_log(e) for e in expected]


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_golden_learn_one(golden, topology):
    assert learn_one_case(topology) == golden["runs"][f"learn_one-{topology}"]


def test_fingerprint_sees_one_bit():
    # the hashes are sensitive to the last bit of one weight and to one log value
    w = np.zeros((2, 3))
    w2 = w.copy()
    w2[1, 2] = np.nextafter(0.0, 1.0)
    assert array_hash(w) != array_hash(w2)
    assert array_hash(w) != array_hash(w.astype(np.float32))


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit(__doc__)
    record()
