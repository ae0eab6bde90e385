"""Speed of the Mark I emulation: presentations (figures shown) per second.

Trains the default machine from scratch (default physics: photocell lag, 101-level
potentiometers, motors, 512 A-units x 8 R-units, 4096 weights) on 26 letters in two
typefaces for a fixed number of
presentations and prints presentations per wall-clock second for

* default physics without the log (the target is >= 5,000 /s),
* default physics with the per-presentation log (``log=True``),
* the ideal machine (``MarkIParams.ideal()``),
* ``topology="source_sets"``,

the SimPy events per presentation (O(R-units), never one per potentiometer), the
machine time those presentations would have taken in 1960, and the ratio to
``markone.train`` on the machine's own A-unit outputs (the bare core, 8 R-units as 8
separate runs over the same stream). Usage:
``python benchmarks/bench_machine.py [--presentations 20000] [--repeat 3]``.
"""

import argparse
import time
import warnings

import numpy as np

import markone
from markone._figures import letters
from markone.hardware import MarkI, MarkIParams


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


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--presentations", type=int, default=20_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--chars", default="ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    a = p.parse_args(argv)
    # both typefaces: the machine keeps making mistakes, so the motors keep turning
    images, labels = letters(a.chars, per_class=2, seed=0, typeface=("block", "serif"))
    N = a.presentations
    print(f"Mark I emulation: {len(images)} letters ({len(set(labels))} classes), "
          f"{N} presentations, best of {a.repeat} (machine shared with other work: noisy)")

    rows = []
    for name, params, log in [("default physics", MarkIParams(), False),
                              ("default physics, log=True", MarkIParams(), True),
                              ("ideal", MarkIParams.ideal(), False),
                              ("source_sets", MarkIParams(topology="source_sets"), False)]:
        machine = MarkI(params, seed=0)
        secs, run = best_of(lambda: machine.train(images, labels, presentations=N,
                                                  log=log), a.repeat)
        rows.append((name, N / secs, run))
        print(f"  {name:<28} {N / secs:>9,.0f} presentations/s   machine time "
              f"{run.sim_time_s / 60:8.1f} min   saturated {int(run.saturated.sum())}")

    machine = MarkI(seed=0)
    counter = CountingEnv(machine.env)
    n_small = 2000
    run = machine.train(images, labels, presentations=n_small, warm_start=True)
    print(f"  SimPy events per presentation: {counter.n / n_small:.1f} "
          f"(8 R-units, 4096 potentiometers; {run.reinforcements.sum() / n_small:.1f} "
          "R-units reinforced per presentation)")

    ideal = MarkI(MarkIParams.ideal(), seed=0)
    A, code = ideal.a_features(images), ideal.code(labels)
    stream = np.arange(N) % len(images)

    def core():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [markone.train(A, code[:, k], intercept=False, order=stream,
                                  max_epochs=1) for k in range(code.shape[1])]
    secs, _ = best_of(core, a.repeat)
    ideal_rate = rows[2][1]
    print(f"  markone.train, 8 R-units      {N / secs:>9,.0f} presentations/s "
          "(the compiled core on A-unit outputs)")
    print(f"ratios: default/target(5000) = {rows[0][1] / 5000:.2f}, "
          f"log/no-log = {rows[1][1] / rows[0][1]:.2f}, "
          f"ideal machine/core = {ideal_rate / (N / secs):.3f}")


if __name__ == "__main__":
    main()
