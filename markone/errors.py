"""One tree for what markone raises and warns on purpose.

Every exception that markone, ``verify`` and ``sims`` raise deliberately derives from
:class:`MarkoneError` (besides the built-in class that describes it best, such as
``ValueError``), so a script can catch all of them in one ``except`` clause, and every
warning from :class:`MarkoneWarning`. The one exception is the trusted certificate
kernel's ``CertificateError`` (a ``ValueError``): the kernel imports nothing but the
standard library by design. An unreadable certificate file
(``CertificateUnreadable``, raised outside the kernel) is a :class:`MarkoneError` too.
``verify`` and ``sims`` keep theirs in ``verify.errors`` and ``sims.errors``.

:class:`ConvergenceWarning` is also scikit-learn's ``ConvergenceWarning`` whenever
scikit-learn is loaded: a filter such as
``warnings.simplefilter("ignore", sklearn.exceptions.ConvergenceWarning)`` silences
markone's warning as it silences scikit-learn's. (scikit-learn is not imported just to
raise a warning: importing it costs seconds, and nobody can have set a filter on its
class before importing it.)

>>> import warnings, markone
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     _ = markone.train(*markone.datasets.xor(), max_epochs=2)
>>> issubclass(caught[0].category, markone.ConvergenceWarning)
True
>>> issubclass(caught[0].category, MarkoneWarning)
True
"""

from __future__ import annotations

import sys

__all__ = ["MarkoneError", "MemoryLimitError", "MarkoneWarning", "ConvergenceWarning",
           "convergence_warning"]


class MarkoneError(Exception):
    """Base of every exception markone raises on purpose (bad input, a refuted claim,
    a limit reached); catch it to catch them all."""


class MemoryLimitError(MarkoneError, ValueError):
    """A computation would need more memory than ``max_memory_gb`` allows; refused
    before allocating it (:func:`markone._internal.memory.check_memory`)."""


class MarkoneWarning(UserWarning):
    """Base of every warning markone issues."""


class ConvergenceWarning(MarkoneWarning):
    """Training stopped at ``max_epochs`` with a pass that still made mistakes."""


_BRIDGED: list[type[ConvergenceWarning]] = []


def convergence_warning() -> type[ConvergenceWarning]:
    """The class to warn with: :class:`ConvergenceWarning`, and also scikit-learn's
    ``ConvergenceWarning`` when scikit-learn is loaded (made once, then reused).

    >>> issubclass(convergence_warning(), ConvergenceWarning)
    True
    """
    sklearn_exceptions = sys.modules.get("sklearn.exceptions")
    if sklearn_exceptions is None:
        return ConvergenceWarning
    if not _BRIDGED:
        bridged = type("ConvergenceWarning", (ConvergenceWarning,
                                              sklearn_exceptions.ConvergenceWarning),
                       {"__module__": __name__, "__doc__": ConvergenceWarning.__doc__})
        _BRIDGED.append(bridged)
    return _BRIDGED[0]
