"""The ``"forced"`` (S-controlled) rule, with and without end stops, decided exactly.

Every figure moves every weight of an R-unit towards its target, right or wrong:
``w_j <- clip(w_j + e z_ij, lo, hi)`` with ``z_i = y_i x_i`` (``x_i`` 0/1, ``e`` the
increment), in integer units. No decision changes a move, so each weight is a clipped
walk of its own, driven by the stream alone. Per weight let ``a_j`` (``b_j``) count the
figures that move it up (down) and ``m_j = a_j - b_j`` (the Hebb vector). Three facts
decide the rule:

**Every stream of whole passes** (each figure once a pass, a new order each pass
allowed). After ``P`` passes from 0, whatever the orders,

* ``w_j >= max(lo, min(P e m_j, hi - e b_j))`` when ``m_j >= 0`` (a pass that touches
  the top stop ends at most ``e b_j`` below it; one that does not gains ``e m_j``), and
  ``w_j >= max(lo, min(0, hi - e a_j) + P e m_j)`` when ``m_j < 0``;
* mirrored, ``w_j <= min(hi, max(P e m_j, lo + e a_j))`` when ``m_j <= 0`` and
  ``w_j <= min(hi, max(0, lo + e b_j) + P e m_j)`` when ``m_j > 0``.

Inside the pass, before figure ``i``, at most the other figures' down moves
(``b_j - [z_ij < 0]``) have lowered ``w_j`` and at most their up moves raised it. So
``y_i`` times figure ``i``'s sum is at least ``S_i(P)``, the sum over its active
A-units of those lower bounds (``y_i = +1``) or minus the upper bounds (``y_i = -1``),
and at most ``U_i(P)`` (the other way round). If every ``S_i(P') > 0`` for every
``P' >= P``, the R-unit answers every figure right in every pass after ``P``, on every
stream: it has learned for good. The bounds stop changing once ``P e |m_j|`` passes the
stops (``P >= P_sat``), so a finite scan decides this; without stops ``S_i`` is linear
in ``P`` (``P e mu_i`` minus the adverse moves, ``mu_i = y_i m . x_i``) and the pass is
closed-form.

**One fixed order, every pass the same.** Without stops the sum before figure ``i`` in
pass ``P + 1`` is exactly ``P e mu_i + c_i`` (``c_i`` the moves before ``i`` in the
order), so the passes in which the R-unit is clean are an interval of integers, found
exactly. With stops the walk of a weight over one pass is a monotone map of its start,
so the starts of the passes are monotone and reach a fixed point within ``hi - lo + 1``
passes: the run is simulated until a clean pass or until a pass starts where the one
before started, after which every pass repeats it and is wrong. Either way a fixed
order is decided exactly: it learns at a known pass or never, and the first move an end
stop cuts short is known.

**What stays undecided.** An R-unit for which no ``P`` makes every ``S_i`` positive and
no tried order (given, reversed, a figure with the lowest Hebb score first or last)
never learns: some streams may learn and others not, and the streams that change order
from pass to pass are not searched. Moves are exact in the machine's float64 only when
the unit of the increment and stops is a power of two; otherwise a claim that rests on
a sum of exactly 0 (a mistake) is not made.

>>> import numpy as np
>>> X, y = np.array([[1, 1, 0], [0, 1, 1]]), np.array([1, -1])
>>> every_stream(X, y, 1, -2, 2)["clean_from"]      # m = (1, 0, -1), stops at +/-2
2
>>> r = fixed_order(X, y, 1, -2, 2, [0, 1])           # w after passes 1, 2: (1, 0, -1),
>>> r["first_clean"], r["first_block"]                # (2, 0, -2); w_0 = 3 is cut to 2
(3, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from markone._internal.jit import cached_njit
from markone._internal.typing import ArrayLike

__all__ = ["every_stream", "fixed_order"]


def _moves(X, y):
    # C order whatever X's: the compiled pass is compiled for that one layout
    Z = np.ascontiguousarray(np.asarray(y, np.int64)[:, None] * np.asarray(X, np.int64))
    up, down = (Z > 0).astype(np.int64), (Z < 0).astype(np.int64)
    return Z, up, down


def _bounds(P, e, m, a, b, lo, hi):
    """Start-of-pass bounds ``(L, H)`` on every weight after ``P`` passes (module doc);
    ``lo``/``hi`` None for no stops."""
    drift = P * e * m
    if lo is None:
        return drift, drift
    L = np.where(m >= 0, np.minimum(drift, hi - e * b),
                 np.minimum(0, hi - e * a) + drift)
    H = np.where(m <= 0, np.maximum(drift, lo + e * a),
                 np.maximum(0, lo + e * b) + drift)
    return np.maximum(lo, L), np.minimum(hi, H)


def _scores(P, X, y, e, m, a, b, up, down, lo, hi):
    """``(S, U)``: bounds on ``y_i`` times each figure's sum in pass ``P + 1``."""
    L, H = _bounds(P, e, m, a, b, lo, hi)
    low = L[None, :] - e * (b[None, :] - down)
    high = H[None, :] + e * (a[None, :] - up)
    if lo is not None:
        low, high = np.maximum(lo, low), np.minimum(hi, high)
    pos = y > 0
    S = np.where(pos, (X * low).sum(axis=1), -(X * high).sum(axis=1))
    U = np.where(pos, (X * high).sum(axis=1), -(X * low).sum(axis=1))
    return S, U


def every_stream(X: ArrayLike, y: ArrayLike, e: int, lo: int | None,
                 hi: int | None) -> dict[str, Any]:
    """The bounds for every stream of whole passes (module doc), in integer units.

    Returns a dict: ``clean_from`` (the least ``P`` such that the R-unit is right on
    every figure in every pass after the first ``P``, on every stream; None when the
    bounds do not show one), ``wrong_from`` (figure -> a ``P`` after which that figure
    is answered wrongly in every pass, on every stream) and ``mu`` (Hebb scores).
    """
    X = np.asarray(X, np.int64)
    y = np.asarray(y, np.int64)
    Z, up, down = _moves(X, y)
    a, b = up.sum(axis=0), down.sum(axis=0)
    m = a - b
    mu = (Z * m[None, :]).sum(axis=1)
    out: dict[str, Any] = {"mu": mu.tolist()}
    if lo is None or hi is None:
        # linear in P: S = P e mu - e adverse, U = P e mu + e favourable
        adverse = np.where(y > 0, X @ b - (X * down).sum(axis=1),
                           X @ a - (X * up).sum(axis=1))
        favour = np.where(y > 0, X @ a - (X * up).sum(axis=1),
                          X @ b - (X * down).sum(axis=1))
        out["clean_from"] = (int((adverse // mu).max(initial=-1)) + 1
                             if (mu > 0).all() else None)
        out["wrong_from"] = {int(i): int(-(favour[i] // mu[i]))
                             for i in np.flatnonzero(mu < 0)}
        out["wrong_from"].update({int(i): 0 for i in np.flatnonzero(
            (mu == 0) & (favour == 0))})
        return out
    nz = m != 0
    sat = int((-(-(hi - lo + e * (a + b))[nz] // (e * np.abs(m[nz])))).max(initial=0)) + 1
    S = np.empty((sat + 1, len(y)), np.int64)
    U = np.empty_like(S)
    for P in range(sat + 1):
        S[P], U[P] = _scores(P, X, y, e, m, a, b, up, down, lo, hi)
    # from P on, right (wrong) in every pass: the suffix of the scan, which is constant
    # from sat on
    good = np.flip(np.logical_and.accumulate(np.flip((S > 0).all(axis=1))))
    out["clean_from"] = int(np.argmax(good)) if good.any() else None
    bad = np.flip(np.logical_and.accumulate(np.flip(U <= 0, axis=0), axis=0), axis=0)
    out["wrong_from"] = {int(i): int(np.argmax(bad[:, i]))
                         for i in np.flatnonzero(bad[-1])}
    out["saturated_after"] = sat
    return out


@cached_njit()
def _simulate(Z, e, lo, hi, order, max_passes):
    """Fixed-order passes with end stops: ``(first clean pass or -1, pass whose start
    repeats the one before or -1, first blocked presentation or -1)``."""
    d = Z.shape[1]
    w = np.zeros(d, np.int64)
    start = w.copy()
    block = -1
    t = 0
    for p in range(1, max_passes + 1):
        clean = True
        for i in order:
            s = 0
            for j in range(d):
                s += Z[i, j] * w[j]
            if s <= 0:
                clean = False
            for j in range(d):
                if Z[i, j] != 0:
                    want = w[j] + e * Z[i, j]
                    got = min(max(want, lo), hi)
                    if got != want and block < 0:
                        block = t
                    w[j] = got
            t += 1
        if clean:
            return p, -1, block
        same = True
        for j in range(d):
            if w[j] != start[j]:
                same = False
                start[j] = w[j]
        if same:
            return -1, p, block
    return -1, -1, block


def fixed_order(X: ArrayLike, y: ArrayLike, e: int, lo: int | None, hi: int | None,
                order: ArrayLike) -> dict[str, Any]:
    """The exact run of one order repeated every pass (module doc), integer units.

    Returns a dict: ``first_clean`` (the first pass in which the R-unit is right on
    every figure, 1-based; None: never), ``first_block`` (index of the first
    presentation whose move an end stop cuts short, before ``first_clean`` or ever
    when it never learns; None: none) and ``why`` (how it was decided).
    """
    X = np.asarray(X, np.int64)
    y = np.asarray(y, np.int64)
    order = np.asarray(order, np.int64)
    Z, _, _ = _moves(X, y)
    if lo is None or hi is None:
        m = Z.sum(axis=0)
        mu = Z @ m
        before = np.cumsum(Z[order], axis=0) - Z[order]      # moves before each slot
        c = np.empty(len(y), np.int64)
        c[order] = e * (Z[order] * before).sum(axis=1)
        lower, upper = 0, None   # clean at pass P + 1 iff P e mu_i + c_i > 0 for all i
        for i in range(len(y)):
            em = e * int(mu[i])
            if em > 0:
                lower = max(lower, -int(c[i]) // em + 1)
            elif em < 0:
                cap = -(-int(c[i]) // -em) - 1
                upper = cap if upper is None else min(upper, cap)
            elif c[i] <= 0:
                upper = -1
        if upper is not None and lower > upper:
            return {"first_clean": None, "first_block": None,
                    "why": "closed form: no pass P satisfies P e mu_i + c_i > 0 for "
                           "every figure"}
        return {"first_clean": lower + 1, "first_block": None,
                "why": "closed form: pass P + 1 is clean iff P e mu_i + c_i > 0 for "
                       "every figure"}
    clean, repeat, block = _simulate(Z, e, lo, hi, order, hi - lo + 2)
    if clean < 0 and repeat < 0:   # pragma: no cover - the starts are monotone
        raise RuntimeError("BUG: a fixed order of the forced rule with end stops did "
                           "not reach a fixed point; please report it with the data.")
    return {"first_clean": None if clean < 0 else clean,
            "first_block": None if block < 0 else block,
            "why": (f"simulated: clean at pass {clean}" if clean > 0 else
                    f"simulated: pass {repeat} ends where it began, every later pass "
                    "repeats it and it is not clean")}
