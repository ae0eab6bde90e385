"""Budgets before work: memory estimated before it is allocated, refused past a limit.

``check_cycling(order="all")`` kept whole breadth-first levels in memory and looked at
its state budget only between levels: 4.1 GB and 14 times its budget at 100 x 50, an
attempt to allocate 196 GiB at 800 x 400. Its budget is now honoured exactly and
bounds its memory; a budget whose states could not fit is refused up front.
``check_separable`` on 3 x 10^8 sparse columns with 3 stored entries took 175 s and
5.4 GB before a bare ``MemoryError``: it now works on the stored columns and checks the
size of the one thing as wide as the data, the witness, before making it.
"""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from markone.cli import main
from verify import check_separable
from verify.errors import MemoryLimitError
from verify.certificate import check_certificate
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


# ---- wide sparse data: work in the stored entries, the witness checked before it is made


def wide(d, rows=((5, 1.0), (None, 2.0), (5, -1.0))):
    """Three rows of a d-column CSR matrix, one stored entry each (None: the last
    column)."""
    cols = [d - 1 if c is None else c for c, _ in rows]
    return sp.csr_matrix(([v for _, v in rows], (range(len(rows)), cols)), shape=(3, d))


def test_wide_sparse_data_are_decided_on_their_stored_columns():
    """10^6 columns, 3 stored entries: the verdict in O(stored entries), the witness
    (the one thing as wide as the data) with a 0 in every empty column."""
    d = 10**6
    X = wide(d)
    tracemalloc.start()
    try:
        v = check_separable(X, [1, -1, -1])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert v.separable and len(v.witness) == d + 1
    assert {j for j, w in enumerate(v.witness) if w} <= {5, d - 1, d}
    assert peak < 16 * d + 20e6    # the witness, and little else
    assert check_certificate(X, [1, -1, -1], v)
    not_sep = check_separable(wide(d, ((5, 1.0), (5, 2.0), (7, 1.0))), [1, -1, 1],
                              intercept=False)
    assert not_sep.separable is False and not_sep.certificate == {0: 2, 1: 1}


def test_a_witness_wider_than_the_memory_limit_is_refused():
    """3 x 10^8 columns, 3 stored entries (took 175 s and 5.4 GB, then a bare
    MemoryError): decided at once, and the 4.8 GB witness refused by name."""
    tracemalloc.start()
    try:
        with pytest.raises(MemoryLimitError, match=r"the witness of these separable data "
                           r"\(300000001 entries, one per column; 3 columns store an "
                           r"entry\) would need about 4.8 GB of memory, more than "
                           r"max_memory_gb=4 allows; drop the empty columns"):
            check_separable(wide(3 * 10**8), [1, -1, -1])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50e6
    with pytest.raises(MemoryLimitError, match="max_memory_gb=0.01"):
        check_separable(wide(10**6), [1, -1, -1], max_memory_gb=0.01)


@pytest.mark.parametrize("seed", range(6))
def test_dropping_empty_columns_changes_no_verdict(seed):
    rng = np.random.default_rng(seed)
    X = sp.random(6, 40, density=0.05, random_state=seed, format="csr",
                  data_rvs=lambda k: rng.integers(-3, 4, k).astype(float))
    y = rng.choice([-1, 1], size=6)
    for intercept in (True, False):
        v = check_separable(X, y, intercept=intercept)
        assert v.separable == check_separable(X.toarray(), y, intercept=intercept,
                                              method="z3").separable
        assert check_certificate(X, y, v)


def test_the_exhaustive_worst_order_is_refused_by_the_same_limit(capsys, tmp_path):
    from verify import worst_order

    X, y = [[2, 1], [1, 2], [-1, -1]], [1, 1, -1]
    with pytest.raises(MemoryLimitError, match="max_memory_gb=0.01"):
        worst_order(X, y, method="exhaustive", max_memory_gb=0.01)
    assert worst_order(X, y, method="exhaustive", budget=3).explored == 3
    out = tmp_path / "case.json"
    assert main(["adversary", "exhaustive", "parity3", "--max-memory", "0.01",
                 "--out", str(out)]) == 2
    assert "raise --max-memory" in capsys.readouterr().err and not out.exists()
