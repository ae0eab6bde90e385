"""The catalogue of realistic perceptron bugs (issue 39): each a small program in
Python, Node or C that a student or a library might write, with exactly one planted
cause, run through the conformance checker to count how often the checker names that
cause (right), names another one instead (wrong), or says "unexplained".

Covers: every bug of :data:`BUGS` (a :class:`Bug`: its language, what was written, the
key of its one cause in :data:`CAUSES`, the program). Python bugs are ``fit(X, y,
order)`` functions, run through the suite's callable adapter under the profile their
author would declare (:data:`PYTHON_PROFILE`); Node and C bugs are the examples
(``examples/perceptron.js``, ``examples/perceptron.c``) with one edit (one line, or
the few lines of one loop), run as programs through ``--cmd`` under the profile they
declare in the handshake (float64), the C ones compiled as the docs say.

:data:`CAUSES` maps each cause key to the words a diagnosis that names it contains
(the checker's own words, from ``verify.conformance``; for a cause the checker has no
diagnosis for yet, the words a future one should contain: change them here with the
diagnosis that names it).

Scenario: ``python tests/conformance_catalogue.py`` prints the table,
``--write`` writes ``docs/conformance-catalogue.md``; the test
``tests/verify/conformance/test_catalogue.py`` checks the catalogue's shape, runs
the programs and (slow) that the page is what this script writes today.
Deterministic: the same page on every run (no timing in it).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "conformance-catalogue.md"
NODE_EXAMPLE = ROOT / "examples" / "perceptron.js"
C_EXAMPLE = ROOT / "examples" / "perceptron.c"
#: How the C bugs are built: as docs/test-your-perceptron.md builds the example.
C_FLAGS = ["-std=c99", "-O2", "-ffp-contract=off"]
#: What the Python bugs' authors declare (they compute in float64).
PYTHON_PROFILE = "arithmetic=float64"
LANGUAGES = ("python", "node", "c")

__all__ = ["Bug", "Verdict", "BUGS", "CAUSES", "LANGUAGES", "edit", "adapter", "run_bug",
           "run_catalogue", "render", "main"]

#: Each cause: the words a diagnosis naming it contains.
CAUSES = {
    "strict": "the strict rule (update only when y w.x < 0)",
    "zero-positive": "a zero score counted as correct when the label is +1",
    "zero-negative": "a zero score counted as correct when the label is -1",
    "rate 1/2": "learning rate 1/2",
    "rate 1/10": "learning rate 1/10",
    "normalised step": "a step normalised to unit length",
    "squared-norm step": "a step scaled by 1 / ||x||^2",
    "float32": "float32 arithmetic",
    "last skipped": "the last presentation of the stream was skipped",
    "first skipped": "the first presentation of the stream was skipped",
    "no intercept": "wrong dimension: no intercept weight",
    "constant -1": "the constant input is -1, not 1",
    "intercept first": "the intercept weight is stored first",
    "average with zero": "the average including the zero start",
    "average after mistakes": "the average of the iterates after mistakes only",
    "average before updates": "the average of the weights held before each update",
    "sum not average": "the sum of the iterates, not their average",
    "argmax highest": "argmax ties go to the highest class index",
    "dual start 1": "the dual counts start at 1",
    "dual add 2": "a mistake adds 2 to alpha_i",
    "dual set 1": "alpha_i is set to 1 on a mistake",
    "dual no labels": "the score leaves out the labels",
    # causes of the loops, the labels, the stream and the averages
    "labels 0/1": "the rule for 0/1 labels given -1/+1 labels",
    "early stop": "the run stopped early",
    "shuffled": "the stream was shuffled",
    "averaged returned": "the average of the iterates was returned, not the last",
    "update always": "an update on every presentation",
    "margin": "a margin: an update whenever y w.x <= 1",
    "first again at end": "the first presentation repeated at the end",
    "partial pass dropped": "the last, partial pass was dropped",
    "pass first skipped": "the first presentation of every pass was skipped",
    "pocket on ties": "the pocket replaced on a tie",
    "true class only": "only the true class's weights updated",
    # starting weights, undeclared or beside an undeclared rate
    "start ones": "starting weights w = 1 (every weight)",
    "start half": "starting weights w = 1/2 (every weight)",
}


@dataclass(frozen=True)
class Bug:
    """One bug: ``name`` (unique), ``language`` (one of :data:`LANGUAGES`), ``what``
    (the bug as its author wrote it), ``cause`` (a key of :data:`CAUSES`) and
    ``source`` (the whole program)."""

    name: str
    language: str
    what: str
    cause: str
    source: str


# ---- Python: fit(X, y, order) in float64 ------------------------------------------

#: The correct loop the Python bugs edit (as examples/perceptron.py writes it).
PYTHON_BASE = '''\
def fit(X, y, order):
    w = [0.0] * len(X[0])
    m = 0
    for i in order:
        s = sum(a * b for a, b in zip(w, X[i]))
        if y[i] * s <= 0:
            w = [a + y[i] * b for a, b in zip(w, X[i])]
            m += 1
    return w, m
'''


def edit(base: str, old: str, new: str, *more: tuple[str, str]) -> str:
    """``base`` with its one occurrence of ``old`` made ``new``, then each further
    ``(old, new)`` of ``more`` likewise (an error when one does not occur once)."""
    for old, new in ((old, new), *more):
        if base.count(old) != 1:
            raise ValueError(f"{old!r} occurs {base.count(old)} times, not once")
        base = base.replace(old, new)
    return base


def _py(name, what, cause, *edits):
    return Bug(name, "python", what, cause, edit(PYTHON_BASE, *edits))


_LOOP = "    for i in order:\n"
_UPDATE = "            w = [a + y[i] * b for a, b in zip(w, X[i])]\n"

PYTHON_BUGS = [
    _py("py-strict", "`if y[i] * s < 0` (a zero score is not a mistake)", "strict",
        "<= 0", "< 0"),
    _py("py-rate-half", "`w += 0.5 * y x` (a textbook learning rate, not declared)",
        "rate 1/2", "a + y[i] * b", "a + 0.5 * y[i] * b"),
    _py("py-rate-tenth", "`w += 0.1 * y x` (a textbook learning rate, not declared)",
        "rate 1/10", "a + y[i] * b", "a + 0.1 * y[i] * b"),
    _py("py-normalised", "`w += y x / ||x||` (a normalised step)", "normalised step",
        _UPDATE, "            n = sum(b * b for b in X[i]) ** 0.5\n"
                 "            w = [a + y[i] * b / n for a, b in zip(w, X[i])]\n"),
    _py("py-squared-norm", "`w += y x / ||x||^2` (an NLMS-style step)",
        "squared-norm step", _UPDATE,
        "            n = sum(b * b for b in X[i])\n"
        "            w = [a + y[i] * b / n for a, b in zip(w, X[i])]\n"),
    _py("py-zero-positive", "`pred = 1 if s >= 0 else -1; if pred != y[i]`",
        "zero-positive", "        if y[i] * s <= 0:\n",
        "        if (1 if s >= 0 else -1) != y[i]:\n"),
    _py("py-zero-negative", "`pred = 1 if s > 0 else -1; if pred != y[i]`",
        "zero-negative", "        if y[i] * s <= 0:\n",
        "        if (1 if s > 0 else -1) != y[i]:\n"),
    _py("py-labels-01", "the 0/1 rule `w += (y - pred) x` with `pred = s > 0`, "
        "given -1/+1 labels", "labels 0/1",
        "        if y[i] * s <= 0:\n" + _UPDATE,
        "        pred = 1 if s > 0 else 0\n"
        "        if pred != y[i]:\n"
        "            w = [a + (y[i] - pred) * b for a, b in zip(w, X[i])]\n"),
    _py("py-early-stop", "stops after `len(X) - 1` presentations in a row without a "
        "mistake (one short of a clean pass)", "early stop",
        "    m = 0\n", "    m = clean = 0\n",
        (_LOOP, _LOOP + "        if clean == len(X) - 1:\n            break\n"),
        ("            m += 1\n", "            m += 1\n            clean = 0\n"
         "        else:\n            clean += 1\n")),
    _py("py-shuffle", "`random.Random(0).shuffle(order)` before the loop (shuffling, "
        "as most libraries do by default)", "shuffled", _LOOP,
        "    import random\n    order = list(order)\n    random.Random(0).shuffle(order)\n"
        + _LOOP),
    _py("py-averaged", "returns the averaged weights (an averaged perceptron asked "
        "for its last weights)", "averaged returned",
        "    m = 0\n", "    m = 0\n    total = [0.0] * len(w)\n",
        ("            m += 1\n    return w, m\n",
        "            m += 1\n        total = [t + a for t, a in zip(total, w)]\n"
        "    return [t / len(order) for t in total], m\n")),
    _py("py-float32", "the weights in a numpy float32 array (`np.zeros(d, "
        "np.float32)`, updated in place)", "float32",
        "    w = [0.0] * len(X[0])\n", "    import numpy as np\n"
        "    w = np.zeros(len(X[0]), np.float32)\n",
        (_UPDATE, "            w += y[i] * X[i]\n")),
    _py("py-hinge", "`if y[i] * s <= 1` (the hinge loss's margin, as SGD with "
        "`loss='hinge'` updates)", "margin", "        if y[i] * s <= 0:\n",
        "        if y[i] * s <= 1:\n"),
    _py("py-update-always", "`w += y x` on every presentation (the update outside "
        "the `if`)", "update always", "            m += 1\n",
        "            m += 1\n        else:\n"
        "            w = [a + y[i] * b for a, b in zip(w, X[i])]\n"),
    _py("py-last-skipped", "`for t in range(len(order) - 1)`", "last skipped",
        _LOOP, "    for t in range(len(order) - 1):\n        i = order[t]\n"),
    _py("py-first-skipped", "`for t in range(1, len(order))`", "first skipped",
        _LOOP, "    for t in range(1, len(order)):\n        i = order[t]\n"),
    _py("py-wrap-around", "`for t in range(len(order) + 1): i = order[t % "
        "len(order)]`", "first again at end",
        _LOOP, "    for t in range(len(order) + 1):\n        i = order[t % len(order)]\n"),
    _py("py-whole-passes", "passes of `len(X)` presentations, `for p in "
        "range(len(order) // len(X))`", "partial pass dropped", _LOOP,
        "    n = len(X)\n    for i in [order[p * n + k] for p in range(len(order) // n)"
        " for k in range(n)]:\n"),
    _py("py-pass-from-one", "passes of `len(X)` presentations, each from `k = 1`",
        "pass first skipped", _LOOP,
        "    n = len(X)\n    for i in [order[t] for t in range(len(order)) "
        "if t % n != 0]:\n"),
]


# ---- Node: examples/perceptron.js with one edit -----------------------------------

def _node(name, what, cause, *edits):
    return Bug(name, "node", what, cause, edit(NODE_EXAMPLE.read_text(), *edits))


_JS_LOOP = "  for (const i of p.order) {\n    if (mistake("

NODE_BUGS = [
    _node("js-strict", "`y * s < 0` in the mistake test", "strict",
          "textbook: (y, s) => y * s <= 0", "textbook: (y, s) => y * s < 0"),
    _node("js-rate-half", "`--eta` defaults to 0.5", "rate 1/2",
          'opt("--eta", "1")', 'opt("--eta", "0.5")'),
    _node("js-rate-tenth", "`--eta` defaults to 0.1", "rate 1/10",
          'opt("--eta", "1")', 'opt("--eta", "0.1")'),
    _node("js-zero-positive", "a zero score predicts +1 (`--rule` defaults to "
          "zero-correct)", "zero-positive",
          'opt("--rule", "textbook")', 'opt("--rule", "zero-correct")'),
    _node("js-no-intercept", "`const aug = (x) => [...x]` (the bias forgotten)",
          "no intercept", "(p.intercept ? [...x, 1] : [...x])", "[...x]"),
    _node("js-bias-minus-one", "the bias input is -1 (`[...x, -1]`)", "constant -1",
          "[...x, 1]", "[...x, -1]"),
    _node("js-bias-first", "the bias input first (`[1, ...x]`)", "intercept first",
          "[...x, 1]", "[1, ...x]"),
    _node("js-float32", "the weights in a `Float32Array` (overflow: `Infinity`, "
          "which `JSON.stringify` writes as `null`)", "float32",
          "w = w.map((v, j) => v + eta * p.y[i] * X[i][j]);",
          "w = Array.from(new Float32Array(w.map((v, j) => v + eta * p.y[i] * "
          "X[i][j])));"),
    _node("js-average-plus-one", "the average divides by `p.order.length + 1`",
          "average with zero", "v / p.order.length", "v / (p.order.length + 1)"),
    _node("js-average-mistakes", "the average sums and counts the weights after "
          "mistakes only", "average after mistakes",
          "    w.forEach((v, j) => { sum[j] += v; });\n", "",
          ("m += 1; run = 0;", "m += 1; run = 0; w.forEach((v, j) => { sum[j] += v; });"),
          ("sum.map((v) => v / p.order.length)", "sum.map((v) => v / m)")),
    _node("js-average-updates", "the average sums the weights held before each "
          "update and divides by the updates (as wink-perceptron does)",
          "average before updates", "    w.forEach((v, j) => { sum[j] += v; });\n", "",
          ("if (mistake(p.y[i], dot(w, X[i]))) {\n      w = w.map(",
           "if (mistake(p.y[i], dot(w, X[i]))) {\n"
           "      w.forEach((v, j) => { sum[j] += v; });\n      w = w.map("),
          ("sum.map((v) => v / p.order.length)", "sum.map((v) => v / m)")),
    _node("js-pocket-ties", "the pocket is replaced when a run ties the best "
          "(`run >= best`)", "pocket on ties", "if (run > best)", "if (run >= best)"),
    _node("js-argmax-highest", "argmax ties go to the later class (`>=`)",
          "argmax highest", "(dot(w, x) > dot(W[best], x) ? k : best)",
          "(dot(w, x) >= dot(W[best], x) ? k : best)"),
    _node("js-true-class-only", "a multiclass mistake updates the true class only",
          "true class only",
          "        W[q] = W[q].map((v, j) => v - eta * X[i][j]);\n", ""),
    _node("js-dual-start-1", "the dual counts start at 1", "dual start 1",
          "const alpha = p.y.map(() => 0);", "const alpha = p.y.map(() => 1);"),
    _node("js-dual-no-labels", "the kernel score leaves out `y_j`", "dual no labels",
          "s + alpha[j] * yj * p.gram[j][i]", "s + alpha[j] * p.gram[j][i]"),
    _node("js-last-skipped", "`for (let t = 0; t < p.order.length - 1; t++)`",
          "last skipped", _JS_LOOP,
          "  for (let t = 0; t < p.order.length - 1; t++) {\n    const i = p.order[t];\n"
          "    if (mistake("),
    _node("js-multiclass-start-ones", "every class's row starts at 1 (`X[0].map(() => "
          "1)`)", "start ones", "() => X[0].map(() => start))",
          "() => X[0].map(() => 1))"),
    _node("js-start-rate-tenth", "declares `start: 0.5` in the handshake and starts "
          "there, but `--eta` defaults to 0.1 (not declared)", "rate 1/10",
          'profile: { arithmetic: "float64" }',
          'profile: { arithmetic: "float64", start: 0.5 }',
          ('opt("--start", "0")', 'opt("--start", "0.5")'),
          ('opt("--eta", "1")', 'opt("--eta", "0.1")')),
]


# ---- C: examples/perceptron.c with one edit ---------------------------------------

def _c(name, what, cause, *edits):
    return Bug(name, "c", what, cause, edit(C_EXAMPLE.read_text(), *edits))


_C_LOOP = "  for (int t = 0; t < T; t++) {\n    int i = (int)order->item[t]->num;\n"

C_BUGS = [
    _c("c-strict", "`return y * s < 0;` in the mistake test", "strict",
       "return y * s <= 0;", "return y * s < 0;"),
    _c("c-rate-half", "`static double eta = 0.5;`", "rate 1/2",
       "static double eta = 1;", "static double eta = 0.5;"),
    _c("c-zero-positive", "a zero score predicts +1 (the rule defaults to "
       "zero-correct)", "zero-positive",
       'static const char *rule = "textbook";', 'static const char *rule = '
       '"zero-correct";'),
    _c("c-float-weights", "the weights rounded to `float` after each update "
       "(overflow: `inf`, printed as such)", "float32",
       "for (int j = 0; j < d; j++) w[j] += eta * yi * X[i][j];",
       "for (int j = 0; j < d; j++) w[j] = (float)(w[j] + eta * yi * X[i][j]);"),
    _c("c-first-skipped", "`for (int t = 1; t < T; t++)`", "first skipped",
       _C_LOOP, _C_LOOP.replace("t = 0", "t = 1")),
    _c("c-last-skipped", "`for (int t = 0; t < T - 1; t++)`", "last skipped",
       _C_LOOP, _C_LOOP.replace("t < T", "t < T - 1")),
    _c("c-wrap-around", "`for (int t = 0; t <= T; t++)` with `order[t % T]`",
       "first again at end", _C_LOOP,
       _C_LOOP.replace("t < T", "t <= T").replace("item[t]", "item[t % T]")),
    _c("c-bias-minus-one", "the bias input is -1", "constant -1",
       "r[j] = j < x->n ? x->item[j]->num : 1;", "r[j] = j < x->n ? x->item[j]->num "
       ": -1;"),
    _c("c-hinge", "`return y * s <= 1;` in the mistake test (a hinge margin)",
       "margin", "return y * s <= 0;", "return y * s <= 1;"),
    _c("c-average-updates", "the averaged variant sums the weights held before each "
       "update and divides by the updates", "average before updates",
       "    for (int j = 0; j < d; j++) sum[j] += w[j];\n  }\n", "  }\n",
       ("      for (int j = 0; j < d; j++) w[j] += eta * yi * X[i][j];\n",
        "      for (int j = 0; j < d; j++) sum[j] += w[j];\n"
        "      for (int j = 0; j < d; j++) w[j] += eta * yi * X[i][j];\n"),
       ("w[j] = sum[j] / T;", "w[j] = sum[j] / m;")),
    _c("c-sum-not-average", "the averaged variant returns the running sum",
       "sum not average", "w[j] = sum[j] / T;", "w[j] = sum[j];"),
    _c("c-argmax-highest", "argmax ties go to the later class (`>=`, in training)",
       "argmax highest",
       "for (int k = 1; k < K; k++) if (dot(W[k], X[i], d) > dot(W[best], X[i], d))",
       "for (int k = 1; k < K; k++) if (dot(W[k], X[i], d) >= dot(W[best], X[i], d))"),
    _c("c-true-class-only", "a multiclass mistake updates the true class only",
       "true class only", "W[c][j] += eta * X[i][j], W[best][j] -= eta * X[i][j];",
       "W[c][j] += eta * X[i][j];"),
    _c("c-dual-set-1", "`alpha[i] = 1` on a mistake", "dual set 1",
       "alpha[i] += 1, m++", "alpha[i] = 1, m++"),
    _c("c-dual-add-2", "`alpha[i] += 2` on a mistake", "dual add 2",
       "alpha[i] += 1, m++", "alpha[i] += 2, m++"),
    _c("c-pocket-ties", "the pocket is replaced when a run ties the best "
       "(`run >= best`)", "pocket on ties", "if (run > best)", "if (run >= best)"),
    _c("c-start-half", "every weight starts at 0.5 (`static double start = 0.5;`), "
       "not declared", "start half", "static double start = 0;",
       "static double start = 0.5;"),
]

#: The whole catalogue, Python then Node then C.
BUGS = PYTHON_BUGS + NODE_BUGS + C_BUGS


# ---- running a bug ----------------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    """How the checker judged one bug: ``outcome`` is ``"right"`` (a failing case
    names the planted cause and none names only others), ``"wrong"`` (a failing case
    names causes, none of them the planted one), ``"unexplained"`` (caught, the
    cause never named) or ``"missed"`` (no case fails); ``failed`` counts the cases
    that fail or error, ``applicable`` those the profile keeps, ``others`` the causes
    named instead of the planted one (first words)."""

    bug: Bug
    outcome: str
    failed: int
    applicable: int
    others: tuple = ()


def _outcome(bug, results):
    words = CAUSES[bug.cause]
    caught = [r for r in results if r.status in ("fail", "error")]
    named = any(words in d for r in caught for d in r.diagnosis)
    others = sorted({_short(d) for r in caught if not any(words in d for d in
                                                           r.diagnosis)
                     for d in r.diagnosis})
    outcome = ("missed" if not caught else "wrong" if others else
               "right" if named else "unexplained")
    applicable = sum(r.status != "n/a" for r in results)
    return Verdict(bug, outcome, len(caught), applicable, tuple(others))


def _short(diagnosis):
    """A diagnosis's first words: its checkpoint prefix and explanation left out."""
    text = re.sub(r"^at the state after \d+ presentations: ", "", diagnosis)
    return text.split(" (")[0].split(":")[0]


def adapter(bug: Bug, workdir: Path):
    """The conformance adapter and profile that run ``bug`` (a Node or C program is
    written, and compiled, into ``workdir``)."""
    from verify import conformance as C

    if bug.language == "python":
        namespace: dict = {"__name__": bug.name}
        exec(compile(bug.source, bug.name, "exec"), namespace)
        return (C.adapter_for(namespace["fit"], name=bug.name),
                C.Profile.parse(PYTHON_PROFILE))
    if bug.language == "node":
        path = workdir / f"{bug.name}.js"
        path.write_text(bug.source)
        command = C.CommandAdapter(f"{_tool('node')} {path}")
    else:
        path = workdir / f"{bug.name}.c"
        path.write_text(bug.source)
        out = workdir / bug.name
        subprocess.run([_tool("cc", "gcc"), *C_FLAGS, "-o", str(out), str(path)],
                       check=True, capture_output=True)
        command = C.CommandAdapter(str(out))
    return command, command.declared_profile() or C.Profile()


def _tool(*names):
    for name in names:
        if shutil.which(name):
            return shutil.which(name)
    sys.exit(f"{names[-1]} is not on the PATH: the catalogue's programs need it")


def run_bug(bug: Bug, cases: list, workdir: Path) -> Verdict:
    """Run the suite's ``cases`` on one bug; its :class:`Verdict` (the causes are
    the fitting profile's when one fits the answers, as ``adversary check`` says)."""
    import numpy as np

    from verify import conformance as C

    from verify.conformance.fit import fit_report

    impl, profile = adapter(bug, workdir)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        results = C.run_suite(cases, impl, profile=profile, divergence=False)
        results, _ = fit_report(cases, results, impl, profile, "declared")
    return _outcome(bug, results)


def run_catalogue(bugs: list[Bug] | None = None) -> list[Verdict]:
    """Every bug's :class:`Verdict`, in catalogue order."""
    from verify import conformance as C

    cases = C.build_cases()
    with tempfile.TemporaryDirectory() as tmp:
        return [run_bug(bug, cases, Path(tmp)) for bug in (BUGS if bugs is None
                                                            else bugs)]


# ---- the page ---------------------------------------------------------------------

OUTCOMES = ("right", "wrong", "unexplained", "missed")


def _totals(verdicts):
    lines = ["| | " + " | ".join(OUTCOMES) + " | bugs |",
             "|---|" + "---|" * (len(OUTCOMES) + 1)]
    for language in (*LANGUAGES, "all"):
        mine = [v for v in verdicts if language in ("all", v.bug.language)]
        if not mine:
            continue
        count = Counter(v.outcome for v in mine)
        cells = [f"{count[o]} ({100 * count[o] / len(mine):.0f} %)" for o in OUTCOMES]
        lines.append(f"| {language} | " + " | ".join(cells) + f" | {len(mine)} |")
    return lines


def render(verdicts: list[Verdict]) -> str:
    """The Markdown page: the totals, then one row per bug."""
    from verify import conformance as C

    n_cases = len(C.build_cases())
    lines = [
        "# The conformance bug catalogue",
        "",
        "Generated by `python tests/conformance_catalogue.py --write` (checked by "
        "`tests/verify/conformance/test_catalogue.py`, the page itself in the slow "
        "suite). Each bug is a small program a student or a library might write, with "
        "exactly one planted cause: Python `fit(X, y, order)` loops declared "
        f"`--profile {PYTHON_PROFILE}`, and the [Node and C examples]"
        "(test-your-perceptron.md) edited (a line, or a few lines of one loop; and "
        "the handshake, for the bug that declares where it starts), run through "
        "`--cmd` under the "
        "profile they declare in the handshake (float64). Every case of the suite "
        f"({n_cases} cases, as `markone adversary suite` writes them) is run on each; "
        "a case outside the profile or the tasks a program answers is not applicable "
        "(a float64 program is not held to exact arithmetic, a Python `fit` answers "
        "the binary task's last weights only), so **failed cases** counts the cases "
        "that fail or end in an error, of those that apply. When another profile fits "
        "the answers (an undeclared learning rate), the causes are the fit's, as "
        "`adversary check` reports them; the verdict is **right** when a failing case "
        "names the planted cause and no failing case names only other causes, "
        "**wrong** when one does (those causes are listed), **unexplained** when the "
        "cause is never named, **missed** when no case fails or ends in an error. The "
        "goal (issue 39): 95 % right, none wrong.",
        "",
        *_totals(verdicts),
        "",
        "| bug | language | what was written | planted cause | failed cases | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for v in verdicts:
        verdict = v.outcome + (f": {'; '.join(v.others)}" if v.others else "")
        cells = [v.bug.name, v.bug.language, v.bug.what, CAUSES[v.bug.cause],
                 f"{v.failed} of {v.applicable}", verdict]
        lines.append("| " + " | ".join(map(_cell, cells)) + " |")
    return "\n".join(lines) + "\n"


def _cell(text):
    """``text`` in a table cell: a pipe outside backticks escaped (``||x||``)."""
    parts = text.split("`")
    return "`".join(part if k % 2 else part.replace("|", "\\|")
                    for k, part in enumerate(parts))


def main(argv: list[str] | None = None) -> None:
    """Print the page; with ``--write``, write it to ``docs/``."""
    argv = sys.argv[1:] if argv is None else argv
    sys.path.insert(0, str(ROOT))
    text = render(run_catalogue())
    print(text)
    if "--write" in argv:
        from markone._internal.io import atomic_write

        atomic_write(OUT, text)
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
