"""Regenerate every performance number the docs quote, in one run, and print the ratios.

Runs the benchmarks one after the other, each in a fresh process (so one's imports and
compiled kernels do not flatter the next), with ``--write-docs`` where the benchmark
has it: each then replaces its measured block in ``docs/`` (see ``_docblock.py``).
The load is printed before each, and at the end the lines that carry a ratio or a
target, so the issue's goals can be read off one run. Run it on an idle machine; a
busy one is reported, not refused.

Usage: ``python benchmarks/run_all.py [--lp] [--exact] [--only NAME ...] [--no-docs]``
(``--exact`` runs only the exact solver's three blocks of ``docs/sparse-large.md``:
``bench_lp_exact.py``'s ``--wide-scaling``, about 5 minutes, ``--dixon``, the p-adic
solver against FLINT and the machine's floor, about 5, and ``--wide-goal``, the
100,000 x 10,000 case, about 5 to 10, on an idle machine; ``--lp`` adds them and the
full verdict table of ``bench_lp_exact.py``, 20 to 60 minutes).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_startup import load  # noqa: E402

#: (script, arguments): the benchmarks whose numbers the docs quote, quick ones first.
RUNS = (
    ("bench_startup.py", ["--repeat", "5", "--demo"]),
    ("bench_core.py", []),
    ("bench_sparse_floor.py", []),
    ("bench_stream.py", []),
    ("bench_machine.py", []),
    ("bench_cluster.py", []),
)
LP = ("bench_lp_exact.py", ["--budget", "1500"])
#: Why the 100k x 10k sparse random-label case misses its 2 minutes (about 5 minutes).
WIDE = ("bench_lp_exact.py", ["--wide-scaling"])
DIXON = ("bench_lp_exact.py", ["--dixon"])
#: The 100k x 10k random-label case itself, stage by stage, with the exact solve's
#: profile (one exact solve of 10,001 unknowns: several minutes of CPU).
GOAL = ("bench_lp_exact.py", ["--wide-goal"])
#: A printed line worth repeating in the summary.
RATIO = re.compile(r"ratio|target|\[>=|\[<=|[0-9.]+x\b", re.I)


def run(script: str, args: list[str], docs: bool) -> list[str]:
    """Run one benchmark, streaming its output; return the lines that carry ratios."""
    path = HERE / script
    if docs and "--write-docs" in path.read_text():
        args = [*args, "--write-docs"]
    print(f"\n=== python benchmarks/{script} {' '.join(args)}   ({load()})", flush=True)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # time byte-compiled code, as installed
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(path), *args], cwd=HERE.parent, env=env,
                            stdout=subprocess.PIPE, text=True)
    kept = []
    assert proc.stdout is not None
    for line in proc.stdout:
        print(line, end="", flush=True)
        if RATIO.search(line):
            kept.append(f"  {script}: {line.strip()}")
    if proc.wait():
        kept.append(f"  {script}: FAILED with status {proc.returncode}")
    print(f"=== {script}: {time.perf_counter() - t0:.0f} s", flush=True)
    return kept


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lp", action="store_true",
                   help="add the LP verdict table, its wide scaling and the p-adic "
                        "solver's measurement (slow)")
    p.add_argument("--exact", action="store_true",
                   help="only the exact solver's blocks: wide scaling, the p-adic solver "
                        "against FLINT, the 100k x 10k case")
    p.add_argument("--only", nargs="+", metavar="NAME", default=None,
                   help="run only these benchmarks (e.g. bench_core bench_stream)")
    p.add_argument("--no-docs", action="store_true", help="leave docs/ as it is")
    a = p.parse_args(argv)
    runs = ([WIDE, DIXON, GOAL] if a.exact else
            [*RUNS, WIDE, DIXON, GOAL, LP] if a.lp else list(RUNS))
    if a.only:
        runs = [r for r in runs if r[0].removesuffix(".py") in a.only]
    print(f"run_all: {len(runs)} benchmarks; {load()}")
    kept = [line for script, args in runs for line in run(script, args, not a.no_docs)]
    print(f"\nratios and targets, one run ({load()} at the end):")
    print("\n".join(kept))
    return 1 if any("FAILED" in line for line in kept) else 0


if __name__ == "__main__":
    sys.exit(main())
