"""``markone verify tolerance`` (issue 42): the per-R-unit table of a trained machine,
from the letters options or a saved run, its report written with --json and
re-checked with --recheck: exit 0 confirmed, 1 a forged tolerance or witness set
refuted (with the reason), 2 malformed evidence or bad input."""

import json

import pytest

from markone.cli import main

TASK = ["letters", "--chars", "AB", "--per-class", "2", "--weight-range", "3"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("tolerance") / "report.json"
    assert main(["verify", "tolerance", *TASK, "--json", str(path)]) == 0
    return path


def test_the_table_and_the_report(report, capsys):
    assert main(["verify", "tolerance", *TASK]) == 0
    out = capsys.readouterr().out
    assert "R-unit  tolerance  whole steps  stops cap it  dead  stuck at 1" in out
    assert "R1: every potentiometer" in out and "makes it tie" in out
    d = json.loads(report.read_text())
    assert d["worst_case"]["holds"] is True and len(d["worst_case"]["evidence"]
                                                    ["r_units"]) == 8


def test_recheck_confirms(report, capsys):
    assert main(["verify", "tolerance", *TASK, "--recheck", str(report)]) == 0
    assert "worst_case    confirmed  every witness re-run" in capsys.readouterr().out


def forge(report, tmp_path, change):
    d = json.loads(report.read_text())
    change(d["worst_case"]["evidence"]["r_units"][0])
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(d))
    return str(path)


def test_a_forged_tolerance_exits_1_with_the_reason(report, tmp_path, capsys):
    path = forge(report, tmp_path, lambda u: u.update(tolerance="1/1000000"))
    assert main(["verify", "tolerance", *TASK, "--recheck", path]) == 1
    line = [x for x in capsys.readouterr().out.splitlines()
            if x.startswith("worst_case")][0]
    assert "refuted" in line and "leaves it right" in line


def test_a_forged_witness_set_exits_1(report, tmp_path, capsys):
    d = json.loads(report.read_text())
    u = d["worst_case"]["evidence"]["r_units"][0]
    fake = [j for j in range(512) if j not in u["dead_units"]][:len(u["dead_units"])]
    path = forge(report, tmp_path, lambda u: u.update(dead_units=fake))
    assert main(["verify", "tolerance", *TASK, "--recheck", path]) == 1
    assert "worst_case    refuted" in capsys.readouterr().out


def test_malformed_evidence_exits_2(report, tmp_path, capsys):
    path = forge(report, tmp_path, lambda u: u.update(tolerance="a half"))
    assert main(["verify", "tolerance", *TASK, "--recheck", path]) == 2
    err = capsys.readouterr().err
    assert "tolerance must be an exact number" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("machine", [[], ["--dead-a-units", "0.3", "--topology",
                                            "source_sets"]], ids=["healthy", "damaged"])
def test_a_saved_run(tmp_path, capsys, machine):
    """A run's machine, faults, source sets and weights give the table that training
    the same machine gives."""
    run = tmp_path / "run.json"
    task = ["--chars", "AB", "--per-class", "2", *machine]
    assert main(["machine", "train", *task, "--log", "--out", str(run)]) == 0
    capsys.readouterr()
    assert main(["verify", "tolerance", str(run)]) == 0
    from_run = capsys.readouterr().out
    assert main(["verify", "tolerance", "letters", *task]) == 0
    trained = capsys.readouterr().out
    assert from_run == trained.split("\n", 1)[1]    # the same machine, same table
    assert main(["verify", "tolerance", str(run), "--chars", "AB"]) == 2
    assert "apply to the letters task only" in capsys.readouterr().err


def test_verify_machine_on_a_saved_run_speaks_of_the_machine_as_it_ended(tmp_path,
                                                                          capsys):
    # `verify machine RUN.json` said "the machine has no faults" of a run with dead
    # A-units, and "untrained" of its trained weights: it checked the run's fresh
    # machine (#37); now the machine verify tolerance reads, and the same worst case
    run = tmp_path / "run.json"
    task = ["--chars", "AB", "--per-class", "2", "--dead-a-units", "0.3"]
    assert main(["machine", "train", *task, "--log", "--out", str(run)]) == 0
    capsys.readouterr()
    main(["verify", "machine", str(run), "--json", str(tmp_path / "report.json")])
    out = capsys.readouterr().out
    assert "the machine has no faults" not in out and "untrained" not in out
    assert "worst_case: yes [exact worst case" in out
    report = json.loads((tmp_path / "report.json").read_text())
    assert main(["verify", "tolerance", str(run), "--recheck",
                 str(tmp_path / "report.json")]) == 0
    assert report["worst_case"]["holds"] is True


def test_a_missing_run_exits_2(tmp_path, capsys):
    assert main(["verify", "tolerance", str(tmp_path / "none.json")]) == 2
    assert "is not a file" in capsys.readouterr().err


def test_an_answer_still_wrong_exits_1(capsys):
    assert main(["verify", "tolerance", "letters", "--chars", "ABCDEFGH",
                 "--max-epochs", "1"]) == 1
    assert "already answers" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["machine", "tolerance"])
def test_json_with_recheck_is_refused_not_dropped(command, report, tmp_path, capsys):
    # `--recheck report.json --json new.json` re-checked and never wrote new.json,
    # without a word: a requested file lost (#37)
    new = tmp_path / "new.json"
    assert main(["verify", command, *TASK, "--recheck", str(report), "--json",
                 str(new)]) == 2
    assert capsys.readouterr().err.endswith(
        f"error: --json {new} writes a new report and --recheck {report} checks a "
        "saved one: give one of the two.\n")
    assert not new.exists()
