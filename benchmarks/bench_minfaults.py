"""Speed of ``verify.machine.minimal_faults`` on plans of thousands of faults (issue 12).

The 26-letter task (10 jittered figures per letter) on the default machine with 85 %
and 90 % of its 5,120 plugboard wires cut (``random_faults(..., seed=1)``): 4,352 and
4,608 faults, and the task is unlearnable. Prints, from one run, for each plan: the
seconds with the budget ``check_machine`` gives it (``MAX_TESTS`` solver sub-plans,
no time limit), whether the set is proven 1-minimal (``complete``),
its size, and the sub-plans decided (and how many needed ``check_separable``).

To compare with another version of the code, run this file with that version first on
``PYTHONPATH`` (the script only uses ``minimal_faults``' public arguments), in the same
minute, and divide. ``--no-budget`` lifts the budget (a million solver sub-plans) to
time a run to the end.

Usage: ``flock /work/bench.lock python benchmarks/bench_minfaults.py [--no-budget]``.
"""

import string
import sys
import time

from markone.datasets import letters
from markone.hardware import MarkI
from markone.hardware.faults import random_faults
from bench_startup import load  # noqa: E402  (the same load line everywhere)


def main():
    print(load())  # the machine's load: read the numbers below with it
    from verify.machine import minimal_faults
    from verify.machine.faults import MAX_TESTS

    images, labels = letters(string.ascii_uppercase, per_class=10, seed=0)
    machine = MarkI(seed=0)
    warm = random_faults(machine, cut_wires=0.9, seed=1)
    minimal_faults(machine, images[:26], labels[:26], warm)   # imports, compiles
    free = "--no-budget" in sys.argv[1:]
    for frac in (0.85, 0.9):
        plan = random_faults(machine, cut_wires=frac, seed=1)
        t0 = time.perf_counter()
        found = minimal_faults(machine, images, labels, plan,
                               max_tests=10**6 if free else MAX_TESTS)
        seconds = time.perf_counter() - t0
        solver = getattr(found, "solver_checks", None)
        print(f"minimal_faults, 26 letters x 10, {frac:.0%} of the wires cut "
              f"({len(plan)} faults): {seconds:.2f} s ("
              + ("no budget" if free else f"budget {MAX_TESTS} sub-plans") + "); "
              f"complete={found.complete}, {len(found.faults)} faults left, "
              f"{found.tests} sub-plans decided"
              + ("" if solver is None else f", {solver} check_separable calls"))


if __name__ == "__main__":
    main()
