"""verify.machine.minimal_faults: a 1-minimal set of faults that breaks a task, checked
against hand-built machines with a known answer and against an independent LP oracle
over every sub-plan of small random plans."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from markone.hardware import MarkI, MarkIParams
from markone.hardware.faults import (AUnitStuck, CutWire, FaultPlan, MotorStopped,
                                     NoisySum, PhotocellStuck, PotentiometerDrift,
                                     apply_faults)
from markone.hardware.plugboard import PatternCache, Wiring
from verify.machine import check_machine, machine_task, minimal_faults

# Two cells; A-units 0 and 1 see cell 0 (figure "a"), A-unit 2 sees cell 1 ("b").
FIGURES = np.array([[1, 0], [0, 1]])
LABELS = ["a", "b"]


def wired_machine():
    p = MarkIParams(retina_shape=(1, 2), n_a_units=3, n_excitatory=1, n_inhibitory=0,
                    max_fanout=3, theta=1, n_r_units=1)
    m = MarkI(p, seed=0)
    m.wiring = Wiring(np.array([[0], [0], [1]]), np.zeros((3, 0), np.int64), 2)
    m._patterns = PatternCache(m.wiring)
    return m


def test_the_wiring_is_as_built():
    assert wired_machine().a_features(FIGURES).tolist() == [[1, 1, 0], [0, 0, 1]]


def test_two_dead_a_units_are_needed_together():
    m = wired_machine()
    plan = FaultPlan((AUnitStuck(0, 0), NoisySum(0.1), AUnitStuck(1, 0, at_s=2.0),
                      PotentiometerDrift(0.5)))
    apply_faults(m, plan)
    found = minimal_faults(m, FIGURES, LABELS)
    # "a" is blind only when both of its A-units are dead: neither alone breaks it
    assert found.faults == (0, 2) and found.r_units == (0,)
    assert found.complete and not found.undecided
    report = check_machine(m, FIGURES, LABELS)
    assert report.faults.evidence["minimal"]["faults"] == [0, 2]
    # the faults named by what broke, and the plan itself in the evidence (issue 28)
    assert ("1-minimal set: faults [0, 2] of the plan (A-unit 1 dead; A-unit 2 dead "
            "from 2 s) make R-unit(s) R1 unlearnable") in report.faults.message
    assert report.faults.evidence["plan"] == plan.to_dict()
    assert report.r_units[0].learnable.message.startswith(
        "not separable on its 1 working A-unit (2 of its 3 stuck): ")


def test_a_healthy_r_unit_counts_all_its_a_units_and_single_culprits_are_named():
    m = wired_machine()
    apply_faults(m, FaultPlan((PhotocellStuck(0, 0), NoisySum(0.1))))
    report = check_machine(m, FIGURES, LABELS)
    assert report.r_units[0].learnable.message.startswith("not separable on its 3 "
                                                          "A-units: ")
    assert ("R1: the PhotocellStuck faults alone (each of these on its own: photocell "
            "1 dead)") in report.faults.message   # cell 0
    apply_faults(m, FaultPlan((NoisySum(0.1),)))
    assert check_machine(m, FIGURES, LABELS).faults.message == (
        "with its faults (noise on every R-unit's sum (sd 0.1 steps)) every R-unit's "
        "task is still learnable")


def test_one_cut_wire_is_enough_where_two_dead_units_also_are():
    m = wired_machine()
    plan = FaultPlan((AUnitStuck(0, 0), AUnitStuck(1, 0), CutWire(a_unit=2, s_unit=1)))
    apply_faults(m, plan)
    found = minimal_faults(m, FIGURES, LABELS)
    # "b" blinded by the cut, or "a" by both dead units: both sets are 1-minimal, and
    # which one comes out depends on the certificate the first check finds
    assert found.faults in ((2,), (0, 1)) and found.complete
    # restricted to a plan without the cut, the two dead units are the answer
    assert minimal_faults(m, FIGURES, LABELS, plan.only(
        lambda f: not isinstance(f, CutWire))).faults == (0, 1)
    assert minimal_faults(m, FIGURES, LABELS, plan.only(
        lambda f: isinstance(f, CutWire))).faults == (0,)


def test_a_healthy_unlearnable_task_needs_no_fault():
    m = wired_machine()
    apply_faults(m, FaultPlan((AUnitStuck(0, 0),)))
    same = np.array([[1, 0], [1, 0]])      # one figure, two labels: never learnable
    assert minimal_faults(m, same, LABELS).faults == ()


def test_minimal_faults_refuses_a_learnable_plan_and_a_bad_r_unit():
    m = wired_machine()
    apply_faults(m, FaultPlan((AUnitStuck(0, 0),)))
    with pytest.raises(ValueError, match="not certified unlearnable"):
        minimal_faults(m, FIGURES, LABELS)
    with pytest.raises(ValueError, match=r"r_unit\(=3\) must be an R-unit index"):
        minimal_faults(m, FIGURES, LABELS, r_unit=3)


def lp_separable(X, y):
    """Independent oracle: is there a w with y_i x_i . w >= 1 for every i (HiGHS LP
    through scipy, on small 0/1 data)?"""
    Z = (y[:, None] * X).astype(float)
    if (~Z.any(axis=1)).any():
        return False
    res = linprog(np.zeros(X.shape[1]), A_ub=-Z, b_ub=-np.ones(len(Z)),
                  bounds=[(None, None)] * X.shape[1], method="highs")
    return res.status == 0


def lp_unlearnable(machine, images, labels, plan, keep):
    sub = FaultPlan(tuple(plan.faults[i] for i in keep), plan.seed)
    t = machine_task(machine, images, labels, plan=sub)
    return any(not lp_separable(t.patterns[:, t.inputs[r]], t.targets[:, r])
               for r in range(machine.params.n_r_units))


def one_minimal(m, images, labels, plan):
    """minimal_faults' set, checked complete and 1-minimal by the independent LP:
    unlearnable, and learnable again without any one of its faults."""
    found = minimal_faults(m, images, labels, plan)
    assert found.complete and not found.undecided
    keep = list(found.faults)
    assert lp_unlearnable(m, images, labels, plan, keep)
    for i in keep:
        assert not lp_unlearnable(m, images, labels, plan, [k for k in keep if k != i])
    return keep


def fault_strategy(p):
    """One fault of ``p``'s machine; those that change patterns count as happened at
    any time, so repeats and overrides of one part come at two times."""
    a, at_s = st.integers(0, p.n_a_units - 1), st.sampled_from([0.0, 1.0])
    return st.one_of(
        st.builds(AUnitStuck, a, st.sampled_from([0, 1]), at_s),
        st.builds(CutWire, a, st.integers(0, 8), at_s),
        st.builds(PhotocellStuck, st.integers(0, 8), st.sampled_from([0, 1]), at_s),
        st.builds(MotorStopped, st.integers(0, p.n_r_units - 1), a),
        st.builds(NoisySum, st.just(0.5)))


def one_state(fault):
    """What a plan may hold once (FaultPlan refuses one part set twice at one time);
    faults that add up (noise) may repeat."""
    part = fault.part()
    return object() if part is None else (type(fault).__name__, part, fault.at_s)


def fault_lists(p, **sizes):
    """Lists of faults of ``p``'s machine that make a plan."""
    return st.lists(fault_strategy(p), unique_by=one_state, **sizes)


TINY = MarkIParams(retina_shape=(3, 3), n_a_units=6, n_excitatory=2, n_inhibitory=0,
                   max_fanout=6, theta=1, n_r_units=2)


@settings(max_examples=20, deadline=None)
@given(fault_lists(TINY, min_size=1, max_size=6),
       st.integers(0, 3))
def test_minimal_set_is_one_minimal_against_an_lp_oracle_hypo(faults, seed):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 2, (4, 9)).astype(float)
    labels = np.array([0, 1, 2, 3])
    m = MarkI(TINY, seed=seed)
    # CutWire must name a real wire: keep only those that do
    real = []
    for f in faults:
        if isinstance(f, CutWire):
            wires = set(m.wiring.excitatory[f.a_unit]) | set(m.wiring.inhibitory[f.a_unit])
            if f.s_unit not in wires:
                continue
        real.append(f)
    plan = FaultPlan(tuple(real), seed=0)
    if not lp_unlearnable(m, images, labels, plan, range(len(plan))):
        with pytest.raises(ValueError):
            minimal_faults(m, images, labels, plan)
        return
    keep = one_minimal(m, images, labels, plan)
    # and it is one of the 1-minimal sets a brute force over every sub-plan finds
    minimal = [set(s) for k in range(len(plan) + 1)
               for s in itertools.combinations(range(len(plan)), k)
               if lp_unlearnable(m, images, labels, plan, s)
               and not any(lp_unlearnable(m, images, labels, plan,
                                          [x for x in s if x != i]) for i in s)]
    assert set(keep) in minimal


def test_cli_breaks_the_machine_and_names_a_minimal_set(capsys, tmp_path):
    import json

    from markone.cli import main

    out = tmp_path / "r.json"
    status = main(["verify", "machine", "letters", "--chars", "AB", "--per-class", "1",
                   "--dead-photocells", "0.99", "--json",
                   str(out)])
    text = capsys.readouterr().out
    assert status == 1 and "faults: NO" in text
    minimal = json.loads(out.read_text())["faults"]["evidence"]["minimal"]
    assert minimal["faults"] and set(minimal["kinds"]) == {"PhotocellStuck"}
    assert "make R-unit(s)" in text
    with pytest.raises(SystemExit) as e:
        main(["verify", "machine", "letters", "--cut-wires", "1.5"])
    assert e.value.code == 2
    assert "must be a fraction in [0, 1]" in capsys.readouterr().err


def real_faults(m, faults):
    """Only the CutWire faults that name a wire of this machine."""
    wires = [set(m.wiring.inputs[a]) for a in range(m.params.n_a_units)]
    return tuple(f for f in faults
                 if not isinstance(f, CutWire) or f.s_unit in wires[f.a_unit])


@settings(max_examples=30, deadline=None)
@given(fault_lists(TINY, min_size=1, max_size=14), st.integers(0, 3),
       st.data())
def test_sub_plan_tasks_equal_machine_task_hypo(faults, seed, data):
    """The minimiser's incremental patterns (set, then faults dropped one by one)
    equal machine_task on the same sub-plan, duplicates and overrides included."""
    from verify.machine.theory._subplans import SubPlans
    from verify.machine.faults import static_fault

    rng = np.random.default_rng(seed)
    images = rng.integers(0, 2, (5, 9)).astype(float)
    labels = np.arange(5) % 3
    m = MarkI(TINY, seed=seed)
    plan = FaultPlan(real_faults(m, faults), seed=0)
    sub = SubPlans(m, images, labels, plan)
    keep = [i for i, f in enumerate(plan.faults) if static_fault(f)]
    sub.set(keep)
    order = data.draw(st.permutations(keep))
    for i in [None] + list(order):
        if i is not None:
            sub.drop(i, sub.without(i))
            keep.remove(i)
        t = machine_task(m, images, labels,
                         plan=FaultPlan(tuple(plan.faults[k] for k in keep), 0))
        assert np.array_equal(sub.A, t.patterns)
        for r in range(TINY.n_r_units):
            assert np.array_equal(sub.inputs(r), t.inputs[r])


def running_patterns(m, images, plan):
    """The A-unit patterns of machine ``m`` running ``plan``, once its own clock has
    passed the last fault."""
    apply_faults(m, plan)
    m.env.run(until=max((f.at_s for f in plan.faults), default=0.0) + 1.0)
    return m.a_features(images)


def broken_twice(p):
    """A part of ``p``'s machine stuck one way at 2 s and the other way at 3 s."""
    value = st.sampled_from([0, 1])
    return st.one_of(
        st.builds(lambda a, v: (AUnitStuck(a, v, 2.0), AUnitStuck(a, 1 - v, 3.0)),
                  st.integers(0, p.n_a_units - 1), value),
        st.builds(lambda c, v: (PhotocellStuck(c, v, 2.0), PhotocellStuck(c, 1 - v, 3.0)),
                  st.integers(0, 8), value))


@settings(max_examples=25, deadline=None)
@given(fault_lists(TINY, max_size=6),
       st.lists(broken_twice(TINY), min_size=1, max_size=3,
                unique_by=lambda two: two[0].part()),
       st.integers(0, 3), st.data())
def test_any_order_of_a_plans_faults_breaks_the_same_parts_hypo(faults, twice, seed,
                                                                 data):
    """However a plan lists its faults (parts broken one way, then the other), the
    running machine, the static analysis (machine_task) and the minimiser's
    incremental patterns end with the damage of the plan listed in time order, sub-plan
    by sub-plan (issue 37)."""
    from verify.machine.theory._subplans import SubPlans
    from verify.machine.faults import static_fault

    rng = np.random.default_rng(seed)
    images = rng.integers(0, 2, (5, 9)).astype(float)
    labels = np.arange(5) % 3
    m = MarkI(TINY, seed=seed)
    faults = real_faults(m, faults) + sum(twice, ())
    listed = FaultPlan(tuple(data.draw(st.permutations(faults))), seed=0)
    ordered = FaultPlan(tuple(sorted(faults, key=lambda f: f.at_s)), seed=0)
    expect = running_patterns(m, images, ordered)
    assert np.array_equal(running_patterns(m, images, listed), expect)
    task = machine_task(m, images, labels, plan=listed)
    assert np.array_equal(task.patterns, expect)
    sub = SubPlans(m, images, labels, listed)
    keep = [i for i, f in enumerate(listed.faults) if static_fault(f)]
    sub.set(keep)
    for i in [None] + list(data.draw(st.permutations(keep))):
        if i is not None:
            sub.drop(i, sub.without(i))
            keep.remove(i)
        part = FaultPlan(tuple(listed.faults[k] for k in keep))
        assert np.array_equal(sub.A, running_patterns(m, images, part))
        for r in range(TINY.n_r_units):
            assert np.array_equal(sub.inputs(r), machine_task(
                m, images, labels, plan=part).inputs[r])


def verdicts(report):
    """What a ``verify machine`` report decides: each claim's verdict, per R-unit too,
    and the digest of the damaged patterns it analysed."""
    def holds(claims):
        return {name: claim["holds"] for name, claim in claims.items()
                if isinstance(claim, dict) and "holds" in claim}
    return (holds(report), [holds(r) for r in report["r_units"]], report["learnable"],
            report["converges"], report["patterns_sha256"])


def test_verify_machine_on_a_run_whose_plan_is_listed_out_of_time_order(tmp_path):
    """A-unit 2 dies at 1 s with A-unit 1 and is stuck on from 2 s: the saved run's
    plan lists the 2 s fault first. ``verify machine RUN.json`` decides as for the
    plan listed in time order (A-unit 2 on: "a" still seen, learnable); before issue
    37 it analysed A-unit 2 dead and found the task unlearnable."""
    import json

    from markone.cli import main

    dead, on = (AUnitStuck(0, 0, at_s=1.0), AUnitStuck(1, 0, at_s=1.0)), \
        AUnitStuck(1, 1, at_s=2.0)
    reports = []
    for plan in (FaultPlan((on,) + dead), FaultPlan(dead + (on,))):
        m = wired_machine()
        apply_faults(m, plan)
        run = m.train(FIGURES, LABELS, presentations=40, log=True)
        assert run.sim_time_s > 2 and m.faults.a_value.tolist() == [0, 1, -1]
        run.save(tmp_path / "run.json")
        assert main(["verify", "machine", str(tmp_path / "run.json"), "--json",
                     str(tmp_path / "report.json")]) == 0
        reports.append(json.loads((tmp_path / "report.json").read_text()))
    listed, ordered = map(verdicts, reports)
    assert listed == ordered and ordered[0]["faults"] and ordered[2]


@pytest.mark.parametrize("every", [8, pytest.param(1, marks=pytest.mark.slow)])
def test_thousands_of_cut_wires_minimise_to_a_one_minimal_set(every):
    """90 % of the wires cut on a 4-letter task: the sweep drops most faults on the
    first certificate, and the result is 1-minimal by the independent LP oracle
    (checked for every ``every``-th fault kept: one LP each, all of them in the slow
    suite)."""
    from markone.datasets import letters
    from markone.hardware.faults import random_faults

    images, labels = letters("ABCD", per_class=3, seed=0)
    m = MarkI(seed=0)
    plan = random_faults(m, cut_wires=0.9, seed=1)
    found = minimal_faults(m, images, labels, plan)
    assert len(plan) == 4608 and found.complete and not found.undecided
    keep = list(found.faults)
    assert len(keep) < 200
    assert lp_unlearnable(m, images, labels, plan, keep)
    for i in keep[::every]:
        assert not lp_unlearnable(m, images, labels, plan, [k for k in keep if k != i])


@settings(max_examples=25, deadline=None)
@given(fault_lists(TINY, min_size=4, max_size=16), st.integers(0, 3))
def test_sweep_keeps_the_result_one_minimal_on_larger_plans_hypo(faults, seed):
    """Plans of up to 16 faults (repeats and overrides included): the result is
    unlearnable and each single deletion learnable, by the independent LP."""
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 2, (5, 9)).astype(float)
    labels = np.arange(5) % 4
    m = MarkI(TINY, seed=seed)
    plan = FaultPlan(real_faults(m, faults), seed=0)
    if not lp_unlearnable(m, images, labels, plan, range(len(plan))):
        return
    keep = one_minimal(m, images, labels, plan)


def test_an_r_unit_with_every_motor_stopped_cannot_learn_and_says_so():
    # both potentiometers of the only R-unit stopped from the start: no input at all,
    # its sum is 0 on every figure (a mistake), so the task is unlearnable; the
    # certificate (one figure) re-checks, and either stopped motor alone is enough
    from verify.machine import recheck_report

    p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                    max_fanout=1, theta=1, n_r_units=1, weight_range=(-1, 1))
    machine = MarkI(p, seed=0)
    apply_faults(machine, FaultPlan((MotorStopped(0, 0), MotorStopped(0, 1))))
    figures, labels = np.array([[1, 0], [0, 1]]), ["a", "b"]
    report = check_machine(machine, figures, labels)
    r = report.r_units[0]
    assert (r.learnable.holds, r.converges.holds) == (False, False)
    assert r.learnable.evidence == {"certificate": {"0": "1"}, "a_units": []}
    assert "no A-unit reaches it" in r.learnable.message
    assert report.faults.evidence["culprits"]["0"]["faults"] == [0, 1]
    checks = {c.claim: c.status for c in recheck_report(report, machine, figures,
                                                        labels)}
    assert checks["R1 learnable"] == checks["R1 converges"] == "confirmed"
