"""The answers a case expects of an implementation with a learning rate other than 1,
or a start other than zero.

In exact arithmetic, from a zero start, ``w += rate * y * x`` makes the rule's
decisions and weights scaled by ``rate``; in float64 the rounding of ``rate * x``
may turn a tie into a score of 3.3e-16, so the reference runs the update in IEEE
float64 (:func:`verify.conformance.rule_runs.binary_run` with ``rate``) and expects what
that run gives. From a declared start (the problem's ``"start"``,
:mod:`verify.conformance.start`) a rate changes decisions too: the reference runs
the rule from it, exactly or in IEEE float64. A kernel perceptron's dual counts
depend on neither.

>>> case = {"task": "binary", "variant": "last",
...         "problem": {"task": "binary", "variant": "last", "intercept": False,
...                     "X": [[1, 0], [1, 1]], "y": [1, -1], "order": [0, 1]},
...         "expected": {"mistakes": 2, "w": ["0", "-1"]}}
>>> expected_with_rate(case, Fraction(1, 10), "exact")["expected"]["w"]
['0', '-1/10']
>>> w = expected_with_rate(case, Fraction(1, 10), "float64")["expected"]["w"]
>>> [float(Fraction(v)) for v in w]        # the doubles 0 and -0.1, exactly
[0.0, -0.1]
>>> case["problem"]["start"] = ["1/2", "1/2"]   # example 0 scores 1/2 now: correct
>>> expected_with_rate(case, Fraction(1, 10), "exact")["expected"]
{'mistakes': 1, 'w': ['2/5', '2/5']}
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from markone._internal.typing import JSONDict
from verify.conformance.rule_runs import (
    BinaryRun,
    binary_run,
    exact_rows,
    multiclass_run,
    start_weights,
    variant_answer,
)

__all__ = ["expected_with_rate", "declared", "reference_run"]


def expected_with_rate(case: JSONDict, rate: Fraction, arithmetic: str) -> JSONDict:
    """``case`` with its ``expected`` answers for an implementation of learning rate
    ``rate`` in ``arithmetic`` (``"exact"`` or ``"float64"``), from the start its
    problem declares (zero when it has no ``"start"``); the case is not changed."""
    want, task = case["expected"], case["task"]
    if task == "kernel":
        return case
    if arithmetic == "exact" and "start" not in case["problem"]:
        expected = _scaled(want, rate)
    elif task == "multiclass":
        expected = _multiclass_rule_run(case["problem"], rate, arithmetic)
    else:
        expected = _binary_rule_run(case["problem"], want, rate, arithmetic)
    return dict(case, expected=expected)


def declared(case: JSONDict) -> tuple[str, Fraction]:
    """The arithmetic and the learning rate a judged case was declared with
    (:meth:`verify.conformance.profile.Profile.judged_case`); exact and 1 when none.

    >>> declared({"declared": {"arithmetic": "float64", "rate": "1/10"}})
    ('float64', Fraction(1, 10))
    """
    settings = case.get("declared") or {}
    return str(settings.get("arithmetic", "exact")), Fraction(settings.get("rate", 1))


def reference_run(problem: JSONDict, case: JSONDict, **misreading: Any) -> BinaryRun:
    """:func:`verify.conformance.rule_runs.binary_run` of ``problem`` under the settings
    ``case`` declares (:func:`declared`) and one ``misreading`` (``rule=``,
    ``step=``, ``extra_constants=``, ``arithmetic=``): the rate applied, from the
    problem's start; in IEEE float64, as the reference expects, when float64 is
    declared with a rate other than 1 or a start (``case``'s problem carries one)
    and the misreading does not name its own arithmetic or step (a float run's
    numbers read back as Fractions).

    >>> p = {"intercept": False, "X": [[1, 1]], "y": [1], "order": [0]}
    >>> reference_run(p, {"declared": {"rate": "1/2"}}).w
    [Fraction(1, 2), Fraction(1, 2)]
    """
    arithmetic, rate = declared(case)
    convention = rate != 1 or "start" in case.get("problem", {})
    if (arithmetic == "float64" and convention and misreading.get("step", "unit") == "unit"
            and "arithmetic" not in misreading):
        misreading["arithmetic"] = "float64"
    run = binary_run(problem, rate=rate, **misreading)
    return run if misreading.get("arithmetic", "exact") == "exact" else run.as_fractions()


def _text(vector: Any) -> list[str]:
    return [str(Fraction(v)) for v in vector]


def _scaled(want: JSONDict, rate: Fraction) -> JSONDict:
    """The exact answers with every weight scaled by ``rate``."""
    out = dict(want)
    for key in ("w", "last_w"):
        if key in want:
            out[key] = _text(rate * Fraction(v) for v in want[key])
    if "W" in want:
        out["W"] = [_text(rate * Fraction(v) for v in row) for row in want["W"]]
    if "checkpoints" in want:
        out["checkpoints"] = [dict(cp, w=_text(rate * Fraction(v) for v in cp["w"]))
                              for cp in want["checkpoints"]]
    return out


def _binary_rule_run(problem: JSONDict, want: JSONDict, rate: Fraction,
                     arithmetic: str) -> JSONDict:
    """The answers of the run with ``rate`` in ``arithmetic`` (exact or float64),
    from the problem's start (its checkpoints too)."""
    run = binary_run(problem, arithmetic=arithmetic, rate=rate)
    if arithmetic != "exact":
        run = run.as_fractions()
    answer = variant_answer(run, problem)
    out: JSONDict = {"mistakes": answer["mistakes"]}
    if "predictions" in answer:
        out["predictions"] = [int(p) for p in answer["predictions"]]
    else:
        out["w"] = _text(answer["w"])
    if "last_w" in want:
        out["last_w"] = _text(run.w)
    if "checkpoints" in want:
        out["checkpoints"] = []
        for cp in want["checkpoints"]:
            t = cp["after"]
            w = run.iterates[t - 1] if t else _start(problem, len(run.w), arithmetic)
            mistakes = sum(not c for c in run.correct[:t])
            out["checkpoints"].append({"after": t, "mistakes": mistakes, "w": _text(w)})
    return out


def _start(problem: JSONDict, width: int, arithmetic: str) -> list[Fraction]:
    """The weights before the first presentation, as ``arithmetic`` holds them."""
    start = start_weights(problem, width) or [Fraction(0)] * width
    return start if arithmetic == "exact" else [Fraction(float(v)) for v in start]


def _multiclass_rule_run(problem: JSONDict, rate: Fraction, arithmetic: str
                         ) -> JSONDict:
    """The argmax rule run in ``arithmetic`` (exact or float64) with ``rate``,
    from the problem's start: ``W``, mistakes and the predictions on the queries."""
    W, mistakes, argmax = multiclass_run(problem, arithmetic=arithmetic, rate=rate)
    queries = exact_rows({"X": problem["queries"], "intercept": problem["intercept"]})
    return {"mistakes": mistakes, "W": [_text(_exact(v) for v in row) for row in W],
            "predictions": [argmax(q) for q in queries]}


def _exact(v: Any) -> Fraction:
    return v if isinstance(v, Fraction) else Fraction(float(v))
