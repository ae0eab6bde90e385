"""Re-check a machine report from its evidence, independently of how it was found.

:func:`recheck_report` takes a :class:`~verify.machine.MachineReport` (or its JSON) and
the machine, figures and labels it is about. First the report must be well formed and
about this machine (:func:`verify.machine.schema.read_report`: every field known and
of its type, every number finite, the machine's parameters equal to the ones it
names; the SHA-256 of the figures and labels and of the A-unit patterns equal).
Anything else is a ``ValueError`` (the command line's exit 2). Then every number in
every claim's evidence is either verified as a certificate or recomputed from the
machine and figures and compared exactly, and a claim's verdict must be the one its
evidence implies:

* **learnable**: a witness ``w`` must answer every figure (``y_i x_i . w > 0``); a
  Gordan certificate ``c >= 0``, not all zero, must have ``sum_i c_i y_i x_i = 0``;
  ``a_units`` are the R-unit's inputs. A witness makes the claim true, a certificate
  false, whatever ``holds`` says.
* **end stops** (error-correction rule): ``R_sq``, the stops and the increment are
  recomputed; the margin direction must have margin ``gamma_lower`` (exactly), and
  Novikoff's numbers are recomputed from it; a stated bound (``bound_used``,
  ``max_weight_steps``, ``min_weight_steps``) is recomputed from its certificate (the
  margin, the one-signed patterns, the reachable set as an inductive invariant, the
  ball directions); a stream must have its last move cut short, exactly and on a copy
  of the machine. A bound inside the stops makes the claim true, a stream false.
* **converges** (error-correction rule): a ``prefix`` and ``cycle`` must bring the
  weights back after a pass with mistakes, exactly and on the machine (false); a
  centre must pass :func:`verify.machine._projected.check_projected_ball` with the stated
  bound and decrease (true); a clipped reachable set must be closed and free of
  blocking cycles (true); every continuation is run again from the end-stop stream
  for its stated passes and must end as stated.
* claims that follow from others or from an exact deterministic analysis (the
  forced and gamma rules, "equals the ideal perceptron", the claims of an R-unit that
  is not learnable, timing, quantisation, the faults' culprits) are recomputed and
  compared in full; the smallest set of faults is re-checked (it breaks the R-units
  it names, and, when it is said to be 1-minimal, removing any one fault repairs
  the task).

A claim with nothing to check is ``unchecked`` (an end-stop claim proven by Z3, or by
the balls at the pushes, is first tried against the greedy streams: one that reaches
a stop refutes it). The report's summary fields (``theta``, ``learnable``, ...) are
recomputed too. Messages are words for people, not re-checked.

Examples
--------
>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> from verify.machine.check import check_machine
>>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
...                 max_fanout=1, theta=1, n_r_units=1, weight_range=(0, 1))
>>> machine, figures = MarkI(p, seed=0), np.array([[1, 0], [0, 1]])
>>> report = check_machine(machine, figures, ["a", "b"])
>>> checks = recheck_report(report, machine, figures, ["a", "b"])
>>> [(c.claim, c.status) for c in checks if c.status != "unchecked"][:4]
[('report', 'confirmed'), ('R1 learnable', 'confirmed'), ('R1 end_stops', 'confirmed'), ('R1 converges', 'confirmed')]
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from markone._internal.io import to_jsonable
from markone._internal.typing import ArrayLike, JSONDict
from markone.hardware.runits import r_unit_name
from verify.machine import _clipped
from verify.machine._ball import integer_bounds
from verify.machine._clipped import blocking_components
from verify.machine._convergence import (PERIODIC_PASSES, continuation,
                                         continuation_orders, ideal_convergence)
from verify.machine._endstops import (NOVIKOFF_BOUNDS, greedy_streams, margin_bounds,
                                      margin_holds, one_signed, stops_evidence)
from verify.machine.claims import Method, kind_of, rechecks
from verify.machine._fault_claims import (fault_claim, fault_culprits, fault_evidence,
                                          learnable_with)
from verify.machine._learnable import after_learnable, not_assessed
from verify.machine._quantisation import quantisation_claim
from verify.machine.timing import timing_claim
from verify.machine._projected import check_projected_ball
from verify.machine._rule_claims import analyses, rule_claims
from verify.machine.replay import replay_stream
from verify.machine.report import Claim, MachineReport, combined_verdict
from verify.machine.schema import (EVIDENCE_TYPES, REPORT_FORMAT, check_value,
                                   read_report)
from verify.machine.task import Reduced, Units, data_hash, machine_task, patterns_hash

if TYPE_CHECKING:
    from markone.hardware import MarkI

__all__ = ["Recheck", "recheck_report", "margin_holds", "REPORT_FORMAT",
           "NOVIKOFF_BOUNDS"]

#: Evidence fields of the claims re-checked from certificates.
LEARNABLE_FIELDS = ("witness", "certificate", "a_units")
END_STOP_FIELDS = ("R_sq", "gamma_lower", "margin_direction", "reinforcement_bound",
                   "novikoff_norm_bound_steps", "weight_range", "increment_steps",
                   "bound_used", "max_weight_steps", "min_weight_steps",
                   "reachable_states", "invariant_states", "invariant_groups",
                   "ball_directions", "stream")
CONVERGENCE_FIELDS = ("prefix", "cycle", "continuations", "invariant_states",
                      "invariant_groups", "center_numerators", "center_denominator",
                      "reinforcement_bound", "min_decrease", "a_units")
#: Evidence fields of the claims recomputed in full (the forced and gamma rules,
#: timing, quantisation, faults).
RECOMPUTED_FIELDS = ("mu", "passes", "max_weight", "stream", "hit_stream", "learnable",
                     "certificate", "reinforcement_bound", "fits", "stall",
                     "stall_log10", "hit", "alpha", "chain", "exposure_s",
                     "rise_limit_s", "decay_limit_s", "shortest_safe_exposure_s",
                     "before", "figure", "a_units_changed", "quantize",
                     "increment_steps", "units_per_step", "r_unit", "a_unit",
                     "move_steps", "plan", "faults", "kinds", "unlearnable_r_units",
                     "culprits", "minimal")


@dataclasses.dataclass(frozen=True)
class Recheck:
    """The re-check of one claim: ``status`` is ``"confirmed"`` (its evidence holds),
    ``"refuted"`` (it does not: the report is wrong or tampered with) or
    ``"unchecked"`` (no certificate to check, or nothing claimed); ``why`` says
    which."""

    claim: str
    status: str
    why: str

    def to_dict(self) -> JSONDict:
        """As a JSON-ready dict."""
        return dataclasses.asdict(self)


class _Refuted(Exception):
    """The evidence does not hold (the message says where)."""


def _fraction(v):
    """An exact number of the evidence: the schema admits only ``"-3"`` or
    ``"7/2"`` (parsed as integers: ``Fraction``'s own parser is several times
    slower)."""
    num, _, den = v.partition("/")
    return Fraction(int(num), int(den)) if den else Fraction(int(num))


def _known_fields(ev, fields, where):
    """Fields of no claim are refused (ValueError); fields of other claims than
    this one refute it."""
    unknown = sorted(set(ev) - set(fields))
    foreign = [k for k in unknown if k not in EVIDENCE_TYPES and k not in
               RECOMPUTED_FIELDS]
    if foreign:
        raise ValueError(f"malformed machine report: the evidence of {where} has "
                         f"unknown field(s) {foreign}; its fields are {sorted(fields)}")
    if unknown:
        raise _Refuted(f"its evidence has {unknown}, which this claim does not have "
                       f"(its fields are {sorted(fields)})")


def _evidence(claim, fields, where):
    """The claim's evidence, every field known and of its type (ValueError else)."""
    ev = claim["evidence"]
    for k, v in ev.items():
        if k in fields:
            check, what = EVIDENCE_TYPES[k]
            check_value(v, check, what, f"{where} evidence.{k}")
    _known_fields(ev, fields, where)
    return ev


def _verdict(claim, implied, why, what):
    """The claim's verdict must be the one its evidence implies (``implied``: True,
    False or None, with ``why``); returns the re-check's reason or None."""
    holds = claim["holds"]
    if implied is None:
        return None
    if holds is not implied:
        said = {True: "holds", False: "does not hold", None: "is undecided"}[holds]
        raise _Refuted(f"its evidence shows that {what} "
                       f"{'holds' if implied else 'does not hold'} ({why}), yet the "
                       f"claim says it {said}")
    return why


# --------------------------------------------------------------------------------------
# learnable


def _columns(task, r, ev):
    cols = [int(c) for c in ev.get("a_units", [])]
    if cols != [int(c) for c in task.inputs[r]]:
        raise _Refuted("its a_units are not the A-units wired to this R-unit")
    return task.patterns[:, cols].astype(object)


def _learnable(task, r, claim, where):
    from verify.smt import SOLVERS

    ev = _evidence(claim, LEARNABLE_FIELDS, where)
    provers = ("trivial", "perceptron", "lp", "timeout", *SOLVERS,
               *(f"lp+{s}" for s in SOLVERS))
    if claim["method"] not in [f"check_separable/{m}" for m in provers]:
        raise _Refuted(f"the method {claim['method']!r} is not one of check_separable's "
                       f"provers {provers}")
    if "a_units" in ev or ev:
        X, y = _columns(task, r, ev), task.targets[:, r].astype(object)
    if "witness" not in ev and "certificate" not in ev:
        if claim["holds"] is not None:
            raise _Refuted("it has no witness or certificate")
        return None
    if "witness" in ev and "certificate" in ev:
        raise _Refuted("it has both a witness and a certificate")
    if "witness" in ev:
        return _verdict(claim, True, _witness_holds(X, y, ev["witness"]),
                        "the task is learnable")
    return _verdict(claim, False, _certificate_holds(X, y, ev["certificate"]),
                    "the task is learnable")


def _witness_holds(X, y, witness):
    """Why the witness answers every figure (exact), or a refutation."""
    w = [_fraction(v) for v in witness]
    if len(w) != X.shape[1]:
        raise _Refuted(f"the witness has {len(w)} entries for {X.shape[1]} A-units")
    q = math.lcm(*(v.denominator for v in w))     # the witness times q: integers
    scores = y * X.dot(np.array([int(v * q) for v in w], dtype=object))
    bad = [i for i, s in enumerate(scores) if not s > 0]
    if bad:
        raise _Refuted(f"the witness misclassifies figure {bad[0]}")
    return "the witness answers every figure (exact)"


def _certificate_holds(X, y, certificate):
    """Why the Gordan certificate proves that no setting answers every figure (exact),
    or a refutation."""
    c = {int(i): _fraction(v) for i, v in certificate.items()}
    if not c or any(v < 0 for v in c.values()) or not any(c.values()):
        raise _Refuted("the certificate's weights must be >= 0 and not all zero")
    if any(not 0 <= i < len(y) for i in c):
        raise _Refuted("the certificate names a figure that does not exist")
    total = sum((v * y[i] * X[i] for i, v in c.items()), np.zeros(X.shape[1], object))
    if any(total):
        raise _Refuted("sum_i c_i y_i x_i is not zero: the certificate does not prove "
                       "that no setting answers every figure")
    return (f"sum_i c_i y_i x_i = 0 over {len(c)} figures with c >= 0 (exact): no "
            "setting answers them all")


# --------------------------------------------------------------------------------------
# the clipped update, exactly


def _clipped_run(X, y, e, lo, hi, stream, w=None, forced=False):
    """The clipped update along ``stream`` in integer units: ``(w, mistakes, cut)``,
    ``cut`` the index of the first presentation whose move an end stop cut short.
    ``forced``: every presentation moves (the forced rule), not only mistakes."""
    Z = (y[:, None] * X).astype(np.int64)   # 0/+-1; weights within the stops: exact
    w = np.zeros(X.shape[1], np.int64) if w is None else w.copy()
    mistakes, cut = 0, None
    for t, i in enumerate(stream):
        z = Z[i]
        wrong = int(z @ w) <= 0
        mistakes += wrong
        if wrong or forced:
            want = w + e * z
            w = np.minimum(np.maximum(want, lo), hi)
            if cut is None and (w != want).any():
                cut = t
    return w, mistakes, cut


def _stream(ev, key, n):
    s = list(ev.get(key, []))
    if any(not 0 <= i < n for i in s):
        raise _Refuted(f"its {key} names a figure that does not exist")
    return s


# --------------------------------------------------------------------------------------
# end stops (error-correction rule)


def _expect(ev, key, value, what):
    if key in ev and ev[key] != value:
        raise _Refuted(f"its {key} is {ev[key]!r}, but {what} gives {value!r}")


def _margin(red, ev, units):
    """The margin block: ``R_sq`` recomputed; Novikoff's numbers recomputed from a
    margin direction that has margin ``gamma_lower``. Returns the bounds
    ``(top, bottom, used)`` it gives, or None without a direction."""

    _expect(ev, "R_sq", red.R_sq, "the largest number of active inputs")
    has = [k for k in ("gamma_lower", "margin_direction", "reinforcement_bound",
                       "novikoff_norm_bound_steps") if k in ev]
    if not has:
        return None
    if "margin_direction" not in ev or "gamma_lower" not in ev:
        raise _Refuted(f"its {has[0]} has no margin direction and gamma_lower to "
                       "recompute it from")
    if not margin_holds(red.X, red.y, ev["margin_direction"], ev["gamma_lower"]):
        raise _Refuted("the margin direction does not have margin gamma_lower")
    numbers, top, bottom, used = margin_bounds(red, Fraction(float(ev["gamma_lower"])),
                                               units)
    for k, v in numbers.items():
        if ev.get(k) != v:
            raise _Refuted(f"the margin gives {k} = {v!r}, not {ev.get(k)!r}")
    return top, bottom, str(used)


def _bound(red, X, y, ev, units, margin):
    """The stated weight bound recomputed from its certificate: ``(top, bottom)`` in
    units, or None when no bound is stated."""

    stated = [k for k in ("bound_used", "max_weight_steps", "min_weight_steps")
              if k in ev]
    if not stated:
        if "reachable_states" in ev or "invariant_states" in ev:
            raise _Refuted("it has a reachable set but no bound stated from it")
        return None
    if len(stated) < 3:
        raise _Refuted("a bound needs bound_used, max_weight_steps and "
                       "min_weight_steps together")
    used = ev["bound_used"]
    top, bottom = _bound_certificate(used)(red, X, y, ev, units, margin)
    for key, v in (("max_weight_steps", top), ("min_weight_steps", bottom)):
        if _fraction(ev[key]) != units.steps(v):
            raise _Refuted(f"the {used} bound gives {key} = {units.steps(v)}, not "
                           f"{ev[key]}")
    return top, bottom


def _bound_certificate(used):
    """The re-check of the weight bound ``used`` names (a refutation when no kind of
    end-stop claim proves a bound by that name from a certificate)."""
    try:
        kind = kind_of("end_stops", used)
    except ValueError:
        kind = None
    if kind is None or True not in kind.verdicts or kind.recheck is None:
        raise _Refuted(f"the bound {used!r} has no certificate a report can hold")
    return kind.recheck


@rechecks(Method.NOVIKOFF_COUNT, Method.NOVIKOFF_NORM)
def novikoff_bound(red, X, y, ev, units, margin):
    """Novikoff's bound: the one the certified margin gives (see :func:`_margin`)."""
    used = ev["bound_used"]
    if margin is not None and margin[2] != used:
        raise _Refuted(f"the margin and the patterns give the bound {margin[2]!r}, "
                       f"not {used!r}")
    if margin is None:
        raise _Refuted(f"the bound {used!r} has no margin direction to derive it")
    return margin[:2]


@rechecks(Method.ONE_SIGNED)
def one_signed_bound(red, X, y, ev, units, margin):
    """Every A-unit pushed one way only, so each weight moves once."""
    one = one_signed(red)
    if one is None:
        raise _Refuted("an A-unit is pushed both ways, so the one-signed argument "
                       "does not apply")
    if margin is not None and margin[2] != ev["bound_used"]:
        raise _Refuted(f"the margin and the patterns give the bound {margin[2]!r}, "
                       f"not {ev['bound_used']!r}")
    return margin[:2] if margin is not None else one


@rechecks(Method.EXACT_REACH)
def reachable_bound(red, X, y, ev, units, margin):
    """The exact reachable set, an inductive invariant (see :func:`_closed_set`)."""
    closed = _closed_set(X, y, ev, units, clipped=False)
    if closed is None:
        raise _Refuted("the exact reachable bound has no reachable set to check")
    _expect(ev, "reachable_states", len(closed[0]), "the reachable set")
    return int(closed[0].max(initial=0)), int(closed[0].min(initial=0))


@rechecks(Method.BALL)
def ball_bound(red, X, y, ev, units, margin):
    """The per-weight balls from their integer directions (see :func:`_ball`)."""
    top, bottom = _ball(X, y, ev)
    return top * units.e, bottom * units.e


def _ball(X, y, ev):
    """The per-weight ball bounds from the integer directions, in increments."""

    dirs = ev.get("ball_directions")
    if not dirs:
        raise _Refuted("the ball bound has no ball directions")
    Z = (y[:, None] * X).astype(np.int64)
    r = (X * X).sum(axis=1).astype(np.int64)
    upper = lower = None
    for k, U in enumerate(dirs):
        if len(U) != X.shape[1]:
            raise _Refuted(f"ball direction {k} is not {X.shape[1]} integers")
        try:
            b = integer_bounds(Z, r, U)
        except OverflowError as exc:   # a bound beyond int64: beyond any stop
            raise _Refuted(f"ball direction {k} bounds a weight beyond 2^63 "
                           "increments") from exc
        if b is None:
            raise _Refuted(f"ball direction {k} does not separate the figures")
        upper = b[0] if upper is None else np.minimum(upper, b[0])
        lower = b[1] if lower is None else np.maximum(lower, b[1])
    moves = X.any(axis=0)          # an A-unit no figure activates keeps its weight 0
    return int(upper[moves].max(initial=0)), int(lower[moves].min(initial=0))


def _closed_set(X, y, ev, units, clipped):
    """``(S, edges, correct)`` of a reachable set given as evidence
    (``invariant_states`` over merged A-units ``invariant_groups``), once checked: the
    groups are disjoint, each group's A-units agree on every figure, A-units in no
    group are never active, the set holds zero and every mistake move from a member
    (clipped by the stops when ``clipped``) lands in it. ``edges`` are
    ``(src, dst, figure)`` and ``correct[s, i]``. None when the evidence has no such
    set."""
    groups, states = ev.get("invariant_groups"), ev.get("invariant_states")
    if groups is None and states is None:
        return None
    if groups is None or states is None:
        raise _Refuted("a reachable set needs both invariant_states and "
                       "invariant_groups")
    P, D = _merged_moves(X, y, groups, units)
    S, index = _state_rows(states, len(groups))
    correct = (S @ P.T) > 0
    edges = []
    for k, s_ in enumerate(S):
        for i in np.flatnonzero(~correct[k]):
            child = s_ + D[i]
            if clipped:
                child = np.minimum(np.maximum(child, units.lo), units.hi)
            j = index.get(child.tobytes())
            if j is None:
                raise _Refuted("a mistake move leaves the invariant")
            edges.append((k, j, int(i)))
    return S, edges, correct


def _merged_moves(X, y, groups, units):
    """``(P, D)`` over the invariant's merged A-units, once its groups are checked:
    disjoint inputs of the R-unit, each agreeing on every figure, and every A-unit
    left out never active."""
    d = X.shape[1]
    flat = [c for g in groups for c in g]
    if any(not 0 <= c < d for c in flat) or len(set(flat)) != len(flat) or not all(
            groups):
        raise _Refuted("the invariant's groups are not disjoint sets of the R-unit's "
                       "inputs")
    Xi = X.astype(np.int64)
    if Xi[:, np.setdiff1d(np.arange(d), flat)].any():
        raise _Refuted("an A-unit outside the invariant's groups is active")
    for g in groups:
        if (Xi[:, g] != Xi[:, [g[0]]]).any():
            raise _Refuted("the A-units of one of the invariant's groups disagree")
    Xu = Xi[:, [g[0] for g in groups]]
    yi = y.astype(np.int64)[:, None]
    P = yi * Xu * np.array([len(g) for g in groups], dtype=np.int64)
    return P, units.e * yi * Xu


def _state_rows(states, width):
    """The invariant's states as int64 rows and an index of them, once checked:
    rows of ``width`` integers within reach of int64, none twice, zero among them."""
    if any(len(row) != width for row in states):
        raise _Refuted("the invariant's states are not integer rows, one per group")
    S = np.array(states, dtype=object).reshape(len(states), width)
    if any(abs(v) > 2 ** 62 for v in S.flat):
        raise _Refuted("the invariant's states are beyond any reachable weight")
    S = S.astype(np.int64)
    index = {row.tobytes(): k for k, row in enumerate(S)}
    if len(index) != len(S):
        raise _Refuted("the invariant lists a state twice")
    if np.zeros(width, np.int64).tobytes() not in index:
        raise _Refuted("the invariant does not hold the zero start")
    return S, index


@rechecks(Method.HIT_EXHAUSTIVE, Method.HIT_GREEDY, Method.HIT_BEAM, Method.HIT_RANDOM,
          Method.HIT_Z3)
def _hits(X, y, units, stream, replay, r, forced=False):
    """The stream's last move is cut short by an end stop, exactly and on the
    machine."""
    _, _, cut = _clipped_run(X, y, units.e, units.lo, units.hi, stream, forced=forced)
    if cut is None or cut != len(stream) - 1:
        raise _Refuted("the stream does not end with a move cut short by an end stop")
    run = replay(lambda m: m.train(replay.images, replay.labels, order=stream,
                                   max_epochs=1))
    if not run.saturated[r] > 0:
        raise _Refuted("on the machine the stream reaches no end stop")


def _greedy_refutes(red, units, ev):
    """A greedy stream (as :func:`check_machine` tries first) that reaches a stop,
    or None: a quick test of a true end-stop claim that has no certificate."""

    if "margin_direction" not in ev:
        return None
    u = np.asarray(ev["margin_direction"], float)
    for stream in greedy_streams(red, units, int(ev["reinforcement_bound"]), u):
        run = _clipped.run_passes(red.P, red.D, units.lo, units.hi,
                                  np.asarray(stream, np.int64), max_passes=1)
        if run.first_clip >= 0:
            return [int(i) for i in stream[:run.first_clip + 1]]
    return None


def _kind(claim, slot, what):
    """The registry's kind of ``claim`` (in ``slot``), which must be able to give the
    claim's verdict."""
    holds = claim["holds"]
    try:
        kind = kind_of(slot, claim["method"])
    except ValueError:
        kind = None
    if kind is None or holds not in kind.verdicts:
        raise _Refuted(f"the method {claim['method']!r} does not decide {what} "
                       f"{'true' if holds else 'false' if holds is False else 'open'}")
    return kind


def _end_stops(ctx, r, claim, where):
    """The end-stop claim of the error-correction rule (see the module doc)."""

    ev = _evidence(claim, END_STOP_FIELDS, where)
    units, (X, y, red) = ctx.units, ctx.r_unit(r)
    holds = claim["holds"]
    _kind(claim, "end_stops", "an end-stop claim")
    for k, v in stops_evidence(units).items():
        _expect(ev, k, v, "the machine")
    margin = _margin(red, ev, units)
    bound = _bound(red, X, y, ev, units, margin)
    fits = bound is not None and bound[0] <= units.hi and bound[1] >= units.lo
    if "stream" in ev:
        stream = _stream(ev, "stream", len(y))
        _hits(X, y, units, stream, ctx.replay, r)
        if fits:
            raise _Refuted("its stream reaches an end stop inside the bound it states")
        return _verdict(claim, False, f"the stream of {len(stream)} presentations has "
                        "its last move cut short, in exact arithmetic and on the "
                        "machine", "no end stop is ever reached")
    if holds is False:
        raise _Refuted("it has no stream that reaches an end stop")
    return _no_stream(claim, ev, units, red, bound, fits)


def _no_stream(claim, ev, units, red, bound, fits):
    """An end-stop claim without a stream: its stated bound must back its verdict,
    and a true claim without one must survive the greedy streams."""
    holds, method = claim["holds"], claim["method"]
    if bound is not None and not fits and holds:
        raise _Refuted("the bound it states reaches beyond the end stops, yet it says "
                       "no end stop is reached")
    if bound is not None and holds and method != ev["bound_used"]:
        raise _Refuted(f"it is decided by {method!r} but states the bound "
                       f"{ev['bound_used']!r}")
    if fits:
        return _verdict(claim, True, f"the {ev['bound_used']} bound, recomputed from "
                        f"its certificate, keeps every weight within "
                        f"[{units.steps(bound[1])}, {units.steps(bound[0])}] steps, "
                        "inside the stops (exact)", "no end stop is ever reached")
    if holds:
        found = _greedy_refutes(red, units, ev)
        if found is not None:
            raise _Refuted(f"a greedy stream of {len(found)} presentations reaches an "
                           "end stop")
    return None


# --------------------------------------------------------------------------------------
# convergence (error-correction rule)


@rechecks(Method.CONTINUATION, Method.PERIODIC)
def _blocks(X, y, units, prefix, cycle, replay, r):
    """The cycle brings the weights back after a pass with mistakes, exactly and on
    the machine, and shows every figure."""

    if sorted(set(cycle)) != list(range(len(y))):
        raise _Refuted("the cycle does not show every figure, so it is no fair stream")
    w, _, _ = _clipped_run(X, y, units.e, units.lo, units.hi, prefix + cycle)
    for _ in range(2):
        again, mistakes, _ = _clipped_run(X, y, units.e, units.lo, units.hi, cycle, w)
        if mistakes == 0 or (again != w).any():
            raise _Refuted("the cycle does not bring the weights back after a pass "
                           "with mistakes")
    out = replay(lambda m: replay_stream(m, replay.images, replay.labels, prefix,
                                         cycle, r_unit=r))
    if not out["returns"] or out["converged"]:
        raise _Refuted("the machine does not replay the cycle")


def _continuations(red, units, conts, hit):
    """Run every continuation again from the end-stop stream ``hit`` for its stated
    passes; returns a blocking ``(prefix, cycle)`` when one never learns."""

    if hit is None:
        raise _Refuted("it has continuations but no confirmed end-stop stream to "
                       "continue")
    named = {name: order for name, order in continuation_orders(red, units, hit)}
    blocking = None
    for c in conts:
        order = named.get(c["order"])
        if order is None or order.tolist() != c["order_indices"]:
            raise _Refuted(f"the continuation order {c['order']!r} is not the one "
                           "check_machine derives from the stream")
        if not 1 <= c["passes"] <= 10 ** 6:
            raise _Refuted(f"a continuation of {c['passes']} passes is out of range")
        run = _clipped.run_passes(red.P, red.D, units.lo, units.hi, order, prefix=hit,
                                  max_passes=c["passes"])
        again = continuation(c["order"], order, run)
        if again != c:
            diff = sorted(k for k in set(again) | set(c) if again.get(k) != c.get(k))
            raise _Refuted(f"the {c['order']} continuation, run again, gives "
                           + ", ".join(f"{k} = {again.get(k)!r}" for k in diff)
                           + f", not {', '.join(repr(c.get(k)) for k in diff)}")
        if c["outcome"] == "never learns" and blocking is None:
            blocking = (list(hit) + order.tolist() * c["cycle_start"],
                        order.tolist() * c["period"])
    return blocking


def _periodic_refutes(red, units, hit):
    """Raise when the figures in the given order, from zero or after the end-stop
    stream, block learning (as :func:`check_machine` tries first): a quick test of
    a true convergence claim that has no certificate."""
    for prefix in ([], *([hit] if hit else [])):
        run = _clipped.run_passes(red.P, red.D, units.lo, units.hi, np.arange(red.n),
                                  prefix=prefix, max_passes=PERIODIC_PASSES)
        if run.cycle_start is not None:
            after = " after the stream" if prefix else ""
            raise _Refuted(f"the figures in the given order{after} never learn: a "
                           "pass-boundary setting recurs with mistakes")


@rechecks(Method.CLIPPED_BALL)
def _centre(ctx, r, ev):
    """A clipped Novikoff ball's centre and its numbers, re-checked by
    :func:`verify.machine._projected.check_projected_ball`: ``[(True, why)]``, or
    ``[]`` without a centre."""
    units = ctx.units
    centre = [k for k in ("center_numerators", "center_denominator",
                          "reinforcement_bound", "min_decrease") if k in ev]
    if not centre:
        if "a_units" in ev:
            raise _Refuted("it names a_units without a centre")
        return []
    if len(centre) < 4:
        raise _Refuted("a centre needs center_numerators, center_denominator, "
                       "reinforcement_bound and min_decrease together")
    try:
        bound, decrease = check_projected_ball(
            _columns(ctx.task, r, ev).astype(np.int64), ctx.task.targets[:, r],
            units.e, units.lo, units.hi, ev["center_numerators"],
            ev["center_denominator"])
    except (ValueError, TypeError) as exc:
        raise _Refuted(str(exc)) from exc
    if bound != ev["reinforcement_bound"] or decrease != _fraction(ev["min_decrease"]):
        raise _Refuted(f"the centre gives the bound {bound} and the decrease "
                       f"{decrease}, not {ev['reinforcement_bound']} and "
                       f"{ev['min_decrease']}")
    return [(True, f"the centre lies inside the stops and every figure's slack is "
             f"positive (exact): at most {bound} reinforcements on any stream")]


@rechecks(Method.ALL_STREAMS)
def _all_streams(X, y, ev, units):
    """A clipped reachable set, re-checked as closed; whether a fair stream can stay
    on a cycle of mistakes in it: ``[(verdict, why)]``, or ``[]`` without a set."""
    closed = _closed_set(X.astype(np.int64), y.astype(np.int64), ev, units,
                         clipped=True)
    if closed is None:
        return []
    S, edges, correct = closed
    src, dst, fig = (np.array([e[k] for e in edges], np.int64).reshape(-1)
                     for k in range(3))
    if blocking_components(len(S), src, dst, fig, correct)[2].size:
        return [(False, "some fair stream stays on a cycle of mistakes in its clipped "
                 "reachable set")]
    return [(True, f"the {len(S)} settings are closed under every clipped mistake and "
             "none lies on a cycle of mistakes that every figure leaves in place "
             "(exact)")]


def _converges(ctx, r, claim, where, hit):
    """The convergence claim of the error-correction rule (see the module doc);
    ``hit`` the end-stop claim's stream once confirmed (else None)."""

    ev = _evidence(claim, CONVERGENCE_FIELDS, where)
    units, (X, y, red) = ctx.units, ctx.r_unit(r)
    holds, method = claim["holds"], claim["method"]
    kind = _kind(claim, "converges", "a convergence claim")
    implied = []
    if "continuations" in ev:
        blocking = _continuations(red, units, ev["continuations"], hit)
        if blocking is not None:
            implied.append((False, "a continuation, run again, never learns"))
            if "prefix" in ev and (ev["prefix"], ev["cycle"]) != blocking:
                raise _Refuted("its prefix and cycle are not the continuation's")
    if "prefix" in ev or "cycle" in ev:
        prefix, cycle = _stream(ev, "prefix", len(y)), _stream(ev, "cycle", len(y))
        _blocks(X, y, units, prefix, cycle, ctx.replay, r)
        implied.append((False, f"after the prefix of {len(prefix)}, the cycle of "
                        f"{len(cycle)} comes back to the same weights with mistakes, "
                        "exactly and on the machine"))
    implied += _centre(ctx, r, ev) + _all_streams(X, y, ev, units)
    if len({v for v, _ in implied}) > 1:
        raise _Refuted("its evidence shows both that it learns and that it does not")
    if not implied:
        if holds is False or kind.method is Method.CLIPPED_BALL:
            raise _Refuted(f"it has no certificate ({method} always gives one)")
        if holds:
            _periodic_refutes(red, units, hit)
        return None
    return _verdict(claim, implied[0][0], implied[0][1],
                    "it learns on every fair stream")


# --------------------------------------------------------------------------------------
# claims recomputed in full


def _same_claim(claim, expected, where):
    """Compare a claim with the one recomputed: field types first (ValueError), then
    values (refuted)."""
    want = json.loads(json.dumps(to_jsonable(
        expected.to_dict() if hasattr(expected, "to_dict") else expected)))
    _same_types(claim["evidence"], want["evidence"], f"{where} evidence")
    _known_fields(claim["evidence"], want["evidence"], where)
    for k in ("holds", "method", "message"):
        if claim[k] != want[k]:
            raise _Refuted(f"its {k} is {claim[k]!r}; recomputed from the machine and "
                           f"figures it is {want[k]!r}")
    for k in want["evidence"]:
        if claim["evidence"].get(k, "<missing>") != want["evidence"][k]:
            raise _Refuted(f"its evidence {k} is "
                           f"{_short(claim['evidence'].get(k, '<missing>'))}; "
                           f"recomputed it is {_short(want['evidence'][k])}")


def _short(v):
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _same_types(got, want, where):
    """ValueError when ``got`` has another JSON type than ``want`` somewhere."""
    def kind(v):
        return ("null" if v is None else "boolean" if isinstance(v, bool) else
                "number" if isinstance(v, (int, float)) else
                "string" if isinstance(v, str) else
                "list" if isinstance(v, list) else "object")

    if want is None or got is None:
        return
    if kind(got) != kind(want):
        raise ValueError(f"malformed machine report: {where} must be a {kind(want)}, "
                         f"got {_short(got)}")
    if isinstance(want, dict):
        for k in set(got) & set(want):
            _same_types(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list) and want:
        for i, v in enumerate(got):
            _same_types(v, want[min(i, len(want) - 1)], f"{where}[{i}]")


def _claim_of(d):

    return Claim(d["holds"], d["method"], d["message"], d["evidence"])


def _forced_streams(ctx, r, claim, name):
    """The forced rule's streams, replayed (exactly and on the machine)."""
    ev = claim["evidence"]
    units, (X, y, _) = ctx.units, ctx.r_unit(r)
    if name == "end_stops" and "hit_stream" in ev and claim["holds"] is False:
        stream = _stream(ev, "hit_stream", len(y))
        _hits(X, y, units, stream, ctx.replay, r, forced=True)
        return (f"the stream of {len(stream)} presentations has its last move cut "
                "short, in exact arithmetic and on the machine")
    if name == "converges" and claim["holds"] is False:
        return _forced_never(X, y, units, _stream(ev, "stream", len(y)), ctx.replay, r)
    return None


def _forced_never(X, y, units, order, replay, r):
    """The forced rule shown ``order`` every pass never has a clean pass: with end
    stops every pass starts where a pass with a mistake left off, until a pass ends
    where it began (then every later pass repeats it)."""
    if sorted(order) != list(range(len(y))):
        raise _Refuted("the stream is not a pass showing every figure once")
    if not units.stops:
        return None   # decided in closed form (P e mu_i + c_i), not a replayable cycle
    w = np.zeros(X.shape[1], np.int64)
    for passes in range(1, units.hi - units.lo + 3):
        after, mistakes, _ = _clipped_run(X, y, units.e, units.lo, units.hi, order, w,
                                          forced=True)
        if mistakes == 0:
            raise _Refuted(f"pass {passes} of the stream is clean")
        if (after == w).all():
            break
        w = after
    else:
        raise _Refuted("the passes do not come to a fixed point")

    def per_pass(m):     # one train call per pass: this R-unit's own mistakes
        return [int(m.train(replay.images, replay.labels, order=order, max_epochs=1,
                            warm_start=k > 0).mistakes[r]) for k in range(passes + 1)]

    if min(replay(per_pass)) == 0:
        raise _Refuted("on the machine this R-unit has a clean pass on the stream")
    return (f"shown every pass, the order has a mistake in each of {passes} passes "
            "and the last ends where it began, exactly and on the machine")


class _Replay:
    """Runs a function on a fresh copy of the machine (the original is not
    changed)."""

    def __init__(self, machine, images, labels):
        self.machine, self.images, self.labels = machine, images, labels

    def __call__(self, fn):
        import warnings

        m = copy.deepcopy(self.machine)
        m.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(m)


class _Context:
    """What the re-checks share: the task, the integer units, the replays, and
    each R-unit's patterns (exact) and reduced task, built once."""

    def __init__(self, machine, images, labels, task, units):
        self.machine, self.images, self.labels = machine, images, labels
        self.task, self.units = task, units
        self.replay = _Replay(machine, images, labels)
        self._reduced: dict[int, Any] = {}

    def r_unit(self, r):
        """``(X, y, red)``: object-dtype patterns and targets, and the reduced task."""

        X = self.task.patterns[:, self.task.inputs[r]].astype(object)
        y = self.task.targets[:, r].astype(object)
        if r not in self._reduced:
            self._reduced[r] = Reduced(X.astype(np.int64), y.astype(np.int64),
                                        self.units, self.task.inputs[r])
        return X, y, self._reduced[r]


# --------------------------------------------------------------------------------------
# the whole report


def recheck_report(report: MachineReport | JSONDict, machine: MarkI,
                   images: ArrayLike, labels: ArrayLike) -> list[Recheck]:
    """Re-check every claim of ``report`` from its evidence (see the module doc).

    Returns one :class:`Recheck` for the report's summary fields (``"report"``), one
    per claim of each R-unit, and one per claim about the whole machine.

    Raises
    ------
    ValueError
        When ``report`` is not a well-formed machine report (unknown fields, wrong
        types, NaN or infinities), or is about other figures, labels, A-unit patterns
        or machine parameters than these (the message names the first that differs).
    """

    d = read_report(report, machine.params.to_dict())
    task = machine_task(machine, images, labels)
    if d["data_sha256"] != data_hash(task):
        raise ValueError("the report is about other figures or labels: its data_sha256 "
                         "does not match these")
    if not d.get("patterns_sha256"):
        raise ValueError("the report has no patterns_sha256 (it was written by an older "
                         "markone), so it is not tied to a machine; run check_machine "
                         "again to get a report that can be re-checked")
    if d["patterns_sha256"] != patterns_hash(task):
        raise ValueError("the report is about another machine: the A-unit patterns "
                         "(wiring, threshold, faults) it was made on are not this "
                         "machine's (patterns_sha256 differs)")
    p = machine.params
    ctx = _Context(machine, images, labels, task,
                   Units(p.increment_steps, p.weight_range))
    out = [_run("report", lambda: _summary(d, task, p))]
    expected = _Expected(machine, ctx)
    for r_rep in d["r_units"]:
        out += _recheck_r_unit(ctx, expected, r_rep)
    for name in ("timing", "quantisation", "faults"):
        out.append(_run(name, lambda name=name: expected.machine_claim(name, d)))
    return out


def _summary(d, task, p):
    """The report's own fields, recomputed."""

    for k, want in (("theta", task.theta), ("n_examples", len(task.patterns)),
                    ("n_a_units", p.n_a_units),
                    ("weight_range", None if p.weight_range is None
                     else list(p.weight_range)),
                    ("increment_steps", p.increment_steps), ("rule", p.rule),
                    ("learnable", combined_verdict(r["learnable"]["holds"] for r in d["r_units"])),
                    ("converges", combined_verdict(r["converges"]["holds"] for r in d["r_units"]))):
        if d[k] != want or type(d[k]) is not type(want):
            raise _Refuted(f"its {k} is {d[k]!r}; recomputed it is {want!r}")
    return ("theta, the number of figures and A-units, the stops, the increment, the "
            "rule and the summary verdicts are the machine's and its claims'")


class _Expected:
    """The claims that are recomputed in full, computed when first asked for."""

    def __init__(self, machine, ctx):

        self.machine, self.ctx = machine, ctx
        plan = machine.faults.plan if machine.faults is not None else None
        self.plan = plan
        self.dynamic, self.rules = analyses(machine.params, plan, ctx.task, ctx.units)

    def rule_claims(self, r):

        X, y, _ = self.ctx.r_unit(r)
        return rule_claims(X.astype(np.int64), y.astype(np.int64), self.ctx.units,
                            *self.rules)

    def machine_claim(self, name, d):

        claim, ctx = d[name], self.ctx
        if name == "faults":
            return _faults(self, claim, d)
        if name == "timing":
            exposure = claim["evidence"].get("exposure_s")
            check_value(exposure, lambda v: v is None or (
                type(v) in (int, float) and math.isfinite(v) and v > 0),
                "null or a positive number", "timing evidence.exposure_s")
            want = timing_claim(self.machine, ctx.task,
                                 self.machine._images(ctx.images), exposure)
        else:
            want = quantisation_claim(self.machine.params, ctx.units, None, ctx.task)
        _same_claim(claim, want, name)
        if claim["holds"] is None:
            return None
        return f"recomputed from the machine's parameters and figures: the same claim"


def _recheck_r_unit(ctx, expected, r_rep):

    r = r_rep["r_unit"]
    names = [f"{r_unit_name(r)} {c}" for c in ("learnable", "end_stops", "converges")]
    learn_d, stops_d, conv_d = (r_rep[c] for c in ("learnable", "end_stops",
                                                   "converges"))
    learn = _run(names[0], lambda: _learnable(ctx.task, r, learn_d, names[0]))
    rule = expected.rules[0] if expected.rules is not None else None
    want = None
    if learn_d["holds"] is not True:
        want, basis = after_learnable(_claim_of(learn_d)), learn.status == "confirmed"
        why = "follows from the learnable claim (confirmed): recomputed, the same claim"
    elif rule in ("forced", "gamma"):
        want, basis = expected.rule_claims(r), False
        why = ""
    elif not expected.dynamic:
        want, basis, why = not_assessed(), False, ""
    if want is not None:
        def derived(i, claim, name):
            _same_claim(claim, want[i], names[i + 1])
            if rule == "forced" and learn_d["holds"]:
                replayed = _forced_streams(ctx, r, claim, name)
                if replayed is not None:
                    return replayed
            if claim["holds"] is not None and basis:
                return why
            return None if claim["holds"] is None or rule not in ("forced", "gamma") \
                else ("unchecked", "recomputed by the rule's analysis (verify.machine.rules): "
                      "the same claim and numbers, but no certificate to check "
                      "independently")

        return [learn, _run(names[1], lambda: derived(0, stops_d, "end_stops")),
                _run(names[2], lambda: derived(1, conv_d, "converges"))]
    stops = _run(names[1], lambda: _end_stops(ctx, r, stops_d, names[1]))
    if conv_d["method"] == Method.IDEAL:
        conv = _run(names[2], lambda: _ideal(conv_d, learn_d, stops_d, names[2],
                                             learn.status == stops.status
                                             == "confirmed"))
    else:
        hit = (stops_d["evidence"]["stream"] if stops.status == "confirmed"
               and stops_d["holds"] is False else None)
        conv = _run(names[2], lambda: _converges(ctx, r, conv_d, names[2], hit))
    return [learn, stops, conv]


@rechecks(Method.IDEAL)
def _ideal(conv_d, learn_d, stops_d, where, basis_confirmed):
    """"Equals the ideal perceptron": recomputed from the end-stop claim, and it rests
    on the learnable and end-stop claims (confirmed only when both are)."""
    _same_claim(conv_d, ideal_convergence(_claim_of(stops_d)), where)
    if learn_d["holds"] is not True or stops_d["holds"] is not True:
        raise _Refuted("it rests on the learnable and end-stop claims both holding, "
                       "and they do not both say so")
    if basis_confirmed:
        return ("learnable and no end stop ever bites (both confirmed): the machine is "
                "the ideal perceptron, which learns separable data")
    return None


def _faults(expected, claim, d):
    """The faults claim: recomputed, except the smallest set of faults, which is
    re-checked (it breaks its R-units; said 1-minimal, no fault of it is spare)."""
    plan, ctx = expected.plan, expected.ctx
    if plan is None or not len(plan):
        _same_claim(claim, fault_claim(expected.machine, ctx.images, ctx.labels, plan,
                                        (), None), "faults")
        return "the machine has no faults"
    broken = [r["r_unit"] for r in d["r_units"] if r["learnable"]["holds"] is False]
    ev = fault_evidence(plan, broken)
    if broken:
        ev["culprits"] = fault_culprits(expected.machine, ctx.images, ctx.labels, plan,
                                        broken)
    minimal = claim["evidence"].get("minimal")
    want = {"holds": not broken, "method": claim["method"], "message": claim["message"],
            "evidence": dict(ev, **({"minimal": minimal} if minimal is not None
                                    else {}))}
    want["method"] = ("separability with and without each kind of fault" if broken
                      else "separability of the damaged patterns")
    _same_claim(claim, want, "faults")
    if minimal is None:
        if broken and any(c["healthy"] for c in ev["culprits"].values()):
            raise _Refuted("it has no smallest set of faults, which check_machine "
                           "always gives when a healthy R-unit was broken")
        return "recomputed: the faults, their kinds and the culprits are the machine's"
    _minimal_set(expected, minimal, plan, broken)
    return ("recomputed: the faults and culprits are the machine's, and the smallest "
            "set breaks the task" + (" and is 1-minimal (exact)"
                                     if minimal["complete"] else ""))


def _minimal_set(expected, minimal, plan, broken):
    """The smallest set of faults, re-checked: well formed, its faults the machine's,
    it breaks the R-units it names and, said 1-minimal, no fault of it is spare."""
    spec = {"faults": list, "r_units": list, "complete": bool, "undecided": list,
            "kinds": list}
    if set(minimal) != set(spec) or not all(isinstance(minimal[k], t)
                                            for k, t in spec.items()):
        raise ValueError("malformed machine report: faults evidence.minimal must have "
                         "faults, r_units, complete, undecided and kinds")
    chosen = minimal["faults"]
    if any(type(i) is not int or not 0 <= i < len(plan) for i in chosen) or \
            len(set(chosen)) != len(chosen):
        raise _Refuted("the smallest set names faults the machine does not have")
    if any(i not in chosen for i in minimal["undecided"]):
        raise _Refuted("the smallest set's undecided faults are not in the set")
    if minimal["kinds"] != [type(plan.faults[i]).__name__ for i in chosen]:
        raise _Refuted("the smallest set's kinds are not those of its faults")
    if not minimal["r_units"] or any(r not in broken for r in minimal["r_units"]):
        raise _Refuted("the smallest set names R-units that are not broken")
    _breaks(expected, plan, chosen, minimal)


def _breaks(expected, plan, chosen, minimal):
    """The chosen faults alone break each R-unit named; said 1-minimal (complete and
    nothing undecided), without any one of them the task is learnable again."""
    from markone.hardware.faults import FaultPlan

    ctx = expected.ctx

    def learnable(faults, r):
        return learnable_with(expected.machine, ctx.images, ctx.labels,
                              FaultPlan(tuple(plan.faults[j] for j in faults)), r)

    for r in minimal["r_units"]:
        if learnable(chosen, r) is not False:
            raise _Refuted(f"the smallest set of faults alone leaves {r_unit_name(r)} "
                           "learnable")
    if minimal["complete"] and not minimal["undecided"]:
        for i in chosen:
            rest = [j for j in chosen if j != i]
            if any(learnable(rest, r) is False for r in minimal["r_units"]):
                raise _Refuted(f"the set is not 1-minimal: without fault {i} it still "
                               "breaks the task")


def _run(label, check):
    """Run one re-check: confirmed (it returns why), unchecked (it returns None) or
    refuted (the evidence fails)."""
    try:
        why = check()
    except _Refuted as exc:
        return Recheck(label, "refuted", str(exc))
    if isinstance(why, tuple):
        return Recheck(label, *why)
    if why is not None:
        return Recheck(label, "confirmed", why)
    return Recheck(label, "unchecked", "nothing to check: it claims nothing, or it "
                   "rests on a search or on claims that are not confirmed")
