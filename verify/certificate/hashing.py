"""The names of data: the SHA-256 of labelled data, exactly, and of a file's bytes.

A certificate names the data it speaks about by :func:`data_sha256`. The hash is defined
once, by :func:`markone._internal.datahash.rows_sha256` (its docstring gives the text
hashed); here the data are read through the trusted kernel's exact rows and labels
(:mod:`verify.certificate.kernel`), so the numbers hashed are the numbers checked, and
this road is independent of markone's NumPy reading
(:attr:`markone._internal.data.Dataset.sha256`), which a test keeps equal to it.
"""

from __future__ import annotations

import hashlib
import os
from itertools import compress
from typing import Any

from markone._internal.data import Dataset
from markone._internal.datahash import rows_sha256
from markone._internal.exact import fraction_text, int_text
from verify.certificate._gc import gc_paused
from verify.certificate.kernel import exact_rows, labels_pm1, sparse_rows

__all__ = ["data_sha256", "file_sha256", "int_text", "fraction_text"]


@gc_paused
def data_sha256(X: Any, y: Any = None, *, version: int = 2) -> str:
    """The SHA-256 that names labelled data exactly: the same numbers and labels give
    the same hash, however they are written (``0.5``, ``"1/2"``, ``Fraction(1, 2)``)
    and however they are stored (a dense array, a scipy.sparse matrix, a
    :class:`~verify.certificate.SparseData`).

    ``version=2`` names format ``/3`` certificates (the non-zero entries of each
    example), ``version=1`` format ``/2`` ones (every entry); the text hashed is given
    by :func:`markone._internal.datahash.rows_sha256`. Its length, and the time to
    hash it, grow with the non-zero entries only. A checked
    :class:`~markone._internal.data.Dataset` (with ``y=None``) gives its own
    :attr:`~markone._internal.data.Dataset.sha256`, the same hash read by NumPy.

    >>> data_sha256([[0.5]], ["b"]) == data_sha256([["1/2"]], ["b"]) != data_sha256([[0.5]], [-1])
    True
    >>> import scipy.sparse as sp
    >>> data_sha256(sp.csr_array([[0.0, 0.5]]), [1]) == data_sha256([[0, "1/2"]], [1])
    True
    >>> import hashlib
    >>> data_sha256([[0, "1/2", 3], [0, 0, 0]], [1, -1]) == hashlib.sha256(
    ...     b"markone-data/2\\n2 3\\n1 2:1/2 3\\n:\\n+1 -1\\n").hexdigest()
    True
    """
    if isinstance(X, Dataset):
        if y is not None:
            raise TypeError("a Dataset carries its labels; pass y=None with it.")
        return X.sha256 if version == 2 else X.data_sha256(version=version)
    if hasattr(X, "tocsr") and hasattr(X, "shape"):
        rows, scales = sparse_rows(X, intercept=False)
        n, d = len(rows), X.shape[1]
        entries: Any = (row + (sc.denominator,) for row, sc in zip(rows, scales))
    else:
        dense, scales = exact_rows(X, intercept=False)
        n, d = len(dense), len(dense[0])
        entries = ((list(compress(range(d), r)), list(compress(r, r)), sc.denominator)
                   for r, sc in zip(dense, scales))
    return rows_sha256(n, d, entries, labels_pm1(y), version=version)


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes (hex)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
