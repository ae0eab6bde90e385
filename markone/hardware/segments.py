"""Segments: the Mark I's clock fast-forwarded over a run of figures, bit for bit.

A trial of one figure is three timeouts on the SimPy clock (the retina settling, the
A/R logic, the motors) with closed-form physics between them; nothing in it is random
(no photocell noise), nothing else on the clock can see it (no other process has an
event before it ends: no armed fault, no ``env.run(until=...)`` stop), and its
timeline follows from the machine's state alone. A run of such figures is a
*segment*: :func:`run_segment` computes it figure by figure in one compiled loop --
the retina's lag, the A-unit pattern, the R-units' scores, the trainer's decision, the
potentiometers' moves and end stops, the clock after each of the three phases, summed
in the same order as the timeouts would sum it -- and the session process then waits
for the segment with **one** SimPy timeout to the exact end time. The machine is still
a discrete-event model: the segment's events are the trials' events, taken in time
order by a process on the clock, and they are only coalesced because nothing could
happen between them; whatever does not fit (a figure whose settled S-state is not its
cached one, e.g. a blend after a short exposure; a figure that would end at or after
the next other event) stops the segment
before it, and that figure runs on the per-figure path, :meth:`MarkI._trial`.

Each figure of a segment runs the steps of the one trial kernel,
:mod:`markone.hardware.trial` -- the retina's :func:`~.trial.look`,
:func:`~.trial.settle_wait` and :func:`~.trial.settle`, the R-units'
:func:`~.trial.score` (sums over the active A-units, in one fixed order), the
trainer's :func:`~.trial.decide` (the core's mistake test), the potentiometers'
:func:`~.trial.turn_units` and the motors' :func:`~.trial.motor_seconds` -- the very
functions the per-figure process calls between its timeouts. The state travels as
named records (:class:`Machine`, :class:`Figures`, :class:`Rule`, :class:`Tally`,
:class:`LogBuffers`).
``tests/markone/hardware/test_hardware_segments.py`` checks the two paths against
each other bit for bit (weights, clock, log).

Whether a machine uses segments is its own setting, ``MarkI(segments=...)`` (default
True), not a global switch.

Examples
--------
>>> from markone.datasets import letters
>>> from markone.hardware import MarkI
>>> images, labels = letters("ABC", per_class=2, seed=0)
>>> fast = MarkI(seed=0).train(images, labels, presentations=300)
>>> slow = MarkI(seed=0, segments=False).train(images, labels, presentations=300)
>>> bool((fast.weights == slow.weights).all()), fast.sim_time_s == slow.sim_time_s
(True, True)
"""

from __future__ import annotations

import collections
import functools
import math
from typing import Any, NamedTuple

import numpy as np

from markone._internal.jit import compiled, kernel, plain_form
from markone.hardware.plugboard import _active_csr
from markone.hardware.run import adopt
from markone.hardware.trial import (PLAIN, decide, look, motor_seconds, physics_of,
                                    score, settle, settle_wait, trials_of, turn_units)

__all__ = ["Segments", "PassPlan", "run_segment", "run_passes", "Machine", "Figures", "Rule", "Tally", "LogBuffers"]


class Machine(NamedTuple):
    """The machine's state a segment reads and advances in place: the weights
    ``(n_r, n_a)``, the retina's cell levels and lights, and ``clock`` = ``[now, the
    retina's last read]``."""

    weights: np.ndarray
    level: np.ndarray
    light: np.ndarray
    clock: np.ndarray


class Figures(NamedTuple):
    """What a session knows of its figures ahead: ``X`` the lights and ``S`` the
    settled S-states (uint8); ``pat_ptr``/``pat_idx`` the active A-units (CSR,
    ascending) and those in each R-unit's source set, ``own_idx[start:stop]`` for
    ``start, stop = own_span[i * n_r + r]`` (every R-unit seeing every A-unit:
    ``own_idx`` is ``pat_idx`` and each span a figure's row); the R-units' ``targets`` and the ``labels`` (class indices); the
    class ``codes`` and ``near_ptr``/``near_idx``, the classes nearest to each
    response (as bits: bit ``r`` set when R-unit ``r`` said +1), or empty to search
    ``codes``."""

    X: np.ndarray
    S: np.ndarray
    pat_ptr: np.ndarray
    pat_idx: np.ndarray
    own_span: np.ndarray
    own_idx: np.ndarray
    targets: np.ndarray
    labels: np.ndarray
    codes: np.ndarray
    near_ptr: np.ndarray
    near_idx: np.ndarray


class Rule(NamedTuple):
    """The trainer as a segment needs it: the whole-step increment ``eta`` and
    whether every R-unit is reinforced on every figure (``forced``)."""

    eta: float
    forced: bool


class Tally(NamedTuple):
    """The session's counts, accumulated in place: per R-unit ``mistakes``,
    ``reinforcements`` and ``saturated`` moves, and ``counts`` = ``[figures decoded
    wrongly, figures with a mistake]``."""

    mistakes: np.ndarray
    reinforcements: np.ndarray
    saturated: np.ndarray
    counts: np.ndarray


class LogBuffers(NamedTuple):
    """Room for the log of up to ``cap`` figures (none when ``cap`` is 0): figure
    ``q`` in ``times[q]`` = ``[t_s, end_t_s, settle_s, motor_s]``, ``ints[q]`` =
    ``[wrong, correct, saturated, reinforced R-units]``, ``rows[q]`` (reinforced or
    not), ``scores[q]`` and its weight changes ``chg_*[chg_ptr[q]:chg_ptr[q + 1]]``."""

    cap: int
    times: np.ndarray
    ints: np.ndarray
    rows: np.ndarray
    scores: np.ndarray
    chg_ptr: np.ndarray
    chg_r: np.ndarray
    chg_a: np.ndarray
    chg_v: np.ndarray


class _Work(NamedTuple):
    """One figure's scratch: the retina's cells, the R-units' scores, which erred,
    the reinforced rows, their moves (``new``, ``moved``), blocked moves and largest
    steps, and each unit's request (the whole-step increment)."""

    level: np.ndarray
    scores: np.ndarray
    wrong: np.ndarray
    rows: np.ndarray
    new: np.ndarray
    moved: np.ndarray
    blocked: np.ndarray
    steps: np.ndarray
    want: np.ndarray


@kernel()
def _decode(scores, codes):
    """The class nearest (Hamming) to ``sign(scores)`` (zero counts as +1), ties to
    the class whose code agrees best with the scores (the first of equals), as
    :meth:`MarkI._decode` decides."""
    n_c, n_r = codes.shape
    best_d = n_r + 1
    for c in range(n_c):
        best_d = min(best_d, _distance(scores, codes[c]))
    best, best_agree = -1, -np.inf
    for c in range(n_c):
        if _distance(scores, codes[c]) == best_d:
            agree = _agreement(scores, codes[c])
            if agree > best_agree:
                best, best_agree = c, agree
    return best


@kernel()
def _distance(scores, code):
    """Hamming distance of ``sign(scores)`` (zero counts as +1) from ``code``."""
    d = 0
    for r in range(code.size):
        d += (1 if scores[r] >= 0 else -1) != code[r]
    return d


@kernel()
def _agreement(scores, code):
    """``scores . code``, summed in order."""
    agree = 0.0
    for r in range(code.size):
        agree += scores[r] * code[r]
    return agree


@kernel()
def _decoded(scores, codes, near_ptr, near_idx):
    """The class :meth:`MarkI._decode_one` decodes from ``scores``: the nearest
    classes looked up (or searched), a tie to the best agreement, the first of
    equals."""
    if not near_ptr.size:
        return _decode(scores, codes)
    bits = 0
    for r in range(scores.size):
        if scores[r] >= 0:
            bits += 1 << r
    first, last = near_ptr[bits], near_ptr[bits + 1]
    decoded = near_idx[first]
    if last - first > 1:
        best_agree = -np.inf
        for p in range(first, last):
            agree = _agreement(scores, codes[near_idx[p]])
            if agree > best_agree:
                decoded, best_agree = near_idx[p], agree
    return decoded


@kernel()
def _see(level, light, clock, x, s_state, physics, out):
    """The retina's phase of a figure with lights ``x`` (:meth:`Retina.read`) on cells
    at ``level`` under ``light`` since ``clock[1]`` (now ``clock[0]``): ``out`` gets
    the cells once settled; returns ``(settled at, settle_s)``, or ``settle_s``
    NaN when the settled S-state is not the figure's cached one, ``s_state``."""
    now, ph = clock[0], physics[0]
    instant = not (ph.rise_s > 0 or ph.decay_s > 0)
    rise = fall = 0.0   # instant cells: nothing to catch up, no gap to wait for
    if not instant:
        rise, fall = look(level, light, x, now - clock[1], physics, out)
    t_settled = now + settle_wait(rise, fall, physics, ph.exposure_s)
    settle_s = t_settled - now
    # instant cells read their lights: the settled S-state, unchecked
    if not settle(out, x, settle_s, physics, s_state[:0] if instant else s_state):
        return t_settled, np.nan
    return t_settled, settle_s


@kernel()
def _plan(weights, own_span, own_idx, target, ph, rule, work, n_rows):
    """The moves of the reinforced rows (``RUnits.plan`` of ``online.increment``, eta *
    y * x) on the A-units that are active and in the row's source set: elsewhere a
    request is +-0, which leaves a whole weight within the stops as it is, unblocked.
    ``ph`` is the physics record. Returns the largest move."""
    longest = 0.0
    for m in range(n_rows):
        r = work.rows[m]
        units = own_idx[own_span[r, 0]:own_span[r, 1]]
        work.want[:units.size] = rule.eta * target[r]
        work.blocked[m], work.steps[m] = turn_units(
            weights[r], units, work.want, ph.lo, ph.hi, work.new[r])
        for j in units:
            work.moved[r, j] = work.new[r, j] != weights[r, j]
        longest = max(longest, work.steps[m])
    return longest


@kernel()
def _turn(weights, own_span, own_idx, rule, tally, work, n_rows):
    """Commit the moves of the reinforced rows (A-units as :func:`_unmark` reads
    them) and count their reinforcements and blocked moves; returns the blocked
    moves."""
    n_blocked = 0
    for m in range(n_rows):
        r = work.rows[m]
        for p in range(own_span[r, 0], own_span[r, 1]):
            j = own_idx[p]
            if work.moved[r, j]:
                weights[r, j] = work.new[r, j]
        if rule.forced:
            tally.reinforcements[r] += 1
        tally.saturated[r] += work.blocked[m]
        n_blocked += work.blocked[m]
    return n_blocked


@kernel()
def _count(rule, tally, work, codes, near_ptr, near_idx, label):
    """Count a figure's mistakes (and, error-driven, its reinforcements) and decode
    its response as :meth:`MarkI._trial` does; returns ``(any R-unit wrong, the
    decoded class)`` (``label`` itself when none was)."""
    any_wrong = False
    for r in range(work.wrong.size):
        any_wrong |= work.wrong[r]
    if not any_wrong:   # every R-unit's sign is its target: the figure's own code
        return False, label
    tally.counts[1] += 1
    for r in range(work.wrong.size):
        tally.mistakes[r] += work.wrong[r]
        if not rule.forced:
            tally.reinforcements[r] += work.wrong[r]
    decoded = _decoded(work.scores, codes, near_ptr, near_idx)
    if decoded != label:
        tally.counts[0] += 1
    return True, decoded


@kernel()
def _changes(chg_r, chg_a, chg_v, n_chg, own_span, own_idx, work, n_rows):
    """Log the weight changes of the reinforced rows (A-units as :func:`_unmark`
    reads them) from ``n_chg`` on; returns the changes logged so far."""
    for m in range(n_rows):
        r = work.rows[m]
        for p in range(own_span[r, 0], own_span[r, 1]):
            j = own_idx[p]
            if work.moved[r, j]:
                chg_r[n_chg], chg_a[n_chg], chg_v[n_chg] = r, j, work.new[r, j]
                n_chg += 1
    return n_chg


@kernel()
def _unmark(own_span, own_idx, work, n_rows):
    """Clear the ``moved`` marks of the reinforced rows (their A-units
    ``own_idx[own_span[r, 0]:own_span[r, 1]]``)."""
    for m in range(n_rows):
        r = work.rows[m]
        for p in range(own_span[r, 0], own_span[r, 1]):
            work.moved[r, own_idx[p]] = False


def _new_work(n_s, n_r, n_a):
    """The scratch of :func:`run_segment` (``moved`` all False), made by numpy: made
    in compiled code, its arrays cost a compile of ``np.empty`` and ``np.zeros``
    (about 0.7 s of a first fleet, issue 38)."""
    return _Work(np.empty(n_s), np.empty(n_r), np.zeros(n_r, dtype=np.bool_),
                 np.empty(n_r, dtype=np.int64), np.empty((n_r, n_a)),
                 np.zeros((n_r, n_a), dtype=np.bool_), np.empty(n_r, dtype=np.int64),
                 np.empty(n_r), np.empty(n_a))


@kernel()
def _copy(src, dst):
    """``dst[:] = src`` for 1-D arrays of one size, as a loop: numba's slice
    assignment checks the shapes and compiles the message of a mismatch, which took
    the fleet's first compile some 3 s of 13 (issue 38)."""
    for k in range(src.size):
        dst[k] = src[k]


@kernel()
def _motor_phase(weights, own_span, own_idx, target, ph, rule, work, n_rows, t_logic):
    """Plan the moves of the ``n_rows`` reinforced rows (targets ``target``, A-units
    as :func:`_unmark` reads them); returns ``(end of the trial, motor seconds)``, as
    :meth:`Motors.turn` advances the clock."""
    seconds = motor_seconds(_plan(weights, own_span, own_idx, target, ph, rule, work,
                                  n_rows),
                            ph.motor_step_s)
    if seconds > 0:
        end = t_logic + seconds
        return end, end - t_logic
    return t_logic, 0.0


@kernel()
def run_segment(order: np.ndarray, pos: int, horizon: float, machine: Machine,
                figures: Figures, physics: np.ndarray, rule: Rule, tally: Tally,
                log: LogBuffers, work: Any) -> int:
    """Run figures ``order[pos:]`` until one needs the per-figure path, each as the
    trial kernel's steps (:mod:`markone.hardware.trial`) in the per-figure order.

    ``machine`` (a :class:`Machine`) and ``tally`` (a :class:`Tally`) are advanced
    in place, ``figures`` is a :class:`Figures`, ``physics`` the record array of
    :data:`~markone.hardware.trial.PHYSICS`, ``rule`` a :class:`Rule`; with
    ``log.cap > 0`` each figure is logged into ``log`` (a :class:`LogBuffers`);
    ``work`` is one figure's scratch, made by numpy (``_new_work``: its ``moved`` all
    False, and so again on return).

    Returns the position of the first figure not run: ``pos`` itself when that figure
    needs the per-figure path (a settled S-state that is not its cached one) or would
    end at or after ``horizon``, or when the log's buffers are full.
    """
    n_r, n_a = machine.weights.shape
    ph = physics[0]
    times, ints, log_rows = log.times, log.ints, log.rows
    k, q, n_chg = pos, 0, 0
    while k < order.size:
        if log.cap > 0 and (q >= log.cap or n_chg + n_r * n_a > log.chg_r.size):
            break
        i = order[k]
        x = figures.X[i]
        t_settled, settle_s = _see(machine.level, machine.light, machine.clock, x,
                                   figures.S[i], physics, work.level)
        if np.isnan(settle_s):
            break
        t_logic = t_settled + ph.logic_s
        score(machine.weights, figures.pat_idx[figures.pat_ptr[i]:figures.pat_ptr[i + 1]],
              work.scores)
        target, own_span = figures.targets[i], figures.own_span[i * n_r:(i + 1) * n_r]
        n_rows = decide(work.scores, target, rule.forced, work.wrong, work.rows)
        end, motor_s = t_logic, 0.0
        if n_rows:
            end, motor_s = _motor_phase(machine.weights, own_span, figures.own_idx, target,
                                        ph, rule, work, n_rows, t_logic)
        if not end < horizon:   # something else happens on the clock first
            _unmark(own_span, figures.own_idx, work, n_rows)
            break
        t0 = machine.clock[0]
        _copy(work.level, machine.level)
        _copy(x, machine.light)
        machine.clock[0], machine.clock[1] = end, t_settled
        label = figures.labels[i]
        wrong, decoded, n_blocked = False, label, 0
        if n_rows:   # (without, every R-unit was right: nothing to move or count)
            n_blocked = _turn(machine.weights, own_span, figures.own_idx, rule, tally,
                              work, n_rows)
            wrong, decoded = _count(rule, tally, work, figures.codes, figures.near_ptr,
                                    figures.near_idx, label)
            if log.cap > 0:
                n_chg = _changes(log.chg_r, log.chg_a, log.chg_v, n_chg, own_span,
                                 figures.own_idx, work, n_rows)
            _unmark(own_span, figures.own_idx, work, n_rows)
        if log.cap > 0:   # the figure's columns (LogBuffers)
            times[q, 0], times[q, 1], times[q, 2], times[q, 3] = (t0, end, settle_s,
                                                                  motor_s)
            ints[q, 0], ints[q, 1], ints[q, 2], ints[q, 3] = (wrong, decoded == label,
                                                              n_blocked, n_rows)
            log_rows[q, :] = False
            for m in range(n_rows):
                log_rows[q, work.rows[m]] = True
            _copy(work.scores, log.scores[q])
            log.chg_ptr[q + 1] = n_chg
        k += 1
        q += 1
    return k


@kernel()
def run_passes(order: np.ndarray, pos: int, n_passes: int, last: int, horizon: float,
               clean_stops: bool, machine: Machine, figures: Figures,
               physics: np.ndarray, rule: Rule, tally: Tally, log: LogBuffers,
               work: Any, counts: np.ndarray, ends: np.ndarray) -> tuple[int, int]:
    """Run ``order[pos:]``, then ``n_passes - 1`` more passes of ``order`` (the last
    pass cut to its first ``last`` figures), each as :func:`run_segment` runs a
    pass from where it starts, with the horizon a session's segment has: the
    next other event, ``horizon``, and twice the clock at the pass's start (so
    that the session's timeout to the pass's end lands on it exactly).

    ``counts[p]`` gets pass ``p``'s ``[figures decoded wrongly, figures with a
    mistake]`` and ``ends[p]`` the clock at its end (``tally.counts`` sums them).
    Stops where :func:`run_segment` stops, or after a pass without a mistake
    when ``clean_stops``. Returns ``(passes begun, the position in the order
    where the last of them stopped)``: every pass begun before the last was run
    whole.
    """
    stop = order.size
    for p in range(n_passes):
        stop = last if p == n_passes - 1 else order.size
        start = pos if p == 0 else 0
        now = machine.clock[0]
        wrong, mistaken = tally.counts[0], tally.counts[1]
        end = run_segment(order[:stop], start, min(horizon, 2.0 * now) if now > 0
                          else horizon, machine, figures, physics, rule, tally, log,
                          work)
        counts[p, 0] = tally.counts[0] - wrong
        counts[p, 1] = tally.counts[1] - mistaken
        ends[p] = machine.clock[0]
        if end < stop or (clean_stops and counts[p, 1] == 0):
            return p + 1, end
    return n_passes, stop


class PassPlan(NamedTuple):
    """How a session's passes follow each other, for segments that run several in
    one call: ``repeats``, whether every pass shows the same order (the figures as
    given or an explicit order: nothing drawn), and ``presentations``, the figures
    the session shows in all (None: up to ``max_epochs`` passes, stopping after
    the first without a mistake)."""

    repeats: bool
    presentations: int | None
    max_epochs: int


class Segments:
    """The compiled segments of one :meth:`MarkI.train` session (build them with
    :meth:`for_session`, which says None when the session cannot use them).

    :meth:`run` runs the figures of one pass from a position on, as far as a segment
    goes, and returns where it stopped and the clock at the end of the segment; the
    session process then waits for the segment with one timeout.
    """

    #: figures logged per compiled call (the log's buffers hold this many)
    LOG_CHUNK = 1024

    @classmethod
    def for_session(cls, machine: Any, X: np.ndarray, trainer: Any, stats: dict,
                    log: Any, n_total: int, plan: PassPlan | None = None
                    ) -> Segments | None:
        """Segments for a session of at most ``n_total`` figures of ``X``, or None
        when its figures cannot be computed ahead: photocell noise, hardware faults,
        device variation (``MarkIParams.variation``: moves that are not whole steps),
        fractional increments (the gamma rule, a fractional ``eta``), end stops or
        weights that are not whole steps (or a weight outside the end stops, or -0),
        sums that could reach 2**53, or a machine built with ``segments=False``."""
        p = machine.params
        if not (machine.segments and machine.faults is None
                and p.photocell_noise_sd == 0 and trainer.whole and not p.variation):
            return None
        if not _whole_steps(machine, trainer, n_total):
            return None
        return cls(machine, X, trainer, stats, log, n_total, plan)

    def __init__(self, machine: Any, X: np.ndarray, trainer: Any, stats: dict,
                 log: Any, n_total: int, plan: PassPlan | None = None) -> None:
        p = machine.params
        self.machine = machine
        S = machine.retina.settled(X)
        # primed (a fleet's figures): their active A-units' CSR, computed once
        active = machine._patterns.active(S, machine.theta)
        A = None if active is not None else machine._patterns.lookup(S, machine.theta)
        #: the figures' A-unit patterns, for the log (none without one)
        self.patterns = None if log is None and not (active is None and A is None) \
            else machine._patterns.patterns(S, machine.theta)
        #: each figure's active A-units, target and label as the log records them
        self.records: _Figures | None = None
        if active is None:   # no Pattern objects when looked up
            active = _active_csr(np.array([pat.a for pat in self.patterns or ()])
                                 if A is None else A)
        self.figures = _figures_ahead(X, S, active, p.n_a_units, machine.runits.mask,
                                      machine.codes_, p.n_r_units)
        self.physics = physics_of(p)
        self.rule = Rule(float(trainer.eta), trainer.rule == "forced")
        self.stats = stats
        self.log = log
        self.trainer, self.theta, self.n_total = trainer, machine.theta, n_total
        #: whether another process had an event pending at the last segment
        self._shared = False
        self.buffers = _log_buffers(self.LOG_CHUNK if log is not None else 0,
                                    p.n_r_units, p.n_a_units)
        #: one figure's scratch, shared by the session's segments (run_segment
        #: leaves its ``moved`` all False again)
        self.work = _new_work(X.shape[1], p.n_r_units, p.n_a_units)
        #: the session's passes (None: one pass a call)
        self.plan = plan
        #: ``(next position, counts, end)`` of the passes the last call ran ahead,
        #: what :meth:`run` returns for each of them in turn
        self._ahead: collections.deque = collections.deque()

    def run(self, order: np.ndarray, pos: int, targets: np.ndarray,
            labels: np.ndarray) -> tuple[int, np.ndarray, float]:
        """Run ``order[pos:]`` as far as one segment goes; return ``(next position,
        [errors, mistaken], end of the segment on the clock)``.

        At the start of a pass of a session whose passes repeat one order, with
        nothing else on the clock and no log, one compiled call runs the passes
        that follow as well (:func:`run_passes`), segment by segment as they would
        run call by call; the next calls return their segments in turn."""
        if self._ahead:   # a pass the last call ran: the session is at its start
            return self._ahead.popleft()
        machine = self.machine
        env, retina, stats = machine.env, machine.retina, self.stats
        now = float(env.now)
        horizon = env.peek()
        shared, self._shared = self._shared, horizon < np.inf
        if (shared or self._shared) and not (   # another process may change things
                machine.faults is None and machine.theta == self.theta
                and _whole_steps(machine, self.trainer, self.n_total)):
            return pos, np.zeros(2, dtype=np.int64), now
        if retina.level.dtype != np.float64 or not retina.level.flags.writeable:
            retina.level = np.array(retina.level, dtype=np.float64)
        state = Machine(machine.runits.weights, retina.level,
                        np.array(retina.light, dtype=np.float64),
                        np.array([now, retina._t], dtype=np.float64))
        tally = Tally(stats["mistakes"], stats["reinforcements"], stats["saturated"],
                      np.zeros(2, dtype=np.int64))
        n_passes, last = self._passes(order, pos, horizon)
        counts = np.zeros((n_passes, 2), dtype=np.int64)
        ends = np.empty(n_passes)
        begun, end = compiled(run_passes)(
            np.ascontiguousarray(order, dtype=np.int64), pos, n_passes, last, horizon,
            self.plan is not None and self.plan.presentations is None, state,
            self.figures._replace(targets=targets, labels=labels), self.physics,
            self.rule, tally, self.buffers, self.work, counts, ends)
        # (next position, counts, end) of each pass begun: whole but the last
        runs = [(len(order) if p < begun - 1 else end, counts[p], float(ends[p]))
                for p in range(begun)]
        shown = sum(reached for reached, _, _ in runs) - pos   # (later passes from 0)
        if shown:
            retina.light, retina._t = state.light, float(state.clock[1])
            stats["shown"] += shown
            if self.log is not None:   # (one pass a call)
                self._log(order[pos:end], targets, labels)
        self._ahead.extend(runs[1:])
        return runs[0]

    def _passes(self, order, pos, horizon):
        """``(passes, figures of the last)`` that one call may run from ``pos`` in
        the pass ``order``: the passes left in the session when it starts a pass
        of a :class:`PassPlan` that repeats, with nothing else on the clock and no
        log; else the rest of this pass."""
        plan, n = self.plan, len(order)
        if plan is None or not plan.repeats or pos or horizon < np.inf or \
                self.log is not None:
            return 1, n
        if plan.presentations is None:   # the passes left, each whole
            return max(plan.max_epochs - len(self.stats["errors_per_epoch"]), 1), n
        left = plan.presentations - self.stats["shown"]   # this pass whole if more
        passes = -(-left // n)
        return passes, left - (passes - 1) * n

    def _log(self, shown, targets, labels):
        """Log the figures the last segment ran (``shown``): their columns, copied, as
        one block of the :class:`~markone.hardware.run.PresentationLog`."""
        n, buf = len(shown), self.buffers
        ptr = buf.chg_ptr[:n + 1].copy()
        if self.records is None or self.records.targets is not targets:
            self.records = _Figures(self.patterns, targets, labels)
        self.log.add_block(n, functools.partial(
            _presentations, shown.copy(), buf.times[:n].copy(), buf.ints[:n].copy(),
            buf.rows[:n].copy(), buf.scores[:n].copy(), ptr,
            buf.chg_r[:ptr[-1]].copy(), buf.chg_a[:ptr[-1]].copy(),
            buf.chg_v[:ptr[-1]].copy(), self.records))


def _figures_ahead(X, S, active, n_a, mask, codes, n_r):
    """The :class:`Figures` of a session (targets and labels still empty): the active
    A-units of its figures (``active``, the CSR ``(ptr, idx)`` of their ``n_a``
    A-units' outputs) and their source-set parts (the figures' own rows when the
    ``mask`` is None: every R-unit sees every A-unit), the nearest classes."""
    pat_ptr, pat_idx = active
    if mask is None:   # each R-unit's part of a figure's row is the row itself
        own_span = np.repeat(np.stack([pat_ptr[:-1], pat_ptr[1:]], axis=1), n_r, axis=0)
        own_idx = pat_idx
    else:
        own_ptr = np.zeros(len(X) * n_r + 1, dtype=np.int64)
        own_idx = np.empty(pat_idx.size * n_r, dtype=np.int64)
        compiled(_own)(pat_ptr, pat_idx, mask, own_ptr, own_idx)
        own_span = np.stack([own_ptr[:-1], own_ptr[1:]], axis=1)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    near_ptr, near_idx = _nearest(codes)
    none = np.zeros(0, dtype=np.int64)
    return Figures(X, S, pat_ptr, pat_idx, own_span, own_idx, none.reshape(0, n_r),
                   none, codes, near_ptr, near_idx)


@kernel()
def _decode_unique(scores, near_ptr, near_idx, out):
    """``out[i]``: the one class nearest (Hamming) to ``sign(scores[i])`` (as
    :func:`markone.online.predict_sign`: +1 unless below zero), looked up in the CSR
    ``near_ptr``/``near_idx`` of :func:`_nearest`; -1 where several classes are
    equally near (the caller breaks those ties by :meth:`MarkI._decode`)."""
    for i in range(scores.shape[0]):
        bits = 0
        for r in range(scores.shape[1]):
            if not scores[i, r] < 0:
                bits += 1 << r
        first = near_ptr[bits]
        out[i] = near_idx[first] if near_ptr[bits + 1] - first == 1 else -1


@plain_form(_decode_unique)
def _decode_unique_plain(scores, near_ptr, near_idx, out):
    bits = (~(scores < 0)).astype(np.int64) @ (1 << np.arange(scores.shape[1]))
    first = near_ptr[bits]
    out[:] = np.where(near_ptr[bits + 1] - first == 1, near_idx[first], -1)


def _log_buffers(cap, n_r, n_a):
    """:class:`LogBuffers` for ``cap`` figures (``cap`` 0: no log, minimal arrays)."""
    rows = max(cap, 1)
    n_chg = 4 * n_r * n_a if cap else 0
    return LogBuffers(cap, np.zeros((rows, 4)), np.zeros((rows, 4), dtype=np.int64),
                      np.zeros((rows, n_r), dtype=np.bool_), np.zeros((rows, n_r)),
                      np.zeros(rows + 1, dtype=np.int64), np.zeros(n_chg, dtype=np.int64),
                      np.zeros(n_chg, dtype=np.int64), np.zeros(n_chg))


@kernel()
def _own(pat_ptr, pat_idx, mask, own_ptr, own_idx):
    """Fill the CSR ``own_ptr``/``own_idx``: row ``i * n_r + r`` lists figure ``i``'s
    active A-units in R-unit ``r``'s source set (``mask[r]``), ascending (each a copy
    of the figure's row when every R-unit sees every A-unit)."""
    n_r = mask.shape[0]
    every = True
    for r in range(n_r):
        for j in range(mask.shape[1]):
            every = every and mask[r, j]
    n = 0
    for i in range(pat_ptr.size - 1):
        first, last = pat_ptr[i], pat_ptr[i + 1]
        for r in range(n_r):
            if every:
                for p in range(first, last):
                    own_idx[n] = pat_idx[p]
                    n += 1
            else:
                for p in range(first, last):
                    if mask[r, pat_idx[p]]:
                        own_idx[n] = pat_idx[p]
                        n += 1
            own_ptr[i * n_r + r + 1] = n


def _whole_steps(machine, trainer, n_total):
    """Whether every weight is a whole number of steps within the end stops (and not
    -0), and so is every sum of weights over ``n_total`` more figures: below 2**52."""
    p = machine.params
    W = machine.runits.weights
    lo, hi = (-np.inf, np.inf) if p.weight_range is None else \
        (float(p.weight_range[0]), float(p.weight_range[1]))
    stops = [v for v in (lo, hi) if np.isfinite(v)]
    if not all(v.is_integer() and not (v == 0 and np.signbit(v)) for v in stops):
        return False
    largest = PLAIN.kernel(_largest_whole, trials_of(W.size))(
        np.ascontiguousarray(W, dtype=np.float64), lo, hi)
    if largest < 0:   # a weight not whole, -0, NaN or outside the stops
        return False
    top = largest + abs(float(trainer.eta)) * n_total
    if stops:
        top = min(top, max([largest] + [abs(v) for v in stops]))
    return top * p.n_a_units < 2.0 ** 52


@kernel()
def _largest_whole(W, lo, hi):
    """The largest ``|w|`` of the weights ``W`` ``(n_r, n_a)`` when every one is a
    whole number (inf counts as one, as ``np.round`` leaves it), not -0 and within
    ``[lo, hi]``; else -1.0. One pass instead of a numpy call per condition."""
    largest = 0.0
    for r in range(W.shape[0]):
        for j in range(W.shape[1]):
            w = W[r, j]
            if not (w == np.floor(w) and lo <= w <= hi) or (
                    w == 0 and math.copysign(1.0, w) < 0):
                return -1.0
            largest = max(largest, abs(w))
    return largest


@plain_form(_largest_whole)
def _largest_whole_plain(W, lo, hi):
    with np.errstate(invalid="ignore"):
        whole = (W == np.floor(W)) & (lo <= W) & (W <= hi)
    if not whole.all() or ((W == 0) & np.signbit(W)).any():
        return -1.0
    return float(np.abs(W).max(initial=0.0))


class _Figures:
    """What the log needs of each figure of a session, as the records hold it (built
    on first use, once): its active A-units, its target and its label."""

    def __init__(self, patterns, targets, labels):
        self.patterns, self.targets, self.labels = patterns, targets, labels
        self._lists = None

    def lists(self):
        """``(actives, targets, labels)``, each a list indexed by figure."""
        if self._lists is None:
            self._lists = ([pat.active for pat in self.patterns],
                           [tuple(t) for t in self.targets.tolist()],
                           self.labels.tolist())
        return self._lists


def _pointers(rows, n):
    """CSR row pointers of the sorted row numbers ``rows`` of ``n`` rows."""
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=ptr[1:])
    return ptr


def _nearest(codes):
    """For each response as bits (R-unit ``r`` said +1 in bit ``r``), the classes whose
    codes are nearest in Hamming distance, as CSR; empty when there are too many
    responses and classes to list. Computed once per distinct ``codes`` in a process
    (every machine of a fleet has the same): the arrays are shared, read them only."""
    return _nearest_of(codes.shape, codes.tobytes())


@functools.lru_cache(maxsize=64)
def _nearest_of(shape, code_bytes):
    """:func:`_nearest` of the int64 ``codes`` of ``shape`` held in ``code_bytes``."""
    codes = np.frombuffer(code_bytes, dtype=np.int64).reshape(shape)
    n_classes, n_r = codes.shape
    if 2 ** n_r * n_classes > 2 ** 20:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    responses = np.where((np.arange(2 ** n_r)[:, None] >> np.arange(n_r)) & 1, 1, -1)
    dist = (responses[:, None, :] != codes[None, :, :]).sum(-1)
    bits, near = np.nonzero(dist == dist.min(axis=1, keepdims=True))
    return _pointers(bits, 2 ** n_r), near


def _presentations(figures, times, ints, rows, scores, ptr, chg_r, chg_a, chg_v,
                   session):
    """The :class:`~markone.hardware.run.Presentation` of each figure of a segment,
    from the columns :func:`run_segment` logged, as :meth:`MarkI._trial` writes it."""
    actives, target_of, label_of = session.lists()
    changes = list(zip(chg_r.tolist(), chg_a.tolist(), chg_v.tolist()))
    ptr = ptr.tolist()
    unmoved = (False,) * rows.shape[1]
    out = []
    append = out.append
    for q, (i, (t_s, end_t_s, settle_s, motor_s), (wrong, correct, blocked, n_rows),
            s) in enumerate(zip(figures.tolist(), times.tolist(), ints.tolist(),
                                map(tuple, scores.tolist()))):
        target = target_of[i]
        append(adopt({
            "t_s": t_s, "end_t_s": end_t_s, "figure": i, "label": label_of[i],
            "active_a": actives[i], "scores": s,
            "response": tuple([-1 if v < 0 else 1 for v in s]) if wrong else target,
            "target": target,
            "reinforced": tuple(rows[q].tolist()) if n_rows else unmoved,
            "changes": tuple(changes[ptr[q]:ptr[q + 1]]) if n_rows else (),
            "saturated": blocked, "motor_s": motor_s,
            "figure_correct": correct == 1, "settle_s": settle_s}))
    return out
