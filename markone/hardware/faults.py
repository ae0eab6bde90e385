"""Hardware that breaks: faults as data, scheduled on the machine's SimPy clock.

A fault is a small frozen record of what broke and when (``at_s``, machine seconds;
0 means from the start). :class:`FaultPlan` collects them with a seed for the ones that
are random in time; :func:`apply_faults` attaches a plan to a
:class:`~markone.hardware.MarkI`, which then consults it at four narrow points of each
presentation (S-units read, A-units fired, R-unit sums, motor moves). A machine without
a plan, or with an empty one, is today's machine bit for bit.

=============================  =========================================================
``PhotocellStuck(cell, value)``  the cell reads ``value`` (0 dead, 1 stuck lit)
``CutWire(a_unit, s_unit)``      the plugboard wire from S-unit to A-unit is cut
``AUnitStuck(a_unit, value)``    the A-unit always outputs ``value`` (0 dead, 1 on)
``MotorStopped(r_unit, a_unit)`` that potentiometer's motor no longer turns
``PotentiometerDrift(sd)``       every weight random-walks, ``sd`` steps per sqrt(second)
``NoisySum(sd)``                 Gaussian noise of ``sd`` on every R-unit's sum
=============================  =========================================================

:func:`random_faults` draws a plan that cuts a fraction of the wires, kills a fraction of
the A-units, stops a fraction of the motors, and so on, from a seed.
:func:`damaged_patterns` gives the A-unit patterns of settled figures once every
permanent fault has happened (what :func:`verify.machine.check_machine` analyses).

Examples
--------
>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> from markone._figures import letters
>>> images, labels = letters("AB", per_class=2, seed=0)
>>> machine = MarkI(seed=0)
>>> healthy = machine.train(images, labels, max_epochs=5)
>>> plan = FaultPlan((AUnitStuck(a_unit=3, value=1), MotorStopped(r_unit=0, a_unit=3),
...                   CutWire(a_unit=7, s_unit=int(machine.wiring.excitatory[7, 0]),
...                           at_s=2.0)))
>>> apply_faults(machine, plan)
>>> run = machine.train(images, labels, max_epochs=5)
>>> float(machine.weights[0, 3])             # its motor never turned
0.0
>>> apply_faults(machine, FaultPlan())       # no fault: the healthy machine again
>>> bool((machine.train(images, labels, max_epochs=5).weights == healthy.weights).all())
True
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from markone._internal.registry import register, unregister
from markone._internal.validation import as_generator
from markone._internal.typing import JSONDict, Seed
from markone._params import InvalidParameterError
from markone.hardware import plugboard
from markone.hardware.runits import numbered, r_unit_name

if TYPE_CHECKING:
    from markone.hardware.plugboard import Wiring

#: A :class:`markone.hardware.MarkI` (not imported: the machine imports its run, and the
#: run keeps its fault plan, so naming the class here would close an import cycle).
MarkI = Any

__all__ = ["PhotocellStuck", "CutWire", "AUnitStuck", "MotorStopped",
           "PotentiometerDrift", "NoisySum", "FaultPlan", "apply_faults",
           "random_faults", "break_now", "damaged_patterns", "faults_for", "describe_fault",
           "FAULT_KINDS", "Fault", "fault_kind", "remove_fault_kind"]


def _check_time(at_s):
    if isinstance(at_s, bool) or not isinstance(at_s, numbers.Real) or not (
            at_s >= 0 and np.isfinite(at_s)):
        raise ValueError(f"at_s(={at_s!r}) must be a finite number of machine seconds "
                         ">= 0 (0: broken from the start).")


def _check_index(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name}(={value!r}) must be an integer index >= 0.")


def _check_bit(value, name):
    if value not in (0, 1) or isinstance(value, float):
        raise ValueError(f"{name}(={value!r}) must be 0 or 1.")


def _check_sd(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            value > 0 and np.isfinite(value)):
        raise ValueError(f"{name}(={value!r}) must be a finite number > 0.")


#: The part a fault's index field names, as messages name it (counted from 1).
_PART = {"cell": "photocell", "a_unit": "A-unit", "s_unit": "S-unit"}


def _out_of_range(fault, name, value, top):
    """Refuse index ``value`` of field ``name``, beyond the ``top`` parts there are,
    in both numberings (docs/command-line.md, "How things are numbered").

    >>> _out_of_range(AUnitStuck(512, 1), "a_unit", 512, 512)
    Traceback (most recent call last):
    ...
    ValueError: AUnitStuck: a_unit=512 names A-unit 513, but this machine has A-units 1..512 (a_unit 0..511).
    >>> _out_of_range(MotorStopped(8, 0), "r_unit", 8, 8)
    Traceback (most recent call last):
    ...
    ValueError: MotorStopped: r_unit=8 names R9, but this machine has R1..R8 (r_unit 0..7).
    """
    if name == "r_unit":
        part, parts = r_unit_name(value), f"{r_unit_name(0)}..{r_unit_name(top - 1)}"
    else:
        part, parts = numbered(_PART[name], value), f"{_PART[name]}s 1..{top}"
    raise ValueError(f"{type(fault).__name__}: {name}={value} names {part}, but this "
                     f"machine has {parts} ({name} 0..{top - 1}).")


class Fault:
    """What a kind of fault says about itself; every fault record (a frozen dataclass
    with ``at_s``) derives from it and is registered with :func:`fault_kind`.

    A new kind is its record class here (or anywhere) with :meth:`happen` and
    :meth:`words`, and, as they apply, :meth:`fits`, :meth:`counted`,
    :attr:`changes_patterns` and :meth:`stopped_input`; plans, files, words, the
    machine's hooks and :mod:`verify.machine` then take it
    (``tests/markone/hardware/test_toy_fault.py`` defines one in a test file alone).
    """

    #: It changes the A-unit patterns of settled figures (the analysed task has it).
    changes_patterns: ClassVar[bool] = False
    at_s: float

    def happen(self, damage: Any) -> None:
        """Break the part in ``damage`` (the machine's :class:`_Damage`): now."""
        raise NotImplementedError

    def words(self) -> str:
        """What broke, in words (:func:`describe_fault` adds when)."""
        raise NotImplementedError

    def fits(self, params: Any, wiring: Wiring, n_s: int) -> None:
        """Raise ValueError when the fault names a part this machine lacks."""

    def counted(self) -> str | None:
        """Plural words to count many faults of this kind by (None: each in full)."""
        return None

    def part(self) -> tuple | None:
        """The one part this fault sets the state of (no plan may name it twice at
        one time), or None for a kind whose faults add up (drift, noise)."""
        return None

    def stopped_input(self) -> tuple[int, int] | None:
        """``(r_unit, a_unit)`` when the fault cuts that input out of the R-unit from
        the start (its weight can never move), else None."""
        return None


#: The fault kinds by name (the record classes' names, as plan files spell them).
FAULT_KINDS: dict[str, type[Fault]] = {}


def fault_kind(cls: type[Fault]) -> type[Fault]:
    """Register the fault record class ``cls`` (a decorator); a name taken is an error.

    >>> fault_kind(CutWire)
    Traceback (most recent call last):
    ...
    ValueError: fault kind 'CutWire' is registered already; give the new fault kind a new name.
    """
    return register(FAULT_KINDS, cls.__name__, cls, "fault kind")


def remove_fault_kind(name: str) -> None:
    """Unregister the fault kind ``name`` (for tests that add one); the built-in kinds
    stay."""
    unregister(FAULT_KINDS, name, _BUILT_IN, "fault kind")


def _fault_types() -> tuple[type[Fault], ...]:
    return tuple(FAULT_KINDS.values())


def _kind_names() -> str:
    return ", ".join(FAULT_KINDS)


@fault_kind
@dataclasses.dataclass(frozen=True)
class PhotocellStuck(Fault):
    """Photocell ``cell`` (flat retina index) reads ``value`` from ``at_s`` on."""

    changes_patterns: ClassVar[bool] = True
    cell: int
    value: int = 0
    at_s: float = 0.0

    def __post_init__(self):
        _check_index(self.cell, "cell")
        _check_bit(self.value, "value")
        _check_time(self.at_s)

    def happen(self, damage: Any) -> None:
        damage.cell[self.cell] = self.value

    def words(self) -> str:
        return f"{numbered('photocell', self.cell)} {('dead', 'stuck lit')[self.value]}"

    def fits(self, params: Any, wiring: Wiring, n_s: int) -> None:
        if self.cell >= n_s:
            _out_of_range(self, "cell", self.cell, n_s)

    def counted(self) -> str | None:
        return ("photocells dead", "photocells stuck lit")[self.value]

    def part(self) -> tuple | None:
        return ("photocell", self.cell)


@fault_kind
@dataclasses.dataclass(frozen=True)
class CutWire(Fault):
    """The plugboard wire from S-unit ``s_unit`` to A-unit ``a_unit`` is cut."""

    changes_patterns: ClassVar[bool] = True
    a_unit: int
    s_unit: int
    at_s: float = 0.0

    def __post_init__(self):
        _check_index(self.a_unit, "a_unit")
        _check_index(self.s_unit, "s_unit")
        _check_time(self.at_s)

    def happen(self, damage: Any) -> None:
        damage.cut[self.a_unit] |= damage.wiring.inputs[self.a_unit] == self.s_unit

    def words(self) -> str:
        return (f"wire ({numbered('S-unit', self.s_unit)}, "
                f"{numbered('A-unit', self.a_unit)}) cut")

    def fits(self, params: Any, wiring: Wiring, n_s: int) -> None:
        if self.a_unit >= params.n_a_units:
            _out_of_range(self, "a_unit", self.a_unit, params.n_a_units)
        if self.s_unit not in wiring.inputs[self.a_unit]:
            raise ValueError(
                f"CutWire: no wire runs from {numbered('S-unit', self.s_unit)} to "
                f"{numbered('A-unit', self.a_unit)} (s_unit={self.s_unit}, "
                f"a_unit={self.a_unit}); the s_unit of its wires is one of "
                f"{wiring.inputs[self.a_unit].tolist()}.")

    def counted(self) -> str | None:
        return "wires cut"

    def part(self) -> tuple | None:
        return ("wire", self.s_unit, self.a_unit)


@fault_kind
@dataclasses.dataclass(frozen=True)
class AUnitStuck(Fault):
    """A-unit ``a_unit`` outputs ``value`` whatever its inputs (0: dead)."""

    changes_patterns: ClassVar[bool] = True
    a_unit: int
    value: int = 0
    at_s: float = 0.0

    def __post_init__(self):
        _check_index(self.a_unit, "a_unit")
        _check_bit(self.value, "value")
        _check_time(self.at_s)

    def happen(self, damage: Any) -> None:
        damage.a_value[self.a_unit] = self.value

    def words(self) -> str:
        return f"{numbered('A-unit', self.a_unit)} {('dead', 'stuck on')[self.value]}"

    def fits(self, params: Any, wiring: Wiring, n_s: int) -> None:
        if self.a_unit >= params.n_a_units:
            _out_of_range(self, "a_unit", self.a_unit, params.n_a_units)

    def counted(self) -> str | None:
        return ("A-units dead", "A-units stuck on")[self.value]

    def part(self) -> tuple | None:
        return ("A-unit", self.a_unit)


@fault_kind
@dataclasses.dataclass(frozen=True)
class MotorStopped(Fault):
    """The motor of potentiometer ``(r_unit, a_unit)`` stops turning: the weight
    keeps the value it has at ``at_s``."""

    r_unit: int
    a_unit: int
    at_s: float = 0.0

    def __post_init__(self):
        _check_index(self.r_unit, "r_unit")
        _check_index(self.a_unit, "a_unit")
        _check_time(self.at_s)

    def happen(self, damage: Any) -> None:
        damage.frozen[self.r_unit, self.a_unit] = True

    def words(self) -> str:
        return (f"motor of potentiometer ({r_unit_name(self.r_unit)}, "
                f"{numbered('A-unit', self.a_unit)}) stopped")

    def fits(self, params: Any, wiring: Wiring, n_s: int) -> None:
        if self.a_unit >= params.n_a_units:
            _out_of_range(self, "a_unit", self.a_unit, params.n_a_units)
        if self.r_unit >= params.n_r_units:
            _out_of_range(self, "r_unit", self.r_unit, params.n_r_units)

    def counted(self) -> str | None:
        return "motors stopped"

    def part(self) -> tuple | None:
        return ("motor", self.r_unit, self.a_unit)

    def stopped_input(self) -> tuple[int, int] | None:
        return (self.r_unit, self.a_unit) if self.at_s == 0 else None


@fault_kind
@dataclasses.dataclass(frozen=True)
class PotentiometerDrift(Fault):
    """Every potentiometer random-walks: Gaussian steps of ``sd * sqrt(dt)`` motor
    steps over ``dt`` machine seconds (applied before each decision)."""

    sd: float
    at_s: float = 0.0

    def __post_init__(self):
        _check_sd(self.sd, "sd")
        _check_time(self.at_s)

    def happen(self, damage: Any) -> None:
        damage.before_decision()   # the walk starts now
        damage.drift_sd = float(np.hypot(damage.drift_sd, self.sd))

    def words(self) -> str:
        return f"every potentiometer drifts (sd {self.sd:g} steps per sqrt(s))"


@fault_kind
@dataclasses.dataclass(frozen=True)
class NoisySum(Fault):
    """Gaussian noise of standard deviation ``sd`` (motor steps) on each R-unit's sum."""

    sd: float
    at_s: float = 0.0

    def __post_init__(self):
        _check_sd(self.sd, "sd")
        _check_time(self.at_s)

    def happen(self, damage: Any) -> None:
        damage.noise_sd = float(np.hypot(damage.noise_sd, self.sd))

    def words(self) -> str:
        return f"noise on every R-unit's sum (sd {self.sd:g} steps)"


_BUILT_IN = frozenset(FAULT_KINDS)


@dataclasses.dataclass(frozen=True)
class FaultPlan:
    """The faults of one machine, and the seed of the random ones (drift, noise).

    >>> FaultPlan((CutWire(0, 5),)).kinds()
    ('CutWire',)
    >>> FaultPlan(("dead",))
    Traceback (most recent call last):
    ...
    TypeError: faults must be fault records (PhotocellStuck, CutWire, AUnitStuck, MotorStopped, PotentiometerDrift, NoisySum), got str.
    """

    faults: tuple = ()
    seed: int = 0

    def __post_init__(self):
        object.__setattr__(self, "faults", tuple(self.faults))
        for f in self.faults:
            if not isinstance(f, _fault_types()):
                raise TypeError(f"faults must be fault records ({_kind_names()}), got "
                                f"{type(f).__name__}.")
        _check_one_state_at_a_time(self.faults)

    def __len__(self):
        return len(self.faults)

    def time_order(self) -> tuple[int, ...]:
        """The indices of the faults in the order they happen: by ``at_s``, faults
        at one time in the order listed. A plan keeps its faults as listed (reports
        and files index them so); whatever applies them (the running machine,
        :func:`damaged_patterns`, :mod:`verify.machine`) takes them in this order,
        so a part broken twice ends as its later fault says, however the plan lists
        them.

        >>> FaultPlan((AUnitStuck(4, 1, at_s=2), CutWire(0, 5), AUnitStuck(4, 0, at_s=1),
        ...            NoisySum(0.5))).time_order()
        (1, 3, 2, 0)
        """
        return tuple(sorted(range(len(self.faults)), key=lambda i: self.faults[i].at_s))

    def kinds(self) -> tuple[str, ...]:
        """The distinct kinds of fault in the plan, in order of appearance."""
        return tuple(dict.fromkeys(type(f).__name__ for f in self.faults))

    def only(self, keep: Callable[[Any], bool]) -> FaultPlan:
        """A plan with the faults for which ``keep(fault)`` is true (same seed)."""
        return FaultPlan(tuple(f for f in self.faults if keep(f)), self.seed)

    def to_dict(self) -> JSONDict:
        """JSON-ready: ``{"seed": .., "faults": [{"kind": .., field: ..}, ..]}``."""
        return {"seed": self.seed, "faults": [
            {"kind": type(f).__name__, **dataclasses.asdict(f)} for f in self.faults]}

    def describe(self, limit: int = 6) -> str:
        """The plan in words: each fault named by what broke (:func:`describe_fault`),
        or, beyond ``limit`` faults, how many of each kind.

        >>> FaultPlan((CutWire(3, 17), MotorStopped(0, 5))).describe()
        'wire (S-unit 18, A-unit 4) cut; motor of potentiometer (R1, A-unit 6) stopped'
        >>> FaultPlan(tuple(AUnitStuck(a) for a in range(10))).describe()
        '10 A-units dead'
        """
        if not self.faults:
            return "no faults"
        if len(self.faults) <= limit:
            return "; ".join(map(describe_fault, self.faults))
        counts: dict[str, int] = {}
        for f in self.faults:
            what = f.counted()
            if what is not None:
                counts[what] = counts.get(what, 0) + 1
        parts = [", ".join(f"{n} {what}" for what, n in counts.items())]
        parts += [describe_fault(f) for f in self.faults if f.counted() is None]
        return "; ".join(filter(None, parts))

    @classmethod
    def from_dict(cls, data: Any) -> FaultPlan:
        """Inverse of :meth:`to_dict` (the fault-plan file format); a bad entry is an
        error naming it, what was expected and the fix.

        >>> FaultPlan.from_dict({"faults": [{"kind": "CutWire", "a_unit": 0,
        ...                                  "s_unit": 5}]}).faults
        (CutWire(a_unit=0, s_unit=5, at_s=0.0),)
        >>> FaultPlan.from_dict({"faults": [{"kind": "Fire"}]})
        Traceback (most recent call last):
        ...
        ValueError: faults[0]: kind 'Fire' is not a fault; expected one of PhotocellStuck, CutWire, AUnitStuck, MotorStopped, PotentiometerDrift, NoisySum.
        """
        if not isinstance(data, dict) or not isinstance(data.get("faults"), list):
            raise ValueError(
                'a fault plan must be {"faults": [{"kind": "CutWire", "a_unit": 0, '
                '"s_unit": 5}, ...], "seed": 0}, as FaultPlan.to_dict writes it.')
        unknown = sorted(set(data) - {"faults", "seed"})
        if unknown:
            raise ValueError(f"a fault plan has the keys 'faults' and 'seed', not "
                             f"{unknown}.")
        seed = data.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"the fault plan's seed(={seed!r}) must be an integer >= 0 "
                             "(it draws the drift and the summation noise).")
        faults = tuple(_fault_from_dict(i, entry) for i, entry in enumerate(data["faults"]))
        return cls(faults, seed)


def _check_one_state_at_a_time(faults: tuple) -> None:
    """Refuse two faults of a plan that set one part at one time (A-unit 5 dead and
    stuck on at 0 s): the machine would silently keep the later one. Every plan is
    checked here, built in Python (:class:`FaultPlan`) or read from a file
    (:meth:`FaultPlan.from_dict`); kinds whose faults add up (drift, noise) may repeat.

    >>> _check_one_state_at_a_time((AUnitStuck(4), CutWire(0, 5), AUnitStuck(4, 1)))
    Traceback (most recent call last):
    ...
    markone.InvalidParameterError: faults[0] (A-unit 5 dead) and faults[2] (A-unit 5 stuck on) break the same part at the same time (at_s=0); keep one of them, or give them different at_s.
    >>> _check_one_state_at_a_time((NoisySum(0.5), NoisySum(0.5), AUnitStuck(4, at_s=1),
    ...                             AUnitStuck(4, 1)))       # adds up; at other times
    """
    first: dict[tuple, int] = {}
    for j, f in enumerate(faults):
        state = _state_set(f)
        if state is None:
            continue
        i = first.setdefault(state, j)
        if i != j:
            raise InvalidParameterError(
                f"faults[{i}] ({faults[i].words()}) and faults[{j}] ({f.words()}) break "
                f"the same part at the same time (at_s={f.at_s:g}); keep one of them, "
                "or give them different at_s.")


def _state_set(fault: Any) -> tuple | None:
    """What ``fault`` sets, a plan holding it once: its kind, part and time (None for a
    kind whose faults add up)."""
    part = fault.part()
    return None if part is None else (type(fault).__name__, part, fault.at_s)


def describe_fault(fault: Any) -> str:
    """One fault named by what broke: wires as (S-unit, A-unit), photocells and units
    by number counted from 1 (:func:`~markone.hardware.runits.numbered`: the record's
    ``a_unit=3`` is A-unit 4), R-units as R1..R8 (:func:`~markone.hardware.runits.
    r_unit_name`), and when, if not from the start.

    >>> describe_fault(PhotocellStuck(42, value=1, at_s=30))
    'photocell 43 stuck lit from 30 s'
    >>> describe_fault(PotentiometerDrift(0.5))
    'every potentiometer drifts (sd 0.5 steps per sqrt(s))'
    """
    what = fault.words()
    return what if not fault.at_s else f"{what} from {fault.at_s:g} s"


def _fault_from_dict(i, entry):
    """Fault record ``i`` of a plan from its ``{"kind": .., field: ..}`` dict."""
    kinds = FAULT_KINDS
    kind = entry.get("kind") if isinstance(entry, dict) else None
    if kind not in kinds:
        raise ValueError(f"faults[{i}]: kind {kind!r} is not a fault; expected one of "
                         f"{', '.join(kinds)}.")
    fields = {k: v for k, v in entry.items() if k != "kind"}
    names = [f.name for f in dataclasses.fields(kinds[kind])]
    required = [f.name for f in dataclasses.fields(kinds[kind])
                if f.default is dataclasses.MISSING]
    unknown = sorted(set(fields) - set(names))
    missing = [name for name in required if name not in fields]
    if unknown or missing:
        raise ValueError(f"faults[{i}]: {kind} has the fields {names} (required: "
                         f"{required}), got {sorted(fields)}.")
    try:
        return kinds[kind](**fields)
    except ValueError as exc:
        raise ValueError(f"faults[{i}]: {kind}: {exc}") from None


def faults_for(machine: MarkI, faults: FaultPlan | Mapping[str, Any] | None
               ) -> FaultPlan | None:
    """The plan ``faults`` asks for on ``machine``: a :class:`FaultPlan` as it is, the
    keyword arguments of :func:`random_faults` drawn on this machine, or None.

    >>> from markone.hardware import MarkI
    >>> len(faults_for(MarkI(seed=0), {"dead_a_units": 0.5, "seed": 1}))
    256
    """
    if faults is None or isinstance(faults, FaultPlan):
        return faults
    return random_faults(machine, **faults)


class _Damage:
    """A plan applied to one machine: the current state of every fault."""

    def __init__(self, plan, machine):
        p = machine.params
        n_s = p.retina_shape[0] * p.retina_shape[1]
        wiring = machine.wiring
        for i, f in enumerate(plan.faults):
            try:
                f.fits(p, wiring, n_s)
            except ValueError as exc:   # named as a plan file's other faults are
                raise ValueError(f"faults[{i}]: {exc}") from None
        self.plan = plan
        self.machine = machine
        self.wiring = wiring
        self.n_s, self.n_a, self.n_r = n_s, p.n_a_units, p.n_r_units

    def arm(self, env=None):
        """Start from the healthy state and schedule every fault on ``env``; without
        a clock every fault happens at once."""
        self.cell = np.full(self.n_s, -1, np.int8)          # -1: healthy
        self.cut = np.zeros(self.wiring.inputs.shape, bool)
        self.a_value = np.full(self.n_a, -1, np.int8)
        self.frozen = np.zeros((self.n_r, self.n_a), bool)
        self.drift_sd = 0.0
        self.noise_sd = 0.0
        self.rng = as_generator(self.plan.seed)
        self.last_s = 0.0 if env is None else float(env.now)
        self.env = env
        for i in self.plan.time_order():
            f = self.plan.faults[i]
            if env is None or f.at_s <= env.now:
                self._happen(f)
            else:
                env.process(self._at(f))

    def _at(self, fault):
        yield self.env.timeout(fault.at_s - self.env.now)
        self._happen(fault)

    def add(self, fault):
        """One more fault, which happens at once (its ``at_s`` is the caller's); it
        replaces a fault that set the same part at the same time (the part is as it
        was broken last, and the plan one that a plan file can hold)."""
        fault.fits(self.machine.params, self.wiring, self.n_s)
        state = _state_set(fault)
        kept = tuple(f for f in self.plan.faults
                     if state is None or _state_set(f) != state)
        self.plan = FaultPlan(kept + (fault,), self.plan.seed)
        self._happen(fault)

    def _happen(self, f):
        f.happen(self)

    # the hooks MarkI calls -----------------------------------------------------------
    def s_units(self, s):
        """The S-units as read (``(n_s,)`` or ``(n, n_s)``), with stuck photocells."""
        bad = self.cell >= 0
        if not bad.any():
            return s
        s = np.array(s, dtype=np.uint8)
        s[..., bad] = self.cell[bad]
        return s

    def a_units(self, s, theta):
        """The A-unit outputs (uint8) for S-state ``s``, with cut wires and stuck units."""
        return fire_damaged(self.wiring, s, theta, self.cut, self.a_value)

    def before_decision(self):
        """Let the potentiometers drift for the machine time since the last decision."""
        self._drift()

    def noise(self, scores):
        """The R-units' sums with summation noise."""
        if self.noise_sd > 0:
            return scores + self.rng.normal(0.0, self.noise_sd, scores.shape)
        return scores

    def _drift(self):
        dt = self.env.now - self.last_s
        self.last_s = self.env.now
        if self.drift_sd > 0 and dt > 0:
            w = self.machine.runits.weights
            step = self.rng.normal(0.0, self.drift_sd * np.sqrt(dt), w.shape)
            step[self.frozen] = 0.0
            mask = self.machine.runits.mask
            if mask is not None:   # source sets: an unwired potentiometer is not there
                step[~mask] = 0.0
            w += step
            wr = self.machine.params.weight_range
            if wr is not None:
                np.clip(w, *wr, out=w)

    def motors(self, move):
        """The move with stopped motors left where they are."""
        frozen = self.frozen[move.rows]
        if frozen.any():
            move.new[frozen] = move.old[frozen]
            move.steps[:] = np.abs(move.new - move.old).max(axis=1, initial=0.0)
        return move



def fire_damaged(wiring: Wiring, s: np.ndarray, theta: int, cut: np.ndarray,
                 a_value: np.ndarray) -> np.ndarray:
    """A-unit outputs (uint8) for S-states ``s`` (``(n_s,)`` or ``(n, n_s)``) when the
    wires marked in ``cut`` (``(n_a, inputs)`` bool) carry nothing and the A-units with
    ``a_value >= 0`` are stuck at it."""
    s = np.asarray(s, dtype=np.float64)
    signs = np.where(cut, 0.0, wiring.signs[None, :])
    net = (s[..., wiring.inputs] * signs).sum(axis=-1)
    a = (net >= theta).astype(np.uint8)
    stuck = a_value >= 0
    if stuck.any():
        a[..., stuck] = a_value[stuck]
    return a


def apply_faults(machine: MarkI, plan: FaultPlan | None) -> None:
    """Attach ``plan`` to ``machine`` (replacing any earlier plan) and restart it.

    The machine is reset (weights zero, clock 0): the faults happen at their
    ``at_s`` on the new clock. An empty plan removes every fault.
    """
    if not isinstance(plan, FaultPlan):
        raise TypeError(f"plan must be a FaultPlan, got {type(plan).__name__}; build one "
                        "with FaultPlan((CutWire(a_unit, s_unit), ...)) or random_faults.")
    machine.faults = _Damage(plan, machine) if len(plan) else None
    machine.reset()


def break_now(machine: MarkI, fault: Any) -> FaultPlan:
    """Break one more part of a running ``machine`` now, on its clock, without the
    reset of :func:`apply_faults` (weights, clock and earlier faults stay).

    ``fault`` is a fault record; it is kept in the machine's plan with ``at_s`` set to
    the machine's time, so a saved run says when the part broke. Returns the plan.

    >>> from markone.hardware import MarkI
    >>> m = MarkI(seed=0)
    >>> plan = break_now(m, AUnitStuck(a_unit=7))
    >>> plan.describe(), int(m.faults.a_value[7])
    ('A-unit 8 dead', 0)
    >>> break_now(m, CutWire(a_unit=0, s_unit=400))
    Traceback (most recent call last):
    ...
    ValueError: CutWire: no wire runs from S-unit 401 to A-unit 1 (s_unit=400, a_unit=0); the s_unit of its wires is one of [...].
    """
    if not isinstance(fault, _fault_types()):
        raise TypeError(f"fault must be a fault record ({_kind_names()}), got "
                        f"{type(fault).__name__}.")
    fault = dataclasses.replace(fault, at_s=machine.now_s)  # type: ignore[type-var]
    if machine.faults is None:
        damage = _Damage(FaultPlan(), machine)
        damage.arm(machine.env)
        damage.add(fault)   # checked before the machine is touched
        machine.faults = damage
    else:
        machine.faults.add(fault)
    return machine.faults.plan


def damaged_patterns(machine: MarkI, settled: np.ndarray, theta: int,
                     plan: FaultPlan | None = None) -> np.ndarray:
    """A-unit patterns ``(n, n_a)`` of settled S-states once every fault of ``plan``
    (default: the machine's) that changes patterns has happened.

    >>> from markone.hardware import MarkI, MarkIParams
    >>> m = MarkI(MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1,
    ...                       n_inhibitory=0, max_fanout=1, theta=1), seed=0)
    >>> s = np.array([[1, 1]])
    >>> damaged_patterns(m, s, 1, FaultPlan((AUnitStuck(0),))).tolist()
    [[0, 1]]
    """
    if plan is None:
        plan = machine.faults.plan if machine.faults is not None else FaultPlan()
    faults = [f for f in plan.faults if f.changes_patterns]
    if not faults:
        return plugboard.fire(machine.wiring, settled, theta)
    damage = _Damage(FaultPlan(tuple(faults)), machine)
    damage.arm()
    return damage.a_units(damage.s_units(settled), theta)


def random_faults(machine: MarkI, *, cut_wires: float = 0.0, dead_a_units: float = 0.0,
                  stopped_motors: float = 0.0, dead_photocells: float = 0.0,
                  drift_sd: float = 0.0, noise_sd: float = 0.0, at_s: float = 0.0,
                  seed: Seed = None) -> FaultPlan:
    """A :class:`FaultPlan` that breaks a fraction of each kind of part, from ``seed``.

    Parameters
    ----------
    machine : MarkI
        The machine whose parts are broken (its wiring names the wires).
    cut_wires, dead_a_units, stopped_motors, dead_photocells : float
        Fractions in [0, 1] of plugboard wires, A-units, potentiometer motors and
        photocells (rounded to whole parts, chosen without replacement).
    drift_sd, noise_sd : float
        Potentiometer drift (steps per sqrt(second)) and summation noise; 0 for none.
    at_s : float
        When the parts break (machine seconds).
    seed : None, int or Generator

    >>> from markone.hardware import MarkI
    >>> m = MarkI(seed=0)
    >>> plan = random_faults(m, cut_wires=0.1, dead_a_units=0.25, seed=1)
    >>> plan.kinds(), len(plan)                    # 512 x 10 wires, 512 A-units
    (('CutWire', 'AUnitStuck'), 640)
    """
    rng = as_generator(seed)
    p = machine.params
    for name, v in (("cut_wires", cut_wires), ("dead_a_units", dead_a_units),
                    ("stopped_motors", stopped_motors),
                    ("dead_photocells", dead_photocells)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not 0 <= v <= 1:
            raise ValueError(f"{name}(={v!r}) must be a fraction in [0, 1].")
    inputs = machine.wiring.inputs
    faults: list[Any] = []
    n = round(cut_wires * inputs.size)
    for k in np.sort(rng.choice(inputs.size, n, replace=False)):
        a, j = divmod(int(k), inputs.shape[1])
        faults.append(CutWire(a, int(inputs[a, j]), at_s))
    n = round(dead_a_units * p.n_a_units)
    faults += [AUnitStuck(int(a), 0, at_s)
               for a in np.sort(rng.choice(p.n_a_units, n, replace=False))]
    n = round(stopped_motors * p.n_r_units * p.n_a_units)
    for k in np.sort(rng.choice(p.n_r_units * p.n_a_units, n, replace=False)):
        r, a = divmod(int(k), p.n_a_units)
        faults.append(MotorStopped(r, a, at_s))
    n_s = p.retina_shape[0] * p.retina_shape[1]
    n = round(dead_photocells * n_s)
    faults += [PhotocellStuck(int(c), 0, at_s)
               for c in np.sort(rng.choice(n_s, n, replace=False))]
    if drift_sd:
        faults.append(PotentiometerDrift(drift_sd, at_s))
    if noise_sd:
        faults.append(NoisySum(noise_sd, at_s))
    return FaultPlan(tuple(faults), int(rng.integers(2**31)))
