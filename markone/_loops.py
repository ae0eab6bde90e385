"""The hot loops of the perceptron, and nothing else: plain Python, compiled on demand.

Each kernel makes ONE pass over the rows ``idx`` of ``yx`` (the augmented inputs with
their labels folded in, ``yx[i] = y_i * [x_i, c]``), updating the state in place, with
the rule of :mod:`markone.online`: a mistake when ``w . yx[i] <= 0``, then
``w += eta * yx[i]``.

**Plain, or compiled.** This module does not import numba. Each kernel is a plain
Python function that runs as it is (numpy row operations: the uncompiled path, for
small work), and :func:`markone._internal.jit.compiled` makes its numba dispatcher
on demand (the first call that needs it imports numba, then compiles, or loads the
machine code from numba's disk cache). :func:`pass_kernel` chooses, from the work
alone: a run's first :data:`PLAIN_PRESENTATIONS` presentations run plain, the rest
compiled. The plain body of :func:`epoch_general` also runs on object arrays of
Python integers, which is how exact runs continue when int64 would overflow: one
implementation of the loop serves all three.

**Rows, dense or sparse.** Every kernel reads its rows only through row operations
(:func:`row_dot`, :func:`row_axpy`, :func:`row_update`, :func:`row_nonzero`,
:func:`row_underflows`), so one body serves
two layouts: a C-contiguous 2-D array, or a CSR triple ``(data, indices, indptr)``
(:func:`csr_rows`, as in :mod:`scipy.sparse`), whose loops touch only the stored
entries. On the same data the two layouts, and the plain and compiled paths, make the
same decisions and end with the same weights bit for bit whenever the dot products
are exact in float64 (integer data, or dyadic fractions of modest size); otherwise
they differ only by the order in which the products are summed (and the compiled
loops' fused multiply-adds).

* :func:`epoch_last_xy` is the lean loop (last iterate only) used by
  :func:`markone.train` for float data and by the batched runs in :mod:`markone.batch`,
  on the raw inputs ``X`` with the labels and the appended constant folded in on the
  fly. It saves the two passes over memory
  that building ``yx`` costs (and the separate NaN scan: a non-finite input makes its
  score non-finite, which the loop reports), so a float run reads its data once per
  pass, as ``X @ w`` does.
* :func:`epoch_general` also keeps what the variants need (the averaging sum, the
  pocket vector, survival runs, and, on request, every intermediate vector), and
  guards int64 arithmetic against overflow.

>>> import numpy as np, scipy.sparse as sp
>>> X = np.array([[0.0, 2.0, 0.0], [1.0, 0.0, -1.0]])
>>> y, idx, status = np.array([1.0, -1.0]), np.arange(2), np.zeros(2, dtype=np.int64)
>>> w_dense, w_sparse = np.zeros(4), np.zeros(4)
>>> w_compiled = np.zeros(4)
>>> epoch_last_xy(X, y, 1.0, idx, 1.0, w_dense, status)
2
>>> epoch_last_xy(kernel_rows(sp.csr_array(X)), y, 1.0, idx, 1.0, w_sparse, status)
2
>>> compiled(epoch_last_xy)(X, y, 1.0, idx, 1.0, w_compiled, status)
2
>>> w_dense.tolist() == w_sparse.tolist() == w_compiled.tolist() == [-1.0, 2.0, 1.0, 0.0]
True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from markone._internal.jit import (PLAIN_PRESENTATIONS, compiled, kernel, on_first_compile,
                                  plain_form, uncompiled)

__all__ = ["epoch_last_xy", "counted_step", "COUNTED_STEP", "one_index",
           "ONE_INDEX", "epoch_general", "score_underflows", "INT64_LIMIT",
           "UNDERFLOW_ZONE", "csr_rows", "row_dot", "row_axpy", "row_nonzero", "row_update",
           "row_underflows", "row_prefetch", "kernel_rows", "linear_scores", "one_score",
           "one_row",
           "PLAIN_PRESENTATIONS", "PLAIN_RUN", "pass_kernel", "running_sums", "PLAIN_SCORE_OPS"]

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


def pass_kernel(fn, presented, rows, at_most=None):
    """The kernel ``fn`` (:func:`epoch_last_xy` or :func:`epoch_general`) to run a pass
    of ``rows`` presentations after ``presented`` ones: ``fn`` itself (plain Python)
    while ``presented + rows <= PLAIN_PRESENTATIONS``, or for every pass of a run
    that makes ``at_most`` presentations in all, at most :data:`PLAIN_RUN` (4 passes
    over 30,000 rows: plain, some 0.3 s, less than importing numba and loading the
    compiled pass from its cache); else its compiled dispatcher.

    The choice depends on the work alone, never on time or on what is compiled
    already, so the same input takes the same path. On data whose dot products are
    exact in float64 (integers, dyadic fractions of modest size) both paths give the
    same result bit for bit; on other floats the compiled dot product (summed in any
    order, with fused multiply-adds) may differ from the plain one in the last bits.

    >>> pass_kernel(epoch_last_xy, 0, 4) is epoch_last_xy
    True
    >>> pass_kernel(epoch_last_xy, 8_000, 100, at_most=PLAIN_RUN) is epoch_last_xy
    True
    """
    if presented + rows <= PLAIN_PRESENTATIONS or (
            at_most is not None and at_most <= PLAIN_RUN):
        return fn
    return compiled(fn)


#: A run of at most this many presentations in all (passes times rows) runs plain
#: from its first pass to its last (:func:`pass_kernel`); a larger one compiles after
#: its first :data:`PLAIN_PRESENTATIONS`. The line is where the plain work costs what
#: compiling saves: a plain presentation costs about 3 µs (dense rows of up to a few
#: hundred features; 7 µs a CSR row), so a run at the line costs some 0.7 s plain,
#: about what importing numba and loading the pass from its cache costs (0.5 to 0.8
#: s; compiling it, after a fresh install, 2 s). The line looks at the run's whole
#: work, not at a plain prefix: a large run that paid 0.7 s of plain work first would
#: cost every call that much, in a process where the pass is compiled already
#: (``benchmarks/bench_core.py``'s runs of a million presentations take 30 ms).
#: Measured by ``benchmarks/bench_startup.py --constants`` (docs/start-up.md).
PLAIN_RUN = 2**18


@kernel()
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


def csr_rows(A):
    """The CSR triple ``(data, indices, indptr)`` of a canonical :mod:`scipy.sparse`
    CSR matrix or array, the sparse row layout that the kernels accept.

    ``A`` must have no duplicate entries (``A.sum_duplicates()``): the kernels add
    each stored entry once. :func:`markone._internal.validation.check_sparse` returns such a
    matrix.
    """
    return (A.data, A.indices, A.indptr)


def kernel_rows(X):
    """What the kernels take: a dense array itself, or the CSR triple of a sparse
    matrix (:func:`csr_rows`)."""
    return csr_rows(X) if hasattr(X, "indptr") else X


def linear_scores(X, W, offsets):
    """Scores ``S[i, k] = X[i] . W[k] + offsets[k]``, every dot product summed entry by
    entry in column order, so that one row scored alone and the same row scored in a
    batch get the same float64 score bit for bit (ties included).

    BLAS sums a matrix-vector product and a single dot product in different orders, so
    ``(X @ w)[i]`` and ``X[i] @ w`` can differ in the last bit, and, on a score that is
    exactly zero, in sign: a batch ``predict`` and ``predict_one`` would then disagree.
    The estimators score through this function instead. A sparse ``X`` (canonical CSR:
    sorted, no duplicates) gives the same scores as its dense copy, because the zeros
    a dense row adds change no sum.

    >>> import numpy as np, scipy.sparse as sp
    >>> X = np.array([[0.1, 0.2], [0.3, 0.0]])
    >>> W, b = np.array([[1.0, 1.0], [1.0, -1.0]]), np.array([-0.3, 0.0])
    >>> S = linear_scores(X, W, b)
    >>> bool((S[1] == linear_scores(X[1:], W, b)[0]).all())
    True
    >>> bool((S == linear_scores(sp.csr_array(X), W, b)).all())
    True
    """
    W = np.ascontiguousarray(W, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.float64)
    out = np.empty((X.shape[0], W.shape[0]))
    sparse = hasattr(X, "indptr")
    work = (X.nnz if sparse else X.shape[0] * X.shape[1]) * W.shape[0]
    if sparse:
        step = _csr_scores if work <= PLAIN_SCORE_OPS else compiled(_csr_scores)
        uncompiled(step)(X.data, X.indices, X.indptr, W, offsets, out)
    else:
        step = _dense_scores if work <= PLAIN_SCORE_OPS else compiled(_dense_scores)
        uncompiled(step)(np.asarray(X, dtype=np.float64), W, offsets, out)
    return out


#: :func:`linear_scores` of at most this many products runs numpy's whole-array
#: form of its kernel (the same sums bit for bit, in milliseconds), larger ones the
#: compiled loop: numba is not imported to score a small set.
PLAIN_SCORE_OPS = 2**22


def one_score(x, w, offset):
    """``x . w[:len(x)] + offset`` summed as :func:`linear_scores` sums a row (the
    same order, so the same float64), without its per-call arrays: the one-example
    path of ``predict_one``.

    >>> import numpy as np
    >>> X, w = np.array([[0.1, 0.2], [0.3, 0.0]]), np.array([1.0, -1.0, 5.0])
    >>> bool(one_score(X[0], w, -0.3) == linear_scores(X, w[None, :2], [-0.3])[0, 0])
    True
    """
    return compiled(_one_score)(one_row(x), w, offset)


def one_row(x):
    """``x`` (a float64 row) as the one layout the compiled one-row kernels are
    compiled for, C-contiguous and writeable: ``x`` itself, or a copy of a strided or
    read-only row (a copy of a row costs less than a compile for each layout).

    >>> import numpy as np
    >>> x = np.arange(4.0)
    >>> one_row(x) is x, one_row(x[::2]).tolist()
    (True, [0.0, 2.0])
    """
    return x if x.flags.c_contiguous and x.flags.writeable else np.array(x, order="C")


@kernel()
def _one_score(x, w, offset):
    s = 0.0
    for j in range(x.shape[0]):
        s += x[j] * w[j]
    return s + offset


@kernel()
def _dense_scores(X, W, offsets, out):
    for i in range(X.shape[0]):
        for k in range(W.shape[0]):
            s = 0.0
            for j in range(X.shape[1]):
                s += X[i, j] * W[k, j]
            out[i, k] = s + offsets[k]


@kernel()
def _csr_scores(data, indices, indptr, W, offsets, out):
    for i in range(out.shape[0]):
        for k in range(W.shape[0]):
            s = 0.0
            for e in range(indptr[i], indptr[i + 1]):
                s += data[e] * W[k, indices[e]]
            out[i, k] = s + offsets[k]


def running_sums(terms: np.ndarray) -> np.ndarray:
    """The last running sum of each row of ``terms`` (``(..., k)``), started at +0.0
    and taken left to right as the kernels' loops take them (``s = 0.0; s += t``):
    ``np.cumsum``, where ``np.sum`` sums pairwise, plus +0.0, which turns the -0.0 of
    a sum that started at a -0.0 term into the loops' +0.0. The plain forms of the
    kernels sum with it, bit for bit as compiled.

    >>> t = np.array([[1e16, 1.0, -1e16, 1.0], [-0.0, -0.0, -0.0, -0.0]])
    >>> running_sums(t).tolist()    # ((1e16 + 1) - 1e16) + 1; 0.0 + -0.0 ... is 0.0
    [1.0, 0.0]
    """
    if terms.shape[-1] == 0:
        return np.zeros(terms.shape[:-1])
    return np.cumsum(terms, axis=-1)[..., -1] + 0.0


#: rows scored per numpy call by the plain :func:`_dense_scores`
_SCORE_CHUNK = 256


@plain_form(_dense_scores)
def _dense_scores_plain(X, W, offsets, out):
    for i in range(0, X.shape[0], _SCORE_CHUNK):
        out[i:i + _SCORE_CHUNK] = running_sums(X[i:i + _SCORE_CHUNK, None, :] * W) + offsets


@plain_form(_csr_scores)
def _csr_scores_plain(data, indices, indptr, W, offsets, out):
    for i in range(out.shape[0]):
        lo, hi = indptr[i], indptr[i + 1]
        out[i] = running_sums(data[lo:hi] * W[:, indices[lo:hi]]) + offsets


# ----------------------------------------------------------------------------------
# row operations: plain Python (numpy) bodies for dense rows (also of Python integers)
# and CSR triples, and their compiled overloads (registered when numba is loaded)


def _csr_slice(X, i):
    data, indices, indptr = X
    lo, hi = indptr[i], indptr[i + 1]
    return data[lo:hi], indices[lo:hi]


def row_dot(X, i, w):
    """``X[i] . w`` (``w`` may be longer than the row: its first entries are used)."""
    if isinstance(X, tuple):
        values, cols = _csr_slice(X, i)
        return np.dot(values, w[cols]) if len(values) else 0 * w[0]
    row = X[i]
    return np.dot(row, w[:len(row)])


def row_axpy(X, i, a, w):
    """``w += a * X[i]``."""
    if isinstance(X, tuple):
        values, cols = _csr_slice(X, i)
        w[cols] += a * values
    else:
        row = X[i]
        w[:len(row)] += a * row


def row_nonzero(X, i):
    """Whether row ``i`` of ``X`` has a nonzero entry."""
    values = _csr_slice(X, i)[0] if isinstance(X, tuple) else X[i]
    return bool(values.any())


def row_update(X, i, a, step, w, acc):
    """``w += a * X[i]`` and ``acc += step * a * X[i]`` (the averaging sum)."""
    if isinstance(X, tuple):
        values, cols = _csr_slice(X, i)
        delta = a * values
        w[cols] += delta
        acc[cols] += step * delta
        return
    delta = a * X[i]
    w += delta
    acc += step * delta


def row_underflows(X, i, w, c):
    """:func:`score_underflows` for row ``i`` of ``X`` (dense, or a CSR triple)."""
    if isinstance(X, tuple):
        data, indices, indptr = X
        return _csr_underflows(data, indices, indptr, i, w, c)
    return _score_underflows(w, X[i], c)


@plain_form(score_underflows)
def _score_underflows(w, row, c):
    """:func:`score_underflows` in numpy's whole-array operations (the same value:
    its terms summed left to right, by ``np.cumsum``); called with all weights zero by
    every run's first presentation, where the loop cost a one-example ``train`` a
    tenth of its time.

    >>> w, row = np.array([0.0, 2.0**-600, 0.0]), np.array([3.0, 2.0**-600])
    >>> bool(_score_underflows(w, row, 1.0)), bool(score_underflows(w, row, 1.0))
    (True, True)
    """
    d = row.shape[0]
    wx = w[:d]
    live = (row != 0) & (wx != 0)
    if not (live.any() or (w[d] != 0 and c != 0)):
        return False
    terms = np.abs(wx[live] * row[live])
    return bool(np.cumsum(np.concatenate(([abs(w[d] * c)], terms)))[-1] < UNDERFLOW_ZONE)


def row_prefetch(X, idx, t):
    """Ask the processor for the row that ``idx`` lists a few positions after ``t``
    (about 8 KiB ahead), so that it is on its way when the loop gets there: a hint,
    with no effect on any result. Plain Python: nothing. Compiled, dense rows: every
    cache line of the row (``train(order="shuffle")`` 1.35x faster on 100 and on
    1,000 features, with the listed loop's reference counts gone, issue 32); CSR
    rows: nothing yet."""


# The CSR loops are compiled without fast-math (vectorising a gather, which
# "reassoc" invites, made them about 1.3x slower here; the sum then runs entry by
# entry), and index with unsigned integers: a signed index costs a wrap-around test
# per entry, and dropping it made the sparse pass 1.4x faster, as fast as ``A @ w``.

@kernel()
def _csr_dot(data, indices, indptr, i, w):
    s = 0 * w[0]
    for k in range(np.uintp(indptr[i]), np.uintp(indptr[i + 1])):
        s += w[np.uintp(indices[k])] * data[k]
    return s


@kernel()
def _csr_axpy(data, indices, indptr, i, a, w):
    for k in range(np.uintp(indptr[i]), np.uintp(indptr[i + 1])):
        w[np.uintp(indices[k])] += a * data[k]


@kernel()
def _any_nonzero(values):
    for v in values:
        if v != 0:
            return True
    return False


@kernel()
def _csr_update(data, indices, indptr, i, a, step, w, acc):
    for k in range(np.uintp(indptr[i]), np.uintp(indptr[i + 1])):
        j = np.uintp(indices[k])
        delta = a * data[k]
        w[j] += delta
        acc[j] += step * delta


@kernel()
def _csr_underflows(data, indices, indptr, i, w, c):
    d = w.shape[0] - 1
    live = w[d] != 0 and c != 0
    a = abs(w[d] * c)
    for k in range(np.uintp(indptr[i]), np.uintp(indptr[i + 1])):
        j = np.uintp(indices[k])
        if data[k] != 0 and w[j] != 0:
            live = True
            a += abs(w[j] * data[k])
    return live and a < UNDERFLOW_ZONE


def _prefetch_intrinsic(numba):
    """``prefetch(A, i, j)``: compiled code that asks for the cache line holding
    ``A[i, j]`` (LLVM's ``llvm.prefetch``: a read, kept in every cache level), for a
    2-D array of any layout; it loads nothing and never faults."""
    # light start-up: numba and llvmlite load with the first compile, not with markone
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def prefetch(typingctx, A, i, j):
        def codegen(context, builder, signature, args):
            array = context.make_array(signature.args[0])(context, builder, args[0])
            row_stride = cgutils.unpack_tuple(builder, array.strides, 2)[0]
            offset = builder.add(builder.mul(args[1], row_stride), args[2])
            address = builder.add(builder.ptrtoint(array.data, offset.type), offset)
            byte = ir.IntType(8).as_pointer()
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
                ir.VoidType(), [byte] + [ir.IntType(32)] * 3), "llvm.prefetch.p0")
            builder.call(fn, [builder.inttoptr(address, byte)] +
                         [ir.Constant(ir.IntType(32), v) for v in (0, 3, 1)])
            return context.get_dummy_value()
        return types.void(A, types.intp, types.intp), codegen

    return prefetch


@on_first_compile
def _compiled_row_operations(numba):
    """The compiled row operations: one body per layout, chosen by type."""
    from numba.extending import overload  # light start-up: numba with the first compile

    def dense(X):
        return isinstance(X, numba.types.Array)

    _overload_arithmetic(overload, dense)
    _overload_reads(overload, dense, _prefetch_intrinsic(numba))


def _overload_arithmetic(overload, dense):
    """The compiled :func:`row_dot`, :func:`row_axpy` and :func:`row_update`."""

    @overload(row_dot, jit_options={"fastmath": FASTMATH})
    def _row_dot(X, i, w):
        if dense(X):
            def dense_dot(X, i, w):
                row = X[i]
                s = 0 * w[0]
                for j in range(row.shape[0]):
                    s += w[j] * row[j]
                return s
            return dense_dot

        def sparse_dot(X, i, w):
            return _csr_dot(X[0], X[1], X[2], i, w)
        return sparse_dot

    @overload(row_axpy, jit_options={"fastmath": FASTMATH})
    def _row_axpy(X, i, a, w):
        if dense(X):
            def dense_axpy(X, i, a, w):
                row = X[i]
                for j in range(row.shape[0]):
                    w[j] += a * row[j]
            return dense_axpy

        def sparse_axpy(X, i, a, w):
            _csr_axpy(X[0], X[1], X[2], i, a, w)
        return sparse_axpy

    @overload(row_update)
    def _row_update(X, i, a, step, w, acc):
        if dense(X):
            def dense_update(X, i, a, step, w, acc):
                row = X[i]
                for j in range(row.shape[0]):
                    delta = a * row[j]
                    w[j] += delta
                    acc[j] += step * delta
            return dense_update

        def sparse_update(X, i, a, step, w, acc):
            _csr_update(X[0], X[1], X[2], i, a, step, w, acc)
        return sparse_update


def _overload_reads(overload, dense, prefetch):
    """The compiled :func:`row_nonzero`, :func:`row_prefetch` and
    :func:`row_underflows`."""

    @overload(row_nonzero)
    def _row_nonzero(X, i):
        if dense(X):
            def dense_nonzero(X, i):
                return _any_nonzero(X[i])
            return dense_nonzero

        def sparse_nonzero(X, i):
            return _any_nonzero(X[0][X[2][i]:X[2][i + 1]])
        return sparse_nonzero

    @overload(row_prefetch)
    def _row_prefetch(X, idx, t):
        if dense(X):
            def dense_prefetch(X, idx, t):
                row_bytes = X.shape[1] * X.itemsize
                ahead = t + max(1, 8192 // max(1, row_bytes))
                if ahead < idx.shape[0]:
                    i = idx[ahead]
                    for b in range(0, row_bytes, 64):
                        prefetch(X, i, b)
            return dense_prefetch

        def sparse_prefetch(X, idx, t):
            pass
        return sparse_prefetch

    @overload(row_underflows)
    def _row_underflows(X, i, w, c):
        if dense(X):
            def dense_underflows(X, i, w, c):
                return score_underflows(w, X[i], c)
            return dense_underflows

        def sparse_underflows(X, i, w, c):
            return _csr_underflows(X[0], X[1], X[2], i, w, c)
        return sparse_underflows


# ----------------------------------------------------------------------------------
# the passes


def _presentations(in_order, **options):
    """The loop of :func:`epoch_last_xy` from position ``t`` on, as a kernel that
    compiled code calls (numba compiles it, and the row operations it calls, as
    functions of their own, which LLVM may inline: inlining them into numba's IR
    instead, ``inline="always"``, made the pass take 5.4 s to compile, not 1.7 s,
    and ran no faster; issue 38): over the rows ``idx`` lists (``in_order=False``), or over
    the rows in order while ``idx`` lists them so (``in_order=True``: row ``t`` at
    position ``t``; it stops at the first position that lists another row).
    ``options`` go to :func:`~markone._internal.jit.kernel` (``inline="always"``:
    compiled into its caller, as :func:`counted_step`'s one presentation is).

    ``in_order`` is a constant of the compiled code. In order, a row's number is the
    loop counter itself, not a value read from ``idx``: the processor can compute the
    addresses of the next rows and request them while it waits for the current one's
    data. Read from ``idx`` (a load in the chain of every row's address, even one that
    hits the cache), the same pass ran 1.4x slower on 100-feature rows (issue 32).

    The kernel returns ``(t, mistakes, stopped)``: where the loop ended, the mistakes
    counted (``mistakes`` on entry included), and whether a row stopped it (``status``
    then says which and why)."""

    def presentations(X, y, c, idx, t, eta, w, status, mistakes):
        d = w.shape[0] - 1
        while t < idx.shape[0]:
            if in_order:
                if idx[t] != t:
                    break
                i = t
            else:
                i = idx[t]
                row_prefetch(X, idx, t)
            s = w[d] * c + row_dot(X, i, w)
            if not math.isfinite(s):
                status[0] = 1
                status[1] = t
                return t, mistakes, True
            if abs(s) < UNDERFLOW_ZONE and row_underflows(X, i, w, c):  # rare: tiny |s|
                status[0] = 3
                status[1] = t
                return t, mistakes, True
            if y[i] * s <= 0:
                # a zero input (scored 0 without a constant) can never be classified;
                # its score is exactly 0, so only such scores look at the row
                if s == 0 and c == 0 and not row_nonzero(X, i):
                    status[0] = 2
                    status[1] = t
                    return t, mistakes, True
                step = eta * y[i]
                row_axpy(X, i, step, w)
                w[d] += step * c
                mistakes += 1
            t += 1
        return t, mistakes, False

    presentations.__qualname__ = presentations.__name__ = \
        "rows_in_order" if in_order else "listed_rows"
    return kernel(fastmath=FASTMATH, **options)(presentations)


_rows_in_order = _presentations(in_order=True)
_listed_rows = _presentations(in_order=False)
# counted_step's one presentation, compiled into it: called, as the pass would be, it
# cost a compiled learn_one 0.06 µs of some 0.6; inlined, the step compiles faster
# than with the pass in it (2.5 s, not 3.2: the listed loop is left out)
_step_rows = _presentations(in_order=True, inline="always")


# Compiled without numba's reference counts (``_nrt=False``): the pass allocates
# nothing, and the counts of the arrays its loops receive, atomic operations
# in the listed loop's every presentation, made a shuffled pass 1.3x slower.
@kernel(fastmath=FASTMATH, _nrt=False)
def epoch_last_xy(X, y, c, idx, eta, w, status):
    """One pass of the plain perceptron over ``(X[idx], y[idx])``.

    ``w`` has ``d + 1`` entries, the last one the weight of the constant ``c``
    (``c = 0`` for no intercept). Returns the mistakes made. Stops early with
    ``status = [1, t]`` when the score at position ``t`` is not finite (a NaN or
    infinity in that input, or an overflow), ``[2, t]`` when a zero input vector (with
    ``c = 0``) was met, which no weight vector can ever classify, or ``[3, t]`` when
    the score underflows (:func:`score_underflows`): float64 cannot carry the data.

    The positions where ``idx`` lists the rows in order (all of them for
    ``order="given"``) run the in-order loop of :func:`_presentations`, the rest the
    listed one: the same presentations, decisions and weights, faster.
    """
    t, mistakes, stopped = _rows_in_order(X, y, c, idx, 0, eta, w, status, 0)
    if not stopped and t < idx.shape[0]:
        mistakes = _listed_rows(X, y, c, idx, t, eta, w, status, mistakes)[1]
    return mistakes


#: The one position of a one-example pass (a constant: the step allocates nothing).
_FIRST = np.zeros(1, dtype=np.int64)


#: The one signature :func:`counted_step` is compiled for (``x`` of any strides).
COUNTED_STEP = "(float64[:], float64, float64, float64, float64[::1], int64[::1])"

#: The one-example kernels keep the GIL (releasing and retaking it cost 0.045 µs of a
#: 0.2 µs call that does a few dozen flops) and run without numba's reference counts
#: (``_nrt=False``: they allocate nothing, so the counts, atomic increments and
#: decrements of every array passed on, only cost time: 0.22 -> 0.12 µs a call).
_ONE_EXAMPLE: dict[str, Any] = {"nogil": False, "_nrt": False}


@kernel(fastmath=FASTMATH, **_ONE_EXAMPLE)
def counted_step(x, sign, c, eta, w, status):
    """:func:`epoch_last_xy` on the one example ``x`` (1-D, any strides) of label
    ``sign``, its position 0, counting its update in ``status[2]``; returns
    ``status[0]``: 0, or the code of the stop (the row is then refused, nothing
    changed). The lean engine's step, with fewer arguments to pass per call and no
    array made: the compiled ``learn_one`` of :class:`markone.Perceptron` (both its
    paths), called through its :func:`~markone._internal.jit.entry_point` for
    :data:`COUNTED_STEP`, the one signature it is compiled for.
    It runs the in-order loop of epoch_last_xy's pass on its one row (position 0
    is in order), compiled into it: no call boundary.

    >>> w, status = np.zeros(3), np.zeros(3, dtype=np.int64)
    >>> int(counted_step(np.array([1.0, 2.0]), -1.0, 1.0, 1.0, w, status)), status.tolist()
    (0, [0, 0, 1])
    >>> int(counted_step(np.array([np.nan, 2.0]), 1.0, 1.0, 1.0, w, status)), status.tolist()
    (1, [1, 0, 1])
    """
    status[2] += _step_rows(x[None, :], (sign,), c, _FIRST, 0, eta, w, status, 0)[1]
    return status[0]


#: The one signature :func:`one_index` is compiled for.
ONE_INDEX = "(float64[:], float64[::1], float64)"


@kernel(**_ONE_EXAMPLE)
def one_index(x, w, c):
    """The class index of one example ``x`` for a binary learner's vector ``w``
    (the constant ``c``'s weight last): 1 when its score (:func:`one_score`'s sum)
    is >= 0, 0 when below, -1 when it is not finite.

    >>> one_index(np.array([1.0, 2.0]), np.array([1.0, -1.0, 0.5]), 2.0)
    1
    >>> one_index(np.array([np.inf, 2.0]), np.array([1.0, -1.0, 0.5]), 2.0)
    -1
    """
    s = _one_score(x, w, w[x.shape[0]] * c)
    if not math.isfinite(s):
        return -1
    return 1 if s >= 0 else 0


@kernel()
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
    d = w.shape[0]
    mistakes = 0
    for t in range(idx.shape[0]):
        i = idx[t]
        s = row_dot(yx, i, w)
        step = ctr[0] + 1
        if not s > 0:  # a NaN score (an overflow: inf - inf) is no correct answer
            if limit > 0:  # keep wmax * l1max and step * wmax below limit
                cap = min(limit // l1max, limit // step)
                if eta * xmax[i] > cap - ctr[4]:
                    return -1 - t
                ctr[4] += eta * xmax[i]
            row_update(yx, i, eta, step, w, acc)
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

