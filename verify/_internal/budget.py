"""What stops a search: a budget of work by default, the clock only when asked.

Every search and prover in :mod:`verify` is limited by a deterministic amount of work
(states, updates, passes, LP iterations, SMT resource units), so the same input gives
the same answer on any machine at any load. A wall-clock limit applies only when the
user passes ``timeout_s`` (``--timeout`` on the command line). A result that did not
finish says what stopped it in ``stopped_by``, one of :data:`STOPPED_BY`:

* ``""``: nothing cut the search short (it ended by itself);
* ``"budget"``: its budget of work ran out (raise ``budget``);
* ``"timeout"``: the user's ``timeout_s`` passed (raise ``timeout_s``);
* ``"memory"``: what the search keeps grew to its limit, ``max_memory_gb`` (raise
  it); the size kept is counted from the states and their entries, not measured, so
  this too is the same on every machine.

>>> stopped_phrase("budget", 100, None, "states")
'the budget (budget=100 states) stopped the search'
>>> stopped_phrase("timeout", 100, 2.5, "states"), to_raise("timeout")
('the time limit (timeout_s=2.5 s) stopped the search', 'timeout_s')
>>> stopped_phrase("memory", 100, None, "states", max_memory_gb=0.5)
'the memory limit (max_memory_gb=0.5) stopped the search'
"""

from __future__ import annotations

import time
from typing import Any

from markone._internal.validation import check_positive
from markone._internal.memory import GB, memory_limit

__all__ = ["STOPPED_BY", "BUDGET", "TIMEOUT", "MEMORY", "deadline_after", "expired",
           "seconds_left", "stopped_phrase", "to_raise", "check_timeout"]

#: What stopped a search, in every result's ``stopped_by``.
BUDGET, TIMEOUT, MEMORY = "budget", "timeout", "memory"
STOPPED_BY = ("", BUDGET, TIMEOUT, MEMORY)


def deadline_after(timeout_s: float | None) -> float | None:
    """The :func:`time.perf_counter` value ``timeout_s`` seconds from now (None: no
    deadline), after checking that ``timeout_s`` is positive."""
    if timeout_s is None:
        return None
    return time.perf_counter() + check_positive(timeout_s, "timeout_s")


def expired(deadline: float | None) -> bool:
    """True once :func:`time.perf_counter` has reached ``deadline`` (never for None)."""
    return deadline is not None and time.perf_counter() >= deadline


def seconds_left(deadline: float | None) -> float | None:
    """Seconds until ``deadline`` (None for none), at least a millisecond: a solver
    that starts after the deadline still gets a moment, and answers unknown."""
    return None if deadline is None else max(deadline - time.perf_counter(), 1e-3)


def to_raise(stopped_by: str) -> str:
    """The parameter to raise when ``stopped_by`` stopped a search."""
    return {TIMEOUT: "timeout_s", MEMORY: "max_memory_gb"}.get(stopped_by, "budget")


def stopped_phrase(stopped_by: str, budget: Any, timeout_s: float | None,
                   unit: str, *, max_memory_gb: float | None = None) -> str:
    """How a search that did not finish says why, naming the parameter that stopped
    it (the CLI rewrites ``budget=``, ``timeout_s=`` and ``max_memory_gb=`` into its
    flags)."""
    if stopped_by == TIMEOUT and timeout_s is not None:
        return f"the time limit (timeout_s={float(timeout_s):g} s) stopped the search"
    if stopped_by == MEMORY:
        gb = memory_limit(max_memory_gb) / GB
        return f"the memory limit (max_memory_gb={gb:g}) stopped the search"
    return f"the budget (budget={budget} {unit}) stopped the search"


def check_timeout(timeout_s: float | None) -> float | None:
    """``timeout_s`` checked positive (None: no time limit).

    >>> check_timeout(2.5), check_timeout(None)
    (2.5, None)
    """
    return None if timeout_s is None else check_positive(timeout_s, "timeout_s")
