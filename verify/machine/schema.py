"""Reading a machine report before its re-check: structure, types, and the machine.

:func:`read_report` turns a :class:`~verify.machine.MachineReport` or its JSON into a
plain dict that :func:`verify.machine.recheck_report` can trust to be well formed:
every field known and of its type, every number finite, one entry per R-unit, and
the machine's parameters (format 2 names them all) equal to the machine it is
re-checked on. Anything else is a ``ValueError`` naming the field and the fix; what
the fields *claim* is judged by the re-check, not here.

Format 1 reports (before the parameters were named, and with search records in their
evidence) are still read: their end stops, increment and rule are compared, and the
search records are set aside (:data:`FORMAT_1_NOTES`), as format 2 keeps them out of
the report.

Examples
--------
>>> read_json_text('{"a": 1, "a": 2}')
Traceback (most recent call last):
...
ValueError: the JSON repeats the key 'a' in one object; a reader could take either value
>>> read_json_text('{"gamma_lower": NaN}')
Traceback (most recent call last):
...
ValueError: the JSON holds NaN: only finite numbers are allowed
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any
from pathlib import Path

from markone._internal.io import JSONRefused, read_strict_json
from markone._internal.typing import JSONDict
from markone.hardware.params import VARIATION_FIELDS
from markone.hardware.runits import r_unit_name
from verify._internal.budget import STOPPED_BY
from verify.machine.claims.registry import KINDS, MACHINE, R_UNIT, SLOTS, slots

__all__ = ["REPORT_FORMAT", "FORMATS", "read_report", "read_json_text", "load_report",
           "check_value", "format_number", "EVIDENCE_TYPES"]

#: The format :meth:`MachineReport.to_dict` writes.
REPORT_FORMAT = "markone.verify.machine/3"
#: Every format :func:`read_report` reads.
FORMATS = ("markone.verify.machine/1", "markone.verify.machine/2", REPORT_FORMAT)
#: Evidence of format 1 reports that format 2 keeps out of the report (search
#: records nothing can recompute); dropped on reading.
FORMAT_1_NOTES = ("gamma_upper", "ball_max_weight_steps", "ball_min_weight_steps",
                  "ball_refined", "ball_complete", "beam_furthest_steps", "beam_a_unit",
                  "beam_runs")
#: Most characters of an exact number written as a string.
MAX_DIGITS = 4000

_NUMBER = re.compile(r"-?[0-9]+(/[1-9][0-9]*)?")
_Check = Callable[[Any], bool]


def _int(v: Any) -> bool:
    return type(v) is int


def _float(v: Any) -> bool:
    return type(v) in (int, float) and math.isfinite(v)


def _number(v: Any) -> bool:
    """An exact number as the report writes it: ``"-3"`` or ``"7/2"``."""
    return isinstance(v, str) and len(v) <= MAX_DIGITS and _NUMBER.fullmatch(v) is not None


def _list(item: _Check) -> _Check:
    return lambda v: isinstance(v, list) and all(item(x) for x in v)


def _stops(v: Any) -> bool:
    return v is None or (isinstance(v, list) and len(v) == 2 and all(map(_number, v)))


def _limit(v: Any) -> bool:
    return v == "inf" or (_float(v) and v >= 0)


def _certificate(v: Any) -> bool:
    return isinstance(v, dict) and all(
        isinstance(k, str) and k.isdigit() and _number(c) for k, c in v.items())


_CONTINUATION = {"order": lambda v: isinstance(v, str), "order_indices": _list(_int),
                 "passes": _int, "reinforcements_after_prefix": _int,
                 "outcome": lambda v: v in ("converges", "never learns", "undecided"),
                 "cycle_start": _int, "period": _int}


def _continuations(v: Any) -> bool:
    return isinstance(v, list) and all(
        isinstance(c, dict) and set(c) <= set(_CONTINUATION)
        and {"order", "order_indices", "passes", "reinforcements_after_prefix",
             "outcome"} <= set(c) and all(_CONTINUATION[k](x) for k, x in c.items())
        for c in v)


#: The type of each evidence field of the claims re-checked from certificates
#: (learnable, the error-correction rule's end stops and convergence, timing); the
#: claims re-checked by recomputing them are compared with what was recomputed.
EVIDENCE_TYPES: dict[str, tuple[_Check, str]] = {
    "witness": (_list(_number), "a list of exact numbers such as \"3\" or \"-1/2\""),
    "certificate": (_certificate, "an object from figure indices to exact numbers"),
    "a_units": (_list(_int), "a list of integers"),
    "R_sq": (_int, "an integer"),
    "gamma_lower": (_float, "a finite number"),
    "margin_direction": (_list(_float), "a list of finite numbers"),
    "reinforcement_bound": (_int, "an integer"),
    "novikoff_norm_bound_steps": (_number, "an exact number"),
    "weight_range": (_stops, "null or two exact numbers"),
    "increment_steps": (_number, "an exact number"),
    "bound_used": (lambda v: isinstance(v, str), "a string"),
    "max_weight_steps": (_number, "an exact number"),
    "min_weight_steps": (_number, "an exact number"),
    "reachable_states": (_int, "an integer"),
    "invariant_states": (_list(_list(_int)), "a list of lists of integers"),
    "invariant_groups": (_list(_list(_int)), "a list of lists of integers"),
    "ball_directions": (_list(_list(_int)), "a list of lists of integers"),
    "stream": (_list(_int), "a list of figure indices"),
    "prefix": (_list(_int), "a list of figure indices"),
    "cycle": (_list(_int), "a list of figure indices"),
    "continuations": (_continuations, "a list of continuation records (order, "
                      "order_indices, passes, reinforcements_after_prefix, outcome, "
                      "cycle_start, period)"),
    "center_numerators": (_list(_int), "a list of integers"),
    "center_denominator": (_int, "an integer"),
    "min_decrease": (_number, "an exact number"),
    "exposure_s": (lambda v: v is None or (_float(v) and v > 0),
                   "null or a positive number"),
    "rise_limit_s": (_limit, "a number >= 0 or \"inf\""),
    "decay_limit_s": (_limit, "a number >= 0 or \"inf\""),
    "shortest_safe_exposure_s": (_limit, "a number >= 0 or \"inf\""),
    "before": (lambda v: v is None or _int(v), "null or a figure index"),
    "figure": (_int, "a figure index"),
    "a_units_changed": (_list(_int), "a list of A-unit indices"),
}


def check_value(value: Any, check: _Check, what: str, where: str) -> None:
    """Raise ValueError naming ``where`` unless ``check(value)``."""
    if not check(value):
        shown = repr(value)
        raise ValueError(f"malformed machine report: {where} must be {what}, got "
                         f"{shown[:80]}{'...' if len(shown) > 80 else ''}")


def read_json_text(text: str) -> Any:
    """JSON as a report must be written: no repeated key in an object (two readers
    could take different values) and no NaN or infinity."""
    try:
        return read_strict_json(text)
    except JSONRefused as exc:
        if exc.problem == "constant":
            raise ValueError(f"the JSON holds {exc.detail}: only finite numbers are "
                             "allowed") from None
        raise ValueError(f"the JSON repeats the key {exc.detail!r} in one object; a "
                         "reader could take either value") from None


def _is(kind: type) -> _Check:
    return lambda v: isinstance(v, kind)


def _verdict(v: Any) -> bool:
    return v is None or type(v) is bool


def load_report(path: Any) -> Any:
    """A saved report's JSON, read strictly (:func:`read_json_text`): ValueError
    naming the file when it cannot be read or parsed."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or exc   # not Python's "[Errno 2] ..."
        raise ValueError(f"cannot read the report {path}: {why}") from exc
    try:
        return read_json_text(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from exc
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from exc
    except RecursionError as exc:
        raise ValueError(f"{path} is nested too deeply to be a machine report") from exc


_TOP: dict[str, tuple[_Check, str]] = {
    "format": (lambda v: v in FORMATS, f"one of {FORMATS}"),
    "machine": (_is(dict), "an object of the machine's parameters"),
    "theta": (_int, "an integer"), "n_examples": (_int, "an integer"),
    "n_a_units": (_int, "an integer"),
    "weight_range": (lambda v: v is None or (isinstance(v, list) and len(v) == 2
                                             and all(map(_float, v))),
                     "null or two finite numbers"),
    "increment_steps": (_float, "a finite number"), "rule": (_is(str), "a string"),
    "data_sha256": (_is(str), "a string"), "patterns_sha256": (_is(str), "a string"),
    "learnable": (_verdict, "true, false or null"),
    "converges": (_verdict, "true, false or null"),
    "r_units": (_is(list), "a list of R-unit entries"),
    "time_s": (lambda v: _float(v) and v >= 0, "a finite number >= 0"),
    "stopped_by": (lambda v: v in STOPPED_BY, f"one of {STOPPED_BY}")}
_CLAIM: dict[str, tuple[_Check, str]] = {
    "holds": (_verdict, "true, false or null"), "method": (_is(str), "a string"),
    "message": (_is(str), "a string"), "evidence": (_is(dict), "an object")}
_ANY: tuple[_Check, str] = (lambda v: True, "")


def _fields(d: Mapping, spec: Mapping, where: str, optional: tuple = ()) -> None:
    unknown = sorted(set(d) - set(spec))
    if unknown:
        raise ValueError(f"malformed machine report: {where} has unknown field(s) "
                         f"{unknown}; the fields are {sorted(spec)}")
    missing = sorted(set(spec) - set(d) - set(optional))
    if missing:
        raise ValueError(f"malformed machine report: {where} lacks {missing}; write the "
                         "report with check_machine(...).to_dict() or `markone verify "
                         "machine ... --json`")
    for k, v in d.items():
        check_value(v, spec[k][0], spec[k][1], f"{where}.{k}")


def _claim(c: Any, where: str, slot: str | None = None) -> JSONDict:
    """A claim checked for its fields and, given its ``slot``, for the evidence
    fields its kind requires and allows (a method no kind of the slot has is left
    to the re-check, which refutes it)."""
    check_value(c, _is(dict), "an object (holds, method, message, evidence)", where)
    _fields(c, _CLAIM, where)
    kind = KINDS.get((slot, c["method"])) if slot is not None else None
    wrong = None if kind is None else kind.evidence_problem(c["holds"], c["evidence"])
    if wrong is not None:
        raise ValueError(f"malformed machine report: {where} {wrong}; write the report "
                         "with check_machine(...).to_dict() or `markone verify machine "
                         "... --json`")
    return c


def _machine_differences(params: JSONDict, machine: JSONDict) -> list[str]:
    """The parameters on which ``params`` (the report's) and ``machine`` differ."""
    def exact(v):   # True and 1 are equal in Python, not as parameters
        return json.dumps(v, sort_keys=True)

    # a report written before device variation existed is about a machine without it
    params = {**{k: 0.0 for k in VARIATION_FIELDS}, **params}
    names = sorted(set(params) | set(machine))
    return [k for k in names if k not in params or k not in machine
            or exact(params[k]) != exact(machine[k])]


def _same_machine(d: JSONDict, params: JSONDict) -> None:
    if "machine" in d:
        differ = _machine_differences(d["machine"], params)
        if differ:
            k = differ[0]
            raise ValueError(f"the report is about another machine: its {k} is "
                             f"{d['machine'].get(k, '<missing>')!r}, this machine's is "
                             f"{params.get(k, '<missing>')!r}"
                             + (f" (and {len(differ) - 1} more parameters differ: "
                                f"{', '.join(differ[1:])})" if len(differ) > 1 else "")
                             + "; re-check it on the machine it was made for")
        return
    # format 1: only these were written
    wr = params["weight_range"]
    for k, mine in (("weight_range", None if wr is None else list(wr)),
                    ("increment_steps", params["increment_steps"]),
                    ("rule", params["rule"]), ("n_a_units", params["n_a_units"])):
        if d[k] != mine:
            raise ValueError(f"the report is about another machine: its {k} is "
                             f"{d[k]!r}, this machine's is {mine!r}; re-check it on the "
                             "machine it was made for")


def read_report(report: Any, params: JSONDict) -> JSONDict:
    """The report as a checked plain dict (see the module doc).

    ``report`` is a MachineReport, its ``to_dict()`` or the JSON read from a file;
    ``params`` the machine's ``MarkIParams.to_dict()``. Format 1 evidence is read
    with its search records dropped.

    >>> from markone.hardware import MarkIParams
    >>> read_report({"format": REPORT_FORMAT, "verified": True},
    ...             MarkIParams().to_dict())   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: malformed machine report: the report has unknown field(s) ['verified']; ...
    """
    d = _as_json(report)
    if not isinstance(d, dict) or d.get("format") not in FORMATS:
        raise ValueError(f"not a machine report: its format must be {REPORT_FORMAT!r} "
                         f"(or an older one of {list(FORMATS[:-1])}); write one with "
                         "check_machine(...)"
                         ".to_dict() or `markone verify machine ... --json`")
    old = d["format"] == FORMATS[0]
    spec = {k: v for k, v in _TOP.items() if not (old and k == "machine")}
    machine_slots = [s for s in slots(MACHINE)
                     if SLOTS[s].since <= format_number(d["format"])]
    _fields(d, {**spec, **dict.fromkeys(machine_slots, _ANY)}, "the report",
            # stopped_by: reports written before it existed
            optional=("stopped_by", "patterns_sha256") if old else ("stopped_by",))
    out = dict(d, r_units=_r_units(d["r_units"], params["n_r_units"], old))
    for c in machine_slots:
        out[c] = _claim(d[c], c, None if old else c)
    _same_machine(d, params)
    return out


def format_number(name: str) -> int:
    """The version of a report format: 3 for ``"markone.verify.machine/3"``.

    >>> format_number(REPORT_FORMAT)
    3
    """
    return int(name.rsplit("/", 1)[1])


def _r_units(units: list, n_r_units: int, old: bool) -> list[JSONDict]:
    """The R-unit entries, one per R-unit of the machine, each with its claims."""
    if len(units) != n_r_units:
        raise ValueError(f"malformed machine report: 'r_units' must list the machine's "
                         f"{n_r_units} R-units, it lists {len(units)}")
    claims = slots(R_UNIT)
    out = []
    for k, r in enumerate(units):
        where = f"r_units[{k}] ({r_unit_name(k)})"
        if not isinstance(r, dict) or r.get("r_unit") != k or type(r["r_unit"]) is not int:
            raise ValueError(f"malformed machine report: {where} must be an object with "
                             f"r_unit {k}, and learnable, end_stops and converges claims "
                             "with holds, method and evidence")
        _fields(r, dict.fromkeys(("r_unit", *claims), _ANY), where)
        out.append({"r_unit": k, **{
            c: _drop_notes(_claim(r[c], f"{where}.{c}", None if old else c), old)
            for c in claims}})
    return out


def _as_json(report: Any) -> Any:
    """``report`` as a file would hold it: lists for tuples, JSON types only."""
    d = report.to_dict() if hasattr(report, "to_dict") else report
    try:
        return read_json_text(json.dumps(d, allow_nan=True))
    except TypeError as exc:
        raise ValueError(f"not a machine report: it holds a value JSON cannot "
                         f"write ({exc})") from exc
    except RecursionError as exc:
        raise ValueError("not a machine report: it is nested too deeply") from exc


def _drop_notes(claim: JSONDict, old: bool) -> JSONDict:
    if not old:
        return claim
    return dict(claim, evidence={k: v for k, v in claim["evidence"].items()
                                 if k not in FORMAT_1_NOTES})
