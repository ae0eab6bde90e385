"""Run independent tasks in this process, in local worker processes or on Dask.

One executor for every sweep in markone: the ``sims`` runner (``markone sim run
--workers/--dask``) and the Mark I fleets (:func:`markone.hardware.run_fleet`,
``markone machine fleet --workers/--dask``). Tasks are independent and seeded up
front, so where they ran never changes a result; :func:`run_each` yields them as
they finish, each with its index.

A sweep killed with ``kill -9`` gets no chance to stop its worker processes. Each
local worker therefore asks Linux to kill it when its parent dies
(``PR_SET_PDEATHSIG``), and, everywhere, watches its parent from a small thread and
exits when it is gone (:func:`die_with_parent`).

Examples
--------
>>> sorted(run_each(abs, [-2, 3, -5]))
[(0, 2), (1, 3), (2, 5)]
"""

from __future__ import annotations

import collections
import ctypes
import multiprocessing
import os
import signal
import socket
import struct
import sys
import threading
import time
import warnings
from concurrent.futures import (FIRST_COMPLETED, Future, ProcessPoolExecutor,
                                ThreadPoolExecutor, wait)

from markone._internal.validation import check_int_at_least
from markone.errors import MarkoneError, MarkoneWarning
from markone._version import __version__

__all__ = ["run_each", "start_method", "check_dask", "distributed", "die_with_parent",
           "probe_scheduler", "keep_freed_memory", "local_cluster",
           "CONNECT_TIMEOUT_S", "on_worker", "WorkerMismatch", "worker_markone",
           "check_workers"]

_PR_SET_PDEATHSIG = 1
#: Seconds to reach a Dask scheduler and hear its greeting (and dask's own timeout).
#: It decides whether a scheduler is reached (a clear error otherwise), never a result.
CONNECT_TIMEOUT_S = 10.0
#: The largest greeting a scheduler sends (its handshake is a few hundred bytes).
_MAX_GREETING = 1 << 20


def die_with_parent(parent_pid, poll_s=0.5):
    """Make this process exit when ``parent_pid`` (its parent) is gone.

    The ``initializer`` of every local worker process of :func:`run_each`.

    >>> import os
    >>> die_with_parent(os.getppid())   # the parent is alive: returns at once
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl
            pass
    if os.getppid() != parent_pid:  # the parent died before we were set up
        os._exit(1)

    def watch():
        while os.getppid() == parent_pid:
            time.sleep(poll_s)
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


#: glibc's ``mallopt`` parameters (malloc.h) and the values :func:`keep_freed_memory`
#: sets: keep up to 64 MiB free at the top of a heap, and serve blocks up to 32 MiB
#: (glibc's largest dynamic threshold) from the heap rather than from fresh mappings.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_KEEP_FREE, _HEAP_BLOCKS = 1 << 26, 1 << 25
_KEPT: list[bool] = []


def keep_freed_memory():
    """Let this process reuse the memory it frees instead of returning it (Linux,
    glibc; elsewhere nothing). Returns whether the setting is in force.

    A worker that builds and drops many similar objects (a fleet's machines, each
    with arrays of a few hundred kB) would otherwise, in a thread of its own (a Dask
    worker's task thread, the caller's thread of :func:`run_each`), hand the top of
    its heap back after each one and fault the same pages in again for the next:
    about a million page faults, a second of CPU, on the first few hundred machines
    of a fleet. Fixed thresholds (64 MiB kept free, blocks up to 32 MiB from the
    heap) stop that; the memory stays with the process until it exits. Set once per
    process (later calls return at once).

    >>> keep_freed_memory() in (True, False)
    True
    """
    if not _KEPT:
        done = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None)
                done = bool(libc.mallopt(_M_TRIM_THRESHOLD, _KEEP_FREE)) and bool(
                    libc.mallopt(_M_MMAP_THRESHOLD, _HEAP_BLOCKS))
            except (OSError, AttributeError):  # pragma: no cover - not glibc
                done = False
        _KEPT.append(done)
    return _KEPT[0]


def distributed():
    """``dask.distributed``, imported lazily, or an error that says how to get it."""
    try:
        import dask.distributed
    except ImportError as exc:
        raise ImportError(
            "--dask needs dask.distributed, which is not installed; install it with "
            'pip install "dask[distributed]" (in a checkout of markone, '
            'pip install -e ".[dask]" does the same)'
        ) from exc
    return dask.distributed


def check_dask(address):
    """``address`` if it names a Dask cluster (``"local"`` or a scheduler URL)."""
    if address is not None and address != "local" and not str(address).startswith(
            ("tcp://", "tls://", "ucx://", "inproc://")):
        raise ValueError(
            f"dask(={address!r}) must be 'local' or a scheduler address like "
            "'tcp://host:8786'."
        )
    return address


def run_each(fn, items, *, workers=1, dask=None):
    """Yield ``(i, fn(items[i]))`` for every item, in the order they finish.

    Parameters
    ----------
    fn : callable
        A picklable (top-level) function of one item.
    items : sequence
    workers : int
        1 runs here, in order. More runs on that many processes: this one (a
        thread of it) and ``workers - 1`` started by :func:`start_method` (forked
        where that is safe, else spawned). Once started,
        they take the items from the front; this process takes them from the back,
        from the start.
    dask : str, optional
        ``"local"`` starts a ``dask.distributed.LocalCluster``: with ``workers=1``
        two threads in this process (light on a laptop), with more that many worker
        processes. ``"tcp://host:port"`` uses a running scheduler (and its workers).
    """
    items = list(items)
    workers = check_int_at_least(workers, "workers", 1)
    if check_dask(dask) is not None:
        yield from _dask_each(fn, items, dask, workers)
    elif workers == 1 or len(items) <= 1:
        for i, item in enumerate(items):
            yield i, fn(item)
    else:
        yield from _local_each(fn, items, workers)


def _local_each(fn, items, workers):
    """Run the items on ``workers - 1`` started processes and on a thread of this
    one. The other workers take items from the front, but only once they have
    started (each is sent at most :data:`_QUEUED_PER_WORKER` at a time), so none
    waits in a process still importing; this process, already started, takes them
    from the back meanwhile. Near the end (no more items left than the workers
    would hold queued) each worker holds one item at a time: the last items go to
    whichever process is free first, and the fleet ends within one item of all of
    them finishing."""
    n_started = min(workers - 1, len(items) - 1)
    pool = ProcessPoolExecutor(max_workers=n_started,
                               mp_context=multiprocessing.get_context(start_method()),
                               initializer=die_with_parent, initargs=(os.getpid(),))
    here = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-each-here")
    try:
        probes = {pool.submit(os.getpid) for _ in range(n_started)}  # back: started
        started, todo, mine = 0, collections.deque(range(len(items))), None
        running: dict[Future, int] = {}   # future -> its item's index
        while todo or running:
            # the front, to started workers: each one running and one waiting, but
            # near the end one at a time, so that none holds an item waiting while
            # this process, done with its own, could run it
            ahead = _QUEUED_PER_WORKER if len(todo) > _QUEUED_PER_WORKER * started \
                else 1
            while todo and len(running) - (mine is not None) < ahead * started:
                i = todo.popleft()
                running[pool.submit(fn, items[i])] = i
            if mine is None and todo:   # the back, here
                i = todo.pop()
                mine = here.submit(fn, items[i])
                running[mine] = i
            done, _ = wait(set(running) | probes, return_when=FIRST_COMPLETED)
            started += len(done & probes)
            probes -= done
            for fut in done & running.keys():
                mine = None if fut is mine else mine
                yield running.pop(fut), fut.result()
    finally:  # on an error or Ctrl-C, do not start the tasks still queued
        here.shutdown(wait=True, cancel_futures=True)
        pool.shutdown(wait=True, cancel_futures=True)


def start_method():
    """How :func:`run_each` starts its local worker processes: ``"fork"`` where that is
    safe, else ``"spawn"``.

    A forked worker starts in milliseconds with everything this process has imported
    and every compiled kernel it has loaded; a spawned one imports markone and loads
    the kernels from numba's cache first (about 0.9 s idle, during which it trains
    nothing). Forking is safe on Linux when this thread is the process's only one (no
    lock another thread holds is copied into the worker) and numba has not started
    its parallel threads (whose pool a forked worker would inherit but not own);
    elsewhere, and whenever another thread runs (a notebook's kernel, a Dask client,
    a progress bar's monitor), workers are spawned. Either way the tasks are the same
    and so are their results.

    >>> start_method() in ("fork", "spawn")
    True
    """
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return "spawn"
    numba_parallel = sys.modules.get("numba.np.ufunc.parallel")
    if numba_parallel is not None and getattr(numba_parallel, "_is_initialized", True):
        return "spawn"
    return "fork"


#: Items sent ahead to each started worker process: one running, one waiting, so a
#: worker never idles while the next item travels to it.
_QUEUED_PER_WORKER = 2


def local_cluster(workers=1, processes=None):
    """The ``dask.distributed.LocalCluster`` that ``dask="local"`` starts.

    With ``workers=1`` two threads in this process (light on a laptop); with more,
    that many worker processes of one thread each (the GIL would serialise threads);
    ``processes`` chooses either way. Its workers run without Dask's statistical
    profiler (``distributed.worker.profile.enabled``), which samples the task
    thread's stack 100 times a second on the worker's event loop, taking the GIL
    from the task each time, for a dashboard this cluster does not start. A cluster
    you start yourself keeps your configuration.

    >>> import dask
    >>> dask.config.get("distributed.worker.profile.enabled", True)   # unchanged here
    True
    """
    dist = distributed()
    import dask

    processes = workers > 1 if processes is None else processes
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        return dist.LocalCluster(n_workers=workers, threads_per_worker=1 if processes
                                 else 2, processes=processes, dashboard_address=None)


def _dask_each(fn, items, address, workers=1):
    """Run the items on a Dask cluster: sent in one graph (one message to the
    scheduler, not one per item), each result taken as soon as it is done and then
    released, so that a worker does not hold every result it made until the end."""
    dist = distributed()
    cluster = local_cluster(workers) if address == "local" else None
    try:
        if cluster is None:
            probe_scheduler(address, CONNECT_TIMEOUT_S)
        client = dist.Client(cluster if cluster is not None else address,
                             timeout=f"{CONNECT_TIMEOUT_S}s")
    except (OSError, TimeoutError) as exc:
        if cluster is not None:
            cluster.close()
        raise OSError(f"cannot reach the Dask scheduler at {address} ({exc}); start "
                      "it first, or use --dask local.") from None
    try:
        if cluster is None and not client.scheduler_info().get("workers"):
            warnings.warn(f"the Dask scheduler at {address} has no workers yet: the "
                          "tasks wait until one joins (Ctrl-C stops)", MarkoneWarning,
                          stacklevel=2)
        check_workers(client)
        futures = client.map(on_worker, items, fn=fn, version=_VERSION, pure=False)
        index = {fut.key: i for i, fut in enumerate(futures)}
        done = dist.as_completed(futures, with_results=True)
        del futures   # as_completed holds each future until its result is out
        for fut, result in _worker_problems_told(done):
            i = index[fut.key]
            fut.release()
            yield i, result
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


#: The markone this process runs, which every Dask worker must run too.
_VERSION = __version__


class WorkerMismatch(MarkoneError, ImportError):
    """A Dask worker runs another markone than the process that sent it the task."""


def worker_markone():
    """``(version, where)`` of the markone this process imports: what each Dask worker
    is asked before it is sent a task (:func:`check_workers`).

    >>> worker_markone()[0] == __version__
    True
    """
    markone = sys.modules["markone"]   # the package this module was imported from
    return getattr(markone, "__version__", None), getattr(markone, "__file__", None)


def check_workers(client):
    """Raise OSError, saying what to install, unless every worker of ``client``'s
    cluster imports this process's markone: a worker without it cannot read a task
    (and this version of Dask lets such a worker die, the tasks waiting for ever),
    and one with another version runs other code, whose results could silently
    differ. A worker that joins later is checked by each task (:func:`on_worker`)."""
    for address, found in sorted(client.run(worker_markone, on_error="return").items()):
        if isinstance(found, BaseException):
            said = f"the Dask worker at {address} cannot run this markone ({found})"
        elif found[0] != _VERSION:
            said = (f"the Dask worker at {address} runs markone {found[0]} ({found[1]}), "
                    f"this command markone {_VERSION}")
        else:
            continue
        raise OSError(f"{said}: {_install_the_same()}")


def _install_the_same():
    return (f"install markone {_VERSION} (and its dependencies) in the environment of "
            "the scheduler and of every worker, then restart them; results made with "
            "other code could differ")


def on_worker(item, fn, version):
    """``fn(item)``, run on a Dask worker whose markone is ``version``, that of the
    process that sent the task; :class:`WorkerMismatch` if it is another (a worker
    that joined after :func:`check_workers`).

    >>> on_worker(-3, abs, __version__)
    3
    >>> try:
    ...     on_worker(-3, abs, "0.0.1")
    ... except WorkerMismatch as exc:
    ...     print(str(exc).split(" runs ")[0], "runs another markone")
    a Dask worker (not in a cluster) runs another markone
    """
    theirs, where = worker_markone()
    if theirs != version:
        raise WorkerMismatch(f"a Dask worker ({_worker_address()}) runs markone {theirs} "
                             f"({where}), this command markone {version}")
    return fn(item)


def _worker_address():
    try:
        from dask.distributed import get_worker
        return f"at {get_worker().address}"
    except (ImportError, ValueError):
        return "not in a cluster"


def _worker_problems_told(done):
    """The results of ``done`` (Dask's ``as_completed``); a worker that runs another
    markone, or a scheduler that cannot read the tasks (another markone, or none),
    is told as an error of the setup (OSError) that says what to install, not as a
    failed task (a bug in markone)."""
    try:
        yield from done
    except WorkerMismatch as exc:
        raise OSError(f"{exc}: {_install_the_same()}") from None
    except RuntimeError as exc:
        if "deserialization of the task graph" not in str(exc):
            raise
        raise OSError(f"the Dask scheduler cannot read the tasks (it runs another "
                      f"environment: another markone, or none): {_install_the_same()}") \
            from None


def probe_scheduler(address, timeout_s=CONNECT_TIMEOUT_S):
    """Check that a ``tcp://`` address speaks Dask before dask connects to it.

    A Dask scheduler greets every connection first: an 8-byte length, then that many
    bytes whose first 8 count the frames of its handshake. An HTTP server says
    nothing (dask would wait for ever) and other services say something else (dask
    would trust a length of exabytes and ask for that much memory). Other schemes
    (``tls://``, ``ucx://``) are left to dask.

    Raises
    ------
    OSError
        Nothing listens there, no greeting came within ``timeout_s`` seconds, or the
        greeting is not a Dask handshake; the message says which.
    """
    scheme, _, location = str(address).partition("://")
    if scheme != "tcp":
        return
    host, _, port = location.rpartition(":")
    host = host.strip("[]")
    # a port past 65535 is not refused by the socket layer: it wraps (99999 reaches
    # 34463), which could be another service, or another scheduler
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise OSError(f"{address} does not name a host and port (tcp://HOST:PORT, "
                      "the port from 1 to 65535)")
    deadline = time.monotonic() + timeout_s
    with socket.create_connection((host, int(port)), timeout=timeout_s) as sock:
        try:
            (size,) = struct.unpack("<Q", _receive(sock, 8, deadline))
            if not 8 <= size <= _MAX_GREETING:
                raise OSError(f"it greeted with a length of {size} bytes")
            (frames,) = struct.unpack("<Q", _receive(sock, 8, deadline))
            if not 1 <= frames <= size // 8:
                raise OSError(f"its greeting counts {frames} frames")
        except (OSError, TimeoutError) as exc:
            raise OSError(f"{address} does not speak Dask: {exc}") from None


def _receive(sock, n, deadline):
    data = b""
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no greeting within the connect timeout")
        sock.settimeout(left)
        try:
            chunk = sock.recv(n - len(data))
        except socket.timeout:
            raise TimeoutError("no greeting within the connect timeout") from None
        if not chunk:
            raise OSError("it closed the connection without a greeting")
        data += chunk
    return data
