"""A machine report: its claims, what each R-unit was promised, and its JSON.

:class:`Claim` is one verdict with how it was decided and its evidence;
:class:`RUnitReport` holds the three claims about one R-unit (learnable, end stops,
converges); :class:`MachineReport` is what :func:`verify.machine.check_machine`
returns: those, and the claims about the whole machine (faults, timing,
quantisation, by slot), in words (:meth:`MachineReport.text`) or as JSON
(:meth:`MachineReport.to_dict`).

Examples
--------
>>> c = Claim(True, "one-signed columns", "no end stop ever cuts a move short")
>>> c.to_dict()["holds"], c
(True, Claim(holds=True, method='one-signed columns', message='no end stop ever cuts a move short'))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from markone._internal.typing import JSONDict
from markone.hardware.runits import r_unit_name
from verify.machine.schema import REPORT_FORMAT

__all__ = ["Claim", "RUnitReport", "MachineReport", "combined_verdict"]


@dataclasses.dataclass(frozen=True)
class Claim:
    """One claim of a report: whether it holds, how that was decided, the evidence.

    Attributes
    ----------
    holds : bool or None
        True (proven), False (refuted, with a concrete counterexample in
        ``evidence``) or None (not decided; ``message`` says what was tried).
    method : str
        What decided it.
    message : str
        The claim and the verdict in words.
    evidence : dict
        JSON-ready numbers, orders and certificates that re-check the verdict: each
        is recomputed or verified by :func:`~verify.machine.recheck_report`.
    notes : dict
        What the searches recorded on the way (the margin's upper end, how far the
        beam search pushed a weight, the per-weight balls, ...): for reading, not
        part of the report (``to_dict``), since nothing can re-check it.
    """

    holds: bool | None
    method: str
    message: str
    evidence: dict = dataclasses.field(default_factory=dict, repr=False)
    notes: dict = dataclasses.field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        # a Method (verify.machine.claims.methods) is the method's words: the report
        # keeps the plain string
        object.__setattr__(self, "method", str(self.method))

    def to_dict(self) -> JSONDict:
        """The claim as a JSON-ready dict."""
        return {"holds": self.holds, "method": self.method, "message": self.message,
                "evidence": self.evidence}


@dataclasses.dataclass(frozen=True)
class RUnitReport:
    """The three claims about one R-unit: learnable, end stops, converges (what each
    means: ``docs/theory/machine-claims.md``)."""

    r_unit: int
    learnable: Claim
    end_stops: Claim
    converges: Claim

    def to_dict(self) -> JSONDict:
        """The R-unit's claims as a JSON-ready dict."""
        return {"r_unit": self.r_unit, "learnable": self.learnable.to_dict(),
                "end_stops": self.end_stops.to_dict(),
                "converges": self.converges.to_dict()}


@dataclasses.dataclass(frozen=True)
class MachineReport:
    """What :func:`~verify.machine.check_machine` proved about a machine on a task.

    Attributes
    ----------
    r_units : tuple of RUnitReport
    claims : dict
        The claims about the whole machine, by slot (``faults``, ``timing``,
        ``quantisation``, and any other registered in :mod:`verify.machine.claims`);
        each also reads as an attribute (``report.timing``).
    theta : int
        The A-unit threshold the machine uses on these figures.
    n_examples, n_a_units : int
    weight_range : tuple or None
    increment_steps : float
    rule : str
    data_sha256 : str
        SHA-256 of the figures and labels the report is about.
    patterns_sha256 : str
        SHA-256 of the machine's A-unit patterns of them, its targets and each R-unit's
        inputs (ties the report to the machine; :func:`~verify.machine.recheck_report` checks both).
    time_s : float
    params : dict
        Every parameter of the machine (``MarkIParams.to_dict()``): a re-check on a
        machine with other parameters is refused, naming the first that differs.
    stopped_by : str
        What left claims undecided: ``"budget"`` (a search ran out of its work),
        ``"timeout"`` (``timeout_s`` passed), or ``""`` (nothing: every claim that
        applies is decided).
    """

    r_units: tuple
    claims: dict
    theta: int
    n_examples: int
    n_a_units: int
    weight_range: tuple | None
    increment_steps: float
    rule: str
    data_sha256: str
    time_s: float
    patterns_sha256: str = ""
    params: dict = dataclasses.field(default_factory=dict, repr=False)
    stopped_by: str = dataclasses.field(default="", repr=False)

    def __getattr__(self, name: str) -> Claim:
        """A claim about the whole machine by its slot (``report.timing``)."""
        claims = self.__dict__.get("claims", {})
        if name in claims:
            return claims[name]
        raise AttributeError(f"{type(self).__name__!r} has no attribute {name!r}")

    @property
    def learnable(self) -> bool | None:
        """True when every R-unit's task is proven learnable (None if unknown)."""
        return combined_verdict(r.learnable.holds for r in self.r_units)

    @property
    def converges(self) -> bool | None:
        """True when the machine provably learns the task for every fair order."""
        return combined_verdict(r.converges.holds for r in self.r_units)

    def to_dict(self) -> JSONDict:
        """The report as a JSON-ready dict (format ``markone.verify.machine/3``)."""
        return {"format": REPORT_FORMAT, "machine": self.params, "theta": self.theta,
                "n_examples": self.n_examples, "n_a_units": self.n_a_units,
                "weight_range": self.weight_range,
                "increment_steps": self.increment_steps, "rule": self.rule,
                "data_sha256": self.data_sha256,
                "patterns_sha256": self.patterns_sha256, "learnable": self.learnable,
                "converges": self.converges,
                "r_units": [r.to_dict() for r in self.r_units],
                **{slot: c.to_dict() for slot, c in self.claims.items()},
                "time_s": self.time_s, "stopped_by": self.stopped_by}

    def text(self) -> str:
        """The report in words, one line per claim."""
        word = {True: "yes", False: "NO", None: "unknown"}
        lines = [f"Mark I on {self.n_examples} figures: theta={self.theta}, end stops "
                 f"{self.weight_range}, increment {self.increment_steps} step(s), "
                 f"rule {self.rule!r}",
                 f"learnable: {word[self.learnable]}; learns for every order: "
                 f"{word[self.converges]}"]
        for r in self.r_units:
            lines.append(f"{r_unit_name(r.r_unit)}:")
            for name in ("learnable", "end_stops", "converges"):
                c = getattr(r, name)
                lines.append(f"  {name:10s} {word[c.holds]:7s} [{c.method}] {c.message}")
        for name, c in self.claims.items():
            lines.append(f"{name}: {word[c.holds]} [{c.method}] {c.message}")
        return "\n".join(lines)

    def __str__(self):
        return self.text()


def combined_verdict(values: Iterable[bool | None]) -> bool | None:
    """True when every claim holds, False when one does not, else None (unknown).

    >>> combined_verdict([True, True]), combined_verdict([True, None, False])
    (True, False)
    """
    values = list(values)
    if all(v is True for v in values):
        return True
    return False if any(v is False for v in values) else None
