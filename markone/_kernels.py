"""The compiled hot loops of the perceptron, and nothing else.

Each kernel makes ONE pass over the rows ``idx`` of ``yx`` (the augmented inputs with
their labels folded in, ``yx[i] = y_i * [x_i, c]``), updating the state in place, with
the rule of :mod:`markone.online`: a mistake when ``w . yx[i] <= 0``, then
``w += eta * yx[i]``.

* :func:`epoch_last_xy` is the lean loop (last iterate only) used by
  :func:`markone.train` for float data and by the batched runs in :mod:`markone.batch`,
  on the raw inputs ``X`` with the labels and the appended constant folded in on the
  fly. It saves the two passes over memory
  that building ``yx`` costs (and the separate NaN scan: a non-finite input makes its
  score non-finite, which the loop reports), so a float run reads its data once per
  pass, as ``X @ w`` does.
* :func:`epoch_general` also keeps what the variants need (the averaging sum, the
  pocket vector, survival runs, and, on request, every intermediate vector), and
  guards int64 arithmetic against overflow. Its pure-Python body
  (``epoch_general.py_func``) runs unchanged on object arrays of Python integers,
  which is how exact runs continue when int64 would overflow: one implementation of
  the loop serves both.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["epoch_last_xy", "epoch_general", "score_underflows", "INT64_LIMIT",
           "UNDERFLOW_ZONE"]

#: Largest magnitude allowed for any int64 intermediate in exact runs (2**62 leaves a
#: factor two of headroom for the sums inside a dot product).
INT64_LIMIT = 2**62


#: Fast-math flags that allow vectorised reductions but keep NaN/inf semantics
#: (the loops detect non-finite inputs through their scores; "nsz" would let LLVM
#: fold 0 * NaN to 0 and hide them, so it is left out).
FASTMATH = {"reassoc", "contract"}


#: A score whose terms sum, in absolute value, below this is decided by underflow:
#: within 53 bits of float64's subnormal range, rounding to zero outweighs the data.
UNDERFLOW_ZONE = 2.0**-969


@njit(cache=True, nogil=True)
def score_underflows(w, row, c):
    """True when some term ``w_j x_j`` (or ``w_d c``) of a score is not zero, yet the
    terms' absolute values sum below :data:`UNDERFLOW_ZONE`: the score's sign is then
    decided by underflow, not by the data. Called only for scores below that zone."""
    d = row.shape[0]
    live = w[d] != 0 and c != 0
    a = abs(w[d] * c)
    for j in range(d):
        if row[j] != 0 and w[j] != 0:
            live = True
            a += abs(w[j] * row[j])
    return live and a < UNDERFLOW_ZONE


@njit(cache=True, fastmath=FASTMATH, nogil=True)
def epoch_last_xy(X, y, c, idx, eta, w, status):
    """One pass of the plain perceptron over ``(X[idx], y[idx])``.

    ``w`` has ``d + 1`` entries, the last one the weight of the constant ``c``
    (``c = 0`` for no intercept). Returns the mistakes made. Stops early with
    ``status = [1, t]`` when the score at position ``t`` is not finite (a NaN or
    infinity in that input, or an overflow), ``[2, t]`` when a zero input vector (with
    ``c = 0``) was met, which no weight vector can ever classify, or ``[3, t]`` when
    the score underflows (:func:`score_underflows`): float64 cannot carry the data.
    """
    d = X.shape[1]
    mistakes = 0
    for t in range(idx.shape[0]):
        i = idx[t]
        row = X[i]
        s = w[d] * c
        for j in range(d):
            s += w[j] * row[j]
        if not np.isfinite(s):
            status[0] = 1
            status[1] = t
            return mistakes
        if abs(s) < UNDERFLOW_ZONE and score_underflows(w, row, c):  # rare: tiny |s|
            status[0] = 3
            status[1] = t
            return mistakes
        if y[i] * s <= 0:
            step = eta * y[i]
            nonzero = c != 0
            for j in range(d):
                w[j] += step * row[j]
                nonzero |= row[j] != 0
            w[d] += step * c
            if not nonzero:
                status[0] = 2
                status[1] = t
                return mistakes
            mistakes += 1
    return mistakes


@njit(cache=True, nogil=True)
def epoch_general(yx, idx, eta, w, acc, pocket, ctr, rec_idx, rec_run, rec_w,
                  record_w, limit, xmax, l1max):
    """One pass keeping the state that every variant needs.

    Parameters (all arrays are updated in place)
    ----------
    yx, idx, eta, w : the signed rows, the order of this pass, the step, the weights.
    acc : array like ``w``
        ``sum_s s * Delta_s`` over updates ``Delta_s`` made at presentation number
        ``s`` (1-based); the average of the iterates after ``T`` presentations is
        ``((T + 1) * w - acc) / T``.
    pocket : array like ``w``
        The iterate with the longest run of consecutive correct predictions so far.
    ctr : int64 array of 5
        ``[presentations T, current run, pocket run, pocket is current (0/1),
        wmax]`` where ``wmax`` bounds ``max_j |w_j|`` (used for overflow checks).
    rec_idx, rec_run : int64 arrays, at least ``len(idx)`` long
        For the k-th mistake of this pass: the example index, and the run of
        correct predictions that the vector before it survived.
    rec_w : 2-D array, ``len(idx)`` rows when ``record_w`` (else any)
        The iterate after each mistake of this pass.
    limit : int
        ``> 0``: stop before any update after which an int64 intermediate could
        exceed ``limit`` (returns ``-1 - t`` with ``t`` the position in ``idx``).
        ``<= 0``: no checks (float data, or Python integers).
    xmax, l1max : largest ``|entry|`` of each row of ``yx`` (array), and the largest
        row 1-norm (scalar), for the overflow checks.

    Returns
    -------
    The number of mistakes made in this pass, or ``-1 - t`` on (impending) overflow
    at position ``t``; the state is then exactly as before that presentation.
    """
    d = yx.shape[1]
    mistakes = 0
    for t in range(idx.shape[0]):
        i = idx[t]
        row = yx[i]
        s = 0 * w[0]
        for j in range(d):
            s += w[j] * row[j]
        step = ctr[0] + 1
        if not s > 0:  # a NaN score (an overflow: inf - inf) is no correct answer
            if limit > 0:  # keep wmax * l1max and step * wmax below limit
                cap = min(limit // l1max, limit // step)
                if eta * xmax[i] > cap - ctr[4]:
                    return -1 - t
                ctr[4] += eta * xmax[i]
            for j in range(d):
                delta = eta * row[j]
                w[j] += delta
                acc[j] += step * delta
            rec_idx[mistakes] = i
            rec_run[mistakes] = ctr[1]
            if record_w:
                for j in range(d):
                    rec_w[mistakes, j] = w[j]
            mistakes += 1
            ctr[1] = 0
            ctr[3] = 0
        else:
            ctr[1] += 1
            if ctr[1] > ctr[2]:
                ctr[2] = ctr[1]
                if ctr[3] == 0:
                    for j in range(d):
                        pocket[j] = w[j]
                    ctr[3] = 1
        ctr[0] = step
    return mistakes
