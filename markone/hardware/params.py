"""Every physical parameter of the Mark I emulation, with its unit and provenance.

Each field of :class:`MarkIParams` is **documented** (stated in a source its note
cites by key, ``[Nagy2011]``, from the bibliography ``markone._internal.sources.SOURCES``),
**disputed** (sources disagree; both options are offered) or
**assumed** (no source found; the note says why this default). The machine prints this
provenance: ``MarkIParams().table()``.

Examples
--------
>>> p = MarkIParams()
>>> p.motor_step_s, p.weight_range, p.topology
(0.2, (-50, 50), 'full')
>>> MarkIParams.ideal().motor_step_s
0.0
>>> row = p.describe()[0]
>>> row.name, row.provenance
('retina_shape', 'documented')
>>> MarkIParams(photocell_rise_s=-1)
Traceback (most recent call last):
...
ValueError: photocell_rise_s(=-1) must be a finite number >= 0 (seconds); use 0 for an instant photocell.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping
from typing import Any, NamedTuple

from markone._internal.validation import check_choice, check_int_at_least, check_positive

__all__ = ["MarkIParams", "ParamRow", "RULES", "TOPOLOGIES", "CLASS_CODES",
           "VARIATION_FIELDS", "RETUNABLE", "WIRED"]

RULES = ("error_correction", "forced", "gamma")
TOPOLOGIES = ("full", "source_sets")
CLASS_CODES = ("binary", "one_hot")
#: The fields of device variation (:attr:`MarkIParams.variation`), all off by default.
VARIATION_FIELDS = ("step_dtod", "step_std", "up_down", "drift_rate", "sticky_steps",
                    "sticky_prob")
#: The knobs that can be turned between two figures of a run
#: (:meth:`markone.hardware.MarkI.retune`): the photocells, the threshold, the logic's
#: and the motors' times, the potentiometers and the rule. The others are fixed when
#: the machine is wired: the retina's and the units' counts, the wiring, the class
#: code, the calibration's target, and each potentiometer's step (drawn once).
RETUNABLE = ("s_threshold", "photocell_rise_s", "photocell_decay_s", "settle_tolerance",
             "photocell_noise_sd", "exposure_s", "theta", "weight_range", "quantize",
             "increment_steps", "motor_step_s", "logic_s", "rule", "step_std", "up_down",
             "drift_rate", "sticky_steps", "sticky_prob")


class ParamRow(NamedTuple):
    """One row of :meth:`MarkIParams.describe`."""

    name: str
    value: object
    unit: str
    provenance: str
    note: str


#: What every device-variation note starts with: these are not facts about the machine.
_VARIATION = "modelling assumption, not documented for the Mark I; 0 (off) by default"

# name -> (unit, provenance, note). The order of MarkIParams' fields is the table's.
_PROVENANCE = {
    "retina_shape": ("S-units", "documented",
                     "20x20 CdS photocells [Bishop2006, sec. 4.1.7; Nagy2011]"),
    "s_threshold": ("of full light", "assumed",
                    "an S-unit is on when its cell sees at least this light"),
    "photocell_rise_s": ("s", "assumed",
                         "first-order lag; CdS cells are slow, faster to light up"),
    "photocell_decay_s": ("s", "assumed", "first-order lag; CdS cells decay slower"),
    "settle_tolerance": ("of full light", "assumed",
                         "the machine reads the retina once every cell is this close"),
    "photocell_noise_sd": ("of full light", "assumed",
                           "Gaussian noise on each cell's light, per presentation"),
    "exposure_s": ("s", "assumed",
                   "None: each figure is shown until the retina settles"),
    "n_a_units": ("A-units", "documented", "512 association units [Nagy2011]"),
    "n_excitatory": ("per A-unit", "assumed", "random S-units wired with +1"),
    "n_inhibitory": ("per A-unit", "assumed", "random S-units wired with -1"),
    "max_fanout": ("A-units per S-unit", "documented",
                   "an S-unit feeds up to 40 A-units; an encyclopaedia, low "
                   "confidence [Wikipedia2026]"),
    "theta": ("net input", "assumed",
              "'auto' calibrates 5-20% firing on the training set (sparse A activity)"),
    "theta_target_rate": ("fraction", "assumed", "firing rate sought by theta='auto'"),
    "n_r_units": ("R-units", "documented", "8 response units [Nagy2011]"),
    "topology": ("", "disputed",
                 "'full': 512x8 = 4096 weights; 'source_sets': 64 A-units per R-unit; "
                 "the unit counts are documented [Nagy2011], the A-to-R wiring is not"),
    "class_code": ("", "assumed",
                   "binary code over the R-units (letters need more than 8 classes)"),
    "weight_range": ("motor steps", "assumed",
                     "potentiometer end stops; ~100 levels as Tobermory's cores had "
                     "[CHM102786931]"),
    "quantize": ("", "assumed", "potentiometers move in whole motor steps"),
    "increment_steps": ("motor steps", "assumed",
                        "one step per reinforcement of an active A-unit"),
    "motor_step_s": ("s per step", "assumed",
                     "motors of one reinforcement run in parallel"),
    "logic_s": ("s", "assumed", "A/R logic time between settling and the decision"),
    "rule": ("", "documented",
             "the three rules are documented [Rosenblatt1958; Rosenblatt1962]; error "
             "correction (R-controlled alpha) by default, as the caption describes "
             "training [Navy1960]; 'forced' (S-controlled) and 'gamma' offered"),
    # device variation: modelling assumptions, every one off by default
    "step_dtod": ("of a step", "assumed",
                  f"{_VARIATION}; device-to-device: each potentiometer's step is "
                  "1 + step_dtod * N(0, 1) steps (at least 0), drawn once per machine "
                  "from its seed (aihwkit's dw_min_dtod)"),
    "step_std": ("of a step", "assumed",
                 f"{_VARIATION}; cycle-to-cycle: a move of n steps turns n + step_std "
                 "* sqrt(n) * N(0, 1) (at least 0), drawn per move (aihwkit's "
                 "dw_min_std)"),
    "up_down": ("of a step", "assumed",
                f"{_VARIATION}; asymmetry: steps up are 1 + up_down, steps down "
                "1 - up_down (aihwkit's up_down)"),
    "drift_rate": ("steps per s", "assumed",
                   f"{_VARIATION}; every potentiometer creeps at this signed rate "
                   "between decisions, up to its end stops (the fault "
                   "PotentiometerDrift is the random walk)"),
    "sticky_steps": ("motor steps", "assumed",
                     f"{_VARIATION}; stiction: a move of fewer steps does nothing"),
    "sticky_prob": ("probability", "assumed",
                    f"{_VARIATION}; a move sticks (does nothing) with this "
                    "probability, drawn per potentiometer and move"),
}


# What would settle each assumed or disputed parameter: the evidence that would replace
# its default by a documented value. None of these sources was read for a number yet.
_MANUAL = "the Operators' Manual [CAL1960]"
_TIMING = (f"a time stated in {_MANUAL} or its engineers' account [HayWightman1960], or "
           "measured on the machine itself [NMAH334414]")
_WIRING = (f"the plugboard wiring of an experiment, as recorded in {_MANUAL} or in the "
           "experiments of [Rosenblatt1962]")
_POTS = (f"the potentiometers' range and motor step in {_MANUAL}, or measured on the "
         "machine [NMAH334414]")
_DEVICE = ("a measurement of the machine's potentiometers and motors [NMAH334414]; "
           "until then a modelling choice, off by default")
_SETTLE = {
    "s_threshold": f"the photocell amplifiers' switching level in {_MANUAL}",
    "photocell_rise_s": _TIMING, "photocell_decay_s": _TIMING,
    "settle_tolerance": _TIMING, "exposure_s": _TIMING, "motor_step_s": _TIMING,
    "logic_s": _TIMING,
    "photocell_noise_sd": "a measurement of the photocells' noise on the machine "
                          "[NMAH334414]",
    "n_excitatory": _WIRING, "n_inhibitory": _WIRING,
    "theta": f"the A-units' threshold setting in {_MANUAL}",
    "theta_target_rate": f"the A-units' firing in an experiment described in {_MANUAL} "
                         "or [Rosenblatt1962]",
    "topology": f"the A-to-R wiring in {_MANUAL} or [HayWightman1960]",
    "class_code": "how the 8 R-units' answers were read as letters at the Navy "
                  "demonstration [Navy1960; CBI1960]",
    "weight_range": _POTS, "quantize": _POTS, "increment_steps": _POTS,
    **{name: _DEVICE for name in VARIATION_FIELDS},
}

@dataclasses.dataclass(frozen=True)
class MarkIParams:
    """The Mark I's physical parameters, validated on construction.

    Units are in the names (``_s`` seconds) or in :meth:`describe`. Light levels are
    fractions of full illumination; weights are counted in motor steps.

    Parameters
    ----------
    retina_shape : tuple of int
        Rows and columns of photocells (S-units).
    s_threshold : float
        Light level in (0, 1) at and above which an S-unit is on.
    photocell_rise_s, photocell_decay_s : float
        Time constants (>= 0) of each cell's first-order lag when the light rises /
        falls. 0 means an instant cell.
    settle_tolerance : float
        The retina counts as settled when every cell is within this of its target.
    photocell_noise_sd : float
        Standard deviation (>= 0) of Gaussian noise on each cell's light.
    exposure_s : float or None
        How long a figure is shown before the machine reads the retina; ``None`` waits
        until it has settled. Shorter than the settling time gives a blend of the
        previous figure and this one.
    n_a_units, n_excitatory, n_inhibitory, max_fanout : int
        A-unit count, inputs per A-unit, and the cap on A-units fed by one S-unit.
    theta : int or "auto"
        A-unit threshold on (excitatory - inhibitory) active inputs; valid range
        ``-n_inhibitory + 1 .. n_excitatory``. ``"auto"`` picks the integer whose
        firing rate on the training set falls in ``theta_target_rate``.
    theta_target_rate : tuple of float
        ``(lo, hi)`` with ``0 < lo < hi < 1``.
    n_r_units : int
        Number of R-units (response units).
    topology : {"full", "source_sets"}
        Every A-unit feeds every R-unit, or each R-unit owns a disjoint source set.
    class_code : {"binary", "one_hot"}
        How classes map to the R-units' +/-1 targets.
    weight_range : tuple of int or None
        End stops ``(lo, hi)`` of every potentiometer, ``lo <= 0 <= hi``, ``lo < hi``;
        ``None`` for no limit.
    quantize : bool
        Weights move in whole motor steps.
    increment_steps : float
        Steps per reinforcement of an active A-unit (the core's ``eta``).
    motor_step_s : float
        Seconds per motor step; a reinforcement lasts as long as its largest move.
    logic_s : float
        Seconds of A/R logic between settling and the trainer's decision.
    rule : {"error_correction", "forced", "gamma"}
        Default reinforcement rule.
    step_dtod : float
        Device-to-device spread of the step (>= 0, a fraction of a step): each
        potentiometer turns ``1 + step_dtod * N(0, 1)`` steps per motor step (at
        least 0), drawn once per machine from its seed.
    step_std : float
        Cycle-to-cycle noise of a move (>= 0): a move of ``n`` steps turns
        ``n + step_std * sqrt(n) * N(0, 1)`` (at least 0) of that potentiometer's
        steps, drawn per move.
    up_down : float
        Up/down asymmetry in (-1, 1): steps up are ``1 + up_down``, down ``1 - up_down``.
    drift_rate : float
        Deterministic drift in motor steps per machine second (signed): every wired
        potentiometer creeps by ``drift_rate * dt`` between decisions, up to its end
        stops.
    sticky_steps : float
        Stiction (>= 0): a move of fewer than this many steps does nothing.
    sticky_prob : float
        Probability in [0, 1] that a move sticks (does nothing), per potentiometer.

    Notes
    -----
    The last six are device variation (:data:`VARIATION_FIELDS`): modelling
    assumptions, not facts about the machine, all off by default, so a machine
    without them is today's machine bit for bit.
    """

    retina_shape: tuple = (20, 20)
    s_threshold: float = 0.5
    photocell_rise_s: float = 0.020
    photocell_decay_s: float = 0.100
    settle_tolerance: float = 0.05
    photocell_noise_sd: float = 0.0
    exposure_s: float | None = None
    n_a_units: int = 512
    n_excitatory: int = 5
    n_inhibitory: int = 5
    max_fanout: int = 40
    theta: int | str = "auto"
    theta_target_rate: tuple = (0.05, 0.20)
    n_r_units: int = 8
    topology: str = "full"
    class_code: str = "binary"
    weight_range: tuple | None = (-50, 50)
    quantize: bool = True
    increment_steps: float = 1
    motor_step_s: float = 0.2
    logic_s: float = 0.05
    rule: str = "error_correction"
    step_dtod: float = 0.0
    step_std: float = 0.0
    up_down: float = 0.0
    drift_rate: float = 0.0
    sticky_steps: float = 0.0
    sticky_prob: float = 0.0

    def __post_init__(self):
        self._check_retina()
        self._check_units()
        self._check_theta()
        self._check_choices()
        self._check_weights()
        self._check_variation()

    def _check_variation(self):
        """The device variation: spreads and stiction >= 0, asymmetry in (-1, 1), a
        finite drift rate, a probability."""
        for name in ("step_dtod", "step_std", "sticky_steps"):
            _check_nonnegative(getattr(self, name), name)
        _check_real(self.drift_rate, "drift_rate", "motor steps per second, e.g. 0.01")
        _check_real(self.up_down, "up_down", "strictly between -1 and 1, e.g. 0.1")
        if not -1 < self.up_down < 1:
            raise ValueError(f"up_down(={self.up_down!r}) must be strictly between -1 "
                             "and 1 (steps up are 1 + up_down, down 1 - up_down).")
        _check_real(self.sticky_prob, "sticky_prob", "a probability in [0, 1]")
        if not 0 <= self.sticky_prob <= 1:
            raise ValueError(f"sticky_prob(={self.sticky_prob!r}) must be a probability "
                             "in [0, 1].")

    @property
    def variation(self) -> dict[str, float]:
        """The device variation that is on: ``{field: value}`` for every field of
        :data:`VARIATION_FIELDS` that is not 0 (empty: ideal potentiometers).

        >>> MarkIParams().variation, MarkIParams(up_down=0.1).variation
        ({}, {'up_down': 0.1})
        """
        return {name: getattr(self, name) for name in VARIATION_FIELDS
                if getattr(self, name) != 0}

    def _check_retina(self):
        """The retina's shape, its threshold and every time (seconds)."""
        shape = self.retina_shape
        if (not isinstance(shape, (tuple, list)) or len(shape) != 2
                or not all(isinstance(v, numbers.Integral) and v >= 1 for v in shape)):
            raise ValueError(
                f"retina_shape(={shape!r}) must be two integers >= 1 (rows, columns), "
                "e.g. (20, 20)."
            )
        object.__setattr__(self, "retina_shape", (int(shape[0]), int(shape[1])))
        _check_open_unit(self.s_threshold, "s_threshold")
        for name in ("photocell_rise_s", "photocell_decay_s", "photocell_noise_sd",
                     "motor_step_s", "logic_s"):
            _check_time(getattr(self, name), name)
        _check_open_unit(self.settle_tolerance, "settle_tolerance")
        if self.exposure_s is not None:
            _check_time(self.exposure_s, "exposure_s")

    def _check_units(self):
        """The counts of units and connections, and whether the plugboard can be wired."""
        shape = self.retina_shape
        check_int_at_least(self.n_a_units, "n_a_units", 1)
        check_int_at_least(self.n_excitatory, "n_excitatory", 0)
        check_int_at_least(self.n_inhibitory, "n_inhibitory", 0)
        check_int_at_least(self.max_fanout, "max_fanout", 1)
        check_int_at_least(self.n_r_units, "n_r_units", 1)
        n_s = shape[0] * shape[1]
        per_a = self.n_excitatory + self.n_inhibitory
        if per_a < 1 or per_a > n_s:
            raise ValueError(
                f"n_excitatory + n_inhibitory(={per_a}) must be between 1 and the "
                f"number of S-units ({n_s}); each A-unit needs distinct S-units."
            )
        if self.n_a_units * per_a > n_s * self.max_fanout:
            raise ValueError(
                f"max_fanout(={self.max_fanout}) is too small: {self.n_a_units} A-units "
                f"x {per_a} inputs need at least {-(-self.n_a_units * per_a // n_s)} "
                f"connections per S-unit on a {n_s}-cell retina."
            )

    def _check_theta(self):
        """The A-units' threshold and the firing rate ``theta="auto"`` aims at."""
        if self.theta != "auto":
            lo, hi = -self.n_inhibitory + 1, self.n_excitatory
            if isinstance(self.theta, bool) or not isinstance(self.theta, numbers.Integral):
                raise TypeError(f"theta must be an integer or 'auto', got {self.theta!r}.")
            if not lo <= self.theta <= hi:
                raise ValueError(
                    f"theta(={self.theta}) is out of range {lo}..{hi}: above "
                    f"{hi} no A-unit can ever fire (it has {self.n_excitatory} excitatory "
                    f"inputs), at or below {-self.n_inhibitory} every A-unit always fires; "
                    "or use theta='auto'."
                )
        rate = self.theta_target_rate
        if (not isinstance(rate, (tuple, list)) or len(rate) != 2
                or not all(isinstance(v, numbers.Real) for v in rate)
                or not 0 < rate[0] < rate[1] < 1):
            raise ValueError(
                f"theta_target_rate(={rate!r}) must be (lo, hi) with 0 < lo < hi < 1, "
                "e.g. (0.05, 0.20)."
            )
        object.__setattr__(self, "theta_target_rate", (float(rate[0]), float(rate[1])))

    def _check_choices(self):
        """The named choices: topology, class code, rule."""
        check_choice(self.topology, "topology", TOPOLOGIES)
        if self.topology == "source_sets" and self.n_a_units < self.n_r_units:
            raise ValueError(
                f"topology='source_sets' needs n_a_units(={self.n_a_units}) >= "
                f"n_r_units(={self.n_r_units}) so that every R-unit owns a source set."
            )
        check_choice(self.class_code, "class_code", CLASS_CODES)
        check_choice(self.rule, "rule", RULES)

    def _check_weights(self):
        """The potentiometers' end stops, steps and increment."""
        wr = self.weight_range
        if wr is not None:
            if (not isinstance(wr, (tuple, list)) or len(wr) != 2
                    or not all(isinstance(v, numbers.Real) for v in wr)):
                raise ValueError(
                    f"weight_range(={wr!r}) must be (lo, hi) motor steps or None."
                )
            if not wr[0] <= 0 <= wr[1] or wr[0] >= wr[1]:
                raise ValueError(
                    f"weight_range(={tuple(wr)!r}) must satisfy lo <= 0 <= hi and lo < hi "
                    "(weights start at zero), e.g. (-50, 50); None removes the end stops."
                )
            object.__setattr__(self, "weight_range", (wr[0], wr[1]))
        if not isinstance(self.quantize, (bool,)):
            raise TypeError(f"quantize must be True or False, got {self.quantize!r}.")
        check_positive(self.increment_steps, "increment_steps")
        if self.quantize and float(self.increment_steps) != int(self.increment_steps):
            raise ValueError(
                f"increment_steps(={self.increment_steps}) must be a whole number of "
                "motor steps when quantize=True."
            )

    @classmethod
    def ideal(cls, **changes: Any) -> MarkIParams:
        """The machine without physics: instant photocells and motors, no end stops,
        no quantisation, no noise. In this limit each R-unit is the core perceptron.

        >>> MarkIParams.ideal().weight_range is None
        True
        """
        base: dict[str, Any] = dict(
            photocell_rise_s=0.0, photocell_decay_s=0.0, photocell_noise_sd=0.0,
            exposure_s=None, weight_range=None, quantize=False, motor_step_s=0.0)
        base.update(changes)
        return cls(**base)

    def replace(self, **changes: Any) -> MarkIParams:
        """A copy with some fields changed (validated again).

        >>> MarkIParams().replace(topology="source_sets").topology
        'source_sets'
        """
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every field as a JSON-ready value (tuples become lists)."""
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
                for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MarkIParams:
        """Inverse of :meth:`to_dict`; unknown keys are an error naming them."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"unknown MarkIParams fields {unknown}; valid: {sorted(names)}.")
        fields: dict[str, Any] = {k: (tuple(v) if isinstance(v, list) else v)
                                  for k, v in data.items()}
        return cls(**fields)

    def describe(self) -> tuple[ParamRow, ...]:
        """Rows ``(name, value, unit, provenance, note)``, one per parameter.

        >>> [r.provenance for r in MarkIParams().describe() if r.name == "topology"]
        ['disputed']
        """
        return tuple(ParamRow(f.name, getattr(self, f.name), *_PROVENANCE[f.name])
                     for f in dataclasses.fields(self))

    def provenance_counts(self) -> dict[str, int]:
        """How many parameters are documented (each with a source key), disputed and
        assumed.

        >>> counts = MarkIParams().provenance_counts()
        >>> sum(counts.values()) == len(MarkIParams().describe()), sorted(counts)
        (True, ['assumed', 'disputed', 'documented'])
        """
        counts = dict.fromkeys(("documented", "disputed", "assumed"), 0)
        for row in self.describe():
            counts[row.provenance] += 1
        return counts

    def unsettled(self) -> str:
        """The counts of :meth:`provenance_counts`, then a Markdown list: for each
        assumed or disputed parameter, what would settle it (the evidence that would
        replace its default by a documented value).

        >>> print(MarkIParams().unsettled().splitlines()[2])
        - `s_threshold` (assumed): the photocell amplifiers' switching level in the Operators' Manual [CAL1960]
        """
        counts = self.provenance_counts()
        head = (f"{sum(counts.values())} parameters: {counts['documented']} documented "
                f"(each with a source key), {counts['disputed']} disputed, "
                f"{counts['assumed']} assumed. What would settle each assumed or "
                "disputed one:")
        return "\n".join([head, ""] + [f"- `{r.name}` ({r.provenance}): {_SETTLE[r.name]}"
                                      for r in self.describe()
                                      if r.provenance != "documented"])

    def table(self, fmt: str = "text") -> str:
        """The :meth:`describe` rows as a printable ``"text"`` or ``"markdown"`` table.

        >>> print(MarkIParams().table("markdown").splitlines()[2])
        | retina_shape | (20, 20) | S-units | documented | 20x20 CdS photocells [Bishop2006, sec. 4.1.7; Nagy2011] |
        """
        check_choice(fmt, "fmt", ("text", "markdown"))
        head = ("parameter", "value", "unit", "provenance", "note")
        rows = [(r.name, repr(r.value) if isinstance(r.value, str) else str(r.value),
                 r.unit, r.provenance, r.note) for r in self.describe()]
        if fmt == "markdown":
            lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            lines += ["| " + " | ".join(r) + " |" for r in rows]
            return "\n".join(lines)
        widths = [max(len(x[i]) for x in [head, *rows]) for i in range(4)]
        fmt_row = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
        return "\n".join(fmt_row.format(*r).rstrip() for r in [head, *rows])


#: The knobs fixed when the machine is wired (every field not in :data:`RETUNABLE`):
#: a live session that turns one builds a new machine with it
#: (:meth:`markone.hardware.live.LiveSession.turn_knob`).
WIRED = tuple(f.name for f in dataclasses.fields(MarkIParams) if f.name not in RETUNABLE)


def _check_time(value, name):
    try:
        check_positive(value, name, allow_zero=True)
    except ValueError:
        raise ValueError(
            f"{name}(={value!r}) must be a finite number >= 0 (seconds); use 0 for an "
            "instant photocell." if "photocell" in name else
            f"{name}(={value!r}) must be a finite number >= 0."
        ) from None


def _check_real(value, name, expected):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            math.isfinite(value)):
        raise ValueError(f"{name}(={value!r}) must be a finite number: {expected}.")


def _check_nonnegative(value, name):
    _check_real(value, name, "0 (off) or more")
    if value < 0:
        raise ValueError(f"{name}(={value!r}) must be >= 0 (0 turns it off).")


def _check_open_unit(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ValueError(f"{name}(={value!r}) must be a number strictly between 0 and 1.")
