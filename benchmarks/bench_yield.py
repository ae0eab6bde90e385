"""Speed of the certified-yield experiment (``markone sim run yield``), default size.

Target (issue #28): the default size within 2 minutes on 2 cores. Printed: the wall
time of the whole sweep with ``--workers 2`` (every machine decided exactly, its
certificates written), the CPU seconds it used, their ratio to the target, and the
machine's load average, since a shared machine stretches the wall time. Also the
number of machines and of certificate files, and the wall time of one worker.

Run: ``python benchmarks/bench_yield.py [--workers K]``.
"""

import argparse
import os
import resource
import tempfile
import time

from sims.runner import run_experiment

__all__ = ["main", "timed_sweep"]

TARGET_S = 120.0


def _cpu_s():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed_sweep(workers):
    """``(wall_s, cpu_s, result)`` of the default sweep with ``workers`` processes
    (CPU of worker processes counted once they have ended)."""
    with tempfile.TemporaryDirectory() as out:
        c0, t0 = _cpu_s(), time.perf_counter()
        res = run_experiment("yield", out=out, workers=workers, plot=True,
                             progress=False)
        wall, cpu = time.perf_counter() - t0, _cpu_s() - c0
        n_files = len(os.listdir(res.results_path.parent / "certificates"))
    return wall, cpu, res, n_files


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    load = os.getloadavg()
    wall, cpu, res, n_files = timed_sweep(args.workers)
    r = res.results
    machines = sum(len(m) for k in r["kinds"] for m in r[k]["machines"])
    print(f"load average before: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} "
          f"on {os.cpu_count()} cores")
    print(f"yield, default size: {machines} machines decided, {n_files} certificate "
          f"files, {res.n_tasks} tasks")
    print(f"--workers {args.workers}: {wall:.1f} s wall ({wall / TARGET_S:.2f} x the "
          f"{TARGET_S:.0f} s target), {cpu:.1f} s CPU "
          f"({cpu / args.workers / TARGET_S:.2f} x the target if {args.workers} "
          "idle cores)")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
