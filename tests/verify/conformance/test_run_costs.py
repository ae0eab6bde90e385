"""What one ``--cmd`` run costs beside the program itself (issue 37): a suite starts a
supervisor and its program for every answer, hundreds per suite, so the supervisor
imports only what it needs, a finished run is not scanned for again and again, and
the supervisor's exit is told at once, not found by polling."""

import subprocess
import sys
import time
from types import SimpleNamespace

import verify.conformance.command as command
from verify.conformance.command import REAPER, OutputLimits, run_bounded

ENUM_AND_COLLECTIONS = {"enum", "collections", "functools"}


def test_the_supervisor_imports_no_enum_or_collections():
    """``signal`` imports ``enum`` (and with it ``collections`` and ``functools``):
    a third of the supervisor's start."""
    run = subprocess.run([sys.executable, "-I", "-S", "-X", "importtime", str(REAPER),
                          "true"], capture_output=True, text=True, check=True)
    imported = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines()
                if line.startswith("import time:")}
    assert "ctypes" in imported                     # the report is read right
    assert imported & ENUM_AND_COLLECTIONS == set()


def test_the_supervisor_without_children_left_does_not_scan_proc():
    """When its program has exited and no orphan is left, ``waitpid`` says so: the
    pass over every process of ``/proc`` is skipped."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import _reaper\n"
            "def scanned(): raise SystemExit('scanned /proc')\n"
            "_reaper.live_processes = scanned\n"
            "sys.exit(_reaper.main(['true']))\n")
    run = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(REAPER.parent)])
    assert run.returncode == 0      # 1: it scanned (its stderr is /dev/null by then)


def test_a_finished_run_is_stopped_without_polling(monkeypatch):
    """The run has ended (the supervisor killed what was left and exited): the exit
    is told by a pidfd, not by 50 ms sleeps, and the group is not scanned for again
    to wait on it, once after SIGTERM and once after SIGKILL."""
    def no_sleep(seconds):
        raise AssertionError(f"slept {seconds} s")

    def no_group_scan():
        raise AssertionError("scanned /proc for the group")

    # command's own clock only: time.sleep itself is every thread's (a test's
    # leftover watcher thread in this process would then fail instead)
    monkeypatch.setattr(command, "time", SimpleNamespace(monotonic=time.monotonic,
                                                         sleep=no_sleep))
    monkeypatch.setattr(command, "live_processes", no_group_scan)
    done = run_bounded([sys.executable, "-c", "print(input()[::-1])"], "abc\n",
                       limits=OutputLimits())
    assert (done.returncode, done.stdout) == (0, "cba\n")
