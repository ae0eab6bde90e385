"""A corpus of forged machine reports: none may pass ``recheck_report``.

Genuine reports are built once per module on small tasks that between them hold
every kind of claim (witnesses and certificates; end stops proven by Novikoff's
bound, the one-signed argument, an exact reachable set and ball directions, or
refuted by a stream; convergence by a clipped centre, an all-streams set, a
blocking cycle or continuations; the forced and gamma rules; timing, quantisation
and faults). Each forgery changes one thing (a number, a type, a verdict, the
machine, the figures, the file's text) and must be refused (ValueError: exit 2) or
have a claim refuted (exit 1): never confirmed or unchecked throughout (exit 0),
never an internal error (exit 3). The genuine reports themselves re-check with no
claim refuted. A representative subset runs through ``markone verify machine
--recheck``.
"""

import copy
import json
import math

import numpy as np
import pytest

from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from markone.hardware.faults import AUnitStuck, FaultPlan, MotorStopped, apply_faults
from _machines import ball_report
from verify.machine import check_machine, recheck_report

TWO_CELLS = dict(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                 max_fanout=1, theta=1, n_r_units=1)
FIGURES = np.array([[1, 0], [0, 1]])   # "a" -> target -1, "b" -> +1
LABELS = ["a", "b"]


def _task(machine, images, labels, **options):
    return _as_json((machine, images, labels,
                     check_machine(machine, images, labels, **options)))


def _as_json(task):
    """The task with its report as a file holds it."""
    *rest, report = task
    return (*rest, json.loads(json.dumps(report.to_dict())))


def _two_cells(faults=(), **changes):
    machine = MarkI(MarkIParams(**{**TWO_CELLS, **changes}), seed=0)
    if faults:
        apply_faults(machine, FaultPlan(tuple(faults)))
    return machine


@pytest.fixture(scope="module")
def genuine():
    """Name -> (machine, images, labels, report as JSON): the genuine reports."""
    six, six_labels = letters("ABCDEF", per_class=2, seed=0)
    four, four_labels = letters("ABCD", per_class=3, seed=0)
    three, three_labels = letters("ABC", per_class=2, seed=0)
    return {
        # greedy streams to a stop, clipped centres, one-signed columns, the
        # ideal perceptron; an exposure that blends figures
        "letters": _task(MarkI(MarkIParams(weight_range=(-2, 2)), seed=0), six,
                         six_labels, orders=1, exposure_s=0.01),
        # Novikoff's bounds from the margin
        "novikoff": _task(MarkI(seed=0), four, four_labels),
        # stops (0, 1): a stream to a stop and a blocking cycle (all streams)
        "blocked": _task(_two_cells(weight_range=(0, 1)), FIGURES, LABELS),
        # the same found by continuing after the stop
        "continued": _task(_two_cells(weight_range=(0, 1)), FIGURES, LABELS,
                           exact_budget=1, orders=0),
        # a cut move that still learns: continuations, undecided
        "cut": _task(_two_cells(weight_range=(-1, 1), increment_steps=2), FIGURES,
                     LABELS, exact_budget=1, orders=0),
        # exact reachable states, and the all-streams convergence set
        "reach": _task(_two_cells(weight_range=(-1, 1)), FIGURES, LABELS),
        "all_streams": _task(_two_cells(weight_range=(-1, 1), increment_steps=2),
                             FIGURES, LABELS),
        # per-weight balls from their integer directions
        "ball": _as_json(ball_report()),
        "forced": _task(MarkI(MarkIParams(weight_range=(-2, 2), rule="forced"), seed=0),
                        three, three_labels),
        "gamma": _task(MarkI(MarkIParams(weight_range=(-2, 2), rule="gamma",
                                         n_a_units=64, n_r_units=2), seed=0),
                       three, three_labels),
        # a dead A-unit: a Gordan certificate, and the faults that broke the task
        "unlearnable": _task(_two_cells([AUnitStuck(0, value=0)]), FIGURES, LABELS),
        # every motor of the R-unit stopped: it cannot learn
        "stopped": _task(_two_cells([MotorStopped(0, 0), MotorStopped(0, 1)],
                                    weight_range=(-1, 1)), FIGURES, LABELS),
    }


# --------------------------------------------------------------------------------------
# helpers to name the claims a forgery changes


def find(report, claim, holds, method=None):
    """The first R-unit whose ``claim`` has this verdict (and method)."""
    return next(r["r_unit"] for r in report["r_units"] if r[claim]["holds"] is holds
                and (method is None or r[claim]["method"] == method))


def claim_of(report, claim, holds=None, method=None, r=None):
    r = find(report, claim, holds, method) if r is None else r
    return report["r_units"][r][claim]


def ev_of(report, claim, holds=None, method=None, r=None):
    return claim_of(report, claim, holds, method, r)["evidence"]


def hit(d):
    return ev_of(d, "end_stops", False)


def novikoff(d):
    return ev_of(d, "end_stops", True, "|w_j| <= reinforcements <= (R/gamma)^2")


def centre(d):
    return ev_of(d, "converges", True, "clipped Novikoff ball")


def set_(target, key, value):
    target[key] = value


def negate(values):
    return [str(-int(v)) if isinstance(v, str) else -v for v in values]


def swap_evidence(claim):
    """R-unit 0's evidence of ``claim`` given to R-unit 1 and back."""
    def change(d):
        a, b = d["r_units"][0][claim], d["r_units"][1][claim]
        a["evidence"], b["evidence"] = b["evidence"], a["evidence"]
    return change


def flip(claim, holds, method=None, find_holds=False, find_method=None, drop=()):
    """A claim's verdict (and method) changed, its evidence kept (less ``drop``)."""
    def change(d):
        c = claim_of(d, claim, find_holds, find_method)
        c["holds"] = holds
        if method is not None:
            c["method"] = method
        for k in drop:
            c["evidence"].pop(k)
    return change


def other_machine(**changes):
    """The genuine report re-checked on a machine with other parameters."""
    def change(task):
        machine, images, labels, report = task
        return MarkI(machine.params.replace(**changes), seed=0), images, labels, report
    return change


# --------------------------------------------------------------------------------------
# the corpus: name -> (genuine task, change of the report dict, or of the whole task)

def forgery_table():
    F = {}

    def add(name, task, change=None, whole=None):
        assert name not in F, name
        F[name] = (task, change, whole)

    # the forgeries of the issue
    add("reinforcement_bound lowered to -5", "novikoff",
        lambda d: set_(novikoff(d), "reinforcement_bound", -5))
    add("gamma_lower raised", "novikoff",
        lambda d: set_(novikoff(d), "gamma_lower", 2 * novikoff(d)["gamma_lower"]))
    add("R_sq changed", "novikoff", lambda d: set_(novikoff(d), "R_sq",
                                                   novikoff(d)["R_sq"] + 1))
    add("gamma_lower NaN", "novikoff", lambda d: set_(novikoff(d), "gamma_lower",
                                                      math.nan))
    add("learnable 'yes'", "novikoff", lambda d: set_(d, "learnable", "yes"))
    add("claim holds 'yes'", "novikoff",
        lambda d: set_(d["r_units"][0]["learnable"], "holds", "yes"))
    add("made with stops +/-2, re-checked on the forced rule", "letters",
        whole=other_machine(rule="forced"))
    add("made with stops +/-2, re-checked with stops +/-50", "letters",
        whole=other_machine(weight_range=(-50, 50)))
    add("end stops false -> true, stream kept", "letters",
        flip("end_stops", True, "one-signed columns"))
    add("end stops false -> undecided, stream kept", "letters",
        flip("end_stops", None, "||w|| <= R^2/gamma"))
    add("end stops false -> true by Z3, stream dropped", "letters",
        flip("end_stops", True, "z3 bounded model checking", drop=("stream",)))
    add("end stops false -> true by Z3, stream and bound dropped", "letters",
        flip("end_stops", True, "z3 bounded model checking", drop=(
            "stream", "bound_used", "max_weight_steps", "min_weight_steps")))

    # learnable
    add("witness negated", "letters", lambda d: set_(
        ev_of(d, "learnable", True), "witness",
        negate(ev_of(d, "learnable", True)["witness"])))
    add("witness entry not a number", "letters",
        lambda d: ev_of(d, "learnable", True)["witness"].__setitem__(0, "x"))
    add("witness entry a float", "letters",
        lambda d: ev_of(d, "learnable", True)["witness"].__setitem__(0, 0.5))
    add("witness truncated", "letters",
        lambda d: ev_of(d, "learnable", True)["witness"].pop())
    add("witness dropped", "letters", lambda d: ev_of(d, "learnable", True).pop("witness"))
    add("a_units shortened", "letters", lambda d: ev_of(d, "learnable", True)["a_units"].pop())
    add("learnable true -> false, witness kept", "letters",
        flip("learnable", False, find_holds=True))
    add("learnable true -> undecided, witness kept", "letters",
        flip("learnable", None, find_holds=True))
    add("learnable by another method", "letters",
        lambda d: set_(claim_of(d, "learnable", True), "method", "oracle"))
    add("witness and certificate", "letters",
        lambda d: set_(ev_of(d, "learnable", True), "certificate", {"0": "1"}))
    add("witnesses swapped between R-units", "letters", swap_evidence("learnable"))
    add("certificate emptied", "unlearnable",
        lambda d: set_(ev_of(d, "learnable", False), "certificate", {}))
    add("certificate weights negative", "unlearnable", lambda d: set_(
        ev_of(d, "learnable", False), "certificate",
        {k: "-1" for k in ev_of(d, "learnable", False)["certificate"]}))
    add("certificate weights zero", "unlearnable", lambda d: set_(
        ev_of(d, "learnable", False), "certificate",
        {k: "0" for k in ev_of(d, "learnable", False)["certificate"]}))
    add("certificate names a missing figure", "unlearnable",
        lambda d: set_(ev_of(d, "learnable", False), "certificate", {"7": "1"}))
    add("certificate over both figures", "unlearnable",
        lambda d: set_(ev_of(d, "learnable", False), "certificate", {"0": "1", "1": "1"}))
    add("not learnable -> learnable", "unlearnable", flip("learnable", True))
    add("no inputs: certificate dropped", "stopped",
        lambda d: ev_of(d, "learnable", False).pop("certificate"))

    # end stops: the stream
    add("stream truncated", "letters", lambda d: hit(d)["stream"].pop())
    add("stream emptied", "letters", lambda d: set_(hit(d), "stream", []))
    add("stream names a missing figure", "letters",
        lambda d: hit(d)["stream"].append(10 ** 6))
    add("stream index a string", "letters", lambda d: hit(d)["stream"].__setitem__(0, "0"))
    add("stream index negative", "letters", lambda d: hit(d)["stream"].__setitem__(0, -1))
    add("stream dropped, still refuted", "letters", lambda d: hit(d).pop("stream"))
    add("end-stop evidence swapped between R-units", "letters", swap_evidence("end_stops"))
    add("hit by a method that proves the opposite", "letters",
        lambda d: set_(claim_of(d, "end_stops", False), "method", "one-signed columns"))

    # end stops: margin and bounds
    add("margin direction negated", "novikoff", lambda d: set_(
        novikoff(d), "margin_direction", negate(novikoff(d)["margin_direction"])))
    add("margin direction truncated", "novikoff",
        lambda d: novikoff(d)["margin_direction"].pop())
    add("margin direction infinite", "novikoff",
        lambda d: novikoff(d)["margin_direction"].__setitem__(0, math.inf))
    add("margin direction dropped", "novikoff", lambda d: novikoff(d).pop("margin_direction"))
    add("norm bound changed", "novikoff", lambda d: set_(
        novikoff(d), "novikoff_norm_bound_steps",
        str(int(novikoff(d)["novikoff_norm_bound_steps"]) - 1)))
    add("max weight changed", "novikoff", lambda d: set_(novikoff(d), "max_weight_steps", "1"))
    add("min weight changed", "novikoff", lambda d: set_(novikoff(d), "min_weight_steps", "-1"))
    add("bound_used switched", "novikoff",
        lambda d: set_(novikoff(d), "bound_used", "||w|| <= R^2/gamma"))
    add("reinforcement bound as a string", "novikoff", lambda d: set_(
        novikoff(d), "reinforcement_bound", str(novikoff(d)["reinforcement_bound"])))
    add("R_sq a float", "novikoff", lambda d: set_(novikoff(d), "R_sq", 1.5))
    add("evidence stops changed", "novikoff",
        lambda d: set_(novikoff(d), "weight_range", ["-2", "2"]))
    add("evidence increment changed", "novikoff",
        lambda d: set_(novikoff(d), "increment_steps", "2"))
    add("unknown evidence field", "novikoff",
        lambda d: set_(novikoff(d), "gamma_upper", 1.0))
    add("one-signed claim refuted without a stream", "novikoff",
        flip("end_stops", False, "greedy", True, "one-signed columns"))
    add("one-signed bound changed", "novikoff", lambda d: set_(
        ev_of(d, "end_stops", True, "one-signed columns"), "max_weight_steps", "7"))
    add("reachable set loses a state", "reach", lambda d: ev_of(
        d, "end_stops", True)["invariant_states"].pop(
            next(k for k, s in enumerate(ev_of(d, "end_stops", True)["invariant_states"])
                 if any(s))))
    add("reachable set gains a state beyond the stops", "reach",
        lambda d: ev_of(d, "end_stops", True)["invariant_states"].append([2, 0]))
    add("reachable set's groups merged", "reach",
        lambda d: set_(ev_of(d, "end_stops", True), "invariant_groups", [[0, 1]]))
    add("reachable states counted wrong", "reach", lambda d: set_(
        ev_of(d, "end_stops", True), "reachable_states",
        ev_of(d, "end_stops", True)["reachable_states"] + 1))
    add("reachable set dropped, bound kept", "reach",
        lambda d: ev_of(d, "end_stops", True).pop("invariant_states"))
    add("ball direction negated", "ball", lambda d: ev_of(
        d, "end_stops", True)["ball_directions"].__setitem__(
            0, [-v for v in ev_of(d, "end_stops", True)["ball_directions"][0]]))
    add("ball bound changed", "ball",
        lambda d: set_(ev_of(d, "end_stops", True), "max_weight_steps", "2"))

    # convergence
    add("centre negated", "letters", lambda d: set_(
        centre(d), "center_numerators", [-v for v in centre(d)["center_numerators"]]))
    add("centre bound lowered", "letters", lambda d: set_(
        centre(d), "reinforcement_bound", centre(d)["reinforcement_bound"] - 1))
    add("centre decrease changed", "letters",
        lambda d: set_(centre(d), "min_decrease", "1000"))
    add("centre denominator dropped", "letters", lambda d: centre(d).pop("center_denominator"))
    add("centre's a_units shortened", "letters", lambda d: centre(d)["a_units"].pop())
    add("centre claim without a centre", "letters",
        lambda d: set_(claim_of(d, "converges", True, "clipped Novikoff ball"), "evidence", {}))
    add("learns -> never learns with a centre", "letters",
        flip("converges", False, "periodic order", True, "clipped Novikoff ball"))
    add("ideal perceptron over a stop that is reached", "letters", lambda d: set_(
        d["r_units"][find(d, "end_stops", False)], "converges", {
            "holds": True, "method": "equals the ideal perceptron", "evidence": {},
            "message": "learns for every order (Novikoff's theorem), because no end "
                       "stop ever bites"}))
    add("ideal perceptron message's bound changed", "novikoff", lambda d: set_(
        claim_of(d, "converges", True), "message", "learns for every order within 1 "
        "reinforcements (the end-stop claim's bound), because no end stop ever bites"))
    add("cycle not fair", "blocked",
        lambda d: ev_of(d, "converges", False)["cycle"].pop(0))
    add("prefix names a missing figure", "blocked",
        lambda d: ev_of(d, "converges", False)["prefix"].append(2))
    add("blocking cycle said to learn", "blocked",
        flip("converges", True, "exhaustive (all streams)"))
    add("blocking cycle said undecided", "blocked", flip("converges", None, "periodic orders"))
    add("never learns without a cycle", "blocked",
        lambda d: set_(claim_of(d, "converges", False), "evidence", {}))
    add("all-streams set loses a state", "all_streams", lambda d: ev_of(
        d, "converges", True)["invariant_states"].pop(
            next(k for k, s in enumerate(ev_of(d, "converges", True)["invariant_states"])
                 if any(s))))
    add("all-streams learner said to block", "all_streams",
        flip("converges", False, "exhaustive (all streams)", True))
    add("continuation passes changed", "cut",
        lambda d: ev_of(d, "converges")["continuations"][0].update(passes=3))
    add("continuation reinforcements changed", "cut", lambda d: ev_of(
        d, "converges")["continuations"][0].update(reinforcements_after_prefix=0))
    add("continuation outcome changed", "cut", lambda d: ev_of(
        d, "converges")["continuations"][0].update(outcome="never learns",
                                                   cycle_start=0, period=1))
    add("continuation order changed", "cut", lambda d: ev_of(
        d, "converges")["continuations"][0].update(order_indices=[1, 0]))
    add("continuation with a clock field", "cut",
        lambda d: ev_of(d, "converges")["continuations"][0].update(timed_out=True))
    add("blocking continuation's cycle changed", "continued", lambda d: ev_of(
        d, "converges", False)["continuations"][0].update(period=2))
    add("blocking continuation's prefix changed", "continued",
        lambda d: set_(ev_of(d, "converges", False), "prefix", [0, 1]))
    # the continuations that found the cycle dropped: the cycle still blocks, but
    # the claim no longer states its search (it was confirmed; issue 46)
    add("blocking continuation's continuations dropped", "continued",
        lambda d: ev_of(d, "converges", False).pop("continuations"))

    # the forced and gamma rules
    add("forced: mu changed", "forced", lambda d: ev_of(d, "end_stops", False)["mu"]
        .__setitem__(0, ev_of(d, "end_stops", False)["mu"][0] + 1))
    add("forced: hit stream truncated", "forced",
        lambda d: ev_of(d, "end_stops", False)["hit_stream"].pop())
    add("forced: never-learning stream changed", "forced", lambda d: set_(
        ev_of(d, "converges", False), "stream", ev_of(d, "converges", False)["stream"][1:]))
    add("forced: learns -> never learns", "forced",
        flip("converges", False, find_holds=True))
    add("forced: passes changed", "forced", lambda d: set_(
        ev_of(d, "converges", True), "passes", ev_of(d, "converges", True)["passes"] + 1))
    add("gamma: stall probability changed", "gamma", lambda d: set_(
        ev_of(d, "end_stops", False), "stall_log10",
        ev_of(d, "end_stops", False)["stall_log10"] + 1))
    add("gamma: bound changed", "gamma", lambda d: set_(
        ev_of(d, "converges"), "reinforcement_bound", 1))
    add("gamma: claim in the error-correction rule's words", "gamma",
        flip("end_stops", True, "one-signed columns", False))

    # the whole machine
    add("timing: a limit changed", "letters",
        lambda d: set_(d["timing"]["evidence"], "rise_limit_s", 0.0))
    add("timing: exposure changed", "letters",
        lambda d: set_(d["timing"]["evidence"], "exposure_s", 1.0))
    add("timing: blending said safe", "letters", lambda d: set_(d["timing"], "holds", True))
    add("timing: changed A-units altered", "letters",
        lambda d: d["timing"]["evidence"]["a_units_changed"].pop())
    add("timing: blend dropped, still false", "letters", lambda d: [
        d["timing"]["evidence"].pop(k) for k in ("before", "figure", "a_units_changed")])
    add("timing: blend moved to the next figure", "letters", lambda d: set_(
        d["timing"]["evidence"], "figure", (d["timing"]["evidence"]["figure"] + 1) % 12))
    add("timing: blend after a missing figure", "letters",
        lambda d: set_(d["timing"]["evidence"], "before", 10 ** 6))
    add("timing: a fixed exposure said to settle", "letters",
        lambda d: set_(d["timing"], "method", "settling"))
    add("quantisation: units per step changed", "letters",
        lambda d: set_(d["quantisation"]["evidence"], "units_per_step", 2))
    add("quantisation: said to round", "letters", lambda d: set_(d["quantisation"],
                                                                 "holds", False))
    add("faults: said to have none", "stopped",
        lambda d: set_(d, "faults", {"holds": True, "method": "no faults",
                                     "message": "the machine has no faults",
                                     "evidence": {}}))
    add("faults: count changed", "stopped",
        lambda d: set_(d["faults"]["evidence"], "faults", 3))
    add("faults: culprits changed", "stopped",
        lambda d: set_(d["faults"]["evidence"]["culprits"]["0"], "faults", [0]))
    add("faults: smallest set grown", "stopped",
        lambda d: d["faults"]["evidence"]["minimal"].update(faults=[0, 1],
                                                            kinds=["MotorStopped"] * 2))
    add("faults: smallest set names a missing fault", "stopped",
        lambda d: d["faults"]["evidence"]["minimal"].update(faults=[5]))
    add("faults: healthy machine said damaged", "letters", lambda d: set_(
        d["faults"], "holds", False))

    # the report's own fields, its machine and its figures
    add("theta changed", "letters", lambda d: set_(d, "theta", d["theta"] + 1))
    add("number of figures changed", "letters",
        lambda d: set_(d, "n_examples", d["n_examples"] + 1))
    add("summary verdict flipped", "letters", lambda d: set_(d, "converges", False))
    add("report's parameters changed", "letters",
        lambda d: d["machine"].update(topology="source_sets"))
    add("unknown format", "letters", lambda d: set_(d, "format",
                                                    "markone.verify.machine/4"))
    add("unknown top-level field", "letters", lambda d: set_(d, "verified", True))
    add("unknown claim field", "letters",
        lambda d: set_(d["r_units"][0]["learnable"], "confidence", 1.0))
    add("R-unit entry duplicated", "letters",
        lambda d: d["r_units"].__setitem__(1, copy.deepcopy(d["r_units"][0])))
    add("R-unit entry dropped", "letters", lambda d: d["r_units"].pop())
    add("data hash changed", "letters", lambda d: set_(d, "data_sha256", "0" * 64))
    add("patterns hash changed", "letters", lambda d: set_(d, "patterns_sha256", "0" * 64))
    add("time negative", "letters", lambda d: set_(d, "time_s", -1.0))
    add("evidence a list", "letters",
        lambda d: set_(d["r_units"][0]["learnable"], "evidence", []))
    add("holds as the number 1", "letters",
        lambda d: set_(d["r_units"][0]["learnable"], "holds", 1))
    add("another wiring", "letters",
        whole=lambda t: (MarkI(t[0].params, seed=1), t[1], t[2], t[3]))
    add("other figures", "letters", whole=lambda t: (t[0], t[1][::-1], t[2][::-1], t[3]))
    add("a format 1 report with a lowered bound", "novikoff",
        lambda d: (set_(d, "format", "markone.verify.machine/1"), d.pop("machine"),
                   set_(novikoff(d), "reinforcement_bound", -5)))
    return F


FORGERIES = forgery_table()


def test_the_corpus_is_large():
    assert len(FORGERIES) >= 60


def forge(genuine, name):
    task, change, whole = FORGERIES[name]
    machine, images, labels, report = genuine[task]
    report = copy.deepcopy(report)
    if change is not None:
        change(report)
    if whole is not None:
        machine, images, labels, report = whole((machine, images, labels, report))
    return machine, images, labels, report


@pytest.mark.parametrize("task", ["letters", "novikoff", "blocked", "continued", "cut",
                                  "reach", "all_streams", "ball", "forced", "gamma",
                                  "unlearnable", "stopped"])
def test_genuine_reports_recheck_with_nothing_refuted(genuine, task):
    machine, images, labels, report = genuine[task]
    checks = recheck_report(report, machine, images, labels)
    assert [c for c in checks if c.status == "refuted"] == []
    assert {c.claim: c.status for c in checks}["report"] == "confirmed"


def test_a_blend_of_figures_rechecks_from_its_evidence(genuine):
    machine, images, labels, report = genuine["letters"]
    assert report["timing"]["holds"] is False
    check = {c.claim: c for c in recheck_report(report, machine, images, labels)}
    assert check["timing"].status == "confirmed"
    ev = report["timing"]["evidence"]
    assert check["timing"].why.endswith(f"figure {ev['figure'] + 1} fires "
                                        f"{len(ev['a_units_changed'])} A-units "
                                        "differently (exact)")


def test_format_1_reports_are_still_read(genuine):
    # as markone wrote them before the parameters were named: no "machine", search
    # records in the evidence (set aside on reading)
    machine, images, labels, report = genuine["novikoff"]
    old = copy.deepcopy(report)
    old["format"] = "markone.verify.machine/1"
    del old["machine"], old["worst_case"]     # format 3 added the worst_case claim
    novikoff(old)["gamma_upper"] = novikoff(old)["gamma_lower"] * 1.01
    checks = {c.claim: c.status for c in recheck_report(old, machine, images, labels)}
    assert "refuted" not in checks.values() and checks["R1 end_stops"] == "confirmed"
    with pytest.raises(ValueError, match="its weight_range is \\[-50, 50\\], this "
                       "machine's is \\[-2, 2\\]"):
        recheck_report(old, MarkI(machine.params.replace(weight_range=(-2, 2)), seed=0),
                       images, labels)


def test_the_report_names_every_parameter_and_a_difference_by_name(genuine):
    machine, images, labels, report = genuine["letters"]
    assert report["machine"] == machine.params.to_dict()
    for change, name in (({"increment_steps": 2}, "increment_steps"),
                         ({"theta": 3}, "theta"), ({"quantize": False}, "quantize"),
                         ({"topology": "source_sets"}, "topology"),
                         ({"up_down": 0.2}, "up_down")):
        other = MarkI(machine.params.replace(**change), seed=0)
        with pytest.raises(ValueError, match=f"another machine: its {name} is"):
            recheck_report(report, other, images, labels)


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_no_forgery_passes(genuine, name):
    machine, images, labels, report = forge(genuine, name)
    try:
        checks = recheck_report(report, machine, images, labels)
    except ValueError as exc:          # refused: exit 2, with a message
        assert str(exc)
        return
    refuted = [c for c in checks if c.status == "refuted"]
    assert refuted, [(c.claim, c.status, c.why) for c in checks]


def _leaves(value, path=()):
    """Paths to every number, string, boolean, null and empty list of a report."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(value, list) and value:
        for i, v in enumerate(value):
            yield from _leaves(v, (*path, i))
    else:
        yield path


def _damaged(value, rng):
    """Another value of another kind or size (never the same)."""
    options = [None, True, -1, 2 ** 70, 0.5, "7/2", "x", [], [0], {}]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        options += [value + 1, -value - 1]
    return next(v for v in rng.permutation(np.array(options, dtype=object))
                if not (v == value and type(v) is type(value)))


@pytest.mark.parametrize("task", ["letters", "novikoff", "continued", "cut", "reach",
                                  "all_streams", "ball", "forced", "gamma", "stopped"])
def test_random_damage_is_never_an_internal_error(genuine, task):
    # one leaf of the report replaced (or its key removed), 8 times per task: the
    # re-check refuses it, refutes a claim, or finds it still proven; never crashes
    machine, images, labels, report = genuine[task]
    rng = np.random.default_rng(0)
    paths = [p for p in _leaves(report) if p[-1] not in ("message", "time_s")]
    for k in rng.choice(len(paths), 8, replace=False):
        bad = copy.deepcopy(report)
        *head, last = paths[k]
        parent = bad
        for key in head:
            parent = parent[key]
        if isinstance(parent, dict) and rng.random() < 0.2:
            del parent[last]
        else:
            parent[last] = _damaged(parent[last], rng)
        try:
            recheck_report(bad, machine, images, labels)
        except ValueError:
            pass


# --------------------------------------------------------------------------------------
# through the command line


CLI_TASK = ["verify", "machine", "letters", "--chars", "ABC", "--per-class", "2",
            "--weight-range", "2"]


@pytest.fixture(scope="module")
def cli_report(tmp_path_factory):
    from markone.cli import main

    path = tmp_path_factory.mktemp("cli") / "report.json"
    assert main([*CLI_TASK, "--json", str(path)]) in (0, 1, 4)
    return path.read_text()


def _cli_forgeries(text):
    d = json.loads(text)
    exact = next(r for r in d["r_units"] if r["end_stops"]["method"]
                 == "exact reachable states")
    hit_ = next(r for r in d["r_units"] if r["end_stops"]["holds"] is False)

    def edited(change):
        out = copy.deepcopy(d)
        change(out)
        return json.dumps(out)

    return {
        "witness negated": (edited(lambda o: o["r_units"][0]["learnable"][
            "evidence"].update(witness=negate(
                o["r_units"][0]["learnable"]["evidence"]["witness"]))), CLI_TASK, 1),
        "learnable 'yes'": (edited(lambda o: o.update(learnable="yes")), CLI_TASK, 2),
        "NaN in the file": (text.replace('"time_s": ', '"time_s": NaN, "x": ', 1),
                            CLI_TASK, 2),
        "duplicated key": (text.replace('"theta": ', '"theta": 0, "theta": ', 1),
                           CLI_TASK, 2),
        "truncated file": (text[:len(text) // 2], CLI_TASK, 2),
        # the stream kept: a field a one-signed claim does not have (issue 46)
        "end stops false -> true": (edited(lambda o: o["r_units"][hit_["r_unit"]][
            "end_stops"].update(holds=True, method="one-signed columns")), CLI_TASK, 2),
        "reachable set emptied": (edited(lambda o: o["r_units"][exact["r_unit"]][
            "end_stops"]["evidence"].update(invariant_states=[[0] * len(
                exact["end_stops"]["evidence"]["invariant_groups"])])), CLI_TASK, 1),
        "stops +/-2 re-checked at +/-3": (text, [*CLI_TASK[:-1], "3"], 2),
        "re-checked on source sets": (text, [*CLI_TASK, "--topology", "source_sets"], 2),
        "theta changed": (edited(lambda o: o.update(theta=o["theta"] + 1)), CLI_TASK, 1),
    }


def test_cli_refuses_forgeries_with_exit_1_or_2(cli_report, tmp_path, capsys):
    from markone.cli import main

    path = tmp_path / "report.json"
    path.write_text(cli_report)
    assert main([*CLI_TASK, "--recheck", str(path)]) == 0          # the genuine one
    capsys.readouterr()
    for name, (text, task, code) in _cli_forgeries(cli_report).items():
        path.write_text(text)
        got = main([*task, "--recheck", str(path)])
        out = capsys.readouterr()
        assert got == code, (name, got, out.err[-300:])
        if code == 2:
            assert len(out.err.strip().splitlines()) == 1, (name, out.err)
            assert "bug" not in out.err.lower(), (name, out.err)
    path.write_text(cli_report)
    assert main([*CLI_TASK[:-1], "3", "--recheck", str(path)]) == 2
    assert "weight_range" in capsys.readouterr().err    # names the parameter
