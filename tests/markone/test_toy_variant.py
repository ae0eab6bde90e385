"""Adding a perceptron variant is one entry in markone.variants and its tests (issue 40).

This file alone defines a new variant, "midpoint" (halfway between the last iterate and
the average of the iterates), with how the engine's state predicts and its definition
on a written-out run: markone.train, the Perceptron estimator and ``markone train
--variant`` take it, the conformance suite gets a case ``variant-midpoint`` whose rule
is the entry's and whose re-run follows the definition, and after it is removed
everything is as before.
"""

from fractions import Fraction

import numpy as np
import pytest

import markone
from markone.cli import main
from markone.variants import VARIANTS, Variant, add_variant, remove_variant
from verify.conformance import adapter_for, build_cases, run_case, run_suite
from verify.conformance.profile import Profile
from verify.conformance.protocol import rule_text, schema

NAME = "midpoint"
X = [[2, 1], [-1, 2], [1, -2], [-2, -1], [1, 1], [1, 1]]
Y = [1, 1, -1, -1, 1, -1]


def _predicts(state):
    """Halfway between the last iterate and the average, from the engine's state."""
    average = state.averaged()
    if isinstance(state.w, np.ndarray) and state.w.dtype == np.float64:
        return (state.w + np.asarray(average, dtype=float)) / 2
    return [(Fraction(int(a)) + Fraction(b)) / 2 for a, b in zip(state.w, average)]


def _defined(w, iterates, correct):
    """The same, from the run written out."""
    return [(a + sum(c) / len(iterates)) / 2 for a, c in zip(w, zip(*iterates))]


@pytest.fixture
def midpoint():
    """The toy variant registered for one test, then removed."""
    variant = add_variant(Variant(
        NAME, _predicts, _defined,
        "the rule of the last variant; answer halfway between the final w and the "
        "average of the iterates after every presentation, as \"w\", with \"mistakes\".",
        "midpoint: halfway between the last iterate and the averaged one"))
    yield variant
    remove_variant(NAME)


@pytest.mark.filterwarnings("ignore::markone.ConvergenceWarning")  # 3 passes: not yet
def test_train_and_the_estimator_take_the_new_variant(midpoint):
    last = markone.train(X, Y, exact=True, max_epochs=3)
    averaged = markone.train(X, Y, exact=True, max_epochs=3, variant="averaged")
    res = markone.train(X, Y, exact=True, max_epochs=3, variant=NAME)
    assert res.variant == NAME and res.last_w == last.w
    assert res.w == tuple((a + b) / 2 for a, b in zip(last.w, averaged.w))
    fitted = markone.Perceptron(variant=NAME, max_epochs=3).fit(X, Y)
    floats = markone.train(X, Y, max_epochs=3, variant=NAME)
    assert fitted.w_.tolist() == floats.w.tolist()
    assert fitted.predict(X).tolist() == floats.predict(X).tolist()


def test_the_command_line_takes_the_new_variant(midpoint, tmp_path, capsys):
    data = tmp_path / "data.csv"
    data.write_text("".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, Y)))
    assert main(["train", str(data), "--variant", NAME, "--max-epochs", "3"]) in (0, 1)
    assert "Traceback" not in capsys.readouterr().err


def test_the_suite_has_its_case_and_judges_it_by_the_definition(midpoint):
    [case] = build_cases([f"variant-{NAME}"])
    assert case["problem"]["rule"] == rule_text("binary", NAME) == midpoint.rule
    assert case["pins"] == midpoint.pins
    assert NAME in schema()["$defs"]["case"]["properties"]["variant"]["enum"]

    def core(problem):
        res = markone.train(problem["X"], problem["y"], order=problem["order"],
                            max_epochs=1, variant=NAME, exact=True)
        return {"w": [str(v) for v in res.w], "mistakes": res.mistakes}

    def last_only(problem):
        res = markone.train(problem["X"], problem["y"], order=problem["order"],
                            max_epochs=1, exact=True)
        return {"w": [str(v) for v in res.w], "mistakes": res.mistakes}

    profile = Profile()   # made now: it claims every registered variant
    [good] = run_suite([case], adapter_for(core), profile=profile)
    [bad] = run_suite([case], adapter_for(last_only), profile=profile)
    assert good.status == "pass" and bad.status == "fail" and "w" in bad.failed


def test_a_suite_run_with_no_declared_profile_claims_the_new_variant(midpoint):
    # the profile of no declaration was made once, at import (FULL), before the
    # variant was registered: its case came out "n/a" (issue 40)
    [case] = build_cases([f"variant-{NAME}"])

    def core(problem):
        res = markone.train(problem["X"], problem["y"], order=problem["order"],
                            max_epochs=1, variant=NAME, exact=True)
        return {"w": [str(v) for v in res.w], "mistakes": res.mistakes}

    [result] = run_suite([case], adapter_for(core))
    assert result.status == "pass", result.details
    assert run_case(case, adapter_for(core)).status == "pass"
    assert Profile().excludes(case) is None


def test_after_removal_everything_is_as_before(midpoint):
    remove_variant(NAME)
    assert list(VARIANTS) == ["last", "averaged", "voted", "pocket"]
    assert f"variant-{NAME}" not in [c["id"] for c in build_cases()]
    with pytest.raises(ValueError, match="variant"):
        markone.train(X, Y, variant=NAME)
    with pytest.raises(ValueError, match="built in"):
        remove_variant("pocket")
