"""Each experiment at a small size: its numbers checked against what theory says."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sims.runner import EXPERIMENTS, load_experiment, make_config


def small(name, seed=1):
    mod = load_experiment(name)
    return mod.run(make_config(mod, size="small"), seed=seed)


class _Results(dict):
    """Each experiment's small result, run when a test first asks for it (so each test
    pays for its own experiment; all of them up front cost one test over 5 s)."""

    def __missing__(self, name):
        self[name] = small(name)
        return self[name]


@pytest.fixture(scope="module")
def results():
    return _Results()


def test_novikoff_bound_never_exceeded(results):
    r = results["novikoff"]
    cfg = make_config(load_experiment("novikoff"), size="small")
    assert r["runs"] == cfg["runs"] == len(r["mistakes"])
    assert r["all_converged"] and r["bound_exceeded"] == 0
    assert all(m <= b for m, b in zip(r["mistakes"], r["bounds"]))
    assert r["max_ratio"] == max(r["ratios"]) <= 1
    assert sorted(map(int, r["per_dimension"])) == sorted(cfg["dims"])
    for d, stats in r["per_dimension"].items():
        mine = [q for q, dim in zip(r["ratios"], r["dims"]) if dim == int(d)]
        assert stats["max_ratio"] == max(mine)
        assert stats["median_ratio"] == pytest.approx(float(np.median(mine)))
    # gamma = 0.1 and points in the unit ball: every bound is at most 1/0.1^2
    assert max(r["bounds"]) <= 100 + 1e-9


def test_proof_quantities_sandwich(results):
    r = results["proof_quantities"]
    assert r["lower_holds"] and r["upper_holds"] and r["converged"]
    assert r["mistakes"] == len(r["k"]) <= r["bound"]
    k = np.asarray(r["k"])
    assert np.all(np.asarray(r["u_dot_w"]) <= np.asarray(r["norm_w"]) + 1e-12)
    assert np.allclose(r["k_gamma"], k * r["gamma"])
    assert np.allclose(r["sqrt_k_R"], np.sqrt(k) * r["R"])


def _arc_error_oracle(w, gamma, n=100_000):
    phi = (np.arange(n) + 0.5) * 2 * np.pi / n
    x = np.column_stack([np.cos(phi), np.sin(phi)])
    x = x[np.abs(x[:, 0]) >= gamma]
    s = x @ w
    pred = np.where(s > 0, 1, np.where(s < 0, -1, 1))
    return np.mean(pred != np.sign(x[:, 0]))


@settings(max_examples=25)
@given(st.floats(-np.pi, np.pi), st.floats(0.01, 0.9), st.floats(0.1, 10))
def test_arc_error_equals_dense_grid_hypo(angle, gamma, scale):
    from sims.online_to_batch import arc_error

    w = scale * np.array([np.cos(angle), np.sin(angle)])
    assert arc_error(w, gamma) == pytest.approx(_arc_error_oracle(w, gamma), abs=2e-4)


def test_online_to_batch_numbers(results):
    from sims.online_to_batch import sample_arcs

    r = results["online_to_batch"]
    n = r["n"]
    assert r["mistake_rate"][0] == 1.0        # the zero start always errs
    assert r["mean_error"][0] == 0.5          # w_0 = 0 predicts +1
    assert sum(r["mistake_rate"]) == pytest.approx(r["mean_mistakes"])
    assert r["expected_error"] == pytest.approx(r["mean_mistakes"] / (n + 1))
    assert r["max_mistakes"] <= (r["R"] / r["gamma"]) ** 2
    assert r["expected_error"] <= r["bound"] == pytest.approx(100 / (n + 1))
    X, y = sample_arcs(500, 0.3, seed=0)
    assert np.allclose(np.linalg.norm(X, axis=1), 1) and np.all(np.abs(X[:, 0]) >= 0.3)


def test_gaussian_error_equals_monte_carlo():
    from sims.averaging_noise import gaussian_error

    rng = np.random.default_rng(0)
    d, q, N = 4, 0.2, 400_000
    u = rng.standard_normal(d)
    X = rng.standard_normal((N, d))
    y = np.where(X @ u > 0, 1, -1) * np.where(rng.random(N) < q, -1, 1)
    for _ in range(3):
        w = rng.standard_normal(d)
        mc = np.mean(np.where(X @ w > 0, 1, -1) != y)
        assert gaussian_error(w, u, q) == pytest.approx(mc, abs=4 * np.sqrt(0.25 / N))


def test_averaging_noise_never_beats_bayes(results):
    r = results["averaging_noise"]
    cfg = make_config(load_experiment("averaging_noise"), size="small")
    assert len(r["steps"]) == cfg["n"] * cfg["passes"] // cfg["record_every"]
    for key in ("error_last", "error_averaged", "final_error_last",
                "final_error_averaged"):
        assert min(r[key]) >= r["bayes_error"] - 1e-12


def test_orthonormal_mistakes_equal_m(results):
    r = results["orthonormal_tight"]
    assert r["all_equal"] and r["converged"]
    assert r["mistakes_given"] == r["mistakes_shuffled"] == r["m"] == r["bound"]
    assert np.allclose(r["gamma_u"], 1 / np.sqrt(r["m"]))


def test_xor_orbit_is_bounded_and_periodic(results):
    r = results["xor_cycling"]
    assert r["bounded"] and r["periodic"]
    for enc, e in r["encodings"].items():
        assert not e["converged"] and e["period_updates"] == 4
        assert set(map(tuple, e["trajectory"][e["transient"]:])) <= set(
            map(tuple, e["cycle"]))
        p = e["period_updates"]
        traj = e["trajectory"]
        assert all(traj[i] == traj[i + p] for i in range(e["transient"], len(traj) - p))
        assert e["trajectory_max_norm_sq"] <= e["max_norm_sq"]
    assert r["encodings"]["pm1"]["cycle"] == [[0, 0, 0], [1, 1, -1], [0, 2, 0],
                                              [1, 1, 1]]


def test_shapes_large_separable_small_not(results):
    r = results["shapes"]
    large, small_ = r["large"], r["small"]
    assert large["separable"] is True and large["converged"]
    assert large["max_updates"] <= large["bound"] and large["bound_holds"]
    assert small_["separable"] is False and small_["certificate_size"] >= 2
    for v in ("last", "pocket", "averaged"):
        assert 0 <= small_["train_error"][v] <= 1 and 0 <= small_["test_error"][v] <= 1


def test_shape_features_of_ideal_shapes():
    from sims.shapes import shape_features

    yy, xx = np.mgrid[0:101, 0:101] - 50
    disc = (yy ** 2 + xx ** 2 <= 45 ** 2)[None]
    square = ((abs(yy) <= 40) & (abs(xx) <= 40))[None]
    (e_d, r_d), (e_s, r_s) = shape_features(disc)[0], shape_features(square)[0]
    assert e_d == pytest.approx(np.pi / 4, rel=0.03) and r_d == pytest.approx(1, rel=0.03)
    assert e_s == 1.0 and r_s == pytest.approx(np.sqrt(np.pi / 2), rel=0.03)


def _fraction_perceptron(X, y):
    """The textbook loop in exact rationals, in the given order, constant 1 appended."""
    rows = [[Fraction(str(v)) for v in x] + [Fraction(1)] for x in X]
    w, mistakes = [Fraction(0)] * len(rows[0]), 0
    while True:
        clean = True
        for x, t in zip(rows, y):
            if t * sum(a * b for a, b in zip(w, x)) <= 0:
                w = [a + t * b for a, b in zip(w, x)]
                mistakes, clean = mistakes + 1, False
        if clean:
            return w, mistakes


def test_iris_binary_equals_textbook_loop(results):
    import markone

    b = results["iris"]["binary"]
    X, y = markone.datasets.iris()
    w, mistakes = _fraction_perceptron(X[y < 2][:, 2:4], np.where(y[y < 2] == 1, 1, -1))
    assert [Fraction(v) for v in b["w"]] == w and b["mistakes"] == mistakes
    lo, hi = b["gamma_interval"]
    assert lo <= b["gamma"] <= hi and b["bound_holds"] and b["mistakes"] <= b["bound"]
    m = results["iris"]["multiclass"]
    assert m["n_train"] + m["n_test"] == 150
    assert all(0 <= a <= 1 for v in m["accuracy"].values() for a in v["test"])


def test_intercept_cost_curve(results):
    r = results["intercept_cost"]
    R, b, g = r["R"], r["b"], r["gamma"]
    c = np.asarray(r["c"])
    assert r["c_opt"] ** 2 == pytest.approx(R * abs(b)) and r["checked"]
    assert np.allclose(r["bound"], (R**2 + c**2) * (1 + b**2 / c**2) / g**2)
    assert min(r["bound"]) >= r["bound_min"] * (1 - 1e-12)
    assert r["bound_min"] == pytest.approx((R + abs(b)) ** 2 / g**2)
    assert r["converged"]
    assert all(m <= best * (1 + 1e-9) for m, best in zip(r["mistakes_max"],
                                                          r["best_bound"]))
    assert all(best <= bd * (1 + 1e-9) for best, bd in zip(r["best_bound"], r["bound"]))


def test_mark1_speed_changes_time_not_learning(results):
    r = results["mark1_letters"]
    assert r["speed_changes_nothing_learned"]
    times = np.asarray(r["machine_time_s"])       # [speed][range], speeds ascending
    assert np.all(np.diff(times, axis=0) >= 0)
    for key in ("train_accuracy", "test_accuracy", "other_typeface_accuracy"):
        assert np.all((0 <= np.asarray(r[key])) & (np.asarray(r[key]) <= 1))


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_experiment_plots(results, tmp_path, name):
    paths = load_experiment(name).plot(results[name], tmp_path / name)
    assert paths and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in paths)


def test_damage_sweep(results):
    r = results["damage"]
    cfg = make_config(load_experiment("damage"), size="small")
    assert r["kinds"] == cfg["kinds"] and r["fractions"] == cfg["fractions"]
    zero = cfg["fractions"].index(0.0)
    # no damage: the same machines, whatever kind of damage the row is about
    for m in ("train_accuracy", "test_accuracy", "epochs", "machine_time_s"):
        assert len({row[zero] for row in r[m]}) == 1
        assert all(sd >= 0 for row in r[f"{m}_sd"] for sd in row)
    assert all(row[zero] == 1.0 for row in r["learnable"])
    # a machine that converged is a witness that its damaged task is learnable
    conv, learn = np.asarray(r["converged"]), np.asarray(r["learnable"])
    assert np.all(conv <= learn)
    for key in ("train_accuracy", "test_accuracy"):
        assert np.all((0 <= np.asarray(r[key])) & (np.asarray(r[key]) <= 1))
