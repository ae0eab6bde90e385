"""What the theorems promise a given Mark I on a given task, and what breaks it.

:func:`check_machine` looks at the machine's own A-unit patterns of the figures (its
wiring, threshold and faults) and, for each R-unit, proves or refutes three claims:

**learnable**
    the R-unit's task (its +/-1 targets on the A-unit patterns of its source set) is
    linearly separable through the origin: an exact witness, or a Gordan certificate
    that no order and no amount of training helps (:func:`verify.check_separable`).
**end stops**
    no move of a potentiometer is ever cut short by an end stop, whatever the order.
    Until the first cut the machine *is* the ideal perceptron (zero start, moves of
    ``increment_steps`` on the active A-units), so every weight is a multiple of the
    increment bounded by Novikoff's argument: ``|w_j| <= ||w|| <= R^2/gamma`` and
    ``|w_j| <= (number of reinforcements) <= (R/gamma)^2`` (in increments), with the
    certified lower end of the margin ``gamma`` and the exact ``R^2`` (the most
    A-units active on one figure). On small tasks the exact set of weight vectors
    reachable by any stream gives the tightest bound. When the bound fits inside
    ``weight_range`` the machine equals the ideal perceptron on this task for every
    order and converges within ``(R/gamma)^2`` reinforcements of this R-unit. When it
    does not, a stream that reaches an end stop is searched for (greedy, random
    orders, exhaustive, and Z3 bounded model checking to the depth ``(R/gamma)^2``,
    which decides the question because the machine equals the ideal rule until the
    first cut).
**converges**
    the machine learns the R-unit's task for every fair stream (every figure shown
    again and again). When end stops can bite this is decided exactly on small tasks
    (a reachable strongly connected set of clipped states that keeps making mistakes
    under every figure), and otherwise by a concrete stream: a ``prefix`` shown once
    and a ``cycle`` of all figures that returns the potentiometers to the same setting
    after a pass with mistakes, so that ``MarkI.train(images, labels, order=cycle,
    warm_start=True)`` after ``order=prefix + cycle`` provably never learns. On a
    larger task, each stream found to reach a stop is continued in fixed fair orders
    (the figures as given, the stream's own order, the figures pushing the stopped
    weight first), each decided exactly: a pass without a mistake (that continuation
    learns; ``evidence["continuations"]`` gives the pass and the reinforcements) or a
    recurring pass-boundary setting (a blocking stream). Continuations that learn do
    not prove that every stream does: the claim then stays undecided.

and two claims about the whole machine: **timing** (can ``exposure_s`` change an
A-unit pattern, from the closed-form photocell response; the shortest exposure that
cannot) and **quantisation** (when whole motor steps make the decisions identical to
the real-valued rule).

The claims are about the ``"error_correction"`` rule without photocell noise. For the
``"forced"`` rule (its Hebb vector decides it on streams of whole passes) and the
``"gamma"`` rule (the perceptron on centred patterns, with real-valued weights) on a
machine without faults, :mod:`verify.machine.rules` decides what it can; for noisy machines
only learnability is decided, and :func:`flip_probability` gives an empirical model of
summation noise (the report says which applies). :func:`minimal_faults` names a
1-minimal set of faults that breaks a damaged machine's task.

Examples
--------
Two photocells, each wired to its own A-unit, one R-unit; figure "a" lights the first
cell and "b" the second. With end stops at +/-1 step the theorems promise everything:

>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
...                 max_fanout=1, theta=1, n_r_units=1, weight_range=(-1, 1))
>>> figures, labels = np.array([[1, 0], [0, 1]]), ["a", "b"]
>>> r = check_machine(MarkI(p, seed=0), figures, labels).r_units[0]
>>> r.learnable.holds, r.end_stops.holds, r.converges.holds
(True, True, True)
>>> r.end_stops.evidence["bound_used"], r.end_stops.evidence["max_weight_steps"]
('exact reachable states', '1')

With end stops at (0, 1) the potentiometer can never go negative: "a" (target -1)
is never corrected, although the task is separable. The report gives the stream:

>>> machine = MarkI(p.replace(weight_range=(0, 1)), seed=0)
>>> r = check_machine(machine, figures, labels).r_units[0]
>>> r.end_stops.holds, r.converges.holds, r.converges.evidence["cycle"]
(False, False, [0, 1])
>>> replay_stream(machine, figures, labels, [], [0, 1])["converged"]
False
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import time
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from markone._internal.io import plural
from markone._internal.progress import search_bar
from markone._internal.typing import ArrayLike, JSONDict, Seed
from markone._internal.validation import (as_generator, check_consistent_length,
                                 check_int_at_least)
from markone.hardware.runits import r_unit_name
from verify._budget import (BUDGET, TIMEOUT, deadline_after, expired, seconds_left,
                            timeout_keyword)
from verify.machine import _clipped, _gamma_chain, _projected, _reach
from verify.machine import rules as _rules
from verify.machine._projected import ProjectedBall, check_projected_ball
from verify.machine.faults import (FaultMinimum, check_r_unit_task, minimal_faults,
                                   static_fault)
from verify.machine.recheck import (NOVIKOFF_BOUNDS, REPORT_FORMAT, Recheck,
                                    margin_holds, recheck_report)
from verify.machine.rules import drift_spread, flip_probability
from verify.machine.schema import load_report

if TYPE_CHECKING:
    from markone.hardware import MarkI, MarkIParams
    from markone.hardware.faults import FaultPlan

__all__ = ["check_machine", "MachineReport", "RUnitReport", "Claim", "machine_task",
           "exposure_limits", "replay_stream", "minimal_faults", "FaultMinimum",
           "flip_probability", "drift_spread", "check_projected_ball",
           "ProjectedBall", "recheck_report", "Recheck", "load_report"]

#: Tasks with at most this many distinct A-unit columns and examples get the exact
#: (all streams) searches.
EXACT_MAX_STATES = 200_000
#: Most pass-start states of the exact chain search for the gamma rule with whole
#: steps (small tasks only: at most ``verify.machine._gamma_chain.MAX_INPUTS`` inputs).
GAMMA_CHAIN_STATES = 5_000
#: Most integer ball directions a report keeps as the evidence of an end-stop claim
#: (each is one integer per input of the R-unit); with more, the claim is not
#: re-checkable from the report.
MAX_DIRECTIONS = 256
#: Most integers (states times merged A-units) of a reachable set a report keeps as
#: the inductive invariant behind an "exact reachable states" claim.
MAX_INVARIANT = 100_000
#: Z3 resource units (its deterministic ``rlimit`` count) at most of the bounded model
#: checking of one R-unit's end stops (it can otherwise run for many minutes on a
#: small task); a few seconds of Z3's work on an idle machine.
Z3_RLIMIT = 20_000_000


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
        is recomputed or verified by :func:`recheck_report`.
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

    def to_dict(self) -> JSONDict:
        """The claim as a JSON-ready dict."""
        return {"holds": self.holds, "method": self.method, "message": self.message,
                "evidence": self.evidence}


@dataclasses.dataclass(frozen=True)
class RUnitReport:
    """The three claims about one R-unit (see the module docstring)."""

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
    """What :func:`check_machine` proved about a machine on a task.

    Attributes
    ----------
    r_units : tuple of RUnitReport
    timing, quantisation : Claim
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
        inputs (ties the report to the machine; :func:`recheck_report` checks both).
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
    timing: Claim
    quantisation: Claim
    faults: Claim
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

    @property
    def learnable(self) -> bool | None:
        """True when every R-unit's task is proven learnable (None if unknown)."""
        return _all(r.learnable.holds for r in self.r_units)

    @property
    def converges(self) -> bool | None:
        """True when the machine provably learns the task for every fair order."""
        return _all(r.converges.holds for r in self.r_units)

    def to_dict(self) -> JSONDict:
        """The report as a JSON-ready dict (format ``markone.verify.machine/2``)."""
        return {"format": REPORT_FORMAT, "machine": self.params, "theta": self.theta,
                "n_examples": self.n_examples, "n_a_units": self.n_a_units,
                "weight_range": self.weight_range,
                "increment_steps": self.increment_steps, "rule": self.rule,
                "data_sha256": self.data_sha256,
                "patterns_sha256": self.patterns_sha256, "learnable": self.learnable,
                "converges": self.converges,
                "r_units": [r.to_dict() for r in self.r_units],
                "timing": self.timing.to_dict(), "faults": self.faults.to_dict(),
                "quantisation": self.quantisation.to_dict(), "time_s": self.time_s,
                "stopped_by": self.stopped_by}

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
        for name in ("faults", "timing", "quantisation"):
            c = getattr(self, name)
            lines.append(f"{name}: {word[c.holds]} [{c.method}] {c.message}")
        return "\n".join(lines)

    def __str__(self):
        return self.text()


def _all(values):
    values = list(values)
    if all(v is True for v in values):
        return True
    return False if any(v is False for v in values) else None


# --------------------------------------------------------------------------------------
# the task as the machine sees it


@dataclasses.dataclass(frozen=True)
class MachineTask:
    """A-unit patterns and R-unit targets of a task on one machine.

    ``patterns`` (n, n_a) uint8, ``targets`` (n, n_r) -1/+1, ``theta`` the threshold,
    ``inputs[r]`` the A-units wired to R-unit ``r``, ``settled`` the S-unit states.
    """

    patterns: np.ndarray
    targets: np.ndarray
    theta: int
    inputs: tuple
    settled: np.ndarray
    classes: np.ndarray


def machine_task(machine: MarkI, images: ArrayLike, labels: ArrayLike,
                 plan: FaultPlan | None = None) -> MachineTask:
    """The A-unit patterns and R-unit targets ``MarkI.train(images, labels)`` uses.

    The threshold is calibrated on ``images`` as a fresh ``train`` would (the machine
    itself is not changed); labels get the codes of their sorted classes. Hardware
    faults (``plan``, default the machine's own) count as happened: their patterns
    are the damaged ones, and an A-unit whose motor is stopped from the start is not
    an input of that R-unit (its weight stays 0).

    >>> from markone.hardware import MarkI
    >>> from markone.datasets import letters
    >>> images, labels = letters("AB", per_class=2, seed=0)
    >>> t = machine_task(MarkI(seed=0), images, labels)
    >>> t.patterns.shape, t.targets[:, 0].tolist(), t.theta
    ((4, 512), [-1, 1, -1, 1], 2)
    """
    from markone.hardware import plugboard
    from markone.hardware.faults import FaultPlan, MotorStopped, damaged_patterns
    from markone.hardware.machine import class_codes

    X = machine._images(images)
    labels = np.asarray(labels)
    check_consistent_length(X, labels, names=("images", "labels"))
    p = machine.params
    settled = machine.retina.settled(X)
    if p.theta == "auto":
        theta = plugboard.calibrate_theta(machine.wiring, settled, p.theta_target_rate,
                                          p.n_excitatory, p.n_inhibitory)
    else:
        theta = int(p.theta)
    if plan is None:
        plan = machine.faults.plan if machine.faults is not None else FaultPlan()
    A = damaged_patterns(machine, settled, theta, plan)
    classes, idx = np.unique(labels, return_inverse=True)
    targets = class_codes(len(classes), p.n_r_units, p.class_code)[idx.ravel()]
    wired = (machine.runits.mask.copy() if machine.runits.mask is not None
             else np.ones((p.n_r_units, p.n_a_units), bool))
    for f in plan.faults:
        if isinstance(f, MotorStopped) and f.at_s == 0:
            wired[f.r_unit, f.a_unit] = False
    inputs = tuple(np.flatnonzero(wired[r]) for r in range(p.n_r_units))
    return MachineTask(A, targets, int(theta), inputs, settled, classes)


# --------------------------------------------------------------------------------------
# the public entry point


def check_machine(machine: MarkI, images: ArrayLike, labels: ArrayLike, *,
                  exposure_s: float | None = None, exact_budget: int | None = None,
                  orders: int = 8, z3_depth: int = 40, seed: Seed = 0,
                  timeout_s: float | None = None, progress: bool | None = None,
                  **deprecated: Any) -> MachineReport:
    """What the perceptron's theorems promise ``machine`` on ``(images, labels)``.

    Parameters
    ----------
    machine : markone.hardware.MarkI
        The machine (its wiring, threshold rule, end stops, increment, topology).
        It is not changed.
    images : array (n, rows, cols) or (n, rows*cols)
        Figures (light levels in [0, 1]).
    labels : array (n,)
        Class labels (coded on the R-units as ``MarkI.train`` codes them).
    exposure_s : float, optional
        Exposure to judge in the timing claim (default ``params.exposure_s``; None
        waits for the retina to settle).
    exact_budget : int, optional
        Most states of the exact all-streams searches (default 200,000); they run
        only on tasks small enough to finish.
    orders : int
        Random periodic orders tried per R-unit when end stops can bite.
    z3_depth : int
        Bounded model checking of the end-stop question runs when the Novikoff depth
        ``(R/gamma)^2`` is at most this (and the task is small).
    seed : int or numpy.random.Generator
        For the random orders.
    timeout_s : float, optional
        Stop searching after about this long: the separability checks, the
        weight-by-weight balls, the beam and random orders, the Z3 queries and the
        fault minimisation are cut at that time, and the claims they would have
        decided stay undecided (``holds=None``, saying so), never guessed. Without
        it (the default) only budgets of work limit the searches, so the report does
        not depend on the clock: ``exact_budget`` states, ``orders``, at most
        ``verify.machine._reach.MAX_REFINE`` (1,024) weights refined by their own
        ball, :data:`Z3_RLIMIT` Z3 resource units per R-unit, and
        ``verify.machine.faults.MAX_TESTS`` (400) separability checks to minimise
        the faults. (``time_budget_s=`` is the deprecated spelling.)
    progress : bool, optional
        Show a progress bar of the R-units checked (tqdm, on stderr; ``None``: only
        on a terminal, once the check takes more than half a second). It changes no
        claim.
    **deprecated
        ``time_budget_s=``: the old spelling of ``timeout_s``, with a
        ``DeprecationWarning``.

    Returns
    -------
    MachineReport

    Raises
    ------
    TypeError
        When ``machine`` is not a :class:`~markone.hardware.MarkI`.
    ValueError
        On bad figures or labels (shape, range, length, too many classes).
    """
    from markone.hardware import MarkI

    t0 = time.perf_counter()
    if not isinstance(machine, MarkI):
        raise TypeError(f"machine must be a markone.hardware.MarkI, got "
                        f"{type(machine).__name__}; build one with MarkI(MarkIParams()).")
    orders = check_int_at_least(orders, "orders", 0)
    z3_depth = check_int_at_least(z3_depth, "z3_depth", 0)
    budget = EXACT_MAX_STATES if exact_budget is None else check_int_at_least(
        exact_budget, "exact_budget", 1)
    deadline = deadline_after(timeout_keyword(deprecated, "check_machine",
                                              "time_budget_s", timeout_s))
    task = machine_task(machine, images, labels)
    p = machine.params
    rng = as_generator(seed)
    plan = machine.faults.plan if machine.faults is not None else None
    units = _Units(p.increment_steps, p.weight_range)
    dynamic, rules = _analyses(p, plan, task, units)
    with search_bar(p.n_r_units, "check_machine: R-units", progress,
                    unit=" R-units") as bar:
        reports = []
        for r in range(p.n_r_units):
            reports.append(_check_r_unit(r, task, units, dynamic, budget, orders,
                                         z3_depth, rng, deadline, rules))
            bar.update(1)
    reports = tuple(reports)
    if exposure_s is None:
        exposure_s = p.exposure_s
    claims = dict(timing=_timing_claim(machine, task, machine._images(images), exposure_s),
                  faults=_fault_claim(machine, images, labels, plan, reports, deadline),
                  quantisation=_quantisation_claim(p, units, reports, task))
    return MachineReport(
        r_units=reports, **claims,
        theta=task.theta, n_examples=len(task.patterns), n_a_units=p.n_a_units,
        weight_range=p.weight_range, increment_steps=p.increment_steps, rule=p.rule,
        data_sha256=_data_hash(task), time_s=time.perf_counter() - t0,
        patterns_sha256=_patterns_hash(task), params=p.to_dict(),
        stopped_by=_stopped_by([c for r in reports for c in
                                (r.learnable, r.end_stops, r.converges)]
                               + list(claims.values()), deadline))


def _stopped_by(claims, deadline):
    """What left claims of a report undecided: ``"timeout"`` once the user's time
    limit has passed, else ``"budget"`` (a search ran out of its work); ``""`` when
    every claim is decided (or, by design, not assessed)."""
    if all(c.holds is not None or c.method == "not assessed" for c in claims):
        return ""
    return TIMEOUT if expired(deadline) else BUDGET


def _analyses(p, plan, task, units):
    """``(dynamic, rules)``: whether the error-correction claims apply (no noise,
    only static faults), and the ``(rule, quantize, machine_passes)`` that the
    forced- and gamma-rule analyses need (None when they do not apply)."""
    dynamic = (p.rule == "error_correction" and p.photocell_noise_sd == 0
               and (plan is None or _static(plan)))
    rules = ((p.rule, p.quantize, _forced_machine_passes(task, units)
              if p.rule == "forced" else None) if p.photocell_noise_sd == 0
             and (plan is None or not len(plan)) else None)
    return dynamic, rules


def _static(plan):
    """True when every fault is one the dynamic claims model exactly (permanent
    pattern faults, and motors stopped from the start)."""
    return all(static_fault(f) for f in plan.faults)


def _fault_claim(machine, images, labels, plan, reports, deadline=None):
    """Is the damaged task still learnable, and which faults made it impossible?"""
    if plan is None or not len(plan):
        return Claim(True, "no faults", "the machine has no faults", {})
    broken = [r.r_unit for r in reports if r.learnable.holds is False]
    ev = {"faults": len(plan), "kinds": list(plan.kinds()),
          "unlearnable_r_units": broken}
    if not broken:
        return Claim(True, "separability of the damaged patterns",
                     f"with its {len(plan)} faults ({', '.join(plan.kinds())}) every "
                     "R-unit's task is still learnable", ev)

    culprits = fault_culprits(machine, images, labels, plan, broken)
    ev["culprits"] = culprits
    words = []
    minimum = notes = None
    if any(c["healthy"] for c in culprits.values()):
        minimum = minimal_faults(machine, images, labels, plan,
                                 timeout_s=seconds_left(deadline))
        found = minimum.to_dict()
        notes = {k: found.pop(k) for k in ("tests", "solver_checks")}
        ev["minimal"] = dict(found, kinds=[
            type(plan.faults[i]).__name__ for i in minimum.faults])
    for r, c in culprits.items():
        if not c["healthy"]:
            words.append(f"{r_unit_name(int(r))} was not learnable before the damage "
                         "either")
        else:
            why = (f"the {', '.join(c['kinds'])} faults alone" if c["kinds"]
                   else "only the faults together")
            if c["faults"]:
                why += f" (each of faults {c['faults']} on its own)"
            words.append(f"{r_unit_name(int(r))}: {why}")
    if minimum is not None:
        words.append(_minimum_words(plan, minimum))
    return Claim(False, "separability with and without each kind of fault",
                 "the damage makes the task unlearnable: " + "; ".join(words), ev,
                 {"minimal": notes} if notes else {})


def learnable_with(machine: MarkI, images: ArrayLike, labels: ArrayLike,
                   plan: FaultPlan, r: int) -> bool | None:
    """Is R-unit ``r``'s task learnable when only the faults of ``plan`` happened?"""
    t = machine_task(machine, images, labels, plan=plan)
    return check_r_unit_task(t.patterns[:, t.inputs[r]], t.targets[:, r]).separable


def fault_culprits(machine: MarkI, images: ArrayLike, labels: ArrayLike,
                   plan: FaultPlan, broken: Sequence[int]) -> JSONDict:
    """For each R-unit of ``broken``: whether it was learnable without the faults
    (``healthy``), the kinds of fault that alone break it, and (up to 32 faults) the
    single faults that alone do (exact; shared by :func:`check_machine` and
    :func:`recheck_report`)."""
    def breaks(sub, r):
        return learnable_with(machine, images, labels, sub, r) is False

    culprits = {}
    for r in broken:
        if breaks(plan.only(_none), r):
            culprits[str(r)] = {"healthy": False, "kinds": [], "faults": []}
            continue
        kinds = [k for k in plan.kinds() if breaks(plan.only(_of_kind(k)), r)]
        single = []
        if len(plan) <= 32:
            single = [i for i, f in enumerate(plan.faults)
                      if breaks(plan.only(_this(f)), r)]
        culprits[str(r)] = {"healthy": True, "kinds": kinds, "faults": single}
    return culprits


def _none(fault):
    return False


def _of_kind(name):
    return lambda fault: type(fault).__name__ == name


def _this(chosen):
    return lambda fault: fault is chosen


def _minimum_words(plan, minimum):
    """The minimal set of faults in words."""
    if not minimum.faults:
        return "the task is unlearnable even without any of the faults"
    kinds = {}
    for i in minimum.faults:
        kinds[type(plan.faults[i]).__name__] = kinds.get(type(plan.faults[i]).__name__,
                                                          0) + 1
    what = ", ".join(f"{n} {k}" for k, n in kinds.items())
    listed = (f"faults {list(minimum.faults)}" if len(minimum.faults) <= 8
              else f"{len(minimum.faults)} faults")
    units = ", ".join(map(r_unit_name, minimum.r_units))
    if minimum.complete and not minimum.undecided:
        return (f"1-minimal set: {listed} ({what}) make R-unit(s) {units} unlearnable "
                f"on their own, and without any one of them the task is learnable "
                f"({minimum.tests} exact checks)")
    why = ("the budget of checks ran out" if not minimum.complete
           else f"checks without faults {list(minimum.undecided)} were undecided")
    return (f"{listed} ({what}) make R-unit(s) {units} unlearnable on their own; not "
            f"proven 1-minimal: {why} after {minimum.tests} checks")


def _data_hash(task):
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(task.settled, dtype=np.uint8).tobytes())
    h.update(np.ascontiguousarray(task.targets, dtype=np.int64).tobytes())
    return h.hexdigest()


def _patterns_hash(task):
    """SHA-256 of what the claims are about on this machine: the A-unit patterns, the
    targets and each R-unit's inputs."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(task.patterns, dtype=np.uint8).tobytes())
    h.update(np.ascontiguousarray(task.targets, dtype=np.int64).tobytes())
    for cols in task.inputs:
        h.update(np.ascontiguousarray(cols, dtype=np.int64).tobytes() + b"|")
    return h.hexdigest()


class _Units:
    """Integer units for the weights: ``Q`` units per motor step, so that the
    increment ``e`` and the end stops ``lo``, ``hi`` are whole units."""

    def __init__(self, eta, weight_range):
        parts = [Fraction(eta)] + ([Fraction(v) for v in weight_range]
                                   if weight_range is not None else [])
        self.Q = math.lcm(*(f.denominator for f in parts))
        self.eta = Fraction(eta)
        self.e = int(self.eta * self.Q)
        if weight_range is None:
            self.lo, self.hi = -_clipped.NO_STOP, _clipped.NO_STOP
        else:
            self.lo, self.hi = (int(Fraction(v) * self.Q) for v in weight_range)
        self.stops = weight_range is not None

    def steps(self, units):
        """A count of units as motor steps (exact)."""
        return Fraction(int(units), self.Q)


# --------------------------------------------------------------------------------------
# one R-unit


def _check_r_unit(r, task, units, dynamic, budget, orders, z3_depth, rng, deadline,
                  rules=None):
    cols = task.inputs[r]
    X = task.patterns[:, cols].astype(np.int64)
    y = task.targets[:, r]
    verdict = check_r_unit_task(X, y, timeout_s=seconds_left(deadline))
    learnable = _learnable_claim(verdict, cols)
    if not verdict.separable:
        return RUnitReport(r, learnable, *_after_learnable(learnable))
    if rules is not None and rules[0] in ("forced", "gamma"):
        return RUnitReport(r, learnable, *_rule_claims(X, y, units, *rules))
    if not dynamic:
        return RUnitReport(r, learnable, *_not_assessed())
    red = _Reduced(X, y, units, cols)
    end_stops, hit = _end_stop_claim(red, units, budget, z3_depth, rng, orders, deadline)
    converges = _convergence_claim(red, units, end_stops, hit, budget, orders, rng,
                                   deadline)
    return RUnitReport(r, learnable, end_stops, converges)


def _after_learnable(learnable):
    """The end-stop and convergence claims of an R-unit whose task is not proven
    learnable (they follow from its learnable claim)."""
    why = ("not learnable, so no order can make it converge"
           if learnable.holds is False else "learnability undecided")
    return (Claim(None, "not assessed", f"end stops: {why}"),
            Claim(False if learnable.holds is False else None, learnable.method,
                  f"converges: {why}"))


def _not_assessed():
    """The end-stop and convergence claims of a learnable R-unit on a machine that
    only the learnable claim covers."""
    note = ("only the 'error_correction' rule without photocell noise, drift, "
            "summation noise or motors that stop late is analysed (and the "
            "'forced' and 'gamma' rules on a machine without faults or photocell "
            "noise); learnability holds")
    return Claim(None, "not assessed", note), Claim(None, "not assessed", note)


def _rule_claims(X, y, units, rule, quantize, machine_passes=None):
    """End-stop and convergence claims for the forced and gamma rules
    (:mod:`verify.machine.rules`, :mod:`verify.machine._forced`)."""
    stop = (min(-units.steps(units.lo), units.steps(units.hi)) if units.stops
            else None)
    wr = (units.steps(units.lo), units.steps(units.hi)) if units.stops else None
    if rule == "forced":
        v = _rules.forced_verdict(X, y, weight_range=wr, eta=units.eta,
                                  machine_passes=machine_passes)
        ev = {k: v[k] for k in ("mu", "passes", "max_weight", "stream", "hit_stream")
              if k in v}
        converges = Claim(v["learns"], "start-of-pass bounds (forced rule)"
                          if v["learns"] is not False else "exact fixed order (forced "
                          "rule)", "on streams of whole passes (each figure once a "
                          "pass, any order): " + v["why"], ev)
        end_stops = Claim(v["end_stops"], "forced rule: " + (
            "weight bound" if v["end_stops"] else "exact fixed order"
            if v["end_stops"] is False else "not decided"), v["end_why"], ev)
        return end_stops, converges
    v = _rules.gamma_verdict(X, y, stop=stop, eta=units.eta)
    ev = {k: v[k] for k in ("learnable", "certificate", "reinforcement_bound",
                            "max_weight", "fits") if k in v}
    d = X.shape[1]
    if quantize:
        g = _rules.gamma_steps_verdict(X, y, weight_range=wr, eta=int(units.eta))
        if not (g["whole"] and not d & (d - 1)):   # else no move is rounded: below
            chain = None
            if wr is not None and all(Fraction(b).denominator == 1 for b in wr):
                chain = _gamma_chain.decide(X, y, int(units.eta), int(wr[0]),
                                            int(wr[1]), range(len(y)),
                                            max_states=GAMMA_CHAIN_STATES)
            return _gamma_steps_claims(g, v, ev, wr, chain)
    if d & (d - 1):
        note = (f"exact for the real-valued rule only: the machine's float64 weights "
                f"round moves of 1/{d} ({d} inputs, not a power of two), so an exact tie "
                "can come out either way; the centred task is "
                + {True: "separable", False: "not separable", None: "undecided"}[
                    v["learnable"]])
        return Claim(None, "not assessed", note, ev), Claim(None, "not assessed", note,
                                                             ev)
    if v["learnable"] is not True:
        why = ("the centred patterns x - mean(x) are not separable (exact certificate): "
               "the gamma rule, which conserves the sum of the weights (0), never "
               "learns for any order" if v["learnable"] is False else
               "separability of the centred patterns undecided")
        return (Claim(None, "not assessed", why, ev),
                Claim(False if v["learnable"] is False else None,
                      "centred perceptron (gamma rule)", why, ev))
    fits = v["fits"] is not False
    end_stops = Claim(True if fits else None, "centred perceptron (gamma rule)",
                      f"every weight stays within +/-{v['max_weight']} steps "
                      "(||w|| <= R^2/gamma of the centred task)"
                      + ("" if fits else ", beyond the end stops: not decided"), ev)
    converges = Claim(True if fits else None, "centred perceptron (gamma rule)",
                      "the gamma rule conserves the sum of the weights (0), so it is "
                      "the perceptron on the centred patterns x - mean(x), which are "
                      f"separable: it learns for every order within "
                      f"{v['reinforcement_bound']} reinforcements"
                      + ("" if fits else " unless an end stop bites (not decided)"), ev)
    return end_stops, converges


def _gamma_steps_claims(g, v, ev, wr, chain=None):
    """Claims for the gamma rule with whole motor steps (stochastic rounding) from
    :func:`verify.machine.rules.gamma_steps_verdict`; ``v`` the centred (real-valued) verdict,
    ``chain`` the exact finite-chain verdict on the given order
    (:func:`verify.machine._gamma_chain.decide`) when the task is small enough."""
    how = "rounding branches (gamma rule, whole steps)"
    ev = dict(ev, **{k: g[k] for k in ("stall", "stall_log10", "hit", "alpha")
                     if k in g})
    centred = {True: "separable", False: "not separable", None: "undecided"}[
        v["learnable"]]
    hit = g["hit"]
    if wr is None:
        end_stops = Claim(True, how, "the machine has no end stops", ev)
    elif hit is not None:
        end_stops = Claim(False, how, (
            f"not for every rounding: while every other move rounds to 0 (each with "
            f"probability at least 10^{g['stall_log10']:.1f}), figure {hit['figure']} "
            f"moves A-unit {hit['a_unit']} (inactive in it) by one step each time it is "
            "shown; its own sum stays 0, a mistake, so the stop is reached and cut at its "
            f"presentation {hit['presentations']}, on every order that shows it that "
            "often (replayed in tests by steering the machine's rounding)"), ev)
    else:
        end_stops = Claim(None, "not assessed", "whole motor steps round the gamma "
                          "rule's moves at random; no rounding branch that reaches a "
                          "stop is known here and no bound covers every rounding", ev)
    words = []
    if g["stall"]:
        words.append(f"it does not learn surely: every move can round to 0 (probability "
                     f"at least 10^{g['stall_log10']:.1f} per move), leaving every weight "
                     "at 0 and every sum at 0, a mistake, so no number of presentations "
                     "makes learning certain on any order")
    alpha = g["alpha"]
    if alpha is not None and alpha["fits"]:
        words.append(f"on every order some rounding learns: with probability at least "
                     f"10^{alpha['log10']:.0f} every move rounds as the error-correction "
                     f"rule's, which learns within {alpha['reinforcements']} "
                     f"reinforcements inside +/-{alpha['max_weight']} steps")
    if chain is not None:
        ev["chain"] = chain
    if chain is not None and chain["learns"] is False:
        start = "from the start" if not chain["path"] else (
            f"after the rounding outcomes in evidence['chain']['path'] (the weights are "
            f"then {chain['trap']})")
        return end_stops, Claim(False, "finite chain (gamma rule, whole steps)", (
            f"on the given order, with positive probability it never learns: {start} "
            "no rounding of any later move reaches weights that answer every figure "
            f"right (exact search of {chain['states']} pass-start states)"), ev)
    if chain is not None:
        words.append(f"on the given order it learns with probability 1 (exact search "
                     f"of the finite chain of {chain['states']} pass-start states); "
                     "for other orders whether it does is not decided")
    else:
        words.append("whether it learns with probability 1 is not decided")
    words[-1] += f" (with quantize=False the centred task is {centred})"
    return end_stops, Claim(None, how, "; ".join(words), ev)


def _forced_machine_passes(task, units):
    """The most passes a forced-rule machine runs on any stream of whole passes: each
    R-unit is right on every figure in every pass from its own bound on, so the machine
    has learned by the largest. None when some R-unit is not proven to learn."""
    from verify.machine._forced import every_stream

    lo, hi = (units.lo, units.hi) if units.stops else (None, None)
    passes = []
    for r, cols in enumerate(task.inputs):
        v = every_stream(task.patterns[:, cols], task.targets[:, r], units.e, lo, hi)
        if v["clean_from"] is None:
            return None
        passes.append(v["clean_from"] + 1)
    return max(passes, default=1)


def _learnable_claim(v, cols):
    n = len(cols)
    if v.separable:
        return Claim(True, f"check_separable/{v.method}",
                     f"separable on its {n} A-units: an exact witness classifies every "
                     "figure, so training can succeed",
                     {"witness": [str(c) for c in v.witness],
                      "a_units": [int(c) for c in cols]})
    if v.separable is False:
        return Claim(False, f"check_separable/{v.method}",
                     "cannot learn: no A-unit reaches it (every motor stopped or every "
                     "input cut), so its sum is 0 on every figure, a mistake" if n == 0
                     else f"not separable on its {n} A-units: an exact certificate on "
                     f"{len(v.certificate)} figures shows that no setting of the "
                     "potentiometers answers all of them",
                     {"certificate": {str(i): str(c) for i, c in v.certificate.items()},
                      "a_units": [int(c) for c in cols]})
    if v.method == "timeout":  # cut by check_machine's own limit, named as such
        return Claim(None, "check_separable/timeout",
                     f"undecided: the separability check on its {n} A-units did not "
                     "finish within timeout_s")
    return Claim(None, f"check_separable/{v.method}", v.message)


class _Reduced:
    """One R-unit's task with A-unit columns that always agree merged; all-zero
    columns dropped. ``P`` scores, ``D`` moves (units), ``groups`` the A-units of each
    merged column (indices into the R-unit's inputs); ``cols`` the A-units of the
    columns of ``X``."""

    def __init__(self, X, y, units, cols=None):
        active = np.flatnonzero(X.any(axis=0))
        uniq, inverse, counts = np.unique(X[:, active].T, axis=0, return_inverse=True,
                                          return_counts=True)
        self.groups = [active[inverse.ravel() == g] for g in range(len(uniq))]
        Xu = uniq.T.astype(np.int64)
        self.X, self.y = X, y
        self.cols = np.arange(X.shape[1]) if cols is None else np.asarray(cols)
        self.P = y[:, None] * Xu * counts[None, :]
        self.D = units.e * y[:, None] * Xu
        self.R_sq = int(X.sum(axis=1).max())
        self.n, self.d = Xu.shape

    def small(self):
        return self.d <= 64 and self.n <= 24


#: End-stop evidence that records how a search went, not what the claim rests on:
#: kept out of the report (in ``Claim.notes``), since no re-check can recompute it.
SEARCH_NOTES = ("gamma_upper", "ball_max_weight_steps", "ball_min_weight_steps",
                "ball_refined", "ball_complete", "beam_furthest_steps", "beam_a_unit",
                "beam_runs")
#: The numbers Novikoff's argument derives from a certified margin.
MARGIN_NUMBERS = ("gamma_lower", "reinforcement_bound", "novikoff_norm_bound_steps")
#: A stated weight bound, kept only beside the certificate it is recomputed from.
BOUND_NUMBERS = ("bound_used", "max_weight_steps", "min_weight_steps")


def _end_stop_claim(red, units, budget, z3_depth, rng, orders, deadline):
    """The end-stop claim with only re-checkable evidence (the rest in its notes),
    and the stream that reaches a stop, if one was found."""
    claim, hit = _end_stop_search(red, units, budget, z3_depth, rng, orders, deadline)
    return _split_notes(claim), hit


def _split_notes(claim):
    """Move the end-stop evidence that the report cannot back to ``notes``: search
    records, the margin numbers without the direction that certifies them, and a
    weight bound without its certificate."""
    ev, notes = dict(claim.evidence), dict(claim.notes)
    certified = {"one-signed columns": True,
                 "exact reachable states": "invariant_states" in ev,
                 "Novikoff ball per weight": "ball_directions" in ev,
                 **dict.fromkeys(NOVIKOFF_BOUNDS, "margin_direction" in ev)}
    moved = [*SEARCH_NOTES,
             *(MARGIN_NUMBERS if "margin_direction" not in ev else ()),
             *(BOUND_NUMBERS if not certified.get(ev.get("bound_used"), False) else ()),
             *(("reachable_states",) if "invariant_states" not in ev else ())]
    for key in moved:
        if key in ev:
            notes[key] = ev.pop(key)
    return dataclasses.replace(claim, evidence=ev, notes=notes)


def margin_bounds(red: _Reduced, lower: Fraction, units: _Units
                  ) -> tuple[JSONDict, int, int, str]:
    """Novikoff's numbers from a margin of at least ``lower`` on one R-unit's task,
    and the better of his weight bound and the one-signed argument:
    ``(numbers, top, bottom, used)``, the bound in units (shared by
    :func:`check_machine` and :func:`recheck_report`)."""
    mistakes = math.floor(Fraction(red.R_sq) / lower ** 2)
    norm = math.floor(Fraction(red.R_sq) / lower)
    bound, used = ((norm, NOVIKOFF_BOUNDS[1]) if norm <= mistakes else
                   (mistakes, NOVIKOFF_BOUNDS[0]))
    top, bottom = bound * units.e, -bound * units.e
    one = _one_signed(red)
    if one is not None and (one[0] < top or one[1] > bottom):
        (top, bottom), used = one, "one-signed columns"
        mistakes = min(mistakes, red.n)
    return ({"reinforcement_bound": mistakes,
             "novikoff_norm_bound_steps": str(norm * units.eta)}, top, bottom, used)


def stops_evidence(units: _Units) -> JSONDict:
    """The end stops and increment as a claim's evidence states them."""
    return {"weight_range": None if not units.stops else
            [str(units.steps(units.lo)), str(units.steps(units.hi))],
            "increment_steps": str(units.eta)}


def _end_stop_search(red, units, budget, z3_depth, rng, orders, deadline):
    from verify.margin import max_margin

    m = max_margin(red.X.astype(np.float64), red.y, intercept=False)
    lower = Fraction(m.lower) if m.lower > 0 else None
    ev = {"R_sq": red.R_sq, "gamma_lower": m.lower, "gamma_upper": m.upper,
          **({"margin_direction": [float(v) for v in m.u]}
             if m.lower > 0 and margin_holds(red.X, red.y, m.u, m.lower) else {}),
          **stops_evidence(units)}
    if lower is None:   # pragma: no cover - separable data have a positive margin
        return Claim(None, "max_margin", "margin too thin to certify", ev), None
    numbers, top, bottom, used = margin_bounds(red, lower, units)
    ev.update(numbers)
    mistakes = numbers["reinforcement_bound"]
    graph = None
    if red.small():
        graph = _clipped.reachable(red.P, red.D, -_clipped.NO_STOP, _clipped.NO_STOP,
                                   budget=budget)
        if graph.complete:
            top = int(graph.states.max(initial=0))
            bottom = int(graph.states.min(initial=0))
            used = "exact reachable states"
            ev["reachable_states"] = len(graph.states)
    fits = _fits_claim(units, top, bottom, used, mistakes, ev)
    if fits is not None:
        if used == "exact reachable states":
            ev.update(_invariant_evidence(graph, red))
        return fits, None
    if used == "exact reachable states":
        s = int(np.flatnonzero((graph.states > units.hi).any(axis=1)
                               | (graph.states < units.lo).any(axis=1))[0])
        return _hit_claim(red, units, graph.path_to(s), "exhaustive", ev)
    for stream in _greedy_streams(red, units, mistakes, np.asarray(m.u, float)):
        if _clipped.run_passes(red.P, red.D, units.lo, units.hi, np.asarray(stream),
                               max_passes=1).first_clip >= 0:
            return _hit_claim(red, units, stream, "greedy", ev)
    lo_inc, hi_inc = -(-units.lo // units.e), units.hi // units.e
    proven = _reach.proven_reach(red.X, red.y, lo_inc, hi_inc, deadline=deadline)
    if proven is not None:
        ball = _ball_evidence(red, units, proven, ev)
        if ball[0] < top or ball[1] > bottom:
            top, bottom = ball[0], ball[1]
            used = ("Novikoff ball per weight and at its pushes" if proven.pushed
                    else "Novikoff ball per weight")
            fits = _fits_claim(units, top, bottom, used, mistakes, ev,
                               ": each weight lies in a ball around a separating "
                               "direction that no mistake can leave"
                               + ("; at the mistakes that push a weight further "
                                  "out it lies in a smaller ball still"
                                  if proven.pushed else ""))
            if fits is not None:
                # the directions alone re-check the bounds (kept when not too many)
                if not proven.pushed and len(proven._ball.directions) <= MAX_DIRECTIONS:
                    fits.evidence["ball_directions"] = _directions(red, proven)
                return fits, None
    pushed = None
    if proven is not None:
        pushed = _reach.pushed_reach(red.X, red.y, proven, lo_inc, hi_inc,
                                     deadline=deadline)
        ev.update(beam_furthest_steps=str(pushed.furthest * units.eta),
                  beam_a_unit=(None if pushed.column is None
                               else int(red.cols[pushed.column])),
                  beam_runs=len(pushed.tried))
        if pushed.stream is not None:
            return _hit_claim(red, units, pushed.stream, "beam", ev)
    for _ in range(orders):
        if expired(deadline):
            break
        order = rng.permutation(red.n)
        run = _clipped.run_passes(red.P, red.D, units.lo, units.hi, order,
                                  max_passes=200)
        if run.first_clip >= 0:
            stream = np.tile(order, run.first_clip // red.n + 1)[:run.first_clip + 1]
            return _hit_claim(red, units, stream.tolist(), "random order", ev)
    if mistakes <= z3_depth and red.small():
        found = _z3_hit(red, units, mistakes, deadline)
        if found in (BUDGET, TIMEOUT):
            limit = ("within timeout_s" if found == TIMEOUT else
                     f"within its budget of {Z3_RLIMIT:,} resource units (Z3_RLIMIT)")
            return Claim(None, "z3 bounded model checking",
                         f"undecided: Z3 did not finish {limit} (the bound "
                         f"{units.steps(top)} steps exceeds the end stops and no stream "
                         "reaching them was found)", ev), None
        if found is None:
            return Claim(True, "z3 bounded model checking",
                         f"no stream of up to {mistakes} reinforcements (the most any "
                         "order makes before a first cut) reaches an end stop: Z3 "
                         "proved it", ev), None
        return _hit_claim(red, units, found, "z3", ev)
    return Claim(None, used, _undecided(units, top, bottom, used, pushed, ev), ev), None


def _one_signed(red):
    """``(top, bottom)`` in units when every A-unit is pushed one way only (all its
    figures want the same sign, as when every target is the same): then no figure
    ever scores below zero, a mistake needs every one of its active weights at zero,
    each weight moves once, and no figure is a mistake twice. Else None."""
    up, down = red.D.max(axis=0, initial=0), red.D.min(axis=0, initial=0)
    if ((up > 0) & (down < 0)).any():
        return None
    return int(up.max(initial=0)), int(down.min(initial=0))


def _fits_claim(units, top, bottom, used, mistakes, ev, why=""):
    """Record the bound ``used`` in ``ev``; the claim that no end stop ever bites when
    ``[bottom, top]`` (units) fits inside the stops, else None."""
    ev.update(bound_used=used, max_weight_steps=str(units.steps(top)),
              min_weight_steps=str(units.steps(bottom)))
    if top > units.hi or bottom < units.lo:
        return None
    return Claim(True, used,
                 f"no end stop ever cuts a move short: every weight stays within "
                 f"[{units.steps(bottom)}, {units.steps(top)}] steps for every order "
                 f"({used}{why}); the machine is the ideal perceptron on this task and "
                 f"learns it within {mistakes} reinforcements", ev)


def _ball_evidence(red, units, proven, ev):
    """Record the per-weight ball bounds in ``ev``; return their ``(top, bottom)``
    in units."""
    top = int(proven.upper.max(initial=0)) * units.e
    bottom = int(proven.lower.min(initial=0)) * units.e
    refined = []
    for j, s in proven.refined:
        b = int(proven.upper[j]) if s > 0 else -int(proven.lower[j])
        refined.append({"a_unit": int(red.cols[j]), "sign": s,
                        "bound_steps": str(units.steps(b * units.e)),
                        "by": "balls at its pushes" if (j, s) in proven.pushed
                        else "own ball"})
    ev.update(ball_max_weight_steps=str(units.steps(top)),
              ball_min_weight_steps=str(units.steps(bottom)), ball_refined=refined,
              ball_complete=proven.complete)
    return top, bottom


def _directions(red, proven):
    """The ball's integer directions as lists over the R-unit's inputs (0 on the
    A-units that no figure activates)."""
    out = []
    for U in proven._ball.directions:
        full = [0] * red.X.shape[1]
        for c, v in zip(proven._cols.tolist(), np.asarray(U).tolist()):
            full[c] = int(v)
        out.append(full)
    return out


def _undecided(units, top, bottom, used, pushed, ev):
    """Why the end-stop claim stays open: the best bound and the furthest push."""
    words = (f"the best bound proven ({used}) lets a weight reach "
             f"[{units.steps(bottom)}, {units.steps(top)}] steps, beyond the end stops "
             f"[{units.steps(units.lo)}, {units.steps(units.hi)}]")
    last = ev.get("ball_refined", [])[-1:]
    if last and ev.get("ball_complete"):
        words += (f" (A-unit {last[0]['a_unit']}'s {last[0]['by']} still allow"
                  f"{'s' if last[0]['by'] == 'own ball' else ''} "
                  f"{last[0]['bound_steps']} steps"
                  + (", about the best Novikoff's argument gives for it"
                     if last[0]["by"] == "own ball" else
                     ", with the mistake condition of the moves that raise it") + ")")
    elif last:
        words += (f" (the weight-by-weight balls stopped at their budget after "
                  f"{len(ev['ball_refined'])} weights)")
    if pushed is not None:
        words += (f", while the searches (greedy, {len(pushed.tried)} beam runs, random "
                  f"orders) pushed a weight only to {pushed.furthest * units.eta} "
                  "steps; not proven either way")
    else:
        words += ", and no stream reaching them was found"
    return words


def _hit_claim(red, units, stream, how, ev):
    """Cut ``stream`` at its first blocked move (checked with the clipped update)."""
    stream = [int(i) for i in stream]
    w = np.zeros(red.d, np.int64)
    run = _clipped.run_passes(red.P, red.D, units.lo, units.hi,
                              np.asarray(stream), max_passes=1)
    if run.first_clip < 0:  # pragma: no cover - every search returns a hitting stream
        raise RuntimeError("BUG: a stream said to reach an end stop does not; please "
                           "report it with the data.")
    del w
    stream = stream[:run.first_clip + 1]
    ev = dict(ev, stream=stream)
    return Claim(False, how, f"an end stop cuts a move short after {len(stream)} "
                 f"presentations of a stream found by the {how} search (replay: "
                 "MarkI.train(images, labels, order=stream, max_epochs=1) has "
                 "saturated > 0 for this R-unit)", ev), stream


def _greedy_streams(red, units, mistakes, u):
    """Greedy mistake streams of the ideal rule: push the weight that is furthest out
    further, and :mod:`verify.adversary`'s rules (largest growth of ``||w||``, least
    violated, least progress along the max-margin direction ``u``)."""
    from verify.adversary import _greedy_run

    w = np.zeros(red.d, np.int64)
    Pf = red.P.astype(np.float64)   # small integers: float64 products are exact (BLAS)
    stream = []
    while len(stream) <= mistakes:
        wrong = np.flatnonzero(Pf @ w <= 0)
        if wrong.size == 0:
            break
        nxt = w[None, :] + red.D[wrong]
        reach = np.maximum(nxt.max(axis=1) / max(units.hi, 1),
                           nxt.min(axis=1) / min(units.lo, -1))
        k = int(wrong[np.argmax(reach)])
        stream.append(k)
        w = w + red.D[k]
        if w.max() > units.hi or w.min() < units.lo:
            break
    yield stream
    YX = (red.y[:, None] * red.X).astype(np.float64)
    for rule in ("norm", "least", "align"):
        yield _greedy_run(YX, rule, u, mistakes + 1)


def _z3_hit(red, units, depth, deadline=None):
    """A stream of at most ``depth`` mistakes whose ideal weights leave the end
    stops, None when Z3 proves there is none, or what stopped it first: ``"budget"``
    (:data:`Z3_RLIMIT` resource units in all) or ``"timeout"`` (``deadline``)."""
    import z3

    ctx = z3.Context()   # its own: the work counted is this search's alone
    P = red.P.tolist()
    D = red.D.tolist()
    w = [z3.IntVal(0, ctx)] * red.d
    solver = z3.Solver(ctx=ctx)
    solver.set("random_seed", 0)

    def used():
        stats = solver.statistics()
        return stats.get_key_value("rlimit count") if "rlimit count" in stats.keys() else 0

    def check():
        if used() >= Z3_RLIMIT:
            raise _Undecided(BUDGET)
        if expired(deadline):
            raise _Undecided(TIMEOUT)
        solver.set("rlimit", Z3_RLIMIT - used())
        if deadline is not None:
            solver.set("timeout", max(1, math.ceil(seconds_left(deadline) * 1000)))
        answer = solver.check()
        if answer == z3.unknown:   # Z3 says "canceled" for either limit: count
            raise _Undecided(BUDGET if used() >= Z3_RLIMIT or deadline is None
                             else TIMEOUT)
        return answer

    choices, outside = [], []
    for k in range(depth):
        c = z3.Int(f"c{k}", ctx)
        choices.append(c)
        solver.add(c >= 0, c < red.n)
        score = z3.Sum([z3.If(c == i, z3.Sum([P[i][j] * w[j] for j in range(red.d)]),
                              0) for i in range(red.n)])
        solver.add(score <= 0)
        w = [w[j] + z3.Sum([z3.If(c == i, D[i][j], 0) for i in range(red.n)])
             for j in range(red.d)]
        outside.append(z3.Or([z3.Or(v > units.hi, v < units.lo) for v in w]))
        solver.push()
        solver.add(outside[-1])
        try:
            if check() == z3.sat:
                model = solver.model()
                return [model.eval(ci).as_long() for ci in choices]
            solver.pop()
            if check() != z3.sat:   # no stream of k + 1 mistakes at all
                return None
        except _Undecided as stop:
            return stop.args[0]
    return None


class _Undecided(Exception):
    """Z3 answered unknown: ``args[0]`` says what stopped it (``"budget"`` or
    ``"timeout"``)."""


# --------------------------------------------------------------------------------------
# convergence with end stops


#: Passes at most that each continuation after a stream reaching a stop is run (the
#: compiled clipped update runs about 10,000 passes of 260 figures a second).
CONTINUE_PASSES = 5_000
#: Passes at most of each random periodic order tried besides the continuations.
PERIODIC_PASSES = 200


def _ideal_convergence(end_stops):
    """Convergence when no end stop ever bites (it follows from the learnable and
    end-stop claims)."""
    bound = end_stops.evidence.get("reinforcement_bound")
    within = (f"within {bound} reinforcements (the end-stop claim's bound)"
              if bound is not None else "(Novikoff's theorem)")
    return Claim(True, "equals the ideal perceptron",
                 f"learns for every order {within}, because no end stop ever bites", {})


def _convergence_claim(red, units, end_stops, hit, budget, orders, rng, deadline):
    if end_stops.holds:
        return _ideal_convergence(end_stops)
    if red.small():
        graph = _clipped.reachable(red.P, red.D, units.lo, units.hi, budget=budget)
        if graph.complete:
            return _exact_convergence(graph, red)
    ball = _projected.projected_ball(red.X, red.y, e=units.e, lo=units.lo, hi=units.hi)
    if ball is not None:
        return _clipped_ball_claim(ball, red, hit)
    after: list[JSONDict] = []
    timed_out: list[bool] = []
    if hit is not None:
        for name, order in _continuation_orders(red, units, hit):
            run = _clipped.run_passes(red.P, red.D, units.lo, units.hi, order,
                                      prefix=hit, max_passes=CONTINUE_PASSES,
                                      deadline=deadline)
            after.append(continuation(name, order, run))
            timed_out.append(run.timed_out)
            if run.cycle_start is not None:
                return _blocking_claim(list(hit) + order.tolist() * run.cycle_start,
                                       order.tolist() * run.period,
                                       "continuation after the stop",
                                       {"continuations": after})
    for k in range(orders + 1):
        if expired(deadline):
            break
        order = np.arange(red.n) if k == 0 else rng.permutation(red.n)
        prefix = [] if hit is None or k % 2 == 0 else list(hit)
        run = _clipped.run_passes(red.P, red.D, units.lo, units.hi, order,
                                  prefix=prefix, max_passes=PERIODIC_PASSES,
                                  deadline=deadline)
        if run.cycle_start is not None:
            return _blocking_claim(prefix + order.tolist() * run.cycle_start,
                                   order.tolist() * run.period, "periodic order",
                                   {"continuations": after} if after else {})
    words = (f"no order among {orders + 1} tried keeps the machine from learning; "
             "not proven either way")
    if after:
        words = (f"a stop is reached (stream of {len(hit)}); continuing "
                 + "; ".join(_continuation_words(c, t) for c, t in zip(after, timed_out))
                 + ", so this stream does not block in these continuations; whether "
                 "some stream blocks is not decided (" + words + ")")
    return Claim(None, "continuations and periodic orders" if after else
                 "periodic orders", words, {"continuations": after} if after else {})


def _clipped_ball_claim(ball, red, hit):
    """Convergence for every stream from a certified centre inside the stops
    (:mod:`verify.machine._projected`)."""
    reach = (f"an end stop can cut a move short (a stream of {len(hit)} presentations "
             "does it), but" if hit is not None else "whether or not an end stop is "
             "ever reached,")
    return Claim(True, "clipped Novikoff ball",
                 f"learns for every order: {reach} every mistake, cut short or not, "
                 f"brings the potentiometers closer to one setting inside the stops, "
                 f"so the machine makes at most {ball.mistakes} reinforcements of this "
                 "R-unit on any stream (clipping never blocks learning on this task; "
                 "re-check with verify.machine.check_projected_ball)",
                 {**ball.to_evidence(), "a_units": [int(c) for c in red.cols]})


def _continuation_orders(red, units, hit):
    """Fair periodic orders to continue with after ``hit`` reached a stop, by name:
    the figures as given; the stream's own order (its figures in order of first
    appearance, then the others as given), which keeps pushing the way the search
    found; and the figures whose correction pushes the stopped weight further into
    its stop first (cut short every time while the weight sits there), the others
    after them as given."""
    n = red.n
    w = red.D[np.asarray(hit, np.int64)].sum(axis=0)   # ideal weights: it is the
    out = np.flatnonzero((w > units.hi) | (w < units.lo))  # machine until the cut
    g = int(out[0])
    sign = 1 if w[g] > units.hi else -1
    first = dict.fromkeys(int(i) for i in hit)
    own = list(first) + [i for i in range(n) if i not in first]
    push = sign * red.D[:, g] > 0
    orders = [("given", np.arange(n)), ("stream", np.array(own, np.int64)),
              ("pushing", np.r_[np.flatnonzero(push), np.flatnonzero(~push)])]
    unique, seen = [], set()
    for name, order in orders:
        if order.tobytes() not in seen:
            seen.add(order.tobytes())
            unique.append((name, order))
    return unique


def continuation(name: str, order: np.ndarray, run: _clipped.PassRun) -> JSONDict:
    """One continuation's outcome as JSON: ``converges`` (a pass without a mistake
    after ``passes`` passes and ``reinforcements`` corrections, prefix included),
    ``never learns`` (the pass-boundary state at ``cycle_start`` recurs ``period``
    passes later) or ``undecided`` (within ``passes`` passes, as far as the run went:
    rerun with ``max_passes=passes`` it ends in the same state, so
    :func:`recheck_report` recomputes every number)."""
    out = {"order": name, "order_indices": order.tolist(), "passes": run.passes,
           "reinforcements_after_prefix": run.mistakes - run.prefix_mistakes}
    if run.converged:
        out["outcome"] = "converges"
    elif run.cycle_start is not None:
        out.update(outcome="never learns", cycle_start=run.cycle_start,
                   period=run.period)
    else:
        out["outcome"] = "undecided"
    return out


def _continuation_words(c, timed_out):
    if c["outcome"] == "converges":
        return (f"in the {c['order']} order it still learns (pass {c['passes']} is "
                f"the first without a mistake, after "
                f"{c['reinforcements_after_prefix']} more reinforcements)")
    return (f"in the {c['order']} order it is undecided after "
            f"{plural(c['passes'], 'pass', 'passes')}"
            + (" (time budget)" if timed_out else ""))


def _blocking_claim(prefix, cycle, how, extra=None):
    ev = {"prefix": [int(i) for i in prefix], "cycle": [int(i) for i in cycle],
          **(extra or {})}
    return Claim(False, how,
                 f"never learns on a stream that shows every figure again and again: "
                 f"after a prefix of {len(prefix)} presentations, a cycle of "
                 f"{len(cycle)} presentations with mistakes brings the potentiometers "
                 "back to the same setting (end stops block the corrections)", ev)


def _invariant_evidence(graph, red):
    """A complete reachable set as evidence that re-checks without a search (an
    inductive invariant over the merged A-units), or nothing when it is too large."""
    if graph.states.size > MAX_INVARIANT:
        return {}
    return {"invariant_states": graph.states.tolist(),
            "invariant_groups": [[int(c) for c in g] for g in red.groups]}


def _blocking_components(n_states: int, src: ArrayLike, dst: ArrayLike,
                        example: ArrayLike, correct: ArrayLike
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The strongly connected sets of a clipped mistake graph on which some fair
    stream never learns: ``(comp, inside, bad)``, the component of each state, whether
    each edge stays in its component, and the components that have a mistake edge
    inside and that every figure leaves inside (answered correctly at a member, or a
    mistake edge inside). Edge ``k`` presents ``example[k]`` at ``src[k]``;
    ``correct[s, i]``: figure ``i`` is answered correctly at state ``s``."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    src, dst, example = (np.asarray(a, np.int64) for a in (src, dst, example))
    correct = np.asarray(correct, bool)
    adj = coo_matrix((np.ones(len(src)), (src, dst)),
                     shape=(n_states, n_states)).tocsr()
    _, comp = connected_components(adj, directed=True, connection="strong")
    inside = comp[src] == comp[dst]
    n_comp = comp.max() + 1
    has_mistake = np.zeros(n_comp, bool)
    has_mistake[comp[src[inside]]] = True
    covered = np.zeros((n_comp, correct.shape[1]), bool)
    np.logical_or.at(covered, comp[:len(correct)], correct)
    covered[comp[src[inside]], example[inside]] = True
    return comp, inside, np.flatnonzero(has_mistake & covered.all(axis=1))


def _exact_convergence(graph, red):
    """Decide over every fair stream with the strongly connected components of the
    clipped mistake graph."""
    n_states = len(graph.states)
    comp, inside, bad = _blocking_components(n_states, graph.src, graph.dst,
                                            graph.example, graph.correct)
    if bad.size == 0:
        ev = _invariant_evidence(graph, red)
        return Claim(True, "exhaustive (all streams)",
                     f"learns on every stream that shows every figure again and again: "
                     f"none of the {n_states} reachable settings of the potentiometers "
                     "lies on a cycle of mistakes that every figure leaves in place", ev)
    c = int(bad[0])
    members = np.flatnonzero(comp == c)
    s = int(members.min())
    prefix = graph.path_to(s)
    cycle = _covering_walk(graph, comp, c, s, red.n, inside)
    claim = _blocking_claim(prefix, cycle, "exhaustive (all streams)")
    return claim


def _covering_walk(graph, comp, c, s, n, inside):
    """A closed walk from ``s`` inside component ``c`` that presents every figure and
    makes at least one mistake."""
    from collections import deque

    edges = np.flatnonzero(inside & (comp[graph.src] == c))
    out = {}
    for k in edges:
        out.setdefault(int(graph.src[k]), []).append(int(k))

    def path(a, b):
        if a == b:
            return []
        prev = {a: None}
        queue = deque([a])
        while queue:
            v = queue.popleft()
            for k in out.get(v, ()):
                t = int(graph.dst[k])
                if t not in prev:
                    prev[t] = k
                    if t == b:
                        steps = []
                        while prev[t] is not None:
                            steps.append(prev[t])
                            t = int(graph.src[prev[t]])
                        return steps[::-1]
                    queue.append(t)
        raise RuntimeError("BUG: no path inside a strongly connected set")  # pragma: no cover

    walk, here, mistakes = [], s, 0
    members = np.flatnonzero(comp == c)
    for i in range(n):
        # a state of c where figure i is correct (no move) or a mistake that stays in c
        where = [int(v) for v in members if v < len(graph.correct) and graph.correct[v, i]]
        stay = [int(k) for k in edges if graph.example[k] == i]
        if where:
            target, move = where[0], None
        else:
            target, move = int(graph.src[stay[0]]), stay[0]
        for k in path(here, target):
            walk.append(int(graph.example[k]))
            mistakes += 1
        here = target
        walk.append(i)
        if move is not None:
            here = int(graph.dst[move])
            mistakes += 1
    if mistakes == 0:   # all figures were correct where we went: take a mistake edge
        k = int(edges[0])
        for e in path(here, int(graph.src[k])):
            walk.append(int(graph.example[e]))
        walk.append(int(graph.example[k]))
        here = int(graph.dst[k])
    for k in path(here, s):
        walk.append(int(graph.example[k]))
    return walk


# --------------------------------------------------------------------------------------
# replaying streams on the machine itself


def replay_stream(machine: MarkI, images: ArrayLike, labels: ArrayLike,
                  prefix: Sequence[int], cycle: Sequence[int], *, passes: int = 3,
                  r_unit: int | None = None) -> JSONDict:
    """Show ``prefix + cycle`` once, then ``cycle`` ``passes`` times, on ``machine``
    (retrained from zero); return what a blocking claim predicts can be checked.

    Returns a dict: ``saturated`` (moves cut short, per R-unit), ``mistakes_per_epoch``
    of the cycle passes, ``returns`` (the weights after the cycle passes equal those
    after the first run: the machine is on a cycle) and ``converged``. A blocking
    claim is about one R-unit: with ``r_unit`` only its weights and its mistakes are
    judged (each cycle pass is then its own ``train`` call, and ``returns`` needs its
    weights back after every one); without it, the whole machine's.
    """
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = machine.train(images, labels, order=list(prefix) + list(cycle),
                              max_epochs=1)
        w = machine.weights
        if r_unit is None:
            more = machine.train(images, labels, order=list(cycle), max_epochs=passes,
                                 warm_start=True)
            return {"saturated": (first.saturated + more.saturated).tolist(),
                    "mistakes_per_epoch": list(more.mistakes_per_epoch),
                    "returns": bool(np.array_equal(machine.weights, w)),
                    "converged": bool(more.converged)}
        check_int_at_least(r_unit, "r_unit", 0)
        check_int_at_least(passes, "passes", 1)
        if r_unit >= len(w):
            raise ValueError(f"r_unit={r_unit} is out of range: the machine has "
                             f"{len(w)} R-units, indices 0 to {len(w) - 1} "
                             f"({r_unit_name(0)} to {r_unit_name(len(w) - 1)})")
        saturated, mistakes, returns = first.saturated.copy(), [], True
        for _ in range(passes):
            run = machine.train(images, labels, order=list(cycle), max_epochs=1,
                                warm_start=True)
            saturated += run.saturated
            mistakes.append(int(run.mistakes[r_unit]))
            returns &= bool(np.array_equal(machine.weights[r_unit], w[r_unit]))
    return {"saturated": saturated.tolist(), "mistakes_per_epoch": mistakes,
            "returns": returns, "converged": mistakes[-1] == 0}


# --------------------------------------------------------------------------------------
# timing and quantisation


def exposure_limits(params: MarkIParams, images: ArrayLike | None = None
                    ) -> tuple[float, float]:
    """``(rise_s, decay_s)``: exposures below which a photocell can be misread.

    A lit cell (light ``T >= s_threshold``) shown after darkness reads
    ``T (1 - exp(-t/tau_rise))``: it is read dark while ``t < rise_s``. A dark cell
    (``T < s_threshold``) after long light ``L`` reads ``T + (L - T) exp(-t/tau_decay)``:
    it is read lit while ``t < decay_s``. Worst cases are taken over the light levels
    in ``images`` (default: figures of 0 and 1). 0.0 when the cell cannot be misread.

    >>> from markone.hardware import MarkIParams
    >>> [round(t, 6) for t in exposure_limits(MarkIParams())]   # 20 ms ln 2, 100 ms ln 2
    [0.013863, 0.069315]
    """
    th = params.s_threshold
    levels = np.array([0.0, 1.0]) if images is None else np.unique(np.asarray(images))
    lit, dark = levels[levels >= th], levels[levels < th]
    rise = decay = 0.0
    if lit.size and params.photocell_rise_s > 0:
        t = float(lit.min())
        rise = math.inf if t == th else params.photocell_rise_s * math.log(t / (t - th))
    if lit.size and dark.size and params.photocell_decay_s > 0:
        t, top = float(dark.max()), float(lit.max())
        decay = params.photocell_decay_s * math.log((top - t) / (th - t))
    return rise, decay


def _timing_claim(machine, task, images, exposure_s):
    from markone.hardware import plugboard

    p = machine.params
    rise, decay = exposure_limits(p, images)
    ev = {"exposure_s": exposure_s,
          **{k: v if math.isfinite(v) else "inf"       # JSON has no infinity
             for k, v in (("rise_limit_s", rise), ("decay_limit_s", decay),
                          ("shortest_safe_exposure_s", max(rise, decay)))}}
    if exposure_s is None:
        levels = np.unique(images)
        th, tol = p.s_threshold, p.settle_tolerance
        close = levels[(levels >= th) & (levels - tol < th)
                       | (levels < th) & (levels + tol >= th)]
        if close.size:
            return Claim(None, "settling",
                         f"light levels {close[:5].tolist()} lie within the settling "
                         f"tolerance {tol} of the threshold {th}: a settled cell may "
                         "still be read on the wrong side", ev)
        return Claim(True, "settling", "each figure is shown until the retina settles "
                     f"within {tol} of its light, and every light level is further than "
                     "that from the threshold, so every S-unit is read as settled; "
                     f"fixed exposures longer than {max(rise, decay) * 1000:.4g} ms are "
                     "safe too", ev)
    if exposure_s >= rise and (exposure_s > decay or decay == 0):
        return Claim(True, "closed-form photocell response",
                     f"an exposure of {exposure_s * 1000:.4g} ms cannot change any S-unit "
                     f"(so no A-unit pattern), whatever came before: every exposure "
                     f"longer than {max(rise, decay) * 1000:.4g} ms is safe; shorter ones "
                     "can misread a photocell", ev)
    S = task.settled.astype(bool)
    n = len(S)
    befores = [None] + list(range(n))   # the dark start, or figure q shown long before
    for q in befores:
        prev = np.zeros(S.shape[1], bool) if q is None else S[q]
        read = S.copy()
        if exposure_s < rise:
            read &= ~(S & ~prev)               # lit now, dark before: still dark
        if exposure_s < decay:
            read |= (~S & prev)                # dark now, lit before: still lit
        A = plugboard.fire(machine.wiring, read.astype(np.uint8), task.theta)
        changed = np.flatnonzero((A != task.patterns).any(axis=1))
        if changed.size:
            c = int(changed[0])
            units = np.flatnonzero(A[c] != task.patterns[c]).tolist()
            ev.update(before=q, figure=c, a_units_changed=units)
            first = "the dark start" if q is None else f"figure {q} shown long before"
            return Claim(False, "closed-form photocell response",
                         f"an exposure of {exposure_s * 1000:.4g} ms blends figures: after "
                         f"{first}, figure {c} fires a different set of A-units "
                         f"({len(units)} change); exposures longer than "
                         f"{max(rise, decay) * 1000:.4g} ms are safe", ev)
    return Claim(None, "closed-form photocell response",
                 f"an exposure of {exposure_s * 1000:.4g} ms can misread S-units, but no "
                 "figure shown after one other figure changes an A-unit; longer "
                 f"histories were not searched (safe from {max(rise, decay) * 1000:.4g} "
                 "ms)", ev)


def _gamma_fraction(task, eta):
    """The first gamma-rule move that is not a whole number of steps, as
    ``(figure, r_unit, a_unit, steps)``, or None when every move is whole: figure
    ``i`` moves each input of R-unit ``r`` by ``eta (x - k/d)`` (``k`` of its ``d``
    inputs active), active ones up, the others down."""
    for r, cols in enumerate(task.inputs):
        d = len(cols)
        for i, k in enumerate(task.patterns[:, cols].sum(axis=1).tolist()):
            if 0 < k < d:
                for x in (1, 0):
                    move = eta * (x - Fraction(k, d))
                    if move.denominator != 1:
                        j = int(cols[np.flatnonzero(task.patterns[i, cols] == x)[0]])
                        return i, r, j, move
    return None


def _quantisation_claim(p, units, reports, task):
    ev = {"quantize": p.quantize, "increment_steps": str(units.eta),
          "units_per_step": units.Q}
    if p.rule == "gamma":
        if not p.quantize:
            return Claim(True, "rule", "weights are real-valued (quantize=False): no "
                         "rounding", ev)
        found = _gamma_fraction(task, units.eta)
        if found is None:
            return Claim(True, "rule", "every gamma move on these figures is a whole "
                         "number of steps, so quantising never rounds", ev)
        i, r, j, move = found
        ev.update(figure=i, r_unit=r, a_unit=j, move_steps=str(move))
        return Claim(False, "rule",
                     f"the gamma rule asks for fractional moves (active A-units gain what "
                     f"the others lose): figure {i} moves A-unit {j} of {r_unit_name(r)} "
                     f"by {move} steps, which whole motor steps round stochastically, so "
                     "decisions can differ from the real-valued rule", ev)
    exact = units.Q & (units.Q - 1) == 0 and max(abs(units.lo), abs(units.hi),
                                                   units.e) < 2**40
    if not p.quantize:
        return Claim(exact or None, "float arithmetic",
                     "weights are real-valued (quantize=False); the increments and end "
                     "stops are binary fractions, so float64 adds them exactly"
                     if exact else "weights are real-valued (quantize=False) with "
                     "increments that float64 may round; the claims above are about the "
                     "exact rule", ev)
    return Claim(True, "whole increments",
                 f"every requested move is 0 or +/-{units.eta} steps, a whole number, so "
                 "quantising to motor steps never rounds: the machine's decisions are the "
                 "real-valued rule's, step for step (and, while no end stop bites, the "
                 "core perceptron's for any increment: zero start)", ev)
