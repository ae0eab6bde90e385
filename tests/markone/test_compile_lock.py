"""Processes that need a kernel at the same time compile it once (issue 37): one
compiles under the kernel's lock (markone._internal.jit_cache.compile_lock), the
others wait, then load it from the cache; a lock never hangs a job or fails it.

Each test runs a small kernel module in new processes, all with one empty cache."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from _paths import ROOT

KERNEL = """from markone._internal.jit import kernel


@kernel()
def triple(x):
    return 3.0 * x
"""
#: A child: make the dispatcher (numba imported), say "ready", wait for a line on
#: stdin, then compile (or load) the kernel and print its value, cache hits, misses.
CHILD = """
import sys
from markone._internal.jit import compiled
from pkgl.kern import triple
k = compiled(triple)
print("ready", flush=True)
sys.stdin.readline()
print(k(2.0), sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()))
"""
#: A child that holds the kernel's lock (as a compile does) until it is killed.
HOLDER = """
import sys
from markone._internal.jit import compiled
from markone._internal.jit_cache import compile_lock, lock_path
from pkgl.kern import triple
with compile_lock(lock_path(compiled(triple)._cache)) as held:
    print("held" if held else "not held", flush=True)
    sys.stdin.readline()
"""
#: A child that prints where the kernel's lock file goes (numba imported, nothing
#: compiled).
WHERE = """
from markone._internal.jit import compiled
from markone._internal.jit_cache import lock_path
from pkgl.kern import triple
print(lock_path(compiled(triple)._cache))
"""
#: A child that holds lock file argv[1], then (after a line on stdin) asks argv[2]'s.
CROSSED = """
import sys
from markone._internal.jit_cache import compile_lock
with compile_lock(sys.argv[1]) as first:
    print("first", first, flush=True)
    sys.stdin.readline()
    with compile_lock(sys.argv[2]) as second:
        print("second", second, flush=True)
"""


def _env(tmp_path):
    site = tmp_path / "site"
    (site / "pkgl").mkdir(parents=True)
    (site / "pkgl" / "__init__.py").write_text("")
    (site / "pkgl" / "kern.py").write_text(KERNEL)
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]),
                NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")


def _start(script, env, cwd, *args):
    return subprocess.Popen([sys.executable, "-c", script, *args], env=env, cwd=cwd,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(child):
    out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    return out.split()


def _lock_files(tmp_path):
    return sorted((tmp_path / "cache").rglob("*.lock"))


def test_two_processes_that_need_a_kernel_at_once_compile_it_once(tmp_path):
    env = _env(tmp_path)
    children = [_start(CHILD, env, tmp_path) for _ in range(2)]
    for child in children:
        assert child.stdout.readline() == "ready\n"
    for child in children:   # both ask for the kernel at once
        child.stdin.write("go\n")
        child.stdin.flush()
    results = sorted(_finish(child) for child in children)
    # one compiled it (a miss), the other waited and loaded what it saved (a hit)
    assert results == [["6.0", "0", "1"], ["6.0", "1", "0"]]
    assert len(_lock_files(tmp_path)) == 1


def test_a_killed_holder_releases_the_lock_and_the_waiter_compiles(tmp_path):
    env = _env(tmp_path)
    holder = _start(HOLDER, env, tmp_path)
    assert holder.stdout.readline() == "held\n"
    waiter = _start(CHILD, env, tmp_path)
    assert waiter.stdout.readline() == "ready\n"
    waiter.stdin.write("go\n")
    waiter.stdin.flush()
    _wait_blocked(waiter.pid)   # the waiter waits for the holder's lock...
    os.kill(holder.pid, signal.SIGKILL)
    holder.communicate()
    # ...until the holder dies: then it takes the lock and compiles
    assert _finish(waiter) == ["6.0", "0", "1"]


def _wait_blocked(pid, polls=3000):
    """Return once ``/proc/locks`` shows process ``pid`` waiting for a lock (it lists
    a waiter's request after ``->``); fail after ``polls`` looks."""
    for _ in range(polls):
        if any(line.split()[1] == "->" and line.split()[5] == str(pid)
               for line in Path("/proc/locks").read_text().splitlines()):
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} never waited for the lock")


def test_a_lock_file_that_cannot_be_opened_only_means_compiling(tmp_path):
    env = _env(tmp_path)
    # an empty cache whose lock is a folder (where the lock goes, asked of a process
    # that compiles nothing: a compile there cost a second of CPU, issue 37)
    lock = Path(_finish(_start(WHERE, env, tmp_path))[0])
    assert (tmp_path / "cache") in lock.parents
    lock.mkdir(parents=True)
    child = _start(CHILD, env, tmp_path)
    out, err = child.communicate("go\n", timeout=300)
    assert child.returncode == 0 and err == ""
    assert out.split() == ["ready", "6.0", "0", "1"]


def test_two_processes_each_holding_what_the_other_asks_do_not_wait_for_ever(tmp_path):
    one, two = str(tmp_path / "one.lock"), str(tmp_path / "two.lock")
    env = _env(tmp_path)
    children = [_start(CROSSED, env, tmp_path, one, two),
                _start(CROSSED, env, tmp_path, two, one)]
    for child in children:
        assert child.stdout.readline() == "first True\n"
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    # the system refuses the wait that closes the cycle: that process goes on
    # without the lock (as it would compile) and ends; then the other takes it
    assert sorted(_finish(child) for child in children) == [["second", "False"],
                                                            ["second", "True"]]


def test_a_kernel_that_calls_another_holds_both_locks_and_releases_them(tmp_path):
    env = _env(tmp_path)
    script = """
from markone._internal import jit_cache
from markone._internal.jit import cached_njit

@cached_njit()
def inner(x):
    return x + 1.0

@cached_njit()
def outer(x):
    return inner(x) * 2.0

seen = []
lock = jit_cache.compile_lock
def watched(path, kernel="a kernel"):
    seen.append((kernel, sorted(jit_cache._HELD)))
    return lock(path, kernel)
jit_cache.compile_lock = watched
import markone._internal.jit as jit
jit.compile_lock = watched
print(outer(1.0), [(k, len(h)) for k, h in seen], len(jit_cache._HELD))
"""
    (tmp_path / "prog.py").write_text(script)
    done = subprocess.run([sys.executable, "prog.py"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=True)
    # outer's compile asks for inner's (outer's lock held then), and both are free after
    assert done.stdout.split(maxsplit=1) == ["4.0", "[('outer', 0), ('inner', 1)] 0\n"]
