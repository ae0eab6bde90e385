"""Tests of verify._internal.basis and its use by check_separable: the LP's own basis, solved
exactly, gives the same verdict as the SMT oracle, and a forged basis proves nothing."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verify.separability as S
from markone._internal.data import as_dataset
from verify import check_certificate, check_separable
from verify._internal.basis import LPBasis, exact_duals, exact_vertex, gordan_from_duals, solve_exact
from verify._internal.cuts import CutLP
from _oracles import fraction_solve


class _Bar:
    def set_description(self, *args, **kw):
        pass

    def update(self, *args):
        pass


def _problem(X, y, intercept=True):
    prob = S._Problem(as_dataset(X, y), intercept)
    prob.bar = _Bar()
    return prob


def _augmented(X, y, intercept):
    """Signed augmented rows as Fractions: the oracle's own view of the data."""
    rows = [[Fraction(v) for v in r] + ([Fraction(1)] if intercept else []) for r in X]
    return [[yi * v for v in r] for r, yi in zip(rows, y)]


def _holds(Z, witness, certificate):
    """The proof checked in plain Fractions, independently of the module."""
    if witness is not None:
        return all(sum(a * b for a, b in zip(z, witness)) > 0 for z in Z)
    total = [sum(certificate[i] * Z[i][j] for i in certificate) for j in range(len(Z[0]))]
    return all(v > 0 for v in certificate.values()) and total == [0] * len(Z[0])


@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(-4, 4), min_size=n, max_size=n), min_size=n,
             max_size=n),
    st.lists(st.integers(-4, 4), min_size=n, max_size=n))))
def test_solve_exact_matches_fraction_elimination_hypo(system):
    A, b = system
    assert solve_exact(A, b) == fraction_solve(A, b)


# Small data with the shapes that make LPs degenerate: repeated rows, repeated points
# with both labels, collinear points, zero columns, rational coordinates.
coordinates = st.one_of(st.integers(-3, 3),
                        st.fractions(min_value=-2, max_value=2, max_denominator=4))


@st.composite
def degenerate_data(draw):
    d = draw(st.integers(1, 3))
    base = draw(st.lists(st.lists(coordinates, min_size=d, max_size=d), min_size=1,
                         max_size=6))
    picks = draw(st.lists(st.integers(0, len(base) - 1), min_size=1, max_size=9))
    X = [list(base[k]) for k in picks]          # duplicates are likely
    if draw(st.booleans()):
        for r in X:
            r[0] = Fraction(0)                    # a zero column
    y = draw(st.lists(st.sampled_from([-1, 1]), min_size=len(X), max_size=len(X)))
    return X, y, draw(st.booleans())


@settings(max_examples=60)
@given(degenerate_data())
def test_exact_basis_agrees_with_z3_hypo(data):
    X, y, intercept = data
    oracle = check_separable(X, y, intercept=intercept, method="z3")
    prob = _problem(X, y, intercept)
    if np.abs(prob.Zf).max(axis=1).min() > 0:   # check_separable decides zero rows first
        cut = CutLP(prob.Zf)
        t, _, rows, _ = cut.solve()
        found = S._exact_basis(prob, cut.basis(), rows, t)
        if found is not None:
            _, witness, certificate, _ = found
            assert (witness is not None) == oracle.separable
            assert _holds(_augmented(X, y, intercept), witness, certificate)
    else:
        with pytest.raises(ValueError, match="without zero rows"):
            CutLP(prob.Zf)
    v = check_separable(X, y, intercept=intercept, method="lp")
    assert v.separable == oracle.separable
    assert check_certificate(X, y, v)


def test_exact_basis_decides_wide_integer_data_both_ways():
    """Not vacuous: on 300 x 12 integer data the basis itself is the proof, both ways
    (a witness when separable, a certificate with 50 labels flipped)."""
    rng = np.random.default_rng(5)
    X = rng.integers(-10, 11, size=(300, 12))
    y = np.where(X @ rng.normal(size=12) + 0.5 > 0, 1, -1)
    for flips, separable in ((0, True), (50, False)):
        yf = y.copy()
        yf[rng.choice(300, flips, replace=False)] *= -1
        prob = _problem(X, yf)
        cut = CutLP(prob.Zf)
        t, _, rows, _ = cut.solve()
        found = S._exact_basis(prob, cut.basis(), rows, t)
        assert found is not None and found[0] == "lp"
        _, witness, certificate, message = found
        assert (witness is not None) == separable and "basis" in message
        assert _holds(_augmented(X.tolist(), yf.tolist(), True), witness, certificate)


@settings(max_examples=40)
@given(degenerate_data(), st.randoms(use_true_random=False))
def test_forged_bases_prove_nothing_false_hypo(data, rnd):
    """Any basis at all (random tight rows, basic columns, bounds) gives no proof or a
    true one: the exact checks, not HiGHS, decide."""
    X, y, intercept = data
    truth = check_separable(X, y, intercept=intercept, method="z3").separable
    prob = _problem(X, y, intercept)
    d, n = prob.d, prob.n
    k = rnd.randint(0, min(n, d + 1))
    basis = LPBasis(tight=tuple(sorted(rnd.sample(range(n), k))),
                    basic=tuple(sorted(rnd.sample(range(d + 1), k))),
                    upper=tuple(j for j in range(d + 1) if rnd.random() < 0.5))
    for t in (0.0, 0.5):
        found = S._exact_basis(prob, basis, np.arange(n), t)
        if found is not None:
            _, witness, certificate, _ = found
            assert (witness is not None) == truth
            assert _holds(_augmented(X, y, intercept), witness, certificate)


def test_a_forged_basis_is_refused_by_each_check():
    xor = [[0, 0, -1], [0, 1, 1], [1, 0, 1], [-1, -1, -1]]   # y [x, 1], not separable
    true = LPBasis(tight=(0, 1, 2, 3), basic=(0, 1, 2, 3), upper=())
    assert gordan_from_duals(xor, exact_duals(xor, true, 3))
    # a weight column pinned at a bound: the duals do not cancel there
    pinned = LPBasis(tight=(0, 1, 2), basic=(0, 1, 3), upper=())
    assert not gordan_from_duals(xor[:3], exact_duals(xor[:3], pinned, 3))
    # negative duals: tight rows whose multipliers must be negative to cancel
    rows = [[1, 0], [0, 1], [1, 1]]    # r0 + r1 - r2 = 0: mu = (1, 1, -1)
    mu = exact_duals(rows, LPBasis(tight=(0, 1, 2), basic=(0, 1, 2), upper=()), 2)
    assert mu == [1, 1, -1] and not gordan_from_duals(rows, mu)
    # singular and non-square bases give nothing
    assert exact_duals(xor[:2], LPBasis(tight=(0, 1), basic=(0,), upper=()), 3) is None
    assert exact_vertex([[1, 1], [2, 2]], LPBasis((0, 1), (0, 1), ()), 2) is None
    # the vertex of a forged basis is no witness of XOR
    prob = _problem([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1])
    assert S._exact_basis(prob, pinned, np.arange(4), 0.5) is None
    with pytest.raises(ValueError, match="basis column 7 is outside"):
        exact_vertex(xor, LPBasis((0,), (7,), ()), 3)


def test_a_basis_that_cannot_be_made_exact_is_repaired_by_a_tighter_resolve(
        monkeypatch):
    calls = []
    real = S._lp_proof

    def first_fails(prob, cut, *args):
        calls.append(cut.lp.h.getOptionValue("primal_feasibility_tolerance")[1])
        return None if len(calls) == 1 else real(prob, cut, *args)

    monkeypatch.setattr(S, "_lp_proof", first_fails)
    v = check_separable([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1], method="lp")
    assert v.separable is False and v.method == "lp"
    assert calls == [1e-7, 1e-9]


def test_smt_decides_only_small_cores(monkeypatch):
    monkeypatch.setattr(S, "_lp_proof", lambda *args: None)   # rounding never exact
    xor = ([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1])
    v = check_separable(*xor, method="lp")
    assert (v.separable, v.method) == (False, "lp+z3")   # a 4 x 3 core: Z3 decides
    monkeypatch.setattr(S, "SMT_CORE_ENTRIES", 11)
    v = check_separable(*xor, method="lp")
    assert (v.separable, v.stopped_by) == (None, "budget")
    assert "SMT_CORE_ENTRIES=11" in v.message
    assert check_separable(*xor, method="z3").separable is False   # not limited
