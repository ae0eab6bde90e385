"""verify.machine.recheck_report: a machine report re-checked from its evidence.

Genuine reports (also after a JSON round trip) re-check with no claim refuted; every
kind of tampering with the evidence (a witness, a certificate, a stream, a cycle, a
centre, a bound), or a report about other figures or another machine, is caught.
"""

import copy
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams, r_unit_name
from _machines import ball_report
from verify.machine import check_machine, recheck_report

#: The re-checks of the report's own fields and of the claims about the whole machine.
WHOLE_MACHINE = {**dict.fromkeys(("report", "timing", "quantisation", "faults"),
                                 "confirmed"),
                 "worst_case": "unchecked"}   # an untrained machine: not assessed
TWO_CELLS = dict(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                 max_fanout=1, theta=1, n_r_units=1)


@pytest.fixture(scope="module")
def tight():
    """Six letters at +/-2 steps: witnesses, streams reaching a stop, clipped balls,
    one-signed columns."""
    images, labels = letters("ABCDEF", per_class=2, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-2, 2)), seed=0)
    report = json.loads(json.dumps(check_machine(machine, images, labels,
                                                 orders=2).to_dict()))
    return machine, images, labels, report


@pytest.fixture(scope="module")
def ideal():
    """Four letters on the default machine: Novikoff's bounds fit inside the stops."""
    images, labels = letters("ABCD", per_class=3, seed=0)
    machine = MarkI(seed=0)
    return machine, images, labels, check_machine(machine, images, labels).to_dict()


@pytest.fixture(scope="module")
def blocked():
    """Six letters at +/-1 step: a stream on which R2 never learns."""
    images, labels = letters("ABCDEF", per_class=3, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-1, 1)), seed=0)
    report = check_machine(machine, images, labels, orders=2).to_dict()
    return machine, images, labels, report


def statuses(checks):
    return {c.claim: c.status for c in checks}


def test_genuine_reports_recheck(tight, blocked):
    machine, images, labels, report = tight
    before = machine.weights.copy()
    s = statuses(recheck_report(report, machine, images, labels))
    assert np.array_equal(machine.weights, before)         # the machine is untouched
    assert "refuted" not in s.values()
    assert all(s[f"{r_unit_name(r)} learnable"] == "confirmed" for r in range(8))
    methods = {f"{r_unit_name(r['r_unit'])} {k}": r[k]["method"]
               for r in report["r_units"]
               for k in ("end_stops", "converges")}
    confirmed = {k for k, v in s.items() if v == "confirmed"}
    assert {k for k, m in methods.items() if m == "clipped Novikoff ball"} <= confirmed
    assert {k for k, m in methods.items() if m == "one-signed columns"} <= confirmed
    assert {k for k, m in methods.items() if "gamma" in m} <= confirmed
    assert any(r["end_stops"]["holds"] is False for r in report["r_units"])
    machine, images, labels, report = blocked
    s = statuses(recheck_report(report, machine, images, labels))
    assert "refuted" not in s.values()
    assert s["R2 converges"] == "confirmed"
    assert report["r_units"][1]["converges"]["holds"] is False


def tamper(report, r, claim, change):
    out = copy.deepcopy(report)
    change(out["r_units"][r][claim]["evidence"])
    return out


def first(report, claim, holds, method=None):
    return next(r["r_unit"] for r in report["r_units"] if r[claim]["holds"] is holds
                and (method is None or r[claim]["method"] == method))


def negate_first(key):
    def change(ev):
        ev[key][0] = str(-int(ev[key][0]) - 1)
    return change


@pytest.mark.parametrize("what", ["witness", "stream", "centre", "bound", "a_units",
                                  "missing", "not a number", "direction", "margin",
                                  "radius"])
def test_tampered_evidence_is_refuted(request, what):
    novikoff = what in ("direction", "margin", "radius")
    machine, images, labels, report = request.getfixturevalue(
        "ideal" if novikoff else "tight")
    ball = hit = None
    if novikoff:     # R1's end stops on ABCD: Novikoff's bound from the margin
        assert report["r_units"][0]["end_stops"]["method"].endswith("(R/gamma)^2")
    else:
        ball = first(report, "converges", True, "clipped Novikoff ball")
        hit = first(report, "end_stops", False)
    r, claim, change = {
        "direction": (0, "end_stops", lambda ev: ev.update(
            margin_direction=[-v for v in ev["margin_direction"]])),
        "margin": (0, "end_stops", lambda ev: ev.update(
            gamma_lower=2 * ev["gamma_lower"])),
        "radius": (0, "end_stops", lambda ev: ev.update(R_sq=ev["R_sq"] - 1)),
        "witness": (0, "learnable", lambda ev: ev.update(
            witness=[str(-int(v)) for v in ev["witness"]])),
        "stream": (hit, "end_stops", lambda ev: ev["stream"].pop()),
        "centre": (ball, "converges", lambda ev: ev["center_numerators"].__setitem__(
            slice(None), [-v for v in ev["center_numerators"]])),
        "bound": (ball, "converges", lambda ev: ev.update(
            reinforcement_bound=ev["reinforcement_bound"] - 1)),
        "a_units": (0, "learnable", lambda ev: ev["a_units"].pop()),
        "missing": (ball, "converges", lambda ev: ev.pop("center_denominator")),
        "not a number": (0, "learnable", lambda ev: ev["witness"].__setitem__(0, "x")),
    }[what]
    if what == "not a number":     # a wrong type is refused as malformed (exit 2)
        with pytest.raises(ValueError, match="witness must be a list of exact"):
            recheck_report(tamper(report, r, claim, change), machine, images, labels)
        return
    if what == "missing":   # a field its kind requires: malformed too (issue 46)
        with pytest.raises(ValueError, match="lacks the evidence field "
                                             "'center_denominator'"):
            recheck_report(tamper(report, r, claim, change), machine, images, labels)
        return
    s = statuses(recheck_report(tamper(report, r, claim, change), machine, images,
                                labels))
    assert s[f"{r_unit_name(r)} {claim}"] == "refuted"
    assert list(s.values()).count("refuted") == 1
    if novikoff:     # what followed from it is no longer confirmed either
        assert s["R1 converges"] == "unchecked"


def test_tampered_cycles_are_refuted(blocked):
    machine, images, labels, report = blocked
    r = first(report, "converges", False)
    for change in (lambda ev: ev["cycle"].remove(ev["cycle"][0]),   # not fair
                   lambda ev: ev.update(prefix=[]),                  # not on the cycle
                   lambda ev: ev.update(cycle=ev["cycle"][::-1])):
        s = statuses(recheck_report(tamper(report, r, "converges", change), machine,
                                    images, labels))
        assert s[f"{r_unit_name(r)} converges"] == "refuted"


def test_a_certificate_of_impossibility_rechecks_and_tampering_is_caught():
    # figure "a" lights nothing the R-unit sees after a dead A-unit: not learnable
    from markone.hardware.faults import AUnitStuck, FaultPlan, apply_faults

    machine = MarkI(MarkIParams(**TWO_CELLS), seed=0)
    apply_faults(machine, FaultPlan((AUnitStuck(0, value=0),)))
    figures, labels = np.array([[1, 0], [0, 1]]), ["a", "b"]
    report = check_machine(machine, figures, labels).to_dict()
    assert report["r_units"][0]["learnable"]["holds"] is False
    s = statuses(recheck_report(report, machine, figures, labels))
    assert s["R1 learnable"] == "confirmed"
    for change in (lambda ev: ev.update(certificate={}),
                   lambda ev: ev.update(certificate={k: "-1" for k in ev["certificate"]}),
                   lambda ev: ev.update(certificate={"0": "1", "1": "1"}),
                   lambda ev: ev.update(certificate={"7": "1"})):
        bad = tamper(report, 0, "learnable", change)
        assert statuses(recheck_report(bad, machine, figures, labels))[
            "R1 learnable"] == "refuted"


def test_a_report_about_other_figures_or_another_machine_is_refused(tight):
    machine, images, labels, report = tight
    with pytest.raises(ValueError, match="other figures or labels"):
        recheck_report(report, machine, images[::-1], labels[::-1])
    with pytest.raises(ValueError, match="another machine"):
        recheck_report(report, MarkI(MarkIParams(weight_range=(-2, 2)), seed=1),
                       images, labels)
    with pytest.raises(ValueError, match="not a machine report"):
        recheck_report({"format": "markone.certificate/3"}, machine, images, labels)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_any_changed_witness_entry_is_caught_or_harmless_hypo(tight, data):
    # one witness entry changed: confirmed exactly when the changed witness still
    # answers every figure (evaluated here in Fractions), else refuted; never a crash
    from fractions import Fraction

    from verify.machine import machine_task

    machine, images, labels, report = tight
    r = data.draw(st.integers(0, 7))
    ev = report["r_units"][r]["learnable"]["evidence"]
    j = data.draw(st.integers(0, len(ev["witness"]) - 1))
    value = data.draw(st.fractions(min_value=-10**6, max_value=10**6,
                                   max_denominator=50))
    bad = tamper(report, r, "learnable",
                 lambda e: e["witness"].__setitem__(j, str(value)))
    task = machine_task(machine, images, labels)
    w = [Fraction(v) for v in bad["r_units"][r]["learnable"]["evidence"]["witness"]]
    X = task.patterns[:, task.inputs[r]]
    answers = all(int(t) * sum(int(x) * v for x, v in zip(row, w) if x) > 0
                  for t, row in zip(task.targets[:, r], X))
    s = statuses(recheck_report(bad, machine, images, labels))
    s = s[f"{r_unit_name(r)} learnable"]
    assert s == ("confirmed" if answers else "refuted")


def test_26_letters_rechecks(letters26):
    images, labels, report = letters26  # (tests/verify/machine/conftest.py)
    s = statuses(recheck_report(report, MarkI(seed=0), images, labels))
    assert [s[f"{r_unit_name(r)} converges"] for r in range(5)] == ["confirmed"] * 5
    assert [s[f"{r_unit_name(r)} end_stops"] for r in range(4)] == ["confirmed"] * 4
    assert "refuted" not in s.values()


def test_cli_recheck(tmp_path, capsys):
    from markone.cli import main

    task = ["verify", "machine", "letters", "--chars", "ABC", "--per-class", "2",
            "--weight-range", "2"]
    path = tmp_path / "report.json"
    assert main([*task, "--json", str(path)]) in (0, 1, 4)
    capsys.readouterr()
    assert main([*task, "--recheck", str(path)]) == 0
    out = capsys.readouterr().out
    assert "0 refuted" in out and "R1 learnable  confirmed" in out
    doc = json.loads(path.read_text())
    ev = doc["r_units"][0]["learnable"]["evidence"]
    ev["witness"] = [str(-int(v)) for v in ev["witness"]]
    path.write_text(json.dumps(doc))
    assert main([*task, "--recheck", str(path)]) == 1
    assert "R1 learnable  refuted" in capsys.readouterr().out
    # the report is about other letters: bad input, one line on stderr
    assert main([*task[:4], "ABD", *task[5:], "--recheck", str(path)]) == 2
    assert "other figures or labels" in capsys.readouterr().err


def test_malformed_reports_are_refused(tight):
    machine, images, labels, report = tight
    for change in (lambda d: d.pop("r_units"), lambda d: d["r_units"].pop(),
                   lambda d: d["r_units"][0].pop("converges"),
                   lambda d: d["r_units"][1].update(r_unit=5),
                   lambda d: d["r_units"][0]["learnable"].update(holds="yes")):
        bad = copy.deepcopy(report)
        change(bad)
        with pytest.raises(ValueError, match="malformed machine report"):
            recheck_report(bad, machine, images, labels)


def test_ball_bounds_recheck_from_their_directions():
    # two letters, stops at +/-3: the per-weight balls decide the end stops; their
    # integer directions re-check the bounds, and a changed direction is refuted
    machine, images, labels, report = ball_report()
    report = report.to_dict()
    claim = report["r_units"][0]["end_stops"]
    assert (claim["holds"], claim["method"]) == (True, "Novikoff ball per weight")
    s = statuses(recheck_report(report, machine, images, labels))
    assert s == {"R1 learnable": "confirmed", "R1 end_stops": "confirmed",
                 "R1 converges": "confirmed", **WHOLE_MACHINE}
    for change in (lambda ev: ev["ball_directions"].pop(),     # a weight's own ball gone
                   lambda ev: ev["ball_directions"][0].__setitem__(
                       slice(None), [-v for v in ev["ball_directions"][0]]),
                   lambda ev: ev.update(max_weight_steps="2")):
        bad = tamper(report, 0, "end_stops", change)
        assert statuses(recheck_report(bad, machine, images, labels))[
            "R1 end_stops"] == "refuted"
    bad = tamper(report, 0, "end_stops",
                 lambda ev: ev["ball_directions"][1].__setitem__(0, 0.5))
    with pytest.raises(ValueError, match="ball_directions must be a list of lists"):
        recheck_report(bad, machine, images, labels)     # a wrong type: refused


def test_an_exact_reachable_set_rechecks_as_an_inductive_invariant():
    # two orthogonal figures, stops at +/-1: the 4 reachable settings are the
    # certificate; dropping one, adding one outside the stops, or merging A-units that
    # disagree is refuted
    machine = MarkI(MarkIParams(**TWO_CELLS, weight_range=(-1, 1)), seed=0)
    figures, labels = np.array([[1, 0], [0, 1]]), ["a", "b"]
    report = check_machine(machine, figures, labels).to_dict()
    ev = report["r_units"][0]["end_stops"]["evidence"]
    assert ev["bound_used"] == "exact reachable states" and len(ev["invariant_states"]) == 4
    assert statuses(recheck_report(report, machine, figures, labels)) == {
        "R1 learnable": "confirmed", "R1 end_stops": "confirmed",
        "R1 converges": "confirmed", **WHOLE_MACHINE}
    nonzero = next(k for k, s in enumerate(ev["invariant_states"]) if any(s))
    for change in (lambda e: e["invariant_states"].pop(nonzero),
                   lambda e: e["invariant_states"].append([2, 0]),
                   lambda e: e.update(invariant_states=[[0, 0]]),
                   lambda e: e.update(invariant_groups=[[0, 1]]),
                   lambda e: e.update(invariant_groups=[[0]])):
        bad = tamper(report, 0, "end_stops", change)
        assert statuses(recheck_report(bad, machine, figures, labels))[
            "R1 end_stops"] == "refuted", change
    bad = tamper(report, 0, "end_stops",
                 lambda e: e["invariant_states"][0].__setitem__(0, "0"))
    with pytest.raises(ValueError, match="invariant_states must be a list of lists"):
        recheck_report(bad, machine, figures, labels)    # a wrong type: refused


def test_an_all_streams_convergence_rechecks_from_its_clipped_set():
    # stops at +/-1 with an increment of 2 steps: the moves are cut short, the
    # exhaustive search proves learning on every fair stream; its clipped reachable
    # set re-checks (closed, no blocking cycle); a set missing a state, or one where
    # the stops at (0, 1) would block, is refuted
    machine = MarkI(MarkIParams(**TWO_CELLS, weight_range=(-1, 1), increment_steps=2),
                    seed=0)
    figures, labels = np.array([[1, 0], [0, 1]]), ["a", "b"]
    report = check_machine(machine, figures, labels).to_dict()
    claim = report["r_units"][0]["converges"]
    assert (claim["holds"], claim["method"]) == (True, "exhaustive (all streams)")
    assert statuses(recheck_report(report, machine, figures, labels))[
        "R1 converges"] == "confirmed"
    nonzero = next(k for k, s in enumerate(claim["evidence"]["invariant_states"])
                   if any(s))
    bad = tamper(report, 0, "converges",
                 lambda e: e["invariant_states"].pop(nonzero))
    assert statuses(recheck_report(bad, machine, figures, labels))[
        "R1 converges"] == "refuted"
    # the blocking task of the gallery with a forged "learns" claim: its own clipped
    # set (found by check_machine on it) shows the blocking cycle
    blocked = MarkI(MarkIParams(**TWO_CELLS, weight_range=(0, 1)), seed=0)
    forged = check_machine(blocked, figures, labels).to_dict()
    r0 = forged["r_units"][0]
    assert r0["converges"]["holds"] is False
    from verify.machine.theory import _clipped
    from verify.machine.task import Reduced, Units, machine_task

    task = machine_task(blocked, figures, labels)
    red = Reduced(task.patterns[:, task.inputs[0]].astype(np.int64), task.targets[:, 0],
                   Units(1, (0, 1)))
    graph = _clipped.reachable(red.P, red.D, 0, 1)
    r0["converges"] = {"holds": True, "method": "exhaustive (all streams)",
                       "message": "forged", "evidence": {
                           "invariant_states": graph.states.tolist(),
                           "invariant_groups": [[int(c) for c in g] for g in red.groups]}}
    assert statuses(recheck_report(forged, blocked, figures, labels))[
        "R1 converges"] == "refuted"
