"""Causes that another case rules out: a misread mistake test named on a failed case
is dropped when a case the implementation *passed* would have failed under it.

A diagnosis names a misreading only when its replay gives the implementation's
answer on the failed case, but one case cannot always tell two misreadings apart:
on inputs float32 cannot hold, a float32 implementation never updates, as the
strict rule never does from a zero start. The strict rule is ruled out as soon as
the implementation passes ``zero-score-orthonormal``, which the strict rule fails.
The argument needs only that the implementation answers the same problem the same
way each time, and that it decides a mistake the same way on every case of one task
and variant: were it the misreading, it would have failed the passed case. So only
a passed case of the failed case's task and variant rules a cause out (an
implementation may well have one loop for binary cases and another for its kernel).

>>> from verify import conformance as C
>>> cases = [c for c in C.build_cases() if c["id"] in ("zero-score-orthonormal",
...                                                     "xor-cycle")]
>>> ruled_out("strict", cases)
'zero-score-orthonormal'
>>> ruled_out("within 1e-12 is a mistake", cases) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from markone._internal.typing import JSONDict
from verify.conformance.compare import reproduces
from verify.conformance.judge import CaseResult
from verify.conformance.replay import binary_run, kernel_run, variant_answer

__all__ = ["ruled_out", "drop_ruled_out"]


def _gives_expected(rule: str, case: JSONDict) -> bool:
    """Would an implementation of the misread ``rule`` (with any learning rate) pass
    ``case``? True when the case cannot say (a multiclass case)."""
    problem, want = case["problem"], case["expected"]
    if problem["task"] == "kernel":
        alpha, m = kernel_run(problem, rule=rule)
        return alpha == want["alpha"] and m == want["mistakes"]
    if problem["task"] != "binary":
        return True
    expected = {"mistakes": want["mistakes"]}
    if "predictions" in want:
        expected["predictions"] = want["predictions"]
    else:
        expected["w"] = [Fraction(v) for v in want["w"]]
    answer = variant_answer(binary_run(problem, rule=rule), problem)
    return reproduces(answer, expected, case.get("tolerance", 0)) is not None


def ruled_out(rule: str, passed: Sequence[JSONDict]) -> str | None:
    """The id of the first case in ``passed`` (shortest stream first) that the
    misread ``rule`` fails, or None."""
    for case in sorted(passed, key=lambda c: len(c["problem"]["order"])):
        if not _gives_expected(rule, case):
            return str(case["id"])
    return None


def drop_ruled_out(cases: Sequence[JSONDict], results: Sequence[CaseResult]
                   ) -> list[CaseResult]:
    """``results`` (one per case) with every cause that a passed case of the same
    task and variant rules out removed from the diagnoses of the failed ones."""
    passed = [c for c, r in zip(cases, results) if r.passed]
    verdicts: dict[tuple[str, str, str], str | None] = {}
    out = []
    for r in results:
        if not any(r.rules):
            out.append(r)
            continue
        alike = [c for c in passed if (c["task"], c["variant"]) == (r.task, r.variant)]
        for rule in set(r.rules) - {""}:
            if (r.task, r.variant, rule) not in verdicts:
                verdicts[r.task, r.variant, rule] = ruled_out(rule, alike)
        keep = [k for k, rule in enumerate(r.rules)
                if not rule or verdicts[r.task, r.variant, rule] is None]
        out.append(replace(r, diagnosis=tuple(r.diagnosis[k] for k in keep),
                           rules=tuple(r.rules[k] for k in keep)))
    return out
