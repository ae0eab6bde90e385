"""Run a program under test with bounds: its own process group, limits on what it
writes, and one deadline for the whole exchange.

``markone adversary check --cmd`` runs code nobody reviewed. :func:`run_bounded`
starts it in a new session (so it and everything it forks share one process group),
writes the problem on its stdin and reads stdout and stderr as they come, counting:

* the bytes written on stdout and stderr together (``max_output``);
* the nesting depth and the length of each number of the JSON on stdout
  (``max_depth``, ``max_digits``), checked chunk by chunk by :class:`JSONShapeGuard`
  before anything is parsed;
* the lines of stderr kept to show (``max_stderr_lines``; the rest are counted, not
  kept).

Over a limit, past the deadline, or once the program has exited, the whole process
group is stopped (SIGTERM, then SIGKILL after a short grace), and so is every process
of the run that left the group. On Linux the program runs under a supervisor
(:data:`REAPER`, :func:`supervised`): a child subreaper, so every process the program
orphans (after a ``setsid()``, with its environment emptied, its parents gone) is
re-parented to it, and it kills them all when the program exits or it is stopped.
Besides, each run's environment holds its own mark (:data:`RUN_MARKER`), which every
descendant inherits whatever group or session it moves to, and a walk over ``/proc``
finds the marked processes and the run's process tree; so no child it forked
outlives the run. Limits raise :class:`OutputLimitExceeded` naming the limit and the
option that raises it.

>>> import sys
>>> run = run_bounded([sys.executable, "-c", "print(input()[::-1])"], "abc",
...                   timeout_s=30, limits=OutputLimits())
>>> run.returncode, run.stdout
(0, 'cba\\n')
"""

from __future__ import annotations

import codecs
import errno
import math
import os
import re
import secrets
import select
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from verify._internal.budget import check_timeout

from verify.conformance._reaper import live_processes
from verify.conformance.protocol import over_limit
from verify.errors import DeadlineExceeded, LimitExceeded, OutputLimitExceeded

__all__ = ["OutputLimits", "Finished",
           "JSONShapeGuard", "StderrTail", "run_bounded", "stop_group", "MAX_DEPTH_CEILING",
           "RUN_MARKER", "run_processes", "escape_controls", "supervised", "REAPER"]

_CHUNK = 1 << 16
# The three waits below decide no verdict: they only clean up after a run that has
# ended (or pace the reads), whatever the result.
#: How long a process group gets to exit after SIGTERM before SIGKILL.
TERM_GRACE_S = 0.5
#: How long to wait for SIGKILLed processes to finish dying.
KILL_WAIT_S = 5.0
_POLL_S = 0.05
#: The deepest nesting ``max_depth`` may allow.
MAX_DEPTH_CEILING = 500
#: The environment variable that marks every process of one run (a fresh value each
#: run); the processes that hold it are stopped with the run.
RUN_MARKER = "MARKONE_CMD_RUN"
#: The supervisor every run's program is started under on Linux (a script, run by
#: path with ``python -I -S``: it imports nothing of markone).
REAPER = Path(__file__).with_name("_reaper.py")
#: How many times the marked processes left are looked for and killed (one that forks
#: as it dies leaves a new one each time).
KILL_PASSES = 20


@dataclass(frozen=True)
class OutputLimits:
    """What a program under test may write in one run.

    ``max_output`` bytes on stdout and stderr together; JSON on stdout nested at most
    ``max_depth`` deep with numbers of at most ``max_digits`` characters (digits, and
    a string number's exponent, count: ``"1e99999"`` is 100,000 digits); at most
    ``max_stderr_lines`` lines of stderr are kept to show.

    >>> OutputLimits().max_depth
    64
    """

    max_output: int = 16 * 2**20
    max_depth: int = 64
    max_digits: int = 4000
    max_stderr_lines: int = 40

    def __post_init__(self) -> None:
        for name in ("max_output", "max_depth", "max_digits", "max_stderr_lines"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}(={value!r}) must be a positive integer.")
        if self.max_depth > MAX_DEPTH_CEILING:
            raise ValueError(f"CommandAdapter.max_depth is {self.max_depth}, over the "
                             f"ceiling of {MAX_DEPTH_CEILING}: Python's JSON reader "
                             "recurses once per level.")


@dataclass(frozen=True)
class Finished:
    """A run that ended in time: exit status, stdout (decoded, U+FFFD for bytes that
    are not UTF-8) and what is shown of stderr (see :class:`StderrTail`)."""

    returncode: int
    stdout: str
    stderr: str


# ---- the JSON on stdout, checked as it arrives ----------------------------------------

_STRUCTURE = re.compile(r'["\[\]{}]')
_IN_STRING = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*')
_NUMBER_CHARS = "-+0123456789.eE"


class JSONShapeGuard:
    """Check JSON text chunk by chunk, before it is parsed: nesting depth at most
    ``max_depth``, no number token longer than ``max_digits`` characters.

    Strings are skipped (escapes included, across chunk boundaries); the guard does
    not validate JSON, it only bounds what ``json.loads`` will be asked to build.
    Runs of numbers are checked by regular expressions, not character by character.

    >>> g = JSONShapeGuard(max_depth=2, max_digits=5)
    >>> g.feed('{"w": [1, 2'); g.feed('3]}')
    >>> g.feed('[[[')
    Traceback (most recent call last):
    ...
    verify.errors.LimitExceeded: the answer nests JSON more than 2 deep (the limit is 2, --max-depth); raise --max-depth if a correct answer really needs more
    """

    def __init__(self, *, max_depth: int, max_digits: int) -> None:
        self.max_depth, self.max_digits = max_depth, max_digits
        self.depth = 0
        self.in_string = False
        self.escaped = False      # the chunk ended right after a backslash in a string
        self.number = 0           # characters of a number token cut by the chunk's end
        self._long_number = re.compile(f"[{re.escape(_NUMBER_CHARS)}]{{{max_digits + 1}}}")

    def feed(self, text: str) -> None:
        pos, n = 0, len(text)
        while pos < n:
            if self.in_string:
                pos = self._string(text, pos)
                continue
            m = _STRUCTURE.search(text, pos)
            self._numbers(text, pos, n if m is None else m.start(), at_end=m is None)
            if m is None:
                return
            tok = m.group()
            if tok == '"':
                self.in_string = True
            elif tok in "[{":
                self.depth += 1
                if self.depth > self.max_depth:
                    raise over_limit(f"the answer nests JSON more than {self.max_depth} "
                                     "deep", self.max_depth, "max-depth")
            else:
                self.depth -= 1
            pos = m.end()

    def _numbers(self, text, start, end, *, at_end):
        """Check the number tokens in ``text[start:end]`` (no strings, no brackets),
        one of them possibly continuing a number cut by the previous chunk's end."""
        segment = text[start:end]
        lead = len(segment) - len(segment.lstrip(_NUMBER_CHARS))
        carried = self.number if start == 0 else 0
        if carried + lead > self.max_digits or self._long_number.search(segment):
            raise over_limit(f"the answer has a number of more than "
                             f"{self.max_digits:,} characters", self.max_digits,
                             "max-digits")
        if not at_end:
            self.number = 0
        elif lead == len(segment):
            self.number = carried + lead
        else:
            self.number = len(segment) - len(segment.rstrip(_NUMBER_CHARS))

    def _string(self, text, pos):
        if self.escaped:            # the character after a backslash cut by a chunk
            self.escaped = False
            pos += 1
        end = _IN_STRING.match(text, pos).end()
        if end == len(text):
            return end
        if text[end] == "\\":       # a backslash as the chunk's last character
            self.escaped = True
            return end + 1
        self.in_string = False      # the closing quote
        return end + 1


# ---- stderr: kept in part, counted in full --------------------------------------------

class StderrTail:
    """The first ``max_lines`` lines of stderr (each cut at ``width`` characters, its
    control characters escaped: :func:`escape_controls`); later lines are counted, not
    kept.

    >>> s = StderrTail(max_lines=2)
    >>> s.feed("a\\nb\\x1b[2Jc\\r\\nc\\nd")
    >>> print(s.text())
    a
    b\\x1b[2Jc
    ... 2 more lines of stderr not shown (--max-stderr-lines 2)
    """

    def __init__(self, max_lines: int, width: int = 400) -> None:
        self.max_lines, self.width = max_lines, width
        self.lines: list[str] = []
        self.partial = ""
        self.dropped = 0

    def feed(self, text: str) -> None:
        *complete, partial = (self.partial + text).split("\n")
        for line in complete:
            self._keep(line)
        self.partial = partial[: self.width + 1]    # a line longer than that is cut

    def _keep(self, line):
        if len(self.lines) < self.max_lines:
            self.lines.append(_cut(line, self.width))
        else:
            self.dropped += 1

    def text(self) -> str:
        """The lines kept, and how many were not."""
        lines, dropped = list(self.lines), self.dropped
        if self.partial:
            if len(lines) < self.max_lines:
                lines.append(_cut(self.partial, self.width))
            else:
                dropped += 1
        if dropped:
            lines.append(f"... {dropped:,} more line{'s' * (dropped != 1)} of stderr "
                         f"not shown (--max-stderr-lines {self.max_lines})")
        return "\n".join(lines)


def _cut(line, width):
    line = escape_controls(line[:-1] if line.endswith("\r") else line)  # CRLF: a line
    return line if len(line) <= width else line[:width] + " ...(line cut)"


#: What a terminal acts on rather than shows: C0 controls but the tab, DEL, C1
#: controls (CSI, OSC...), and the invisible and bidirectional format characters.
_CONTROLS = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e"
                       "\u2060-\u2069\ufeff]")


def escape_controls(text: str) -> str:
    """``text`` with every control character written as its escape (``\\x1b``,
    ``\\u202e``): shown, never acted on by the terminal (a program's stderr cannot
    clear the screen, move the cursor, set the title or reverse the text).

    >>> print(escape_controls("red \\x1b[31mtext\\x07 \\u202eevil"))
    red \\x1b[31mtext\\x07 \\u202eevil
    """
    return _CONTROLS.sub(lambda m: repr(m[0])[1:-1], text)


# ---- the run --------------------------------------------------------------------------

def run_bounded(argv: Sequence[str], stdin_text: str, *, timeout_s: float | None = None,
                limits: OutputLimits) -> Finished:
    """Run ``argv`` with ``stdin_text`` on its stdin, within ``limits`` and (only when
    given) ``timeout_s`` seconds; the program and everything it started are gone when
    this returns.

    Raises
    ------
    DeadlineExceeded
        The exchange (writing stdin, reading the answer, the program's exit) took
        longer than ``timeout_s``; ``args[1]`` is the stderr shown.
    OutputLimitExceeded
        A limit was exceeded; ``args[1]`` is the stderr shown.
    """
    timeout_s = check_timeout(timeout_s)
    deadline = math.inf if timeout_s is None else time.monotonic() + timeout_s
    marker = f"{RUN_MARKER}={secrets.token_hex(16)}"
    proc = subprocess.Popen(supervised(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
                            env={**os.environ, RUN_MARKER: marker.partition("=")[2]})
    exchange = _Exchange(proc, stdin_text.encode(), limits)
    try:
        exchange.run(deadline)
        returncode = proc.wait()
    finally:
        stop_group(proc, marker=marker)
    return Finished(returncode, exchange.stdout_text(), exchange.stderr.text())


def supervised(argv: Sequence[str]) -> list[str]:
    """``argv`` run under the supervisor :data:`REAPER` (Linux: a child subreaper that
    every orphaned process of the run is re-parented to, and that kills them all when
    the program exits or it is stopped), or as it is elsewhere.

    Raises
    ------
    FileNotFoundError
        When ``argv[0]`` is no program (as ``subprocess.Popen`` would).
    """
    argv = list(argv)
    if not sys.platform.startswith("linux") or not os.path.isdir("/proc"):
        return argv
    if not argv or shutil.which(argv[0]) is None:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory",
                                argv[0] if argv else "")
    return [sys.executable, "-I", "-S", str(REAPER), *argv]


class _Exchange:
    """The reads and writes of one run, multiplexed on one selector."""

    def __init__(self, proc: subprocess.Popen, data: bytes, limits: OutputLimits
                 ) -> None:
        self.proc, self.data, self.limits = proc, memoryview(data), limits
        self.total = 0
        self.out: list[str] = []
        self.guard = JSONShapeGuard(max_depth=limits.max_depth,
                                    max_digits=limits.max_digits)
        self.stderr = StderrTail(limits.max_stderr_lines)
        self.decoders = {name: codecs.getincrementaldecoder("utf-8")(errors="replace")
                         for name in ("stdout", "stderr")}

    def stdout_text(self):
        return "".join(self.out)

    def run(self, deadline):
        proc = self.proc
        with selectors.DefaultSelector() as sel:
            if self.data:
                os.set_blocking(proc.stdin.fileno(), False)
                sel.register(proc.stdin, selectors.EVENT_WRITE, "stdin")
            else:
                proc.stdin.close()
            sel.register(proc.stdout, selectors.EVENT_READ, "stdout")
            sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
            while any(key.data != "stdin" for key in sel.get_map().values()):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DeadlineExceeded(timeout_words(proc), self.stderr.text())
                for key, _ in sel.select(min(left, _POLL_S)):
                    self._step(sel, key)
                if _exited(proc):      # its children may hold the pipes open: drain
                    self._drain(sel)
                    break
            self._close(sel)
        if proc.stdin and not proc.stdin.closed:
            proc.stdin.close()
        if not _await_exit(proc, deadline):
            raise DeadlineExceeded(timeout_words(proc), self.stderr.text())

    def _step(self, sel, key):
        if key.data == "stdin":
            try:
                sent = os.write(key.fd, self.data[:_CHUNK])
            except BlockingIOError:
                return
            except (BrokenPipeError, OSError):   # it stopped reading: its business
                sent = len(self.data)
            self.data = self.data[sent:]
            if not self.data:
                sel.unregister(key.fileobj)
                key.fileobj.close()
            return
        chunk = os.read(key.fd, _CHUNK)
        if not chunk:
            sel.unregister(key.fileobj)
            return
        self._take(key.data, chunk)

    def _take(self, stream, chunk):
        self.total += len(chunk)
        try:
            if self.total > self.limits.max_output:
                raise over_limit(f"the program wrote too much on stdout and stderr "
                                 f"together (the last bytes on {stream})",
                                 self.limits.max_output, "max-output", " bytes")
            text = self.decoders[stream].decode(chunk)
            if stream == "stderr":
                self.stderr.feed(text)
                return
            self.guard.feed(text)
        except LimitExceeded as exc:
            raise OutputLimitExceeded(str(exc), self.stderr.text()) from None
        self.out.append(text)

    def _drain(self, sel):
        for key in list(sel.get_map().values()):
            if key.data == "stdin":
                continue
            os.set_blocking(key.fd, False)
            while True:
                try:
                    chunk = os.read(key.fd, _CHUNK)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                self._take(key.data, chunk)

    def _close(self, sel):
        for key in list(sel.get_map().values()):
            sel.unregister(key.fileobj)
        for name in ("stdout", "stderr"):
            text = self.decoders[name].decode(b"", final=True)
            if text:
                (self.out.append if name == "stdout" else self.stderr.feed)(text)


def timeout_words(proc: subprocess.Popen) -> str:
    """What a deadline stopped: still running, or exited with its pipes held open."""
    if _exited(proc):
        return "its children still held stdout or stderr open"
    return "it was still running"


def _await_exit(proc, deadline):
    """Wait until ``proc`` has exited (True) or ``deadline`` has passed (False), without
    reaping it. Told at once by a pidfd (Linux 5.3 on), which turns readable when the
    process exits, not in ``_POLL_S`` steps (the supervisor exits just after its
    program: 50 ms of waiting in every run, issue 37)."""
    try:
        pidfd = os.pidfd_open(proc.pid) if not _exited(proc) else None
    except (AttributeError, OSError):   # no pidfd_open here: poll
        pidfd = None
    try:
        while not _exited(proc):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if pidfd is None:
                time.sleep(min(left, _POLL_S))
            else:
                select.select([pidfd], [], [], min(left, 1.0))
        return True
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _exited(proc):
    """Has ``proc`` exited? Asked without reaping it, so its process group id stays
    its own until :func:`stop_group` has signalled the group."""
    if proc.returncode is not None:
        return True
    try:
        info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def stop_group(proc: subprocess.Popen, grace_s: float = TERM_GRACE_S, *,
               marker: str | None = None) -> None:
    """Stop every process in ``proc``'s group: SIGTERM, then SIGKILL for those still
    there after ``grace_s``; then reap ``proc`` and close its pipes. With ``marker``
    (``NAME=VALUE``, set in the run's environment), the processes that left the group
    go too: ``proc``'s descendants and every process whose environment holds
    ``marker`` get the SIGTERM, then SIGKILL.

    ``proc`` must have been started with ``start_new_session=True`` (its pid is its
    group's id) and not yet reaped (so the id cannot have been reused)."""
    pgid = proc.pid
    outside, group_alive = _run_scan(pgid, marker) if marker else (set(), True)
    if not (outside or group_alive):   # all gone (the supervisor's work): no grace to
        _signal_group(pgid, signal.SIGKILL)  # give, and one born since the scan dies
    elif _signal_group(pgid, signal.SIGTERM):
        _signal_each(outside, signal.SIGTERM)
        _wait_group(pgid, proc, grace_s)
        if _signal_group(pgid, signal.SIGKILL):   # cannot be ignored: gone at once
            _wait_group(pgid, proc, KILL_WAIT_S)
    if marker:
        _kill_run(pgid, marker, outside)
    proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None and not pipe.closed:
            pipe.close()


def _signal_each(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _kill_run(root, marker, outside):
    """SIGKILL what is left of a run, pass by pass, until a pass finds nothing."""
    left = set(outside)
    for _ in range(KILL_PASSES):
        left = {pid for pid in left if _alive(pid)} | run_processes(root, marker)
        if not left:
            return
        _signal_each(left, signal.SIGKILL)
        time.sleep(0.01)


def _alive(pid):
    stat = _read_proc(pid, "stat")
    return stat is not None and stat[stat.rfind(b")") + 2:][:1] != b"Z"


def _read_proc(pid, name):
    try:
        with open(f"/proc/{pid}/{name}", "rb") as f:
            return f.read()
    except OSError:
        return None


def run_processes(root: int, marker: str) -> set[int]:
    """The live processes of a run, by one pass over ``/proc``: those whose environment
    holds ``marker`` (``NAME=VALUE``) and the descendants of ``root`` and of those (a
    process that ``setsid()``s stays in both). Empty without ``/proc``.

    >>> run_processes(-1, "MARKONE_CMD_RUN=none")
    set()
    """
    return _run_scan(root, marker)[0]


def _run_scan(root, marker):
    """``(run_processes(root, marker), is a live process in root's group?)``, by one
    pass over ``/proc`` (``(set(), True)`` without it: the group may be alive)."""
    try:
        entries = [int(e) for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return set(), True
    parent, marked, groups = _live_parents(entries, marker.encode())
    found = {root} | marked
    while True:  # one generation of descendants per pass (a tree is a few deep)
        born = {pid for pid, ppid in parent.items() if ppid in found} - found
        if not born:
            me = os.getpid()
            return {pid for pid in found if pid in parent and pid != me}, root in groups
        found |= born


def _live_parents(entries, mark):
    """``({pid: parent pid}, {pids whose environment holds mark}, {their groups})``
    of the live (not zombie) processes among ``entries``."""
    parent, marked, groups = {}, set(), set()
    for pid in entries:
        stat = _read_proc(pid, "stat")
        fields = stat[stat.rfind(b")") + 2:].split() if stat else [b"Z"]
        if fields[0] == b"Z":
            continue
        parent[pid] = int(fields[1])
        groups.add(int(fields[2]))
        if mark in (_read_proc(pid, "environ") or b"").split(b"\0"):
            marked.add(pid)
    return parent, marked, groups


def _wait_group(pgid, proc, seconds):
    end = time.monotonic() + seconds
    while _group_alive(pgid, proc) and time.monotonic() < end:
        time.sleep(0.01)


def _signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _group_alive(pgid, proc):
    """Is any process of the group still running (zombies do not count: the leader
    is one until reaped, its orphans until their new parent reaps them)?"""
    try:
        return any(int(fields[2]) == pgid for _, fields in live_processes())
    except OSError:               # no /proc: ask the kernel about the whole group
        return _signal_group(pgid, 0) and not _exited(proc)
