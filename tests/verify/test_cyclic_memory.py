"""The cyclic search's memory: counted as it is kept, stopped at ``max_memory_gb``.

``check_cycling(order="cyclic")`` keeps every state on its trajectory (to find the one
that comes back) and the core re-runs every presentation; only its budget of updates
limited it, so a long cycle of wide rows, of huge numbers or over many rows could grow
without bound (a 200 x 21 run at the default budget kept about 10 GB). The states and
presentations are now counted (:func:`verify.cycling.cyclic_bytes`) and the search
stops, ``stopped_by="memory"``, before one more state would take them past the limit.
Each test uses a small limit on a case that the budget alone lets run on.
"""

import tracemalloc

import numpy as np
import pytest

import markone.engine as core
from markone.cli import main
from verify.cycling import check_cycling, cyclic_bytes


def long_cycle(n=200, d=21, scale=1):
    """Random rows (no cycle within 3,000 updates), times ``scale``."""
    rng = np.random.default_rng(0)
    X, y = rng.integers(-1000, 1000, size=(n, d)), rng.choice([-1, 1], n)
    return (X if scale == 1 else X.astype(object) * scale), y


def many_rows(n=5000):
    """A long easy stream with one contradiction ((1, 0, 0) with both labels): a few
    updates a pass, so the presentations are what grows (at 100 rows: a period of
    170 updates in 164 passes after 1,612 updates; at 5,000: 3,205 states in
    15,335,000 presentations)."""
    rng = np.random.default_rng(1)
    X = rng.integers(-50, 51, size=(n, 3))
    X[:, 0] = np.abs(X[:, 0]) + 20
    X[-2:] = [1, 0, 0]
    y = np.ones(n, int)
    y[-1] = -1
    return X, y


@pytest.fixture
def rerun(monkeypatch):
    """The length of each stream the core re-runs."""
    lengths, real = [], core.train

    def spy(*a, **kw):
        lengths.append(len(kw["order"]))
        return real(*a, **kw)

    monkeypatch.setattr(core, "train", spy)
    return lengths


def _bits(report):
    return max(abs(v).bit_length() for v in report.max_norm_state)


@pytest.mark.parametrize("scale", [1, 2**70, 2**3000], ids=["int64", "2^70", "2^3000"])
def test_a_long_cycle_stops_at_the_memory_limit(scale, rerun):
    X, y = long_cycle(scale=scale)
    free = check_cycling(X, y, budget=400, intercept=False)
    assert (free.states, free.stopped_by) == (401, "budget")   # it would keep going
    r = check_cycling(X, y, budget=400, intercept=False, max_memory_gb=0.001)
    assert (r.complete, r.stopped_by, r.cycle, r.transient) == (False, "memory", (), None)
    assert 1 < r.states < free.states
    assert r.message == (f"no cycle found in {r.states - 1} updates: the memory limit "
                         "(max_memory_gb=0.001) stopped the search; raise max_memory_gb "
                         "to search further")
    # stopped at the first state after which one more (and up to a pass) might not fit
    kept = cyclic_bytes(21, r.states, rerun[-1], _bits(r))
    assert kept <= 0.001e9 < cyclic_bytes(21, r.states + 1, rerun[-1] + 200, _bits(r))
    more = check_cycling(X, y, budget=400, intercept=False, max_memory_gb=0.002)
    assert r.states < more.states


def test_huge_numbers_cost_more_and_stop_sooner():
    X, y = long_cycle()
    small = check_cycling(X, y, budget=3000, intercept=False, max_memory_gb=0.005)
    huge = check_cycling(X.astype(object) * 2**3000, y, intercept_scale=2**3000,
                         budget=3000, intercept=False, max_memory_gb=0.005)
    assert small.stopped_by == huge.stopped_by == "memory"
    assert 5 * huge.states < small.states


def test_many_rows_stop_on_their_presentations(rerun):
    """Five updates in 75,000 presentations: the stream re-run, not the states,
    is what reaches the limit."""
    X, y = many_rows()
    r = check_cycling(X, y, budget=10**6, intercept=False, max_memory_gb=0.005)
    assert (r.stopped_by, r.complete) == ("memory", False)
    assert cyclic_bytes(3, r.states, 0) < 0.0002e9
    assert cyclic_bytes(3, r.states, rerun[-1]) <= 0.005e9


def test_the_limit_changes_no_answer_it_lets_finish():
    """XOR and a 170-update cycle over 100 rows: the same report with the default
    limit as with a limit too large to matter."""
    for X, y in (many_rows(100), ([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1])):
        a = check_cycling(X, y, intercept=False)
        b = check_cycling(X, y, intercept=False, max_memory_gb=10**6)
        assert a == b and a.complete and a.stopped_by == ""
    assert b.cycle == ((0, 0), (0, 0), (0, 1), (1, 1))


CASES = {"int64": (long_cycle(), 800), "Python ints": (long_cycle(scale=2**1000), 500),
         "many rows": (many_rows(2000), 20)}


@pytest.mark.parametrize("case", CASES)
def test_what_is_kept_stays_within_the_count(case, rerun):
    """tracemalloc's peak beyond the data (the same call with a budget of one update)
    is within :func:`cyclic_bytes` of the states and presentations kept."""
    (X, y), budget = CASES[case]

    def peak(budget):
        check_cycling(X, y, budget=budget, intercept=False)   # compiled, cached
        tracemalloc.start()
        try:
            r = check_cycling(X, y, budget=budget, intercept=False)
            return r, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    _, base = peak(1)
    r, top = peak(budget)
    assert top - base <= cyclic_bytes(X.shape[1], r.states, rerun[-1], _bits(r))


def test_the_command_stops_with_exit_4_and_names_the_flag(tmp_path, capsys):
    X, y = long_cycle(d=5)
    path = tmp_path / "long.csv"
    np.savetxt(path, np.column_stack([X, y]), fmt="%d", delimiter=",")
    assert main(["verify", "cycling", str(path), "--no-intercept",
                 "--max-memory", "0.001"]) == 4
    out = capsys.readouterr().out
    assert "the memory limit (--max-memory 0.001) stopped the search; raise " \
           "--max-memory to search further" in out


def test_the_help_says_what_the_limit_does(capsys):
    with pytest.raises(SystemExit):
        main(["verify", "cycling", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "cyclic: the states kept (their digits counted) and the presentations " \
           "run again are counted as the search goes" in text
    assert "4 --budget, --timeout or --max-memory stopped the search" in text


def test_a_limit_below_one_state_stops_after_the_first_update():
    r = check_cycling([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1],
                      max_memory_gb=1e-12)
    assert (r.states, r.stopped_by, r.complete) == (2, "memory", False)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), True, "1"])
def test_a_bad_limit_is_refused_before_the_search(bad):
    with pytest.raises((ValueError, TypeError), match="max_memory_gb"):
        check_cycling([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1],
                      max_memory_gb=bad)


def test_huge_entries_through_the_intercept_scale_alone():
    """A constant of 2^5000 and small features: the trajectory's entries are 5,000 bits
    wide from the first update on, and counted so."""
    X, y = long_cycle(d=3)
    small = check_cycling(X, y, budget=400, max_memory_gb=0.001)
    big = check_cycling(X, y, budget=400, intercept_scale=2**5000, max_memory_gb=0.001)
    assert big.stopped_by == "memory" and big.states < small.states
