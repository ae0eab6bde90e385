"""verify.machine: what happens when the machine goes on after a stream reaches a stop.

Each continuation (the stream, then a fixed fair order pass after pass) is decided
exactly by the clipped update: a pass without a mistake, or a pass-boundary state that
recurs. Every decision here is re-run on ``MarkI.train`` itself, pass by pass, as
the independent oracle; on tiny tasks it is also checked against the exact all-streams
decision.
"""

import string
from pathlib import Path

import numpy as np
import pytest
from hypothesis import event, given, settings

from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams, r_unit_name
from test_verify_machine import tiny_tasks
from verify.machine import check_machine, retrain_on_stream
from _paths import ROOT

TWO_CELLS = dict(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                 max_fanout=1, theta=1, n_r_units=1)
FIGURES = np.array([[1, 0], [0, 1]])   # "a" -> target -1, "b" -> +1
LABELS = ["a", "b"]


def two_cell_machine(**changes):
    return MarkI(MarkIParams(**{**TWO_CELLS, **changes}), seed=0)


def passes_on_machine(machine, images, labels, r, prefix, order, n):
    """Reinforcements of R-unit ``r`` in each of ``n`` passes of ``order`` after
    ``prefix`` (one pass per ``train`` call, so the machine cannot stop early), and
    the weights at each pass boundary (the first after the prefix)."""
    assert prefix, "a stream that reaches a stop is never empty"
    machine.train(images, labels, order=list(prefix), max_epochs=1)
    counts, weights = [], []
    weights.append(machine.weights[r].copy())
    for _ in range(n):
        run = machine.train(images, labels, order=list(order), max_epochs=1,
                            warm_start=True)
        counts.append(int(run.reinforcements[r]))
        weights.append(machine.weights[r].copy())
    return counts, weights


def check_on_machine(machine, images, labels, r, prefix, c):
    """Re-run one reported continuation ``c`` of R-unit ``r`` on the machine."""
    order = c["order_indices"]
    assert sorted(order) == list(range(len(images)))          # a fair order
    if c["outcome"] == "converges":
        k = c["passes"]
        counts, _ = passes_on_machine(machine, images, labels, r, prefix, order, k + 3)
        assert all(m > 0 for m in counts[:k - 1]), counts
        assert counts[k - 1:] == [0] * 4, counts
        assert sum(counts) == c["reinforcements_after_prefix"]
    elif c["outcome"] == "never learns":
        s, p = c["cycle_start"], c["period"]
        counts, w = passes_on_machine(machine, images, labels, r, prefix, order,
                                      s + 3 * p)
        assert min(counts) > 0, counts                        # never a clean pass
        for j in range(3):
            assert np.array_equal(w[s + j * p], w[s + (j + 1) * p])


def test_one_sided_stop_blocks_in_the_given_order():
    # stops (0, 1): "a" asks w_0 < 0 and is cut at 0 for ever (hand-derived: the
    # greedy stream [0] hits; in the order [0, 1] the state (0, 1) recurs after pass 1)
    machine = two_cell_machine(weight_range=(0, 1))
    r = check_machine(machine, FIGURES, LABELS, exact_budget=1, orders=0).r_units[0]
    assert r.end_stops.holds is False and r.end_stops.evidence["stream"] == [0]
    c = r.converges
    assert c.holds is False and c.method == "continuation after the stop"
    first = c.evidence["continuations"][0]
    assert (first["order"], first["outcome"], first["cycle_start"],
            first["period"]) == ("given", "never learns", 1, 1)
    assert c.evidence["prefix"] == [0, 0, 1] and c.evidence["cycle"] == [0, 1]
    out = retrain_on_stream(machine, FIGURES, LABELS, c.evidence["prefix"],
                        c.evidence["cycle"], passes=5)
    assert out["returns"] and not out["converged"] and out["saturated"][0] > 0
    assert min(out["mistakes_per_epoch"]) > 0
    check_on_machine(machine, FIGURES, LABELS, 0, [0], first)


def test_a_cut_move_that_still_learns():
    # increment 2 against stops at +/-1: stream [0] is cut to w_0 = -1; then in the
    # order [0, 1] only "b" is wrong once (cut to w_1 = 1) and pass 2 is clean
    machine = two_cell_machine(weight_range=(-1, 1), increment_steps=2)
    r = check_machine(machine, FIGURES, LABELS, exact_budget=1, orders=0).r_units[0]
    assert r.end_stops.holds is False and r.end_stops.evidence["stream"] == [0]
    c = r.converges
    assert c.holds is None            # one stream learning proves nothing about all
    assert "whether some stream blocks is not decided" in c.message
    given_order = c.evidence["continuations"][0]
    assert (given_order["outcome"], given_order["passes"],
            given_order["reinforcements_after_prefix"]) == ("converges", 2, 1)
    for cont in c.evidence["continuations"]:
        check_on_machine(machine, FIGURES, LABELS, 0, [0], cont)


@settings(max_examples=60, deadline=None)
@given(tiny_tasks(one_sided=True))
def test_continuations_equal_the_machine_and_the_exact_decision(task):
    machine, images, labels = task
    r = check_machine(machine, images, labels, exact_budget=1, orders=0).r_units[0]
    conts = r.converges.evidence.get("continuations", [])
    clipped_ball = r.converges.method == "clipped Novikoff ball"
    if r.end_stops.holds is False and r.learnable.holds and not clipped_ball:
        assert conts
    stream = r.end_stops.evidence.get("stream", [])
    for c in conts:
        check_on_machine(machine, images, labels, 0, stream, c)
    blocks = any(c["outcome"] == "never learns" for c in conts)
    event("continuations: " + ", ".join(sorted({c["outcome"] for c in conts})))
    assert (r.converges.method == "continuation after the stop") == blocks
    exact = check_machine(machine, images, labels, orders=0).r_units[0].converges
    if exact.method == "exhaustive (all streams)":
        if clipped_ball:         # proven for every stream: the exhaustive search agrees
            assert exact.holds is True
        if exact.holds:          # learns on every fair stream: no continuation blocks
            assert not blocks
            assert all(c["outcome"] == "converges" for c in conts)
    if blocks:
        assert exact.holds is not True


def continuation_cell(c):
    """One cell of the docs table: the first clean pass and the reinforcements."""
    if c["outcome"] == "converges":
        return f"pass {c['passes']} ({c['reinforcements_after_prefix']})"
    return f"{c['outcome']} after {c['passes']} passes"


@pytest.mark.slow
def test_26_letters_continuations_rerun_on_the_machine():
    # at +/-50 the clipped Novikoff ball proves learning without continuations; at +/-5
    # no centre exists and the continuations are the evidence
    images, labels = letters(string.ascii_uppercase, per_class=10, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-5, 5)), seed=0)
    rep = check_machine(machine, images, labels)
    rows = []
    for r in rep.r_units:
        conts = r.converges.evidence.get("continuations", [])
        for c in conts:
            check_on_machine(machine, images, labels, r.r_unit,
                             r.end_stops.evidence["stream"], c)
        if conts:
            assert r.converges.holds is None or not all(
                c["outcome"] == "converges" for c in conts)
            rows.append([r_unit_name(r.r_unit), str(len(r.end_stops.evidence["stream"]))]
                        + [continuation_cell(c) for c in conts])
    # the table quoted in docs/verify-machine.md is this run's
    page = (ROOT / "docs" / "verify-machine.md").read_text()
    table = page[page.index("| R-unit | stream | given"):].split("\n\n")[0]
    quoted = [[cell.strip().replace(" more reinforcements", "")
               for cell in line.strip("|").split("|")]
              for line in table.splitlines()[2:]]
    assert quoted == rows


def test_continuations_undecided_within_their_budget(monkeypatch):
    # the increment-2 case learns at pass 2 in the given order; one pass is too few
    import verify.machine.claims._converges as vm

    monkeypatch.setattr(vm, "CONTINUE_PASSES", 1)
    machine = two_cell_machine(weight_range=(-1, 1), increment_steps=2)
    c = check_machine(machine, FIGURES, LABELS, exact_budget=1, orders=0).r_units[0]
    first = c.converges.evidence["continuations"][0]
    assert (first["outcome"], first["passes"]) == ("undecided", 1)
    assert "timed_out" not in first      # a clock fact: not in the report
    assert c.converges.holds is None
    assert "in the given order it is undecided after 1 pass" in c.converges.message
    assert "(time budget)" not in c.converges.message


def test_run_passes_budget_and_deadline():
    from verify.machine.theory._clipped import run_passes

    P = np.array([[-1, 0], [0, 1]])
    order = np.array([0, 1])
    run = run_passes(P, P, 0, 1, order, prefix=[0], max_passes=1)   # repeats at 2
    assert (run.converged, run.cycle_start, run.passes) == (False, None, 1)
    late = run_passes(P, P, 0, 1, order, prefix=[0], deadline=0.0)
    assert late.timed_out and late.passes == 0 and late.prefix_mistakes == 1
