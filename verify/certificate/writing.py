"""Writing certificate files: the document for a verdict, and its JSON text.

Outside the trusted part: what is written here is read back by
:mod:`verify.certificate.reading` and decided by the kernel
(:mod:`verify.certificate.kernel`), so a bug here can make a file unreadable or wrong
(``markone verify check`` exits 2 or 1), never make a wrong proof pass. Standard library
only.
"""

from __future__ import annotations

import json
import math
import numbers
import os
from fractions import Fraction
from itertools import accumulate
from typing import Any

from verify.certificate.hashing import data_sha256, file_sha256, fraction_text, int_text
from verify.certificate.kernel import csr_lists, number, plain, sparse_rows
from verify.certificate.reading import CERTIFICATE_FORMAT, CYCLING_FORMAT, plain_numbers
from verify.certificate.sparse import SparseData

__all__ = ["certificate_document", "certificate_json", "cycle_document"]

#: Integers of more bits than this are written as strings of digits (read back exactly):
#: a JSON integer over ``sys.get_int_max_str_digits()`` digits (4,300) fails in Python.
_LONGEST_JSON_INT_BITS = 10_000
_JSON_INT = 2 ** _LONGEST_JSON_INT_BITS


def certificate_document(X: Any, y: Any, verdict: Any, *,
                         source: str | os.PathLike[str] | dict[str, Any] | None = None,
                         layout: str | None = None) -> dict[str, Any]:
    """The certificate file's content (a JSON-ready dict) for a decided ``verdict``.

    The data are embedded exactly (ints and float64 as JSON numbers, anything else,
    a longdouble's extra bits included, as an exact ``"p/q"`` string) and named by
    :func:`data_sha256`; ``source`` is a path (its SHA-256 is recorded, for
    :func:`check_certificate_file` to compare when the file is present) or a dict
    (e.g. ``{"builtin": "xor"}``).

    ``layout`` is how the data are stored: ``"dense"`` (``data.X``, a list of rows) or
    ``"csr"`` (``data.layout``, ``shape``, ``indptr``, ``indices``, ``values``: the
    non-zero entries only, as :class:`SparseData`); by default ``"csr"`` for a sparse
    ``X`` (scipy.sparse or :class:`SparseData`), which is then never made dense (time
    and memory O(n + nnz)), and ``"dense"`` otherwise. The hash is the same either way.
    Write the document with :func:`certificate_json`.

    >>> from types import SimpleNamespace as V
    >>> doc = certificate_document([[0], [1]], [0, 1], V(separable=True, intercept=True,
    ...     witness=(2, -1), certificate=None, method="user", message=""))
    >>> doc["format"], doc["witness"], doc["data_sha256"] == data_sha256([[0], [1]], [0, 1])
    ('markone.verify.separability/3', ['2', '-1'], True)
    >>> sp = certificate_document([[0], [1]], [0, 1], V(separable=True, intercept=True,
    ...     witness=(2, -1), certificate=None), layout="csr")
    >>> sp["data"], sp["data_sha256"] == doc["data_sha256"]
    ({'layout': 'csr', 'shape': [2, 1], 'indptr': [0, 0, 1], 'indices': [0], 'values': [1], 'y': [0, 1]}, True)
    """
    if verdict.separable not in (True, False):
        raise ValueError("the verdict is unknown (separable=None): there is no proof "
                         "to write.")
    data, named = _json_data(X, [_json_label(v) for v in plain(y)], layout)
    if isinstance(source, (str, os.PathLike)):
        source = {"path": str(source), "sha256": file_sha256(source)}
    doc = {
        "format": CERTIFICATE_FORMAT,
        "data": data,
        "data_sha256": data_sha256(named, data["y"]),
        "intercept": bool(verdict.intercept),
        "separable": bool(verdict.separable),
        "witness": None if not verdict.separable else
        [fraction_text(number(v, "the witness")) for v in verdict.witness],
        "certificate": None if verdict.separable else
        {str(int(i)): fraction_text(number(v, "a certificate weight"))
         for i, v in verdict.certificate.items()},
        "method": str(getattr(verdict, "method", "")),
        "message": str(getattr(verdict, "message", "")),
    }
    if source is not None:
        doc["source"] = dict(source)
    return doc


def cycle_document(X: Any, y: Any, report: Any, *,
                   source: str | os.PathLike[str] | dict[str, Any] | None = None
                   ) -> dict[str, Any]:
    """The cycling certificate's content (format ``markone.verify.cycling/1``) for a
    cycle that :func:`verify.check_cycling` found (``order="cyclic"``, markone's rule).

    The data are embedded exactly and named as in :func:`certificate_document` (dense
    layout); then the transient (presentations and updates), the period in passes and
    the example of each update on the cycle: what a checker needs to run it again
    (:func:`verify.certificate.cycles.check_cycle`). Write it with
    :func:`certificate_json`.

    >>> from verify import check_cycling
    >>> X, y = [[-1, -1], [-1, 1], [1, -1], [1, 1]], [-1, 1, 1, -1]
    >>> doc = cycle_document(X, y, check_cycling(X, y))
    >>> [doc[k] for k in ("format", "transient_presentations", "period_passes",
    ...                   "cycle_updates")]
    ['markone.verify.cycling/1', 0, 1, [0, 1, 2, 3]]
    """
    if report.order != "cyclic" or report.rule != "nonstrict" or \
            report.transient_presentations is None or not report.cycle_indices:
        raise ValueError("only a cycle of the cyclic order under markone's rule (a run "
                         "that neither converged nor was stopped) has a cycling "
                         "certificate.")
    data, named = _json_data(X, [_json_label(v) for v in plain(y)], "dense")
    doc = {"format": CYCLING_FORMAT, "data": data,
           "data_sha256": data_sha256(named, data["y"]),
           "intercept": bool(report.intercept), "rule": report.rule,
           "transient_presentations": int(report.transient_presentations),
           "transient_updates": int(report.transient),
           "period_passes": int(report.period_epochs),
           "cycle_updates": [int(i) for i in report.cycle_indices],
           "message": str(report.message)}
    if isinstance(source, (str, os.PathLike)):
        source = {"path": str(source), "sha256": file_sha256(source)}
    if source is not None:
        doc["source"] = dict(source)
    return doc


def _json_data(X, y, layout):
    """``(data, named)``: the ``data`` field in ``layout`` (None: csr for sparse ``X``,
    else dense), and the matrix it holds (what :func:`data_sha256` names)."""
    sparse = hasattr(X, "tocsr") and hasattr(X, "shape")
    layout = ("csr" if sparse else "dense") if layout is None else layout
    if layout == "dense":
        rows = [list(row) if _json_ready(row) else [_json_number(v) for v in row]
                for row in plain(X)]  # copies: the document never aliases the data
        return {"X": rows, "y": y}, rows
    if layout != "csr":
        raise ValueError(f"layout={layout!r} must be 'dense' or 'csr'.")
    named = _json_csr(X if sparse else _dense_to_csr(X))
    return {"layout": "csr", "shape": list(named.shape), "indptr": named.indptr,
            "indices": named.indices, "values": named.values, "y": y}, named


def _json_csr(X):
    """A sparse ``X`` as a canonical :class:`SparseData` of JSON-ready exact values
    (see :func:`_json_number`), made row by row from its stored entries."""
    n, d, ptr, cols, vals = csr_lists(X)
    if isinstance(X, SparseData):  # canonical already; only the values may need words
        values = vals if _json_ready(vals) else [_json_number(v) for v in vals]
        return SparseData((n, d), ptr, cols, values)
    if getattr(X, "has_canonical_format", False) and 0 not in vals \
            and plain_numbers(vals):  # sorted, no entry twice, no zero: as stored
        if set(map(type, vals)) == {float} and all(map(float.is_integer, vals)):
            vals = list(map(int, vals))  # the same numbers, written shorter
        return SparseData((n, d), ptr, cols, vals)
    rows, scales = sparse_rows(X, intercept=False)  # by column, summed, zeros dropped
    return SparseData((n, d), list(accumulate((len(c) for c, _ in rows), initial=0)),
                      [j for c, _ in rows for j in c],
                      [_json_number(v * sc) for (_, nums), sc in zip(rows, scales)
                       for v in nums])


def _dense_to_csr(X):
    """A dense ``X`` (nested lists, NumPy) as a :class:`SparseData` of its non-zero
    entries, exactly."""
    rows = plain(X)
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__len__") or not len(rows):
        raise ValueError("X must be a non-empty 2-D array-like (n_samples, n_features).")
    d = len(rows[0]) if hasattr(rows[0], "__len__") else 0
    indptr, indices, values = [0], [], []
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != d:
            raise ValueError(f"X must be 2-D with rows of one length: X[{i}] is not a "
                             f"sequence of {d} numbers.")
        for j, v in enumerate(row):
            if number(v, f"X[{i}, {j}]") != 0:
                indices.append(j)
                values.append(_json_number(v))
        indptr.append(len(indices))
    return SparseData((len(rows), d), indptr, indices, values)


def certificate_json(doc: dict[str, Any]) -> str:
    """The text of a certificate file: indented, key-sorted JSON, except that the
    data's long lists are written compactly (a row of ``X`` per line; ``indptr``,
    ``indices``, ``values`` and ``y`` one line each), so a file of many numbers stays
    about as large as the numbers.

    >>> print(certificate_json({"format": "f", "data": {"X": [[0, 1], [2, 3]], "y": [1, 2]}}))
    {
      "data": {
        "X": [
          [0, 1],
          [2, 3]
        ],
        "y": [1, 2]
      },
      "format": "f"
    }
    <BLANKLINE>
    """
    def compact(v):
        return json.dumps(v, allow_nan=False)

    def indented(v):  # as json.dumps(doc, indent=2) writes a top-level value
        return json.dumps(v, indent=2, sort_keys=True, allow_nan=False) \
            .replace("\n", "\n  ")

    parts = []
    for key in sorted(doc):
        value = doc[key]
        if key == "data" and isinstance(value, dict):
            items = []
            for k in sorted(value):
                v = value[k]
                if k == "X" and isinstance(v, list) and v:
                    text = "[\n      " + ",\n      ".join(map(compact, v)) + "\n    ]"
                else:
                    text = compact(v)
                items.append(f"    {compact(k)}: {text}")
            text = "{\n" + ",\n".join(items) + "\n  }"
        elif isinstance(value, list) and set(map(type, value)) <= {int}:
            text = compact(value)   # a cycle's updates: one line
        else:
            text = indented(value)
        parts.append(f"  {compact(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _json_ready(row):
    """True when ``row`` holds only finite floats, or only ints a JSON integer holds:
    written as they are (:func:`_json_number` would return each unchanged)."""
    return plain_numbers(row) and (not row or type(row[0]) is float or
                                   -_JSON_INT < min(row) and max(row) < _JSON_INT)


def _json_number(v):
    """One data entry for JSON, exactly: strings as given, ints, floats that are
    float64 values as JSON numbers, anything else as its exact ``"p/q"``."""
    q = number(v, "X")  # exact; refuses NaN, inf, booleans and non-numbers
    if isinstance(v, str):
        return v.strip()
    if isinstance(v, numbers.Integral) or q.denominator == 1 and not isinstance(v, float):
        n = q.numerator
        return n if n.bit_length() <= _LONGEST_JSON_INT_BITS else int_text(n)
    try:
        f = float(q)
    except OverflowError:
        return fraction_text(q)
    return f if Fraction(f) == q else fraction_text(q)


def _json_label(v):
    if isinstance(v, bool) or type(v).__name__ in ("bool", "bool_"):
        raise ValueError(f"y has a boolean label {v!r}; use 0/1 or names.")
    if isinstance(v, numbers.Integral):
        if int(v).bit_length() > _LONGEST_JSON_INT_BITS:
            raise ValueError(f"y has a label of {int(v).bit_length():,} bits, more than a "
                             "JSON integer holds in Python; use shorter labels.")
        return int(v)
    if isinstance(v, numbers.Real):
        f = float(v)
        if not math.isfinite(f) or f != v:
            raise ValueError(f"y has the label {v!r}, which JSON cannot hold exactly.")
        return f
    if isinstance(v, str):
        return v
    raise ValueError(f"y has the label {v!r} of type {type(v).__name__}; labels are "
                     "numbers or strings.")
