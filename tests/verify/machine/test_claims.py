"""The claim registry (verify.machine.claims, issue 25): every kind of claim names its
slot, its verdicts, its prover and its re-check, and the reports use only those."""

import numpy as np
import pytest

from markone.hardware import MarkI, MarkIParams
from verify.machine import _convergence, _endstops, check_machine, recheck_report
from verify.machine.claims import KINDS, Method, kind_of, proves

#: The kinds whose evidence is a search's result, not a certificate: no re-check.
UNCHECKED = {Method.Z3, Method.BALL_PUSHES, Method.MAX_MARGIN,
             Method.CONTINUATIONS_OPEN, Method.PERIODIC_OPEN}
PROVERS = {"end_stops": _endstops.PROVERS, "converges": _convergence.PROVERS}


def test_every_method_has_one_kind_with_a_prover_in_its_slots_order():
    assert set(KINDS) == set(Method)
    for method, kind in KINDS.items():
        assert kind.method is method and kind.verdicts
        assert set(kind.verdicts) <= {True, False, None}
        assert kind.prover in PROVERS[kind.slot], method


def test_every_kind_with_a_certificate_has_a_recheck():
    assert {m for m, k in KINDS.items() if k.recheck is None} == UNCHECKED


def test_kind_of_refuses_unknown_methods_and_other_slots():
    assert kind_of("converges", "periodic order").method is Method.PERIODIC
    for slot, method in (("end_stops", "periodic order"), ("converges", "guess"),
                         ("learnable", "greedy")):
        with pytest.raises(ValueError, match=f"does not decide a {slot} claim"):
            kind_of(slot, method)


def test_a_method_gets_one_prover():
    with pytest.raises(RuntimeError, match="HIT_GREEDY has two functions"):
        proves(Method.HIT_GREEDY)(lambda ctx: None)


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
    checks = recheck_report(report, machine, images, labels)
    assert {c.claim: c.status for c in checks}["R1 converges"] == "confirmed"
