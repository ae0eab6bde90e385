"""The exact solve's parallel piece on workers: one prime per task.

A fleet sweep spreads by itself (:func:`markone.hardware.run_fleet` with ``workers=``
or ``dask=``). The wide exact solve has one piece that spreads the same way: the
solution of ``A x = b`` modulo a word-size prime, from one LU modulo that prime
(:func:`verify.modular.solve_modulo`), independent from one prime to the next.
:func:`solve_over_primes` runs one prime per task through the executor every sweep
uses (:func:`markone._internal.parallel.run_each`: here, local worker processes, a
Dask ``LocalCluster`` or a running scheduler), so the answers are the same wherever
they ran. ``docs/sims.md`` ("Where one machine is not enough") runs both on a
``LocalCluster`` of several workers and says how each scales.

>>> A, b = [[1, 4], [8, 3]], [1, 2]
>>> found = solve_over_primes(A, b, [31, 29])   # det A = -29
>>> found[31].tolist(), found[29]
([13, 28], None)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from markone._internal.parallel import run_each
from verify.modular import solve_modulo

__all__ = ["solve_over_primes"]


def _solve_task(task: tuple[Any, Any, int]) -> np.ndarray | None:
    """One task: ``solve_modulo(A, b, p)`` (top level: picklable)."""
    A, b, p = task
    return solve_modulo(A, b, p)


def solve_over_primes(A: Any, b: Any, primes: Iterable[int], *, workers: int = 1,
                      dask: str | None = None) -> dict[int, np.ndarray | None]:
    """``{p: solve_modulo(A, b, p)}`` for every prime of ``primes``, one task per prime.

    Parameters
    ----------
    A, b
        The square integer system (as :func:`verify.modular.solve_modulo` takes it);
        every task carries its own copy.
    primes : iterable of int
        Distinct primes below ``2**verify.modular.PRIME_BITS``
        (:func:`verify.modular.default_primes`).
    workers, dask
        Where the tasks run, as for :func:`markone._internal.parallel.run_each`:
        here (``workers=1``), on ``workers`` local processes, or on Dask (``"local"``
        or a scheduler address such as ``LocalCluster().scheduler_address``).

    Returns
    -------
    dict
        The residues (int64, in ``[0, p)``) per prime, in the order of ``primes``;
        None for a prime that divides ``det A``.

    >>> solve_over_primes([[3]], [-6], [7, 5])[7].tolist()
    [5]
    """
    primes = list(primes)
    if len(set(primes)) != len(primes):
        raise ValueError(f"primes must be distinct, got {primes}: each prime is one "
                         "task, and a repeated one would be solved twice.")
    for p in primes:   # checked here, before any task leaves
        solve_modulo([[1]], [0], p)
    out: dict[int, np.ndarray | None] = dict.fromkeys(primes)
    for i, x in run_each(_solve_task, [(A, b, p) for p in primes], workers=workers,
                         dask=dask):
        out[primes[i]] = x
    return out
