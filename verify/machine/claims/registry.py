"""The registry of claims: each kind names its slot, its verdicts, its provers and its
re-check.

A report is made of **slots**, each filled by one claim: three per R-unit
(``learnable``, ``end_stops``, ``converges``) and some about the whole machine
(``faults``, ``timing``, ``quantisation``). A claim says *how* it was decided in its
``method`` (``"one-signed columns"``, ``"greedy"``, ...): the pair (slot, method) is its
**kind**, one :class:`ClaimKind` row of :data:`KINDS` that says which verdicts (values of
``holds``) it can give and which evidence fields they require. This module is only the
mechanism: each claim module of :mod:`verify.machine.claims` declares its own rows
(:func:`add_kind`, and :func:`add_slot` for a claim about the whole machine) beside
its provers and re-checks. Two decorators tie code to the rows:

* :func:`proves` registers a prover ``decide(ctx) -> Claim | None`` of a slot at its
  place in the slot's order (``order=``, smallest first); :func:`decide` runs a slot's
  provers in that order, and the first claim wins. A prover may pass (``None``) or
  only prepare what later ones use.
* :func:`rechecks` registers the re-check ``recheck(ctx, claim) -> why`` of a kind:
  :func:`verify.machine.recheck_report` finds it through :func:`kind_of`, never by
  comparing the words of a method.

Adding a kind of claim is one module (its :func:`add_kind`, prover and re-check),
one line in ``verify/machine/claims/__init__.py`` that imports it, and one test file;
``docs/verify-machine.md`` ("Adding a claim") shows the smallest real one. The
built-in methods' words are the members of
:class:`verify.machine.claims.methods.Method`.

Examples
--------
>>> import verify.machine                      # registers the built-in claims
>>> kind = kind_of("end_stops", "one-signed columns")
>>> kind.method == "one-signed columns", kind.verdicts
(True, (True, None))
>>> [decide.__name__ for decide in kind.provers], kind.recheck.__name__
(['fits', 'undecided'], 'recheck_end_stops')
>>> kind_of("converges", "one-signed columns")
Traceback (most recent call last):
...
ValueError: the method 'one-signed columns' does not decide a converges claim
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from verify.machine.claims._fields import per_verdict, problem

__all__ = ["Slot", "ClaimKind", "SLOTS", "KINDS", "R_UNIT", "MACHINE",
           "add_slot", "add_kind", "remove_slot", "kind_of", "slots", "provers",
           "proves", "rechecks", "decide"]

#: The scopes of a slot: one claim per R-unit, or one about the whole machine.
R_UNIT, MACHINE = "r_unit", "machine"


@dataclasses.dataclass(frozen=True)
class Slot:
    """A place in a report that one claim fills: ``scope`` :data:`R_UNIT` (one per
    R-unit) or :data:`MACHINE` (one about the whole machine, a top-level field of
    the report); ``since`` is the first report format (``markone.verify.machine/N``)
    that has it, so that older reports are read without it."""

    name: str
    scope: str
    since: int = 1


@dataclasses.dataclass(frozen=True)
class _Prover:
    decide: Callable[..., Any]
    methods: tuple[str, ...]


#: Every slot, by name, in the order a report holds them.
SLOTS: dict[str, Slot] = {}
#: Every kind of claim, by ``(slot, method)``.
KINDS: dict[tuple[str, str], ClaimKind] = {}
_PROVERS: dict[str, dict[int, _Prover]] = {}
_RECHECKS: dict[tuple[str, str], Callable[..., Any]] = {}


@dataclasses.dataclass(frozen=True)
class ClaimKind:
    """One kind of claim: its ``slot``, its ``method`` (the words the report names),
    its ``verdicts`` (values of ``holds``), the ``evidence`` fields each verdict
    requires (None: not declared) and the ``optional`` ones (else: refused)."""

    slot: str
    method: str
    verdicts: tuple
    evidence: dict | None = None
    optional: tuple = ()

    def evidence_problem(self, holds: bool | None, fields: Any) -> str | None:
        """What is wrong with a claim's evidence ``fields`` (None: nothing)."""
        return problem(self, holds, fields)

    @property
    def provers(self) -> tuple[Callable[..., Any], ...]:
        """The provers that can give a claim of this kind, in their slot's order."""
        return tuple(p.decide for _, p in sorted(_PROVERS[self.slot].items())
                     if self.method in p.methods)

    @property
    def recheck(self) -> Callable[..., Any] | None:
        """The function that re-checks a claim of this kind from its evidence (None
        until its module is imported). A claim that rests on a search, with no
        certificate to check, comes out of it ``unchecked``."""
        return _RECHECKS.get((self.slot, self.method))


def add_slot(name: str, scope: str, *, since: int = 1) -> Slot:
    """Register a new place in the report (see :class:`Slot`): a claim about the
    whole machine, written as a top-level field of the report.

    Raises
    ------
    ValueError
        When the slot exists already, or ``scope`` is not :data:`MACHINE` (the R-unit
        slots are the report's three: a new claim about each R-unit is a new kind of
        one of them, or a machine slot whose evidence names the R-units).
    """
    if name in SLOTS:
        raise ValueError(f"the slot {name!r} is registered already")
    if scope != MACHINE:
        raise ValueError(f"a new slot must have scope {MACHINE!r}, got {scope!r}: each "
                         f"R-unit's claims are {list(slots(R_UNIT))}; add a kind to "
                         "one of them (add_kind) instead")
    return _new_slot(name, scope, since)


def _new_slot(name: str, scope: str, since: int = 1) -> Slot:
    SLOTS[name] = Slot(name, scope, since)
    _PROVERS[name] = {}
    return SLOTS[name]


def add_kind(slot: str, method: str, *verdicts: bool | None,
             evidence: Any = None, optional: tuple = ()) -> ClaimKind:
    """Register a kind of claim: ``method`` decides claims of ``slot`` with
    ``verdicts`` (some of True, False, None), its claims requiring the ``evidence``
    fields (for every verdict, or verdict -> fields) and allowed the ``optional``.

    >>> add_kind("timing", "settling", True)
    Traceback (most recent call last):
    ...
    ValueError: the kind ('timing', 'settling') is registered already
    """
    key = (slot, str(method))
    if slot not in SLOTS:
        raise ValueError(f"no slot {slot!r}: register it first with add_slot")
    if key in KINDS:
        raise ValueError(f"the kind {key} is registered already")
    if not verdicts or not set(verdicts) <= {True, False, None}:
        raise ValueError(f"the verdicts of {key} must be some of True, False and None, "
                         f"got {verdicts}")
    KINDS[key] = ClaimKind(slot, method, tuple(verdicts),
                           per_verdict(evidence, verdicts), tuple(optional))
    return KINDS[key]


def remove_slot(name: str) -> None:
    """Unregister a slot with its kinds, provers and re-checks (for a claim defined
    outside markone, such as a test's)."""
    del SLOTS[name], _PROVERS[name]
    for key in [k for k in KINDS if k[0] == name]:
        del KINDS[key]
        _RECHECKS.pop(key, None)


def slots(scope: str) -> tuple[str, ...]:
    """The names of the slots of ``scope``, in the report's order."""
    return tuple(name for name, s in SLOTS.items() if s.scope == scope)


def kind_of(slot: str, method: str) -> ClaimKind:
    """The :class:`ClaimKind` of a claim in ``slot`` that names ``method``.

    Raises
    ------
    ValueError
        When no kind of ``slot`` has that method (see the module doc's example).
    """
    kind = KINDS.get((slot, method)) if isinstance(method, str) else None
    if kind is None:
        raise ValueError(f"the method {method!r} does not decide a {slot} claim")
    return kind


def _slots_of(methods: tuple, slot: str | None) -> list[str]:
    """The slots a prover or re-check of ``methods`` registers in."""
    if slot is not None:
        missing = [str(m) for m in methods if (slot, str(m)) not in KINDS]
        if slot not in SLOTS or missing:
            raise ValueError(f"the slot {slot!r} has no kind {missing or ''}: register "
                             "them first with add_kind")
        return [slot]
    found = [s for s in SLOTS if methods and all((s, str(m)) in KINDS for m in methods)]
    if not found:
        raise ValueError(f"no slot has kinds for all of {[str(m) for m in methods]}; "
                         "name the slot (slot=...) or register the kinds first")
    return found


def proves(*methods: str, order: int, slot: str | None = None
           ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated ``decide(ctx) -> Claim | None`` as a prover of the claims
    of ``methods`` (none: it only prepares), at place ``order`` of its slot (every
    slot that has kinds for all ``methods``, or ``slot``).

    Raises
    ------
    RuntimeError
        When another prover holds that place of the slot.
    """
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        for s in _slots_of(methods, slot):
            held = _PROVERS[s].get(order)
            if held is not None:
                raise RuntimeError(f"{s} prover {order} is {held.decide.__name__} "
                                   f"already; give {fn.__name__} another order")
            _PROVERS[s][order] = _Prover(fn, tuple(str(m) for m in methods))
        return fn
    return register


def rechecks(*methods: str, slot: str | None = None
             ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated ``recheck(ctx, claim) -> why`` as the re-check of the
    claims of ``methods`` (in every slot that has kinds for all of them, or
    ``slot``).

    Raises
    ------
    RuntimeError
        When a kind has a re-check already.
    """
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        for s in _slots_of(methods, slot):
            for m in methods:
                held = _RECHECKS.get((s, str(m)))
                if held is not None:
                    raise RuntimeError(f"the kind {(s, str(m))} is re-checked by "
                                       f"{held.__name__} already")
                _RECHECKS[s, str(m)] = fn
        return fn
    return register


def provers(slot: str) -> tuple[Callable[..., Any], ...]:
    """The provers of ``slot`` in the order they are tried."""
    return tuple(p.decide for _, p in sorted(_PROVERS[slot].items()))


def decide(slot: str, ctx: Any, *, until: int | None = None) -> Any:
    """The claim of ``slot``: the first that its provers give, in their order (with
    ``until``, only the provers placed before it are tried, and None is returned
    when none of them gives a claim).

    Raises
    ------
    RuntimeError
        When no prover gives a claim, or one gives a claim of an unregistered kind or
        with a verdict its kind cannot give (a bug in that prover).
    """
    for order, prover in sorted(_PROVERS[slot].items()):
        if until is not None and order >= until:
            return None
        claim = prover.decide(ctx)
        if claim is not None:
            kind = KINDS.get((slot, str(claim.method)))
            if kind is None or claim.holds not in kind.verdicts:
                raise RuntimeError(f"BUG: {prover.decide.__name__} gave a {slot} claim "
                                   f"({claim.method!r}, holds={claim.holds}) of no "
                                   "registered kind; please report it")
            return claim
    if until is not None:
        return None
    raise RuntimeError(f"BUG: no {slot} prover gave a claim; please report it")


def _report_slots() -> None:
    """The three slots of each R-unit, fixed by the report's format (the claims about
    the whole machine register their slots in their own modules, with
    :func:`add_slot`)."""
    for name in ("learnable", "end_stops", "converges"):
        _new_slot(name, R_UNIT)


_report_slots()
