"""The cases that catch an implementation declaring exact arithmetic that computes one
part in float64: the intercept's constant, the averaged variant's running sum, the
multiclass zero start (the three `Fraction -> float` mutants of the reference that
survived the suite before these cases). For each: a correct exact implementation
passes, a correct float64 one passes its float64 profile (the case does not apply),
and the planted part fails that case alone, with exactly the float64 cause named."""

import warnings

import numpy as np
import pytest
from conformance_impls import solve

from verify import conformance as C
from verify.conformance.misreadings import AVERAGE_WORDS, rounding_words
from verify.conformance.profile import Profile

#: Each new case and the part of an exact implementation that, made float64, it catches.
PLANTED = {"exact-intercept-rounding": "intercept",
           "exact-averaged-sum": "running sum",
           "exact-multiclass-scores": "multiclass start"}
#: The exact-only cases the suite had before (they do not reach those parts).
OLDER = ("exact-rational-tie", "exact-cancellation")


@pytest.fixture(scope="module")
def cases():
    return {c["id"]: c for c in C.build_cases([*PLANTED, *OLDER])}


def run(cases, impl, profile=None):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return {r.id: r for r in C.run_suite(list(cases.values()), C.adapter_for(impl),
                                             profile=profile)}


def words(case):
    """The float64 cause the checker names on ``case``."""
    what = AVERAGE_WORDS if case["variant"] == "averaged" else "a decision"
    return rounding_words(case, "float64", what)


def test_a_correct_exact_implementation_passes_and_float64_does_not_apply(cases):
    assert {r.status for r in run(cases, solve).values()} == {"pass"}
    for arithmetic in ("float64", "float32"):
        results = run(cases, lambda p: solve(p, float_part="all"),
                      Profile(arithmetic=arithmetic))
        assert {r.status for r in results.values()} == {"n/a"}
        assert C.exit_status(list(results.values())) == 0


def test_float64_everywhere_fails_each_with_float64_named(cases):
    results = run(cases, lambda p: solve(p, float_part="all"))
    for cid, case in cases.items():
        assert results[cid].status == "fail" and words(case) in results[cid].diagnosis
        if cid in PLANTED:          # (the older cases cannot tell it from others)
            assert results[cid].diagnosis == (words(case),), cid


@pytest.mark.parametrize("cid", list(PLANTED))
def test_one_part_in_float64_fails_its_case_alone_with_float64_named(cases, cid):
    results = run(cases, lambda p: solve(p, float_part=PLANTED[cid]))
    assert {i for i, r in results.items() if not r.passed} == {cid}
    assert results[cid].diagnosis == (words(cases[cid]),)
    assert not results[cid].float64_can_pass


def test_the_words_say_what_rounding_changed(cases):
    assert words(cases["exact-averaged-sum"]) == (
        "float64 arithmetic: rounding changes the average (the running sum of the "
        "iterates rounds) of this case, which needs exact arithmetic (a float64 "
        "implementation declares arithmetic=float64 in its profile, and the case does "
        "not apply)")
    assert words(cases["exact-intercept-rounding"]).startswith(
        "float64 arithmetic: rounding changes a decision of this case")
