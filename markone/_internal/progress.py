"""Progress bars for long work (sweeps, searches, the Mark I on big sets): tqdm, shown
on a terminal only, so pipes and logs stay clean.

>>> import io
>>> out = io.StringIO()
>>> with progress_bar(3, "demo", stream=out) as bar:
...     bar.update(3)
>>> out.getvalue()  # not a terminal: nothing printed
''
>>> shown = io.StringIO()
>>> with progress_bar(4, "sweep", stream=shown, enabled=True) as bar:
...     bar.update(2)
>>> "sweep" in shown.getvalue() and "2/4" in shown.getvalue()
True
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
import os

__all__ = ["progress_bar", "search_bar", "SEARCH_DELAY_S", "QuietBar", "slow_step",
           "SLOW_STEP_S", "VERBOSE", "notice"]

#: A step that runs this long (a first run's compiling, building the Coq checker)
#: says what it is doing, once (:func:`slow_step`).
SLOW_STEP_S = 2.0

#: ``VERBOSE[0]``: say so off a terminal too (``markone --verbose``).
VERBOSE = [False]

#: what each :func:`slow_step` of this process has said already
_SAID: set[str] = set()


class QuietBar:
    """The bar :func:`progress_bar` returns when nothing is to be shown: it counts
    (``n``) and answers what a tqdm bar answers, and costs no import of tqdm.

    >>> with QuietBar() as bar:
    ...     bar.update(2)
    ...     bar.set_description("step", refresh=False)
    >>> bar.n
    2
    """

    def __init__(self, initial: int = 0) -> None:
        self.n = initial

    def update(self, n: int = 1) -> None:
        """Count ``n`` more steps."""
        self.n += n

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None:
        """Ignored: nothing is shown."""

    def close(self) -> None:
        """Nothing to close."""

    def __enter__(self) -> QuietBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress_bar(total, label="", *, initial=0, stream=None, enabled=None, delay=0.0,
                 unit="it"):
    """A :class:`tqdm.tqdm` bar over ``total`` steps, ``initial`` of them done already.

    ``enabled=None`` (default) shows it only when ``stream`` (default stderr) is a
    terminal; use it as a context manager and call ``bar.update(n)``. ``total=None``
    counts steps without an end (a search whose length is unknown). ``delay``: with
    ``enabled=None``, show the bar only once the work has taken this many seconds (so
    quick calls of a search stay silent on a terminal too); a bar asked for with
    ``enabled=True`` shows at once. Change its label with
    ``bar.set_description(text, refresh=False)``. ``unit`` names what is counted.
    """
    stream = sys.stderr if stream is None else stream
    auto = enabled is None
    if auto:
        enabled = bool(getattr(stream, "isatty", lambda: False)())
    if not enabled:  # nothing to show: tqdm is not even imported
        return QuietBar(initial)
    from tqdm import tqdm

    known = _terminal_size(stream)  # a terminal of unknown size (0 x 0) hides tqdm
    return tqdm(total=total, desc=label, initial=initial, file=stream,
                disable=not enabled, leave=True, mininterval=0.1,
                delay=float(delay) if auto else 0.0, unit=unit,
                ncols=None if known else 80, nrows=None if known else 24)


#: Seconds before a search's bar shows on a terminal (``progress=None``): the searches
#: in :mod:`verify` are called many times inside other checks, and most calls are quick.
#: It decides when a bar appears, never an answer: every search is limited by work,
#: the clock only when the user gives ``timeout_s`` (``verify._internal.budget``).
SEARCH_DELAY_S = 0.5


def search_bar(total, label, progress, unit="it"):
    """The bar of a search in :mod:`verify`: ``progress`` is the function's own
    argument (``None``: on a terminal, once the search has taken
    :data:`SEARCH_DELAY_S`; True: at once; False: never).

    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     with search_bar(None, "search", True) as bar:
    ...         bar.update(5)
    >>> "search" in err.getvalue() and "5it" in err.getvalue()
    True
    """
    return progress_bar(total, label, enabled=progress, delay=SEARCH_DELAY_S, unit=unit)


def _terminal_size(stream):
    """The terminal's columns x lines, or 0 when unknown."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return 0
    return size.columns * size.lines


@contextlib.contextmanager
def slow_step(what: str, *, after: float | None = None, stream=None) -> Iterator[None]:
    """Run the body; if it is still running ``after`` seconds (default
    :data:`SLOW_STEP_S`) later, print
    ``markone: WHAT...`` on ``stream`` (default stderr), once per process, from a
    timer thread: only the message depends on time, never what the body computes.
    Nothing is printed when ``stream`` is not a terminal, unless :data:`VERBOSE`.

    >>> import io, time
    >>> out = io.StringIO()
    >>> with slow_step("compiling", after=0.0, stream=out):
    ...     time.sleep(0.1)
    >>> out.getvalue()   # not a terminal: no timer, nothing
    ''
    >>> VERBOSE[0] = True
    >>> with slow_step("compiling the doctest", after=0.0, stream=out):
    ...     for _ in range(1000):   # until the timer has spoken (at most 10 s)
    ...         if out.getvalue():
    ...             break
    ...         time.sleep(0.01)
    >>> VERBOSE[0] = False
    >>> print(out.getvalue(), end="")
    markone: compiling the doctest...
    """
    stream = sys.stderr if stream is None else stream
    if what in _SAID or not _speaks(stream):
        yield
        return
    timer = threading.Timer(SLOW_STEP_S if after is None else after, _say, (what, stream))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def notice(what: str, *, stream=None) -> None:
    """Print ``markone: WHAT`` on ``stream`` (default stderr) once per process, when
    it is a terminal or with :data:`VERBOSE`: a remark on how a job runs (e.g. that
    compiled kernels cannot be cached), never on what it computes.

    >>> import io
    >>> out = io.StringIO()
    >>> notice("a remark", stream=out); out.getvalue()   # not a terminal
    ''
    >>> VERBOSE[0] = True
    >>> notice("a remark", stream=out); notice("a remark", stream=out)
    >>> VERBOSE[0] = False
    >>> print(out.getvalue(), end="")
    markone: a remark
    """
    stream = sys.stderr if stream is None else stream
    key = "notice: " + what
    if key not in _SAID and _speaks(stream):
        _SAID.add(key)
        print(f"markone: {what}", file=stream, flush=True)


def _speaks(stream):
    """Whether a remark on ``stream`` is shown: a terminal, or :data:`VERBOSE`."""
    return VERBOSE[0] or bool(getattr(stream, "isatty", lambda: False)())


def _say(what, stream):
    """Print ``what`` once per process (the timer of :func:`slow_step`)."""
    if what not in _SAID:
        _SAID.add(what)
        print(f"markone: {what}...", file=stream, flush=True)

