"""Lockstep: the machines of a fleet trained side by side, one numpy step per figure.

The machines of a fleet are independent: each learns alone, figure after figure, but
machines of the same physics on the same figures do the same arithmetic on different
numbers. :func:`train_side_by_side` runs such machines together, as the compiled
segment loop (:func:`markone.hardware.segments.run_segment`) would run each one
alone: a trial of every machine at once, each step a numpy operation over the
machine axis (the retina's lag, the R-units' sums, the trainer's decision, the
potentiometers' moves and end stops, the clock after each phase). A fleet of 200
machines of 500 presentations is then 500 steps of plain numpy, with no compiler and
no numba import, where the segment loop cost some 10 s of CPU to compile
(docs/start-up.md).

**Bit for bit.** It runs only what a segment runs (:meth:`Segments.for_session
<markone.hardware.segments.Segments>`: no faults, no photocell noise, no device
variation, whole-step increments and weights, sums below 2**52): the R-units' sums
are then exact integers in any order (a matrix product's), and every other value
(the lag, the waits, the clock) is the IEEE result of the segment loop's operations
in its order, ``math.exp`` and ``math.log`` taken per machine as the kernels take
them. A machine whose figure would leave a segment (a settled S-state that is not its
cached one) leaves the lockstep and is trained again on its own by the caller:
:func:`train_side_by_side` says which. ``tests/markone/hardware/test_lockstep.py``
checks fleets both ways, bit for bit.

**When.** A group of at least :data:`LOCKSTEP_MACHINES` machines of the same
parameters runs in lockstep (:func:`lockstep_groups`): a step's fixed cost, some
tens of numpy calls, is then shared by enough machines to cost less than a compiled
trial; fewer machines train one by one (plain while the process's allowance lasts,
:data:`markone.hardware.trial.PLAIN`, then compiled). The choice depends on the fleet
alone, never on the clock or the cache.

>>> from markone.datasets import letters
>>> from markone.hardware.params import MarkIParams
>>> images, labels = letters("ABC", per_class=2, seed=0)
>>> machines, runs = train_side_by_side(MarkIParams(), [0, 1], images, labels,
...                                     {"presentations": 60})
>>> from markone.hardware import MarkI
>>> alone = MarkI(seed=1).train(images, labels, presentations=60)
>>> bool((runs[1].weights == alone.weights).all()), runs[1].sim_time_s == alone.sim_time_s
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from markone.hardware.machine import MarkI, machine_seeds
from markone.hardware.params import MarkIParams
from markone.hardware.plugboard import wire_many
from markone.hardware.segments import _whole_steps
from markone.hardware.trial import _lagged, _stopped, physics_of, remains
from markone.online import signed_mistake

__all__ = ["LOCKSTEP_MACHINES", "LOCKSTEP_TRIALS", "LOCKSTEP_BATCH", "LOCKSTEP_BYTES", "lockstep_groups",
           "train_side_by_side"]

#: The fewest machines of one parameter set that train in lockstep: a lockstep trial
#: costs some 0.3 ms for the step (tens of numpy calls) plus about 10 ns per
#: weight, so from about this many machines on a machine's trial costs no more
#: than a compiled one, and no compiler is waited for.
LOCKSTEP_MACHINES = 16

#: The most trials (machines x presentations) of a fleet in lockstep: a lockstep
#: trial costs a few microseconds more than a compiled one, which over this many
#: trials is about what compiling the segment loop costs (some 6 to 10 s of CPU).
#: A larger fleet compiles (and with a warm cache runs faster).
LOCKSTEP_TRIALS = 2**19

#: The most bytes of A-unit patterns (machines x figures x A-units) a lockstep batch
#: holds: a fleet of many figures trains fewer machines at a time, or (fewer than
#: :data:`LOCKSTEP_MACHINES` a batch) one by one.
LOCKSTEP_BYTES = 2**26

#: The most machines in one lockstep batch (their arrays: some 50 KB a machine of
#: the default 8 x 512 weights, several times over in a step's temporaries).
LOCKSTEP_BATCH = 256


def lockstep_groups(specs: Sequence[Any], train: dict, trials: int = 0,
                    figures: int = 0) -> list[list[int]]:
    """The positions in ``specs`` (a fleet's :class:`~markone.hardware.fleet.MachineSpec`)
    of the machines to train in lockstep with ``train`` (the :meth:`MarkI.train`
    arguments) on ``figures`` figures, in groups of one parameter set, each of at
    least :data:`LOCKSTEP_MACHINES` and at most :data:`LOCKSTEP_BATCH` machines, and
    at most as many as hold their A-unit patterns in :data:`LOCKSTEP_BYTES`; none
    when the fleet's ``trials`` in all exceed :data:`LOCKSTEP_TRIALS` (compiling
    pays).

    >>> from markone.hardware.fleet import MachineSpec
    >>> specs = MachineSpec.grid(range(20))
    >>> [len(g) for g in lockstep_groups(specs, {"presentations": 100}, 2000)]
    [20]
    >>> lockstep_groups(specs[:3], {}), lockstep_groups(specs, {}, 10**7)
    ([], [])
    """
    if isinstance(train.get("seed"), np.random.Generator) or train.get("progress") \
            or trials > LOCKSTEP_TRIALS:
        return []   # one generator shared in turn / a bar per machine: one by one
    by_params: dict[MarkIParams, list[int]] = {}
    for i, spec in enumerate(specs):
        p = spec.params
        if spec.faults is None and p.photocell_noise_sd == 0 and not p.variation:
            by_params.setdefault(p, []).append(i)
    groups = []
    for params, members in by_params.items():
        most = min(LOCKSTEP_BATCH, LOCKSTEP_BYTES // max(figures * params.n_a_units, 1))
        if len(members) >= LOCKSTEP_MACHINES and most >= LOCKSTEP_MACHINES:
            n_batches = -(-len(members) // most)
            groups += [members[k::n_batches] for k in range(n_batches)]
    return groups


class _Batch(NamedTuple):
    """The machines of one lockstep batch as arrays over the machine axis: the
    weights ``W`` ``(M, n_r, n_a)``, the retina's ``level`` and ``light`` ``(M,
    n_s)``, ``clock`` = ``[now, the retina's last read]`` ``(M, 2)``, each machine's
    A-unit patterns ``A`` ``(M, n, n_a)`` and source sets ``mask`` (or None), the
    counts ``mistakes``, ``reinforcements``, ``saturated`` ``(M, n_r)`` and the
    figures ``shown`` ``(M,)``."""

    W: np.ndarray
    level: np.ndarray
    light: np.ndarray
    clock: np.ndarray
    A: np.ndarray
    mask: np.ndarray | None
    mistakes: np.ndarray
    reinforcements: np.ndarray
    saturated: np.ndarray
    shown: np.ndarray


def train_side_by_side(params: MarkIParams, seeds: Sequence[int], images: Any,
                       labels: Any, train: dict
                       ) -> tuple[list[MarkI], list[Any]]:
    """Train ``MarkI(params, seed).train(images, labels, **train)`` for every seed of
    ``seeds`` in lockstep; return the machines and their runs (None for a machine
    that left the lockstep: train it on its own).

    ``params`` must have no photocell noise and no device variation; ``train`` holds
    no ``log`` and no ``warm_start``. The runs are those each machine makes alone,
    bit for bit; the machines are left trained (weights, threshold, classes) for
    :meth:`MarkI.score`, their SimPy clocks unused."""
    seeds = [int(s) for s in seeds]
    wirings = wire_many(params, [machine_seeds(s)[0] for s in seeds])
    machines = [MarkI._wired(params, s, w) for s, w in zip(seeds, wirings)]
    sessions = [m._begin(images, labels, train.get("max_epochs"),
                         train.get("presentations"), train.get("rule"),
                         train.get("order", "given"), train.get("seed"), False, False)
                for m in machines]
    first = sessions[0]
    live = np.array([_whole_steps(m, s.trainer, s.n_total) and first.trainer.whole
                     for m, s in zip(machines, sessions)])
    batch = _new_batch(machines, first.X)
    left = _run_passes(batch, machines, sessions, live,
                       train.get("presentations") is None)
    runs = []
    for m, machine in enumerate(machines):
        if not left[m] and live[m]:
            runs.append(_finish(machine, sessions[m], batch, m))
        else:
            runs.append(None)
    return machines, runs


def _new_batch(machines, X):
    """The :class:`_Batch` of fresh ``machines`` on figures ``X``."""
    p = machines[0].params
    n_m, n_s = len(machines), X.shape[1]
    S = machines[0].retina.settled(X)
    A = np.array([[pat.a for pat in m._patterns.patterns(S, m.theta)]
                  for m in machines], dtype=bool)
    masks = [m.runits.mask for m in machines]
    counts = [np.zeros((n_m, p.n_r_units), dtype=np.int64) for _ in range(3)]
    return _Batch(np.zeros((n_m, p.n_r_units, p.n_a_units)), np.zeros((n_m, n_s)),
                  np.zeros((n_m, n_s)), np.zeros((n_m, 2)), A,
                  None if masks[0] is None else np.array(masks), *counts,
                  np.zeros(n_m, dtype=np.int64))


def _run_passes(batch, machines, sessions, live, stop_when_clean):
    """Run the sessions' passes side by side (:meth:`MarkI._session` for each
    machine); returns, per machine, whether it left the lockstep."""
    left = ~live
    active = live.copy()
    first = sessions[0]
    S = machines[0].retina.settled(first.X)
    targets = first.codes[first.label_idx]
    step = _Stepper(batch, machines[0], first.X, S, targets, first.label_idx,
                    first.trainer)
    while active.any():
        orders = {m: next(sessions[m].passes, None) for m in np.flatnonzero(active)}
        active &= np.array([orders.get(m) is not None for m in range(len(machines))])
        if not active.any():
            break
        errors, mistaken = step.one_pass(orders, active, left)
        active &= ~left
        for m in np.flatnonzero(active):
            stats = sessions[m].stats
            stats["errors_per_epoch"].append(int(errors[m]))
            stats["mistakes_per_epoch"].append(int(mistaken[m]))
            stats["end_s_per_epoch"].append(float(batch.clock[m, 0]))
            if stop_when_clean and mistaken[m] == 0:
                stats["converged"] = True
                active[m] = False
    return left


class _Stepper:
    """One lockstep trial of every machine of a batch at a time."""

    def __init__(self, batch, machine, X, S, targets, label_idx, trainer):
        self.b, self.decoder = batch, machine
        self.X, self.S, self.targets, self.label_idx = X, S, targets, label_idx
        record = physics_of(machine.params)[0]   # its fields as floats: read faster
        self.ph = {name: float(record[name]) for name in record.dtype.names}
        self.forced = trainer.rule == "forced"
        self.eta = float(trainer.eta)
        self.rows = np.arange(len(batch.W))

    def one_pass(self, orders, active, left):
        """Show every active machine its order of one pass (of one length, the
        fleet's); returns ``(errors, mistaken)`` per machine."""
        n_m = len(self.b.W)
        errors = np.zeros(n_m, dtype=np.int64)
        mistaken = np.zeros(n_m, dtype=np.int64)
        length = max(len(o) for o in orders.values())
        figs = np.zeros((n_m, length), dtype=np.int64)
        for m, order in orders.items():
            figs[m, :len(order)] = order
        for k in range(length):
            live = active & ~left
            wrong, err = self.trial(figs[:, k], live, left)
            mistaken += wrong
            errors += err
        return errors, mistaken

    def trial(self, figs, live, left):
        """One trial of each ``live`` machine, on its figure ``figs[m]``; a machine
        whose settled S-state is not its figure's cached one is marked in ``left``
        and changes nothing. Returns ``(mistaken, decoded wrongly)`` per machine."""
        b, ph = self.b, self.ph
        x = self.X[figs]
        t_settled, level, same = self.see(x, self.S[figs])
        left |= live & ~same
        live = live & same
        a = b.A[self.rows, figs]
        scores = np.matmul(b.W, a[:, :, None].astype(np.float64))[:, :, 0] + 0.0
        target = self.targets[figs]
        wrong = signed_mistake(target * scores) & live[:, None]
        reinforce = (wrong | self.forced) & live[:, None]
        end = self.motors(a, target, reinforce, t_settled + ph["logic_s"])
        b.clock[live, 0], b.clock[live, 1] = end[live], t_settled[live]
        b.level[live], b.light[live] = level[live], x[live]
        b.shown[...] += live
        return self.count(scores, wrong, figs)

    def see(self, x, s_state):
        """The retina's phase of every machine (segments' ``_see``): when it settles,
        its cells then and whether they read ``s_state``."""
        b, ph = self.b, self.ph
        now = b.clock[:, 0]
        instant = not (ph["rise_s"] > 0 or ph["decay_s"] > 0)
        if instant:
            wait = _settle_waits(np.zeros(len(x)), np.zeros(len(x)), ph)
            return now + wait, np.array(x, dtype=np.float64), np.ones(len(x), bool)
        v = _lag(b.level, b.light, now - b.clock[:, 1], ph)
        rise = np.fmax.reduce(x - v, axis=1, initial=-np.inf)
        fall = np.fmax.reduce(v - x, axis=1, initial=-np.inf)
        t_settled = now + _settle_waits(rise, fall, ph)
        level = _lag(v, x, t_settled - now, ph)
        same = ((level >= ph["s_threshold"]) == (s_state != 0)).all(axis=1)
        return t_settled, level, same

    def motors(self, a, target, reinforce, t_logic):
        """The reinforced rows' moves (segments' ``_motor_phase`` and ``_turn``),
        committed; returns when each machine's trial ends."""
        b, ph = self.b, self.ph
        if self.forced:
            b.reinforcements[...] += reinforce
        m, r = np.nonzero(reinforce)   # the few rows that move: only those computed
        units = a[m]
        if b.mask is not None:
            units &= b.mask[m, r]
        before = b.W[m, r]
        want = (self.eta * target[m, r])[:, None]
        wanted = before + want
        stop = _stopped(wanted, ph["lo"], ph["hi"])
        np.add.at(b.saturated, (m, r),
                  (units & (stop != wanted) & (want != 0)).sum(axis=1))
        steps = np.where(units, np.abs(stop - before), 0.0).max(axis=1, initial=0.0)
        b.W[m, r] = np.where(units & (stop != before), stop, before)
        longest = np.zeros(len(t_logic))
        np.maximum.at(longest, m, steps)
        if ph["motor_step_s"] > 0:
            return np.where(longest > 0, t_logic + longest * ph["motor_step_s"],
                            t_logic)
        return t_logic

    def count(self, scores, wrong, figs):
        """Count the mistakes (segments' ``_count``); returns ``(mistaken, decoded
        wrongly)`` per machine."""
        b = self.b
        mistaken = wrong.any(axis=1)
        b.mistakes[mistaken] += wrong[mistaken]
        if not self.forced:
            b.reinforcements[mistaken] += wrong[mistaken]
        err = np.zeros(len(figs), dtype=bool)
        if mistaken.any():
            m = np.flatnonzero(mistaken)
            err[m] = self.decoder._decode_scores(scores[m]) != self.label_idx[figs[m]]
        return mistaken, err


def _lag(level, light, seconds, ph):
    """Every machine's cells after ``seconds[m]`` of lag towards ``light``
    (``trial.look``/``trial.settle``, the factors by ``math.exp`` per machine as
    :func:`~markone.hardware.trial.remains` takes them)."""
    return _lagged(level, light, _remains(seconds, ph["rise_s"]),
                   _remains(seconds, ph["decay_s"]), False)


def _remains(seconds, tau):
    """:func:`~markone.hardware.trial.remains` of each of ``seconds`` (a column)."""
    if not tau > 0:
        return np.zeros((len(seconds), 1))
    return np.array([math.exp(v) for v in (-seconds / tau).tolist()])[:, None]


def _settle_waits(rise, fall, ph):
    """:func:`~markone.hardware.trial.settle_wait` of each machine's worst ``rise``
    and ``fall`` (``math.log`` per machine, as the kernel takes it)."""
    if not math.isnan(ph["exposure_s"]):
        return np.full(len(rise), ph["exposure_s"])
    wait = np.zeros(len(rise))
    for tau, gap in ((ph["rise_s"], rise), (ph["decay_s"], fall)):
        if tau > 0:
            far = np.flatnonzero(gap > ph["tolerance"])
            need = np.array([tau * math.log(g / ph["tolerance"]) for g in gap[far]])
            if far.size:
                wait[far] = np.where(need > wait[far], need, wait[far])
    return wait


def _finish(machine, session, batch, m):
    """Machine ``m``'s :class:`~markone.hardware.MachineRun`, its weights, retina and
    counts put back, as :meth:`MarkI.train` returns it."""
    machine.runits.weights[:] = batch.W[m]
    machine.retina.level = batch.level[m].copy()
    machine.retina.light = batch.light[m].copy()
    machine.retina._t = float(batch.clock[m, 1])
    stats = session.stats
    stats["mistakes"][:] = batch.mistakes[m]
    stats["reinforcements"][:] = batch.reinforcements[m]
    stats["saturated"][:] = batch.saturated[m]
    stats["shown"] = int(batch.shown[m])
    stats["converged"] = bool(stats["mistakes_per_epoch"]) and \
        stats["mistakes_per_epoch"][-1] == 0
    return machine._result(session.trainer, session.codes, session.w0,
                           float(batch.clock[m, 0] - session.start), stats, None, None)
