"""``markone machine show RUN.json``: a saved run in words, and bad files refused."""

from __future__ import annotations

import json

import pytest

from markone.cli import main
from markone.hardware import MachineRun, MarkI, MarkIParams
from markone.hardware.faults import AUnitStuck, FaultPlan, apply_faults
from markone.hardware.show import describe_run
from markone._figures import letters


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    images, labels = letters("AB", per_class=2, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-1, 1)), seed=0)
    apply_faults(machine, FaultPlan((AUnitStuck(3, 1),)))
    run = machine.train(images, labels, log=True)
    return run, run.save(tmp_path_factory.mktemp("show") / "run.json")


def test_show_prints_the_saved_run(saved, capsys):
    run, path = saved
    assert main(["machine", "show", str(path)]) == 0
    out = capsys.readouterr().out
    assert out == describe_run(MachineRun.load(path)) + "\n"
    lines = out.splitlines()
    assert lines[1] == "parameters: the defaults except weight_range=(-1, 1)"
    assert lines[2] == "faults: A-unit 4 stuck on"   # a_unit 3
    assert lines[3].startswith(f"training: {run.epochs} passes (converged), "
                               f"{run.n_presentations} presentations, machine time "
                               f"{run.sim_time_s:.1f} s")
    passes = lines[5:5 + run.epochs]
    assert [tuple(map(int, row.split()[:3])) for row in passes] == [
        (k + 1, m, e) for k, (m, e) in enumerate(zip(run.mistakes_per_epoch,
                                                     run.errors_per_epoch))]
    r_rows = lines[6 + run.epochs:6 + run.epochs + 8]
    for r, row in enumerate(r_rows):
        name, mistakes, reinforced, blocked, span, nonzero, at_stop = row.split()
        w = run.weights[r]
        assert (name, int(mistakes), int(blocked)) == (f"R{r + 1}", run.mistakes[r],
                                                       run.saturated[r])
        assert span == f"{w.min():g}..{w.max():g}"
        assert (int(nonzero), int(at_stop)) == (int((w != 0).sum()),
                                                int((abs(w) == 1).sum()))
    assert lines[-1] == f"log: {len(run.log)} presentations (`markone machine replay` " \
                        "shows them)"


SAVED_BY = ("; a Mark I run is what `markone machine train --out RUN.json` writes (the "
            "demo's is machine-run.json).")


@pytest.mark.parametrize("content, message", [
    (None, "no such run file: {path}" + SAVED_BY),
    ("{", "{path} is not valid JSON: it ends inside a value, an array or an object (is "
     "it truncated?)" + SAVED_BY),
    ('{"codes": [\n  [\n    -', "(is it truncated?)" + SAVED_BY),
    ("x1,x2,label\n0,1,a\n", "{path} is not valid JSON: it starts with 'x1,x2,label', "
     "not { or [" + SAVED_BY),     # it said "... line 1 column 1 (char 0)"
    ('{"a": 1,, "b": 2}', "{path} is not valid JSON: Expecting property name enclosed in "
     "double quotes at line 1, column 9" + SAVED_BY),
    ('{"format": "markone-certificate"}', "is not a Mark I run: format is "
     "'markone-certificate', expected 'markone-machine-run'" + SAVED_BY),
])
def test_show_refuses_what_is_not_a_run(content, message, tmp_path, capsys):
    """One line naming the file, what is wrong with it (lines and columns from 1)
    and where runs come from."""
    path = tmp_path / "x.json"
    if content is not None:
        path.write_text(content)
    assert main(["machine", "show", str(path)]) == 2
    err = capsys.readouterr().err
    assert message.replace("{path}", str(path)) in err and err.count("\n") == 1
    assert "char" not in err


def test_show_names_the_missing_field_of_a_damaged_run(saved, tmp_path, capsys):
    data = json.loads(saved[1].read_text())
    del data["weights_final"]
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(data))
    assert main(["machine", "show", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"markone machine show: error: {path} is a damaged Mark I run: its field "
        "'weights_final' is missing; save the run again (MachineRun.save).\n")


def test_a_fleet_prints_a_table_per_varied_parameter_with_what_differs(capsys):
    # two settings of the motors' speed: the machine time differs, and shows; narrow
    # end stops block moves
    assert main(["machine", "fleet", "--machines", "2", "--presentations", "30",
                 "--chars", "ABC", "--vary", "motor_step_s=[0.1, 0.5]", "--vary",
                 "weight_range=[[-50, 50], [-1, 1]]"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["motor_step_s", "machines", "accuracy", "R-unit",
                                "mistakes", "blocked", "moves", "machine", "time", "(s)"]
    fast, slow = (float(lines[k].split()[-1]) for k in (2, 3))
    assert lines[2].split()[:2] == ["0.1", "4"] and slow > fast
    assert lines[4] == "differs with motor_step_s: machine time (s)"
    assert lines[5].startswith("weight_range")
    assert lines[6].split()[:3] == ["(-50,", "50)", "4"]
    assert lines[8].startswith("differs with weight_range: ")
    assert "blocked moves" in lines[8]
