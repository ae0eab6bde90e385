"""Same input, same answer: no verdict depends on how busy the machine is (issue 24).

Every search and prover is limited by work (states, passes, LP iterations, SMT
resource units), the clock only when ``timeout_s`` is given. So:

* each runs its documented tasks twice, once with the real clock and once with a
  clock that runs 1,000 times faster (what a machine 1,000 times busier would show
  it), and the two reports must be equal apart from elapsed-time fields;
* a given ``timeout_s`` still stops each one that takes it: under a clock that jumps
  1,000 s at every reading, a search stops at its first look at the clock, and says
  so (``stopped_by="timeout"``), without anything sleeping.

The checks patch ``time.perf_counter``, ``time.monotonic`` and ``time.time``: the
solvers' own clocks (Z3's, cvc5's, HiGHS') are not patched, which is why no default
may hand them a time limit either.
"""

import dataclasses
import io
import itertools
import json
import re
import string
import sys
import time
import tokenize
from pathlib import Path

import numpy as np
import pytest

import markone
from markone.cli import main
from markone.datasets import letters
from markone.hardware import MarkI, MarkIParams
from markone.hardware.faults import random_faults
from verify import (check_cycling, check_machine, check_mistake_bound, check_separable,
                    max_margin, worst_order)
from verify.machine import minimal_faults
from verify.proofs import check_all, prove
from verify.smt import Real, Session

CLOCKS = ("perf_counter", "monotonic", "time")
#: Fields that time the work rather than describe its result.
ELAPSED = {"time_s"}


def set_clock(monkeypatch, reading):
    """Replace the three clocks by ``reading(real_value)``."""
    for name in CLOCKS:
        real = getattr(time, name)
        monkeypatch.setattr(time, name, lambda real=real: reading(real()))


def faster(real):
    return real * 1000.0


def jumping():
    """A clock 1,000 s further on at every reading."""
    ticks = itertools.count()
    return lambda real: real + 1000.0 * next(ticks)


def plain(x):
    """``x`` as comparable plain data, without elapsed times."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: plain(getattr(x, f.name)) for f in dataclasses.fields(x)
                if f.compare and f.name not in ELAPSED}
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items() if k not in ELAPSED}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return plain(x.tolist())
    if isinstance(x, (float, np.floating)):
        return repr(float(x))   # nan equals nan here
    if isinstance(x, np.integer):
        return int(x)
    return x


AND = ([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1])
XOR = ([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 0])
TRIANGLE = ([[2, 1], [1, 2], [-1, -1]], [1, 1, -1])


def noisy_halfspace():
    """Not separable, and no cheap prover sees it: the LP (HiGHS) decides."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    y[:5] *= -1
    return X, y


def session_answer():
    x, y = Real("x"), Real("y")
    s = Session("QF_NRA", solver="cvc5")
    s.add(x * y > 2, x < 2, x > 1)
    return s.check(), s.stopped_by


def ball_task():
    """Two letters, stops at +/-3: the end stops are decided by 40 weights refined by
    their own ball (a refinement that a 0.5 s clock limit used to cut short)."""
    images, labels = letters("EV", per_class=3, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-3, 3), n_a_units=64, n_r_units=1), seed=0)
    return machine, images, labels


def machine_report(machine, images, labels, **kw):
    return check_machine(machine, images, labels, **kw).to_dict()


def cut_wires():
    images, labels = letters("ABCD", per_class=3, seed=0)
    machine = MarkI(seed=0)
    return machine, images, labels, random_faults(machine, cut_wires=0.9, seed=1)


def tiny_faults():
    from markone.hardware.faults import AUnitStuck, FaultPlan, NoisySum, apply_faults

    p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
                    max_fanout=1, theta=1, n_r_units=1)
    machine = MarkI(p, seed=0)
    apply_faults(machine, FaultPlan((NoisySum(0.5), AUnitStuck(0, value=0),
                                     AUnitStuck(0, value=0, at_s=3.0))))
    return machine, np.array([[1, 0], [0, 1]]), ["a", "b"]


def adversary_case(method, tmp_path, capsys):
    data = tmp_path / "triangle.csv"
    data.write_text("x1,x2,y\n2,1,1\n1,2,1\n-1,-1,-1\n")
    out = tmp_path / f"{method}.json"
    status = main(["adversary", method, str(data), "--out", str(out)])
    return status, capsys.readouterr().out, json.loads(out.read_text())


def lattice_case(tmp_path, capsys):
    out = tmp_path / "lattice.json"
    status = main(["adversary", "lattice", "--n", "6", "--d", "2", "--k", "3",
                   "--draws", "20", "--seed", "0", "--out", str(out)])
    return status, capsys.readouterr().out, json.loads(out.read_text())


#: name -> the documented task, run by a function of (tmp_path, capsys).
TASKS = {
    "check_separable AND": lambda *_: check_separable(*AND),
    "check_separable XOR": lambda *_: check_separable(*XOR),
    "check_separable XOR cvc5": lambda *_: check_separable(*XOR, method="z3",
                                                          solver="cvc5"),
    "check_separable LP": lambda *_: check_separable(*noisy_halfspace()),
    "max_margin AND": lambda *_: max_margin(AND[0], [-1, -1, -1, 1]),
    "max_margin XOR": lambda *_: max_margin(*XOR),
    "worst_order greedy": lambda *_: worst_order(*TRIANGLE, method="greedy"),
    "worst_order exhaustive": lambda *_: worst_order(*TRIANGLE, method="exhaustive"),
    "worst_order z3": lambda *_: worst_order(*TRIANGLE, method="z3"),
    "check_cycling XOR": lambda *_: check_cycling(*XOR),
    "check_cycling parity3 all": lambda *_: check_cycling(
        *markone.datasets.parity(3, encoding="01"), order="all"),
    "check_mistake_bound AND": lambda *_: check_mistake_bound(
        AND[0], [-1, -1, -1, 1], order="shuffle", runs=5, seed=0),
    "check_mistake_bound orthonormal": lambda *_: check_mistake_bound(
        *markone.datasets.orthonormal(6, labels=[1, -1, 1, 1, -1, -1]), intercept=False),
    "prove novikoff": lambda *_: check_all(
        names=["novikoff.base", "novikoff.step", "novikoff.bound"]),
    "prove freund_schapire.step": lambda *_: prove("freund_schapire.step"),
    "Session": lambda *_: session_answer(),
    "minimal_faults tiny": lambda *_: minimal_faults(*tiny_faults()),
    "check_machine ABCD": lambda *_: machine_report(MarkI(seed=0),
                                                    *letters("ABCD", per_class=3, seed=0)),
    "check_machine end stops by balls": lambda *_: machine_report(*ball_task(),
                                                                  orders=1, exact_budget=1),
    "check_machine AB stops 2": lambda *_: machine_report(
        MarkI(MarkIParams(weight_range=(-2, 2)), seed=0),
        *letters("AB", per_class=3, seed=0)),
    "adversary greedy": lambda tmp, cap: adversary_case("greedy", tmp, cap),
    "adversary exhaustive": lambda tmp, cap: adversary_case("exhaustive", tmp, cap),
    "adversary z3": lambda tmp, cap: adversary_case("z3", tmp, cap),
    "adversary lattice": lattice_case,
}


@pytest.mark.parametrize("name", TASKS)
def test_a_faster_clock_changes_no_report(name, monkeypatch, tmp_path, capsys):
    task = TASKS[name]
    normal = plain(task(tmp_path, capsys))
    set_clock(monkeypatch, faster)
    busy = plain(task(tmp_path, capsys))
    assert busy == normal


@pytest.mark.slow
def test_minimising_thousands_of_faults_ignores_the_clock(monkeypatch):
    normal = plain(minimal_faults(*cut_wires()))
    set_clock(monkeypatch, faster)
    assert plain(minimal_faults(*cut_wires())) == normal


@pytest.mark.slow
def test_the_26_letter_machine_check_ignores_the_clock(monkeypatch):
    images, labels = letters(string.ascii_uppercase, per_class=1, seed=0)
    normal = machine_report(MarkI(seed=0), images, labels)
    set_clock(monkeypatch, faster)
    assert plain(machine_report(MarkI(seed=0), images, labels)) == plain(normal)
    assert (normal["learnable"], normal["converges"], normal["stopped_by"]) == (
        True, True, "")


def test_the_ball_task_is_decided_by_the_balls(monkeypatch):
    """The symptom of issue 24: on a busy machine the end-stop claim fell from the
    per-weight balls to Z3 (``(None, "z3 bounded model checking")``)."""
    set_clock(monkeypatch, faster)
    report = check_machine(*ball_task(), orders=1, exact_budget=1)
    claim = report.r_units[0].end_stops
    assert (claim.holds, claim.method) == (True, "Novikoff ball per weight")
    assert report.stopped_by == ""


# ---- a given timeout_s still stops each search ---------------------------------------

def slow_program(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text("import sys, time\nsys.stdin.read()\ntime.sleep(60)\n")
    return f"{sys.executable} {script}"


def test_timeout_stops_each_search(monkeypatch, tmp_path):
    import verify.cycling
    from verify.conformance import CommandAdapter
    from verify.errors import ImplementationError

    monkeypatch.setattr(verify.cycling, "_CHUNK", 1)   # a look at the clock per state
    set_clock(monkeypatch, jumping())
    one = {"timeout_s": 1.0}
    v = check_separable(*XOR, method="z3", **one)
    assert (v.separable, v.method, v.stopped_by) == (None, "timeout", "timeout")
    v = check_separable(*noisy_halfspace(), **one)
    assert (v.separable, v.stopped_by) == (None, "timeout")
    for method in ("exhaustive", "z3"):
        a = worst_order(*TRIANGLE, method=method, **one)
        assert (a.complete, a.stopped_by) == (False, "timeout"), method
    g = worst_order(*markone.datasets.orthonormal(300), intercept=False,
                    method="greedy", **one)
    assert (g.stopped_by, g.mistakes) == ("timeout", 256)
    c = check_cycling(*markone.datasets.parity(3, encoding="01"), order="all", **one)
    assert (c.complete, c.stopped_by) == (False, "timeout")
    found = minimal_faults(*tiny_faults(), **one)
    assert (found.faults, found.complete, found.stopped_by) == ((1, 2), False, "timeout")
    report = check_machine(*ball_task(), orders=1, exact_budget=1, **one)
    assert report.stopped_by == "timeout"
    assert any(u.end_stops.holds is None or u.learnable.holds is None
               for u in report.r_units)
    adapter = CommandAdapter(slow_program(tmp_path), **one)
    with pytest.raises(ImplementationError, match="did not answer within 1 s"):
        adapter.answer({"X": [[1.0]], "y": [1], "order": [0], "intercept": True,
                        "task": "binary", "variant": "last"})


def test_timeout_stops_the_solvers_on_their_own_clocks():
    """The SMT solvers keep time themselves (no patched clock reaches them): a
    millisecond stops a query that needs about a million resource units."""
    for solver in ("z3", "cvc5"):
        r = prove("freund_schapire.step", solver=solver, timeout_s=1e-3)
        assert (r.status, r.stopped_by) == ("unknown", "timeout"), solver



# ---- no default is a number of seconds ------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
#: Defaults in seconds that decide no verdict, and why.
WAITS = {
    "SEARCH_DELAY_S": "when a progress bar appears on a terminal",
    "SLOW_STEP_S": "when a slow step (a compile, the Coq build) says so on a terminal",
    "CONNECT_TIMEOUT_S": "whether a Dask scheduler is reached (an error otherwise)",
    "poll_s": "how often a worker process looks for its parent",
    "TERM_GRACE_S": "the grace between SIGTERM and SIGKILL after a run has ended",
    "KILL_WAIT_S": "how long killed processes get to disappear",
    "TIMEOUT_S": "how long the console's server waits for a connection's request "
                 "(markone.console.server; it served from markone.hardware before)",
    "_POLL_S": "the pace of the reads of a program's output",
    "STOP_POLL_S": "how soon the console's serving loop sees a close (no answer depends "
                   "on it)",
    "_LEAST_TIMEOUT_S": "the least left of a --timeout the user gave (no limit of its own)",
}
SECONDS = re.compile(r"[A-Z0-9_]+_S(ECONDS)?|\w+_s|timeout\w*")


def number_defaults(source):
    """``(line, name)`` of each ``name = <number>`` and ``name: float = <number>`` in
    Python ``source`` (assignments, defaults and keywords alike; strings, doctests and
    comments are not code)."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
              if t.type in (tokenize.NAME, tokenize.OP, tokenize.NUMBER)]
    found = []
    for k, t in enumerate(tokens):
        words = [u.string for u in tokens[k + 1:k + 4]]
        skip = 1 if words[:1] == ["="] else 3 if words == [":", "float", "="] else 0
        value = tokens[k + 1 + skip] if skip and k + 1 + skip < len(tokens) else None
        if t.type == tokenize.NAME and value is not None and value.type == tokenize.NUMBER:
            found.append((t.start[0], t.string))
    return found


def seconds_defaults():
    """``(file:line, name)`` of every default that is a number of seconds in
    ``verify`` and ``markone`` (the hardware's seconds are the emulated machine's
    clock, not the computer's: left out), elapsed-time fields aside."""
    found = []
    for package in ("verify", "markone"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if "hardware" in path.relative_to(ROOT).parts:
                continue
            found += [(f"{path.relative_to(ROOT)}:{line}", name)
                      for line, name in number_defaults(path.read_text())
                      if SECONDS.fullmatch(name) and name not in ELAPSED]
    return found


def test_no_default_is_a_number_of_seconds():
    assert [(where, name) for where, name in seconds_defaults()
            if name not in WAITS] == []


def test_the_seconds_scan_finds_the_old_limits(tmp_path, monkeypatch):
    package = tmp_path / "verify"
    package.mkdir()
    (package / "old.py").write_text("MAX_REFINE, REFINE_S = 1024, 0.5\nZ3_SECONDS = 10.0\n"
                                    "def prove(name, timeout_ms=20_000):\n    pass\n")
    (tmp_path / "markone").mkdir()
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert [name for _, name in seconds_defaults()] == [
        "REFINE_S", "Z3_SECONDS", "timeout_ms"]
