"""Speed of the core loop against scikit-learn and the memory-bandwidth bound.

Same data (n x d integer-valued float64, so every run's arithmetic is exact), same
order, E passes each; prints examples per second of

* markone.train (the compiled loop),
* scikit-learn's Perceptron(shuffle=False, tol=None, eta0=1, max_iter=E),
* the bandwidth bound: ``X @ w`` repeated E times on the same array,

checks that markone and scikit-learn end with identical weights, and prints the
ratios. Usage: ``python benchmarks/bench_core.py [--n 200000] [--d 100] [--epochs 5]``.
"""

import argparse
import time
import warnings

import numpy as np

import markone


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=200_000)
    p.add_argument("--d", type=int, default=100)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args(argv)
    from sklearn.linear_model import Perceptron as SkPerceptron

    rng = np.random.default_rng(0)
    # noisy labels from a random hyperplane: the run never converges, all E passes run
    X = rng.integers(-3, 4, size=(a.n, a.d)).astype(np.float64)
    y = np.where(X @ rng.standard_normal(a.d) + rng.standard_normal(a.n) > 0, 1, -1)
    E = a.epochs
    work = a.n * E

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        markone.train(X[:100], y[:100], max_epochs=2)  # compile outside the timing
        t_m, res = best_of(lambda: markone.train(X, y, max_epochs=E), a.repeat)
        sk = SkPerceptron(shuffle=False, tol=None, eta0=1, max_iter=E, alpha=0.0)
        t_s, _ = best_of(lambda: sk.fit(X, y), a.repeat)
    w = np.ones(X.shape[1])

    def bound():  # the array markone reads, read E times
        s = 0.0
        for _ in range(E):
            s += float((X @ w)[0])
        return s

    t_b, _ = best_of(bound, a.repeat)
    same = np.array_equal(res.w[:-1], sk.coef_[0]) and res.w[-1] == sk.intercept_[0]
    print(f"data: n={a.n} d={a.d} E={E}  ({X.nbytes / 1e6:.0f} MB), mistakes={res.mistakes}")
    print(f"markone             {work / t_m / 1e6:8.2f} M examples/s  ({t_m * 1e3:7.1f} ms)")
    print(f"scikit-learn        {work / t_s / 1e6:8.2f} M examples/s  ({t_s * 1e3:7.1f} ms)")
    print(f"bandwidth bound X@w {work / t_b / 1e6:8.2f} M examples/s  ({t_b * 1e3:7.1f} ms)")
    print(f"identical weights to scikit-learn: {same}")
    print(f"ratio markone / scikit-learn: {t_s / t_m:.2f}x   (target >= 1.5x)")
    print(f"ratio markone / bandwidth bound: {t_b / t_m:.2f}x   (target >= 0.8x)")


if __name__ == "__main__":
    main()
