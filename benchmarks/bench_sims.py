"""Speed of the simulations: novikoff (300 datasets) and `sim run all`, default sizes.

Targets (issue #6): novikoff within 10 s, every experiment within 3 minutes, on this
machine. Also, measured in the same run on identical work (results asserted equal):
the batched training of novikoff's 300 datasets (:func:`markone.batch.train_many`)
against a Python loop of :func:`markone.train` calls, and the batched tracing of
online_to_batch's 2000 runs (:func:`markone.batch.trace_many`) against a loop of
``train(record=True)`` calls (which record only the updates, not every step).

Run: ``python benchmarks/bench_sims.py [--workers K]``. Numbers from a shared machine
are noisy; compile caches are warmed first so that JIT time is not counted.
"""

import argparse
import tempfile
import time

from markone._internal.validation import child_seeds
from sims.runner import EXPERIMENTS, run_experiment
from bench_startup import load  # noqa: E402  (the same load line everywhere)

__all__ = ["bench_batching", "bench_tracing", "main"]


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def bench_batching(runs=300, n=200, dims=(2, 5, 10, 20, 50, 100), gamma=0.1):
    import markone
    from markone.batch import train_many
    from markone.datasets import separable

    data = [separable(n, dims[i % len(dims)], gamma, seed=s)
            for i, s in enumerate(child_seeds(0, runs))]
    Xs, ys = [X for X, _, _ in data], [y for _, y, _ in data]
    seeds = child_seeds(1, runs)
    kw = dict(intercept=False, order="shuffle", max_epochs=10_000)
    train_many(Xs[:2], ys[:2], seeds=seeds[:2], **kw)              # warm the JIT
    t_batch, res = _timed(lambda: train_many(Xs, ys, seeds=seeds, **kw))
    t_loop, fits = _timed(lambda: [markone.train(X, y, seed=s, **kw)
                                   for X, y, s in zip(Xs, ys, seeds)])
    assert [f.mistakes for f in fits] == res.mistakes.tolist()
    return t_batch, t_loop


def bench_tracing(runs=2000, n=200, gamma=0.1):
    """online_to_batch's runs: trace_many against one train(record=True) per run."""
    import numpy as np

    import markone
    from markone.batch import trace_many
    from sims.online_to_batch import sample_arcs

    data = [sample_arcs(n, gamma, seed=s) for s in child_seeds(0, runs)]
    Xs, ys = [X for X, _ in data], [y for _, y in data]
    stream = np.broadcast_to(np.arange(n), (runs, n))
    trace_many(Xs[:2], ys[:2], stream[:2], intercept=False)          # warm the JIT
    t_batch, (last, _) = _timed(lambda: trace_many(Xs, ys, stream, intercept=False))
    t_loop, fits = _timed(lambda: [markone.train(X, y, intercept=False, record=True,
                                                 order=np.arange(n), max_epochs=1)
                                   for X, y in zip(Xs, ys)])
    assert all(np.array_equal(f.last_w, w) for f, w in zip(fits, last[:, -1]))
    return t_batch, t_loop


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    print(load())  # the machine's load: read the numbers below with it
    with tempfile.TemporaryDirectory() as warm:            # compile caches, imports
        for name in EXPERIMENTS:
            run_experiment(name, out=warm, size="small", plot=False)
    t_batch, t_loop = bench_batching()
    print(f"train 300 novikoff datasets: batched {t_batch:.3f} s, loop of train() "
          f"{t_loop:.3f} s  ({t_loop / t_batch:.1f}x)")
    t_batch, t_loop = bench_tracing()
    print(f"trace 2000 online_to_batch runs (every step): batched {t_batch:.3f} s, loop "
          f"of train(record=True) {t_loop:.3f} s  ({t_loop / t_batch:.1f}x)")
    with tempfile.TemporaryDirectory() as out:
        t_nov, _ = _timed(lambda: run_experiment("novikoff", out=out,
                                                 workers=args.workers))
        print(f"sim run novikoff (300 datasets, with figure): {t_nov:.2f} s "
              f"(target 10 s: {'ok' if t_nov <= 10 else 'MISSED'})")
    with tempfile.TemporaryDirectory() as out:
        total = 0.0
        for name in EXPERIMENTS:
            t, _ = _timed(lambda: run_experiment(name, out=out, workers=args.workers))
            total += t
            print(f"  {name:<18} {t:6.2f} s")
        print(f"sim run all (default sizes, workers={args.workers}): {total:.1f} s "
              f"(target 180 s: {'ok' if total <= 180 else 'MISSED'})")


if __name__ == "__main__":
    main()
