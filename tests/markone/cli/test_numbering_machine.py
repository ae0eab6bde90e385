"""The Mark I's parts and figures under the one numbering convention (issue 37).

docs/command-line.md, "How things are numbered": in words a photocell, an S-unit, an
A-unit and a figure count from 1 (A-unit 1 is the first, as R1 is the first R-unit);
the JSON fields of fault plans, runs and reports (``cell``, ``s_unit``, ``a_unit``,
``figure``) count from 0. Each case puts the culprit at a known part and scans the
whole text: every part it names, in either form, must be that part, and one must.
(The console's A-unit box and wire menu: ``test_console_browser.py``.)
"""

from __future__ import annotations

import json
import re

from markone.cli import main
from markone.hardware import MarkI
from markone.hardware.faults import AUnitStuck, CutWire, FaultPlan, PhotocellStuck

#: "A-unit 4", "S-units 3 and 5" (from 1) and "a_unit=3", '"a_unit": 3' (from 0)
WORD = re.compile(r"\b(photocell|S-unit|A-unit|figure)s? (\d+)")
FIELD = re.compile(r"\b(cell|s_unit|a_unit|figure)\"?(?:=|: )(\d+)")
KIND = {"cell": "photocell", "s_unit": "S-unit", "a_unit": "A-unit", "figure": "figure"}


def parts_named(text):
    """``{(kind, number counted from 1)}`` of every part ``text`` names."""
    named = {(word, int(n)) for word, n in WORD.findall(text)}
    return named | {(KIND[field], int(i) + 1) for field, i in FIELD.findall(text)}


def assert_parts(text, **expected):
    """Every part ``text`` names is among ``expected`` (kind -> numbers from 1; the
    keyword is the kind with ``-`` as ``_``: ``A_unit={1}``)."""
    allowed = {(kind.replace("_", "-"), n) for kind, ns in expected.items() for n in ns}
    named = parts_named(text)
    assert named, f"names no part: {text!r}"
    assert named <= allowed, (named - allowed, text)


def plan_file(tmp_path, *faults):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(FaultPlan(faults).to_dict()))
    return str(path)


def test_faults_on_the_first_parts_are_named_from_one(tmp_path, capsys):
    s = int(MarkI(seed=0).wiring.inputs[1][0])        # a wire of the second A-unit
    plan = plan_file(tmp_path, AUnitStuck(0, 1), PhotocellStuck(0, 1), CutWire(1, s))
    run = tmp_path / "run.json"
    status = main(["machine", "train", "--chars", "AB", "--per-class", "1",
                   "--max-epochs", "1", "--faults", plan, "--out", str(run)])
    out = capsys.readouterr().out
    assert status in (0, 1)
    line = out.splitlines()[0]
    assert line == (f"faults: A-unit 1 stuck on; photocell 1 stuck lit; "
                    f"wire (S-unit {s + 1}, A-unit 2) cut")
    assert_parts(line, A_unit={1, 2}, photocell={1}, S_unit={s + 1})
    assert main(["machine", "show", str(run)]) == 0
    shown = capsys.readouterr().out
    faults = next(ln for ln in shown.splitlines() if ln.startswith("faults:"))
    assert_parts(faults, A_unit={1, 2}, photocell={1}, S_unit={s + 1})


def test_a_wire_that_is_not_there_is_named_both_ways(tmp_path, capsys):
    wired = MarkI(seed=0).wiring.inputs[0]
    s = next(k for k in range(400) if k not in wired)   # not wired to the first A-unit
    plan = plan_file(tmp_path, CutWire(0, s))
    assert main(["machine", "train", "--chars", "AB", "--faults", plan]) == 2
    err = capsys.readouterr().err
    assert f"no wire runs from S-unit {s + 1} to A-unit 1 (s_unit={s}, a_unit=0)" in err
    first = err.split(";")[0]          # what follows lists the s_unit of its wires
    assert_parts(first, A_unit={1}, S_unit={s + 1})


def test_verify_machine_names_the_first_figure_figure_1(tmp_path, capsys):
    report = tmp_path / "report.json"
    status = main(["verify", "machine", "letters", "--chars", "AB", "--per-class", "2",
                   "--exposure", "0.01", "--json", str(report)])
    out = capsys.readouterr().out
    timing = json.loads(report.read_text())["timing"]
    assert status == 0 and timing["holds"] is False   # learnable: exit 0
    assert timing["evidence"]["before"] is None and timing["evidence"]["figure"] == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("timing:"))
    assert "after the dark start, figure 1 fires" in line
    assert_parts(line, figure={1})
