"""Run a command with a pseudo-terminal as its stdin, stdout and stderr (what a user
at a terminal sees), for the tests of what is shown only on a terminal."""

from __future__ import annotations

import os
import pty
import subprocess

__all__ = ["on_a_terminal"]


def on_a_terminal(argv, env=None, timeout=120):
    """Run ``argv`` on a new pseudo-terminal; return (exit status, everything the
    terminal showed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave,
                            close_fds=True, env=env)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return proc.wait(timeout=timeout), shown.decode(errors="replace")
