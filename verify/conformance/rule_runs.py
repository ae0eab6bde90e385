"""Small exact runs of the rule and of its common misreadings, for diagnoses.

The expected answers of the suite come from markone; these loops exist only to ask
"which *wrong* rule would give the implementation's answer?". Each runs a problem
in exact rationals (or in float32/float64, to recognise rounding) under one rule.

>>> p = {"task": "binary", "intercept": False, "X": [[1, 0], [0, 1]], "y": [1, -1],
...      "order": [0, 1]}
>>> [str(v) for v in binary_run(p).w], binary_run(p, rule="strict").mistakes
(['1', '-1'], 0)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.typing import JSONDict
from markone.variants import VARIANTS

__all__ = ["RULES", "UPDATE_ALWAYS", "TIE_TOLERANCES", "STEPS", "KERNEL_SLIPS", "FLOAT_MODES", "BinaryRun",
           "binary_run", "multiclass_run", "kernel_run", "exact_rows", "variant_answer",
           "one_vs_rest_run", "start_weights"]

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
#: The rules that update on every presentation, counting mistakes by the textbook
#: test (the update written outside the ``if``).
UPDATE_ALWAYS = "update-always"
RULES[UPDATE_ALWAYS] = RULES["textbook"]
#: The hinge loss's rule: an update (counted as a mistake) whenever y w.x <= 1;
#: "strict-margin", whenever y w.x < 1 (the hinge loss's zero loss at a score of 1
#: exactly, as Vowpal Wabbit's ``--loss_function hinge`` tests it).
RULES["margin"] = lambda y, s: y * s <= 1
RULES["strict-margin"] = lambda y, s: y * s < 1


def _unit_step(x: list[Fraction]) -> Fraction:
    """1 / ||x||, exactly; ValueError when the norm is irrational (no exact run)."""
    n2 = sum((v * v for v in x), Fraction(0))
    root = [math.isqrt(part) for part in (n2.numerator, n2.denominator)]
    if n2 == 0 or Fraction(root[0] ** 2, root[1] ** 2) != n2:
        raise ValueError("the norm of an input is irrational (or 0): no exact run")
    return Fraction(root[1], root[0])


#: How big is the step on a mistake? (``x`` the augmented input, exact): the rule's
#: is ``y x``; the others scale it by a factor that depends on the example.
STEPS: dict[str, Callable[[list[Fraction]], Fraction]] = {
    "unit": lambda x: Fraction(1),
    "normalised": _unit_step,                                    # y x / ||x||
    "squared-norm": lambda x: 1 / sum((v * v for v in x), Fraction(0)),  # y x / ||x||^2
}


def exact_rows(problem: JSONDict, *, extra_constants: int | None = None
               ) -> list[list[Fraction]]:
    """The problem's inputs as rows of Fractions, augmented as the problem says
    (``extra_constants`` overrides how many constant 1s are appended)."""
    rows = problem.get("X_exact") or problem["X"]
    k = int(bool(problem["intercept"])) if extra_constants is None else extra_constants
    return [[Fraction(v) for v in r] + [Fraction(1)] * k for r in rows]


def start_weights(problem: JSONDict, width: int) -> list[Fraction] | None:
    """The weights a run of ``problem`` starts from: its ``"start"`` (a declared
    start, :mod:`verify.conformance.start`), or None for the zero start. A run
    of another width (a misreading's extra constant) repeats the start's last
    weight, or drops the weights beyond ``width``.

    >>> start_weights({"start": ["1/2", "1"]}, 3), start_weights({}, 2)
    ([Fraction(1, 2), Fraction(1, 1), Fraction(1, 1)], None)
    """
    start = [Fraction(v) for v in problem.get("start") or ()]
    if not any(start):
        return None
    return (start + start[-1:] * width)[:width]


@dataclass(frozen=True)
class BinaryRun:
    """A run: final ``w``, ``mistakes``, the iterate after every presentation and
    whether each presentation was correct; for a float run, whether a number
    left the format's range (``overflow``: an input, product or sum became inf or
    NaN) or fell below it (``underflow``: a nonzero input or product became 0)."""

    w: list
    mistakes: int
    iterates: list
    correct: list
    overflow: bool = False
    underflow: bool = False

    def as_fractions(self) -> "BinaryRun":
        """A float run's numbers as the Fractions they are (its range flags are
        not carried: the copy is read as an exact run).

        >>> BinaryRun(w=[0.5], mistakes=1, iterates=[[0.5]], correct=[False]).as_fractions().w
        [Fraction(1, 2)]
        """
        return BinaryRun(w=[Fraction(float(v)) for v in self.w], mistakes=self.mistakes,
                         correct=self.correct,
                         iterates=[[Fraction(float(v)) for v in r] for r in self.iterates])


def binary_run(problem: JSONDict, *, rule: str = "textbook", arithmetic: str = "exact",
               extra_constants: int | None = None, step: str = "unit",
               rate: Fraction = Fraction(1)) -> BinaryRun:
    """Run a binary problem's stream once under ``rule`` (a key of :data:`RULES`),
    in ``"exact"`` arithmetic or a float one (a key of :data:`FLOAT_MODES`:
    ``"float64"``, ``"float32"``, or float64 sums of inputs or weights stored in
    float32; sequential sums, IEEE rules: a NaN score is no mistake, as ``y * s <= 0``
    says), with the step ``step`` (a key of :data:`STEPS`; ValueError when an exact
    run's step has no exact value; a float run computes it in its type, the
    norm by ``sqrt``) times the learning rate ``rate`` (a float run
    adds ``y * (rate * x[j])`` to ``w[j]``, ``rate`` rounded once to the float type:
    what ``w += rate * y * x`` computes, whatever the order of the two products),
    from the problem's ``"start"`` (:func:`start_weights`; rounded once to the
    weights' type) or from zero.

    >>> p = {"intercept": False, "X": [[2.0**100, 2.0**100], [2.0**100, -2.0**101]],
    ...      "y": [1, 1], "order": [0, 1]}
    >>> run = binary_run(p, arithmetic="float32")   # 2^200 - 2^201: inf - inf = NaN
    >>> run.mistakes, binary_run(p).mistakes, run.overflow
    (1, 2, True)
    """
    mistake = RULES[rule]
    rows = exact_rows(problem, extra_constants=extra_constants)
    ys = [int(v) for v in problem["y"]]
    if arithmetic != "exact":
        return _float_run(problem["order"], rows, ys, mistake, arithmetic, rate, step,
                          always=rule == UPDATE_ALWAYS,
                          start=start_weights(problem, len(rows[0])))
    start = start_weights(problem, len(rows[0])) or [Fraction(0)] * len(rows[0])
    if step == "unit":
        return _integer_run(problem["order"], rows, ys, mistake, Fraction(rate), start,
                            always=rule == UPDATE_ALWAYS, sign_only=rule in SIGN_RULES)
    scale = STEPS[step]
    iterates, correct, mistakes = [], [], 0
    w = start
    for i in problem["order"]:
        x, y = rows[i], ys[i]
        wrong = mistake(y, sum((a * b for a, b in zip(w, x)), Fraction(0)))
        if wrong or rule == UPDATE_ALWAYS:
            eta = scale(x) * rate
            w = [a + eta * y * b for a, b in zip(w, x)]
            mistakes += int(wrong)
        correct.append(not wrong)
        iterates.append(w)
    return BinaryRun(w=w, mistakes=mistakes, iterates=iterates, correct=correct)


#: The rules of :data:`RULES` that read only the sign of the score (an integer of
#: the same sign gives the same decision).
SIGN_RULES = frozenset({"textbook", "strict", "zero-positive", "zero-negative",
                        UPDATE_ALWAYS})


def _integer_run(order, rows, ys, mistake, rate, start, *, always=False,
                 sign_only=False):
    """:func:`binary_run` in exact arithmetic with the unit step, on integers: the
    inputs times their common denominator ``D``, the weights times ``M`` (a multiple
    of the start's denominators and of ``D`` times the rate's), so each update adds
    integers and a score is one Fraction, ``(W . X) / (M D)``; the same numbers as
    a run on Fractions, several times faster (a diagnosis runs the rule dozens of
    times on streams of thousands of presentations); with ``sign_only`` (the rule
    reads the score's sign alone) ``mistake`` is given the integer ``W . X``.

    >>> run = _integer_run([0, 1, 0], [[Fraction(1, 2)], [Fraction(-1, 3)]], [1, 1],
    ...                    RULES["textbook"], Fraction(1, 10), [Fraction(1, 4)])
    >>> run.w, run.mistakes, run.correct
    ([Fraction(13, 60)], 1, [True, False, True])
    """
    D = math.lcm(*(v.denominator for r in rows for v in r))
    M = math.lcm(*(v.denominator for v in start), D * rate.denominator)
    X = [[v.numerator * (D // v.denominator) for v in r] for r in rows]
    W = [v.numerator * (M // v.denominator) for v in start]
    step, den = rate.numerator * (M // (D * rate.denominator)), M * D
    iterates, correct, mistakes = [], [], 0
    w = list(start)
    for i in order:
        x, y = X[i], ys[i]
        score = sum(a * b for a, b in zip(W, x))
        wrong = mistake(y, score if sign_only else Fraction(score, den))
        if wrong or always:
            W = [a + step * y * b for a, b in zip(W, x)]
            w = [Fraction(a, M) for a in W]
            mistakes += int(wrong)
        correct.append(not wrong)
        iterates.append(w)
    return BinaryRun(w=w, mistakes=mistakes, iterates=iterates, correct=correct)


#: The float runs: the type the inputs are stored in, the type the scores and
#: updates are computed in, and the type the weights are stored in.
FLOAT_MODES = {
    "float64": (np.float64, np.float64, np.float64),
    "float32": (np.float32, np.float32, np.float32),
    "float32 inputs": (np.float32, np.float64, np.float64),
    "float32 weights": (np.float64, np.float64, np.float32),
}


#: The steps of :data:`STEPS` in a float type (``x`` a row of floats).
FLOAT_STEPS: dict[str, Callable[[list[Any]], Any]] = {
    "unit": lambda x: 1,
    "normalised": lambda x: 1 / np.sqrt(sum(v * v for v in x)),
    "squared-norm": lambda x: 1 / sum(v * v for v in x),
}


def _float_run(order, rows, ys, mistake, arithmetic, rate=Fraction(1), step="unit", *,
               always=False, start=None):
    """:func:`binary_run` in one of :data:`FLOAT_MODES`, noting overflow and
    underflow; the iterates are kept in the computing type (a running sum's); the
    weights start from ``start`` rounded to the weights' type (zero when None)."""
    itype, ctype, wtype = FLOAT_MODES[arithmetic]
    scale = FLOAT_STEPS[step]
    eta = _rounded(Fraction(rate), ctype)
    with np.errstate(all="ignore"):
        frows = [[ctype(_rounded(v, itype)) for v in r] for r in rows]
        flags = _input_flags(rows, frows)
        iterates, correct, mistakes = [], [], 0
        w = [wtype(_rounded(v, wtype)) for v in start or [Fraction(0)] * len(frows[0])]
        for i in order:
            x, y = frows[i], ys[i]
            wrong = mistake(y, _float_score(w, x, ctype(0), flags))
            if wrong or always:
                size = eta * scale(x) if step != "unit" else eta
                w = [wtype(a + y * (size * b)) for a, b in zip(w, x)]
                mistakes += int(wrong)
            correct.append(not wrong)
            iterates.append([ctype(v) for v in w])
    return BinaryRun(w=w, mistakes=mistakes, iterates=iterates, correct=correct,
                     **flags)


def _input_flags(rows, frows):
    """Did an input leave the float type's range (``overflow``) or fall below it
    (``underflow``: a nonzero input became 0)?"""
    return {"overflow": not all(np.isfinite(v) for r in frows for v in r),
            "underflow": any(v != 0 and f == 0 for r, fr in zip(rows, frows)
                             for v, f in zip(r, fr))}


def _float_score(w, x, zero, flags):
    """w.x summed in order from ``zero`` (the computing type), setting ``flags``'
    ``underflow`` (a product of nonzero numbers became 0) and ``overflow`` (the
    sum is not finite)."""
    s = zero
    for a, b in zip(w, x):
        product = a * b
        if product == 0 and a != 0 and b != 0:
            flags["underflow"] = True
        s = s + product
    if not np.isfinite(s):
        flags["overflow"] = True
    return s


def _rounded(v: Fraction, ftype: type) -> Any:
    """``v`` rounded to ``ftype`` (numpy's float64 or float32); inf beyond float64."""
    return ftype(float(v)) if abs(v) < 2**1024 else ftype(math.copysign(math.inf, v))


def variant_answer(run: BinaryRun, problem: JSONDict, *, scores_in: str | None = None
                   ) -> JSONDict:
    """The answer a run gives for the problem's variant (its definition in
    :data:`markone.variants.VARIANTS`): ``{"w"}``, or ``{"predictions"}`` on the
    problem's queries for a variant that votes, with ``"mistakes"``; ``"pocket-ties"``
    is the misreading of pocket in which a run as long as the best replaces it.

    From a declared start (the problem's ``"start"``) a variant is read on the run
    less its start, which starts at zero, and the start is added back to each
    vector it gives: every variant picks iterates or averages them, so this is its
    definition from that start (the pocket holds the start until a run beats it;
    the start votes first). Such an answer says ``"scale": False``: another rate
    changes its decisions, so no factor relates it to an answer at that rate
    (:func:`verify.conformance.compare.reproduces`).

    A variant that votes scores its queries exactly, or with ``scores_in`` (a key of
    :data:`FLOAT_MODES`) in that float arithmetic: each query stored in its input
    type, each product and sequential sum rounded to its compute type.
    """
    start = start_weights(problem, len(run.w))
    if start is None:
        return _defined_answer(run, problem, None, scores_in)
    # from a start, another rate is not a scale of the weights: no factor to find
    return dict(_defined_answer(_less(run, start), problem, start, scores_in),
                scale=False)


def _defined_answer(run: BinaryRun, problem: JSONDict, start: list[Fraction] | None,
                    scores_in: str | None = None) -> JSONDict:
    """:func:`variant_answer` of a run that starts at zero, ``start`` added back."""
    if problem["variant"] == "pocket-ties":
        return {"w": _plus(_pocket(run, ties=True), start), "mistakes": run.mistakes}
    variant = VARIANTS[problem["variant"]]
    defined = variant.defined(run.w, run.iterates, run.correct)
    if not variant.votes:
        return {"w": _plus(defined, start), "mistakes": run.mistakes}
    vectors, counts = defined
    return {"predictions": _votes(([_plus(v, start) for v in vectors], counts), problem,
                                  scores_in),
            "mistakes": run.mistakes}


def _exact(v: Any) -> Fraction:
    return v if isinstance(v, Fraction) else Fraction(float(v))


def _less(run: BinaryRun, start: list[Fraction]) -> BinaryRun:
    """``run`` less ``start`` (exactly): a run that starts at zero."""
    def less(vec):
        return [_exact(a) - b for a, b in zip(vec, start)]

    return BinaryRun(w=less(run.w), mistakes=run.mistakes, correct=run.correct,
                     iterates=[less(v) for v in run.iterates])


def _plus(vector: Any, start: list[Fraction] | None) -> Any:
    """``vector`` plus ``start`` (the vector itself when None)."""
    return vector if start is None else [a + b for a, b in zip(vector, start)]


def _pocket(run: BinaryRun, ties: bool = False) -> list:
    """The iterate at the end of the first longest run of correct presentations (the
    last, with ``ties``: a run as long as the best replaces it)."""
    best, length, pocket = 0, 0, [0 * v for v in run.w]
    for vec, good in zip(run.iterates, run.correct):
        length = length + 1 if good else 0
        if length > best or (ties and length == best and length):
            best, pocket = length, vec
    return pocket


def _sign(s: Any) -> int:
    return 1 if s >= 0 else -1


def _votes(vote: tuple[list, list[int]], problem: JSONDict,
           scores_in: str | None = None) -> list[int]:
    """The predictions of a vote ``(vectors, counts)`` on the problem's queries, each
    vector's score exact or in the float arithmetic ``scores_in``."""
    vectors, counts = vote
    k = int(bool(problem["intercept"]))
    queries = [[Fraction(v) for v in q] + [Fraction(1)] * k for q in problem["queries"]]
    return [_sign(sum(c * _sign(_score(v, q, scores_in)) for v, c in
                      zip(vectors, counts))) for q in queries]


def _score(v: list[Any], q: list[Fraction], arithmetic: str | None) -> Any:
    """``v . q`` exactly (``arithmetic`` None), or as a float run of that arithmetic
    (a key of :data:`FLOAT_MODES`) computes it: ``q`` stored in the input type, every
    product and sum, in index order from 0, rounded to the compute type.

    >>> e = Fraction(1, 2**30)
    >>> v, q = [Fraction(1), -e, Fraction(1)], [Fraction(-1), e, Fraction(1)]
    >>> _score(v, q, None) == -e * e, _score(v, q, "float64")   # -1 - 2^-60 rounds to -1
    (True, 0.0)
    """
    if arithmetic is None:
        return sum(a * b for a, b in zip(v, q))
    stored, ftype = FLOAT_MODES[arithmetic][:2]
    s = ftype(0)
    for a, b in zip(v, q):
        s = ftype(s + ftype(ftype(_rounded(Fraction(a), ftype))
                            * ftype(_rounded(b, stored))))
    return float(s)


def multiclass_run(problem: JSONDict, *, ties: str = "lowest",
                   arithmetic: str = "exact", rate: Fraction = Fraction(1)
                   ) -> tuple[list[list[Any]], int, Callable[..., int]]:
    """Run the argmax rule; ``ties`` is ``"lowest"`` (the rule), ``"highest"``,
    ``"true-class"`` (a tie that includes the true class counts as correct), or
    ``"true-only"`` (the rule's ties, but a mistake updates the true class only); in
    ``"exact"``, ``"float64"`` or ``"float32"`` arithmetic (the inputs rounded, each
    score summed in index order from 0, every product and sum rounded), a mistake
    adding and subtracting ``rate * x`` (``rate`` rounded once to the float type);
    every row starts from the problem's ``"start"`` (rounded once), else from 0.
    Returns ``(W, mistakes, argmax)`` with ``argmax(x)`` the rule's prediction (``x``
    augmented, as exact numbers).

    >>> p = {"intercept": False, "X": [[2.0**53, 1, 2.0**53], [1, 1, -1]],
    ...      "y": [1, 1], "n_classes": 2, "order": [0, 1]}
    >>> multiclass_run(p)[1], multiclass_run(p, arithmetic="float64")[1]
    (1, 2)
    """
    number = _number_in(arithmetic)
    rows = [[number(v) for v in r] for r in exact_rows(problem)]
    K = int(problem["n_classes"])
    start = start_weights(problem, len(rows[0])) or [Fraction(0)] * len(rows[0])
    W = [[number(v) for v in start] for _ in range(K)]
    eta = number(rate)

    def scores(x):
        return [sum((a * number(b) for a, b in zip(W[k], x)), number(0))
                for k in range(K)]

    def argmax(x, true=None):
        s = scores(x)
        top = max(s)
        tied = [k for k in range(K) if s[k] == top]
        if ties == "true-class" and true in tied:
            return true
        return tied[-1] if ties == "highest" else tied[0]

    mistakes = 0
    with np.errstate(all="ignore"):
        for i in problem["order"]:
            x, c = rows[i], int(problem["y"][i])
            p = argmax(x, c)
            if p != c:
                W[c] = [a + eta * b for a, b in zip(W[c], x)]
                if ties != "true-only":
                    W[p] = [a - eta * b for a, b in zip(W[p], x)]
                mistakes += 1
    return W, mistakes, argmax


def one_vs_rest_run(problem: JSONDict) -> tuple[list[list[Fraction]], int]:
    """Run a multiclass problem as one-vs-rest: one binary perceptron per class
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


def _number_in(arithmetic: str) -> Callable[[Any], Any]:
    """How a run in ``arithmetic`` (``"exact"``, ``"float64"``, ``"float32"``)
    holds a number: exactly, or an exact input rounded once to the float type (a
    float already held is only converted)."""
    if arithmetic == "exact":
        return Fraction
    ftype = {"float64": np.float64, "float32": np.float32}[arithmetic]

    def number(v: Any) -> Any:
        return ftype(v) if isinstance(v, np.floating) else _rounded(Fraction(v), ftype)

    return number


#: Slips in keeping the dual counts (the rule: ``alpha`` starts at 0, a mistake on
#: example i adds 1 to ``alpha[i]``, the score weighs ``alpha[j]`` by ``y[j]``).
KERNEL_SLIPS = ("start at 1", "add 2", "set to 1", "no labels")


def kernel_run(problem: JSONDict, *, rule: str = "textbook", slip: str | None = None
               ) -> tuple[list[int], int]:
    """Run the dual rule on the problem's Gram matrix, under ``rule`` and with
    one of :data:`KERNEL_SLIPS` (or none); returns ``(alpha, mistakes)``.

    >>> p = {"gram": [[1, 0], [0, 1]], "y": [1, -1], "order": [0, 1, 0]}
    >>> kernel_run(p), kernel_run(p, slip="add 2"), kernel_run(p, slip="start at 1")
    (([1, 1], 2), ([2, 2], 2), ([1, 1], 0))
    """
    mistake = RULES[rule]
    G = [[Fraction(v) for v in r] for r in problem["gram"]]
    ys = [int(v) for v in problem["y"]]
    alpha = [int(slip == "start at 1")] * len(ys)
    signs = [1] * len(ys) if slip == "no labels" else ys
    mistakes = 0
    for i in problem["order"]:
        f = sum((alpha[j] * signs[j] * G[j][i] for j in range(len(ys))), Fraction(0))
        if mistake(ys[i], f):
            alpha[i] = 1 if slip == "set to 1" else alpha[i] + (2 if slip == "add 2" else 1)
            mistakes += 1
    return alpha, mistakes
