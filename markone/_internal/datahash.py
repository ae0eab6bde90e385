"""The name of labelled data: the SHA-256 of their exact values, defined once.

Certificates and results name the data they speak about by this hash, and their
checkers recompute it. The text hashed (version 2, format ``/3`` certificates) is the
line ``markone-data/2``, then ``n d``, then one line per example: the columns of its
non-zero entries in increasing order, separated by spaces, a ``:``, and those entries
as reduced fractions ``p/q`` (or integers), separated by spaces (an example of zeros
only is the line ``:``); then the labels as ``+1``/``-1``. Every line ends in a
newline, and the text is UTF-8. Version 1 (format ``/2`` certificates) writes every
entry of every example, zeros included.

:func:`rows_sha256` writes and hashes that text from exact rows; it is the only
writer. Two independent readers feed it: :attr:`markone._internal.data.Dataset.sha256`
(NumPy, at markone's data boundary) and :func:`verify.certificate.data_sha256` (the
trusted kernel's standard-library readers), and a test keeps them equal.

>>> import hashlib
>>> rows = [([1, 2], [1, 6], 2), ([], [], 1)]   # [0, 1/2, 3] and [0, 0, 0]
>>> rows_sha256(2, 3, rows, [1, -1]) == hashlib.sha256(
...     b"markone-data/2\\n2 3\\n1 2:1/2 3\\n:\\n+1 -1\\n").hexdigest()
True
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from fractions import Fraction

from markone._internal.exact import fraction_text

__all__ = ["DATA_HASH_VERSIONS", "rows_sha256", "fractions_text"]

#: The versions of the data hash (2 is current; 1 names format ``/2`` certificates).
DATA_HASH_VERSIONS = (1, 2)

#: One example for :func:`rows_sha256`: the columns of its non-zero entries
#: (increasing), their numerators and one common denominator.
Row = tuple[Sequence[int], Sequence[int], int]


def rows_sha256(n: int, d: int, rows: Iterable[Row], labels: Sequence[int], *,
                version: int = 2) -> str:
    """The SHA-256 (hex) naming ``n`` examples of ``d`` features and their labels.

    Parameters
    ----------
    n, d : int
        The shape of the inputs.
    rows : iterable of ``(columns, numerators, denominator)``
        One per example: entry ``columns[k]`` is ``numerators[k] / denominator``
        (Python ints), every other entry is zero. Zero numerators may be listed.
    labels : sequence of -1/+1
    version : 1 or 2

    Raises
    ------
    ValueError
        For an unknown ``version`` or a number of labels other than ``n``.

    >>> rows_sha256(1, 2, [([0], [1], 2)], [1]) == rows_sha256(1, 2, [([0, 1], [2, 0], 4)], [1])
    True
    """
    if version not in DATA_HASH_VERSIONS:
        raise ValueError(f"version={version!r}; the data hashes are versions "
                         f"{' and '.join(map(str, DATA_HASH_VERSIONS))}.")
    if n != len(labels):
        raise ValueError(f"X has {n} samples but y has {len(labels)}.")
    h = hashlib.sha256(f"markone-data/{version}\n{n} {d}\n".encode())
    for cols, nums, den in rows:
        if version == 2:
            kept = [k for k, v in enumerate(nums) if v]
            line = (f"{' '.join(str(cols[k]) for k in kept)}:"
                    f"{fractions_text([nums[k] for k in kept], den)}\n")
        else:  # every entry written out, zeros included
            full = [0] * d
            for j, v in zip(cols, nums):
                full[j] = v
            line = fractions_text(full, den) + "\n"
        h.update(line.encode())
    h.update((" ".join("+1" if t > 0 else "-1" for t in labels) + "\n").encode())
    return h.hexdigest()


def fractions_text(nums: Sequence[int], den: int) -> str:
    """The numbers ``nums[j] / den`` as ``str(Fraction)`` writes them (reduced ``p/q``,
    or ``p``), separated by spaces; numbers of any length.

    >>> fractions_text([3, -2, 0, 6], 6)
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
