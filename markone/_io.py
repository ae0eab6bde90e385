"""Reading data files and writing results: atomically, with clear errors.

Everything markone writes (certificates, adversarial cases, results.json, figures'
numbers) goes through :func:`write_json` / :func:`atomic_write`, so a crash never
leaves a half-written file: the bytes go to a temporary file in the same folder,
which is flushed, synced and then renamed over the target.

>>> import tempfile, os, fractions
>>> d = tempfile.mkdtemp()
>>> p = write_json(os.path.join(d, "r.json"), {"w": [fractions.Fraction(3, 4)], "n": 2})
>>> open(p).read()
'{\\n  "n": 2,\\n  "w": [\\n    "3/4"\\n  ]\\n}\\n'
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np

__all__ = ["atomic_write", "write_json", "read_json", "to_jsonable", "load_table"]


def atomic_write(path, data, *, mode="w"):
    """Write ``data`` (str, or bytes with ``mode="wb"``) to ``path`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
        with os.fdopen(fd, mode) as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def to_jsonable(obj):
    """Convert results to JSON-ready values: Fractions become ``"p/q"`` strings,
    numpy arrays lists, dataclasses dicts, non-finite floats ``"inf"``/``"nan"``."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, Fraction):
        return str(obj)
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        return f if math.isfinite(f) else str(f)
    if isinstance(obj, Path):
        return str(obj)
    return obj


def write_json(path, obj):
    """Write ``obj`` as indented, key-sorted JSON to ``path`` atomically."""
    text = json.dumps(to_jsonable(obj), indent=2, sort_keys=True) + "\n"
    return atomic_write(path, text)


def read_json(path):
    """Read a JSON file, naming the file and the position of a parse error."""
    path = Path(path)
    try:
        with open(path) as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from exc


def load_table(path, *, label=None, exact=False):
    """Load ``(X, y)`` from a CSV or ``.npz`` file.

    CSV: one row per sample, comma-separated, an optional header row; the label is the
    last column unless ``label`` names (header) or numbers (0-based) another. With
    ``exact`` the feature cells are returned as strings (for exact arithmetic);
    otherwise as float64. ``.npz``: arrays ``X`` and ``y``.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such data file: {path}")
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as data:
            missing = {"X", "y"} - set(data.files)
            if missing:
                raise ValueError(
                    f"{path} must hold arrays named 'X' and 'y'; it has {data.files}."
                )
            return data["X"], data["y"]
    with open(path, newline="") as fh:
        rows = [r for r in csv.reader(fh) if r and any(c.strip() for c in r)]
    if not rows:
        raise ValueError(f"{path} has no data rows.")
    header = None
    if not _is_number(rows[0][0 if label is None else -1]) and not all(
        _is_number(c) for c in rows[0][:-1]
    ):
        header, rows = [c.strip() for c in rows[0]], rows[1:]
    if not rows:
        raise ValueError(f"{path} has a header but no data rows.")
    width = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != width:
            raise ValueError(
                f"{path}: row {i + 1 + (header is not None)} has {len(r)} columns, "
                f"expected {width}."
            )
    if width < 2:
        raise ValueError(f"{path} needs at least one feature column and a label column.")
    col = width - 1
    if label is not None:
        if isinstance(label, str) and not label.lstrip("-").isdigit():
            if header is None or label not in header:
                raise ValueError(f"{path} has no column named {label!r}; header: {header}.")
            col = header.index(label)
        else:
            col = int(label) % width
    labels = [r[col].strip() for r in rows]
    feats = [[c.strip() for j, c in enumerate(r) if j != col] for r in rows]
    if exact:
        X = np.array(feats, dtype=object)
    else:
        try:
            X = np.array([[float(_frac_or_float(c)) for c in r] for r in feats])
        except (ValueError, OverflowError) as exc:
            raise ValueError(f"{path}: a feature cell is not a number ({exc}).") from exc
    y = np.array([_label_value(v) for v in labels])
    return X, y


def _frac_or_float(cell):
    if "/" in cell:
        try:
            return Fraction(cell)
        except ZeroDivisionError:
            raise ValueError(f"{cell!r} divides by zero") from None
    return float(cell)


def _is_number(cell):
    try:
        _frac_or_float(cell.strip())
        return True
    except ValueError:
        return False


def _label_value(v):
    try:
        f = float(v)
        return int(f) if f.is_integer() else f
    except ValueError:
        return v
