"""SIGTERM as an exception that cannot be lost.

Within :func:`sigterm_raises`, a SIGTERM (``kill``, a CI timeout, a service manager)
raises :class:`Terminated` wherever the main thread is, so that cleanup runs
(``atomic_write``'s temporary file, ``staged_output``'s staging folder) as it does for
Ctrl-C. Python drops an exception raised inside a finaliser (a ``__del__``, a weakref
callback; it prints "Exception ignored in ..." and goes on), and a signal handler
runs inside one whenever the signal arrives while a finaliser's code runs. The
handler therefore also records that SIGTERM arrived, and every place that commits
output the user asked for calls :func:`raise_if_terminated` first: a command whose
``Terminated`` was lost still writes nothing and ends as terminated. The moments the
handler is put in and taken out are guarded too: a SIGTERM then is noted, never
dropped, and the block ends as terminated (after its work, when it came as the block
was left: what the work wrote stays, whole).

>>> with sigterm_raises():
...     raise_if_terminated()        # no SIGTERM: nothing happens
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

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
    (:func:`raise_if_terminated`). A SIGTERM that arrives while the block puts the
    previous handler back is not lost either (:func:`_put_back`): the block's work is
    done by then, so what it wrote stays, whole, and the block ends with
    :class:`Terminated`. A process forked from this one (a worker) keeps the
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
    raising = [False]                     # False while the handler is swapped: noted only

    def handler(signum, frame):
        if os.getpid() != pid:            # a forked worker: end as it would have
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        _RECEIVED[0] = True
        if raising[0]:
            raise Terminated

    _RECEIVED[0] = False
    previous = signal.signal(signal.SIGTERM, handler)
    closed = False
    try:
        raising[0] = True
        raise_if_terminated()             # it came as the handler was put in
        yield
        raise_if_terminated()             # its raise was lost: end as terminated
    except GeneratorExit:                 # never entered: the raise reached the caller
        closed = True
        raise
    finally:
        raising[0] = False                # no call before this line: nothing raises
        came = _put_back(previous) or _RECEIVED[0]
        _RECEIVED[0] = False
        if came and not closed:
            raise Terminated


def _put_back(previous: Any) -> bool:
    """Make ``previous`` SIGTERM's handler again; return whether a SIGTERM arrived
    meanwhile (the caller's handler, which only notes it now, may also have run).

    CPython runs a signal's Python handler later than the signal arrives: its C
    handler notes the signal, and the note is read at the next safe point. A note
    still unread when ``signal.signal`` has put the default action back is dropped
    ("Signal 15 ignored due to race condition"). The C handler also writes the
    signal's number to the wakeup file descriptor, on whatever thread it ran: one of
    ours is set for the swap, and read after it. Once the swap is done, a SIGTERM goes
    to ``previous`` (the default action ends the process) and nothing more is noted.

    >>> _put_back(signal.getsignal(signal.SIGTERM))
    False
    """
    reader, writer = socket.socketpair()
    with reader, writer:
        writer.setblocking(False)
        reader.setblocking(False)
        other = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        try:
            with _race_unsaid():
                signal.signal(signal.SIGTERM, previous)
        finally:
            signal.set_wakeup_fd(other)
        noted = _drain(reader)
    if other != -1 and noted:             # the wakeups were another reader's too
        with contextlib.suppress(OSError):
            os.write(other, noted)
    return signal.SIGTERM in noted


@contextlib.contextmanager
def _race_unsaid() -> Iterator[None]:
    """Within the block, CPython's report of a SIGTERM it dropped ("Exception ignored
    ... Signal 15 ignored due to race condition", printed on stderr) is not printed:
    :func:`_put_back` sees that SIGTERM and the command ends as terminated, saying so
    in one line. Every other unraisable exception is reported as before.

    >>> with _race_unsaid():
    ...     pass
    """
    said = f"Signal {int(signal.SIGTERM)} ignored due to race condition"
    report = sys.unraisablehook

    def unless_the_race(unraisable: Any) -> None:
        if not (isinstance(unraisable.exc_value, OSError)
                and str(unraisable.exc_value) == said):
            report(unraisable)

    sys.unraisablehook = unless_the_race
    try:
        yield
    finally:
        sys.unraisablehook = report


def _drain(reader: socket.socket) -> bytes:
    """Every byte waiting in ``reader`` (a non-blocking socket)."""
    chunks = []
    with contextlib.suppress(BlockingIOError):
        while chunk := reader.recv(4096):
            chunks.append(chunk)
    return b"".join(chunks)
