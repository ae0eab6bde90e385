"""Tests for verify.cycling: exact cycles and all-order reachable sets."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verify.cycling
from verify.cycling import check_cycling, integer_yx, reachable_states

reachable_compiled = verify.cycling._reachable_compiled   # (a test wraps it)

XOR_PM1 = (np.array([[-1, -1], [-1, 1], [1, -1], [1, 1]]), np.array([-1, 1, 1, -1]))
XOR_01 = (np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([-1, 1, 1, -1]))


def parity3(encoding="01"):
    P = np.array(list(itertools.product([0, 1], repeat=3)))
    y = np.where(P.sum(axis=1) % 2 == 1, 1, -1)
    return (P if encoding == "01" else 2 * P - 1), y


# ---- independent oracles: plain Python tuples, no numpy ------------------------------

def _rows(X, y, intercept):
    return [tuple(int(v) * int(t) for v in (list(r) + ([1] if intercept else [])))
            for r, t in zip(X, y)]


def _dot(a, b):
    return sum(p * q for p, q in zip(a, b))


def oracle_cyclic(X, y, intercept=True, strict=False):
    """Textbook loop recording the state ``(w, position)`` before every presentation;
    the first state that comes back starts the cycle (the docs' definition). Returns
    ``(transient, transient_epochs, period, period_epochs, cycle, cycle_indices)``:
    updates and complete passes before that state, the updates and passes of one
    period, the weight vectors on the cycle from that state on and the example each
    update errs on; None when a pass makes no mistake."""
    rows = _rows(X, y, intercept)
    n, w = len(rows), (0,) * len(rows[0])
    first_time, states, quiet, t = {}, [], 0, 0
    while (w, t % n) not in first_time:
        first_time[(w, t % n)] = t
        r = rows[t % n]
        s = _dot(r, w)
        mistake = s < 0 or (s == 0 and not strict)
        states.append((w, mistake))
        if mistake:
            w, quiet = tuple(a + b for a, b in zip(w, r)), 0
        else:
            quiet += 1
            if quiet == n:
                return None
        t += 1
    t0 = first_time[(w, t % n)]
    transient = sum(m for _, m in states[:t0])
    on_cycle = [(v, u % n) for u, (v, m) in enumerate(states) if u >= t0 and m]
    cycle = tuple(v for v, _ in on_cycle)
    return (transient, t0 // n, len(on_cycle), (t - t0) // n, cycle,
            tuple(i for _, i in on_cycle))


def oracle_reachable(X, y, intercept=True, strict=False):
    rows = _rows(X, y, intercept)
    start = (0,) * len(rows[0])
    seen, stack = {start}, [start]
    while stack:
        w = stack.pop()
        for r in rows:
            s = _dot(r, w)
            if s < 0 or (s == 0 and not strict):
                v = tuple(a + b for a, b in zip(w, r))
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
    return seen


def _cyclic_answer(r):
    """A cyclic report's answer, in the oracle's order."""
    return (r.transient, r.transient_epochs, r.period_updates, r.period_epochs, r.cycle,
            r.cycle_indices)


# ---- exact expected values ------------------------------------------------------------

def test_xor_pm1_cycle_exact():
    r = check_cycling(*XOR_PM1)
    # hand computation: updates on rows 0,1,2,3 give (1,1,-1),(0,2,0),(1,1,1),(0,0,0)
    assert (r.converged, r.transient, r.period_updates, r.period_epochs) == (False, 0, 4, 1)
    assert r.cycle == ((0, 0, 0), (1, 1, -1), (0, 2, 0), (1, 1, 1))
    assert r.cycle_indices == (0, 1, 2, 3)
    assert r.max_norm_sq == 4 and r.complete and r.scale == 1


def test_xor_01_cycle_exact():
    r = check_cycling(*XOR_01)
    assert r.cycle == ((0, 0, 0), (0, 0, -1), (0, 1, 0), (1, 1, 1))
    assert (r.transient, r.period_updates, r.period_epochs, r.max_norm_sq) == (0, 4, 1, 3)
    assert r.transient_epochs == 0 and r.cycle_indices == (0, 1, 2, 3)


def test_the_cycle_can_be_entered_between_updates():
    """By hand: the signed rows are z0 = z2 = (1, 1, -1) and z1 = -z0. The states
    (w, next position) before each presentation are (0, 0), (z0, 1), (0, 2), (z0, 0),
    then (z0, 1) again: the cycle is entered after one update, at presentation 1, and
    goes round once per pass with two updates (on examples 1 and 2). The state after
    the first update, (z0, 1), is on it; keying only the states after updates finds
    the repeat at (0, 2) and reported a transient of 2."""
    r = check_cycling([[-1, -1]] * 3, [-1, 1, -1])
    assert (r.transient, r.transient_epochs, r.period_updates, r.period_epochs) == \
        (1, 0, 2, 1)
    assert r.cycle == ((1, 1, -1), (0, 0, 0)) and r.cycle_indices == (1, 2)
    assert "after a transient of 1 update, a period of 2 updates (1 pass)" in r.message


@pytest.mark.parametrize("data", [XOR_PM1, XOR_01, parity3("01"), parity3("pm1")])
def test_cyclic_matches_oracle(data):
    assert _cyclic_answer(check_cycling(*data)) == oracle_cyclic(*data)


@pytest.mark.parametrize("data", [XOR_PM1, XOR_01, parity3("pm1")])
@pytest.mark.parametrize("intercept", [True, False])
def test_all_orders_matches_oracle(data, intercept):
    r = check_cycling(*data, order="all", intercept=intercept)
    seen = oracle_reachable(*data, intercept=intercept)
    assert r.complete and r.states == len(seen)
    assert r.max_norm_sq == max(_dot(w, w) for w in seen)
    assert r.max_norm_state in seen


def test_all_orders_bounds_the_cyclic_trajectory():
    for data in (XOR_PM1, XOR_01, parity3("01")):
        cyc, allr = check_cycling(*data), check_cycling(*data, order="all")
        assert cyc.max_norm_sq <= allr.max_norm_sq
        seen = oracle_reachable(*data) if len(data[0]) <= 4 else None
        if seen is not None:
            assert set(cyc.cycle) <= seen


def test_parity3_01_reachable_set_is_large_but_finite():
    r = check_cycling(*parity3("01"), order="all")
    assert r.complete and r.states == len(oracle_reachable(*parity3("01")))


# ---- strict vs non-strict rule --------------------------------------------------------

@pytest.mark.parametrize("data", [XOR_PM1, XOR_01, parity3("01")])
def test_strict_rule_never_leaves_zero(data):
    r = check_cycling(*data, rule="strict")
    assert r.converged and r.transient == 0 and r.cycle == ((0,) * (data[0].shape[1] + 1),)
    a = check_cycling(*data, rule="strict", order="all")
    assert a.states == 1 and a.max_norm_sq == 0
    # ...while the non-strict rule moves at once and cycles
    assert not check_cycling(*data).converged


# ---- separable data converges; budgets; rationals ------------------------------------

def test_separable_converges_to_a_fixed_point():
    X, y = np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([-1, -1, -1, 1])  # AND
    r = check_cycling(X, y)
    assert r.converged and r.period_updates == 0
    w = np.array(r.cycle[0])
    Xa = np.c_[X, np.ones(4, int)]
    assert (y * (Xa @ w) > 0).all()


def test_budget_stops_and_says_so():
    r = check_cycling(*parity3("01"), order="all", budget=100)
    assert not r.complete and r.states == 100 and "budget" in r.message  # exactly
    c = check_cycling(*parity3("01"), budget=2)
    assert not c.complete and c.period_updates is None


def test_rational_input_is_scaled_exactly():
    X = [["-1/2", "-1/2"], ["-1/2", "1/2"], ["1/2", "-1/2"], ["1/2", "1/2"]]
    r = check_cycling(X, [-1, 1, 1, -1], intercept_scale="1/2")
    assert r.scale == Fraction(2) and r.period_updates == 4
    assert r.cycle == check_cycling(*XOR_PM1).cycle


def test_integer_yx_and_errors():
    YX, s = integer_yx([[1, 2]], [1], intercept=False)
    assert YX.tolist() == [[1, 2]] and s == 1
    with pytest.raises(ValueError, match="order"):
        check_cycling(*XOR_PM1, order="sideways")
    with pytest.raises(ValueError, match="rule"):
        check_cycling(*XOR_PM1, rule="lenient")
    with pytest.raises(ValueError, match="2-D"):
        check_cycling([1, 2, 3], [1, -1, 1])
    with pytest.raises(ValueError, match="samples"):
        check_cycling([[1], [2]], [1])
    with pytest.raises(ValueError, match="not a number"):
        check_cycling([["x"], [1]], [1, -1])


def test_huge_integers_fall_back_to_python_ints():
    X = np.array([[2**40, 1], [-(2**40), 1], [1, -(2**40)]], dtype=object)
    r = check_cycling(X, [1, 1, -1], order="all", budget=2000)
    seen = oracle_reachable(X, [1, 1, -1]) if r.complete else None
    if seen is not None:
        assert r.states == len(seen)
    assert r.states >= 1


# ---- properties against the oracles ---------------------------------------------------

small_int_data = st.integers(2, 5).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(-2, 2), min_size=2, max_size=2), min_size=n, max_size=n),
    st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n),
))


@settings(max_examples=40)
@given(small_int_data, st.booleans(), st.booleans())
def test_cyclic_agrees_with_oracle_hypo(data, intercept, strict):
    X, y = np.array(data[0]), np.array(data[1])
    r = check_cycling(X, y, intercept=intercept, rule="strict" if strict else "nonstrict")
    o = oracle_cyclic(X, y, intercept=intercept, strict=strict)
    if o is None:
        assert r.converged
    else:
        assert _cyclic_answer(r) == o


@settings(max_examples=30)
@given(small_int_data, st.booleans())
def test_reachable_agrees_with_oracle_hypo(data, strict):
    X, y = np.array(data[0]), np.array(data[1])
    rule = "strict" if strict else "nonstrict"
    r = check_cycling(X, y, order="all", rule=rule, budget=20000)
    seen = oracle_reachable(X, y, strict=strict)
    assert r.states == len(seen) and r.max_norm_sq == max(_dot(w, w) for w in seen)


def test_reachable_edges_are_mistakes():
    YX, _ = integer_yx(*XOR_PM1)
    g = reachable_states(YX, edges=True)
    S = g.states
    assert np.array_equal(S[g.dst], S[g.src] + YX[g.example])
    assert (np.einsum("ij,ij->i", S[g.src], YX[g.example]) <= 0).all()


@pytest.mark.parametrize("data", [XOR_PM1, XOR_01, parity3("01")])
def test_compiled_search_equals_general_search(data):
    YX, _ = integer_yx(*data)
    fast = reachable_states(YX, edges=True)                  # packed int64 keys
    slow = reachable_states(YX.astype(object), edges=True)   # Python ints, dict keys
    assert np.array_equal(fast.states, slow.states.astype(np.int64))
    for f in ("src", "dst", "example"):
        assert np.array_equal(getattr(fast, f), getattr(slow, f))
    assert fast.clean_states == slow.clean_states and fast.complete and slow.complete


@settings(max_examples=25)
@given(st.integers(0, 100_000), st.integers(4, 7))
def test_random_non_separable_sets_cycle_hypo(seed, n):
    """Random integer sets that verify.check_separable proves non-separable never
    converge, cycle exactly as the oracle says, and stay within the all-order set."""
    import verify

    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(n, 2))
    y = rng.choice([-1, 1], size=n)
    if verify.check_separable(X, y).separable is not False:
        return
    r = check_cycling(X, y)
    assert not r.converged and r.period_updates > 0
    assert _cyclic_answer(r) == oracle_cyclic(X, y)
    a = check_cycling(X, y, order="all", budget=200_000)
    if a.complete:
        assert set(r.cycle) <= oracle_reachable(X, y)
        assert r.max_norm_sq <= a.max_norm_sq
        assert not a.converged        # no reachable vector classifies everything


def test_random_non_separable_examples_exist():
    import verify

    found = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        X, y = rng.integers(-2, 3, size=(6, 2)), rng.choice([-1, 1], size=6)
        if verify.check_separable(X, y).separable is False:
            found += 1
            assert not check_cycling(X, y).converged
    assert found >= 5


def test_the_cycle_is_rerun_through_the_core(monkeypatch):
    import dataclasses

    import markone.engine as core
    from verify.cycling import check_cycling as check

    X, y = [[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1]
    calls = []
    real = core.train

    def spy(*a, **kw):
        calls.append(kw)
        return real(*a, **kw)

    monkeypatch.setattr(core, "train", spy)
    r = check(X, y)
    assert calls and calls[0]["exact"] and calls[0]["record"] and calls[0]["max_epochs"] == 1
    assert len(calls[0]["order"]) >= r.period_updates

    def off_by_one(*a, **kw):   # a core that disagrees on one weight must be caught
        res = real(*a, **kw)
        w = list(res.weights_after)
        w[-1] = tuple(v + 1 for v in w[-1])
        return dataclasses.replace(res, weights_after=tuple(w))

    monkeypatch.setattr(core, "train", off_by_one)
    import pytest

    with pytest.raises(RuntimeError, match="BUG: check_cycling's run and markone.train"):
        check(X, y)
    check(X, y, rule="strict")   # not the core's rule: not re-run


# ---- large integers: int64 while the scores fit, Python ints after, the same answers --

@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(
           st.lists(st.lists(st.integers(-3, 3), min_size=2, max_size=2), min_size=n,
                    max_size=n),
           st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))),
       st.sampled_from([2**30, 2**40, 2**70]), st.sampled_from(["cyclic", "all"]))
def test_scaling_every_input_changes_no_answer_hypo(data, scale, order):
    # 2**40: the run starts in int64 and must switch to Python ints before a score
    # overflows (and recognise the states it saw before the switch); 2**70: Python
    # ints from the start. A zero-start perceptron's decisions do not depend on scale.
    X, y = data
    a = check_cycling(X, y, order=order, budget=20_000)
    big = [[v * scale for v in row] for row in X]
    b = check_cycling(big, y, order=order, intercept_scale=scale, budget=20_000)
    if order == "all" and not a.complete:  # both searches stop at the budget exactly
        assert (a.states, a.stopped_by, b.stopped_by) == (20_000, "budget", "budget")
    fields = ("converged", "transient", "transient_epochs", "period_updates",
              "period_epochs", "cycle_indices", "states", "complete")
    assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]
    assert b.max_norm_sq == a.max_norm_sq * scale**2
    assert b.cycle == tuple(tuple(v * scale for v in w) for w in a.cycle)


@pytest.mark.parametrize("plain", [0, 1, 256, 10**9])
def test_packed_search_is_the_same_plain_compiled_or_switching(monkeypatch, plain):
    """The packed search's first vectors run as plain Python, the rest compiled (issue
    26): whichever runs which, the graph is the same."""
    rng = np.random.default_rng(0)
    YX, _ = integer_yx(rng.integers(-3, 4, (8, 3)), rng.choice([-1, 1], 8))
    monkeypatch.setattr(verify.cycling, "_PLAIN_STATES", 1)   # to the packed search
    monkeypatch.setattr(verify.cycling, "_PLAIN_VECTORS", 10**9)
    reference = reachable_states(YX, edges=True)          # all plain
    assert reference.states.shape[0] == 2542 and reference.complete
    monkeypatch.setattr(verify.cycling, "_PLAIN_VECTORS", plain)
    _assert_same_graph(reachable_states(YX, edges=True), reference)


def _assert_same_graph(g, reference):
    for f in ("states", "src", "dst", "example"):
        assert np.array_equal(getattr(g, f), getattr(reference, f))
    assert g.clean_states == reference.clean_states


@pytest.mark.parametrize("plain_states", [100, 2541, 2542, 10**9])
def test_a_small_search_keeps_to_numpy_a_large_one_starts_again_packed(
        monkeypatch, plain_states):
    """The work rule (issue 38): up to ``_PLAIN_STATES`` states the numpy search
    alone; beyond, it starts again packed and compiled, with the same graph."""
    rng = np.random.default_rng(0)
    YX, _ = integer_yx(rng.integers(-3, 4, (8, 3)), rng.choice([-1, 1], 8))
    packed = []
    monkeypatch.setattr(verify.cycling, "_PLAIN_STATES", plain_states)
    monkeypatch.setattr(verify.cycling, "_reachable_compiled", lambda *a: packed.append(
        1) or reachable_compiled(*a))
    reference = verify.cycling._reachable_numpy(YX, "nonstrict", 10**6, True, None, None)
    assert reference.states.shape[0] == 2542 and reference.complete
    _assert_same_graph(reachable_states(YX, edges=True), reference)
    assert packed == ([1] if plain_states < 2542 else [])


def test_the_bar_says_when_the_run_is_confirmed_on_the_core(capsys):
    # the re-run on markone.train takes about as long as the search: on a terminal it
    # showed a bar at 100 % and then nothing for as long again (1e400 data: over 60 s)
    X, y = [[-1, -1], [-1, 1], [1, -1], [1, 1]], [-1, 1, 1, -1]
    check_cycling(X, y, progress=True)
    assert "presentations on markone.train" in capsys.readouterr().err
    check_cycling(X, y, progress=True, rule="strict")     # not the core's rule: no re-run
    assert "markone.train" not in capsys.readouterr().err
