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
