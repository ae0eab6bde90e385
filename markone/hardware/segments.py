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
cached one, e.g. a blend after a short exposure; an A-unit pattern with no active
unit; a figure that would end at or after the next other event) stops the segment
before it, and that figure runs on the per-figure path, :meth:`MarkI._trial`.

The compiled loop reuses the per-figure path's own compiled pieces (a photocell's lag
``retina._lag_cell``, the settling time ``retina._wait_for`` and ``_remains``, a
potentiometer's move ``runits._turn_to``), and its scores are exact: segments run only
when every weight is a whole number of steps and every increment too (so every sum of
weights is an integer below 2**53, the same in any order).
``tests/markone/hardware/test_hardware_segments.py`` checks the two paths against each other bit for
bit (weights, clock, log).

Examples
--------
>>> from markone._figures import letters
>>> from markone.hardware import MarkI
>>> images, labels = letters("ABC", per_class=2, seed=0)
>>> fast = MarkI(seed=0).train(images, labels, presentations=300)
>>> with per_figure():
...     slow = MarkI(seed=0).train(images, labels, presentations=300)
>>> bool((fast.weights == slow.weights).all()), fast.sim_time_s == slow.sim_time_s
(True, True)
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from typing import Any

import numpy as np
from numba import njit

from markone.hardware.retina import _remains, _lag_cell, _wait_for
from markone.hardware.run import adopt
from markone.hardware.runits import _turn_to

__all__ = ["Segments", "per_figure", "run_segment"]

_ENABLED = [True]


@contextlib.contextmanager
def per_figure() -> Iterator[None]:
    """Within this block, every machine runs every figure on the per-figure path (one
    SimPy process step per timeout): the reference the segments are tested against."""
    _ENABLED.append(False)
    try:
        yield
    finally:
        _ENABLED.pop()


@njit(cache=True, nogil=True)
def _decode(scores, codes):
    """The class nearest (Hamming) to ``sign(scores)`` (zero counts as +1), ties to
    the class whose code agrees best with the scores (the first of equals), as
    :meth:`MarkI._decode` decides."""
    n_c, n_r = codes.shape
    best_d = n_r + 1
    for c in range(n_c):
        d = 0
        for r in range(n_r):
            d += (1 if scores[r] >= 0 else -1) != codes[c, r]
        best_d = min(best_d, d)
    best, best_agree = -1, -np.inf
    for c in range(n_c):
        d = 0
        for r in range(n_r):
            d += (1 if scores[r] >= 0 else -1) != codes[c, r]
        if d == best_d:
            agree = 0.0
            for r in range(n_r):
                agree += scores[r] * codes[c, r]
            if agree > best_agree:
                best, best_agree = c, agree
    return best


@njit(cache=True, nogil=True)
def run_segment(order, pos, horizon, clock, X, S, pat_ptr, pat_idx, own_ptr, own_idx,
                targets, labels, codes, near_ptr, near_idx, W, level, light, physics,
                forced, mistakes,
                reinforcements, saturated, counts, log_cap, lg_f, lg_i, lg_rows,
                lg_scores, chg_ptr, chg_r, chg_a, chg_v):
    """Run figures ``order[pos:]`` until one needs the per-figure path.

    ``clock`` is ``[now, the retina's last read]`` (updated); ``X`` the lights and
    ``S`` the settled S-states (uint8) of the figures; ``pat_ptr``/``pat_idx`` their
    active A-units (CSR, ascending) and ``own_ptr``/``own_idx`` those of them in each
    R-unit's source set (row ``i * n_r + r``); ``near_ptr``/``near_idx`` the classes
    nearest to each response (as bits ``r``: R-unit ``r`` said +1), or empty to search
    ``codes``; ``W``, ``level`` and ``light`` the weights and the retina (updated in
    place); ``physics`` = ``[rise_s, decay_s, tolerance, s_threshold, exposure_s (nan:
    until settled), logic_s, motor_step_s, lo, hi, eta]``. ``mistakes``,
    ``reinforcements``, ``saturated`` and ``counts`` = ``[errors, mistaken]``
    accumulate. With ``log_cap > 0`` figure ``q`` of the segment is logged in
    ``lg_f[q]`` = ``[t_s, end_t_s, settle_s, motor_s]``, ``lg_i[q]`` = ``[wrong,
    correct, saturated, reinforced R-units]``, ``lg_rows[q]`` (reinforced or not),
    ``lg_scores[q]`` and its weight changes ``chg_*[chg_ptr[q]:chg_ptr[q + 1]]``.

    Returns the position of the first figure not run: ``pos`` itself when that figure
    needs the per-figure path or would end at or after ``horizon``.
    """
    n_r, n_a = W.shape
    n_s = level.size
    rise_s, decay_s, tol, s_threshold = physics[0], physics[1], physics[2], physics[3]
    exposure_s, logic_s, motor_step_s = physics[4], physics[5], physics[6]
    lo, hi, eta = physics[7], physics[8], physics[9]
    instant = not (rise_s > 0 or decay_s > 0)
    now, t_read = clock[0], clock[1]
    scratch = np.empty(n_s)
    scores = np.empty(n_r)
    wrong_r = np.zeros(n_r, dtype=np.bool_)
    rows = np.empty(n_r, dtype=np.int64)
    # the moves of the reinforced rows, on the active A-units only: an inactive (or
    # masked) unit's request is +-0, which leaves a weight within its end stops as it
    # is, unblocked (Segments.for_session checks that every weight is within them)
    new = np.empty((n_r, n_a))
    moved = np.zeros((n_r, n_a), dtype=np.bool_)
    blocked, steps = np.empty(n_r, dtype=np.int64), np.empty(n_r)
    k, q, n_chg = pos, 0, 0
    while k < order.size:
        if log_cap > 0 and (q >= log_cap or n_chg + n_r * n_a > chg_r.size):
            break   # the log's buffers are full
        i = order[k]
        lo_p, hi_p = pat_ptr[i], pat_ptr[i + 1]
        if hi_p == lo_p:   # no active A-unit: the zero sums' signs are BLAS's business
            break
        x = X[i]
        # the retina (Retina.read): catch up, show the figure, wait, catch up, read
        t0 = now
        dt = now - t_read
        if instant:   # every cell jumps to its light: the S-state is the settled one
            scratch[:] = x
            wait = 0.0 if np.isnan(exposure_s) else exposure_s
            t_settled = now + wait
            settle_s = t_settled - now
        else:
            up, down = _remains(dt, rise_s), _remains(dt, decay_s)
            rise = fall = -np.inf
            for c in range(n_s):   # _lag, then _settle_wait's _gaps
                v = _lag_cell(level[c], light[c], up, down)
                scratch[c] = v
                rise = max(rise, x[c] - v)
                fall = max(fall, v - x[c])
            wait = _wait_for(rise, fall, rise_s, decay_s, tol) if np.isnan(exposure_s) \
                else exposure_s
            t_settled = now + wait
            settle_s = t_settled - now
            up, down = _remains(settle_s, rise_s), _remains(settle_s, decay_s)
            same = True
            for c in range(n_s):   # _lag, then the S-units
                v = _lag_cell(scratch[c], x[c], up, down)
                scratch[c] = v
                same &= (v >= s_threshold) == (S[i, c] != 0)
            if not same:   # not the figure's settled S-state: the per-figure path
                break
        t_logic = t_settled + logic_s
        # the R-units' sums of the active A-units (whole numbers: exact in any order)
        any_wrong, n_rows = False, 0
        for r in range(n_r):
            total = 0.0
            for p in range(lo_p, hi_p):
                total += W[r, pat_idx[p]]
            scores[r] = total
            wrong_r[r] = targets[i, r] * total <= 0   # markone.online.is_mistake
            any_wrong |= wrong_r[r]
            if forced or wrong_r[r]:
                rows[n_rows] = r
                n_rows += 1
        end, motor_s, longest = t_logic, 0.0, 0.0
        for m in range(n_rows):   # RUnits.plan of online.increment (eta * y * x)
            r = rows[m]
            want = eta * targets[i, r]
            n_blocked, largest = 0, 0.0
            for p in range(own_ptr[i * n_r + r], own_ptr[i * n_r + r + 1]):
                j = own_idx[p]
                before = W[r, j]
                after, cut = _turn_to(before, want, lo, hi)
                n_blocked += cut
                new[r, j] = after
                moved[r, j] = after != before
                largest = max(largest, abs(after - before))
            blocked[m], steps[m] = n_blocked, largest
            longest = max(longest, largest)
        if n_rows and motor_step_s > 0 and longest > 0:   # Motors.turn: the slowest
            end = t_logic + longest * motor_step_s
            motor_s = end - t_logic
        if not end < horizon:   # something else happens on the clock first
            for m in range(n_rows):
                r = rows[m]
                for p in range(own_ptr[i * n_r + r], own_ptr[i * n_r + r + 1]):
                    moved[r, own_idx[p]] = False
            break
        # commit the figure
        level[:] = scratch
        light[:] = x
        t_read, now = t_settled, end
        n_sat = 0
        for m in range(n_rows):
            r = rows[m]
            for p in range(own_ptr[i * n_r + r], own_ptr[i * n_r + r + 1]):
                j = own_idx[p]
                if moved[r, j]:
                    W[r, j] = new[r, j]
            if forced:
                reinforcements[r] += 1
            saturated[r] += blocked[m]
            n_sat += blocked[m]
        decoded = labels[i]
        if any_wrong:
            counts[1] += 1
            for r in range(n_r):
                mistakes[r] += wrong_r[r]
                if not forced:
                    reinforcements[r] += wrong_r[r]
            if near_ptr.size:   # MarkI._decode_one: the nearest classes looked up
                bits = 0
                for r in range(n_r):
                    if scores[r] >= 0:
                        bits += 1 << r
                first, last = near_ptr[bits], near_ptr[bits + 1]
                decoded = near_idx[first]
                if last - first > 1:   # a tie: the best agreement, the first of equals
                    best_agree = -np.inf
                    for p in range(first, last):
                        agree = 0.0
                        for r in range(n_r):
                            agree += scores[r] * codes[near_idx[p], r]
                        if agree > best_agree:
                            decoded, best_agree = near_idx[p], agree
            else:
                decoded = _decode(scores, codes)
            if decoded != labels[i]:
                counts[0] += 1
        if log_cap > 0:
            lg_f[q, 0], lg_f[q, 1], lg_f[q, 2], lg_f[q, 3] = t0, now, settle_s, motor_s
            lg_i[q, 0], lg_i[q, 1] = any_wrong, decoded == labels[i]
            lg_i[q, 2], lg_i[q, 3] = n_sat, n_rows
            lg_rows[q, :] = False
            lg_scores[q, :] = scores
            for m in range(n_rows):
                r = rows[m]
                lg_rows[q, r] = True
                for p in range(own_ptr[i * n_r + r], own_ptr[i * n_r + r + 1]):
                    j = own_idx[p]
                    if moved[r, j]:
                        chg_r[n_chg], chg_a[n_chg], chg_v[n_chg] = r, j, new[r, j]
                        n_chg += 1
            chg_ptr[q + 1] = n_chg
        for m in range(n_rows):
            r = rows[m]
            for p in range(own_ptr[i * n_r + r], own_ptr[i * n_r + r + 1]):
                moved[r, own_idx[p]] = False
        k += 1
        q += 1
    clock[0], clock[1] = now, t_read
    return k


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
                    log: Any, n_total: int) -> Segments | None:
        """Segments for a session of at most ``n_total`` figures of ``X``, or None
        when its figures cannot be computed ahead: photocell noise, hardware faults,
        fractional increments (the gamma rule, a fractional ``eta``), end stops or
        weights that are not whole steps (or a weight outside the end stops, or -0),
        sums that could reach 2**53, or inside :func:`per_figure`."""
        p = machine.params
        if not (_ENABLED[-1] and machine.faults is None and p.photocell_noise_sd == 0
                and trainer.whole):
            return None
        if not _whole_steps(machine, trainer, n_total):
            return None
        return cls(machine, X, trainer, stats, log, n_total)

    def __init__(self, machine: Any, X: np.ndarray, trainer: Any, stats: dict,
                 log: Any, n_total: int) -> None:
        p = machine.params
        self.machine = machine
        self.X = X
        self.S = machine.retina.settled(X)
        self.patterns = [machine._patterns.get(s, machine.theta) for s in self.S]
        #: each figure's active A-units, target and label as the log records them
        self.figures = None
        A = np.array([pat.a for pat in self.patterns], dtype=bool)
        fig, self.pat_idx = np.nonzero(A)
        self.pat_ptr = _pointers(fig, len(X))
        mask = machine.runits.mask   # None: every R-unit sees every A-unit
        if mask is None:
            mask = np.ones((p.n_r_units, p.n_a_units), dtype=bool)
        self.own_ptr = np.zeros(len(X) * p.n_r_units + 1, dtype=np.int64)
        self.own_idx = np.empty(self.pat_idx.size * p.n_r_units, dtype=np.int64)
        _own(self.pat_ptr, self.pat_idx, mask, self.own_ptr, self.own_idx)
        lo, hi = (-np.inf, np.inf) if p.weight_range is None else p.weight_range
        self.physics = np.array([
            p.photocell_rise_s, p.photocell_decay_s, p.settle_tolerance, p.s_threshold,
            np.nan if p.exposure_s is None else p.exposure_s, p.logic_s, p.motor_step_s,
            lo, hi, trainer.eta], dtype=np.float64)
        self.forced = trainer.rule == "forced"
        self.codes = np.ascontiguousarray(machine.codes_, dtype=np.int64)
        self.near_ptr, self.near_idx = _nearest(self.codes)
        self.stats = stats
        self.log = log
        self.trainer, self.theta, self.n_total = trainer, machine.theta, n_total
        #: whether another process had an event pending at the last segment
        self._shared = False
        n_r, n_a = p.n_r_units, p.n_a_units
        cap = self.LOG_CHUNK if log is not None else 0
        rows = max(cap, 1)
        self.lg_f = np.zeros((rows, 4))
        self.lg_i = np.zeros((rows, 4), dtype=np.int64)
        self.lg_rows = np.zeros((rows, n_r), dtype=np.bool_)
        self.lg_scores = np.zeros((rows, n_r))
        self.chg_ptr = np.zeros(rows + 1, dtype=np.int64)
        n_chg = 4 * n_r * n_a if log is not None else 0
        self.chg_r = np.zeros(n_chg, dtype=np.int64)
        self.chg_a = np.zeros(n_chg, dtype=np.int64)
        self.chg_v = np.zeros(n_chg)
        self.log_cap = cap

    def run(self, order: np.ndarray, pos: int, targets: np.ndarray,
            labels: np.ndarray) -> tuple[int, np.ndarray, float]:
        """Run ``order[pos:]`` as far as one segment goes; return ``(next position,
        [errors, mistaken], end of the segment on the clock)``."""
        machine = self.machine
        env, retina, stats = machine.env, machine.retina, self.stats
        now = float(env.now)
        horizon = env.peek()
        shared, self._shared = self._shared, horizon < np.inf
        if (shared or self._shared) and not (   # another process may change things
                machine.faults is None and machine.theta == self.theta
                and _whole_steps(machine, self.trainer, self.n_total)):
            return pos, np.zeros(2, dtype=np.int64), now
        if now > 0:   # t_end <= 2 now: t_end - now is exact, so now + it == t_end
            horizon = min(horizon, 2.0 * now)
        clock = np.array([now, retina._t], dtype=np.float64)
        if retina.level.dtype != np.float64 or not retina.level.flags.writeable:
            retina.level = np.array(retina.level, dtype=np.float64)
        light = np.array(retina.light, dtype=np.float64)
        counts = np.zeros(2, dtype=np.int64)
        end = run_segment(
            np.ascontiguousarray(order, dtype=np.int64), pos, horizon, clock, self.X,
            self.S, self.pat_ptr, self.pat_idx, self.own_ptr, self.own_idx, targets,
            labels, self.codes, self.near_ptr, self.near_idx,
            machine.runits.weights, retina.level, light, self.physics, self.forced,
            stats["mistakes"], stats["reinforcements"], stats["saturated"], counts,
            self.log_cap, self.lg_f, self.lg_i, self.lg_rows, self.lg_scores,
            self.chg_ptr, self.chg_r, self.chg_a, self.chg_v)
        if end > pos:
            retina.light, retina._t = light, float(clock[1])
            stats["shown"] += end - pos
            if self.log is not None:
                self._log(order[pos:end], targets, labels)
        return end, counts, float(clock[0])

    def _log(self, figures, targets, labels):
        """Log the figures the last segment ran: their columns, copied, as one block
        of the :class:`~markone.hardware.run.PresentationLog`."""
        n = len(figures)
        ptr = self.chg_ptr[:n + 1].copy()
        if self.figures is None or self.figures.targets is not targets:
            self.figures = _Figures(self.patterns, targets, labels)
        self.log.add_block(n, functools.partial(
            _presentations, figures.copy(), self.lg_f[:n].copy(), self.lg_i[:n].copy(),
            self.lg_rows[:n].copy(), self.lg_scores[:n].copy(), ptr,
            self.chg_r[:ptr[-1]].copy(), self.chg_a[:ptr[-1]].copy(),
            self.chg_v[:ptr[-1]].copy(), self.figures))


@njit(cache=True, nogil=True)
def _own(pat_ptr, pat_idx, mask, own_ptr, own_idx):
    """Fill the CSR ``own_ptr``/``own_idx``: row ``i * n_r + r`` lists figure ``i``'s
    active A-units in R-unit ``r``'s source set (``mask[r]``), ascending."""
    n_r = mask.shape[0]
    n = 0
    for i in range(pat_ptr.size - 1):
        for r in range(n_r):
            for p in range(pat_ptr[i], pat_ptr[i + 1]):
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
    largest = float(np.abs(W).max(initial=0.0))
    top = largest + abs(float(trainer.eta)) * n_total
    if stops:
        top = min(top, max([largest] + [abs(v) for v in stops]))
    return (all(v.is_integer() and not (v == 0 and np.signbit(v)) for v in stops)
            and np.array_equal(W, np.round(W)) and not np.signbit(W[W == 0]).any()
            and bool(((W >= lo) & (W <= hi)).all()) and top * p.n_a_units < 2.0 ** 52)


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
    responses and classes to list."""
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
