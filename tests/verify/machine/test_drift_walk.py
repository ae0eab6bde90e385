"""verify.machine.walk_horizon (drift_horizon with drift_sd and delta): the certified
union bound against its closed form, against the SimPy machine's own random walk
(empirical flip rates under the bound), and the retraining schedule's arithmetic."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from markone.cli import main
from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from verify.machine import drift_horizon, walk_horizon
from verify.machine.drift_walk import (WalkTerms, first_changes, retraining_schedule,
                                       walk_terms)
from verify.machine.theory._walk_search import largest_time as walk_horizon_of

#: A slow decision (0.5 s of logic), so few presentations fill a second of drift.
PARAMS = MarkIParams(logic_s=0.5)
SD = 0.3


@pytest.fixture(scope="module")
def trained():
    images, labels = letters("AB", per_class=2, seed=0)
    machine = MarkI(PARAMS, seed=0)
    run = machine.train(images, labels)
    assert run.converged
    return machine, run, images, labels


def flip_rate(trained, until_s, runs):
    """The fraction of seeded random walks on the SimPy machine in which some
    answer to a training figure changes by ``until_s``."""
    machine, run, images, labels = trained
    times = first_changes(PARAMS, 0, run.weights, images, labels, drift_sd=SD,
                          until_s=until_s, walks=runs)
    return np.mean([t is not None for t in times])


def test_the_bound_is_the_reflection_principle_per_answer(trained):
    machine, run, images, labels = trained
    terms = walk_terms(machine, run, images, labels)
    w, A = run.weights, machine.a_features(images).astype(bool)
    y = machine.code(labels)
    t = 7.0
    want = 0.0
    for i in range(len(images)):
        for r in range(8):
            m, k = y[i, r] * w[r, A[i]].sum(), A[i].sum()
            want += math.erfc(m / (SD * math.sqrt(2 * k * t)))
    lo, hi = machine.params.weight_range
    for r in range(8):   # each potentiometer's harmful stop, once per side
        for side, stop in ((1, hi), (-1, lo)):
            used = (A & (y[:, r] == side)[:, None]).any(axis=0)
            want += sum(math.erfc(abs(stop - v) / (SD * math.sqrt(2 * t)))
                        for v in w[r, used])
    certified = terms.probability(Fraction(SD), Fraction(t))
    assert want <= certified <= want * (1 + 1e-12)
    assert math.isclose(terms.estimate(SD, t), want, rel_tol=1e-12)


def test_the_horizon_is_certified_and_nearly_tight(trained):
    machine, run, images, labels = trained
    h = drift_horizon(machine, run, images, labels, drift_sd=SD, delta=0.05)
    terms = walk_terms(machine, run, images, labels)
    assert 0 < h.horizon_s and h.probability <= h.delta == Fraction(1, 20)
    assert terms.probability(h.drift_sd, h.horizon_s * Fraction(1001, 1000)) > h.delta
    assert (h.answers, h.wrong, h.at_stop) == (32, 0, 0)


def test_empirical_flip_rates_lie_under_the_bound(trained):
    machine, run, images, labels = trained
    terms = walk_terms(machine, run, images, labels)
    bound = terms.estimate(SD, 10.0)
    assert 0.2 < bound < 1
    assert flip_rate(trained, 10.0, 30) <= bound
    # the simulation does change answers: long enough, most runs do
    assert flip_rate(trained, 30.0, 20) > 0.5


@pytest.mark.slow
def test_empirical_flip_rates_lie_under_the_bound_many_runs(trained):
    machine, run, images, labels = trained
    terms = walk_terms(machine, run, images, labels)
    for until_s in (4.0, 8.0, 11.0):
        assert flip_rate(trained, until_s, 400) <= terms.estimate(SD, until_s)
    # one answer's own term alone is too small a bound: the union is needed
    lowest = min(math.erfc(float(m) / (SD * math.sqrt(2 * k * 10.0)))
                 for m, k, _ in terms.answers)
    assert flip_rate(trained, 10.0, 400) > lowest


def test_a_potentiometer_at_its_harmful_stop_gives_no_horizon():
    images, labels = letters("AB", per_class=2, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-1, 1)), seed=0)
    run = machine.train(images, labels)
    h = walk_horizon(machine, run, images, labels, drift_sd=SD, delta=0.1)
    assert h.horizon_s == 0 and h.at_stop > 0
    with pytest.raises(ValueError, match="end stop that works against"):
        retraining_schedule(walk_terms(machine, run, images, labels), Fraction(SD),
                            Fraction(1, 10), 100)


def test_a_wrong_answer_has_horizon_zero(trained):
    machine, run, images, labels = trained
    h = walk_horizon(machine, np.zeros((8, 512)), images, labels, drift_sd=SD,
                     delta=0.1)
    assert (h.horizon_s, h.wrong, h.probability) == (0, 32, 1)


def test_the_schedule_splits_delta_over_equal_intervals():
    terms = WalkTerms(((Fraction(2), 4, 3),), ((Fraction(10), 5),), 0)
    sd, delta = Fraction(1, 4), Fraction(1, 100)
    one = retraining_schedule(terms, sd, delta, 1)
    assert (one.intervals, one.times_s) == (1, ())
    # exactly the horizon: certified at delta, so no retraining (the float search's
    # safety margin must not cost an interval)
    horizon = walk_horizon_of(terms, sd, delta)
    assert retraining_schedule(terms, sd, delta, horizon).intervals == 1
    s = retraining_schedule(terms, sd, delta, 500)
    assert s.intervals * s.interval_s == 500 and len(s.times_s) == s.intervals - 1
    assert s.times_s[0] == s.interval_s and s.per_interval <= delta / s.intervals
    assert terms.probability(sd, s.interval_s) == s.per_interval
    # one interval fewer would not do (the schedule is the fewest found)
    fewer = s.intervals - 1
    assert terms.probability(sd, Fraction(500, fewer)) * fewer > delta


@pytest.mark.parametrize("kwargs, message", [
    ({"drift_sd": 0.1}, "needs delta"),
    ({"drift_sd": 0.1, "delta": 1}, r"delta\(=1\) must be a probability"),
    ({"drift_sd": -1, "delta": 0.1}, r"drift_sd\(=-1\) must be a finite number > 0"),
    ({"drift_rate": 0.1, "delta": 0.1}, "for a random-walk drift"),
    ({"drift_rate": 0.1, "drift_sd": 0.1}, "not both or neither"),
])
def test_bad_requests_are_refused(trained, kwargs, message):
    machine, run, images, labels = trained
    with pytest.raises(ValueError, match=message):
        drift_horizon(machine, run, images, labels, **kwargs)


def test_cli_walk(tmp_path, capsys):
    run = tmp_path / "run.json"
    assert main(["machine", "train", "--chars", "AB", "--per-class", "2", "--log",
                 "--out", str(run)]) == 0
    capsys.readouterr()
    assert main(["verify", "drift", str(run), "--sd", "0.3", "--delta", "0.01",
                 "--over", "600", "--json", str(tmp_path / "h.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("walk horizon ") and "probability at least 0.99" in out
    assert "\nretraining: every " in out
    assert main(["verify", "drift", str(run), "--sd", "0.3"]) == 2
    assert "--sd needs --delta" in capsys.readouterr().err
    assert main(["verify", "drift", str(run), "--rate", "0.3", "--delta", "0.1"]) == 2
    # the flag given, not "--delta, --over, --budget and --max-memory are for ..." (#37)
    assert main(["verify", "drift", str(run), "--rate", "0.3", "--over", "60"]) == 2
    assert capsys.readouterr().err.endswith(
        "error: --over 60 is for a random walk (--sd); --rate has an exact horizon: drop "
        "one of the two.\n")


def test_cli_reads_the_runs_own_drift(tmp_path, capsys):
    walk, creep = tmp_path / "walk.json", tmp_path / "creep.json"
    assert main(["machine", "train", "--chars", "AB", "--per-class", "2", "--log",
                 "--drift", "0.3", "--faults-at", "1e9", "--out", str(walk)]) == 0
    assert main(["machine", "train", "--chars", "AB", "--per-class", "2", "--log",
                 "--set", "drift_rate=-0.25", "--out", str(creep)]) == 0
    capsys.readouterr()
    assert main(["verify", "drift", str(walk), "--delta", "0.01"]) == 0
    own = capsys.readouterr().out
    assert main(["verify", "drift", str(walk), "--sd", "0.3", "--delta", "0.01"]) == 0
    assert capsys.readouterr().out == own and "0.3 steps per sqrt(s)" in own
    assert main(["verify", "drift", str(creep)]) == 0
    assert "at 1/4 steps/s" in capsys.readouterr().out
    assert main(["verify", "drift", str(creep), "--delta", "0.01"]) == 2
    assert "no PotentiometerDrift fault" in capsys.readouterr().err
    assert main(["verify", "drift", str(walk)]) == 2
    assert "no drift_rate of its own" in capsys.readouterr().err
