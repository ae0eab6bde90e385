"""Append-only row stores that grow by doubling: amortised O(1) per stored entry.

A learner that keeps examples as it goes (the kernel perceptron's support set) must
not rebuild its arrays on every append: a stream of ``n`` appends would cost
O(n^2). These stores preallocate and double their buffers when full, so an append
costs what it copies in, and a view of what is stored is a slice (no copy).

* :class:`Vector`: a growing 1-D array (mistake counts, dual coefficients).
* :class:`Rows`: growing rows of ``d`` features, dense (an ``(n, d)`` buffer) or
  sparse (CSR buffers ``data``, ``indices``, ``indptr``, only the stored entries),
  with the squared norm of each row (what the RBF kernel needs). Its layout is set
  by the first rows appended: sparse rows make a sparse store; a dense row appended
  to a sparse store is stored by its non-zeros, a sparse row in a dense store is
  written out.

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> rows = Rows(3)
>>> rows.extend(sp.csr_array([[0.0, 2.0, 0.0], [1.0, 0.0, -1.0]]))
>>> rows.extend(np.array([[0.0, 0.0, 3.0]]))
>>> rows.view().toarray().tolist(), rows.sq_norms().tolist()
([[0.0, 2.0, 0.0], [1.0, 0.0, -1.0], [0.0, 0.0, 3.0]], [4.0, 2.0, 9.0])
>>> v = Vector(np.int64)
>>> v.extend([1, 2]); v.extend([3]); v.view().tolist()
[1, 2, 3]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from markone._internal.validation import is_sparse

__all__ = ["Vector", "Rows", "sq_norms"]

_FIRST = 16  # initial capacity (rows, entries)


def _reserve(buf: np.ndarray, need: int) -> np.ndarray:
    """``buf`` when it has room for ``need`` items (along axis 0), else a copy of it
    into a buffer at least twice as large."""
    if len(buf) >= need:
        return buf
    new = np.empty((max(need, 2 * len(buf)),) + buf.shape[1:], dtype=buf.dtype)
    new[:len(buf)] = buf
    return new


class Vector:
    """A 1-D array of one dtype that grows by appending (amortised O(1) per item)."""

    def __init__(self, dtype: Any) -> None:
        self._buf = np.empty(_FIRST, dtype=dtype)
        self.n = 0

    def extend(self, values: Any) -> None:
        """Append ``values`` (a 1-D sequence)."""
        values = np.asarray(values, dtype=self._buf.dtype).ravel()
        self._buf = _reserve(self._buf, self.n + len(values))
        self._buf[self.n:self.n + len(values)] = values
        self.n += len(values)

    def view(self) -> np.ndarray:
        """What is stored (a view; copy it before handing it out)."""
        return self._buf[:self.n]


class Rows:
    """Rows of ``n_features`` entries, appended in amortised O(entries) each.

    Dense or CSR, fixed by the first non-empty :meth:`extend`; see the module
    docstring.
    """

    def __init__(self, n_features: int) -> None:
        self.d = n_features
        self.n = 0
        self.sparse: bool | None = None  # set by the first rows
        self._norms = Vector(np.float64)

    def _start(self, sparse: bool) -> None:
        self.sparse = sparse
        if sparse:
            self._data = np.empty(_FIRST * 4, dtype=np.float64)
            self._indices = np.empty(_FIRST * 4, dtype=np.int64)
            self._indptr = np.zeros(_FIRST + 1, dtype=np.int64)
        else:
            self._dense = np.empty((_FIRST, self.d), dtype=np.float64)

    def extend(self, X: Any) -> None:
        """Append the rows of ``X``: a float64 2-D array or a CSR matrix/array."""
        k = X.shape[0]
        if k == 0:
            return
        if self.sparse is None:
            self._start(is_sparse(X))
        if not self.sparse:
            X = X.toarray() if is_sparse(X) else X
            self._dense = _reserve(self._dense, self.n + k)
            self._dense[self.n:self.n + k] = X
            self._norms.extend(sq_norms(X))
        else:
            self._extend_csr(X if is_sparse(X) else _csr_of(X))
        self.n += k

    def _extend_csr(self, X: Any) -> None:
        k, start = X.shape[0], int(self._indptr[self.n])
        nnz = int(X.indptr[k] - X.indptr[0])
        lo = int(X.indptr[0])
        self._data = _reserve(self._data, start + nnz)
        self._indices = _reserve(self._indices, start + nnz)
        self._indptr = _reserve(self._indptr, self.n + k + 1)
        self._data[start:start + nnz] = X.data[lo:lo + nnz]
        self._indices[start:start + nnz] = X.indices[lo:lo + nnz]
        offsets = X.indptr[1:k + 1].astype(np.int64)  # int32 offsets would overflow
        self._indptr[self.n + 1:self.n + k + 1] = offsets - lo + start
        self._norms.extend(sq_norms(X))

    def view(self) -> Any:
        """The stored rows, without copying: an ``(n, d)`` array, or a CSR array."""
        if not self.sparse:
            return self._dense[:self.n] if self.sparse is False else np.empty((0, self.d))
        import scipy.sparse  # light start-up: scipy only for sparse data

        end = int(self._indptr[self.n])
        return scipy.sparse.csr_array(
            (self._data[:end], self._indices[:end], self._indptr[:self.n + 1]),
            shape=(self.n, self.d), copy=False)

    def sq_norms(self) -> np.ndarray:
        """``||row||^2`` of every stored row (a view)."""
        return self._norms.view()


def sq_norms(X: Any) -> np.ndarray:
    """``||x||^2`` of every row of ``X`` (dense, or CSR: from the stored entries).

    >>> import scipy.sparse as sp
    >>> sq_norms(sp.csr_array([[0.0, 0.0], [3.0, -4.0]])).tolist(), sq_norms(
    ...     np.array([[1.0, 2.0]])).tolist()
    ([0.0, 25.0], [5.0])
    """
    if not is_sparse(X):
        return np.einsum("ij,ij->i", X, X)
    k = X.shape[0]
    lo, hi = int(X.indptr[0]), int(X.indptr[k])
    row = np.repeat(np.arange(k), np.diff(X.indptr))
    sq = np.bincount(row, weights=X.data[lo:hi] ** 2, minlength=k)
    return sq.astype(np.float64, copy=False)  # (int zeros when nothing is stored)


def _csr_of(X: np.ndarray) -> Any:
    import scipy.sparse  # light start-up: scipy only for sparse data

    return scipy.sparse.csr_array(X)
