"""Run a command and report the peak memory of its whole process tree (Linux).

``python benchmarks/pss_peak.py [--every S] [--json PATH] -- COMMAND ...`` runs
``COMMAND``, samples every ``S`` seconds (0.3 by default) the proportional set size
(PSS, from ``/proc/PID/smaps_rollup``) of the command and of every process it started,
and prints, when it ends: the largest sum over the tree seen at one moment (what the
machine must hold at once: shared pages counted once), which processes made it up, the
largest single process, and the tree's CPU seconds (user + system of the command and
the processes it waited for) with its wall time. Its exit status is the command's.

A process that lives shorter than one sampling interval can be missed, so the peak is
a lower bound; PSS rather than RSS, so that pages shared by forked workers are not
counted twice. Used to measure the test suite's cost stated in README.md::

    python benchmarks/pss_peak.py --json /tmp/suite.json -- python -m pytest -p no:randomly
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["main", "process_tree", "tree_pss"]


def _children() -> dict[int, list[int]]:
    """Each live process's children, read from ``/proc/*/stat``."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended while we looked
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    return children


def process_tree(root: int) -> list[int]:
    """The process ``root`` and all its live descendants.

    Example
    -------
    >>> os.getpid() in process_tree(os.getpid())
    True
    """
    children, tree, todo = _children(), [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, ()))
    return tree


def _pss_kib(pid: int) -> tuple[int, str]:
    """A process's PSS in KiB and its command line (0 if it has ended)."""
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return 0, ""
    for line in rollup.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]), cmd.strip()[:100]
    return 0, ""


def tree_pss(root: int) -> list[tuple[int, int, str]]:
    """``(KiB, pid, command)`` of each live process of the tree of ``root``.

    Example
    -------
    >>> sum(kib for kib, _, _ in tree_pss(os.getpid())) > 0
    True
    """
    return [(kib, pid, cmd) for pid in process_tree(root)
            for kib, cmd in [_pss_kib(pid)] if kib]


def _watch(proc: subprocess.Popen, every: float) -> dict:
    """Sample the tree of ``proc`` until it ends: the peak sum and the largest one."""
    peak: list[tuple[int, int, str]] = []
    largest = (0, 0, "")
    while proc.poll() is None:
        sample = tree_pss(proc.pid)
        if sum(s[0] for s in sample) > sum(s[0] for s in peak):
            peak = sample
        largest = max([largest, *sample])
        time.sleep(every)
    return {"peak_kib": sum(s[0] for s in peak), "largest_kib": largest[0],
            "largest": largest[2],
            "at_peak": [{"kib": k, "pid": p, "cmd": c} for k, p, c in sorted(peak)[::-1]]}


def main(argv: list[str] | None = None) -> int:
    """Run the command of ``argv`` (after ``--``), print its peak; return its status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=float, default=0.3, help="seconds between samples")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    start = time.monotonic()
    proc = subprocess.Popen(command)
    figures = _watch(proc, args.every)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures.update(status=proc.returncode, wall_s=round(time.monotonic() - start, 1),
                   cpu_s=round(used.ru_utime + used.ru_stime, 1), command=command)
    print(f"peak summed PSS {figures['peak_kib'] / 2**20:.2f} GiB; largest process "
          f"{figures['largest_kib'] / 2**20:.2f} GiB ({figures['largest']}); "
          f"CPU {figures['cpu_s']} s; wall {figures['wall_s']} s", file=sys.stderr)
    for part in figures["at_peak"][:8]:
        print(f"  {part['kib'] / 2**20:.2f} GiB  {part['cmd']}", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
