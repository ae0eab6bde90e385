"""The gamma rule with whole motor steps (verify.machine.theory.rules.gamma_steps_verdict): each
rounding branch the verdict names is re-run on MarkI.train by steering the machine's
own stochastic rounding (runits.plan draws floor(move + U); the tests choose U)."""


import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from _machines import binary_tasks, identity_machine, train
from verify.machine.theory._gamma_chain import decide
from verify.machine.theory.rules import gamma_steps_verdict
from verify.machine import check_machine, machine_task

JUST_BELOW_ONE = 1.0 - 2.0**-53


class Steered:
    """Stands in for the machine's generator in ``runits.plan``: returns the U that
    makes ``floor(move + U)`` the whole step ``choose(move, figure)`` asks for (the
    step below or above the move, checked). The figure is the one the machine is
    answering (``MarkI._respond`` is watched): two different figures can ask for the
    same move (``(0, 1)`` and ``(1, 0)`` with opposite targets both ask for
    ``(1/2, -1/2)``), so the move alone cannot name it."""

    def __init__(self, machine, X, y, eta, choose):
        self.choose, self.move, self.figure = choose, None, None
        d = X.shape[1]
        # the move each figure asks for, as the trainer computes it
        self.moves = eta * y[:, None] * (X - X.sum(axis=1, keepdims=True) / d)
        plan, respond = machine.runits.plan, machine._respond

        def answering(sensed, target, label, figure, *rest):
            self.figure = figure
            return respond(sensed, target, label, figure, *rest)

        def watched(rows, delta, whole=False):
            self.move = delta
            machine.runits.rng = self     # train() resets the generator: steer again
            return plan(rows, delta, whole)

        machine._respond, machine.runits.plan = answering, watched

    def random(self, shape):
        move = np.asarray(self.move, dtype=np.float64)
        figure = self.figure
        assert np.array_equal(move[0], self.moves[figure])   # the figure's own move
        want = self.choose(move, figure)
        assert np.all((want == np.floor(move)) | (want == np.ceil(move)))
        return np.where(want == np.floor(move), 0.0, JUST_BELOW_ONE)


def toward_zero(move, figure):
    return np.trunc(move)


@settings(max_examples=40, deadline=None)
# two figures that ask for the same move: the steering must follow the figure
@example(task=(np.array([[0, 1], [1, 0]]), np.array([0, 1])), eta=1, stops=(-2, 2))
@given(binary_tasks(n_max=5), st.sampled_from([1, 2, 3]), st.sampled_from([(-2, 2), (-1, 3), (0, 2)]))
def test_rounding_branches_rerun_on_the_machine_hypo(task, eta, stops):
    X, labels = task
    kw = dict(rule="gamma", quantize=True, increment_steps=eta, weight_range=stops)
    machine = identity_machine(X.shape[1], **kw)
    y = machine_task(machine, X, labels).targets[:, 0]
    g = gamma_steps_verdict(X, y, weight_range=stops, eta=eta)
    if g["stall"]:   # every move can round to 0: nothing ever moves, never learns
        Steered(machine, X, y, eta, toward_zero)
        run = train(machine, X, labels, max_epochs=8)
        assert not run.converged and not machine.weights.any()
        assert list(run.mistakes_per_epoch) == [len(y)] * 8
    if g["hit"] is not None:   # one inactive A-unit stepped by its figure alone
        machine = identity_machine(X.shape[1], **kw)
        i, j = g["hit"]["figure"], g["hit"]["a_unit"]

        def hit(move, figure):
            want = np.trunc(move)
            if figure == i:
                want[0, j] = np.sign(move[0, j]) * np.ceil(abs(move[0, j]))
            return want

        Steered(machine, X, y, eta, hit)
        shown = g["hit"]["presentations"]
        # every figure once a pass, figure i first (copies of figure i left out: the
        # machine cannot tell them from it)
        order = [i] + [k for k in range(len(y)) if y[k] != y[i]
                       or not np.array_equal(X[k], X[i])]
        run = train(machine, X, labels, order=order, max_epochs=shown)
        assert run.saturated[0] > 0 and not run.converged
        assert machine.weights[0, j] == (stops[1] if g["hit"]["direction"] > 0
                                         else stops[0])
        if shown > 1:   # and not before its presentation number `shown`
            short = identity_machine(X.shape[1], **kw)
            Steered(short, X, y, eta, hit)
            assert train(short, X, labels, order=order,
                         max_epochs=shown - 1).saturated[0] == 0
    if g["alpha"] is not None and g["alpha"]["fits"]:   # the error-correction rule
        machine = identity_machine(X.shape[1], **kw)
        Steered(machine, X, y, eta, lambda move, f: np.where(
            X[f][None, :] > 0, np.sign(move) * np.ceil(abs(move)), np.trunc(move)))
        run = train(machine, X, labels, max_epochs=60)
        alpha = identity_machine(X.shape[1], rule="error_correction",
                                 increment_steps=eta, weight_range=stops)
        ref = train(alpha, X, labels, max_epochs=60)
        assert run.converged and ref.converged
        assert np.array_equal(machine.weights, alpha.weights)
        assert run.reinforcements[0] <= g["alpha"]["reinforcements"]


def test_branches_by_hand():
    # d = 4: figure (1, 1, 0, 0) with target +1 asks for moves (1/2, 1/2, -1/2, -1/2)
    X, y = np.array([[1, 1, 0, 0], [0, 0, 1, 0]]), np.array([1, -1])
    g = gamma_steps_verdict(X, y, weight_range=(-3, 3))
    assert not g["whole"] and g["stall"]
    # stall: each of 4 entries of figure 0 rounds to 0 with probability 1/2
    assert g["stall_log10"] == pytest.approx(min(4 * np.log10(0.5),
                                                 np.log10(0.75) * 3 + np.log10(0.25)))
    assert g["hit"] == {"figure": 0, "a_unit": 2, "direction": -1, "presentations": 4}
    assert g["alpha"]["fits"]
    # eta = 2: moves of +/-1 are whole: nothing is rounded, and no move can stall
    g2 = gamma_steps_verdict(X[:1], y[:1], eta=2)
    assert g2["whole"] and not g2["stall"] and g2["alpha"] is None


def test_report_on_letters():
    images, labels = letters("ABCD", per_class=3, seed=0)
    machine = MarkI(MarkIParams(rule="gamma"), seed=0)
    rep = check_machine(machine, images, labels)
    assert all(r.end_stops.holds is False and r.converges.holds is None
               for r in rep.r_units)
    assert "does not learn surely" in rep.r_units[0].converges.message
    assert "with probability 1 is not decided" in rep.r_units[0].converges.message
    # rounding branches are no streams: the re-check leaves them unchecked, not refuted
    from verify.machine import recheck_report
    checks = recheck_report(rep, machine, images, labels)
    assert {c.status for c in checks
            if c.claim.split()[-1] in ("end_stops", "converges")} == {"unchecked"}
    # whole moves (eta a multiple of d, d a power of two) are the real-valued rule
    X, lab = np.array([[1, 1, 0, 0], [0, 0, 1, 0]]), np.array([1, 0])
    m = identity_machine(4, rule="gamma", increment_steps=4, weight_range=None)
    c = check_machine(m, X.astype(float), lab).r_units[0].converges
    assert c.method == "centred perceptron (gamma rule)" and c.holds is True
    assert train(m, X, lab, max_epochs=50).converged


def queue_then_random(path, seed):
    """Rounding outcomes: those of ``path`` first, then unbiased random ones."""
    queue, rng = [np.array(o, dtype=float) for o in path], np.random.default_rng(seed)

    def choose(move, figure):
        if queue:
            return queue.pop(0)[None, :]
        return np.floor(move + rng.random(move.shape))
    return choose


def test_a_trap_by_hand():
    """Figure 0 activates both inputs: its move is exactly 0, so only figure 1 moves
    anything. Rounding figure 1's (-1/2, 1/2) to (-1, 0) answers figure 1 right and
    figure 0 wrong for ever."""
    X, labels = np.array([[1, 1], [1, 0]]), np.array([1, 0])
    y = np.array([1, -1])
    r = decide(X, y, 1, -2, 2, [0, 1])
    assert r == {"learns": False, "states": 6, "trap": [-1, 0], "path": [[-1, 0]]}
    for seed in range(3):
        m = identity_machine(2, rule="gamma", weight_range=(-2, 2))
        Steered(m, X, y, 1, queue_then_random(r["path"], seed))
        run = train(m, X, labels, max_epochs=40)
        assert not run.converged and m.weights.tolist() == [[-1.0, 0.0]]
    c = check_machine(identity_machine(2, rule="gamma", weight_range=(-2, 2)),
                      X.astype(float), labels).r_units[0].converges
    assert c.holds is False and c.evidence["chain"]["trap"] == [-1, 0]


@settings(max_examples=30, deadline=None)
@given(binary_tasks(widths=(2, 3), n_max=4), st.sampled_from([(-1, 1), (-2, 2), (0, 2)]),
       st.integers(0, 2**16))
def test_finite_chain_verdict_against_the_machine_hypo(task, stops, seed):
    """A trap: steered there, the machine never learns whatever it rounds next. No
    trap: seeded machines (their own rounding) all learn."""
    X, labels = task
    machine = identity_machine(X.shape[1], rule="gamma", weight_range=stops)
    y = machine_task(machine, X, labels).targets[:, 0]
    r = decide(X, y, 1, *stops, range(len(y)))
    if r is None:
        return
    if r["learns"] is False:
        Steered(machine, X, y, 1, queue_then_random(r["path"], seed))
        assert not train(machine, X, labels, max_epochs=40).converged
    else:
        for k in range(3):
            m = identity_machine(X.shape[1], rule="gamma", weight_range=stops)
            Steered(m, X, y, 1, queue_then_random([], [seed, k]))
            assert train(m, X, labels, max_epochs=400).converged
