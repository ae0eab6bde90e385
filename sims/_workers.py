"""Worker processes that die with the sweep that started them.

A sweep killed with ``kill -9`` gets no chance to stop its worker processes. Each
worker therefore asks Linux to kill it when its parent dies (``PR_SET_PDEATHSIG``),
and, everywhere, watches its parent from a small thread and exits when it is gone.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

__all__ = ["die_with_parent"]

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid, poll_s=0.5):
    """Make this process exit when ``parent_pid`` (its parent) is gone.

    Used as the ``initializer`` of the sweep's process pool.

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
