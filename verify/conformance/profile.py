"""Profiles: what an implementation claims to implement, and the cases that follow.

A :class:`Profile` names the arithmetic (``exact``, ``float64`` or ``float32``), the
variants (``last``, ``averaged``, ``voted``, ``pocket``), the tasks (``binary``,
``multiclass``, ``kernel``) and whether the intercept (a constant 1 appended last) is
handled. A case outside the profile is *not applicable*, with the reason
(:meth:`Profile.excludes`); in JUnit it is skipped, not failed. So a correct float64
implementation passes every case it can pass and exits 0.

An implementation declares its profile with ``--profile`` (:meth:`Profile.parse`),
or, for ``--cmd``, by answering the **handshake** (:data:`HANDSHAKE_FORMAT`) with
``{"profile": {...}}`` (:meth:`Profile.from_json`); and it may decline any single case
by answering ``{"unsupported": "why"}``. Without a declaration the profile is
:data:`FULL`: exact arithmetic, everything claimed.

>>> p = Profile.parse("arithmetic=float64,variants=last+pocket,tasks=binary")
>>> p.describe()
'arithmetic=float64,variants=last+pocket,tasks=binary,intercept=yes'
>>> p.excludes({"task": "binary", "variant": "voted", "float64_can_pass": True,
...             "problem": {"intercept": False}})
'the profile does not claim the voted variant (variants=last+pocket)'
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from markone._internal.typing import JSONDict
from verify.conformance.protocol import TASKS, VARIANTS

__all__ = ["Profile", "FULL", "ARITHMETICS", "HANDSHAKE_FORMAT", "handshake_problem",
           "FLOAT32_TOLERANCE"]

ARITHMETICS = ("exact", "float64", "float32")
#: ``format`` of the handshake a ``--cmd`` program is sent before the cases.
HANDSHAKE_FORMAT = "markone.conformance.handshake/1"
#: The property of the cases built to pass in float64 and fail in float32.
FLOAT32_SEPARATING = "float64-rounding"
#: Relative tolerance on weights for a float32 profile (float32 keeps 24 bits).
FLOAT32_TOLERANCE = 1e-5

_YES = {"yes": True, "true": True, "no": False, "false": False}


@dataclass(frozen=True)
class Profile:
    """What an implementation claims (see the module's docstring)."""

    arithmetic: str = "exact"
    variants: tuple[str, ...] = VARIANTS
    tasks: tuple[str, ...] = TASKS
    intercept: bool = True

    def __post_init__(self) -> None:
        _one_of("arithmetic", self.arithmetic, ARITHMETICS)
        for name, allowed in (("variants", VARIANTS), ("tasks", TASKS)):
            values = getattr(self, name)
            if not isinstance(values, tuple) or not values:
                raise ValueError(f"profile {name} must name at least one of "
                                 f"{', '.join(allowed)}; got {values!r}.")
            for v in values:
                _one_of(name, v, allowed)
        if not isinstance(self.intercept, bool):
            raise ValueError(f"profile intercept must be yes or no, got "
                             f"{self.intercept!r}.")

    @classmethod
    def parse(cls, text: str) -> Profile:
        """A profile from ``KEY=VALUE,...`` (lists joined by ``+``): keys
        ``arithmetic``, ``variants``, ``tasks``, ``intercept`` (yes/no); a key not
        given keeps its default (:data:`FULL`'s)."""
        fields: dict[str, Any] = {}
        for item in filter(None, (part.strip() for part in str(text).split(","))):
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or key not in ("arithmetic", "variants", "tasks", "intercept"):
                raise ValueError(
                    f"--profile: {item!r} is not KEY=VALUE with KEY one of arithmetic, "
                    "variants, tasks, intercept (e.g. --profile "
                    "arithmetic=float64,variants=last+averaged).")
            fields[key] = value.strip()
        return cls.from_json({k: (v.split("+") if k in ("variants", "tasks") else v)
                              for k, v in fields.items()})

    @classmethod
    def from_json(cls, doc: Any) -> Profile:
        """A profile from its JSON form (``{"arithmetic": "float64", "variants":
        ["last"], "tasks": ["binary"], "intercept": true}``; keys may be left out)."""
        if not isinstance(doc, dict):
            raise ValueError(f"a profile is a JSON object, got {type(doc).__name__}.")
        unknown = sorted(set(doc) - {"arithmetic", "variants", "tasks", "intercept"})
        if unknown:
            raise ValueError(f"a profile has no field {unknown[0]!r} (fields: "
                             "arithmetic, variants, tasks, intercept).")
        fields: dict[str, Any] = {}
        if "arithmetic" in doc:
            fields["arithmetic"] = doc["arithmetic"]
        for name in ("variants", "tasks"):
            if name in doc:
                values = doc[name]
                if not isinstance(values, list):
                    raise ValueError(f"profile {name} must be a list, got {values!r}.")
                fields[name] = tuple(values)
        if "intercept" in doc:
            value = doc["intercept"]
            value = _YES.get(value.lower()) if isinstance(value, str) else value
            fields["intercept"] = value
        return cls(**fields)

    def as_json(self) -> JSONDict:
        """The JSON form (what :meth:`from_json` reads)."""
        return {"arithmetic": self.arithmetic, "variants": list(self.variants),
                "tasks": list(self.tasks), "intercept": self.intercept}

    def describe(self) -> str:
        """The profile as ``--profile`` writes it."""
        return (f"arithmetic={self.arithmetic},variants={'+'.join(self.variants)},"
                f"tasks={'+'.join(self.tasks)},intercept={'yes' if self.intercept else 'no'}")

    def excludes(self, case: JSONDict) -> str | None:
        """Why ``case`` is outside this profile, or None when it applies."""
        if case["task"] not in self.tasks:
            return (f"the profile does not claim the {case['task']} task "
                    f"(tasks={'+'.join(self.tasks)})")
        if case["variant"] not in self.variants:
            return (f"the profile does not claim the {case['variant']} variant "
                    f"(variants={'+'.join(self.variants)})")
        if case["problem"]["intercept"] and not self.intercept:
            return "the case has an intercept; the profile says intercept=no"
        if self.arithmetic != "exact" and not case["float64_can_pass"]:
            return (f"the case needs exact arithmetic (float64 rounding changes its "
                    f"answer); the profile declares {self.arithmetic}")
        if self.arithmetic == "float32" and case["property"] == FLOAT32_SEPARATING:
            return ("the case separates float64 from float32 (float32 fails it in some "
                    "summation orders); the profile declares float32")
        if self.arithmetic == "float32" and not _float32_can_pass(case):
            return ("float32 rounding or range changes this case's answer (a correct "
                    "float32 implementation cannot pass it); the profile declares "
                    "float32")
        return None

    def tolerance(self, case: JSONDict) -> float:
        """The relative tolerance on weights this profile's arithmetic needs."""
        tol = float(case.get("tolerance", 0))
        return max(tol, FLOAT32_TOLERANCE) if self.arithmetic == "float32" else tol


def _one_of(name, value, allowed):
    if value not in allowed:
        raise ValueError(f"profile {name}: {value!r} is not one of "
                         f"{', '.join(allowed)}.")


def _float32_can_pass(case):
    """Do float32 replays of a binary case make the expected decisions?"""
    if case["task"] != "binary":
        return True
    from verify.conformance.compare import close
    from verify.conformance.replay import binary_run, variant_answer

    problem, want = case["problem"], case["expected"]
    run = binary_run(problem, arithmetic="float32")
    if not all(abs(float(v)) < float("inf") for vec in [run.w, *run.iterates]
               for v in vec):
        return False
    answer = variant_answer(run, problem)
    if answer["mistakes"] != want["mistakes"] or answer.get(
            "predictions") != want.get("predictions"):
        return False
    return "w" not in answer or close([Fraction(float(v)) for v in answer["w"]],
                                       [Fraction(v) for v in want["w"]],
                                       FLOAT32_TOLERANCE)


#: No declaration: exact arithmetic, every variant and task, the intercept handled.
FULL = Profile()


def handshake_problem() -> JSONDict:
    """What a ``--cmd`` program receives before the cases: it answers
    ``{"profile": {...}}`` (:meth:`Profile.from_json`), or anything else for no
    declaration.

    >>> handshake_problem()["format"]
    'markone.conformance.handshake/1'
    """
    return {"format": HANDSHAKE_FORMAT,
            "answer": "{\"profile\": {\"arithmetic\": \"exact|float64|float32\", "
                      "\"variants\": [...], \"tasks\": [...], \"intercept\": true}}",
            "arithmetics": list(ARITHMETICS), "variants": list(VARIANTS),
            "tasks": list(TASKS)}
