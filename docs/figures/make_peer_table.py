"""Run the conformance suite against other perceptrons and write docs/peer-table.md.

Covers: scikit-learn's ``Perceptron`` and ``SGDClassifier(loss="perceptron")`` (fed one
row at a time with ``partial_fit``), River's ``linear_model.Perceptron`` (``learn_one``),
mlxtend's ``Perceptron`` (its ``fit``, see :func:`mlxtend_solve`), and the Node and C
examples (``examples/perceptron.js`` and ``.c``, run as programs through ``--cmd``; the
C one compiled into a temporary folder). Needs the ``bench`` extra (``pip install
".[bench]"``), ``node`` and a C compiler (``cc`` or ``gcc``).

Scenario: every case of ``verify.conformance.build_cases()`` is run through the
library's own API with the closest settings to the textbook rule that the API offers
(below), under the float64 profile; the verdicts, the reasons for n/a and the causes of
the failures are all the checker's (no hand-written reason), written as a Markdown
table. The test ``tests/verify/conformance/test_peer_table.py`` (slow) regenerates the
page and fails when it differs or when a failure is unexplained.

    python docs/figures/make_peer_table.py          # rewrites docs/peer-table.md
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "docs" / "peer-table.md"

#: How each peer is configured (shown on the page).
SETTINGS = {
    "sklearn Perceptron": "`Perceptron()` (eta0=1, no penalty); `fit_intercept` set "
                          "per case; one-row `partial_fit`",
    "sklearn SGDClassifier": "`SGDClassifier(loss=\"perceptron\", learning_rate=\""
                             "constant\", eta0=1, penalty=None)`; `fit_intercept` set "
                             "per case; one-row `partial_fit`",
    "River Perceptron": "`linear_model.Perceptron()`; labels True/False; `learn_one` "
                        "with `{j: x_j}`",
    "mlxtend Perceptron": "`Perceptron(eta=0.5, epochs=1)`, so a mistake moves w by "
                          "`eta (y - pred) x = y x`; started at w = 0 and fed the "
                          "case's stream in order (see the note)",
    "Node example": "`--cmd \"node examples/perceptron.js\"` (the [example]"
                    "(test-your-perceptron.md#the-subprocess-protocol)); it declares "
                    "`arithmetic=float64` in the handshake",
    "C example": "`--cmd ./perceptron`, built from `examples/perceptron.c` with `cc "
                 "-std=c99 -O2 -ffp-contract=off`; it declares `arithmetic=float64` in "
                 "the handshake",
}

#: How the C example is compiled (no fused multiply-add: its sums are the replay's).
C_FLAGS = ["-std=c99", "-O2", "-ffp-contract=off"]

#: What every peer claims: float64 arithmetic (cases that need exact arithmetic do
#: not apply to it); what its API cannot express it declines (n/a, with the reason).
PROFILE = "arithmetic=float64"

#: General notes per peer (conventions the adapters work around, shown on the page).
NOTES = {
    "River Perceptron": "River always learns an intercept (no switch), so the cases "
                        "without one get an extra weight: a different convention, "
                        "and it changes decisions on those cases.",
    "mlxtend Perceptron": "mlxtend shuffles every epoch with no switch, refuses a fit on "
                          "one label, and starts from random weights: the script "
                          "presents the stream as the training set with the shuffle "
                          "replaced by the identity and `w_`, `b_` set to zero (`cost_` to []), then "
                          "reads `w_`, `b_` and the errors in `cost_`. It always "
                          "learns an intercept and predicts +1 on a zero score.",
}


def mlxtend_solve(problem):
    """f(problem) for mlxtend's Perceptron: the stream as one epoch, in order, from 0."""
    from mlxtend.classifier import Perceptron

    from verify.conformance import NotApplicable

    if problem["task"] != "binary" or problem["variant"] != "last":
        raise NotApplicable("mlxtend's Perceptron is binary and returns its last w_")
    if len({problem["y"][i] for i in problem["order"]}) < 2:
        raise NotApplicable("mlxtend refuses to fit a training set with one class, "
                            "so a stream (or a checkpoint's prefix) of one class cannot "
                            "be asked")
    X = np.array(problem["X"], dtype=float)[problem["order"]]
    y = (np.array(problem["y"])[problem["order"]] > 0).astype(int)
    model = Perceptron(eta=0.5, epochs=1, random_seed=0)
    model._yield_minibatches_idx = lambda rgen, n_batches, data_ary, shuffle=True: (
        np.array([i]) for i in range(len(data_ary)))
    model.w_, model.b_, model.cost_ = np.zeros((X.shape[1], 1)), np.zeros(1), []
    model.fit(X, y, init_params=False)
    w, b = model.w_.ravel().tolist(), float(model.b_[0])
    if problem["intercept"] or sum(model.cost_):      # learned, on its first mistake
        w.append(b)
    return {"w": w, "mistakes": int(sum(model.cost_))}


def c_example(folder):
    """The C example compiled into ``folder``; the path of the program."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        sys.exit("no C compiler (cc or gcc) on the PATH: the C example needs one")
    out = Path(folder) / "perceptron"
    subprocess.run([compiler, *C_FLAGS, "-o", str(out),
                    str(ROOT / "examples" / "perceptron.c")], check=True)
    return out


def peers(folder):
    """The implementations under test, as conformance adapters (in table order); the
    C example is compiled into ``folder``."""
    from river import linear_model as river_linear
    from sklearn.linear_model import Perceptron, SGDClassifier

    from verify.conformance import CommandAdapter, adapter_for

    node = shutil.which("node")
    if node is None:
        sys.exit("node is not on the PATH: the Node example needs it")
    return {
        "sklearn Perceptron": adapter_for(Perceptron()),
        "sklearn SGDClassifier": adapter_for(SGDClassifier(
            loss="perceptron", learning_rate="constant", eta0=1.0, penalty=None)),
        "River Perceptron": adapter_for(river_linear.Perceptron()),
        "mlxtend Perceptron": adapter_for(mlxtend_solve, name="mlxtend Perceptron"),
        "Node example": CommandAdapter(f"{node} {ROOT / 'examples' / 'perceptron.js'}"),
        "C example": CommandAdapter(str(c_example(folder))),
    }


def run_peers():
    """``{peer: [CaseResult, ...]}`` over the whole suite."""
    from verify.conformance import Profile, build_cases, run_suite

    cases, profile = build_cases(), Profile.parse(PROFILE)
    with warnings.catch_warnings(), tempfile.TemporaryDirectory() as folder:
        warnings.simplefilter("ignore")
        return {name: run_suite(cases, adapter, profile=profile)
                for name, adapter in peers(folder).items()}


_CELL = {"pass": "pass", "fail": "**fail**", "error": "**error**", "n/a": "n/a"}


def reasons(result):
    """Why a peer failed a case: the checker's causes (each reproduced), or its
    verdict "unexplained"."""
    from verify.conformance.report import cause_lines

    return [line.split(": ", 1)[1] for line in cause_lines(result)]


def unexplained(results):
    """Failed cases whose cause the checker could not reproduce."""
    return [(n, r.id) for n, rs in results.items() for r in rs
            if r.status in ("fail", "error") and not r.diagnosis]


def render(results):
    """The Markdown page."""
    names = list(results)
    ids = [r.id for r in results[names[0]]]
    lines = [
        "# Peer table: other perceptrons on the conformance suite",
        "",
        "Generated by `docs/figures/make_peer_table.py` (checked by "
        "`tests/verify/conformance/test_peer_table.py`, marked slow): every case of the "
        "[conformance suite](test-your-perceptron.md) run through each library's own "
        "API, and through `--cmd` for the Node and C examples (programs speaking the "
        f"protocol), under the profile `{PROFILE}` (every peer computes in float64). "
        "*n/a*: the case is outside the profile (it needs exact arithmetic) or the API "
        "has no way to express it (a variant, a kernel); the reason is the checker's. "
        "Every reason below is the checker's too: a misreading of the rule that, re-run "
        "on the case, gives exactly the peer's answer.",
        "",
        "| case | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for k, cid in enumerate(ids):
        lines.append(f"| `{cid}` | " + " | ".join(_CELL[results[n][k].status]
                                                  for n in names) + " |")
    lines.append("| **passed** | " + " | ".join(
        f"{sum(r.passed for r in results[n])} of "
        f"{sum(r.status != 'n/a' for r in results[n])}" for n in names) + " |")
    lines += ["", "## Settings and reasons", ""]
    for n in names:
        lines += [f"### {n}", "", SETTINGS[n] + ".", ""]
        if n in NOTES:
            lines += [NOTES[n], ""]
        failed = [r for r in results[n] if r.status in ("fail", "error")]
        if not failed:
            lines += ["Passes every case it can express.", ""]
        for r in failed:
            why = "; ".join(reasons(r))
            lines.append(f"* `{r.id}`: {why}.")
        lines.append("")
    return "\n".join(lines)


def main():
    results = run_peers()
    OUT.write_text(render(results))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
