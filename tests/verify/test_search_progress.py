"""Progress bars and budgets of the searches in verify.

* ``progress=True`` writes a tqdm bar to stderr, and every result is identical to
  ``progress=False`` (hypothesis over small integer data); off a terminal the default
  (``progress=None``) prints nothing.
* every search stops at its budget or ``timeout_s`` and says so (``complete=False``,
  ``stopped_by``, the parameter named in the message), and what it reports then is
  still true (the states found are reachable, the stream re-runs).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import markone
import verify
import verify.bounds
import verify.cycling
from markone.datasets import xor
from verify import check_cycling, check_separable, worst_order
from verify.adversary import run_order


def parity3(encoding="01"):
    """The 3-bit parity problem (not separable; 0/1 or -1/+1 inputs)."""
    P = np.array(list(itertools.product([0, 1], repeat=3)))
    y = np.where(P.sum(axis=1) % 2 == 1, 1, -1)
    return (P if encoding == "01" else 2 * P - 1), y


def small_data(max_n=6, d=2, k=3):
    """Small integer data sets with two labels (separable or not)."""
    return st.integers(2, max_n).flatmap(lambda n: st.tuples(
        st.lists(st.lists(st.integers(-k, k), min_size=d, max_size=d), min_size=n,
                 max_size=n),
        st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n)))


def run(func, *args, **kw):
    """``(result, what func wrote to stderr)``."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        result = func(*args, **kw)
    return result, err.getvalue()


def same_verdict(a, b):
    fields = [f.name for f in dataclasses.fields(a) if f.name != "time_s"]
    return all(getattr(a, f) == getattr(b, f) for f in fields)


def same_order(a, b):
    return (a.order, a.mistakes, a.complete, a.explored, a.stopped_by, a.message) == (
        b.order, b.mistakes, b.complete, b.explored, b.stopped_by, b.message) and \
        np.array_equal(a.w, b.w)


# ---- progress: shown when asked, never changing a result -----------------------------

@settings(max_examples=15, deadline=None)
@given(small_data())
def test_check_separable_progress_changes_nothing(data):
    X, y = data
    on, shown = run(check_separable, X, y, progress=True)
    off, quiet = run(check_separable, X, y, progress=False)
    assert same_verdict(on, off)
    assert quiet == ""
    assert "check_separable" in shown
    if on.method in ("perceptron", "lp", "lp+z3"):  # the stage at work is named
        assert "perceptron" in shown or "LP" in shown


def test_check_separable_progress_names_the_lp_rounds():
    X, y = xor()
    v, shown = run(check_separable, X, y, progress=True)
    assert v.separable is False and "LP" in shown


@settings(max_examples=15, deadline=None)
@given(small_data(), st.sampled_from(["cyclic", "all"]),
       st.sampled_from(["nonstrict", "strict"]))
def test_check_cycling_progress_changes_nothing(data, order, rule):
    X, y = data
    kw = dict(order=order, rule=rule, budget=5000)
    on, shown = run(check_cycling, X, y, progress=True, **kw)
    off, quiet = run(check_cycling, X, y, progress=False, **kw)
    assert on == off and quiet == ""
    assert "check_cycling" in shown


@pytest.mark.parametrize("scale", [2**40, 2**70])  # beyond the compiled search's keys
def test_general_reachable_search_progress_changes_nothing(scale):
    X, y = parity3("pm1")
    big = [[int(v) * scale for v in row] for row in X]
    kw = dict(order="all", intercept_scale=scale)  # every coordinate scaled alike
    on, shown = run(check_cycling, big, y, progress=True, **kw)
    off, quiet = run(check_cycling, big, y, progress=False, **kw)
    small = check_cycling(X, y, order="all")
    assert on == off and quiet == "" and "check_cycling: reachable states" in shown
    assert (on.states, on.complete) == (small.states, True)  # the same graph, scaled
    cut = check_cycling(big, y, budget=20, **kw)
    assert (cut.complete, cut.stopped_by) == (False, "budget") and cut.states == 20


@settings(max_examples=15, deadline=None)
@given(small_data(max_n=5), st.sampled_from(["exhaustive", "greedy"]))
def test_worst_order_progress_changes_nothing(data, method):
    X, y = data
    off, quiet = None, ""
    try:
        off, quiet = run(worst_order, X, y, method=method, progress=False,
                         budget=20_000)
    except ValueError as exc:  # a cycle: not separable; the same with a bar
        with pytest.raises(ValueError, match=str(exc)[:40]):
            run(worst_order, X, y, method=method, progress=True, budget=20_000)
        return
    on, shown = run(worst_order, X, y, method=method, progress=True, budget=20_000)
    assert same_order(on, off) and quiet == ""
    assert f"worst_order {method}" in shown


def test_worst_order_z3_progress_changes_nothing():
    X, y = [[1, 0], [0, 1], [1, 1], [2, -1]], [1, 1, 1, -1]
    on, shown = run(worst_order, X, y, intercept=False, method="z3", progress=True)
    off, quiet = run(worst_order, X, y, intercept=False, method="z3", progress=False)
    assert quiet == "" and "worst_order z3" in shown
    # which of several longest streams Z3's model gives depends on the solver's state
    # in this process (not on the bar); everything else is the same
    keep = ("mistakes", "complete", "explored", "stopped_by", "message", "bound")
    assert [getattr(on, k) for k in keep] == [getattr(off, k) for k in keep]
    for a in (on, off):
        assert run_order(X, y, a.order, intercept=False).mistakes == a.mistakes


def test_small_margin_lattice_progress_changes_nothing():
    from verify.adversary import small_margin_lattice

    (Xa, ya), shown = run(small_margin_lattice, 6, 2, 3, draws=20, seed=1, progress=True)
    (Xb, yb), quiet = run(small_margin_lattice, 6, 2, 3, draws=20, seed=1,
                          progress=False)
    assert np.array_equal(Xa, Xb) and np.array_equal(ya, yb)
    assert quiet == "" and "small_margin_lattice: draws" in shown and "20/20" in shown


def test_check_machine_progress_counts_r_units():
    from markone.hardware import MarkI, MarkIParams
    from verify.machine import check_machine

    p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                    max_fanout=1, theta=1, n_r_units=2, weight_range=(-1, 1))
    figures, labels = np.array([[1, 0], [0, 1]]), ["a", "b"]
    on, shown = run(check_machine, MarkI(p, seed=0), figures, labels, progress=True)
    off, quiet = run(check_machine, MarkI(p, seed=0), figures, labels, progress=False)
    assert on.to_dict() | {"time_s": 0} == off.to_dict() | {"time_s": 0}
    assert quiet == "" and "check_machine: R-units" in shown and "2/2" in shown


def test_default_progress_is_silent_off_a_terminal():
    X, y = parity3("01")
    for call in (lambda: check_separable(X, y), lambda: check_cycling(X, y),
                 lambda: check_cycling(X, y, order="all"),
                 lambda: worst_order([[2, 1], [1, 2], [-1, -1]], [1, 1, -1],
                                     method="exhaustive")):
        assert run(call)[1] == ""


# ---- budgets and time limits: hit, reported, and still true --------------------------

def test_cycling_all_budget_is_reported_and_its_states_are_reachable():
    X, y = parity3("01")
    full = verify.cycling.reachable_states(verify.cycling.integer_yx(X, y)[0])
    r = check_cycling(X, y, order="all", budget=50)
    assert (r.complete, r.stopped_by) == (False, "budget")
    assert "budget=50 states" in r.message and "raise budget" in r.message
    part = verify.cycling.reachable_states(verify.cycling.integer_yx(X, y)[0], budget=50)
    known = {tuple(s) for s in full.states.tolist()}
    assert {tuple(s) for s in part.states.tolist()} <= known and len(known) > 50
    assert check_cycling(X, y, order="all").stopped_by == ""


def test_cycling_timeout_is_reported(monkeypatch):
    # one vector per compiled call: the clock is looked at after every expansion
    monkeypatch.setattr(verify.cycling, "_CHUNK", 1)
    X, y = parity3("01")
    r = check_cycling(X, y, order="all", timeout_s=1e-9)
    assert (r.complete, r.stopped_by) == (False, "timeout")
    assert "timeout_s=1e-09 s" in r.message and r.states < check_cycling(
        X, y, order="all").states


def test_cyclic_budget_and_timeout_are_reported():
    X, y = parity3("01")
    c = check_cycling(X, y, budget=2)
    assert (c.complete, c.stopped_by, c.period_updates) == (False, "budget", None)
    assert "budget=2 updates" in c.message
    # 5000 points in a long cyclic run: the clock is read every 4096 presentations
    rng = np.random.default_rng(1)
    Xb = rng.integers(-50, 51, (5000, 3))
    yb = rng.choice([-1, 1], 5000)
    t = check_cycling(Xb, yb, timeout_s=1e-9)
    assert (t.complete, t.stopped_by) == (False, "timeout") and t.states > 1


def test_worst_order_budgets_are_reported():
    X, y = [[1, 0], [0, 1], [1, 1], [2, -1]], [1, 1, 1, -1]
    full = worst_order(X, y, intercept=False, method="exhaustive")
    assert full.complete and full.stopped_by == ""
    for method, budget in (("exhaustive", 5), ("z3", 3), ("greedy", 3)):
        a = worst_order(X, y, intercept=False, method=method, budget=budget)
        assert (a.complete, a.stopped_by) == (False, "budget"), method
        assert f"budget={budget}" in a.message and a.mistakes <= full.mistakes
        # what it reports is true: the stream is a stream of mistakes of the core
        assert run_order(X, y, a.order, intercept=False).mistakes == a.mistakes


def test_worst_order_timeouts_are_reported(monkeypatch):
    monkeypatch.setattr(verify.cycling, "_CHUNK", 1)
    X, y = [[1, 0], [0, 1], [1, 1], [2, -1]], [1, 1, 1, -1]
    e = worst_order(X, y, intercept=False, method="exhaustive", timeout_s=1e-9)
    assert (e.complete, e.stopped_by) == (False, "timeout")
    assert "timeout_s=1e-09 s" in e.message
    X3 = np.random.default_rng(0).integers(-3, 4, (20, 3))
    y3 = np.where(X3 @ [1, 2, -1] + 0.5 > 0, 1, -1)
    z = worst_order(X3, y3, method="z3", timeout_s=0.2, budget=1000)
    assert (z.complete, z.stopped_by) == (False, "timeout") and z.mistakes <= z.bound
    # greedy looks at the clock every 256 updates: 300 orthonormal points need 300
    Xo, yo = markone.datasets.orthonormal(300)
    g = worst_order(Xo, yo, intercept=False, method="greedy", timeout_s=1e-9)
    assert (g.stopped_by, g.mistakes) == ("timeout", 256)


def test_multiclass_bound_budget_is_reported():
    X = [[0, 3], [3, 0], [-3, -3], [1, 4], [4, 1]]
    y = ["a", "b", "c", "a", "b"]
    assert verify.check_multiclass_bound(X, y).converged  # two passes are needed
    r = verify.check_multiclass_bound(X, y, max_epochs=1)
    assert r.held and not r.converged and r.stopped_by == "budget"
    r = verify.check_mistake_bound([[1.0, 0.0], [1.0, 1e-9]], [1, 0], max_epochs=3)
    assert r.held and not r.converged and r.stopped_by == "budget"
    assert verify.check_multiclass_bound(X, y).stopped_by == ""


def test_check_machine_time_budget_never_changes_a_decided_claim():
    from markone.datasets import letters
    from markone.hardware import MarkI, MarkIParams
    from verify.machine import check_machine

    images, labels = letters("AB", per_class=2, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-3, 3)), seed=0)
    full = check_machine(machine, images, labels)
    cut = check_machine(machine, images, labels, timeout_s=1e-6)
    assert cut.stopped_by in ("", "timeout") and full.stopped_by == ""
    with pytest.raises(TypeError, match="time_budget_s"):   # gone before 1.0 (#40)
        check_machine(machine, images, labels, time_budget_s=1e-6)
    for a, b in zip(full.r_units, cut.r_units):
        for name in ("learnable", "end_stops", "converges"):
            held = getattr(b, name).holds
            assert held is None or held == getattr(a, name).holds


def test_check_machine_z3_after_the_deadline_is_undecided():
    import time

    from verify.machine.theory._stop_searches import z3_hit
    from verify.machine.task import Reduced, Units

    X = np.array([[1, 0], [0, 1], [1, 1]])
    y = np.array([1, -1, 1])
    units = Units(1, (-1, 1))
    red = Reduced(X, y, units)
    assert z3_hit(red, units, 4) not in ("budget", "timeout")  # decided without one
    assert z3_hit(red, units, 4, deadline=time.perf_counter() - 1) == "timeout"


def test_check_machine_names_its_own_time_limit():
    from markone.cli import cli_terms
    from verify.machine.claims._learnable import learnable_claim

    cut = check_separable(*xor(), method="z3", timeout_s=1e-9)
    assert (cut.separable, cut.method) == (None, "timeout")
    claim = learnable_claim(cut, [0, 1])
    assert claim.holds is None and "timeout_s" in claim.message
    assert "within --timeout" in cli_terms(claim.message)


def test_cli_names_the_budget_flag(tmp_path):
    from markone.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["verify", "cycling", "parity3", "--encoding", "01", "--order", "all",
                     "--budget", "50"]) == 4
    assert "--budget 50 states" in out.getvalue() and "raise --budget" in out.getvalue()
    data = tmp_path / "small.csv"
    data.write_text("x1,x2,y\n1,0,1\n0,1,1\n1,1,1\n2,-1,-1\n")
    case = tmp_path / "case.json"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["adversary", "z3", str(data), "--no-intercept", "--budget", "2",
                     "--timeout", "30", "--out", str(case)]) == 4  # cut short: not decided
    assert "--budget 2 mistakes" in out.getvalue() and case.exists()  # what was found


def test_cli_search_is_quiet_off_a_terminal(capsys):
    from markone.cli import main

    assert main(["verify", "cycling", "parity3", "--encoding", "01", "--order", "all"]) == 0
    out = capsys.readouterr()
    assert out.err == "" and "weight vectors reachable" in out.out


def _on_a_terminal(argv):
    """Run ``python -m markone argv`` with a pseudo-terminal as stdout and stderr;
    return (exit status, everything the terminal showed)."""
    import sys

    from _terminal import on_a_terminal

    return on_a_terminal([sys.executable, "-m", "markone", *argv])


@pytest.mark.slow
def test_cli_search_shows_a_bar_on_a_terminal_and_the_same_answer(tmp_path, capsys):
    from markone.cli import main

    rng = np.random.default_rng(0)   # 12 points in 3-D: over a million reachable states
    X = rng.integers(-3, 4, (12, 3))
    y = rng.choice([-1, 1], 12)
    data = tmp_path / "c12.csv"
    np.savetxt(data, np.c_[X, y], fmt="%d", delimiter=",")
    argv = ["verify", "cycling", str(data), "--order", "all", "--budget", "1000000"]
    status, shown = _on_a_terminal(argv)
    assert main(argv) == status == 4            # the budget stopped it (not decided), both times
    quiet = capsys.readouterr()
    assert quiet.err == ""
    assert "check_cycling: reachable states" in shown
    assert quiet.out.strip().splitlines()[-1] in shown.replace("\r\n", "\n")


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal (what the bars decide by)."""

    def isatty(self):
        return True


def _bound_stopped_after(monkeypatch, tmp_path, stderr, runs_done=3):
    """``markone verify bound --runs 100000000`` with ``stderr``, stopped by a Ctrl-C
    after ``runs_done`` runs (as a user would); returns (status, what stderr got)."""
    import verify.bounds
    from markone._internal import progress
    from markone.cli import main

    monkeypatch.setattr(progress, "SEARCH_DELAY_S", 0.0)  # the bar's delay: not waited
    train, done = verify.bounds._train, []

    def counted_train(*args, **kw):
        if len(done) == runs_done:
            raise KeyboardInterrupt
        done.append(1)
        return train(*args, **kw)

    monkeypatch.setattr(verify.bounds, "_train", counted_train)
    data = tmp_path / "d.csv"
    data.write_text("1,2,1\n2,1,1\n-1,-2,-1\n-2,-1,-1\n")
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        status = main(["verify", "bound", str(data), "--order", "shuffle", "--runs",
                       "100000000", "--seed", "1"])
    return status, stderr.getvalue()


def test_verify_bound_shows_its_runs_on_a_terminal(monkeypatch, tmp_path):
    # --runs 100000000 ran for hours with nothing on the terminal, the first minutes
    # drawing all its seeds before the first run (#37)
    status, shown = _bound_stopped_after(monkeypatch, tmp_path, _Terminal())
    assert status == 130, shown
    assert "check_mistake_bound: runs" in shown and "/100000000" in shown, shown


def test_verify_bound_is_quiet_off_a_terminal(monkeypatch, tmp_path):
    status, said = _bound_stopped_after(monkeypatch, tmp_path, io.StringIO())
    assert status == 130
    assert said.startswith("markone verify bound: interrupted (Ctrl-C)"), said


def test_check_mistake_bound_progress_changes_nothing():
    X, y = markone.datasets.orthonormal(5, labels=[1, -1, 1, -1, 1])
    X = np.c_[X, 2 * X[:, :1]]
    on, shown = run(verify.bounds.check_mistake_bound, X, y, order="shuffle", runs=30,
                    seed=4, progress=True)
    off, quiet = run(verify.bounds.check_mistake_bound, X, y, order="shuffle", runs=30,
                     seed=4, progress=False)
    assert on == off and quiet == ""
    assert "check_mistake_bound: runs" in shown and "30/30" in shown


def _orthonormal_shown(tmp_path, stderr, m=3):
    """What ``markone adversary orthonormal --m m`` shows on ``stderr``, and its case
    file's text."""
    from markone.cli import main

    case = tmp_path / "o.json"
    argv = ["adversary", "orthonormal", "--m", str(m), "--out", str(case)]
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0
    return stderr.getvalue(), case.read_text()


def test_adversary_orthonormal_shows_a_bar_of_its_rows_on_a_terminal(tmp_path):
    # --m 4000 ran about 30 s with nothing on the terminal, then a line that counted
    # the numbers to write where the other long commands show a percentage (#37)
    shown, _ = _orthonormal_shown(tmp_path, _Terminal(), m=40)
    assert "adversary orthonormal:   0%|" in shown, shown
    assert "adversary orthonormal: 100%|" in shown and "40/40" in shown, shown


def test_adversary_orthonormal_is_quiet_off_a_terminal_and_writes_the_same_case(
        tmp_path):
    from markone._internal.io import write_json
    from verify.adversary import orthonormal_case
    from verify.cli.adversary import case_document

    shown, text = _orthonormal_shown(tmp_path, io.StringIO())
    assert shown == ""
    whole = write_json(tmp_path / "whole.json",
                       case_document(orthonormal_case(3), "orthonormal"))
    assert text == whole.read_text()
