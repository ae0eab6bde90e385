"""Diagnoses that are never wrong: a cause is named only when the rule re-run with
that misreading gives exactly the answer; each planted bug below is named wherever it
makes a case fail, and nothing else is named unless it reproduces the answer too.
Every failed binary case also reports its first divergent step."""

from fractions import Fraction

import pytest
from conformance_impls import solve

from verify import conformance as C
from verify.conformance.divergence import first_divergence
from verify.conformance.rule_runs import binary_run, variant_answer


def _with_order(read):
    return lambda problem: solve(dict(problem, order=read(problem)))


def _intercept_first(problem):
    answer = solve(problem)
    if problem["intercept"] and "w" in answer and problem["task"] == "binary":
        answer["w"] = answer["w"][-1:] + answer["w"][:-1]
    return answer


#: a planted bug -> (the implementation, words its diagnosis must contain)
PLANTED = {
    "strict rule": (lambda p: solve(p, "strict"), "the strict rule"),
    "zero predicts +1": (lambda p: solve(p, "zero_correct"),
                         "a zero score counted as correct when the label is +1"),
    "half rate": (lambda p: solve(p, "half_rate"), "learning rate 1/2"),
    "skips the last": (_with_order(lambda p: p["order"][:-1]),
                       "the last presentation of the stream was skipped"),
    "skips the first": (_with_order(lambda p: p["order"][1:]),
                        "the first presentation of the stream was skipped"),
    "two passes": (_with_order(lambda p: p["order"] * 2),
                   "the stream was presented twice"),
    "index order": (_with_order(lambda p: list(range(len(p["y"])))),
                    "in index order, not in the given `order`"),
    "intercept first": (_intercept_first, "the intercept weight is stored first"),
}


@pytest.fixture(scope="module")
def cases():
    return C.build_cases()


#: the cases with long streams (thousands of presentations): in the slow run only
LONG = {"worst-order-greedy", "worst-order-lattice"}


def planted_cause_is_named(name, cases):
    impl, words = PLANTED[name]
    results = C.run_suite(cases, C.adapter_for(impl, name=name))
    failed = [r for r in results if r.status == "fail"]
    assert failed, f"{name}: no case catches it"
    missed = [r.id for r in failed if not any(words in d for d in r.diagnosis)]
    assert missed == [], f"{name}: the planted cause is not named on {missed}"
    assert all(r.status != "error" for r in results)


@pytest.mark.parametrize("name", list(PLANTED))
def test_the_planted_cause_is_named_wherever_it_shows(name, cases):
    planted_cause_is_named(name, [c for c in cases if c["id"] not in LONG])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PLANTED))
def test_the_planted_cause_is_named_on_every_case(name, cases):
    planted_cause_is_named(name, cases)


def test_an_answer_no_misreading_reproduces_is_unexplained(cases):
    [case] = [c for c in cases if c["id"] == "intercept-convention"]

    def off_by_a_little(problem):
        answer = solve(problem)
        answer["w"] = [str(Fraction(v) + Fraction(1, 7)) for v in answer["w"]]
        return answer

    r = C.run_case(case, C.adapter_for(off_by_a_little))
    assert r.status == "fail" and r.diagnosis == ()
    assert C.report.cause_lines(r) == [
        "cause: unexplained (no known misreading of the rule, re-run on this case, "
        "gives this answer)"]


def test_first_divergent_step_is_where_the_states_part(cases):
    """A bug planted at one presentation (it ignores the 5th presentation's update)
    is found at exactly that step, with the weights of both after it."""
    [case] = [c for c in cases if c["id"] == "zero-score-orthonormal"]
    problem = case["problem"]
    run = binary_run(problem)
    step = next(t for t in range(5, len(problem["order"]) + 1)
                if not run.correct[t - 1])       # the first update from the 5th on

    def drops_one_update(p):
        order = p["order"]
        if len(order) >= step:
            ref = binary_run(dict(p, order=order[:step - 1]))
            rest = dict(p, order=order[step:])
            w, m = list(ref.w), ref.mistakes
            for i in rest["order"]:
                x = [Fraction(v) for v in p["X"][i]] + [Fraction(1)] * p["intercept"]
                if p["y"][i] * sum(a * b for a, b in zip(w, x)) <= 0:
                    w, m = [a + p["y"][i] * b for a, b in zip(w, x)], m + 1
            return {"w": [str(v) for v in w], "mistakes": m}
        return solve(p)

    d = first_divergence(case, C.adapter_for(drops_one_update))
    assert d is not None and d.step == step
    assert d.index == problem["order"][step - 1] and d.score <= 0
    want = variant_answer(binary_run(dict(problem, order=problem["order"][:step])),
                          problem)
    assert d.reference["w"] == want["w"]
    assert d.implementation["w"] == [Fraction(v) for v in run.iterates[step - 2]]
    r = C.run_case(case, C.adapter_for(drops_one_update))
    assert r.divergence.startswith(f"first divergent step: presentation {step} of ")
    assert r.divergence in C.as_table([r], "drops one update")
