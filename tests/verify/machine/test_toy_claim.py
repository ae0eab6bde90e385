"""Adding a claim is one module, one line in verify/machine/claims/__init__.py and one
test file (issues 25 and 40).

This file alone defines a new kind of claim about the whole machine, "no figure is
blank to the A-units" (every figure fires some A-unit), with its slot, its prover and
its re-check, as a claim module of ``verify/machine/claims`` would (the fixture stands
for the module, importing it for the line of ``__init__``): check_machine proves it and
writes it to the report, recheck_report confirms it from its evidence and refutes it
once the evidence is tampered with, and after it is unregistered the reports are as
before. The last test holds the one place that registers the built-in claim modules.
"""

import ast
import copy

import numpy as np
import pytest

from _paths import ROOT
from markone.hardware import MarkI, MarkIParams
from verify.machine import check_machine, recheck_report
from verify.machine.claims import (MACHINE, SLOTS, add_kind, add_slot, kind_of,
                                   proves, rechecks, remove_slot, slots)
from verify.machine.report import Claim
from verify.machine.schema import check_value

SLOT, METHOD = "blank_figures", "an active A-unit per figure"


@pytest.fixture
def toy_claim():
    """The toy kind registered for one test, then unregistered."""
    add_slot(SLOT, MACHINE, since=2)
    add_kind(SLOT, METHOD, True, False)

    @proves(METHOD, order=0)
    def active_a_units(ctx):
        """An active A-unit of each figure, or the first figure with none."""
        active = ctx.task.patterns.argmax(axis=1)
        blank = np.flatnonzero(~ctx.task.patterns.any(axis=1))
        if blank.size:
            return Claim(False, METHOD, f"figure {blank[0]} fires no A-unit",
                         {"figure": int(blank[0])})
        return Claim(True, METHOD, "every figure fires an A-unit",
                     {"active": active.tolist()})

    @rechecks(METHOD)
    def check_active(ctx, claim):
        """Each named A-unit fires on its figure; a blank figure fires none."""
        from verify.machine.claims._evidence import verdict
        from verify.errors import Refuted

        ev, patterns = claim["evidence"], ctx.task.patterns
        if "figure" in ev:
            check_value(ev["figure"], lambda v: type(v) is int, "an integer",
                        f"{SLOT} evidence.figure")
            if not 0 <= ev["figure"] < len(patterns) or patterns[ev["figure"]].any():
                raise Refuted(f"figure {ev['figure']} fires an A-unit")
            return verdict(claim, False, "the figure fires none", "no figure is blank")
        check_value(ev.get("active"), lambda v: isinstance(v, list) and len(v) == len(
            patterns) and all(type(a) is int for a in v), "one integer per figure",
            f"{SLOT} evidence.active")
        if not all(0 <= a < patterns.shape[1] and patterns[i, a]
                   for i, a in enumerate(ev["active"])):
            raise Refuted("a named A-unit does not fire on its figure")
        return verdict(claim, True, "each named A-unit fires", "no figure is blank")

    yield active_a_units, check_active
    remove_slot(SLOT)


def task(figures):
    p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                    max_fanout=1, theta=1, n_r_units=1, weight_range=(-1, 1))
    return MarkI(p, seed=0), np.array(figures), ["a", "b"]


def test_a_claim_defined_here_is_proven_written_rechecked_and_unregistered(toy_claim):
    prover, recheck = toy_claim
    assert kind_of(SLOT, METHOD).provers == (prover,)
    assert kind_of(SLOT, METHOD).recheck is recheck
    machine, images, labels = task([[1, 0], [0, 1]])
    report = check_machine(machine, images, labels)
    assert getattr(report, SLOT).holds is True            # proven
    d = report.to_dict()
    assert d[SLOT]["evidence"] == {"active": [0, 1]}      # written to the report
    assert f"{SLOT}: yes [{METHOD}]" in report.text()
    checks = {c.claim: c for c in recheck_report(d, machine, images, labels)}
    assert checks[SLOT].status == "confirmed"             # re-checked
    assert "refuted" not in {c.status for c in checks.values()}

    tampered = copy.deepcopy(d)
    tampered[SLOT]["evidence"]["active"] = [1, 1]
    checks = {c.claim: c for c in recheck_report(tampered, machine, images, labels)}
    assert checks[SLOT].status == "refuted"               # tampering refuted
    assert checks[SLOT].why == "a named A-unit does not fire on its figure"
    said_false = copy.deepcopy(d)
    said_false[SLOT]["holds"] = False
    checks = {c.claim: c for c in recheck_report(said_false, machine, images, labels)}
    assert checks[SLOT].status == "refuted"
    dropped = copy.deepcopy(d)
    del dropped[SLOT]
    with pytest.raises(ValueError, match=f"the report lacks \\['{SLOT}'\\]"):
        recheck_report(dropped, machine, images, labels)


def test_a_blank_figure_makes_it_false(toy_claim):
    machine, images, labels = task([[0, 0], [0, 1]])
    report = check_machine(machine, images, labels)
    assert getattr(report, SLOT).evidence == {"figure": 0}
    checks = {c.claim: c.status for c in recheck_report(report, machine, images,
                                                         labels)}
    assert checks[SLOT] == "confirmed"


def test_unregistered_it_is_gone():
    assert SLOT not in SLOTS and SLOT not in slots(MACHINE)
    machine, images, labels = task([[1, 0], [0, 1]])
    d = check_machine(machine, images, labels).to_dict()
    assert SLOT not in d
    d[SLOT] = {"holds": True, "method": METHOD, "message": "", "evidence": {}}
    with pytest.raises(ValueError, match=f"unknown field\\(s\\) \\['{SLOT}'\\]"):
        recheck_report(d, machine, images, labels)


def claim_imports(path):
    """``(module, line)`` of each claim module of ``verify/machine/claims`` that
    ``path`` imports by name (``from verify.machine.claims import _faults``)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "verify.machine.claims":
            for alias in node.names:
                if (ROOT / "verify" / "machine" / "claims" / f"{alias.name}.py").is_file():
                    yield alias.name, node.lineno


def test_the_claims_package_is_the_one_place_that_registers_them():
    """Every module that registers a prover or a re-check is imported, one line each,
    by verify/machine/claims/__init__.py; no other module imports one only to
    register it (check and recheck did, issue 40)."""
    claims = ROOT / "verify" / "machine" / "claims"
    registering = {p.stem for p in claims.glob("*.py")
                   if "@proves(" in p.read_text(encoding="utf-8")
                   or "@rechecks(" in p.read_text(encoding="utf-8")}
    assert {"_learnable", "_end_stops", "timing"} <= registering
    init = claims / "__init__.py"
    assert {name for name, _ in claim_imports(init)} == registering
    lines = init.read_text(encoding="utf-8").splitlines()
    for name, lineno in claim_imports(init):
        assert "noqa: E402,F401" in lines[lineno - 1], lines[lineno - 1]
    for path in sorted((ROOT / "verify").rglob("*.py")):
        if path == init:
            continue
        text = path.read_text(encoding="utf-8").splitlines()
        side_effect = [line for line in text
                       if "noqa: F401" in line and "verify.machine" in line]
        assert not side_effect, f"{path.relative_to(ROOT)} imports for registration: " \
            f"{side_effect}"
