"""The peers of the conformance suite: how each third-party perceptron is driven.

One entry of :data:`PEERS` per implementation, in the order of the peer table: its
name, how it is configured (the closest settings to Rosenblatt's rule its API
offers), what the adapter works around, how to build its conformance adapter, and
how to reproduce one problem with the peer's own API alone (``snippet``: the code
an upstream report quotes). Used by ``tests/peer_table.py`` and its
test; never imported by markone. Needs the ``bench`` extra (``pip install
".[bench]"``: scikit-learn, River, mlxtend, Vowpal Wabbit), ``node`` with
wink-perceptron (``npm install --no-save --prefix benchmarks
wink-perceptron@2.0.0``), and a C compiler for the C example.

>>> [p.name for p in PEERS][:2]
['sklearn Perceptron', 'sklearn SGDClassifier']
>>> print(snippet_of("mlxtend Perceptron", {"X": [[1.0, 0.0]], "y": [1], "order": [0],
...                                         "intercept": False}).splitlines()[0])
import numpy as np
"""

from __future__ import annotations

import functools
import math
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

__all__ = ["Peer", "PEERS", "PROBES", "C_FLAGS", "WINK", "WINK_QUIRKS", "mlxtend_solve",
           "vw_solve", "vw_line", "vw_parsed", "VW_QUIRKS", "hinge_rerun", "explain_vw",
           "mlxtend_rerun",
           "explain_mlxtend", "wink_rerun",
           "explain_wink", "snippet_of", "missing"]

#: How the C example is compiled (no fused multiply-add: its sums are the re-run's).
C_FLAGS = ["-std=c99", "-O2", "-ffp-contract=off"]
#: The driver of wink-perceptron (its ``node_modules`` beside it).
WINK = ROOT / "benchmarks" / "wink_peer.js"
#: Vowpal Wabbit's options: hinge loss, plain SGD at a constant rate of 1.
VW_ARGS = "--loss_function hinge --sgd --power_t 0 -l 1 --quiet"
#: Vowpal Wabbit's hash of its constant feature (the intercept).
VW_CONSTANT = 11650396

#: Problems beyond the suite, asked of every peer like its cases: each reaches a
#: difference a peer shows and no case of the suite does (``pins``: what the rule
#: does on it). None today: the one there was, a correct score between 0 and 1 that
#: showed Vowpal Wabbit's hinge margin, is the suite's case ``fractional-score``.
PROBES: list[dict] = []


@dataclass(frozen=True)
class Peer:
    """One implementation of the table: ``make(folder)`` builds its adapter (a C
    program is compiled into ``folder``); ``snippet(problem)`` is code that runs the
    problem through the peer's own API (None: a program of the repository)."""

    name: str
    settings: str
    note: str
    make: Callable[[Path], Any]
    snippet: Callable[[dict], str] | None = None
    explain: Callable[[dict, dict], str | None] | None = None


def _rows(problem):
    return [[float(v) for v in problem["X"][i]] for i in range(len(problem["X"]))]


def mlxtend_solve(problem: dict) -> dict:
    """f(problem) for mlxtend's Perceptron: the stream as one epoch, in order, from 0
    (its shuffle replaced by the identity, its random start by zeros)."""
    from mlxtend.classifier import Perceptron

    from verify.errors import NotApplicable

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


def vw_line(x: list[float], y: int) -> str:
    """One example in Vowpal Wabbit's text format, features named ``x0, x1, ...``.

    >>> vw_line([1.0, 0.25], -1)
    '-1 | x0:1.0 x1:0.25'
    """
    return f"{y} | " + " ".join(f"x{j}:{v!r}" for j, v in enumerate(x))


def vw_solve(problem: dict) -> dict:
    """f(problem) for Vowpal Wabbit: ``--loss_function hinge`` with plain SGD at rate 1
    (its constant feature as the intercept, ``--noconstant`` without one), one
    ``learn`` per presentation; a mistake is a presentation that moved a weight."""
    from vowpalwabbit import Workspace

    from verify.errors import NotApplicable

    if problem["task"] != "binary" or problem["variant"] != "last":
        raise NotApplicable("Vowpal Wabbit's hinge-loss learner is binary and keeps "
                            "its last weights")
    vw = Workspace(VW_ARGS + ("" if problem["intercept"] else " --noconstant"))
    rows, d = _rows(problem), len(problem["X"][0])

    def state():
        w = [vw.get_weight_from_name(f"x{j}") for j in range(d)]
        return w + [vw.get_weight(VW_CONSTANT % vw.num_weights())] * problem["intercept"]

    prev, mistakes = state(), 0
    for i in problem["order"]:
        vw.learn(vw_line(rows[i], int(problem["y"][i])))
        now = state()
        mistakes += now != prev
        prev = now
    vw.finish()
    return {"w": prev, "mistakes": mistakes}


def _close(got: list, want: list) -> bool:
    """Are two weight vectors equal to a part in 10^9 of the largest entry (an inf or
    NaN entry equal only to itself)?"""
    if len(got) != len(want):
        return False
    if not all(math.isfinite(float(v)) for v in [*got, *want]):
        return all(float(a) == float(b) or math.isnan(float(a)) and math.isnan(float(b))
                   for a, b in zip(got, want))
    scale = max([abs(Fraction(v)) for v in want] + [Fraction(1)])
    return all(abs(Fraction(a) - Fraction(b)) <= scale / 10**9 for a, b in zip(got, want))


#: What Vowpal Wabbit's loop does differently from the rule (``hinge_rerun``'s
#: switches), in words.
VW_QUIRKS = {
    "margin": "it updates whenever y w.x < 1 (the hinge loss), so a correct example "
              "scoring between 0 and 1 is an update (the rule: only a mistake, "
              "y w.x <= 0)",
    "float32": "it computes in float32 (inputs, weights, scores)",
    "parser": "its text format's parser does not read a decimal as the nearest "
              "float32 (0.7333333333333333 as 0.73333329, not 0.73333335; "
              "3.054936363499605e-151 as inf)",
    "nan": "a NaN score counts as 0, so it updates",
    "infinite": "an update leaves the weight of an infinite input as it is",
}


@functools.cache
def _vw_parser():
    from vowpalwabbit import Workspace

    return Workspace("--quiet --noconstant")


def vw_parsed(v: float) -> float:
    """The number Vowpal Wabbit's text parser reads for ``v`` (written as
    :func:`vw_line` writes it; 0 when it drops the feature)."""
    vw = _vw_parser()
    ex = vw.parse(vw_line([v], 1))
    ns = ex.get_ns(0) if ex.num_namespaces() else None
    out = ex.feature_weight(ns, 0) if ns is not None and ex.num_features_in(ns) else 0.0
    vw.finish_example(ex)
    return out


def hinge_rerun(problem: dict, off: tuple[str, ...] = ()) -> dict:
    """Vowpal Wabbit's loop as the adapter drives it: ``w += y x`` when ``y w.x < 1``
    in float32 on the inputs its parser reads, with the quirks named in ``off``
    (keys of :data:`VW_QUIRKS`) replaced by the rule's (float64 for float32); a
    mistake is a presentation that moved a weight, as :func:`vw_solve` counts."""
    ftype = np.float64 if "float32" in off else np.float32
    read = float if "parser" in off else vw_parsed
    one = [ftype(1)] * int(problem["intercept"])
    with np.errstate(all="ignore"):
        rows = [[ftype(read(float(v))) for v in r] + one for r in problem["X"]]
        w, moved = [ftype(0)] * len(rows[0]), 0
        for i in problem["order"]:
            x, y = rows[i], int(problem["y"][i])
            s = ftype(0)
            for a, b in zip(w, x):
                s = ftype(s + a * b)
            s = ftype(0) if np.isnan(s) and "nan" not in off else s
            if (y * s <= 0) if "margin" in off else (y * s < 1):
                new = [a if np.isinf(b) and "infinite" not in off else ftype(a + y * b)
                       for a, b in zip(w, x)]
                moved += [float(v) for v in new] != [float(v) for v in w]
                w = new
    return {"w": [float(v) for v in w], "mistakes": moved}


def _explained(head: str, quirks: dict[str, str], gives: Callable[..., bool]
               ) -> str | None:
    """A re-run's explanation: ``head`` when ``gives()`` (the re-run gives the
    answer), with the quirks without which it no longer does (``gives((key,))``
    false), or all of them when it gives it without any one; None when it does not
    give the answer."""
    if not gives():
        return None
    needed = [q for q in quirks if not gives((q,))]
    if not needed:
        return head + " (what it does differently: " + "; ".join(quirks.values()) + ")"
    return (head + ", and no longer does when any of these is replaced by the rule's: "
            + "; ".join(quirks[q] for q in needed))


def explain_vw(problem: dict, answer: dict) -> str | None:
    """Why Vowpal Wabbit gave ``answer``, when :func:`hinge_rerun` gives it: the
    quirks without which the re-run no longer does."""
    if problem["task"] != "binary" or problem["variant"] != "last":
        return None

    def gives(off=()):
        want = hinge_rerun(problem, off)
        return (_close(answer.get("w", []), want["w"])
                and answer.get("mistakes") == want["mistakes"])

    return _explained("a re-run of Vowpal Wabbit's loop (`hinge_rerun` in "
                      "`tests/peer_adapters.py`) gives exactly this answer",
                      VW_QUIRKS, gives)


def mlxtend_rerun(problem: dict, *, zero_positive: bool = True,
                   intercept: bool = True) -> dict:
    """mlxtend's loop in float64, as the adapter reads it: a zero score predicts +1
    and only a wrong prediction updates (``zero_positive``), and an intercept is
    always learned (``intercept``; reported once it moved, or when the case has
    one)."""
    from verify.conformance.rule_runs import binary_run

    extra = 1 if intercept or problem["intercept"] else 0
    run = binary_run(problem, rule="zero-positive" if zero_positive else "textbook",
                     arithmetic="float64", extra_constants=extra)
    w = [float(v) for v in run.w]
    if extra and not problem["intercept"] and not run.mistakes:
        w = w[:-1]
    return {"w": w, "mistakes": run.mistakes}


def explain_mlxtend(problem: dict, answer: dict) -> str | None:
    """Why mlxtend gave ``answer``, when :func:`mlxtend_rerun` gives it: the
    conventions without which the re-run no longer does."""
    if problem["task"] != "binary" or problem["variant"] != "last":
        return None

    def gives(**switches):
        want = mlxtend_rerun(problem, **switches)
        return (_close(answer.get("w", []), want["w"])
                and answer.get("mistakes") == want["mistakes"])

    if not gives():
        return None
    words = {"zero_positive": "a zero score predicts +1 and only a wrong prediction "
                              "updates, so a zero score on a +1 example is no mistake "
                              "(the rule: y w.x <= 0 is a mistake)",
             "intercept": "it always learns an intercept b, with no switch to turn "
                          "it off"}
    needed = [w for key, w in words.items() if not gives(**{key: False})]
    return ("a re-run of mlxtend's loop in float64 (`mlxtend_rerun` in "
            "`tests/peer_adapters.py`) gives exactly this answer"
            + (", and no longer does without: " + "; ".join(needed) if needed else ""))


#: What wink-perceptron does differently from the averaged rule (``wink_rerun``'s
#: switches), in words.
WINK_QUIRKS = {
    "averaged": "it averages the weights held before each of its M updates (divided by "
                "M; the final weights and the presentations without an update do not "
                "count), where the averaged perceptron averages the weights held after "
                "each of the T presentations",
    "decisions": "its decisions are its own: the first update moves only the true "
                 "class (no class has a score yet), and a score tie goes to the label "
                 "that sorts last",
    "decimals": "it rounds every averaged weight to 3 decimals (toFixed(3))",
}


def _wink_predict(W, B, x, present):
    """wink-perceptron's argmax over the classes with a weight on a nonzero
    feature of ``x`` (None: no class scores, its 'unknown'); ties to the label that
    sorts last."""
    scores = {c: sum((W[c][j] * v for j, v in enumerate(x) if v and j in present[c]),
                     Fraction(0)) + B[c]
              for c in W if any(v and j in present[c] for j, v in enumerate(x))}
    if not scores:
        return None
    return max(scores, key=lambda c: (scores[c], c))


def wink_rerun(problem: dict, off: tuple[str, ...] = ()) -> dict:
    """wink-perceptron's learning loop on a binary averaged problem (labels pos/neg,
    the answer as ``benchmarks/wink_peer.js`` reads it), exactly, with the quirks
    named in ``off`` (keys of :data:`WINK_QUIRKS`) replaced by the rule's."""
    rows = [[Fraction(v) for v in r] for r in problem["X"]]
    d = len(rows[0])
    W = {c: [Fraction(0)] * d for c in ("pos", "neg")}
    B = {"pos": Fraction(0), "neg": Fraction(0)}
    present = {"pos": set(), "neg": set()}
    total = {c: [Fraction(0)] * (d + 1) for c in W}
    count = 0
    for i in problem["order"]:
        x, truth = rows[i], "pos" if problem["y"][i] > 0 else "neg"
        guess = (_rule_guess(W, B, x, truth) if "decisions" in off
                 else _wink_predict(W, B, x, present))
        moved = guess != truth
        if moved and "averaged" not in off:     # the weights before this update
            count += _summed(total, W, B)
        if moved:
            for c, sign in ((truth, 1), (guess, -1)) if guess else ((truth, 1),):
                W[c] = [a + sign * b for a, b in zip(W[c], x)]
                B[c] += sign
                present[c].update(range(d))
        if "averaged" in off:                   # the weights after each presentation
            count += _summed(total, W, B)
    return {"w": _wink_answer(total, count, problem, "decimals" not in off)}


def _rule_guess(W, B, x, truth):
    """The rule's decision (a zero score is a mistake) between the two classes."""
    other = "neg" if truth == "pos" else "pos"
    s = sum((a * b for a, b in zip(W["pos"], x)), B["pos"]) - sum(
        (a * b for a, b in zip(W["neg"], x)), B["neg"])
    return other if (s if truth == "pos" else -s) <= 0 else truth


def _summed(total, W, B):
    """Add each class's weights and bias to its running ``total``; returns 1 (one
    more term of the average)."""
    for c in W:
        total[c] = [t + v for t, v in zip(total[c], W[c] + [B[c]])]
    return 1


def _wink_answer(total, count, problem, rounded):
    """(averaged pos - averaged neg) / 2, each average rounded as toFixed(3) does
    (half-way up, on the double's exact value) when ``rounded``."""
    def average(v):
        if not count:
            return Fraction(0)
        if not rounded:
            return v / count
        q = Fraction(float(v / count))        # JavaScript divides in float64
        return Fraction(math.floor(q * 1000 + Fraction(1, 2)), 1000)

    w = [(average(p) - average(n)) / 2 for p, n in zip(total["pos"], total["neg"])]
    return w if problem["intercept"] or w[-1] != 0 else w[:-1]


def explain_wink(problem: dict, answer: dict) -> str | None:
    """Why wink-perceptron gave ``answer``, when :func:`wink_rerun` gives it: the
    quirks without which the re-run no longer does."""
    if problem["task"] != "binary" or problem["variant"] != "averaged":
        return None
    got = answer.get("w", [])
    return _explained("a re-run of wink-perceptron's learning loop (`wink_rerun` in "
                      "`tests/peer_adapters.py`) gives exactly this answer", WINK_QUIRKS,
                      lambda off=(): _close(got, wink_rerun(problem, off)["w"]))


def _sk_snippet(make: str) -> Callable[[dict], str]:
    def snippet(p):
        return "\n".join([
            "import numpy as np",
            f"from sklearn.linear_model import {make.split('(')[0]}",
            "",
            f"X = np.array({_rows(p)})",
            f"y = np.array({list(p['y'])})",
            f"clf = {make[:-1]}{', ' if make[-2] != '(' else ''}"
            f"fit_intercept={bool(p['intercept'])})",
            f"for i in {list(p['order'])}:",
            "    clf.partial_fit(X[i:i + 1], y[i:i + 1], classes="
            + (f"np.arange({p['n_classes']}))" if p.get("n_classes") else
               "np.array([-1, 1]))"),
            "print(clf.coef_.tolist(), clf.intercept_.tolist())"])
    return snippet


def _river_snippet(p):
    return "\n".join([
        "from river import linear_model", "",
        f"X = {_rows(p)}", f"y = {list(p['y'])}",
        "model = linear_model.Perceptron()",
        f"for i in {list(p['order'])}:",
        "    model.learn_one(dict(enumerate(X[i])), y[i] > 0)",
        "print(dict(model.weights), model.intercept)"])


def _mlxtend_snippet(p):
    return "\n".join([
        "import numpy as np",
        "from mlxtend.classifier import Perceptron", "",
        f"X = np.array({_rows(p)})[{list(p['order'])}]    # the stream, in order",
        f"y = (np.array({list(p['y'])})[{list(p['order'])}] > 0).astype(int)",
        "model = Perceptron(eta=0.5, epochs=1)     # a mistake moves w by y x",
        "model._yield_minibatches_idx = lambda rgen, n_batches, data_ary, shuffle=True: (",
        "    np.array([i]) for i in range(len(data_ary)))     # no shuffle",
        "model.w_, model.b_, model.cost_ = np.zeros((X.shape[1], 1)), np.zeros(1), []",
        "model.fit(X, y, init_params=False)             # from w = 0",
        "print(model.w_.ravel().tolist(), model.b_.tolist(), model.cost_)"])


def _vw_snippet(p):
    lines = [vw_line(_rows(p)[i], int(p["y"][i])) for i in p["order"]]
    names = [f"x{j}" for j in range(len(p["X"][0]))]
    return "\n".join([
        "from vowpalwabbit import Workspace", "",
        f"vw = Workspace({VW_ARGS + ('' if p['intercept'] else ' --noconstant')!r})",
        f"for line in {lines!r}:", "    vw.learn(line)",
        f"print([vw.get_weight_from_name(n) for n in {names!r}]"
        + (f", vw.get_weight({VW_CONSTANT} % vw.num_weights()))" if p["intercept"]
           else ")")])


def _wink_snippet(p):
    label = {1: "pos", -1: "neg"}
    examples = [[{f"x{j}": v for j, v in enumerate(_rows(p)[i])},
                 {"label": label[int(p["y"][i])]}] for i in p["order"]]
    text = repr(examples).replace("'", '"').replace(".0,", ",").replace(".0}", "}")
    return "\n".join([
        "const perceptron = require('wink-perceptron');",
        "const model = perceptron();",
        "model.defineConfig({ maxIterations: 1, shuffleData: false });",
        f"model.learn({text});",
        "console.log(model.exportJSON());   // [averaged weights, averaged biases, ...]"])


_SNIPPETS = {"sklearn Perceptron": _sk_snippet("Perceptron()"),
             "sklearn SGDClassifier": _sk_snippet(
                 'SGDClassifier(loss="perceptron", learning_rate="constant", '
                 'eta0=1.0, penalty=None)'),
             "River Perceptron": _river_snippet, "mlxtend Perceptron": _mlxtend_snippet,
             "Vowpal Wabbit": _vw_snippet, "wink-perceptron": _wink_snippet}


def snippet_of(name: str, problem: dict) -> str | None:
    """The code that runs ``problem`` through peer ``name``'s own API (None for the
    repository's own examples)."""
    make = _SNIPPETS.get(name)
    return None if make is None else make(problem)


def _c_example(folder):
    """The C example compiled into ``folder``; the path of the program."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    out = Path(folder) / "perceptron"
    subprocess.run([compiler, *C_FLAGS, "-o", str(out),
                    str(ROOT / "examples" / "perceptron.c")], check=True)
    return out


def _sklearn(kind):
    def make(folder):
        from sklearn.linear_model import Perceptron, SGDClassifier

        from verify.conformance import adapter_for

        return adapter_for(Perceptron() if kind == "perceptron" else SGDClassifier(
            loss="perceptron", learning_rate="constant", eta0=1.0, penalty=None))
    return make


def _river(folder):
    from river import linear_model

    from verify.conformance import adapter_for

    return adapter_for(linear_model.Perceptron())


def _callable(fn, name):
    def make(folder):
        from verify.conformance import adapter_for

        return adapter_for(fn, name=name)
    return make


def _command(kind):
    def make(folder):
        from verify.conformance import CommandAdapter

        node = shutil.which("node")
        if kind == "C":
            return CommandAdapter(str(_c_example(folder)))
        script = WINK if kind == "wink" else ROOT / "examples" / "perceptron.js"
        return CommandAdapter(f"{node} {script}")
    return make


def missing() -> list[str]:
    """What the peers need and this machine lacks, in words (empty: all there)."""
    import importlib.util

    out = [f"the Python package {m} (pip install \".[bench]\")"
           for m in ("sklearn", "river", "mlxtend", "vowpalwabbit")
           if importlib.util.find_spec(m) is None]
    if shutil.which("node") is None:
        out.append("node on the PATH")
    elif not (WINK.parent / "node_modules" / "wink-perceptron").is_dir():
        out.append("wink-perceptron (npm install --no-save --prefix benchmarks "
                   "wink-perceptron@2.0.0)")
    if not (shutil.which("cc") or shutil.which("gcc")):
        out.append("a C compiler (cc or gcc) on the PATH")
    return out


PEERS = [
    Peer("sklearn Perceptron",
         "`Perceptron()` (eta0=1, no penalty); `fit_intercept` set per case; one-row "
         "`partial_fit`", "", _sklearn("perceptron"), _SNIPPETS["sklearn Perceptron"]),
    Peer("sklearn SGDClassifier",
         "`SGDClassifier(loss=\"perceptron\", learning_rate=\"constant\", eta0=1, "
         "penalty=None)`; `fit_intercept` set per case; one-row `partial_fit`", "",
         _sklearn("sgd"), _SNIPPETS["sklearn SGDClassifier"]),
    Peer("River Perceptron",
         "`linear_model.Perceptron()`; labels True/False; `learn_one` with `{j: x_j}`",
         "River always learns an intercept (no switch), so the cases without one get "
         "an extra weight: a different convention, and it changes decisions on those "
         "cases.", _river, _SNIPPETS["River Perceptron"]),
    Peer("mlxtend Perceptron",
         "`Perceptron(eta=0.5, epochs=1)`, so a mistake moves w by `eta (y - pred) x = "
         "y x`; started at w = 0 and fed the case's stream in order (see the note)",
         "mlxtend shuffles every epoch with no switch, refuses a fit on one label, and "
         "starts from random weights: the adapter presents the stream as the training "
         "set with the shuffle replaced by the identity and `w_`, `b_` set to zero "
         "(`cost_` to []), then reads `w_`, `b_` and the errors in `cost_`. It always "
         "learns an intercept and predicts +1 on a zero score.",
         _callable(mlxtend_solve, "mlxtend Perceptron"), _SNIPPETS["mlxtend Perceptron"],
         explain_mlxtend),
    Peer("Vowpal Wabbit",
         f"`vw {VW_ARGS}` (`--noconstant` when the case has no intercept; its "
         "constant feature is the intercept); one `learn` per presentation, features "
         "named `x0, x1, ...`; a mistake is a presentation that moved a weight",
         "The hinge loss, `max(0, 1 - y w.x)`, moves w by `y x` whenever `y w.x < 1`, "
         "where the perceptron moves it when `y w.x <= 0`: on whole numbers the two "
         "agree, on fractions they do not. Vowpal Wabbit computes in float32, its "
         "text parser reads some decimals off the nearest float32, a NaN score counts "
         "as 0 and an update leaves the weight of an infinite input alone: "
         "`hinge_rerun` re-runs all of it.", _callable(vw_solve, "Vowpal Wabbit"),
         _SNIPPETS["Vowpal Wabbit"],
         explain_vw),
    Peer("wink-perceptron",
         "npm `wink-perceptron` 2.0.0 through `--cmd \"node benchmarks/wink_peer.js\"`: "
         "`defineConfig({maxIterations: 1, shuffleData: false})`, the stream as "
         "`learn`'s examples in order, labels `pos`/`neg`; w = (averaged row of `pos` "
         "- averaged row of `neg`) / 2 from `exportJSON`, its bias difference / 2 "
         "the intercept weight",
         "wink-perceptron is a multi-class averaged perceptron: it exposes only its "
         "averaged weights (rounded to 3 decimals by `toFixed(3)`), so only the "
         "binary averaged cases can be asked. It always learns a bias per class, "
         "breaks score ties towards the label that sorts last, and refuses a stream "
         "that updates fewer than 2 classes.", _command("wink"),
         _SNIPPETS["wink-perceptron"], explain_wink),
    Peer("Node example",
         "`--cmd \"node examples/perceptron.js\"` (the [example]"
         "(test-your-perceptron.md#the-subprocess-protocol)); it declares "
         "`arithmetic=float64` in the handshake", "", _command("node")),
    Peer("C example",
         "`--cmd ./perceptron`, built from `examples/perceptron.c` with `cc "
         "-std=c99 -O2 -ffp-contract=off`; it declares `arithmetic=float64` in the "
         "handshake", "", _command("C")),
]

if __name__ == "__main__":          # pragma: no cover - a check of the machine
    sys.exit("\n".join(missing()) or None)
