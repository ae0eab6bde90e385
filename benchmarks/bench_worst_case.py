"""What the trained machine's exact worst case costs (issue 42's goal: at most 1 s of
CPU for every answer of all 8 R-units, warm).

The default Mark I (512 A-units, 8 R-units) trained on the 26 letters, 10 figures each;
then :func:`verify.machine.theory.worst_case.worst_case` (potentiometer tolerance,
dead and stuck A-units, the table against dead A-units, for every R-unit) and, for
comparison, the machine's own ``machine_task`` (its A-unit patterns) alone, both as
the least CPU time (``time.process_time``) of ``--repeat`` warm runs, and the ratio of
the first to the goal. Usage: ``python benchmarks/bench_worst_case.py [--repeat 5]``.
"""

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from markone.datasets import letters  # noqa: E402
from markone.hardware import MarkI  # noqa: E402
from verify.machine.task import machine_task  # noqa: E402
from verify.machine.theory.worst_case import worst_case  # noqa: E402

GOAL_S = 1.0


def least_cpu(fn, repeat):
    """The least CPU seconds of ``repeat`` calls of ``fn`` (after one warm-up)."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main(argv=None):
    """Train the machine, time its worst case, print the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    images, labels = letters("ABCDEFGHIJKLMNOPQRSTUVWXYZ", per_class=10, seed=0)
    machine = MarkI(seed=0)
    machine.train(images, labels)
    print(f"load {os.getloadavg()[0]:.1f}; 26 letters x 10, 512 A-units, 8 R-units")
    whole = least_cpu(lambda: worst_case(machine, images, labels), args.repeat)
    patterns = least_cpu(lambda: machine_task(machine, images, labels), args.repeat)
    print(f"worst case, all 8 R-units: {whole:.3f} s CPU ({whole / GOAL_S:.2f} of the "
          f"{GOAL_S:g} s goal); of which the A-unit patterns: {patterns:.3f} s")


if __name__ == "__main__":
    main()
