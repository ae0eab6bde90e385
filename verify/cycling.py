"""Cycling on non-separable data, in exact integer arithmetic.

On data that no hyperplane separates the perceptron never stops, but it does not wander
off either: the *perceptron cycling theorem* (Minsky & Papert 1969; Block & Levin 1970)
says its weight vectors stay bounded whatever the order of presentation. On integer
data a bounded set of integer vectors is finite, so

* under a **cyclic** order (the examples presented again and again in the given order)
  the trajectory is eventually periodic: :func:`check_cycling` finds the exact transient
  and period by cycle detection on the ``(w, position)`` states;
* over **all** orders the set of weight vectors reachable from zero by mistake-driven
  updates is finite: ``order="all"`` enumerates it (breadth first) and reports its size
  and the largest squared norm, a boundedness certificate over every order at once.

Everything runs on integers: rational inputs are scaled by the lcm of their
denominators (``scale`` in the report), which changes no decision of a zero-start
perceptron. Weights in the report are in those integer units (divide by ``scale`` for
the original ones; with integer data ``scale`` is 1).

The mistake rule is a choice here: ``rule="nonstrict"`` (markone's convention, a zero
score is a mistake, ``y w.x <= 0``) or ``rule="strict"`` (``y w.x < 0``). From the zero
start the strict rule never updates at all (every score is 0), so it "converges" at once
to the zero vector, which classifies nothing; the two rules differ on every data set.

Examples
--------
XOR in the -1/+1 encoding, with an intercept, cycles with period 4 updates (one pass)
right from the start, and the zero vector is on the cycle:

>>> import numpy as np
>>> X = np.array([[-1, -1], [-1, 1], [1, -1], [1, 1]]); y = np.array([-1, 1, 1, -1])
>>> r = check_cycling(X, y)
>>> r.converged, r.transient, r.period_updates, r.period_epochs
(False, 0, 4, 1)
>>> r.cycle
((0, 0, 0), (1, 1, -1), (0, 2, 0), (1, 1, 1))
>>> check_cycling(X, y, order="all").states      # every order at once
15
>>> check_cycling(X, y, rule="strict").converged  # strict rule: stuck at zero
True
"""

from __future__ import annotations

import bisect
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.html import ShownInJupyter, result_repr
from markone._internal.jit import compiled, kernel
from markone._internal.data import as_dataset
from markone._internal.exact import fits_int64, int_text
from markone._internal.io import plural
from markone._internal.progress import search_bar
from markone._internal.typing import ArrayLike, Rational
from markone import engine
from markone.online import is_mistake, signed_mistake
from markone._internal.validation import check_choice, check_int_at_least
from markone._internal.memory import check_memory, memory_limit
from verify._internal.budget import (BUDGET, MEMORY, TIMEOUT, deadline_after, expired,
                            stopped_phrase, to_raise)

__all__ = ["CyclingReport", "check_cycling", "integer_yx", "cyclic_bytes",
           "cycle_bound", "is_closed", "deadline_after", "stopped_phrase"]

_RULES = ("nonstrict", "strict")


@dataclass(frozen=True)
class CyclingReport(ShownInJupyter):
    """What :func:`check_cycling` found. Weights are in integer units (see ``scale``).

    Attributes
    ----------
    order, rule, intercept : str, str, bool
        The question asked.
    converged : bool or None
        ``order="cyclic"``: the run reached a pass without a mistake (a fixed point,
        period 0). ``order="all"``: whether some reachable vector makes no mistake.
    transient : int or None
        Updates made before the first state on the cycle (``order="cyclic"``).
    transient_epochs : int or None
        Complete passes made before the cycle is entered.
    period_updates, period_epochs : int or None
        Length of the cycle in updates and in passes over the data (0 when converged).
    cycle : tuple of tuple of int
        The weight vectors after each update on the cycle, in order (for
        ``order="all"``: empty).
    cycle_indices : tuple of int
        The example index of each update on the cycle: an update on
        ``cycle_indices[j]`` takes ``cycle[j]`` to ``cycle[j + 1]`` (cyclically).
    states : int
        Distinct weight vectors seen (cyclic: update states on the trajectory;
        all: reachable vectors, zero included).
    max_norm_sq : int
        Largest squared norm over the trajectory / the reachable set.
    max_norm_state : tuple of int
        A vector attaining ``max_norm_sq``.
    complete : bool
        False when ``budget``, ``timeout_s`` or ``max_memory_gb`` stopped the search:
        then the numbers describe what was found so far.
    scale : Fraction
        The integer weights are ``scale`` times the weights on the original data.
    message : str
        One line saying what was found.
    stopped_by : str
        What stopped an incomplete search: ``"budget"``, ``"timeout"`` or
        ``"memory"`` (``""`` when complete; see :data:`verify._internal.budget.STOPPED_BY`).
    transient_presentations : int or None
        ``order="cyclic"`` with a cycle: the presentations made before the cycle is
        entered (the cycle starts at example ``transient_presentations % n``); what a
        cycling certificate states (:func:`verify.certificate.cycle_document`).
    """

    __repr__ = result_repr  # numbers of any size

    order: str
    rule: str
    intercept: bool
    converged: bool | None
    transient: int | None
    transient_epochs: int | None
    period_updates: int | None
    period_epochs: int | None
    cycle: tuple = field(repr=False)
    cycle_indices: tuple = field(repr=False)
    states: int
    max_norm_sq: int
    max_norm_state: tuple = field(repr=False)
    complete: bool
    scale: Fraction
    message: str
    stopped_by: str = field(default="", repr=False)
    transient_presentations: int | None = field(default=None, repr=False)


def integer_yx(X: ArrayLike, y: ArrayLike, *, intercept: bool = True,
               intercept_scale: Rational = 1) -> tuple[np.ndarray, Fraction]:
    """Return ``(YX, scale)``: the rows ``y_i * [x_i, c]`` as exact integers.

    ``X`` may hold ints, Fractions, rational strings or floats (taken as the exact
    binary fractions they are), or be a checked :class:`markone._internal.data.Dataset`
    (then ``y=None``); labels may be any two values (mapped to -1/+1, sorted
    classes). ``YX`` is int64 when it fits, else an object array of Python ints.

    >>> YX, s = integer_yx([[1, "1/2"]], [1], intercept=True)
    >>> YX.tolist(), s
    ([[2, 1, 2]], Fraction(2, 1))
    """
    return as_dataset(X, y).signed_integers(intercept=intercept,
                                            intercept_scale=intercept_scale)


def _mistakes(signed_scores, rule):
    """The core's mistake rule on signed scores ``y w.x`` (strict or not)."""
    return is_mistake(signed_scores, 1, strict=rule == "strict")


def _widen(YX, W, amax=None):
    """Switch to Python ints when int64 dot products could overflow: those of the
    rows of ``YX`` with ``W`` and with ``W`` plus one more row (``amax``: the largest
    ``|YX|``, when known)."""
    if YX.dtype == object:
        return YX, W
    amax = int(np.abs(YX).max(initial=0)) if amax is None else amax
    bound = amax * (int(np.abs(W).max(initial=0)) + 1)
    if fits_int64(np.array([bound * YX.shape[1]], dtype=object), limit=2**62):
        return YX, W
    return YX.astype(object), W.astype(object)


def check_cycling(X: ArrayLike, y: ArrayLike, *, intercept: bool = True,
                  intercept_scale: Rational = 1, order: str = "cyclic",
                  rule: str = "nonstrict", budget: int = 1_000_000,
                  timeout_s: float | None = None, progress: bool | None = None,
                  max_memory_gb: float | None = None) -> CyclingReport:
    """Find the exact cycle of the perceptron, or every weight vector it can reach.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Integers, Fractions, rational strings or floats (all treated exactly).
    y : array-like of shape (n_samples,)
        Two classes (any values; sorted, the first is -1).
    intercept : bool, default True
        Append the constant ``intercept_scale`` to every input.
    intercept_scale : int, Fraction or str, default 1
    order : {"cyclic", "all"}, default "cyclic"
        ``"cyclic"``: the examples in the given order, pass after pass, until a state
        ``(w, position)`` repeats. ``"all"``: breadth-first search over all weight
        vectors reachable from zero by updates on misclassified examples, in any order.
    rule : {"nonstrict", "strict"}, default "nonstrict"
        Mistake when ``y w.x <= 0`` (markone's rule) or when ``y w.x < 0``.
    budget : int, default 1_000_000
        At most this many updates (cyclic) or states (all), exactly; past it the
        report has ``complete=False`` and what was found so far. With
        ``order="all"`` the budget also bounds the memory: what ``budget`` states of
        this width can need is estimated first, and refused past ``max_memory_gb``.
    timeout_s : float, optional
        Stop searching after about this many seconds (``complete=False``,
        ``stopped_by="timeout"``, and what was found so far). Without it only
        ``budget`` limits the search, so the report does not depend on the clock.
    progress : bool, optional
        Show a progress bar of the updates (cyclic) or states (all) found (tqdm, on
        stderr; ``None``: only on a terminal, once the search takes more than half a
        second), then, cyclic under markone's rule, that the presentations are run
        again on the core (about as long again). It changes no result.
    max_memory_gb : float, optional
        The memory the search may keep (default
        :data:`markone._internal.memory.DEFAULT_MAX_MEMORY_GB`, 4 GB). ``order="all"``: a search
        whose ``budget`` states could need more is refused before allocating any of
        it. ``order="cyclic"``: the states on the trajectory (their entries, as many
        bits as they hold) and the presentations that the core re-runs are counted as
        they are kept (:func:`cyclic_bytes`), and the search stops
        (``stopped_by="memory"``) before one more state could take them past it. The
        count is of what is kept, not a measurement, so it too gives the same answer
        on every machine.

    Returns
    -------
    CyclingReport

    Raises
    ------
    ValueError
        Bad shapes or labels, non-numeric entries, an unknown ``order`` or ``rule``;
        :class:`verify.errors.MemoryLimitError` (a ``ValueError``) when
        ``order="all"`` could need more than ``max_memory_gb``.
    RuntimeError
        If re-running the cyclic run through :func:`markone.train` (exact, the same
        stream) gives other updates or weights: a bug, reported as such.

    Notes
    -----
    Under ``rule="nonstrict"`` the cyclic run (transient and period) is re-run through
    the public core, ``markone.train(exact=True, order=stream, max_epochs=1,
    record=True)``, and every update and weight vector must agree: the cycle reported
    is the one the core's own perceptron goes through. (The strict rule is not the
    core's, so it is not re-run.)

    Examples
    --------
    The 0/1 encoding of XOR cycles too (every pass: four mistakes, back to zero):

    >>> X = [[0, 0], [0, 1], [1, 0], [1, 1]]; y = [-1, 1, 1, -1]
    >>> r = check_cycling(X, y)
    >>> r.transient, r.period_updates, r.period_epochs, r.max_norm_sq
    (0, 4, 1, 3)
    """
    check_choice(order, "order", ("cyclic", "all"))
    check_choice(rule, "rule", _RULES)
    budget = check_int_at_least(budget, "budget", 1)
    deadline = deadline_after(timeout_s)
    data = as_dataset(X, y)
    YX, scale = integer_yx(data, None, intercept=intercept, intercept_scale=intercept_scale)
    if order == "cyclic":
        with search_bar(budget, "check_cycling: updates", progress,
                        unit=" updates") as bar:
            report, stream, trajectory = _cyclic(YX, scale, rule, budget, intercept,
                                                 deadline, timeout_s, bar, max_memory_gb)
            if rule == "nonstrict":   # as long again as the search: the bar says so
                bar.set_description(f"check_cycling: re-run of {stream:,} presentations "
                                    "on markone.train")
                _rerun_on_core(data, intercept, intercept_scale, stream, trajectory, scale)
        return report
    with search_bar(budget, "check_cycling: reachable states", progress,
                    unit=" states") as bar:
        reach = reachable_states(YX, rule=rule, budget=budget, deadline=deadline,
                                 bar=bar, max_memory_gb=max_memory_gb)
    norms = _norms_sq(reach.states)
    k = int(np.argmax(norms))
    consistent = reach.clean_states > 0
    why = stopped_phrase(reach.stopped_by, budget, timeout_s, "states")
    msg = (f"{len(reach.states)} weight vectors reachable from zero in any order"
           f"{'' if reach.complete else f' found before {why}'}"
           f"; largest squared norm {int_text(norms[k])}"
           f"{'; some of them classify every example correctly' if consistent else ''}"
           f"{'' if reach.complete else f'; raise {to_raise(reach.stopped_by)} to search further'}.")
    return CyclingReport(
        order="all", rule=rule, intercept=bool(intercept), converged=bool(consistent),
        transient=None, transient_epochs=None, period_updates=None, period_epochs=None,
        cycle=(), cycle_indices=(), states=len(reach.states),
        max_norm_sq=int(norms[k]), max_norm_state=_as_tuple(reach.states[k]),
        complete=reach.complete, scale=scale, message=msg, stopped_by=reach.stopped_by,
    )


def cycle_bound(X: ArrayLike, y: ArrayLike, *, intercept: bool = True,
                intercept_scale: Rational = 1, budget: int = 1_000_000,
                timeout_s: float | None = None,
                max_memory_gb: float | None = None) -> int | None:
    """The cycling theorem's bound on a cyclic run, in passes: ``transient_epochs +
    period_epochs`` of :func:`check_cycling` (markone's rule, any order of the rows)
    is at most this number, or None when no bound was found.

    It is the number of weight vectors reachable from zero in any order
    (:func:`reachable_states`), once that set is re-checked closed under the updates
    (:func:`is_closed`): for a closed set ``S`` holding zero, the Coq theorem
    ``cycling_closed`` (``verify/coq/Cycling.v``) proves that the weights at the starts
    of two passes ``i < j <= |S|`` coincide and every later pass repeats, and
    ``closed_bounded`` that every run, in every order, stays in ``S``. The search takes
    ``budget``, ``timeout_s`` and ``max_memory_gb`` as :func:`check_cycling` does with
    ``order="all"``; when the budget or the timeout stops it, the set found is not
    known to be closed and the answer is None.

    >>> X = [[-1, -1], [-1, 1], [1, -1], [1, 1]]; y = [-1, 1, 1, -1]
    >>> r = check_cycling(X, y)
    >>> r.transient_epochs + r.period_epochs, cycle_bound(X, y)
    (1, 15)
    >>> cycle_bound(X, y, budget=10) is None
    True
    """
    budget = check_int_at_least(budget, "budget", 1)
    YX, _ = integer_yx(X, y, intercept=intercept, intercept_scale=intercept_scale)
    reach = reachable_states(YX, budget=budget, deadline=deadline_after(timeout_s),
                             max_memory_gb=max_memory_gb)
    if not reach.complete:
        return None
    if not is_closed(YX, reach.states):
        raise RuntimeError(f"BUG: the {len(reach.states)} weight vectors reachable from "
                           "zero are not closed under the updates; please report it "
                           "with the data.")
    return len(reach.states)


def is_closed(YX: ArrayLike, states: ArrayLike) -> bool:
    """Whether ``states`` is closed under markone's updates on the rows ``YX``
    (``y_i [x_i, c]``, integers): each ``w`` of it that errs on a row ``z``
    (``w.z <= 0``) has ``w + z`` in it too. This is the hypothesis ``closed Z S`` of the
    Coq theorems in ``verify/coq/Cycling.v``, checked in exact integer arithmetic.

    >>> YX = [[1, 0], [-1, 0]]
    >>> is_closed(YX, [[0, 0], [1, 0], [-1, 0]])     # 0 +- z, and back to 0
    True
    >>> is_closed(YX, [[0, 0], [1, 0]])              # 0 errs on (-1, 0) too
    False
    """
    YX, W = _integer_matrix(YX, "YX"), _integer_matrix(states, "states")
    if W.shape[1] != YX.shape[1]:
        raise ValueError(f"states has {W.shape[1]} columns and YX {YX.shape[1]}: give "
                         "weight vectors as wide as the rows.")
    if W.size == 0:
        return True
    worst = (int(np.abs(YX).max(initial=0)) + 1) * (int(np.abs(W).max(initial=0)) + 1)
    wide = YX.dtype == object or W.dtype == object or worst * (YX.shape[1] + 1) >= 2**62
    YX, W = (YX.astype(object), W.astype(object)) if wide else (YX.astype(np.int64),
                                                              W.astype(np.int64))
    keys = {_key(w) for w in W}
    chunk = max(1, _EXPAND_BYTES // (8 * len(YX) * (YX.shape[1] + 1)))
    for lo in range(0, len(W), chunk):
        part = W[lo:lo + chunk]
        r, c = np.nonzero(_mistakes(part @ YX.T, "nonstrict"))
        if any(_key(v) not in keys for v in part[r] + YX[c]):
            return False
    return True


def _integer_matrix(A, name):
    """``A`` as a 2-D integer array (int64 or Python ints), or a ValueError naming it."""
    arr = np.asarray(A)
    exact = arr.dtype.kind in "iu" or (arr.dtype == object and all(
        type(v) is int or isinstance(v, np.integer) for v in arr.flat))
    if arr.ndim != 2 or not exact:
        raise ValueError(f"{name} must be a 2-D array of integers (got {arr.ndim} "
                         f"dimensions of {arr.dtype}); scale rational data with "
                         "integer_yx first.")
    return arr


def _as_tuple(w):
    return tuple(int(v) for v in w)


def _norms_sq(W):
    """Exact squared norms of the rows of ``W`` (Python ints when int64 could
    overflow)."""
    wmax = int(np.abs(W).max(initial=0)) if W.dtype != object else None
    if wmax is not None and wmax * wmax * max(W.shape[1], 1) < 2**62:
        return np.einsum("ij,ij->i", W, W)
    return np.array([sum(v * v for v in w) for w in W.tolist()], dtype=object)


class _CyclicWalk:
    """The states of the cyclic presentation order, one per update: ``seen`` maps
    ``(w, next position)`` to ``(update, step)``, and the weights, positions, times and
    squared norms after each update are kept for the report."""

    def __init__(self, YX, max_memory_gb):
        self.YX = YX
        self.n, self.d = YX.shape
        self.amax = int(np.abs(YX).max(initial=0))
        self.limit, self.bits = memory_limit(max_memory_gb), 0
        self.w = np.zeros(self.d, dtype=YX.dtype)
        self.seen = {(_key(self.w), 0): (0, 0)}
        self.weights, self.positions, self.times, self.norms = [self.w.copy()], [-1], [0], [0]
        self.step = self.updates = 0
        self.first = self.first_step = 0

    def mistake(self, i, rule):
        """Whether presenting row ``i`` now is a mistake under ``rule``: the rule on
        the signed score itself (the rows are signed), a scalar, without the array
        forms of :func:`_mistakes` (half the cost of a presentation, issue 37)."""
        return signed_mistake(np.dot(self.YX[i], self.w), rule == "strict")

    def update(self, i, budget):
        """Add row ``i`` to ``w``; what stops the walk: ``"cycle"`` (a state seen
        before), ``BUDGET``, ``MEMORY``, or ``""`` (go on)."""
        self.w = self.w + self.YX[i]
        if self.YX.dtype != object:  # the next scores must fit int64: else Python ints
            self.YX, self.w = _widen(self.YX, self.w, self.amax)
            if self.YX.dtype == object:  # the states seen, keyed as the new ones
                self.seen = {(_widened_key(k), p): v for (k, p), v in self.seen.items()}
        self.updates += 1
        self.weights.append(self.w)
        self.positions.append(i)
        self.times.append(self.step)
        self.norms.append(sum(v * v for v in self.w.tolist()))  # exact: Python ints
        key = (_key(self.w), self.step % self.n)
        if key in self.seen:
            self.first, self.first_step = self.seen[key]
            return "cycle"
        self.seen[key] = (self.updates, self.step)
        if self.updates >= budget:
            return BUDGET
        self.bits = max(self.bits, (self.norms[-1].bit_length() + 1) // 2)   # >= any entry
        if cyclic_bytes(self.d, self.updates + 2, self.step + self.n, self.bits) > \
                self.limit:  # one more state
            return MEMORY
        return ""


def _cyclic(YX, scale, rule, budget, intercept, deadline=None, timeout_s=None,
            bar=None, max_memory_gb=None):
    walk = _CyclicWalk(YX, max_memory_gb)
    n = walk.n
    since_update = 0
    converged = False
    complete, stopped_by, shown = True, "", 0
    while True:
        i = walk.step % n
        walk.step += 1
        if walk.step % 4096 == 0:  # the bar and the clock, now and then
            shown = _advance(bar, walk.updates, shown)
            if expired(deadline):
                complete, stopped_by = False, TIMEOUT
                walk.step -= 1  # presentation `step` was not made
                break
        if walk.mistake(i, rule):
            since_update = 0
            stop = walk.update(i, budget)
            if stop:
                if stop != "cycle":
                    complete, stopped_by = False, stop
                break
        else:
            since_update += 1
            if since_update >= n:
                converged = True
                break
    _advance(bar, walk.updates, shown)
    common = dict(order="cyclic", rule=rule, intercept=bool(intercept), scale=scale,
                  stopped_by=stopped_by)
    if converged or not complete:
        msg = _no_cycle_message(walk.updates, rule, converged, stopped_by, budget,
                                timeout_s, max_memory_gb)
        return _cyclic_open_report(walk, converged, complete, msg, common)
    return _cyclic_cycle_report(walk, common)


def _advance(bar, updates, shown):
    """Move ``bar`` (if any) to ``updates``; returns the count shown."""
    if bar is not None:
        bar.update(updates - shown)
    return updates


def _no_cycle_message(updates, rule, converged, stopped_by, budget, timeout_s,
                      max_memory_gb):
    """The message of a cyclic walk that converged or was cut short."""
    if converged:
        return (f"converged after {plural(updates, 'update')} (a pass without mistakes)"
                + ("; under the strict rule the zero start never updates (every score "
                   "is 0, not a mistake)" if updates == 0 and rule == "strict" else ""))
    return (f"no cycle found in {plural(updates, 'update')}: "
            + stopped_phrase(stopped_by, budget, timeout_s, "updates",
                             max_memory_gb=max_memory_gb)
            + f"; raise {to_raise(stopped_by)} to search further")


def _largest(walk, common):
    """``common`` with the states and the largest squared norm; its index."""
    k = int(np.argmax(walk.norms))
    return k, dict(common, states=len(walk.seen), max_norm_sq=int(walk.norms[k]),
                   max_norm_state=_as_tuple(walk.weights[k]))


def _cyclic_open_report(walk, converged, complete, msg, common):
    """The report of a cyclic walk that converged or was cut short."""
    n, step = walk.n, walk.step
    _, common = _largest(walk, common)
    report = CyclingReport(
        converged=converged, transient=walk.updates if converged else None,
        transient_epochs=(step - n - 1) // n + 1 if converged else None,
        period_updates=0 if converged else None,
        period_epochs=0 if converged else None,
        cycle=(_as_tuple(walk.w),) if converged else (), cycle_indices=(),
        complete=complete, message=msg, **common)
    return report, step, (walk.positions, walk.weights)


def _cyclic_cycle_report(walk, common):
    """The report of a cyclic walk that came back to a state: the cycle."""
    n, step, weights = walk.n, walk.step, walk.weights
    k, common = _largest(walk, common)
    period = walk.updates - walk.first
    period_steps = step - walk.first_step
    transient, entered = _cycle_entry(weights, walk.times, walk.first, walk.updates,
                                      period_steps)
    cycle = tuple(_as_tuple(v) for v in weights[transient: transient + period])
    idx = tuple(walk.positions[transient + 1: transient + period + 1])
    msg = (f"cycles: after a transient of {plural(transient, 'update')}, a period of "
           f"{plural(period, 'update')} ({plural(period_steps // n, 'pass', 'passes')}); "
           f"largest squared norm {int_text(walk.norms[k])}.")
    report = CyclingReport(
        converged=False, transient=transient, transient_epochs=entered // n,
        period_updates=period, period_epochs=period_steps // n, cycle=cycle,
        cycle_indices=idx, complete=True, message=msg, transient_presentations=entered,
        **common)
    return report, step, (walk.positions, walk.weights)


#: What :func:`cyclic_bytes` counts (bytes, from above; ``tests/verify/
#: test_memory_budgets.py`` measures the search against it): per state, the search's
#: key, weight vector, norm, position and time and the core's record of it, with
#: ``_STATE_ENTRY`` bytes per entry besides ``_ENTRY_COPIES`` copies of the integer
#: itself (as a Python int: the re-run's Fractions, the search's own); per
#: presentation, the re-run's stream and its record (index, run, and a row of
#: ``d`` integers).
_STATE_BYTES, _STATE_ENTRY, _ENTRY_COPIES = 400, 24, 4
_STEP_BYTES, _STEP_ENTRY = 40, 8


def cyclic_bytes(d: int, states: int, presentations: int, bits: int = 0) -> int:
    """The memory :func:`check_cycling` (``order="cyclic"``) keeps, from above, for
    ``states`` weight vectors of ``d`` integers of at most ``bits`` bits and
    ``presentations`` presentations: the trajectory it searches for a repeat and the
    core's re-run of it (see the Notes of :func:`check_cycling`). The search stops
    before this passes ``max_memory_gb``.

    >>> cyclic_bytes(3, 10**6, 4 * 10**6)      # XOR's width: about 1.2 GB
    1160000000
    >>> cyclic_bytes(3, 10**6, 4 * 10**6, bits=3000)   # entries of 3,000 bits: about 6 GB
    5960000000
    """
    int_bytes = 32 + 4 * (bits // 30 + 1)   # a Python int of ``bits`` bits
    per_state = _STATE_BYTES + d * (_STATE_ENTRY + _ENTRY_COPIES * int_bytes)
    return states * per_state + presentations * (_STEP_BYTES + _STEP_ENTRY * d)


def _cycle_entry(weights, times, first, last, period_steps):
    """Where the run of ``(w, position)`` states enters its cycle: ``(updates made
    before it, presentations made before it)``.

    The search keys the state after each update and finds update ``last`` leading
    back to the state after update ``first``; ``times[k]`` is the number of
    presentations made when update ``k`` was done. The cycle may be entered a little
    earlier, while ``w`` is still ``weights[first - 1]`` (never before: the state after
    update ``first - 1`` would then have come back first). A state is on the cycle
    exactly when it comes back ``period_steps`` presentations later, so the states of
    that stretch are tried from its end backwards.
    """
    if first == 0:
        return 0, 0
    entered = times[first]
    while entered > times[first - 1]:
        later = entered - 1 + period_steps   # the state one presentation earlier, again
        k = bisect.bisect_right(times, later) - 1   # the last update made by then
        if not np.array_equal(weights[k], weights[first - 1]):
            break
        entered -= 1
    return (first - 1 if entered < times[first] else first), entered


def _rerun_on_core(data, intercept, intercept_scale, steps, trajectory, scale):
    """Re-run the first ``steps`` cyclic presentations with :func:`markone.train`
    (exact) and raise if its updates or weights differ from ``trajectory``."""
    positions, weights = trajectory
    stream = np.arange(steps, dtype=np.int64)
    np.remainder(stream, data.shape[0], out=stream)   # cyclic: one array, in place
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = engine.train(data, None, intercept=intercept, intercept_scale=intercept_scale,
                    exact=True, order=stream, max_epochs=1, record=True)
    del stream
    ours = (tuple(int(v) for v in w) for w in weights[1:])
    core = (tuple(v * scale for v in w) for w in res.weights_after)
    k = next((j for j, (a, b) in enumerate(zip(core, ours)) if a != b), None)
    if list(res.mistake_indices) != positions[1:] or k is not None:
        k = min(len(res.mistake_indices), len(positions) - 1) if k is None else k
        raise RuntimeError(
            f"BUG: check_cycling's run and markone.train's re-run of the same {steps} "
            f"presentations differ at update {k} ({len(positions) - 1} updates here, "
            f"{res.mistakes} in the core); please report it with the data.")


@dataclass(frozen=True)
class Reachable:
    """The mistake graph reachable from zero (see :func:`reachable_states`).

    ``states[0]`` is the zero vector; edge ``k`` goes from ``states[src[k]]`` to
    ``states[dst[k]]`` by an update on example ``example[k]``. ``stopped_by`` is
    ``"budget"`` or ``"timeout"`` when the search did not finish (``complete`` is
    then False), else ``""``.
    """

    states: np.ndarray = field(repr=False)
    src: np.ndarray = field(repr=False)
    dst: np.ndarray = field(repr=False)
    example: np.ndarray = field(repr=False)
    clean_states: int
    complete: bool
    stopped_by: str = ""


def reachable_states(YX: ArrayLike, *, rule: str = "nonstrict", budget: int = 1_000_000,
                     edges: bool = False, deadline: float | None = None,
                     bar: Any = None, max_memory_gb: float | None = None) -> Reachable:
    """Breadth-first search of every weight vector reachable from zero.

    A vector ``w`` has a successor ``w + YX[i]`` for every row with
    ``YX[i] . w <= 0`` (``< 0`` under the strict rule). The frontier is expanded with
    numpy a bounded slice at a time; vectors are deduplicated exactly (as int64 bytes
    or tuples of Python ints). At most ``budget`` states are kept: the search stops
    when one more would be found (``stopped_by="budget"``), or once
    :func:`time.perf_counter` passes ``deadline``; ``bar`` (a tqdm bar) counts the
    states found. Before anything is allocated, the memory ``budget`` states (and
    their edges) can need is estimated and refused past ``max_memory_gb``
    (:class:`verify.errors.MemoryLimitError`).

    >>> YX = np.array([[1, 0], [0, 1]])
    >>> r = reachable_states(YX, edges=True)
    >>> r.states.tolist(), r.complete
    ([[0, 0], [1, 0], [0, 1], [1, 1]], True)
    >>> reachable_states(YX, budget=3).states.tolist()      # the budget, exactly
    [[0, 0], [1, 0], [0, 1]]
    """
    YX = np.asarray(YX)
    check_memory(search_bytes(YX, budget, edges), max_memory_gb,
                 f"a search of up to budget={budget} weight vectors of "
                 f"{YX.shape[1]} integers", "lower budget")
    if budget > _PLAIN_STATES and _packing_bits(YX):
        first = _reachable_numpy(YX, rule, _PLAIN_STATES, edges, deadline, bar)
        if first.stopped_by != BUDGET:   # found every state (or out of time)
            return first
        fast = _reachable_compiled(YX, rule, budget, edges, deadline, bar)
        if fast is not None:
            return fast
    return _reachable_numpy(YX, rule, budget, edges, deadline, bar)


#: A search keeps to numpy (:func:`_reachable_numpy`, some 15 microseconds a state)
#: while it finds at most this many states; a larger one starts again compiled
#: (:func:`_reachable_compiled`, the same result). The choice depends on the work
#: alone: a search of XOR (15 states) or of the conformance suite's lattice (546)
#: never waits for numba's import and compiler (seconds), and the numpy part of a
#: large search costs at most about a second.
_PLAIN_STATES = 1 << 16


def _reachable_numpy(YX, rule, budget, edges, deadline, bar):
    """:func:`reachable_states` by numpy, frontier after frontier (any integers)."""
    n, d = YX.shape
    W = np.zeros((1, d), dtype=YX.dtype)
    index = {_key(W[0]): 0}
    blocks = [W]
    src: list = []
    dst: list = []
    ex: list = []
    frontier_ids = np.array([0])
    frontier = W
    clean = 0
    stopped_by = ""
    if bar is not None:
        bar.update(1)
    while len(frontier) and not stopped_by:
        YX, frontier, index = _widened_frontier(YX, frontier, index)
        new_parts: list = []   # the new vectors of each slice, copied out of it
        found = 0
        chunk = max(1, _EXPAND_BYTES // (8 * n * (d + 1)))
        for lo in range(0, len(frontier), chunk):
            part = frontier[lo:lo + chunk]
            M = _mistakes(part @ YX.T, rule)
            r, c = np.nonzero(M)
            children = part[r] + YX[c]
            child_ids, fresh, done = _new_children(children, index, budget)
            if done < len(children):
                stopped_by = BUDGET
            new_parts.append(children[fresh])
            found += len(fresh)
            expanded = len(part) if done == len(children) else int(r[done])
            clean += int((~M[:expanded].any(axis=1)).sum())
            if edges:
                src.append(frontier_ids[lo + r[:done]])
                dst.append(child_ids[:done])
                ex.append(c[:done])
            if stopped_by:
                break
        if not found:
            break
        frontier_ids = np.arange(len(index) - found, len(index))
        frontier = np.concatenate(new_parts)
        blocks.append(frontier)
        if bar is not None:
            bar.update(len(index) - bar.n)
        if not stopped_by and expired(deadline):
            stopped_by = TIMEOUT
    del index   # the keys go before the states are gathered in one array
    states = np.concatenate([b.astype(YX.dtype, copy=False) for b in blocks])
    cat = (lambda parts: np.concatenate(parts) if parts else np.empty(0, np.int64))
    return Reachable(states=states, src=cat(src), dst=cat(dst), example=cat(ex),
                     clean_states=clean, complete=not stopped_by, stopped_by=stopped_by)


def _widened_frontier(YX, frontier, index):
    """``(YX, frontier, index)`` in Python integers once int64 could overflow (the
    vectors known keyed as the new ones), else as they are."""
    narrow = YX.dtype != object
    YX, frontier = _widen(YX, frontier)
    if narrow and YX.dtype == object:
        index = {_widened_key(k): j for k, j in index.items()}
    return YX, frontier, index


def _new_children(children, index, budget):
    """``(ids, fresh, done)``: the ids of ``children`` in ``index`` (new vectors
    added), the positions of the new ones, and how many were registered: fewer than
    all when one more state would break ``budget``."""
    child_ids = np.empty(len(children), dtype=np.int64)
    fresh = []
    for k, row in enumerate(children):
        key = _key(row)
        j = index.get(key)
        if j is None:
            if len(index) == budget:   # one more would break the budget
                return child_ids, fresh, k
            j = index[key] = len(index)
            fresh.append(k)
        child_ids[k] = j
    return child_ids, fresh, len(children)


#: Bytes of scores and children made at once when a frontier is expanded (the
#: frontier is cut into slices this size).
_EXPAND_BYTES = 1 << 25


def search_bytes(YX: np.ndarray, budget: int, edges: bool = False) -> int:
    """An estimate of the most memory :func:`reachable_states` can need for
    ``budget`` states of ``YX``'s width: every state kept twice (the array, and the
    key that deduplicates it, with a dict's overhead), up to one edge per example and
    state, and the slices of the frontier being expanded. Python ints (entries beyond
    int64) cost about four times more.

    >>> search_bytes(np.zeros((4, 3), dtype=np.int64), 10**6)    # XOR: ~0.6 GB
    572663296
    """
    n, d = YX.shape
    per_state = 24 * d + 400 if YX.dtype != object else 100 * d + 600
    if edges:
        per_state += 48 * n
    return int(budget) * per_state + 3 * _EXPAND_BYTES


def _key(row):
    """The exact dedup key of a weight vector: its int64 bytes, or (once the search
    has switched to Python ints) the tuple of its entries."""
    return row.tobytes() if row.dtype != object else tuple(int(v) for v in row)


def _widened_key(key):
    """The key of the same vector after the switch to Python ints (without it a vector
    seen before the switch would be taken for a new one after it)."""
    return tuple(int(v) for v in np.frombuffer(key, dtype=np.int64))


#: Vectors expanded per call of the compiled search (between two looks at the clock
#: and the bar).
_CHUNK = 1 << 14

#: The first vectors the packed search expands run as plain Python (numba is not
#: imported, nothing is compiled): XOR's 15 reachable vectors take a millisecond that
#: way, and seconds of compiling the other. Further vectors are expanded compiled.
_PLAIN_VECTORS = 1 << 8


def _reachable_compiled(YX, rule, budget, edges, deadline=None, bar=None):
    """The same search compiled, with each vector packed into one int64 key.

    Returns None when the coordinates may not fit the packing (then the caller runs
    the general search): each coordinate gets ``63 // d`` bits. The compiled search
    expands :data:`_CHUNK` vectors per call and resumes where it stopped, so the
    deadline and the bar are looked at between calls (the result does not depend on
    the chunking).
    """
    bits = _packing_bits(YX)
    if not bits:
        return None
    d = YX.shape[1]
    YX = np.ascontiguousarray(YX)
    off = 1 << (bits - 1)
    key0 = 0
    for _ in range(d):
        key0 = (key0 << bits) + off
    index = {np.int64(key0): 0}
    state = (np.zeros((min(1024, budget), d), np.int64), np.empty(1024, np.int64),
             np.empty(1024, np.int64), np.empty(1024, np.int64))
    count, ne, head, clean = 1, 0, 0, 0
    stopped_by = ""
    while True:
        if head < _PLAIN_VECTORS:   # the first vectors: plain Python
            search, chunk = _bfs_packed, min(_CHUNK, _PLAIN_VECTORS - head)
        else:
            search, chunk = compiled(_bfs_packed), _CHUNK
            index = _typed_index(index)
        (*state, count, ne, head, clean, over, ok) = search(
            YX, rule == "strict", int(budget), bits, bool(edges), index, *state,
            count, ne, head, clean, chunk)
        if not ok:
            return None
        if bar is not None:
            bar.update(count - bar.n)
        if over:
            stopped_by = BUDGET
            break
        if head >= count:
            break
        if expired(deadline):
            stopped_by = TIMEOUT
            break
    states, src, dst, ex = state
    return Reachable(states=states[:count], src=src[:ne], dst=dst[:ne], example=ex[:ne],
                     clean_states=int(clean), complete=not stopped_by,
                     stopped_by=stopped_by)


def _packing_bits(YX):
    """The bits each coordinate gets in the packed search's int64 keys (``63 // d``),
    or 0 when ``YX`` cannot be packed: not int64, too wide, or entries so large that
    the dot products of vectors within those bits could overflow."""
    if YX.dtype != np.int64:
        return 0
    d = YX.shape[1]
    bits = 63 // d
    if bits < 4:
        return 0
    amax = int(np.abs(YX).max(initial=0))
    if amax * d * 2 ** bits >= 2**62:   # dot products of in-range vectors must fit
        return 0
    return bits


def _typed_index(index):
    """The packed search's index as a numba typed dict (the compiled search's), with
    the entries of the plain search's Python dict."""
    from numba import types
    from numba.typed import Dict

    if isinstance(index, Dict):
        return index
    typed = Dict.empty(key_type=types.int64, value_type=types.int64)
    for key, value in index.items():
        typed[np.int64(key)] = value
    return typed


@kernel()
def _packed_child(states, head, YX, i, child, bits, off, lim):
    """``(key, fits)``: the child ``states[head] + YX[i]``, written into ``child``, and
    its packed key; ``fits`` is False when a coordinate leaves its bits."""
    key = np.int64(0)
    for j in range(child.shape[0]):
        c = states[head, j] + YX[i, j]
        if c > lim or c < -lim:
            return key, False
        child[j] = c
        key = (key << bits) + (c + off)
    return key, True


@kernel()
def _room_for_one_more(states, count, budget):
    """``states`` with a free row at ``count`` (doubled, to at most ``budget`` rows).

    The packed search's kernels copy arrays with loops: an assignment of an array to
    a slice makes numba compile its shape-mismatch message too (string formatting,
    some 3 s of CPU in each process that compiles the search, issue 37)."""
    if count < states.shape[0]:
        return states
    bigger = np.zeros((min(2 * count, budget), states.shape[1]), np.int64)
    for i in range(count):
        for j in range(states.shape[1]):
            bigger[i, j] = states[i, j]
    return bigger


@kernel()
def _edge_added(src, dst, ex, ne, a, b, i):
    """The edge buffers with edge ``ne`` (``a -> b`` by example ``i``) set, doubled
    first when full."""
    if ne == src.shape[0]:
        src2 = np.empty(2 * ne, np.int64)
        dst2 = np.empty(2 * ne, np.int64)
        ex2 = np.empty(2 * ne, np.int64)
        for q in range(ne):   # loops: see _room_for_one_more
            src2[q], dst2[q], ex2[q] = src[q], dst[q], ex[q]
        src, dst, ex = src2, dst2, ex2
    src[ne] = a
    dst[ne] = b
    ex[ne] = i
    return src, dst, ex


@kernel()
def _bfs_packed(YX, strict, budget, bits, want_edges, index, states, src, dst, ex,
                count, ne, head, clean, chunk):
    """Expand at most ``chunk`` more vectors (from ``head``) of the packed search;
    return the grown buffers, the counters, ``over`` (one more state than ``budget``
    was found, and not kept) and ``ok`` (every coordinate fitted its bits)."""
    n, d = YX.shape
    off = np.int64(1) << (bits - 1)
    lim = off - 1
    child = np.empty(d, np.int64)
    stop = head + chunk
    while head < count and head < stop:
        mistakes = 0
        for i in range(n):
            s = np.int64(0)
            for j in range(d):
                s += YX[i, j] * states[head, j]
            if s < 0 or (s == 0 and not strict):
                mistakes += 1
                key, fits = _packed_child(states, head, YX, i, child, bits, off, lim)
                if not fits:
                    return states, src, dst, ex, count, ne, head, clean, False, False
                j_id = index.get(key, -1)
                if j_id < 0:
                    if count == budget:   # one more would break the budget
                        return states, src, dst, ex, count, ne, head, clean, True, True
                    j_id = count
                    index[key] = count
                    states = _room_for_one_more(states, count, budget)
                    for j in range(d):   # loops, not slices from arrays: below
                        states[count, j] = child[j]
                    count += 1
                if want_edges:
                    src, dst, ex = _edge_added(src, dst, ex, ne, head, j_id, i)
                    ne += 1
        if mistakes == 0:
            clean += 1
        head += 1
    return states, src, dst, ex, count, ne, head, clean, False, True
