"""The checker extracted from the Coq proofs against the Python kernel, at scale.

Covers: ``markone verify check --checker coq`` (issue 30) on 100,000 x 100 integer data
(entries -10..10, labelled by an integer hyperplane): a witness (that hyperplane), and
a Gordan certificate (the same data plus one example repeated with the other label).
For each, in one run: the Python kernel (``check_certificate``), the conversion to the
Coq checker's text form (``certificate_text``), and the extracted OCaml checker itself
(its process), with the ratio coq / python. Times are CPU seconds (this process's, and
the checker's process's), so that a busy machine changes them little. Both must accept.

Run: ``PYTHONPATH=. python benchmarks/bench_coq.py [--n 100000 --d 100]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import tempfile
import time
from types import SimpleNamespace

import numpy as np

from verify import check_certificate
from verify.coq import build, certificate_text

SEED = 3


def labelled_data(n, d, rng):
    """Integer data and an integer witness ``w`` (with intercept) that separates them."""
    w = rng.integers(-5, 6, size=d + 1)
    X = rng.integers(-10, 11, size=(n, d))
    s = X @ w[:-1] + w[-1]
    X, s = X[s != 0], s[s != 0]
    return X, np.where(s > 0, 1, -1), w


def cpu(f, *args):
    t = time.process_time()
    out = f(*args)
    return out, time.process_time() - t


def coq_cpu(executable, text):
    """Run the extracted checker on ``text``: (its verdict line, its CPU seconds)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(text)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        out = subprocess.run([str(executable), f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out.stdout.strip(), (after.ru_utime - before.ru_utime
                                + after.ru_stime - before.ru_stime)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--d", type=int, default=100)
    args = p.parse_args()
    built = build()
    X, y, w = labelled_data(args.n, args.d, np.random.default_rng(SEED))
    n = len(X)
    print(f"load average {os.getloadavg()[0]:.1f}; {n:,} x {args.d} integer data; "
          "CPU seconds")
    Xc, yc = np.vstack([X, X[:1]]), np.append(y, -y[0])  # one example, both labels
    cases = (("witness", X, y, SimpleNamespace(separable=True, intercept=True,
                                               witness=w.tolist(), certificate=None)),
             ("certificate on 2 examples", Xc, yc, SimpleNamespace(
                 separable=False, intercept=True, witness=None, certificate={0: 1, n: 1})))
    for what, data, labels, claim in cases:
        ok, t_py = cpu(check_certificate, data, labels, claim)
        text, t_text = cpu(certificate_text, data, labels, claim)
        verdict, t_coq = coq_cpu(built.executable, text)
        assert ok and verdict == "VALID", verdict
        print(f"{what:>26}: python kernel {t_py:6.2f} | text form {t_text:6.2f} | "
              f"coq checker {t_coq:6.2f}  (coq / python {t_coq / t_py:4.1f}x; with the "
              f"text form {(t_coq + t_text) / t_py:4.1f}x)")


if __name__ == "__main__":
    main()
