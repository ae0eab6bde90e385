"""The evidence fields each kind of claim requires, and may carry besides.

A machine report's claim names its kind (slot and method) and its verdict; the
re-check reads or recomputes what its evidence states. A field the kind requires must
be there, even when the re-check could recompute it (``R_sq``, ``weight_range``,
``reachable_states``): the report states what the claim rests on, and a reader that
let it go would confirm a report that says less than its format promises. A field no
claim of the kind carries is refused too. Each claim module declares its kinds' fields
beside their provers: ``add_kind(..., evidence=..., optional=...)``.

>>> from verify.machine.claims.registry import kind_of
>>> kind = kind_of("learnable", "check_separable/perceptron")
>>> kind.evidence[True], kind.evidence_problem(True, ["witness"])
(('witness', 'a_units'), "lacks the evidence field 'a_units' that a learnable claim by 'check_separable/perceptron' with holds=True requires")
"""

from __future__ import annotations

from typing import Any

__all__ = ["per_verdict", "problem"]


def per_verdict(evidence: Any, verdicts: tuple) -> dict | None:
    """``evidence`` as verdict -> required fields, for the kind's ``verdicts``: one
    sequence for every verdict, or a mapping (None: not declared).

    >>> per_verdict(["w"], (True, None)), per_verdict({True: ["w"], False: []}, (True,))
    ({True: ('w',), None: ('w',)}, {True: ('w',)})
    """
    if evidence is None:
        return None
    if isinstance(evidence, dict):
        return {v: tuple(f) for v, f in evidence.items() if v in verdicts}
    return dict.fromkeys(verdicts, tuple(evidence))


def problem(kind: Any, holds: bool | None, fields: Any) -> str | None:
    """What is wrong with the evidence ``fields`` of a claim of ``kind`` (a
    :class:`~verify.machine.claims.ClaimKind`) with verdict ``holds``: a required
    field missing, or a field the kind does not have (None: nothing, or the kind
    declares no fields for that verdict)."""
    if kind.evidence is None or holds not in kind.evidence:
        return None
    need = kind.evidence[holds]
    missing = [f for f in need if f not in fields]
    if missing:
        return (f"lacks the evidence field {missing[0]!r} that a {kind.slot} claim by "
                f"{str(kind.method)!r} with holds={holds} requires")
    unknown = sorted(set(fields) - set(need) - set(kind.optional))
    if unknown:
        return (f"has the unknown evidence field {unknown[0]!r}: a {kind.slot} claim by "
                f"{str(kind.method)!r} has only {sorted({*need, *kind.optional})}")
    return None
