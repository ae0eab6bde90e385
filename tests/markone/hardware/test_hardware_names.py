"""The Mark I speaks the core's vocabulary (issue 11): ``max_epochs=``,
``order="given"|"shuffle"|stream``, ``seed=``, ``mistakes_per_epoch``; the old
spellings (``epochs=``, ``shuffle=``, ``epoch_mistakes``, ``--epochs``, ``--shuffle``,
run files of format version 1) keep working and warn with the new spelling."""

import json
import warnings

import numpy as np
import pytest

from markone.datasets import letters
from markone.cli import main
from markone.hardware import MachineRun, MarkI, MarkIParams
from markone.hardware.demo import letters_demo, navy_comparison

IMAGES, LABELS = letters("ABC", per_class=2, seed=0)
PARAMS = MarkIParams(photocell_noise_sd=0.1)   # noise: the shuffles share its generator


def same_run(a, b):
    return (np.array_equal(a.weights, b.weights) and a.log == b.log
            and a.mistakes_per_epoch == b.mistakes_per_epoch
            and a.errors_per_epoch == b.errors_per_epoch
            and a.end_s_per_epoch == b.end_s_per_epoch)


@pytest.mark.parametrize("old, new", [
    ({"epochs": 3}, {"max_epochs": 3}),
    ({"epochs": 3, "shuffle": True}, {"max_epochs": 3, "order": "shuffle"}),
    ({"epochs": 2, "shuffle": False}, {"max_epochs": 2, "order": "given"}),
    ({"order": None, "epochs": 2}, {"order": "given", "max_epochs": 2}),
])
def test_old_train_keywords_warn_and_train_the_same(old, new):
    with pytest.warns(DeprecationWarning) as caught:
        before = MarkI(PARAMS, seed=4).train(IMAGES, LABELS, log=True, **old)
    now = MarkI(PARAMS, seed=4).train(IMAGES, LABELS, log=True, **new)
    assert same_run(before, now)
    texts = [str(w.message) for w in caught]
    assert all(w.filename == __file__ for w in caught), "warns at the caller's line"
    if "epochs" in old:
        assert "MarkI.train(epochs=...) is deprecated; use max_epochs=... instead." in texts
    if "shuffle" in old:
        assert any("shuffle=...) is deprecated; use order='shuffle'" in t for t in texts)


def test_new_keywords_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MarkI(seed=0).train(IMAGES, LABELS, max_epochs=2, order="shuffle", seed=1)
        MarkI(seed=0).train(IMAGES, LABELS, max_epochs=2, order=[5, 0, 3])


def test_old_and_new_spelling_together_are_refused():
    machine = MarkI(seed=0)
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="give max_epochs= only"):
        machine.train(IMAGES, LABELS, epochs=3, max_epochs=4)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="not both"):
        machine.train(IMAGES, LABELS, shuffle=True, order=[0, 1])
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="True or False"):
        machine.train(IMAGES, LABELS, shuffle="yes")
    with pytest.raises(TypeError, match="unexpected keyword argument 'epoch'"):
        machine.train(IMAGES, LABELS, epoch=3)


def test_old_run_attributes_warn_and_equal_the_new():
    run = MarkI(seed=0).train(IMAGES, LABELS, max_epochs=4, log=True)
    for old, new in [("epoch_mistakes", "mistakes_per_epoch"),
                     ("epoch_errors", "errors_per_epoch"), ("epoch_end_s", "end_s_per_epoch")]:
        with pytest.warns(DeprecationWarning, match=f"MachineRun.{old} is deprecated; "
                          f"use {new} instead") as caught:
            assert getattr(run, old) == getattr(run, new)
        assert caught[0].filename == __file__
    # per pass: the figures on which some R-unit erred (and was reinforced)
    n = len(IMAGES)
    per_pass = [sum(any(rec.reinforced) for rec in run.log[e * n:(e + 1) * n])
                for e in range(run.epochs)]
    assert list(run.mistakes_per_epoch) == per_pass and per_pass[-1] == 0 < per_pass[0]


def test_version_1_run_files_still_load(tmp_path):
    """A file written before the rename (version 1: ``epoch_mistakes`` and friends)
    loads with the new names; files written now are version 2 with the new keys."""
    run = MarkI(seed=0).train(IMAGES, LABELS, max_epochs=4, log=True)
    data = json.loads(run.save(tmp_path / "new.json").read_text())
    assert data["version"] == 2 and "epoch_mistakes" not in data
    assert data["mistakes_per_epoch"] == list(run.mistakes_per_epoch)
    old = {k: v for k, v in data.items() if not k.endswith("_per_epoch")}
    old.update(version=1, epoch_mistakes=data["mistakes_per_epoch"],
               epoch_errors=data["errors_per_epoch"], epoch_end_s=data["end_s_per_epoch"])
    (tmp_path / "old.json").write_text(json.dumps(old))
    back = MachineRun.load(tmp_path / "old.json")
    assert same_run(back, run) and back.converged == run.converged


def test_demos_take_max_epochs_and_the_old_keyword(tmp_path):
    with pytest.warns(DeprecationWarning, match=r"letters_demo\(epochs=...\)"):
        old = letters_demo(tmp_path / "a", chars="AB", per_class=2, epochs=1, figures=False)
    new = letters_demo(tmp_path / "b", chars="AB", per_class=2, max_epochs=1, figures=False)
    assert old["epochs"] == new["epochs"] == 1 and old["mistakes"] == new["mistakes"]
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="only"):
        navy_comparison(chars="AB", per_class=1, epochs=1, max_epochs=2)


def run_cli(argv, capsys):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_flags_max_epochs_and_order_with_hidden_old_flags(tmp_path, capsys):
    base = ["machine", "train", "--chars", "AB", "--per-class", "2", "--noise", "0.1"]
    status, new_out, new_err = run_cli(base + ["--max-epochs", "2", "--order", "shuffle",
                                               "--out", tmp_path / "new.json"], capsys)
    assert status == 0 and "deprecated" not in new_err
    status, old_out, old_err = run_cli(base + ["--epochs", "2", "--shuffle",
                                               "--out", tmp_path / "old.json"], capsys)
    assert status == 0
    assert "warning: --epochs is deprecated; use --max-epochs instead." in old_err
    assert "warning: --shuffle is deprecated; use --order shuffle instead." in old_err
    assert old_out.replace("old.json", "new.json") == new_out
    runs = [MachineRun.load(tmp_path / f"{n}.json") for n in ("new", "old")]
    assert np.array_equal(runs[0].weights, runs[1].weights)
    with pytest.raises(SystemExit):
        main(["machine", "train", "--help"])
    text = capsys.readouterr().out
    assert "--max-epochs" in text and "--order" in text
    assert "--epochs" not in text and "--shuffle" not in text
