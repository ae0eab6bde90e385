"""Speed of the core loop against scikit-learn and the memory-bandwidth bound.

Same data (n x d integer-valued float64, so every run's arithmetic is exact), same
order, E passes each; prints examples per second of

* markone.train (the compiled loop),
* scikit-learn's Perceptron(shuffle=False, tol=None, eta0=1, max_iter=E),
* the bandwidth bound: ``X @ w`` repeated E times on the same array,

checks that markone and scikit-learn end with identical weights, and prints the
ratios. Then the same on sparse data (scipy.sparse CSR, default 100,000 x 50,000 with
50 non-zeros a row, small integers, a stored column of ones as the intercept, since
scikit-learn damps the intercept's steps on sparse input): markone's compiled CSR loop
against scikit-learn's sparse Perceptron and the sparse ``A @ w`` bound.

Fixed cost: ``markone.train`` called many times on one example of ``--d`` features
(two presentations: the work is a few microseconds, the rest is what every call pays:
checks, the data boundary, the result), per call in CPU time and in wall time, and
the ratio of the CPU time to the goal of 0.05 ms (issue 32; read the CPU column on a
loaded machine: wall time waits for a core). The machine's load is printed first.

Usage: ``python benchmarks/bench_core.py [--n 200000] [--d 100] [--max-epochs 5]
[--sparse-n 100000] [--sparse-d 50000] [--nnz 50] [--calls 5000]
[--only dense|sparse|fixed]``.
"""

import argparse
import time
import warnings

import numpy as np

import markone
from bench_startup import load  # noqa: E402  (the same load line as the start-up's)

#: The goal for the fixed cost of one ``markone.train`` call (issue 32), in seconds.
FIXED_COST_GOAL = 0.05e-3


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
    p.add_argument("--max-epochs", type=int, default=5)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--sparse-n", type=int, default=100_000)
    p.add_argument("--sparse-d", type=int, default=50_000)
    p.add_argument("--nnz", type=int, default=50, help="non-zeros a row (sparse case)")
    p.add_argument("--calls", type=int, default=5_000, help="calls (fixed cost)")
    p.add_argument("--only", choices=("dense", "sparse", "fixed"), default=None)
    a = p.parse_args(argv)
    print(load())
    if a.only in (None, "fixed"):
        fixed_cost_case(a)
    if a.only in (None, "dense"):
        dense_case(a)
    if a.only in (None, "sparse"):
        sparse_case(a)


def fixed_cost_case(a):
    """Per-call CPU and wall time of ``train`` on one example (best of ``repeat``)."""
    x = np.arange(1.0, a.d + 1.0)[None, :]
    y = np.array([1])
    res = markone.train(x, y)  # imports and first-call work outside the timing
    cpu, wall = [], []
    for _ in range(a.repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(a.calls):
            markone.train(x, y)
        cpu.append((time.process_time() - c0) / a.calls)
        wall.append((time.perf_counter() - t0) / a.calls)
    print(f"fixed cost of markone.train (1 x {a.d}, {res.epochs} passes, "
          f"{a.calls} calls): CPU {min(cpu) * 1e3:.4f} ms, wall {min(wall) * 1e3:.4f} ms "
          f"a call")
    print(f"ratio CPU cost / goal {FIXED_COST_GOAL * 1e3:.2f} ms: "
          f"{min(cpu) / FIXED_COST_GOAL:.2f}x   (target <= 1x)\n")


def report(name_bound, work, t_m, t_s, t_b, same):
    print(f"markone             {work / t_m / 1e6:8.2f} M examples/s  ({t_m * 1e3:7.1f} ms)")
    print(f"scikit-learn        {work / t_s / 1e6:8.2f} M examples/s  ({t_s * 1e3:7.1f} ms)")
    print(f"bandwidth bound {name_bound:<4}{work / t_b / 1e6:8.2f} M examples/s  "
          f"({t_b * 1e3:7.1f} ms)")
    print(f"identical weights to scikit-learn: {same}")
    print(f"ratio markone / scikit-learn: {t_s / t_m:.2f}x   (target >= 1.5x)")
    print(f"ratio markone / bandwidth bound: {t_b / t_m:.2f}x   (target >= 0.8x)")


def dense_case(a):
    from sklearn.linear_model import Perceptron as SkPerceptron

    rng = np.random.default_rng(0)
    # noisy labels from a random hyperplane: the run never converges, all E passes run
    X = rng.integers(-3, 4, size=(a.n, a.d)).astype(np.float64)
    y = np.where(X @ rng.standard_normal(a.d) + rng.standard_normal(a.n) > 0, 1, -1)
    E = a.max_epochs
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
    print(f"dense data: n={a.n} d={a.d} E={E}  ({X.nbytes / 1e6:.0f} MB), "
          f"mistakes={res.mistakes}")
    report("X@w", work, t_m, t_s, t_b, same)


def sparse_case(a):
    import scipy.sparse as sp
    from sklearn.linear_model import Perceptron as SkPerceptron

    rng = np.random.default_rng(1)
    n, d, k, E = a.sparse_n, a.sparse_d, a.nnz, a.max_epochs
    cols = np.sort(rng.integers(0, d, size=(n, k)), axis=1)
    vals = rng.integers(1, 4, size=(n, k)).astype(np.float64)
    # the intercept, stored as column d of ones; int32 indices, as scikit-learn needs
    cols = np.hstack([cols, np.full((n, 1), d)]).astype(np.int32)
    vals = np.hstack([vals, np.ones((n, 1))])
    A = sp.csr_array((vals.ravel(), cols.ravel(),
                      np.arange(0, n * (k + 1) + 1, k + 1, dtype=np.int32)),
                     shape=(n, d + 1))
    A.sum_duplicates()  # canonical (a repeated column adds up, as in the dense matrix)
    y = np.where(A @ rng.standard_normal(d + 1) + rng.standard_normal(n) > 0, 1, -1)
    work = n * E
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        markone.train(A[:100], y[:100], max_epochs=2, intercept=False)  # compile
        t_m, res = best_of(lambda: markone.train(A, y, max_epochs=E, intercept=False),
                           a.repeat)
        sk = SkPerceptron(shuffle=False, tol=None, eta0=1, max_iter=E, alpha=0.0,
                          fit_intercept=False)
        t_s, _ = best_of(lambda: sk.fit(A, y), a.repeat)
    w = np.ones(A.shape[1])

    def bound():  # the arrays markone reads (data, indices, indptr), read E times
        s = 0.0
        for _ in range(E):
            s += float((A @ w)[0])
        return s

    t_b, _ = best_of(bound, a.repeat)
    same = np.array_equal(res.w, sk.coef_[0])
    mb = (A.data.nbytes + A.indices.nbytes + A.indptr.nbytes) / 1e6
    print(f"\nsparse data: n={n} d={d} ({A.nnz / n:.1f} stored a row, the intercept "
          f"column included) E={E}  ({mb:.0f} MB CSR), mistakes={res.mistakes}")
    report("A@w", work, t_m, t_s, t_b, same)


if __name__ == "__main__":
    main()
