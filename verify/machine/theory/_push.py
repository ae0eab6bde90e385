"""A beam search for a stream that drives one chosen weight to an end stop (compiled).

The ideal perceptron from zero (signed examples ``Z``, in increments) is the machine
until the first move an end stop cuts short, so a stream whose ideal weights leave
``[lo, hi]`` is a stream on which the machine reaches a stop. To push weight ``g`` in
direction ``sign``, the search keeps the ``width`` best states at each depth, every
mistake of every kept state tried, states with equal scores kept once. Best means:
most ``sign * w_g`` first, then the largest ``||w - a||^2``, with ``a = u/2`` the
centre of the Novikoff ball of :mod:`verify.machine.theory._ball` that bounds ``w_g``. That distance
starts at ``||a||`` and each mistake lowers it by its slack
``z_k . u - r_k - 2 z_k . w >= 0``; the extreme point of the ball in direction ``g``
lies on its boundary, so a stream that wastes least of the ball can get furthest.
(Preferring the most room left instead lets the run converge before ``w_g`` is
large: on the 26-letter task it stops about 10 steps short.)

It is updated in O(1) per mistake. Each depth keeps its states in one stable
ordering of the candidates (the best ``POOL * width`` found by a partition first) and drops
a state already kept through an open-addressing set of their hashes, so a step costs
O(width n) (plus the sort of ``POOL * width`` keys), and beams of 65,536 states run.

The search only proposes: a stream it returns is re-run with the clipped update
(and on the machine) before any claim is made.

>>> import numpy as np
>>> from verify.machine.theory import _clipped
>>> Z = np.array([[1, 1], [-1, 0]])
>>> stream = push_stream(Z, 1, 1, -1, 1, width=4, depth=10)
>>> run = _clipped.run_passes(Z, Z, -1, 1, np.array(stream), max_passes=1)
>>> run.first_clip == len(stream) - 1     # the last move is cut short by a stop
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from markone._internal.jit import cached_njit
from markone._internal.typing import ArrayLike

__all__ = ["push_stream", "gram_matrix"]

#: Each depth first sorts the best ``POOL * width`` candidates (a partition finds
#: them); only when duplicates leave the beam short are all of them sorted.
POOL = 4


def push_stream(Z: ArrayLike, g: int, sign: int, lo: int, hi: int, *,
                u: ArrayLike | None = None, width: int = 16, depth: int = 1000,
                seed: int = 0, reach: bool = False,
                gram: np.ndarray | None = None) -> Any:
    """Example indices of a stream whose ideal weights leave ``[lo, hi]`` (pushing
    weight ``g`` towards ``sign``), or None when the beam finds none.

    ``Z`` (n, d) integers: signed examples; weights move by ``Z[k]`` on a mistake on
    ``k``. ``u``: a direction with ``Z u > 0`` whose ball guides the search (default
    the mean of the signed examples of ``Z``, a rough one). With ``reach=True``,
    returns ``(stream or None, the largest sign * w_g seen)``. ``gram``: ``Z Z^T``
    when the caller has it.
    """
    Z = np.ascontiguousarray(Z, np.int64)
    n = Z.shape[0]
    r = (Z * Z).sum(axis=1).astype(np.float64)
    if u is None:
        u = Z.mean(axis=0)
    dphi = r - Z.astype(np.float64) @ np.asarray(u, np.float64)
    G = gram_matrix(Z) if gram is None else gram   # G[i, k]: score i's change if k moves
    coef = np.random.default_rng(seed).integers(1, 2**62, n, dtype=np.int64)
    parent = np.full((depth, width), -1, np.int64)
    example = np.full((depth, width), -1, np.int64)
    end, slot, best = _beam(Z, G, dphi, int(g), int(sign), int(lo), int(hi),
                            int(width), int(depth), coef, parent, example, POOL)
    stream: list[int] | None = None
    if end >= 0:
        stream = []
        for t in range(end, -1, -1):
            stream.append(int(example[t, slot]))
            slot = parent[t, slot]
        stream = stream[::-1]
    return (stream, int(best)) if reach else stream


def gram_matrix(Z: ArrayLike) -> np.ndarray:
    """``Z Z^T`` exactly, through float64 BLAS while every entry is below 2^53."""
    Z = np.asarray(Z, np.int64)
    top = int(np.abs(Z).max(initial=0))
    if top * top * Z.shape[1] < 2**53:
        Zf = Z.astype(np.float64)
        return np.ascontiguousarray((Zf @ Zf.T).astype(np.int64))
    return np.ascontiguousarray(Z @ Z.T)   # pragma: no cover - huge increments


@cached_njit()
def _beam(Z, G, dphi, g, sign, lo, hi, width, depth, coef, parent, example,
          pool):  # pragma: no cover - compiled
    """The beam search of :func:`push_stream`: ``(depth, slot, best)`` of the first
    kept state outside ``[lo, hi]`` (-1, -1 when none) and the largest
    ``sign * w_g`` seen; ``parent`` and ``example`` record each kept state's move."""
    n, d = Z.shape
    beam = (np.zeros((width, d), np.int64), np.zeros((width, n), np.int64),
            np.zeros(width, np.int64), np.zeros(width))
    spare = (np.zeros((width, d), np.int64), np.zeros((width, n), np.int64),
             np.zeros(width, np.int64), np.zeros(width))
    hG = _score_hashes(coef, G)
    cap = width * n
    cand = (np.empty(cap, np.int64), np.empty(cap), np.empty(cap, np.int64),
            np.empty(cap, np.int64), np.empty(cap, np.int64))
    key = np.empty(cap)
    size = 1                                  # open-addressing set of kept hashes
    while size < 4 * width:
        size *= 2
    seen = (np.zeros(size, np.int64), np.zeros(size, np.int64))
    alive, best = np.int64(1), np.int64(0)   # int64, not literals: one compile of the callees
    for t in range(depth):
        m = _candidates(Z, g, sign, beam, alive, dphi, hG, cand)
        if m == 0:
            return -1, -1, best
        value, phi = cand[0], cand[1]
        top = 0.0   # the largest |phi|: a loop compiles in a fraction of np.abs().max()
        for q in range(m):
            top = max(top, abs(phi[q]))
        scale = 1.0 + top
        for q in range(m):
            key[q] = -(value[q] + 0.5 * phi[q] / scale)
        kept, out, best = _select(Z, G, lo, hi, width, pool, t, m, key, cand, beam,
                                  spare, seen, parent, example, best)
        if out:
            return t, kept, best
        beam, spare = spare, beam
        alive = kept
    return -1, -1, best


@cached_njit()
def _score_hashes(coef, G):  # pragma: no cover - compiled
    """A linear hash of each example's change of the scores (column of ``G``)."""
    n = G.shape[0]
    hG = np.zeros(n, np.int64)
    for k in range(n):
        acc = np.int64(0)
        for i in range(n):
            acc += coef[i] * G[i, k]
        hG[k] = acc
    return hG


@cached_njit()
def _candidates(Z, g, sign, beam, alive, dphi, hG, cand):  # pragma: no cover - compiled
    """Every mistake move from the ``alive`` states of the beam, written into
    ``cand`` (value, potential, state, example, hash); returns their number."""
    W, S, H, F = beam
    value, phi, cb, ck, ch = cand
    m = 0
    for b in range(alive):
        for k in range(Z.shape[0]):
            if S[b, k] > 0:
                continue
            value[m] = sign * (W[b, g] + Z[k, g])
            phi[m] = F[b] + 2.0 * S[b, k] + dphi[k]
            cb[m], ck[m], ch[m] = b, k, H[b] + hG[k]
            m += 1
    return m


@cached_njit()
def _select(Z, G, lo, hi, width, pool, t, m, key, cand, beam, spare, seen, parent,
            example, best):  # pragma: no cover - compiled
    """Keep the best ``width`` candidates with distinct hashes in ``spare``: the best
    ``pool * width`` in stable order first, then (when duplicates leave the beam
    short) all of them, the same order as one stable sort of all. Returns
    ``(kept, out, best)``, ``out`` when the last kept state left ``[lo, hi]``."""
    order = _best_first(key, m, pool * width)
    kept, full = np.int64(0), order.shape[0] == m   # not a literal 0: one compile of _extend
    while True:
        for q in range(order.shape[0]):
            c = order[q]
            if not _first_seen(seen, cand[4][c], t):
                continue
            out = _extend(Z, G, lo, hi, c, kept, cand, beam, spare)
            best = max(best, cand[0][c])
            parent[t, kept] = cand[2][c]
            example[t, kept] = cand[3][c]
            if out:
                return kept, True, best
            kept += 1
            if kept == width:
                break
        if kept == width or full:
            return kept, False, best
        order = _best_first(key, m, m)   # all of them: the kept ones are dups now
        full = True


@cached_njit()
def _best_first(key, m, count):  # pragma: no cover - compiled
    """Indices of the ``count + 1`` smallest of ``key[:m]`` and of those equal to the
    largest of them (all ``m`` when ``count >= m``), in one stable order of their keys:
    what ``np.partition`` and a stable ``np.argsort`` give, written as loops (numba's
    partition, sort and fancy indexing took most of the search's compile, issue 37)."""
    order = np.empty(m, np.int64)
    n = 0
    cut = _kth_smallest(key[:m], count) if m > count else np.inf
    for q in range(m):
        if key[q] <= cut:
            order[n] = q
            n += 1
    return _stable_order(key, order[:n])


@cached_njit()
def _kth_smallest(values, k):  # pragma: no cover - compiled
    """The ``k``-th smallest of ``values`` (from 0), by quickselect on a copy."""
    a = values.copy()
    lo, hi = 0, a.shape[0] - 1
    while lo < hi:
        pivot = a[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return a[k]


@cached_njit()
def _stable_order(key, order):  # pragma: no cover - compiled
    """``order`` sorted by ``key[order]``, equal keys in their order (a merge sort)."""
    n = order.shape[0]
    src, dst = order.copy(), np.empty_like(order)
    run = 1
    while run < n:
        for start in range(0, n, 2 * run):
            mid, end = min(start + run, n), min(start + 2 * run, n)
            i, j = start, mid
            for o in range(start, end):
                if j >= end or (i < mid and key[src[i]] <= key[src[j]]):
                    dst[o] = src[i]
                    i += 1
                else:
                    dst[o] = src[j]
                    j += 1
        src, dst = dst, src
        run *= 2
    return src


@cached_njit()
def _first_seen(seen, h, t):  # pragma: no cover - compiled
    """Add hash ``h`` to the set of depth ``t``; False when it is there already."""
    table, stamp = seen
    size = table.shape[0]
    slot = (h ^ (h >> 31)) & (size - 1)
    while stamp[slot] == t + 1:
        if table[slot] == h:
            return False
        slot = (slot + 1) & (size - 1)
    stamp[slot], table[slot] = t + 1, h
    return True


@cached_njit()
def _extend(Z, G, lo, hi, c, kept, cand, beam, spare):  # pragma: no cover - compiled
    """Candidate ``c`` as the ``kept``-th state of ``spare``; True when its weights
    leave ``[lo, hi]``."""
    W, S, H, F = beam
    W2, S2, H2, F2 = spare
    b, k = cand[2][c], cand[3][c]
    out = False
    for j in range(Z.shape[1]):
        v = W[b, j] + Z[k, j]
        W2[kept, j] = v
        if v > hi or v < lo:
            out = True
    for i in range(Z.shape[0]):
        S2[kept, i] = S[b, i] + G[i, k]
    H2[kept], F2[kept] = cand[4][c], cand[1][c]
    return out
