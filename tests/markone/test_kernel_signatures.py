"""A kernel is compiled once for the inputs it serves, not once per layout, index type
or literal constant it happens to meet (issue 37: each extra signature is a compile of
one to several seconds of CPU on a new user's first run, and in the test suite)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from markone import _loops, batch
from markone._internal.jit import compiled
from markone._internal.validation import check_sparse
from markone._loops import PLAIN_PRESENTATIONS, counted_step, one_row, one_score, _one_score
from markone.engine import _Engine
from markone.hardware import plugboard

def _rows():
    """One float64 row as C-contiguous, strided and read-only arrays."""
    base = np.array([1.0, -2.0, 0.5, 3.0, 0.25, -1.0])
    frozen = base[:3].copy()
    frozen.flags.writeable = False
    return [base[:3].copy(), base[::2], frozen]


def _rows_handed_over(monkeypatch):
    """The rows :func:`markone._loops.one_row` hands to the compiled one-row kernels
    while the test runs (other tests in the same worker may compile these kernels for
    other callers' layouts: what this test's calls pass is what it checks)."""
    handed = []

    def spy(x):
        row = one_row(x)
        handed.append(row)
        return row

    monkeypatch.setattr(_loops, "one_row", spy)
    return handed


def _one_layout(rows):
    return {(r.flags.c_contiguous, r.flags.writeable) for r in rows} == {(True, True)}


def test_one_score_is_compiled_for_one_row_layout(monkeypatch):
    handed = _rows_handed_over(monkeypatch)
    before = set(compiled(_one_score).signatures)
    w = np.array([0.5, 1.0, -1.0, 2.0])
    scores = [one_score(x, w, 0.25) for x in _rows()]
    assert scores == [float(x @ w[:3]) + 0.25 for x in _rows()]
    assert len(handed) == 3 and _one_layout(handed)
    assert len(set(compiled(_one_score).signatures) - before) <= 1


def test_the_engines_step_is_learn_ones_one_compiled_step():
    # the general path of learn_one (an engine's step: a label code, a row of any
    # layout) and its lean path run one kernel for one signature; a step of its own,
    # compiled for the rows and label types its callers passed, was a second compile of
    # the pass (its one position a global array, which numba freezes read-only: the pass
    # again for a read-only index and a tuple of labels, about 2.5 s; issue 37)
    engine = _Engine(4, np.float64, lean=True, keep_history=False)
    engine.presented = PLAIN_PRESENTATIONS   # the plain steps are made: compiled now
    updates = [engine.step(x, sign, 1.0, 1.0) for x, sign in zip(_rows(), (-1, -1, -1.0))]
    assert updates == [1, 0, 0] and engine.w.tolist() == [-1.0, 2.0, -0.5, -1.0]
    assert engine.step_updates == 0   # learn_one counts the general path's updates
    assert len(compiled(counted_step).signatures) == 1   # COUNTED_STEP's


def test_a_sparse_matrix_reaches_the_kernels_with_one_index_type():
    A = sp.csr_array(np.array([[0.0, 2.0, 0.0], [1.0, 0.0, -1.0]]))
    wide = sp.csr_array((A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64)),
                        shape=A.shape)
    for matrix in (A, wide):
        checked = check_sparse(matrix)
        assert checked.indices.dtype == checked.indptr.dtype == np.int32
        assert checked.toarray().tolist() == A.toarray().tolist()


def test_the_serial_and_parallel_batches_compile_one_run_of_a_dataset():
    X, y = np.array([[1.0, 2.0], [-1.0, -1.5], [2.0, 0.5]]), np.array([1, -1, 1])
    runs = [batch.train_many([X] * 2, [y] * 2, parallel=parallel)
            for parallel in (False, True)]
    serial, parallel = (np.asarray(run.w).tolist() for run in runs)
    assert serial == parallel and runs[0].converged.all()
    # prange's uint64 index is not a second signature (the callee of a kernel loaded
    # from the disk cache is not loaded in this process: its index says what was made)
    assert len(cached_signatures(batch._train_one)) == 1


def cached_signatures(dispatcher):
    """The signatures the disk cache holds for ``dispatcher`` (this version of the
    sources): every one compiled, in any process."""
    return [key[0] for key in dispatcher._cache._cache_file._load_index()]



def test_the_active_units_csr_is_compiled_for_c_ordered_figures_only():
    # a session's A-unit outputs may come Fortran-ordered (a transposed product):
    # the CSR kernel was compiled a second time for them
    A = np.random.default_rng(0).random((6, 9)) < 0.4
    for figures in (A, np.asfortranarray(A), A.astype(np.int8) != 0):
        ptr, idx = plugboard._active_csr(figures)
        assert [idx[ptr[i]:ptr[i + 1]].tolist() for i in range(6)] == \
            [np.flatnonzero(row).tolist() for row in A]
    assert {(sig[0].dtype.name, sig[0].layout)
            for sig in compiled(plugboard._active_units).signatures} == {("bool", "C")}


def test_no_caller_compiles_the_lean_pass_for_strided_rows():
    # training hands the pass C-ordered rows and the engine's step one_row's: a strided
    # ('A' layout) signature of either is the compile of a second pass (about 1.5 s,
    # issue 37). The signatures this process compiled or loaded (a test of the same
    # worker that compiled them for strided rows before this one fails it; the disk
    # cache's index is not read: a stale checkout sharing it would fail every later run)
    for kernel in (_loops.epoch_last_xy,):
        layouts = [sig[0].layout for sig in compiled(kernel).signatures
                   if hasattr(sig[0], "layout")]
        assert set(layouts) <= {"C"}


def test_the_devices_moves_are_compiled_for_writeable_requests(monkeypatch):
    # a read-only request (a caller's frozen array) compiled the moves a second time
    from markone.hardware import trial
    from markone.hardware.devices import Devices
    from markone.hardware.params import MarkIParams
    devices = Devices(MarkIParams(n_r_units=2, n_a_units=3, up_down=0.5), np.ones((2, 3)))
    request = np.array([[1.0, -1.0, 0.0], [2.0, 0.0, -2.0]])
    request.flags.writeable = False
    plain = devices.moves(np.array([0, 1]), request, np.random.default_rng(0))
    monkeypatch.setattr(trial.PLAIN, "left", 0)   # the compiled kernel
    moves = devices.moves(np.array([0, 1]), request, np.random.default_rng(0))
    assert moves.tolist() == plain.tolist() and moves[0, 0] != 1.0   # up_down acted
    # and for the (R-units, A-units) requests Devices makes, not again for 1-D ones
    assert all(sig[0].mutable and sig[0].ndim == 2
               for sig in compiled(trial.device_moves).signatures)


def test_a_kernel_declared_with_its_signatures_converts_to_them_never_compiles_more():
    from markone._internal.jit import kernel

    @kernel(signatures=["(float64[:, :],)"])
    def corner(M):
        return M[0, 0]

    whole = np.arange(6.0).reshape(2, 3)
    assert compiled(corner)(whole) == 0.0 and compiled(corner)(whole[:, 1:]) == 1.0
    assert [sig[0].layout for sig in compiled(corner).signatures] == ["A"]
    with pytest.raises(TypeError, match="No matching definition"):
        compiled(corner)(whole.astype(np.int64))   # refused, not compiled for int64
