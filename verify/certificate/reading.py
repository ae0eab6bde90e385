"""Reading certificate files: the format as one table of fields.

A certificate file (``markone verify separable DATA --certificate OUT.json``) is one JSON
object. :data:`FIELDS` lists every field it may hold: where it sits, what it must be,
whether it is required, and when it belongs (``witness`` only when ``separable`` is true,
``data.X`` only in the dense layout). :func:`read_certificate` loads the document within
the limits of a read (:mod:`verify.certificate.rawfile`), checks it against that table
and nothing else, and hands the trusted kernel (:mod:`verify.certificate.kernel`) exact
numbers: number strings read within ``max_number_chars`` characters and ``|exponent| <=
max_exponent`` (digit-group underscores included). :func:`check_certificate_file` then
recomputes the data's hash and has the kernel check the proof.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import reprlib
import stat
from typing import Any, Callable

from verify.certificate._gc import gc_paused
from verify.certificate.cycles import check_cycle
from verify.certificate.hashing import data_sha256, file_sha256
from verify.certificate.kernel import (CertificateError, check_certificate, decimal_int,
                                       exact_number, labels_pm1)
from verify.certificate.rawfile import REWRITE, ReadLimits, load_document
from verify.errors import CertificateUnreadable
from verify.certificate.sparse import SparseData

__all__ = ["CERTIFICATE_FORMAT", "FORMATS", "FIELDS", "Field", "PRESENT",
           "CYCLING_FORMAT", "CYCLING_FIELDS", "CertificateClaim", "CycleClaim",
           "read_certificate", "check_certificate_file", "plain_numbers"]

#: ``format`` prefixes of the files ``markone adversary`` writes (one worst case, or a
#: case of the conformance suite): cases to run a perceptron on, not certificates.
_CASE_FORMATS = ("markone.adversary/", "markone.conformance.case/")

#: The formats of a machine report (``verify machine --json``) and of a Mark I run
#: (``machine train --out``), told apart from certificates by name.
_MACHINE_FORMATS = ("markone.verify.machine/", "markone-machine-run")

#: The ``format`` tag of certificate files (``markone verify separable --certificate``).
#: Format ``/3`` adds the sparse data layout and hashes the data by their non-zero
#: entries (:func:`~verify.certificate.data_sha256` version 2); ``/2`` files still read.
CERTIFICATE_FORMAT = "markone.verify.separability/3"

#: The formats this reader reads, each with the version of its data hash.
FORMATS = {"markone.verify.separability/2": 1, CERTIFICATE_FORMAT: 2}

#: The ``format`` tag of cycling certificates (``markone verify cycling
#: --certificate``); their data are named by :func:`~verify.certificate.data_sha256`
#: version 2.
CYCLING_FORMAT = "markone.verify.cycling/1"

#: Certificates written before they named their data (no ``data_sha256``).
_OLD_FORMATS = ("markone.verify.separability/1",)

_HEX64 = re.compile(r"[0-9a-f]{64}")
_INDEX = re.compile(r"0|[1-9][0-9]*", re.ASCII)
_brief = reprlib.Repr()
_brief.maxstring, _brief.maxother, _brief.maxlist, _brief.maxdict = 40, 40, 4, 4


class _Refused(Exception):
    """One field's problem, said without the file's name (the reader adds it)."""


@dataclasses.dataclass(frozen=True)
class CertificateClaim:
    """What a certificate file claims: the fields the kernel checks, as exact numbers,
    plus the whole document (``fields``) for callers that show or bind more of it.
    ``source_checked`` says whether the source file was found (``source_file``) and its
    hash compared (by :func:`check_certificate_file`); when it was not,
    ``source_note`` says why (``"not present here"``, ``"is a FIFO, not a regular
    file"``, ...; ``""`` when compared or when the certificate names no file)."""

    separable: object
    intercept: bool
    witness: object
    certificate: object
    fields: dict
    source_checked: bool = False
    source_file: object = None
    source_note: str = ""

    @property
    def data_version(self) -> int:
        """The version of :func:`~verify.certificate.data_sha256` naming these data."""
        return FORMATS[self.fields["format"]]


@dataclasses.dataclass(frozen=True)
class CycleClaim:
    """What a cycling certificate claims (:mod:`verify.certificate.cycles` checks it):
    the cyclic run from zero has a transient of ``transient_presentations``
    presentations (``transient_updates`` updates), then a period of ``period_passes``
    passes whose updates are on the examples ``cycle_updates``, in order. ``fields``
    and the ``source_*`` attributes as :class:`CertificateClaim`'s."""

    intercept: bool
    transient_presentations: int
    transient_updates: int
    period_passes: int
    cycle_updates: list
    fields: dict
    source_checked: bool = False
    source_file: object = None
    source_note: str = ""

    @property
    def data_version(self) -> int:
        """The version of :func:`~verify.certificate.data_sha256` naming these data."""
        return 2


# --------------------------------------------------------------------------------------
# the kinds of values a field can hold: each checks one value and returns it, exact


def plain_numbers(row: list) -> bool:
    """True when ``row`` holds only ints or only finite floats (JSON numbers, exact as
    they are: nothing to convert or refuse)."""
    kinds = set(map(type, row))
    return kinds <= {int} or (kinds == {float} and all(map(math.isfinite, row)))


def _exact(v, where, limits):
    """One number of the file: an int or finite float as it is, a string read exactly
    (an integer's digits, most numbers of a file, by ``int``: 6 times faster than the
    kernel's :func:`exact_number`, which reads every other)."""
    if type(v) is int or (type(v) is float and math.isfinite(v)):
        return v
    if isinstance(v, str) and len(v) <= min(640, limits.max_number_chars) and \
            (digits := v.removeprefix("-")).isdigit() and digits.isascii():
        return int(v)
    if isinstance(v, str):
        return exact_number(v, where, limits.max_number_chars, limits.max_exponent,
                            "raise it with ReadLimits({limit}=...)")
    raise _Refused(f"{where} is {_brief.repr(v)}, not a finite number")


def _numbers(v, where, limits):
    if not isinstance(v, list):
        raise _Refused(f"{where} is {_brief.repr(v)}; it must be a list of numbers")
    return v if plain_numbers(v) else [_exact(q, f"{where}[{k}]", limits)
                                       for k, q in enumerate(v)]


def _rows(v, where, limits):
    if not isinstance(v, list) or not v or not all(isinstance(r, list) for r in v):
        raise _Refused(f"{where} must be a non-empty list of rows")
    if not v[0] or any(len(r) != len(v[0]) for r in v):
        raise _Refused(f"{where} must have rows of one non-zero length")
    return [_numbers(r, f"{where}[{i}]", limits) for i, r in enumerate(v)]


def _weights(v, where, limits):
    if not isinstance(v, dict) or not v:
        raise _Refused(f"{where} is {_brief.repr(v)}; it must map example indices to "
                       "weights")
    bad = next((k for k in v if not _INDEX.fullmatch(k) or
                len(k) > limits.max_number_chars), None)
    if bad is not None:
        raise _Refused(f"{where} names {_brief.repr(bad)}, which is not an example index "
                       "(0, 1, 2, ... in decimal)")
    return {decimal_int(k): _exact(q, f"{where}[{k!r}]", limits) for k, q in v.items()}


def _ints(v, where, limits):
    if not isinstance(v, list) or not set(map(type, v)) <= {int}:
        raise _Refused(f"{where} must be a list of integers")
    return v


def _count(v, where, limits):
    if type(v) is not int or v < 0:
        raise _Refused(f"{where} is {_brief.repr(v)}; it must be an integer >= 0")
    return v


def _counts(v, where, limits):
    if not isinstance(v, list) or not all(type(k) is int and k >= 0 for k in v):
        raise _Refused(f"{where} must be a list of integers >= 0")
    return v


def _shape(v, where, limits):
    if not isinstance(v, list) or len(v) != 2 or not set(map(type, v)) <= {int} or \
            min(v) < 1:
        raise _Refused(f"{where} is {_brief.repr(v)}; it must be [n, d], two positive "
                       "integers")
    return v


def _labels(v, where, limits):
    if not isinstance(v, list):
        raise _Refused(f"{where} must be a list of labels")
    for i, label in enumerate(v):
        if isinstance(label, (bool, list, dict)) or label is None or \
                (isinstance(label, float) and not math.isfinite(label)):
            raise _Refused(f"{where}[{i}] is {_brief.repr(label)}; labels are numbers or "
                           "strings")
    return v


def _of_type(*types: type, what: str) -> Callable[[Any, str, ReadLimits], Any]:
    """The kind of a value of one of ``types`` (``type(None)`` for null), said ``what``."""
    def kind(v, where, limits):
        if type(v) not in types:
            raise _Refused(f"{where} is {_brief.repr(v)}; it must be {what}")
        return v
    return kind


def _one_of(*choices: str) -> Callable[[Any, str, ReadLimits], Any]:
    def kind(v, where, limits):
        if v not in choices:
            raise _Refused(f"{where} is {_brief.repr(v)}; it must be one of "
                           f"{list(choices)}")
        return v
    return kind


def _sha256(v, where, limits):
    if not isinstance(v, str) or not _HEX64.fullmatch(v):
        raise _Refused(f"{where} is {_brief.repr(v)}; it must be 64 lowercase hex digits")
    return v


_BOOLEAN = _of_type(bool, what="true or false (a JSON boolean)")
_NULL = _of_type(type(None), what="null")
_TEXT = _of_type(str, what="a string")
_OBJECT = _of_type(dict, what="an object")


# --------------------------------------------------------------------------------------
# the format: one table

#: Stands for "present" in a :class:`Field`'s ``when``.
PRESENT = object()


@dataclasses.dataclass(frozen=True)
class Field:
    """One field of a certificate file: its ``path`` (``"data.X"``), the ``kind`` of value
    it holds (a function that checks one value and returns it exactly), whether it is
    ``required``, and ``when`` it belongs: ``(path, value)`` of an earlier field (or
    :data:`PRESENT`); ``default`` stands in for an absent optional field."""

    path: str
    kind: Callable[[Any, str, ReadLimits], Any]
    required: bool = True
    when: tuple[str, Any] | None = None
    default: Any = None


_SEPARABLE, _NOT_SEPARABLE = ("separable", True), ("separable", False)
_DENSE, _CSR = ("data.layout", "dense"), ("data.layout", "csr")

#: Where the data came from (both formats): a file and its hash, or a built-in set.
_SOURCE_FIELDS = (
    Field("source", _OBJECT, required=False),
    Field("source.path", _TEXT, required=False),
    Field("source.sha256", _sha256, when=("source.path", PRESENT)),
    Field("source.builtin", _TEXT, required=False),
    Field("source.label", _of_type(int, str, type(None), what="a column (a number or "
                                   "a name) or null"), required=False),
    Field("source.delimiter", _of_type(str, type(None), what="a string or null"),
          required=False),
    Field("source.header", _of_type(bool, type(None), what="true, false or null"),
          required=False),
)

#: Every field of a certificate file, in the order they are read (a ``when`` names an
#: earlier field). The document and ``data`` hold no other fields; ``source`` may (it
#: describes where the data came from, in the writer's words).
FIELDS = (
    Field("format", _one_of(*FORMATS)),
    Field("data", _OBJECT),
    Field("data_sha256", _sha256),
    Field("intercept", _BOOLEAN),
    Field("separable", _BOOLEAN),
    Field("witness", _numbers, when=_SEPARABLE),
    Field("witness", _NULL, when=_NOT_SEPARABLE),
    Field("certificate", _weights, when=_NOT_SEPARABLE),
    Field("certificate", _NULL, when=_SEPARABLE),
    Field("method", _TEXT, required=False),
    Field("message", _TEXT, required=False),
    Field("data.layout", _one_of("dense", "csr"), required=False,
          when=("format", CERTIFICATE_FORMAT), default="dense"),
    Field("data.X", _rows, when=_DENSE),
    Field("data.shape", _shape, when=_CSR),
    Field("data.indptr", _ints, when=_CSR),
    Field("data.indices", _ints, when=_CSR),
    Field("data.values", _numbers, when=_CSR),
    Field("data.y", _labels),
) + _SOURCE_FIELDS

#: Every field of a cycling certificate, read as :data:`FIELDS` (its data dense).
CYCLING_FIELDS = (
    Field("format", _one_of(CYCLING_FORMAT)),
    Field("data", _OBJECT),
    Field("data_sha256", _sha256),
    Field("intercept", _BOOLEAN),
    Field("rule", _one_of("nonstrict")),
    Field("transient_presentations", _count),
    Field("transient_updates", _count),
    Field("period_passes", _count),
    Field("cycle_updates", _counts),
    Field("message", _TEXT, required=False),
    Field("data.X", _rows),
    Field("data.y", _labels),
) + _SOURCE_FIELDS


#: The objects that hold no field outside :data:`FIELDS`.
_CLOSED = ("", "data")


def _belongs(field, found, fields=FIELDS):
    """Whether ``field`` belongs, given the fields ``found`` so far (path -> value)."""
    if field.when is None:
        return True
    path, want = field.when
    value = found.get(path, next((f.default for f in fields if f.path == path), None))
    return path in found if want is PRESENT else value == want


def _read_fields(doc, limits, fields=FIELDS):
    """The fields of ``doc`` by ``fields`` (:data:`FIELDS`, :data:`CYCLING_FIELDS`):
    path -> exact value; _Refused names the first field that is missing, misplaced or
    of the wrong kind."""
    found: dict[str, Any] = {"": doc}
    for field in fields:
        parent, _, name = field.path.rpartition(".")
        holder = found.get(parent)
        if not isinstance(holder, dict) or not _belongs(field, found, fields):
            continue
        if name in holder:
            found[field.path] = field.kind(holder[name], field.path, limits)
        elif field.required:
            raise _Refused(f"misses the field {field.path!r}" + _condition(field))
        elif field.default is not None:
            found[field.path] = field.default
    for parent in _CLOSED:
        known = {f.path.rpartition(".")[2] for f in fields
                 if f.path.rpartition(".")[0] == parent and _belongs(f, found, fields)}
        extra = sorted(set(found[parent]) - known)
        if extra:
            raise _Refused(f"{parent or 'the document'} has the field {extra[0]!r}, which "
                           f"this format does not have{_condition_of(parent, found)} "
                           f"(its fields: {', '.join(sorted(known))})")
    return found


def _condition(field):
    if field.when is None:
        return ""
    path, want = field.when
    return f" (needed when {path} is {'present' if want is PRESENT else json.dumps(want)})"


def _condition_of(parent, found):
    return f" (format {found['format']!r}, layout {found.get('data.layout', 'dense')!r})" \
        if parent == "data" else ""


# --------------------------------------------------------------------------------------
# reading a file


@gc_paused
def read_certificate(path: str | os.PathLike[str], *,
                     limits: ReadLimits | None = None
                     ) -> tuple[Any, Any, CertificateClaim]:
    """Read a certificate file; return ``(X, y, claim)`` (``claim`` a
    :class:`CertificateClaim`).

    Checks the file against :data:`FIELDS`: the format tag, every field that belongs and
    its kind (the string ``"false"`` is not a boolean), no field the format does not
    have, every number finite and within ``limits`` (default :class:`ReadLimits`). ``X``
    is a list of rows (dense layout) or a :class:`SparseData`, its numbers exact.

    Raises
    ------
    CertificateUnreadable
        When the file is not JSON (e.g. truncated), not a markone certificate, a field is
        missing or malformed, or a limit is exceeded; the message names the field or the
        limit.
    """
    limits = ReadLimits() if limits is None else limits
    doc = load_document(path, limits)
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if fmt in _OLD_FORMATS:
        raise CertificateUnreadable(f"{path} is in the old format {fmt!r}, which does not "
                                    f"name its data (no data_sha256); {REWRITE}.")
    if isinstance(fmt, str) and fmt.startswith(_CASE_FORMATS):
        raise CertificateUnreadable(
            f"{path} is a test case for a perceptron (format {fmt!r}), not a "
            f"certificate: run a perceptron on it with `markone adversary check {path} "
            "--impl MODULE:FUNCTION` (or --cmd PROGRAM).")
    if isinstance(fmt, str) and fmt.startswith(_MACHINE_FORMATS):
        # said what it is and where it is read, as a test case is (#37)
        what, read = (("a `markone verify machine` report", "re-check it with `markone "
                       f"verify machine TASK --recheck {path}`")
                      if fmt.startswith(_MACHINE_FORMATS[0]) else
                      ("a Mark I run", f"check it with `markone verify machine {path}`"))
        raise CertificateUnreadable(f"{path} is {what} (format {fmt!r}), not a "
                                    f"certificate: {read}.")
    if fmt not in FORMATS and fmt != CYCLING_FORMAT:
        raise CertificateUnreadable(f"{path} is not a markone certificate (expected "
                                    f"format {CERTIFICATE_FORMAT!r} or "
                                    f"{CYCLING_FORMAT!r}); {REWRITE}.")
    try:
        if fmt == CYCLING_FORMAT:
            found = _read_fields(doc, limits, CYCLING_FIELDS)
            X, y = _data(found)
            return X, y, _cycle_claim(found, len(X), limits)
        found = _read_fields(doc, limits)
        X, y = _data(found)
    except (_Refused, ValueError) as exc:
        raise CertificateUnreadable(f"{path}: {str(exc).rstrip('.')}.") from None
    claim = CertificateClaim(found["separable"], found["intercept"], found["witness"],
                  found["certificate"], doc)
    return X, y, claim


def _cycle_claim(found, n, limits):
    """The :class:`CycleClaim` of a cycling certificate's fields, whose re-run (the
    transient, and the period twice) is within ``limits.max_presentations``."""
    T, q = found["transient_presentations"], found["period_passes"]
    if q < 1:
        raise _Refused("period_passes is 0; a period is at least one pass")
    if 2 * T + 2 * q * n > limits.max_presentations:
        raise _Refused(f"re-running it takes {2 * T + 2 * q * n:,} presentations, over "
                       f"the limit of {limits.max_presentations:,} (raise it with "
                       "ReadLimits(max_presentations=...))")
    return CycleClaim(found["intercept"], T, found["transient_updates"], q,
                      found["cycle_updates"], found[""])


def _data(found):
    """``(X, y)`` from the fields: dense rows or a :class:`SparseData`, checked together
    (the sparse block canonical, one label per row, two classes, one source)."""
    if "source.path" in found and "source.builtin" in found:
        raise _Refused("source names both a file (path) and a built-in data set "
                       "(builtin); a certificate's data have one source")
    if found.get("data.layout") == "csr":
        try:
            X: Any = SparseData(found["data.shape"], found["data.indptr"],
                                found["data.indices"], found["data.values"])
        except ValueError as exc:
            raise _Refused(f"data.{exc}") from None
        n = X.shape[0]
    else:
        X = found["data.X"]
        n = len(X)
    y = found["data.y"]
    if len(y) != n:
        raise _Refused(f"data.y must be a list of {n} labels (one per row of X), not "
                       f"{len(y)}")
    try:
        labels_pm1(y)
    except ValueError as exc:
        raise _Refused(f"data.y is not two classes ({exc})") from None
    return X, y


@gc_paused
def check_certificate_file(path: str | os.PathLike[str], *,
                           limits: ReadLimits | None = None,
                           kernel: Callable[[Any, Any, Any], bool] | None = None
                           ) -> CertificateClaim:
    """Check the certificate file at ``path``: its fields, its data, its proof.

    1. its fields (:func:`read_certificate`, within ``limits``);
    2. the embedded data's hash is recomputed (:func:`~verify.certificate.data_sha256`,
       the version of the file's format) and must equal ``data_sha256``: edited data are
       caught even when the proof still holds on them;
    3. when ``source.path`` names a file that is present (as written, or next to the
       certificate), its SHA-256 must equal ``source.sha256``;
    4. the proof, on the embedded data, by the trusted kernel
       (:func:`verify.certificate.kernel.check_certificate`), or by ``kernel`` when
       given: a function of ``(X, y, claim)`` that returns True or raises
       :class:`CertificateError`, such as :func:`verify.coq.check_with_coq`, the checker
       extracted from the Coq proofs.

    Returns its :class:`CertificateClaim` (``source_checked`` True when step 3
    compared a file).

    Raises
    ------
    CertificateUnreadable
        When the file cannot be read as a certificate (``verify check`` exit 2).
    CertificateError
        When a hash does not match or the proof fails (``verify check`` exit 1).
    """
    X, y, claim = read_certificate(path, limits=limits)
    got = data_sha256(X, y, version=claim.data_version)
    if got != claim.fields["data_sha256"]:
        raise CertificateError(f"{path}: the embedded data do not match their hash "
                               f"(data_sha256 {claim.fields['data_sha256'][:12]}..., the "
                               f"data hash to {got[:12]}...): the data or the labels were "
                               "edited after the certificate was written.")
    checked, found = False, None
    src = claim.fields.get("source") or {}
    note = ""
    if "path" in src:
        found, note = _find_source(src["path"], path)
        if found is not None:
            if file_sha256(found) != src["sha256"]:
                raise CertificateError(f"{path}: the source file {found} has changed since "
                                       "the certificate was written (its SHA-256 differs "
                                       "from source.sha256).")
            checked = True
    if kernel is None:
        kernel = check_cycle if isinstance(claim, CycleClaim) else check_certificate
    kernel(X, y, claim)
    return dataclasses.replace(claim, source_checked=checked, source_file=found,
                               source_note=note)


#: What a path that is not a regular file is, by its ``stat`` mode.
_FILE_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
               (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
               (stat.S_ISSOCK, "a socket"))


def _find_source(name, cert_path):
    """``(path, "")`` of the source file as written, or next to the certificate; or
    ``(None, why)`` when neither is a regular file (``"not present here"``, ``"is a
    FIFO, not a regular file"``, ...). Nothing is opened: a FIFO would block."""
    notes = []
    for cand in (name, os.path.join(os.path.dirname(os.fspath(cert_path)), name)):
        try:
            mode = os.stat(cand).st_mode
        except (OSError, ValueError):    # absent, unreadable, or a NUL in the name
            continue
        if stat.S_ISREG(mode):
            return cand, ""
        kind = next((what for test, what in _FILE_KINDS if test(mode)), "not a file")
        notes.append(f"is {kind}, not a regular file")
    return None, notes[0] if notes else "not present here"
