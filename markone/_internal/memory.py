"""Memory a computation will need, estimated before it allocates, refused past a limit.

A search whose budget is counted in states (``check_cycling(order="all")``, the
exhaustive worst order) or an answer as long as the data are wide (a separating
vector over 300 million sparse columns) can need more memory than the machine has. The
need is estimated from the sizes alone, before any of it is allocated, and compared
with ``max_memory_gb`` (default :data:`DEFAULT_MAX_MEMORY_GB`, the same on every
machine: the answer never depends on how much memory happens to be free). Past it the
computation is refused with :class:`MemoryLimitError`, a ``ValueError`` (exit status 2
on the command line) that names the limit, the need, and what to change.

>>> check_memory(2 * 2**30, None, "a search of 10 states", "lower budget")
>>> try:
...     check_memory(5 * 2**30, None, "a search of 10 states", "lower budget")
... except MemoryLimitError as exc:
...     print(exc)
a search of 10 states would need about 5.4 GB of memory, more than max_memory_gb=4 allows; lower budget, or raise max_memory_gb.
"""

from __future__ import annotations

from markone._internal.validation import check_positive
from markone.errors import MemoryLimitError

__all__ = ["DEFAULT_MAX_MEMORY_GB", "GB", "check_memory", "memory_limit"]

#: The default ``max_memory_gb``: a fixed number, not the memory free now, so that the
#: same input gets the same answer on every machine.
DEFAULT_MAX_MEMORY_GB = 4.0

#: Bytes in a GB, as ``max_memory_gb`` counts them.
GB = 10**9


def memory_limit(max_memory_gb: float | None) -> float:
    """The limit in bytes of ``max_memory_gb`` (None: :data:`DEFAULT_MAX_MEMORY_GB`),
    checked positive.

    >>> memory_limit(None), memory_limit(0.5)
    (4000000000.0, 500000000.0)
    """
    gb = DEFAULT_MAX_MEMORY_GB if max_memory_gb is None else check_positive(
        max_memory_gb, "max_memory_gb")
    return gb * GB


def _gb(n_bytes: float) -> str:
    """``n_bytes`` in GB to two digits, written out in full (no ``1.5e+03``).

    >>> _gb(4.8e9), _gb(1462e9)
    ('4.8', '1,462')
    """
    gb = n_bytes / GB
    return f"{gb:.2g}" if gb < 100 else f"{gb:,.0f}"


def check_memory(need_bytes: float, max_memory_gb: float | None, what: str,
                 fix: str) -> None:
    """Raise :class:`MemoryLimitError` when ``need_bytes`` exceeds the limit.

    ``what`` says what needs the memory; ``fix`` what to change in the question
    (e.g. ``"lower budget"``), besides raising ``max_memory_gb``.
    """
    limit = memory_limit(max_memory_gb)
    if need_bytes > limit:
        raise MemoryLimitError(
            f"{what} would need about {_gb(need_bytes)} GB of memory, more than "
            f"max_memory_gb={limit / GB:g} allows; {fix}, or raise max_memory_gb.")
