"""The machine's exact worst case (issue 42) against independent checks: exhaustive
search over small machines (every set of dead or stuck A-units, every vertex of the
box), 10,000 seeded random perturbations inside each certified bound that never flip
an answer, and the witnesses, which tie or flip at the bound."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from verify.machine.theory.worst_case import (dead_for, r_unit_worst_case,
                                              scaled_weights, trained_worst_case)


def task(rng, d=None, n=None, half=False):
    """A random small R-unit whose weights answer every figure right (d <= 12)."""
    while True:
        d = d or int(rng.integers(2, 9))
        n = n or int(rng.integers(1, 6))
        X = rng.integers(0, 2, (n, d))
        X[X.sum(axis=1) == 0, 0] = 1
        w = rng.integers(-6, 7, d).astype(float)
        if half:
            w = w / 2
        y = np.sign(X @ w).astype(int)
        if (y != 0).all():
            return w, X, y


def worst_margin(w, X, y, delta, dead=(), stuck=()):
    """The least margin over every vertex of the box of ``delta`` on the
    potentiometers, with ``dead`` A-units at 0 and ``stuck`` at 1 (brute force, in
    integers: the weights are halves, ``delta`` a Fraction; the result is scaled by a
    positive number, so only its sign and zero are meaningful)."""
    X = X.copy()
    X[:, list(dead)] = 0
    X[:, list(stuck)] = 1
    delta = Fraction(delta)
    W = np.round(np.asarray(w) * 2 * delta.denominator).astype(np.int64)
    S = (np.array(list(itertools.product((-1, 1), repeat=len(w))), dtype=np.int64)
         if delta else np.zeros((1, len(w)), dtype=np.int64))   # delta 0: one vertex
    V = W[None, :] + S * 2 * delta.numerator          # every vertex, scaled
    return int((y[None, :] * (V @ X.T)).min())


def subsets(d, k):
    return itertools.chain.from_iterable(itertools.combinations(range(d), s)
                                         for s in range(k + 1))


def brute_dead(w, X, y, stuck=False):
    """The largest k such that every set of at most k A-units dead (stuck) keeps
    every figure right, by trying every set (None: every set does)."""
    d = X.shape[1]
    for k in range(d + 1):
        for K in itertools.combinations(range(d), k):
            m = worst_margin(w, X, y, 0, stuck=K) if stuck else \
                worst_margin(w, X, y, 0, dead=K)
            if m <= 0:
                return k - 1
    return None


@pytest.mark.parametrize("seed", range(40))
def test_exhaustive_small_machines(seed):
    rng = np.random.default_rng(seed)
    w, X, y = task(rng, half=seed % 4 == 0, d=int(rng.integers(2, 7)))
    wc = r_unit_worst_case(w, X, y)
    tol = wc.tolerance
    assert tol > 0
    assert worst_margin(w, X, y, tol) == 0                   # the bound ties ...
    assert worst_margin(w, X, y, tol * Fraction(999, 1000)) > 0   # ... below it, safe
    assert wc.dead == brute_dead(w, X, y)
    assert wc.stuck == brute_dead(w, X, y, stuck=True)
    for k, delta in enumerate(wc.tolerance_dead):
        worst = min(worst_margin(w, X, y, delta, dead=K) for K in subsets(len(w), k))
        below = min(worst_margin(w, X, y, delta * Fraction(999, 1000), dead=K)
                    for K in subsets(len(w), k))
        assert worst == 0 and below > 0, (k, delta)
    assert wc.tolerance_dead[0] == tol


@pytest.mark.parametrize("seed", range(3))
def test_exhaustive_up_to_twelve_a_units(seed):
    rng = np.random.default_rng(100 + seed)
    w, X, y = task(rng, d=12, n=3)
    wc = r_unit_worst_case(w, X, y)
    assert wc.dead == brute_dead(w, X, y)
    assert wc.stuck == brute_dead(w, X, y, stuck=True)
    # every vertex of the box over the 12 potentiometers
    assert worst_margin(w, X, y, wc.tolerance) == 0
    assert worst_margin(w, X, y, wc.tolerance * Fraction(999, 1000)) > 0


def test_witnesses_tie_or_flip_at_the_bound():
    rng = np.random.default_rng(7)
    for _ in range(50):
        w, X, y = task(rng)
        wc = r_unit_worst_case(w, X, y)
        i = wc.tolerance_figure
        wq = [Fraction(float(v)) for v in w]
        moved = [v - wc.tolerance * int(y[i]) for v in wq]
        assert y[i] * sum(v * int(x) for v, x in zip(moved, X[i])) == 0
        assert len(wc.dead_units) == wc.dead + 1
        Xd = X.copy()
        Xd[:, list(wc.dead_units)] = 0
        assert y[wc.dead_figure] * (Xd[wc.dead_figure] @ w) <= 0
        if wc.stuck is not None:
            Xs = X.copy()
            Xs[:, list(wc.stuck_units)] = 1
            assert y[wc.stuck_figure] * (Xs[wc.stuck_figure] @ w) <= 0


def test_ten_thousand_random_perturbations_inside_the_bounds_never_flip():
    """Seeded: the same seed draws the same perturbations."""
    rng = np.random.default_rng(42)
    w, X, y = task(rng, d=10, n=6)
    wc = r_unit_worst_case(w, X, y)
    wq = np.array([Fraction(float(v)) for v in w], dtype=object)
    draws = rng.integers(-999, 1000, (10_000, len(w)))
    for k, delta in enumerate(wc.tolerance_dead):
        inside = delta * Fraction(999, 1000)
        dead = rng.choice(len(w), size=(10_000, k), replace=True) if k else None
        for t in range(0, 10_000, 97):          # 104 exact checks per bound ...
            dw = np.array([inside * int(v) / 999 for v in draws[t]], dtype=object)
            Xt = X.copy()
            if dead is not None:
                Xt[:, dead[t]] = 0
            assert all(y[i] * (Xt[i] @ (wq + dw)) > 0 for i in range(len(X)))
        # ... and all 10,000 in floats, far from the ties (margins are exact rationals)
        pert = np.asarray(w)[None, :] + draws * float(inside) / 999
        for i in range(len(X)):
            Xt = np.tile(X[i], (10_000, 1))
            if dead is not None:
                np.put_along_axis(Xt, dead, 0, axis=1)
            assert (y[i] * (Xt * pert).sum(axis=1) > 0).all()


def test_end_stops_cap_the_witness():
    # weight 0 sits at its stop (lo = -1 away 1 step): the box witness needs 3/2
    w, X, y = np.array([1.0, 2.0]), np.array([[1, 1]]), np.array([1])
    wc = r_unit_worst_case(w, X, y, stops=(0, 50))
    assert wc.tolerance == Fraction(3, 2) and wc.capped_by_stops
    # no perturbation within the stops takes weight 0 below 0: 1 + ... = the push
    # ties when 1 + (2 - t) = 0 with weight 0 stopped at 0: t = 2... at t = 2 the sum
    # is 0 + 0 = 0
    assert wc.with_stops == Fraction(2)
    free = r_unit_worst_case(w, X, y, stops=(-50, 50))
    assert not free.capped_by_stops and free.with_stops == free.tolerance


def test_safe_steps_and_the_reverse_table():
    w, X, y = np.array([3.0, 3.0, 1.0]), np.array([[1, 1, 1]]), np.array([1])
    wc = r_unit_worst_case(w, X, y)
    assert wc.tolerance == Fraction(7, 3) and wc.safe_steps == 2
    # killing A-units 1 and 2 leaves 1; (7 - 3)/2 and (7 - 6)/1 with the box
    assert wc.dead == 2 and wc.tolerance_dead == (Fraction(7, 3), 2, 1)
    assert [wc.dead_at(s) for s in (0, 1, 2, 3)] == [2, 1, 0, None]
    assert dead_for(wc.tolerance_dead, Fraction(1, 2)) == 2


def test_scaled_weights_are_exact():
    W, Q = scaled_weights(np.array([0.1, 1.0]))
    assert Fraction(int(W[0]), Q) == Fraction(0.1) and Fraction(int(W[1]), Q) == 1


def test_an_answer_already_wrong_is_refused():
    with pytest.raises(ValueError, match="R1 already answers figure 2 wrong"):
        r_unit_worst_case(np.array([1.0, -1.0]), np.array([[1, 0], [1, 1]]),
                          np.array([1, 1]))


def test_every_r_unit_of_a_machine():
    rng = np.random.default_rng(3)
    w, X, y = task(rng, d=6, n=4)
    W = np.stack([w, -w])
    T = np.stack([y, -y], axis=1)
    both = trained_worst_case(W, X, T, np.ones((2, 6), bool))
    assert both[0].tolerance == both[1].tolerance and both[1].r_unit == 1
    mask = np.ones((2, 6), bool)
    mask[1, 0] = False          # R2 has no potentiometer on A-unit 1
    W[1, 0] = 0
    part = trained_worst_case(W, X, T, mask)
    assert 0 not in part[1].dead_units


def _stuck_margins(w, X, y, sets):
    """Every figure's margin (rows) with each set of A-units (a row of ``sets``,
    repeats allowed) stuck at 1: exact, the weights being halves."""
    stuck = np.zeros((len(sets), X.shape[1]), bool)
    np.put_along_axis(stuck, sets, True, axis=1)
    W = np.round(np.asarray(w) * 2).astype(np.int64)
    return y[:, None] * ((X[:, None, :].astype(bool) | stuck[None, :, :]) @ W)


def test_ten_thousand_random_stuck_sets_inside_the_bound_never_flip():
    """Seeded: any set of at most ``stuck`` A-units stuck at 1 leaves every figure
    right (and any set at all when ``stuck`` is None); the witness set breaks its."""
    rng = np.random.default_rng(11)
    seen = {"bounded": 0, "any": 0}
    while min(seen.values()) < 2:
        w, X, y = task(rng, d=10, n=6, half=True)
        wc = r_unit_worst_case(w, X, y)
        if wc.stuck == 0:
            continue
        k = 10 if wc.stuck is None else wc.stuck
        sets = rng.integers(0, 10, (10_000, k))
        assert (_stuck_margins(w, X, y, sets) > 0).all()
        if wc.stuck is not None:
            witness = np.array([list(wc.stuck_units)])
            assert _stuck_margins(w, X, y, witness)[wc.stuck_figure, 0] <= 0
        seen["any" if wc.stuck is None else "bounded"] += 1


def test_a_trained_mark_one_keeps_its_answers_inside_every_bound():
    """The Mark I's size (512 A-units, 8 R-units), trained: 10,000 seeded random
    errors of each R-unit's potentiometers within 0.999 of its tolerance, and 10,000
    random sets of ``dead`` A-units dead and of ``stuck`` stuck at 1, never change an
    answer; each witness does."""
    from markone.datasets import letters
    from markone.hardware import MarkI
    from verify.machine.task import machine_task
    from verify.machine.theory.worst_case import wired_potentiometers, worst_case

    images, labels = letters("ABCD", per_class=2, seed=0)
    machine = MarkI(seed=0)
    machine.train(images, labels)
    task_ = machine_task(machine, images, labels)
    wired = wired_potentiometers(machine)
    rng = np.random.default_rng(5)
    for u in worst_case(machine, images, labels):
        cols = np.flatnonzero(wired[u.r_unit])
        w, X = machine.weights[u.r_unit][cols], task_.patterns[:, cols].astype(float)
        y = task_.targets[:, u.r_unit].astype(float)
        errors = rng.uniform(-1, 1, (10_000, len(w))) * float(u.tolerance) * 0.999
        assert (y[:, None] * (X @ (w + errors).T) > 0).all()
        pos = {a: p for p, a in enumerate(cols)}
        dead = rng.integers(0, len(w), (10_000, u.dead))
        alive = np.ones((10_000, len(w)))
        np.put_along_axis(alive, dead, 0, axis=1)
        assert (y[:, None] * (X @ (w * alive).T) > 0).all()
        killed = X[u.dead_figure].copy()
        killed[[pos[a] for a in u.dead_units]] = 0
        assert y[u.dead_figure] * (killed @ w) <= 0
        k = len(w) if u.stuck is None else u.stuck
        stuck = np.zeros((10_000, len(w)), bool)
        np.put_along_axis(stuck, rng.integers(0, len(w), (10_000, k)), True, axis=1)
        for i in range(len(y)):
            assert (y[i] * ((X[i].astype(bool) | stuck) @ w) > 0).all()
        i = u.tolerance_figure
        pushed = w - float(u.tolerance) * y[i]
        assert y[i] * (X[i] @ pushed) <= 1e-9 * np.abs(w).sum()
