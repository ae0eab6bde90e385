"""SIGTERM as an exception that cannot be lost.

Within :func:`sigterm_raises`, a SIGTERM (``kill``, a CI timeout, a service manager)
raises :class:`Terminated` wherever the main thread is, so that cleanup runs
(``atomic_write``'s temporary file, ``staged_output``'s staging folder) as it does for
Ctrl-C. Python drops an exception raised inside a finaliser (a ``__del__``, a weakref
callback; it prints "Exception ignored in ..." and goes on), and a signal handler
runs inside one whenever the signal arrives while a finaliser's code runs. The
handler therefore also records that SIGTERM arrived, and every place that commits
output the user asked for calls :func:`raise_if_terminated` first: a command whose
``Terminated`` was lost still writes nothing and ends as terminated.

>>> with sigterm_raises():
...     raise_if_terminated()        # no SIGTERM: nothing happens
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

#: ``Terminated`` is left out on purpose: like ``KeyboardInterrupt`` it is not an error
#: of markone's, and only :func:`markone.cli.main` catches it.
__all__ = ["sigterm_raises", "raise_if_terminated", "termination_handled"]

#: ``[True]`` once SIGTERM has arrived within :func:`sigterm_raises` (reset when the
#: block is entered and when it is left).
_RECEIVED = [False]


class Terminated(BaseException):
    """SIGTERM arrived: raised (by :func:`sigterm_raises`) wherever the command was, so
    that its cleanup runs (staging folders, temporary files), as for Ctrl-C. Like
    ``KeyboardInterrupt`` it is no error of markone's (not a ``MarkoneError``): only
    :func:`markone.cli.main` catches it."""


def raise_if_terminated() -> None:
    """Raise :class:`Terminated` when SIGTERM arrived within :func:`sigterm_raises`,
    even if the exception the handler raised was lost in a finaliser. Called just
    before output is committed (a file replaced, a staging folder moved in).

    >>> raise_if_terminated()    # outside the block, or no SIGTERM: nothing
    """
    if _RECEIVED[0]:
        raise Terminated


def termination_handled() -> None:
    """Say that a caught :class:`Terminated` has been dealt with: code that takes
    SIGTERM as its way to stop (``markone machine console`` saves and ends cleanly)
    calls this, so that the block and the writes after it go on.

    >>> termination_handled()    # nothing was recorded: nothing changes
    >>> raise_if_terminated()
    """
    _RECEIVED[0] = False


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in this process instead of
    ending it at once, so that a command killed by ``kill`` or a CI timeout removes
    what it had half written (``staged_output``, ``atomic_write``). If that exception
    is lost (raised inside a finaliser, which Python ignores), the block still ends
    with :class:`Terminated`, and nothing is committed meanwhile
    (:func:`raise_if_terminated`). A process forked from this one (a worker) keeps the
    default: it ends. Outside the main thread (where signals cannot be handled) the
    block runs as it is.

    >>> with sigterm_raises():
    ...     print("a SIGTERM here would raise Terminated")
    a SIGTERM here would raise Terminated
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pid = os.getpid()

    def handler(signum, frame):
        if os.getpid() != pid:            # a forked worker: end as it would have
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        _RECEIVED[0] = True
        raise Terminated

    _RECEIVED[0] = False
    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
        raise_if_terminated()             # its raise was lost: end as terminated
    finally:
        signal.signal(signal.SIGTERM, previous)
        _RECEIVED[0] = False
