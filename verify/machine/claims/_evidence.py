"""What every re-check of a report's claim uses: the context it is given, reading
evidence strictly, and the ways a claim is refuted.

A re-check (registered with :func:`verify.machine.claims.rechecks`) is a function
``recheck(ctx, claim) -> why`` of a :class:`RecheckContext` (the machine, figures,
report, and which claim: ``ctx.slot``, ``ctx.r``) and the claim as the report holds
it (a dict). It returns why the claim is confirmed (a string), None when there is
nothing to check, or ``("unchecked", why)``; it raises :class:`Refuted` when the
evidence fails, and ValueError when the report is malformed.

Examples
--------
>>> claim = {"holds": True, "method": "settling", "message": "", "evidence": {}}
>>> verdict(claim, False, "figure 3 blends", "the exposure is safe")
Traceback (most recent call last):
...
verify.errors.Refuted: its evidence shows that the exposure is safe does not hold (figure 3 blends), yet the claim says it holds
>>> fraction("-7/2")
Fraction(-7, 2)
"""

from __future__ import annotations

import copy
import dataclasses
import json
import warnings
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.exact import parse_number
from markone._internal.io import to_jsonable
from markone._internal.typing import JSONDict
from verify.machine.claims.registry import ClaimKind, kind_of
from verify.machine.report import Claim
from verify.machine.schema import EVIDENCE_TYPES, MAX_DIGITS, check_value
from verify.machine.task import MachineTask, Reduced, Units
from verify.errors import Refuted

__all__ = ["RecheckContext", "Rerun", "fraction", "evidence", "verdict",
           "same_claim", "same_shape", "claim_of", "expect", "stream_of",
           "registered_kind", "a_units_of",
           "RECOMPUTED", "RECOMPUTED_FIELDS"]

#: Why a claim recomputed in full is confirmed.
RECOMPUTED = "recomputed from the machine's parameters and figures: the same claim"

#: Evidence fields of the claims recomputed in full (the forced and gamma rules,
#: quantisation, faults): any of them is known, but compared, not typed.
RECOMPUTED_FIELDS = ("mu", "passes", "max_weight", "stream", "hit_stream", "learnable",
                     "certificate", "reinforcement_bound", "fits", "stall",
                     "stall_log10", "hit", "alpha", "chain", "quantize",
                     "increment_steps", "units_per_step", "r_unit", "a_unit",
                     "move_steps", "plan", "faults", "kinds", "unlearnable_r_units",
                     "culprits", "minimal")


class Rerun:
    """Runs a function on a fresh copy of the machine (the original is not
    changed)."""

    def __init__(self, machine: Any, images: Any, labels: Any) -> None:
        self.machine, self.images, self.labels = machine, images, labels

    def __call__(self, fn: Any) -> Any:
        m = copy.deepcopy(self.machine)
        m.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(m)


@dataclasses.dataclass
class RecheckContext:
    """What the re-checks of one report share: the machine, its figures and labels,
    their task, the integer units, the report (a checked dict), a :class:`Rerun`;
    and which claim is re-checked: its ``slot``, its R-unit ``r`` (None for a claim
    about the whole machine), its label ``where`` and the re-checks of the claims
    before it (``done``, by slot, for an R-unit's claims)."""

    machine: Any
    images: Any
    labels: Any
    task: MachineTask
    units: Units
    report: JSONDict
    slot: str = ""
    r: int | None = None
    where: str = ""
    done: dict = dataclasses.field(default_factory=dict)
    memo: dict = dataclasses.field(default_factory=dict)

    @property
    def rerun(self) -> Rerun:
        """Runs a function on a fresh copy of the machine."""
        return Rerun(self.machine, self.images, self.labels)

    @property
    def plan(self) -> Any:
        """The machine's fault plan (None without faults)."""
        faults = self.machine.faults
        return faults.plan if faults is not None else None

    def about(self, slot: str, r: int | None, where: str, done: dict) -> RecheckContext:
        """The context for the claim of ``slot`` (of R-unit ``r``), labelled
        ``where`` (the caches are shared)."""
        return dataclasses.replace(self, slot=slot, r=r, where=where, done=done)

    def inputs(self) -> np.ndarray:
        """The A-units wired to this R-unit."""
        if self.r is None:   # pragma: no cover - a machine claim's re-check misused
            raise RuntimeError(f"BUG: the {self.slot} claim is about no R-unit")
        return np.asarray(self.task.inputs[self.r])

    def r_unit(self) -> tuple[np.ndarray, np.ndarray, Reduced]:
        """``(X, y, red)`` of this R-unit: object-dtype patterns and targets, and the
        reduced task (built once)."""
        cols = self.inputs()
        X = self.task.patterns[:, cols].astype(object)
        y = self.task.targets[:, self.r].astype(object)
        key = ("reduced", self.r)
        if key not in self.memo:
            self.memo[key] = Reduced(X.astype(np.int64), y.astype(np.int64),
                                     self.units, cols)
        return X, y, self.memo[key]

    def claim(self, slot: str) -> JSONDict:
        """The report's claim of ``slot`` for this R-unit (or about the machine)."""
        if self.r is None:
            return self.report[slot]
        return self.report["r_units"][self.r][slot]

    def confirmed(self, slot: str) -> bool:
        """Whether this R-unit's claim of ``slot`` was re-checked and confirmed."""
        done = self.done.get(slot)
        return done is not None and done.status == "confirmed"


def registered_kind(claim: JSONDict, slot: str) -> ClaimKind:
    """The registry's kind of ``claim`` in ``slot``, which must be able to give the
    claim's verdict (else the claim is refuted)."""
    holds = claim["holds"]
    try:
        kind = kind_of(slot, claim["method"])
    except ValueError:
        kind = None
    if kind is None or holds not in kind.verdicts:
        said = {True: "true", False: "false", None: "open"}[holds]
        raise Refuted(f"the method {claim['method']!r} does not decide a {slot} claim "
                      f"{said}")
    return kind


def fraction(v: str) -> Fraction:
    """An exact number of the evidence (the schema admits only ``"-3"`` or ``"7/2"``,
    at most ``MAX_DIGITS`` long), read by the one reader of number text,
    :func:`markone._internal.exact.parse_number`."""
    return parse_number(v, max_digits=MAX_DIGITS)


def _known_fields(ev: JSONDict, fields: Any, where: str) -> None:
    """Fields of no claim are refused (ValueError); fields of other claims than
    this one refute it."""
    unknown = sorted(set(ev) - set(fields))
    foreign = [k for k in unknown if k not in EVIDENCE_TYPES and k not in
               RECOMPUTED_FIELDS]
    if foreign:
        raise ValueError(f"malformed machine report: the evidence of {where} has "
                         f"unknown field(s) {foreign}; its fields are {sorted(fields)}")
    if unknown:
        raise Refuted(f"its evidence has {unknown}, which this claim does not have "
                      f"(its fields are {sorted(fields)})")


def evidence(claim: JSONDict, fields: tuple, where: str) -> JSONDict:
    """The claim's evidence, every field known and of its type (ValueError else)."""
    ev = claim["evidence"]
    for k, v in ev.items():
        if k in fields:
            check, what = EVIDENCE_TYPES[k]
            check_value(v, check, what, f"{where} evidence.{k}")
    _known_fields(ev, fields, where)
    return ev


def verdict(claim: JSONDict, implied: bool | None, why: str, what: str) -> str | None:
    """The claim's verdict must be the one its evidence implies (``implied``: True,
    False or None, with ``why``); returns the re-check's reason or None."""
    holds = claim["holds"]
    if implied is None:
        return None
    if holds is not implied:
        said = {True: "holds", False: "does not hold", None: "is undecided"}[holds]
        raise Refuted(f"its evidence shows that {what} "
                      f"{'holds' if implied else 'does not hold'} ({why}), yet the "
                      f"claim says it {said}")
    return why


def expect(ev: JSONDict, key: str, value: Any, what: str) -> None:
    """Refute unless the evidence's ``key`` (when present) is ``value``."""
    if key in ev and ev[key] != value:
        raise Refuted(f"its {key} is {ev[key]!r}, but {what} gives {value!r}")


def stream_of(ev: JSONDict, key: str, n: int) -> list[int]:
    """The evidence's stream ``key`` of figure indices, each one of the ``n``."""
    s = list(ev.get(key, []))
    if any(not 0 <= i < n for i in s):
        raise Refuted(f"its {key} names a figure that does not exist")
    return s


def a_units_of(ctx: RecheckContext, ev: JSONDict) -> np.ndarray:
    """The R-unit's patterns (object dtype) on the evidence's ``a_units``, which must
    be the A-units wired to it."""
    cols = [int(c) for c in ev.get("a_units", [])]
    if cols != ctx.inputs().tolist():
        raise Refuted("its a_units are not the A-units wired to this R-unit")
    return ctx.task.patterns[:, cols].astype(object)


def claim_of(d: JSONDict) -> Claim:
    """A claim of the report (a dict) as a :class:`~verify.machine.report.Claim`."""
    return Claim(d["holds"], d["method"], d["message"], d["evidence"])


def same_shape(claim: JSONDict, expected: Any, where: str) -> JSONDict:
    """The claim's evidence must have the JSON types and fields of the one recomputed
    (``expected``, a Claim or its dict): ValueError else. Returns the recomputed
    claim as JSON."""
    want = json.loads(json.dumps(to_jsonable(
        expected.to_dict() if hasattr(expected, "to_dict") else expected)))
    _same_types(claim["evidence"], want["evidence"], f"{where} evidence")
    _known_fields(claim["evidence"], want["evidence"], where)
    return want


def same_claim(claim: JSONDict, expected: Any, where: str) -> None:
    """Compare a claim with the one recomputed: field types first (ValueError), then
    values (refuted)."""
    want = same_shape(claim, expected, where)
    for k in ("holds", "method", "message"):
        if claim[k] != want[k]:
            raise Refuted(f"its {k} is {claim[k]!r}; recomputed from the machine and "
                          f"figures it is {want[k]!r}")
    for k in want["evidence"]:
        if claim["evidence"].get(k, "<missing>") != want["evidence"][k]:
            raise Refuted(f"its evidence {k} is "
                          f"{_short(claim['evidence'].get(k, '<missing>'))}; "
                          f"recomputed it is {_short(want['evidence'][k])}")


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _json_kind(v: Any) -> str:
    return ("null" if v is None else "boolean" if isinstance(v, bool) else
            "number" if isinstance(v, (int, float)) else
            "string" if isinstance(v, str) else
            "list" if isinstance(v, list) else "object")


def _same_types(got: Any, want: Any, where: str) -> None:
    """ValueError when ``got`` has another JSON type than ``want`` somewhere."""
    if want is None or got is None:
        return
    if _json_kind(got) != _json_kind(want):
        raise ValueError(f"malformed machine report: {where} must be a "
                         f"{_json_kind(want)}, got {_short(got)}")
    if isinstance(want, dict):
        for k in set(got) & set(want):
            _same_types(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list) and want:
        for i, v in enumerate(got):
            _same_types(v, want[min(i, len(want) - 1)], f"{where}[{i}]")
