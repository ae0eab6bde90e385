"""Misreadings beyond the mistake test and the stream: the arithmetic (float64 or
float32 rounding, float32's range), the size of the step, and slips in keeping a
kernel perceptron's dual counts.

Each function replays the case under one misreading at a time
(:mod:`verify.conformance.replay`) and returns the words of those that give the
implementation's answer exactly (``got``, parsed numbers), with the positive factor
``k`` by which the weights differ (a learning rate other than 1, which changes no
decision). Nothing is named that its replay does not reproduce.

>>> problem = {"task": "binary", "variant": "last", "intercept": False,
...            "X": [[3, 4], [1, 0]], "y": [1, -1], "order": [0, 1]}
>>> got = {"w": [Fraction(-2, 5), Fraction(4, 5)], "mistakes": 2}  # y x / ||x||
>>> [words[:32] for words, k in step_misreadings(problem, got, 0)]
['a step normalised to unit length']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from markone._internal.typing import JSONDict
from verify.conformance.compare import close, reproduces
from verify.conformance.replay import (
    FLOAT_MODES,
    KERNEL_SLIPS,
    binary_run,
    kernel_run,
    multiclass_run,
    variant_answer,
)

__all__ = ["arithmetic_misreadings", "multiclass_arithmetic", "rounding_words",
           "step_misreadings", "kernel_slips", "RANGE_WORDS", "AVERAGE_WORDS",
           "STEP_WORDS", "SLIP_WORDS"]

#: How float32's range changed a decision, in the words of a diagnosis.
RANGE_WORDS = {
    "overflow": "overflow (a product or sum beyond float32's range, about 3.4e38, "
                "became inf, and inf - inf is NaN: y * NaN <= 0 is false, so no update)",
    "underflow": "underflow (an input or product below float32's smallest number, "
                 "about 1.4e-45, became 0: a tie where the exact score is not 0)",
}

#: The float replays that store inputs or weights in float32 and sum in float64.
_ARITHMETIC_NAMES = {
    "float32 inputs": "float32 arithmetic (the inputs stored in float32, rounded; the "
                      "scores and updates in float64)",
    "float32 weights": "float32 arithmetic (the weights stored in float32, rounded "
                       "after each update; the scores in float64)",
}

#: What rounding changed when only the averaged variant's running sum rounds.
AVERAGE_WORDS = "the average (the running sum of the iterates rounds)"

#: The steps other than the rule's ``y x`` (:data:`verify.conformance.replay.STEPS`).
STEP_WORDS = {
    "normalised": "a step normalised to unit length (w += y x / ||x||; the rule: "
                  "w += y x, whatever the length of x)",
    "squared-norm": "a step scaled by 1 / ||x||^2 (w += y x / ||x||^2; the rule: "
                    "w += y x, whatever the length of x)",
}

#: The dual-count slips (:data:`verify.conformance.replay.KERNEL_SLIPS`), in words.
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
                           ) -> list[tuple[str, Fraction]]:
    """Does a float64 (or float32) replay of the rule reproduce the answer? The words
    say when float32's range, not its rounding, changed a decision, and when only the
    weights changed (the averaged variant's running sum, kept in that arithmetic).
    The first of float64 and float32 that does is named; else every replay with
    inputs or weights stored in float32 that does (one case may not tell them
    apart)."""
    problem, out = case["problem"], []
    for arith in FLOAT_MODES:
        run = binary_run(problem, arithmetic=arith)
        if not _finite([run.w, *run.iterates]):
            continue
        answer = variant_answer(run.as_fractions(), problem)
        bound = _tolerance(tol, arith)
        k, what = reproduces(answer, got, bound), "a decision"
        if k is None and problem["variant"] == "averaged":   # the running sum rounds
            answer["w"] = [Fraction(float(sum(c) / len(run.iterates)))
                           for c in zip(*run.iterates)]
            k, what = reproduces(answer, got, bound), AVERAGE_WORDS
        if k is None:
            continue
        ranges = [words for flag, words in RANGE_WORDS.items() if getattr(run, flag)]
        out.append((rounding_words(case, arith, what, ranges), k))
        if arith in ("float64", "float32"):
            break
    return out


def rounding_words(case: JSONDict, arith: str, what: str = "a decision",
                   ranges: Sequence[str] = ()) -> str:
    """A diagnosis naming ``arith`` (a key of
    :data:`verify.conformance.replay.FLOAT_MODES`) arithmetic:
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


def multiclass_arithmetic(case: JSONDict, got: JSONDict, tol: float) -> list[str]:
    """Does the argmax rule replayed in float64 (or float32) give the answer's ``W``
    and mistakes?"""
    problem = case["problem"]
    for arith in ("float64", "float32"):
        W, mistakes, _ = multiclass_run(problem, arithmetic=arith)
        if (not _finite(W) or got.get("mistakes", mistakes) != mistakes
                or len(got["W"]) != len(W)):
            continue
        bound = _tolerance(tol, arith)
        if all(close(g, [Fraction(float(v)) for v in row], bound)
               for g, row in zip(got["W"], W)):
            return [rounding_words(case, arith)]
    return []


def _finite(rows: Sequence[Sequence[Any]]) -> bool:
    """Is every number of a float replay's ``rows`` finite (no inf, no NaN)?"""
    return all(math.isfinite(v) for row in rows for v in row)


def _tolerance(tol: float, arith: str) -> float:
    """The tolerance to compare a float replay's answer with: at least a part in
    10^6 for float32 (its rounding); ``tol`` when the sums are float64 (inputs or
    weights stored in float32 are exact in float64)."""
    return max(tol, 1e-6) if arith == "float32" else tol


def step_misreadings(problem: JSONDict, got: JSONDict, tol: float
                     ) -> list[tuple[str, Fraction]]:
    """Steps whose size depends on the example (normalised, or scaled by the squared
    norm), replayed exactly; a step with no exact value (an irrational norm) is not
    tried."""
    out = []
    for step, words in STEP_WORDS.items():
        try:
            run = binary_run(problem, step=step)
        except ValueError:
            continue
        k = reproduces(variant_answer(run, problem), got, tol)
        if k is not None:
            out.append((words, k))
    return out


def kernel_slips(problem: JSONDict, got: JSONDict) -> list[str]:
    """Slips in the dual counts that give the answer's ``alpha`` (and its mistakes,
    counted as mistakes or as the sum of alpha)."""
    out = []
    for slip in KERNEL_SLIPS:
        alpha, m = kernel_run(problem, slip=slip)
        if got["alpha"] == alpha and got.get("mistakes", m) in (m, sum(alpha)):
            out.append(SLIP_WORDS[slip])
    return out
