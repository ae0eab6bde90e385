"""Where the sparse loop's time goes: markone against the floor any such loop has.

On ``bench_core.py``'s sparse data (the stored column of ones included), the script
times in one run, interleaved, best of ``--repeat``, in CPU time on one thread:

* ``markone.train`` (E passes, every mistake's update);
* **decide**: a compiled loop that reads every row as markone's does, scores it with
  fixed weights (markone's final ones, plus a random fraction each, so that no score
  is 0) and takes at every presentation the branch
  markone took (labels chosen so that exactly markone's mistakes are mistakes: the
  same branches to predict; the mistakes are found by a textbook replica of the run,
  whose weights must equal markone's), but updates nothing: what the run costs if
  updates were free;
* **read**: the bare CSR dot products, row by row (no labels, no decisions);
* ``A @ w`` E times (scipy), the bound ``bench_core.py`` uses;
* scikit-learn's sparse ``Perceptron``.

It prints the data read per pass and the updates' work (mistakes x stored entries a
row: each a read-modify-write of a weight), the updates' cost (markone - decide), and
the ratios that bound what any perceptron pass can reach: scikit-learn / decide is the
most a loop that makes no update could gain over scikit-learn.

With ``--write-docs`` the results replace the ``bench_sparse_floor`` block of
``docs/sparse-large.md``.

Usage: ``python benchmarks/bench_sparse_floor.py [--sparse-n 100000] [--sparse-d 50000]
[--nnz 50] [--max-epochs 5] [--repeat 5] [--write-docs]``.
"""

import argparse
import math
import sys
import warnings

import numpy as np
from numba import njit

import markone
from _docblock import ROOT, write_block  # noqa: E402
from bench_core import add_sparse_options, interleaved, sparse_data  # noqa: E402
from bench_startup import load  # noqa: E402

DOCS = ROOT / "docs" / "sparse-large.md"


@njit(nogil=True, cache=True)
def decide(data, indices, indptr, y, w):
    """One pass of markone's reading and deciding, without its updates: the mistakes."""
    mistakes = 0
    for i in range(y.shape[0]):
        s = 0.0
        for k in range(np.uintp(indptr[i]), np.uintp(indptr[i + 1])):
            s += w[np.uintp(indices[k])] * data[k]
        if not math.isfinite(s):
            return -1
        if y[i] * s <= 0:
            mistakes += 1
    return mistakes


@njit(nogil=True, cache=True)
def read(data, indices, indptr, w, out):
    """The bare dot products of every row with ``w``, into ``out``."""
    for i in range(out.shape[0]):
        s = 0.0
        for k in range(np.uintp(indptr[i]), np.uintp(indptr[i + 1])):
            s += w[np.uintp(indices[k])] * data[k]
        out[i] = s


@njit(nogil=True, cache=True)
def replica(data, indices, indptr, y, epochs, w, wrong):
    """The textbook perceptron on the CSR rows, noting each pass's mistakes in
    ``wrong[epoch, i]``."""
    for e in range(epochs):
        for i in range(y.shape[0]):
            s = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                s += w[indices[k]] * data[k]
            if y[i] * s <= 0:
                wrong[e, i] = True
                for k in range(indptr[i], indptr[i + 1]):
                    w[indices[k]] += y[i] * data[k]


def same_branches(rows, y, res, epochs):
    """Fixed weights, and labels (one row of them a pass) under which ``decide`` makes
    exactly the mistakes markone made in that pass."""
    n = y.shape[0]
    w, wrong = np.zeros_like(res.w), np.zeros((epochs, n), dtype=bool)
    replica(*rows, y.astype(np.float64), epochs, w, wrong)
    if not np.array_equal(w, res.w) or wrong.sum() != res.mistakes:
        raise SystemExit("the replica's run differs from markone's")
    w = res.w + np.random.default_rng(0).uniform(0.1, 0.9, w.shape)
    scores = np.empty(n)
    read(*rows, w, scores)
    sign = np.where(scores > 0, 1.0, -1.0)  # sign * score > 0 unless the score is 0
    labels = [np.where(wrong[e], -sign, sign) for e in range(epochs)]
    if any(decide(*rows, labels[e], w) != wrong[e].sum() for e in range(epochs)):
        raise SystemExit("a score of exactly 0: the same branches cannot be set up")
    return w, labels


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_sparse_options(p, repeat=5)
    p.add_argument("--write-docs", action="store_true",
                   help="write the results into docs/sparse-large.md")
    a = p.parse_args(argv)
    before = load()
    print(before)
    lines = measure(a)
    after = load()
    print("\n".join(lines))
    print(after)
    if a.write_docs:
        command = " ".join(["python benchmarks/bench_sparse_floor.py",
                            *(sys.argv[1:] if argv is None else argv)])
        head = (f"`{command}`: CPU time on one thread, best of {a.repeat} interleaved "
                f"rounds; {before} before, {after} after.")
        write_block(DOCS, "bench_sparse_floor", [head, "", *lines])
        print(f"wrote the results to {DOCS}")


def measure(a):
    from sklearn.linear_model import Perceptron as SkPerceptron

    A, y = sparse_data(a, intercept_column=True)
    E, n = a.max_epochs, A.shape[0]
    sk = SkPerceptron(shuffle=False, tol=None, eta0=1, max_iter=E, alpha=0.0,
                      fit_intercept=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = markone.train(A, y, max_epochs=E, intercept=False)
        out, ones = np.empty(n), np.ones(A.shape[1])
        rows = (A.data, A.indices, A.indptr)
        w, labels = same_branches(rows, y, res, E)
        t, _ = interleaved({
            "markone": lambda: markone.train(A, y, max_epochs=E, intercept=False),
            "decide": lambda: [decide(*rows, labels[e], w) for e in range(E)],
            "read": lambda: [read(*rows, w, out) for _ in range(E)],
            "A @ w": lambda: [A @ ones for _ in range(E)],
            "scikit-learn": lambda: sk.fit(A, y)}, a.repeat)
    mb = sum(x.nbytes for x in rows) / 1e6
    updates = res.mistakes * A.nnz / n
    cost = t["markone"] - t["decide"]
    return [
        f"{n:,} x {A.shape[1]:,}, {A.nnz / n:.0f} stored a row, {E} passes: "
        f"{mb:.0f} MB read a pass; {res.mistakes:,} mistakes, so {updates / 1e6:.1f} M "
        f"weight updates against {A.nnz * E / 1e6:.1f} M multiply-adds "
        f"({updates / (A.nnz * E):.0%}).",
        "",
        "| run | ms CPU | scikit-learn / run |",
        "| --- | --- | --- |",
        *(f"| {name} | {1e3 * s:.1f} | {t['scikit-learn'] / s:.2f}x |"
          for name, s in t.items()),
        "",
        f"The updates cost markone - decide = {1e3 * cost:.1f} ms, "
        f"{1e9 * cost / max(updates, 1):.2f} ns a weight update "
        f"({1e9 * cost / max(res.mistakes, 1):.0f} ns a mistake); markone reaches "
        f"{t['decide'] / t['markone']:.2f}x of decide and {t['A @ w'] / t['markone']:.2f}x "
        f"of A @ w.",
    ]


if __name__ == "__main__":
    main()
