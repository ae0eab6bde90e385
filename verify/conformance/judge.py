"""Judge an implementation's answers against a case, and diagnose what went wrong.

A case passes when every checked quantity matches: the number of mistakes, the
predictions and the dual counts exactly; weights within the case's relative
``tolerance`` (0 differences for exact implementations, rounding for float ones).
When something differs, :func:`diagnose` runs the case under the usual misreadings
of the rule (:mod:`verify.conformance.rule_runs`) and names those that reproduce the
answer: the strict rule ``< 0``, a zero score counted as correct, a learning rate
other than 1 (same decisions, weights scaled by a positive factor), an intercept of
the implementation's own added to an input that already carries the constant, the
intercept stored first, a wrong dimension, the last iterate returned instead of a
variant's vector, and (:mod:`verify.conformance.misreadings`) float64 or float32
rounding, float32's range, a step that depends on the example and slips in a kernel
perceptron's dual counts. A misread mistake test that a passed case rules out is
dropped by :func:`verify.conformance.run_suite`
(:mod:`verify.conformance.refutation`).

>>> case = {"id": "t", "property": "p", "task": "binary", "variant": "last",
...         "tolerance": 1e-9, "float64_can_pass": True,
...         "problem": {"task": "binary", "variant": "last", "intercept": False,
...                     "X": [[1, 0], [0, 1]], "y": [1, -1], "order": [0, 1]},
...         "expected": {"mistakes": 2, "w": ["1", "-1"]}}
>>> r = judge(case, {"w": [0.5, -0.5], "mistakes": 2})
>>> r.status, r.failed, r.diagnosis[0][:40]
('fail', ('w',), 'learning rate 1/2 instead of 1: the same')
"""

from __future__ import annotations

import builtins
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.typing import JSONDict
from verify.conformance.compare import close as _close
from verify.conformance.compare import is_one as _is_one
from verify.conformance.compare import reproduces as _reproduces
from verify.conformance.compare import scale_factor as _scale_factor
from verify.conformance.compare import simple_fraction
from verify.conformance.misreadings import (
    arithmetic_misreadings,
    kernel_slips,
    label_misreadings,
    multiclass_arithmetic,
    overflow_causes,
    step_misreadings,
)
from verify.conformance.profile import show_rate
from verify.conformance.protocol import answers_by_vote, parse_number, parse_vector
from verify.conformance.rate import declared, reference_run
from verify.conformance.start import start_misreadings
from verify.conformance.rule_runs import (
    FLOAT_MODES,
    TIE_TOLERANCES,
    BinaryRun,
    UPDATE_ALWAYS,
    kernel_run,
    multiclass_run,
    one_vs_rest_run,
    variant_answer,
)

__all__ = ["CaseResult", "judge", "show_vector", "answer_keys", "diagnose", "causes",
           "STREAMS", "misread_stream", "gives", "constant_gives", "rule_run",
           "early_stop"]

_RULE_WORDS = {
    "strict": "the strict rule (update only when y w.x < 0): a zero score counted as "
              "correct",
    "zero-positive": "a zero score counted as correct when the label is +1 (a zero "
                     "score predicts +1, and only a wrong prediction updates)",
    "zero-negative": "a zero score counted as correct when the label is -1 (a zero "
                     "score predicts -1, and only a wrong prediction updates)",
}
_RULE_WORDS["margin"] = (
    "a margin: an update whenever y w.x <= 1 (the hinge loss's rule, as SGD with "
    "loss='hinge' does; the perceptron updates only when y w.x <= 0)")
_RULE_WORDS["strict-margin"] = (
    "a strict margin: an update whenever y w.x < 1 (the hinge loss's test where a "
    "score of 1 has zero loss, as Vowpal Wabbit's --loss_function hinge applies it; "
    "the perceptron updates only when y w.x <= 0)")
_RULE_WORDS[UPDATE_ALWAYS] = (
    "an update on every presentation (w += y x whether or not y w.x <= 0; the rule "
    "updates on a mistake only)")
for _eps in TIE_TOLERANCES:
    _RULE_WORDS[f"within {_eps:g} is a mistake"] = (
        f"a tolerance on ties: a score up to {_eps:g} above zero counted as a mistake "
        "(the rule: only scores <= 0 are)")
    _RULE_WORDS[f"within {_eps:g} is correct"] = (
        f"a tolerance on ties: a score up to {_eps:g} below zero (0 included) counted "
        "as correct (the rule: a score <= 0 is a mistake)")


@dataclass(frozen=True)
class CaseResult:
    """The verdict on one case.

    ``status`` is ``"pass"``, ``"fail"``, ``"error"`` (the implementation raised or
    answered nonsense) or ``"n/a"`` (the adapter cannot express the case);
    ``failed`` names the quantities that differ, ``details`` says how, ``diagnosis``
    gives the causes (misreadings that reproduce the answer), ``divergence`` the first
    divergent step (:mod:`verify.conformance.divergence`), ``error`` the
    implementation's own message or traceback; ``rules`` has one entry per
    diagnosis: the key of the misreading it names (``"rule:strict"``,
    ``"stream:reverse"``, ``"arithmetic:float32"``...: :func:`causes`), or ``""``;
    ``presentations`` is the length of the case's stream.
    """

    id: str
    property: str
    task: str
    variant: str
    status: str
    failed: tuple = ()
    details: tuple = ()
    diagnosis: tuple = ()
    error: str = ""
    divergence: str = ""
    rules: tuple = ()
    float64_can_pass: bool = True
    presentations: int = 0
    answer: dict = field(default_factory=dict, repr=False)

    @builtins.property  # the field named ``property`` shadows the builtin for mypy
    def passed(self) -> bool:
        return self.status == "pass"


def answer_keys(problem: JSONDict) -> tuple[str, ...]:
    """The keys an answer to ``problem`` must have."""
    if problem["task"] == "kernel":
        return ("alpha", "mistakes")
    if problem["task"] == "multiclass":
        return ("W", "mistakes", "predictions")
    if answers_by_vote(problem):
        return ("predictions", "mistakes")
    return ("w", "mistakes")


def show_vector(values: Sequence[Any], limit: int = 8) -> str:
    """A vector for a report: in full up to ``limit`` entries, else the first and last
    few with an explicit ellipsis and the length.

    >>> show_vector([1, 2, 3])
    '[1, 2, 3]'
    >>> show_vector(range(20))
    '[0, 1, 2, 3, 4, 5, ..., 18, 19] (20 entries)'
    """
    vals = [_fmt(v) for v in values]
    if len(vals) <= limit:
        return "[" + ", ".join(vals) + "]"
    head, tail = vals[:limit - 2], vals[-2:]
    return "[" + ", ".join(head) + ", ..., " + ", ".join(tail) + f"] ({len(vals)} entries)"


def _fmt(v):
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return str(v.numerator) if abs(v.numerator) < 10**15 else _about(v)
        return _about(v) if v.denominator > 1000 else str(v)
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (list, tuple)):
        return show_vector(v)
    return str(v)


def _about(q):
    """Six significant digits of a Fraction of any size (beyond float64's range too).

    >>> _about(Fraction(10**400 + 1, 3)), _about(Fraction(1, 3))
    ('3.33333e+399', '0.333333')
    """
    f = float(q) if abs(q) < 10**300 else 0.0
    if f != 0 or q == 0:
        return f"{f:.6g}"
    e = math.floor(math.log10(abs(q.numerator)) - math.log10(q.denominator))
    mantissa = float(q / Fraction(10) ** e)
    return f"{mantissa:.6g}e{e:+d}"


def _parse_answer(problem, answer):
    """Check the answer's shape; return (parsed, problems) with readable problems."""
    if not isinstance(answer, dict):
        return None, [f"the answer must be a JSON object (dict) with keys "
                      f"{list(answer_keys(problem))}, got {type(answer).__name__}"]
    parsed, errors = {}, []
    for key in answer_keys(problem):
        if key not in answer:
            if key == "mistakes" or (key == "w" and "mistakes" in answer):
                continue        # a count alone, or weights alone, is checked alone
            errors.append(f"the answer has no {key!r} (keys: {sorted(answer)})")
            continue
        try:
            parsed[key] = _parse_value(key, answer[key])
        except (ValueError, TypeError) as exc:
            errors.append(str(exc))
    return parsed, errors


def _parse_value(key, value):
    """One entry of an answer as numbers: integers for ``mistakes``, ``alpha`` and
    ``predictions``, rows for ``W``, a vector for ``w``."""
    if key == "W":
        return [parse_vector(r, where=f"W[{k}]") for k, r in enumerate(value)]
    if key not in ("mistakes", "alpha", "predictions"):
        return parse_vector(value, where=key)
    nums = [parse_number(value, where=key)] if key == "mistakes" else \
        parse_vector(value, where=key)
    for v in nums:
        if Fraction(v).denominator != 1:
            raise ValueError(f"{key} must be integers, got {v}")
    return int(nums[0]) if key == "mistakes" else [int(v) for v in nums]


def judge(case: JSONDict, answer: JSONDict | None,
          checkpoint_answers: Mapping[int, JSONDict | None] | None = None
          ) -> CaseResult:
    """Compare an answer (and the answers at checkpoints) with a case's expectation.

    Parameters
    ----------
    case : dict
        A case document (judged under a profile:
        :meth:`verify.conformance.profile.Profile.judged_case`).
    answer : dict
        The implementation's answer to the whole stream.
    checkpoint_answers : dict, optional
        ``{t: answer}`` for the case's checkpoints (answers to the first ``t``
        presentations).

    Returns
    -------
    CaseResult
    """
    base = _base(case, answer)
    got, errors = _parse_answer(case["problem"], answer)
    if errors:
        return _unreadable(case, answer, errors, base)
    failed, details = _differences(case, got)
    checkpoint = _checkpoint_failure(case, checkpoint_answers or {})
    if checkpoint is not None:
        failed.append("checkpoints")
        details.append(checkpoint[0])
    if not failed:
        return CaseResult(status="pass", **base)
    found = causes(case, got) if set(failed) - {"checkpoints"} else []
    if not found and checkpoint is not None and checkpoint[1] is not None:
        cp_case, cp_got = checkpoint[1]
        found = [(f"at the state after {len(cp_case['problem']['order'])} "
                  f"presentations: {d}", key) for d, key in causes(cp_case, cp_got)]
    return CaseResult(status="fail", failed=tuple(failed), details=tuple(details),
                      diagnosis=tuple(d for d, _ in found),
                      rules=tuple(key for _, key in found), **base)


def _base(case, answer):
    """The fields every verdict on ``case`` shares."""
    return dict(id=case["id"], property=case["property"], task=case["task"],
                variant=case["variant"], float64_can_pass=case["float64_can_pass"],
                presentations=len(case["problem"]["order"]),
                answer=answer if isinstance(answer, dict) else {"raw": repr(answer)})


def _unreadable(case, answer, errors, base):
    """The verdict on an answer that is not numbers: a failure when float overflow
    reproduces its non-finite weights (inf, NaN, or the null JSON writes for them),
    else an error that names the problems (the implementation's own output is not
    among them: it wrote no traceback)."""
    found = overflow_causes(case, answer)
    if found:
        shown = show_vector(answer["w"]) if isinstance(answer["w"], list) else "?"
        return CaseResult(status="fail", failed=("w",), details=(
            f"w: expected {show_vector([Fraction(v) for v in case['expected']['w']])}, "
            f"got {shown}",), diagnosis=tuple(d for d, _ in found),
            rules=tuple(key for _, key in found), **base)
    return CaseResult(status="error", failed=("answer",), details=tuple(errors), **base)


def _differences(case, got):
    """The quantities of ``got`` that differ from the case's expectation, and how."""
    want, tol = case["expected"], case.get("tolerance", 0)
    failed, details = [], []
    if "mistakes" in got and got["mistakes"] != want["mistakes"]:
        failed.append("mistakes")
        details.append(f"mistakes: expected {want['mistakes']}, got {got['mistakes']}")
    if "w" in got:
        w_want = [Fraction(v) for v in want["w"]]
        if not _close(got["w"], w_want, tol):
            failed.append("w")
            details.append(f"w: expected {show_vector(w_want)}, got "
                           f"{show_vector(got['w'])}" + _dim_note(got["w"], w_want))
    if "W" in got:
        W_want = [[Fraction(v) for v in r] for r in want["W"]]
        if len(got["W"]) != len(W_want) or not all(
                _close(g, e, tol) for g, e in zip(got["W"], W_want)):
            failed.append("W")
            details.append(f"W: expected {show_vector(W_want)}, got "
                           f"{show_vector(got['W'])}")
    for key in ("alpha", "predictions"):
        if key in got and got[key] != want[key]:
            failed.append(key)
            details.append(f"{key}: expected {show_vector(want[key])}, got "
                           f"{show_vector(got[key])}")
    return failed, details


def _checkpoint_failure(case, answers):
    """The first checkpoint the answers miss: ``(detail, (case cut there, parsed
    answer) or None)``; None when every checkpoint answered agrees."""
    problem, tol = case["problem"], case.get("tolerance", 0)
    for cp in case["expected"].get("checkpoints", ()):
        a = answers.get(cp["after"])
        if a is None:
            continue
        cp_got, cp_err = _parse_answer(problem, a)
        w_cp = [Fraction(v) for v in cp["w"]]
        if cp_err or not _close(cp_got["w"], w_cp, tol) or (
                "mistakes" in cp_got and cp_got["mistakes"] != cp["mistakes"]):
            shown = "; ".join(cp_err) if cp_err else show_vector(cp_got["w"])
            detail = (f"state after {cp['after']} presentations: expected "
                      f"{show_vector(w_cp)}, got {shown}")
            return detail, None if cp_err else (_truncated_case(case, cp), cp_got)
    return None


def _truncated_case(case, cp):
    problem = dict(case["problem"], order=case["problem"]["order"][:cp["after"]])
    return dict(case, problem=problem,
                expected={"mistakes": cp["mistakes"], "w": cp["w"]})


def _dim_note(got, want):
    if len(got) == len(want):
        return ""
    return f" (length {len(got)} instead of {len(want)})"


# ---- diagnoses -----------------------------------------------------------------------

def diagnose(case: JSONDict, got: JSONDict) -> list[str]:
    """Likely causes of a failed case: the misreadings of the rule that reproduce the
    answer ``got`` (parsed numbers), most specific first. Empty when none does."""
    return [words for words, _ in causes(case, got)]


def causes(case: JSONDict, got: JSONDict) -> list[tuple[str, str]]:
    """:func:`diagnose`'s causes as ``(words, key)``: ``key`` names the misreading
    (:data:`verify.conformance.fixes.FIXES` says what to change for each kind; the
    kinds :mod:`verify.conformance.refutation` can run on another case are ruled
    out by the cases the implementation passed). The runs follow the arithmetic
    and rate the case was declared with
    (:func:`verify.conformance.rate.reference_run`)."""
    problem = case["problem"]
    if problem["task"] == "multiclass":
        return _diagnose_multiclass(case, got)
    if problem["task"] == "kernel":
        return _diagnose_kernel(got, problem)
    return _diagnose_binary(case, got)


def _step_words(k):
    return f", with a learning rate of {_factor(k)}" if not _is_one(k) else ""


def _rate_words(k, case):
    """A rate ``k`` times the declared one: what the weights say."""
    rate = declared(case)[1]
    if rate == 1:
        return (f"learning rate {_factor(k)} instead of 1: the same decisions, weights "
                f"scaled by {_factor(k)} (a different convention for the step size; "
                "with a zero start it changes no decision)")
    return (f"learning rate {_factor(k * rate)} instead of the declared "
            f"{show_rate(rate)}: the same decisions, weights scaled by {_factor(k)}")


def _rate_key(k, case):
    return f"rate:{k * declared(case)[1]}"


def _factor(k):
    """A scale factor as a report writes it: the simple fraction it is within a part
    in 10^9 (a float implementation's 1/2 is 0.5 up to rounding), else its digits.

    >>> _factor(Fraction(1, 2) * (1 + Fraction(1, 10**12))), _factor(Fraction(1, 3))
    ('1/2', '1/3')
    """
    return _fmt(simple_fraction(k))


def _diagnose_binary(case, got):
    problem, want, tol = case["problem"], case["expected"], case.get("tolerance", 0)
    if "w" in got and len(got["w"]) != len(want["w"]):
        return _diagnose_dimension(case, got, len(want["w"]), tol)
    # every misreading that reproduces the answer: when several do, the case cannot
    # tell them apart (a pocket that is the last iterate may come from a second pass)
    out = _variant_misreadings(case, got, tol) if "w" in got else []
    truth = variant_answer(reference_run(problem, case), problem)
    k = _reproduces(truth, got, tol)
    if k is not None and not _is_one(k):     # a rate; other causes may say it too
        out.append((_rate_words(k, case), _rate_key(k, case)))
    out += _rule_misreadings(case, got, tol)
    out += [(words + _step_words(k), key) for words, k, key in
            arithmetic_misreadings(case, got, tol) + step_misreadings(case, got, tol)
            + start_misreadings(case, got, tol)]
    out += _stream_misreadings(case, got, tol) + _early_stops(case, got, tol)
    out += label_misreadings(case, got, tol)
    if "w" in got:
        out += _diagnose_vector(case, got, truth, tol)
    return out


def early_stop(case: JSONDict, k: int) -> list[int] | None:
    """The stream a binary case presents when the run stops after ``k``
    presentations in a row without a mistake (the rule's decisions, the declared
    rate): a prefix of ``order``; None when the run never stops early so.

    >>> case = {"problem": {"intercept": False, "X": [[1], [2]], "y": [1, 1],
    ...                     "order": [0, 1, 0, 1]}}
    >>> early_stop(case, 2), early_stop(case, 3)
    ([0, 1, 0], None)
    """
    stops = _stop_points(reference_run(case["problem"], case).correct)
    t = next((t for t, kt in stops.items() if kt == k), None)
    return None if t is None else list(case["problem"]["order"][:t])


def _stop_points(correct):
    """``{t: k}``: the run stops after its ``t``-th presentation (before the end)
    when it stops after ``k`` clean presentations in a row (each ``k`` is first
    reached at one ``t``)."""
    stops: dict[int, int] = {}
    clean = best = 0
    for t, good in enumerate(correct[:-1], 1):
        clean = clean + 1 if good else 0
        if clean > best:
            best = stops[t] = clean
    return stops


def _early_stops(case, got, tol):
    """A run stopped after ``k`` clean presentations in a row (a convergence test
    one short, or a pass's worth too few) where its prefix gives the answer (key
    ``stop:K``)."""
    problem = case["problem"]
    if problem["task"] != "binary":
        return []
    T = len(problem["order"])
    return [(f"the run stopped early, after {k} presentations in a row without a "
             f"mistake ({t} of the stream's {T}; the rule presents the whole stream)",
             f"stop:{k}")
            for t, k in _stop_points(reference_run(problem, case).correct).items()
            if gives(case, dict(problem, order=problem["order"][:t]), got, tol)]


def _rule_misreadings(case, got, tol):
    """The misread mistake tests whose run gives the answer (with any rate), but
    not one that gives the rule's own answer on this case: it changes nothing here
    (y w.x < 1 on whole scores is y w.x <= 0), so it is not what differs."""
    problem, out = case["problem"], []
    same = variant_answer(rule_run(problem, case, "textbook"), problem)
    for rule, words in _RULE_WORDS.items():
        answer = variant_answer(rule_run(problem, case, rule), problem)
        k = None if answer == same else _reproduces(answer, got, tol)
        if k is not None:
            out.append((words + _step_words(k), f"rule:{rule}"))
    return out


def rule_run(problem: JSONDict, case: JSONDict, rule: str) -> BinaryRun:
    """The run of ``problem`` under the misread mistake test ``rule``, in the
    arithmetic ``case`` declares (a float64 implementation's misread test decides
    on float64 scores, which may differ from the exact ones where the rule's do
    not), at the declared rate."""
    arithmetic = declared(case)[0]
    if arithmetic in FLOAT_MODES:
        return reference_run(problem, case, rule=rule, arithmetic=arithmetic)
    return reference_run(problem, case, rule=rule)


#: Misreadings of the stream: how the presentations are read instead of ``order``
#: (key: ``stream:NAME``).
STREAMS = {
    "skip-last": ("the last presentation of the stream was skipped",
                  lambda order, n: order[:-1]),
    "skip-first": ("the first presentation of the stream was skipped",
                   lambda order, n: order[1:]),
    "twice": ("the stream was presented twice (one pass too many)",
              lambda order, n: order * 2),
    "index-order": ("the examples were presented once each in index order, not in the "
                    "given `order`", lambda order, n: list(range(n))),
    "sorted": ("the stream was sorted by example index (repeats kept), not taken in the "
               "given `order`", lambda order, n: sorted(order)),
    "reverse": ("the stream was presented in reverse", lambda order, n: order[::-1]),
    "wrap-around": ("the first presentation repeated at the end (a loop over "
                    "len(order) + 1 steps, order[t % len(order)])",
                    lambda order, n: order + order[:1]),
    "partial-pass": ("the last, partial pass was dropped (whole passes of len(X) "
                     "presentations only)", lambda order, n: order[:len(order) // n * n]),
    "pass-from-one": ("the first presentation of every pass was skipped (passes of "
                      "len(X) presentations, each from its second)",
                      lambda order, n: [i for t, i in enumerate(order) if t % n]),
}




def _shuffled(how, seed):
    """``order`` shuffled once, as ``how`` shuffles a list with ``seed``."""
    def shuffle(order, n):
        if how == "random":
            random.Random(seed).shuffle(order)
            return order
        rng = (np.random.default_rng(seed) if how == "default_rng"
               else np.random.RandomState(seed))
        return [int(i) for i in rng.permutation(order)]
    return shuffle


#: The shuffles a student or a library writes, with the seeds they choose.
SHUFFLES = {"random": "Python's random.Random({seed}).shuffle(order)",
            "default_rng": "numpy's np.random.default_rng({seed}).permutation(order)",
            "RandomState": "numpy's np.random.RandomState({seed}).permutation(order)"}
for _how, _call in SHUFFLES.items():
    for _seed in (0, 1, 42):
        STREAMS[f"shuffled {_how} {_seed}"] = (
            f"the stream was shuffled ({_call.format(seed=_seed)} gives these answers; "
            "the rule presents `order` as given)", _shuffled(_how, _seed))


def misread_stream(problem: JSONDict, name: str) -> list[int]:
    """The stream ``problem`` presents when its ``order`` is read as :data:`STREAMS`'
    ``name`` says.

    >>> misread_stream({"order": [2, 0, 1], "y": [1, 1, 1]}, "sorted")
    [0, 1, 2]
    """
    return STREAMS[name][1](list(problem["order"]), len(problem["y"]))


def _stream_misreadings(case, got, tol):
    """Does the rule, run on another reading of the stream, give the answer (any
    task: the final W or dual counts too)?"""
    problem, out = case["problem"], []
    for name, (words, _) in STREAMS.items():
        order = misread_stream(problem, name)
        if order != list(problem["order"]) and gives(case, dict(problem, order=order),
                                                     got, tol):
            out.append((words, f"stream:{name}"))
    return out


def gives(case: JSONDict, problem: JSONDict, got: JSONDict, tol: float) -> bool:
    """Does the rule (textbook, lowest-index ties; the rate ``case`` declares) on
    ``problem`` give ``got``?"""
    rate = declared(case)[1]
    if problem["task"] == "kernel":
        alpha, m = kernel_run(problem)
        return got["alpha"] == alpha and got.get("mistakes", m) == m
    if problem["task"] == "multiclass":
        W, m, _ = multiclass_run(problem, rate=rate)
        return got.get("mistakes", m) == m and len(got["W"]) == len(W) and all(
            _close(g, e, tol) for g, e in zip(got["W"], W))
    return _reproduces(variant_answer(reference_run(problem, case), problem), got, tol,
                       scale=False) is not None


def _diagnose_vector(case, got, truth, tol):
    problem, want = case["problem"], case["expected"]
    w, expect = got["w"], [Fraction(v) for v in truth["w"]]
    same_decisions = "mistakes" in got and got["mistakes"] == want["mistakes"]
    if not problem["intercept"] or _close(w, expect, tol):
        return []
    if same_decisions and _close(w[1:] + w[:1], expect, tol):
        return [("the intercept weight is stored first; the suite expects it last",
                 "intercept-first")]
    if expect[-1] != 0 and w[-1] != expect[-1]:
        return _constant_misreading(case, simple_fraction(w[-1] / expect[-1]), got, tol)
    return []


def _constant_misreading(case, c, got, tol):
    """The constant input ``c`` (the ratio of the intercept weights: a -1 flips its
    sign, a 2 doubles it) instead of 1, when its run gives ``got``."""
    if not constant_gives(case, c, got, tol):
        return []
    return [(f"the constant input is {_fmt(c)}, not 1 (the intercept takes a step of "
             "that size and sign)", f"constant:{c}")]


def constant_gives(case: JSONDict, c: Fraction, got: JSONDict, tol: float) -> bool:
    """Does the rule (the declared rate) with the constant input ``c`` instead of 1
    give ``got`` on a binary or multiclass case? True on a case with no intercept
    (the constant is never read)."""
    problem = case["problem"]
    if not problem["intercept"] or problem["task"] == "kernel":
        return True
    other = _with_constant(problem, c)
    if problem["task"] == "multiclass":
        W, m, _ = multiclass_run(other, rate=declared(case)[1])
        return _same_W(got, W, m, tol)
    return _reproduces(variant_answer(reference_run(other, case), problem), got, tol,
                       scale=False) is not None


def _with_constant(problem, c):
    """The problem without its intercept, a constant ``c`` appended to every input."""
    rows = problem.get("X_exact") or problem["X"]
    exact = [[str(Fraction(v)) for v in r] + [str(c)] for r in rows]
    return dict(problem, intercept=False, X=[[float(Fraction(v)) for v in r]
                                             for r in exact], X_exact=exact)


def _variant_misreadings(case, got, tol):
    """The last iterate instead of the variant's vector, or another averaging (each a
    misreading of the variant only: the rule's decisions, so its mistakes)."""
    problem, w = case["problem"], got["w"]
    if got.get("mistakes", case["expected"]["mistakes"]) != case["expected"]["mistakes"]:
        return []
    if problem["variant"] == "last":
        return _last_misreadings(case, w, tol)
    if _close(w, [Fraction(v) for v in case["expected"]["last_w"]], tol):
        return [(f"the last iterate was returned, not the {problem['variant']} vector "
                 "(see the case's rule for its definition)", "variant:last-iterate")]
    if problem["variant"] == "pocket":
        run = reference_run(problem, case)
        ties = variant_answer(run, dict(problem, variant="pocket-ties"))["w"]
        return [("the pocket replaced on a tie (a run as long as the best replaces it; "
                 "the rule keeps the first longest run)", "variant:pocket-ties")
                ] if _close(w, ties, tol) else []
    if problem["variant"] != "averaged":
        return []
    return _average_misreadings(case, w, tol)


def _average_misreadings(case, w, tol):
    """The averaged variant's vector averaged over other iterates, or summed."""
    problem = case["problem"]
    run = reference_run(problem, case)
    it = run.iterates
    zero = [Fraction(0)] * len(run.w)
    candidates = {
        "mistakes-only": ("the average of the iterates after mistakes only (the rule "
                          "averages the iterates after every presentation)",
                          [v for v, c in zip(it, run.correct) if not c]),
        "zero-start": ("the average including the zero start (T + 1 terms; the rule "
                       "averages the T iterates after the presentations)", [zero] + it),
        "updates": ("the average of the weights held before each update (divided by "
                    "the number of updates, as wink-perceptron averages; the rule "
                    "averages the iterates after every presentation)",
                    ([zero] + [v for v, c in zip(it, run.correct) if not c][:-1])
                    if not all(run.correct) else []),
    }
    out = [(words, f"variant:{key}") for key, (words, vs) in candidates.items()
           if vs and _close(w, _mean(vs), tol)]
    if _close(w, [sum(c) for c in zip(*it)], tol):
        out.append(("the sum of the iterates, not their average", "variant:sum"))
    return out


def _last_misreadings(case, w, tol):
    """The average of the iterates returned where the last iterate is asked for."""
    problem = case["problem"]
    run = reference_run(problem, case)
    if not run.iterates or not _close(w, _mean(run.iterates), tol):
        return []
    return [("the average of the iterates was returned, not the last (the variant "
             "asked for is the last iterate)", "variant:averaged-returned")]


def _diagnose_dimension(case, got, d, tol):
    """Causes of a w of the wrong length, each reproduced: an intercept of its own on
    top of the case's constant, one the case does not have, or none where it has one
    (with any zero-score convention, or float rounding); the length itself is in the
    details."""
    problem, out = case["problem"], []
    if problem["intercept"] and len(got["w"]) == d + 1 and problem["variant"] == "last":
        run = reference_run(problem, case, extra_constants=2)
        k = _reproduces({"w": run.w, "mistakes": run.mistakes}, got, tol)
        if k is not None:
            out.append(("an intercept of its own added to an input that already "
                        "carries the constant 1 (two constant columns)" + _step_words(k),
                        "dimension:two-constants"))
    if len(got["w"]) in (d - 1, d + 1) and (len(got["w"]) == d + 1) != problem["intercept"]:
        out += _flipped_intercept(case, got, d, tol)
    return out


#: The words of a w one longer or shorter than the case's, by its length's offset.
_FLIPPED = {1: ("wrong dimension: an intercept the case does not have (a constant 1 "
                "appended to every input)", "dimension:intercept-added"),
            -1: ("wrong dimension: no intercept weight (the rule run without the "
                 "constant 1; append it last and report its weight)",
                 "dimension:intercept-missing")}


def _flipped_intercept(case, got, d, tol):
    """The rule (or a misread mistake test, or float rounding) with the intercept
    the case does not say: is that the answer?"""
    problem = case["problem"]
    words, key = _FLIPPED[len(got["w"]) - d]
    other = dict(problem, intercept=not problem["intercept"])
    for rule in ("textbook", *_RULE_WORDS):
        k = _reproduces(variant_answer(reference_run(other, case, rule=rule), other),
                        got, tol)
        if k is not None:
            more = "" if rule == "textbook" else f", and {_RULE_WORDS[rule]}"
            return [(words + more + _step_words(k), key)]
    return [(f"{words}, and {more}{_step_words(k)}", key) for more, k, _ in
            arithmetic_misreadings(dict(case, problem=other), got, tol)]


def _mean(vectors):
    n = len(vectors)
    return [sum(c, Fraction(0)) / n for c in zip(*vectors)]


#: The argmax rule's tie misreadings (``multiclass_run``'s ``ties``), in words.
_TIES = {"highest": "argmax ties go to the highest class index (the rule: the lowest)",
         "true-class": "a tie that includes the true class is counted as correct (the "
                       "rule: the lowest index wins the tie)",
         "true-only": "only the true class's weights updated on a mistake (the rule "
                      "also subtracts x from the predicted class's)"}


def _same_W(got, W, m, tol):
    return (got.get("mistakes", m) == m and len(got["W"]) == len(W)
            and all(_close(g, e, tol) for g, e in zip(got["W"], W)))


def _diagnose_multiclass(case, got):
    problem, want, tol = case["problem"], case["expected"], case.get("tolerance", 0)
    flat_want = [Fraction(v) for r in want["W"] for v in r]
    flat_got = [v for r in got["W"] for v in r]
    k = _scale_factor(flat_got, flat_want, tol)
    if k is not None and not _is_one(k) and got.get("mistakes", want["mistakes"]) == \
            want["mistakes"]:
        return [(_rate_words(k, case), _rate_key(k, case))]
    rate = declared(case)[1]
    out = [(words, f"multiclass:{ties}") for ties, words in _TIES.items()
           if _same_W(got, *multiclass_run(problem, ties=ties, rate=rate)[:2], 0)]
    W, m = one_vs_rest_run(problem)
    if _same_W(got, [[rate * v for v in row] for row in W], m, tol):
        out.append(("one-vs-rest: one binary perceptron per class (that class against "
                    "the rest), each updated on every example, instead of the argmax "
                    "rule (a different multiclass reduction)", "multiclass:one-vs-rest"))
    out += multiclass_arithmetic(case, got, tol) + _multiclass_constant(case, got, tol)
    out += [(words, key) for words, _, key in start_misreadings(case, got, tol)]
    return out + _stream_misreadings(case, got, tol)


def _multiclass_constant(case, got, tol):
    """The constant input read off the first nonzero intercept weight of ``W``."""
    pairs = [(g[-1], Fraction(e[-1])) for g, e in zip(got["W"], case["expected"]["W"])
             if g and Fraction(e[-1]) != 0]
    if not case["problem"]["intercept"] or not pairs or pairs[0][0] == pairs[0][1]:
        return []
    return _constant_misreading(case, simple_fraction(pairs[0][0] / pairs[0][1]), got,
                                tol)


def _diagnose_kernel(got, problem):
    out = []
    for rule, words in _RULE_WORDS.items():
        alpha, m = kernel_run(problem, rule=rule)
        if got["alpha"] == alpha:
            out.append((words, f"rule:{rule}"))
    return out + kernel_slips(problem, got) + _stream_misreadings(
        {"problem": problem}, got, 0)
