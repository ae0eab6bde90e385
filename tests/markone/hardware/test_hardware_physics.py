"""Mark I physics: photocell lag and blends, motors, end stops, rules, wiring."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from markone import online
from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from markone.hardware import plugboard, trial
from markone.hardware.retina import Retina, approach
from markone.hardware.runits import source_set_mask

SMALL = dict(retina_shape=(6, 6), n_a_units=40, n_excitatory=3, n_inhibitory=2,
             n_r_units=3)


def square(size=20, lo=5, hi=15):
    img = np.zeros((size, size), dtype=np.uint8)
    img[lo:hi, lo:hi] = 1
    return img


# ---------------------------------------------------------------- trial timing
def test_first_trial_takes_settle_plus_logic_plus_one_motor_step():
    p = MarkIParams()
    machine = MarkI(p, seed=0)
    run = machine.train(square()[None], ["sq"], presentations=1, log=True)
    rec = run.log[0]
    settle = p.photocell_rise_s * math.log(1 / p.settle_tolerance)  # dark -> lit
    assert rec.settle_s == pytest.approx(settle, rel=1e-12)
    # zero weights: every R-unit errs, every active A-unit moves one step
    assert rec.motor_s == pytest.approx(p.motor_step_s)
    assert run.sim_time_s == pytest.approx(settle + p.logic_s + p.motor_step_s)
    assert rec.end_t_s - rec.t_s == pytest.approx(run.sim_time_s)


def test_switching_figures_waits_for_the_slow_decay():
    p = MarkIParams()
    a, b = square(lo=2, hi=8), square(lo=10, hi=18)
    machine = MarkI(p, seed=0)
    run = machine.train(np.stack([a, b]), ["a", "b"], presentations=2, log=True)
    # b's cells start dark (a's cells have not reached them); a's cells must decay
    # from (nearly) full light: the slower decay sets the settling time.
    level = 1 - math.exp(-(run.log[0].end_t_s - 0) / p.photocell_rise_s)
    expected = p.photocell_decay_s * math.log(level / p.settle_tolerance)
    assert run.log[1].settle_s == pytest.approx(expected, rel=1e-9)


def test_motor_phase_lasts_as_long_as_the_largest_move():
    p = MarkIParams(increment_steps=3)
    run = MarkI(p, seed=0).train(square()[None], ["sq"], presentations=1, log=True)
    assert run.log[0].motor_s == pytest.approx(3 * p.motor_step_s)


def test_ideal_machine_takes_only_logic_time():
    p = MarkIParams.ideal()
    images, labels = letters("AB", per_class=2, seed=0)
    run = MarkI(p, seed=0).train(images, labels, presentations=4)
    assert run.sim_time_s == pytest.approx(4 * p.logic_s)


# ---------------------------------------------------------------- retina
@pytest.mark.parametrize("exposure_s, expected", [
    (0.005, "old"),          # new cells not yet at half light, old ones still lit
    (0.030, "old_or_new"),   # new cells past half light, old ones not yet dark
    (None, "new"),           # settled
])
def test_a_figure_shown_too_soon_is_a_blend(exposure_s, expected):
    p = MarkIParams(exposure_s=None)
    old, new = square(lo=2, hi=8), square(lo=6, hi=16)
    machine = MarkI(p, seed=0)
    machine.train(old[None], ["x"], presentations=1)   # old fully settled
    machine.env.run(until=machine.env.now + 5.0)       # and shown for 5 s more
    rec = machine.learn_one(new, "x", exposure_s=exposure_s)
    shown = np.zeros(400, dtype=np.uint8)
    settled_a = machine.a_features(new[None])[0]
    want = {"old": old, "new": new, "old_or_new": old | new}[expected].ravel()
    shown[:] = want
    want_a = plugboard.fire(machine.wiring, shown, machine.theta)
    assert tuple(np.flatnonzero(want_a)) == rec.active_a
    if expected != "new":
        assert not np.array_equal(want_a, settled_a)


def test_photocell_noise_is_seeded():
    p = MarkIParams(photocell_noise_sd=0.4)
    images, labels = letters("AB", per_class=3, seed=0)
    w1 = MarkI(p, seed=7).train(images, labels, max_epochs=3).weights
    w2 = MarkI(p, seed=7).train(images, labels, max_epochs=3).weights
    w0 = MarkI(p.replace(photocell_noise_sd=0.0), seed=7).train(images, labels,
                                                                 max_epochs=3).weights
    np.testing.assert_array_equal(w1, w2)
    assert not np.array_equal(w1, w0)


# ---------------------------------------------------------------- end stops
def test_end_stops_block_moves_and_count_them():
    """Forced rule, one figure, five times, range (-2, 2): every active weight moves
    twice, then the three later requests are blocked at the end stop."""
    p = MarkIParams(weight_range=(-2, 2), rule="forced")
    machine = MarkI(p, seed=0)
    run = machine.train(square()[None], ["sq"], presentations=5, log=True)
    n_active = len(run.log[0].active_a)
    assert n_active > 0
    assert run.saturated.tolist() == [3 * n_active] * 8
    assert [rec.saturated for rec in run.log] == [0, 0] + [8 * n_active] * 3
    assert [rec.motor_s for rec in run.log] == [0.2, 0.2, 0.0, 0.0, 0.0]
    target = machine.code(["sq"])[0]
    active = list(run.log[0].active_a)
    np.testing.assert_array_equal(run.weights[:, active], 2 * target[:, None] *
                                  np.ones((8, n_active)))


@given(seed=st.integers(0, 2**16), lim=st.integers(1, 4),
       rule=st.sampled_from(["error_correction", "forced", "gamma"]))
def test_weights_stay_within_end_stops_in_whole_steps_hypo(seed, lim, rule):
    rng = np.random.default_rng(seed)
    images = (rng.random((6, 6, 6)) < 0.5).astype(np.uint8)
    labels = rng.integers(0, 4, 6)
    p = MarkIParams(weight_range=(-lim, lim), rule=rule, **SMALL)
    run = MarkI(p, seed=seed).train(images, labels, max_epochs=5)
    assert np.abs(run.weights).max() <= lim
    np.testing.assert_array_equal(run.weights, np.round(run.weights))


# ---------------------------------------------------------------- rules
def test_forced_rule_reinforces_every_r_unit_on_every_figure():
    images, labels = letters("AB", per_class=2, seed=0)
    run = MarkI(MarkIParams.ideal(rule="forced"), seed=0).train(images, labels,
                                                                presentations=7)
    assert run.reinforcements.tolist() == [7] * 8


def test_forced_rule_is_hebbian_sum():
    """Ideal forced (S-controlled) training: w_k = sum over figures of code * a."""
    images, labels = letters("ABC", per_class=2, seed=3)
    machine = MarkI(MarkIParams.ideal(rule="forced"), seed=0)
    run = machine.train(images, labels, presentations=len(images))
    A, code = machine.a_features(images), machine.code(labels)
    np.testing.assert_array_equal(run.weights, code.T @ A)


@given(seed=st.integers(0, 2**16), topology=st.sampled_from(["full", "source_sets"]))
def test_gamma_rule_conserves_each_r_units_total_hypo(seed, topology):
    rng = np.random.default_rng(seed)
    images = (rng.random((5, 6, 6)) < 0.5).astype(np.uint8)
    labels = rng.integers(0, 3, 5)
    p = MarkIParams.ideal(rule="gamma", topology=topology, **SMALL)
    run = MarkI(p, seed=seed).train(images, labels, max_epochs=4)
    np.testing.assert_allclose(run.weights.sum(axis=1), 0.0, atol=1e-9)
    assert run.reinforcements.sum() > 0


def test_train_rule_argument_overrides_params():
    images, labels = letters("AB", per_class=2, seed=0)
    run = MarkI(MarkIParams.ideal(), seed=0).train(images, labels, presentations=4,
                                                   rule="forced")
    assert run.rule == "forced" and run.reinforcements.tolist() == [4] * 8


# ---------------------------------------------------------------- plugboard
@given(seed=st.integers(0, 2**32 - 1), cap=st.integers(3, 40))
def test_wiring_respects_counts_distinctness_and_fanout_hypo(seed, cap):
    p = MarkIParams(max_fanout=cap, n_a_units=100)
    w = plugboard.wire(p, seed)
    assert w.excitatory.shape == (100, 5) and w.inhibitory.shape == (100, 5)
    both = np.hstack([w.excitatory, w.inhibitory])
    assert all(len(set(row)) == 10 for row in both.tolist())
    assert w.fanout.max() <= cap and w.fanout.sum() == 1000


def test_a_units_match_connection_matrix_oracle():
    images, _ = letters("ABCDEFG", per_class=2, seed=0)
    machine = MarkI(seed=2)
    A = machine.a_features(images)
    C = plugboard.connection_matrix(machine.wiring)
    S = images.reshape(len(images), -1).astype(np.int64)
    np.testing.assert_array_equal(A, (S @ C >= machine.theta).astype(np.uint8))


def test_auto_theta_fires_5_to_20_percent_on_letters():
    images, labels = letters("ABCDEFGHIJ", per_class=3, seed=0)
    machine = MarkI(seed=0)
    machine.train(images, labels, max_epochs=1)
    rate = machine.a_features(images).mean()
    assert 0.05 <= rate <= 0.20


def test_source_sets_are_disjoint_and_cover_the_a_units():
    mask = source_set_mask(8, 512, seed=0)
    assert mask.sum(axis=1).tolist() == [64] * 8
    assert mask.sum(axis=0).tolist() == [1] * 512


def test_same_seed_same_machine_different_seed_different_wiring():
    a, b, c = MarkI(seed=1), MarkI(seed=1), MarkI(seed=2)
    np.testing.assert_array_equal(a.wiring.excitatory, b.wiring.excitatory)
    assert not np.array_equal(a.wiring.excitatory, c.wiring.excitatory)


# ---------------------------------------------------------------- class codes
def test_binary_and_one_hot_codes_decode_their_own_classes():
    for code in ("binary", "one_hot"):
        machine = MarkI(MarkIParams(class_code=code), seed=0)
        codes = machine.code(list("ABCDEFGH"))
        assert len({tuple(c) for c in codes.tolist()}) == 8
        machine.classes_ = np.array(list("ABCDEFGH"))
        machine._index = {c: i for i, c in enumerate("ABCDEFGH")}
        assert machine._decode(codes, codes.astype(float)).tolist() == list(range(8))


@pytest.mark.parametrize("left", [0, 10**6])   # compiled, then plain
@pytest.mark.parametrize("code,n_classes,n_r", [  # 16 R-units x 20 classes: no table
    ("binary", 26, 8), ("binary", 5, 8), ("one_hot", 8, 8), ("binary", 20, 16)])
def test_decoding_many_scores_is_decode_of_their_signs(monkeypatch, left, code,
                                                       n_classes, n_r):
    # the table lookup (ties left to _decode) equals _decode of predict_sign, score
    # by score: zeros count as +1, ties (one-hot: every response with no or two +1)
    # go to the best agreement, the first of equals
    monkeypatch.setattr(trial.PLAIN, "left", left)
    machine = MarkI(MarkIParams(class_code=code, n_r_units=n_r), seed=0)
    machine.classes_ = np.arange(n_classes)
    rng = np.random.default_rng(n_classes)
    scores = rng.integers(-3, 4, size=(400, n_r)).astype(float)
    scores[:50] = np.round(rng.normal(size=(50, n_r)), 1)
    want = machine._decode(online.predict_sign(scores), scores)
    assert machine._decode_scores(scores).tolist() == want.tolist()
    assert machine._decode_scores(scores[:0]).tolist() == []


def test_letters_are_learned_with_default_physics():
    images, labels = letters("ABCD", per_class=5, seed=0)
    machine = MarkI(seed=0)
    run = machine.train(images, labels, max_epochs=40)
    assert run.converged and machine.score(images, labels) == 1.0
    assert run.sim_time_s == pytest.approx(run.end_s_per_epoch[-1])


# ---------------------------------------------------------------- photocell lag law
levels = st.lists(st.floats(0, 1), min_size=1, max_size=20)


@given(level=levels, data=st.data(), t1=st.floats(0, 0.5), t2=st.floats(0, 0.5))
def test_lag_is_a_semigroup_hypo(level, data, t1, t2):
    """Waiting t1 then t2 under the same light equals waiting t1 + t2."""
    level = np.array(level)
    light = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=len(level),
                                        max_size=len(level))))
    once = approach(level, light, t1 + t2, 0.02, 0.1)
    twice = approach(approach(level, light, t1, 0.02, 0.1), light, t2, 0.02, 0.1)
    np.testing.assert_allclose(once, twice, atol=1e-12)


def test_lag_matches_a_fine_euler_integration():
    level, light = np.array([0.0, 1.0, 0.3]), np.array([1.0, 0.0, 0.0])
    x, dt = level.copy(), 1e-6
    for _ in range(50_000):   # 50 ms of dx/dt = (light - x) / tau
        tau = np.where(light > x, 0.02, 0.1)
        x = x + dt * (light - x) / tau
    np.testing.assert_allclose(approach(level, light, 0.05, 0.02, 0.1), x, atol=1e-5)


@given(level=levels, seed=st.integers(0, 2**16))
def test_settle_time_is_exactly_when_every_cell_is_close_hypo(level, seed):
    import simpy
    p = MarkIParams(retina_shape=(1, len(level)), n_a_units=1, n_excitatory=1,
                    n_inhibitory=0)
    retina = Retina(simpy.Environment(), p)
    retina.level = np.array(level)
    light = (np.random.default_rng(seed).random(len(level)) < 0.5).astype(float)
    t = retina.settle_time_s(light)
    after = approach(retina.level, light, t, p.photocell_rise_s, p.photocell_decay_s)
    assert np.abs(after - light).max() <= p.settle_tolerance + 1e-12
    if t > 1e-9:
        before = approach(retina.level, light, t * 0.999, p.photocell_rise_s,
                          p.photocell_decay_s)
        assert np.abs(before - light).max() > p.settle_tolerance


def test_a_fresh_training_recalibrates_auto_theta_warm_start_keeps_it():
    sparse, _ = letters("I", per_class=2, seed=0, typeface="serif")
    dense = np.ones((2, 20, 20), dtype=np.uint8)   # net input 0 everywhere
    machine = MarkI(seed=0)
    machine.train(sparse, ["s", "s"], max_epochs=1)
    theta_sparse = machine.theta
    machine.train(dense, ["d", "d"], max_epochs=1)
    assert machine.theta == MarkI(seed=0).calibrate(dense) != theta_sparse
    machine.train(sparse, ["s", "s"], max_epochs=1, warm_start=True)
    assert machine.theta == MarkI(seed=0).calibrate(dense)


def test_stochastic_rounding_never_moves_a_whole_step():
    # a gamma move mixes whole and fractional steps; with a draw just below 1 the old
    # floor(request + u) turned the whole entries into one step more
    from markone.hardware.runits import stochastic_round

    class TopDraws:
        def random(self, shape):
            return np.full(shape, 1 - 2**-53)

    machine = MarkI(MarkIParams(rule="gamma", quantize=True, n_r_units=1,
                                n_a_units=4, weight_range=None), seed=0)
    machine.runits.rng = TopDraws()
    move = machine.runits.plan(np.array([0]), np.array([[2.0, -3.0, 0.25, 1e6 / 64]]))
    assert move.new[0].tolist() == [2.0, -3.0, 1.0, 1e6 / 64]
    u = np.random.default_rng(0).random(100_000)
    x = np.full(100_000, 7.25)
    assert abs(stochastic_round(x, u).mean() - 7.25) < 0.005   # unbiased
    assert set(stochastic_round(x, u)) == {7.0, 8.0}
