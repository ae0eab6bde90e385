"""The supervisor a ``--cmd`` program runs under: it owns every process of the run.

``python -I -S _reaper.py PROGRAM ARGS...`` makes itself a child subreaper (Linux:
``prctl(PR_SET_CHILD_SUBREAPER)``), so that every process the program starts and then
orphans (a double fork, a ``setsid()``, an emptied environment: whatever it does) is
re-parented to it instead of to init. It starts the program with its own stdin,
stdout and stderr, closes its copies of them, and waits. When the program exits, or
when the supervisor is sent SIGTERM (or SIGINT, SIGHUP), it SIGKILLs its children,
reaps them, and repeats until it has none left (the orphans of each pass are its
children in the next), then exits with the program's status (a signal that ended the
program ends it too). Only the standard library is imported, and nothing of markone:
it starts in about twenty milliseconds of CPU.

:func:`verify.conformance.command.run_bounded` runs a program under it on Linux (see
:data:`verify.conformance.command.REAPER`).
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys

# The C module behind ``signal`` (the same functions and numbers), and
# ``collections.abc`` only for the type checker: ``enum``, ``collections``,
# ``functools`` are not imported, a third of the supervisor's start (it starts once
# per answer, issue 37).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    from collections.abc import Iterator
else:
    import _signal as signal

__all__ = ["PR_SET_CHILD_SUBREAPER", "become_subreaper", "live_processes", "children",
           "kill_all", "main"]

#: ``prctl`` option of ``<linux/prctl.h>``.
PR_SET_CHILD_SUBREAPER = 36
#: The most passes of :func:`kill_all` (each kills one generation of orphans).
MAX_PASSES = 1000


def become_subreaper() -> bool:
    """Make this process a child subreaper; False where the kernel has no such
    option (not Linux, or older than 3.4)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def live_processes() -> Iterator[tuple[int, list[bytes]]]:
    """``(pid, fields)`` of every live (not zombie) process, by a pass over ``/proc``:
    the fields of its ``stat`` after the name (state, parent, group, ...). OSError
    without ``/proc``."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if fields[0] != b"Z":
            yield int(entry), fields


def children(pid: int) -> list[int]:
    """The live (not zombie) children of ``pid``."""
    return [child for child, fields in live_processes() if int(fields[1]) == pid]


def _reap() -> bool:
    """Reap every child that has exited (never blocks); True when no child is left."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        if pid == 0:
            return False


def kill_all() -> None:
    """SIGKILL every child, reap, and again, until none is left: a killed child's
    own children are re-parented here, and go in the next pass."""
    me = os.getpid()
    for _ in range(MAX_PASSES):
        if _reap():
            return
        left = children(me)
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in left:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _stop(signum: int, frame: object) -> None:
    kill_all()
    os._exit(128 + signum)


def main(argv: list[str]) -> int:
    """Run ``argv`` as the run's program (see the module doc); its exit status."""
    become_subreaper()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _stop)       # the program starts with the default action
    try:
        program = os.posix_spawnp(argv[0], argv, os.environ)
    except OSError as exc:
        print(f"cannot run {argv[0]!r}: {exc.strerror}", file=sys.stderr)
        return 127
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):        # the pipes close when the program's side closes
        os.dup2(null, fd)
    status = os.waitstatus_to_exitcode(os.waitpid(program, 0)[1])
    kill_all()
    if status < 0:              # ended by a signal: so is this (without a core file)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if -status != signal.SIGKILL:
            signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    return status & 0xFF


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
