"""The worst-case claim of a machine report (issue 42): proven by check_machine on a
trained machine, written to the report, confirmed by recheck_report (the witnesses
re-run on the machine, the bounds recomputed), and refuted once tampered with:
forged tolerances and forged witness sets; malformed evidence is refused."""

import copy
import json

import numpy as np
import pytest

from markone.hardware import MarkI, MarkIParams
from markone.hardware.faults import AUnitStuck, FaultPlan, apply_faults
from verify.machine import check_machine, recheck_report
from verify.machine.claims import MACHINE, kind_of, slots
from verify.machine.claims._worst_case import EXACT, SLOT, UNTRAINED
from verify.machine.schema import FORMATS

P = dict(retina_shape=(2, 3), n_a_units=8, n_excitatory=2, n_inhibitory=0,
         max_fanout=4, theta=1, n_r_units=2, weight_range=(-6, 6))
FIGURES = np.array([[1, 1, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 1, 1],
                    [1, 0, 1, 0, 1, 0]])
LABELS = ["a", "b", "c", "a"]


@pytest.fixture(scope="module")
def trained():
    machine = MarkI(MarkIParams(**P), seed=1)
    run = machine.train(FIGURES, LABELS, max_epochs=50)
    assert run.converged
    report = json.loads(json.dumps(check_machine(machine, FIGURES, LABELS).to_dict()))
    return machine, report


def status(report, machine):
    return {c.claim: c for c in recheck_report(report, machine, FIGURES, LABELS)}[SLOT]


def forged(report, change):
    out = copy.deepcopy(report)
    change(out[SLOT]["evidence"])
    return out


def test_a_machine_slot_of_format_3():
    assert SLOT in slots(MACHINE) and FORMATS[-1].endswith("/3")
    assert kind_of(SLOT, EXACT).verdicts == (True, False)


def test_proven_written_and_confirmed(trained):
    machine, report = trained
    claim = report[SLOT]
    assert claim["holds"] is True and claim["method"] == EXACT
    units = claim["evidence"]["r_units"]
    assert [u["r_unit"] for u in units] == [0, 1]
    check = status(report, machine)
    assert check.status == "confirmed" and "witness re-run" in check.why


def test_an_untrained_machine_is_not_assessed():
    machine = MarkI(MarkIParams(**P), seed=1)
    report = check_machine(machine, FIGURES, LABELS)
    assert report.worst_case.holds is None and report.worst_case.method == UNTRAINED
    assert status(report.to_dict(), machine).status == "unchecked"


def test_a_wrong_answer_is_false_with_the_figure():
    machine = MarkI(MarkIParams(**P), seed=1)
    machine.train(FIGURES, LABELS, max_epochs=1)
    report = check_machine(machine, FIGURES, LABELS).to_dict()
    if report[SLOT]["holds"] is not False:       # one pass may already be right
        machine.runits.weights[0] = -machine.runits.weights[0]
        report = check_machine(machine, FIGURES, LABELS).to_dict()
    assert report[SLOT]["holds"] is False
    assert status(report, machine).status == "confirmed"
    said_true = copy.deepcopy(report)
    said_true[SLOT]["holds"] = True
    with pytest.raises(ValueError, match="lacks the evidence field 'r_units'"):
        recheck_report(said_true, machine, FIGURES, LABELS)


@pytest.mark.parametrize("field, value", [("tolerance", "1000"), ("tolerance", "1/1000"),
                                          ("dead", 5), ("stuck", 7),
                                          ("safe_steps", 9), ("capped_by_stops", True),
                                          ("tolerance_dead", ["99"])])
def test_forged_numbers_are_refuted(trained, field, value):
    machine, report = trained
    bad = forged(report, lambda ev: ev["r_units"][0].__setitem__(field, value))
    if bad == report:
        pytest.skip("the forgery equals the truth")
    assert status(bad, machine).status == "refuted"


def test_a_larger_forged_tolerance_is_refuted_by_recomputing(trained):
    machine, report = trained
    u = report[SLOT]["evidence"]["r_units"][0]
    num, _, den = u["tolerance"].partition("/")
    bigger = f"{int(num) * 2}/{den}" if den else str(int(num) * 2)
    check = status(forged(report, lambda ev: ev["r_units"][0].update(tolerance=bigger)),
                   machine)
    assert check.status == "refuted" and "tolerance" in check.why


def test_a_smaller_forged_tolerance_is_refuted_by_its_witness(trained):
    machine, report = trained
    check = status(forged(report, lambda ev: ev["r_units"][0].update(
        tolerance="1/1000000")), machine)
    assert check.status == "refuted" and "leaves it right" in check.why


def test_a_forged_witness_set_is_refuted_on_the_machine(trained):
    machine, report = trained
    u = report[SLOT]["evidence"]["r_units"][0]
    harmless = [j for j in range(P["n_a_units"]) if j not in u["dead_units"]]
    fake = harmless[:len(u["dead_units"])]
    check = status(forged(report, lambda ev: ev["r_units"][0].update(dead_units=fake)),
                   machine)
    assert check.status == "refuted"
    check = status(forged(report, lambda ev: ev["r_units"][0].update(
        dead_units=[*u["dead_units"], 99])), machine)
    assert check.status == "refuted" and "does not exist" in check.why


@pytest.mark.parametrize("change, match", [
    (lambda ev: ev["r_units"][0].pop("dead"), "exactly the fields"),
    (lambda ev: ev["r_units"][0].update(tolerance=0.5), "must be a string"),
    (lambda ev: ev["r_units"][0].update(tolerance="half"), "exact number"),
    (lambda ev: ev["r_units"][0].update(dead_units=["1"]), "must be a number"),
    (lambda ev: ev.update(weights_sha256="0" * 64), "other weights"),
    (lambda ev: ev.update(r_units={}), "must be a list"),
])
def test_malformed_evidence_is_refused(trained, change, match):
    machine, report = trained
    with pytest.raises(ValueError, match=match):
        recheck_report(forged(report, change), machine, FIGURES, LABELS)


def test_other_weights_are_another_machine(trained):
    machine, report = trained
    machine.runits.weights[0, 0] += 1
    try:
        with pytest.raises(ValueError, match="about other weights"):
            recheck_report(report, machine, FIGURES, LABELS)
    finally:
        machine.runits.weights[0, 0] -= 1


def test_a_format_2_report_is_read_without_the_slot(trained):
    machine, report = trained
    old = {k: v for k, v in report.items() if k != SLOT}
    old["format"] = "markone.verify.machine/2"
    names = [c.claim for c in recheck_report(old, machine, FIGURES, LABELS)]
    assert SLOT not in names


def test_dead_witness_reruns_with_the_machines_own_faults():
    """A machine already missing an A-unit: the witness and bounds are about the
    damaged patterns, and its dead units are re-run on top of the fault."""
    machine = MarkI(MarkIParams(**P), seed=1)
    apply_faults(machine, FaultPlan((AUnitStuck(0, value=0),)))
    machine.train(FIGURES, LABELS, max_epochs=50)
    report = check_machine(machine, FIGURES, LABELS).to_dict()
    if report[SLOT]["holds"] is True:
        assert status(report, machine).status == "confirmed"
        for u in report[SLOT]["evidence"]["r_units"]:
            assert 0 not in u["dead_units"]


def test_a_stuck_witness_on_a_unit_the_machine_killed_is_rechecked_not_crashed():
    """A witness may stick at 1 an A-unit the machine's own plan has dead: re-run on
    top of the fault (stuck wins), it is judged, not refused as a plan naming A-unit 1
    twice at one time (issue 37: every FaultPlan is checked for that now)."""
    machine = MarkI(MarkIParams(**P), seed=1)
    apply_faults(machine, FaultPlan((AUnitStuck(0, value=0),)))
    machine.train(FIGURES, LABELS, max_epochs=50)
    report = json.loads(json.dumps(check_machine(machine, FIGURES, LABELS).to_dict()))
    u = report[SLOT]["evidence"]["r_units"][0]
    assert u["stuck"] is not None
    stuck = [0, *(j for j in u["stuck_units"] if j != 0)][:len(u["stuck_units"])]
    check = status(forged(report, lambda ev: ev["r_units"][0].update(stuck_units=stuck)),
                   machine)
    assert check.status in ("confirmed", "refuted")
