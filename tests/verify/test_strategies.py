"""verify.strategies: every drawn object has the property it promises, checked with
markone (exact mode) and verify as independent oracles."""

from fractions import Fraction

import pytest
from hypothesis import given, settings

import markone
import verify
from verify.strategies import (
    adversarial_orders,
    non_separable_sets,
    orthonormal_streams,
    separable_sets,
)
from _paths import ROOT


@settings(max_examples=40)
@given(separable_sets())
def test_separable_sets_have_their_margin_and_converge_within_the_bound_hypo(s):
    scores = [t * sum(a * b for a, b in zip(s.u, x)) for x, t in zip(s.X, s.y)]
    assert min(scores) == s.min_score >= 1 and set(s.y) == {-1, 1}
    r = markone.train(s.X, s.y, intercept=False, exact=True, max_epochs=10_000)
    assert r.converged and r.mistakes <= s.bound * (1 + 1e-12)


@settings(max_examples=40)
@given(orthonormal_streams())
def test_orthonormal_streams_make_m_mistakes_hypo(s):
    r = markone.train(s.X, s.y, intercept=False, order=s.order, max_epochs=1, exact=True)
    assert r.mistakes == len(s.X) and list(r.w) == [Fraction(v) for v in s.y]


@settings(max_examples=40)
@given(adversarial_orders())
def test_adversarial_orders_are_all_mistakes_hypo(a):
    r = markone.train(a.data.X, a.data.y, intercept=False, order=a.order, max_epochs=1,
                      exact=True)
    assert r.mistakes == len(a.order) <= a.data.bound * (1 + 1e-12)
    assert list(r.w) == [Fraction(v) for v in a.w]


@settings(max_examples=25)
@given(non_separable_sets())
def test_non_separable_sets_are_not_separable_hypo(data):
    X, y = data
    assert verify.check_separable(X, y, intercept=False).separable is False


def test_docs_example_finds_the_minimal_bug():
    """The page's buggy perceptron fails on the smallest stream: one e_1 labelled -1."""
    pytest.importorskip("hypothesis")
    import doctest
    from pathlib import Path

    page = ROOT / "docs" / "test-your-perceptron.md"
    text = page.read_text()
    start = text.index("## Hypothesis strategies")
    section = text[start:text.index("\n## ", start + 5)]
    test = doctest.DocTestParser().get_doctest(section, {}, "strategies", str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 4
    assert "OrthonormalStream(X=[[1]], y=[-1], order=[0])" in section
