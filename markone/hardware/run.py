"""What a training session of the Mark I leaves behind: :class:`MachineRun`.

A run holds the final weights, the machine time, the mistakes and end-stop saturations
of each R-unit, per-pass learning numbers, and (when ``log=True`` was asked) one
:class:`Presentation` record per figure shown. It saves to and loads from the JSON
format ``markone-machine-run`` version 2 (3 with knobs turned, 4 with the machine
rewired; it reads version 1 files too), which the
browser replay reads;
:meth:`MachineRun.weights_at` rebuilds the weights after any presentation from the
logged changes, as the replay does.

Examples
--------
>>> import os, tempfile
>>> from markone.hardware import MarkI, MarkIParams
>>> from markone._figures import letters
>>> images, labels = letters("AB", per_class=2, seed=0)
>>> run = MarkI(MarkIParams(n_r_units=2), seed=0).train(images, labels, max_epochs=3,
...                                                       log=True)
>>> path = run.save(os.path.join(tempfile.mkdtemp(), "run.json"))
>>> again = MachineRun.load(path)
>>> bool((again.weights_at(len(again.log) - 1) == run.weights).all())
True
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from markone._internal.html import result_html
from markone._internal.io import read_json, write_json
from markone._internal.typing import JSONDict, PathLike
from markone._version import __version__
from markone.hardware._packed import pack, unpack
from markone.hardware.faults import FaultPlan
from markone.hardware.params import MarkIParams
from markone.hardware.replay import console_html
from markone.hardware._run_format import FORMAT, KNOBS_VERSION, REWIRED_VERSION, VERSION

__all__ = ["MachineRun", "Presentation", "PresentationLog", "KnobChange", "FORMAT",
           "VERSION"]

#: What a file that is not a run is told: where runs come from.
_SAVED_BY = "a Mark I run is what MarkI(...).train(...).save(path) writes"
#: The same for a reader that needs the run's per-presentation log (a replay, drift).
_SAVED_WITH_LOG = ("record one with MarkI(...).train(..., log=True) and save it with "
                   "run.save(path)")


#: The version 1 names of the per-pass series, by their names now.
_V1_NAMES = {"mistakes_per_epoch": "epoch_mistakes", "errors_per_epoch": "epoch_errors",
             "end_s_per_epoch": "epoch_end_s"}


@dataclasses.dataclass(frozen=True)
class KnobChange:
    """A knob of the machine turned during a run: parameter ``name`` of
    :class:`~markone.hardware.MarkIParams` went from ``old`` to ``new`` at machine time
    ``at_s``, before presentation ``presentation`` (0-based; the run's length when the
    change came after its last figure). Values are as ``MarkIParams.to_dict`` gives
    them (lists for tuples).

    ``rewired``: a knob fixed when the machine is wired (not in
    :data:`~markone.hardware.params.RETUNABLE`) was turned, so a new machine was built
    with it and the session went on with that one, its weights starting again: such a
    change is the last of its run, which is one of the :attr:`MachineRun.earlier` runs
    of the session's run (:meth:`LiveSession.turn_knob
    <markone.hardware.live.LiveSession.turn_knob>`).

    >>> KnobChange(3, 1.25, "motor_step_s", 0.2, 0.5).to_dict()["new"]
    0.5
    >>> KnobChange(3, 1.25, "n_a_units", 512, 256, rewired=True).to_dict()["rewired"]
    True
    """

    presentation: int
    at_s: float
    name: str
    old: Any
    new: Any
    rewired: bool = False

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items())
        return f"KnobChange({shown})"

    def to_dict(self) -> JSONDict:
        """The change as JSON-ready fields (``rewired`` only when true, so that a run
        of knobs turned between figures is written as before)."""
        data = dataclasses.asdict(self)
        if not self.rewired:
            del data["rewired"]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> KnobChange:
        """Inverse of :meth:`to_dict`."""
        rewired = data.get("rewired", False)
        if not isinstance(rewired, bool):
            raise ValueError(f"a knob change's rewired must be true or false, got "
                             f"{rewired!r}.")
        return cls(int(data["presentation"]), float(data["at_s"]), str(data["name"]),
                   data["old"], data["new"], rewired)


@dataclasses.dataclass(frozen=True)
class Presentation:
    """One figure shown to the machine, as the JSON log records it.

    Times are machine seconds; ``figure`` indexes ``MachineRun.figures``, ``label``
    the classes; ``changes`` lists ``(r, a, new_value)`` for every weight that moved.
    """

    t_s: float
    end_t_s: float
    figure: int
    label: int
    active_a: tuple
    scores: tuple
    response: tuple
    target: tuple
    reinforced: tuple
    changes: tuple
    saturated: int
    motor_s: float
    figure_correct: bool
    settle_s: float = 0.0


def record(**fields: Any) -> Presentation:
    """A :class:`Presentation` of exactly its fields, built without the frozen
    dataclass's one ``object.__setattr__`` per field (the machine makes one per figure
    shown when it logs): equal, in every respect, to ``Presentation(**fields)``.

    >>> rec = dict(t_s=0.0, end_t_s=1.0, figure=0, label=0, active_a=(1,), scores=(2.0,),
    ...            response=(1,), target=(1,), reinforced=(False,), changes=(),
    ...            saturated=0, motor_s=0.0, figure_correct=True, settle_s=0.5)
    >>> record(**rec) == Presentation(**rec)
    True
    """
    if fields.keys() != _PRESENTATION_FIELDS:
        return Presentation(**fields)   # let the dataclass name what is wrong
    return adopt(fields)


def adopt(fields):
    """The :class:`Presentation` whose attributes are the dict ``fields`` itself,
    which the caller built with exactly the fields and gives up (no check, no copy:
    the machine's compiled segments log a figure this way)."""
    rec = _new(Presentation)
    _set(rec, "__dict__", fields)
    return rec


_new, _set = object.__new__, object.__setattr__


@contextlib.contextmanager
def collector_paused(pause=True):
    """Pause Python's cyclic garbage collector while a log grows (``pause``).

    The log is one record per figure, none of them in a reference cycle, yet every
    generation-2 pass of the collector walks all of them again; paused, a long log
    is built about as fast per record as a short one. Restored on exit.
    """
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class PresentationLog(Sequence):
    """The per-presentation log of a session: a sequence of :class:`Presentation`.

    The machine appends records (a figure run on its own) and *blocks* (a segment's
    figures as compact columns, with the function that turns them into records); the
    records of a block are built on first use of the log, all at once, then kept. A
    log compares equal to any sequence of the same records (a tuple, a loaded run's
    log); slices are tuples.

    >>> rec = record(t_s=0.0, end_t_s=1.0, figure=0, label=0, active_a=(1,),
    ...              scores=(2.0,), response=(1,), target=(1,), reinforced=(False,),
    ...              changes=(), saturated=0, motor_s=0.0, figure_correct=True,
    ...              settle_s=0.5)
    >>> log = PresentationLog()
    >>> log.append(rec); log.add_block(2, lambda: [rec, rec])
    >>> len(log), log[-1] == rec, log == (rec,) * 3, log[:1]
    (3, True, True, (Presentation(t_s=0.0, ...),))
    """

    def __init__(self) -> None:
        #: Presentation records and (n, build) blocks, in order
        self._parts: list[Any] = []
        self._n = 0
        self._records: tuple[Presentation, ...] | None = None

    def append(self, rec: Presentation) -> None:
        """Add one record."""
        self._parts.append(rec)
        self._n += 1
        self._records = None

    def add_block(self, n: int, build: Callable[[], Sequence[Presentation]]) -> None:
        """Add ``n`` records that ``build()`` (a picklable callable) returns."""
        self._parts.append((n, build))
        self._n += n
        self._records = None

    def records(self) -> tuple[Presentation, ...]:
        """Every record, as a tuple (built on the first call)."""
        if self._records is None:
            out: list[Presentation] = []
            with collector_paused():
                for part in self._parts:
                    if isinstance(part, Presentation):
                        out.append(part)
                    else:
                        out.extend(part[1]())
            self._records = tuple(out)
            self._parts = list(self._records)
        return self._records

    def __len__(self):
        return self._n

    def __getitem__(self, index):
        return self.records()[index]

    def __iter__(self):
        return iter(self.records())

    def __eq__(self, other):
        if isinstance(other, (PresentationLog, tuple, list)):
            return len(other) == self._n and self.records() == tuple(other)
        return NotImplemented

    __hash__ = None   # type: ignore[assignment]

    def __repr__(self):
        return f"PresentationLog({self._n} presentations)"


_PRESENTATION_FIELDS = {f.name: None for f in dataclasses.fields(Presentation)}.keys()


def _consistent(run: MachineRun) -> MachineRun:
    """``run`` if its numbers fit together, else a ValueError naming the first that
    does not (a run edited by hand: weights of another shape, infinite or NaN, a
    negative count), which :meth:`MachineRun.load` reports as damage."""
    shape = (run.params.n_r_units, run.params.n_a_units)
    for name, weights in (("weights_final", run.weights),
                          ("weights_initial", run.weights_initial)):
        if weights.shape != shape:
            raise ValueError(f"{name} has shape {weights.shape}, but its machine has "
                             f"{shape[0]} R-units x {shape[1]} A-units")
        if not np.isfinite(weights).all():
            raise ValueError(f"{name} holds a weight that is not a finite number")
    _whole(run.epochs, "epochs", "a count")
    _whole(run.n_presentations, "n_presentations", "a count")
    if run.seed is not None:
        _whole(run.seed, "seed", "a seed")
    for name in ("mistakes_per_epoch", "errors_per_epoch", "end_s_per_epoch"):
        if len(getattr(run, name)) != run.epochs:
            raise ValueError(f"{name} has {len(getattr(run, name))} entries, one per "
                             f"pass, but the run made {run.epochs} passes")
    for name in ("mistakes", "reinforcements", "saturated"):
        if np.shape(getattr(run, name)) != shape[:1]:
            raise ValueError(f"{name} has {np.size(getattr(run, name))} entries, but "
                             f"its machine has {shape[0]} R-units")
    return run


def _whole(value: Any, name: str, what: str) -> None:
    """Refuse ``value`` of field ``name`` unless it is a whole number >= 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} is {value!r}, not {what} (a whole number >= 0)")


@dataclasses.dataclass(frozen=True, eq=False)
class MachineRun:
    """The result of :meth:`markone.hardware.MarkI.train`.

    Attributes
    ----------
    weights : ndarray (n_r_units, n_a_units)
        Final potentiometer settings, in motor steps.
    weights_initial : ndarray (n_r_units, n_a_units)
    sim_time_s : float
        Machine time the session took (settling, logic and motors).
    mistakes, reinforcements, saturated : ndarray (n_r_units,)
        Per R-unit: wrong answers, reinforcements, moves blocked by end stops.
    n_presentations, epochs : int
        Figures shown, and passes started over the training set.
    converged : bool
        Whether the last pass was free of mistakes.
    mistakes_per_epoch, errors_per_epoch, end_s_per_epoch : tuple
        Per pass: figures on which some R-unit made a mistake (and so was
        reinforced), figures whose decoded class was wrong, machine time at its end.
    classes : tuple
        The class labels; ``codes[i]`` is the R-units' +/-1 target for class ``i``.
    theta : int
        The A-units' threshold used.
    log : sequence of Presentation or None
        One record per figure shown (only with ``log=True``): a
        :class:`PresentationLog` (a tuple once saved and loaded); ``figures`` then
        holds the settled retina images, one row per training figure.
    faults : FaultPlan or None
        The hardware faults the machine had (:func:`markone.hardware.faults.apply_faults`),
        None for a healthy machine.
    knob_changes : tuple of KnobChange
        The knobs turned during the run (:meth:`MarkI.retune
        <markone.hardware.MarkI.retune>`, the live console's knobs), in order;
        ``params`` and ``theta`` are the machine's at the start (:meth:`params_at`).
    earlier : tuple of MachineRun
        A live session's runs on the machines it had before this one, oldest first:
        each ended when a knob fixed by the wiring was turned (its last knob change,
        ``rewired``) and a new machine was built with it, on which this run (or the
        next earlier one) went on, its weights starting again. Empty for a run of one
        machine. The earlier runs have no ``earlier`` of their own.
    """

    params: MarkIParams
    seed: int | None
    theta: int
    rule: str
    classes: tuple
    codes: np.ndarray
    weight_mask: np.ndarray | None
    excitatory: np.ndarray
    inhibitory: np.ndarray
    weights_initial: np.ndarray
    weights: np.ndarray
    sim_time_s: float
    n_presentations: int
    epochs: int
    converged: bool
    mistakes: np.ndarray
    reinforcements: np.ndarray
    saturated: np.ndarray
    errors_per_epoch: tuple
    mistakes_per_epoch: tuple
    end_s_per_epoch: tuple
    figures: np.ndarray | None = None
    log: Sequence | None = None
    faults: FaultPlan | None = None
    knob_changes: tuple = ()
    earlier: tuple = ()

    def __getstate__(self) -> dict:
        """The state pickle sends (a fleet's runs travel from its workers): arrays of
        whole numbers in the smallest integer type that holds them
        (:mod:`markone.hardware._packed`), restored exactly by :meth:`__setstate__`."""
        return {f.name: pack(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, unpack(value))

    def __repr__(self):
        return (f"MachineRun(presentations={self.n_presentations}, epochs={self.epochs}, "
                f"converged={self.converged}, sim_time_s={self.sim_time_s:.1f}, "
                f"mistakes={self.mistakes.tolist()}, saturated={int(self.saturated.sum())})")

    def params_at(self, step: int) -> MarkIParams:
        """The machine's parameters when presentation ``step`` (0-based) went up:
        ``params`` with the :attr:`knob_changes` made before it."""
        changes = {c.name: c.new for c in self.knob_changes if c.presentation <= step}
        return MarkIParams.from_dict(dict(self.params.to_dict(), **changes))

    def weights_at(self, step: int) -> np.ndarray:
        """Weights after presentation ``step`` (0-based), rebuilt from the log's
        ``changes`` applied to ``weights_initial``."""
        if self.log is None:
            raise ValueError(
                "weights_at needs the per-presentation log; train with log=True."
            )
        n = len(self.log)
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)) \
                or not 0 <= step < n:
            raise ValueError(f"step(={step!r}) must be an integer in 0..{n - 1}.")
        w = self.weights_initial.copy()
        for rec in self.log[:step + 1]:
            for r, a, value in rec.changes:
                w[r, a] = value
        return w

    def to_dict(self) -> JSONDict:
        """The run as a dict in the ``markone-machine-run`` format (:data:`VERSION`;
        a run without knob changes as version 2)."""
        p = self.params
        return {
            "format": FORMAT, "markone_version": __version__,
            "params": p.to_dict(), "seed": self.seed,
            "retina_shape": list(p.retina_shape), "n_a_units": p.n_a_units,
            "n_r_units": p.n_r_units, "topology": p.topology,
            "weight_mask": None if self.weight_mask is None
            else self.weight_mask.astype(int),
            "class_code": p.class_code, "classes": [str(c) for c in self.classes],
            "codes": self.codes,
            "wiring": {"excitatory": self.excitatory, "inhibitory": self.inhibitory},
            "figures": [] if self.figures is None else self.figures,
            "weights_initial": self.weights_initial, "weights_final": self.weights,
            "sim_time_s": self.sim_time_s,
            "presentations": [] if self.log is None
            else [dataclasses.asdict(rec) for rec in self.log],
            "theta": self.theta, "rule": self.rule, "logged": self.log is not None,
            "n_presentations": self.n_presentations, "epochs": self.epochs,
            "converged": self.converged, "mistakes": self.mistakes,
            "reinforcements": self.reinforcements, "saturated": self.saturated,
            "mistakes_per_epoch": self.mistakes_per_epoch,
            "errors_per_epoch": self.errors_per_epoch,
            "end_s_per_epoch": self.end_s_per_epoch,
            "faults": None if self.faults is None else self.faults.to_dict(),
        } | self._knobs_dict()

    def _knobs_dict(self):
        """The version a run is written as, the oldest that holds it (every older
        reader takes a run of one machine and no knob turned): with earlier machines
        or a rewired knob, :data:`VERSION`, with ``earlier`` (each earlier run's whole
        dict); with knobs turned, version 3 and ``knob_changes``; else version 2."""
        if not self.knob_changes and not self.earlier:
            return {"version": KNOBS_VERSION - 1}
        rewired = self.earlier or any(c.rewired for c in self.knob_changes)
        data: JSONDict = {"version": REWIRED_VERSION if rewired else KNOBS_VERSION,
                          "knob_changes": [c.to_dict() for c in self.knob_changes]}
        if self.earlier:
            data["earlier"] = [run.to_dict() for run in self.earlier]
        return data

    def save(self, path: PathLike) -> Path:
        """Write the run as JSON to ``path`` atomically; return the path."""
        return write_json(path, self.to_dict())

    @classmethod
    def load(cls, path: PathLike, *, for_log: bool = False) -> MachineRun:
        """Read a run saved by :meth:`save` (classes come back as strings), in any
        format version up to :data:`VERSION`. ``for_log``: the caller needs the
        per-presentation log (a replay), so a file that is missing or not a run is
        told how to record a run with its log."""
        saved_by = _SAVED_WITH_LOG if for_log else _SAVED_BY
        if not Path(path).exists():
            raise FileNotFoundError(f"no such run file: {path}; {saved_by}.")
        try:
            data = read_json(path)
        except ValueError as exc:
            raise ValueError(f"{exc}; {saved_by}.") from exc
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            got = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ValueError(f"{path} is not a Mark I run: format is {got!r}, expected "
                             f"{FORMAT!r}; {saved_by}.")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise ValueError(f"{path} is a damaged Mark I run: its format version is "
                             f"{version!r}, not a whole number from 1 to {VERSION}; "
                             "save the run again (MachineRun.save).")
        if version > VERSION:
            raise ValueError(
                f"{path} has format version {version!r}, but this markone reads "
                f"versions up to {VERSION}; upgrade markone to read it."
            )
        try:
            return _consistent(cls._from_json(data))
        except KeyError as exc:
            raise ValueError(f"{path} is a damaged Mark I run: its field {exc.args[0]!r} "
                             "is missing; save the run again (MachineRun.save).") from exc
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path} is a damaged Mark I run: {exc}") from exc

    @classmethod
    def _from_json(cls, d):
        log = None
        if d.get("logged", bool(d["presentations"])):
            log = tuple(_presentation(rec) for rec in d["presentations"])
        mask = d["weight_mask"]
        n_r = d["n_r_units"]
        return cls(
            params=MarkIParams.from_dict(d["params"]), seed=d["seed"],
            theta=d.get("theta"), rule=d.get("rule", d["params"].get("rule")),
            classes=tuple(d["classes"]), codes=np.array(d["codes"], dtype=np.int64),
            weight_mask=None if mask is None else np.array(mask, dtype=bool),
            excitatory=np.array(d["wiring"]["excitatory"], dtype=np.int64),
            inhibitory=np.array(d["wiring"]["inhibitory"], dtype=np.int64),
            weights_initial=np.array(d["weights_initial"], dtype=np.float64),
            weights=np.array(d["weights_final"], dtype=np.float64),
            sim_time_s=float(d["sim_time_s"]),
            n_presentations=d.get("n_presentations", len(d["presentations"])),
            epochs=d.get("epochs", 0), converged=d.get("converged", False),
            mistakes=np.array(d.get("mistakes", [0] * n_r)),
            reinforcements=np.array(d.get("reinforcements", [0] * n_r)),
            saturated=np.array(d.get("saturated", [0] * n_r)),
            **{name: tuple(d.get(name if d["version"] >= 2 else old, ()))
               for name, old in _V1_NAMES.items()},
            figures=np.array(d["figures"], dtype=np.uint8) if d["figures"] else None,
            log=log,
            faults=FaultPlan.from_dict(d["faults"]) if d.get("faults") else None,
            knob_changes=tuple(KnobChange.from_dict(c)
                               for c in d.get("knob_changes", ())),
            earlier=tuple(_earlier(run) for run in d.get("earlier", ())),
        )

    def _repr_html_(self):
        """Shown in Jupyter: the Mark I console replaying this run (with its log), or
        the run's numbers as a table (trained without ``log=True``)."""
        if self.log is None:
            return result_html(self, headline=repr(self) + "; train with log=True to "
                               "replay it here", skip=("excitatory", "inhibitory"))
        return console_html(self)


def _earlier(data):
    """One of a run's :attr:`MachineRun.earlier` runs from its JSON dict: a whole run
    of one machine, ended by a rewired knob."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("each of earlier must be a whole Mark I run (a JSON object of "
                         f"format {FORMAT!r})")
    run = MachineRun._from_json(data)
    if run.earlier or not run.knob_changes or not run.knob_changes[-1].rewired:
        raise ValueError("each of earlier must be the run of one machine ended by a "
                         "rewired knob change (and have no earlier runs of its own)")
    return run


def _presentation(rec):
    """A :class:`Presentation` from its JSON dict (lists back to tuples)."""
    fields = {f.name for f in dataclasses.fields(Presentation)}
    rec = {k: (tuple(v) if isinstance(v, list) else v) for k, v in rec.items()
           if k in fields}
    rec["changes"] = tuple((int(r), int(a), v) for r, a, v in rec["changes"])
    return Presentation(**rec)
