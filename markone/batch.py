"""Many small perceptrons at once: batched runs for sweeps and simulations.

A sweep of hundreds of small runs should not pay Python overhead per run and per pass.
Here the runs are packed into one array per shape and trained together in one
compiled loop over datasets (serial by default, ``numba.prange`` with
``parallel=True``), each pass calling the core's own kernel
:func:`markone._loops.epoch_last_xy`, the one :func:`markone.train` uses: the update
rule is not written a second time. Orders are drawn exactly as :func:`markone.train`
draws them, so every run equals ``markone.train(X, y, ..., seed=seed)`` with the same
arguments, bit for bit.

* :func:`train_many` trains each dataset to convergence (or ``max_epochs``).
* :func:`trace_many` runs one online stream per run and records the last and the
  averaged iterate every ``record_every`` presentations.

Examples
--------
>>> import numpy as np
>>> X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
>>> res = train_many([X, X], [[-1, -1, -1, 1], [-1, 1, 1, 1]])   # AND, OR
>>> res.converged.tolist(), res.mistakes.tolist()
([True, True], [18, 9])
>>> res.w[0].tolist()
[3.0, 2.0, -4.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from markone import _loops
from markone._internal.jit import cached_njit, compiled, load_numba
from markone._internal.data import as_dataset
from markone._internal.typing import ArrayLike, Seed
from markone._params import as_float, validate_core_params
from markone._internal.validation import (as_generator, check_choice, check_int_at_least,
                                          child_seeds)

__all__ = ["BatchResult", "train_many", "trace_many", "shuffle_orders"]

# Batches are big work: this module compiles its loops, around the same pass as
# markone.train (called from them as a compiled dispatcher).
_numba = load_numba()
prange = _numba.prange
epoch_last_xy = compiled(_loops.epoch_last_xy)

#: Most passes per compiled call: the chunks grow 2, 2, 4, 8, ... up to this, so at
#: most about twice the permutations a run needs are drawn (``order="shuffle"``), and
#: the per-pass mistake counts of a long run are collected in bounded blocks.
_MAX_CHUNK = {"shuffle": 64, "fixed": 4096}


@dataclass(frozen=True)
class BatchResult:
    """The outcome of :func:`train_many`, one entry per dataset.

    Attributes
    ----------
    w : tuple of ndarray
        Final (last-iterate) weight vector of each run, in the augmented space
        ``[x, intercept_scale]`` when ``intercept`` (so ``w[b][-1]`` is the intercept
        weight), as :attr:`markone.TrainResult.w`.
    mistakes : ndarray of int64
        Total updates of each run.
    epochs : ndarray of int64
        Passes made, the final clean pass included.
    converged : ndarray of bool
        Whether each run ended with a pass without mistakes.
    mistakes_per_epoch : tuple of tuple of int
        Updates in each pass, per run.
    seeds : tuple of int or None
        The seed each run used (``order="shuffle"``), else ``None`` entries.
    """

    w: tuple
    mistakes: np.ndarray
    epochs: np.ndarray
    converged: np.ndarray
    mistakes_per_epoch: tuple
    seeds: tuple

    def __len__(self):
        return len(self.w)


@cached_njit(nogil=True)
def _train_one(X3, y2, c, orders, eta, n_epochs, W, mpe, active, status, b):
    """Up to ``n_epochs`` passes of dataset ``b``: pass ``e`` presents
    ``orders[b, e % orders.shape[1]]``, its mistakes go to ``mpe[b, e]``; the run
    stops after a clean pass (``active[b] = False``) or a bad row (``status[b, 0]``)."""
    if not active[b]:
        return
    n_orders = orders.shape[1]
    for e in range(n_epochs):
        m = epoch_last_xy(X3[b], y2[b], c, orders[b, e % n_orders], eta, W[b], status[b])
        mpe[b, e] = m
        if m == 0 or status[b, 0] != 0:
            active[b] = False
            return


@cached_njit(nogil=True)
def _trace_one(X3, y2, c, orders, eta, record_every, last, avg, status, r):
    """Run ``orders[r]`` on dataset ``r`` one presentation at a time, recording.

    The records are copied entry by entry: assigning an array to a row makes numba
    compile its shape-mismatch message too (string formatting: about 2 s of CPU in
    each process that compiles this, issue 37)."""
    D = X3.shape[2] + 1
    w = np.zeros(D)
    total = np.zeros(D)
    one = np.empty(1, np.int64)
    k = 0
    for t in range(orders.shape[1]):
        one[0] = orders[r, t]
        epoch_last_xy(X3[r], y2[r], c, one, eta, w, status[r])
        if status[r, 0] != 0:
            return
        total += w
        if (t + 1) % record_every == 0:
            for j in range(D):   # a loop, not rows assigned (see below)
                last[r, k, j] = w[j]
                avg[r, k, j] = total[j] / (t + 1)
            k += 1


# Each block loop twice: serial (the default: sweeps already run in parallel processes,
# and on a busy machine thread start-up costs more than small runs take) and with
# ``prange`` over the datasets (``parallel=True``).
@cached_njit(nogil=True)
def _train_serial(X3, y2, c, orders, eta, n_epochs, W, mpe, active, status):
    for b in range(X3.shape[0]):
        _train_one(X3, y2, c, orders, eta, n_epochs, W, mpe, active, status, b)


@cached_njit(parallel=True)
def _train_parallel(X3, y2, c, orders, eta, n_epochs, W, mpe, active, status):
    for b in prange(X3.shape[0]):   # prange counts in uint64: the serial loop's int64
        _train_one(X3, y2, c, orders, eta, n_epochs, W, mpe, active, status, np.int64(b))


@cached_njit(nogil=True)
def _trace_serial(X3, y2, c, orders, eta, record_every, last, avg, status):
    for r in range(X3.shape[0]):
        _trace_one(X3, y2, c, orders, eta, record_every, last, avg, status, r)


@cached_njit(parallel=True)
def _trace_parallel(X3, y2, c, orders, eta, record_every, last, avg, status):
    for r in prange(X3.shape[0]):   # as an int64, the serial loop's (one compile)
        _trace_one(X3, y2, c, orders, eta, record_every, last, avg, status, np.int64(r))


def _prepare(X, y, name):
    """``X`` as float64 and its labels as float -1/+1 (the core's lean layout)."""
    data = as_dataset(X, y, name=name, y_name="ys" + name[2:])
    return data.floats, data.y.astype(np.float64)


def _prepare_all(Xs, ys, intercept, intercept_scale):
    if len(Xs) != len(ys):
        raise ValueError(
            f"Xs has {len(Xs)} datasets but ys has {len(ys)}; pass one label vector "
            "per dataset."
        )
    if len(Xs) == 0:
        raise ValueError("Xs is empty; pass at least one dataset.")
    c = _float_parameter(intercept_scale, "intercept_scale") if intercept else 0.0
    return [_prepare(X, y, f"Xs[{b}]") for b, (X, y) in enumerate(zip(Xs, ys))], c


def _float_parameter(value, name):
    """A positive step size or constant as the float64 that equals it (checked as
    :func:`markone.train` checks it: ints, floats, Fractions, strings like ``"1/2"``);
    refused, by name and value, when float64 cannot hold it exactly."""
    validate_core_params({name: value}, "train_many")
    return as_float(value, name, fix="train_many trains in float64: pass a value that "
                    "float64 holds exactly (such as 0.5 or 2), or train exactly with "
                    "markone.train(..., exact=True)")


def shuffle_orders(seed: Seed, n: int, n_epochs: int) -> np.ndarray:
    """The presentation orders ``markone.train(order="shuffle", seed=seed)`` uses.

    Returns an ``(n_epochs, n)`` int64 array: a fresh permutation of ``range(n)`` per
    pass. Drawing them in several chunks from one generator gives the same stream.

    >>> shuffle_orders(0, 4, 2).shape
    (2, 4)
    """
    return _permutations(as_generator(seed), n, n_epochs)


def _permutations(rng, n, k, out=None):
    out = np.empty((k, n), dtype=np.int64) if out is None else out
    for e in range(k):
        out[e] = rng.permutation(n)
    return out


def train_many(Xs: Sequence[ArrayLike], ys: Sequence[ArrayLike], *, intercept: bool = True,
               intercept_scale: float = 1.0, eta: float = 1.0, max_epochs: int = 1000,
               order: str | Sequence[ArrayLike] = "given",
               seeds: Seed | Sequence[int] = None, parallel: bool = False) -> BatchResult:
    """Train one perceptron per dataset, all at once (last iterate).

    Parameters
    ----------
    Xs : sequence of array-like
        The datasets, each ``(n_b, d_b)``; shapes may differ between datasets.
    ys : sequence of array-like
        The labels of each dataset (any two values, as in :func:`markone.train`).
    intercept, intercept_scale, eta, max_epochs
        As in :func:`markone.train`.
    order : {"given", "shuffle"} or sequence of int arrays
        ``"given"``: rows in order each pass. ``"shuffle"``: a fresh seeded permutation
        each pass. A sequence: one explicit stream of indices per dataset, presented
        once per pass.
    seeds : int, Generator or sequence of int, optional
        For ``"shuffle"``: one seed per dataset, or a root seed from which one child
        seed per dataset is drawn up front (:func:`markone._internal.validation.child_seeds`).
    parallel : bool
        Spread the datasets over threads (``numba.prange``). Worth it for big batches
        on an idle machine; off by default, since sweeps run in parallel processes.

    Returns
    -------
    BatchResult
        Run ``b`` equals ``markone.train(Xs[b], ys[b], ..., seed=res.seeds[b])``.

    Raises
    ------
    ValueError
        On mismatched lengths, bad data (as :func:`markone.train`), or bad orders.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0], [-1.0, -1.0], [2.0, 0.5]])
    >>> res = train_many([X] * 3, [[1, -1, 1]] * 3, order="shuffle", seeds=7)
    >>> bool(res.converged.all()), len(res.seeds)
    (True, 3)
    """
    data, c = _prepare_all(Xs, ys, intercept, intercept_scale)
    B = len(data)
    max_epochs = check_int_at_least(max_epochs, "max_epochs", 1)
    eta = _float_parameter(eta, "eta")
    if isinstance(order, str):
        check_choice(order, "order", ("given", "shuffle"))
    shuffle = isinstance(order, str) and order == "shuffle"
    seeds = _per_dataset_seeds(seeds, B) if shuffle else (None,) * B
    streams = None if isinstance(order, str) else _check_streams(order, data)

    train_block = _train_parallel if parallel else _train_serial
    W: list = [None] * B
    mpe: list = [None] * B
    for members in _same_shape_groups(data, streams).values():
        rngs = [as_generator(seeds[b]) for b in members] if shuffle else None
        try:
            Wg, mpe_g = _train_group([data[b] for b in members], c, eta, max_epochs,
                                     _fixed_orders(members, data, shuffle, streams), rngs,
                                     train_block)
        except _BadRow as exc:
            b = members[exc.args[0]]
            raise ValueError(f"Xs[{b}] {exc.args[1]}; fix that dataset.") from None
        for g, b in enumerate(members):
            W[b] = Wg[g] if intercept else Wg[g, :-1].copy()
            mpe[b] = mpe_g[g]
    return _batch_result(W, mpe, seeds)


def _batch_result(W, mpe, seeds):
    """The :class:`BatchResult` of the weights and mistakes per epoch of each run."""
    mistakes = np.array([sum(m) for m in mpe], dtype=np.int64)
    epochs = np.array([len(m) for m in mpe], dtype=np.int64)
    converged = np.array([bool(m) and m[-1] == 0 for m in mpe], dtype=bool)
    return BatchResult(tuple(W), mistakes, epochs, converged,
                       tuple(tuple(m) for m in mpe), tuple(seeds))


def _same_shape_groups(data, streams):
    """The datasets (indices) by shape and stream length: each group trains at once."""
    groups: dict = {}
    for b, (X, _) in enumerate(data):
        key = (X.shape, 0 if streams is None else len(streams[b]))
        groups.setdefault(key, []).append(b)
    return groups


def _fixed_orders(members, data, shuffle, streams):
    """The ``(G, 1, L)`` orders of a group presented every pass (None: shuffled)."""
    if shuffle:
        return None
    if streams is None:
        fixed = np.arange(data[members[0]][0].shape[0], dtype=np.int64)
        return np.broadcast_to(fixed, (len(members), 1, fixed.size)).copy()
    return np.stack([streams[b] for b in members])[:, None, :]


class _BadRow(Exception):
    """A dataset of a group has a NaN/inf or (without intercept) an all-zero row."""


def _train_group(data, c, eta, max_epochs, fixed, rngs, train_block):
    """Train same-shape datasets together, a growing chunk of passes per call.

    ``fixed``: the ``(G, 1, L)`` orders presented every pass, or ``None`` to draw a
    fresh permutation per pass from ``rngs[g]``. Returns ``(W, mistakes_per_epoch)``.
    """
    X3 = np.stack([X for X, _ in data])
    y2 = np.stack([y for _, y in data])
    G, n = X3.shape[0], X3.shape[1]
    W = np.zeros((G, X3.shape[2] + 1))
    active = np.ones(G, dtype=np.bool_)
    status = np.zeros((G, 2), dtype=np.int64)
    mpe = [[] for _ in range(G)]
    cap = _MAX_CHUNK["fixed" if rngs is None else "shuffle"]
    done = 0
    while done < max_epochs and active.any():
        n_ep = min(max(done, 2), cap, max_epochs - done)
        orders = fixed
        if rngs is not None:  # permutations only for the runs still going
            orders = np.zeros((G, n_ep, n), dtype=np.int64)
            for g in np.flatnonzero(active):
                _permutations(rngs[g], n, n_ep, out=orders[g])
        block = np.full((G, n_ep), -1, dtype=np.int64)
        train_block(X3, y2, c, orders, eta, n_ep, W, block, active, status)
        bad = np.flatnonzero(status[:, 0])
        if bad.size:
            raise _BadRow(int(bad[0]), _BAD_ROW[int(status[bad[0], 0])])
        for g in range(G):
            mpe[g].extend(int(m) for m in block[g] if m >= 0)
        done += n_ep
    return W, mpe


_BAD_ROW = {1: "contains NaN or infinity, or its scores overflow float64 (rescale it)",
            2: "has an all-zero row, which no hyperplane through the origin can "
               "classify (use intercept=True)",
            3: "has scores that underflow float64 (terms below ~1e-292), so rounding "
               "would decide the updates: rescale it, or use markone.train(..., "
               "exact=True)"}


def _per_dataset_seeds(seeds, B):
    if seeds is None or isinstance(seeds, (int, np.integer, np.random.Generator)):
        return tuple(child_seeds(seeds, B))
    seeds = tuple(int(s) for s in seeds)
    if len(seeds) != B:
        raise ValueError(f"seeds has {len(seeds)} entries but there are {B} datasets; "
                         "pass one seed per dataset or one root seed.")
    return seeds


def _check_streams(order, data):
    if len(order) != len(data):
        raise ValueError(f"order has {len(order)} streams but there are {len(data)} "
                         "datasets; pass one index sequence per dataset.")
    streams = []
    for b, (s, (yx, _)) in enumerate(zip(order, data)):
        s = np.asarray(s)
        if s.ndim != 1 or s.size == 0 or s.dtype.kind not in "iu":
            raise ValueError(f"order[{b}] must be a non-empty 1-D sequence of integer "
                             f"indices, got shape {s.shape} and dtype {s.dtype}.")
        if s.min() < 0 or s.max() >= len(yx):
            raise ValueError(f"order[{b}] has indices outside 0..{len(yx) - 1} (its "
                             f"dataset has {len(yx)} rows).")
        streams.append(np.ascontiguousarray(s, dtype=np.int64))
    return streams


def trace_many(Xs: Sequence[ArrayLike], ys: Sequence[ArrayLike], orders: ArrayLike, *,
               intercept: bool = True, intercept_scale: float = 1.0, eta: float = 1.0,
               record_every: int = 1, parallel: bool = False
               ) -> tuple[np.ndarray, np.ndarray]:
    """Run one online stream per run and record its iterates along the way.

    Parameters
    ----------
    Xs, ys : sequences of array-like, or arrays of shape ``(R, n, d)`` / ``(R, n)``
        One dataset per run; all of the same shape.
    orders : array-like of int, shape ``(R, T)``
        The stream of example indices each run sees (e.g. several permutations
        concatenated for several passes), presented once.
    intercept, intercept_scale, eta
        As in :func:`markone.train`.
    record_every : int
        Record after every ``record_every`` presentations (``T // record_every``
        records).
    parallel : bool
        Spread the runs over threads (``numba.prange``), as in :func:`train_many`.

    Returns
    -------
    last, averaged : ndarray, shape ``(R, T // record_every, D)``
        The last iterate, and the average of the iterates after each presentation so
        far (Freund & Schapire's averaged perceptron), at each record. The last iterate
        after the full stream equals ``markone.train(X, y, order=stream,
        max_epochs=1).last_w``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> last, avg = trace_many([X], [[1, -1]], [[0, 1, 0, 1]], intercept=False)
    >>> last[0].tolist()
    [[1.0, 0.0], [1.0, -1.0], [1.0, -1.0], [1.0, -1.0]]
    >>> avg[0, -1].tolist()
    [1.0, -0.75]
    """
    data, c = _prepare_all(list(Xs), list(ys), intercept, intercept_scale)
    shapes = {X.shape for X, _ in data}
    if len(shapes) != 1:
        raise ValueError(f"trace_many needs datasets of one shape, got {sorted(shapes)}; "
                         "call it once per shape.")
    orders = np.asarray(orders)
    R, n = len(data), data[0][0].shape[0]
    if orders.ndim != 2 or orders.shape[0] != R or orders.dtype.kind not in "iu":
        raise ValueError(f"orders must be an integer array of shape (R={R}, T), "
                         f"got shape {orders.shape} and dtype {orders.dtype}.")
    if orders.size and (orders.min() < 0 or orders.max() >= n):
        raise ValueError(f"orders has indices outside 0..{n - 1}.")
    k = check_int_at_least(record_every, "record_every", 1)
    X3 = np.stack([X for X, _ in data])
    y2 = np.stack([y for _, y in data])
    T, D = orders.shape[1], X3.shape[2] + 1
    last = np.zeros((R, T // k, D))
    avg = np.zeros((R, T // k, D))
    status = np.zeros((R, 2), dtype=np.int64)
    trace_block = _trace_parallel if parallel else _trace_serial
    trace_block(X3, y2, c, np.ascontiguousarray(orders, dtype=np.int64),
                _float_parameter(eta, "eta"), k, last, avg, status)
    bad = np.flatnonzero(status[:, 0])
    if bad.size:
        raise ValueError(f"Xs[{bad[0]}] {_BAD_ROW[int(status[bad[0], 0])]}; fix that "
                         "dataset.")
    if not intercept:
        last, avg = last[..., :-1], avg[..., :-1]
    return np.ascontiguousarray(last), np.ascontiguousarray(avg)
