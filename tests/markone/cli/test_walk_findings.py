"""Findings of the new user's second walk (issue 37): each message names the problem
and a remedy that works for the option or command at hand."""

from __future__ import annotations

import json
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


@pytest.mark.parametrize("second", [
    {"kind": "AUnitStuck", "a_unit": 4},
    {"kind": "AUnitStuck", "a_unit": 4, "value": 1},
])
def test_a_fault_plan_setting_one_part_twice_at_once_is_refused_naming_both(
        second, capsys, tmp_path, monkeypatch):
    """A-unit 4 stuck on and dead at 0 s was accepted, the last entry winning."""
    monkeypatch.chdir(tmp_path)
    plan = {"faults": [{"kind": "AUnitStuck", "a_unit": 4, "value": 1},
                       {"kind": "CutWire", "a_unit": 0, "s_unit": 0, "at_s": 1.0},
                       second]}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    assert main(["machine", "train", "--faults", "plan.json"]) == 2
    err = capsys.readouterr().err
    assert "faults[0] (A-unit 5 stuck on) and faults[2] (" in err
    assert "the same part at the same time" in err


def test_one_part_broken_at_two_times_is_still_a_plan(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plan = {"faults": [{"kind": "AUnitStuck", "a_unit": 4, "value": 1},
                       {"kind": "AUnitStuck", "a_unit": 4, "at_s": 2.0}]}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    assert main(["machine", "train", "--faults", "plan.json"]) == 0


@pytest.mark.parametrize("option", [["--shapes", "1000"], ["--per-class", "400"]])
def test_training_that_cannot_fit_is_refused_up_front_naming_option_and_size(
        option, capsys, tmp_path, monkeypatch):
    """``--shapes 99999999`` grew silently towards tens of GB; the same estimate at a
    budget of 10 MB refuses a thousand figures before one is drawn."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("markone._figures.shapes", None)   # never reached
    monkeypatch.setattr("markone._figures.letters", None)
    assert main(["machine", "train", *option, "--max-memory", "0.01"]) == 2
    err = capsys.readouterr().err
    assert f"{' '.join(option)} (training on " in err
    assert "GB of memory, more than --max-memory 0.01 allows" in err


def test_a_fleet_lets_each_machine_go_once_it_is_scored(monkeypatch):
    """A fleet of 20,000 machines peaked at 4.2 GB: every trained machine was kept
    until the last one was scored. Now at most the one being scored is alive."""
    import gc
    import weakref

    from markone._figures import letters
    from markone.hardware import MachineSpec, MarkI, run_fleet

    alive: weakref.WeakSet = weakref.WeakSet()
    most = []
    train, accuracy = MarkI.train, MarkI._accuracy

    def tracked_train(self, *args, **kwargs):
        alive.add(self)
        return train(self, *args, **kwargs)

    def counted_accuracy(self, *args):
        gc.collect()
        most.append(len(alive))
        return accuracy(self, *args)

    monkeypatch.setattr(MarkI, "train", tracked_train)
    monkeypatch.setattr(MarkI, "_accuracy", counted_accuracy)
    images, labels = letters("AB", per_class=2, seed=0)
    fleet = run_fleet(MachineSpec.grid(range(6)), images, labels, presentations=8)
    assert len(most) == len(fleet) == 6 and max(most) == 1


def test_a_long_fleet_shows_progress_and_keeps_summaries_not_runs(
        capsys, tmp_path, monkeypatch):
    """``machine fleet --machines 20000`` ran 42 s silent, one task holding every run.
    Trained slice by slice, it moves a bar per slice and keeps a summary a machine;
    table and file are those of the fleet trained in one call."""
    import markone._internal.progress as progress
    import markone.cli.machine as machine_cli

    monkeypatch.chdir(tmp_path)
    argv = ["machine", "fleet", "--machines", "5", "--presentations", "8",
            "--chars", "AB"]
    assert main([*argv, "--out", "whole.json"]) == 0
    whole = capsys.readouterr().out
    moves = []

    class Bar(progress.QuietBar):
        def update(self, n=1):
            moves.append(n)

    monkeypatch.setattr(progress, "progress_bar", lambda total, *a, **k: Bar())
    monkeypatch.setattr(machine_cli, "FLEET_SLICE", 2)
    assert main([*argv, "--out", "sliced.json"]) == 0
    assert capsys.readouterr().out == whole.replace("whole.json", "sliced.json")
    assert (tmp_path / "sliced.json").read_text() == (tmp_path / "whole.json").read_text()
    assert moves == [2, 2, 1]
