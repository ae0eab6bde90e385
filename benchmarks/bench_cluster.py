"""Where one machine is not enough: a fleet sweep and the exact solve's LUs on Dask.

Starts a Dask ``LocalCluster`` of 1 worker process, then one of each ``--workers``
count (default 2 and 4; each worker one process, one thread), warms every worker (markone and verify imported, the
Mark I's compiled kernels loaded from numba's cache, one small LU modulo a prime, as
a running cluster's workers are after their first job), and times on each

* a fleet sweep: ``run_fleet`` of ``--machines`` default machines x
  ``--presentations`` presentations of the 104 letters (2 typefaces),
* the exact solve's parallel piece: ``sims.cluster.solve_over_primes`` of a random
  ``--d`` x ``--d`` integer system (entries in [-9, 9]) modulo ``--primes`` primes
  below 2**21, one LU modulo a prime per task,

and prints the speed-ups from 1 worker to each count by the clock and by the
busiest worker's CPU seconds (Linux shares the CPU between sessions, so on a machine
loaded by other sessions the clock understates what a core of its own gives), with
the load. Every answer must be the same on every cluster (fleet: every machine's
weights and accuracy; primes: every residue). ``--write-docs`` writes the block
``bench_cluster`` of ``docs/sims.md``. No timing here is asserted by a test.
Usage: ``python benchmarks/bench_cluster.py [--machines 1000] [--presentations 500]
[--d 1500] [--primes 4] [--workers 2 4] [--write-docs]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

#: the checkout this script belongs to: it times that markone, not an installed one
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from markone._internal.parallel import local_cluster  # noqa: E402
from markone.datasets import letters  # noqa: E402
from markone.hardware import MachineSpec, run_fleet  # noqa: E402
from sims.cluster import solve_over_primes  # noqa: E402
from verify._internal.dixon import COMPILE_FROM  # noqa: E402
from verify.modular import default_primes, solve_modulo  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _docblock import write_block  # noqa: E402  (the shared docs-block writer)
from bench_startup import load  # noqa: E402  (the load, as every benchmark prints it)

#: The page whose block ``--write-docs`` replaces.
DOCS = ROOT / "docs" / "sims.md"


def _warm(images, labels, train):
    """In a worker: one machine trained as a task of a large fleet (compiled kernels
    loaded) and one LU modulo a prime of the smallest system whose LU runs compiled
    (``COMPILE_FROM`` unknowns: a smaller one runs plain and leaves numba's import and
    the LU's kernels to the first timed task, which made one worker look slower)."""
    from markone.hardware.fleet import _train_machines

    _train_machines(([MachineSpec(seed=0)], images, labels, train, [], 2**30))
    rng = np.random.default_rng(1)
    solve_modulo(rng.integers(-9, 10, size=(COMPILE_FROM, COMPILE_FROM)),
                 rng.integers(-9, 10, size=COMPILE_FROM), default_primes(1)[0])


def _timed(client, job):
    """``(seconds, CPU seconds per worker, answer)`` of ``job()`` on ``client``'s
    cluster."""
    before = client.run(time.process_time)
    t0 = time.perf_counter()
    answer = job()
    secs = time.perf_counter() - t0
    after = client.run(time.process_time)
    return secs, [after[w] - before[w] for w in before], answer


def on_cluster(n, jobs, warm_args):
    """``{name: (seconds, CPU per worker, answer)}`` of every job on a LocalCluster of
    ``n`` worker processes (the cluster ``dask="local"`` starts), started and warmed
    before any clock runs."""
    from dask.distributed import Client

    with local_cluster(n, processes=True) as cluster, Client(cluster) as client:
        client.run(_warm, *warm_args)
        return {name: _timed(client, lambda: job(cluster.scheduler_address))
                for name, job in jobs.items()}


def _same(name, one, many):
    """Whether two answers of job ``name`` agree exactly."""
    if name == "fleet":
        return all(np.array_equal(x.run.weights, y.run.weights)
                   and x.accuracy == y.accuracy for x, y in zip(one, many))
    return all((one[p] is None and many[p] is None) or np.array_equal(one[p], many[p])
               for p in one)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--machines", type=int, default=1000)
    p.add_argument("--presentations", type=int, default=500)
    p.add_argument("--d", type=int, default=1500)
    p.add_argument("--primes", type=int, default=4)
    p.add_argument("--workers", type=int, nargs="+", default=[2, 4],
                   help="the worker counts to compare with 1 worker")
    p.add_argument("--write-docs", action="store_true",
                   help="write the results into docs/sims.md")
    a = p.parse_args(argv)
    command = " ".join(["python benchmarks/bench_cluster.py",
                        *(sys.argv[1:] if argv is None else argv)])
    images, labels = letters("ABCDEFGHIJKLMNOPQRSTUVWXYZ", per_class=2, seed=0,
                             typeface=("block", "serif"))
    train = {"presentations": a.presentations}
    specs = MachineSpec.grid(range(a.machines))
    rng = np.random.default_rng(0)
    A, b = rng.integers(-9, 10, size=(a.d, a.d)), rng.integers(-9, 10, size=a.d)
    primes = default_primes(a.primes)
    jobs = {"fleet": lambda where: run_fleet(specs, images, labels, dask=where, **train),
            "primes": lambda where: solve_over_primes(A, b, primes, dask=where)}
    counts = ", ".join(map(str, a.workers))
    print(f"Dask LocalClusters of 1 and of {counts} worker processes: a fleet of "
          f"{a.machines} machines x {a.presentations} presentations; {a.d} x {a.d} "
          f"modulo {a.primes} primes, one LU a task. {load()}", flush=True)
    one = on_cluster(1, jobs, (images, labels, train))
    rows = []
    for n in a.workers:
        many = on_cluster(n, jobs, (images, labels, train))
        for name in jobs:
            (t1, c1, x1), (tn, cn, xn) = one[name], many[name]
            same = _same(name, x1, xn)
            rows.append((name, n, t1, tn, t1 / tn, max(c1) / max(cn), same))
            print(f"  {name:<7} 1 worker {t1:7.2f} s, {n} workers {tn:7.2f} s: "
                  f"speed-up by the clock {t1 / tn:5.2f}, by the busiest worker's CPU "
                  f"seconds {max(c1) / max(cn):5.2f} [target >= 1.7 for 2]; the same "
                  f"answers: {same}", flush=True)
    print(f"({load()})")
    if a.write_docs:
        write_block(DOCS, "bench_cluster", _block(command, a, rows))
        print(f"wrote the cluster block of {DOCS}")


def _block(command, a, rows):
    """The Markdown lines of docs/sims.md's cluster block: a row per job and count."""
    what = {"fleet": f"fleet sweep, {a.machines:,} machines x {a.presentations} "
                     "presentations",
            "primes": f"{a.d:,} x {a.d:,} system modulo {a.primes} primes "
                      "(one LU a task)"}
    counts = ", ".join(map(str, a.workers))
    lines = [f"`{command}`: Dask `LocalCluster`s of 1 and of {counts} worker "
             f"processes, warmed before the clock; {load()}.", "",
             "| job | workers | 1 worker, s | n workers, s | speed-up, clock | "
             "speed-up, busiest worker's CPU | same answers |",
             "|---|---:|---:|---:|---:|---:|---|"]
    lines += [f"| {what[name]} | {n} | {t1:.2f} | {tn:.2f} | {r:.2f} | {rc:.2f} | "
              f"{'yes' if same else 'NO'} |"
              for name, n, t1, tn, r, rc, same in sorted(rows, key=lambda row: row[0])]
    return lines


if __name__ == "__main__":
    main()
