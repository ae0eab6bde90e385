"""verify.machine: what the theorems promise a given Mark I (issue 12).

Exact values on hand-built machines whose A-unit patterns are known, and soundness on
random tiny machines: every "end stops never bite" is checked against random orders
and the greedy adversary on the machine itself, every reported stream is re-run with
``MarkI.train``.
"""

import json
import math
import string

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from verify.machine import (check_machine, exposure_limits, machine_task,
                            retrain_on_stream)

# Two photocells, each wired to its own A-unit (fan-out 1): the A-unit patterns are
# the figures themselves, up to which A-unit sees which cell.
TWO_CELLS = dict(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                 max_fanout=1, theta=1, n_r_units=1)
# "a" -> class 0 -> target -1 on the single R-unit, "b" -> +1.
FIGURES = np.array([[1, 0], [0, 1]])
LABELS = ["a", "b"]


def two_cell_machine(**changes):
    return MarkI(MarkIParams(**{**TWO_CELLS, **changes}), seed=0)


def test_orthogonal_pair_exact_bounds():
    rep = check_machine(two_cell_machine(weight_range=(-1, 1)), FIGURES, LABELS)
    r = rep.r_units[0]
    assert r.learnable.holds and r.end_stops.holds and r.converges.holds
    ev = r.end_stops.evidence
    # R^2 = 1, gamma = 1/sqrt(2): (R/gamma)^2 = 2 reinforcements; exact reach is +/-1
    assert ev["R_sq"] == 1
    assert ev["gamma_lower"] <= 2 ** -0.5 <= r.end_stops.notes["gamma_upper"]
    assert ev["reinforcement_bound"] == 2
    assert ev["bound_used"] == "exact reachable states"
    assert (ev["min_weight_steps"], ev["max_weight_steps"]) == ("-1", "1")
    assert ev["reachable_states"] == 4
    assert rep.converges is True


def test_novikoff_bound_when_the_exact_search_is_cut_short():
    r = check_machine(two_cell_machine(weight_range=(-1, 1)), FIGURES, LABELS,
                      exact_budget=1).r_units[0]
    ev = r.end_stops.evidence
    # floor(R^2/gamma) = floor(sqrt 2) = 1 beats floor((R/gamma)^2) = 2
    assert ev["bound_used"] == "||w|| <= R^2/gamma"
    assert ev["max_weight_steps"] == "1"
    assert r.end_stops.holds


def test_one_sided_end_stop_blocks_a_separable_task():
    machine = two_cell_machine(weight_range=(0, 1))
    r = check_machine(machine, FIGURES, LABELS).r_units[0]
    assert r.learnable.holds is True
    assert r.end_stops.holds is False
    assert r.end_stops.evidence["stream"] == [0]      # "a" asks for -1: stopped at 0
    assert r.converges.holds is False
    ev = r.converges.evidence
    out = retrain_on_stream(machine, FIGURES, LABELS, ev["prefix"], ev["cycle"])
    assert out["returns"] and not out["converged"]
    assert min(out["mistakes_per_epoch"]) > 0 and out["saturated"][0] > 0
    run = machine.train(FIGURES, LABELS, order=r.end_stops.evidence["stream"], max_epochs=1)
    assert run.saturated[0] > 0


def test_end_stops_bite_without_blocking():
    # increment 2 against stops at +/-1: the first move is cut to 1, yet it learns
    machine = two_cell_machine(weight_range=(-1, 1), increment_steps=2)
    r = check_machine(machine, FIGURES, LABELS).r_units[0]
    assert r.end_stops.holds is False
    assert r.converges.holds is True and r.converges.method == "exhaustive (all streams)"
    for seed in range(5):
        assert machine.train(FIGURES, LABELS, max_epochs=20, order="shuffle",
                             seed=seed).converged


def test_a_blind_figure_is_not_learnable_with_a_certificate():
    figures = np.vstack([FIGURES, [[0, 0]]])
    rep = check_machine(two_cell_machine(), figures, ["a", "b", "b"])
    r = rep.r_units[0]
    assert r.learnable.holds is False and r.converges.holds is False
    assert r.learnable.evidence["certificate"] == {"2": "1"}
    assert rep.learnable is False and rep.converges is False
    json.dumps(rep.to_dict())


@st.composite
def tiny_tasks(draw, one_sided=False):
    """A tiny one-R-unit machine, figures and labels; ``one_sided``: the lower stop is
    sometimes at 0 or -1 (stops that can block)."""
    n = draw(st.integers(3, 6))
    n_a = draw(st.integers(3, 8))
    k = draw(st.integers(1, 3))
    lo = draw(st.sampled_from([-k, -k, -k, 0, -1])) if one_sided else -k
    params = MarkIParams(retina_shape=(3, 3), n_a_units=n_a, n_excitatory=2,
                         n_inhibitory=1, n_r_units=1, theta=1, weight_range=(lo, k),
                         increment_steps=draw(st.sampled_from([1, 1, 2])))
    bits = draw(st.lists(st.lists(st.integers(0, 1), min_size=9, max_size=9),
                         min_size=n, max_size=n))
    labels = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n).filter(
        lambda v: len(set(v)) == 2))
    return MarkI(params, seed=draw(st.integers(0, 10**6))), np.array(bits), labels


@settings(max_examples=40)
@given(tiny_tasks())
def test_soundness_on_tiny_machines(task):
    machine, images, labels = task
    r = check_machine(machine, images, labels, orders=3).r_units[0]
    if r.end_stops.holds:
        for seed in range(8):
            run = machine.train(images, labels, max_epochs=60, order="shuffle", seed=seed)
            assert run.saturated.sum() == 0 and run.converged
        assert r.converges.holds
    if r.end_stops.holds is False:
        run = machine.train(images, labels, order=r.end_stops.evidence["stream"],
                            max_epochs=1)
        assert run.saturated[0] > 0
    if r.converges.holds is False and r.learnable.holds:
        ev = r.converges.evidence
        out = retrain_on_stream(machine, images, labels, ev["prefix"], ev["cycle"])
        assert out["returns"] and not out["converged"]
        assert min(out["mistakes_per_epoch"]) > 0 and sum(out["saturated"]) > 0
        assert set(ev["cycle"]) == set(range(len(images)))   # a fair stream
    if r.converges.holds and r.converges.method == "exhaustive (all streams)":
        machine.reset()
        run = machine.train(images, labels, max_epochs=300, order="shuffle")
        assert run.converged


def test_greedy_adversary_never_saturates_when_certified():
    images, labels = letters("ABCD", per_class=3, seed=1)
    machine = MarkI(seed=1)
    rep = check_machine(machine, images, labels)
    task = machine_task(machine, images, labels)
    from verify.adversary import worst_order

    for r in rep.r_units:
        if not r.end_stops.holds:
            continue
        order = worst_order(task.patterns, task.targets[:, r.r_unit], intercept=False,
                            budget=5000).order
        run = machine.train(images, labels, order=list(order), max_epochs=1)
        assert run.saturated[r.r_unit] == 0


def test_letters_with_tight_stops_give_rerunnable_streams():
    images, labels = letters("ABCDEF", per_class=2, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-2, 2)), seed=0)
    rep = check_machine(machine, images, labels, orders=5)
    hits = [r for r in rep.r_units if r.end_stops.holds is False]
    assert hits, "stops at +/-2 should bite on letters"
    for r in hits:
        run = machine.train(images, labels, order=r.end_stops.evidence["stream"],
                            max_epochs=1)
        assert run.saturated[r.r_unit] > 0
    for r in rep.r_units:
        if r.converges.holds is False and r.learnable.holds:
            ev = r.converges.evidence
            out = retrain_on_stream(machine, images, labels, ev["prefix"], ev["cycle"],
                                r_unit=r.r_unit)
            assert out["returns"] and not out["converged"]


def test_exposure_limits_closed_form():
    p = MarkIParams()
    rise, decay = exposure_limits(p)
    assert rise == pytest.approx(0.020 * math.log(2), rel=1e-15)
    assert decay == pytest.approx(0.100 * math.log(2), rel=1e-15)
    p = MarkIParams(s_threshold=0.25)
    rise, decay = exposure_limits(p)
    assert rise == pytest.approx(0.020 * math.log(4 / 3))
    assert decay == pytest.approx(0.100 * math.log(4))
    assert exposure_limits(MarkIParams.ideal()) == (0.0, 0.0)


def test_short_exposure_blend_is_what_the_machine_reads():
    images, labels = letters("ABCD", per_class=2, seed=0)
    machine = MarkI(seed=0)
    rep = check_machine(machine, images, labels, exposure_s=0.01)
    t = rep.timing
    assert t.holds is False
    q, c = t.evidence["before"], t.evidence["figure"]
    task = machine_task(machine, images, labels)
    machine.train(images, labels, max_epochs=1)            # calibrates theta as the report
    if q is not None:
        machine.learn_one(images[q], labels[q])        # settles fully
    else:
        machine.reset()
    rec = machine.learn_one(images[c], labels[c], exposure_s=0.01)
    seen = np.zeros(task.patterns.shape[1], np.uint8)
    seen[list(rec.active_a)] = 1
    changed = np.flatnonzero(seen != task.patterns[c]).tolist()
    assert changed == t.evidence["a_units_changed"]


def test_safe_exposure_changes_nothing():
    images, labels = letters("ABC", per_class=2, seed=0)
    safe = max(exposure_limits(MarkIParams())) * 1.001
    machine = MarkI(MarkIParams(exposure_s=safe), seed=0)
    rep = check_machine(machine, images, labels)
    assert rep.timing.holds is True
    run = machine.train(images, labels, max_epochs=3, order="shuffle", log=True)
    A = machine_task(machine, images, labels).patterns
    for rec in run.log:
        assert rec.active_a == tuple(np.flatnonzero(A[rec.figure]))


def test_quantised_machine_equals_the_real_valued_rule():
    images, labels = letters("ABCDE", per_class=2, seed=2)
    runs = []
    for quantize in (True, False):
        machine = MarkI(MarkIParams(weight_range=(-3, 3), quantize=quantize), seed=2)
        rep = check_machine(machine, images, labels, orders=0)
        assert rep.quantisation.holds is True
        runs.append(machine.train(images, labels, max_epochs=8))
    assert np.array_equal(runs[0].weights, runs[1].weights)
    assert runs[0].mistakes_per_epoch == runs[1].mistakes_per_epoch


def test_gamma_rule_quantisation_is_refuted():
    images, labels = letters("AB", per_class=2, seed=0)
    rep = check_machine(MarkI(MarkIParams(rule="gamma"), seed=0), images, labels)
    assert rep.quantisation.holds is False
    # a rounding branch reaches a stop (test_verify_machine_gamma.py re-runs it)
    assert rep.r_units[0].end_stops.holds is False
    assert rep.r_units[0].converges.holds is None


@pytest.mark.parametrize("chars, constant", [
    ("ABCD", 2),  # R-units 3-8 answer -1 for every letter (4 classes < 2**2)
    pytest.param(string.ascii_uppercase, 5, marks=pytest.mark.slow,  # 26 < 32; 13 s
                 id="26-letters")])
def test_default_machine_learns_letters(chars, constant):
    images, labels = letters(chars, per_class=2, seed=0)
    rep = check_machine(MarkI(seed=0), images, labels, orders=2)
    assert rep.learnable is True
    # R-units that answer -1 for every letter: tiny bound, proven
    for r in rep.r_units[constant:]:
        assert r.end_stops.holds is True
    json.loads(json.dumps(rep.to_dict()))


def test_bad_input():
    with pytest.raises(TypeError, match="MarkI"):
        check_machine("machine", FIGURES, LABELS)
    with pytest.raises(ValueError, match="labels"):
        check_machine(two_cell_machine(), FIGURES, ["a"])
    with pytest.raises(ValueError, match="orders"):
        check_machine(two_cell_machine(), FIGURES, LABELS, orders=-1)


def test_train_with_explicit_order():
    images, labels = letters("ABC", per_class=2, seed=0)
    perm = [3, 0, 5, 1, 4, 2]
    a = MarkI(seed=0).train(images, labels, order=perm, max_epochs=4)
    b = MarkI(seed=0).train(images[perm], labels[perm], max_epochs=4)
    assert np.array_equal(a.weights, b.weights)
    with pytest.raises(TypeError, match="integer indices"):
        MarkI(seed=0).train(images, labels, order=[0.0, 1.0])
    with pytest.raises(ValueError, match="outside"):
        MarkI(seed=0).train(images, labels, order=[0, 9])


def test_cli_letters_and_run(tmp_path):
    from markone.cli import main

    out = tmp_path / "r.json"
    status = main(["verify", "machine", "letters", "--chars", "AB", "--per-class", "2",
                   "--json", str(out)])
    doc = json.loads(out.read_text())
    assert status == {True: 0, False: 1, None: 2}[doc["converges"]]
    assert doc["format"] == "markone.verify.machine/3" and len(doc["r_units"]) == 8
    assert doc["machine"] == MarkIParams().to_dict()     # every parameter, named
    images, labels = letters("AB", per_class=2, seed=0)
    run = MarkI(seed=0).train(images, labels, max_epochs=3, log=True)
    path = run.save(tmp_path / "run.json")
    assert main(["verify", "machine", str(path), "--json", str(tmp_path / "s.json")]) in (0, 1, 4)
    again = json.loads((tmp_path / "s.json").read_text())
    assert again["data_sha256"] == doc["data_sha256"]
    unlogged = MarkI(seed=0).train(images, labels, max_epochs=1).save(tmp_path / "u.json")
    assert main(["verify", "machine", str(unlogged)]) == 2


def test_damaged_machine_names_the_faults_that_broke_it():
    from markone.hardware.faults import AUnitStuck, FaultPlan, apply_faults

    machine = two_cell_machine(weight_range=(-1, 1))
    healthy = check_machine(machine, FIGURES, LABELS)
    assert healthy.faults.holds is True and healthy.learnable
    # kill the A-unit that sees figure "a": that figure becomes blind
    a_of_first = int(np.flatnonzero(machine.a_features(FIGURES)[0])[0])
    apply_faults(machine, FaultPlan((AUnitStuck(1 - a_of_first, 0, at_s=5.0),
                                     AUnitStuck(a_of_first, 0))))
    rep = check_machine(machine, FIGURES, LABELS)
    assert rep.learnable is False and rep.faults.holds is False
    assert rep.faults.evidence["culprits"]["0"] == {"healthy": True,
                                                    "kinds": ["AUnitStuck"],
                                                    "faults": [0, 1]}
    # the machine itself never learns it
    assert not machine.train(FIGURES, LABELS, max_epochs=30).converged


def test_damage_that_leaves_the_task_learnable():
    from markone.hardware.faults import apply_faults, random_faults

    images, labels = letters("ABC", per_class=2, seed=0)
    machine = MarkI(seed=0)
    apply_faults(machine, random_faults(machine, cut_wires=0.2, seed=0))
    rep = check_machine(machine, images, labels, orders=2)
    assert rep.faults.holds is True and rep.learnable is True
    for r in rep.r_units:
        if r.end_stops.holds:
            run = machine.train(images, labels, max_epochs=50, order="shuffle")
            assert run.saturated[r.r_unit] == 0


def test_gamma_quantisation_names_a_fractional_move_or_holds():
    from fractions import Fraction

    from verify.machine import machine_task

    images, labels = letters("AB", per_class=2, seed=0)
    machine = MarkI(MarkIParams(rule="gamma"), seed=0)
    ev = check_machine(machine, images, labels).quantisation.evidence
    task = machine_task(machine, images, labels)
    cols = task.inputs[ev["r_unit"]]
    k = int(task.patterns[ev["figure"], cols].sum())
    x = int(task.patterns[ev["figure"], ev["a_unit"]])
    assert Fraction(ev["move_steps"]) == x - Fraction(k, len(cols))
    assert Fraction(ev["move_steps"]).denominator > 1
    # two inputs, one active on each figure: every move is +/-1/2 * 2 = +/-1 step
    p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                    max_fanout=1, theta=1, n_r_units=1, rule="gamma",
                    increment_steps=2)
    rep = check_machine(MarkI(p, seed=0), np.array([[1, 0], [0, 1]]), ["a", "b"])
    assert rep.quantisation.holds is True
