"""The peer pages (docs/peer-table.md, docs/peer-differences.md) are what
tests/peer_table.py renders from its record (docs/figures/peer_results.json) with the
adapters of tests/peer_adapters.py (both imported by name), and, marked slow, the
record is what the peers answer today: every failure's cause reproduced by the
checker or said to be unexplained, no hand edits."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from _paths import ROOT

import peer_adapters
import peer_table

from verify import conformance as C

RECORD = ROOT / "docs" / "figures" / "peer_results.json"


def test_peer_pages_are_rendered_from_the_record():
    script, record = peer_table, json.loads(RECORD.read_text())
    assert (ROOT / "docs" / "peer-table.md").read_text() == script.render_table(record)
    assert (ROOT / "docs" / "peer-differences.md").read_text() == \
        script.render_differences(record)


def test_record_covers_six_third_party_peers_with_their_differences():
    record = json.loads(RECORD.read_text())
    names = [p["name"] for p in record["peers"]]
    assert names == [p.name for p in peer_adapters.PEERS]
    third_party = [n for n in names if "example" not in n]
    assert len(third_party) >= 6 and "wink-perceptron" in third_party
    for peer in record["peers"]:
        failed = {c["id"] for c in peer["cases"] if c["status"] == "fail"}
        # one difference per failed case, each cut down to a stream no longer than
        # the case's, with the code that reproduces it through the peer's API
        assert {d["case"] for d in peer["differences"]} == failed, peer["name"]
        for d in peer["differences"]:
            assert d["problem"]["order"] and d["expected"] and d["got"]
            assert d["snippet"] or "example" in peer["name"]


def test_every_failure_is_explained_by_the_checker_or_a_rerun_of_the_peer():
    record = json.loads(RECORD.read_text())
    assert peer_table.unexplained(record) == []


def test_hinge_rerun_updates_a_correct_example_scoring_below_one():
    adapters = peer_adapters
    [probe] = C.build_cases(["fractional-score"])
    # w = (1/2, 1/4, 1), then (1/4, 3/4, 0); the third presentation scores 5/16:
    # correct for the rule (2 mistakes), below 1 for the hinge (w = (3/4, 1, 1), 3);
    # every number is a float32 (the parser's reading is the other test's)
    off = ("parser",)
    assert adapters.hinge_rerun(probe["problem"], off) == {"w": [0.75, 1.0, 1.0],
                                                           "mistakes": 3}
    assert adapters.hinge_rerun(probe["problem"], ("margin", *off)) == {
        "w": [0.25, 0.75, 0.0], "mistakes": 2}


def test_hinge_rerun_counts_a_nan_score_as_0_and_leaves_an_infinite_input_alone():
    """Two streams Vowpal Wabbit answers so (its weights read after learning them)."""
    hinge = peer_adapters.hinge_rerun
    off = ("parser",)          # every input is its float32 (1e39 is inf)
    # (0.5, 0.25) label -1 scores 0: w = (-0.5, -0.25); (inf, 1) label +1 scores
    # -inf: an update, which leaves w[0] alone: w = (-0.5, 0.75)
    p = {"intercept": False, "X": [[0.5, 0.25], [1e39, 1.0]], "y": [-1, 1],
         "order": [0, 1]}
    assert hinge(p, off) == {"w": [-0.5, 0.75], "mistakes": 2}
    assert hinge(p, ("infinite", *off))["w"] == [math.inf, 0.75]
    # w = (2e38, 2e38), then x = (2e38, -2e38) scores inf - inf = NaN, taken as 0:
    # label -1, an update: w = (0, inf); with a NaN no update (y * NaN < 1 is false)
    p = {"intercept": False, "X": [[2e38, 2e38], [2e38, -2e38]], "y": [1, -1],
         "order": [0, 1]}
    assert hinge(p, off) == {"w": [0.0, math.inf], "mistakes": 2}
    w38 = float(np.float32(2e38))
    assert hinge(p, ("nan", *off)) == {"w": [w38, w38], "mistakes": 1}


def test_vowpal_wabbits_parser_is_the_rerun_s_reading_of_a_decimal():
    pytest.importorskip("vowpalwabbit")
    adapters = peer_adapters
    # 0.7333333333333333 (11/15's double) is 0.73333335 as the nearest float32
    parsed = adapters.vw_parsed(0.7333333333333333)
    assert parsed == float(np.float32(parsed)) != float(np.float32(0.7333333333333333))
    assert math.isinf(adapters.vw_parsed(3.054936363499605e-151))
    [probe] = C.build_cases(["fractional-score"])
    words = adapters.explain_vw(probe["problem"], {"w": [0.75, 1.0, 1.0], "mistakes": 3})
    assert "y w.x < 1" in words and "float32" not in words
    assert adapters.explain_vw(probe["problem"], {"w": [0.25, 0.75, 0.0],
                                                  "mistakes": 2}) is None


def test_mlxtend_rerun_counts_a_zero_score_on_a_positive_example_as_correct():
    adapters = peer_adapters
    problem = {"task": "binary", "variant": "last", "intercept": True,
               "X": [[3.0], [1.0]], "y": [1, -1], "order": [0, 1]}
    # the rule: (3, 1) scores 0, a mistake, w = (3, 1); (1, 1) scores 4, label -1, a
    # mistake, w = (2, 0). mlxtend: 0 predicts +1, no update; then (1, 1) scores 0,
    # predicted +1, wrong: w = (-1, -1)
    assert adapters.mlxtend_rerun(problem) == {"w": [-1.0, -1.0], "mistakes": 1}
    assert adapters.mlxtend_rerun(problem, zero_positive=False) == {
        "w": [2.0, 0.0], "mistakes": 2}
    words = adapters.explain_mlxtend(problem, {"w": [-1.0, -1.0], "mistakes": 1})
    assert "a zero score predicts +1" in words and "always learns" not in words
    assert adapters.explain_mlxtend(problem, {"w": [2.0, 0.0], "mistakes": 2}) is None


def test_wink_rerun_is_the_rule_with_its_quirks_off_and_its_own_with_them():
    from verify.conformance.rule_runs import binary_run, variant_answer

    adapters = peer_adapters
    problem = {"task": "binary", "variant": "averaged", "intercept": True,
               "X": [[2.0, 1.0], [-1.0, 2.0], [1.0, -2.0], [-2.0, -1.0], [1.0, 1.0]],
               "y": [1, 1, -1, -1, -1], "order": [0, 1, 2, 3, 4] * 3}
    rule = variant_answer(binary_run(problem), problem)["w"]
    assert adapters.wink_rerun(problem, tuple(adapters.WINK_QUIRKS))["w"] == rule
    # two presentations, by hand: the first update moves only pos (w_pos = (2, 1),
    # b_pos = 1); then pos scores 1 > nothing and is wrong: pos -= x, neg += x. The
    # averages are over the weights before each update: pos (1, 1/2, 1/2), neg 0
    small = dict(problem, X=[[2.0, 1.0], [1.0, -2.0]], y=[1, -1], order=[0, 1])
    assert adapters.wink_rerun(small)["w"] == [Fraction(1, 2), Fraction(1, 4),
                                                Fraction(1, 4)]
    assert "averages the weights held before" in adapters.explain_wink(
        small, {"w": [0.5, 0.25, 0.25]})


def test_subproblem_keeps_the_rows_presented_in_order():
    script = peer_table
    problem = {"X": [[1.0], [2.0], [3.0]], "X_exact": [["1"], ["2"], ["3"]],
               "y": [1, -1, 1], "order": [2, 0, 2], "intercept": False}
    small = script.subproblem(problem, [2, 2, 1])
    assert small["X"] == [[3.0], [2.0]] and small["X_exact"] == [["3"], ["2"]]
    assert small["y"] == [1, -1] and small["order"] == [0, 0, 1]


def _case(script, problem):
    """A case of the suite's shape asking ``problem``, the rule's answer expected."""
    from verify.conformance.protocol import rule_text

    problem = dict(problem, rule=rule_text(problem["task"], problem["variant"]))
    return script.reference({"id": "t", "property": "p", "task": problem["task"],
                             "variant": problem["variant"], "float64_can_pass": True,
                             "tolerance": 0}, problem)


def test_shrink_cuts_a_failure_down_and_keeps_its_cause():
    from verify.conformance import Profile, adapter_for, run_case

    script = peer_table
    case = _case(script, {"task": "binary", "variant": "last", "intercept": True,
                          "X": [[3.0], [1.0], [-2.0]], "y": [1, -1, -1],
                          "order": [0, 1, 2, 0, 1, 2]})

    def strict(problem):          # updates only on y w.x < 0: never, from zero
        d = len(problem["X"][0]) + problem["intercept"]
        return {"w": [0] * d, "mistakes": 0}

    adapter = adapter_for(strict)
    cause = run_case(case, adapter).diagnosis[0]
    assert cause.startswith("the strict rule")
    small, result = script.shrink(case, adapter, Profile(), cause)
    assert len(small["problem"]["order"]) == 1 and len(small["problem"]["X"]) == 1
    assert result.status == "fail" and cause in result.diagnosis
    step = script.first_step(small, adapter, Profile())
    assert step.startswith("first divergent step: presentation 1 of 1")


def _run_snippet(code):
    namespace = {}
    exec(compile(code, "<snippet>", "exec"), namespace)     # noqa: S102 - our own code


@pytest.mark.slow
def test_peer_record_is_what_the_peers_answer(capsys):
    adapters = peer_adapters
    lacking = adapters.missing()
    if lacking:
        pytest.skip("the peers need: " + "; ".join(lacking))
    script = peer_table
    record = script.run_peers()
    assert record == json.loads(RECORD.read_text())
    # the Python snippets print what the adapters read (the upstream reports run)
    for peer in record["peers"]:
        for d in peer["differences"]:
            if d["snippet"] and not d["snippet"].startswith("const"):
                _run_snippet(d["snippet"])
                assert capsys.readouterr().out.strip()
