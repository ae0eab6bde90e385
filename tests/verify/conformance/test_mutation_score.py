"""The mutation score (benchmarks/mutation_score.py): at least 200 single-edit
mutants of the reference perceptron; the planted causes named; the page current."""

import importlib.util
import sys
from pathlib import Path

import pytest
from _paths import ROOT

SCRIPT = ROOT / "benchmarks" / "mutation_score.py"


def _script():
    spec = importlib.util.spec_from_file_location("mutation_score", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script():
    return _script()


def test_at_least_200_distinct_mutants_of_every_kind(script):
    mutants = script.mutants()
    assert len(mutants) >= 200 and len({m.source for m in mutants}) == len(mutants)
    kinds = " ".join(m.what for m in mutants)
    for kind in ("<= -> <", "1 -> 2", "0 -> 1e-9", "+ -> -", "* -> /", "+= -> -=",
                 "order read short", "order read sorted", "Fraction -> float",
                 "condition negated", "statement deleted"):
        assert kind in kinds, kind
    reference = script.load(script.REFERENCE.read_text())
    problems = script.random_problems(12)
    assert not script.differs(reference, reference, problems)
    strict = next(m for m in mutants if m.cause == "the strict rule")
    assert script.differs(script.load(strict.source), reference, problems)


@pytest.mark.slow
def test_planted_causes_are_named_on_a_few_mutants(script):
    from verify import conformance as C

    cases = [c for c in C.build_cases() if c["id"] in (
        "zero-score-orthonormal", "intercept-convention", "multiclass-argmax-ties",
        "kernel-dual-counts")]
    # one mutant per known cause: the last in the source (the binary loop's)
    # (the tie tolerances need the cases with tiny scores: in the slow page test)
    known = list({m.cause: m for m in script.mutants()
                  if m.cause and not m.cause.startswith("a score up to")}.values())
    for outcome in script.score(known, cases):
        assert outcome.killed and outcome.named and not outcome.wrong, outcome.mutant


@pytest.mark.slow
def test_mutation_page_is_current():
    script = _script()
    page = Path(ROOT / "docs" / "mutation-score.md").read_text()
    assert page == script.render(script.score())
