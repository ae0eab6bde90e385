"""markone._internal.parallel.run_each: every item once, wherever it ran.

With ``workers=N`` the caller's process is one of the N: it takes items from the back
while the ``N - 1`` other processes (forked or spawned: ``start_method``) start and
take them from the front.
"""

import os
import subprocess
import sys
import threading
import time

import pytest

from markone._internal import parallel
from markone._internal.parallel import run_each, start_method
from markone.errors import MarkoneWarning


def pid_and_square(x):
    """What a worker reports: where it ran, and its answer."""
    return os.getpid(), x * x


def test_two_workers_are_this_process_and_one_more():
    out = dict(run_each(pid_and_square, range(20), workers=2))
    assert sorted(out) == list(range(20))
    assert [sq for _, sq in (out[i] for i in range(20))] == [i * i for i in range(20)]
    # the last item is this process's first: the spawned worker gets items from the
    # front, and only once it has started
    assert out[19][0] == os.getpid()
    assert len({pid for pid, _ in out.values()}) <= 2


def test_no_item_waits_for_a_worker_that_is_starting(monkeypatch):
    monkeypatch.setattr(parallel, "start_method", lambda: "spawn")
    # the spawned worker is sent items only once it has started (spawn, imports:
    # a large fraction of a second); three trivial items are done here long before,
    # where a pool sent items up front would hold the first two in the starting one
    out = dict(run_each(pid_and_square, range(3), workers=2))
    assert {pid for pid, _ in out.values()} == {os.getpid()}


def test_many_workers_every_item_once():
    out = sorted(run_each(abs, range(-30, 0), workers=3))
    assert out == [(i, 30 - i) for i in range(30)]


def test_an_error_in_this_process_task_stops_the_sweep():
    with pytest.raises(ZeroDivisionError):
        list(run_each(divmod_by_zero_at_last, range(6), workers=2))


def divmod_by_zero_at_last(x):
    """Fails on the last item, the one the caller's own process takes first."""
    return 1 / (x - 5)


def pid_and_item_slow_here(item):
    """``(pid, x)`` for ``item = (caller's pid, x)``, half a second slower in the
    caller's process, so that the spawned worker starts and takes items too."""
    caller, x = item
    if os.getpid() == caller:
        time.sleep(0.5)
    return os.getpid(), x


def test_each_result_comes_back_with_its_own_index():
    items = [(os.getpid(), x) for x in range(8)]
    out = list(run_each(pid_and_item_slow_here, items, workers=2))
    assert sorted(i for i, _ in out) == list(range(8))
    assert all(x == i for i, (_, x) in out)   # each answer under its item's index


def freed_memory_setting(_):
    """A spawned worker's answer: keep_freed_memory, asked twice."""
    from markone._internal.parallel import keep_freed_memory
    return keep_freed_memory(), keep_freed_memory()


@pytest.mark.skipif(not os.uname().sysname == "Linux", reason="glibc's mallopt")
def test_a_worker_keeps_the_memory_it_frees():
    # glibc on Linux takes the setting (mallopt says 1); asked again, the answer stands
    [(_, answer)] = run_each(freed_memory_setting, [0], workers=1)
    assert answer == (True, True)


#: Run in a fresh process (this worker may have started numba's parallel threads, and
#: then rightly spawns): a forked worker starts with that process's memory (MARKS as
#: the caller left it), where a spawned one would import afresh.
FORKED_WORKER_SEES_THE_CALLER = """
import os, threading, time
from markone._internal.parallel import run_each, start_method
MARKS = []
def pid_and_marks(item):  # slower in the caller, so that the worker takes items too
    if os.getpid() == item[0]:
        time.sleep(0.05)
    return os.getpid(), tuple(MARKS)
assert threading.active_count() == 1 and start_method() == "fork", start_method()
MARKS.append("loaded here")
out = [a for _, a in run_each(pid_and_marks, [(os.getpid(), x) for x in range(40)],
                              workers=2)]
elsewhere = [marks for pid, marks in out if pid != os.getpid()]
print(len(elsewhere) > 0, all(marks == ("loaded here",) for marks in elsewhere))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork: Linux only")
def test_a_worker_forked_here_starts_with_what_this_process_loaded():
    # in a fresh process: in the suite's worker an earlier test may have started
    # numba's parallel threads, and this test was skipped there (CI never ran it)
    done = subprocess.run([sys.executable, "-c", FORKED_WORKER_SEES_THE_CALLER],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]


def test_workers_are_spawned_while_another_thread_runs():
    # a lock held by another thread would be copied into a forked worker, held for
    # ever: with any other thread running, workers are spawned
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert start_method() == "spawn"
    finally:
        stop.set()
        other.join()


def worker_profiles(_):
    """Whether the Dask worker running this task samples it with Dask's profiler."""
    from dask.distributed import get_worker

    return "profile" in get_worker().periodic_callbacks


def test_the_local_dask_cluster_runs_its_workers_without_the_profiler():
    pytest.importorskip("dask.distributed")
    # the profiler takes the GIL from the task 100 times a second, for a dashboard
    # that markone's cluster does not start
    assert [p for _, p in run_each(worker_profiles, range(2), dask="local")] == [
        False, False]


def test_local_dask_worker_processes_run_without_the_profiler():
    dask = pytest.importorskip("dask")
    dist = pytest.importorskip("dask.distributed")
    key = "distributed.worker.profile.enabled"
    with parallel.local_cluster(2) as cluster, dist.Client(cluster) as client:
        assert list(client.run(dask.config.get, key).values()) == [False, False]
    assert dask.config.get(key)   # this process's configuration: as it was


def results_held(dask_scheduler):
    """How many task results the cluster's workers hold (run on the scheduler)."""
    return sum(ts.state == "memory" for ts in dask_scheduler.tasks.values())


@pytest.fixture(scope="module")
def cluster():
    """One Dask cluster for the tests of this file that reach a scheduler by its
    address, as a user's cluster is reached: one worker, in this process."""
    dist = pytest.importorskip("dask.distributed")
    with dist.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as \
            started:
        yield started


def test_a_dask_worker_lets_go_of_each_result_once_it_is_taken(cluster):
    dist = pytest.importorskip("dask.distributed")
    with dist.Client(cluster) as watcher:
        each = run_each(abs, range(-6, 0), dask=cluster.scheduler_address)
        taken = [next(each) for _ in range(6)]   # every result out, the run still open
        held, deadline = None, time.monotonic() + 30   # releases travel asynchronously
        while held != 0 and time.monotonic() < deadline:
            held = watcher.run_on_scheduler(results_held)
            time.sleep(0.05)
        each.close()
    assert sorted(taken) == [(i, 6 - i) for i in range(6)]
    assert held == 0


# ------------------------------------- a cluster of other machines: the walk of issue 37
# Every worker must run this markone: one with another version runs other code (its
# results could silently differ), one without markone cannot read a task (and this
# Dask lets it die, the tasks waiting for ever). They were sent the tasks all the same.

def test_a_worker_with_another_markone_is_refused_before_any_task(cluster, monkeypatch):
    monkeypatch.setattr(parallel, "_VERSION", "0.0.1")   # this command's, here
    sent = []
    monkeypatch.setattr(parallel, "on_worker", lambda *a, **k: sent.append(a))
    with pytest.raises(OSError, match=r"the Dask worker at \w+://\S+ runs markone "
                       rf"{parallel.__version__} \(\S+__init__.py\), this command "
                       r"markone 0.0.1: install markone 0.0.1 .* every worker"):
        list(run_each(abs, [-1, -2], dask=cluster.scheduler_address))
    assert sent == []


def cannot_import_markone():
    raise ModuleNotFoundError("No module named 'markone'")


def test_a_worker_without_markone_is_refused_before_any_task(cluster, monkeypatch):
    monkeypatch.setattr(parallel, "worker_markone", cannot_import_markone)
    with pytest.raises(OSError, match=r"the Dask worker at \w+://\S+ cannot run this "
                       r"markone \(.*No module named 'markone'.*\): install markone"):
        list(run_each(abs, [-1, -2], dask=cluster.scheduler_address))


def test_a_worker_that_joined_after_the_check_is_checked_by_each_task(cluster,
                                                                     monkeypatch):
    monkeypatch.setattr(parallel, "check_workers", lambda client: None)
    monkeypatch.setattr(parallel, "_VERSION", "0.0.1")
    with pytest.raises(OSError, match=r"a Dask worker \(at \w+://\S+\) runs markone "
                       rf"{parallel.__version__} .*this command markone 0.0.1: install"):
        list(run_each(abs, [-1, -2], dask=cluster.scheduler_address))


def test_a_scheduler_without_workers_is_said_not_waited_on_in_silence():
    dist = pytest.importorskip("dask.distributed")
    with dist.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as \
            empty, pytest.warns(MarkoneWarning, match="has no workers yet: the tasks wait "
                                "until one joins"):
        assert list(run_each(abs, [], dask=empty.scheduler_address)) == []


def test_a_scheduler_that_cannot_read_the_tasks_is_a_setup_error():
    """Dask's scheduler unpickles the graph: one without this markone says so in a
    RuntimeError (seen with a scheduler started in another environment)."""
    def done():
        yield from ()
        raise RuntimeError("Error during deserialization of the task graph. This "
                           "frequently\noccurs if the Scheduler and Client have "
                           "different environments.")

    with pytest.raises(OSError, match="the Dask scheduler cannot read the tasks"):
        list(parallel._worker_problems_told(done()))
