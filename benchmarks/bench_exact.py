"""Exact mode against a plain Fraction loop, on 100 x 1000 rational data.

Both runs are exact, so they must agree bit for bit (checked here); the ratio is the
speed-up of markone's integer-scaled int64 loop over the textbook loop in Fractions.
Usage: ``python benchmarks/bench_exact.py [--n 100] [--d 1000] [--max-epochs 20]``.
"""

import argparse
import time
import warnings
from fractions import Fraction

import numpy as np

import markone
from bench_startup import load  # noqa: E402  (the same load line everywhere)


def fraction_loop(X, y, max_epochs):
    rows = [row + [Fraction(1)] for row in X]
    w = [Fraction(0)] * len(rows[0])
    mistakes = 0
    for _ in range(max_epochs):
        m = 0
        for x, t in zip(rows, y):
            if t * sum(a * b for a, b in zip(w, x)) <= 0:
                w = [a + t * b for a, b in zip(w, x)]
                m += 1
        mistakes += m
        if m == 0:
            break
    return w, mistakes


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--d", type=int, default=1000)
    p.add_argument("--max-epochs", type=int, default=20)
    a = p.parse_args(argv)
    print(load())  # the machine's load: read the numbers below with it
    rng = np.random.default_rng(0)
    num = rng.integers(-9, 10, size=(a.n, a.d))
    den = rng.integers(1, 10, size=(a.n, a.d))
    X = [[Fraction(int(p_), int(q)) for p_, q in zip(r1, r2)] for r1, r2 in zip(num, den)]
    y = [1 if v > 0 else -1 for v in rng.standard_normal(a.n)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        markone.train(X[:3], y[:3], exact=True, max_epochs=2)  # compile outside the timing
        t0 = time.perf_counter()
        res = markone.train(X, y, exact=True, max_epochs=a.max_epochs)
        t_m = time.perf_counter() - t0
    t0 = time.perf_counter()
    w_ref, m_ref = fraction_loop(X, y, a.max_epochs)
    t_f = time.perf_counter() - t0
    same = list(res.w) == w_ref and res.mistakes == m_ref
    print(f"data: {a.n} x {a.d} rationals (denominators 1..9), {a.max_epochs} passes max, "
          f"mistakes={res.mistakes}, converged={res.converged}")
    print(f"markone exact (int64)  {t_m * 1e3:9.1f} ms")
    print(f"plain Fraction loop    {t_f * 1e3:9.1f} ms")
    print(f"bit-for-bit equal: {same}")
    print(f"ratio: {t_f / t_m:.0f}x faster   (target >= 20x)")


if __name__ == "__main__":
    main()
