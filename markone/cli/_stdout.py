"""Standard output that cannot stop a command: printing ends, the work does not.

A reader that closes the pipe early (``| head -1``, ``| grep -q word``, a pager that
quits) makes every later write to stdout fail (``BrokenPipeError``); a full disk
(``> /dev/full``) makes it fail too. If that failure stopped the command where it
printed, every file the user asked for (``--out``, ``--certificate``, ``--json``,
``--report``...) that the command writes after that line would be lost. So
:func:`markone.cli.main` runs every command inside :func:`guarded_stdout`: the first
failure of stdout is remembered, what follows is printed nowhere (stdout is pointed at
the null device), and the command runs to its end, writing its files whole and
atomically. Only then does ``main`` end as the failure calls for
(:func:`stdout_failure_status`): quietly with :data:`~markone.cli._errors.EXIT_PIPE`
for a closed pipe, as a Unix tool that SIGPIPE stopped; with one line on stderr and
status 2 for any other failure.

>>> import io
>>> class Closed(io.StringIO):
...     def write(self, text):
...         raise BrokenPipeError(32, "Broken pipe")
>>> with guarded_stdout(Closed()) as out:
...     print("nobody reads this", file=out)
...     print("nor this", file=out)
>>> type(out.failure).__name__
'BrokenPipeError'
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from markone.cli._errors import EXIT_PIPE, EXIT_USAGE

__all__ = ["GuardedStdout", "guarded_stdout", "stdout_failure_status"]


class GuardedStdout:
    """A text stream in front of ``stream`` whose writes never raise ``OSError``.

    The first failure is kept in :attr:`failure`; from then on the stream's file
    descriptor (when it has one) points at the null device, so that what the stream
    still buffers, and the interpreter's last flush, go nowhere instead of failing
    again, and later writes are dropped. Every other attribute is the stream's own
    (``isatty``, ``fileno``, ``encoding``...).
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.failure: OSError | None = None

    def write(self, text: str) -> int:
        if self.failure is None:
            try:
                return self.stream.write(text)
            except OSError as exc:
                self._failed(exc)
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.failure is None:
            try:
                self.stream.flush()
            except OSError as exc:
                self._failed(exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)

    def _failed(self, exc: OSError) -> None:
        self.failure = exc
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, self.stream.fileno())
            finally:
                os.close(devnull)
        except (OSError, ValueError, AttributeError):  # no file descriptor (a StringIO)
            return
        with contextlib.suppress(OSError, ValueError):
            self.stream.flush()  # what was buffered goes to the null device


@contextlib.contextmanager
def guarded_stdout(stream: TextIO | None = None) -> Iterator[GuardedStdout]:
    """Within the block, ``sys.stdout`` is a :class:`GuardedStdout` in front of
    ``stream`` (default: the current ``sys.stdout``), flushed at the end of the block;
    ``sys.stdout`` is put back afterwards. The guard is yielded: its ``failure`` says
    whether (and how) stdout failed."""
    guard = GuardedStdout(sys.stdout if stream is None else stream)
    previous, sys.stdout = sys.stdout, guard
    try:
        yield guard
        guard.flush()
    finally:
        sys.stdout = previous


def stdout_failure_status(prog: str, failure: OSError) -> int:
    """The exit status of a command whose stdout failed with ``failure`` (its work is
    done and its files are written): :data:`~markone.cli._errors.EXIT_PIPE`, quietly,
    when the reader closed the pipe; otherwise one line on stderr and
    :data:`~markone.cli._errors.EXIT_USAGE`.

    >>> stdout_failure_status("markone", BrokenPipeError(32, "Broken pipe"))
    141
    """
    if isinstance(failure, BrokenPipeError):
        return EXIT_PIPE
    print(f"{prog}: error: could not print to stdout ({failure.strerror or failure}); "
          "the command ran to its end and wrote the files it was asked for; send its "
          "output where it can be written.", file=sys.stderr)
    return EXIT_USAGE
