"""The registry of claim kinds: each kind names its slot, its verdicts, its prover and
its re-check.

A report's claim says *how* it was decided in its ``method`` (``"one-signed
columns"``, ``"greedy"``, ...). Each method is a member of :class:`Method` and has one
row, a :class:`ClaimKind`, in :data:`KINDS`: the slot it fills (``"learnable"``,
``"end_stops"``, ``"converges"``, or a claim about the whole machine), the verdicts it
can give, the prover that decides it (a function ``decide(ctx) -> Claim | None``,
registered with :func:`proves`) and the re-check that confirms it from the report's
evidence (registered with :func:`rechecks`). :func:`verify.machine.check_machine`
runs the provers of a slot in the order their module declares (``PROVERS``), and
:func:`verify.machine.recheck_report` finds a claim's re-check through
:func:`kind_of`: nothing dispatches on the words of a method.

Adding a kind of claim is one module (its prover and re-check), one :class:`Method`
member with its :class:`ClaimKind` row, and one test file; ``docs/verify-machine.md``
("Adding a claim") shows the smallest real one.

Examples
--------
>>> kind = kind_of("end_stops", "one-signed columns")
>>> kind.method is Method.ONE_SIGNED, kind.verdicts
(True, (True, None))
>>> kind.prover.__name__, kind.recheck.__name__
('fits', 'one_signed_bound')
>>> kind_of("converges", "one-signed columns")
Traceback (most recent call last):
...
ValueError: the method 'one-signed columns' does not decide a converges claim
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from typing import Any

__all__ = ["Method", "ClaimKind", "KINDS", "kind_of", "proves", "rechecks",
           "SEARCH_UNCHECKED"]


class Method(str, enum.Enum):
    """How a claim was decided: the ``method`` a report names (its value, which is
    also what ``str`` and f-strings give)."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    # end stops, error-correction rule: a bound that fits inside the stops ...
    NOVIKOFF_COUNT = "|w_j| <= reinforcements <= (R/gamma)^2"
    NOVIKOFF_NORM = "||w|| <= R^2/gamma"
    ONE_SIGNED = "one-signed columns"
    EXACT_REACH = "exact reachable states"
    BALL = "Novikoff ball per weight"
    BALL_PUSHES = "Novikoff ball per weight and at its pushes"
    Z3 = "z3 bounded model checking"
    MAX_MARGIN = "max_margin"
    # ... or a stream that reaches a stop, by the search that found it
    HIT_EXHAUSTIVE = "exhaustive"
    HIT_GREEDY = "greedy"
    HIT_BEAM = "beam"
    HIT_RANDOM = "random order"
    HIT_Z3 = "z3"
    # converges, error-correction rule
    IDEAL = "equals the ideal perceptron"
    ALL_STREAMS = "exhaustive (all streams)"
    CLIPPED_BALL = "clipped Novikoff ball"
    CONTINUATION = "continuation after the stop"
    PERIODIC = "periodic order"
    CONTINUATIONS_OPEN = "continuations and periodic orders"
    PERIODIC_OPEN = "periodic orders"


#: Re-check of a claim whose evidence is a search's result, not a certificate.
SEARCH_UNCHECKED = "its evidence is a search's result, not a certificate"


_PROVERS: dict[Method, Callable[..., Any]] = {}
_RECHECKS: dict[Method, Callable[..., Any]] = {}


def _registered(table: dict[Method, Callable[..., Any]], what: str) -> Any:
    """A property giving the function registered in ``table`` for the kind."""
    def registered(kind: ClaimKind) -> Callable[..., Any] | None:
        return table.get(kind.method)

    registered.__doc__ = f"The function that {what} (None until its module is imported)."
    return property(registered)


@dataclasses.dataclass(frozen=True)
class ClaimKind:
    """One kind of claim: its :class:`Method`, the ``slot`` it fills and the
    ``verdicts`` (values of ``holds``) it can give; ``prover`` and ``recheck`` are
    the functions registered for it."""

    method: Method
    slot: str
    verdicts: tuple

    prover = _registered(_PROVERS, "decides claims of this kind")
    recheck = _registered(_RECHECKS, "re-checks a claim of this kind from its evidence")


def _row(method: Method, slot: str, *verdicts: bool | None) -> ClaimKind:
    return ClaimKind(method, slot, verdicts)


#: Every kind of claim, by its method.
KINDS: dict[Method, ClaimKind] = {k.method: k for k in (
    _row(Method.NOVIKOFF_COUNT, "end_stops", True, None),
    _row(Method.NOVIKOFF_NORM, "end_stops", True, None),
    _row(Method.ONE_SIGNED, "end_stops", True, None),
    _row(Method.EXACT_REACH, "end_stops", True, None),
    _row(Method.BALL, "end_stops", True, None),
    _row(Method.BALL_PUSHES, "end_stops", True, None),
    _row(Method.Z3, "end_stops", True, None),
    _row(Method.MAX_MARGIN, "end_stops", None),
    _row(Method.HIT_EXHAUSTIVE, "end_stops", False),
    _row(Method.HIT_GREEDY, "end_stops", False),
    _row(Method.HIT_BEAM, "end_stops", False),
    _row(Method.HIT_RANDOM, "end_stops", False),
    _row(Method.HIT_Z3, "end_stops", False),
    _row(Method.IDEAL, "converges", True),
    _row(Method.ALL_STREAMS, "converges", True, False),
    _row(Method.CLIPPED_BALL, "converges", True),
    _row(Method.CONTINUATION, "converges", False),
    _row(Method.PERIODIC, "converges", False),
    _row(Method.CONTINUATIONS_OPEN, "converges", None),
    _row(Method.PERIODIC_OPEN, "converges", None),
)}


def kind_of(slot: str, method: str) -> ClaimKind:
    """The :class:`ClaimKind` of a claim in ``slot`` that names ``method``.

    Raises
    ------
    ValueError
        When no kind of ``slot`` has that method (see the module doc's example).
    """
    try:
        kind = KINDS.get(Method(method))
    except ValueError:
        kind = None
    if kind is None or kind.slot != slot:
        raise ValueError(f"the method {method!r} does not decide a {slot} claim")
    return kind


def _register(table: dict, methods: tuple[Method, ...]) -> Callable[..., Any]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        for m in methods:
            if m in table:
                raise RuntimeError(f"BUG: {m.name} has two functions registered; "
                                   "please report it")
            table[m] = fn
        return fn
    return register


def proves(*methods: Method) -> Callable[..., Any]:
    """Register the decorated ``decide(ctx) -> Claim | None`` as the prover of the
    claims of ``methods``."""
    return _register(_PROVERS, methods)


def rechecks(*methods: Method) -> Callable[..., Any]:
    """Register the decorated function as the re-check of the claims of
    ``methods``."""
    return _register(_RECHECKS, methods)
