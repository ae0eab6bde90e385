"""The yield experiment's comparison mode (issue 42, ``compare``): on the same damaged
machines, the certified fraction against a Monte Carlo estimate from one random
training run each, and the sampled machines Monte Carlo would need to match the
certified Clopper-Pearson lower end; resumable, on Dask, re-checked."""

import json
import shutil

import pytest
from scipy.stats import binom

from sims._stats import (clopper_pearson_interval, clopper_pearson_low,
                         samples_to_match)
from sims._yield_machine import train_machine
from sims.runner import load_experiment, run_experiment
from verify.errors import CertificateError

Y = load_experiment("yield")
COMPARE = dict(size="small", plot=False, seed=0, overrides={"compare": True})


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    return run_experiment("yield", out=tmp_path_factory.mktemp("sampled"), **COMPARE)


# -- the number of samples -------------------------------------------------------------

@pytest.mark.parametrize("k, n", [(0, 7), (3, 10), (29, 30), (30, 30)])
def test_the_real_valued_lower_end_is_clopper_pearson_at_whole_counts(k, n):
    assert clopper_pearson_low(k / n, n) == pytest.approx(
        clopper_pearson_interval(k, n)[0], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("rate, bound", [(1.0, 0.9), (0.9, 0.8), (0.6, 0.47),
                                         (0.99, 0.5), (0.5, 0.01)])
def test_samples_to_match_is_the_least_count_that_reaches_the_bound(rate, bound):
    n = samples_to_match(rate, bound)
    assert clopper_pearson_low(rate, n) >= bound * (1 - 1e-12)
    assert n == 1 or clopper_pearson_low(rate, n - 1) < bound
    # at whole counts the lower end is the binomial tail inversion: P(X >= k) = a/2
    if float(rate * n).is_integer() and 0 < rate * n:
        low = clopper_pearson_low(rate, n)
        assert binom.sf(rate * n - 1, n, low) == pytest.approx(0.025, rel=1e-6)


@pytest.mark.parametrize("rate, bound", [(0.8, 0.8), (0.5, 0.9), (0.0, 0.1)])
def test_a_rate_at_or_below_the_bound_never_matches_it(rate, bound):
    assert samples_to_match(rate, bound) is None


def test_all_learnable_and_all_trained_need_as_many_machines():
    for n in (4, 30, 100):
        assert samples_to_match(1.0, clopper_pearson_interval(n, n)[0]) == n
    low = clopper_pearson_interval(30, 30)[0]
    assert [Y.sampled(t, 30, low, 0.95)[-1] for t in (30, 29, 27)] == [30, 60, 1610]


# -- the sweep -------------------------------------------------------------------------

def test_each_machine_has_both_verdicts_and_monte_carlo_never_passes_the_proof(sweep):
    row = sweep.results["dead_a_units"]
    assert sweep.results["compare"] is True
    for i, machines in enumerate(row["machines"]):
        decided = [m for m in machines if m["learnable"] is not None]
        assert all(m["learnable"] for m in decided if m["trained"])
        assert row["trained"][i] == sum(m["trained"] for m in decided)
        assert row["trained"][i] <= row["learnable"][i]
        assert row["mc_fraction"][i] == row["trained"][i] / row["decided"][i]
        assert (row["mc_cp_low"][i], row["mc_cp_high"][i]) == pytest.approx(
            clopper_pearson_interval(row["trained"][i], row["decided"][i]))
        assert row["mc_needed"][i] == samples_to_match(row["mc_fraction"][i],
                                                       row["cp_low"][i])
    assert row["mc_needed"][0] == row["decided"][0]      # all 4 learn and train


def test_monte_carlo_is_one_seeded_training_run_of_the_same_machine(sweep):
    spec = next(s for s in Y.tasks(sweep.results["config"], sweep.results["seed"])
                if s["rate_index"] == 1)
    run, seed = spec["machines"][0]
    record = sweep.results["dead_a_units"]["machines"][1][run]
    got = train_machine(spec, seed)
    assert got == {k: record[k] for k in ("trained", "trained_epochs")}
    assert 1 <= record["trained_epochs"] <= spec["mc_epochs"]


def test_without_compare_nothing_is_trained(tmp_path):
    res = run_experiment("yield", out=tmp_path, size="small", plot=False, seed=0,
                         overrides={"rates": [0.0]})
    assert "trained" not in res.results["dead_a_units"]
    assert all("trained" not in m for m in res.results["dead_a_units"]["machines"][0])


def _copy(sweep, tmp_path):
    folder = tmp_path / "yield"
    shutil.copytree(sweep.results_path.parent, folder)
    return folder


def test_recheck_refuses_monte_carlo_entries_that_do_not_follow(sweep, tmp_path):
    folder = _copy(sweep, tmp_path)
    assert Y.recheck(folder).points == 3
    results = json.loads((folder / "results.json").read_text())
    results["dead_a_units"]["mc_needed"][1] = 3
    (folder / "results.json").write_text(json.dumps(results))
    with pytest.raises(CertificateError, match="says Monte Carlo"):
        Y.recheck(folder)
    results = json.loads((sweep.results_path).read_text())
    broken = next(m for m in results["dead_a_units"]["machines"][2]
                  if m["learnable"] is False)
    broken["trained"] = True
    (folder / "results.json").write_text(json.dumps(results))
    with pytest.raises(CertificateError, match="trained without a mistake"):
        Y.recheck(folder)


class CrashAfter:
    """``run_task`` that runs ``n`` tasks, then fails as a power cut would."""

    def __init__(self, n):
        self.left, self.real = n, Y.run_task

    def __call__(self, spec):
        if not self.left:
            raise RuntimeError("power cut")
        self.left -= 1
        return self.real(spec)


def test_a_resumed_sweep_and_dask_write_the_same_results(sweep, tmp_path, monkeypatch):
    """A sweep cut after two tasks and resumed on Dask: the two are reused, the rest
    run on Dask, and the results are the uninterrupted local sweep's, byte for byte
    (one interrupted sweep for both claims: the whole sweep ran twice more before)."""
    distributed = pytest.importorskip("dask.distributed")
    monkeypatch.setattr(Y, "run_task", CrashAfter(2))
    with pytest.raises(RuntimeError, match="power cut"):
        run_experiment("yield", out=tmp_path, **COMPARE)
    monkeypatch.undo()
    with distributed.LocalCluster(n_workers=1, processes=False,
                                  dashboard_address=None) as cluster:
        again = run_experiment("yield", out=tmp_path, dask=cluster.scheduler_address,
                               **COMPARE)
    assert (again.n_reused, again.n_run) == (2, again.n_tasks - 2)
    assert again.results_path.read_bytes() == sweep.results_path.read_bytes()


@pytest.mark.parametrize("overrides, match", [
    ({"compare": "yes"}, "compare"), ({"compare": 1}, "compare"),
    ({"mc_epochs": 0}, "mc_epochs"),
])
def test_a_bad_comparison_setting_is_named_before_any_task(overrides, match, tmp_path):
    with pytest.raises(ValueError, match=match):
        run_experiment("yield", out=tmp_path, size="small", plot=False,
                       overrides=overrides)
    assert not (tmp_path / "yield").exists()


def test_the_figure(sweep, tmp_path):
    paths = Y.plot(sweep.results, tmp_path)
    assert [p.name for p in paths] == ["yield.png", "yield_sampled.png"]
