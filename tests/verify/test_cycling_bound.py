"""The cycling theorem's bound (issue 41): ``verify.cycling.cycle_bound`` is the size of
the set of weights reachable in any order, re-checked closed (``is_closed``), and the
Coq theorems of ``verify/coq/Cycling.v`` say what it bounds: ``closed_bounded`` (every
run, in every order, stays in the set) and ``cycling_closed`` (a cyclic run repeats a
pass's starting weights within that many passes). These tests check the claims on
exact runs, the closure check on forged sets, and the command's comparison line."""

import itertools

import numpy as np
import pytest

from markone.cli import build_parser, main
from verify.coq import THEOREMS
from verify.cycling import check_cycling, cycle_bound, integer_yx, is_closed, reachable_states

XOR = (np.array([[-1, -1], [-1, 1], [1, -1], [1, 1]]), np.array([-1, 1, 1, -1]))


def small_problems(count=12):
    """Small non-separable-or-not integer data sets (seeded), XOR in both encodings."""
    rng = np.random.default_rng(41)
    yield XOR
    yield np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), XOR[1]
    for _ in range(count):
        m, d = int(rng.integers(3, 6)), int(rng.integers(1, 3))
        yield rng.integers(-2, 3, size=(m, d)), rng.choice([-1, 1], m)


@pytest.mark.parametrize("k", range(14))
def test_every_cyclic_order_repeats_within_the_bound_and_stays_in_the_set(k):
    X, y = list(small_problems())[k]
    bound = cycle_bound(X, y)
    every = check_cycling(X, y, order="all")
    assert bound == every.states
    for perm in itertools.islice(itertools.permutations(range(len(y))), 6):
        r = check_cycling(X[list(perm)], y[list(perm)])
        assert r.complete
        assert r.transient_epochs + r.period_epochs <= bound          # cycling_closed
        assert r.max_norm_sq <= every.max_norm_sq                     # closed_bounded


def test_the_reachable_set_is_closed_and_every_smaller_one_is_not():
    YX, _ = integer_yx(*XOR)
    S = reachable_states(YX).states
    assert is_closed(YX, S)
    for k in range(1, len(S)):            # each nonzero vector is some vector's update
        assert not is_closed(YX, np.delete(S, k, axis=0))


def test_closure_is_checked_in_python_integers_past_int64():
    YX = np.array([[2**40, 1], [-(2**40), -1]], dtype=object)
    S = np.array([[0, 0], [2**40, 1], [-(2**40), -1]], dtype=object)
    assert is_closed(YX, S) and not is_closed(YX, S[:2])
    assert is_closed(YX * 2**30, S * 2**30) and not is_closed(YX * 2**30, S[:2] * 2**30)


def test_no_bound_when_the_budget_stops_the_search():
    assert cycle_bound(*XOR, budget=14) is None
    assert cycle_bound(*XOR, budget=15) == 15


def test_verify_cycling_compares_the_cycle_with_the_bound(capsys):
    assert main(["verify", "cycling", "xor"]) == 0
    out = capsys.readouterr().out
    assert ("the cycling theorem (Coq: cycling_closed): transient + period = 1 pass "
            "<= 15, the weight vectors reachable from zero in any order") in out
    assert main(["verify", "cycling", "xor", "--bound-states", "10"]) == 0
    assert ("no bound from the cycling theorem: the search of every order stopped at "
            "10 states (raise --bound-states or --timeout)") in capsys.readouterr().out
    assert main(["verify", "cycling", "xor", "--bound-states", "0"]) == 0
    assert "cycling theorem" not in capsys.readouterr().out


def test_the_default_bound_search_stays_small_and_uncompiled():
    """The bound's search is its own budget of states, not the cycle's --budget of
    updates: on 40 rows of 6 small integers the search of every order would reach a
    million states (seconds of numba's compiler, a quarter GB) where the cyclic run is
    done at once. The default stays within the numpy search."""
    from verify.cli._theory import BOUND_STATES
    from verify.cycling import _PLAIN_STATES

    assert 48_562 <= BOUND_STATES <= _PLAIN_STATES        # parity3's set fits
    args = build_parser().parse_args(["verify", "cycling", "xor"])
    assert args.bound_states == BOUND_STATES


def test_the_theorems_back_cycle_bound():
    rows = {t.name: t for t in THEOREMS if t.module == "Cycling"}
    assert rows["cycling_closed"].used_by == "verify.cycling.cycle_bound"
    assert rows["closed_bounded"].used_by == "verify.cycling.cycle_bound"


@pytest.mark.parametrize("YX, states, match", [
    ([[1, 0]], [[0.5, 0]], "states must be a 2-D array of integers"),
    ([[1.0, 0]], [[0, 0]], "YX must be a 2-D array of integers"),
    ([1, 0], [[0, 0]], "YX must be a 2-D array of integers"),
    ([[1, 0]], [[0, 0, 0]], "states has 3 columns and YX 2"),
])
def test_is_closed_refuses_what_it_cannot_check_exactly(YX, states, match):
    with pytest.raises(ValueError, match=match):
        is_closed(YX, states)
