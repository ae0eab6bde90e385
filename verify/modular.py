"""Square integer systems solved modulo a prime: the piece of the exact solve a cluster
can spread, one prime per task.

The wide exact solve (:mod:`verify.separability`'s least-squares and basis routes, by
p-adic lifting: ``verify/_internal/dixon.py``) starts with one LU of ``A`` modulo a
word-size prime, in float64 BLAS products that stay exact. :func:`solve_modulo` is that
step on its own, public: ``A^{-1} b mod p`` from one LU modulo ``p``, or None when
``p`` divides ``det A``. Solutions modulo several primes are independent (a
multimodular solve combines them by the Chinese remainder theorem; a p-adic one needs
a single prime that does not divide ``det A``), so they are the unit of work that
spreads over workers: :func:`sims.cluster.solve_over_primes` runs one prime per task
on local worker processes or a Dask cluster (``docs/sims.md``, "Where one machine is
not enough").

>>> solve_modulo([[1, 4], [8, 3]], [1, 2], 31).tolist()   # x = (5/29, 6/29)
[13, 28]
>>> (5 * pow(29, -1, 31)) % 31, (6 * pow(29, -1, 31)) % 31
(13, 28)
>>> solve_modulo([[2, 0], [0, 4]], [1, 1], 2) is None   # 2 divides det A
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from verify._internal.dixon import (PRIME_BITS, _as_integers, _factor, _is_prime,
                                   default_primes)
from verify._internal.exact import blas_single_thread

__all__ = ["solve_modulo", "default_primes", "PRIME_BITS"]


def solve_modulo(A: Any, b: Any, p: int) -> np.ndarray | None:
    """``A^{-1} b mod p`` (int64 residues in ``[0, p)``) for the square integer system
    ``A x = b``, from one LU of ``A`` modulo the prime ``p``; None when ``p`` divides
    ``det A`` (``A`` is singular modulo ``p``).

    Parameters
    ----------
    A, b : integer arrays or nested lists (a square ``A``, ``b`` as long as its side)
    p : int
        A prime below ``2**PRIME_BITS`` (products of two residues then stay exact in
        float64; :func:`default_primes` lists the largest).

    Raises
    ------
    ValueError
        ``A`` not square, ``b`` of another length, a non-integer entry, or ``p`` not
        a prime below ``2**PRIME_BITS``.

    >>> solve_modulo([[3]], [-6], 7).tolist()   # -2 mod 7
    [5]
    """
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or not (
            2 <= p < 2**PRIME_BITS and _is_prime(int(p))):
        raise ValueError(f"solve_modulo: p(={p!r}) must be a prime below "
                         f"2**{PRIME_BITS}; pick some with "
                         "verify.modular.default_primes(count).")
    A, b = _as_integers(A, b)
    p = int(p)
    if not len(b):
        return np.zeros(0, dtype=np.int64)
    with blas_single_thread():
        factors = _factor(A, p)
        if factors is None:
            return None
        rhs = np.array([int(v) % p for v in b.tolist()], dtype=np.int64)
        return factors.solve(rhs).astype(np.int64)
