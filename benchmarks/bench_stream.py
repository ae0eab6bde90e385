"""One example at a time: markone's learn_one against River and scikit-learn.

The same stream (n examples, d features, integer-valued floats so every run's
arithmetic is exact, noisy labels so mistakes happen all along) goes through

* ``markone.Perceptron().learn_one(x, y)`` (x a NumPy row),
* River's ``linear_model.Perceptron().learn_one(x, y)`` (x a dict, y a bool: River's
  own input format; its rule is the same: hinge loss with threshold 0 and ``<=``,
  step 1 for the weights and the intercept),
* scikit-learn's ``Perceptron(eta0=1).partial_fit`` on one row at a time (slow, so
  only on the first ``--sk-n`` examples).

* Vowpal Wabbit's ``learn`` on examples parsed before the timing (its fastest Python
  call; ``--loss_function hinge --sgd --noconstant``), when ``vowpalwabbit`` is
  installed (the ``peers`` extra). Only its rate is compared: its update is not the
  perceptron's, so its weights are not checked.

and ``predict_one`` calls per second of markone and River on the same rows.

Before timing, the three learners are checked to make identical decisions: the
same update (mistake or not) at every step of the first ``--check-n`` examples, and
after the timed runs markone and River hold identical weights. Then calls per second
are printed, with the ratios that matter: markone / River at each n, and markone's
rate at the largest n over its rate at the smallest (constant cost per call means a
ratio near 1).

Kernel case: the same kind of stream through ``markone.KernelPerceptron().learn_one``
with ``kernel="linear"`` (a primal vector: O(d) a call, so the rate stays flat) and
``kernel="rbf"`` (a score needs the support set: O(d x support) a call, so the rate
falls as the support grows), calls per second at each ``--kernel-n``, with the
support size and the rate at the largest n over the rate at the smallest. Checked
first: the linear kernel's stream ends with the weights and mistakes of
``markone.Perceptron``'s on the same stream (exact data, so bit for bit).

Fresh learners, and the compiled path: a new learner's first
:data:`~markone._internal.jit.PLAIN_PRESENTATIONS` (4,096) presentations run
uncompiled (the rule that keeps small work from importing numba), so at n = 1,000 every
call is uncompiled and at n = 100,000 the first 4,096 are. The "compiled" row times
``learn_one`` on a learner past them, interleaved with VW's ``learn`` on the same
rows (best of ``--repeat`` each): the per-call pace that the goal (>= 1x VW's
pre-parsed ``learn``, issue 32) is about. The profile under it says where one compiled
``learn_one`` spends its time: the benchmark's own loop, numba's call floor (an empty
compiled function with the same six arguments, through its entry point and through the
dispatcher), the compiled step alone, and the Python around it.

The machine's load is printed first (and after); the ratios are of rates measured in
one run. Rates are calls per CPU second of this process (``time.process_time``): on a
shared machine wall time also counts the waits for a core, which made two runs of the
same learner differ by 5x at a load of 13 on 2 cores. With ``--write-docs`` the
ratios, the targets, the load and the command replace the ``bench_stream`` block of
``docs/multiclass-kernel.md``.

Usage: ``python benchmarks/bench_stream.py [--d 20] [--n 1000 100000]
[--kernel-n 1000 10000] [--repeat 3] [--write-docs]``.
"""

import argparse
import time
import warnings

import numpy as np

import markone
from markone import _loops
from markone._internal.jit import PLAIN_PRESENTATIONS, entry_point, load_numba
from _docblock import ROOT, write_block  # noqa: E402  (the shared docs-block writer)
from bench_startup import load  # noqa: E402  (the same load line as the start-up's)

DOCS = ROOT / "docs" / "multiclass-kernel.md"

#: The clock of every rate: CPU seconds of this process (see the module's docstring).
clock = time.process_time


def make_stream(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    y = np.where(X @ rng.standard_normal(d) + 2 * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def river_model():
    from river import linear_model
    return linear_model.Perceptron()


def sklearn_model():
    from sklearn.linear_model import Perceptron as SkPerceptron
    return SkPerceptron(eta0=1.0, shuffle=False, tol=None, alpha=0.0)


def timed_stream(model, xs, ys):
    """Seconds for ``model.learn_one(x, y)`` over the stream, and the model."""
    learn = model.learn_one
    t0 = clock()
    for x, t in zip(xs, ys):
        learn(x, t)
    return clock() - t0, model


def run_markone(X, y):
    return timed_stream(markone.Perceptron(), X, y)


def run_river(dicts, labels):
    return timed_stream(river_model(), dicts, labels)


def vw_rate(X, y):
    """Calls/s of Vowpal Wabbit's ``learn`` on pre-parsed examples (None: no VW)."""
    try:
        from vowpalwabbit import Workspace
    except ImportError:
        return None
    vw = Workspace("--quiet --loss_function hinge --sgd --noconstant")
    examples = [vw.parse(f"{t} | " + " ".join(f"{j}:{v:g}" for j, v in enumerate(x) if v))
                for x, t in zip(X, y)]
    learn = vw.learn
    t0 = clock()
    for ex in examples:
        learn(ex)
    seconds = clock() - t0
    for ex in examples:
        vw.finish_example(ex)
    vw.finish()
    return len(examples) / seconds


def compiled_learner(d):
    """A markone.Perceptron past its plain presentations: its learn_one is compiled."""
    X, y = make_stream(PLAIN_PRESENTATIONS, d, seed=3)
    model = markone.Perceptron()
    for x, t in zip(X, y):
        model.learn_one(x, t)
    return model


def compiled_vs_vw(X, y, repeat):
    """Best calls/s of a compiled learn_one and of VW's learn over ``(X, y)``, timed
    alternately ``repeat`` times (so that both see the same load)."""
    ours, vw = 0.0, None
    for _ in range(repeat):
        ours = max(ours, len(X) / timed_stream(compiled_learner(X.shape[1]), X, y)[0])
        rate = vw_rate(X, y)
        vw = None if rate is None else max(vw or 0.0, rate)
    return ours, vw


def per_call(fn, args, repeat):
    """Best CPU microseconds of ``fn(*a)`` over the argument tuples ``args``."""
    best = float("inf")
    for _ in range(repeat):
        t0 = clock()
        for a in args:
            fn(*a)
        best = min(best, clock() - t0)
    return best / len(args) * 1e6


def profile(X, y, repeat):
    """Where one compiled learn_one's time goes: ``(layer, microseconds)`` rows."""
    numba = load_numba()
    model = compiled_learner(X.shape[1])
    step, w, status = model._engine.lean_step()
    c, eta = model._c, model._eta
    args = [(x, float(t), c, eta, w, status) for x, t in zip(X, y)]

    def empty(x, sign, c, eta, w, status):
        return 0

    empty_dispatcher = numba.njit(empty)
    empty_dispatcher(*args[0])
    empty_entry = empty_dispatcher.compile(_loops.COUNTED_STEP)
    rows = [(x, t) for x, t in zip(X, y)]
    return [("the loop alone, calling a Python no-op", per_call(lambda *a: None, args, repeat)),
            ("an empty compiled function, same 6 arguments, entry point",
             per_call(empty_entry, args, repeat)),
            ("the same through numba's dispatcher", per_call(empty_dispatcher, args, repeat)),
            ("the compiled step (counted_step), entry point", per_call(step, args, repeat)),
            ("learn_one, compiled path", per_call(model.learn_one, rows, repeat))]


def predict_rate(model, rows):
    """Calls/s of ``model.predict_one`` over ``rows``."""
    predict = model.predict_one
    t0 = clock()
    for x in rows:
        predict(x)
    return len(rows) / (clock() - t0)


def run_sklearn(X, y):
    model = sklearn_model()
    classes = np.array([-1, 1])
    t0 = clock()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(len(X)):
            model.partial_fit(X[i:i + 1], y[i:i + 1], classes=classes)
    return clock() - t0, model


def river_weights(model, d):
    return np.array([model.weights.get(j, 0.0) for j in range(d)] + [model.intercept])


def check_identical_decisions(X, y):
    """The update decision of every step, for the three learners; raise if any differ."""
    d = X.shape[1]
    ours, river, sk = markone.Perceptron(), river_model(), sklearn_model()
    classes = np.array([-1, 1])
    w_sk = np.zeros(d + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, (x, t) in enumerate(zip(X, y)):
            before = ours.n_mistakes_ if i else 0
            ours.learn_one(x, t)
            m_ours = ours.n_mistakes_ - before
            b_river = river_weights(river, d)
            river.learn_one(dict(enumerate(x)), bool(t > 0))
            m_river = int(not np.array_equal(b_river, river_weights(river, d)))
            sk.partial_fit(X[i:i + 1], y[i:i + 1], classes=classes)
            w_new = np.append(sk.coef_[0], sk.intercept_)
            m_sk, w_sk = int(not np.array_equal(w_new, w_sk)), w_new
            if not m_ours == m_river == m_sk:
                raise AssertionError(f"step {i}: markone {m_ours}, River {m_river}, "
                                     f"scikit-learn {m_sk} (1 = update)")
    if not np.array_equal(ours.w_, river_weights(river, d)):
        raise AssertionError("markone and River end with different weights")
    if not np.array_equal(ours.w_, w_sk):
        raise AssertionError("markone and scikit-learn end with different weights")
    return ours.n_mistakes_


def kernel_case(d, ns, repeat):
    """calls/s of KernelPerceptron.learn_one, linear and rbf kernels, at each n;
    returns the Markdown rows of its docs table (ratios and support sizes)."""
    X, y = make_stream(2_000, d, seed=2)
    lin, ref = markone.KernelPerceptron(), markone.Perceptron()
    for x, t in zip(X, y):
        lin.learn_one(x, t)
        ref.learn_one(x, t)
    if not (np.array_equal(lin.decision_function(X), ref.decision_function(X))
            and lin.n_mistakes_ == ref.n_mistakes_):
        raise AssertionError("the linear kernel's stream differs from Perceptron's")
    print(f"\nKernelPerceptron.learn_one (d={d}); the linear kernel's stream of 2000 ended "
          f"with Perceptron's scores and {ref.n_mistakes_} mistakes, bit for bit")
    rows = []
    for kernel, cost in (("linear", "flat: O(d)"), ("rbf", "O(d × support)")):
        rates, support = {}, {}
        for n in ns:
            X, y = make_stream(n, d)
            best, model = min((timed_stream(markone.KernelPerceptron(kernel=kernel), X, y)
                               for _ in range(repeat)), key=lambda r: r[0])
            rates[n], support[n] = n / best, model.n_mistakes_
            print(f"  {kernel:<6} n={n:>7}: {n / best:>9,.0f} calls/s   support "
                  f"{model.n_mistakes_:>6,} examples")
        lo, hi = min(rates), max(rates)
        print(f"  {kernel:<6} rate at n={hi} / rate at n={lo}: {rates[hi] / rates[lo]:.2f}")
        rows.append(f"| `\"{kernel}\"` | {rates[hi] / rates[lo]:.2f} ({cost}) | "
                    f"{support[lo]:,} | {support[hi]:,} |")
    return [f"| kernel | rate at n = {hi:,} / rate at n = {lo:,} | support at {lo:,} | "
            f"support at {hi:,} |", "|---|---|---|---|", *rows]


def stream_rates(X, y, repeat, sk_n):
    """Fresh learners on one stream: markone, River, scikit-learn, VW, predict_one;
    checks that markone and River end with the same weights. Returns the ratios."""
    n, d = X.shape
    dicts, labels = [dict(enumerate(r)) for r in X], (y > 0).tolist()
    t_m = min(run_markone(X, y)[0] for _ in range(repeat))
    t_r = min(run_river(dicts, labels)[0] for _ in range(repeat))
    _, ours = run_markone(X, y)
    _, river = run_river(dicts, labels)
    if not np.array_equal(ours.w_, river_weights(river, d)):
        raise AssertionError(f"n={n}: markone and River end with different weights")
    k = min(n, sk_n)
    t_s = run_sklearn(X[:k], y[:k])[0]
    print(f"n={n:>7}: calls/s  markone {n / t_m:>9,.0f}   River {n / t_r:>9,.0f}   "
          f"scikit-learn one-row partial_fit {k / t_s:>7,.0f} (first {k})   "
          f"markone/River {t_r / t_m:.2f}x   markone/scikit-learn "
          f"{(n / t_m) / (k / t_s):.1f}x   same final weights as River: yes")
    vw = max((vw_rate(X, y) for _ in range(repeat)), key=lambda r: r or 0)
    print("          Vowpal Wabbit pre-parsed learn: " + (
        "not installed (pip install vowpalwabbit)" if vw is None else
        f"{vw:>9,.0f} calls/s   markone/VW {(n / t_m) / vw:.2f}x   (target >= 1x)"))
    p_m = max(predict_rate(ours, X) for _ in range(repeat))
    p_r = max(predict_rate(river, dicts) for _ in range(repeat))
    print(f"          predict_one calls/s  markone {p_m:>9,.0f}   River {p_r:>9,.0f}"
          f"   markone/River {p_m / p_r:.2f}x")
    return {"river": t_r / t_m, "vw": vw and (n / t_m) / vw, "predict": p_m / p_r,
            "sklearn": (n / t_m) / (k / t_s), "rate": n / t_m, "river_rate": n / t_r}


def ratio(r):
    return "VW not installed" if r is None else f"{r:.2f}x"


def stream_table(results, steady, n_steady):
    """The Markdown table of the ratios (fresh learners at each n, then compiled)."""
    lines = ["| n | `learn_one`: markone / River | markone / VW pre-parsed `learn` "
             "(target >= 1x) | `predict_one`: markone / River | markone / scikit-learn "
             "one-row `partial_fit` |", "|---|---|---|---|---|"]
    for n, r in results.items():
        first = ("all uncompiled" if n <= PLAIN_PRESENTATIONS
                 else f"the first {PLAIN_PRESENTATIONS:,} uncompiled")
        lines.append(f"| {n:,}, a new learner ({first}) | {r['river']:.2f}x | "
                     f"{ratio(r['vw'])} | {r['predict']:.2f}x | {r['sklearn']:.0f}x |")
    lines.append(f"| {n_steady:,}, compiled (past the first {PLAIN_PRESENTATIONS:,}) | "
                 f"| **{ratio(steady)}** | | |")
    return lines


def profile_lines(layers):
    """The profile as shares of one compiled learn_one (printed, and for the docs)."""
    total = layers[-1][1]
    print("\nOne compiled learn_one, per call (CPU microseconds; each row includes the "
          "loop):")
    for name, us in layers:
        print(f"  {name:<58} {us:6.3f} us  {us / total:6.1%}")
    return ["| per call, in the benchmark's loop | share of a compiled `learn_one` |",
            "|---|---|", *(f"| {name} | {us / total:.0%} |" for name, us in layers)]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--d", type=int, default=20)
    p.add_argument("--n", type=int, nargs="+", default=[1_000, 100_000])
    p.add_argument("--sk-n", type=int, default=3_000)
    p.add_argument("--check-n", type=int, default=2_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--kernel-n", type=int, nargs="*", default=[1_000, 10_000],
                   help="stream lengths of the kernel case (none: skip it)")
    p.add_argument("--write-docs", action="store_true",
                   help=f"write the ratios into {DOCS.relative_to(ROOT)}")
    a = p.parse_args(argv)

    before = load()
    print(before)
    Xc, yc = make_stream(a.check_n, a.d, seed=1)
    updates = check_identical_decisions(Xc, yc)
    print(f"identical decisions: markone, River and scikit-learn made the same update "
          f"decision at all {a.check_n} steps ({updates} updates) and ended with the same "
          f"weights (d={a.d})")
    compiled_learner(a.d)  # compile (or load) the compiled step outside the timing

    results = {n: stream_rates(*make_stream(n, a.d), a.repeat, a.sk_n) for n in a.n}
    lo, hi = min(results), max(results)
    print(f"markone rate at n={hi} / rate at n={lo}: "
          f"{results[hi]['rate'] / results[lo]['rate']:.2f} (River: "
          f"{results[hi]['river_rate'] / results[lo]['river_rate']:.2f})")
    X, y = make_stream(hi, a.d)
    ours, vw = compiled_vs_vw(X, y, a.repeat)
    steady = vw and ours / vw
    print(f"compiled learn_one (past the first {PLAIN_PRESENTATIONS} presentations), "
          f"n={hi}: {ours:,.0f} calls/s; VW {vw or 0:,.0f} calls/s (alternated): "
          f"markone/VW {ratio(steady)} (target >= 1x)")
    layers = profile(X[:20_000], y[:20_000], a.repeat)
    lines = [*stream_table(results, steady, hi), "", *profile_lines(layers)]
    if a.kernel_n:
        lines += ["", *kernel_case(a.d, a.kernel_n, a.repeat)]
    after = load()
    print(after)
    lines = [f"d = {a.d}, calls per CPU second as ratios, best of {a.repeat}; {before} "
             f"before the run, {after} after it. Command: `python "
             f"benchmarks/bench_stream.py --write-docs`.", "", *lines]
    if a.write_docs:
        write_block(DOCS, "bench_stream", lines)
        print(f"wrote the results to {DOCS}")


if __name__ == "__main__":
    main()
