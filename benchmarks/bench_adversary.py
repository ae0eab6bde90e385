"""Speed of the adversarial searches and of exact cycle detection.

Targets (issue #4): the greedy adversary on 1000 x 20 within 5 s; the exhaustive search
on 8 points in 3-D with integer coordinates in [-5, 5] within 10 s; XOR cycling instant.
Prints, measured in one run:

* greedy on ``markone.datasets.separable(1000, 20, margin)``: seconds, mistakes forced,
  mistakes of the given order (ratio), the bound;
* exhaustive on ``--cases`` random separable 8 x 3 integer sets (labels from a random
  affine hyperplane): the slowest and the median time, states explored, mistakes
  against the bound; then on three hard cases (``small_margin_lattice``: the largest
  bound among 500 draws); the easy cases again by Z3 (ratio z3/exhaustive);
* check_cycling on XOR (both encodings) and 3-bit parity: cyclic and all orders.

Usage: ``python benchmarks/bench_adversary.py [--cases 20] [--margin 0.01]``. Numbers
measured while other work runs on the machine are noisy.
"""

import argparse
import itertools
import statistics
import time

import numpy as np

import markone
from verify.adversary import small_margin_lattice, worst_order
from verify.cycling import check_cycling
from bench_startup import load  # noqa: E402  (the same load line everywhere)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def int_case(seed, n=8, d=3, lo=-5, hi=5):
    rng = np.random.default_rng(seed)
    while True:
        X = rng.integers(lo, hi + 1, size=(n, d))
        u = rng.standard_normal(d + 1)
        y = np.where(np.c_[X, np.ones(n)] @ u > 0, 1, -1)
        if 0 < (y > 0).sum() < n:
            return X, y


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", type=int, default=20)
    p.add_argument("--margin", type=float, default=0.01)
    a = p.parse_args(argv)
    print(load())  # the machine's load: read the numbers below with it

    worst_order(*int_case(0), method="exhaustive")          # compile the numba kernel
    X, y, _ = markone.datasets.separable(1000, 20, a.margin, seed=0)
    t, g = timed(lambda: worst_order(X, y, intercept=False, method="greedy"))
    plain = markone.train(X, y, intercept=False).mistakes
    print(f"greedy 1000x20 (margin {a.margin}): {t:.2f} s (target 5 s), "
          f"{g.mistakes} mistakes vs {plain} in the given order "
          f"(x{g.mistakes / plain:.2f}), bound {g.bound:.0f} "
          f"({g.mistakes / g.bound:.1%} of it)")

    times, states, ratios, z3_ratio = [], [], [], []
    for seed in range(a.cases):
        Xi, yi = int_case(seed)
        t, e = timed(lambda: worst_order(Xi, yi, method="exhaustive"))
        times.append(t)
        states.append(e.explored)
        ratios.append(e.mistakes / e.bound)
        if e.mistakes <= 12:
            tz, z = timed(lambda: worst_order(Xi, yi, method="z3", budget=e.mistakes + 1))
            assert z.mistakes == e.mistakes
            z3_ratio.append(tz / t)
    print(f"exhaustive 8x3 in [-5,5], {a.cases} cases: slowest {max(times):.3f} s "
          f"(target 10 s), median {statistics.median(times):.4f} s, up to "
          f"{max(states)} states; true max mistakes / bound: median "
          f"{statistics.median(ratios):.2f}, max {max(ratios):.2f}")
    hard = []
    for seed in range(3):
        Xh, yh = small_margin_lattice(8, 3, 5, draws=500, seed=seed)
        t, e = timed(lambda: worst_order(Xh, yh, method="exhaustive"))
        hard.append(f"{t:.2f} s ({e.explored} states, {e.mistakes} of {e.bound:.0f})")
    print("exhaustive on small-margin 8x3 lattices (hardest of 500 draws each): "
          + "; ".join(hard))
    if z3_ratio:
        print(f"z3 (bounded model checking) on {len(z3_ratio)} of them: "
              f"{statistics.median(z3_ratio):.0f}x the exhaustive time (median)")

    xor = markone.datasets.xor()
    P = np.array(list(itertools.product([0, 1], repeat=3)))
    par = (P, np.where(P.sum(1) % 2 == 1, 1, -1))
    for name, (Xc, yc) in [("xor pm1", xor), ("xor 01", markone.datasets.xor("01")),
                           ("parity3", par)]:
        tc, c = timed(lambda: check_cycling(Xc, yc))
        ta, al = timed(lambda: check_cycling(Xc, yc, order="all"))
        print(f"cycling {name}: cyclic {tc * 1e3:.2f} ms (period {c.period_updates}), "
              f"all orders {ta * 1e3:.1f} ms ({al.states} states, max |w|^2 "
              f"{al.max_norm_sq})")


if __name__ == "__main__":
    main()
