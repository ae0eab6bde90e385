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

import ctypes
import multiprocessing
import os
import signal
import socket
import struct
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

from markone._internal.validation import check_int_at_least

__all__ = ["run_each", "check_dask", "distributed", "die_with_parent",
           "probe_scheduler", "CONNECT_TIMEOUT_S"]

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


def distributed():
    """``dask.distributed``, imported lazily, or an error that says how to get it."""
    try:
        import dask.distributed
    except ImportError as exc:
        raise ImportError(
            "--dask needs dask.distributed, which is not installed; install it with "
            'pip install "markone[dask]"'
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
        1 runs here, in order. More runs on that many processes: this one and
        ``workers - 1`` started with ``spawn``; they take the items from the front,
        this process takes them from the back while they start.
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
    """``workers - 1`` spawned processes take the items from the front while this
    process, already started, takes them from the back (so the second worker costs
    no start-up time of its own); whatever is left is waited for."""
    # spawn, not fork: numba's OpenMP threads make fork() unsafe in the parent
    pool = ProcessPoolExecutor(max_workers=min(workers - 1, len(items) - 1),
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=die_with_parent, initargs=(os.getpid(),))
    try:
        futures = [pool.submit(fn, item) for item in items]
        index = {fut: i for i, fut in enumerate(futures)}
        left = list(futures)
        while True:
            yield from _finished(left, index)
            mine = _unstarted_last(left)
            if mine is None:
                break
            yield index[mine], fn(items[index[mine]])
        for fut in as_completed(left):
            yield index[fut], fut.result()
    finally:  # on an error or Ctrl-C, do not start the tasks still queued
        pool.shutdown(wait=True, cancel_futures=True)


def _finished(left, index):
    """Yield ``(i, result)`` of the futures in ``left`` that are done (and drop them)."""
    for fut in [f for f in left if f.done()]:
        left.remove(fut)
        yield index[fut], fut.result()


def _unstarted_last(left):
    """The last future of ``left`` that no worker has begun, taken away from the pool
    (cancelled there, dropped from ``left``) for this process to run; None if none."""
    for fut in reversed(left):
        if fut.cancel():
            left.remove(fut)
            return fut
    return None


def _dask_each(fn, items, address, workers=1):
    dist = distributed()
    cluster = None
    if address == "local" and workers == 1:  # threads in this process: light
        cluster = dist.LocalCluster(n_workers=1, threads_per_worker=2,
                                    processes=False, dashboard_address=None)
    elif address == "local":   # the GIL would serialise threads: processes
        cluster = dist.LocalCluster(n_workers=workers, threads_per_worker=1,
                                    processes=True, dashboard_address=None)
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
        futures = {client.submit(fn, item, pure=False): i for i, item in enumerate(items)}
        for fut in dist.as_completed(list(futures)):
            yield futures[fut], fut.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


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
    if not host or not port.isdigit():
        raise OSError(f"{address} does not name a host and port (tcp://HOST:PORT)")
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
