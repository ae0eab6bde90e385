"""Run a command with a pseudo-terminal as its stdin, stdout and stderr (what a user
at a terminal sees), for the tests of what is shown only on a terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import subprocess
import termios
import time

__all__ = ["on_a_terminal", "interrupted_on_a_terminal"]


def on_a_terminal(argv, env=None, timeout=120):
    """Run ``argv`` on a new pseudo-terminal; return (exit status, everything the
    terminal showed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave,
                            close_fds=True, env=env)
    os.close(slave)
    shown = b""
    while chunk := _next_shown(master):
        shown += chunk
    os.close(master)
    return proc.wait(timeout=timeout), shown.decode(errors="replace")


def _next_shown(master):
    """What the terminal shows next (waiting for it), or ``b""`` once the child has
    closed the terminal."""
    try:
        return os.read(master, 4096)
    except OSError:  # the child closed the terminal
        return b""


def _controlling_terminal():
    """In the child: lead a new session, with its stdin (the pty) as the controlling
    terminal, so the line discipline sends the terminal's SIGINT to it, and take
    SIGINT's default action, as a job a user starts from an interactive shell does: a
    process started in the background of a script (``pytest &``) ignores SIGINT, and
    so would every process it starts, this one included, if it were inherited."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def interrupted_on_a_terminal(argv, once, env=None, cwd=None, timeout=60):
    """Run ``argv`` on a new pseudo-terminal it controls, as a shell's foreground job;
    as soon as the terminal shows ``once`` (a string), type Ctrl-C on it: the
    terminal, not ``os.kill``, sends SIGINT to the job, as a user's keypress does.
    Return (exit status, everything the terminal showed); a process killed by a signal
    has the shell's status for it (128 + the signal's number)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave,
                            close_fds=True, env=env, cwd=cwd,
                            preexec_fn=_controlling_terminal)
    os.close(slave)
    shown, typed, ends = b"", False, time.monotonic() + timeout
    while time.monotonic() < ends:
        ready, _, _ = select.select([master], [], [], 1)
        if not ready:
            continue
        chunk = _next_shown(master)
        if not chunk:
            break
        shown += chunk
        if not typed and once.encode() in shown:
            os.write(master, b"\x03")
            typed = True
    os.close(master)
    try:
        status = proc.wait(timeout=max(ends - time.monotonic(), 1))
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert typed, f"{once!r} never showed: {shown[-300:]!r}"
    return (128 - status if status < 0 else status), shown.decode(errors="replace")


def last_line_seen(shown):
    """The last line a terminal shows after ``shown``: a carriage return goes back to
    the line's start, what follows overwrites it, ESC [K erases the rest of the line;
    "" when ``shown`` ends its last line. Other escapes are left as they are.

    >>> last_line_seen("bar 3/10^C\\r\\x1b[Kstopped\\r\\n")
    ''
    >>> last_line_seen("bar 3/10^C\\r\\x1b[Kstopped")
    'stopped'
    >>> last_line_seen("bar 3/10\\rab")
    'abr 3/10'
    """
    line = shown.split("\n")[-1]
    cells, column = [], 0
    for part in re.split(r"(\r|\x1b\[K)", line):
        if part == "\r":
            column = 0
        elif part == "\x1b[K":
            del cells[column:]
        else:
            cells[column:column + len(part)] = part
            column += len(part)
    return "".join(cells)


def lines_seen(shown):
    """Every line a terminal shows after ``shown``, each as :func:`last_line_seen`."""
    lines = shown.split("\n")
    return [last_line_seen(line) for line in lines]
