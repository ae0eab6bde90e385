"""Speed of the Mark I emulation: presentations (figures shown) per second, and fleets.

Trains the machine from scratch on 26 letters in two typefaces (104 figures; the
default machine keeps making mistakes on some, so its motors keep turning) for a
fixed number of presentations and prints presentations per wall-clock second for

* default physics without the log (issue 16's target: >= 50,000 /s),
* default physics with the per-presentation log (``log=True``; target >= 0.5x), and
  the same with every log record built (the log keeps a segment's records as compact
  columns and builds them on first use, e.g. when the run is saved),
* the ideal machine (``MarkIParams.ideal()``; target: at least the default's speed),
* ``topology="source_sets"`` (target >= 0.8x of ``full``),
* the per-figure path (``MarkI(segments=False)``: one SimPy step per timeout), the
  reference that the compiled segments are tested against,

then the SimPy events per presentation (never one per potentiometer), the bare
compiled core (``markone.train`` on the machine's own A-unit outputs, 8 R-units as 8
runs over the same stream) measured in the same run, so that the machine/core ratio
is meaningful on a busy machine, and fleets (issue 32): 2,000 machines x 500
presentations of the letters here (1 worker), on 2 local workers (this process and one
forked, or spawned where forking is not safe: ``start_method``; it starts within the
clock) and on a Dask ``LocalCluster`` of 1 and of 2 worker processes (started, and each worker warmed by one machine, before the clock
runs, as a running cluster's workers are after their first fleet), with the
speed-ups [>= 1.7], the fleet's presentations per second against one machine's (the
main table's default rate) [within 2x], the CPU seconds of the workers and of this
process, and what one fresh worker spends starting (imports, compiled kernels loaded
from numba's cache) and per machine; every fleet must give every machine the same
weights and accuracy. The machines are timed in turn, each repeat timing every one
of them, and every rate is the best of ``--repeat`` runs (each machine trained once,
untimed, first: its compiled kernels loaded); the machine's load is printed with the
numbers. ``--write-docs`` writes the fleet's block of ``docs/machine.md``.
Usage: ``python benchmarks/bench_machine.py [--presentations 20000] [--repeat 3]
[--fleet 2000] [--workers 2] [--only-fleet] [--no-dask] [--write-docs]``.
"""

import argparse
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

#: the checkout this script belongs to: it times that markone, not an installed one
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import markone  # noqa: E402
from markone import _loops  # noqa: E402
from markone._internal.parallel import local_cluster, start_method  # noqa: E402
from markone.datasets import letters  # noqa: E402
from markone.hardware import MachineSpec, MarkI, MarkIParams, run_fleet  # noqa: E402
from markone.hardware import trial  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _docblock import write_block  # noqa: E402  (the shared docs-block writer)
from bench_startup import load  # noqa: E402  (the load, as every benchmark prints it)

#: The page whose fleet block ``--write-docs`` replaces.
DOCS = ROOT / "docs" / "machine.md"


def best_of(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


class CountingEnv:
    """Counts the events a SimPy environment processes (wraps ``step``)."""

    def __init__(self, env):
        self.n = 0
        step = env.step

        def counted():
            self.n += 1
            step()
        env.step = counted


MACHINES = [("default", {}, False), ("default, log=True", {}, True),
            ("ideal", "ideal", False), ("source_sets", {"topology": "source_sets"}, False)]


def warm_machines(images, labels, n, table=MACHINES):
    """``{name: (machine, log)}`` for the machines of ``table``, each trained once
    on ``n`` presentations untimed: past the plain allowance, so that the compiled
    kernels are loaded before any clock runs (50 presentations ran plain, and the
    first timed run then paid for loading numba)."""
    machines = {}
    for name, fields, log in table:
        params = MarkIParams.ideal() if fields == "ideal" else MarkIParams(**fields)
        machine = MarkI(params, seed=0)
        machine.train(images, labels, presentations=n, log=log)
        machines[name] = (machine, log)
    return machines


def default_rate(images, labels, n, repeat):
    """One machine's presentations/s: the default physics without the log, from
    scratch to ``n`` presentations, best of ``repeat``, as the main table times it."""
    (machine, _), = warm_machines(images, labels, n, MACHINES[:1]).values()
    secs, _ = best_of(lambda: machine.train(images, labels, presentations=n), repeat)
    return n / secs


def machine_rates(images, labels, n, repeat):
    """``{name: (presentations per second, run)}`` for the machines, timed in turn."""
    machines = warm_machines(images, labels, n)
    best = {name: np.inf for name in machines}
    runs = {}
    built = np.inf
    for _ in range(repeat):
        for name, (machine, log) in machines.items():
            t0 = time.perf_counter()
            runs[name] = machine.train(images, labels, presentations=n, log=log)
            best[name] = min(best[name], time.perf_counter() - t0)
            if log:   # and the same session with every record of its log built
                t0 = time.perf_counter()
                run = machine.train(images, labels, presentations=n, log=True)
                run.log.records()
                built = min(built, time.perf_counter() - t0)
    rates = {}
    for name, secs in best.items():
        run = runs[name]
        rates[name] = (n / secs, run)
        print(f"  {name:<20} {n / secs:>9,.0f} presentations/s   machine time "
              f"{run.sim_time_s / 60:7.1f} min   R-units reinforced per figure "
              f"{run.reinforcements.sum() / n:.2f}")
    rates["log built"] = (n / built, None)
    print(f"  {'  every record built':<20} {n / built:>9,.0f} presentations/s")
    machine = MarkI(seed=0, segments=False)
    machine.train(images, labels, presentations=50)
    n_slow = max(n // 10, 1)
    secs, _ = best_of(lambda: machine.train(images, labels, presentations=n_slow),
                      repeat)
    rates["per figure"] = (n_slow / secs, None)
    print(f"  {'per-figure path':<20} {n_slow / secs:>9,.0f} presentations/s   "
          f"({n_slow} presentations, the reference the segments are tested against)")
    return rates


def core_rate(images, labels, n, repeat, *, plain_run=0):
    """Presentations per second of ``markone.train`` on the machine's A-unit outputs,
    8 R-units as 8 runs of ``n`` presentations over the same stream.

    By default compiled, as the machine's segments are (its plain allowance is given
    up in :func:`main`): a run of 20,000 presentations is within the work rule's plain
    line (``markone._loops.PLAIN_RUN``, 262,144), so the line is lowered to
    ``plain_run`` while it runs; ``plain_run=None`` keeps the line, and the runs take
    the plain path, as a run of this size does by default."""
    ideal = MarkI(MarkIParams.ideal(), seed=0)
    A, code = ideal.a_features(images), ideal.code(labels)
    stream = np.arange(n) % len(images)

    def core():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [markone.train(A, code[:, k], intercept=False, order=stream,
                                  max_epochs=1) for k in range(code.shape[1])]
    line = _loops.PLAIN_RUN
    _loops.PLAIN_RUN = line if plain_run is None else plain_run
    try:
        core()
        secs, _ = best_of(core, repeat)
    finally:
        _loops.PLAIN_RUN = line
    return n / secs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--presentations", type=int, default=20_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--chars", default="ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    p.add_argument("--fleet", type=int, default=2000,
                   help="machines in the fleet (0: skip)")
    p.add_argument("--fleet-presentations", type=int, default=500)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--only-fleet", action="store_true", help="skip the machine rates")
    p.add_argument("--no-dask", action="store_true", help="skip the Dask LocalClusters")
    p.add_argument("--write-docs", action="store_true",
                   help="write the results (the machine table, the fleet's) into "
                   "docs/machine.md")
    a = p.parse_args(argv)
    #: the command as run, named by each block it writes
    a.command = " ".join(["python benchmarks/bench_machine.py",
                          *(sys.argv[1:] if argv is None else argv)])
    images, labels = letters(a.chars, per_class=2, seed=0, typeface=("block", "serif"))
    n = a.presentations
    # the rates of the compiled machine: this process's plain allowance (32,768
    # trials' worth, docs/start-up.md) is given up before anything is timed, as the
    # first untimed runs spent it when it was 256 trials
    trial.PLAIN.left = 0
    print(f"Mark I emulation: {len(images)} letters ({len(set(labels))} classes), "
          f"{n} presentations, best of {a.repeat} (machine shared with other work: "
          f"noisy; the ratios are measured in one run). {load()}")
    if a.only_fleet:   # one machine's rate, for the fleet's ratio
        single = default_rate(images, labels, n, a.repeat)
        print(f"  default physics {single:>9,.0f} presentations/s (one machine, the "
              "rate of the main table)")
    else:
        single, lines = single_machine(images, labels, n, a.repeat, a.command)
        if a.write_docs:
            write_block(DOCS, "bench_machine", lines)
            print(f"wrote the machine block of {DOCS}")
    if a.fleet:
        lines = fleet_run(images, labels, a, single)
        if a.write_docs:
            write_block(DOCS, "bench_machine_fleet", lines)
            print(f"wrote the fleet block of {DOCS}")


def single_machine(images, labels, n, repeat, command):
    rates = machine_rates(images, labels, n, repeat)

    machine = MarkI(seed=0)
    machine.train(images, labels, presentations=n)
    counter = CountingEnv(machine.env)
    n_small = 2000
    run = machine.train(images, labels, presentations=n_small, warm_start=True)
    print(f"  SimPy events per presentation: {counter.n / n_small:.3f} (8 R-units, 4096 "
          f"potentiometers; {run.reinforcements.sum() / n_small:.2f} R-units reinforced "
          "per presentation; one timeout per segment, one segment per pass here)")

    core = core_rate(images, labels, n, repeat)
    print(f"  markone.train, 8 R-units {core:>9,.0f} presentations/s (the compiled core "
          "on the A-unit outputs)")
    plain = core_rate(images, labels, n, repeat, plain_run=None)
    print(f"  the same, plain          {plain:>9,.0f} presentations/s (the work rule's "
          "path for a run of this size)")

    default = rates["default"][0]
    ratios = [
        ("default physics / 50,000 presentations/s", default / 50_000, ">= 1"),
        ("ideal / default", rates["ideal"][0] / default, ">= 1"),
        ("`log=True` / no log", rates["default, log=True"][0] / default, ">= 0.5"),
        ("the same, every log record built / no log", rates["log built"][0] / default,
         ""),
        ("`source_sets` / `full`", rates["source_sets"][0] / default, ">= 0.8"),
        ("default machine / `markone.train` (8 R-units on the A-unit outputs)",
         default / core, "1/10 sought (1/40 before issue 16)"),
        ("the same, `markone.train` plain (a run of this size, by default)",
         default / plain, ""),
        ("segments / per-figure path", default / rates["per figure"][0], ""),
    ]
    print(f"ratios (targets in brackets; {load()}):")
    for name, value, target in ratios:
        print(f"  {name:<70} {value:6.3f}" + (f"  [{target}]" if target else ""))
    lines = [f"`{command}`: {n:,} presentations of "
             f"the {len(images)} letters, best of {repeat}; {load()}.", "",
             "| measure | value | target |", "| --- | ---: | --- |",
             f"| default physics, presentations/s | {default:,.0f} | >= 50,000 |",
             *(f"| {name} | {value:.3f} | {target} |" for name, value, target in ratios),
             f"| SimPy events per presentation | {counter.n / n_small:.3f} | |"]
    return default, lines


def fleet_run(images, labels, a, single):
    """Time the fleet here, on local workers and on Dask; print the speed-ups, by
    the clock and by the CPU seconds of the busiest process; return the docs block."""
    specs = MachineSpec.grid(range(a.fleet))
    train = {"presentations": a.fleet_presentations}
    runs = {"1 worker (here)": _timed_fleet(specs, images, labels, train)}
    local = f"{a.workers} local workers"
    a.local_start = start_method()   # how the local workers start: forked or spawned
    runs[local] = _timed_fleet(specs, images, labels, train, workers=a.workers)
    if not a.no_dask:
        runs.update(_dask_fleets(specs, images, labels, train, a.workers))
    same = _same_fleets([fleet for _, _, fleet in runs.values()])
    acc = np.mean([f.accuracy for f in runs[local][2]])
    shown = a.fleet * a.fleet_presentations
    print(f"fleet: {a.fleet} machines x {a.fleet_presentations} presentations, mean "
          f"accuracy {100 * acc:.1f}%, every machine's weights and accuracy the same "
          f"in every run: {same}. {load()}")
    print(f"  (the local workers were {a.local_start}ed)")
    for name, (secs, cpu, _) in runs.items():
        print(f"  {name:<28} {secs:6.1f} s {shown / secs:>9,.0f} presentations/s   "
              f"CPU s per process: {', '.join(f'{c:.1f}' for c in cpu)}")
    start, per_machine = _worker_costs(images, labels, a.fleet_presentations)
    print(f"  one worker: {start:.2f} s to start (imports, compiled kernels loaded), "
          f"then {1e3 * per_machine:.2f} ms per machine (wiring, calibration, "
          f"{a.fleet_presentations} presentations, accuracy); measured in a fresh "
          "process")
    ratios = _fleet_ratios(runs, local, a.workers, not a.no_dask)
    ratios.append((f"one machine's presentations/s / the fleet's ({local})",
                   single / (shown / runs[local][0]), "<= 2"))
    print(f"fleet ratios (targets in brackets; {load()}):")
    for label, value, target in ratios:
        print(f"  {label:<58} {value:6.2f}  [{target or '-'}]")
    if _autogroup():
        print("  (Linux shares the CPU between sessions (autogroup): under load from "
              "other sessions this run's processes share one session's slice, so the "
              "clock can show no speed-up; the CPU-seconds ratio is what each process "
              "on a core of its own gives)")
    return _fleet_block(a, runs, ratios, single, start, per_machine, shown, same)


def _fleet_ratios(runs, local, workers, dask):
    """``[(label, ratio, target)]``: the speed-ups by the clock and by the busiest
    process's CPU seconds, and Dask's overhead on one worker."""
    pairs = [(f"{local} / 1 worker", "1 worker (here)", local)]
    if dask:
        pairs.append((f"Dask, {workers} workers / 1", "Dask, 1 worker",
                      f"Dask, {workers} workers"))
    out = []
    for label, one, many in pairs:
        (t1, c1, _), (tn, cn, _) = runs[one], runs[many]
        out += [(f"{label}, by the clock", t1 / tn, ">= 1.7"),
                (f"{label}, by the busiest process's CPU seconds",
                 max(c1) / max(cn), "")]
    if dask:
        out.append(("Dask, 1 worker / 1 worker here, time", runs["Dask, 1 worker"][0]
                    / runs["1 worker (here)"][0], ""))
    return out


def _fleet_block(a, runs, ratios, single, start, per_machine, shown, same):
    """The Markdown lines of docs/machine.md's fleet block."""
    lines = [f"`{a.command}`: {a.fleet:,} machines x {a.fleet_presentations} "
             "presentations of the "
             f"104 letters, every machine's weights and accuracy the same in every "
             f"run: {'yes' if same else 'NO'} (Dask workers warmed "
             "before the clock, as a running cluster's are after its first fleet; "
             f"the local worker, {a.local_start}ed, starts within the clock); {load()}.",
             "",
             "| measure | value | target |", "|---|---|---|"]
    lines += [f"| {label} | {value:.2f} | {target} |" for label, value, target in ratios]
    lines += [f"| {name}, presentations/s | {shown / secs:,.0f} | |"
              for name, (secs, _, _) in runs.items()]
    lines += [f"| one machine (default physics, {a.presentations:,} presentations, best "
              f"of {a.repeat}), presentations/s | {single:,.0f} | |",
              f"| a fresh worker's start (imports, compiled kernels loaded) | "
              f"{start:.2f} s | |",
              f"| then per machine (wiring, calibration, {a.fleet_presentations} "
              f"presentations, accuracy) | {1e3 * per_machine:.2f} ms | |"]
    return lines


def _same_fleets(fleets):
    """Whether every fleet gave every machine the same weights and accuracy."""
    first = fleets[0]
    return all(len(f) == len(first) and all(
        np.array_equal(x.run.weights, y.run.weights) and x.accuracy == y.accuracy
        for x, y in zip(first, f)) for f in fleets[1:])


def _autogroup():
    """Whether Linux shares CPU time between sessions rather than processes."""
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return False


def _timed_fleet(specs, images, labels, train, **where):
    """``(seconds, CPU seconds per process, fleet)`` of one run here or on local
    workers (this process, then the started ones together)."""
    own0, kids0 = _cpu_seconds()
    t0 = time.perf_counter()
    fleet = run_fleet(specs, images, labels, **where, **train)
    secs = time.perf_counter() - t0
    own1, kids1 = _cpu_seconds()
    cpu = [own1 - own0] + ([kids1 - kids0] if where.get("workers", 1) > 1 else [])
    return secs, cpu, fleet


def _warm_worker(images, labels, train):
    """Train one machine in this (Dask worker) process: markone imported, numba's
    compiled kernels loaded, as in a running cluster after its first fleet."""
    from markone.hardware.fleet import _train_machines

    # as a task of a large fleet: compiled (its kernels loaded), not plain
    _train_machines(([MachineSpec(seed=0)], images, labels, train, [], 2**30))


def _dask_fleets(specs, images, labels, train, workers):
    """``{name: (seconds, CPU seconds per worker process, fleet)}`` on a Dask
    LocalCluster of 1 and of ``workers`` worker processes (the cluster ``dask="local"``
    starts: :func:`markone._internal.parallel.local_cluster`), each cluster started
    and its workers warmed (:func:`_warm_worker`) before the clock runs."""
    from dask.distributed import Client

    out = {}
    for n in (1, workers):
        with local_cluster(n, processes=True) as cluster, Client(cluster) as client:
            client.run(_warm_worker, images, labels, train)
            before = client.run(time.process_time)
            secs, _, fleet = _timed_fleet(specs, images, labels, train,
                                          dask=cluster.scheduler_address)
            after = client.run(time.process_time)
            out[f"Dask, {n} worker{'s' if n > 1 else ''}"] = (
                secs, [after[w] - before[w] for w in before], fleet)
    return out


_WORKER = """
import time
t0 = time.perf_counter()
import numpy as np
from markone.hardware import MachineSpec
from markone.hardware.fleet import _train_machines
from markone.datasets import letters
images, labels = letters({chars!r}, per_class=2, seed=0, typeface=("block", "serif"))
# tasks of a large fleet (no lockstep, 2**30 trials alone): compiled, as a worker's
_train_machines(([MachineSpec(seed=0)], images, labels, {train!r}, [], 2**30))
t1 = time.perf_counter()
_train_machines(([MachineSpec(seed=s) for s in range(1, 101)], images, labels, {train!r},
                 [], 2**30))
print(t1 - t0, (time.perf_counter() - t1) / 100)
"""


def _worker_costs(images, labels, presentations):
    """``(start-up seconds, seconds per machine)`` of a fresh worker process."""
    chars = "".join(sorted(set(labels.tolist())))
    code = _WORKER.format(chars=chars, train={"presentations": presentations})
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(
                             [str(ROOT), os.environ.get("PYTHONPATH", "")])})
    start, per_machine = map(float, out.stdout.split())
    return start, per_machine


def _cpu_seconds():
    """``(this process, its finished worker processes)`` CPU seconds."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
