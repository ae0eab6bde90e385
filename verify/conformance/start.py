"""Starting weights: what a profile declares, the vector each case starts from, and
the misreading of a start other than the declared one.

The rule starts at w = 0. Textbooks also start at all ones, at a small constant
(``w = np.full(d, 0.01)``), or at drawn values; an implementation declares its
start in its profile (``--profile start=0.01``), as it declares its learning rate:

* ``start=zero`` (the default) or ``start=ones``, or one number for every weight
  (``start=0.5``, ``start=-1/4``), the intercept's included;
* ``intercept_start=B``: the intercept's weight starts at ``B`` instead (``start=1,
  intercept_start=0`` is ``w = np.ones(d); b = 0``);
* one number per weight joined by ``+`` (``start=0.5+-1+0``, the intercept's last):
  a drawn start, written out; it applies to the cases with that many weights, and
  the others are not applicable.

Each case's problem then carries its start as ``"start"`` (exact strings, the
intercept's weight last; for the multiclass task, the row every class starts
from), so a program may read it instead of hard-coding it; the kernel task has no
weights and keeps alpha = 0. The reference runs the rule from that start
(:mod:`verify.conformance.rule_runs`), exactly or in IEEE float64 with the start
rounded once to doubles. A case whose claim needs the zero start
(:data:`ZERO_START_CLAIMS`: every score of the orthonormal stream is 0, a stream
is the worst one) is not applicable under another.

>>> parse_start("ones"), parse_start("1/4+-2")
(Fraction(1, 1), (Fraction(1, 4), Fraction(-2, 1)))
>>> start_vector(Fraction(1, 2), Fraction(0), 3, True)
[Fraction(1, 2), Fraction(1, 2), Fraction(0, 1)]
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Union

from markone._internal.typing import JSONDict
from verify.conformance.compare import close, reproduces
from verify.conformance.protocol import LimitExceeded, parse_number
from verify.conformance.rate import _multiclass_rule_run, declared, reference_run
from verify.conformance.rule_runs import variant_answer

__all__ = ["Start", "parse_start", "parse_start_number", "start_vector",
           "start_misfit", "ZERO_START_CLAIMS", "START_HELP", "START_FIX",
           "start_misreadings", "start_gives", "with_start", "COMMON_STARTS"]

#: A declared start: one number for every weight, or one per weight.
Start = Union[Fraction, tuple[Fraction, ...]]

START_HELP = ("the starting weights are zero (the default), ones, one number for "
              "every weight (start=0.01) or one number per weight joined by + "
              "(start=0.5+-1+0, the intercept's last)")

#: What to change when the start is the cause (for the report's summary).
START_FIX = ("start from the weights the profile declares, or declare the ones the "
             "code starts from (--profile start=...; intercept_start=... for the "
             "intercept's)")

#: The properties whose claim holds from the zero start only, and why.
ZERO_START_CLAIMS = {
    "zero-score-is-a-mistake": "every score of its stream is 0 from the zero start "
                               "only",
    "adversarial-worst-order": "its stream is the worst one from the zero start",
    "mistake-driven-updates": "its adversarial stream was found from the zero start",
}

_NAMED = {"zero": Fraction(0), "ones": Fraction(1)}

#: The constant starts textbooks and libraries use, tried when a declared start does
#: not give an implementation's answers (0 is tried first, apart).
COMMON_STARTS = (Fraction(1), Fraction(1, 2), Fraction(1, 10), Fraction(1, 100),
                 Fraction(1, 1000), Fraction(-1))


def parse_start_number(value: Any, key: str = "start") -> Fraction:
    """One starting weight, exactly as written (``"0.1"`` is 1/10; ``"zero"``,
    ``"ones"``); ValueError naming ``key`` unless it is a finite number within
    float64's range.

    >>> parse_start_number("-0.25"), parse_start_number(2)
    (Fraction(-1, 4), Fraction(2, 1))
    """
    text = str(value).strip()
    if isinstance(value, str) and text.lower() in _NAMED:
        return _NAMED[text.lower()]
    try:
        number = parse_number(value, where=f"profile {key}")
        finite = math.isfinite(float(number))
    except (ValueError, OverflowError, ZeroDivisionError, LimitExceeded):
        number, finite = None, False
    if number is None or not finite:
        raise ValueError(f"profile {key}: {text!r} is not a finite number (within "
                         f"float64's range); {START_HELP}.")
    return number


def parse_start(value: Any) -> Start:
    """A declared start: ``zero``, ``ones``, a number, numbers joined by ``+`` (or a
    list of numbers, in JSON); ValueError naming what is wrong.

    >>> parse_start("0.01"), parse_start(["1", 0])
    (Fraction(1, 100), (Fraction(1, 1), Fraction(0, 1)))
    >>> parse_start("1e+3")      # an exponent's + is the number's
    Fraction(1000, 1)
    """
    if isinstance(value, (list, tuple)):
        parts: list[Any] = list(value)
    elif isinstance(value, str):
        parts = [p.strip() for p in re.split(r"(?<![eE])\+", value)]
        parts = parts if len(parts) > 1 else [value]
    else:
        parts = [value]
    if not parts or (len(parts) > 1 and any(p == "" for p in parts)):
        raise ValueError(f"profile start: {value!r} names no number; {START_HELP}.")
    numbers = tuple(parse_start_number(p) for p in parts)
    return numbers if isinstance(value, (list, tuple)) or len(numbers) > 1 else numbers[0]


def start_vector(start: Start, intercept_start: Fraction | None, width: int,
                 intercept: bool) -> list[Fraction] | None:
    """The weights a case of ``width`` weights (the intercept's last, when
    ``intercept``) starts from, or None for the zero start (and for a per-weight
    start of another width: :func:`start_misfit` says why)."""
    if isinstance(start, tuple):
        vector = list(start) if len(start) == width else []
    else:
        vector = [start] * width
        if intercept and intercept_start is not None:
            vector[-1] = intercept_start
    return vector if any(vector) else None


def start_misfit(start: Start, width: int) -> str | None:
    """Why a per-weight start does not fit a case of ``width`` weights, or None."""
    if isinstance(start, tuple) and len(start) != width:
        return (f"the declared start has {len(start)} weights; this case's w has "
                f"{width}")
    return None


def with_start(problem: JSONDict, vector: Sequence[Fraction] | None) -> JSONDict:
    """``problem`` starting from ``vector`` (exact strings), or from zero (None)."""
    out = {k: v for k, v in problem.items() if k != "start"}
    if vector is not None and any(vector):
        out["start"] = [str(Fraction(v)) for v in vector]
    return out


def _shown(vector: Sequence[Any]) -> str:
    return "(" + ", ".join(str(Fraction(v)) for v in vector) + ")"


def _other_starts(problem: JSONDict) -> dict[str, tuple[str, list[Fraction] | None]]:
    """The starts an implementation may use instead of the declared one: key ->
    (words, vector or None for zero)."""
    width = len(problem["X"][0]) + int(bool(problem["intercept"]))
    start = [Fraction(v) for v in problem.get("start") or ()]
    if not start:
        return {("start:ones" if c == 1 else f"start:{c}"): (
            f"starting weights w = {c} (every weight), not the rule's w = 0", [c] * width)
            for c in COMMON_STARTS}
    declared = f"the declared start {_shown(start)}"
    out: dict[str, tuple[str, list[Fraction] | None]] = {
        "start:zero": (f"starting weights w = 0, not {declared}", None)}
    for c in COMMON_STARTS:
        if [c] * width != start:
            out[f"start:{c}"] = (f"starting weights w = {c} (every weight), not "
                                 f"{declared}", [c] * width)
    if problem["intercept"] and start[-1] != 0 and any(start[:-1]):
        out["start:intercept-zero"] = (
            f"the intercept's weight starting at 0, not at {start[-1]} ({declared})",
            start[:-1] + [Fraction(0)])
    if problem["intercept"] and len(set(start[:-1])) == 1 and start[-1] != start[0]:
        out["start:intercept-as-weights"] = (
            f"the intercept's weight starting at {start[0]} as the others do, not at "
            f"{start[-1]} ({declared})", [start[0]] * width)
    return out


def _rule_run(case: JSONDict, problem: JSONDict) -> JSONDict:
    """The rule's answer to ``problem`` (``case``'s, from another start) under the
    rate and arithmetic ``case`` declares: a binary variant's, or the argmax rule's
    (run in float64 when float64 is declared with a rate or a start, as
    :func:`verify.conformance.rate.reference_run` does)."""
    if problem["task"] != "multiclass":
        return variant_answer(reference_run(problem, case), problem)
    arithmetic, rate = declared(case)
    convention = rate != 1 or "start" in case["problem"]
    answer = _multiclass_rule_run(problem, rate, "float64" if arithmetic == "float64"
                                  and convention else "exact")
    return dict(answer, scale=False) if "start" in problem else answer


def start_misreadings(case: JSONDict, got: JSONDict, tol: float
                      ) -> list[tuple[str, Fraction, str]]:
    """The starts other than the declared one (zero and :data:`COMMON_STARTS`, when
    one is declared; ones, when none is) whose run (the declared rate and arithmetic,
    every other convention the rule's) gives the answer ``got`` of a binary or
    multiclass case (every class's row starts from it): ``(words, k,
    key)`` as :mod:`verify.conformance.misreadings` gives them (``k`` a learning
    rate that scales the weights, from a zero start only; ``key`` ``start:NAME``).

    >>> case = {"problem": {"task": "binary", "variant": "last", "intercept": False,
    ...         "X": [[1, 0], [0, 1]], "y": [1, -1], "order": [0, 1],
    ...         "start": ["1/2", "1/2"]}}
    >>> [(w[:26], k, key) for w, k, key in start_misreadings(
    ...     case, {"w": [1, -1], "mistakes": 2}, 0)]
    [('starting weights w = 0, no', Fraction(1, 1), 'start:zero')]
    """
    problem, out = case["problem"], []
    for key, (words, vector) in _other_starts(problem).items():
        other = with_start(problem, vector)
        k = _gives(_rule_run(case, other), got, tol)
        if k is not None:
            out.append((words, k, key))
    return out


def _gives(candidate: JSONDict, got: JSONDict, tol: float) -> Fraction | None:
    """:func:`verify.conformance.compare.reproduces`, and for a multiclass answer
    (``W``): 1 when its mistakes, predictions and every row of ``W`` (within ``tol``)
    are ``got``'s, else None."""
    if "W" not in candidate:
        return reproduces(candidate, got, tol)
    same = (got.get("mistakes") == candidate["mistakes"]
            and got.get("predictions", candidate["predictions"]) == candidate["predictions"]
            and len(got.get("W", ())) == len(candidate["W"])
            and all(close(g, [Fraction(v) for v in e], tol)
                    for g, e in zip(got["W"], candidate["W"])))
    return Fraction(1) if same else None


def start_gives(key: str, case: JSONDict, want: JSONDict, tol: float) -> bool:
    """Does the start misreading ``key`` (``start:NAME``) give ``want`` on the binary
    or multiclass ``case``? (For :mod:`verify.conformance.refutation`: a passed case whose answer
    another start would change rules that start out.) A start the case does not
    suggest gives it (it is not ruled out by this case)."""
    starts = _other_starts(case["problem"])
    if key not in starts:
        return True
    other = with_start(case["problem"], starts[key][1])
    return _gives(_rule_run(case, other), want, tol) is not None
