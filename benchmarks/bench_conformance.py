"""What checking an implementation against the conformance suite costs, per adapter.

Prints, measured in one run: the time to build the suite's cases, then the time to
check the whole suite (every case, the XOR checkpoints included) with

* an in-process f(problem) in exact Fractions (the reference loop of the tests),
* an in-process f(X, y, order) in numpy float64 (the binary last-iterate cases),
* scikit-learn's ``Perceptron`` through the ``partial_fit`` adapter (one call per row),
* ``--cmd "node examples/perceptron.js"`` (one process per case and checkpoint),

each as a ratio to the Fraction loop, and the share of the time spent in the checker
itself (judging and diagnosing) for the Fraction loop.

Usage: ``python benchmarks/bench_conformance.py``. Needs node on the PATH for the last
line. Numbers measured while other work runs on the machine are noisy: the load
average is printed with them.
"""

import os
import shutil
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from verify import conformance as C  # noqa: E402


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main():
    import conformance_impls
    from sklearn.linear_model import Perceptron

    t_build, cases = timed(C.build_cases)
    print(f"load average {os.getloadavg()[0]:.1f} (2 cores)")
    print(f"build the suite ({len(cases)} cases): {t_build:.2f} s")
    adapters = {"Fraction loop f(problem)": C.adapter_for(conformance_impls.correct),
                "numpy f(X, y, order)":
                    C.adapter_for(conformance_impls.float64_perceptron),
                "sklearn partial_fit": C.adapter_for(Perceptron())}
    if shutil.which("node"):
        adapters["node subprocess"] = C.CommandAdapter(
            f"node {ROOT / 'examples' / 'perceptron.js'}")
    base = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, adapter in adapters.items():
            t, results = timed(lambda: C.run_suite(cases, adapter))
            s = C.summary(results)
            base = base or t
            print(f"{name:26s} {t:7.2f} s  ratio {t / base:6.2f}  "
                  f"({s['passed']} pass, {s['failed']} fail, {s['not_applicable']} n/a)")
        answers = [(c, conformance_impls.correct(C.protocol.problem_of(c))) for c in cases]
    t_judge, _ = timed(lambda: [C.judge(c, a) for c, a in answers])
    print(f"judging alone (Fraction loop's answers): {t_judge:.3f} s, "
          f"{t_judge / base:.2f} of its check")


if __name__ == "__main__":
    main()
