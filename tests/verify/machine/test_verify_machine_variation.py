"""check_machine under device variation: every claim it makes is confirmed on the
machine itself or is "not decided" (verify/machine/claims/_variation.py).

The learnable, timing and fault claims are the variation-free machine's; the
end-stop, convergence and quantisation claims are undecided under variation that
breaks the whole-step arithmetic, exact (and re-run) when no potentiometer can ever
move, and the variation-free machine's when nothing can stick."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from markone.hardware.params import VARIATION_FIELDS
from markone.hardware.faults import FaultPlan, NoisySum, apply_faults
from verify.machine import check_machine, recheck_report
from verify.machine.claims._variation import variation_effect
from verify.machine.claims import Method
from test_verify_machine_projected import two_letter_machines

#: Variation of each effect (see _variation's doc); sticky_steps 1 is harmless at the
#: default increment of 1 step, 2 freezes every potentiometer.
VARIATIONS = [{"step_dtod": 0.3}, {"step_std": 0.5}, {"up_down": 0.3},
              {"drift_rate": 0.05}, {"sticky_prob": 0.3}, {"sticky_steps": 1},
              {"sticky_steps": 2}, {"sticky_prob": 1.0},
              {"sticky_steps": 2, "drift_rate": 0.01}, {"sticky_prob": 1.0, "up_down": 0.5}]

CHECK = dict(orders=0, exact_budget=1, z3_depth=0)


def claims(report):
    """Every claim of a report, by name."""
    out = {name: getattr(report, name) for name in ("timing", "faults", "quantisation")}
    for r in report.r_units:
        for slot in ("learnable", "end_stops", "converges"):
            out[f"R{r.r_unit + 1} {slot}"] = getattr(r, slot)
    return out


def confirmed_or_unknown(machine, images, labels, variation):
    varied = MarkI(machine.params.replace(**variation), seed=machine.seed)
    effect = variation_effect(varied.params, None)
    got = claims(check_machine(varied, images, labels, **CHECK))
    plain = claims(check_machine(machine, images, labels, **CHECK))
    for name in ("timing", "faults") + tuple(n for n in got if n.endswith("learnable")):
        assert got[name] == plain[name], name        # untouched by the potentiometers
    if effect == "harmless":    # nothing sticks: the same claims, the same machine
        assert got == plain
        same = [MarkI(m.params, seed=m.seed).train(images, labels, max_epochs=30).weights
                for m in (varied, machine)]
        assert np.array_equal(*same)
        return effect
    assert got["quantisation"].holds is None
    for name, claim in got.items():
        if name.endswith(("end_stops", "converges")) and got[name.replace(
                name.split()[1], "learnable")].holds is True:
            assert claim.method == (Method.VARIATION_FROZEN if effect == "frozen"
                                    else Method.VARIATION), name
            if effect == "open":
                assert claim.holds is None, name
    if effect == "frozen" and got["R1 learnable"].holds is True:
        assert (got["R1 end_stops"].holds, got["R1 converges"].holds) == (True, False)
        stream = got["R1 converges"].evidence["stream"]
        run = varied.train(images, labels, order=stream, max_epochs=6)
        assert not run.converged and run.mistakes_per_epoch[-1] > 0   # never clean
        assert not run.weights.any() and not run.saturated.any()     # never moved
    return effect


_TASKS = given(task=two_letter_machines(), variation=st.sampled_from(VARIATIONS))
_HEALTH = [HealthCheck.filter_too_much, HealthCheck.too_slow]


def _property(task, variation):
    event(confirmed_or_unknown(*task, variation))


test_claims_under_variation_are_confirmed_or_unknown_hypo = settings(
    max_examples=12, deadline=None, suppress_health_check=_HEALTH)(_TASKS(_property))
test_claims_under_variation_are_confirmed_or_unknown_many_hypo = pytest.mark.slow(
    settings(max_examples=100, deadline=None, suppress_health_check=_HEALTH)(
        _TASKS(_property)))


@pytest.mark.parametrize("variation", VARIATIONS)
def test_each_variation_on_the_letters(variation):
    images, labels = letters("AB", per_class=3, seed=1)
    machine = MarkI(MarkIParams(n_r_units=1, n_a_units=64, weight_range=(-3, 3)), seed=2)
    assert check_machine(machine, images, labels, **CHECK).learnable is True
    assert confirmed_or_unknown(machine, images, labels, variation) == variation_effect(
        machine.params.replace(**variation), None)


def test_a_moving_fault_unfreezes_the_potentiometers():
    # summation noise can make a zero sum right: a frozen machine's refutation no
    # longer holds, so the claims are not decided
    machine = MarkI(MarkIParams(sticky_prob=1.0), seed=0)
    apply_faults(machine, FaultPlan((NoisySum(0.5),)))
    assert variation_effect(machine.params, machine.faults.plan) == "open"


@pytest.mark.parametrize("variation", [{"up_down": 0.3}, {"sticky_steps": 2}])
def test_a_report_under_variation_rechecks(variation):
    images, labels = letters("AB", per_class=3, seed=1)
    machine = MarkI(MarkIParams(n_r_units=2, **variation), seed=2)
    report = check_machine(machine, images, labels, **CHECK)
    checks = recheck_report(report, machine, images, labels)
    assert "refuted" not in {c.status for c in checks}, checks
    # the same report read against the machine without variation is refused
    plain = MarkI(MarkIParams(n_r_units=2), seed=2)
    with pytest.raises(ValueError, match="another machine: its"):
        recheck_report(report, plain, images, labels)


def test_a_report_from_before_variation_is_about_a_machine_without_it():
    images, labels = letters("AB", per_class=3, seed=1)
    machine = MarkI(MarkIParams(n_r_units=2), seed=2)
    report = check_machine(machine, images, labels, **CHECK).to_dict()
    for name in VARIATION_FIELDS:    # as a report written before they existed
        del report["machine"][name]
    checks = recheck_report(report, machine, images, labels)
    assert "refuted" not in {c.status for c in checks}
    with pytest.raises(ValueError, match="its step_dtod is '<missing>', this machine's is 0.1"):
        recheck_report(report, MarkI(MarkIParams(n_r_units=2, step_dtod=0.1), seed=2),
                       images, labels)
