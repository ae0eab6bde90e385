"""Bad input to the Mark I: clear errors naming the parameter and its valid range."""

import json

import numpy as np
import pytest

from markone.datasets import letters
from markone.hardware import MachineRun, MarkI, MarkIParams


@pytest.mark.parametrize("changes, match", [
    (dict(photocell_rise_s=-0.01), r"photocell_rise_s\(=-0.01\) must be .* >= 0"),
    (dict(photocell_decay_s=float("nan")), r"photocell_decay_s\(=nan\)"),
    (dict(motor_step_s=-1), r"motor_step_s\(=-1\) must be .* >= 0"),
    (dict(logic_s=float("inf")), r"logic_s\(=inf\)"),
    (dict(exposure_s=-0.1), r"exposure_s\(=-0.1\)"),
    (dict(photocell_noise_sd=-0.1), r"photocell_noise_sd\(=-0.1\)"),
    (dict(weight_range=(3, 3)), r"weight_range\(=\(3, 3\)\) must satisfy lo <= 0 <= hi and lo < hi"),
    (dict(weight_range=(5, 10)), r"weight_range\(=\(5, 10\)\)"),
    (dict(weight_range=(1,)), r"weight_range\(=\(1,\)\) must be \(lo, hi\)"),
    (dict(n_excitatory=300, n_inhibitory=200), r"n_excitatory \+ n_inhibitory\(=500\) must be between 1 and the number of S-units \(400\)"),
    (dict(n_excitatory=0, n_inhibitory=0), r"n_excitatory \+ n_inhibitory\(=0\)"),
    (dict(max_fanout=5), r"max_fanout\(=5\) is too small: 512 A-units x 10 inputs need at least 13"),
    (dict(theta=6), r"theta\(=6\) is out of range -4..5"),
    (dict(theta=-5), r"theta\(=-5\) is out of range -4..5"),
    (dict(theta=1.5), r"theta must be an integer or 'auto'"),
    (dict(theta_target_rate=(0.3, 0.2)), r"theta_target_rate\(=\(0.3, 0.2\)\) must be \(lo, hi\) with 0 < lo < hi < 1"),
    (dict(s_threshold=1.0), r"s_threshold\(=1.0\) must be a number strictly between 0 and 1"),
    (dict(settle_tolerance=0), r"settle_tolerance\(=0\)"),
    (dict(retina_shape=(20,)), r"retina_shape\(=\(20,\)\) must be two integers >= 1"),
    (dict(n_a_units=0), r"n_a_units\(=0\) must be >= 1"),
    (dict(n_r_units=0), r"n_r_units\(=0\) must be >= 1"),
    (dict(topology="ring"), r"topology\(='ring'\) must be one of 'full', 'source_sets'"),
    (dict(class_code="gray"), r"class_code\(='gray'\) must be one of 'binary', 'one_hot'"),
    (dict(rule="delta"), r"rule\(='delta'\) must be one of 'error_correction', 'forced', 'gamma'"),
    (dict(increment_steps=0), r"increment_steps\(=0\) must be a finite number > 0"),
    (dict(increment_steps=1.5), r"increment_steps\(=1.5\) must be a whole number"),
    (dict(topology="source_sets", n_a_units=4, n_excitatory=1, n_inhibitory=1),
     r"topology='source_sets' needs n_a_units\(=4\) >= n_r_units\(=8\)"),
])
def test_params_out_of_range_name_the_parameter_and_range(changes, match):
    with pytest.raises((ValueError, TypeError), match=match):
        MarkIParams(**changes)


def test_params_type_and_unknown_fields():
    with pytest.raises(TypeError, match="params must be a MarkIParams, got dict"):
        MarkI({"motor_step_s": 0.1})
    with pytest.raises(ValueError, match=r"unknown MarkIParams fields \['motor_speed'\]"):
        MarkIParams.from_dict({"motor_speed": 1})


@pytest.fixture(scope="module")
def trained():
    images, labels = letters("AB", per_class=2, seed=0)
    machine = MarkI(seed=0)
    machine.train(images, labels, max_epochs=5)
    return machine, images, labels


@pytest.mark.parametrize("shape", [(3, 10, 10), (3, 20, 21), (3, 401), (20, 20), (3, 2, 20, 20)])
def test_images_of_wrong_shape(trained, shape):
    machine, *_ = trained
    with pytest.raises(ValueError, match=r"images must have shape \(n, 20, 20\) or \(n, 400\) "
                                         r"for a 20x20 retina, got shape"):
        machine.predict(np.zeros(shape))


def test_images_out_of_range_and_not_finite(trained):
    machine, images, labels = trained
    with pytest.raises(ValueError, match=r"light levels in \[0, 1\].*\[0, 255\]; divide 8-bit"):
        machine.train(images * 255, labels)
    with pytest.raises(ValueError, match=r"light levels in \[0, 1\].*\[-1, 1\]"):
        machine.a_features(images.astype(int) * 2 - 1)
    bad = images.astype(float)
    bad[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="images contains NaN"):
        machine.predict(bad)


def test_one_image_of_wrong_shape(trained):
    machine, images, _ = trained
    with pytest.raises(ValueError, match=r"image must have shape \(20, 20\) or \(400,\)"):
        machine.predict_one(images)


def test_labels_beyond_the_class_code():
    images, labels = letters("ABCDEFGHI", per_class=1, seed=0)
    with pytest.raises(ValueError, match=r"9 classes but class_code='one_hot' over "
                                         r"8 R-units represents at most 8"):
        MarkI(MarkIParams(class_code="one_hot"), seed=0).train(images, labels)
    with pytest.raises(ValueError, match=r"9 classes but class_code='binary' over "
                                         r"3 R-units represents at most 8"):
        MarkI(MarkIParams(n_r_units=3), seed=0).train(images, labels)


def test_labels_beyond_the_class_code_in_command_line_terms(capsys):
    """The walk of issue 37 met "class_code='binary' over n_r_units=1 R-units ... use
    fewer classes, more R-units" from `machine train --set n_r_units=1`: Python names,
    "1 R-units", and no flag to raise them with."""
    from markone.cli import main

    assert main(["machine", "train", "--chars", "ABC", "--set", "n_r_units=1"]) == 2
    err = capsys.readouterr().err
    assert ("labels have 3 classes but the binary class code over 1 R-unit represents "
            "at most 2; use fewer classes, more R-units (--set n_r_units=N).") in err
    assert main(["machine", "train", "--chars", "ABCDEFGHI", "--set",
                 "class_code=one_hot"]) == 2
    assert "more R-units (--set n_r_units=N) or --set class_code=binary." in \
        capsys.readouterr().err


def test_labels_length_and_unknown_labels(trained):
    machine, images, labels = trained
    with pytest.raises(ValueError, match="images has 4 samples but labels has 3"):
        MarkI(seed=0).train(images, labels[:3])
    with pytest.raises(ValueError, match=r"labels \['Z'\] are not among the machine's classes"):
        machine.code(["A", "Z"])


def test_train_arguments(trained):
    machine, images, labels = trained
    with pytest.raises(ValueError, match="max_epochs\\(=0\\) must be >= 1"):
        machine.train(images, labels, max_epochs=0)
    with pytest.raises(ValueError, match="give max_epochs or presentations, not both"):
        machine.train(images, labels, max_epochs=2, presentations=3)
    with pytest.raises(ValueError, match=r"rule\(='hebb'\) must be one of"):
        machine.train(images, labels, rule="hebb")


def test_use_before_training_or_calibration():
    images, labels = letters("AB", per_class=1, seed=0)
    with pytest.raises(ValueError, match="has not been trained; call train"):
        MarkI(seed=0).predict(images)
    with pytest.raises(ValueError, match="theta='auto' is not calibrated yet; call calibrate"):
        MarkI(seed=0).learn_one(images[0], "A")


def test_weights_at_without_log_or_out_of_range(trained):
    machine, images, labels = trained
    run = machine.train(images, labels, max_epochs=2)
    with pytest.raises(ValueError, match="weights_at needs the per-presentation log; train with log=True"):
        run.weights_at(0)
    run = machine.train(images, labels, presentations=3, log=True)
    with pytest.raises(ValueError, match=r"step\(=3\) must be an integer in 0..2"):
        run.weights_at(3)


def test_loading_other_formats_and_newer_versions(tmp_path, trained):
    machine, images, labels = trained
    path = machine.train(images, labels, presentations=2, log=True).save(tmp_path / "r.json")
    data = json.loads(path.read_text())
    for change, match in [({"format": "markone-certificate"},
                           "format is 'markone-certificate', expected 'markone-machine-run'"),
                          ({"version": 5}, "format version 5, but this markone reads versions up to 4")]:
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({**data, **change}))
        with pytest.raises(ValueError, match=match):
            MachineRun.load(bad)
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ValueError, match="is not valid JSON"):
        MachineRun.load(tmp_path / "broken.json")
