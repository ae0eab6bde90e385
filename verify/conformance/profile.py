"""Profiles: what an implementation claims to implement, and the cases that follow.

A :class:`Profile` names the arithmetic (``exact``, ``float64`` or ``float32``), the
variants (``last``, ``averaged``, ``voted``, ``pocket``), the tasks (``binary``,
``multiclass``, ``kernel``) and whether the intercept (a constant 1 appended last) is
handled, the learning rate (``rate``, 1 by default: ``w += rate * y * x``) and the
starting weights (``start``, ``intercept_start``: :mod:`verify.conformance.start`;
zero by default). A case outside the profile is *not applicable*, with the reason
(:meth:`Profile.excludes`); in JUnit it is skipped, not failed. So a correct float64
implementation passes every case it can pass and exits 0.

An implementation declares its profile with ``--profile`` (:meth:`Profile.parse`),
or, for ``--cmd``, by answering the **handshake** (:data:`HANDSHAKE_FORMAT`) with
``{"profile": {...}}`` (:meth:`Profile.from_json`); and it may decline any single case
by answering ``{"unsupported": "why"}``. Without a declaration the profile is
``Profile()``, made when it is needed: exact arithmetic, every task, and every variant
of :data:`markone.variants.VARIANTS` at that moment (one added with
``markone.variants.add_variant`` after import included).

A declared rate changes the expected answers (:meth:`Profile.expected_case`): in
exact arithmetic the weights scale by the rate (from a zero start the decisions are
the same); in float64 the reference runs the textbook update in IEEE float64 with
the rate rounded once to a double, so ``w += 0.1 * y * x`` passes although a tie's
score comes out as 3.3e-16. A declared start is run likewise, exactly or in
IEEE float64 (a start and a rate together change decisions), and sent with each
case's problem (:meth:`Profile.posed`).

>>> Profile.parse("arithmetic=float64,rate=0.1").describe()[-8:]
'rate=0.1'

>>> p = Profile.parse("arithmetic=float64,variants=last+pocket,tasks=binary")
>>> p.describe()
'arithmetic=float64,variants=last+pocket,tasks=binary,intercept=yes'
>>> p.excludes({"task": "binary", "variant": "voted", "float64_can_pass": True,
...             "problem": {"intercept": False}})
'the profile does not claim the voted variant (variants=last+pocket)'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from markone._internal.exact import NumberTooLong, parse_number, text_shown
from markone._internal.typing import JSONDict
from verify.conformance.compare import close
from verify.conformance.protocol import TASKS, VARIANTS
from verify.conformance.rate import expected_with_rate
from verify.conformance.rule_runs import binary_run, variant_answer
from verify.conformance.start import (
    ZERO_START_CLAIMS,
    Start,
    parse_start,
    parse_start_number,
    start_misfit,
    start_vector,
    with_start,
)

__all__ = ["Profile", "parse_rate", "show_rate", "show_start", "ARITHMETICS",
           "HANDSHAKE_FORMAT", "handshake_problem", "FLOAT32_TOLERANCE"]

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
    variants: tuple[str, ...] = field(default_factory=lambda: tuple(VARIANTS))
    tasks: tuple[str, ...] = TASKS
    intercept: bool = True
    rate: Fraction = Fraction(1)
    start: Start = Fraction(0)
    intercept_start: Fraction | None = None

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
        object.__setattr__(self, "rate", parse_rate(self.rate))
        if self.rate != 1 and self.arithmetic == "float32":
            raise ValueError("profile rate: a rate other than 1 is checked with "
                             "arithmetic=exact or float64, not float32; leave rate out.")
        self._check_start()

    def _check_start(self) -> None:
        """Read ``start`` and ``intercept_start`` exactly; refuse what no rule
        run can start from."""
        object.__setattr__(self, "start", parse_start(self.start))
        if self.intercept_start is not None:
            object.__setattr__(self, "intercept_start", parse_start_number(
                self.intercept_start, "intercept_start"))
            if isinstance(self.start, tuple):
                raise ValueError("profile intercept_start: a start of one number per "
                                 "weight already gives the intercept's (its last); "
                                 "leave intercept_start out.")
        if self.has_start and self.arithmetic == "float32":
            raise ValueError("profile start: a start other than zero is checked with "
                             "arithmetic=exact or float64, not float32; leave start "
                             "out.")

    @property
    def has_start(self) -> bool:
        """Does the profile declare a start other than zero?"""
        values = self.start if isinstance(self.start, tuple) else (self.start,)
        return any(values) or bool(self.intercept_start)

    @classmethod
    def parse(cls, text: str) -> Profile:
        """A profile from ``KEY=VALUE,...`` (lists joined by ``+``): keys
        ``arithmetic``, ``variants``, ``tasks``, ``intercept`` (yes/no), ``rate`` (a
        positive number: ``0.1``, ``1/10``), ``start`` (``zero``, ``ones``, a
        number, or one per weight joined by ``+``) and ``intercept_start`` (a
        number); a key not given keeps its default (``Profile()``'s)."""
        fields: dict[str, Any] = {}
        for item in filter(None, (part.strip() for part in str(text).split(","))):
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or key not in _KEYS:
                raise ValueError(
                    f"--profile: {item!r} is not KEY=VALUE with KEY one of "
                    f"{', '.join(_KEYS)} (e.g. --profile "
                    "arithmetic=float64,variants=last+averaged,rate=0.1,start=0.01).")
            fields[key] = value.strip()
        return cls.from_json({k: (v.split("+") if k in ("variants", "tasks") else v)
                              for k, v in fields.items()})

    @classmethod
    def from_json(cls, doc: Any) -> Profile:
        """A profile from its JSON form (``{"arithmetic": "float64", "variants":
        ["last"], "tasks": ["binary"], "intercept": true, "rate": "1/10", "start":
        "0.01", "intercept_start": 0}``; keys may be left out; ``rate`` a number or a
        string; ``start`` one of those or a list of them, one per weight)."""
        if not isinstance(doc, dict):
            raise ValueError(f"a profile is a JSON object, got {type(doc).__name__}.")
        unknown = sorted(set(doc) - set(_KEYS))
        if unknown:
            raise ValueError(f"a profile has no field {unknown[0]!r} (fields: "
                             f"{', '.join(_KEYS)}).")
        fields: dict[str, Any] = {k: doc[k] for k in ("arithmetic", "rate", "start",
                                                      "intercept_start") if k in doc}
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
                "tasks": list(self.tasks), "intercept": self.intercept,
                "rate": show_rate(self.rate),
                "start": (show_start(self.start).split("+")
                          if isinstance(self.start, tuple) else show_start(self.start)),
                "intercept_start": None if self.intercept_start is None
                else show_start(self.intercept_start)}

    def describe(self) -> str:
        """The profile as ``--profile`` writes it (``rate`` only when it is not 1,
        ``start`` and ``intercept_start`` only when declared)."""
        rate = f",rate={show_rate(self.rate)}" if self.rate != 1 else ""
        start = f",start={show_start(self.start)}" if self.start != 0 else ""
        if self.intercept_start is not None:
            start += f",intercept_start={show_start(self.intercept_start)}"
        return (f"arithmetic={self.arithmetic},variants={'+'.join(self.variants)},"
                f"tasks={'+'.join(self.tasks)},intercept={'yes' if self.intercept else 'no'}"
                + rate + start)

    def start_for(self, case: JSONDict) -> list[Fraction] | None:
        """The weights ``case`` starts from under this profile (the intercept's
        last), or None for the zero start (and for the kernel task, which has no
        weights: its dual counts start at 0)."""
        if not self.has_start or case["task"] == "kernel":
            return None
        problem = case["problem"]
        width = len(problem["X"][0]) + int(bool(problem["intercept"]))
        return start_vector(self.start, self.intercept_start, width,
                            bool(problem["intercept"]))

    def posed(self, case: JSONDict) -> JSONDict:
        """``case`` as it is posed to an implementation of this profile: its problem
        carries the declared start (``"start"``, exact strings) when it is not zero
        (the case itself otherwise).

        >>> case = {"task": "binary", "problem": {"X": [[1, 2]], "intercept": True}}
        >>> Profile.parse("start=1,intercept_start=0").posed(case)["problem"]["start"]
        ['1', '1', '0']
        """
        vector = self.start_for(case)
        if vector is None:
            return case
        return dict(case, problem=with_start(case["problem"], vector))

    def expected_case(self, case: JSONDict) -> JSONDict:
        """``case`` (:meth:`posed`) with the answers expected of an implementation
        of this profile's rate and start (the case itself when the rate is 1 and the
        start zero; see the module's docstring)."""
        case = self.posed(case)
        if self.rate == 1 and "start" not in case["problem"]:
            return case
        return expected_with_rate(case, self.rate, self.arithmetic)

    def judged_case(self, case: JSONDict) -> JSONDict:
        """``case`` as this profile judges it: the answers its rate expects
        (:meth:`expected_case`), the tolerance its arithmetic needs
        (:meth:`tolerance`), and ``"declared"``: the arithmetic and rate the
        diagnoses run with (:func:`verify.conformance.rate.reference_run`; the
        declared start rides in the problem, :meth:`posed`).

        >>> Profile.parse("rate=1/2").judged_case(
        ...     {"task": "kernel", "expected": {}, "tolerance": 0})["declared"]
        {'arithmetic': 'exact', 'rate': '1/2'}
        """
        return dict(self.expected_case(case), tolerance=self.tolerance(case),
                    declared={"arithmetic": self.arithmetic, "rate": str(self.rate)})

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
        return self._excludes_start(case)

    def _excludes_start(self, case: JSONDict) -> str | None:
        """Why the declared start does not apply to ``case``, or None."""
        if not self.has_start or case["task"] == "kernel":
            return None
        problem = case["problem"]
        misfit = start_misfit(self.start, len(problem["X"][0]) + int(bool(
            problem["intercept"])))
        if misfit is not None:
            return f"{misfit} (start={show_start(self.start)})"
        why = ZERO_START_CLAIMS.get(case["property"])
        if why is not None and self.start_for(case) is not None:
            return (f"the case's claim needs the zero start ({why}); the profile "
                    f"declares start={show_start(self.start)}"
                    + (f",intercept_start={show_start(self.intercept_start)}"
                       if self.intercept_start is not None else ""))
        return None

    def check_start(self, cases: Sequence[JSONDict]) -> None:
        """ValueError when a per-weight start fits none of ``cases`` (no case has
        that many weights): the start is of the wrong length."""
        if not isinstance(self.start, tuple):
            return
        widths = sorted({len(c["problem"]["X"][0]) + int(bool(c["problem"]["intercept"]))
                         for c in cases if c["task"] != "kernel"})
        if widths and len(self.start) not in widths:
            raise ValueError(
                f"profile start: {len(self.start)} weights are declared "
                f"(start={show_start(self.start)}), but no case run has "
                f"{len(self.start)} (they have {', '.join(map(str, widths))}, the "
                "intercept's included); give one number per weight of a case, or one "
                "number for every weight (start=0.5).")

    def tolerance(self, case: JSONDict) -> float:
        """The relative tolerance on weights this profile's arithmetic needs."""
        tol = float(case.get("tolerance", 0))
        return max(tol, FLOAT32_TOLERANCE) if self.arithmetic == "float32" else tol


_KEYS = ("arithmetic", "variants", "tasks", "intercept", "rate", "start",
         "intercept_start")
#: The most digits a rate may have written out in full (every float64 has fewer).
_RATE_MAX_DIGITS = 2000
_RATE_HELP = ("the learning rate is a positive finite number, e.g. rate=0.1 or "
              "rate=1/10")


def parse_rate(value: Any) -> Fraction:
    """A learning rate as the exact number it is written as (``"0.1"`` and ``0.1`` are
    1/10); ValueError naming the value unless it is positive and finite (a double
    too: neither 0 nor inf once rounded).

    >>> parse_rate("1/10"), parse_rate(0.5)
    (Fraction(1, 10), Fraction(1, 2))
    """
    if isinstance(value, bool):
        raise ValueError(f"profile rate: {value!r} is not a number; {_RATE_HELP}.")
    text = repr(value) if isinstance(value, float) else str(value).strip()
    try:
        rate = Fraction(value) if isinstance(value, (int, Fraction)) else parse_number(
            text, where="profile rate: ", max_digits=_RATE_MAX_DIGITS)
        as_double = float(rate)
    except NumberTooLong as exc:   # "1e999999999" would take hours to build
        raise ValueError(f"profile rate: {text_shown(text)} has {exc.size:,} digits "
                         f"written out in full, over the {_RATE_MAX_DIGITS:,} a rate may "
                         f"have; {_RATE_HELP}.") from None
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        raise ValueError(f"profile rate: {text!r} is not a finite number; "
                         f"{_RATE_HELP}.") from None
    if rate <= 0 or as_double == 0 or not math.isfinite(as_double):
        raise ValueError(f"profile rate: {text!r} is not positive (or not within "
                         f"float64's range); {_RATE_HELP}.")
    return rate


def show_rate(rate: Fraction) -> str:
    """A rate as ``--profile`` writes it: its decimal digits when it has few (1/10 is
    ``0.1``), else ``p/q``.

    >>> show_rate(Fraction(1, 10)), show_rate(Fraction(1, 3)), show_rate(Fraction(2))
    ('0.1', '1/3', '2')
    """
    if rate.denominator == 1:
        return str(rate.numerator)
    d, places = rate.denominator, 0
    while d % 10 == 0 or d % 2 == 0 or d % 5 == 0:
        d //= 10 if d % 10 == 0 else (2 if d % 2 == 0 else 5)
        places += 1
    if d == 1 and places <= 12:
        scaled = rate * 10**places      # an integer: the digits, the point placed
        text = f"{int(scaled):0{places + 1}d}"
        return f"{text[:-places]}.{text[-places:]}".rstrip("0")
    return f"{rate.numerator}/{rate.denominator}"


def show_start(start: Start) -> str:
    """A start as ``--profile`` writes it.

    >>> show_start(Fraction(1, 100)), show_start((Fraction(1, 2), Fraction(-1, 3)))
    ('0.01', '0.5+-1/3')
    """
    def one(v: Fraction) -> str:
        return "0" if v == 0 else ("-" if v < 0 else "") + show_rate(abs(v))

    return "+".join(one(v) for v in start) if isinstance(start, tuple) else one(start)


def _one_of(name, value, allowed):
    if value not in allowed:
        raise ValueError(f"profile {name}: {value!r} is not one of "
                         f"{', '.join(allowed)}.")


def _float32_can_pass(case):
    """Do float32 runs of a binary case make the expected decisions?"""
    if case["task"] != "binary":
        return True
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


def handshake_problem() -> JSONDict:
    """What a ``--cmd`` program receives before the cases: it answers
    ``{"profile": {...}}`` (:meth:`Profile.from_json`), or anything else for no
    declaration.

    >>> handshake_problem()["format"]
    'markone.conformance.handshake/1'
    """
    return {"format": HANDSHAKE_FORMAT,
            "answer": "{\"profile\": {\"arithmetic\": \"exact|float64|float32\", "
                      "\"variants\": [...], \"tasks\": [...], \"intercept\": true, "
                      "\"rate\": \"1\", \"start\": \"0\"}}",
            "arithmetics": list(ARITHMETICS), "variants": list(VARIANTS),
            "tasks": list(TASKS)}
