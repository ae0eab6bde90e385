"""Speed of the Mark I emulation: presentations (figures shown) per second, and fleets.

Trains the machine from scratch on 26 letters in two typefaces (52 figures; the
default machine keeps making mistakes on some, so its motors keep turning) for a
fixed number of presentations and prints presentations per wall-clock second for

* default physics without the log (issue 16's target: >= 50,000 /s),
* default physics with the per-presentation log (``log=True``; target >= 0.5x),
* the ideal machine (``MarkIParams.ideal()``; target: at least the default's speed),
* ``topology="source_sets"`` (target >= 0.8x of ``full``),

then the SimPy events per presentation (never one per potentiometer), the bare
compiled core (``markone.train`` on the machine's own A-unit outputs, 8 R-units as 8
runs over the same stream) measured in the same run, so that the machine/core ratio
is meaningful on a busy machine, and a fleet: 200 machines x 500 presentations of the
letters on 2 local processes (target < 30 s). Every rate is the best of ``--repeat``
runs. Usage: ``python benchmarks/bench_machine.py [--presentations 20000]
[--repeat 3] [--fleet 200] [--workers 2]``.
"""

import argparse
import resource
import time
import warnings

import numpy as np

import markone
from markone._figures import letters
from markone.hardware import MachineSpec, MarkI, MarkIParams, run_fleet


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


def machine_rates(images, labels, n, repeat):
    """``{name: (presentations per second, run)}`` for the four machines."""
    rates = {}
    for name, params, log in [("default", MarkIParams(), False),
                              ("default, log=True", MarkIParams(), True),
                              ("ideal", MarkIParams.ideal(), False),
                              ("source_sets", MarkIParams(topology="source_sets"), False)]:
        machine = MarkI(params, seed=0)
        machine.train(images, labels, presentations=50)   # compiled kernels loaded
        secs, run = best_of(lambda: machine.train(images, labels, presentations=n,
                                                  log=log), repeat)
        rates[name] = (n / secs, run)
        print(f"  {name:<20} {n / secs:>9,.0f} presentations/s   machine time "
              f"{run.sim_time_s / 60:7.1f} min   R-units reinforced per figure "
              f"{run.reinforcements.sum() / n:.2f}")
    return rates


def core_rate(images, labels, n, repeat):
    ideal = MarkI(MarkIParams.ideal(), seed=0)
    A, code = ideal.a_features(images), ideal.code(labels)
    stream = np.arange(n) % len(images)

    def core():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [markone.train(A, code[:, k], intercept=False, order=stream,
                                  max_epochs=1) for k in range(code.shape[1])]
    core()
    secs, _ = best_of(core, repeat)
    return n / secs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--presentations", type=int, default=20_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--chars", default="ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    p.add_argument("--fleet", type=int, default=200, help="machines in the fleet (0: skip)")
    p.add_argument("--fleet-presentations", type=int, default=500)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--only-fleet", action="store_true", help="skip the machine rates")
    a = p.parse_args(argv)
    images, labels = letters(a.chars, per_class=2, seed=0, typeface=("block", "serif"))
    n = a.presentations
    print(f"Mark I emulation: {len(images)} letters ({len(set(labels))} classes), "
          f"{n} presentations, best of {a.repeat} (machine shared with other work: "
          "noisy; the ratios are measured in one run)")
    if not a.only_fleet:
        single_machine(images, labels, n, a.repeat)
    if a.fleet:
        fleet_run(images, labels, a)


def single_machine(images, labels, n, repeat):
    rates = machine_rates(images, labels, n, repeat)

    machine = MarkI(seed=0)
    machine.train(images, labels, presentations=n)
    counter = CountingEnv(machine.env)
    n_small = 2000
    run = machine.train(images, labels, presentations=n_small, warm_start=True)
    print(f"  SimPy events per presentation: {counter.n / n_small:.2f} (8 R-units, 4096 "
          f"potentiometers; {run.reinforcements.sum() / n_small:.2f} R-units reinforced "
          "per presentation)")

    core = core_rate(images, labels, n, repeat)
    print(f"  markone.train, 8 R-units {core:>9,.0f} presentations/s (the compiled core "
          "on the A-unit outputs)")

    default = rates["default"][0]
    print("ratios (targets in brackets):")
    print(f"  default / 50,000 target      {default / 50_000:6.2f}  [>= 1]")
    print(f"  ideal / default              {rates['ideal'][0] / default:6.2f}  [>= 1]")
    print(f"  log=True / no log            {rates['default, log=True'][0] / default:6.2f}"
          "  [>= 0.5]")
    print(f"  source_sets / full           {rates['source_sets'][0] / default:6.2f}"
          "  [>= 0.8]")
    print(f"  default machine / core       {default / core:6.3f}  (issue 16: 1/40 before,"
          " 1/10 sought)")


def fleet_run(images, labels, a):
    specs = MachineSpec.grid(range(a.fleet))
    cpu0 = _cpu_seconds()
    t0 = time.perf_counter()
    fleet = run_fleet(specs, images, labels, workers=a.workers,
                      presentations=a.fleet_presentations)
    secs = time.perf_counter() - t0
    cpu = _cpu_seconds() - cpu0
    acc = np.mean([f.accuracy for f in fleet])
    print(f"fleet: {a.fleet} machines x {a.fleet_presentations} presentations on "
          f"{a.workers} processes: {secs:.1f} s [< 30 s]; {cpu:.1f} CPU seconds in all "
          f"(this process and its workers: {cpu / a.workers:.1f} s on {a.workers} idle "
          f"cores); mean accuracy {100 * acc:.1f}%")


def _cpu_seconds():
    """CPU time of this process and of its finished worker processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
