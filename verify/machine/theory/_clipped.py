"""The Mark I's R-unit update with end stops, in exact integer units (compiled).

One R-unit on one task is reduced to integers: ``P[i]`` are the score weights of
example ``i`` (``y_i x_i`` times the multiplicity of each distinct A-unit column),
``D[i]`` its requested move in units (``eta * y_i x_i``), and ``lo <= w <= hi`` the end
stops in the same units. A presentation of ``i`` is a mistake when ``P[i] . w <= 0``;
the weights then move to ``clip(w + D[i], lo, hi)``. This is what
:meth:`markone.hardware.MarkI.train` does for the ``"error_correction"`` rule, with the
A-unit columns that always agree merged (they start at zero and move together).

:func:`reachable` enumerates every weight vector the update can reach from zero (all
streams at once); :func:`run_passes` runs one periodic order pass after pass and finds
its exact cycle.

Examples
--------
>>> import numpy as np
>>> P = np.array([[1, 1], [-1, 0]]); D = P.copy()
>>> g = reachable(P, D, -1, 1)
>>> g.states.tolist(), g.complete
([[0, 0], [1, 1], [-1, 0], [0, 1], [-1, 1]], True)
>>> int(g.clipped.sum())             # [-1, 1] + [1, 1] is stopped at 1
1
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from markone._internal.jit import cached_njit
from markone._internal.typing import ArrayLike
from verify._internal.budget import expired
from verify.machine.task import NO_STOP

__all__ = ["Graph", "reachable", "run_passes", "PassRun", "NO_STOP",
           "blocking_components"]



@dataclass(frozen=True)
class Graph:
    """States reachable from zero, and the mistake edges between them.

    Edge ``k`` presents ``example[k]`` at ``states[src[k]]`` (a mistake) and leads to
    ``states[dst[k]]``; ``clipped[k]`` says whether an end stop cut the move short.
    ``parent[s]`` is the edge that discovered state ``s`` (-1 for the zero state).
    ``correct[s, i]`` is True when example ``i`` is answered correctly at state ``s``.
    """

    states: np.ndarray = field(repr=False)
    src: np.ndarray = field(repr=False)
    dst: np.ndarray = field(repr=False)
    example: np.ndarray = field(repr=False)
    clipped: np.ndarray = field(repr=False)
    parent: np.ndarray = field(repr=False)
    correct: np.ndarray = field(repr=False)
    complete: bool

    def path_to(self, s):
        """Example indices of the discovery path from zero to state ``s``."""
        out = []
        while self.parent[s] >= 0:
            k = self.parent[s]
            out.append(int(self.example[k]))
            s = int(self.src[k])
        return out[::-1]


def reachable(P, D, lo, hi, *, budget=200_000):
    """Breadth-first search of the clipped update from zero (see the module doc).

    Stops with ``complete=False`` once more than ``budget`` states are known.
    """
    P = np.ascontiguousarray(P, dtype=np.int64)
    D = np.ascontiguousarray(D, dtype=np.int64)
    index = {bytes(np.zeros(P.shape[1], np.int64)): 0}
    blocks = [np.zeros((1, P.shape[1]), np.int64)]
    src, dst, ex, clip, parent, correct = [], [], [], [], [-1], []
    frontier, ids = blocks[0], np.array([0])
    complete, n_edges = True, 0
    while len(frontier):
        wrong = (frontier @ P.T) <= 0
        correct.append(~wrong)
        r, c = np.nonzero(wrong)
        want = frontier[r] + D[c]
        child = np.clip(want, lo, hi)
        new_rows, child_ids = [], np.empty(len(child), np.int64)
        for k, row in enumerate(child):
            key = row.tobytes()
            j = index.get(key)
            if j is None:
                j = len(index)
                index[key] = j
                new_rows.append(row)
                parent.append(n_edges + k)
            child_ids[k] = j
        src.append(ids[r])
        dst.append(child_ids)
        ex.append(c)
        clip.append((child != want).any(axis=1))
        n_edges += len(c)
        if not new_rows:
            break
        if len(index) > budget:
            complete = False
            blocks.append(np.array(new_rows))
            correct.append(np.zeros((len(new_rows), len(P)), bool))
            break
        frontier = np.array(new_rows)
        ids = np.arange(len(index) - len(new_rows), len(index))
        blocks.append(frontier)
    cat = (lambda parts, dt: np.concatenate(parts).astype(dt) if parts
           else np.empty(0, dt))
    return Graph(states=np.concatenate(blocks), src=cat(src, np.int64),
                 dst=cat(dst, np.int64), example=cat(ex, np.int64),
                 clipped=cat(clip, bool), parent=np.array(parent, np.int64),
                 correct=np.concatenate(correct) if correct else np.zeros((0, len(P)),
                                                                         bool),
                 complete=complete)


@dataclass(frozen=True)
class PassRun:
    """A periodic order run pass after pass (see :func:`run_passes`).

    ``converged``: pass ``passes`` (after the prefix) made no mistake, so the weights
    never move again. Otherwise, when ``cycle_start`` is not None, the state at the
    start of pass ``cycle_start + period`` equals the one at the start of pass
    ``cycle_start`` (pass 0 starts right after the prefix), with mistakes in every
    pass: the run never converges. Neither: undecided within ``max_passes`` (or the
    deadline; ``timed_out``). ``first_clip``: the position (presentation count, prefix
    included) of the first move an end stop cut short, or -1. ``mistakes``: every
    mistake (reinforcement) made, prefix included; ``prefix_mistakes`` those of the
    prefix.
    """

    converged: bool
    passes: int
    cycle_start: int | None
    period: int | None
    first_clip: int
    mistakes: int
    w: np.ndarray = field(repr=False)
    prefix_mistakes: int = 0
    timed_out: bool = False


def run_passes(P, D, lo, hi, order, *, prefix=None, max_passes=2000, deadline=None):
    """Run ``prefix`` once and then ``order`` pass after pass, from zero, with exact
    cycle detection at the pass boundaries (the state is the weights; the order is
    fixed, so a repeated boundary state repeats the whole run). ``deadline``: a
    :func:`time.perf_counter` time after which the run stops, undecided.

    >>> import numpy as np
    >>> P = np.array([[-1, 0], [0, 1]])        # "a" wants w_0 < 0, "b" w_1 > 0
    >>> run = run_passes(P, P, 0, 1, np.array([0, 1]), prefix=[0])
    >>> run.converged, run.cycle_start, run.period, run.first_clip
    (False, 1, 1, 0)
    >>> run_passes(P, P, -1, 1, np.array([0, 1]), prefix=[0]).passes
    2
    """
    P = np.ascontiguousarray(P, dtype=np.int64)
    D = np.ascontiguousarray(D, dtype=np.int64)
    order = np.ascontiguousarray(order, dtype=np.int64)
    w = np.zeros(P.shape[1], np.int64)
    first_clip, shown, total = -1, 0, 0
    if prefix is not None and len(prefix):
        head = np.ascontiguousarray(prefix, dtype=np.int64)
        total, first_clip = _pass(w, P, D, lo, hi, head)
        shown = len(head)
    before = total
    seen = {w.tobytes(): 0}
    for k in range(1, max_passes + 1):
        if expired(deadline):
            return PassRun(False, k - 1, None, None, first_clip, total, w, before, True)
        mistakes, clip_at = _pass(w, P, D, lo, hi, order)
        total += mistakes
        if first_clip < 0 and clip_at >= 0:
            first_clip = shown + clip_at
        shown += len(order)
        if mistakes == 0:
            return PassRun(True, k, None, None, first_clip, total, w, before)
        key = w.tobytes()
        if key in seen:
            return PassRun(False, k, seen[key], k - seen[key], first_clip, total, w,
                           before)
        seen[key] = k
    return PassRun(False, max_passes, None, None, first_clip, total, w, before)


@cached_njit()
def _pass(w, P, D, lo, hi, order):  # pragma: no cover - compiled
    mistakes = 0
    clip_at = -1
    d = w.shape[0]
    for t in range(order.shape[0]):
        i = order[t]
        s = 0
        for c in range(d):
            s += P[i, c] * w[c]
        if s <= 0:
            mistakes += 1
            for c in range(d):
                step = D[i, c]
                if step != 0:
                    v = w[c] + step
                    if v > hi:
                        v = hi
                        if clip_at < 0:
                            clip_at = t
                    elif v < lo:
                        v = lo
                        if clip_at < 0:
                            clip_at = t
                    w[c] = v
    return mistakes, clip_at


def blocking_components(n_states: int, src: ArrayLike, dst: ArrayLike,
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
