"""A certificate file's bytes and JSON document, read within limits.

The first stage of reading a certificate (:mod:`verify.certificate.reading` checks its
fields next). A hostile file is refused before it can cost much, with a message that
names the limit and how to raise it (:class:`ReadLimits`):

* only regular files are read (a FIFO would block, ``/dev/zero`` never end), and their
  size is checked before reading (``max_bytes``);
* arrays and objects nested more than ``max_depth`` levels deep (default 100; a
  certificate nests 4) are refused before the JSON parser sees them: it recurses once
  per level, and Python's recursion limit (1,000 levels) would otherwise be the only
  stop (:func:`markone._internal.io.nesting_depth_over` counts the levels without
  recursion, in linear time);
* a key twice in one object is refused: JSON readers differ on which one counts (Python
  keeps the last, others the first), so two checkers could read different claims;
* ``NaN`` and ``Infinity`` are not numbers;
* a JSON integer longer than Python's ``int`` limit (``sys.get_int_max_str_digits()``,
  4,300 digits) is refused with that limit named: markone writes longer integers as
  strings, which the reader reads exactly up to ``max_number_chars`` characters.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import sys
from typing import Any


from markone._internal.io import JSONRefused, read_strict_json
from verify.certificate.kernel import MAX_EXPONENT, MAX_NUMBER_CHARS
from verify.errors import CertificateUnreadable

__all__ = ["ReadLimits", "load_document",
           "REWRITE", "MAX_DEPTH_CEILING"]

#: How to mend an unreadable certificate.
REWRITE = "write it again with `markone verify separable FILE --certificate OUT.json`"

#: The largest ``max_depth`` a read may allow: Python's JSON parser recurses once per
#: level, well inside Python's recursion limit (1,000).
MAX_DEPTH_CEILING = 400


@dataclasses.dataclass(frozen=True)
class ReadLimits:
    """How much of a certificate file is read: ``max_bytes`` of file, arrays and objects
    nested at most ``max_depth`` levels deep (at most :data:`MAX_DEPTH_CEILING`), and
    per number string ``max_number_chars`` characters and ``|exponent| <= max_exponent``;
    a cycling certificate whose re-run takes more than ``max_presentations``
    presentations (its transient and its period, each twice) is refused.

    >>> ReadLimits(max_bytes=2 ** 31).max_bytes
    2147483648
    >>> ReadLimits().max_depth
    100
    """

    max_bytes: int = 1 << 30
    max_number_chars: int = MAX_NUMBER_CHARS
    max_exponent: int = MAX_EXPONENT
    max_depth: int = 100
    max_presentations: int = 10**8

    def __post_init__(self) -> None:
        for name, value in dataclasses.asdict(self).items():
            if type(value) is not int or value < 1:
                raise ValueError(f"ReadLimits({name}={value!r}): a positive int is needed.")
        if self.max_depth > MAX_DEPTH_CEILING:
            raise ValueError(f"ReadLimits.max_depth is {self.max_depth}, over the "
                             f"ceiling of {MAX_DEPTH_CEILING}: Python's JSON parser "
                             "recurses once per level.")




def _read_bytes(path, limits):
    """The bytes of the regular file at ``path``, at most ``limits.max_bytes`` of them,
    its kind and size checked before reading (a FIFO would block, /dev/zero never end)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise CertificateUnreadable(f"{path} cannot be opened: {exc.strerror}.") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        what = "a folder" if stat.S_ISDIR(info.st_mode) else "a FIFO" if \
            stat.S_ISFIFO(info.st_mode) else "a device or socket"
        raise CertificateUnreadable(f"{path} is {what}, not a regular file; only "
                                    "certificate files are read.")
    with os.fdopen(fd, "rb") as fh:
        raw = fh.read(limits.max_bytes + 1) if info.st_size <= limits.max_bytes else b""
    if info.st_size > limits.max_bytes or len(raw) > limits.max_bytes:
        raise CertificateUnreadable(
            f"{path} is {max(info.st_size, len(raw)):,} bytes, over the limit of "
            f"{limits.max_bytes:,} bytes a certificate is read to; raise it with "
            "ReadLimits(max_bytes=...).")
    return raw


def _not_json(raw: bytes, path: Any, exc: json.JSONDecodeError) -> str:
    """The message for a file that is not JSON: one that starts as a JSON document
    may be truncated; any other (a CSV of data, say) is not a certificate at all.

    >>> _not_json(b"1,0,1\\n", "d.csv", json.JSONDecodeError("Extra data", "1,0", 1))
    'd.csv is not a certificate: it does not start as a JSON document ({ or [) but with "1,0,1"; verify check reads certificates; to decide a data file run `markone verify separable d.csv` (add --certificate OUT.json to keep one).'
    """
    start = raw.lstrip()[:1]
    if start in (b"{", b"["):
        return (f"{path} is not valid JSON ({exc}); is it truncated? "
                f"{REWRITE[0].upper()}{REWRITE[1:]}.")
    first = raw.lstrip().split(b"\n", 1)[0][:20].decode("utf-8", "replace")
    return (f"{path} is not a certificate: it does not start as a JSON document ({{ or [) "
            f'but with "{first}"; verify check reads certificates; to decide a data '
            f"file run `markone verify separable {path}` (add --certificate OUT.json to "
            "keep one).")


def load_document(path: str | os.PathLike[str], limits: ReadLimits) -> Any:
    """The JSON document of the certificate file at ``path``, read within ``limits``:
    a regular file, its size checked before reading; nesting deeper than
    ``limits.max_depth`` refused before parsing; duplicate keys, NaN and over-long
    integers refused (:class:`CertificateUnreadable` naming the limit).

    >>> load_document("/dev/null", ReadLimits())
    Traceback (most recent call last):
    ...
    verify.errors.CertificateUnreadable: /dev/null is a device or socket, not a regular file; only certificate files are read.
    """
    raw = _read_bytes(path, limits)
    try:
        return read_strict_json(raw, max_depth=limits.max_depth)
    except JSONRefused as exc:
        raise CertificateUnreadable(_refusal(exc, path, limits)) from None
    except json.JSONDecodeError as exc:
        raise CertificateUnreadable(_not_json(raw, path, exc)) from None
    except UnicodeDecodeError:
        raise CertificateUnreadable(f"{path} is not a text file; {REWRITE}.") from None
    except ValueError:  # json's int(): more digits than sys.get_int_max_str_digits()
        raise CertificateUnreadable(
            f"{path} holds a JSON integer of more than {sys.get_int_max_str_digits():,} "
            "digits, Python's limit on reading integers; write it as a string (read "
            "exactly, up to ReadLimits.max_number_chars characters), or raise Python's "
            "limit with the environment variable PYTHONINTMAXSTRDIGITS.") from None


def _refusal(exc: JSONRefused, path: Any, limits: ReadLimits) -> str:
    """What :func:`read_strict_json` refused, said of the certificate file."""
    if exc.problem == "depth":
        return (f"{path} nests arrays and objects more than {limits.max_depth} levels "
                "deep, over the limit of a read; a certificate nests 4 levels: raise it "
                "with ReadLimits(max_depth=...) only for a file that really needs it.")
    if exc.problem == "duplicate key":
        return (f"{path}: the key {exc.detail!r} appears twice in one object; JSON "
                "readers differ on which one counts, so two checkers could read "
                "different claims: keep one.")
    return (f"{path}: {exc.detail} is not a number JSON allows; a certificate holds "
            "finite numbers only.")
