"""What the provers of one slot are given: :class:`RUnitContext` for an R-unit's
claims, :class:`MachineContext` for the claims about the whole machine.

:func:`verify.machine.check_machine` builds one :class:`MachineContext`, and one
:class:`RUnitContext` per R-unit; the provers of the ``learnable`` slot take the
R-unit's context itself, those of ``end_stops`` and ``converges`` a
:class:`SlotContext` of their own that holds it as ``base``
(:class:`verify.machine.claims._end_stops.EndStops`,
:class:`verify.machine.claims._converges.Convergence`), and those of a machine slot the
machine's. Each claim decided is kept in ``claims`` (by slot), so that later slots can
build on earlier ones.

Examples
--------
>>> import numpy as np
>>> from verify.machine.task import MachineTask, Units
>>> task = MachineTask(np.array([[1, 0], [0, 1]], np.uint8), np.array([[-1], [1]]),
...                    1, (np.array([0, 1]),), np.zeros((2, 2)), np.array(["a", "b"]))
>>> ctx = RUnitContext(0, task, Units(1, (-1, 1)))
>>> ctx.X.tolist(), ctx.y.tolist(), ctx.red.R_sq
([[1, 0], [0, 1]], [-1, 1], 1)
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from verify.machine.task import MachineTask, Reduced, Units

__all__ = ["RUnitContext", "MachineContext", "SlotContext"]


@dataclasses.dataclass
class RUnitContext:
    """One R-unit's task and search limits, and its claims decided so far.

    ``dynamic`` says whether the error-correction analyses apply, ``rules`` the
    ``(rule, quantize, machine_passes)`` of the forced and gamma analyses (None when
    they do not apply; :func:`verify.machine.claims._rules.analyses`); ``stuck`` the
    A-units a fault holds dead or on; ``hit`` the stream that reached an end stop,
    once one is found; ``memo`` what a prover computes once for several slots;
    ``params`` and ``plan`` the machine's parameters and fault plan (the device
    variation's provers read them; None: a machine without variation or faults)."""

    r: int
    task: MachineTask
    units: Units
    dynamic: bool = True
    rules: tuple | None = None
    stuck: frozenset = frozenset()
    budget: int = 200_000
    orders: int = 8
    z3_depth: int = 40
    rng: Any = None
    deadline: float | None = None
    claims: dict = dataclasses.field(default_factory=dict)
    hit: list | None = None
    memo: dict = dataclasses.field(default_factory=dict)
    params: Any = None
    plan: Any = None

    @functools.cached_property
    def cols(self) -> np.ndarray:
        """The A-units wired to the R-unit."""
        return np.asarray(self.task.inputs[self.r])

    @functools.cached_property
    def X(self) -> np.ndarray:
        """The R-unit's A-unit patterns (int64)."""
        return self.task.patterns[:, self.cols].astype(np.int64)

    @functools.cached_property
    def y(self) -> np.ndarray:
        """The R-unit's targets (+/-1)."""
        return self.task.targets[:, self.r]

    @functools.cached_property
    def red(self) -> Reduced:
        """The R-unit's task with its agreeing A-units merged."""
        return Reduced(self.X, self.y, self.units, self.cols)


@dataclasses.dataclass
class MachineContext:
    """What the provers of the claims about the whole machine share: the machine,
    its figures and labels and their task, the integer units, the fault plan (None
    without faults), the R-units' reports, the exposure to judge and the deadline."""

    machine: Any
    images: Any
    labels: Any
    task: MachineTask
    units: Units
    plan: Any = None
    reports: tuple = ()
    exposure_s: float | None = None
    deadline: float | None = None
    claims: dict = dataclasses.field(default_factory=dict)



def _from_base(name: str) -> property:
    """A property that reads the R-unit's ``name`` from ``base``."""
    return property(lambda self: getattr(self.base, name),
                    doc=f"The R-unit's {name} (from ``base``).")


@dataclasses.dataclass
class SlotContext:
    """The context of one R-unit slot's provers: the R-unit's
    :class:`RUnitContext` as ``base`` (its task, units, search limits and the stream
    that reached a stop read as attributes of this); a subclass adds what its
    provers record on the way and names its ``slot``."""

    slot = ""
    base: RUnitContext

    red = _from_base("red")
    units = _from_base("units")
    budget = _from_base("budget")
    orders = _from_base("orders")
    z3_depth = _from_base("z3_depth")
    rng = _from_base("rng")
    deadline = _from_base("deadline")
    hit = _from_base("hit")
