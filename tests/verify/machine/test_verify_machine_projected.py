"""verify.machine.theory._projected: the clipped Novikoff ball, convergence with end stops (issue 12).

The certificate claims that the clipped update makes at most ``mistakes`` mistakes on
*any* stream. The oracle is the exhaustive clipped mistake graph of
``verify.machine.theory._clipped.reachable`` (every setting any stream reaches, every mistake edge):
a certified task's graph must have no cycle, and its longest path (the most mistakes
any stream makes) must not exceed the bound. Machine runs re-run the claim on
``MarkI.train``. Two deliberately weakened conditions (a centre outside the stops, and
``e r / 4`` instead of ``e r / 2``) are shown to accept tasks on which the machine
cycles, so the oracle can tell a sound condition from an unsound one.
"""

import string
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams, r_unit_name
from verify.machine.theory import _clipped
from verify.machine.theory._projected import check_projected_ball, projected_ball
from verify.machine import check_machine, machine_task
from _paths import ROOT


def most_mistakes(X, y, e, lo, hi):
    """The most mistakes any stream makes (longest path of the clipped mistake
    graph), or None when the graph has a cycle (some stream never stops making
    mistakes)."""
    Z = np.asarray(y)[:, None] * np.asarray(X)
    g = _clipped.reachable(Z, e * Z, lo, hi)
    assert g.complete
    n = len(g.states)
    out, indeg = defaultdict(list), np.zeros(n, int)
    for s, d in zip(g.src.tolist(), g.dst.tolist()):
        out[s].append(d)
        indeg[d] += 1
    order = [s for s in range(n) if indeg[s] == 0]
    depth = np.zeros(n, int)
    for s in order:                      # Kahn's algorithm; order grows as we go
        for d in out[s]:
            depth[d] = max(depth[d], depth[s] + 1)
            indeg[d] -= 1
            if indeg[d] == 0:
                order.append(d)
    return None if len(order) < n else int(depth.max())


@st.composite
def clipped_tasks(draw):
    n, d = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=d, max_size=d)
                               .filter(any), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n)))
    lo = draw(st.integers(-3, 1))
    hi = draw(st.integers(max(lo, 0), 3))
    return X, y, draw(st.sampled_from([1, 1, 2])), lo, hi


def _certified_tasks_never_cycle_and_respect_the_bound(task):
    X, y, e, lo, hi = task
    c = projected_ball(X, y, e=e, lo=lo, hi=hi)
    event("certified" if c is not None else "no centre")
    if c is None:
        return
    worst = most_mistakes(X, y, e, lo, hi)
    assert worst is not None, "a certified task has a stream that never learns"
    assert worst <= c.mistakes
    assert check_projected_ball(X, y, e, lo, hi, c.numerators, c.denominator) == (
        c.mistakes, c.min_decrease)


# 100 examples by default (they catch a bound one short and the e r / 4 condition);
# the slow test runs the 300 this property had before, and stands behind it.
test_certified_tasks_never_cycle_and_respect_the_bound_hypo = settings(
    max_examples=100)(given(clipped_tasks())(
        _certified_tasks_never_cycle_and_respect_the_bound))
test_certified_tasks_never_cycle_and_respect_the_bound_many_hypo = pytest.mark.slow(
    settings(max_examples=300)(given(clipped_tasks())(
        _certified_tasks_never_cycle_and_respect_the_bound)))


def test_exact_bound_on_orthogonal_figures():
    # a = (-1, 1): scores 1 each, r = 1, decrease 2*1*1 - 1 = 1, ||a||^2 = 2; the
    # machine makes exactly 2 mistakes (one per figure) on the worst stream
    X, y = np.array([[1, 0], [0, 1]]), np.array([-1, 1])
    c = projected_ball(X, y, e=1, lo=-1, hi=1)
    assert (c.mistakes, c.min_decrease) == (2, Fraction(1))
    assert most_mistakes(X, y, 1, -1, 1) == 2


def test_a_centre_outside_the_stops_is_not_a_certificate():
    # stops (0, 1): figure 0 (target -1) can never be corrected; the centre (-1, 1)
    # satisfies the score condition but lies outside the stops, and the machine cycles
    X, y = np.array([[1, 0], [0, 1]]), np.array([-1, 1])
    assert most_mistakes(X, y, 1, 0, 1) is None
    assert projected_ball(X, y, e=1, lo=0, hi=1) is None
    with pytest.raises(ValueError, match="outside the end stops"):
        check_projected_ball(X, y, 1, 0, 1, [-1, 1], 1)


def test_half_the_reinforcement_length_is_needed():
    # found by a random search: the centre a satisfies z . a > e r / 4 (a weakened
    # condition) inside the stops [-1, 1], yet a stream cycles; the real condition
    # (e r / 2) refuses it, and no centre passes it
    X = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [1, 1, 1]])
    y = np.array([1, 1, -1, 1])
    a = [Fraction(1), Fraction(1), Fraction(-3, 8)]
    Z = y[:, None] * X
    scores = [sum(z * v for z, v in zip(row, a)) for row in Z.tolist()]
    assert all(s > Fraction(int(r), 4) for s, r in zip(scores, X.sum(axis=1)))
    assert most_mistakes(X, y, 1, -1, 1) is None
    with pytest.raises(ValueError, match="not above e r/2"):
        check_projected_ball(X, y, 1, -1, 1, [8, 8, -3], 8)
    assert projected_ball(X, y, e=1, lo=-1, hi=1) is None


def test_tampered_certificates_are_refused():
    X, y = np.array([[1, 0], [0, 1]]), np.array([-1, 1])
    with pytest.raises(ValueError, match="figure 2:"):   # X[1]: gains (2, 0)
        check_projected_ball(X, y, 1, -1, 1, [-2, 1], 2)
    with pytest.raises(ValueError, match="entries"):
        check_projected_ball(X, y, 1, -1, 1, [-2], 2)
    with pytest.raises(ValueError, match="positive"):
        check_projected_ball(X, y, 1, -1, 1, [-2, 2], 0)
    with pytest.raises(TypeError, match="integers"):
        check_projected_ball(X * 0.5, y, 1, -1, 1, [-2, 2], 2)
    with pytest.raises(TypeError, match="centre numerator 0 must be an integer"):
        check_projected_ball(X, y, 1, -1, 1, ["a", 2], 2)
    with pytest.raises(TypeError, match="denominator must be an integer"):
        check_projected_ball(X, y, 1, -1, 1, [-2, 2], 2.0)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        check_projected_ball(X, [0, 1], 1, -1, 1, [-2, 2], 2)


def test_huge_integers_stay_exact():
    # entries far beyond float64's 2^53 (an A-unit output is 0/1, but the checker is
    # general): the exact check must not round
    big = 2**70
    X, y = np.array([[big, 0], [0, big]], dtype=object), np.array([-1, 1])
    assert check_projected_ball(X, y, 1, -big, big, [-big, big], 1) == (
        2, Fraction(2 * big * big - big * big))


@st.composite
def machines_with_a_centre(draw):
    """A one-R-unit machine with stops at +/-k and figures kept only when a hidden
    integer centre inside the stops has ``y x . a > r / 2`` on their A-unit patterns
    ``x``: the certificate exists, and the stops often bite."""
    d, k = draw(st.integers(6, 12)), draw(st.sampled_from([1, 1, 2]))
    params = MarkIParams(retina_shape=(1, d), n_a_units=d, n_excitatory=1,
                         n_inhibitory=0, max_fanout=1, theta=1, n_r_units=1,
                         weight_range=(-k, k))
    machine = MarkI(params, seed=draw(st.integers(0, 99)))
    centre = np.array(draw(st.lists(st.integers(-k, k), min_size=d, max_size=d)))
    rows = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=d, max_size=d),
                                  min_size=8, max_size=24)))
    patterns = machine_task(machine, rows, [0, 1] * (len(rows) // 2) + [0] * (len(rows) % 2)).patterns
    score = patterns.astype(int) @ centre
    keep = 2 * np.abs(score) > patterns.sum(axis=1)
    labels = (score[keep] > 0).astype(int).tolist()
    assume(len(set(labels)) == 2)
    return machine, rows[keep], labels


@st.composite
def two_letter_machines(draw):
    """A one-R-unit machine of 16 to 128 A-units with stops at +/-1 to +/-4 and two
    letters: the clipped ball decides about a quarter of these."""
    chars = draw(st.lists(st.sampled_from(string.ascii_uppercase), min_size=2,
                          max_size=2, unique=True))
    images, labels = letters("".join(chars), per_class=draw(st.integers(2, 6)),
                             seed=draw(st.integers(0, 99)))
    k = draw(st.integers(1, 4))
    params = MarkIParams(weight_range=(-k, k), n_r_units=1,
                         n_a_units=draw(st.sampled_from([16, 32, 64, 128])))
    return MarkI(params, seed=draw(st.integers(0, 99))), images, labels


def _report_reruns_on_the_machine(task):
    """A certified bound holds on the machine's own runs, from shuffles and after a
    stream that hits a stop."""
    machine, images, labels = task
    r = check_machine(machine, images, labels, orders=2, exact_budget=1,
                      z3_depth=0).r_units[0]
    event(f"{r.converges.method}, end stops {r.end_stops.holds}")
    if r.converges.method != "clipped Novikoff ball":
        return
    bound = r.converges.evidence["reinforcement_bound"]
    for seed in range(4):
        machine.reset()
        run = machine.train(images, labels, max_epochs=bound + 2, order="shuffle",
                            seed=seed)
        assert run.converged and int(run.reinforcements[0]) <= bound
    if r.end_stops.holds is False:      # a stream that hits a stop, then shuffles
        machine.reset()
        first = machine.train(images, labels, order=r.end_stops.evidence["stream"],
                              max_epochs=1)
        assert first.saturated[0] > 0
        run = machine.train(images, labels, max_epochs=bound + 2, order="shuffle",
                            seed=0, warm_start=True)
        assert run.converged
        assert int(first.reinforcements[0]) + int(run.reinforcements[0]) <= bound


_RERUN_TASKS = given(st.one_of(machines_with_a_centre(), two_letter_machines()))
_RERUN_HEALTH = [HealthCheck.filter_too_much]
# 50 examples by default (about 9 reach a stop); the slow test runs the 150 this
# property had before, and stands behind it.
test_report_reruns_on_the_machine_hypo = settings(
    max_examples=50, suppress_health_check=_RERUN_HEALTH)(
    _RERUN_TASKS(_report_reruns_on_the_machine))
test_report_reruns_on_the_machine_many_tasks_hypo = pytest.mark.slow(settings(
    max_examples=150, suppress_health_check=_RERUN_HEALTH)(
    _RERUN_TASKS(_report_reruns_on_the_machine)))


def test_26_letters_default_machine_learns_for_every_order(letters26):
    # the end stops at +/-50 are reached (R1-R4) or undecided (R5), but clipping
    # provably never blocks: every R-unit converges on every stream
    images, labels, rep = letters26  # (tests/verify/machine/conftest.py)
    machine = MarkI(seed=0)
    assert rep.converges is True
    clipped = [r for r in rep.r_units if r.converges.method == "clipped Novikoff ball"]
    assert [r.r_unit for r in clipped] == [0, 1, 2, 3, 4]
    task = machine_task(machine, images, labels)
    for r in clipped:
        ev = r.converges.evidence
        X = task.patterns[:, ev["a_units"]].astype(np.int64)
        assert check_projected_ball(X, task.targets[:, r.r_unit], 1, -50, 50,
                                    ev["center_numerators"], ev["center_denominator"]
                                    )[0] == ev["reinforcement_bound"]
    # the table quoted in docs/verify-machine.md is this report's
    page = (ROOT / "docs" / "verify-machine.md").read_text()
    table = page[page.index("| R-unit | stream reaching a stop"):].split("\n\n")[0]
    quoted = [[cell.strip() for cell in line.strip("|").split("|")]
              for line in table.splitlines()[2:]]
    assert quoted == [[r_unit_name(r.r_unit), str(len(r.end_stops.evidence["stream"]))
                       if r.end_stops.holds is False else "not known",
                       str(r.converges.evidence["reinforcement_bound"])]
                      for r in clipped]
    # the machine itself, on a stream that reaches a stop and then in shuffled passes
    r0 = rep.r_units[0]
    stream = r0.end_stops.evidence["stream"]
    machine.reset()
    first = machine.train(images, labels, order=stream, max_epochs=1)
    assert first.saturated[0] > 0
    run = machine.train(images, labels, max_epochs=100, order="shuffle", seed=1,
                        warm_start=True)
    assert run.converged
    assert (int(first.reinforcements[0]) + int(run.reinforcements[0])
            <= r0.converges.evidence["reinforcement_bound"])


# --------------------------------------------------------------------------------------
# one-signed columns: each weight moves once (the idle R-units of the letters task)


@st.composite
def one_signed_tasks(draw):
    """Figures whose active A-units all want their figure's target: every column of
    ``y x`` has one sign."""
    d = draw(st.integers(1, 6))
    sign = draw(st.lists(st.sampled_from([-1, 1]), min_size=d, max_size=d))
    rows, y = [], []
    for _ in range(draw(st.integers(1, 6))):
        t = draw(st.sampled_from([-1, 1]))
        mine = [j for j in range(d) if sign[j] == t]
        assume(mine)
        on = draw(st.sets(st.sampled_from(mine), min_size=1))
        rows.append([int(j in on) for j in range(d)])
        y.append(t)
    return np.array(rows), np.array(y), draw(st.sampled_from([1, 2, 3]))


@settings(max_examples=100)
@given(one_signed_tasks())
def test_one_signed_weights_move_once_hypo(task):
    from verify.machine.claims._end_stops import one_signed
    from verify.machine.task import Reduced, Units

    X, y, e = task
    red = Reduced(X, y, Units(e, None))
    top, bottom = one_signed(red)
    assert (top, bottom) == (e * int((y > 0).any()), -e * int((y < 0).any()))
    g = _clipped.reachable(red.P, red.D, -_clipped.NO_STOP, _clipped.NO_STOP)
    assert g.complete
    assert g.states.max() <= top and g.states.min() >= bottom
    assert most_mistakes(X, y, e, -_clipped.NO_STOP, _clipped.NO_STOP) <= len(y)


def test_a_mixed_column_lets_a_weight_move_twice():
    # A-unit 1 is pushed up by figure 0 and down by figure 1: the argument does not
    # apply, and indeed weight 0 reaches 2 increments (0 -> 1,1 -> 1,0 -> 1,-1 -> 2,0)
    from verify.machine.claims._end_stops import one_signed
    from verify.machine.task import Reduced, Units

    X, y = np.array([[1, 1], [0, 1]]), np.array([1, -1])
    red = Reduced(X, y, Units(1, None))
    assert one_signed(red) is None
    g = _clipped.reachable(red.P, red.D, -_clipped.NO_STOP, _clipped.NO_STOP)
    assert g.states.max() >= 2


# R1-R3's refuting streams are a few thousand presentations; R4's and R5's are 0.1 and
# 1.2 million, which take most of a minute to re-run: they are re-run under `slow`.
_SHORT_STREAMS = 3


def _reruns_its_refutation(machine, images, labels, r):
    from verify.machine import retrain_on_stream

    ev = r.converges.evidence
    out = retrain_on_stream(machine, images, labels, ev["prefix"], ev["cycle"],
                        r_unit=r.r_unit)
    assert out["returns"] and not out["converged"]
    assert min(out["mistakes_per_epoch"]) > 0


def test_tight_stops_on_the_letters_task():
    """At +/-1 step: R6-R8 (-1 for all 26 letters) never reach a stop (one-signed), and
    R1-R5 are refuted with streams the machine re-runs (as docs/verify-machine.md says).

    Re-runs the short streams of R1-R3; it stands for
    `test_the_long_refutations_on_the_letters_task_rerun` (R4, R5) by default."""
    from verify.machine import retrain_on_stream

    images, labels = letters(string.ascii_uppercase, per_class=10, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-1, 1)), seed=0)
    rep = check_machine(machine, images, labels, orders=2)
    for r in rep.r_units[5:]:
        assert r.end_stops.holds and r.end_stops.method == "one-signed columns"
    assert [r.converges.holds for r in rep.r_units[:5]] == [False] * 5
    for r in rep.r_units[:_SHORT_STREAMS]:
        _reruns_its_refutation(machine, images, labels, r)
    # the whole machine need not return: the other R-units are on their own course
    ev = rep.r_units[0].converges.evidence
    assert not retrain_on_stream(machine, images, labels, ev["prefix"], ev["cycle"])[
        "returns"]
    with pytest.raises(ValueError, match="out of range"):
        retrain_on_stream(machine, images, labels, [], [0], r_unit=8)
    for seed in range(3):
        machine.reset()
        run = machine.train(images, labels, max_epochs=30, order="shuffle", seed=seed)
        assert run.saturated[5:].sum() == 0


@pytest.mark.slow
def test_the_long_refutations_on_the_letters_task_rerun():
    """R4's and R5's refuting streams at +/-1 step (0.1 and 1.2 million presentations)
    return on the machine without converging."""
    images, labels = letters(string.ascii_uppercase, per_class=10, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-1, 1)), seed=0)
    rep = check_machine(machine, images, labels, orders=2)
    assert [r.converges.holds for r in rep.r_units[:5]] == [False] * 5
    for r in rep.r_units[_SHORT_STREAMS:5]:
        _reruns_its_refutation(machine, images, labels, r)


def figure_script():
    import importlib.util

    path = ROOT / "docs" / "figures" / "make_verify_machine_figures.py"
    spec = importlib.util.spec_from_file_location("make_verify_machine_figures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("r_units", [(0,), pytest.param(None, marks=pytest.mark.slow,
                                                        id="R1-R4-and-figure")])
def test_the_machines_own_log_obeys_the_certified_fall(letters26, tmp_path, r_units):
    # the docs figure: on the machine itself (its log), every reinforcement of R1-R4,
    # cut short by a stop or not, lowers ||w - a||^2 by at least delta (exact), and
    # the largest weight does touch the stop (R1 by default; R1-R4 and the figure,
    # 10 s, in the slow suite)
    images, labels, rep = letters26
    machine = MarkI(seed=0)
    script = figure_script()
    kw = {} if r_units is None else {"r_units": r_units}
    paths = script.trajectories(machine, images, labels, rep, **kw)
    for r, (dist, top, bound, delta, start) in paths.items():
        falls = [a - b for a, b in zip(dist, dist[1:])]
        assert min(falls) >= delta > 0
        assert len(falls) <= bound
        assert max(top) == 50
    if r_units is None:
        assert script.main(tmp_path, paths=paths)[0].exists()


def test_the_smallest_task_that_symmetric_stops_block():
    # every task with 0/1 patterns on up to 2 A-units and up to 3 figures, stops at
    # +/-1 step, increment 1: decided exactly over all streams; the smallest blocked
    # separable tasks (docs/verify-machine.md's gallery) are the two mirror images
    # with 2 figures on 2 A-units
    import itertools

    from verify.machine.claims._converges import exact_convergence
    from verify.machine.task import Reduced, Units
    from verify.separability import check_separable

    units = Units(1, (-1, 1))
    blocked = []
    for d in (1, 2):
        rows = [r for r in itertools.product((0, 1), repeat=d) if any(r)]
        for n in (2, 3):
            for figs in itertools.combinations_with_replacement(rows, n):
                X = np.array(figs)
                for y in itertools.product((-1, 1), repeat=n):
                    y = np.array(y)
                    if y[0] != -1 or (y == -1).all() or not check_separable(
                            X, y, intercept=False, progress=False).separable:
                        continue
                    red = Reduced(X, y, units)
                    graph = _clipped.reachable(red.P, red.D, units.lo, units.hi)
                    if exact_convergence(graph, red).holds is False:
                        blocked.append((n, d, figs, tuple(y.tolist())))
    smallest = min((n + d for n, d, *_ in blocked))
    assert smallest == 4
    assert sorted(b[2:] for b in blocked if b[0] + b[1] == 4) == [
        (((0, 1), (1, 1)), (-1, 1)), (((1, 0), (1, 1)), (-1, 1))]


def test_z3_has_a_default_budget(monkeypatch):
    # a two-letter task whose end-stop question goes to Z3 (found by a random search:
    # without a budget Z3 ran for minutes on tasks like it); with no timeout_s the
    # report still comes back, saying that Z3 ran out of its own budget of work (its
    # resource count, not seconds), and the convergence claim does not depend on it
    import verify.machine.theory._stop_searches as vm

    monkeypatch.setattr(vm, "Z3_RLIMIT", 100_000)
    images, labels = letters("EV", per_class=6, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-3, 3), n_a_units=128, n_r_units=1),
                    seed=2)
    r = check_machine(machine, images, labels, orders=1, exact_budget=1).r_units[0]
    assert (r.end_stops.method, r.end_stops.holds) == ("z3 bounded model checking",
                                                       None)
    assert "within its budget of 100,000 resource units (Z3_RLIMIT)" in r.end_stops.message
    assert r.converges.holds and r.converges.method == "clipped Novikoff ball"
