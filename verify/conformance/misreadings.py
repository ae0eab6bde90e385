"""Misreadings beyond the mistake test and the stream: the arithmetic (float64 or
float32 rounding, float32's range), the size of the step, and slips in keeping a
kernel perceptron's dual counts.

Each function runs the case under one misreading at a time
(:mod:`verify.conformance.rule_runs`) and returns the words of those that give the
implementation's answer exactly (``got``, parsed numbers), with the positive factor
``k`` by which the weights differ (a learning rate other than 1, which changes no
decision). Nothing is named that its run does not reproduce.

>>> problem = {"task": "binary", "variant": "last", "intercept": False,
...            "X": [[3, 4], [1, 0]], "y": [1, -1], "order": [0, 1]}
>>> got = {"w": [Fraction(-2, 5), Fraction(4, 5)], "mistakes": 2}  # y x / ||x||
>>> [words[:32] for words, k, key in step_misreadings({"problem": problem}, got, 0)]
['a step normalised to unit length']
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from markone._internal.typing import JSONDict
from markone.variants import VARIANTS
from verify.conformance.compare import close, is_one, reproduces
from verify.conformance.rate import declared
from verify.conformance.rule_runs import (
    FLOAT_MODES,
    KERNEL_SLIPS,
    BinaryRun,
    binary_run,
    exact_rows,
    kernel_run,
    multiclass_run,
    variant_answer,
)

__all__ = ["arithmetic_misreadings", "multiclass_arithmetic", "rounding_words",
           "step_misreadings", "kernel_slips", "overflow_causes", "nonfinite_pattern",
           "float_gives", "step_answer", "nonfinite_json", "labels01_answer",
           "label_misreadings", "LABELS01_WORDS",
           "RANGE_WORDS", "AVERAGE_WORDS", "STEP_WORDS", "SLIP_WORDS"]

#: How float32's range changed a decision, in the words of a diagnosis.
RANGE_WORDS = {
    "overflow": "overflow (a product or sum beyond float32's range, about 3.4e38, "
                "became inf, and inf - inf is NaN: y * NaN <= 0 is false, so no update)",
    "underflow": "underflow (an input or product below float32's smallest number, "
                 "about 1.4e-45, became 0: a tie where the exact score is not 0)",
}

#: The float runs that store inputs or weights in float32 and sum in float64.
_ARITHMETIC_NAMES = {
    "float32 inputs": "float32 arithmetic (the inputs stored in float32, rounded; the "
                      "scores and updates in float64)",
    "float32 weights": "float32 arithmetic (the weights stored in float32, rounded "
                       "after each update; the scores in float64)",
}

#: What rounding changed when only the averaged variant's running sum rounds.
AVERAGE_WORDS = "the average (the running sum of the iterates rounds)"

#: The steps other than the rule's ``y x`` (:data:`verify.conformance.rule_runs.STEPS`).
STEP_WORDS = {
    "normalised": "a step normalised to unit length (w += y x / ||x||; the rule: "
                  "w += y x, whatever the length of x)",
    "squared-norm": "a step scaled by 1 / ||x||^2 (w += y x / ||x||^2; the rule: "
                    "w += y x, whatever the length of x)",
}

#: The dual-count slips (:data:`verify.conformance.rule_runs.KERNEL_SLIPS`), in words.
SLIP_WORDS = {
    "start at 1": "the dual counts start at 1, not 0 (every example counted once "
                  "before the stream)",
    "add 2": "a mistake adds 2 to alpha_i, not 1 (alpha counts mistakes)",
    "set to 1": "alpha_i is set to 1 on a mistake, not incremented (a flag, not a "
                "count of the mistakes on example i)",
    "no labels": "the score leaves out the labels (f_i = sum_j alpha_j G[j][i]; the "
                 "rule: sum_j alpha_j y_j G[j][i])",
}


def arithmetic_misreadings(case: JSONDict, got: JSONDict, tol: float
                           ) -> list[tuple[str, Fraction, str]]:
    """Does a float64 (or float32) run of the rule (with the rate the case
    declares) reproduce the answer? ``(words, k, key)``: the words say when float32's
    range, not its rounding, changed a decision, and when only the weights changed
    (the averaged variant's running sum, kept in that arithmetic: key
    ``arithmetic-sum:MODE``, else ``arithmetic:MODE``; ``float64-part:float64`` on a
    case that needs exact arithmetic, where float64 in one part of the loop is
    enough, so cases float64 passes do not rule it out). The first of float64 and
    float32 that does is named; else every run with inputs or weights stored in
    float32 that does (one case may not tell them apart)."""
    problem, out = case["problem"], []
    own, rate = declared(case)
    for arith in FLOAT_MODES:
        if arith == own:       # the declared arithmetic is not a misreading
            continue
        run = binary_run(problem, arithmetic=arith, rate=rate)
        if not _finite([run.w, *run.iterates]):
            continue
        found = _float_answer(problem, run, got, _tolerance(tol, arith), arith)
        if found is None:
            continue
        k, what = found
        ranges = [words for flag, words in RANGE_WORDS.items() if getattr(run, flag)]
        kind = "arithmetic" if what == "a decision" else "arithmetic-sum"
        if arith == "float64" and not case["float64_can_pass"]:
            kind = "float64-part"    # one part in float64 is enough: not ruled out
        out.append((rounding_words(case, arith, what, ranges), k, f"{kind}:{arith}"))
    return out


def _float_answer(problem, run, got, bound, mode):
    """``(k, what)`` when a float run ``run`` (of the arithmetic ``mode``) gives
    ``got`` (up to a factor ``k``), ``what`` saying what rounding changed; None when
    it does not. A vote's queries are scored exactly, then in ``mode`` (a query's
    score rounds as the run's did: a decision too)."""
    answer = variant_answer(run.as_fractions(), problem)
    k = reproduces(answer, got, bound)
    if k is not None:
        return k, "a decision"
    if problem["variant"] == "averaged":   # the running sum rounds
        answer["w"] = [Fraction(float(sum(c) / len(run.iterates)))
                       for c in zip(*run.iterates)]
        k = reproduces(answer, got, bound)
        if k is not None:
            return k, AVERAGE_WORDS
    if problem["variant"] in VARIANTS and VARIANTS[problem["variant"]].votes:
        k = reproduces(variant_answer(run.as_fractions(), problem, scores_in=mode), got,
                       bound)
        if k is not None:
            return k, "a decision"
    return None


def float_gives(mode: str, case: JSONDict, want: JSONDict, tol: float) -> bool:
    """Does the rule run in the float arithmetic ``mode`` (a key of
    :data:`verify.conformance.rule_runs.FLOAT_MODES`; the declared rate) give ``want``
    (parsed numbers) on a binary or multiclass case, with any rate? True for a
    kernel case (its counts do not round)."""
    problem, rate = case["problem"], declared(case)[1]
    if problem["task"] == "multiclass":
        if mode not in ("float64", "float32"):
            return True
        W, mistakes, _ = multiclass_run(problem, arithmetic=mode, rate=rate)
        return _finite(W) and want["mistakes"] == mistakes and all(
            close(g, [Fraction(float(v)) for v in row], _tolerance(tol, mode))
            for g, row in zip(want["W"], W))
    if problem["task"] != "binary":
        return True
    run = binary_run(problem, arithmetic=mode, rate=rate)
    return _finite([run.w, *run.iterates]) and _float_answer(
        problem, run, want, _tolerance(tol, mode), mode) is not None


def rounding_words(case: JSONDict, arith: str, what: str = "a decision",
                   ranges: Sequence[str] = ()) -> str:
    """A diagnosis naming ``arith`` (a key of
    :data:`verify.conformance.rule_runs.FLOAT_MODES`) arithmetic:
    its ``ranges`` (:data:`RANGE_WORDS`' words) or its rounding, which changed
    ``what`` (``"a decision"``, :data:`AVERAGE_WORDS`); for float64 on
    a case that needs exact arithmetic, the reason it does not apply to a float64
    profile.

    >>> rounding_words({"float64_can_pass": False}, "float64", AVERAGE_WORDS)[:61]
    'float64 arithmetic: rounding changes the average (the running'
    """
    if arith == "float64" and not case["float64_can_pass"]:
        return (f"float64 arithmetic: rounding changes {what} of this case, which needs "
                "exact arithmetic (a float64 implementation declares arithmetic=float64 "
                "in its profile, and the case does not apply)")
    name = _ARITHMETIC_NAMES.get(arith, f"{arith} arithmetic")
    if ranges:
        return f"{name}: {' and '.join(ranges)} changed {what}"
    return f"{name}: rounding changed {what}"


def multiclass_arithmetic(case: JSONDict, got: JSONDict, tol: float
                          ) -> list[tuple[str, str]]:
    """Does the argmax rule run in float64 (or float32, with the declared rate)
    give the answer's ``W`` and mistakes? ``[(words, "arithmetic:MODE")]``."""
    problem, rate = case["problem"], declared(case)[1]
    for arith in ("float64", "float32"):
        W, mistakes, _ = multiclass_run(problem, arithmetic=arith, rate=rate)
        if (not _finite(W) or got.get("mistakes", mistakes) != mistakes
                or len(got["W"]) != len(W)):
            continue
        bound = _tolerance(tol, arith)
        if all(close(g, [Fraction(float(v)) for v in row], bound)
               for g, row in zip(got["W"], W)):
            return [(rounding_words(case, arith), f"arithmetic:{arith}")]
    return []


def _finite(rows: Sequence[Sequence[Any]]) -> bool:
    """Is every number of a float run's ``rows`` finite (no inf, no NaN)?"""
    return all(math.isfinite(v) for row in rows for v in row)


def _tolerance(tol: float, arith: str) -> float:
    """The tolerance to compare a float run's answer with: at least a part in
    10^6 for float32 (its rounding); ``tol`` when the sums are float64 (inputs or
    weights stored in float32 are exact in float64)."""
    return max(tol, 1e-6) if arith == "float32" else tol


def step_misreadings(case: JSONDict, got: JSONDict, tol: float
                     ) -> list[tuple[str, Fraction, str]]:
    """Steps whose size depends on the example (normalised, or scaled by the squared
    norm), with the declared rate (:func:`step_answer`): ``(words, k,
    "step:NAME")`` (k is 1: a step with a rate of its own is two misreadings)."""
    problem, out = case["problem"], []
    for step, words in STEP_WORDS.items():
        k = reproduces(step_answer(case, step), got, tol)
        if k is not None and is_one(k):      # the declared rate, not another one
            out.append((words, k, f"step:{step}"))
    return out


def step_answer(case: JSONDict, step: str) -> JSONDict:
    """The answer of the rule with ``step`` (a key of
    :data:`verify.conformance.rule_runs.STEPS`, the declared rate) on a binary case:
    run in the declared float arithmetic (an implementation that declares
    float64 rounds its steps so, and a tie may come out of it as 3.3e-16), else
    exactly, or in float64 when the step has no exact value (an irrational norm)."""
    problem, (arithmetic, rate) = case["problem"], declared(case)
    if arithmetic not in FLOAT_MODES:
        try:
            return variant_answer(binary_run(problem, step=step, rate=rate), problem)
        except ValueError:
            arithmetic = "float64"
    run = binary_run(problem, step=step, rate=rate, arithmetic=arithmetic)
    return variant_answer(run.as_fractions(), problem)


#: The 0/1 rule run on the suite's -1/+1 labels, in words.
LABELS01_WORDS = ("the rule for 0/1 labels given -1/+1 labels (pred = 1 if w.x > 0 "
                  "else 0, and w += (y - pred) x when pred != y: a -1 example never "
                  "matches a prediction, so it always updates, by -2x when w.x > 0; "
                  "the suite's labels are -1 and +1)")


def labels01_answer(case: JSONDict) -> JSONDict:
    """The answer of the rule for 0/1 labels (``pred = 1 if w.x > 0 else 0``; on
    ``pred != y``, ``w += rate * (y - pred) * x``) run on a binary case's -1/+1
    labels, in the declared arithmetic (float64, else exact) and rate.

    >>> problem = {"task": "binary", "variant": "last", "intercept": False,
    ...            "X": [[1, 0], [0, 1]], "y": [1, -1], "order": [0, 1, 1]}
    >>> answer = labels01_answer({"problem": problem})
    >>> [str(v) for v in answer["w"]], answer["mistakes"]
    (['1', '-2'], 3)
    """
    problem, (arithmetic, rate) = case["problem"], declared(case)
    number: Any = float if arithmetic == "float64" else Fraction
    rows = [[number(v) for v in r] for r in exact_rows(problem)]
    eta, w = number(rate), [number(0)] * len(rows[0])
    iterates, correct = [], []
    for i in problem["order"]:
        x, y = rows[i], int(problem["y"][i])
        pred = int(sum((a * b for a, b in zip(w, x)), number(0)) > 0)
        if pred != y:
            w = [a + (y - pred) * (eta * b) for a, b in zip(w, x)]
        correct.append(pred == y)
        iterates.append(w)
    run = BinaryRun(w=w, mistakes=correct.count(False), iterates=iterates,
                    correct=correct)
    return variant_answer(run if number is Fraction else run.as_fractions(), problem)


def label_misreadings(case: JSONDict, got: JSONDict, tol: float
                      ) -> list[tuple[str, str]]:
    """The rule for 0/1 labels (:func:`labels01_answer`), when it gives the answer
    with the declared rate: ``[(words, "labels:0/1")]``."""
    k = reproduces(labels01_answer(case), got, tol)
    return [(LABELS01_WORDS, "labels:0/1")] if k is not None and is_one(k) else []


def kernel_slips(problem: JSONDict, got: JSONDict) -> list[tuple[str, str]]:
    """Slips in the dual counts that give the answer's ``alpha`` (and its mistakes,
    counted as mistakes or as the sum of alpha): ``[(words, "kernel:SLIP")]``."""
    out = []
    for slip in KERNEL_SLIPS:
        alpha, m = kernel_run(problem, slip=slip)
        if got["alpha"] == alpha and got.get("mistakes", m) in (m, sum(alpha)):
            out.append((SLIP_WORDS[slip], f"kernel:{slip}"))
    return out


# ---- overflow: weights that are not numbers ------------------------------------------

#: The largest finite number of each float run's weights (what overflows past it).
_RANGE = {"float64": "float64's range (about 1.8e308)",
          "float32": "float32's range (about 3.4e38)",
          "float32 inputs": "float32's range (about 3.4e38)",
          "float32 weights": "float32's range (about 3.4e38)"}
#: How an answer holds a number that is not finite, by what it wrote.
_HELD = {"null": "null (JSON has no Infinity or NaN: JSON.stringify writes null)",
         "inf": "inf or NaN (JSON has neither)",
         "text": "a bare inf or nan, which is not JSON (printf's %g writes them so)"}


def nonfinite_pattern(w: Any) -> tuple[list[Fraction | None], str] | None:
    """An answer's weights with each entry that is not a finite number (JSON's
    null, a float inf or NaN) as None, and how it was written (a key of
    :data:`_HELD`); None when ``w`` is not such a list or every entry is finite.

    >>> nonfinite_pattern([1.5, None])
    ([Fraction(3, 2), None], 'null')
    """
    if not isinstance(w, list) or not w:
        return None
    out: list[Fraction | None] = []
    how = ""
    for v in w:
        if v is None or (isinstance(v, float) and not math.isfinite(v)):
            how = how or ("null" if v is None else "inf")
            out.append(None)
        elif isinstance(v, (int, float, Fraction)) and not isinstance(v, bool):
            out.append(Fraction(v))
        else:
            return None
    return (out, how) if how else None


#: A bare ``inf``, ``-inf`` or ``nan`` outside a string, as C's printf writes them.
_BARE = re.compile(r'(?<![\w."])(-?)(inf(?:inity)?|nan)(?![\w"])', re.IGNORECASE)


def nonfinite_json(text: str) -> Any:
    """What a program wrote, read as JSON with its bare ``inf`` and ``nan`` numbers
    (not JSON) as the floats they name; None when it is not JSON even so, or holds
    none.

    >>> nonfinite_json('{"w": [inf, -nan, 1], "mistakes": 2}')
    {'w': [inf, nan, 1], 'mistakes': 2}
    """
    fixed, n = _BARE.subn(lambda m: "NaN" if m[2].lower() == "nan" else m[1] + "Infinity",
                          text)
    if not n:
        return None
    try:
        return json.loads(fixed)
    except ValueError:
        return None


def overflow_causes(case: JSONDict, answer: Any, written: str = ""
                    ) -> list[tuple[str, str]]:
    """Float overflow, reproduced: a binary case's answer whose weights hold entries
    that are not finite (:func:`nonfinite_pattern`), where a float run (any of
    :data:`verify.conformance.rule_runs.FLOAT_MODES`, with the declared rate) overflows
    to inf or NaN at exactly those entries and gives the others (and the mistakes).
    ``[(words, "overflow:MODE")]``, the first run that does; ``written`` overrides
    how the answer wrote them (``"text"``: bare ``inf`` tokens).

    >>> case = {"problem": {"task": "binary", "variant": "last", "intercept": False,
    ...         "X": [[3e38, -3e38], [3e38, 1e39]], "y": [1, 1], "order": [0, 1]},
    ...         "tolerance": 0}      # a Float32Array of weights: 6e38 is inf
    >>> [key for _, key in overflow_causes(case, {"w": [None, None], "mistakes": 2})]
    ['overflow:float32 weights']
    """
    found = nonfinite_pattern(answer.get("w")) if isinstance(answer, dict) else None
    problem = case["problem"]
    if found is None or problem["task"] != "binary" or problem["variant"] == "voted":
        return []
    pattern, how = found
    for arith in FLOAT_MODES:
        run = binary_run(problem, arithmetic=arith, rate=declared(case)[1])
        w = variant_answer(run, problem)["w"]
        if answer.get("mistakes", run.mistakes) == run.mistakes and _same_pattern(
                pattern, w, _tolerance(case.get("tolerance", 0), arith)):
            name = _ARITHMETIC_NAMES.get(arith, f"{arith} arithmetic")
            return [(f"overflow: {name}: a weight went beyond {_RANGE[arith]} and "
                     f"became inf (or NaN), which the answer holds as "
                     f"{_HELD[written or how]}", f"overflow:{arith}")]
    return []


def _same_pattern(pattern, w, tol):
    """Are the run's weights ``w`` not finite exactly where ``pattern`` has None,
    and the others within ``tol``?"""
    if len(pattern) != len(w) or all(math.isfinite(v) for v in w):
        return False
    if any((p is None) == bool(math.isfinite(v)) for p, v in zip(pattern, w)):
        return False
    finite = [(p, Fraction(float(v))) for p, v in zip(pattern, w) if p is not None]
    return close([p for p, _ in finite], [v for _, v in finite], tol)
