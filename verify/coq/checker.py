"""The second certificate checker: the one extracted from the Coq proofs.

``verify/coq/Checker.v`` defines ``check``, an executable checker over the rationals,
and proves it sound: a witness it accepts separates the data, a certificate it accepts
proves that no ``w`` does (Gordan). ``Extraction.v`` extracts it to OCaml, and
``main.ml`` reads the text form written here. :func:`check_with_coq` runs it on what
:func:`verify.certificate.read_certificate` returns, as
:func:`verify.certificate.check_certificate` runs the Python kernel, independently of
that kernel (``markone verify check --checker coq CERT``).

The text form (:func:`certificate_text`): labels -1/+1 (markone's rule,
:func:`verify.certificate.labels_pm1`), every number exact as ``p`` or ``p/q``, each
integer in decimal, or in hexadecimal (``-0x1f``) beyond :data:`DECIMAL_BITS` bits (any
size: linear time, and no Python limit on ``str(int)``); a certificate's indices in
rising order (the checker walks the rows once)::

    markone-coq-certificate 1
    intercept 1
    examples 4 2
    -1 0 0
    ...
    certificate 4 0 1 1 1 2 1 3 1        (or: witness 3 -2 2 3)

A cycling certificate (:class:`verify.certificate.CycleClaim`) is written as
``markone-coq-cycle 1``, its data dense, then ``cycle A R Q TU`` and ``updates M I_1
... I_M`` (``main.ml`` reads it, ``verify/coq/CycleCheck.v``'s ``check_cycle``
decides it).

Sparse data (scipy.sparse, :class:`verify.certificate.SparseData`) are never made dense
here: ``sparse-examples N D``, then per example its label, its number of entries and
each column (rising) and value. ``main.ml`` hands the proven checker the rows over the
columns that occur in some row only, renumbered in increasing order: a column that is
0 in every row adds 0 to every dot product and to the certificate's sum, so every check
answers alike (the argument is in ``main.ml``).
"""

from __future__ import annotations

import os
import resource
import subprocess
import tempfile
from itertools import chain
from typing import Any, Iterable, Iterator

from verify.certificate.kernel import (CertificateError, csr_lists, decimal_int,
                                       labels_pm1, number, plain)
from markone._internal.memory import GB, memory_limit
from verify.coq.build import CoqBuild, build
from verify.errors import CoqUnavailable, CoqUndecided

__all__ = ["certificate_text", "check_with_coq", "run_checker", "MAX_DENSE_ENTRIES",
           "MAX_COLUMNS",
           "MIN_MEMORY_GB",
           "DECIMAL_BITS"]

#: The checker is handed dense rows: of sparse data, over the columns that occur in some
#: row only (``main.ml`` renumbers them); data of more entries (examples x occurring
#: columns) are refused.
MAX_DENSE_ENTRIES = 10**8
#: The most columns the checker can number: OCaml's ``max_int`` on a 64-bit machine.
MAX_COLUMNS = 2**62 - 1

#: Integers of more bits are written in hexadecimal (``str(int)`` is quadratic and
#: refuses more than 4,300 digits; ``hex`` is linear and has no limit).
DECIMAL_BITS = 4_000
_DECIMAL_LIMIT = 2**DECIMAL_BITS

#: The least ``max_memory_gb``: the checker needs about 10 MB of address space to
#: start (a smaller limit is refused, not taken for a check that ran out).
MIN_MEMORY_GB = 0.05

#: The checker's exit statuses: 0 VALID, 1 INVALID, 2 unreadable, 4 over its budget,
#: 5 out of memory.
_OVER_BUDGET, _OUT_OF_MEMORY = 4, 5
#: What the OCaml runtime and GMP say when an allocation fails outside ``main.ml``'s
#: handler (the runtime's fatal error, GMP's abort).
_MEMORY_WORDS = ("out of memory", "Cannot allocate memory")


def _int(n: int) -> str:
    return str(n) if n.bit_length() <= DECIMAL_BITS else hex(n)


def _text(v: Any, where: str) -> str:
    q = v if type(v) is int else number(v, where)
    if type(q) is int or q.denominator == 1:
        return _int(int(q))
    return f"{_int(q.numerator)}/{_int(q.denominator)}"


def _dense_rows(X: Any) -> list[list[Any]]:
    rows = plain(X)
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__len__") or not len(rows) \
            or not all(hasattr(r, "__len__") and not isinstance(r, (str, bytes))
                       for r in rows):
        raise ValueError("X must be a non-empty 2-D array-like (n_samples, n_features).")
    if len({len(r) for r in rows}) != 1 or not len(rows[0]):
        raise ValueError("X must have rows of one non-zero length.")
    return rows


def _sparse_rows(X: Any) -> tuple[int, list[list[tuple[int, Any]]]]:
    """``(d, rows)`` of sparse ``X``: each row its ``(column, value)`` pairs by rising
    column (an entry stored twice added up), never made dense; ValueError when the rows
    over the columns that occur (what the checker is handed) pass
    :data:`MAX_DENSE_ENTRIES`."""
    n, d, ptr, cols, vals = csr_lists(X)
    if d > MAX_COLUMNS:
        raise ValueError(f"X has {d:,} columns, more than the Coq checker can number "
                         f"({MAX_COLUMNS:,}, OCaml's max_int); check it with the Python "
                         "kernel (--checker python).")
    occurring = len(set(cols))
    if n * occurring > MAX_DENSE_ENTRIES:
        raise ValueError(f"X has {n:,} examples x {occurring:,} columns that occur, over "
                         f"the {MAX_DENSE_ENTRIES:,} entries that the Coq checker holds; "
                         "check it with the Python kernel (--checker python).")
    rows = []
    for i in range(n):
        row: dict[int, Any] = {}
        for k in range(ptr[i], ptr[i + 1]):
            row[cols[k]] = row.get(cols[k], 0) + number(vals[k], f"X[{i}, {cols[k]}]")
        rows.append(sorted(row.items()))
    return d, rows


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
    return "".join(_lines(X, y, claim))


def _lines(X: Any, y: Any, claim: Any) -> Iterator[str]:
    """The lines of :func:`certificate_text`, each ending in a newline (one per example:
    a file of 10^8 entries is written without holding its text)."""
    if not hasattr(claim, "separable"):
        yield from _cycle_lines(X, y, claim)
        return
    if claim.separable is None:
        raise ValueError("the verdict is unknown (separable=None): nothing to check.")
    if claim.separable not in (True, False):
        raise CertificateError(f"separable={claim.separable!r} must be True or False.")
    sparse = hasattr(X, "tocsr") and hasattr(X, "shape")
    d, rows = _sparse_rows(X) if sparse else (None, _dense_rows(X))
    signs = labels_pm1(y)
    if len(rows) != len(signs):
        raise ValueError(f"X has {len(rows)} samples but y has {len(signs)}.")
    proof = _proof_line(claim)  # before the data: its errors cost nothing
    yield (f"markone-coq-certificate 1\nintercept {int(bool(claim.intercept))}\n"
           f"{'sparse-examples' if sparse else 'examples'} {len(rows)} "
           f"{d if sparse else len(rows[0])}\n")
    yield from _example_lines(signs, rows, _sparse_text if sparse else _row_text)
    yield proof


def _example_lines(signs: list[int], rows: list, row_text: Any) -> Iterator[str]:
    """One line per example: its label and ``row_text(row, i)``; dense rows of ints of
    at most :data:`DECIMAL_BITS` bits (most data), found so by one look at all of them,
    by one ``join`` each (a row looked at on its own cost twice the writing)."""
    if row_text is _row_text and _small_ints(rows):
        for s, row in zip(signs, rows):
            yield f"{s} {' '.join(map(str, row))}\n"
        return
    for i, (s, row) in enumerate(zip(signs, rows)):
        yield f"{s} {row_text(row, i)}\n"


def _small_ints(rows: list[list[Any]]) -> bool:
    """Whether every entry of ``rows`` is an ``int`` of at most :data:`DECIMAL_BITS`
    bits (not a bool, nor a NumPy integer: those are written one by one).

    >>> _small_ints([[1, -2], [3, 4]]), _small_ints([[1, 2.0]]), _small_ints([[2**4001]])
    (True, False, False)
    """
    return set(map(type, chain.from_iterable(rows))) <= {int} and \
        -_DECIMAL_LIMIT < min(chain.from_iterable(rows)) and \
        max(chain.from_iterable(rows)) < _DECIMAL_LIMIT


def _cycle_lines(X: Any, y: Any, claim: Any) -> Iterator[str]:
    """The text form of a cycling certificate (``markone-coq-cycle 1``; ``main.ml``):
    the data, then ``cycle A R Q TU`` (the transient as ``A`` passes and ``R``
    presentations, ``TU`` updates in it; the period ``Q`` passes) and ``updates M I_1
    ... I_M``, the example of each update on the cycle."""
    rows, signs = _dense_rows(X), labels_pm1(y)
    if len(rows) != len(signs):
        raise ValueError(f"X has {len(rows)} samples but y has {len(signs)}.")
    a, r = divmod(claim.transient_presentations, len(rows))
    yield (f"markone-coq-cycle 1\nintercept {int(bool(claim.intercept))}\n"
           f"examples {len(rows)} {len(rows[0])}\n")
    yield from _example_lines(signs, rows, _row_text)
    yield (f"cycle {a} {r} {claim.period_passes} {claim.transient_updates}\n"
           + " ".join(map(str, ["updates", len(claim.cycle_updates),
                                *claim.cycle_updates])) + "\n")


def _row_text(row: list, i: int) -> str:
    """A data row's numbers, exact; ints of at most :data:`DECIMAL_BITS` bits by one
    ``join`` (most rows)."""
    if set(map(type, row)) <= {int} and -_DECIMAL_LIMIT < min(row) and \
            max(row) < _DECIMAL_LIMIT:
        return " ".join(map(str, row))
    return " ".join(_text(v, f"X[{i}, {j}]") for j, v in enumerate(row))


def _sparse_text(row: list[tuple[int, Any]], i: int) -> str:
    """A sparse row: its number of entries, then each column and its value, exact."""
    return " ".join([str(len(row)), *(f"{j} {_text(v, f'X[{i}, {j}]')}" for j, v in row)])


def _proof_line(claim: Any) -> str:
    """``witness M ...`` or ``certificate K I L ...`` (indices rising), with its newline."""
    if claim.separable:
        w = claim.witness
        w = list(w) if hasattr(w, "__len__") and not isinstance(w, (str, bytes, dict)) \
            else []
        return " ".join(["witness", str(len(w)), *(_text(v, "the witness") for v in w)]) \
            + "\n"
    weights = []  # an index twice stays twice: the checker refuses it, as the kernel
    for key, lam in dict(claim.certificate or {}).items():
        index = int(key) if type(key) is int else decimal_int(key) \
            if isinstance(key, str) and key.isascii() and key.isdigit() else -1
        if index < 0:
            raise CertificateError(f"the certificate names {key!r:.60}, not an "
                                   "index (0, 1, 2...).")
        weights.append((index, _text(lam, "a certificate weight")))
    words = ["certificate", str(len(weights))]
    for index, lam in sorted(weights, key=lambda pair: pair[0]):
        words += [_int(index), lam]
    return " ".join(words) + "\n"


def check_with_coq(X: Any, y: Any, claim: Any, *, built: CoqBuild | None = None,
                   budget: int | None = None, timeout: float | None = None,
                   max_memory_gb: float | None = None) -> bool:
    """Check a witness or certificate with the checker extracted from the Coq proofs.

    True when it holds; else :class:`~verify.errors.CertificateError`.

    Parameters
    ----------
    X, y : array-like
        The data, as :func:`verify.certificate.kernel.check_certificate` takes them.
    claim : object
        Its ``separable``, ``intercept``, ``witness`` and ``certificate``.
    built : CoqBuild, optional
        The compiled checker (default: :func:`verify.coq.build.build`).
    budget : int, optional
        At most this many words (8 bytes) allocated by the checker, reading included: a
        count of its work, the same for the same input on every machine. Default: no
        limit.
    timeout : float, optional
        Seconds of wall-clock time before the checker is stopped. Default: no limit.
    max_memory_gb : float, optional
        The most memory (address space, GB of 10^9 bytes) the checker may take; it
        stops when an allocation would pass it. Default
        :data:`markone._internal.memory.DEFAULT_MAX_MEMORY_GB` (4), the same on every
        machine; at least :data:`MIN_MEMORY_GB` (else ValueError).

    Raises
    ------
    CoqUndecided
        When the check needs more than ``budget``, ``max_memory_gb`` or ``timeout``
        (nothing is decided; ``stopped_by`` names which).
    CoqUnavailable
        When Coq or OCaml is missing (the message says what to install).
    """
    lines = _lines(X, y, claim)
    if run_checker(lines, built=built, budget=budget, timeout=timeout,
                   max_memory_gb=max_memory_gb):
        return True
    what, where = ("cycle", "CycleCheck.v") if not hasattr(claim, "separable") else \
        ("witness" if claim.separable else "certificate", "Checker.v")
    raise CertificateError(f"the checker extracted from the Coq proofs "
                           f"(verify/coq/{where}) refutes the {what}.")


def run_checker(lines: Iterable[str], *, built: CoqBuild | None = None,
                budget: int | None = None, timeout: float | None = None,
                max_memory_gb: float | None = None) -> bool:
    """Run the extracted checker on a certificate in its text form (``lines``, each
    ending in a newline): True VALID, False INVALID. ``budget``, ``timeout`` and
    ``max_memory_gb`` as :func:`check_with_coq` takes them (the same errors)."""
    if max_memory_gb is not None and max_memory_gb < MIN_MEMORY_GB:
        raise ValueError(f"max_memory_gb={max_memory_gb:g} is below the {MIN_MEMORY_GB} GB "
                         "the Coq checker needs to start; raise it.")
    limit = int(memory_limit(max_memory_gb))
    built = build() if built is None else built
    fd, path = tempfile.mkstemp(prefix="markone-coq-", suffix=".txt")
    budget_args = [] if budget is None else ["--budget", str(int(budget))]
    env = {k: v for k, v in os.environ.items() if k != "OCAMLRUNPARAM"}  # GC: the count
    try:
        with os.fdopen(fd, "w") as out:
            out.writelines(lines)
        done = subprocess.run([str(built.executable), *budget_args, path],
                              capture_output=True, text=True, check=False, env=env,
                              timeout=timeout, preexec_fn=_address_space(limit))
    except subprocess.TimeoutExpired:  # the child is killed and waited for
        raise CoqUndecided(f"the checker extracted from the Coq proofs did not decide "
                           f"within --timeout {timeout:g} s.", "timeout") from None
    finally:
        os.unlink(path)
    if _out_of_memory(done):
        raise CoqUndecided(f"the checker extracted from the Coq proofs did not decide "
                           f"within --max-memory {limit / GB:g} GB of memory; raise it.",
                           "memory")
    return _verdict(done, budget)


def _address_space(limit: int) -> Any:
    """What the child runs before the checker: its address space bounded at
    ``limit`` bytes (an allocation past it fails: ``Out_of_memory``)."""
    def bound() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return bound


def _out_of_memory(done: subprocess.CompletedProcess) -> bool:
    """Did the checker stop because an allocation failed (its own exit 5, the OCaml
    runtime's fatal error, or GMP's abort)?"""
    if done.returncode == _OUT_OF_MEMORY:
        return True
    return done.returncode not in (0, 1, _OVER_BUDGET) and any(
        words in (done.stderr or "") for words in _MEMORY_WORDS)


def _verdict(done: subprocess.CompletedProcess, budget: int | None) -> bool:
    if done.returncode == 0 and done.stdout.strip() == "VALID":
        return True
    if done.returncode == 1 and done.stdout.strip() == "INVALID":
        return False
    if done.returncode == _OVER_BUDGET:
        raise CoqUndecided(f"the checker extracted from the Coq proofs did not decide "
                           f"within --budget {budget:,} words of work; raise it.")
    raise CoqUnavailable(f"the extracted checker failed (exit {done.returncode}): "
                         f"{(done.stderr or done.stdout).strip()[:500]}; this is a bug "
                         "in markone.")
