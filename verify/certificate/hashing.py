"""The names of data: the SHA-256 of labelled data, exactly, and of a file's bytes.

A certificate names the data it speaks about by :func:`data_sha256`, which reads the data
through the trusted kernel's exact rows and labels (:mod:`verify.certificate.kernel`), so
the numbers hashed are the numbers checked. Standard library only, like the kernel.
"""

from __future__ import annotations

import hashlib
import math
import os
from fractions import Fraction
from itertools import compress
from typing import Any

from verify.certificate._gc import gc_paused
from verify.certificate.kernel import exact_rows, labels_pm1, sparse_rows

__all__ = ["data_sha256", "file_sha256", "int_text", "fraction_text"]

@gc_paused
def data_sha256(X: Any, y: Any, *, version: int = 2) -> str:
    """The SHA-256 that names labelled data exactly: the same numbers and labels give
    the same hash, however they are written (``0.5``, ``"1/2"``, ``Fraction(1, 2)``)
    and however they are stored (a dense array, a scipy.sparse matrix, a
    :class:`~verify.certificate.SparseData`).

    The hashed text (``version=2``, format ``/3`` certificates) is the line
    ``markone-data/2``, then ``n d``, then one line per example: the columns of its
    non-zero entries in increasing order, separated by spaces, a ``:``, and those
    entries as reduced fractions ``p/q`` (or integers), separated by spaces (an
    example of zeros only is the line ``:``); then the labels as ``+1``/``-1``
    (markone's label rule). Every line ends in a newline, and the text is UTF-8.
    Its length, and the time to hash it, grow with the non-zero entries only.

    ``version=1`` is the hash of format ``/2`` certificates: ``markone-data/1``, then
    ``n d``, then every entry of every example written out, zeros included.

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
    if version not in (1, 2):
        raise ValueError(f"version={version!r}; the data hashes are versions 1 and 2.")
    if hasattr(X, "tocsr") and hasattr(X, "shape"):
        rows, scales = sparse_rows(X, intercept=False)
        n, d = len(rows), X.shape[1]
        entries: Any = (row + (sc.denominator,) for row, sc in zip(rows, scales))
    else:
        dense, scales = exact_rows(X, intercept=False)
        n, d = len(dense), len(dense[0])
        entries = ((list(compress(range(d), r)), list(compress(r, r)), sc.denominator)
                   for r, sc in zip(dense, scales))
    signs = labels_pm1(y)
    if n != len(signs):
        raise ValueError(f"X has {n} samples but y has {len(signs)}.")
    h = hashlib.sha256(f"markone-data/{version}\n{n} {d}\n".encode())
    for cols, nums, den in entries:
        if version == 2:
            h.update(f"{' '.join(map(str, cols))}:{_fractions_text(nums, den)}\n".encode())
        else:  # every entry written out, zeros included
            full = [0] * d
            for j, v in zip(cols, nums):
                full[j] = v
            h.update((_fractions_text(full, den) + "\n").encode())
    h.update((" ".join("+1" if t > 0 else "-1" for t in signs) + "\n").encode())
    return h.hexdigest()


def _fractions_text(nums, den):
    """The numbers ``nums[j] / den`` as ``str(Fraction)`` writes them (reduced ``p/q``,
    or ``p``), separated by spaces; numbers of any length (see :func:`int_text`).

    >>> _fractions_text([3, -2, 0, 6], 6)
    '1/2 -1/3 0 1'
    """
    try:
        if den == 1:
            return " ".join(map(str, nums))
        out = []
        for v in nums:
            g = math.gcd(v, den)
            out.append(str(v // g) if g == den else f"{v // g}/{den // g}")
        return " ".join(out)
    except ValueError:  # an int of more than sys.get_int_max_str_digits() digits
        return " ".join(fraction_text(Fraction(v, den)) for v in nums)


def fraction_text(q: Fraction) -> str:
    """``str(q)`` for a Fraction (or int) of any size.

    >>> big = 10 ** 5000
    >>> fraction_text(Fraction(-big, 3))[-6:], len(fraction_text(Fraction(big)))
    ('0000/3', 5001)
    """
    q = Fraction(q)
    top = int_text(q.numerator)
    return top if q.denominator == 1 else f"{top}/{int_text(q.denominator)}"


def int_text(n: int) -> str:
    """The decimal digits of an int of any size (``str(int)`` alone refuses more than
    ``sys.get_int_max_str_digits()`` digits, 4,300 by default).

    >>> int_text(-7 * 10 ** 5000) == "-7" + "0" * 5000
    True
    """
    if n < 0:
        return "-" + int_text(-n)
    if n.bit_length() <= 2000:  # 603 digits at most: under any limit (>= 640)
        return str(n)
    k = n.bit_length() * 3 // 20  # about half the digits (log10(2) > 0.3)
    high, low = divmod(n, 10 ** k)
    return int_text(high) + int_text(low).zfill(k)


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes (hex)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
