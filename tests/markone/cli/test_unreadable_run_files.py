"""A file that is not a run, met on the new user's walk (issue 37): a folder, a binary
file, an empty file or a tampered format version is named with what it is, never with
a bare ``[Errno 21] Is a directory``, a codec's message that leaves out the file, or
advice to upgrade markone that cannot help."""

from __future__ import annotations

import json

import pytest

from markone.cli import main
from markone.hardware import MarkI
from markone.datasets import letters

READERS = [["machine", "show"], ["machine", "replay"], ["verify", "drift"]]
EXTRA = {"replay": ["--html", "page.html"], "drift": ["--rate", "0.01"]}


def _run(argv, path, monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)
    assert main([*argv, str(path), *EXTRA.get(argv[1], [])]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "[Errno" not in err and "codec" not in err
    assert not (tmp_path / "page.html").exists()
    return err


@pytest.mark.parametrize("argv", READERS, ids=" ".join)
def test_a_folder_is_called_a_folder(argv, tmp_path, monkeypatch, capsys):
    (tmp_path / "runs").mkdir()
    err = _run(argv, "runs", monkeypatch, tmp_path, capsys)
    assert "runs is a folder; give the path of a JSON file in it" in err


@pytest.mark.parametrize("argv", READERS, ids=" ".join)
def test_a_binary_file_is_called_not_a_text_file(argv, tmp_path, monkeypatch, capsys):
    (tmp_path / "run.json").write_bytes(b'{"format": "\xff\xfe"}')
    err = _run(argv, "run.json", monkeypatch, tmp_path, capsys)
    assert "run.json is not a text file (byte 12 is not UTF-8), so not JSON" in err


@pytest.mark.parametrize("argv", READERS, ids=" ".join)
def test_an_empty_file_is_called_empty(argv, tmp_path, monkeypatch, capsys):
    (tmp_path / "run.json").write_text("")
    err = _run(argv, "run.json", monkeypatch, tmp_path, capsys)
    assert "run.json is empty, so not JSON" in err


@pytest.mark.parametrize("version", [float("nan"), "4", 0, -1, 2.0, True])
def test_a_tampered_version_is_damage_not_a_newer_format(version, tmp_path,
                                                         monkeypatch, capsys):
    """``"version": NaN`` was told to "upgrade markone to read it"."""
    images, labels = letters("AB", per_class=1, seed=0)
    run = MarkI(seed=0).train(images, labels, max_epochs=2)
    data = json.loads(run.save(tmp_path / "good.json").read_text())
    (tmp_path / "run.json").write_text(json.dumps(dict(data, version=version)))
    err = _run(["machine", "show"], "run.json", monkeypatch, tmp_path, capsys)
    assert f"run.json is a damaged Mark I run: its format version is {version!r}" in err
    assert "upgrade" not in err


def _tampered(data, field, value):
    data = json.loads(json.dumps(data))
    data[field] = value
    return data


@pytest.mark.parametrize("field, value, said", [
    ("weights_final", [[1e400]], "weights_final has shape (1, 1), but its machine has "
                                 "8 R-units x 512 A-units"),
    ("weights_initial", [[float("nan")] * 512] * 8,
     "weights_initial holds a weight that is not a finite number"),
    ("epochs", -3, "epochs is -3, not a count"),
    ("n_presentations", 2.5, "n_presentations is 2.5, not a count"),
    ("seed", "abc", "seed is 'abc', not a seed"),
    ("mistakes_per_epoch", [1], "mistakes_per_epoch has 1 entries, one per pass, but "
                                "the run made 2 passes"),
    ("mistakes", [1, 2], "mistakes has 2 entries, but its machine has 8 R-units")])
def test_a_run_edited_by_hand_is_damage_not_a_table_of_nonsense(field, value, said,
                                                                tmp_path, monkeypatch,
                                                                capsys):
    """The walk of issue 37: `machine show` printed "-3 passes (converged)", a seed
    'abc', and one R-unit with weights inf..inf from a run edited by hand."""
    images, labels = letters("AB", per_class=1, seed=0)
    run = MarkI(seed=0).train(images, labels, max_epochs=2)
    data = json.loads(run.save(tmp_path / "good.json").read_text())
    assert data["epochs"] == 2
    (tmp_path / "run.json").write_text(json.dumps(_tampered(data, field, value)))
    for command in ("show", "replay"):   # replay wrote a page of such a run
        err = _run(["machine", command], "run.json", monkeypatch, tmp_path, capsys)
        assert f"run.json is a damaged Mark I run: {said}" in err
