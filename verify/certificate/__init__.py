"""Separability certificates: the trusted kernel that decides them, and their files.

Every verdict of :mod:`verify` can be re-checked from scratch by
:func:`check_certificate`, in exact arithmetic. The one file a sceptic must read is
``verify/certificate/kernel.py`` (:mod:`verify.certificate.kernel`): the checking
kernel, at most 300 lines, standard library only. Around it, outside the trusted part:

* :mod:`verify.certificate.hashing`: :func:`data_sha256`, the name of the exact data;
* :mod:`verify.certificate.rawfile`: a file's JSON document, read within
  :class:`ReadLimits` (hostile files refused before they cost much);
* :mod:`verify.certificate.reading`: the file format as one table of fields
  (:data:`~verify.certificate.reading.FIELDS`), :func:`read_certificate` and
  :func:`check_certificate_file`;
* :mod:`verify.certificate.sparse`: :class:`SparseData`, the sparse layout of a file;
* :mod:`verify.certificate.writing`: :func:`certificate_document`,
  :func:`cycle_document` and :func:`certificate_json`;
* :mod:`verify.certificate.cycles`: :func:`check_cycle`, the trusted re-run of a
  cycling certificate (standard library only, as the kernel).

:func:`check_certificate` here is the kernel's, run with the cyclic garbage collector
paused (10^5 rows of ints hold no cycles, and the collector would traverse them again
and again: 5x the time on 100,000 x 100).

>>> from types import SimpleNamespace as Claim
>>> check_certificate([[0.0], [1.0]], [0, 1], Claim(separable=True, intercept=True,
...                   witness=(-1, 0), certificate=None))
Traceback (most recent call last):
...
verify.certificate.kernel.CertificateError: the witness fails on example 1 (X[0]): y * w . [x, 1] = 0, not > 0.
"""

from __future__ import annotations

from markone._internal.lazy import lazy_exports
from verify.certificate import kernel as _kernel
from verify.certificate._gc import gc_paused as _gc_paused
from verify.certificate.hashing import data_sha256, file_sha256
from verify.certificate.kernel import MAX_EXPONENT, MAX_NUMBER_CHARS, exact_rows, labels_pm1

# The file readers and writers load when first named (they raise verify.errors'
# CertificateUnreadable, and verify.errors takes CertificateError from the kernel:
# imported here eagerly they would close a loop of imports).
_EXPORTS = {
    "ReadLimits": "verify.certificate.rawfile",
    "CERTIFICATE_FORMAT": "verify.certificate.reading",
    "CertificateClaim": "verify.certificate.reading",
    "check_certificate_file": "verify.certificate.reading",
    "read_certificate": "verify.certificate.reading",
    "SparseData": "verify.certificate.sparse",
    "certificate_document": "verify.certificate.writing",
    "certificate_json": "verify.certificate.writing",
    "cycle_document": "verify.certificate.writing",
    "CycleClaim": "verify.certificate.reading",
    "check_cycle": "verify.certificate.cycles",
}
_SUBMODULES = {"kernel", "cycles", "hashing", "rawfile", "reading", "sparse", "writing"}

__all__ = ["check_certificate", "check_certificate_file", "read_certificate",
           "certificate_document", "certificate_json", "data_sha256", "file_sha256",
           "CertificateClaim", "SparseData", "cycle_document", "CycleClaim", "check_cycle",
           "exact_rows", "labels_pm1", "CERTIFICATE_FORMAT", "ReadLimits",
           "MAX_NUMBER_CHARS", "MAX_EXPONENT"]

check_certificate = _gc_paused(_kernel.check_certificate)

__getattr__, __dir__ = lazy_exports("verify.certificate", _EXPORTS, _SUBMODULES)
