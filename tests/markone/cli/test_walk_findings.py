"""Findings of the new user's second walk (issue 37): each message names the problem
and a remedy that works for the option or command at hand."""

from __future__ import annotations

import re
import shlex

import pytest

from markone.cli import main


@pytest.mark.parametrize("argv", [
    ["machine", "replay", "run.json", "--html", ""],
    ["machine", "train", "--out", ""],
    ["train", "xor", "--json", ""],
], ids=lambda argv: argv[-2])
def test_an_empty_output_path_is_told_to_name_a_file_not_result_json(
        argv, capsys, tmp_path, monkeypatch):
    """``--html ''`` was told "e.g. result.json", a name no page should have."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {argv[-2]}: the output file name is empty" in err
    assert "result.json" not in err


@pytest.mark.parametrize("argv", [["machine", "replay", "RUN", "--html", "page.html"],
                                  ["verify", "drift", "RUN", "--rate", "0.01"]],
                         ids=" ".join)
def test_the_remedy_for_a_missing_run_records_one_the_reader_can_use(
        argv, capsys, tmp_path, monkeypatch):
    """The remedy was ``machine train --out`` without ``--log``: its run cannot be
    replayed. The command the message gives is run here, then the reader again."""
    monkeypatch.chdir(tmp_path)
    argv = [a.replace("RUN", "missing.json") for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "no such run file: missing.json" in err
    remedy = re.search(r"`(markone [^`]+)`", err).group(1)
    assert main(shlex.split(remedy.replace("RUN.json", "missing.json"))[1:]) == 0
    capsys.readouterr()
    assert main(argv) == 0
