"""Small exact replays of the rule and of its common misreadings, for diagnoses.

The expected answers of the suite come from markone; these loops exist only to ask
"which *wrong* rule would give the implementation's answer?". Each replays a problem
in exact rationals (or in float32/float64, to recognise rounding) under one rule.

>>> p = {"task": "binary", "intercept": False, "X": [[1, 0], [0, 1]], "y": [1, -1],
...      "order": [0, 1]}
>>> [str(v) for v in binary_run(p).w], binary_run(p, rule="strict").mistakes
(['1', '-1'], 0)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.typing import JSONDict

__all__ = ["RULES", "TIE_TOLERANCES", "BinaryRun", "binary_run", "multiclass_run", "kernel_run",
           "exact_rows", "variant_answer", "one_vs_rest_run"]

#: When is a presentation a mistake? (``s`` is the score w.x, ``y`` the label)
RULES = {
    "textbook": lambda y, s: y * s <= 0,
    "strict": lambda y, s: y * s < 0,                    # a zero score is correct
    "zero-positive": lambda y, s: (1 if s >= 0 else -1) != y,   # 0 predicts +1
    "zero-negative": lambda y, s: (1 if s > 0 else -1) != y,    # 0 predicts -1
}
#: A tolerance on ties: a score within ``eps`` above zero counted as a mistake, or
#: within ``eps`` below zero counted as correct (``eps`` the double nearest 1e-k).
TIE_TOLERANCES = (1e-12, 1e-9, 1e-6)


def _tie_tolerance(bound: Fraction) -> Callable[[int, Any], bool]:
    """The mistake test ``y * s <= bound``."""
    def mistake(y: int, s: Any) -> bool:
        return bool(y * s <= bound)
    return mistake


for _eps in TIE_TOLERANCES:
    RULES[f"within {_eps:g} is a mistake"] = _tie_tolerance(Fraction(_eps))
    RULES[f"within {_eps:g} is correct"] = _tie_tolerance(-Fraction(_eps))


def exact_rows(problem: JSONDict, *, extra_constants: int | None = None
               ) -> list[list[Fraction]]:
    """The problem's inputs as rows of Fractions, augmented as the problem says
    (``extra_constants`` overrides how many constant 1s are appended)."""
    rows = problem.get("X_exact") or problem["X"]
    k = int(bool(problem["intercept"])) if extra_constants is None else extra_constants
    return [[Fraction(v) for v in r] + [Fraction(1)] * k for r in rows]


@dataclass(frozen=True)
class BinaryRun:
    """A replay: final ``w``, ``mistakes``, the iterate after every presentation and
    whether each presentation was correct."""

    w: list
    mistakes: int
    iterates: list
    correct: list


def binary_run(problem: JSONDict, *, rule: str = "textbook", arithmetic: str = "exact",
               extra_constants: int | None = None) -> BinaryRun:
    """Replay a binary problem's stream once under ``rule`` (a key of :data:`RULES`),
    in ``"exact"``, ``"float64"`` or ``"float32"`` arithmetic (sequential sums)."""
    mistake = RULES[rule]
    rows = exact_rows(problem, extra_constants=extra_constants)
    ys = [int(v) for v in problem["y"]]
    iterates, correct, mistakes = [], [], 0
    with np.errstate(all="ignore"):
        if arithmetic == "exact":
            zero = Fraction(0)
        else:
            ftype = np.float64 if arithmetic == "float64" else np.float32
            zero = ftype(0)
            rows = [[ftype(float(v)) for v in r] for r in rows]
        w = [zero] * len(rows[0])
        for i in problem["order"]:
            x, y = rows[i], ys[i]
            s = zero
            for a, b in zip(w, x):
                s = s + a * b
            if mistake(y, s):
                w = [a + y * b for a, b in zip(w, x)]
                mistakes += 1
                correct.append(False)
            else:
                correct.append(True)
            iterates.append(list(w))
    return BinaryRun(w=w, mistakes=mistakes, iterates=iterates, correct=correct)


def variant_answer(run: BinaryRun, problem: JSONDict) -> JSONDict:
    """The answer a run gives for the problem's variant: ``{"w"}`` (last, averaged,
    pocket) or ``{"predictions"}`` (voted), with ``"mistakes"``."""
    variant, it = problem["variant"], run.iterates
    if variant == "last":
        return {"w": run.w, "mistakes": run.mistakes}
    if variant == "averaged":
        return {"w": [sum(c) / len(it) for c in zip(*it)], "mistakes": run.mistakes}
    zero = [0 * v for v in run.w]
    if variant == "pocket":
        best, length, pocket = 0, 0, zero
        for vec, good in zip(it, run.correct):
            length = length + 1 if good else 0
            if length > best:
                best, pocket = length, vec
        return {"w": pocket, "mistakes": run.mistakes}
    vectors, counts = [zero], [0]
    for vec, good in zip(it, run.correct):
        if good:
            counts[-1] += 1
        else:
            vectors.append(vec)
            counts.append(0)
    k = int(bool(problem["intercept"]))
    queries = [[Fraction(v) for v in q] + [Fraction(1)] * k for q in problem["queries"]]

    def sign(s):
        return 1 if s >= 0 else -1

    return {"predictions": [
        sign(sum(c * sign(sum(a * b for a, b in zip(v, q))) for v, c in
                 zip(vectors, counts))) for q in queries], "mistakes": run.mistakes}


def multiclass_run(problem: JSONDict, *, ties: str = "lowest"
                   ) -> tuple[list[list[Fraction]], int, Callable[..., int]]:
    """Replay the argmax rule; ``ties`` is ``"lowest"`` (the rule), ``"highest"``, or
    ``"true-class"`` (a tie that includes the true class counts as correct).
    Returns ``(W, mistakes, argmax)`` with ``argmax(x)`` the rule's prediction."""
    rows = exact_rows(problem)
    K = int(problem["n_classes"])
    W = [[Fraction(0)] * len(rows[0]) for _ in range(K)]

    def scores(x):
        return [sum((a * b for a, b in zip(W[k], x)), Fraction(0)) for k in range(K)]

    def argmax(x, true=None):
        s = scores(x)
        top = max(s)
        tied = [k for k in range(K) if s[k] == top]
        if ties == "true-class" and true in tied:
            return true
        return tied[-1] if ties == "highest" else tied[0]

    mistakes = 0
    for i in problem["order"]:
        x, c = rows[i], int(problem["y"][i])
        p = argmax(x, c)
        if p != c:
            W[c] = [a + b for a, b in zip(W[c], x)]
            W[p] = [a - b for a, b in zip(W[p], x)]
            mistakes += 1
    return W, mistakes, argmax


def one_vs_rest_run(problem: JSONDict) -> tuple[list[list[Fraction]], int]:
    """Replay a multiclass problem as one-vs-rest: one binary perceptron per class
    (its class +1, the others -1), each updated by the textbook rule on every example.
    Returns ``(W, mistakes)``, a mistake being a presentation that changed any row.

    >>> p = {"intercept": False, "X": [[1, 0], [0, 1]], "y": [0, 1], "n_classes": 2,
    ...      "order": [0, 1]}
    >>> W, m = one_vs_rest_run(p)
    >>> [[str(v) for v in r] for r in W], m
    ([['1', '-1'], ['-1', '1']], 2)
    """
    rows = exact_rows(problem)
    K = int(problem["n_classes"])
    W = [[Fraction(0)] * len(rows[0]) for _ in range(K)]
    mistakes = 0
    for i in problem["order"]:
        x, c = rows[i], int(problem["y"][i])
        changed = False
        for k in range(K):
            y = 1 if k == c else -1
            if y * sum((a * b for a, b in zip(W[k], x)), Fraction(0)) <= 0:
                W[k] = [a + y * b for a, b in zip(W[k], x)]
                changed = True
        mistakes += changed
    return W, mistakes


def kernel_run(problem: JSONDict, *, rule: str = "textbook") -> tuple[list[int], int]:
    """Replay the dual rule on the problem's Gram matrix; returns ``(alpha, mistakes)``."""
    mistake = RULES[rule]
    G = [[Fraction(v) for v in r] for r in problem["gram"]]
    ys = [int(v) for v in problem["y"]]
    alpha = [0] * len(ys)
    for i in problem["order"]:
        f = sum((alpha[j] * ys[j] * G[j][i] for j in range(len(ys))), Fraction(0))
        if mistake(ys[i], f):
            alpha[i] += 1
    return alpha, sum(alpha)
