"""A declared learning rate (``--profile ...,rate=R``): the reference scales the
exact answers, or re-runs the update in IEEE float64 with the rate, so a correct
implementation with ``w += 0.1 * y * x`` passes; a bad rate is refused."""

from fractions import Fraction

import pytest
from _paths import TESTS
from conformance_impls import float64_rate_perceptron

from markone.cli import main
from verify import conformance as C
from verify.conformance.profile import Profile

IMPLS = TESTS / "conformance_impls.py"
# Every case but worst-order-greedy, whose 2,830 presentations cost the diagnosis of a
# failure about 4 s of CPU (half of such a test): the undeclared-rate claims below are
# about each failed case's cause, and greedy's cause comes from the same code path on
# a longer stream (its rate run is checked in test_every_task_in_float64_with_rate_1_over_10_passes).
BUT_GREEDY = ",".join(c["id"] for c in C.build_cases() if c["id"] != "worst-order-greedy")


def _check(suite, impl, profile, capsys):
    status = main(["adversary", "check", str(suite), "--impl", f"{IMPLS}:{impl}",
                   "--profile", profile])
    return status, capsys.readouterr()


def test_a_textbook_rate_of_0_1_in_float64_passes_with_the_declared_rate(suite,
                                                                         capsys):
    status, out = _check(suite, "float64_rate_perceptron",
                         "arithmetic=float64,rate=0.1", capsys)
    assert status == 0, out.out
    assert "12 passed, 0 failed, 0 errors, 22 not applicable" in out.out
    assert "rate=0.1, from --profile]" in out.out


def test_every_task_in_float64_with_rate_1_over_10_passes(suite, capsys):
    status, out = _check(suite, "rate_float64", "arithmetic=float64,rate=1/10", capsys)
    assert status == 0, out.out
    assert " 0 failed, 0 errors, " in out.out


def test_a_rate_of_1_over_2_in_exact_arithmetic_passes(suite, capsys):
    status, out = _check(suite, "half_rate_exact", "arithmetic=exact,rate=1/2", capsys)
    assert status == 0, out.out
    assert "34 passed, 0 failed, 0 errors, 0 not applicable" in out.out


@pytest.mark.parametrize("rate", ["0", "-0.1", "inf", "nan", "1/0", "fast", "1e400"])
def test_a_bad_rate_is_refused_in_one_line(suite, capsys, rate):
    status, out = _check(suite, "correct", f"arithmetic=float64,rate={rate}", capsys)
    assert status == 2
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.err
    assert "rate" in lines[0] and "rate=0.1" in lines[0], lines


def test_a_rate_round_trips_through_json_and_describe():
    p = Profile.parse("arithmetic=float64,rate=0.1")
    assert Profile.from_json(p.as_json()) == p
    assert Profile.from_json({"rate": 0.1}).rate == Profile.parse("rate=1/10").rate
    assert "rate" not in Profile().describe()
    with pytest.raises(ValueError, match="float32"):
        Profile.parse("arithmetic=float32,rate=0.5")


def test_the_float64_reference_reruns_the_rounding_of_0_1():
    """After w = 0.1 * (1, 1, 1), the score of (-2, 3, -1) is 0 exactly but
    -0.2 + 0.30000000000000004 - 0.1 = +2.8e-17 in float64: the float64 reference
    counts it correct (1 mistake), the exact one a mistake (2), as the textbook loop
    in float64 does."""
    import numpy as np

    from verify.conformance.rate import expected_with_rate
    from verify.conformance.rule_runs import binary_run

    problem = {"task": "binary", "variant": "last", "intercept": False,
               "X": [[1, 1, 1], [-2, 3, -1]], "y": [1, 1], "order": [0, 1]}
    case = {"task": "binary", "variant": "last", "problem": problem,
            "expected": {"mistakes": 2, "w": ["-1", "4", "0"]}}
    rate = Profile.parse("rate=0.1").rate
    assert binary_run(problem, rate=rate).mistakes == 2
    assert binary_run(problem, arithmetic="float64", rate=rate).mistakes == 1
    w, mistakes = float64_rate_perceptron(np.array(problem["X"], float),
                                          np.array(problem["y"]), problem["order"])
    want = expected_with_rate(case, rate, "float64")["expected"]
    assert mistakes == want["mistakes"] == 1
    assert [Fraction(v) for v in w] == [Fraction(v) for v in want["w"]]
    assert expected_with_rate(case, rate, "exact")["expected"]["mistakes"] == 2


# ---- no profile declared: the profile the answers fit is named ---------------------


def _undeclared(suite, impl, capsys, *more):
    status = main(["adversary", "check", str(suite), "--impl", f"{IMPLS}:{impl}",
                   *more])
    return status, capsys.readouterr().out


def test_a_correct_float64_implementation_without_a_profile_is_told_which(suite,
                                                                          capsys):
    status, out = _undeclared(suite, "float64_perceptron", capsys)
    assert status == 1                       # still held to exact arithmetic
    first = out.splitlines()[:3]
    assert first[1] == "  --profile arithmetic=float64", first
    assert "reverse" not in out
    assert "cause (reproduced): --profile arithmetic=float64 fits the answers" in out


def test_a_rate_of_0_1_without_a_profile_is_told_its_rate(suite, capsys):
    status, out = _undeclared(suite, "float64_rate_perceptron", capsys, "--cases",
                              BUT_GREEDY)
    assert status == 1
    assert out.splitlines()[1] == "  --profile arithmetic=float64,rate=0.1"
    assert "a zero score counted as correct" not in out


def test_a_wrong_rule_gets_no_profile_and_keeps_its_causes(suite, capsys):
    status, out = _undeclared(suite, "strict", capsys, "--cases",
                              "zero-score-orthonormal,intercept-convention")
    assert status == 1
    assert "--profile" not in out.split("\n\n")[0]
    assert "cause (reproduced): the strict rule" in out


def test_a_rate_left_out_of_a_declared_profile_is_told_the_profile_to_declare(
        suite, capsys):
    """--profile arithmetic=float64 from a loop with w += 0.1 * y * x: each case's
    cause is the rate it did not declare (the float64 rounding of 0.1 was called a
    tolerance on ties, or float32 arithmetic), and the first lines say what fits."""
    status, out = _undeclared(suite, "float64_rate_perceptron", capsys, "--profile",
                              "arithmetic=float64", "--cases", BUT_GREEDY)
    assert status == 1
    first = out.splitlines()[:3]
    assert first[0].startswith("the profile from --profile (arithmetic=float64) does "
                               "not fit"), first
    assert first[1] == "  --profile arithmetic=float64,rate=0.1"
    causes = [line for line in out.splitlines() if "cause (reproduced)" in line]
    assert len(causes) >= 10
    assert all(line.endswith("(learning rate 1/10: a convention not declared)")
               for line in causes), causes
