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
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

from markone._internal.validation import check_int_at_least

__all__ = ["run_each", "check_dask", "distributed", "die_with_parent"]

_PR_SET_PDEATHSIG = 1


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
        1 runs here, in order; more starts that many processes (``spawn``).
    dask : str, optional
        ``"local"`` starts a ``dask.distributed.LocalCluster`` (threads in this
        process); ``"tcp://host:port"`` uses a running scheduler. Overrides
        ``workers``.
    """
    items = list(items)
    workers = check_int_at_least(workers, "workers", 1)
    if check_dask(dask) is not None:
        yield from _dask_each(fn, items, dask)
    elif workers == 1 or len(items) <= 1:
        for i, item in enumerate(items):
            yield i, fn(item)
    else:
        yield from _local_each(fn, items, workers)


def _local_each(fn, items, workers):
    # spawn, not fork: numba's OpenMP threads make fork() unsafe in the parent
    pool = ProcessPoolExecutor(max_workers=min(workers, len(items)),
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=die_with_parent, initargs=(os.getpid(),))
    try:
        futures = {pool.submit(fn, item): i for i, item in enumerate(items)}
        for fut in as_completed(futures):
            yield futures[fut], fut.result()
    finally:  # on an error or Ctrl-C, do not start the tasks still queued
        pool.shutdown(wait=True, cancel_futures=True)


def _dask_each(fn, items, address):
    dist = distributed()
    cluster = None
    if address == "local":  # threads in this process: light on a laptop
        cluster = dist.LocalCluster(n_workers=1, threads_per_worker=2,
                                    processes=False, dashboard_address=None)
    try:
        client = dist.Client(cluster if cluster is not None else address,
                             timeout="10s")
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
