"""The Coq build runs two ``coqc`` at once, each theory after the ones it requires
(issue 37: the build's 25 s of CPU took 25 s on two idle cores, one ``coqc`` at a
time). No Coq needed: the scheduling is driven with fake compilers."""

import importlib
import subprocess
import threading

import pytest

from verify.coq.build import SOURCE_DIR, project_files, run_in_order, theory_requires
from verify.errors import CoqUnavailable

coq = importlib.import_module("verify.coq.build")   # the module, not the function

FILES = project_files()[1]
REQUIRES = theory_requires({name: (SOURCE_DIR / name).read_text() for name in FILES})
TREE = {"A": frozenset(), "B": frozenset({"A"}), "C": frozenset({"A"}),
        "D": frozenset({"B", "C"})}


def test_the_theories_require_what_their_require_lines_name():
    assert REQUIRES["Perceptron.v"] == frozenset()
    assert REQUIRES["BlockLevin.v"] == {"Perceptron.v", "Bounded.v", "Span.v"}
    assert REQUIRES["Extraction.v"] == {"Checker.v", "CycleCheck.v", "Tolerance.v"}
    assert all(required <= set(FILES) for required in REQUIRES.values())


def test_project_order_already_puts_each_theory_after_what_it_requires():
    """``jobs=1`` compiles in ``_CoqProject``'s order, which must then be valid."""
    for at, name in enumerate(FILES):
        assert REQUIRES[name] <= set(FILES[:at]), name


class Recorder:
    """A fake compile: checks that what ``name`` requires has ended, counts how many
    run at once, and (with ``meet``) makes the named ones wait for each other."""

    def __init__(self, requires, meet=()):
        self.requires, self.ended, self.started = requires, [], []
        self.running = self.most = 0
        self.lock = threading.Lock()
        self.meeting = threading.Barrier(len(meet), timeout=30) if meet else None
        self.meet = set(meet)

    def __call__(self, name):
        with self.lock:
            assert self.requires[name] <= set(self.ended), (name, self.ended)
            self.started.append(name)
            self.running += 1
            self.most = max(self.most, self.running)
        if name in self.meet:
            self.meeting.wait()   # broken (an error) unless all of them run at once
        with self.lock:
            self.running -= 1
            self.ended.append(name)


def test_two_theories_that_need_only_a_third_compile_side_by_side():
    run = Recorder(TREE, meet=("B", "C"))
    run_in_order(list(TREE), TREE, run, jobs=2)
    assert run.ended[0] == "A" and run.ended[-1] == "D"
    assert sorted(run.ended) == list(TREE) and run.most == 2


def test_never_more_at_once_than_jobs():
    many = {f"T{i}": frozenset() for i in range(12)}
    for jobs in (1, 2, 3):
        run = Recorder(many, meet=[f"T{i}" for i in range(jobs)])
        run_in_order(list(many), many, run, jobs=jobs)
        assert run.most == jobs and sorted(run.ended) == sorted(many)


def test_one_job_keeps_the_order_given():
    run = Recorder(REQUIRES)
    run_in_order(FILES, REQUIRES, run, jobs=1)
    assert run.ended == list(FILES)


def test_a_failed_theory_stops_the_build_and_nothing_starts_after_it():
    started = []

    def run(name):
        started.append(name)
        if name == "A":
            raise CoqUnavailable("coqc A.v failed")

    with pytest.raises(CoqUnavailable, match="coqc A.v failed"):
        run_in_order(list(TREE), TREE, run, jobs=2)
    assert started == ["A"]


def test_a_failure_is_raised_once_the_theory_running_beside_it_has_ended():
    gate, ended = threading.Event(), []

    def run(name):
        if name == "B":
            gate.set()
            raise CoqUnavailable("coqc B.v failed")
        if name == "C":
            gate.wait(30)     # started beside B, ends after B has failed
            ended.append(name)

    with pytest.raises(CoqUnavailable, match="B.v failed"):
        run_in_order(list(TREE), TREE, run, jobs=2)
    assert ended == ["C"]     # no coqc of the build is left running


def test_a_theory_that_requires_one_never_compiled_is_named():
    broken = {"A": frozenset(), "B": frozenset({"Missing"})}
    with pytest.raises(CoqUnavailable, match=r"never compiled.*'B': \['Missing'\]"):
        run_in_order(["A", "B"], broken, lambda name: None, jobs=2)


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True, "2"])
def test_jobs_that_is_not_a_whole_number_of_at_least_one_is_refused(tmp_path, jobs):
    with pytest.raises(ValueError, match="jobs must be a whole number of at least 1"):
        coq.build(tmp_path / "build", jobs=jobs)


def test_the_build_runs_each_coqc_after_the_ones_it_requires(tmp_path, monkeypatch):
    calls, lock = [], threading.Lock()

    def run(argv, cwd=None, env=None, **kwargs):
        with lock:
            calls.append(argv[-1] if argv[0] == "coqc" else argv[0])
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(coq, "missing_tools", lambda: None)
    monkeypatch.setattr(coq.subprocess, "run", run)
    coq.build(tmp_path / "build")
    assert sorted(calls[:-1]) == sorted(FILES) and calls[-1] == "ocamlfind"
    for at, name in enumerate(calls[:-1]):
        assert REQUIRES[name] <= set(calls[:at]), name
