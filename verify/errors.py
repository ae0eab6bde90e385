"""What ``verify`` raises on purpose: one module, under markone's error tree.

Every exception here is a :class:`markone.errors.MarkoneError` (and the built-in class
that describes it best), so a script catches all of them as it catches markone's. The
one that is not is :class:`CertificateError`, the trusted certificate kernel's
``ValueError``: the kernel (:mod:`verify.certificate.kernel`) imports nothing but the
standard library by design, so it defines that class itself, and this module exports
it; a file that cannot be read as a certificate (:class:`CertificateUnreadable`, raised
outside the kernel) is both.

>>> issubclass(CertificateUnreadable, CertificateError), issubclass(Refuted, MarkoneError)
(True, True)
>>> issubclass(OutputLimitExceeded, LimitExceeded), issubclass(LimitExceeded, ValueError)
(True, True)
"""

from __future__ import annotations

from typing import Any

from markone.errors import MarkoneError, MemoryLimitError
from verify.certificate.kernel import CertificateError

__all__ = ["CertificateError", "CertificateUnreadable", "Refuted", "BoundViolation",
           "MemoryLimitError", "LPStopped", "ImplementationError", "NotApplicable",
           "LimitExceeded", "RunStopped", "OutputLimitExceeded", "DeadlineExceeded",
           "CoqUnavailable", "CoqUndecided"]


# --- certificates and claims ---------------------------------------------------------

class CertificateUnreadable(CertificateError, MarkoneError):
    """The file cannot be read as a certificate: not JSON (e.g. truncated), not markone's
    format, a field missing or of the wrong type, a value that is not a finite number,
    or over a limit of :class:`verify.certificate.ReadLimits`. ``markone verify check``
    exits 2 on it (1 is for proofs that fail or data that do not match their hashes)."""


class Refuted(MarkoneError):
    """The evidence does not hold (the message says where): the re-check reports the
    claim ``refuted`` (it never reaches the caller of
    :func:`verify.machine.recheck_report`)."""


class BoundViolation(MarkoneError, AssertionError):
    """A proved mistake bound was exceeded: a bug in the core, the margin or the check.

    The report is attached as ``.report``.
    """

    def __init__(self, message: str, report: Any) -> None:
        super().__init__(message)
        self.report = report


# --- limits of work ------------------------------------------------------------------

class LPStopped(MarkoneError):
    """The LP did not finish: ``stopped_by`` is ``"budget"`` (HiGHS's iteration limit)
    or ``"timeout"`` (the deadline); :func:`verify.check_separable` turns it into its
    verdict's ``stopped_by``."""

    def __init__(self, stopped_by: str) -> None:
        super().__init__(stopped_by)
        self.stopped_by = stopped_by


# --- the conformance suite -----------------------------------------------------------

class ImplementationError(MarkoneError):
    """The implementation under test failed; ``text`` is its traceback or stderr,
    ``output`` what it wrote on stdout when that was not JSON (else "")."""

    def __init__(self, message: str, text: str = "", output: str = "") -> None:
        super().__init__(message)
        self.text = text
        self.output = output


class NotApplicable(MarkoneError):
    """The adapter cannot express this case (the message says why)."""


class LimitExceeded(MarkoneError, ValueError):
    """An answer is larger than a limit allows (the message names the limit and the
    option that raises it)."""


class RunStopped(MarkoneError):
    """A run stopped by markone; ``stderr`` is what is shown of the program's stderr."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


class OutputLimitExceeded(RunStopped, LimitExceeded):
    """A program wrote more than a limit allows; the message names the limit, its
    value and the ``--max-...`` option that raises it."""


class DeadlineExceeded(RunStopped):
    """The program did not finish the exchange within its time; the message says
    whether it was still running or its children held its pipes open."""


# --- the Coq checker -----------------------------------------------------------------

class CoqUnavailable(MarkoneError, RuntimeError):
    """Coq, mathcomp, OCaml or Zarith is not installed, or the development does not
    build (the message says which, and how to install them)."""


class CoqUndecided(MarkoneError, RuntimeError):
    """The extracted checker did not decide within its budget of work, its memory or
    the time limit (``markone verify check`` exits 4); ``stopped_by`` says which
    (``"budget"``, ``"memory"`` or ``"timeout"``), and so does the message."""

    def __init__(self, message: str, stopped_by: str = "budget") -> None:
        super().__init__(message)
        self.stopped_by = stopped_by
