"""What ``sims`` raises and warns on purpose: one module, under markone's error tree.

Every exception here is a :class:`markone.errors.MarkoneError` (and the built-in class
that describes it best), every warning a :class:`markone.errors.MarkoneWarning`, so a
script catches all of them as it catches markone's.

>>> issubclass(MalformedResults, ValueError), issubclass(SweepWarning, MarkoneWarning)
(True, True)
"""

from __future__ import annotations

from markone.errors import MarkoneError, MarkoneWarning

__all__ = ["SweepWarning", "SweepConflictError", "ResultsMismatch", "MalformedResults"]


class SweepWarning(MarkoneWarning):
    """Something in a sweep folder was not as left: a task-log line that does not
    verify (its task is run again), or the lock of an interrupted sweep (taken over)."""


class SweepConflictError(MarkoneError, ValueError):
    """The output folder holds another sweep, or a sweep is running in it."""


class ResultsMismatch(MarkoneError):
    """A value of ``results.json`` (or of the task log, or a certificate file) differs
    from its recomputation; the message names it by its JSON path."""


class MalformedResults(MarkoneError, ValueError):
    """``results.json`` cannot be read as the experiment's results: not JSON, a key
    missing or unknown, a value of the wrong kind, invalid settings or seed."""
