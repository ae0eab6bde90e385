"""The Mark I operated by hand, one figure at a time: :class:`LiveSession`.

A person holds a figure up to the camera (:meth:`LiveSession.present`): the photocells
settle, the A-units fire and the R-units answer, on the machine's SimPy clock. Then
the trainer reinforces toward the figure's class (:meth:`LiveSession.reinforce`) and
the motors turn, or the next figure goes up and this one stays unreinforced. Between
figures a part can be broken (:meth:`LiveSession.break_part`, through
:func:`markone.hardware.faults.break_now`). Everything shown so far is a
:class:`~markone.hardware.MachineRun` (:meth:`LiveSession.run`), saved in the format
that the replay console and ``markone machine show`` read.

The machine does all the work; ``markone machine console`` puts a browser page in
front of it (:mod:`markone.console.server`).

Examples
--------
>>> from markone.hardware import MarkI
>>> from markone.hardware.faults import AUnitStuck
>>> figures = figure_catalogue((20, 20))
>>> session = LiveSession(MarkI(seed=0), calibrate_on=list(figures.values()))
>>> shown = session.present(figures["A"], "A")
>>> shown.changes, session.pending is not None      # the answer; nothing learnt yet
((), True)
>>> done = session.reinforce()    # a zero sum is a mistake: all 8 R-units learn
>>> len(done.changes) == 8 * len(done.active_a), done.motor_s, session.pending
(True, 0.2, None)
>>> session.break_part(AUnitStuck(a_unit=5)).describe()
'A-unit 6 dead from 0.309915 s'
>>> session.run()
MachineRun(presentations=1, epochs=1, converged=False, sim_time_s=0.3, mistakes=[1, 1, 1, 1, 1, 1, 1, 1], saturated=0)
"""

from __future__ import annotations

import dataclasses
import string
from pathlib import Path
from typing import Any

import numpy as np

from markone._figures import letters, shapes
from markone._internal.io import plural, to_jsonable
from markone._internal.typing import ArrayLike, JSONDict, PathLike
from markone._version import __version__
from markone.hardware.faults import FAULT_KINDS, FaultPlan, break_now
from markone.hardware.machine import MarkI, nearest_class
from markone.hardware._run_format import REWIRED_VERSION
from markone.hardware.params import (CLASS_CODES, RETUNABLE, RULES, TOPOLOGIES, WIRED,
                                     MarkIParams)
from markone.hardware.run import KnobChange, MachineRun, Presentation
from markone.hardware.trainer import Trainer

__all__ = ["LiveSession", "figure_catalogue", "console_controls", "REWIRE_LIMITS",
           "check_live_size"]

#: The largest machine a live session rebuilds when a knob of the wiring is turned
#: (:meth:`LiveSession.turn_knob`): the retina's cells, the A-units, the R-units.
REWIRE_LIMITS = {"retina_cells": 4096, "n_a_units": 4096, "n_r_units": 64}
#: The run's fields that stay the same as long as the machine does.
_FIXED = ("params", "wiring", "weights_initial", "weight_mask")
# the easel's shapes (a diamond is the square turned, so the easel leaves it out)
CATALOGUE_SHAPES = ("disc", "square", "triangle")


def figure_catalogue(retina_shape: tuple[int, int]) -> dict[str, np.ndarray]:
    """Figures a person can pick: the block capitals A-Z and one disc, square and
    triangle, each a 0/1 image of ``retina_shape``, by class name.

    Empty for a retina that is not square or is too small for a letter (9 rows).

    >>> figures = figure_catalogue((20, 20))
    >>> list(figures)[:3], list(figures)[-3:], figures["A"].shape
    (['A', 'B', 'C'], ['disc', 'square', 'triangle'], (20, 20))
    >>> figure_catalogue((6, 8))
    {}
    """
    rows, cols = retina_shape
    if rows != cols or rows < 9:
        return {}
    images, labels = letters(string.ascii_uppercase, per_class=1, jitter=0, size=rows)
    found = dict(zip(labels.tolist(), images))
    images, labels = shapes(len(CATALOGUE_SHAPES), kinds=CATALOGUE_SHAPES, size=rows,
                            rotate=False, seed=0)
    found.update(sorted(zip(labels.tolist(), images)))
    return found


#: The knobs whose value is one of a few words, with those words.
_CHOICES = {"topology": TOPOLOGIES, "class_code": CLASS_CODES, "rule": RULES}


def console_controls(params: MarkIParams) -> JSONDict:
    """The console's controls, made from the registries: one per fault kind of
    :data:`~markone.hardware.faults.FAULT_KINDS` (its fields but ``at_s``: a fault
    from the console happens now) and one per field of
    :class:`~markone.hardware.MarkIParams` (``--set`` takes each), with its value in
    ``params``, unit, provenance and note (its source), whether it can be turned
    mid-run (:data:`~markone.hardware.params.RETUNABLE`) and how it is entered.

    >>> controls = console_controls(MarkIParams())
    >>> [f["kind"] for f in controls["faults"]][:2], controls["faults"][0]["fields"]
    (['PhotocellStuck', 'CutWire'], [{'name': 'cell', 'type': 'int', 'default': None}, {'name': 'value', 'type': 'int', 'default': 0}])
    >>> knob = controls["knobs"][-1]
    >>> knob["name"], knob["provenance"], knob["retunable"], knob["input"]
    ('sticky_prob', 'assumed', True, 'number')
    """
    faults = [{"kind": name, "words": _first_paragraph(cls.__doc__ or name),
               "fields": [_fault_field(f) for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                          if f.name != "at_s"]}
              for name, cls in FAULT_KINDS.items()]
    values = params.to_dict()
    knobs = [{"name": row.name, "value": values[row.name], "unit": row.unit,
              "provenance": row.provenance, "note": row.note,
              "retunable": row.name in RETUNABLE, "input": _input_of(row.name, row.value),
              "choices": list(_CHOICES.get(row.name, ()))}
             for row in params.describe()]
    return {"faults": faults, "knobs": knobs}


def _first_paragraph(doc):
    """A docstring's first paragraph on one line, without its literal quotes."""
    return " ".join(doc.strip().split("\n\n")[0].split()).replace("``", "")


def _fault_field(field):
    """A fault record's field as the console enters it: its name, ``int`` or
    ``float``, and its default (None: it must be given)."""
    kind = field.type if isinstance(field.type, str) else field.type.__name__
    default = None if field.default is dataclasses.MISSING else field.default
    return {"name": field.name, "type": "float" if "float" in kind else "int",
            "default": default}


def _input_of(name, value):
    """How a knob is entered: ``choice`` (a few words), ``bool``, ``number``, or
    ``json`` (a pair, ``null``, or a number or ``"auto"``)."""
    if name in _CHOICES:
        return "choice"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)) and name != "theta":
        return "number"
    return "json"


class _Watch(Trainer):
    """The trainer standing back: it notes which R-units erred and reinforces none."""

    def decide(self, scores, target, a, pattern=None):
        mistakes, _, _ = super().decide(scores, target, a, pattern)
        return mistakes, np.zeros(0, np.int64), np.zeros((0, len(a)))


class LiveSession:
    """A Mark I shown figures one at a time by a person, who reinforces or not.

    Parameters
    ----------
    machine : MarkI
        The machine to operate, as it is (a fresh one, or one trained before: its
        weights, clock, classes and faults carry on).
    calibrate_on : array-like of figures, optional
        Typical figures to calibrate ``theta="auto"`` on, when the machine has no
        threshold yet (default: :func:`figure_catalogue`).
    rule : {"error_correction", "forced", "gamma"}, optional
        How :meth:`reinforce` reinforces (default: the machine's ``params.rule``).

    Attributes
    ----------
    machine : MarkI
    pending : Presentation or None
        The figure on show that has not been reinforced yet, as it would be recorded
        if it never is.
    """

    def __init__(self, machine: MarkI, *, calibrate_on: ArrayLike | None = None,
                 rule: str | None = None) -> None:
        if not isinstance(machine, MarkI):
            raise TypeError(f"machine must be a MarkI, got {type(machine).__name__}.")
        self._calibrate_on = calibrate_on
        self._earlier: list[MachineRun] = []   # the runs of the machines rewired away
        self._earlier_json: list[JSONDict] = []
        _calibrate(machine, calibrate_on)
        self._begin(machine, rule)

    def _begin(self, machine: MarkI, rule: str | None) -> None:
        """Operate ``machine`` (calibrated) from now on: a new run starts."""
        self.machine = machine
        self._trainer = machine._trainer(rule)
        self._watch = _Watch(mask=machine.runits.mask)
        if machine.classes_ is None:   # classes come as the person names them
            machine.classes_ = np.array([], dtype=str)
        self._start_s, self._w0 = machine.now_s, machine.weights
        # the run's params, theta and rule: the machine's at the start
        self._start = (machine.params, machine.theta, self._trainer.rule)
        self._knobs: list[KnobChange] = []
        self._stats = machine._new_stats()
        self._log: list[Presentation] = []
        self._figures: dict[bytes, int] = {}
        self._settled: list[np.ndarray] = []
        self._counts = [0, 0]   # figures with a mistake, figures misread
        self._corrections = 0   # R-units reinforced
        self._taught = set(range(len(machine.classes_)))   # classes it can answer
        self._verdicts: list[JSONDict] = []   # the log's verdicts (:meth:`_verdict`)
        self._figures_upto: list[int] = []    # figures the first k+1 records show
        self._pending: tuple | None = None
        self._json: list[JSONDict] = []       # the log's records, JSON-ready
        self._fixed: JSONDict | None = None   # the run's _FIXED fields, JSON-ready

    def __repr__(self) -> str:
        return (f"LiveSession(presentations={len(self._log)}, "
                f"pending={self._pending is not None}, now_s={self.machine.now_s:.1f})")

    @property
    def pending(self) -> Presentation | None:
        """The figure on show, not reinforced yet (None when there is none)."""
        return None if self._pending is None else self._pending[4][0]

    def present(self, image: ArrayLike, label: Any) -> Presentation:
        """Show one figure: the photocells settle, the A-units fire, the R-units sum
        and answer. Nothing is learnt yet (:meth:`reinforce` does that); a figure
        still on show unreinforced is recorded as such first.

        Parameters
        ----------
        image : array (rows, cols) or (rows*cols,)
            Light levels in [0, 1].
        label : str or int
            The class the person says the figure is; a new one becomes a class.

        Returns
        -------
        Presentation
            The figure as shown, recorded without reinforcement (:attr:`pending`).
        """
        m = self.machine
        x = m._image(image)
        label_idx = int(m._label_indices(np.asarray([label]), grow=True)[0])
        self._withhold()
        sensed = self._drive(m._sense(x))
        figure = self._figure(m.retina.settled(x[None, :])[0])
        stats = {k: (v.copy() if isinstance(v, np.ndarray) else v)
                 for k, v in self._stats.items()}
        preview: list[Presentation] = []
        outcome = self._drive(self._respond(sensed, label_idx, figure, self._watch,
                                            stats, preview))
        answer, outcome = self._judge(preview, outcome)
        self._pending = (sensed, figure, label_idx, stats, preview, outcome, answer)
        return preview[0]

    def reinforce(self, label: Any = None) -> Presentation:
        """Let the trainer decide on the figure on show, toward ``label`` (default:
        the class it was presented as), and turn the motors; return its record."""
        if self._pending is None:
            raise ValueError("there is no figure on show to reinforce; present one "
                             "first (each figure is reinforced at most once).")
        sensed, figure, label_idx = self._pending[:3]
        if label is not None:
            label_idx = int(self.machine._label_indices(np.asarray([label]),
                                                        grow=True)[0])
        self._pending = None
        outcome = self._drive(self._respond(sensed, label_idx, figure, self._trainer,
                                            self._stats, self._log))
        self._commit(*self._judge(self._log, outcome))
        self._taught.add(label_idx)
        return self._log[-1]

    def break_part(self, fault: Any) -> FaultPlan:
        """Break a part now (a fault record of :mod:`markone.hardware.faults`, its
        ``at_s`` replaced by the machine's time); return the machine's fault plan.
        The figure on show keeps the answer it gave."""
        return break_now(self.machine, fault)

    def turn_knob(self, name: str, value: Any) -> KnobChange:
        """Turn the machine's knob ``name`` to ``value`` now, between two figures
        (:meth:`MarkI.retune <markone.hardware.MarkI.retune>`); the run records it
        (:attr:`MachineRun.knob_changes <markone.hardware.MachineRun.knob_changes>`).
        Not while a figure awaits the trainer: reinforce it, or present the next.

        A knob fixed when the machine is wired (:data:`~markone.hardware.params.WIRED`)
        *rewires*: a new machine is built with the setting from the same seed (as
        ``markone machine train --set`` builds one), calibrated as this session's
        first was, healthy, its weights at zero and its clock at 0 s, and the session
        goes on with it. The run so far, ended by this change (``rewired``), becomes
        one of the run's :attr:`~markone.hardware.MachineRun.earlier` runs (none when
        nothing was shown on it). A machine too large to rebuild live
        (:data:`REWIRE_LIMITS`) is refused.

        >>> from markone.hardware import MarkI
        >>> session = LiveSession(MarkI(seed=0))
        >>> session.turn_knob("motor_step_s", 0.5)
        KnobChange(presentation=0, at_s=0.0, name='motor_step_s', old=0.2, new=0.5)
        >>> _ = session.present(figure_catalogue((20, 20))["A"], "A")
        >>> _ = session.reinforce()
        >>> change = session.turn_knob("n_a_units", 256)
        >>> change.presentation, change.old, change.new, change.rewired
        (1, 512, 256, True)
        >>> run = session.run()
        >>> run.params.n_a_units, run.n_presentations, [r.n_presentations for r in run.earlier]
        (256, 0, [1])
        """
        if self._pending is not None:
            raise ValueError("a figure awaits the trainer: reinforce it (or present the "
                             "next one) before turning a knob, so that each figure meets "
                             "one setting.")
        if isinstance(name, str) and name in WIRED:
            return self._rewire(name, value)
        old = self.machine.params.to_dict().get(name) if isinstance(name, str) else None
        params = self.machine.retune(name, value)
        if name in ("rule", "increment_steps"):
            self._trainer = self.machine._trainer(params.rule if name == "rule"
                                                  else self._trainer.rule)
        change = KnobChange(len(self._log), self.machine.now_s, name, old,
                            params.to_dict()[name])
        self._knobs.append(change)
        return change

    def _rewire(self, name, value):
        """:meth:`turn_knob` of a knob of :data:`WIRED`: the session goes on with a new
        machine built with it; nothing changes when it cannot be built."""
        m = self.machine
        if m.seed is None:
            raise ValueError(f"{name} is fixed when the machine is wired, and turning it "
                             "builds a new machine from the same seed: this machine has "
                             "no integer seed; build it with MarkI(params, seed=0).")
        old = m.params.to_dict()[name]
        params = m.params.replace(**{name: value})   # the knob's own message
        check_live_size(params)
        machine = MarkI(params, seed=m.seed, segments=m.segments)
        same_retina = params.retina_shape == m.params.retina_shape
        _calibrate(machine, self._calibrate_on if same_retina else None)
        change = KnobChange(len(self._log), m.now_s, name, old, params.to_dict()[name],
                            rewired=True)
        if self._log:
            run = self._run(figures=True)
            run = dataclasses.replace(run, knob_changes=run.knob_changes + (change,))
            self._earlier.append(run)
            self._earlier_json.append(to_jsonable(run.to_dict()))
        self._begin(machine, self._trainer.rule)
        return change

    def run(self) -> MachineRun:
        """Everything shown so far as one run (one pass), the figure on show as not
        reinforced; the runs of the machines rewired away are its ``earlier``."""
        run = self._run(figures=True)
        return dataclasses.replace(run, earlier=tuple(self._earlier)) if self._earlier \
            else run

    def _run(self, *, figures):
        """:meth:`run`; without its settled figures unless ``figures`` (a console's
        answer sends only the new ones, and copying them all costs a click O(n))."""
        m, log, stats, counts = self.machine, self._log, self._stats, self._counts
        if self._pending is not None:
            stats, log = self._pending[3], log + self._pending[4]
            counts = self._tally(counts, self._pending[5])
        stats = dict(stats, errors_per_epoch=[counts[1]], mistakes_per_epoch=[counts[0]],
                     end_s_per_epoch=[m.now_s], converged=False)
        settled = (np.array(self._settled, dtype=np.uint8)
                   if figures and self._settled else None)
        run = m._result(self._trainer, m.codes_, self._w0, m.now_s - self._start_s,
                        stats, settled, log)
        if not self._knobs:
            return run
        params, theta, rule = self._start
        return dataclasses.replace(run, params=params, theta=theta, rule=rule,
                                   knob_changes=tuple(self._knobs))

    @property
    def empty(self) -> bool:
        """Whether no figure has been shown yet (there is no run to save)."""
        return not self._log and self._pending is None and not self._earlier

    def save(self, path: PathLike) -> Path:
        """Write :meth:`run` to ``path`` (JSON, atomically); at least one figure must
        have been shown."""
        if self.empty:
            raise ValueError("nothing has been presented yet, so there is no run to "
                             "save; present a figure first.")
        return self.run().save(path)

    def to_dict(self, since: int | None = None) -> JSONDict:
        """What a console page shows, JSON-ready: the run so far (as saved), whether a
        figure awaits the trainer, the machine's time and rule.

        Parameters
        ----------
        since : int, optional
            The presentations the page already has: the first ``since`` of those the
            trainer is done with (the figure on show is never among them). Then only
            what may have changed is sent: ``run`` holds the later presentations, the
            figures from ``figures_from`` on, and the run's other changing fields,
            without its parameters, wiring and weights (``weights_final`` follows from
            the presentations' changes). Each presentation is made JSON-ready once.

        Examples
        --------
        >>> from markone.hardware import MarkI
        >>> session = LiveSession(MarkI(seed=0))
        >>> _ = session.present(figure_catalogue((20, 20))["A"], "A")
        >>> full, new = session.to_dict(), session.to_dict(since=0)
        >>> len(full["run"]["presentations"]), "wiring" in full["run"], "wiring" in new["run"]
        (1, True, False)
        >>> new["since"], new["figures_from"], len(new["run"]["figures"]), new["pending"]
        (0, 0, 1, True)
        """
        self.check_since(since)
        run = self._run(figures=False)
        state: JSONDict = {"pending": self._pending is not None,
                           "now_s": self.machine.now_s, "rule": self._trainer.rule,
                           "params_now": self.machine.params.to_dict()}
        if since is None:
            head = self._head(run, 0, full=True)
        else:
            first = self._figures_upto[since - 1] if since else 0
            head = self._head(run, first, full=False)
            state.update(since=since, figures_from=first)
        head["presentations"] = self._jsonable(since or 0)
        view = {"header": _header(run), "verdicts": self._verdicts[since or 0:]}
        if self._pending is not None:
            _, _, _, _, preview, outcome, answer = self._pending
            view["verdicts"] = view["verdicts"] + [_verdict(
                preview[0], answer, self._tally(self._counts, outcome)[1],
                self._corrections)]
        return dict(state, run=head, view=view)

    def check_since(self, since: int | None) -> None:
        """Raise ValueError unless ``since`` is None or a number of presentations the
        trainer is done with (for :meth:`to_dict`).

        >>> from markone.hardware import MarkI
        >>> LiveSession(MarkI(seed=0)).check_since(3)
        Traceback (most recent call last):
        ...
        ValueError: since(=3) must be the number of presentations the page has, an integer in 0..0.
        """
        done = len(self._log)
        if since is not None and (isinstance(since, bool) or not isinstance(since, int)
                                  or not 0 <= since <= done):
            raise ValueError(f"since(={since!r}) must be the number of presentations "
                             f"the page has, an integer in 0..{done}.")

    def _head(self, run, first_figure, *, full):
        """The run's fields but its presentations, JSON-ready: its figures from
        ``first_figure`` on; ``full``: with its parameters, wiring and weights too."""
        head = dataclasses.replace(run, log=None).to_dict()
        fixed = {key: head.pop(key) for key in _FIXED}
        weights = head.pop("weights_final")
        head = to_jsonable(head)
        if self._earlier:   # kept JSON-ready since the rewire, sent in a full state
            head["version"] = REWIRED_VERSION
        if full:
            if self._fixed is None:   # the same as long as the machine is
                self._fixed = to_jsonable(fixed)
            head.update(self._fixed, weights_final=weights.tolist())
            if self._earlier:
                head["earlier"] = self._earlier_json
        head["figures"] = [figure.tolist() for figure in self._settled[first_figure:]]
        head["logged"] = True
        return head

    def _jsonable(self, since):
        """The presentations from ``since`` on, JSON-ready (each committed one made so
        once, then kept), the figure on show last."""
        for rec in self._log[len(self._json):]:
            self._json.append(to_jsonable(dataclasses.asdict(rec)))
        shown = [] if self._pending is None else [
            to_jsonable(dataclasses.asdict(rec)) for rec in self._pending[4]]
        return self._json[since:] + shown

    # -------------------------------------------------------------- the machine's halves
    def _respond(self, sensed, label_idx, figure, trainer, stats, log):
        codes = self.machine.codes_
        return self.machine._respond(sensed, codes[label_idx], label_idx, figure,
                                     trainer, stats, log)

    def _drive(self, process):
        """Run a SimPy process of the machine to its end; return its value."""
        env = self.machine.env
        done = env.process(process)
        env.run(until=done)
        return done.value

    def _withhold(self):
        """Record the figure on show, if any, as shown without reinforcement: its
        record and counts as :meth:`present` made them (the classes known then)."""
        if self._pending is not None:
            _, _, _, stats, preview, outcome, answer = self._pending
            self._pending = None
            self._stats = stats
            self._log += preview
            self._commit(answer, outcome)

    def _judge(self, log, outcome):
        """The class the machine answered for the last record of ``log`` (the nearest
        of the classes it has been taught, None before it knows one) and the outcome
        with the figure read right only if that is its class; the record is mended to
        say so. A class named but never reinforced is not one the machine can answer:
        with none taught, or only one, the nearest code alone would call a figure of
        a new class "right" with no R-unit right."""
        rec = log[-1]
        taught = sorted(self._taught)
        answer = None
        if taught:
            near = nearest_class(np.asarray(rec.response), np.asarray(rec.scores),
                                 self.machine.codes_[taught])
            answer = taught[int(near)]
        right = answer == rec.label
        if right != rec.figure_correct:
            log[-1] = dataclasses.replace(rec, figure_correct=right)
        return answer, (outcome[0], right)

    def _commit(self, answer, outcome):
        """Count the record just logged, and keep its verdict."""
        self._counts = self._tally(self._counts, outcome)
        self._corrections += sum(self._log[-1].reinforced)
        self._figures_upto.append(max(self._figures_upto[-1:] + [self._log[-1].figure + 1]))
        self._verdicts.append(_verdict(self._log[-1], answer, self._counts[1],
                                       self._corrections))

    @staticmethod
    def _tally(counts, outcome):
        wrong, correct = outcome
        return [counts[0] + bool(wrong), counts[1] + (not correct)]

    def _figure(self, settled):
        """The index of a settled figure in the run's figures (added when new)."""
        key = settled.tobytes()
        if key not in self._figures:
            self._figures[key] = len(self._settled)
            self._settled.append(settled.astype(np.uint8))
        return self._figures[key]


def _calibrate(machine, figures):
    """Calibrate ``theta="auto"`` of a machine that has no threshold yet, on
    ``figures`` (default: :func:`figure_catalogue`)."""
    if machine.theta is not None:
        return
    if figures is None:
        figures = list(figure_catalogue(machine.params.retina_shape).values())
    if len(figures) == 0:
        raise ValueError(
            "theta='auto' needs typical figures to calibrate on and this retina "
            "has no built-in ones; pass calibrate_on=images or set "
            "MarkIParams(theta=...).")
    machine.calibrate(figures)


def check_live_size(params: MarkIParams) -> None:
    """Refuse a machine larger than :data:`REWIRE_LIMITS`: one that a request (a
    rewire, a playground session loaded) would build.

    >>> check_live_size(MarkIParams(n_r_units=100))
    Traceback (most recent call last):
    ...
    ValueError: n_r_units(=100) is over 64, the most a live session rebuilds its machine with; start the console with --set for a larger machine.
    """
    rows, cols = params.retina_shape
    sizes = {"retina_cells": rows * cols, "n_a_units": params.n_a_units,
             "n_r_units": params.n_r_units}
    for what, size in sizes.items():
        if size > REWIRE_LIMITS[what]:
            raise ValueError(f"{what}(={size}) is over {REWIRE_LIMITS[what]}, the most "
                             "a live session rebuilds its machine with; start the "
                             "console with --set for a larger machine.")


def _verdict(rec, answer, wrong_so_far, corrections_so_far):
    """What the console says of a presentation: the class the machine answered (an
    index, None before it was taught one), whether that was right, how many R-units
    answered their target, and the figures read wrong and R-units corrected so far."""
    return {"answer": answer, "right": bool(rec.figure_correct),
            "r_units_right": int(np.sum(np.asarray(rec.response) ==
                                        np.asarray(rec.target))),
            "wrong_so_far": int(wrong_so_far), "corrections_so_far": int(corrections_so_far)}


def _header(run):
    """The console's one-line summary of the session so far."""
    p, names = run.params, [str(c) for c in run.classes]
    shown = ", ".join(names) if len(names) <= 10 else f"{', '.join(names[:3])} … {names[-1]}"
    t = float(run.sim_time_s)
    parts = [plural(run.n_presentations, "presentation"),
             f"{plural(len(names), 'class', 'classes')} ({shown})" if names
             else "no class yet",
             f"{p.n_a_units} A-units, {p.n_r_units} R-units", f"{p.topology} topology",
             f"{p.class_code} code",
             f"{int(t) if t.is_integer() else f'{t:.2f}'} s of machine time"]
    if run.seed is not None:
        parts.append(f"seed {run.seed}")
    return " · ".join(parts + [f"markone {__version__}"])
