"""Sparse data as plain lists: the ``"layout": "csr"`` block of a certificate file.

Standard library only. The trusted kernel reads a :class:`SparseData` like a
scipy.sparse matrix (``shape``, ``tocsr()``, ``indptr``, ``indices``, ``data``) and
checks its structure itself; the canonical form checked here is the file format's (one
matrix, one encoding).
"""

from __future__ import annotations

import dataclasses
import operator
from itertools import islice
from typing import Any

from verify.certificate.kernel import number

__all__ = ["SparseData"]


@dataclasses.dataclass(frozen=True)
class SparseData:
    """A sparse matrix in compressed sparse row form, as plain lists: the ``"layout":
    "csr"`` data of a certificate file, and a matrix the kernel reads like a scipy.sparse
    one (``shape``, ``tocsr()``, ``indptr``, ``indices``, ``data``).

    Row ``i`` holds ``values[k]`` at column ``indices[k]`` for ``indptr[i] <= k <
    indptr[i + 1]``; every other entry is 0. The form is canonical: the columns of a row
    strictly increase (no entry twice) and no stored value is 0, so one matrix has one
    encoding. The constructor checks all of it, in time O(n + nnz), and raises
    ValueError naming the first field that is wrong.

    >>> from verify.certificate import data_sha256
    >>> A = SparseData((2, 3), [0, 1, 1], [2], ["1/2"])
    >>> data_sha256(A, [1, -1]) == data_sha256([[0, 0, "1/2"], [0, 0, 0]], [1, -1])
    True
    >>> SparseData((2, 3), [0, 2, 2], [1, 1], [5, 6])
    Traceback (most recent call last):
    ...
    ValueError: indices: X[0] names the column index 1 twice (or out of order); the columns of a row must strictly increase.
    """

    shape: tuple[int, int]
    indptr: list[int]
    indices: list[int]
    values: list[Any]

    def __post_init__(self) -> None:
        shape = self.shape
        if not isinstance(shape, (list, tuple)) or len(shape) != 2 or \
                not set(map(type, shape)) <= {int} or min(shape) < 1:
            raise ValueError(f"shape is {shape!r}; it must be [n, d], two positive "
                             "integers.")
        object.__setattr__(self, "shape", tuple(shape))
        for name in ("indptr", "indices", "values"):
            if not isinstance(getattr(self, name), list):
                raise ValueError(f"{name} must be a list, not "
                                 f"{type(getattr(self, name)).__name__}.")
        _check_offsets(self.shape, self.indptr, self.indices, self.values)
        _check_columns(self.shape, self.indptr, self.indices)
        _check_values(self.values)

    @property
    def data(self) -> list[Any]:
        """The stored values (scipy.sparse's name for :attr:`values`)."""
        return self.values

    def tocsr(self) -> SparseData:
        """The matrix itself (it is in CSR form already)."""
        return self


def _check_offsets(shape, ptr, cols, vals):
    n, d = shape
    if len(ptr) != n + 1 or not set(map(type, ptr)) <= {int}:
        raise ValueError(f"indptr must be n + 1 = {n + 1} integers (shape {n} x {d}), got "
                         f"{len(ptr)} entries.")
    if ptr[0] != 0 or ptr[-1] != len(cols) or len(vals) != len(cols):
        raise ValueError(f"indptr runs from {ptr[0]} to {ptr[-1]}, but it must run from 0 "
                         f"to the number of entries: {len(cols)} indices and {len(vals)} "
                         "values.")
    if not all(map(operator.le, ptr, islice(ptr, 1, None))):
        i = next(i for i in range(n) if ptr[i] > ptr[i + 1])
        raise ValueError(f"indptr decreases at indptr[{i}] ({ptr[i]} then {ptr[i + 1]}); it "
                         "must be non-decreasing.")


def _check_columns(shape, ptr, cols):
    n, d = shape
    if not set(map(type, cols)) <= {int}:
        raise ValueError("indices must be integers.")
    if cols and (min(cols) < 0 or max(cols) >= d):
        j = min(cols) if min(cols) < 0 else max(cols)
        raise ValueError(f"indices holds the column index {j}, outside 0..{d - 1} (shape {n} "
                         f"x {d}).")
    for i in range(n):
        c = cols[ptr[i]:ptr[i + 1]]
        if not all(map(operator.lt, c, islice(c, 1, None))):
            j = next(c[k] for k in range(1, len(c)) if c[k] <= c[k - 1])
            raise ValueError(f"indices: X[{i}] names the column index {j} twice (or out of "
                             "order); "
                             "the columns of a row must strictly increase.")


def _check_values(vals):
    if set(map(type, vals)) <= {int, float}:
        zeros = 0 in vals
    else:
        for k, v in enumerate(vals):
            if isinstance(v, (list, dict)) or v is None:
                raise ValueError(f"values[{k}] is {v!r}, not a number.")
        zeros = any(number(v, f"values[{k}]") == 0 for k, v in enumerate(vals))
    if zeros:
        k = next(k for k, v in enumerate(vals) if number(v, "") == 0)
        raise ValueError(f"values[{k}] is {vals[k]!r}, a zero: only the non-zero entries "
                         "are stored.")
