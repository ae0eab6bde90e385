"""The compiled plugboard draw equals one ``Generator.choice`` per A-unit, draw for draw.

``plugboard.wire`` used to call ``rng.choice(free, size=k, replace=False)`` once per
A-unit (about 520 small numpy calls per machine). It now takes the generator's random
words in a few large draws and repeats numpy's algorithm compiled. The old loop is kept
here as the oracle: the same seed must give the same wiring *and* leave the generator
in the same state (so every later draw of a machine, and the golden runs, are
unchanged). If a numpy release changes how ``choice`` draws, these tests say so.
The threshold calibration counts each net input once instead of taking one mean per
threshold; the old way is its oracle too.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markone.hardware import MarkIParams
from markone.hardware import plugboard


def choice_loop_wire(params, rng):
    """The plugboard as it was drawn before: one ``choice`` call per A-unit."""
    n_s = params.retina_shape[0] * params.retina_shape[1]
    k = params.n_excitatory + params.n_inhibitory
    room = np.full(n_s, params.max_fanout)
    picks = np.empty((params.n_a_units, k), dtype=np.int64)
    for a in range(params.n_a_units):
        free = np.flatnonzero(room > 0)
        if free.size < k:
            raise ValueError(f"A-unit {a}: {free.size} free")
        picks[a] = rng.choice(free, size=k, replace=False)
        room[picks[a]] -= 1
    return picks


def assert_same_draws(params, seed):
    old_rng, new_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    old = choice_loop_wire(params, old_rng)
    board = plugboard.wire(params, new_rng)
    np.testing.assert_array_equal(np.hstack([board.excitatory, board.inhibitory]), old)
    # the generator is left where the loop left it: the next numbers agree
    assert new_rng.bit_generator.state == old_rng.bit_generator.state
    assert new_rng.random(3).tolist() == old_rng.random(3).tolist()


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
def test_default_plugboard_draws_as_the_choice_loop(seed):
    assert_same_draws(MarkIParams(), seed)


EDGE_PLUGBOARDS = [
    dict(retina_shape=(2, 3), n_a_units=4, n_excitatory=2, n_inhibitory=1,
         max_fanout=3),                        # S-units run out of room on the way
    dict(retina_shape=(1, 3), n_a_units=3, n_excitatory=2, n_inhibitory=1,
         max_fanout=3),                        # every A-unit takes every S-unit (n == k)
    dict(retina_shape=(3, 3), n_a_units=9, n_excitatory=1, n_inhibitory=0,
         max_fanout=1),                        # k == 1, down to the last free S-unit
    dict(retina_shape=(101, 101), n_a_units=3, n_excitatory=150, n_inhibitory=60),
]  # the last: over 10,000 S-units and k > n // 50, numpy's tail-shuffle branch


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
def test_a_seed_draws_as_the_choice_loop_on_its_generator(seed):
    # from a seed, wire() draws its words ahead (its generator is its own): the
    # wiring is still the one the choice loop draws from default_rng(seed)
    for params in [MarkIParams()] + [MarkIParams(**f) for f in EDGE_PLUGBOARDS]:
        board = plugboard.wire(params, seed)
        np.testing.assert_array_equal(
            np.hstack([board.excitatory, board.inhibitory]),
            choice_loop_wire(params, np.random.default_rng(seed)))


@pytest.mark.parametrize("fields", EDGE_PLUGBOARDS)
def test_edge_plugboards_draw_as_the_choice_loop(fields):
    for seed in range(4):
        assert_same_draws(MarkIParams(**fields), seed)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63), spare=st.integers(0, 30), n_exc=st.integers(0, 6),
       n_inh=st.integers(1, 6))
def test_plugboard_draws_as_the_choice_loop_hypo(seed, spare, n_exc, n_inh):
    # the fan-out cap from the least the counts allow (40 A-units on 64 cells) up
    cap = -(-40 * (n_exc + n_inh) // 64) + spare
    params = MarkIParams(retina_shape=(8, 8), n_a_units=40, n_excitatory=n_exc,
                         n_inhibitory=n_inh, max_fanout=cap)
    try:
        choice_loop_wire(params, np.random.default_rng(seed))
    except ValueError:   # the fan-out runs out: both refuse, at the same A-unit
        with pytest.raises(ValueError, match="left only"):
            plugboard.wire(params, seed)
        return
    assert_same_draws(params, seed)


def test_running_out_of_free_s_units_names_the_a_unit():
    # 4 cells x 2 = 8 connections for 4 A-units x 2: room by count, but the last
    # A-unit may find a single free cell
    params = MarkIParams(retina_shape=(2, 2), n_a_units=4, n_excitatory=1,
                         n_inhibitory=1, max_fanout=2)
    outcomes = set()
    for seed in range(40):
        try:
            choice_loop_wire(params, np.random.default_rng(seed))
            plugboard.wire(params, seed)
            outcomes.add("wired")
        except ValueError as exc:
            a = int(str(exc).split(":")[0].split()[-1])   # the index; named from 1
            with pytest.raises(ValueError, match=rf"free S-units for A-unit {a + 1}, which "
                                                 r"needs 2 distinct ones; raise max_fanout"):
                plugboard.wire(params, seed)
            outcomes.add("refused")
    assert outcomes == {"wired", "refused"}


def lemire_reference(words, high):
    """numpy's ``buffered_bounded_lemire_uint32`` on a list of words (C, transcribed):
    returns ``(value, words used)``."""
    span = high + 1
    pos = 0
    m = words[pos] * span
    pos += 1
    leftover = m & 0xFFFFFFFF
    if leftover < span:
        threshold = (0xFFFFFFFF - high) % span
        while leftover < threshold:
            m = words[pos] * span
            pos += 1
            leftover = m & 0xFFFFFFFF
    return m >> 32, pos


@pytest.mark.parametrize("high", [1, 2, 399, 400, 12_345, 2**31 + 11])
def test_bounded_draw_rejects_as_numpy_does(high):
    # word 0 always lands in the rejected zone (its low part is 0 < threshold) unless
    # the threshold is 0 (a power-of-two span); a whole draw almost never meets it
    rng = np.random.default_rng(high)
    words = [0, 0] + rng.integers(0, 2**32, size=30).tolist()
    for start in range(0, 6):
        cursor = np.array([start])
        got = plugboard._below(np.array(words, dtype=np.uint32), cursor, high)
        value, used = lemire_reference(words[start:], high)
        assert (got, int(cursor[0]) - start) == (value, used)
    assert plugboard._below(np.zeros(0, dtype=np.uint32), np.array([0]), high) == -1


def mean_rate_theta(wiring, s, target_rate, n_excitatory, n_inhibitory):
    """The calibration as it was: each rate is ``np.mean(net >= theta)``."""
    net = plugboard.net_input(wiring, s)
    lo, hi = target_rate
    mid = (lo + hi) / 2
    keys = {theta: (max(lo - (r := float(np.mean(net >= theta))), r - hi, 0.0),
                    abs(r - mid))
            for theta in range(-n_inhibitory + 1, n_excitatory + 1)}
    return min(keys, key=lambda theta: (keys[theta], theta))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), n_exc=st.integers(0, 6), n_inh=st.integers(1, 6),
       lo=st.sampled_from([0.0, 0.05, 0.3]), width=st.sampled_from([0.0, 0.15, 0.5]))
def test_calibrated_theta_is_the_mean_rate_one_hypo(seed, n_exc, n_inh, lo, width):
    params = MarkIParams(retina_shape=(8, 8), n_a_units=40, n_excitatory=n_exc,
                         n_inhibitory=n_inh, max_fanout=40)
    wiring = plugboard.wire(params, seed)
    s = (np.random.default_rng(seed).random((7, 64)) < 0.4).astype(np.uint8)
    rate = (lo, lo + width)
    assert plugboard.calibrate_theta(wiring, s, rate, n_exc, n_inh) == \
        mean_rate_theta(wiring, s, rate, n_exc, n_inh)


def test_pattern_cache_answers_in_bulk_as_one_by_one():
    # many S-states at once (prime from a given net input, patterns, lookup) give the
    # patterns get() and fire() give one by one: all-dark and repeated states included
    p = MarkIParams(retina_shape=(4, 5), n_a_units=30, n_excitatory=3, n_inhibitory=2)
    board = plugboard.wire(p, seed=3)
    states = np.random.default_rng(0).random((12, 20)) < 0.3
    states[0] = False
    states[5] = states[2]
    cache = plugboard.PatternCache(board)
    cache.prime(states, 1, outputs=plugboard.fire(board, states, 1))
    assert len(cache) == 11
    fired = plugboard.fire(board, states, 1)
    np.testing.assert_array_equal(cache.lookup(states, 1), fired)
    one_by_one = plugboard.PatternCache(board)
    assert [pat.a.tolist() for pat in cache.patterns(states, 1)] == \
        [one_by_one.get(s, 1).a.tolist() for s in states] == fired.tolist()
    assert cache.patterns(states, 1)[5] is cache.patterns(states, 1)[2]
    assert cache.lookup(states, 2) is None   # another threshold: nothing cached
    distinct = np.delete(states, 5, axis=0)   # every state new: rows of one array
    fresh = plugboard.PatternCache(board)
    fresh.prime(distinct, 1, outputs=plugboard.fire(board, distinct, 1))
    got = fresh.lookup(distinct, 1)
    assert got.dtype == np.uint8 and got.tolist() == plugboard.fire(
        board, distinct, 1).tolist()
    assert not any(pat.a.flags.writeable for pat in fresh.patterns(distinct, 1))


def _entries(cache):
    """A pattern cache's entries, in order: (S-state bytes, A-unit outputs)."""
    return [(key, (pat if isinstance(pat, np.ndarray) else pat.a).tolist())
            for key, pat in cache._patterns.items()]


def test_states_primed_with_their_net_enter_the_cache_only_when_it_is_read():
    # a fleet's machine primes its figures with their net inputs and only looks them
    # up (lookup of the states primed last): that leaves the cache's dict unbuilt
    p = MarkIParams(retina_shape=(4, 5), n_a_units=30, n_excitatory=3, n_inhibitory=2)
    board = plugboard.wire(p, seed=3)
    states = np.random.default_rng(0).random((12, 20)) < 0.3
    cache = plugboard.PatternCache(board)
    cache.prime(states, 1, outputs=plugboard.fire(board, states, 1))
    assert cache.lookup(states, 1).tolist() == plugboard.fire(board, states, 1).tolist()
    assert cache._patterns == {}   # nothing entered yet
    assert len(cache) == len({s.tobytes() for s in states})   # entered when read


def _csr_rows(active, n):
    ptr, idx = active
    return [idx[ptr[i]:ptr[i + 1]].tolist() for i in range(n)]


def test_the_primed_states_active_units_are_found_once_and_only_for_them():
    # a fleet machine's session and its accuracy share the CSR of its primed figures'
    # active A-units: np.nonzero of fire(), row by row, for those states and theta only
    p = MarkIParams(retina_shape=(4, 5), n_a_units=30, n_excitatory=3, n_inhibitory=2)
    board = plugboard.wire(p, seed=3)
    rng = np.random.default_rng(5)
    first, second = rng.random((9, 20)) < 0.3, rng.random((6, 20)) < 0.3
    cache = plugboard.PatternCache(board)
    assert cache.active(first, 1) is None   # nothing primed
    for states in (first, second):   # primed again: the new states' units
        cache.prime(states, 1, outputs=plugboard.fire(board, states, 1))
        active = cache.active(states.copy(), 1)
        assert _csr_rows(active, len(states)) == [
            np.flatnonzero(row).tolist() for row in plugboard.fire(board, states, 1)]
        assert cache.active(states, 1) is active   # found once
        assert cache.active(states, 2) is None and cache.active(states[:-1], 1) is None
    assert cache.active(first, 1) is None   # not the states primed last
    cache.get(first[0], 2)   # another threshold empties the cache
    assert cache.active(second, 1) is None


def test_a_trained_machine_scores_its_primed_figures_as_any_others():
    # the scores of the figures trained on (their active A-units shared with the
    # session) are those of the same figures not primed, bit for bit
    from markone.datasets import letters
    from markone.hardware import MarkI
    images, labels = letters("ABCD", per_class=3, seed=0)
    machine = MarkI(seed=1)   # theta calibrated: the figures primed with their net
    machine.train(images, labels, presentations=40)
    assert machine._patterns.active(machine.retina.settled(
        machine._images(images)), machine.theta) is not None
    primed = machine.decision_function(images)
    alone = np.concatenate([machine.decision_function(images[i:i + 1])
                            for i in range(len(images))])
    assert primed.tolist() == alone.tolist() and np.abs(primed).sum() > 0


@pytest.mark.parametrize("net_later", [False, True])
def test_states_primed_with_their_net_enter_the_cache_as_if_entered_at_once(net_later):
    # whatever reads or changes the cache after a prime with net inputs (another
    # prime, another threshold, a get past the limit) sees the entries an eager prime
    # (fire() of the new states, entered at once) would have left, in the same order
    p = MarkIParams(retina_shape=(4, 5), n_a_units=30, n_excitatory=3, n_inhibitory=2)
    board = plugboard.wire(p, seed=3)
    rng = np.random.default_rng(4)
    first, second = rng.random((9, 20)) < 0.3, rng.random((7, 20)) < 0.3
    second[:3] = first[:3]
    one = np.zeros(20, dtype=bool)
    steps = [("prime", first, 1), ("prime", second, 1), ("get", one, 1),
             ("prime", first, 2), ("get", one, 1), ("prime", second, 1),
             ("patterns", first, 1), ("prime", first, 1), ("lookup", second, 1)]
    lazy, eager = plugboard.PatternCache(board, limit=12), \
        plugboard.PatternCache(board, limit=12)
    for step, states, theta in steps:
        if step == "prime":
            lazy.prime(states, theta, outputs=plugboard.fire(board, states, theta))
            eager.prime(states, theta)
            if net_later:   # read right away: entered before the next step
                assert len(lazy) == len(eager)
        elif step == "get":
            assert lazy.get(states, theta).a.tolist() == eager.get(states, theta).a.tolist()
        elif step == "patterns":
            assert [pat.a.tolist() for pat in lazy.patterns(states, theta)] == \
                [pat.a.tolist() for pat in eager.patterns(states, theta)]
        else:
            got, want = lazy.lookup(states, theta), eager.lookup(states, theta)
            assert (got is None and want is None) or got.tolist() == want.tolist()
        if step != "prime" or net_later:   # read: entered by now
            assert _entries(lazy) == _entries(eager) and lazy._theta == eager._theta


@pytest.mark.parametrize("left", [0, 10**6])   # compiled, then plain (numpy's bincount)
def test_level_counts_are_bincount_of_the_shifted_net(monkeypatch, left):
    monkeypatch.setattr(plugboard.PLAIN, "left", left)
    net = np.random.default_rng(1).integers(-5, 6, size=(104, 512))
    for low, levels in [(-5, 11), (-5, 20), (-4, 11), (-5, 3)]:   # above: a longer one
        if low > net.min():
            with pytest.raises(ValueError, match="negative"):   # as bincount refused
                plugboard._level_counts(net, low, levels)
            continue
        got = plugboard._level_counts(net, low, levels)
        want = np.bincount((net - low).ravel(), minlength=levels)
        assert got.dtype == want.dtype and got.tolist() == want.tolist()
    assert plugboard._level_counts(net[:0], -5, 11).tolist() == [0] * 11
    assert plugboard._level_counts(net[::2, ::3], -5, 11).tolist() == \
        np.bincount((net[::2, ::3] + 5).ravel(), minlength=11).tolist()


@pytest.mark.parametrize("left", [0, 10**6])   # compiled, then plain
def test_net_input_is_each_a_units_sum_in_input_order(monkeypatch, left):
    """The net input (summed figure-minor since issue 45) is, per A-unit and figure,
    the running sum of its inputs times their signs from +0.0, in input order: exact
    integers on 0/1 states (also one state alone, and bool states), the same floats
    on fractional ones, and truncated to int64 by ``net_input``."""
    monkeypatch.setattr(plugboard.PLAIN, "left", left)
    p = MarkIParams(retina_shape=(6, 7), n_a_units=30, n_excitatory=3, n_inhibitory=2,
                    max_fanout=8)
    board = plugboard.wire(p, seed=3)
    rng = np.random.default_rng(0)
    for states in (rng.random((9, 42)) < 0.4, rng.random((140, 42)) / 3,
                   (rng.random(42) < 0.5).astype(np.uint8)):
        flat = np.atleast_2d(states).astype(np.float64)
        want = np.zeros((len(flat), 30))
        for n in range(len(flat)):
            for a in range(30):
                total = 0.0
                for k, sign in enumerate(board.signs):
                    total += flat[n, board.inputs[a, k]] * sign
                want[n, a] = total
        want = want.reshape(np.shape(states)[:-1] + (30,))
        floats = plugboard._net(board, states)
        assert floats.flags.c_contiguous and floats.tobytes() == want.tobytes()
        ints = plugboard.net_input(board, states)
        assert ints.dtype == np.int64 and ints.tolist() == want.astype(np.int64).tolist()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), n_exc=st.integers(0, 6), n_inh=st.integers(0, 6),
       n=st.integers(1, 40), density=st.sampled_from([0.0, 0.1, 0.4, 1.0]),
       kind=st.sampled_from(["uint8", "bool", "levels", "float"]),
       compiled=st.booleans())
def test_calibration_is_theta_for_and_fire_of_the_net_input(seed, n_exc, n_inh, n,
                                                          density, kind, compiled):
    """A machine's calibration (issue 45: summed in int16, the levels counted in the
    same pass, the outputs and their CSR read off the sums, never an int64 net
    input) finds the threshold of theta_for on net_input, the outputs of fire and
    the CSR of np.nonzero, compiled and plain; states that are not 0/1 (8-bit levels
    reach beyond the counted ones; floats) take the old way, with the same answers."""
    if n_exc + n_inh == 0:
        n_exc = 1
    params = MarkIParams(retina_shape=(6, 8), n_a_units=37, n_excitatory=n_exc,
                         n_inhibitory=n_inh, max_fanout=40)
    wiring = plugboard.wire(params, seed)
    rng = np.random.default_rng(seed)
    s = rng.random((n, 48)) < density
    s = {"uint8": s.astype(np.uint8), "bool": s, "float": s * 0.75,
         "levels": s.astype(np.uint8) * rng.integers(1, 4, (n, 48)).astype(np.uint8)}[kind]
    rate = (0.05, 0.2)
    try:   # 8-bit levels may sum below -n_inh: theta_for refuses them (bincount)
        theta = plugboard.theta_for(plugboard.net_input(wiring, s), rate, n_exc, n_inh)
    except ValueError:
        theta = None
    old = plugboard.PLAIN.left
    plugboard.PLAIN.left = 0 if compiled else 10**9
    try:
        if theta is None:   # and so does the calibration, the same way
            with pytest.raises(ValueError, match="negative"):
                plugboard.calibration(wiring, s, rate, n_exc, n_inh)
            return
        found = plugboard.calibration(wiring, s, rate, n_exc, n_inh)
    finally:
        plugboard.PLAIN.left = old
    fired = plugboard.fire(wiring, s, theta)
    assert found.theta == theta
    assert found.outputs.dtype == np.uint8 and found.outputs.flags.c_contiguous
    assert found.outputs.tolist() == fired.tolist()
    if found.active is not None:
        assert _csr_rows(found.active, n) == [np.flatnonzero(r).tolist() for r in fired]
        assert found.active[1].size == fired.sum()


def test_a_calibrated_machine_primes_its_figures_with_the_outputs_it_found(
        monkeypatch):
    # the calibration's outputs and CSR are the cache's: lookup and active give them
    # without summing the A-units again, as fire() and np.nonzero would
    from markone._figures import letters
    from markone.hardware import MarkI

    images, labels = letters("ABCD", per_class=2, seed=0)
    machine = MarkI(seed=4)
    monkeypatch.setattr(plugboard.PLAIN, "left", 0)   # compiled, as a fleet's are
    machine.train(images, labels, presentations=20)
    settled = machine.retina.settled(machine._images(images))
    fired = plugboard.fire(machine.wiring, settled, machine.theta)
    assert machine._patterns.lookup(settled, machine.theta).tolist() == fired.tolist()
    assert _csr_rows(machine._patterns.active(settled, machine.theta), len(settled)) \
        == [np.flatnonzero(r).tolist() for r in fired]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**63), sizes=st.lists(st.integers(0, 9), min_size=1,
                                                   max_size=6))
def test_a_seeds_own_words_are_the_words_integers_draws(seed, sizes):
    # a wiring's own generator (from a seed) gives its words raw, two per 64-bit
    # output (issue 45): draw after draw, the stream integers() gives, the odd half
    # kept at the end of a draw instead of in the generator
    own, plain = plugboard.as_generator(seed), plugboard.as_generator(seed)
    words = np.concatenate([plugboard._random_words(own, n, own=True) for n in sizes])
    assert words.dtype == np.uint32 and len(words) >= sum(max(n, 1) for n in sizes)
    assert words.tolist() == plugboard._random_words(plain, len(words)).tolist()
