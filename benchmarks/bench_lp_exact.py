"""Exact separability verdicts against a plain LP: check_separable vs scipy's linprog.

Covers: ``verify.check_separable`` (exact verdict *and* its witness or Gordan
certificate) against ``scipy.optimize.linprog(method="highs")`` of the same question
(``max t`` s.t. ``y_i [x_i, 1] . w >= t``, ``|w_j| <= 1``, ``t <= 1``: a float answer,
no proof), on integer data in [-10, 10] labelled by a random affine hyperplane,
separable and with 50 labels flipped (not separable once n is large enough), across
n in {1e3, 1e4, 1e5, 1e6} and d in {10, 100, 1000}. Both verdicts are compared before any
time is quoted; every proof is then re-checked by ``check_certificate`` (timed apart).

Scenario: the machine is shared (2 cores, other work running), so the two are timed
alternately, best of ``REPEAT`` on the cells markone decides within a second (the
first run included: numba's compiled kernels are cached on disk), and the script prints the ratio
``linprog / markone`` (above 1: markone is faster) with the load average before and
after each cell. A cell is skipped, and says so, when the times fitted on the smaller
cells predict more than ``CELL_BUDGET_S`` for linprog or markone, or when its data
would take more than ``MAX_ENTRIES`` entries. The fitted exponents ``t ~ n^a`` (at
fixed d) and ``t ~ d^b`` (at fixed n) close the table.

``--sparse`` adds the 100,000 x 10,000 CSR matrix with 1 % non-zeros (100 a row,
values 1..3) and random labels, each side given the goal's 2 minutes
(:data:`GOAL_S`).

``--wide-scaling`` (alone: it skips the table) shows why that matrix is not decided
in 2 minutes: the same data at d in :data:`WIDE_DS` (n = 10 d rows, 1 % non-zeros),
CPU seconds of each stage (HiGHS's LP on ``3 (d + 1)`` rows, the least-squares
weights, their exact completion by FLINT, the ``check_certificate`` re-check), the
certificate's digits, the exponents fitted on them and their extrapolation to
d = 10,000. With ``--write-docs`` it writes the block ``bench_lp_exact_wide``.

``--dixon`` (alone) measures the exact solver of the least-squares and basis routes
(:func:`verify._internal.dixon.dixon_solve`, p-adic lifting on float BLAS) on square
systems of :data:`DIXON_DS` unknowns, 100 stored entries a row in 1..3, against
FLINT's ``fmpz_mat.solve`` and against the floor, one float64 LU of the same size
(CPU seconds, BLAS on one thread); then the 12,000 x 2,500 random-label case
(n x d, 1 % non-zeros) decided by least squares and one exact solve, against its
float floor (the same float least squares plus one float64 LU of the basis). With
``--write-docs`` it writes the block ``bench_lp_exact_dixon``.

``--wide-goal`` (alone) runs the goal's 100,000 x 10,000 case itself the same way
(no LP), with the exact solve's CPU profile; ``--write-docs`` writes the block
``bench_lp_exact_goal``.

With ``--write-docs`` everything printed replaces the measured block of
``docs/sparse-large.md`` (``<!-- bench_lp_exact: begin -->`` ... ``end -->``).

Run: ``python benchmarks/bench_lp_exact.py [--quick] [--budget SECONDS] [--sparse]
[--wide-scaling] [--wide-goal] [--dixon] [--write-docs]``
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _docblock import ROOT, write_block  # noqa: E402
from bench_verify import integer_data, sparse_matrix  # noqa: E402

from verify import check_certificate, check_separable  # noqa: E402

__all__ = ["main", "linprog_verdict"]

SEED = 0
FLIPS = 50
NS = (1_000, 10_000, 100_000, 1_000_000)
DS = (10, 100, 1000)
#: Seconds a cell may be predicted to take (either side) before it is skipped.
CELL_BUDGET_S = 300.0
#: Largest data (n x d entries) generated: 10^8 float64 entries are 800 MB.
MAX_ENTRIES = 3 * 10**7
#: Repeats (best of) of the cells whose both sides take under a second.
REPEAT = 3
#: Widths of ``--wide-scaling`` (n = 10 d rows, d / 100 stored a row), and the goal's.
WIDE_DS = (500, 1000, 2000, 4000)
WIDE_GOAL = 10_000
#: Sizes of ``--dixon``'s square systems (100 stored entries a row), and its n x d case.
DIXON_DS = (1000, 2000, 4000)
DIXON_CASE = (12_000, 2_500)
#: The goal: 100,000 x 10,000 sparse, random labels, decided within 2 minutes.
GOAL_S = 120.0
#: Every line printed, for ``--write-docs``.
PRINTED: list[str] = []


def say(*parts):
    """``print``, and keep the text for the docs block."""
    text = " ".join(str(p) for p in parts)
    PRINTED.extend(text.splitlines() or [""])
    print(text, flush=True)


def load():
    """The 1-minute load average (the machine has ``os.cpu_count()`` cores)."""
    return f"{os.getloadavg()[0]:.1f}"


def linprog_verdict(X, y, time_limit=None):
    """The LP of the question, solved by a plain ``scipy.optimize.linprog`` (HiGHS);
    True (``t > 1e-9``), False, or None when it did not solve.

    >>> linprog_verdict(np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([-1, 1, 1, -1]))
    False
    """
    import scipy.sparse as sp
    from scipy.optimize import linprog

    ys = np.asarray(y, dtype=np.float64)
    if sp.issparse(X):
        Z = sp.hstack([sp.csr_matrix(X).multiply(ys[:, None]), ys[:, None]], format="csr")
        A = sp.hstack([-Z, np.ones((Z.shape[0], 1))], format="csr")
    else:
        Z = np.hstack([np.asarray(X, dtype=np.float64) * ys[:, None], ys[:, None]])
        A = np.hstack([-Z, np.ones((Z.shape[0], 1))])
    d = Z.shape[1]
    c = np.zeros(d + 1)
    c[-1] = -1.0
    res = linprog(c, A_ub=A, b_ub=np.zeros(Z.shape[0]),
                  bounds=[(-1, 1)] * d + [(None, 1)], method="highs",
                  options={} if time_limit is None else {"time_limit": time_limit})
    return None if res.status != 0 else bool(-res.fun > 1e-9)


def _timed(f):
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


def compare(X, y):
    """markone, then linprog, alternately (best of :data:`REPEAT` when the first
    markone run takes under a second): ``(verdict, t_markone, t_linprog,
    t_recheck)``; the verdicts must agree."""
    v, best_m = _timed(lambda: check_separable(X, y))
    lp, best_l = _timed(lambda: linprog_verdict(X, y))
    for _ in range(REPEAT - 1 if best_m < 1 else 0):
        best_m = min(best_m, _timed(lambda: check_separable(X, y))[1])
        best_l = min(best_l, _timed(lambda: linprog_verdict(X, y))[1])
    if lp is not None and v.separable is not None and lp != v.separable:
        raise AssertionError(f"verdicts differ: markone {v.separable}, linprog {lp}")
    ok, tc = _timed(lambda: check_certificate(X, y, v) if v.separable is not None
                    else None)
    assert ok in (True, None)
    return v, best_m, best_l, tc


def _predict(done, n, d, side):
    """Seconds predicted for cell ``(n, d)`` from the cells done with n and d no larger:
    the smallest extrapolation by the exponents fitted so far (at least 1; 1 in n and
    2 in d before any can be fitted)."""
    smaller = [(nn, dd) for (nn, dd) in done if nn <= n and dd <= d]
    if not smaller:
        return 0.0
    a = max(_mean([_exponent(done, side, "n", f) for f in DS]) or 1.0, 1.0)
    b = max(_mean([_exponent(done, side, "d", f) for f in NS]) or 2.0, 1.0)
    return min(done[c][side] * (n / c[0]) ** a * (d / c[1]) ** b for c in smaller)


def _mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _exponent(done, side, along, fixed):
    """Least-squares slope of log time against log n (at d = fixed) or log d (at
    n = fixed), over the cells done with a time above 10 ms; None below two."""
    pts = [((nn if along == "n" else dd), t[side]) for (nn, dd), t in done.items()
           if (dd if along == "n" else nn) == fixed and t[side] > 0.01]
    if len(pts) < 2:
        return None
    x, yv = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, yv, 1)[0])


def table(ns, ds, budget, rng):
    """The verdict table: one row per (n, d, labels)."""
    say(f"\n1. check_separable vs linprog, integer data, {FLIPS} flipped or none "
          f"(s; ratio = linprog / markone, above 1: markone faster)")
    say(f"  {'n':>7} {'d':>5} {'labels':>8} {'verdict':>9} {'by':>8} {'markone':>9} "
          f"{'linprog':>9} {'ratio':>6} {'re-check':>8}  load before -> after")
    done = {True: {}, False: {}}
    for d in ds:
        for n in ns:
            for flips in (0, FLIPS):
                _cell(n, d, flips, budget, rng, done[flips == 0])
    for flips, name in ((0, "separable"), (FLIPS, f"{FLIPS} flipped")):
        cells = done[flips == 0]
        for side in ("markone", "linprog"):
            fits = [f"n^{a:.2f} (d={d})" for d in ds
                    if (a := _exponent(cells, side, "n", d)) is not None]
            fits += [f"d^{b:.2f} (n={n})" for n in ns
                     if (b := _exponent(cells, side, "d", n)) is not None]
            say(f"  fitted, {name}, {side}: {', '.join(fits) or 'too few cells'}")


def _cell(n, d, flips, budget, rng, done):
    labels = "flip 50" if flips else "sep."
    predicted = max(_predict(done, n, d, "markone"), _predict(done, n, d, "linprog"))
    if n * d > MAX_ENTRIES or predicted > budget:
        why = (f"data of {n * d:,} entries" if n * d > MAX_ENTRIES
               else f"predicted {predicted:,.0f} s > {budget:g} s")
        say(f"  {n:>7} {d:>5} {labels:>8}  skipped: {why}")
        return
    X, y = integer_data(n, d, flips, rng)
    before = load()
    v, tm, tl, tc = compare(X, y)
    done[(n, d)] = {"markone": tm, "linprog": tl}
    verdict = {True: "separable", False: "not sep.", None: "unknown"}[v.separable]
    say(f"  {n:>7} {d:>5} {labels:>8} {verdict:>9} {v.method:>8} {tm:9.3f} "
        f"{tl:9.3f} {tl / tm:6.2f} {tc:8.3f}  {before} -> {load()}")


def warm_up(rng):
    """Load once what every later call reuses, untimed: numba's compiled perceptron
    (from its on-disk cache; a problem above ``SMALL_LP_ENTRIES``), FLINT, HiGHS and
    scipy.optimize."""
    X, y = integer_data(20_000, 5, FLIPS, rng)
    check_separable(X, y)
    linprog_verdict(X[:100], y[:100])


def small_goal(rng, n=1000, d=20):
    """The issue's small case: 1,000 x 20 integers, 50 labels flipped (certificate
    included), best of 2 x REPEAT."""
    X, y = integer_data(n, d, FLIPS, rng)
    global REPEAT
    before, repeat, REPEAT = load(), REPEAT, 2 * REPEAT
    try:
        v, tm, tl, tc = compare(X, y)
    finally:
        REPEAT = repeat
    say(f"\n0. {n:,} x {d}, {FLIPS} flipped: markone {tm * 1000:.1f} ms "
          f"({'not separable' if v.separable is False else v.separable}, via {v.method}, "
          f"certificate on {len(v.certificate or ())} points), linprog {tl * 1000:.1f} ms: "
          f"ratio {tl / tm:.2f}; re-check {tc * 1000:.1f} ms; load {before} -> {load()}")


def sparse_random(rng, n=100_000, d=10_000, k=100):
    """The 100,000 x 10,000 CSR matrix with 1 % non-zeros and random labels."""
    say(f"\n2. {n:,} x {d:,} sparse, {k} stored a row (1 %), random labels")
    A = sparse_matrix(n, d, k, rng)
    y = rng.choice([-1, 1], size=n)
    before = load()
    v, tm = _timed(lambda: check_separable(A, y, timeout_s=GOAL_S))
    say(f"  markone {tm:8.2f} s  separable={v.separable} via {v.method} "
          f"({v.stopped_by or 'decided'})  load {before}\n  {v.message}")
    lp, tl = _timed(lambda: linprog_verdict(A, y, time_limit=GOAL_S))
    ratio = (f"ratio {tl / tm:.2f}" if lp is not None and v.separable is not None
             else "no ratio: not both decided")
    say(f"  linprog {tl:8.2f} s  separable={lp}  {ratio}  load {load()}")
    if v.separable is not None:
        ok, tc = _timed(lambda: check_certificate(A, y, v))
        say(f"  re-check {tc:7.2f} s ({ok})")


def _cpu(f):
    """``(f(), CPU seconds of this process)``: HiGHS, LSQR and FLINT run on one thread
    here, so CPU time is what a busy machine's load does not inflate."""
    t = time.process_time()
    out = f()
    return out, time.process_time() - t


def _slope(ds, ts):
    """The exponent ``b`` of ``t ~ d^b`` fitted on the last two measured widths."""
    pts = [(d, t) for d, t in zip(ds, ts) if t is not None and t > 0.01][-2:]
    if len(pts) < 2:
        return None
    return math.log(pts[1][1] / pts[0][1]) / math.log(pts[1][0] / pts[0][0])


def _wide_lp(Z, d, budget, done):
    """``(CPU seconds, None)`` of HiGHS's LP on the first ``3 (d + 1)`` rows (random
    labels: not separable), or ``(None, predicted seconds)`` when the exponent fitted
    so far predicts more than ``budget``."""
    from verify._internal.cuts import CutLP

    if len(done) >= 2:
        b = _slope([x for x, _ in done], [t for _, t in done])
        predicted = done[-1][1] * (d / done[-1][0]) ** (b or 3.0)
        if predicted > budget:
            return None, predicted
    m = 3 * Z.shape[1]
    (t, *_), cpu = _cpu(lambda: CutLP(Z[:m], first=m).solve())
    assert t <= 1e-7, "3 (d + 1) random labels should not be separable"
    return cpu, None


def _wide_row(rng, d, budget, lp_done, profile=None):
    """One width of :func:`wide_scaling`: its stage times and certificate digits (no
    LP when ``budget`` is None; the exact completion run under the ``profile``
    given)."""
    from verify._internal.leastsq import exact_completion, positive_weights

    n = 10 * d
    A = sparse_matrix(n, d, d // 100, rng)
    y = rng.choice([-1, 1], size=n)
    Z = sp_hstack_ones(A).multiply(y[:, None]).tocsr()
    lp, predicted = _wide_lp(Z, d, budget, lp_done) if budget is not None else (None, 0.0)
    if lp is not None:
        lp_done.append((d, lp))
    c, lsq = _cpu(lambda: positive_weights(Z))
    run = profile.runcall if profile is not None else (lambda f: f())
    cert, exact = _cpu(lambda: run(lambda: exact_completion(Z, c)))
    assert cert is not None, "random labels: the least-squares weights should complete"
    verdict = SimpleNamespace(separable=False, intercept=True, witness=None,
                              certificate=cert)
    _, recheck = _cpu(lambda: check_certificate(A, y, verdict))
    digits = round(max(v.denominator.bit_length() for v in cert.values()) * math.log10(2))
    return {"d": d, "lp": lp, "predicted": predicted, "lsq": lsq, "exact": exact,
            "recheck": recheck,
            "digits": digits, "bound": hadamard_digits(Z), "support": len(cert),
            "load": load()}


def hadamard_digits(Z):
    """Digits of Hadamard's bound on a square basis of ``Z.shape[1]`` rows like those
    of the CSR ``Z``: ``log10`` of the product of their norms, the mean row's times
    the basis size (by Cramer's rule, the certificate's common denominator is such a
    determinant)."""
    norms = np.sqrt(np.asarray(Z.multiply(Z).sum(axis=1)).ravel())
    return Z.shape[1] * float(np.mean(np.log10(norms)))


def wide_scaling(rng, budget):
    """Why 100,000 x 10,000 with random labels is not decided in 2 minutes: the
    stages measured at :data:`WIDE_DS`, their exponents, the extrapolation."""
    say(f"\n3. sparse random labels, n = 10 d, 1 % non-zeros (d / 100 a row, values "
        f"1..3): CPU seconds a stage (one thread each); load {load()} on "
        f"{os.cpu_count()} cores; an LP predicted above {budget:g} s is skipped")
    say(f"  {'d':>6} {'LP 3(d+1) rows':>15} {'least sq.':>10} {'exact':>8} "
        f"{'re-check':>9} {'digits':>7} {'support':>8}  load")
    rows, lp_done = [], []
    for d in WIDE_DS:
        r = _wide_row(rng, d, budget, lp_done)
        rows.append(r)
        lp = (f"{r['lp']:15.2f}" if r["lp"] is not None
              else f"{'(~' + format(r['predicted'], ',.0f') + ')':>15}")
        say(f"  {d:>6} {lp} {r['lsq']:10.2f} {r['exact']:8.2f} {r['recheck']:9.2f} "
            f"{r['digits']:>7} {r['support']:>8}  {r['load']}")
    ds = [r["d"] for r in rows]
    both = [r for r in rows if r["lp"] is not None and r["lp"] > 0.01]
    if both:
        r = both[-1]
        say(f"  at d = {r['d']:,} the LP took {r['lp'] / (r['lsq'] + r['exact']):.1f}x "
            "the least squares and their exact completion; (~N): the LP's prediction")
    say(f"  fitted on the last two widths, extrapolated to d = {WIDE_GOAL:,} "
        f"(n = {10 * WIDE_GOAL:,}):")
    for key, name in (("lp", "HiGHS LP (dual simplex)"), ("lsq", "least-squares weights"),
                      ("exact", "exact completion"), ("recheck", "re-check")):
        ts = [r[key] for r in rows]
        b = _slope(ds, ts)
        last = max((i for i, t in enumerate(ts) if t is not None), default=None)
        if b is None or last is None:
            say(f"    {name}: too few widths")
            continue
        at_goal = ts[last] * (WIDE_GOAL / ds[last]) ** b
        say(f"    {name}: d^{b:.2f}, {at_goal:,.0f} s at d = {WIDE_GOAL:,} "
            f"({at_goal / GOAL_S:,.2f}x the goal's {GOAL_S:g} s)")
    share = rows[-1]["digits"] / rows[-1]["bound"]
    goal = sparse_matrix(1000, WIDE_GOAL, WIDE_GOAL // 100, rng)
    goal = sp_hstack_ones(goal)
    digits = share * hadamard_digits(goal) * (WIDE_GOAL + 1) / goal.shape[1]
    say(f"    certificate: a common denominator of {share:.2f} x Hadamard's bound at "
        f"d = {ds[-1]:,}, so about {digits:,.0f} digits at d = {WIDE_GOAL:,}: "
        f"{WIDE_GOAL + 1:,} weights of that size, about "
        f"{(WIDE_GOAL + 1) * digits * math.log2(10) / 8 / 2**20:,.0f} MB")


def wide_goal(rng):
    """The goal's case itself, 100,000 x 10,000 with random labels, decided as the
    least-squares route decides it (no LP: ``--wide-scaling`` predicts it far beyond
    the goal), CPU seconds a stage, and where the exact solve's time goes (cProfile
    on CPU time, the solver's functions)."""
    import cProfile
    import pstats

    d = WIDE_GOAL
    say(f"\n5. the goal: {10 * d:,} x {d:,} sparse random labels ({d // 100} stored a "
        f"row, values 1..3), decided by least squares and one exact solve of the "
        f"{d + 1:,} x {d + 1:,} basis; CPU seconds; load {load()} on {os.cpu_count()} cores")
    profile = cProfile.Profile(time.process_time)
    r = _wide_row(rng, d, None, [], profile=profile)
    total = r["lsq"] + r["exact"]
    say(f"  least squares {r['lsq']:.2f} s + exact completion {r['exact']:.2f} s = "
        f"{total:.2f} s ({total / GOAL_S:.2f}x the goal's {GOAL_S:g} s); re-check "
        f"{r['recheck']:.2f} s; certificate of {r['digits']:,} digits on "
        f"{r['support']:,} points; load {r['load']}")
    say("  the exact solve's CPU by function (cProfile, own time):")
    stats = pstats.Stats(profile)
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:12]   # type: ignore[attr-defined]
    for (file, line, name), (_, calls, own, cum, _) in rows:
        say(f"    {own:8.2f} s own {cum:8.2f} s cum {calls:>8,} calls  "
            f"{Path(file).name}:{name}")


def _float_lu(A):
    """CPU seconds of one float64 LU of the square ``A`` (BLAS on one thread): the floor."""
    import scipy.linalg

    from verify._internal.exact import blas_single_thread

    F = np.asarray(A, dtype=np.float64)
    with blas_single_thread():
        return _cpu(lambda: scipy.linalg.lu_factor(F, check_finite=False))[1]


def machine_floor(d):
    """This machine's rates on one thread at size ``d``: ``(GFLOP/s of a float64 GEMM,
    GB/s of a float64 GEMV (the matrix read once), GB/s of a numpy copy (read and
    write))``, CPU time, best of 3."""
    from verify._internal.exact import blas_single_thread

    rng = np.random.default_rng(1)
    X, Y, v = rng.random((d, d)), rng.random((d, d)), rng.random(d)
    big = rng.random(2**25)
    out = np.empty_like(big)
    with blas_single_thread():
        gemm = min(_cpu(lambda: X @ Y)[1] for _ in range(3))
        gemv = min(_cpu(lambda: [X @ v for _ in range(10)])[1] for _ in range(3)) / 10
        copy = min(_cpu(lambda: np.copyto(out, big))[1] for _ in range(3))
    return 2 * d**3 / gemm / 1e9, 8 * d * d / gemv / 1e9, 2 * big.nbytes / copy / 1e9


def padic_floor(d, x, rates):
    """The p-adic solve's floor at ``d`` unknowns for the solution ``x``: the LU's
    ``2 d^3 / 3`` flops at the GEMM rate, plus the lifting steps its size needs
    (``bits(max |num|) + bits(den) + 1`` over ``log2 p``, ``p`` the lifting's prime),
    each a read of the ``d^2`` compact factors (2 bytes an entry below ``2**16``) at
    the GEMV rate; and that step count."""
    from verify._internal.dixon import LIFT_PRIME_BITS, default_primes

    p = default_primes(1, LIFT_PRIME_BITS)[0]
    bits = max(abs(v.numerator).bit_length() for v in x) + x[0].denominator.bit_length() + 1
    steps = math.ceil(bits / math.log2(p))
    gflops, gemv_gbs, _ = rates
    entry = 2 if p <= 2**16 else 4
    return 2 * d**3 / 3 / gflops / 1e9 + steps * entry * d * d / gemv_gbs / 1e9, steps


def dixon_scaling(rng, budget):
    """The p-adic solver against FLINT and the float LU at :data:`DIXON_DS`, then the
    12,000 x 2,500 random-label case against its float floor."""
    from verify._internal.dixon import dixon_solve, flint_solve

    rates = machine_floor(max(DIXON_DS))
    say(f"\n4. exact solves of square systems, 100 stored entries a row in 1..3, b in "
        f"1..3: CPU seconds (BLAS on one thread); load {load()} on {os.cpu_count()} cores")
    say(f"  this machine, one thread, n = {max(DIXON_DS):,}: float64 GEMM "
        f"{rates[0]:.1f} GFLOP/s, GEMV {rates[1]:.1f} GB/s, numpy copy {rates[2]:.1f} GB/s; "
        f"floor = LU flops at the GEMM rate + steps x d^2 x 2 bytes (uint16 factors) at the GEMV rate")
    say(f"  {'d':>6} {'float LU':>9} {'p-adic':>8} {'floor':>7} {'steps':>6} {'FLINT':>9} "
        f"{'FLINT/p-adic':>13} {'p-adic/floor':>13}  load")
    done = []
    for d in DIXON_DS:
        A = sparse_matrix(d, d, 100, rng).toarray().astype(np.int64)
        b = rng.integers(1, 4, size=d)
        lu = _float_lu(A)
        x, padic = _cpu(lambda: dixon_solve(A, b))
        floor, steps = padic_floor(d, x, rates)
        predicted = done[-1][1] * (d / done[-1][0]) ** 3 if done else 0.0
        if predicted > budget:
            flint, ratio = f"(~{predicted:,.0f})", "-"
        else:
            y, t = _cpu(lambda: flint_solve(A, b.tolist()))
            assert x == y, "the p-adic solver and FLINT disagree"
            done.append((d, t))
            flint, ratio = f"{t:9.2f}", f"{t / padic:13.2f}"
        say(f"  {d:>6} {lu:9.2f} {padic:8.2f} {floor:7.2f} {steps:>6} {flint:>9} {ratio:>13} "
            f"{padic / floor:13.1f}  {load()}")
    dixon_case(rng)


def dixon_case(rng):
    """The 12,000 x 2,500 random-label case: least squares and one exact solve (as
    ``method="leastsq"`` decides it), against the float least squares plus one float
    LU of the same basis."""
    from verify._internal.leastsq import exact_completion, positive_weights

    n, d = DIXON_CASE
    A = sparse_matrix(n, d, d // 100, rng)
    y = rng.choice([-1, 1], size=n)
    Z = sp_hstack_ones(A).multiply(y[:, None]).tocsr()
    c, lsq = _cpu(lambda: positive_weights(Z))
    basis = []
    cert, exact = _cpu(lambda: exact_completion(Z, c, probe=basis.append))
    assert cert is not None, "random labels: the least-squares weights should complete"
    floor = lsq + _float_lu(basis[0])
    say(f"  {n:,} x {d:,} random labels (d / 100 stored a row): least squares "
        f"{lsq:.2f} s + exact completion {exact:.2f} s = {lsq + exact:.2f} s; float "
        f"floor (least squares + one float LU of the {d + 1:,} x {d + 1:,} basis) "
        f"{floor:.2f} s: {(lsq + exact) / floor:.1f}x the floor; load {load()}")


def sp_hstack_ones(A):
    """``[A, 1]`` as CSR (the intercept column)."""
    import scipy.sparse as sp

    return sp.hstack([A, np.ones((A.shape[0], 1))], format="csr")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="n up to 1e4, d up to 100")
    p.add_argument("--budget", type=float, default=CELL_BUDGET_S,
                   help="skip cells predicted to take longer (s)")
    p.add_argument("--sparse", action="store_true", help="add the 100k x 10k sparse run")
    p.add_argument("--wide-scaling", action="store_true",
                   help="only the scaling of sparse random labels (d = 500..4000)")
    p.add_argument("--dixon", action="store_true",
                   help="only the p-adic exact solver against FLINT and the float LU")
    p.add_argument("--wide-goal", action="store_true",
                   help="only the 100,000 x 10,000 random-label case, stage by stage")
    p.add_argument("--write-docs", action="store_true",
                   help="write what is printed into docs/sparse-large.md")
    a = p.parse_args(argv)
    rng = np.random.default_rng(SEED)
    if a.dixon:
        dixon_scaling(rng, a.budget)
        if a.write_docs:
            _write_docs("bench_lp_exact_dixon", argv)
        return
    if a.wide_goal:
        wide_goal(rng)
        if a.write_docs:
            _write_docs("bench_lp_exact_goal", argv)
        return
    if a.wide_scaling:
        wide_scaling(rng, a.budget)
        if a.write_docs:
            _write_docs("bench_lp_exact_wide", argv)
        return
    say(f"bench_lp_exact: load {load()} on {os.cpu_count()} cores; times are wall-clock seconds on a shared machine: "
          "compare the ratios, measured in one run.")
    ns, ds = (NS[:2], DS[:2]) if a.quick else (NS, DS)
    warm_up(rng)
    small_goal(rng)
    table(ns, ds, a.budget, rng)
    if a.sparse:
        sparse_random(rng)
    if a.write_docs:
        _write_docs("bench_lp_exact", argv)


def _write_docs(block, argv):
    """Everything printed, with its command, into ``block`` of docs/sparse-large.md."""
    command = "python benchmarks/bench_lp_exact.py " + " ".join(argv or sys.argv[1:])
    write_block(ROOT / "docs" / "sparse-large.md", block,
                ["```text", f"$ {command.strip()}", *PRINTED, "```"])


if __name__ == "__main__":
    main()
