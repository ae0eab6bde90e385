"""Re-check a machine report from its evidence, independently of how it was found.

:func:`recheck_report` takes a :class:`~verify.machine.MachineReport` (or its JSON) and
the machine, figures and labels it is about, and re-checks every claim whose evidence
is a certificate or a counterexample, with exact integers and none of the searches:

* the report must be about these figures and this machine: the SHA-256 of the
  figures and labels (``data_sha256``) and of the A-unit patterns the claims are
  about (``patterns_sha256``) must match;
* **learnable**: a witness ``w`` must answer every figure (``y_i x_i . w > 0``); a
  Gordan certificate ``c >= 0``, not all zero, must have ``sum_i c_i y_i x_i = 0``;
* **end stops reached**: the stream, run through the clipped update from zero (here,
  on the full A-unit patterns), must have a move cut short at its last presentation,
  and ``MarkI.train`` on a copy of the machine must report ``saturated > 0``;
* **forced rule**: a ``hit_stream`` must have its last move cut short with every
  presentation moving, and a ``stream`` that never learns must have a mistake in every
  pass until a pass ends where it began, both exactly and on a copy of the machine
  (the gamma rule's rounding branches are not streams: unchecked);
* **never learns**: the clipped update after ``prefix + cycle`` must come back to the
  same weights after each further ``cycle``, with a mistake in each, the cycle must
  show every figure, and a copy of the machine must replay it
  (:func:`verify.machine.replay_stream` with ``r_unit``);
* **learns for every order** by the clipped Novikoff ball: the centre is re-checked by
  :func:`verify.machine._projected.check_projected_ball`, and the bound must be the one stated;
  by the all-streams search: its clipped reachable set must be closed under every
  clipped mistake and have no strongly connected set of mistakes that every figure
  leaves in place.

* **end stops never reached**: Novikoff's bounds from the margin direction in the
  evidence (its margin is at least ``gamma_lower`` on every figure, exactly), the
  balls per weight from their integer directions (:func:`verify.machine._ball.integer_bounds`),
  an exact reachable set as an inductive invariant (zero start, closed under every
  mistake move, inside the stops), and the one-signed argument from the patterns.

Claims decided by a search whose evidence is a result, not a certificate (exhaustive
searches, Z3, the balls at the pushes), are listed as ``unchecked`` with the reason,
never as confirmed.

Examples
--------
>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> from verify.machine import check_machine
>>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
...                 max_fanout=1, theta=1, n_r_units=1, weight_range=(0, 1))
>>> machine, figures = MarkI(p, seed=0), np.array([[1, 0], [0, 1]])
>>> report = check_machine(machine, figures, ["a", "b"])
>>> checks = recheck_report(report, machine, figures, ["a", "b"])
>>> [(c.claim, c.status) for c in checks if c.status != "unchecked"]
[('R1 learnable', 'confirmed'), ('R1 end_stops', 'confirmed'), ('R1 converges', 'confirmed')]
"""

from __future__ import annotations

import copy
import dataclasses
import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from markone._typing import ArrayLike, JSONDict
from markone.hardware.runits import r_unit_name

if TYPE_CHECKING:
    from markone.hardware import MarkI
    from verify.machine.check import MachineReport

__all__ = ["Recheck", "recheck_report", "margin_holds"]

FORMAT = "markone.verify.machine/1"
#: Methods of the gamma rule's claims with whole steps: rounding branches of positive
#: probability (replayed in the tests by steering the rounding), not streams.
GAMMA_BRANCHES = ("rounding branches", "finite chain")


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
    try:
        return Fraction(str(v))
    except (ValueError, ZeroDivisionError) as exc:
        raise _Refuted(f"{v!r} is not an exact number") from exc


def _columns(task, r, ev):
    cols = [int(c) for c in ev.get("a_units", [])]
    if cols != [int(c) for c in task.inputs[r]]:
        raise _Refuted("its a_units are not the A-units wired to this R-unit")
    return task.patterns[:, cols].astype(object)


def _learnable(task, r, claim):
    if claim["holds"] is None:
        return None
    ev = claim["evidence"]
    X, y = _columns(task, r, ev), task.targets[:, r].astype(object)
    if claim["holds"]:
        w = [_fraction(v) for v in ev["witness"]]
        if len(w) != X.shape[1]:
            raise _Refuted(f"the witness has {len(w)} entries for {X.shape[1]} A-units")
        q = math.lcm(*(v.denominator for v in w))     # the witness times q: integers
        scores = y * X.dot(np.array([int(v * q) for v in w], dtype=object))
        bad = [i for i, s in enumerate(scores) if not s > 0]
        if bad:
            raise _Refuted(f"the witness misclassifies figure {bad[0]}")
        return "the witness answers every figure (exact)"
    c = {int(i): _fraction(v) for i, v in ev["certificate"].items()}
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
    s = [int(i) for i in ev.get(key, [])]
    if any(not 0 <= i < n for i in s):
        raise _Refuted(f"its {key} names a figure that does not exist")
    return s


def margin_holds(X: ArrayLike, y: ArrayLike, u: ArrayLike, lower: float) -> bool:
    """True when the direction ``u`` (floats, taken as the exact rationals they are)
    has margin at least ``lower`` on every ``(x_i, y_i)``:
    ``y_i u . x_i > 0`` and ``(y_i u . x_i)^2 >= lower^2 ||u||^2``, in integers.

    >>> margin_holds([[1, 0], [0, 1]], [1, -1], [1.0, -1.0], 0.7)
    True
    >>> margin_holds([[1, 0], [0, 1]], [1, -1], [1.0, -1.0], 0.75)   # 1/sqrt(2) < 0.75
    False
    """
    fu = [Fraction(float(v)) for v in np.asarray(u, dtype=float)]
    g = Fraction(float(lower))
    if g <= 0 or not fu:
        return False
    q = math.lcm(*(f.denominator for f in fu))
    U = np.array([int(f * q) for f in fu], dtype=object)
    X = np.asarray(X).astype(object)
    if X.shape[1] != len(U):
        return False
    scores = np.asarray(y).astype(object) * X.dot(U)
    N = sum(v * v for v in U)
    return bool(min(scores) > 0 and all(v * v * g.denominator ** 2
                                        >= g.numerator ** 2 * N for v in scores))


#: The end-stop bounds that follow from a certified margin alone.
NOVIKOFF_BOUNDS = ("|w_j| <= reinforcements <= (R/gamma)^2", "||w|| <= R^2/gamma")


def _novikoff(X, y, ev, units):
    """Re-derive the Novikoff end-stop bound from the margin certificate."""
    if "margin_direction" not in ev:
        return None
    g = Fraction(float(ev["gamma_lower"]))
    if not margin_holds(X.astype(np.int64), y.astype(np.int64), ev["margin_direction"],
                        ev["gamma_lower"]):
        raise _Refuted("the margin direction does not have margin gamma_lower")
    R_sq = int((X * X).sum(axis=1).max())
    if R_sq != ev["R_sq"]:
        raise _Refuted(f"R^2 is {R_sq}, not {ev['R_sq']}")
    mistakes, norm = math.floor(R_sq / g ** 2), math.floor(R_sq / g)
    bound = mistakes if ev["bound_used"] == NOVIKOFF_BOUNDS[0] else norm
    if ev["reinforcement_bound"] != mistakes or bound > min(mistakes, norm):
        raise _Refuted(f"the margin gives {mistakes} reinforcements and the bound "
                       f"{bound}, not the ones stated")
    top = units.steps(bound * units.e)
    if Fraction(str(ev["max_weight_steps"])) != top or \
            bound * units.e > units.hi or -bound * units.e < units.lo:
        raise _Refuted(f"the bound allows {top} steps, which the stops do not hold or "
                       "the report does not state")
    return (f"the margin direction has margin >= {ev['gamma_lower']} (exact), so every "
            f"weight stays within {top} steps ({ev['bound_used']})")


def _ball(X, y, ev, units):
    """Re-derive the per-weight ball bounds from the integer directions."""
    from verify.machine._ball import integer_bounds

    dirs = ev.get("ball_directions")
    if not dirs:
        return None
    Z = (y[:, None] * X).astype(np.int64)
    r = (X * X).sum(axis=1).astype(np.int64)
    upper = lower = None
    for k, U in enumerate(dirs):
        if len(U) != X.shape[1] or any(isinstance(v, bool) or not isinstance(v, int)
                                       for v in U):
            raise _Refuted(f"ball direction {k} is not {X.shape[1]} integers")
        b = integer_bounds(Z, r, U)
        if b is None:
            raise _Refuted(f"ball direction {k} does not separate the figures")
        upper = b[0] if upper is None else np.minimum(upper, b[0])
        lower = b[1] if lower is None else np.maximum(lower, b[1])
    moves = X.any(axis=0)          # an A-unit no figure activates keeps its weight 0
    top = int(upper[moves].max(initial=0)) * units.e
    bottom = int(lower[moves].min(initial=0)) * units.e
    if top > units.hi or bottom < units.lo:
        raise _Refuted(f"the balls allow [{units.steps(bottom)}, {units.steps(top)}] "
                       "steps, beyond the stops")
    if units.steps(top) != Fraction(str(ev["max_weight_steps"])) or \
            units.steps(bottom) != Fraction(str(ev["min_weight_steps"])):
        raise _Refuted("the balls give other bounds than the report states")
    return (f"{len(dirs)} certified directions keep every weight within "
            f"[{units.steps(bottom)}, {units.steps(top)}] steps (exact)")


def _closed_set(X, y, ev, units, clipped):
    """``(S, edges)`` of a reachable set given as evidence (``invariant_states`` over
    merged A-units ``invariant_groups``), once checked: the groups are disjoint, each
    group's A-units agree on every figure, A-units in no group are never active, the
    set holds zero and every mistake move from a member (clipped by the stops when
    ``clipped``) lands in it. ``edges`` are ``(src, dst, figure)`` and ``correct[s, i]``.
    None when the evidence has no such set."""
    groups, states = ev.get("invariant_groups"), ev.get("invariant_states")
    if groups is None or states is None:
        return None
    d = X.shape[1]
    flat = [c for g in groups for c in g]
    if any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < d
           for c in flat) or len(set(flat)) != len(flat) or not all(groups):
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
    P = yi * Xu * np.array([len(g) for g in groups])
    D = units.e * yi * Xu
    S = np.asarray(states, dtype=object)
    if S.ndim != 2 or S.shape[1] != len(groups) or not all(
            type(v) is int for v in S.flat):
        raise _Refuted("the invariant's states are not integer rows, one per group")
    S = S.astype(np.int64)
    index = {row.tobytes(): k for k, row in enumerate(S)}
    if np.zeros(len(groups), np.int64).tobytes() not in index:
        raise _Refuted("the invariant does not hold the zero start")
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


def _invariant(X, y, ev, units):
    """An exact reachable set of the ideal rule, re-checked as an inductive invariant
    that lies inside the stops."""
    closed = _closed_set(X, y, ev, units, clipped=False)
    if closed is None:
        return None
    S = closed[0]
    top, bottom = int(S.max(initial=0)), int(S.min(initial=0))
    if top > units.hi or bottom < units.lo:
        raise _Refuted("the invariant leaves the stops")
    if units.steps(top) != Fraction(str(ev["max_weight_steps"])) or \
            units.steps(bottom) != Fraction(str(ev["min_weight_steps"])):
        raise _Refuted("the invariant gives other bounds than the report states")
    return (f"the {len(S)} states form an inductive invariant (zero start, closed "
            f"under every mistake) inside [{units.steps(bottom)}, {units.steps(top)}] "
            "steps (exact)")


def _no_blocking_cycle(X, y, ev, units):
    """The clipped reachable set, re-checked as closed, has no strongly connected set
    of mistakes that a fair stream could stay on."""
    from verify.machine.check import _blocking_components

    closed = _closed_set(X, y, ev, units, clipped=True)
    if closed is None:
        return None
    S, edges, correct = closed
    src, dst, fig = (np.array([e[k] for e in edges], np.int64) for k in range(3))
    if _blocking_components(len(S), src, dst, fig, correct)[2].size:
        raise _Refuted("some fair stream can stay on a cycle of mistakes in the set")
    return (f"the {len(S)} settings are closed under every clipped mistake and none "
            "lies on a cycle of mistakes that every figure leaves in place (exact)")


def _one_signed(X, y, units):
    Z = y[:, None] * X
    if ((Z > 0).any(axis=0) & (Z < 0).any(axis=0)).any():
        raise _Refuted("an A-unit is pushed both ways, so the one-signed argument does "
                       "not apply")
    top, bottom = units.e * Z.max(initial=0), units.e * Z.min(initial=0)
    if top > units.hi or bottom < units.lo:
        raise _Refuted("one move of a weight already leaves the stops")
    return ("every A-unit is pushed one way only (exact): each weight moves once, "
            "inside the stops")


def _end_stops(task, r, claim, units, replay):
    ev = claim["evidence"]
    X = task.patterns[:, task.inputs[r]].astype(object)
    y = task.targets[:, r].astype(object)
    if claim["holds"] and claim["method"] == "one-signed columns":
        return _one_signed(X, y, units)
    if claim["holds"] and claim["method"] in NOVIKOFF_BOUNDS:
        return _novikoff(X, y, ev, units)
    if claim["holds"] and claim["method"] == "Novikoff ball per weight":
        return _ball(X, y, ev, units)
    if claim["holds"] and claim["method"] == "exact reachable states":
        return _invariant(X, y, ev, units)
    if claim["holds"] is not False:
        return None
    if claim["method"].startswith(GAMMA_BRANCHES):
        return None
    forced = claim["method"].startswith("forced rule")
    stream = _stream(ev, "hit_stream" if forced else "stream", len(y))
    _, _, cut = _clipped_run(X, y, units.e, units.lo, units.hi, stream, forced=forced)
    if cut is None or cut != len(stream) - 1:
        raise _Refuted("the stream does not end with a move cut short by an end stop")
    run = replay(lambda m: m.train(replay.images, replay.labels, order=stream,
                                   max_epochs=1))
    if not run.saturated[r] > 0:
        raise _Refuted("on the machine the stream reaches no end stop")
    return (f"the stream of {len(stream)} presentations has its last move cut short, "
            "in exact arithmetic and on the machine")


def _converges(task, r, claim, units, replay, basis_confirmed):
    """``basis_confirmed``: this R-unit's learnable and end-stop claims are both
    confirmed (what "equals the ideal perceptron" rests on)."""
    if claim["holds"] and claim["method"] == "equals the ideal perceptron":
        return ("learnable and no end stop ever bites (both confirmed): the machine is "
                "the ideal perceptron, which learns separable data"
                if basis_confirmed else None)
    ev = claim["evidence"]
    X = task.patterns[:, task.inputs[r]].astype(object)
    y = task.targets[:, r].astype(object)
    if claim["holds"] is False and claim["method"] == "exact fixed order (forced rule)":
        return _forced_never(X, y, units, _stream(ev, "stream", len(y)), replay, r)
    if claim["holds"] is False and "cycle" in ev:
        prefix, cycle = _stream(ev, "prefix", len(y)), _stream(ev, "cycle", len(y))
        if sorted(set(cycle)) != list(range(len(y))):
            raise _Refuted("the cycle does not show every figure, so it is no fair "
                           "stream")
        w, _, _ = _clipped_run(X, y, units.e, units.lo, units.hi, prefix + cycle)
        for _ in range(2):
            again, mistakes, _ = _clipped_run(X, y, units.e, units.lo, units.hi, cycle,
                                              w)
            if mistakes == 0 or (again != w).any():
                raise _Refuted("the cycle does not bring the weights back after a pass "
                               "with mistakes")
        from verify.machine.check import replay_stream

        out = replay(lambda m: replay_stream(m, replay.images, replay.labels, prefix,
                                             cycle, r_unit=r))
        if not out["returns"] or out["converged"]:
            raise _Refuted("the machine does not replay the cycle")
        return (f"after the prefix of {len(prefix)}, the cycle of {len(cycle)} comes "
                "back to the same weights with mistakes, exactly and on the machine")
    if claim["holds"] and claim["method"] == "exhaustive (all streams)":
        return _no_blocking_cycle(X.astype(np.int64), y.astype(np.int64), ev, units)
    if claim["holds"] and claim["method"] == "clipped Novikoff ball":
        from verify.machine._projected import check_projected_ball

        X = _columns(task, r, ev)
        try:
            bound, _ = check_projected_ball(X.astype(np.int64), task.targets[:, r],
                                            units.e, units.lo, units.hi,
                                            ev["center_numerators"],
                                            ev["center_denominator"])
        except (ValueError, TypeError) as exc:
            raise _Refuted(str(exc)) from exc
        if bound != ev["reinforcement_bound"]:
            raise _Refuted(f"the centre gives the bound {bound}, not "
                           f"{ev['reinforcement_bound']}")
        return (f"the centre lies inside the stops and every figure's slack is "
                f"positive (exact): at most {bound} reinforcements on any stream")
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


def _as_dict(report, n_r_units):
    d = report.to_dict() if hasattr(report, "to_dict") else report
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise ValueError(f"not a machine report: its format must be {FORMAT!r}; write "
                         "one with check_machine(...).to_dict() or `markone verify "
                         "machine ... --json`")
    units = d.get("r_units")
    if not isinstance(units, list) or len(units) != n_r_units:
        raise ValueError(f"malformed machine report: 'r_units' must list the machine's "
                         f"{n_r_units} R-units")
    for k, r in enumerate(units):
        ok = isinstance(r, dict) and r.get("r_unit") == k and all(
            isinstance(r.get(c), dict) and r[c].get("holds") in (True, False, None)
            and isinstance(r[c].get("method"), str)
            and isinstance(r[c].get("evidence"), dict)
            for c in ("learnable", "end_stops", "converges"))
        if not ok:
            raise ValueError(f"malformed machine report: R-unit entry {k} "
                             f"({r_unit_name(k)}) must have "
                             "r_unit, and learnable, end_stops and converges claims "
                             "with holds, method and evidence")
    return d


def recheck_report(report: MachineReport | JSONDict, machine: MarkI,
                   images: ArrayLike, labels: ArrayLike) -> list[Recheck]:
    """Re-check every claim of ``report`` that carries a certificate or a
    counterexample (see the module doc).

    Raises
    ------
    ValueError
        When ``report`` is not a (well-formed) machine report, or is about other
        figures, labels or A-unit patterns (another machine) than these.
    """
    from verify.machine.check import _data_hash, _patterns_hash, _Units, machine_task

    d = _as_dict(report, machine.params.n_r_units)
    task = machine_task(machine, images, labels)
    if d.get("data_sha256") != _data_hash(task):
        raise ValueError("the report is about other figures or labels: its data_sha256 "
                         "does not match these")
    if not d.get("patterns_sha256"):
        raise ValueError("the report has no patterns_sha256 (it was written by an older "
                         "markone), so it is not tied to a machine; run check_machine "
                         "again to get a report that can be re-checked")
    if d.get("patterns_sha256") != _patterns_hash(task):
        raise ValueError("the report is about another machine: the A-unit patterns "
                         "(wiring, threshold, faults) it was made on are not this "
                         "machine's (patterns_sha256 differs)")
    p = machine.params
    units = _Units(p.increment_steps, p.weight_range)
    replay = _Replay(machine, images, labels)
    out = []
    for r_rep in d["r_units"]:
        r = int(r_rep["r_unit"])
        learn = _recheck_claim(f"{r_unit_name(r)} learnable", r_rep["learnable"],
                               lambda c: _learnable(task, r, c))
        stops = _recheck_claim(f"{r_unit_name(r)} end_stops", r_rep["end_stops"],
                               lambda c: _end_stops(task, r, c, units, replay))
        basis = learn.status == stops.status == "confirmed"
        conv = _recheck_claim(f"{r_unit_name(r)} converges", r_rep["converges"],
                              lambda c: _converges(task, r, c, units, replay, basis))
        out += [learn, stops, conv]
    return out


def _recheck_claim(label, claim, check):
    """Run ``check`` on one claim: confirmed (it returns why), unchecked (it returns
    None) or refuted (the evidence fails, or is malformed)."""
    try:
        why = check(claim)
    except _Refuted as exc:
        return Recheck(label, "refuted", str(exc))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        return Recheck(label, "refuted", f"its evidence is incomplete or malformed "
                       f"({type(exc).__name__}: {exc})")
    if why is not None:
        return Recheck(label, "confirmed", why)
    return Recheck(label, "unchecked",
                   "nothing claimed" if claim["holds"] is None else
                   "follows from the learnable and end-stop claims, not both confirmed"
                   if claim["method"] == "equals the ideal perceptron" else
                   f"decided by {claim['method']}: its evidence is a bound or a search "
                   "result, not a certificate")
