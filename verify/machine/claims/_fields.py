"""The evidence fields each kind of claim requires, and may carry besides.

A machine report's claim names its kind (slot and method) and its verdict; the
re-check reads or recomputes what its evidence states. A field the kind requires must
be there, even when the re-check could recompute it (``R_sq``, ``weight_range``,
``reachable_states``): the report states what the claim rests on, and a reader that
let it go would confirm a report that says less than its format promises. A field no
claim of the kind carries is refused too. :data:`EVIDENCE_FIELDS` holds the built-in
kinds' fields (``verify.machine.claims`` registers them with each kind);
``add_kind(..., evidence=..., optional=...)`` declares a new kind's.

>>> from verify.machine.claims.registry import kind_of
>>> kind = kind_of("learnable", "check_separable/perceptron")
>>> kind.evidence[True], kind.evidence_problem(True, ["witness"])
(('witness', 'a_units'), "lacks the evidence field 'a_units' that a learnable claim by 'check_separable/perceptron' with holds=True requires")
"""

from __future__ import annotations

from typing import Any

__all__ = ["EVIDENCE_FIELDS", "per_verdict", "problem"]


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


#: ``(slot, method) -> (verdict -> required fields, optional fields)`` of the
#: built-in kinds that declare their evidence (see :func:`_table`).
EVIDENCE_FIELDS: dict[tuple[str, str], tuple[dict, tuple]] = {}


def _table() -> dict[tuple[str, str], tuple[dict, tuple]]:
    """Every built-in kind: those whose re-check reads their evidence as a
    certificate, and (:func:`_derived_table`) those it derives again and compares in
    full."""
    separable = ("trivial", "perceptron", "lp", "z3", "cvc5", "lp+z3", "lp+cvc5",
                 "leastsq", "timeout", "budget")
    out: dict[tuple[str, str], tuple[dict, tuple]] = {}
    for name in separable:
        method = f"check_separable/{name}"
        out["learnable", method] = ({True: ("witness", "a_units"),
                                     False: ("certificate", "a_units"), None: ()}, ())
        out["converges", method] = ({False: (), None: ()}, ())
    # the end stops under the error-correction rule: the margin's numbers and the
    # stops always (the first prover states them), the rest where it certifies
    base = ("R_sq", "gamma_lower", "weight_range", "increment_steps")
    reach = ("invariant_states", "invariant_groups", "reachable_states")
    optional = ("margin_direction", "reinforcement_bound", "novikoff_norm_bound_steps",
                "bound_used", "max_weight_steps", "min_weight_steps", "ball_directions",
                *reach)
    for method in ("|w_j| <= reinforcements <= (R/gamma)^2", "||w|| <= R^2/gamma",
                   "one-signed columns", "Novikoff ball per weight",
                   "Novikoff ball per weight and at its pushes",
                   "z3 bounded model checking", "max_margin"):
        out["end_stops", method] = ({True: base, None: base}, optional)
    out["end_stops", "exact reachable states"] = ({True: base + reach, None: base},
                                                  optional)
    for method in ("exhaustive", "greedy", "beam", "random order", "z3"):
        out["end_stops", method] = ({False: (*base, "stream")}, optional)
    blocking = ("prefix", "cycle")
    out.update({
        ("converges", "equals the ideal perceptron"): ({True: ()}, ()),
        ("converges", "exhaustive (all streams)"): (
            {True: ("invariant_states", "invariant_groups"), False: blocking},
            ("continuations",)),
        ("converges", "clipped Novikoff ball"): (
            {True: ("a_units", "center_numerators", "center_denominator",
                    "min_decrease", "reinforcement_bound")}, ()),
        # the continuations that found the cycle: always there (a cycle alone
        # would prove the claim, but the report states the search that found it)
        ("converges", "continuation after the stop"): (
            {False: (*blocking, "continuations")}, ()),
        ("converges", "periodic order"): ({False: blocking}, ("continuations",)),
        ("converges", "continuations and periodic orders"): (
            {None: ("continuations",)}, ()),
        ("converges", "periodic orders"): ({None: ()}, ()),
    })
    limits = ("exposure_s", "rise_limit_s", "decay_limit_s", "shortest_safe_exposure_s")
    out["timing", "settling"] = ({True: limits, None: limits}, ())
    out["timing", "closed-form photocell response"] = (
        {True: limits, None: limits,
         False: (*limits, "before", "figure", "a_units_changed")}, ())
    out.update(_derived_table())
    return out


def _derived_table() -> dict[tuple[str, str], tuple[dict, tuple]]:
    """The kinds whose re-check derives the claim again (the forced and gamma rules,
    device variation, quantisation, faults, "not assessed"), with the fields their
    provers write: :mod:`verify.machine.claims._rules` (one evidence for both claims
    of an R-unit, so each carries the other's fields as optional), ``_variation``,
    ``_faults`` and ``_quantisation``."""
    # the forced rule: mu always; passes (learns) or stream (never learns); the
    # weight bound when every R-unit learns; the stream that hits a stop
    forced = ("passes", "stream", "max_weight", "hit_stream")
    # the gamma rule: the centred task's verdict, its certificate or Novikoff's
    # numbers; with whole steps the rounding branches and the exact chain
    novikoff = ("reinforcement_bound", "max_weight", "fits")
    centred = ("learnable", *novikoff)
    rounding = ("learnable", "stall", "hit", "alpha")
    gamma = ("certificate", *novikoff, "stall_log10", "chain")
    variation = ("variation",)
    plan = ("plan", "faults", "kinds", "unlearnable_r_units")
    steps = ("quantize", "increment_steps", "units_per_step")
    return {
        ("end_stops", "not assessed"): ({None: ()}, (*rounding, *gamma)),
        ("converges", "not assessed"): ({None: ()}, (*rounding, *gamma)),
        ("end_stops", "forced rule: weight bound"): ({True: ("mu",)}, forced),
        ("end_stops", "forced rule: exact fixed order"): (
            {False: ("mu", "hit_stream")}, forced),
        ("end_stops", "forced rule: not decided"): ({None: ("mu",)}, forced),
        ("converges", "start-of-pass bounds (forced rule)"): (
            {True: ("mu", "passes"), None: ("mu",)}, ("max_weight", "hit_stream")),
        ("converges", "exact fixed order (forced rule)"): (
            {False: ("mu", "stream")}, ("max_weight", "hit_stream")),
        ("end_stops", "centred perceptron (gamma rule)"): (
            {True: centred, None: centred}, ()),
        ("converges", "centred perceptron (gamma rule)"): (
            {True: centred, False: ("learnable",), None: ("learnable",)},
            ("certificate", *novikoff)),
        ("end_stops", "rounding branches (gamma rule, whole steps)"): (
            {True: rounding, False: (*rounding, "stall_log10")}, gamma),
        ("converges", "rounding branches (gamma rule, whole steps)"): (
            {None: rounding}, gamma),
        ("converges", "finite chain (gamma rule, whole steps)"): (
            {False: (*rounding, "chain")}, gamma),
        ("end_stops", "potentiometers never move"): ({True: variation}, ()),
        ("converges", "potentiometers never move"): ({False: (*variation, "stream")},
                                                     ()),
        ("end_stops", "device variation"): ({None: variation}, ()),
        ("converges", "device variation"): ({None: variation}, ()),
        ("quantisation", "device variation"): ({None: variation}, ()),
        ("faults", "no faults"): ({True: ()}, ()),
        ("faults", "separability of the damaged patterns"): ({True: plan}, ()),
        ("faults", "separability with and without each kind of fault"): (
            {False: (*plan, "culprits")}, ("minimal",)),
        ("quantisation", "rule"): (
            {True: steps, False: (*steps, "figure", "r_unit", "a_unit", "move_steps")},
            ()),
        ("quantisation", "float arithmetic"): ({True: steps, None: steps}, ()),
        ("quantisation", "whole increments"): ({True: steps}, ()),
    }


EVIDENCE_FIELDS.update(_table())
