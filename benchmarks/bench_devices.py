"""What device variation costs the Mark I emulation, and what the drift bounds cost.

A machine with device variation (``MarkIParams.variation``) runs every figure on the
per-figure SimPy path (the compiled segments assume whole steps). This prints
presentations per wall-clock second of the default machine (segments), the same
machine forced per figure (``segments=False``), and each kind of variation, all as
ratios to the default measured in the same run; then the time of the bounded and the
random-walk drift horizons (with the retraining schedule) on the trained machine. The
machine's load (``uptime``) is printed with the numbers; every time is the best of
``--repeat``. Usage: ``python benchmarks/bench_devices.py [--presentations 3000]
[--repeat 3]``.
"""

import argparse
import os
import sys
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_machine import best_of  # noqa: E402  (the same timing as the machine's)
from markone.datasets import letters  # noqa: E402
from markone.hardware import MarkI, MarkIParams  # noqa: E402
from verify.machine import drift_horizon  # noqa: E402

VARIATIONS = {"step_dtod": 0.3, "step_std": 0.3, "up_down": 0.2, "drift_rate": 0.01,
              "sticky_prob": 0.1}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presentations", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    images, labels = letters("ABCDEFGHIJKL", per_class=2, seed=0)
    n = args.presentations

    def rate(params, segments=True):
        seconds, _ = best_of(lambda: MarkI(params, seed=0, segments=segments).train(
            images, labels, presentations=n), args.repeat)
        return n / seconds

    MarkI(seed=0).train(images, labels, presentations=50)   # compile the kernels
    base = rate(MarkIParams())
    print(f"load {os.getloadavg()[0]:.2f}; {n} presentations of {len(images)} letters")
    print(f"default machine (segments): {base:,.0f} presentations/s")
    print(f"  per figure (segments=False): {rate(MarkIParams(), False) / base:.3f}x")
    for name, value in VARIATIONS.items():
        print(f"  {name}={value}: {rate(MarkIParams(**{name: value})) / base:.3f}x")
    machine = MarkI(seed=0)
    run = machine.train(*letters("ABCD", per_class=5, seed=0))
    figures, names = letters("ABCD", per_class=5, seed=0)
    bounded, _ = best_of(lambda: drift_horizon(machine, run, figures, names,
                                               drift_rate=Fraction(1, 100)), args.repeat)
    walk, h = best_of(lambda: drift_horizon(machine, run, figures, names, drift_sd=0.01,
                                            delta=0.01, over_s=3600), args.repeat)
    print(f"drift horizons on A-D (20 figures): bounded {bounded * 1e3:.0f} ms, random "
          f"walk with the schedule over an hour {walk * 1e3:.0f} ms "
          f"({h.schedule.intervals} intervals); ratio {walk / bounded:.1f}x")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
