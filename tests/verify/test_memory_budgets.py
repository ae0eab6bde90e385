"""Budgets before work: memory estimated before it is allocated, refused past a limit.

``check_cycling(order="all")`` kept whole breadth-first levels in memory and looked at
its state budget only between levels: 4.1 GB and 14 times its budget at 100 x 50, an
attempt to allocate 196 GiB at 800 x 400. Its budget is now honoured exactly and
bounds its memory; a budget whose states could not fit is refused up front.
"""

import tracemalloc

import numpy as np
import pytest

from markone.cli import main
from verify._memory import MemoryLimitError
from verify.cycling import check_cycling, integer_yx, search_bytes


def random_data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(-2, 3, size=(n, d)), rng.choice([-1, 1], size=n)


def test_the_state_budget_is_honoured_exactly_and_bounds_memory():
    """100 x 50 (the general search: too wide to pack into one int64): exactly the
    budget's states, within the estimate that was checked before the search."""
    X, y = random_data(100, 50)
    YX, _ = integer_yx(X, y)
    tracemalloc.start()
    try:
        r = check_cycling(X, y, order="all", budget=3000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (r.states, r.complete, r.stopped_by) == (3000, False, "budget")
    assert peak <= search_bytes(YX, 3000)


@pytest.mark.parametrize("budget", [1, 2, 7, 15])
def test_every_budget_gives_exactly_that_many_states(budget):
    """XOR has 15 reachable vectors: any smaller budget stops at exactly its size,
    in the compiled search as in the general one (Python ints), in the same order."""
    X, y = np.array([[-1, -1], [-1, 1], [1, -1], [1, 1]]), np.array([-1, 1, 1, -1])
    r = check_cycling(X, y, order="all", budget=budget)
    big = check_cycling(X.astype(object) * 2**70, y, intercept_scale=2**70, order="all",
                        budget=budget)
    assert r.states == big.states == budget and r.complete == big.complete == (budget == 15)
    assert big.max_norm_sq == r.max_norm_sq * 2**140


def test_a_budget_that_cannot_fit_is_refused_before_the_search():
    """800 x 400 with the default budget: 10 GB of states, refused at once (little
    memory used), naming the limit and what to change."""
    X, y = random_data(800, 400)
    tracemalloc.start()
    try:
        with pytest.raises(MemoryLimitError, match=r"would need about 10 GB of memory, "
                           r"more than max_memory_gb=4 allows; lower budget, or raise "
                           r"max_memory_gb"):
            check_cycling(X, y, order="all")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50e6
    with pytest.raises(MemoryLimitError, match="max_memory_gb=0.001"):
        check_cycling(X[:4, :2], y[:4], order="all", max_memory_gb=0.001)
    with pytest.raises(ValueError, match="max_memory_gb"):
        check_cycling(X[:4, :2], y[:4], order="all", max_memory_gb=0)


def test_the_command_refuses_with_exit_2(capsys):
    assert main(["verify", "cycling", "xor", "--order", "all",
                 "--budget", "10000000"]) == 2
    err = capsys.readouterr().err
    assert "more than --max-memory 4 allows; lower --budget, or raise --max-memory" in err
    assert main(["verify", "cycling", "xor", "--order", "all", "--budget", "10000000",
                 "--max-memory", "8"]) == 0
