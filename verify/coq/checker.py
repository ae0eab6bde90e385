"""The second certificate checker: the one extracted from the Coq proofs.

``verify/coq/Checker.v`` defines ``check``, an executable checker over the rationals,
and proves it sound: a witness it accepts separates the data, a certificate it accepts
proves that no ``w`` does (Gordan). ``Extraction.v`` extracts it to OCaml, and
``main.ml`` reads the text form written here. :func:`check_with_coq` runs it on what
:func:`verify.certificate.read_certificate` returns, as
:func:`verify.certificate.check_certificate` runs the Python kernel, independently of
that kernel (``markone verify check --kernel coq CERT``).

The text form (:func:`certificate_text`): labels -1/+1 (markone's rule,
:func:`verify.certificate.labels_pm1`), every number exact as ``p`` or ``p/q``::

    markone-coq-certificate 1
    intercept 1
    examples 4 2
    -1 0 0
    ...
    certificate 4 0 1 1 1 2 1 3 1        (or: witness 3 -2 2 3)
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from typing import Any

from verify.certificate.kernel import (CertificateError, csr_lists, labels_pm1, number,
                                       plain)
from verify.coq.build import CoqBuild, CoqUnavailable, build

__all__ = ["certificate_text", "check_with_coq", "MAX_DENSE_ENTRIES"]

#: The text form writes every entry (dense rows); data with more entries are refused.
MAX_DENSE_ENTRIES = 10**8


def _text(v: Any, where: str) -> str:
    if type(v) is int:
        return str(v)
    q = number(v, where)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _dense_rows(X: Any) -> list[list[Any]]:
    if hasattr(X, "tocsr") and hasattr(X, "shape"):
        n, d, ptr, cols, vals = csr_lists(X)
        if n * d > MAX_DENSE_ENTRIES:
            raise ValueError(f"X has {n:,} x {d:,} entries, over the {MAX_DENSE_ENTRIES:,} "
                             "that the Coq checker's text form (dense rows) holds; "
                             "check it with the Python kernel (--kernel python).")
        rows: list[list[Any]] = [[0] * d for _ in range(n)]
        for i in range(n):
            for k in range(ptr[i], ptr[i + 1]):
                rows[i][cols[k]] += number(vals[k], f"X[{i}, {cols[k]}]")
        return rows
    rows = plain(X)
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__len__") or not len(rows) \
            or not all(hasattr(r, "__len__") and not isinstance(r, (str, bytes))
                       for r in rows):
        raise ValueError("X must be a non-empty 2-D array-like (n_samples, n_features).")
    if len({len(r) for r in rows}) != 1 or not len(rows[0]):
        raise ValueError("X must have rows of one non-zero length.")
    return rows


def certificate_text(X: Any, y: Any, claim: Any) -> str:
    """The text form that the extracted checker reads, of data and a claim.

    ``claim`` has ``separable``, ``intercept``, ``witness`` and ``certificate``, as
    :class:`verify.certificate.CertificateClaim`. Numbers are written exactly; nothing is checked
    here beyond what the text form cannot say (an index that is not a natural number,
    labels that are not two classes: ValueError or CertificateError as the kernel).

    >>> from types import SimpleNamespace as Claim
    >>> print(certificate_text([[0, 0], [1, "1/2"]], ["a", "b"], Claim(
    ...     separable=True, intercept=True, witness=[2, 2, -1], certificate=None)))
    markone-coq-certificate 1
    intercept 1
    examples 2 2
    -1 0 0
    1 1 1/2
    witness 3 2 2 -1
    <BLANKLINE>
    """
    if claim.separable is None:
        raise ValueError("the verdict is unknown (separable=None): nothing to check.")
    if claim.separable not in (True, False):
        raise CertificateError(f"separable={claim.separable!r} must be True or False.")
    rows, signs = _dense_rows(X), labels_pm1(y)
    if len(rows) != len(signs):
        raise ValueError(f"X has {len(rows)} samples but y has {len(signs)}.")
    lines = ["markone-coq-certificate 1", f"intercept {int(bool(claim.intercept))}",
             f"examples {len(rows)} {len(rows[0])}"]
    lines += [" ".join([str(s), *(_text(v, f"X[{i}, {j}]") for j, v in enumerate(row))])
              for i, (s, row) in enumerate(zip(signs, rows))]
    if claim.separable:
        w = claim.witness
        w = list(w) if hasattr(w, "__len__") and not isinstance(w, (str, bytes, dict)) \
            else []
        lines.append(" ".join(["witness", str(len(w)),
                               *(_text(v, "the witness") for v in w)]))
    else:
        cert = dict(claim.certificate or {})
        words = ["certificate", str(len(cert))]
        for key, lam in cert.items():
            index = int(key) if type(key) is int or (isinstance(key, str) and
                                                      key.isdigit()) else -1
            if index < 0:
                raise CertificateError(f"the certificate names example {key!r:.60}, "
                                       "which is not an index.")
            words += [str(index), _text(lam, "a certificate weight")]
        lines.append(" ".join(words))
    return "\n".join(lines) + "\n"


def check_with_coq(X: Any, y: Any, claim: Any, *, built: CoqBuild | None = None) -> bool:
    """Check a witness or certificate with the checker extracted from the Coq proofs.

    True when it holds; else :class:`~verify.certificate.CertificateError`. ``built``
    defaults to :func:`verify.coq.build.build` (compiled once, then cached).

    Raises
    ------
    CoqUnavailable
        When Coq or OCaml is missing (the message says what to install).
    """
    text = certificate_text(X, y, claim)
    built = build() if built is None else built
    fd, path = tempfile.mkstemp(prefix="markone-coq-", suffix=".txt")
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        done = subprocess.run([str(built.executable), path], capture_output=True,
                              text=True, check=False)
    finally:
        os.unlink(path)
    if done.returncode == 0 and done.stdout.strip() == "VALID":
        return True
    if done.returncode == 1 and done.stdout.strip() == "INVALID":
        what = "witness" if claim.separable else "certificate"
        raise CertificateError(f"the checker extracted from the Coq proofs "
                               f"(verify/coq/Checker.v) refutes the {what}.")
    raise CoqUnavailable(f"the extracted checker failed (exit {done.returncode}): "
                         f"{(done.stderr or done.stdout).strip()[:500]}; this is a bug "
                         "in markone.")

