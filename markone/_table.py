"""Reading data tables: the one loader behind every command and ``datasets.load_table``.

A table is one sample per line: feature cells and one label cell. The loader finds the
delimiter (comma, semicolon, tab or runs of whitespace), a header line, and the label
column, and reports every cell it cannot use by line and column (1-based, as an editor
shows them). Nothing is guessed silently: a label index outside the table, an empty
cell, a word among the numbers, ``1/0``, ``nan`` or ``inf`` are errors that say where
and what to do. Nothing is rounded either: the numbers come back as float64 only when
float64 holds every cell exactly, and otherwise as the exact cells (``0.1``,
``1e-400``, ``1e400``, ``12345678901234567890``), or, with ``exact=False``, as an
:class:`InexactCell` error naming the first cell float64 would round.

Formats are chosen by :data:`READERS` (file suffix -> reader); a reader takes the path
and returns ``(X, y)``. ``.npz`` files (arrays ``X`` and ``y``) are read by
:func:`read_npz`; every other suffix is read as delimited text. Built-in data sets
(:data:`BUILTIN_TABLES`) are accepted wherever a file is, when no file of that name
exists.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "and.csv")
>>> _ = open(path, "w").write("x1;x2;label\\n0;0;no\\n0;1;no\\n1;0;no\\n1;1;yes\\n")
>>> X, y = load_table(path)
>>> X.tolist(), y.tolist()
([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], ['no', 'no', 'no', 'yes'])
>>> load_table(path, label="x3")
Traceback (most recent call last):
...
ValueError: ...and.csv has no column named 'x3'; its columns are x1, x2, label: pass label= one of them or a 0-based index.
"""

from __future__ import annotations

import codecs
import csv
import decimal
import re
from fractions import Fraction
from pathlib import Path

import numpy as np

from markone import _shipped
from markone._internal.exact import NumberTooLong, parse_number
from markone._internal.io import plural
from markone.errors import MarkoneError

__all__ = ["load_table", "read_npz", "read_text_table", "parse_text_table", "READERS",
           "BUILTIN_TABLES", "DELIMITERS", "InexactCell"]

#: Delimiters the loader recognises by itself (``delimiter=None``), in order of trial:
#: a tab or a semicolon on every line wins over commas (which may be decimal commas).
DELIMITERS = ("\t", ";", ",")

#: Accepted names of the ``delimiter`` argument (a word is easier to type than a tab).
_DELIMITER_WORDS = {"comma": ",", "semicolon": ";", "tab": "\t", "\\t": "\t",
                    "whitespace": None, "space": None}

_INT = re.compile(r"^[+-]?\d+$")
_NON_FINITE = ("nan", "inf", "infinity")
#: How many lines the delimiter sniffer looks at.
_SNIFF_LINES = 50


def _builtin(name, encoding="pm1"):
    if name == "iris":
        return _shipped.iris()
    if name == "xor":
        return _shipped.xor(encoding)
    return _shipped.parity(3, encoding)


#: Built-in data sets accepted wherever a data file is: ``NAME`` or ``NAME:01``
#: (inputs 0/1 instead of -1/+1). ``iris`` has three classes (0, 1, 2).
BUILTIN_TABLES = {
    "xor": lambda: _builtin("xor"),
    "xor:01": lambda: _builtin("xor", "01"),
    "parity3": lambda: _builtin("parity3"),
    "parity3:01": lambda: _builtin("parity3", "01"),
    "iris": lambda: _builtin("iris"),
}


#: The arrays every :func:`scipy.sparse.save_npz` file holds, whatever its format
#: (CSR, CSC and BSR add ``indices`` and ``indptr``, COO ``row`` and ``col``, DIA
#: ``offsets``).
SPARSE_NPZ_KEYS = frozenset({"data", "format", "shape"})


def read_npz(path):
    """``(X, y)`` from a ``.npz`` file: NumPy arrays named ``X`` and ``y``, or a
    :func:`scipy.sparse.save_npz` file of the matrix ``[X, y]`` (the labels as its
    last column, since such a file holds one matrix); ``X`` then stays sparse (CSR).

    The one place where ``.npz`` files are read.

    >>> import os, tempfile, scipy.sparse as sp
    >>> path = os.path.join(tempfile.mkdtemp(), "data.npz")
    >>> sp.save_npz(path, sp.csr_array([[0, 2, 1], [1, 0, 0]]))
    >>> X, y = read_npz(path)
    >>> X.format, X.toarray().tolist(), y.tolist()
    ('csr', [[0, 2], [1, 0]], [1, 0])
    """
    try:
        with open(path, "rb") as fh:
            start = fh.read(4)
        if start != b"PK\x03\x04":   # numpy would take it for a pickle, and say so
            raise ValueError(f"{path} is not a .npz file: it is not a zip archive of arrays "
                             "(np.savez writes one); a table is read from a text file, "
                             "named anything but .npz.")
        data = np.load(path, allow_pickle=False)
    except OSError as exc:
        raise ValueError(f"{path} is not a readable .npz file ({exc}).") from None
    except ValueError as exc:
        raise ValueError(str(exc) if str(exc).startswith(str(path)) else
                         f"{path} is not a readable .npz file ({exc}).") from None
    with data:
        if {"X", "y"} - set(data.files) and SPARSE_NPZ_KEYS <= set(data.files):
            return _read_sparse_npz(path)
        missing = {"X", "y"} - set(data.files)
        if missing:
            raise ValueError(f"{path} must hold arrays named 'X' and 'y'; it has "
                             f"{', '.join(data.files) or 'none'} (or save [X, y], "
                             "labels last, with scipy.sparse.save_npz).")
        arrays = []
        for name in ("X", "y"):
            try:
                arrays.append(data[name])
            except ValueError:  # an object array needs pickle: refused
                raise ValueError(
                    f"{path}: its array {name} holds Python objects (dtype object), which "
                    "are not loaded (loading them could run code the file holds); save it "
                    "as numbers or strings (np.savez(path, X=..., y=...) with X.astype("
                    "float), say).") from None
        if arrays[0].dtype.kind == "c":
            raise ValueError(
                f"{path}: its array X holds complex numbers (dtype {arrays[0].dtype}): "
                "a perceptron needs real inputs; save X.real as X if every imaginary "
                "part is 0, or the two parts as features of their own "
                "(np.hstack([X.real, X.imag])).")
        _refuse_booleans(path, arrays[0])
        return arrays[0], arrays[1]


def _refuse_booleans(path, X):
    """Booleans are not numbers to the exact kernel (True is not 1 there): refused when
    the file is read, before a command computes anything, not half way through."""
    if X.dtype.kind == "b":
        raise ValueError(f"{path}: its array X holds booleans (dtype bool), which are "
                         "not read as numbers; save them as 0/1 (X.astype(np.int8)).")


def _read_sparse_npz(path):
    import scipy.sparse  # light start-up: scipy only for sparse files

    try:
        M = scipy.sparse.load_npz(path).tocsr()
    except (ValueError, OSError, KeyError) as exc:
        raise ValueError(f"{path} is not a readable scipy.sparse .npz file ({exc}).") \
            from None
    if M.ndim != 2 or M.shape[1] < 2:
        raise ValueError(f"{path} holds a sparse matrix of shape {M.shape}; it must be "
                         "[X, y]: at least one feature column and the label column last.")
    _refuse_booleans(path, M)
    y = M[:, [M.shape[1] - 1]].toarray().ravel()
    if y.dtype.kind == "f" and np.array_equal(y, np.round(y)):
        y = y.astype(np.int64)  # labels as written: integer-valued cells as ints
    return M[:, : M.shape[1] - 1].tocsr(), y


def load_table(source, *, label=None, delimiter=None, header=None, exact=None):
    """Load ``(X, y)`` from a data file or a built-in data set.

    Parameters
    ----------
    source : str or path
        A delimited text file (CSV and friends), a ``.npz`` file with arrays ``X`` and
        ``y``, or the name of a built-in data set (:data:`BUILTIN_TABLES`: ``xor``,
        ``xor:01``, ``parity3``, ``parity3:01``, ``iris``) when no file of that name
        exists.
    label : str or int, optional
        The label column: a header name, or a 0-based index (negative counts from the
        end). Default: the last column. An index outside the table is an error.
    delimiter : str, optional
        ``","``, ``";"``, ``"\\t"`` (or the words ``comma``, ``semicolon``, ``tab``),
        ``"whitespace"``, or any single character. Default: found from the file.
    header : bool, optional
        Whether the first line names the columns. Default: it does when some column
        has a word there and a number on the next line. With False, a first line
        that would be taken for a header (a word over a number in a feature column)
        is refused, naming header=False as the cause.
    exact : bool or None
        How numbers are read; no cell is ever rounded without a word.

        * None (default): float64 when float64 holds every cell exactly (integers up
          to 2**53, binary fractions such as ``0.375`` or ``3/4``); otherwise the
          table is read as with ``exact=True``, so a cell like ``0.1``, ``1e-400``
          or ``12345678901234567890`` keeps its value (``markone.train`` then asks
          for ``exact=True``; the ``verify`` functions take it exactly).
        * True: exact always: integer cells give an int64 array (Python ints beyond
          int64), anything else an object array of the cells as written (``"0.1"``,
          ``"1/3"``).
        * False: float64, and a cell that float64 cannot hold exactly is an error
          naming its line and column.

    Returns
    -------
    X : ndarray, shape (n_samples, n_features)
    y : ndarray, shape (n_samples,)
        Labels as written: integer-valued cells as ints, other numbers as floats,
        words as strings.

    Raises
    ------
    FileNotFoundError
        No such file and no built-in data set of that name.
    ValueError
        The table cannot be used; the message names the line and column.

    Examples
    --------
    Train on a file (any two label values; words are fine):

    >>> import tempfile, os, markone
    >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
    >>> _ = open(path, "w").write("label\\tx\\nyes\\t2\\nno\\t-1/2\\n")
    >>> X, y = load_table(path, label="label", exact=True)
    >>> X.tolist(), y.tolist()
    ([['2'], ['-1/2']], ['yes', 'no'])
    >>> markone.train(*load_table(path, label=0)).converged
    True
    >>> load_table("xor")[1].tolist()
    [-1, 1, 1, -1]
    """
    path = Path(source)
    given = [f"{k}={v!r}" for k, v in (("label", label), ("delimiter", delimiter),
                                       ("header", header)) if v is not None]
    if not path.exists():
        name = str(source).lower()
        if name in BUILTIN_TABLES:
            if given:  # nothing to apply them to: refused, not silently ignored
                raise ValueError(f"{given[0]} applies to data files, not to the "
                                 f"built-in data set {source}; drop it.")
            X, y = BUILTIN_TABLES[name]()
            return _exact_builtin(X) if exact else X, y
        names = ", ".join(BUILTIN_TABLES)
        raise FileNotFoundError(f"no such data file: {source} (built-in data sets: "
                                f"{names})")
    if path.is_dir():
        raise ValueError(f"{source} is a folder, not a data file.")
    reader = READERS.get(path.suffix.lower())
    if reader is not None:
        if given:  # refused, not silently ignored
            raise ValueError(f"{source}: {given[0]} applies to text tables, not to "
                             f"{path.suffix} files (they hold X and y); drop it.")
        return reader(path)
    return read_text_table(path, label=label, delimiter=delimiter, header=header,
                           exact=exact)


#: File suffix (lower case) -> reader ``f(path) -> (X, y)``; other suffixes are text.
READERS = {".npz": read_npz}


def _exact_builtin(X):
    ints = X.astype(np.int64)
    return ints if np.array_equal(ints, X) else X


def read_text_table(path, *, label=None, delimiter=None, header=None, exact=False):
    """``(X, y)`` from a delimited text file (see :func:`load_table`)."""
    return parse_text_table(_read_text(path), path, label=label, delimiter=delimiter,
                            header=header, exact=exact)


def parse_text_table(text: str, name: object = "the table", *, label=None,
                     delimiter=None, header=None, exact=None):
    """``(X, y)`` from the text of a delimited table (pasted, or sent by a page), read
    as :func:`load_table` reads a file; messages call it ``name``.

    >>> X, y = parse_text_table("x,y,class\\n0.5,1,a\\n-1/3,2,b\\n", "pasted")
    >>> X.tolist(), y.tolist()
    ([['0.5', '1'], ['-1/3', '2']], ['a', 'b'])
    """
    lines = _text_lines(text, name)
    delim = _delimiter(name, lines, delimiter)
    rows = [(n, _split(line, delim)) for n, line in lines]
    try:
        return _read_rows(name, rows, delim, label, header, exact)
    except NumberTooLong as exc:  # name the cell where the number is
        n, j = next((n, j) for n, cells in rows for j, c in enumerate(cells)
                    if c == exc.text)
        raise NumberTooLong(f"{name}, line {n}, column {j + 1}: {exc}", exc.text) \
            from None


def _read_rows(path, rows, delim, label, header, exact):
    width = len(rows[0][1])
    for n, cells in rows:
        if len(cells) != width:
            raise ValueError(f"{path}, line {n}: {plural(len(cells), 'column')}, but line "
                             f"{rows[0][0]} has {width}{_delimiter_hint(delim)}.")
    if width < 2:
        raise ValueError(f"{path} has a single column{_delimiter_hint(delim)}; a table "
                         "needs at least one feature column and a label column.")
    _refuse_decimal_commas(path, rows, delim)
    names = None
    if _has_header(rows, header):
        names = rows[0][1]
        rows = rows[1:]
        if not rows:
            raise ValueError(f"{path} has a header line but no data lines.")
    if header is False:
        _refuse_a_header_read_as_data(path, rows, label, width)
    col = _label_column(path, label, names, width)
    ys, feats = [], []
    for n, cells in rows:
        if not cells[col]:
            raise ValueError(f"{path}, line {n}, column {col + 1}: the label cell is "
                             "empty.")
        ys.append(_label_value(cells[col]))
        feats.append([(n, j, c) for j, c in enumerate(cells) if j != col])
    X = None if exact else _float_matrix(path, feats, names, col, strict=exact is False)
    if X is None:
        X = _exact_matrix(path, feats, names, col)
    _refuse_mixed_labels(path, rows, col, ys)
    return X, np.array(ys)


#: A number written with a decimal comma (``1,5``, ``-0,25``).
_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")


def _refuse_decimal_commas(path, rows, delim):
    """Refuse a table whose numbers have decimal commas (``x;label`` then ``1,5;a``,
    as spreadsheets write it in many locales) before its header is looked for: the
    header would be taken for data and its first word refused with a wrong remedy.

    >>> _refuse_decimal_commas("t.csv", [(1, ["x", "label"]), (2, ["1,5", "a"])], ";")
    Traceback (most recent call last):
    ...
    ValueError: t.csv, line 2, column 1: '1,5' is a number with a decimal comma, in a table separated by ';' (a spreadsheet's export in many locales); markone reads decimals with a point: convert the file to decimal points and comma separators (1.5,a), e.g. export it with '.' as the decimal separator.
    """
    if delim == ",":
        return
    for n, cells in rows:
        for j, cell in enumerate(cells):
            if _DECIMAL_COMMA.fullmatch(cell):
                shown = {None: "whitespace", "\t": "tabs"}.get(delim, repr(delim))
                example = ",".join(c.replace(",", ".") for c in cells)
                raise ValueError(
                    f"{path}, line {n}, column {j + 1}: {cell!r} is a number with a "
                    f"decimal comma, in a table separated by {shown} (a spreadsheet's "
                    "export in many locales); markone reads decimals with a point: "
                    "convert the file to decimal points and comma separators "
                    f"({example}), e.g. export it with '.' as the decimal separator.")


def _refuse_mixed_labels(path, rows, col, ys):
    """Refuse a label column (``ys`` as :func:`_label_value` read it) of numbers and
    words: they cannot be ordered together (NumPy would silently make the numbers
    words). A word is a cell that is no finite number, ``nan`` and ``inf`` included;
    a decimal kept as written (``"0.1"``) is a number."""
    words = [k for k, v in enumerate(ys) if isinstance(v, str) and _number(v) is None]
    if words and len(words) < len(ys):
        number = next(k for k, v in enumerate(ys) if not isinstance(v, str)
                      or _number(v) is not None)
        (n1, c1), (n2, c2) = rows[number], rows[words[0]]
        raise ValueError(f"{path}: the label column mixes numbers (line {n1}: "
                         f"{c1[col]!r}) and words (line {n2}: {c2[col]!r}), which "
                         "cannot be ordered together; write every label as a word, or "
                         "every label as a number.")


def _read_text(path):
    """The text of the file ``path`` (UTF-8, a byte-order mark dropped)."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = exc.start + (3 if data.startswith(codecs.BOM_UTF8) else 0)
        line = data.count(b"\n", 0, at) + 1
        raise ValueError(f"{path} is not a text file (line {line}, byte {at + 1} of the "
                         "file, is not UTF-8); a table is text, one sample per line."
                         ) from None


def _text_lines(text, path):
    """Non-blank lines (``#`` comments dropped) with their 1-based line numbers."""
    if "\x00" in text:
        raise ValueError(f"{path} is not a text file (it holds NUL bytes); a table is "
                         "text, one sample per line.")
    lines = [(n, ln.strip()) for n, ln in enumerate(text.splitlines(), 1)]
    lines = [(n, ln) for n, ln in lines if ln and not ln.startswith("#")]
    if not lines:
        raise ValueError(f"{path} has no data lines (it is empty, or holds only blank "
                         "and # comment lines); a table holds one sample per line, its "
                         "numbers and then its label, e.g. 1.5,2,yes.")
    return lines


def _delimiter(path, lines, delimiter):
    if delimiter is not None:
        return _given_delimiter(delimiter)
    sample = [text for _, text in lines[:_SNIFF_LINES]]
    found = _sniffed(sample)
    if found == "," and _whitespace_with_decimal_commas(sample):
        return None   # refused by _refuse_decimal_commas, with the right diagnosis
    return found


def _sniffed(sample):
    """The delimiter of the lines ``sample``: the first of :data:`DELIMITERS` on every
    line the same number of times, else the one on the most lines, else whitespace."""
    for d in DELIMITERS:
        counts = {text.count(d) for text in sample}
        if len(counts) == 1 and counts != {0}:
            return d
    # ragged lines: the delimiter on the most lines (the row check then names the line)
    on_lines = [sum(d in text for text in sample) for d in DELIMITERS]
    if max(on_lines):
        return DELIMITERS[on_lines.index(max(on_lines))]
    return None


def _whitespace_with_decimal_commas(sample):
    """Whether the lines ``sample`` are a whitespace-separated table with decimal
    commas (``1,5 2,0 a``): split at whitespace, every line has the same number of
    cells (at least two), and some cell is a number with a decimal comma. Split at
    its commas such a table looks like a comma-separated one, whose cells ``5 2``
    would be refused as no numbers, with the wrong remedy.

    >>> _whitespace_with_decimal_commas(["1,5 2,0 a", "2,5 -1 b"])
    True
    >>> _whitespace_with_decimal_commas(["1,5,a", "2,5,b"])       # a comma table
    False
    >>> _whitespace_with_decimal_commas(["1, 5, a", "2, 5, b"])   # spaces after commas
    False
    """
    widths = {len(text.split()) for text in sample}
    return (len(widths) == 1 and widths != {1}
            and any(_DECIMAL_COMMA.fullmatch(cell) for text in sample
                    for cell in text.split()))


def _given_delimiter(delimiter):
    """The delimiter the caller named (a character or a word), checked usable."""
    if not isinstance(delimiter, str):
        raise TypeError(f"delimiter must be a string, got {delimiter!r}.")
    d = _DELIMITER_WORDS.get(delimiter.lower(), delimiter)
    if d is not None and (len(d) != 1 or d in "\"'\n\r" or d.isalnum()
                          or d in ".-+/"):
        raise ValueError(f"delimiter={delimiter!r} is not usable: give one "
                         "character that is not part of a number (, ; tab), or "
                         "'whitespace'.")
    return d


def _delimiter_hint(delim):
    shown = {None: "whitespace", "\t": "tab"}.get(delim, repr(delim))
    return (f" when split at {shown} (pass delimiter= ',', ';', 'tab' or 'whitespace' "
            "if that is wrong)")


def _split(text, delim):
    if delim is None:
        return text.split()
    return [c.strip() for c in next(csv.reader([text], delimiter=delim))]


def _number(cell):
    """The exact value of a cell, or None if it is not a finite number; a number
    beyond the digit limit raises :class:`~markone._internal.exact.NumberTooLong`."""
    try:
        return parse_number(cell)
    except NumberTooLong:
        raise
    except (ValueError, ZeroDivisionError):
        return None


def _has_header(rows, header):
    if header is not None:
        return bool(header)
    first = rows[0][1]
    if len(rows) == 1:
        return all(_is_word(c) for c in first)
    second = rows[1][1]
    return any(_is_word(a) and _number(b) is not None for a, b in zip(first, second))


def _refuse_a_header_read_as_data(path, rows, label, width):
    """With ``header=False``, refuse a first line that the default would take for a
    header (a word over a number) in a feature column, or that holds the column name
    ``label``: "pass label=" or "no column named" would be the wrong remedy, for
    header=False is the cause."""
    n, first = rows[0]
    if isinstance(label, str) and not _INT.match(label.strip()):
        looks = label in first
    else:
        col = _label_column(path, label, None, width)
        looks = len(rows) > 1 and any(j != col and _is_word(a) and _number(b) is not None
                                      for j, (a, b) in enumerate(zip(first, rows[1][1])))
    if looks:
        raise ValueError(f"{path}, line {n} looks like a header ({', '.join(first)}), "
                         "but header=False was given: drop header=False to read it as "
                         "the header, or remove the line.")


def _is_word(cell):
    """A cell that names a column: not a number (nor nan/inf), with a letter in it."""
    return (_number(cell) is None and cell.lower().lstrip("+-") not in _NON_FINITE
            and re.search(r"[^\W\d]", cell) is not None)


def _label_column(path, label, names, width):
    if label is None:
        return width - 1
    if isinstance(label, (bool, np.bool_)):
        raise TypeError(f"label must be a column name or index, got {label!r}.")
    if isinstance(label, str) and not _INT.match(label.strip()):
        if names is None or label not in names:
            cols = ", ".join(names) if names else "not named (no header line)"
            raise ValueError(f"{path} has no column named {label!r}; its columns are "
                             f"{cols}: pass label= one of them or a 0-based index.")
        return names.index(label)
    index = int(label)
    if not -width <= index < width:
        raise ValueError(f"label={index} is outside the table: {path} has {width} "
                         f"columns, so the index must be 0..{width - 1} (or "
                         f"-{width}..-1 from the end).")
    return index % width


def _label_value(cell):
    value = _number(cell)
    if value is None:
        return cell
    if value.denominator == 1:
        return int(value)
    f = _exact_float(value)
    return cell if f is None else f  # "0.1": kept as written, never a rounded float


def _exact_float(q):
    """The float64 equal to the Fraction ``q``, or None."""
    try:
        f = float(q)
    except OverflowError:
        return None
    return f if Fraction(f) == q else None


def _where(path, n, j, names):
    name = f" ({names[j]})" if names else ""
    return f"{path}, line {n}, column {j + 1}{name}"


def _bad_cell(path, n, j, cell, names, col):
    where = _where(path, n, j, names)
    if not cell:
        return ValueError(f"{where}: the cell is empty; fill it in or remove the line.")
    if re.fullmatch(r"\s*[+-]?[\d.eE+-]+\s*/\s*[+-]?0+\s*", cell):
        return ValueError(f"{where}: {cell!r} divides by zero.")
    if cell.lower().lstrip("+-") in _NON_FINITE:
        return ValueError(f"{where}: {cell!r} is not a finite number; remove or "
                          "replace it.")
    hint = ""
    if names is None or j != col:
        hint = (f"; if column {j + 1} holds the labels, pass label={j}"
                f"{f' or label={names[j]!r}' if names else ''}")
    return ValueError(f"{where}: {cell!r} is not a number{hint}.")


class InexactCell(MarkoneError, ValueError):
    """A table cell that float64 cannot hold exactly, met by ``load_table(...,
    exact=False)``. ``where`` is ``"FILE, line N, column J (NAME)"``, ``cell`` the text,
    ``what`` what float64 would make of it; :meth:`with_fix` words the remedy."""

    def __init__(self, where: str, cell: str,
                 fix: str = "read the table exactly (exact=True)") -> None:
        self.where, self.cell, self.what = where, cell, _rounding(cell)
        super().__init__(f"{where}: {cell!r} {self.what}; {fix}.")

    def with_fix(self, fix: str) -> InexactCell:
        """The same error, with another remedy (a command's flag, say)."""
        return InexactCell(self.where, self.cell, fix)


def _float_matrix(path, feats, names, col, *, strict):
    """The cells as float64 when float64 holds every one exactly; else None, or with
    ``strict`` an error naming the first cell that would be rounded."""
    out = np.empty((len(feats), len(feats[0])), dtype=np.float64)
    seen: dict[str, float | None] = {}  # cell text -> its float64 (None: not exactly a float64)
    for i, row in enumerate(feats):
        for k, (n, j, cell) in enumerate(row):
            try:
                v = seen[cell]
            except KeyError:
                v = seen[cell] = _cell_float(cell)
            if v is None:
                if _number(cell) is None:
                    raise _bad_cell(path, n, j, cell, names, col)
                if not strict:
                    return None
                raise InexactCell(_where(path, n, j, names), cell)
            out[i, k] = v
    return out


def _cell_float(cell):
    """The float64 a cell holds exactly, or None (not a number, or not exactly one)."""
    if _INT.match(cell) and len(cell) <= 15:  # |n| < 10**15 < 2**53: exact
        return float(cell)
    q = _number(cell)
    return None if q is None else _exact_float(q)


def _rounding(cell):
    """What float64 would make of an exact cell, in words: the float's own value
    to 20 significant digits (its shortest repr, ``0.1``, would hide the rounding).

    >>> _rounding("0.1"), _rounding(str(2**53 + 1))
    ('is not exactly a float64 (float64 would read it as 0.10000000000000000555...)', 'is not exactly a float64 (float64 would read it as 9007199254740992)')
    """
    q = parse_number(cell)
    try:
        f = float(q)
    except OverflowError:
        return "is beyond float64's range (about 1.8e308)"
    if f == 0:
        return "underflows float64 to 0"
    value = decimal.Decimal(f)              # exact: a float is a binary fraction
    shown = f"{value:.20g}"
    return (f"is not exactly a float64 (float64 would read it as {shown}"
            f"{'' if decimal.Decimal(shown) == value else '...'})")


def _exact_matrix(path, feats, names, col):
    values = []
    for row in feats:
        vals = []
        for n, j, cell in row:
            if _number(cell) is None:
                raise _bad_cell(path, n, j, cell, names, col)
            vals.append(cell)
        values.append(vals)
    if all(_INT.match(c) for row in values for c in row):
        ints = [[parse_number(c).numerator for c in row] for row in values]
        if all(abs(v) < 2**62 for row in ints for v in row):
            return np.array(ints, dtype=np.int64)
        out = np.empty((len(ints), len(ints[0])), dtype=object)
        out[:] = ints
        return out
    out = np.empty((len(values), len(values[0])), dtype=object)
    out[:] = values
    return out
