"""The claim registry (verify.machine.claims, issue 25): every kind of claim names its
slot, its verdicts, its provers (in an order the registry holds) and its re-check, and
the reports and re-checks use only those."""

import ast

import numpy as np
import pytest

from _paths import ROOT

from markone.hardware import MarkI, MarkIParams
from verify.machine import check_machine, recheck_report
from verify.machine.claims._learnable import SEPARABLE
from verify.machine.claims import (KINDS, MACHINE, R_UNIT, SLOTS, Method, add_kind,
                                   add_slot, decide, kind_of, proves, provers,
                                   rechecks, slots)
from verify.smt import SOLVERS


def test_every_method_has_a_kind_and_every_kind_a_prover_and_a_recheck():
    # a kind names its method by a Method member or by a string of its own module
    assert set(Method) <= {kind.method for kind in KINDS.values()}
    for (slot, method), kind in KINDS.items():
        assert (kind.slot, kind.method) == (slot, method)
        assert kind.verdicts and set(kind.verdicts) <= {True, False, None}
        assert kind.provers, (slot, method)
        assert set(kind.provers) <= set(provers(slot))
        assert kind.recheck is not None, (slot, method)


def test_every_recheck_lives_beside_its_prover():
    # in the prover's module, or in the module named after it with "_recheck"
    for (slot, method), kind in KINDS.items():
        homes = {p.__module__ for p in kind.provers}
        homes |= {f"{m}_recheck" for m in homes}
        assert kind.recheck.__module__ in homes, (slot, method, kind.recheck.__module__)


def module_level_calls(path, name):
    """The calls of ``name`` at the top level of the module at ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for stmt in tree.body if not isinstance(stmt, (ast.FunctionDef,
                                                               ast.ClassDef))
            for node in ast.walk(stmt) if isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == name]


def test_the_registry_is_the_mechanism_and_each_module_declares_its_kinds():
    # issue 40: the built-in kinds were rows of a central table in registry.py and
    # their evidence fields a table in _fields.py, away from their provers
    claims = ROOT / "verify" / "machine" / "claims"
    words = {m.value for m in Method}
    for name in ("registry.py", "_fields.py"):
        text = (claims / name).read_text(encoding="utf-8")
        assert not module_level_calls(claims / name, "add_kind"), name
        assert "Method" not in text.replace(":class:`verify.machine.claims.methods."
                                            "Method`", ""), name
        said = {node.value for node in ast.walk(ast.parse(text))
                if isinstance(node, ast.Constant) and node.value in words}
        assert not said, (name, said)
    declaring = {p.stem for p in claims.glob("*.py")
                 if module_level_calls(p, "add_kind")}
    assert declaring == {"_learnable", "_end_stops", "_converges", "_derived",
                         "_variation", "_faults", "timing", "_quantisation",
                         "_worst_case"}
    for (slot, method), kind in KINDS.items():
        homes = {p.__module__.rsplit(".", 1)[1] for p in kind.provers}
        assert homes & declaring, (slot, method)


def test_the_slots_of_a_report():
    assert slots(R_UNIT) == ("learnable", "end_stops", "converges")
    assert slots(MACHINE) == ("faults", "timing", "quantisation", "worst_case")


def test_the_declared_order_lives_in_the_registry():
    assert [p.__name__ for p in provers("end_stops")] == [
        "follows_from_learnable", "under_variation", "rule_analysis", "not_analysed",
        "margin",
        "exact_reach", "fits", "exhaustive", "greedy", "balls", "beam",
        "random_orders", "z3_bmc", "undecided"]
    assert [p.__name__ for p in provers("converges")] == [
        "follows_from_learnable", "under_variation", "rule_analysis", "not_analysed",
        "ideal",
        "all_streams", "clipped_ball", "continuations", "periodic", "undecided"]
    assert [p.__name__ for p in kind_of("end_stops", "one-signed columns").provers] \
        == ["fits", "undecided"]


def test_the_derived_provers_run_alone_below_the_analyses():
    # decide(..., until=ANALYSES_FROM) runs only the provers that derive a claim from
    # what was decided before: what the re-check runs again
    from verify.machine.claims._context import RUnitContext
    from verify.machine.claims._derived import ANALYSES_FROM
    from verify.machine.claims._end_stops import EndStops
    from verify.machine.report import Claim
    from verify.machine.task import Units, machine_task

    machine, images, labels = two_cells((-1, 1), [[1, 0], [0, 1]])
    base = RUnitContext(0, machine_task(machine, images, labels), Units(1, (-1, 1)))
    base.claims["learnable"] = Claim(False, "check_separable/lp", "not separable")
    assert decide("end_stops", EndStops(base), until=ANALYSES_FROM).method \
        == "not assessed"
    base.claims["learnable"] = Claim(True, "check_separable/lp", "separable")
    ctx = EndStops(base)
    assert decide("end_stops", ctx, until=ANALYSES_FROM) is None
    assert ctx.margin is None                  # no error-correction prover ran
    assert decide("end_stops", EndStops(base)).method == "exact reachable states"


def test_learnable_covers_every_prover_of_check_separable():
    methods = {m.value.split("/", 1)[1] for m in SEPARABLE}
    assert {"trivial", "perceptron", "leastsq", "lp", "timeout", "budget", *SOLVERS,
            *(f"lp+{s}" for s in SOLVERS)} == methods


def test_kind_of_refuses_unknown_methods_and_other_slots():
    assert kind_of("converges", "periodic order").method is Method.PERIODIC
    assert kind_of("converges", "check_separable/lp").verdicts == (False, None)
    assert kind_of("learnable", "check_separable/leastsq").verdicts == (False, None)
    for slot, method in (("end_stops", "periodic order"), ("converges", "guess"),
                         ("learnable", "greedy"), ("timing", "whole increments")):
        with pytest.raises(ValueError, match=f"does not decide a {slot} claim"):
            kind_of(slot, method)


def test_a_place_in_a_slots_order_is_taken_once_and_kinds_once():
    with pytest.raises(RuntimeError, match="end_stops prover 140 is greedy already"):
        proves(Method.HIT_GREEDY, order=140)(lambda ctx: None)
    with pytest.raises(RuntimeError, match="re-checked by recheck_end_stops already"):
        rechecks(Method.HIT_GREEDY)(lambda ctx, claim: None)
    with pytest.raises(ValueError, match="is registered already"):
        add_kind("end_stops", Method.HIT_GREEDY, False)
    with pytest.raises(ValueError, match="no slot 'colour'"):
        add_kind("colour", "guess", True)
    with pytest.raises(ValueError, match="no slot has kinds for all of"):
        proves("guess", order=999)(lambda ctx: None)
    with pytest.raises(ValueError, match="is registered already"):
        add_slot("timing", MACHINE)
    with pytest.raises(ValueError, match="a new slot must have scope 'machine', got "
                       "'r_unit': each R-unit's claims are \\['learnable', "
                       "'end_stops', 'converges'\\]"):
        add_slot("colour", R_UNIT)
    assert "colour" not in SLOTS


def test_decide_refuses_a_claim_of_no_registered_kind():
    from verify.machine.report import Claim

    class Ctx:
        claims: dict = {}

    add_kind("timing", "bad", True)
    try:
        @proves("bad", order=-1, slot="timing")
        def bad(ctx):
            return Claim(None, "bad", "a verdict its kind cannot give")

        with pytest.raises(RuntimeError, match="BUG: bad gave a timing claim"):
            decide("timing", Ctx())
    finally:
        from verify.machine.claims import registry as claims

        del claims._PROVERS["timing"][-1], claims.KINDS["timing", "bad"]
    assert [p.__name__ for p in provers("timing")] == ["timing"]


def two_cells(weight_range, figures):
    p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                    max_fanout=1, theta=1, n_r_units=1, weight_range=weight_range)
    return MarkI(p, seed=0), np.array(figures), ["a", "b"]


@pytest.mark.parametrize("weight_range, figures, end_stops, converges", [
    ((-1, 1), [[1, 0], [0, 1]], Method.EXACT_REACH, Method.IDEAL),
    ((0, 1), [[1, 0], [0, 1]], Method.HIT_EXHAUSTIVE, Method.ALL_STREAMS),
    ((-1, 1), [[0, 1], [1, 1]], Method.HIT_EXHAUSTIVE, Method.ALL_STREAMS),
])
def test_reports_name_registered_kinds_and_recheck_through_them(weight_range, figures,
                                                                end_stops, converges):
    machine, images, labels = two_cells(weight_range, figures)
    report = check_machine(machine, images, labels)
    r = report.r_units[0]
    assert kind_of("end_stops", r.end_stops.method).method is end_stops
    assert kind_of("converges", r.converges.method).method is converges
    assert type(r.end_stops.method) is str       # the report keeps the plain words
    for slot in slots(MACHINE):
        claim = getattr(report, slot)
        assert claim.holds in kind_of(slot, claim.method).verdicts
    checks = recheck_report(report, machine, images, labels)
    assert {c.claim: c.status for c in checks}["R1 converges"] == "confirmed"


def test_an_error_correction_claim_on_a_forced_machine_is_refuted():
    # the kind decides which re-check runs; the re-check still asks whether its
    # analysis applies to this machine (here the forced rule's does)
    machine, images, labels = two_cells((-1, 1), [[1, 0], [0, 1]])
    machine = MarkI(machine.params.replace(rule="forced"), seed=0)
    d = check_machine(machine, images, labels).to_dict()
    evidence = {"R_sq": 1, "gamma_lower": 1, "weight_range": ["-1", "1"],
                "increment_steps": "1"}   # the fields the kind requires (issue 46)
    d["r_units"][0]["end_stops"] = {"holds": True, "method": "one-signed columns",
                                    "message": "", "evidence": evidence}
    checks = {c.claim: c for c in recheck_report(d, machine, images, labels)}
    assert checks["R1 end_stops"].status == "refuted"
    assert "follows from its learnable claim or its rule" in checks["R1 end_stops"].why
    assert SLOTS["end_stops"].scope == R_UNIT
