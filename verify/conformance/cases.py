"""The cases of the conformance suite, each with the answer markone computes for it.

Every case pins down one convention or definition of the perceptron and stores the
expected answer computed by markone itself (:func:`markone.train` in exact mode, the
multiclass and kernel estimators on integer data, which are exact in float64), so the
suite is exactly what markone does. The one multiclass case that needs exact
arithmetic (``exact-multiclass-scores``) has the argmax rule run in Fractions
(:func:`verify.conformance.rule_runs.multiclass_run`) as its answer, an oracle
independent of the estimator (``MulticlassPerceptron(exact=True)`` gives the same).
A multi-pass run is written as one explicit stream (``order``) presented once, so
every case has the same shape: data, stream, answer.

>>> [c["id"] for c in build_cases()][:3]
['zero-score-orthonormal', 'worst-order-lattice', 'worst-order-greedy']
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from fractions import Fraction

import numpy as np

from markone import engine
from markone._internal.typing import JSONDict
from markone.datasets import orthonormal, separable, xor
from markone.online import argmax_run, dual_run
from markone.variants import VARIANTS
from verify.adversary import small_margin_lattice, worst_order
from verify.conformance.protocol import (
    CASE_FORMAT,
    PROBLEM_FORMAT,
    SUITE_VERSION,
    exact_vector,
    rule_text,
)
from verify.conformance.rule_runs import exact_rows, multiclass_run

__all__ = ["build_cases", "TOLERANCE"]

#: Relative tolerance on weights (to max |expected entry|) for implementations in
#: floating point; decisions (mistakes, predictions, dual counts) must match exactly.
TOLERANCE = 1e-9

# 2**500 ~ 3.3e150: a power of two, so a float64 implementation computes exactly
_BIG = Fraction(2) ** 500


def _case(cid, title, prop, pins, problem, expected, *, task="binary", variant="last",
          float64_can_pass=True, notes=""):
    problem = {"format": PROBLEM_FORMAT, "id": cid, "task": task, "variant": variant,
               "rule": rule_text(task, variant), **problem}
    doc = {"format": CASE_FORMAT, "suite_version": SUITE_VERSION, "id": cid,
           "title": title, "property": prop, "pins": pins, "task": task,
           "variant": variant, "float64_can_pass": float64_can_pass,
           "tolerance": TOLERANCE, "problem": problem, "expected": expected}
    if notes:
        doc["notes"] = notes
    return doc


def _train(X, y, order, intercept, variant="last"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return engine.train(X, y, intercept=intercept, order=list(order), max_epochs=1,
                     variant=variant, exact=True, record=True)


def _until_converged(X, y, intercept, epochs_cap=200):
    """The given order repeated for as many passes as markone needs, plus the clean
    pass that shows convergence (or ``epochs_cap`` passes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = engine.train(X, y, intercept=intercept, max_epochs=epochs_cap, exact=True)
    return list(range(len(X))) * r.epochs


def _binary_problem(data, y, order, intercept, X_exact):
    """A binary problem's data: X as JSON numbers, and as exact strings when given
    ``X_exact`` (numbers that are not floats)."""
    problem = {"intercept": bool(intercept),
               "X": [[float(Fraction(v)) for v in row] for row in data],
               "y": [int(v) for v in y], "order": [int(i) for i in order]}
    if X_exact is not None:
        problem["X_exact"] = [[str(Fraction(v)) for v in row] for row in X_exact]
    return problem


def _checkpoint(data, y, order, intercept, t):
    """The expected state after the first ``t`` presentations."""
    r = _train(data, y, order[:t], intercept) if t else None
    w = r.w if r is not None else [0] * (len(data[0]) + bool(intercept))
    return {"after": int(t), "mistakes": int(r.mistakes) if r else 0,
            "w": exact_vector(w)}


def _binary(cid, title, prop, pins, X, y, order, intercept, *, variant="last",
            X_exact=None, queries=None, checkpoints=(), float64_can_pass=True, notes=""):
    """A binary case: X as JSON numbers (and exact strings when they are not floats)."""
    data = X_exact if X_exact is not None else X
    res = _train(data, y, order, intercept, variant)
    problem = _binary_problem(data, y, order, intercept, X_exact)
    expected = {"mistakes": int(res.mistakes)}
    if VARIANTS[variant].votes:
        problem["queries"] = [[float(v) for v in q] for q in queries]
        expected["predictions"] = [int(p) for p in res.predict(queries)]
    else:
        expected["w"] = exact_vector(res.w)
    if variant != "last":
        expected["last_w"] = exact_vector(res.last_w)
    if checkpoints:
        expected["checkpoints"] = [_checkpoint(data, y, order, intercept, t)
                                   for t in checkpoints]
    return _case(cid, title, prop, pins, problem, expected, variant=variant,
                 float64_can_pass=float64_can_pass, notes=notes)


# ---- the cases ----------------------------------------------------------------------

def _zero_score():
    labels = [1, -1, 1, 1, -1, -1, 1, -1]
    X, y = orthonormal(8, labels=labels)
    return _binary(
        "zero-score-orthonormal", "orthonormal stream e_1..e_8, mixed labels",
        "zero-score-is-a-mistake",
        "a score of exactly 0 is a mistake (update when y w.x <= 0): every e_i meets "
        "w.e_i = 0, so the rule makes 8 mistakes; the strict rule (< 0) makes none, and "
        "counting a zero score as correct for one class skips that class's examples",
        X.astype(int).tolist(), y, list(range(8)), False)


def _lattice():
    X, y = small_margin_lattice(7, 2, 4, draws=60, seed=5)
    a = worst_order(X, y, method="exhaustive", progress=False)
    return _binary(
        "worst-order-lattice", "the longest mistake stream on a small integer set",
        "adversarial-worst-order",
        f"mistake-driven updates on the worst stream found by exhaustive search "
        f"({a.mistakes} mistakes, the maximum over all streams; Novikoff's bound "
        f"{a.bound:.1f})", X.tolist(), y, list(a.order), True)


def _greedy():
    X, y, _ = separable(600, 6, 0.01, seed=11)
    a = worst_order(X, y, method="greedy", progress=False)
    return _binary(
        "worst-order-greedy", "a long adversarial stream on 600 points in 6-D",
        "adversarial-worst-order",
        f"mistake-driven updates over a long stream ({a.mistakes} mistakes) found by "
        "the greedy adversary on float data", X.tolist(), y, list(a.order), True)


def _intercept():
    X = [[3], [1], [2], [0], [4]]
    y = [1, -1, 1, -1, 1]
    return _binary(
        "intercept-convention", "1-D data that needs a threshold",
        "intercept-convention",
        "the intercept is a constant 1 appended LAST to every input, its weight updated "
        "like any other (w[-1] += y); the answer's w has d + 1 entries",
        X, y, _until_converged(X, y, True), True)


def _rational_tie():
    X_exact = [["1/10", "2/10", "3/10"], ["1", "1", "-1"], ["-1/2", "1/3", "1/7"]]
    y = [1, 1, -1]
    return _binary(
        "exact-rational-tie", "rationals whose exact score is 0 (tenths)",
        "exact-arithmetic",
        "exact arithmetic on rationals: after w = (1/10, 2/10, 3/10) the score of "
        "(1, 1, -1) is exactly 0, a mistake; in float64 0.1 + 0.2 - 0.3 = 5.6e-17 > 0",
        None, y, [0, 1, 2, 0, 1, 2], False, X_exact=X_exact, float64_can_pass=False,
        notes="float64 cannot pass: the inputs are not binary fractions; X holds the "
              "nearest doubles, X_exact the data.")


def _near_tie():
    X = [[0.1, 0.2, 0.3], [1.0, 1.0, -1.0], [0.5, -0.25, 0.125]]
    y = [1, -1, 1]
    return _binary(
        "float64-near-tie", "doubles whose exact score is 2.8e-17",
        "float64-rounding",
        "the data ARE the doubles 0.1, 0.2, 0.3 (exactly); the score 0.1 + 0.2 - 0.3 of "
        "these doubles is +2.8e-17 exactly: a float64 implementation gets its sign "
        "right in any summation order; in float32 the score is 0 or -7.5e-9",
        X, y, [0, 1, 2, 0, 1, 2], False)


def _cancellation():
    X = [[1e16, 1.0, 1e16], [1.0, 1.0, -1.0], [1.0, -1.0, 1.0]]
    y = [1, 1, -1]
    return _binary(
        "exact-cancellation", "1e16 + 1 - 1e16: an exact score of 1 that float64 "
        "rounds to 0", "exact-arithmetic",
        "exact arithmetic on doubles: after w = (1e16, 1, 1e16) the score of (1, 1, -1) "
        "is exactly 1 (correct, no update); float64 computes 1e16 + 1 = 1e16 and scores "
        "0, a mistake", X, y, [0, 1, 2, 1, 2], False, float64_can_pass=False,
        notes="float64 cannot pass: the cancellation loses the 1.")


def _extreme(scale, cid, what):
    base = [[1, 0], [0, 1], [1, 1], [2, -1]]
    y = [1, 1, 1, -1]
    X_exact = [[Fraction(v) * scale for v in r] for r in base]
    order = worst_order(base, y, intercept=False, method="exhaustive",
                        progress=False).order
    return _binary(
        cid, f"coordinates near {what}", "extreme-magnitudes",
        f"no overflow, underflow or zero threshold: inputs of size {what} (powers of "
        "two, so float64 is exact and scores stay normal); float32 overflows or "
        "flushes to zero, a tolerance |s| < eps counts tiny scores as ties",
        None, y, order, False, X_exact=X_exact)


def _xor():
    X, y = xor()
    order = list(range(4)) * 3
    return _binary(
        "xor-cycle", "XOR (+-1 encoding, intercept): the exact 4-state cycle",
        "cycle-states",
        "on XOR every presentation is a mistake and w cycles through 4 states, "
        "returning to (0, 0, 0) after each pass; the checkpoints are the states after "
        "every presentation", X.astype(int).tolist(), y, order, True,
        checkpoints=list(range(1, 13)))


_VARIANT_DATA = ([[2, 1], [-1, 2], [1, -2], [-2, -1], [1, 1], [1, 1], [0, -1]],
                 [1, 1, -1, -1, 1, -1, -1])


def _variant(variant):
    """The case ``variant-NAME`` of a variant of :data:`markone.variants.VARIANTS`."""
    X, y = _VARIANT_DATA
    # not separable ((1, 1) comes with both labels): every variant has its own answer
    order = list(range(7)) * 4
    queries = [[1, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [1, -1], [-1, 1], [2, -1],
               [3, 1], [-1, -3]]
    return _binary(f"variant-{variant}", f"the {variant} perceptron's definition",
                   f"variant-{variant}", VARIANTS[variant].pins, X, y, order, True,
                   variant=variant, queries=queries if VARIANTS[variant].votes else None)


def _voted_ties():
    X = [[-2, 1], [0, 2], [0, -1], [2, -1], [-1, 0], [0, -2]]
    y = [1, -1, -1, 1, 1, 1]
    order = [5, 4, 5, 2, 3, 4, 4, 5, 0]
    queries = [[-1, 0], [2, 0], [0, 2], [-1, 1], [2, 1], [-1, 1], [0, 2], [0, -1]]
    return _binary("variant-voted-ties", "voted: iterates that score a query 0",
                   "variant-voted", "sign(0) = +1 for every iterate's vote and for the "
                   "weighted sum; each new iterate starts with 0 votes", X, y, order,
                   True, variant="voted", queries=queries)


def _pocket_ties():
    X = [[1, 1], [0, 2], [-1, -1], [-2, -1], [-1, -1]]
    y = [-1, 1, -1, 1, -1]
    order = [1, 3, 3, 4, 3, 4, 0, 0]
    return _binary("variant-pocket-ties", "pocket: runs of equal length",
                   "variant-pocket", "a run only replaces the pocket when it is longer "
                   "(a tie keeps the earlier iterate); a run of one counts", X, y, order,
                   True, variant="pocket")


def _pocket_no_run():
    X, y = xor()
    return _binary("variant-pocket-no-run", "pocket: a stream with no correct "
                   "presentation", "variant-pocket", "when no presentation is ever "
                   "correct, the pocket still holds the zero start (the zero start "
                   "counts, with a run of 0)", X.astype(int).tolist(), y, [0, 1, 2], True,
                   variant="pocket")


def _voted_close():
    X = [[2, 1], [1, 2], [2, -1], [-1, 2]]
    y = [1, -1, -1, 1]
    queries = [[1, 2], [-1, 2], [-2, 2], [-2, -2]]
    tiny = [[v * _TINY for v in q] for q in queries]
    return _binary("variant-voted-close-vote", "voted: weighted sums of -1",
                   "variant-voted", "the zero start, replaced at once, has 0 votes: three "
                   "queries get a weighted sum of exactly -1 (one vote more for the zero "
                   "start would make it 0, which votes +1); the same queries scaled by "
                   "2^-100 get the same votes (a vote is the sign of v.q, however small "
                   "v.q is: no tolerance)", X, y, [1, 0, 0, 3], False, variant="voted",
                   queries=queries + tiny)


# 2**-100 ~ 7.9e-31: a power of two, so float64 holds the queries scaled by it exactly
_TINY = Fraction(1, 2**100)


# 2**100 ~ 1.3e30 and 2**60: float32 holds the inputs, not their products (2**201)
_B, _C = Fraction(2) ** 100, Fraction(2) ** 60
# 2**-140 ~ 7e-43: float32 holds it (as a subnormal), not its square (it flushes to 0)
_T = Fraction(1, 2**140)


def _float32_overflow():
    return _binary(
        "float32-overflow", "inputs float32 holds, scores beyond its range",
        "float32-range",
        "powers of two up to 2^101 ~ 2.5e30 (float64 is exact): after the first update, "
        "example 1 (label -1) scores w.x = 2^201 - 2^161 - 2^159 > 0, a mistake; in "
        "float32 the products overflow to +inf and -inf, their sum is NaN, and "
        "y * NaN <= 0 is false: the update is skipped, and every later score is NaN too",
        [[-2 * _B, -_C, _C], [-_B, 2 * _B, -_B / 2]], [1, -1], [0, 1, 1, 0, 1, 1], False)


def _float32_underflow():
    return _binary(
        "float32-underflow", "products below float32's smallest number",
        "float32-range",
        "powers of two down to 2^-140 (float64 is exact): after the first update, "
        "example 2 scores y w.x = 2^-279 > 0, correct; in float32 its products (2^-280) "
        "flush to 0, a tie, which the rule counts as a mistake. A tolerance on ties "
        "would also count example 0's score 2^-140 as a mistake, which float32 gets "
        "right: only underflow gives float32's answer",
        [[-1, -_T], [2**126, -_T], [_T, -_T]], [1, 1, -1],
        [2, 2, 0, 0, 2, 2], False)


def _steps():
    return _binary(
        "step-size", "inputs of different lengths (1, 3, 10, 13)", "step-size",
        "the step is y x, whatever the length of x: a step normalised to unit length "
        "(y x / ||x||) or scaled by 1 / ||x||^2 makes other decisions here (the norms "
        "are integers, so both misreadings run exactly)",
        [[0, 3], [8, -6], [-12, 5], [5, 12], [0, -1]], [-1, -1, -1, 1, -1],
        [0, 1, 4, 0, 2, 0, 2, 3, 4], False)


# 2**-40 ~ 9.1e-13, below the smallest tolerance on ties a diagnosis tries (1e-12)
_E = Fraction(1, 2**40)
# 2**53: float64's integers end here, so 2**53 + 1 rounds to 2**53 (ties to even)
_N = Fraction(2) ** 53


def _intercept_rounding():
    return _binary(
        "exact-intercept-rounding", "a product float64 rounds, beside the intercept",
        "exact-arithmetic",
        "exact arithmetic beside the intercept: after w = (1 + 2^-40, -1), example 1 "
        "(1 - 2^-40, label -1) scores (1 + 2^-40)(1 - 2^-40) - 1 = -2^-80 exactly, "
        "correct; float64 rounds the product 1 - 2^-80 to 1 and scores 0, a mistake. "
        "Example 2 (1, label +1) scores 2^-40 in any arithmetic, correct: a tolerance "
        "on ties (1e-12 or more) would count it as a mistake",
        [[-(1 + _E)], [1 - _E], [1]], [-1, -1, 1], [0, 2, 1], True,
        float64_can_pass=False,
        notes="float64 cannot pass: the inputs are doubles, their product is not.")


def _averaged_sum():
    return _binary(
        "exact-averaged-sum", "an average whose float64 running sum loses the ones",
        "exact-arithmetic",
        "the averaged vector is the exact mean of the iterates: the first coordinate "
        "runs through 2^53, 1, 1, 1 - 2^53 (sum 3, mean 3/4); a float64 running sum "
        "rounds 2^53 + 1 to 2^53 twice and ends at 1 (mean 1/4). Every score and "
        "iterate is exact in float64: only the sum rounds",
        [[_N, 1], [1 - _N, 0], [1, 1], [_N, 0]], [1, 1, 1, -1], [0, 1, 2, 3], False,
        variant="averaged", float64_can_pass=False,
        notes="float64 cannot pass: its running sum of the iterates rounds.")


def _multiclass_exact():
    """A multiclass case in exact arithmetic: its answer is the argmax rule run
    in Fractions, independently of markone's ``MulticlassPerceptron(exact=True)``
    (which passes it: ``tests/verify/conformance/test_conformance.py``)."""
    X = [[_N, 1, _N], [1, 1, -1], [0, 1, 0]]
    problem = {"intercept": False, "X": [[float(v) for v in r] for r in X],
               "y": [1, 1, 2], "order": [0, 1, 1, 2], "n_classes": 3,
               "queries": [[1, 1, -1], [0, 1, 0], [-1, 0, 1]]}
    W, mistakes, argmax = multiclass_run(problem)
    queries = exact_rows({"X": problem["queries"], "intercept": False})
    expected = {"mistakes": mistakes, "W": [exact_vector(row) for row in W],
                "predictions": [argmax(q) for q in queries]}
    return _case(
        "exact-multiclass-scores", "class scores float64 cancels to a tie",
        "exact-arithmetic",
        "exact arithmetic in the argmax: after a mistake on (2^53, 1, 2^53), class 1 "
        "scores (1, 1, -1) exactly 2^53 + 1 - 2^53 = 1 and class 0 scores -1, so class "
        "1 is predicted, correctly; float64 rounds 2^53 + 1 to 2^53, every class "
        "scores 0, and the tie goes to class 0: a mistake",
        problem, expected, task="multiclass", float64_can_pass=False,
        notes="float64 cannot pass: the cancellation loses the 1.")


def _multiclass_case(cid, title, pins, X, y, order, queries):
    # markone's argmax pass (what MulticlassPerceptron(max_epochs=1) runs), on the
    # rows with the intercept's constant 1 appended; integers: exact in float64
    W, mistakes = argmax_run(np.hstack([X, np.ones((len(X), 1))]), y, order, 3)
    scores = np.hstack([queries, np.ones((len(queries), 1))]) @ W.T
    problem = {"intercept": True, "X": [[float(v) for v in r] for r in X], "y": y,
               "order": order, "n_classes": 3,
               "queries": [[float(v) for v in q] for q in queries]}
    expected = {"mistakes": mistakes,
                "W": [exact_vector(Fraction(float(v)) for v in row) for row in W],
                "predictions": [int(k) for k in np.argmax(scores, axis=1)]}
    return _case(cid, title, "multiclass-tie-breaking", pins, problem, expected,
                 task="multiclass")


def _multiclass():
    return _multiclass_case(
        "multiclass-argmax-ties", "three classes: argmax with ties",
        "argmax ties go to the lowest class index (at the zero start every class ties, "
        "so class 0 is predicted); a mistake adds x to the true class's row and "
        "subtracts it from the predicted one",
        [[1, 0], [0, 1], [-1, -1], [0, 0], [2, 1], [-1, 2]], [0, 1, 2, 1, 0, 2],
        [1, 0, 2, 3, 4, 5, 1, 3, 2, 5], [[0, 0], [1, 1], [-1, 0], [3, 0]])


def _multiclass_stream():
    return _multiclass_case(
        "multiclass-stream-order", "three classes on a stream that ends with a mistake",
        "every presentation of `order` counts, the last included (it is a mistake)",
        [[0, -2], [0, 2], [-1, 2], [1, -2]], [2, 1, 0, 0],
        [0, 3, 1, 0, 1, 3, 3, 1, 3, 1, 0],
        [[1, 2], [0, 1], [-2, 0], [-1, -1], [-2, -2], [0, 0], [-1, 1]])


def _kernel_case(cid, title, pins, X, y, order):
    # markone's dual pass (what KernelPerceptron(max_epochs=1) runs) on the Gram
    # matrix of (x.z + 1)^2 with the intercept's 1 added; integers: exact in float64
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    G = (X @ X.T + 1.0) ** 2 + 1.0
    alpha, mistakes = dual_run(G, y, order)
    problem = {"intercept": True, "X": X.tolist(), "y": [int(v) for v in y],
               "order": order, "gram": G.tolist()}
    expected = {"mistakes": mistakes, "alpha": [int(a) for a in alpha]}
    return _case(cid, title, "kernel-dual-counts", pins, problem, expected,
                 task="kernel")


def _kernel():
    X, y = xor()
    return _kernel_case("kernel-dual-counts",
                        "XOR with the kernel (x.z + 1)^2 (+1 intercept)",
                        "the dual perceptron counts mistakes per example (alpha); the "
                        "Gram matrix is given, the intercept's constant already added",
                        X, y, list(range(4)) * 3)


def _kernel_stream():
    X = [[-1, -2], [-1, -2], [-2, -2], [2, 2], [1, 2], [1, 0]]
    y = [1, -1, 1, 1, -1, -1]
    order = [1, 4, 5, 3, 3, 0, 3, 4, 5, 4, 5, 3, 1, 4, 4, 2]
    return _kernel_case("kernel-stream-order", "the dual rule on a stream whose first "
                        "and last presentations are mistakes",
                        "every presentation of `order` counts, in that order, first and "
                        "last included; alpha starts at 0; a score of exactly 0 is a "
                        "mistake, a small positive one is not", X, y, order)


def _kernel_slips():
    return _kernel_case("kernel-dual-count-slips", "an example that is a mistake three "
                        "times", "alpha counts every mistake on its example (3 on "
                        "example 2), starts at 0, grows by 1, and the score weighs "
                        "alpha_j by y_j: starting at 1, adding 2, setting a flag, or "
                        "leaving out the labels each gives other counts here",
                        [[2, 0], [-1, -2], [0, 0], [0, -1], [1, 1]], [1, 1, -1, 1, 1],
                        [2, 3, 2, 4, 2, 4, 2, 0])


def _averaged_partial_pass():
    return _binary(
        "variant-averaged-partial-pass", "the averaged perceptron over two and a half "
        "passes", "variant-averaged",
        "the average divides the sum of the iterates by the number of presentations, "
        "the short last pass included (5 here, not 4 for the whole passes, nor 6)",
        [[1, 0], [1, 1]], [1, -1], [0, 1, 1, 0, 0], False, variant="averaged")


def _fractional_score():
    return _binary(
        "fractional-score", "a correct score between 0 and 1", "no-margin",
        "only a mistake (y w.x <= 0) moves w: after w = (1/2, 1/4, 1) - (1/4, -1/2, 1) = "
        "(1/4, 3/4, 0), example 0 (1/2, 1/4) of label +1 scores 5/16 > 0, so w stays; a "
        "margin (an update when y w.x < 1 or <= 1, the hinge loss's test) moves it "
        "again. The numbers are powers of two: float64 and float32 compute them exactly",
        [[0.5, 0.25], [0.25, -0.5]], [1, -1], [0, 1, 0], True)


_BOUNDARY_PINS = ("every presentation of `order` counts once: the stream is chosen so "
                  "that a loop that presents its first example again at the end, its "
                  "last twice, or the first or the last of each pass of 4 twice counts "
                  "another mistake (presenting the first twice cannot: from the zero "
                  "start, its update makes it correct)")


def _kernel_boundaries():
    return _kernel_case("kernel-pass-boundaries", "the dual rule where a second "
                        "presentation would count again", _BOUNDARY_PINS,
                        [[1, 0], [2, 2], [-2, 0], [-1, 0]], [1, -1, 1, -1],
                        [3, 0, 1, 3, 2, 3, 2, 2, 3, 2, 0, 3])


def _multiclass_boundaries():
    return _multiclass_case(
        "multiclass-pass-boundaries", "three classes where a second presentation "
        "would count again", _BOUNDARY_PINS,
        [[0, -1], [0, -2], [-1, 0], [-2, 0]], [1, 0, 2, 1],
        [2, 2, 1, 3, 2, 3, 2, 2, 3, 0, 0, 2], [[1, 1], [-1, 0], [0, -1], [2, -1]])


def _multiclass_exact_answer(problem):
    """The argmax rule's answer to a multiclass problem, run in Fractions."""
    W, mistakes, argmax = multiclass_run(problem)
    queries = exact_rows({"X": problem["queries"], "intercept": problem["intercept"]})
    return {"mistakes": mistakes, "W": [exact_vector(row) for row in W],
            "predictions": [argmax(q) for q in queries]}


# 2**-30: float64 holds it and its square 2**-60, not 1 + 2**-60
_S = 2.0**-30


def _exact_multiclass_queries():
    problem = {"intercept": True, "X": [[1.0, -_S]], "y": [1], "order": [0, 0],
               "n_classes": 3, "queries": [[-1.0, -_S], [1.0, 0.0]]}
    return _case(
        "exact-multiclass-query-scores", "a query whose class scores float64 rounds "
        "to a tie", "exact-arithmetic",
        "exact arithmetic in the predictions: after one mistake on (1, -2^-30), class 1 "
        "holds (1, -2^-30, 1) and class 0 its negative; the query (-1, -2^-30) scores "
        "-1 + 2^-60 + 1 = 2^-60 for class 1, -2^-60 for class 0 and 0 for class 2, so "
        "class 1 is predicted; float64 rounds -1 + 2^-60 to -1, every class scores 0, "
        "and the tie goes to class 0",
        problem, _multiclass_exact_answer(problem), task="multiclass",
        float64_can_pass=False,
        notes="float64 cannot pass: the query's scores round to a tie.")


def _exact_voted_queries():
    return _binary(
        "exact-voted-query-scores", "a vote whose exact score float64 rounds to 0",
        "exact-arithmetic",
        "exact arithmetic in the vote: the iterate w = (1, -2^-30, 1) has one vote (the "
        "zero start none) and scores the query (-1, 2^-30) exactly -1 - 2^-60 + 1 = "
        "-2^-60 < 0: the prediction is -1; float64 rounds -1 - 2^-60 to -1 and scores "
        "0, which votes +1",
        [[1.0, -_S]], [1], [0, 0], True, variant="voted",
        queries=[[-1.0, _S], [1.0, 0.0]], float64_can_pass=False,
        notes="float64 cannot pass: the query's score rounds to 0.")


def _builders():
    """Each case's id and the function that builds it, in the suite's order."""
    def variant(name):
        return lambda: _variant(name)

    return {
        "zero-score-orthonormal": _zero_score, "worst-order-lattice": _lattice,
        "worst-order-greedy": _greedy, "intercept-convention": _intercept,
        "exact-rational-tie": _rational_tie, "float64-near-tie": _near_tie,
        "exact-cancellation": _cancellation,
        "extreme-large": lambda: _extreme(_BIG, "extreme-large", "1e+150"),
        "extreme-small": lambda: _extreme(1 / _BIG, "extreme-small", "1e-150"),
        "xor-cycle": _xor,
        **{f"variant-{name}": variant(name) for name in VARIANTS if name != "last"},
        "multiclass-argmax-ties": _multiclass, "kernel-dual-counts": _kernel,
        "variant-voted-ties": _voted_ties, "variant-pocket-ties": _pocket_ties,
        "multiclass-stream-order": _multiclass_stream,
        "kernel-stream-order": _kernel_stream, "variant-pocket-no-run": _pocket_no_run,
        "variant-voted-close-vote": _voted_close, "float32-overflow": _float32_overflow,
        "float32-underflow": _float32_underflow, "step-size": _steps,
        "kernel-dual-count-slips": _kernel_slips,
        "exact-intercept-rounding": _intercept_rounding,
        "exact-averaged-sum": _averaged_sum, "exact-multiclass-scores": _multiclass_exact,
        "variant-averaged-partial-pass": _averaged_partial_pass,
        "fractional-score": _fractional_score,
        "kernel-pass-boundaries": _kernel_boundaries,
        "multiclass-pass-boundaries": _multiclass_boundaries,
        "exact-multiclass-query-scores": _exact_multiclass_queries,
        "exact-voted-query-scores": _exact_voted_queries,
    }


def build_cases(ids: Iterable[str] | None = None) -> list[JSONDict]:
    """Every case of the suite (or those whose id is in ``ids``), in a fixed order (a
    list of case dicts); only the cases asked for are built.

    >>> [c["expected"]["mistakes"] for c in build_cases(["exact-averaged-sum"])]
    [3]
    """
    builders = _builders()
    wanted = set(builders) if ids is None else set(ids)
    unknown = sorted(wanted - set(builders))
    if unknown:
        raise ValueError(f"no case {unknown[0]!r} in the suite (its cases: "
                         f"{', '.join(builders)}).")
    return [build() for cid, build in builders.items() if cid in wanted]
