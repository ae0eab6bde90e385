"""Speed of exact verification: check_separable vs a plain Z3 encoding, and max_margin.

Covers: exact separability verdicts (separable and not) on 1000 x 20 integer data
(target <= 0.5 s each); the same question for plain Z3 (``method="z3"``) on a size Z3
can finish, timed against ours on the same data (the ratio); 2000 Mark I A-unit
patterns x 512 binary features (target <= 5 s); max_margin on 10,000 x 100
(target <= 5 s with (upper - lower) <= 1e-9 relative).

5. verify at scale: 100,000 x 100 integer data, both verdicts (target <= 5 s each),
and a 100,000 x 10,000 scipy.sparse matrix (20 stored entries a row); ``--sizes``
prints the table of verdict time against n and d quoted in docs/sparse-large.md.

Every verdict is re-checked from scratch with ``check_certificate`` (timed too;
``--no-recheck-large`` skips it on the 100,000-row cases).

7. the trusted checker (now ``verify/certificate/kernel.py``, standard library only)
before and after a change: ``--checker`` times the current checker and the one of
commit ``OLD_CHECKER`` (its ``verify/certificate.py``, the checker before it became the
``verify/certificate/`` package; read from git, loaded as a module of its own; another
commit with ``--checker-base``) on the same verdicts of section 5, in one run, and
prints old / new; both must accept. The dense separable case is also written as a
certificate file and checked with ``check_certificate_file``.

8. sparse certificate files: ``--files`` writes the verdict on a 100,000 x 10,000
scipy.sparse matrix (1% non-zeros, 100 a row) as a certificate file (format ``/3``,
``"layout": "csr"``: the non-zero entries only, never made dense) and checks it with
``check_certificate_file``; it prints the times, the file size, and their ratios to
``check_certificate`` on the same matrix in memory.

9. wide sparse data: ``--wide`` times ``check_separable`` (and the re-check) on
100,000 x 10,000 CSR matrices (and 20,000 and 50,000 rows) with 0.2% and 1% non-zeros,
labelled by a random hyperplane through the median score, and with 50 labels flipped.

Numbers are wall-clock seconds on this machine, measured in one run; the machine is
shared, so compare ratios rather than absolute times.

Run: ``python benchmarks/bench_verify.py [--quick] [--only-scale] [--sizes] [--checker
[--checker-base COMMIT]] [--files] [--wide]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from markone import datasets
from verify import check_certificate, check_separable, max_margin

__all__ = ["main"]

SEED = 0
N_INT, D_INT = 1000, 20  # integer data
N_Z3 = 80  # plain Z3 needs ~20-40 s already at 100 x 20 here
N_MARK, D_MARK = 2000, 512  # Mark I A-unit patterns
N_MARGIN, D_MARGIN = 10_000, 100
Z3_TIMEOUT_S = 300
#: The commit whose verify/certificate.py is "before" in section 7 (by default).
OLD_CHECKER = "c26a636"


def integer_data(n, d, flips, rng):
    """Integer points labelled by a random affine hyperplane, ``flips`` labels flipped."""
    X = rng.integers(-10, 11, size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.5 > 0, 1, -1)
    y[rng.choice(n, flips, replace=False)] *= -1
    return X, y


def timed_verdict(X, y, **kw):
    t = time.perf_counter()
    v = check_separable(X, y, **kw)
    t_verdict = time.perf_counter() - t
    t = time.perf_counter()
    if v.separable is not None:
        check_certificate(X, y, v)
    return v, t_verdict, time.perf_counter() - t


def line(name, v, t, t_check=None):
    what = {True: "separable", False: "NOT separable", None: "unknown"}[v.separable]
    size = "" if v.separable is None else (
        "witness" if v.separable else f"certificate on {len(v.certificate)} pts")
    extra = "" if t_check is None else f"  re-check {t_check:6.3f} s"
    print(f"  {name:<34} {t:8.3f} s  {what:<13} via {v.method:<10} {size}{extra}")


def mark1_patterns(rng, n=N_MARK):
    """A-unit outputs of the Mark I (default wiring) on jittered letters, 2 typefaces."""
    from markone.hardware import MarkI

    images, labels = datasets.letters(per_class=n // 52 + 1, seed=rng, jitter=2,
                                      typeface=("block", "serif"))
    machine = MarkI(seed=SEED)
    A = machine.a_features(images[:n]).astype(np.float64)
    return A, labels[:n]


def sparse_matrix(n, d, k, rng):
    """``n x d`` CSR with ``k`` entries a row in 1..3 at random columns (repeats
    summed), int32 indices."""
    import scipy.sparse as sp

    cols = rng.integers(0, d, size=(n, k)).astype(np.int32)
    A = sp.csr_array((rng.integers(1, 4, n * k).astype(np.float64), cols.ravel(),
                      np.arange(0, n * k + 1, k, dtype=np.int32)), shape=(n, d))
    A.sum_duplicates()
    return A


def sparse_data(n, d, k, rng):
    """``n x d`` CSR with ``k`` entries a row in 1..3, labelled by a hyperplane with a
    fair margin (the perceptron decides), int32 indices."""
    A = sparse_matrix(n, d, k, rng)
    s = A @ rng.normal(size=d)
    keep = np.abs(s - np.median(s)) > 0.5 * np.std(s)  # a margin around the hyperplane
    A = A[np.flatnonzero(keep)]
    return A, np.where(s[keep] > np.median(s), 1, -1)


def at_scale(rng, recheck):
    print("\n5. verify at scale (target <= 5 s per verdict on 100,000 x 100)")
    for flips, name in ((0, "separable"), (50, "50 labels flipped")):
        X, y = integer_data(100_000, 100, flips, rng)
        v, t, tc = timed_verdict(X, y) if recheck else (*timed_verdict_only(X, y), None)
        line(f"100,000 x 100 int, {name}", v, t, tc)
    A, y = sparse_data(100_000, 10_000, 20, rng)
    v, t, tc = timed_verdict(A, y) if recheck else (*timed_verdict_only(A, y), None)
    line(f"{A.shape[0]:,} x 10,000 sparse, separable", v, t, tc)
    import scipy.sparse as sp

    B = sp.vstack([A, A[7:8]], format="csr")  # the same point, both labels
    yb = np.r_[y, -y[7]]
    v, t, tc = timed_verdict(B, yb) if recheck else (*timed_verdict_only(B, yb), None)
    line("same + one point again, other label", v, t, tc)


def wide_sparse(rng, densities=(0.002, 0.01)):
    """Section 9: sparse 10,000-column data labelled by a random hyperplane through
    the median score (no margin kept), at several n and densities; 50 flipped labels
    keep it separable (10,000 dimensions), so both rows are witnesses."""
    print("\n9. wide sparse data, d = 10,000, hyperplane labels (verdict s / re-check s)")
    print(f"  {'n':>8} {'density':>8} {'nnz':>11} {'separable':>16} {'50 flipped':>16}")
    for n in (20_000, 50_000, 100_000):
        for density in densities:
            A = sparse_matrix(n, 10_000, round(density * 10_000), rng)
            s = A @ rng.normal(size=10_000)
            cells = []
            for flips in (0, 50):
                y = np.where(s > np.median(s), 1, -1)
                y[rng.choice(n, flips, replace=False)] *= -1
                v, t, tc = timed_verdict(A, y)
                assert v.separable is True, v.message
                cells.append(f"{t:7.2f} / {tc:5.2f}")
            print(f"  {n:>8,} {density:>8.1%} {A.nnz:>11,} {cells[0]:>16} {cells[1]:>16}")


def timed_verdict_only(X, y):
    t = time.perf_counter()
    v = check_separable(X, y)
    return v, time.perf_counter() - t


def size_table(rng):
    """Verdict time against n and d (integer data as above, both verdicts)."""
    print("\n6. check_separable time (s) against n and d: separable / 50 flipped")
    print(f"  {'n':>8} {'d':>5} {'separable':>10} {'not sep.':>10}")
    for n in (10_000, 30_000, 100_000):
        for d in (20, 50, 100):
            times = []
            for flips in (0, 50):
                X, y = integer_data(n, d, flips, rng)
                v, t = timed_verdict_only(X, y)
                assert v.separable == (flips == 0)
                times.append(t)
            print(f"  {n:>8} {d:>5} {times[0]:>10.2f} {times[1]:>10.2f}")


def old_checker(commit=OLD_CHECKER):
    """verify/certificate.py as of ``commit``, loaded from git as its own module."""
    import importlib.util
    import pathlib
    import subprocess
    import sys
    import tempfile

    repo = pathlib.Path(__file__).resolve().parents[1]
    text = subprocess.run(["git", "-C", str(repo), "show",
                           f"{commit}:verify/certificate.py"],
                          capture_output=True, text=True, check=True).stdout
    path = pathlib.Path(tempfile.mkdtemp()) / "old_certificate.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("old_certificate", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_certificate"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def checker_speed(rng, base=OLD_CHECKER):
    """Section 7: the trusted checker, old (git) vs new, on the cases of section 5."""
    import os
    import tempfile

    from markone._internal.io import write_json
    from verify import certificate as new

    old = old_checker(base)
    print(f"\n7. the trusted checker, commit {base} (old) vs now (new), same verdicts")
    cases = [(f"100,000 x 100 int, {name}", *integer_data(100_000, 100, flips, rng))
             for flips, name in ((0, "separable"), (50, "50 labels flipped"))]
    A, y = sparse_data(100_000, 10_000, 20, rng)
    cases.append((f"{A.shape[0]:,} x 10,000 sparse, 20 per row", A, y))
    for name, X, y in cases:
        v = check_separable(X, y)
        times = []
        for module in (old, new):
            t = time.perf_counter()
            assert module.check_certificate(X, y, v) is True
            times.append(time.perf_counter() - t)
        print(f"  {name:<34} old {times[0]:7.2f} s  new {times[1]:6.2f} s  "
              f"old/new {times[0] / times[1]:5.1f}x  ({'witness' if v.separable else 'certificate'}"
              f", both accept)")
    X, y = cases[0][1:]
    v = check_separable(X, y)
    times = []
    for module in (old, new):  # each in its own format (old: /2, new: /3)
        path = os.path.join(tempfile.mkdtemp(), "cert.json")
        write_json(path, module.certificate_document(X, y, v))
        t = time.perf_counter()
        assert module.check_certificate_file(path).separable is True
        times.append(time.perf_counter() - t)
    print(f"  {'the same as a file (' + str(os.path.getsize(path) >> 20) + ' MB)':<34} "
          f"old {times[0]:7.2f} s  new {times[1]:6.2f} s  old/new "
          f"{times[0] / times[1]:5.1f}x  (check_certificate_file: schema, hash, proof)")


def sparse_files(rng, n=100_000, d=10_000, k=100):
    """Section 8: a sparse certificate written and checked as a file, vs in memory.

    The data are labelled by an integer hyperplane ``w`` (rows within a margin of it
    dropped), and the verdict is that witness: check_separable's own search is not
    what this section times (section 5 does), the certificate file is."""
    import os
    import tempfile
    from types import SimpleNamespace

    import scipy.sparse as sp

    from markone._internal.io import atomic_write
    from verify.certificate import (certificate_document, certificate_json,
                                    check_certificate_file)

    cols = rng.integers(0, d, size=(2 * n, k)).astype(np.int32)
    A = sp.csr_array((rng.integers(1, 4, 2 * n * k).astype(np.float64), cols.ravel(),
                      np.arange(0, 2 * n * k + 1, k, dtype=np.int32)), shape=(2 * n, d))
    A.sum_duplicates()
    w = rng.integers(-5, 6, d)
    s = A @ w
    b = -int(np.median(s))
    keep = np.flatnonzero(np.abs(s + b) > 0.3 * np.std(s))[:n]
    A, y = A[keep], np.where(s[keep] + b > 0, 1, -1)
    v = SimpleNamespace(separable=True, intercept=True, witness=(*w.tolist(), b),
                        certificate=None, method="known hyperplane", message="")
    print(f"\n8. a sparse certificate file: {A.shape[0]:,} x {d:,}, {A.nnz:,} non-zeros "
          f"({A.nnz / (A.shape[0] * d):.1%}), witness: the labelling hyperplane")
    t = time.perf_counter()
    assert check_certificate(A, y, v) is True
    t_mem = time.perf_counter() - t
    path = os.path.join(tempfile.mkdtemp(), "sparse-cert.json")
    t = time.perf_counter()
    atomic_write(path, certificate_json(certificate_document(A, y, v)))
    t_write = time.perf_counter() - t
    t = time.perf_counter()
    claim = check_certificate_file(path)
    t_file = time.perf_counter() - t
    assert claim.separable is v.separable and claim.fields["data"]["layout"] == "csr"
    size = os.path.getsize(path)
    dense = 2 * A.shape[0] * d  # a dense row list writes >= 2 bytes an entry ("0,")
    print(f"  check_certificate in memory          {t_mem:9.2f} s  (1x)")
    print(f"  write the file (document + JSON)     {t_write:9.2f} s  "
          f"({t_write / t_mem:.2f}x the in-memory check)")
    print(f"  check_certificate_file               {t_file:9.2f} s  "
          f"({t_file / t_mem:.2f}x the in-memory check: schema, hash, proof)")
    print(f"  file size {size / 2**20:,.0f} MiB; the dense layout would be at least "
          f"{dense / 2**30:,.1f} GiB ({dense / size:,.0f}x)")
    os.unlink(path)


def main(quick=False, recheck_large=True, sizes=False, only_scale=False, checker=False,
         checker_base=OLD_CHECKER, files=False, wide=False):
    rng = np.random.default_rng(SEED)
    # warm-up: imports, numba caches, HiGHS and Z3 start-up are not what we measure
    check_separable(*datasets.xor())
    check_separable(*datasets.xor(), method="z3")
    max_margin(*datasets.xor())
    if checker:
        checker_speed(rng, checker_base)
        return
    if files:
        sparse_files(rng)
        return
    if wide:
        wide_sparse(rng)
        return
    if only_scale:
        at_scale(rng, recheck_large)
        if sizes:
            size_table(rng)
        return

    _exact_verdicts(rng)
    _plain_z3(rng)
    _mark1_patterns(rng)
    _margins(quick)
    at_scale(rng, recheck_large)
    if sizes:
        size_table(rng)


def _exact_verdicts(rng):
    """Section 1: exact verdicts on integer data."""
    print(f"1. exact verdicts on {N_INT} x {D_INT} integer data (target <= 0.5 s each)")
    Xs, ys = integer_data(N_INT, D_INT, 0, rng)
    Xn, yn = integer_data(N_INT, D_INT, 50, rng)
    v, t, tc = timed_verdict(Xs, ys)
    line("separable, auto", v, t, tc)
    v, t, tc = timed_verdict(Xn, yn)
    line("50 labels flipped, auto", v, t, tc)
    v, t, tc = timed_verdict(Xs, ys, method="lp")
    line("separable, lp (no perceptron)", v, t, tc)
    G = rng.normal(size=(N_MARGIN, D_MARGIN))
    v, t, tc = timed_verdict(G, rng.choice([-1, 1], N_MARGIN))
    line(f"{N_MARGIN} x {D_MARGIN} Gaussian, random labels", v, t, tc)


def _plain_z3(rng):
    """Section 2: a plain Z3 encoding against ours."""
    print(f"\n2. plain Z3 encoding vs ours on {N_Z3} x {D_INT} (a size Z3 can finish)")
    for flips, name in ((0, "separable"), (N_Z3 // 4, "not separable")):
        X, y = integer_data(N_Z3, D_INT, flips, rng)
        ours, t_ours, _ = timed_verdict(X, y)
        z3v, t_z3, _ = timed_verdict(X, y, method="z3", timeout_s=Z3_TIMEOUT_S)
        line(f"{name}: ours (auto)", ours, t_ours)
        line(f"{name}: plain Z3", z3v, t_z3)
        agree = "agree" if ours.separable == z3v.separable else "DISAGREE"
        print(f"  -> plain Z3 / ours = {t_z3 / t_ours:8.0f}x  ({agree})")


def _mark1_patterns(rng):
    """Section 3: Mark I A-unit patterns."""
    print(f"\n3. {N_MARK} Mark I A-unit patterns x {D_MARK} binary features "
          "(target <= 5 s)")
    A, letters = mark1_patterns(rng)
    _, pattern = np.unique(A, axis=0, return_inverse=True)
    pattern = pattern.ravel()
    print(f"  ({pattern.max() + 1} distinct patterns among {len(A)}, {A.mean():.1%} of "
          "A-units active)")
    half = np.isin(letters, list("ABCDEFGHIJKLM"))
    v, t, tc = timed_verdict(A, np.where(half, 1, -1))
    line("letters A-M vs N-Z", v, t, tc)
    v, t, tc = timed_verdict(A, np.where(letters == "E", 1, -1))
    line("letter E vs the rest", v, t, tc)
    coin = rng.choice([-1, 1], pattern.max() + 1)  # one random label per pattern
    v, t, tc = timed_verdict(A, coin[pattern])
    line("random label per pattern", v, t, tc)
    B = (rng.random((N_MARK, D_MARK)) < 0.15).astype(np.float64)
    v, t, tc = timed_verdict(B, rng.choice([-1, 1], N_MARK))
    line("random 15%-active, random labels", v, t, tc)


def _margins(quick):
    """Section 4: max_margin at size."""
    n = N_MARGIN // (10 if quick else 1)
    print(f"\n4. max_margin on {n} x {D_MARGIN} (target <= 5 s, gap <= 1e-9)")
    X, y, _ = datasets.separable(n, D_MARGIN, 0.05, seed=SEED)
    for kw in ({"intercept": True}, {"intercept": False}, {"svm": True}):
        t = time.perf_counter()
        m = max_margin(X, y, **kw)
        t = time.perf_counter() - t
        name = ", ".join(f"{k}={v}" for k, v in kw.items())
        print(f"  {name:<34} {t:8.3f} s  gamma {m.gamma:.12f}  relative gap "
              f"{m.gap:.1e}  {len(m.support)} support pts, {m.iterations} iterations")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller margin problem")
    parser.add_argument("--no-recheck-large", dest="recheck_large", action="store_false",
                        help="skip the re-check of the 100,000-row cases")
    parser.add_argument("--sizes", action="store_true",
                        help="also print the verdict time table against n and d")
    parser.add_argument("--only-scale", action="store_true",
                        help="only the cases at scale (5, and 6 with --sizes)")
    parser.add_argument("--checker", action="store_true",
                        help="only the trusted checker, old (git) vs new (7)")
    parser.add_argument("--checker-base", default=OLD_CHECKER, metavar="COMMIT",
                        help="the commit whose verify/certificate.py is 'old' in (7)")
    parser.add_argument("--wide", action="store_true",
                        help="only wide sparse data, d = 10,000, at 0.2%% and 1%% (9)")
    parser.add_argument("--files", action="store_true",
                        help="only the sparse certificate file, written and checked (8)")
    main(**vars(parser.parse_args()))
