"""Tests for verify.proofs: every obligation proved, every wrong variant refuted, and
the counterexamples re-checked here in exact Fraction arithmetic (independently of Z3)."""

from fractions import Fraction

import pytest

from verify.proofs import OBLIGATIONS, ProofResult, check_all, prove


@pytest.mark.parametrize("name", sorted(OBLIGATIONS))
@pytest.mark.parametrize("dim", [2, 3])
def test_each_obligation_is_proved(name, dim):
    r = prove(name, dim=dim)
    assert isinstance(r, ProofResult)
    assert r.status == "proved" and r.expected and r.counterexample == {}


@pytest.mark.parametrize("name", sorted(OBLIGATIONS))
def test_each_wrong_variant_gets_a_counterexample(name):
    r = prove(name, dim=2, wrong=True)
    assert r.status == "counterexample" and r.expected and r.counterexample
    assert all(isinstance(v, (Fraction, str)) for v in r.counterexample.values())


def _vec(cex, name, dim):
    return [cex[f"{name}{i}"] for i in range(dim)]


def _dot(a, b):
    return sum(p * q for p, q in zip(a, b))


def test_norm_counterexample_really_breaks_the_claim():
    c = prove("norm", dim=3, wrong=True).counterexample
    w, x, y, R = _vec(c, "w", 3), _vec(c, "x", 3), c["y"], c["R"]
    assert y in (1, -1) and _dot(x, x) <= R * R
    new = [a + y * b for a, b in zip(w, x)]
    assert _dot(new, new) > _dot(w, w) + R * R       # the wrong claim fails...
    assert y * _dot(w, x) > 0                         # ...because it was no mistake


def test_novikoff_counterexample_satisfies_hypotheses_but_not_the_wrong_bound():
    c = prove("novikoff", wrong=True).counterexample
    k, A, N, g, R = (c[v] for v in ("k", "A", "N", "gamma", "R"))
    assert A >= k * g and N <= k * R * R and A * A <= N and g > 0 and k >= 0
    assert k * g > R and k * g * g <= R * R


def test_intercept_optimum_counterexample_and_true_minimum():
    c = prove("intercept_optimum", wrong=True).counterexample
    R, b, cc = c["R"], c["b"], c["c"]
    assert cc == R * abs(b)
    cost = (R * R + cc * cc) * (1 + b * b / (cc * cc))
    assert cost != (R + abs(b)) ** 2
    # at c^2 = R|b| the minimum is attained: check on a rational example
    R, b = Fraction(4), Fraction(9)            # R|b| = 36 = 6^2
    cc = Fraction(6)
    assert (R * R + cc * cc) * (1 + b * b / (cc * cc)) == (R + b) ** 2


def test_alignment_and_cauchy_schwarz_counterexamples():
    c = prove("alignment", dim=2, wrong=True).counterexample
    u, w, x = _vec(c, "u", 2), _vec(c, "w", 2), _vec(c, "x", 2)
    y, g = c["y"], c["gamma"]
    assert _dot(u, u) == 1 and y * _dot(u, x) >= g
    assert _dot(u, [a + y * b for a, b in zip(w, x)]) < _dot(u, w) + 2 * g
    c = prove("cauchy_schwarz", dim=3, wrong=True).counterexample
    u, w = _vec(c, "u", 3), _vec(c, "w", 3)
    assert _dot(u, w) > _dot(u, u) * _dot(w, w)


def test_check_all_reports_every_statement():
    results = check_all()
    names = {r.name for r in results}
    assert names == set(OBLIGATIONS)
    assert all(r.expected for r in results)
    assert {r.dim for r in results if r.name == "norm"} == {2, 3}
    wrong = check_all(dims=(2,), wrong=True)
    assert all(r.status == "counterexample" for r in wrong)


def test_bad_arguments():
    with pytest.raises(ValueError, match="name"):
        prove("pythagoras")
    with pytest.raises(ValueError, match="dim"):
        prove("norm", dim=0)


def test_timeout_gives_unknown_not_a_verdict():
    r = prove("cauchy_schwarz", dim=3, timeout_ms=1)
    assert r.status in {"proved", "unknown"}
