"""Each kind of claim names the evidence fields it requires (issue 46, finding 8): a
machine report whose claim lacks one, or holds one its kind does not have, is refused
(ValueError, exit 2, naming the claim and the field) before any re-check. 293 of
7,252 forgeries with required evidence removed (``R_sq``, ``weight_range``,
``reachable_states``: fields the re-check recomputes) used to be "confirmed".

The cases are generated from the registry: every declared field of every kind and
verdict is removed in turn, and an unknown field is added."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from markone.cli import main
from markone.hardware import MarkI, MarkIParams
from verify.machine import check_machine, recheck_report
from verify.machine.claims import KINDS, MACHINE, SLOTS, add_kind, remove_slot, add_slot

TWO_CELLS = dict(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                 max_fanout=1, theta=1, n_r_units=1)
FIGURES, LABELS = np.array([[1, 0], [0, 1]]), ["a", "b"]


@pytest.fixture(scope="module")
def reach():
    """A small task whose report holds an exact reachable set (stops +/-1)."""
    machine = MarkI(MarkIParams(**TWO_CELLS, weight_range=(-1, 1)), seed=0)
    report = json.loads(json.dumps(check_machine(machine, FIGURES, LABELS).to_dict()))
    return machine, report


def declared():
    """``(slot, method, verdict, fields)`` of every kind that declares its evidence."""
    return [(k.slot, k.method, v, fields) for k in KINDS.values()
            if k.evidence is not None for v, fields in k.evidence.items()]


def with_claim(report, slot, claim):
    """``report`` with ``claim`` in ``slot`` (R-unit 0's, or the machine's)."""
    out = copy.deepcopy(report)
    if SLOTS[slot].scope == MACHINE:
        out[slot] = claim
    else:
        out["r_units"][0][slot] = claim
    return out


def test_the_built_in_kinds_declare_their_evidence():
    kinds = declared()
    assert len({(s, m) for s, m, *_ in kinds}) >= 25
    for slot, method, verdict, fields in kinds:
        assert verdict in KINDS[slot, method].verdicts and len(set(fields)) == len(fields)


@pytest.mark.parametrize("slot, method, verdict, fields", declared(),
                         ids=lambda v: str(v)[:40])
def test_each_required_field_removed_and_an_unknown_one_added_is_refused(
        reach, slot, method, verdict, fields):
    machine, report = reach
    full = {f: "0" for f in fields}
    for f in fields:
        evidence = {k: v for k, v in full.items() if k != f}
        claim = {"holds": verdict, "method": method, "message": "", "evidence": evidence}
        with pytest.raises(ValueError, match=f"{slot} lacks the evidence field {f!r}"):
            recheck_report(with_claim(report, slot, claim), machine, FIGURES, LABELS)
    claim = {"holds": verdict, "method": method, "message": "",
             "evidence": {**full, "proved_by_hand": "1"}}
    with pytest.raises(ValueError, match="unknown evidence field 'proved_by_hand'"):
        recheck_report(with_claim(report, slot, claim), machine, FIGURES, LABELS)


@pytest.mark.parametrize("field", ["R_sq", "weight_range", "reachable_states",
                                   "invariant_states", "increment_steps"])
def test_the_fields_the_recheck_recomputes_are_required_too(reach, field, tmp_path,
                                                            capsys):
    machine, report = reach
    claim = report["r_units"][0]["end_stops"]
    assert claim["method"] == "exact reachable states" and field in claim["evidence"]
    assert all(c.status != "refuted"
               for c in recheck_report(report, machine, FIGURES, LABELS))
    forged = copy.deepcopy(report)
    del forged["r_units"][0]["end_stops"]["evidence"][field]
    with pytest.raises(ValueError, match=rf"R-unit entry 0 \(R1\)\.end_stops lacks the "
                                         rf"evidence field '{field}'"):
        recheck_report(forged, machine, FIGURES, LABELS)


def test_the_command_exits_2_naming_the_claim_and_field(tmp_path, capsys):
    path = tmp_path / "report.json"
    task = ["verify", "machine", "letters", "--chars", "AB", "--weight-range", "3"]
    main(task + ["--json", str(path)])
    report = json.loads(path.read_text())
    r = next(k for k, u in enumerate(report["r_units"])
             if "R_sq" in u["end_stops"]["evidence"])
    del report["r_units"][r]["end_stops"]["evidence"]["R_sq"]
    path.write_text(json.dumps(report))
    capsys.readouterr()
    assert main(task + ["--recheck", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert f".end_stops lacks the evidence field 'R_sq'" in err and f"entry {r} " in err


def test_a_new_kind_declares_its_evidence_with_add_kind():
    add_slot("toy_evidence", MACHINE, since=2)
    try:
        kind = add_kind("toy_evidence", "by hand", True, None,
                        evidence={True: ("proof",), None: ()}, optional=("notes",))
        assert kind.evidence_problem(True, ["proof", "notes"]) is None
        assert "lacks the evidence field 'proof'" in kind.evidence_problem(True, [])
        assert "unknown evidence field 'x'" in kind.evidence_problem(None, ["x"])
    finally:
        remove_slot("toy_evidence")
