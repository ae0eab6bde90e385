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

import contextlib
import dataclasses
import json
import math
import os
import re
import shutil
import stat
import tempfile
from fractions import Fraction
from collections.abc import Callable
from pathlib import Path
from typing import Any
import io

import numpy as np

try:
    import fcntl
except ImportError:                       # Windows: no locks, no cleaning
    fcntl = None  # type: ignore[assignment]

from markone._internal.exact import STR_BITS, fraction_text, int_text
from markone._internal.signals import raise_if_terminated
from markone.errors import MarkoneError

__all__ = ["atomic_write", "write_json", "write_json_rows", "read_json", "to_jsonable", "staged_output",
           "plural", "percent", "counted", "write_figure", "temporary_beside", "check_output_file",
           "nesting_depth_over", "read_strict_json", "JSONRefused"]


def check_output_file(path):
    """``path`` as a :class:`~pathlib.Path` if a file can be written there: not a
    folder, and no file where a folder above it must be. Checked before any work, so a
    long computation does not end in a refusal to save it.

    >>> import tempfile, os
    >>> top = tempfile.mkdtemp()
    >>> check_output_file(os.path.join(top, "new", "r.json")).name
    'r.json'
    >>> check_output_file(top)
    Traceback (most recent call last):
    ...
    ValueError: ... is a folder; give the name of a file to write (in it or elsewhere).
    """
    shown, path = os.fspath(path), Path(path)   # shown as given: out/ keeps its /
    if str(path) in ("", "."):
        raise ValueError("the output file name is empty; give the name of the file to "
                         "write.")
    if path.is_dir():
        raise ValueError(f"{shown} is a folder; give the name of a file to write (in "
                         "it or elsewhere).")
    for parent in path.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(f"cannot write {shown}: {parent} is a file, not a "
                                 "folder.")
            break
    return path


def temporary_beside(target, *, folder=False, suffix=""):
    """A new hidden temporary file (``(fd, path)``) or folder (``path``) in the folder
    of ``target``, to be renamed onto it; an error names ``target`` (not the temporary
    name) when that folder cannot be written.

    >>> import tempfile, os
    >>> path = temporary_beside(os.path.join(tempfile.mkdtemp(), "out"), folder=True)
    >>> os.path.basename(path).startswith(".out.")
    True
    >>> temporary_beside("/proc/no/such/file.json")
    Traceback (most recent call last):
    ...
    OSError: cannot write /proc/no/such/file.json: No such file or directory
    """
    target = Path(target)
    kw = dict(dir=target.absolute().parent, prefix=f".{target.name}.", suffix=suffix)
    try:
        return Path(tempfile.mkdtemp(**kw)) if folder else tempfile.mkstemp(**kw)
    except OSError as exc:
        raise OSError(f"cannot write {target}: {exc.strerror or exc}") from None


def atomic_write(path, data, *, mode="w"):
    """Write ``data`` (str, or bytes with ``mode="wb"``; or an iterable of them,
    written one after another as they come) to ``path`` atomically.

    The temporary file is locked (``flock``) from before its first byte until it is
    renamed over ``path``; the temporary files of earlier writes of ``path`` that a
    ``kill -9`` or a power cut abandoned are removed first (:func:`_remove_abandoned`).
    """
    path = check_output_file(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(path)
    (fd, tmp), held = _claimed(path, suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
        with os.fdopen(fd, mode) as fh:
            if isinstance(data, (str, bytes)):
                fh.write(data)
            else:
                fh.writelines(data)
            fh.flush()
            os.fsync(fh.fileno())
        raise_if_terminated()   # a SIGTERM whose exception a finaliser swallowed
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    finally:
        if held is not None:
            os.close(held)
    return path


#: How many times a temporary file is made again when another process removed it as
#: abandoned between its making and its locking (:func:`_claimed`).
_CLAIMS = 100


def _claimed(target: Path, *, folder: bool = False, suffix: str = "") -> tuple[Any, int | None]:
    """:func:`temporary_beside`'s new file (``(fd, path)``) or folder, and a descriptor
    that holds its lock (``flock``) until the caller closes it, once the temporary is
    renamed or moved in (None where files cannot be locked). Another process may
    remove a temporary that is not locked yet (:func:`_remove_abandoned` takes its lock
    first): one found gone once locked is made again.

    >>> import tempfile, os
    >>> (fd, path), held = _claimed(os.path.join(tempfile.mkdtemp(), "r.json"))
    >>> os.path.basename(path).startswith(".r.json."), os.close(fd), os.close(held)
    (True, None, None)
    """
    for _ in range(_CLAIMS):
        made = temporary_beside(target, folder=folder, suffix=suffix)
        path, fd = (made, None) if folder else (made[1], made[0])
        try:
            held = _hold(path, fd)
        except FileNotFoundError:         # removed already: make another
            continue
        if held is None or _same_file(path, held):
            return made, held
        os.close(held)
        if fd is not None:
            os.close(fd)
    raise OSError(f"cannot write {target}: its temporary file was removed as soon as "
                  f"made, {_CLAIMS} times (another process cleaning that folder?)")


def _hold(path: Path, fd: int | None) -> int | None:
    """A new descriptor of ``path`` (a copy of ``fd`` if given) holding its lock."""
    if fcntl is None:
        return None
    held = os.open(path, os.O_RDONLY) if fd is None else os.dup(fd)
    fcntl.flock(held, fcntl.LOCK_EX)
    return held


def _same_file(path: Path, fd: int) -> bool:
    """Whether ``path`` still names the file open as ``fd``."""
    try:
        here, there = os.stat(path), os.fstat(fd)
    except FileNotFoundError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _remove_abandoned(target: Path, suffix: str = ".tmp") -> list[str]:
    """Remove the temporary files (``.NAME.XXXXXXXX.tmp``) or staging folders
    (``suffix=".staging"``) that earlier writes of ``target`` left beside it when
    killed; return their names. One is abandoned when no process holds its lock: a
    live writer locks it before the first byte and until the end, and makes it again
    if it was removed before it locked it (:func:`_claimed`).

    >>> import tempfile, os
    >>> top = tempfile.mkdtemp()
    >>> _ = open(os.path.join(top, ".r.json.k1ll3d_9.tmp"), "w").write('{"half')
    >>> _remove_abandoned(os.path.join(top, "r.json"))
    ['.r.json.k1ll3d_9.tmp']
    >>> os.listdir(top)
    []
    """
    target = Path(target)
    if fcntl is None:
        return []
    ours = re.compile(re.escape(f".{target.name}.") + r"[a-z0-9_]{8}" + re.escape(suffix))
    try:
        names = sorted(n for n in os.listdir(target.absolute().parent)
                       if ours.fullmatch(n))
    except OSError:
        return []
    return [n for n in names if _remove_if_abandoned(target.absolute().parent / n)]


def _remove_if_abandoned(tmp: Path) -> bool:
    """Remove ``tmp`` (a file or a folder) if its lock is free; say whether it did."""
    try:
        fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False                      # gone already, or not ours to open
    try:
        folder = stat.S_ISDIR(os.fstat(fd).st_mode)
        if not (folder or stat.S_ISREG(os.fstat(fd).st_mode)):
            return False
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        shutil.rmtree(tmp) if folder else os.unlink(tmp)
        return True
    except OSError:                       # locked: a writer is at work
        return False
    finally:
        os.close(fd)


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def to_jsonable(obj):
    """Convert results to JSON-ready values: Fractions become ``"p/q"`` strings (of
    any size), numpy arrays lists, dataclasses dicts, non-finite floats
    ``"inf"``/``"nan"``, and integers beyond what ``json`` writes (about 4200
    digits) their digits as a string."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        if _plain_array(obj):
            return obj.tolist()   # bools, ints, finite floats: JSON-ready as they come
        return to_jsonable(obj.tolist())
    return _scalar_jsonable(obj)


def _plain_array(a):
    """Whether ``a.tolist()`` is JSON-ready as it is (what :func:`to_jsonable` makes of
    each element): bools, integers of at most 64 bits, finite floats of at most 64.

    >>> _plain_array(np.zeros(3)), _plain_array(np.array([1.0, np.inf]))
    (True, False)
    """
    kind, size = a.dtype.kind, a.dtype.itemsize
    return kind in "biu" and size <= 8 or kind == "f" and size <= 8 and \
        bool(np.isfinite(a).all())


def _scalar_jsonable(obj):
    """:func:`to_jsonable` of a number, a path or anything else not a container."""
    if isinstance(obj, Fraction):
        return fraction_text(obj)
    if isinstance(obj, int) and not isinstance(obj, bool) and obj.bit_length() > STR_BITS:
        return int_text(obj)  # beyond what json (str) writes: its digits, as text
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


def write_figure(fig, path, *, dpi, check=None):
    """Save a matplotlib figure to ``path`` atomically (format from the suffix) and
    close it; return the path. ``check``, when given, is called with the figure once
    the save has drawn it and before anything is written: an exception it raises
    leaves ``path`` untouched (the figure is drawn once, for both)."""
    buf = io.BytesIO()
    fig.savefig(buf, format=Path(path).suffix[1:], dpi=dpi)
    if check is not None:
        check(fig)
    if hasattr(fig, "number"):  # made by pyplot: release it
        import matplotlib.pyplot as plt

        plt.close(fig)
    return atomic_write(path, buf.getvalue(), mode="wb")


def write_json(path, obj):
    """Write ``obj`` as indented, key-sorted JSON to ``path`` atomically."""
    text = json.dumps(to_jsonable(obj), indent=2, sort_keys=True) + "\n"
    return atomic_write(path, text)


def write_json_rows(path, obj, key, bar):
    """:func:`write_json` of the dict ``obj``, the same bytes, with its list or array
    ``obj[key]`` encoded and written one row at a time, ``bar.update(1)`` after each
    (a :func:`~markone._internal.progress.progress_bar` over ``len(obj[key])``): a
    table of millions of numbers shows how far it is, and its text is never held whole.

    >>> import os, tempfile
    >>> from markone._internal.progress import QuietBar
    >>> doc = {"X": np.eye(2), "name": "e", "y": [1, -1]}
    >>> top = tempfile.mkdtemp()
    >>> with QuietBar() as bar:
    ...     rows = write_json_rows(os.path.join(top, "rows.json"), doc, "X", bar)
    >>> whole = write_json(os.path.join(top, "whole.json"), doc)
    >>> bar.n, rows.read_text() == whole.read_text()
    (2, True)
    """
    return atomic_write(path, _json_rows(obj, key, bar))


def _json_rows(obj, key, bar):
    """The text of :func:`write_json_rows` in pieces: the document around
    ``obj[key]`` (a key of the top level, so its line starts with a newline and two
    spaces, which no string value holds), then each of its rows, as ``json.dumps``
    indents them."""
    text = json.dumps(to_jsonable({**obj, key: None}), indent=2, sort_keys=True) + "\n"
    named = f"\n  {json.dumps(key)}: "
    before, after = text.split(named + "null")
    yield before + named + ("[\n" if len(obj[key]) else "[]")
    for i, row in enumerate(obj[key]):
        row_text = json.dumps(to_jsonable(row), indent=2, sort_keys=True)
        yield (",\n" if i else "") + "    " + row_text.replace("\n", "\n    ")
        bar.update(1)
    yield ("\n  ]" if len(obj[key]) else "") + after


def read_json(path):
    """Read a JSON file, naming the file and where a parse error is, as an editor
    numbers lines and columns (from 1), or what the file starts with when it is not
    JSON at all (a CSV, say).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.json")
    >>> for text in ("x1,x2,label\\n0,1,a\\n", '{"a": [1, 2'):
    ...     _ = open(path, "w").write(text)
    ...     try:
    ...         read_json(path)
    ...     except ValueError as exc:
    ...         print(str(exc).replace(path, "run.json"))
    run.json is not valid JSON: it starts with 'x1,x2,label', not { or [
    run.json is not valid JSON: it ends inside a value, an array or an object (is it truncated?)

    A folder, a binary file or one the system cannot read is named as such, never
    with a bare ``[Errno ...]`` or codec message that leaves out the file:

    >>> _ = open(path, "wb").write(bytes([123, 255, 125]))
    >>> read_json(path)
    Traceback (most recent call last):
    ...
    ValueError: ...run.json is not a text file (byte 1 is not UTF-8), so not JSON
    >>> read_json(os.path.dirname(path))
    Traceback (most recent call last):
    ...
    IsADirectoryError: ... is a folder; give the path of a JSON file in it
    """
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except IsADirectoryError:
        raise IsADirectoryError(f"{path} is a folder; give the path of a JSON file in "
                                "it") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not a text file (byte {exc.start} is not UTF-8), "
                         "so not JSON") from None
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise OSError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} {not_json(exc)}") from exc


def not_json(exc: json.JSONDecodeError) -> str:
    """What is wrong with a document that ``json`` could not parse, as a person says
    it: empty, not JSON at all, cut short, or the parser's words at a line and column
    counted from 1 (Python's own message adds ``(char 0)``, counted from 0).

    >>> def why(text):
    ...     try:
    ...         json.loads(text)
    ...     except json.JSONDecodeError as exc:
    ...         return not_json(exc)
    >>> why(""), why("   "), why("x,y"), why('{"a": [1,'), why('{"a" 1}')
    ('is empty, so not JSON', 'is empty, so not JSON', "is not valid JSON: it starts with 'x,y', not { or [", 'is not valid JSON: it ends inside a value, an array or an object (is it truncated?)', "is not valid JSON: Expecting ':' delimiter at line 1, column 6")
    """
    text = exc.doc.lstrip()
    if not text:
        return "is empty, so not JSON"
    if exc.pos == len(exc.doc) - len(text) and text[0] not in "{[":
        why = f"it starts with {text.splitlines()[0][:40]!r}, not {{ or ["
    elif exc.pos >= len(exc.doc.rstrip()) - 1 or exc.msg.startswith("Unterminated"):
        why = "it ends inside a value, an array or an object (is it truncated?)"
    else:
        why = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    return f"is not valid JSON: {why}"


@contextlib.contextmanager
def staged_output(out):
    """Write a folder's files all or nothing: yield a staging folder for them.

    The staging folder is made next to ``out``; when the block finishes, every file in
    it is moved into ``out`` (created if needed, files replaced one by one with
    :func:`os.replace`). When the block raises, the staging folder and any parent
    folder made for it are removed, so ``out`` is left as it was found.

    >>> import tempfile, os
    >>> top = tempfile.mkdtemp()
    >>> try:
    ...     with staged_output(os.path.join(top, "run")) as stage:
    ...         _ = (stage / "half.txt").write_text("half done")
    ...         raise RuntimeError("power cut")
    ... except RuntimeError:
    ...     pass
    >>> os.listdir(top)
    []
    >>> with staged_output(os.path.join(top, "run")) as stage:
    ...     _ = (stage / "done.txt").write_text("all done")
    >>> os.listdir(os.path.join(top, "run"))
    ['done.txt']
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} exists and is not a folder; choose another output "
                         "folder.")
    made = []

    def unmake():
        for parent in reversed(made):
            try:
                parent.rmdir()
            except OSError:
                pass

    try:
        for parent in reversed(out.absolute().parents):
            if not parent.exists():
                parent.mkdir()
                made.append(parent)
        _remove_abandoned(out, ".staging")   # what a kill -9 left of earlier runs
        stage, held = _claimed(out, folder=True, suffix=".staging")
    except OSError as exc:
        unmake()
        raise OSError(f"cannot write {out}: {exc.strerror or exc}") from None
    try:                        # locked until moved in or removed (_remove_abandoned)
        try:
            yield stage
            raise_if_terminated()   # a SIGTERM whose exception a finaliser swallowed
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            unmake()
            raise
        try:
            _move_in(stage, out)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
    finally:
        if held is not None:
            os.close(held)


def _move_in(stage: Path, out: Path) -> None:
    """Move every file of the staging folder ``stage`` into ``out``, each replacing the
    file of its name."""
    out.mkdir(exist_ok=True)
    for src in sorted(stage.rglob("*")):
        dest = out / src.relative_to(stage)
        if src.is_dir():
            dest.mkdir(exist_ok=True)
        else:
            os.replace(src, dest)


def counted(i, word="example", array="X"):
    """How a message names the 0-based row ``i`` of ``array``: by a word and a number
    counted from 1, as a person counts (the convention of every text markone prints,
    docs/command-line.md), with the Python index, counted from 0 as in Python and in
    JSON files, alongside.

    >>> counted(2), counted(0, "figure", "images")
    ('example 3 (X[2])', 'figure 1 (images[0])')
    """
    return f"{word} {int(i) + 1} ({array}[{int(i)}])"


def plural(n, word, words=None):
    """``"1 mistake"``, ``"2 mistakes"``: ``n`` and the word in the right number.

    >>> plural(1, "pass", "passes"), plural(0, "mistake")
    ('1 pass', '0 mistakes')
    """
    return f"{n} {word if n == 1 else (words or word + 's')}"


def percent(x):
    """A fraction (an accuracy, a share) as a person reads it: a whole percent, with
    more digits only where a whole percent would say 0% or 100% of a value that is
    neither (100% claims no error). Every message and table of one number uses it,
    so a command and the page that quotes it say the same.

    >>> percent(96 / 520), percent(0.9308), percent(1), percent(1039 / 1040), percent(0)
    ('18%', '93%', '100%', '99.9%', '0%')
    """
    text = f"{100 * x:.0f}%"
    for digits in range(1, 8):
        if not 0 < x < 1 or float(text[:-1]) not in (0, 100):
            break
        text = f"{100 * x:.{digits}f}%"
    return text


#: A JSON string (escapes included), and the bytes that are not brackets (or quotes).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_NOT_MARK = bytes(b for b in range(256) if b not in b'[]{}"')
#: Each byte's change of level (+1 opens an array or object, -1 closes one), and how
#: many brackets are counted at a time.
_STEP = np.zeros(256, dtype=np.int8)
_STEP[list(b"[{")], _STEP[list(b"]}")] = 1, -1
_CHUNK = 1 << 22


def nesting_depth_over(raw: bytes, max_depth: int) -> bool:
    """Whether the JSON text ``raw`` nests arrays and objects more than ``max_depth``
    levels deep, found without recursion in time linear in its size.

    Strings are dropped, then everything but the brackets (byte operations); the
    deepest level is the largest running count of brackets opened less those closed
    (NumPy, a few million brackets at a time). For malformed text it is the level
    the parser would reach before finding the error: brackets left open count.

    >>> nesting_depth_over(b'{"a": [[1, "]]]]"], {}]}', 3), nesting_depth_over(b"[[[]]]", 2)
    (False, True)
    >>> nesting_depth_over(b"[" * 100_000, 100), nesting_depth_over(b"[[[", 100)
    (True, False)
    """
    if b"\\" in raw:     # escapes: a quote may be inside a string
        text = _STRING.sub(b"", raw).split(b'"', 1)[0]   # the rest is one open string
        brackets = text.translate(None, _NOT_BRACKET)
    else:   # every quote opens or closes a string: brackets between odd and even ones
        marks = raw.translate(None, _NOT_MARK).replace(b'""', b"")   # parity kept
        brackets = b"".join(marks.split(b'"')[0::2])
    level = 0
    for start in range(0, len(brackets), _CHUNK):
        chunk = np.frombuffer(brackets, np.uint8, min(_CHUNK, len(brackets) - start),
                              start)
        levels = np.cumsum(_STEP[chunk], dtype=np.int32) + level
        if int(levels.max()) > max_depth:
            return True
        level = int(levels[-1])
    return False


class JSONRefused(MarkoneError, ValueError):
    """JSON text that :func:`read_strict_json` refuses although Python's parser would
    read it: ``problem`` is ``"depth"`` (nested deeper than ``detail`` levels),
    ``"duplicate key"`` (the key ``detail`` twice in one object) or ``"constant"``
    (``detail`` is ``NaN``, ``Infinity`` or ``-Infinity``). Each reader words it for
    its file."""

    def __init__(self, problem: str, detail: Any) -> None:
        super().__init__(f"{problem}: {detail!r}")
        self.problem, self.detail = problem, detail


def read_strict_json(raw: bytes | str, *, max_depth: int | None = None,
                     constant: Callable[[str], Any] | None = None) -> Any:
    """The JSON document of ``raw``, read strictly: the one strict JSON reader of
    ``verify`` and ``sims`` (results, certificates, machine reports).

    Refused with :class:`JSONRefused`: nesting deeper than ``max_depth`` levels (found
    before parsing, without recursion: :func:`nesting_depth_over`), a key twice in
    one object (JSON readers differ on which one counts), and ``NaN``/``Infinity``
    (not JSON; with ``constant`` given, its value for the word instead). Text that is
    not JSON raises :class:`json.JSONDecodeError`, bytes that are not UTF-8
    :class:`UnicodeDecodeError`, an integer beyond Python's digit limit ValueError.

    >>> read_strict_json('{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    >>> for text in ('{"a": 1, "a": 2}', '[NaN]', '[[[1]]]'):
    ...     try:
    ...         read_strict_json(text, max_depth=2)
    ...     except JSONRefused as exc:
    ...         print(exc.problem, exc.detail)
    duplicate key a
    constant NaN
    depth 2
    """
    if max_depth is not None and nesting_depth_over(
            raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass"),
            max_depth):
        raise JSONRefused("depth", max_depth)
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    return json.loads(text, object_pairs_hook=_unique_keys,
                      parse_constant=constant or _refuse_constant)


def _unique_keys(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        raise JSONRefused("duplicate key",
                          next(k for k, _ in pairs if k in seen or seen.add(k)))
    return obj


def _refuse_constant(word):
    raise JSONRefused("constant", word)
