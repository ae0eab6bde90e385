"""Tests for verify.bounds: Novikoff, Freund-Schapire, intercept cost, Kesler, compression."""

import math
import tracemalloc
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import markone
from markone._internal.validation import child_seeds
from markone.cli import main
from verify import bounds
from verify.bounds import (MistakeTally, check_compression, check_mistake_bound,
                           check_multiclass_bound, freund_schapire_bound,
                           intercept_bound, intercept_cost)
from verify.errors import BoundViolation

AND = (np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([-1, -1, -1, 1]))


# ---- Novikoff -------------------------------------------------------------------------

@pytest.mark.parametrize("m", [1, 2, 5, 9])
def test_orthonormal_meets_the_bound_exactly(m):
    labels = np.where(np.arange(m) % 3 == 0, -1, 1)
    X, y = markone.datasets.orthonormal(m, labels=labels)
    r = check_mistake_bound(X, y, intercept=False, order="shuffle", runs=3, seed=1)
    assert r.mistakes == (m,) * 3
    assert r.R == 1.0 and math.isclose(r.bound, m, rel_tol=1e-9)
    assert math.isclose(r.ratio, 1.0, rel_tol=1e-9) and r.held


def test_and_bound_with_certified_margin():
    r = check_mistake_bound(*AND)
    # max margin 1/sqrt(17), R^2 = 3: bound 51; the given order makes 18 mistakes
    assert r.mistakes == (18,) and math.isclose(r.bound, 51, rel_tol=1e-9)
    assert r.gamma_source == "max_margin"


# ---- many runs tallied in constant memory (issue 37) ---------------------------------

def and_file(tmp_path):
    path = tmp_path / "and.csv"
    path.write_text("".join(f"{a},{b},{c}\n" for (a, b), c in zip(*AND)))
    return str(path)


def test_verify_bound_prints_what_the_runs_own_mistakes_give(tmp_path, capsys):
    """The command keeps a tally, not every run's mistakes: its lines are the ones
    the runs' mistakes give, each run trained here on the command's seeds."""
    assert main(["verify", "bound", and_file(tmp_path), "--order", "shuffle",
                 "--runs", "25", "--seed", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    runs = [markone.train(*AND, order="shuffle", seed=s).mistakes
            for s in child_seeds(3, 25)]
    assert max(runs) > min(runs)                      # the runs differ
    r = check_mistake_bound(*AND, order="shuffle", runs=25, seed=3)
    assert list(r.mistakes) == runs and r.tally == MistakeTally(25, min(runs), max(runs),
                                                               sum(runs))
    assert lines[1] == (f"mistakes over 25 runs: max {max(runs)}, min {min(runs)}; "
                        f"ratio to the bound {max(runs) / r.bound:.4f}; held: True")


def test_verify_bound_memory_does_not_grow_with_runs(tmp_path, capsys, monkeypatch):
    """``--runs 100000000`` kept a list of every run's mistakes (0.8 GB after 5 h):
    tracemalloc's peak of the command (training and compression stubbed: what it
    keeps of the runs is measured) is the same for 1,000 and 20,000 runs."""
    monkeypatch.setattr(bounds, "_train", lambda data, **kw: SimpleNamespace(
        mistakes=18, converged=True))
    monkeypatch.setattr(bounds, "check_compression", lambda *a, **kw: SimpleNamespace(
        mistakes=18, support=(3,), reproduced=True))
    path = and_file(tmp_path)

    def peak(runs):
        tracemalloc.start()
        try:
            assert main(["verify", "bound", path, "--order", "shuffle", "--runs",
                         str(runs), "--seed", "1"]) == 0
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak(10)   # imports and caches first
    small, large = peak(1_000), peak(20_000)
    assert "mistakes over 20000 runs: max 18, min 18;" in capsys.readouterr().out
    assert large - small < 50_000, (small, large)


def test_u_and_gamma_sources():
    u = np.array([2.0, 2.0, -3.0])
    r = check_mistake_bound(*AND, u=u)
    assert r.gamma_source == "u" and math.isclose(r.gamma, 1 / math.sqrt(17))
    r = check_mistake_bound(*AND, u=[1, 1, -1.5])        # any scale
    assert math.isclose(r.gamma, 1 / math.sqrt(17))
    r = check_mistake_bound(*AND, gamma=0.2)
    assert r.gamma_source == "given" and math.isclose(r.bound, 3 / 0.04)


def test_bad_margin_is_a_bug_report():
    with pytest.raises(BoundViolation, match="BUG") as info:
        check_mistake_bound(*AND, gamma=1.0)    # a false margin: bound 3 < 18
    assert info.value.report.held is False and "given gamma" in str(info.value)


def test_non_separable_and_bad_u_are_errors():
    X, y = markone.datasets.xor()
    with pytest.raises(ValueError, match="not linearly separable"):
        check_mistake_bound(X, y)
    with pytest.raises(ValueError, match="does not separate"):
        check_mistake_bound(*AND, u=[1, 0, 0])
    with pytest.raises(ValueError, match="entries"):
        check_mistake_bound(*AND, u=[1, 1])


@settings(max_examples=25)
@given(st.integers(0, 10_000), st.integers(2, 5), st.floats(0.05, 0.3))
def test_bound_never_exceeded_hypo(seed, d, margin):
    X, y, u = markone.datasets.separable(40, d, margin, seed=seed)
    r = check_mistake_bound(X, y, u=u, intercept=False, order="shuffle", runs=3, seed=seed)
    # oracle: the margin of the generator's u is at least `margin`
    assert r.gamma >= margin - 1e-12 and max(r.mistakes) <= 1 / margin**2 + 1e-9


# ---- Freund & Schapire ----------------------------------------------------------------

def test_freund_schapire_on_xor_exact_values():
    X, y = markone.datasets.xor()
    r = freund_schapire_bound(X, y, u=[1, 0, 0], gamma=1.0)
    assert r.deviations.tolist() == [0.0, 2.0, 0.0, 2.0]
    assert math.isclose(r.D, 2 * math.sqrt(2)) and math.isclose(r.R, math.sqrt(3))
    assert math.isclose(r.bound, (math.sqrt(3) + 2 * math.sqrt(2)) ** 2)
    assert r.mistakes == (4,) and r.held


def test_freund_schapire_reduces_to_novikoff_when_separable():
    X, y = markone.datasets.orthonormal(5)
    u = np.ones(5) / math.sqrt(5)
    r = freund_schapire_bound(X, y, u, 1 / math.sqrt(5), intercept=False)
    assert r.D < 1e-12 and math.isclose(r.bound, 5) and r.mistakes == (5,)


@settings(max_examples=25)
@given(st.integers(0, 10_000), st.floats(0.05, 1.0))
def test_freund_schapire_holds_on_noisy_streams_hypo(seed, gamma):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((30, 3))
    u = rng.standard_normal(4)
    y = np.where(rng.random(30) < 0.2, -1, 1) * np.where(np.c_[X, np.ones(30)] @ u > 0, 1, -1)
    stream = rng.integers(0, 30, size=60)
    r = freund_schapire_bound(X, y, u, gamma, order=stream, runs=3, seed=seed)
    # independent recomputation of D over the stream
    Z = np.c_[X, np.ones(30)] * y[:, None] @ (u / np.linalg.norm(u))
    assert math.isclose(r.D, np.linalg.norm(np.maximum(0, gamma - Z[stream])), rel_tol=1e-12)
    assert r.held and max(r.mistakes) <= r.bound


def test_freund_schapire_argument_errors():
    X, y = markone.datasets.xor()
    with pytest.raises(ValueError, match="gamma"):
        freund_schapire_bound(X, y, [1, 0, 0], 0.0)
    with pytest.raises(ValueError, match="order"):
        freund_schapire_bound(X, y, [1, 0, 0], 1.0, order="shuffle")
    with pytest.raises(ValueError, match="indices"):
        freund_schapire_bound(X, y, [1, 0, 0], 1.0, order=[0, 7])


# ---- intercept cost -------------------------------------------------------------------

def test_intercept_cost_closed_form_and_numeric():
    r = intercept_cost(R=3.0, b=-12.0, gamma=1.0, c=1.0)
    assert r.c_opt == 6.0 and r.bound_min == 225.0 and r.checked
    assert r.bound_at_c == (9 + 1) * (1 + 144) and r.bound_no_b == 9.0
    # exact rational check at the optimum: (R^2 + c^2)(1 + b^2/c^2) = (R + |b|)^2
    R, b, c2 = Fraction(3), Fraction(12), Fraction(36)
    assert (R * R + c2) * (1 + b * b / c2) == (R + b) ** 2


@settings(max_examples=50)
@given(st.floats(0.01, 100), st.floats(-100, 100), st.floats(0.01, 10))
def test_intercept_optimum_is_a_minimum_hypo(R, b, gamma):
    r = intercept_cost(R, b, gamma)
    assert r.checked
    grid = np.geomspace(1e-4, 1e4, 400) * max(r.c_opt, 1e-3)
    assert intercept_bound(R, b, gamma, grid).min() >= r.bound_min * (1 - 1e-9)


def test_intercept_cost_b_zero_and_errors():
    r = intercept_cost(2.0, 0.0, 0.5)
    assert r.c_opt == 0.0 and r.bound_min == 16.0 and r.numeric_min == 16.0 and r.checked
    with pytest.raises(ValueError, match="R"):
        intercept_cost(-1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="c"):
        intercept_cost(1.0, 1.0, 1.0, c=0)


# ---- Kesler and the multiclass bound --------------------------------------------------

def test_kesler_rows_by_hand():
    from markone.multiclass import kesler_expand

    P = kesler_expand([[1.0, 2.0], [3.0, 4.0]], [0, 2], 3)
    assert P.shape == (4, 6)
    expected = {(1, 2, -1, -2, 0, 0), (1, 2, 0, 0, -1, -2), (-3, -4, 0, 0, 3, 4),
                (0, 0, -3, -4, 3, 4)}
    assert {tuple(r) for r in P.astype(int)} == expected
    assert sorted(np.einsum("ij,ij->i", P, P)) == [10, 10, 50, 50]   # 2 ||x||^2


def test_multiclass_bound_on_three_blobs():
    rng = np.random.default_rng(0)
    centres = np.array([[4, 0], [-2, 3.5], [-2, -3.5]])
    X = np.vstack([c + 0.5 * rng.standard_normal((15, 2)) for c in centres])
    y = np.repeat(["a", "b", "c"], 15)
    r = check_multiclass_bound(X, y, order="shuffle", runs=3, seed=0)
    assert r.held and r.n_classes == 3 and max(r.mistakes) <= r.bound


def test_multiclass_not_separable_is_an_error():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with pytest.raises(ValueError, match="not linearly separable"):
        check_multiclass_bound(X, [0, 1, 0, 1], intercept=False)


# ---- compression ----------------------------------------------------------------------

def test_compression_on_and():
    r = check_compression(*AND)
    assert r.reproduced and r.mistakes == 18 and r.rerun_mistakes == 18


def test_compression_exact_and_on_xor_prefix():
    r = check_compression([["1/2", "1/3"], ["-1/4", 1]], [1, -1], exact=True)
    assert r.reproduced and all(isinstance(v, Fraction) for v in r.w)
    X, y = markone.datasets.xor()
    r = check_compression(X, y, max_epochs=7)     # not converged: still rebuilt
    assert r.reproduced and r.mistakes == 28


@settings(max_examples=25)
@given(st.integers(0, 10_000))
def test_compression_reproduces_hypo(seed):
    X, y, _ = markone.datasets.separable(30, 3, 0.05, seed=seed)
    r = check_compression(X, y, order="shuffle", seed=seed)
    assert r.reproduced and len(r.support) <= r.mistakes
