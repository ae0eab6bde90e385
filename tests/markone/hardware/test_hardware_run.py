"""MachineRun: the JSON format shared with the browser replay, and weights_at."""

import json

import numpy as np
import pytest

from markone.datasets import letters
from markone.hardware import MachineRun, MarkI, MarkIParams

TOP_FIELDS = {"format", "version", "markone_version", "params", "seed", "retina_shape",
              "n_a_units", "n_r_units", "topology", "weight_mask", "class_code",
              "classes", "codes", "wiring", "figures", "weights_initial",
              "weights_final", "sim_time_s", "presentations"}
PRESENTATION_FIELDS = {"t_s", "end_t_s", "figure", "label", "active_a", "scores",
                       "response", "target", "reinforced", "changes", "saturated",
                       "motor_s", "figure_correct"}


@pytest.fixture(scope="module")
def logged():
    images, labels = letters("ABC", per_class=3, seed=0)
    params = MarkIParams(weight_range=(-3, 3))
    run = MarkI(params, seed=4).train(images, labels, max_epochs=6, log=True)
    return params, images, labels, run


def test_weights_at_equals_a_machine_stopped_after_that_many_figures(logged):
    params, images, labels, run = logged
    for step in (0, 4, len(run.log) - 1):
        again = MarkI(params, seed=4).train(images, labels, presentations=step + 1)
        np.testing.assert_array_equal(run.weights_at(step), again.weights)
    np.testing.assert_array_equal(run.weights_at(len(run.log) - 1), run.weights)


def test_log_is_consistent_with_the_totals(logged):
    _, images, _, run = logged
    assert len(run.log) == run.n_presentations == len(images) * run.epochs
    assert sum(r.saturated for r in run.log) == run.saturated.sum() > 0
    assert np.sum([r.reinforced for r in run.log], axis=0).tolist() == run.reinforcements.tolist()
    assert run.log[-1].end_t_s == pytest.approx(run.sim_time_s)
    for prev, rec in zip(run.log, run.log[1:]):
        assert rec.t_s == pytest.approx(prev.end_t_s)
    errors = [sum(not r.figure_correct for r in run.log[e * 9:(e + 1) * 9])
              for e in range(run.epochs)]
    assert errors == list(run.errors_per_epoch)


def test_json_has_the_shared_fields_and_round_trips(logged, tmp_path):
    params, images, labels, run = logged
    path = run.save(tmp_path / "run.json")
    data = json.loads(path.read_text())
    assert TOP_FIELDS <= set(data) and data["format"] == "markone-machine-run"
    assert data["version"] == 2 and data["classes"] == ["A", "B", "C"]
    assert PRESENTATION_FIELDS <= set(data["presentations"][0])
    assert len(data["figures"]) == len(images) and len(data["figures"][0]) == 400
    assert data["params"]["motor_step_s"] == 0.2 and data["weight_mask"] is None
    back = MachineRun.load(path)
    assert back.params == params and back.log == run.log
    np.testing.assert_array_equal(back.weights, run.weights)
    np.testing.assert_array_equal(back.codes, run.codes)
    np.testing.assert_array_equal(back.figures, run.figures)
    assert (back.mistakes.tolist(), back.end_s_per_epoch) == (run.mistakes.tolist(),
                                                               run.end_s_per_epoch)


def test_source_sets_mask_is_saved(tmp_path):
    images, labels = letters("AB", per_class=2, seed=0)
    run = MarkI(MarkIParams(topology="source_sets"), seed=0).train(images, labels, max_epochs=2)
    data = json.loads(run.save(tmp_path / "r.json").read_text())
    mask = np.array(data["weight_mask"])
    assert mask.shape == (8, 512) and mask.sum() == 512
    assert data["presentations"] == [] and data["figures"] == []
    assert MachineRun.load(tmp_path / "r.json").log is None


def test_replay_accepts_the_run(logged):
    replay = pytest.importorskip("markone.hardware.replay")
    *_, run = logged
    checked = replay.check_run(json.loads(json.dumps(_jsonable(run))))
    assert checked["format"] == "markone-machine-run"


def _jsonable(run):
    from markone._internal.io import to_jsonable
    return to_jsonable(run.to_dict())
