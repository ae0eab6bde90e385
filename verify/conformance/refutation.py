"""Causes that another case rules out: a misreading named on a failed case is
dropped when a case the implementation *passed* would have failed under it.

A diagnosis names a misreading only when its run gives the implementation's
answer on the failed case, but one case cannot always tell two misreadings apart:
on inputs float32 cannot hold, a float32 implementation never updates, as the
strict rule never does from a zero start; a stream read in reverse may happen to
give what float64 rounding gives. "Reproduced" means more than one case: the
misreading alone, re-run on every case the implementation passed, must give the
answers it gave there (the answers the case expects). So the strict rule is ruled
out as soon as the implementation passes ``zero-score-orthonormal``, which the strict
rule fails, and a reversed stream by any passed case whose stream, reversed, gives
other weights. The argument needs only that the implementation answers the same
problem the same way each time, and that it does the same on every case of one task
and variant: were it the misreading, it would have failed the passed case. So only
a passed case of the failed case's task and variant rules a cause out (an
implementation may well have one loop for binary cases and another for its kernel).

Each cause's key (:func:`verify.conformance.judge.causes`) says which rule run to
make; a kind no rule run covers (``dimension:...``, ``constant``...) is never ruled
out, nor is a step that has no exact run on a passed case (an irrational norm).

>>> from verify import conformance as C
>>> cases = [C.Profile().judged_case(c) for c in C.build_cases()
...          if c["id"] in ("zero-score-orthonormal", "xor-cycle")]
>>> ruled_out("rule:strict", cases)
'zero-score-orthonormal'
>>> ruled_out("rule:within 1e-12 is a mistake", cases) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from markone._internal.typing import JSONDict
from verify.conformance.compare import close, reproduces
from verify.conformance.judge import (
    CaseResult,
    _parse_answer,
    constant_gives,
    early_stop,
    gives,
    misread_stream,
    rule_run,
)
from verify.conformance.misreadings import float_gives, labels01_answer, step_answer
from verify.conformance.rate import declared, reference_run
from verify.conformance.start import start_gives
from verify.conformance.rule_runs import (
    kernel_run,
    multiclass_run,
    one_vs_rest_run,
    variant_answer,
)

__all__ = ["ruled_out", "drop_ruled_out", "consistent"]


def _expected(case: JSONDict) -> dict[str, Any]:
    """The answers ``case`` expects, as parsed numbers."""
    want = case["expected"]
    out: dict[str, Any] = {"mistakes": want["mistakes"]}
    for key in ("predictions", "alpha"):
        if key in want:
            out[key] = list(want[key])
    if "W" in want:
        out["W"] = [[Fraction(v) for v in row] for row in want["W"]]
    elif "w" in want and "predictions" not in want:
        out["w"] = [Fraction(v) for v in want["w"]]
    return out


def _rule(name, case, want, tol):
    problem = case["problem"]
    if problem["task"] == "kernel":
        alpha, m = kernel_run(problem, rule=name)
        return alpha == want["alpha"] and m == want["mistakes"]
    if problem["task"] != "binary":
        return True
    answer = variant_answer(rule_run(problem, case, name), problem)
    return reproduces(answer, want, tol) is not None


def _stream(name, case, want, tol):
    problem = case["problem"]
    return gives(case, dict(problem, order=misread_stream(problem, name)), want, tol)


def _step(name, case, want, tol):
    problem = case["problem"]
    if problem["task"] != "binary":
        return True
    return reproduces(step_answer(case, name), want, tol) is not None


def _rate(name, case, want, tol):
    problem = case["problem"]
    if problem["task"] != "binary":
        return True
    settings = dict(case.get("declared") or {}, rate=name)
    run = reference_run(problem, dict(case, declared=settings))
    return reproduces(variant_answer(run, problem), want, tol, scale=False) is not None


def _multiclass(name, case, want, tol):
    problem = case["problem"]
    if problem["task"] != "multiclass":
        return True
    rate = declared(case)[1]
    if name == "one-vs-rest":
        W, m = one_vs_rest_run(problem)
        W = [[rate * v for v in row] for row in W]
    else:
        W, m, _ = multiclass_run(problem, ties=name, rate=rate)
    return m == want["mistakes"] and len(W) == len(want["W"]) and all(
        close(row, w_row, tol) for row, w_row in zip(want["W"], W))


def _kernel(name, case, want, tol):
    problem = case["problem"]
    if problem["task"] != "kernel":
        return True
    alpha, m = kernel_run(problem, slip=name)
    return alpha == want["alpha"] and want["mistakes"] in (m, sum(alpha))


def _variant(name, case, want, tol):
    if name != "last-iterate" or "last_w" not in case["expected"] or "w" not in want:
        return True
    return close(want["w"], [Fraction(v) for v in case["expected"]["last_w"]], tol)


def _labels(name, case, want, tol):
    if case["problem"]["task"] != "binary":
        return True
    return reproduces(labels01_answer(case), want, tol, scale=False) is not None


def _stop(name, case, want, tol):
    problem = case["problem"]
    if problem["task"] != "binary":
        return True
    order = early_stop(case, int(name))
    return order is None or gives(case, dict(problem, order=order), want, tol)


def _constant(name, case, want, tol):
    return constant_gives(case, Fraction(name), want, tol)


def _start(name, case, want, tol):
    if case["problem"]["task"] == "kernel":
        return True
    return start_gives(f"start:{name}", case, want, tol)


#: The run of each kind of key: would an implementation with that misreading
#: alone pass the case? (True when the case cannot tell.)
_RULE_RUNS: dict[str, Callable[[str, JSONDict, dict, float], bool]] = {
    "rule": _rule, "stream": _stream, "step": _step, "rate": _rate,
    "arithmetic": float_gives, "overflow": float_gives,
    "multiclass": _multiclass, "kernel": _kernel, "variant": _variant,
    "constant": _constant, "stop": _stop, "labels": _labels, "start": _start,
}


def consistent(key: str, case: JSONDict, want: JSONDict | None = None) -> bool:
    """Would an implementation with the misreading ``key`` alone (the settings the
    judged ``case`` declares otherwise) answer ``want`` (parsed numbers; the answers
    the case expects when None) on ``case``? True when no run can say."""
    kind, _, name = key.partition(":")
    rule_run = _RULE_RUNS.get(kind)
    if rule_run is None:
        return True
    return rule_run(name, case, _expected(case) if want is None else want,
                  case.get("tolerance", 0))


def ruled_out(key: str, evidence: Sequence[JSONDict | tuple[JSONDict, JSONDict]]
              ) -> str | None:
    """The id of the first judged case in ``evidence`` (shortest stream first) on
    which the misreading ``key`` does not give the implementation's answer, or None:
    a case it passed (the answer the case expects), or ``(case, parsed answer)``.
    """
    pairs = [e if isinstance(e, tuple) else (e, None) for e in evidence]
    for case, want in sorted(pairs, key=lambda e: len(e[0]["problem"]["order"])):
        if not consistent(key, case, want):
            return str(case["id"])
    return None


def _evidence(cases, results):
    """``{(task, variant): [(case, answer or None)]}``: every case answered, with the
    answer parsed (None for a passed case: its expected answers)."""
    out: dict[tuple[str, str], list] = {}
    for case, r in zip(cases, results):
        want = None
        if r.status == "fail":
            want, errors = _parse_answer(case["problem"], r.answer)
            if errors:
                continue
        elif not r.passed:
            continue
        out.setdefault((r.task, r.variant), []).append((case, want))
    return out


def _simplest(keep, keys):
    """``keep`` (indices into ``keys``) with only the simplest of the causes that
    explain the same answers: no tolerance on ties when a plain misread mistake test
    does (a tolerance differs from it only on scores no case answered showed), and
    only the first float arithmetic (float64, float32, then float32 storage)."""
    plain = any(keys[k].startswith("rule:") and not keys[k].startswith("rule:within")
                for k in keep)
    out, floats = [], False
    for k in keep:
        key = keys[k]
        if plain and key.startswith("rule:within"):
            continue
        if key.startswith(("arithmetic:", "arithmetic-sum:", "float64-part:")):
            if floats:
                continue
            floats = True
        out.append(k)
    return out


def drop_ruled_out(cases: Sequence[JSONDict], results: Sequence[CaseResult]
                   ) -> list[CaseResult]:
    """``results`` (one per judged case) with every cause removed from the diagnoses
    of the failed ones that the answers to the cases of the same task and variant
    rule out: those it passed, and those it failed (its answers there)."""
    evidence = _evidence(cases, results)
    verdicts: dict[tuple[str, str, str], str | None] = {}
    out = []
    for r in results:
        if not any(r.rules):
            out.append(r)
            continue
        for key in set(r.rules) - {""}:
            if (r.task, r.variant, key) not in verdicts:
                verdicts[r.task, r.variant, key] = ruled_out(
                    key, evidence.get((r.task, r.variant), []))
        keep = _simplest([k for k, key in enumerate(r.rules)
                          if not key or verdicts[r.task, r.variant, key] is None], r.rules)
        out.append(replace(r, diagnosis=tuple(r.diagnosis[k] for k in keep),
                           rules=tuple(r.rules[k] for k in keep)))
    return out
