"""The Mark I speaks the core's vocabulary (issue 11): ``max_epochs=``,
``order="given"|"shuffle"|stream``, ``seed=``, ``mistakes_per_epoch``. The old
spellings (``epochs=``, ``shuffle=``, ``epoch_mistakes``, ``--epochs``, ``--shuffle``)
are gone before 1.0 (issue 40) and are refused like any unknown name; run files of
format version 1 still load."""

import json
import warnings

import numpy as np
import pytest

from markone.datasets import letters
from markone.cli import main
from markone.hardware import MachineRun, MarkI, MarkIParams
from markone.hardware.demo import letters_demo, navy_comparison, navy_sweep

IMAGES, LABELS = letters("ABC", per_class=2, seed=0)
PARAMS = MarkIParams(photocell_noise_sd=0.1)   # noise: the shuffles share its generator


def same_run(a, b):
    return (np.array_equal(a.weights, b.weights) and a.log == b.log
            and a.mistakes_per_epoch == b.mistakes_per_epoch
            and a.errors_per_epoch == b.errors_per_epoch
            and a.end_s_per_epoch == b.end_s_per_epoch)


@pytest.mark.parametrize("old", ["epochs", "shuffle"])
def test_old_train_keywords_are_refused(old):
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{old}'"):
        MarkI(PARAMS, seed=4).train(IMAGES, LABELS, **{old: 3})


def test_order_none_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match="order must be 'given', 'shuffle'"):
        MarkI(PARAMS, seed=4).train(IMAGES, LABELS, order=None)


def test_new_keywords_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MarkI(seed=0).train(IMAGES, LABELS, max_epochs=2, order="shuffle", seed=1)
        MarkI(seed=0).train(IMAGES, LABELS, max_epochs=2, order=[5, 0, 3])


def test_old_run_attributes_are_gone_and_the_new_count_mistakes_per_pass():
    run = MarkI(seed=0).train(IMAGES, LABELS, max_epochs=4, log=True)
    for old in ("epoch_mistakes", "epoch_errors", "epoch_end_s"):
        assert not hasattr(run, old)
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


def test_demos_take_max_epochs_and_refuse_the_old_keyword(tmp_path):
    run = letters_demo(tmp_path / "b", chars="AB", per_class=2, max_epochs=1, figures=False)
    assert run["epochs"] == 1
    for demo in (letters_demo, navy_comparison, navy_sweep):
        args = (tmp_path / "a",) if demo is letters_demo else ()
        with pytest.raises(TypeError, match="unexpected keyword argument 'epochs'"):
            demo(*args, epochs=1)


def run_cli(argv, capsys):
    try:
        status = main([str(a) for a in argv])
    except SystemExit as stop:   # argparse's refusal of an unknown flag
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_flags_max_epochs_and_order_and_the_old_flags_refused(tmp_path, capsys):
    base = ["machine", "train", "--chars", "AB", "--per-class", "2", "--noise", "0.1"]
    status, _, err = run_cli(base + ["--max-epochs", "2", "--order", "shuffle",
                                     "--out", tmp_path / "new.json"], capsys)
    assert status == 0 and err == ""
    assert MachineRun.load(tmp_path / "new.json").epochs <= 2
    for old in (["--epochs", "2"], ["--shuffle"]):
        status, _, err = run_cli(base + old + ["--out", tmp_path / "old.json"], capsys)
        assert status == 2 and f"unrecognized arguments: {' '.join(old)}" in err
    assert not (tmp_path / "old.json").exists()
    for command in (["machine", "demo", "letters", "--epochs", "1"], ["machine", "navy", "--epochs", "1"],
                    ["verify", "machine", "letters", "--time-budget", "1"]):
        status, _, err = run_cli(command, capsys)
        assert status == 2 and "unrecognized arguments" in err, command
    with pytest.raises(SystemExit):
        main(["machine", "train", "--help"])
    text = capsys.readouterr().out
    assert "--max-epochs" in text and "--order" in text
    assert "--epochs" not in text and "--shuffle" not in text
