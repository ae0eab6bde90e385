"""verify.machine.drift_horizon: exact against the machine's own sums under the worst
bounded drift (a mistake exactly at the horizon) and under random bounded drifts
(none before it), and figure_horizon against a brute-force search."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from markone.cli import main
from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from verify.machine.drift import drift_horizon, figure_horizon


@pytest.fixture(scope="module")
def trained():
    images, labels = letters("ABC", per_class=2, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-4, 4)), seed=0)
    run = machine.train(images, labels)
    assert run.converged
    return machine, run, images, labels


def worst_weights(machine, run, images, labels, figure, r, t):
    """The weights after ``t`` seconds of the drift that hurts R-unit ``r``'s answer
    to ``figure`` most: its active potentiometers at full rate against the target."""
    w = run.weights.copy()
    y = machine.code(labels)[figure, r]
    active = machine.a_features(images)[figure].astype(bool)
    lo, hi = machine.params.weight_range
    w[r, active] = np.clip(w[r, active] - y * RATE * t, lo, hi)
    return w


RATE = 0.25


def margins(machine, w, images, labels):
    return machine.code(labels) * (machine.a_features(images) @ w.T)


def test_the_worst_drift_makes_a_mistake_exactly_at_the_horizon(trained):
    machine, run, images, labels = trained
    h = drift_horizon(machine, run, images, labels, drift_rate=RATE)
    assert h.horizon_s > 0 and h.margin == margins(machine, run.weights, images,
                                                   labels)[h.figure, h.r_unit]
    T = float(h.horizon_s)
    at = worst_weights(machine, run, images, labels, h.figure, h.r_unit, T)
    before = worst_weights(machine, run, images, labels, h.figure, h.r_unit, 0.999 * T)
    assert margins(machine, at, images, labels)[h.figure, h.r_unit] <= 1e-9   # a mistake
    assert margins(machine, before, images, labels)[h.figure, h.r_unit] > 0
    # every figure's own horizon: the same, figure by figure
    for i in range(len(images)):
        for r in range(8):
            own = h.horizons_s[i][r]
            assert own is None or own >= h.horizon_s
            if own is not None:
                w = worst_weights(machine, run, images, labels, i, r, float(own))
                assert margins(machine, w, images, labels)[i, r] <= 1e-9


def test_no_random_bounded_drift_changes_an_answer_before_the_horizon(trained):
    machine, run, images, labels = trained
    h = drift_horizon(machine, run, images, labels, drift_rate=RATE)
    rng = np.random.default_rng(0)
    lo, hi = machine.params.weight_range
    for _ in range(200):
        rates = rng.uniform(-RATE, RATE, run.weights.shape)
        rates[rng.random(rates.shape) < 0.5] = RATE * rng.choice([-1, 1])
        t = float(h.horizon_s) * rng.uniform(0, 0.999)
        w = np.clip(run.weights + rates * t, lo, hi)
        assert (margins(machine, w, images, labels) > 0).all()


def test_the_machine_answers_with_the_drifted_weights_as_computed(trained):
    machine, run, images, labels = trained
    h = drift_horizon(machine, run, images, labels, drift_rate=RATE)
    w = worst_weights(machine, run, images, labels, h.figure, h.r_unit,
                      1.01 * float(h.horizon_s))
    saved = machine.runits.weights.copy()
    try:
        machine.runits.weights[:] = w
        scores = machine.decision_function(images)      # the machine's own sums
    finally:
        machine.runits.weights[:] = saved
    y = machine.code(labels)[h.figure, h.r_unit]
    assert y * scores[h.figure, h.r_unit] < 0


def test_a_wrong_answer_has_horizon_zero_and_wide_stops_none():
    p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                    max_fanout=1, theta=1, n_r_units=1, weight_range=(-1, 1))
    machine = MarkI(p, seed=0)
    figures, labels = np.array([[1, 0], [0, 1]]), ["a", "b"]
    run = machine.train(figures, labels)
    # weights at the stops -1 and +1: the drift has no room to turn them
    assert drift_horizon(machine, run, figures, labels, drift_rate=1).horizon_s == Fraction(1)
    zero = drift_horizon(machine, np.zeros((1, 2)), figures, labels, drift_rate=1)
    assert (zero.horizon_s, zero.margin) == (0, 0)
    with pytest.raises(ValueError, match="drift_rate"):
        drift_horizon(machine, run, figures, labels, drift_rate=0)


def brute(margin, room, rate):
    """The least t on a fine rational grid with the loss reaching the margin."""
    def loss(t):
        return sum(rate * t if r is None else min(rate * t, r) for r in room)
    if all(r is not None for r in room) and sum(room) < margin:
        return None
    lo, hi = Fraction(0), Fraction(1)
    while loss(hi) < margin:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if loss(mid) >= margin else (mid, hi)
    return hi


def test_figure_horizon_agrees_with_a_search():
    rng = np.random.default_rng(1)
    for _ in range(300):
        k = int(rng.integers(0, 6))
        room = [None if rng.random() < 0.2 else Fraction(int(rng.integers(0, 6)))
                for _ in range(k)]
        margin = Fraction(int(rng.integers(-1, 12)))
        rate = Fraction(int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        got = figure_horizon(margin, room, rate)
        if margin <= 0:
            assert got == 0
            continue
        want = brute(margin, room, rate)
        assert (got is None) == (want is None)
        if got is not None:
            assert abs(got - want) < Fraction(1, 10**9)
            loss = sum(rate * got if r is None else min(rate * got, r) for r in room)
            assert loss == margin                       # exact at the horizon


def test_cli_drift(tmp_path, capsys):
    run = tmp_path / "run.json"
    assert main(["machine", "train", "--chars", "AB", "--per-class", "2", "--log",
                 "--set", "weight_range=[-4, 4]", "--out", str(run)]) == 0
    capsys.readouterr()
    assert main(["verify", "drift", str(run), "--rate", "0.25"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("drift horizon ") and "at 1/4 steps/s" in out
    with pytest.raises(SystemExit) as stop:
        main(["verify", "drift", str(run), "--rate", "0"])
    assert stop.value.code == 2


def first_wrong_answer(machine, run, images, labels, creep):
    """On the SimPy machine whose potentiometers creep at ``creep`` steps per second
    (MarkIParams.drift_rate), started from the trained weights: the decision time and
    the (figure, R-unit) of the first wrong answer to a training figure, and the
    longest pass up to it (machine seconds)."""
    varied = MarkI(machine.params.replace(drift_rate=creep), seed=0)
    varied.calibrate(images)
    varied.runits.weights[:] = run.weights
    longest = 0.0
    while True:
        session = varied.train(images, labels, max_epochs=1, warm_start=True, log=True)
        for p in session.log:
            if any(p.reinforced):
                return (p.end_t_s - p.motor_s, p.figure, p.reinforced.index(True),
                        max(longest, session.sim_time_s))
        longest = max(longest, session.sim_time_s)


@pytest.mark.parametrize("creep", [RATE, -RATE])
def test_the_machines_own_creep_changes_no_answer_before_the_horizon(trained, creep):
    # a creep in one direction is the worst drift for every answer whose target it
    # works against, so the machine's first wrong answer comes at a figure's own
    # horizon, at the first decision on that figure after it, never before the
    # machine's horizon
    machine, run, images, labels = trained
    h = drift_horizon(machine, run, images, labels, drift_rate=RATE)
    when, figure, r, pass_s = first_wrong_answer(machine, run, images, labels, creep)
    own = h.horizons_s[figure][r]
    assert when >= own >= h.horizon_s
    assert machine.code(labels)[figure, r] == (1 if creep < 0 else -1)
    # the answers this creep works against: the earliest of their horizons is reached
    # within one pass (each figure is decided once a pass) of the first wrong answer
    y = machine.code(labels)
    against = [h.horizons_s[i][k] for i in range(len(images)) for k in range(8)
               if y[i, k] == (1 if creep < 0 else -1) and h.horizons_s[i][k] is not None]
    assert min(against) <= when <= min(against) + pass_s
