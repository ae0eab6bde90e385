"""One scoring function: the R-units' sums over the active A-units, in one fixed order.

The segment loop, the per-figure trial (``Pattern.scores``), ``RUnits.scores`` and
``MarkI.decision_function`` all call ``markone.hardware.trial.score``. Whole-step
weights give exact integers in any order; fractional ones (the gamma rule without
quantisation, on a machine whose A-unit count is not a power of two, so that the
increments are not dyadic) are summed from +0.0 in ascending A-unit order. The oracle
here is that sum written as a Python loop.
"""

import math

import numpy as np
import pytest

from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from markone.hardware import trial
from markone.hardware.plugboard import Pattern


def ascending_sum(weights, active):
    """The oracle: each R-unit's sum from +0.0, adding the active units in order."""
    out = []
    for row in weights:
        total = 0.0
        for j in active:
            total += float(row[j])
        out.append(total)
    return out


def test_score_adds_in_ascending_order_from_plus_zero():
    # 1e16 + 1 rounds back to 1e16: only this order gives 0.0 (others give 1.0)
    weights = np.array([[1e16, 1.0, -1e16], [-0.0, -0.0, -0.0]])
    out = np.empty(2)
    trial.score(weights, np.array([0, 1, 2]), out)
    assert out.tolist() == [0.0, 0.0]
    assert not np.signbit(out[1])                # +0.0 + -0.0 is +0.0
    trial.score(weights, np.zeros(0, dtype=np.int64), out)
    assert out.tolist() == [0.0, 0.0] and not np.signbit(out).any()


def test_every_scorer_is_the_kernel():
    rng = np.random.default_rng(3)
    weights = rng.normal(size=(4, 30)) / 3
    a = (rng.random(30) < 0.4).astype(np.uint8)
    expected = ascending_sum(weights, np.flatnonzero(a))
    assert Pattern(a.copy()).scores(weights).tolist() == expected
    out = np.empty((1, 4))
    trial.score_figures(weights, a[None, :], out)
    assert out[0].tolist() == expected


@pytest.mark.parametrize("left", [0, 10**6])   # compiled (score_rows), then plain
def test_decision_function_sums_as_the_kernel_plain_and_compiled(monkeypatch, left,
                                                                 fractional_run):
    # compiled, decision_function scores the CSR of the active units (score_rows);
    # the same ascending sums of fractional weights as score_figures, row by row
    machine, images, _ = fractional_run
    monkeypatch.setattr(trial.PLAIN, "left", left)
    A = machine.a_features(images)
    want = np.empty((len(A), machine.params.n_r_units))
    trial.score_figures(machine.runits.weights, A, want)
    got = machine.decision_function(images)
    assert got.tobytes() == want.tobytes()
    assert [got[i].tolist() == ascending_sum(machine.runits.weights, np.flatnonzero(row))
            for i, row in enumerate(A)] == [True] * len(A)
    empty = np.empty((0, machine.params.n_r_units))   # no figures, no rows
    trial.score_rows(machine.runits.weights, np.zeros(1, np.int64), np.zeros(0, np.int64),
                     empty)


@pytest.fixture(scope="module")
def fractional_run():
    """A gamma machine with 300 A-units, unquantised: increments of k/300 steps."""
    images, labels = letters("ABCD", per_class=2, seed=0)
    params = MarkIParams(n_a_units=300, rule="gamma", quantize=False, weight_range=None)
    machine = MarkI(params, seed=5)
    run = machine.train(images, labels, presentations=40, log=True)
    return machine, images, run


def test_training_scores_are_the_ascending_sums_of_fractional_weights(fractional_run):
    machine, _, run = fractional_run
    weights = np.zeros((machine.params.n_r_units, machine.params.n_a_units))
    fractional = False
    for rec in run.log:
        assert list(rec.scores) == ascending_sum(weights, rec.active_a)
        for r, j, value in rec.changes:
            weights[r, j] = value
            fractional |= not float(value).is_integer() and \
                not float(value * 2**20).is_integer()   # not dyadic either
    assert fractional   # the run really moved weights to non-dyadic fractions
    np.testing.assert_array_equal(weights, machine.runits.weights)


def test_decision_function_gives_the_trials_own_sums(fractional_run):
    machine, images, _ = fractional_run
    A = machine.a_features(images)
    scores = machine.decision_function(images)
    for a, row in zip(A, scores):
        assert row.tolist() == ascending_sum(machine.runits.weights, np.flatnonzero(a))
        assert row.tolist() == machine.runits.scores(a).tolist()
    assert math.isfinite(scores.sum())
