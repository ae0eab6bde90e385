"""The first divergent step: where an implementation's state first leaves the rule's.

For any black box, :func:`first_divergence` runs the implementation on prefixes of a
binary case's stream and bisects: it finds a presentation ``t`` such that on the first
``t - 1`` presentations the implementation's answer equals the reference's and on the
first ``t`` it does not (about log2 of the stream's length runs). Since both started
the step from the same weights, the step's example, the score the rule computes on it
and the weights both hold after it say what the implementation did differently.

>>> case = {"tolerance": 0, "problem": {"task": "binary", "variant": "last",
...         "intercept": False, "X": [[1, 0], [0, 1], [1, 1]], "y": [1, -1, 1],
...         "order": [0, 1, 2]}}
>>> def skips_last(p):        # a bug: ignores the last presentation of the stream
...     from verify.conformance.rule_runs import binary_run
...     run = binary_run(dict(p, order=p["order"][:-1]))
...     return {"w": [str(v) for v in run.w], "mistakes": run.mistakes}
>>> from verify.conformance import adapter_for
>>> print(first_divergence(case, adapter_for(skips_last)).describe())
first divergent step: presentation 1 of 3 (example 1, X[0], label +1): the rule's score y w.x = 0 (a mistake); after it the rule has w = [1, 0] (1 mistake), the implementation w = [0, 0] (0 mistakes)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from markone._internal.typing import JSONDict
from verify.conformance.adapters import Adapter
from verify.errors import ImplementationError, NotApplicable
from verify.conformance.compare import close
from verify.conformance.judge import _parse_answer, show_vector
from verify.conformance.rate import reference_run
from verify.conformance.rule_runs import exact_rows, variant_answer

__all__ = ["Divergence", "first_divergence"]


@dataclass(frozen=True)
class Divergence:
    """The step ``step`` (1-based) of a stream of ``length`` presentations where the
    implementation first differs; ``index``/``label`` the example presented, ``score``
    the rule's ``y w.x`` on it (from the weights both held), and both answers after
    the step (``reference``, ``implementation``: parsed, with ``"mistakes"``)."""

    step: int
    length: int
    index: int
    label: int
    score: Fraction
    reference: dict
    implementation: dict

    def describe(self) -> str:
        """One line for a report."""
        verdict = "a mistake" if self.score <= 0 else "correct"
        return (f"first divergent step: presentation {self.step} of {self.length} "
                f"(example {self.index + 1}, X[{self.index}], label {self.label:+d}): the "
                f"rule's score "
                f"y w.x = {_number(self.score)} ({verdict}); after it the rule has "
                f"{_state(self.reference)}, the implementation {_state(self.implementation)}")


def _number(q):
    return show_vector([q])[1:-1]


def _state(answer):
    parts = []
    for key in ("w", "predictions"):
        if key in answer:
            parts.append(f"{key} = {show_vector(answer[key])}")
    if "mistakes" in answer:
        m = answer["mistakes"]
        parts.append(f"({m} mistake{'s' * (m != 1)})")
    return " ".join(parts) or "no weights"


def _prefix(problem, t):
    return dict(problem, order=list(problem["order"][:t]))


def _agrees(case, prefix, answer):
    """(agrees?, parsed answer, parsed reference) for the implementation's answer on
    a prefix of the stream."""
    reference = variant_answer(reference_run(prefix, case), prefix)
    got, errors = _parse_answer(prefix, answer)
    if errors:
        return False, None, reference
    tol = case.get("tolerance", 0)
    same = ("mistakes" not in got or got["mistakes"] == reference["mistakes"]) and (
        "w" not in got or close(got["w"], [Fraction(v) for v in reference["w"]], tol)
    ) and ("predictions" not in got or got["predictions"] == reference["predictions"])
    return same, got, reference


def first_divergence(case: JSONDict, adapter: Adapter) -> Divergence | None:
    """Bisect the prefixes of a binary case's stream for the first step at which
    ``adapter``'s answer leaves the rule's; None when it cannot be found (not a binary
    case, the whole stream agrees, or the implementation fails on a prefix)."""
    problem = case["problem"]
    if problem["task"] != "binary":
        return None
    order = problem["order"]
    answers: dict[int, Any] = {}

    def agrees(t):
        prefix = _prefix(problem, t)
        answers[t] = _agrees(case, prefix, adapter.answer(prefix))
        return answers[t][0]

    lo, hi = 0, len(order)         # the empty stream agrees (zero start) ...
    try:
        if agrees(hi):             # ... the whole stream must not
            return None
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if agrees(mid) else (lo, mid)
    except (ImplementationError, NotApplicable):
        return None
    _, got, reference = answers[hi]
    if got is None:
        return None
    i = order[hi - 1]
    x = exact_rows(problem)[i]
    before = reference_run(_prefix(problem, hi - 1), case).w
    y = int(problem["y"][i])
    score = y * sum((a * b for a, b in zip(before, x)), Fraction(0))
    return Divergence(step=hi, length=len(order), index=i, label=y, score=score,
                      reference=reference, implementation=got)
