"""The shared runner: resumable, loss-free sweeps, locally or on a Dask cluster.

Every experiment module in :mod:`sims` exposes the same small protocol:

``NAME``
    the experiment's name (``markone sim run NAME``);
``DEFAULTS`` / ``SMALL``
    the default configuration (a JSON-ready dict) and the overrides of ``--size small``;
``tasks(config, seed) -> list[dict]``
    the independent pieces of work, each a JSON-ready dict with an ``"id"`` and its own
    ``"seed"``, drawn up front with :func:`markone._internal.validation.child_seeds` so that
    results never depend on the number of workers or on scheduling;
``run_task(spec) -> dict``
    pure: the JSON-ready result of one task;
``combine(config, task_results) -> dict``
    the numbers behind every figure (results in the order of ``tasks``);
``plot(results, out_dir) -> list[Path]``
    PNG figures (Agg backend);
``files(config, task_results) -> dict[str, str]`` and ``FILES`` (optional)
    more files the results stand on (certificates, say): ``{name: text}``, written
    into the folder ``OUT/NAME/FILES`` from the task results, whole (see
    :func:`write_files`);
``run(config=None, *, seed=0) -> dict``
    the convenience path: tasks, run_task and combine, in memory.

:func:`run_experiment` drives a module durably. Each finished task is appended as one
JSON line (flushed and ``fsync``-ed) to ``OUT/NAME/tasks.jsonl``, carrying the task id,
the sweep's key (a hash of the configuration, seed and markone version) and a SHA-256
checksum of the line's content. Killed at any moment (even ``kill -9``) and started
again with the same arguments, it runs only the missing tasks; a torn last line is
dropped; ``results.json`` is written atomically (write, then rename). Fresh results are
passed through the same JSON round trip as reloaded ones, so a resumed sweep produces
byte-identical files.

Safety of a sweep folder:

* a line that does not verify (edited, truncated inside, without a result, of another
  sweep, or a second, different line for a task) is reported with a
  :class:`SweepWarning` and its task is run again: nothing in the log is trusted
  without its checksum;
* a lock (``OUT/NAME/.lock``, ``flock``) keeps two sweeps out of one folder; a lock
  left by a killed sweep is released by the system and taken over (with a note);
* ``OUT/NAME/sweep.json`` records which sweep the folder holds: a different
  configuration or seed is refused unless ``overwrite=True`` (``--overwrite``);
* worker processes die with the sweep, even after ``kill -9`` of the sweep;
* the size of a sweep (``runs`` at most :data:`MAX_RUNS`) is checked before any task
  is made; a run that fails before finishing a task leaves the folder as it was.

Examples
--------
>>> import tempfile
>>> res = run_experiment("orthonormal_tight", out=tempfile.mkdtemp(), size="small",
...                      plot=False)
>>> res.n_run, res.n_reused
(1, 0)
>>> res                                              # doctest: +ELLIPSIS
SweepResult(name='orthonormal_tight', results_path=...results.json'), figures=(), n_tasks=1, n_run=1, n_reused=0)
>>> res.results["all_equal"]
True
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import json
import math
import os
import reprlib
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any
import shutil
import tempfile

from markone._internal.io import read_json, to_jsonable, write_json, atomic_write
from markone._internal.parallel import check_dask, run_each
from markone._internal.progress import progress_bar
from markone._internal.signals import raise_if_terminated
from markone._internal.typing import JSONDict, PathLike
from markone._internal.validation import check_choice, check_int_at_least
from markone import __version__
from sims.errors import SweepConflictError, SweepWarning

__all__ = [
    "EXPERIMENTS",
    "SweepResult",
    "write_files",
    "load_experiment",
    "make_config",
    "config_hash",
    "run_inline",
    "run_experiment",
    "read_task_log",
    "MAX_RUNS",
    "LARGE",
    "large_settings",
    "progress_label",
    "check_setting",
]

#: Every experiment, in the order ``markone sim list`` and ``sim run all`` use.
EXPERIMENTS = (
    "novikoff",
    "proof_quantities",
    "online_to_batch",
    "averaging_noise",
    "orthonormal_tight",
    "xor_cycling",
    "shapes",
    "iris",
    "intercept_cost",
    "mark1_letters",
    "damage",
    "yield",
    "published",
)

TASK_LOG = "tasks.jsonl"
RESULTS = "results.json"
SWEEP = "sweep.json"
LOCK = ".lock"

#: The most runs one sweep may hold: every run is a record in the task log and in
#: results.json, so the size is checked before any task is made.
MAX_RUNS = 100_000


#: A count this many times its default (or a list this many times as long) makes a
#: sweep large: its progress is shown on stderr even off a terminal.
LARGE = 10


@dataclass(frozen=True)
class SweepResult:
    """What :func:`run_experiment` did.

    Attributes
    ----------
    name : str
        The experiment.
    results : dict
        The combined results, exactly as written to ``results.json``.
    results_path : pathlib.Path
        Where they were written.
    figures : tuple of pathlib.Path
        The PNG files written (empty with ``plot=False``).
    n_tasks, n_run, n_reused : int
        Tasks in the sweep; run now; taken from an earlier, interrupted sweep.
    """

    name: str
    results: dict = field(repr=False)
    results_path: Path
    figures: tuple
    n_tasks: int
    n_run: int
    n_reused: int


#: The experiments whose module has another name than theirs (``yield`` is a keyword).
_MODULES = {"yield": "certified_yield"}


def load_experiment(name: str) -> ModuleType:
    """Return the module of experiment ``name``, naming the valid ones if unknown.

    >>> load_experiment("yield").__name__
    'sims.certified_yield'
    """
    check_choice(name, "experiment", EXPERIMENTS)
    return importlib.import_module(f"sims.{_MODULES.get(name, name)}")


def make_config(module: ModuleType, *, size: str = "default", runs: int | None = None,
                overrides: dict[str, Any] | None = None) -> JSONDict:
    """The configuration of ``module`` at ``size`` with ``runs`` and ``overrides``.

    Parameters
    ----------
    module : module
        An experiment module (see :func:`load_experiment`).
    size : {"default", "small"}
        ``"small"`` applies the module's ``SMALL`` overrides (fast, for tests).
    runs : int, optional
        Sets ``config["runs"]``; an error for experiments without repeated runs.
    overrides : dict, optional
        Any other keys of ``DEFAULTS``.

    Examples
    --------
    >>> make_config(load_experiment("novikoff"), size="small", runs=7)["runs"]
    7
    """
    check_choice(size, "size", ("default", "small"))
    config = dict(module.DEFAULTS)
    if size == "small":
        config.update(module.SMALL)
    extra = dict(overrides or {})
    if runs is not None:
        if "runs" not in config:
            raise ValueError(
                f"experiment {module.NAME!r} has no 'runs' setting (its settings: "
                f"{', '.join(sorted(config))}); drop --runs for it."
            )
        extra["runs"] = runs
    unknown = set(extra) - set(config)
    if unknown:
        raise ValueError(
            f"experiment {module.NAME!r} has no setting "
            f"{' or '.join(repr(k) for k in sorted(unknown))}; its settings: "
            f"{', '.join(sorted(config))}."
        )
    for key, value in extra.items():
        check_setting(module.NAME, key, value, config[key],
                      small=size == "small" and key in module.SMALL)
    if "runs" in extra:  # a known setting by now, from --runs or from overrides
        runs = extra["runs"] = check_int_at_least(extra["runs"], "runs", 1)
        if runs > MAX_RUNS:
            raise ValueError(
                f"runs={runs} is more than one sweep holds (at most {MAX_RUNS}: every "
                "run is a record of the task log and of results.json); run several "
                "sweeps with different seeds instead.")
    config.update(extra)
    return json.loads(json.dumps(to_jsonable(config)))


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlist = 6


def _kind(value: Any) -> str:
    """The JSON kind of a setting's value: what an override must match."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "a JSON object" if isinstance(value, dict) else type(value).__name__


def check_setting(experiment: str, key: str, value: Any, default: Any, *,
                  small: bool = False) -> None:
    """Refuse an override whose kind differs from the default's: an integer may stand
    for a number, never a string or a bool for a number; a list's items must each be
    of a kind that the default's items have. Settings that would make the sweep's
    claims vacuous are refused too: a count (an integer whose default is at least 1)
    below 1, an empty list or string where the default is not empty.

    >>> check_setting("yield", "runs", 5, 30)
    >>> check_setting("mark1_letters", "weight_range", [5, None], [3, 10, None])
    >>> check_setting("yield", "runs", "5", 30)
    Traceback (most recent call last):
    ...
    ValueError: setting 'runs' of experiment 'yield' must be an integer like its default 30; got '5' (a string).
    >>> check_setting("yield", "rates", [0.1, "x"], [0.0, 0.5])
    Traceback (most recent call last):
    ...
    ValueError: setting 'rates' of experiment 'yield' must be a list of a number like its default [0.0, 0.5]; got item 'x' (a string).
    """
    where = f"setting {key!r} of experiment {experiment!r}"
    shown = json.dumps(to_jsonable(default)) + (" (--size small)" if small else "")
    got = _kind(value)
    if not _fits(got, {_kind(default)}):
        raise ValueError(f"{where} must be {_kind(default)} like its default {shown}; "
                         f"got {_SHORT.repr(value)} ({got}).")
    _check_claims_something(where, got, value, default, shown)
    kinds = {_kind(item) for item in default} if got == "a list" else set()
    for item in value if kinds else ():
        if not _fits(_kind(item), kinds):
            raise ValueError(f"{where} must be a list of {' or '.join(sorted(kinds))} like "
                             f"its default {shown}; got item {_SHORT.repr(item)} "
                             f"({_kind(item)}).")


def _fits(got: str, kinds: set[str]) -> bool:
    """Whether a value of kind ``got`` may stand for one of ``kinds``."""
    return got in kinds or (got == "an integer" and "a number" in kinds)


def _check_claims_something(where: str, got: str, value: Any, default: Any,
                            shown: str) -> None:
    """Refuse a setting (of the default's kind) that is not finite, is empty where the
    default is not, or is a count below 1."""
    if any(isinstance(v, float) and not math.isfinite(v)
           for v in (value if got == "a list" else [value])):
        raise ValueError(f"{where} must be finite; got {_SHORT.repr(value)}.")
    if got in ("a list", "a string") and len(default) and not len(value):
        raise ValueError(f"{where} must not be empty (its default is {shown}): an empty "
                         "one leaves the sweep nothing to claim.")
    if got == "an integer" == _kind(default) and default >= 1 and value < 1:
        raise ValueError(f"{where} is a count (its default is {shown}) and must be at "
                         f"least 1; got {value}.")


def large_settings(module: ModuleType, config: JSONDict) -> list[str]:
    """The settings of ``config`` at least :data:`LARGE` times their defaults (counts,
    and the lengths of lists and strings), said as ``"runs=300 (10x its default)"``.

    >>> large_settings(load_experiment("yield"), {"runs": 300, "rates": [0.5]})
    ['runs=300 (10x its default)']
    """
    found = []
    for key, default in module.DEFAULTS.items():
        value = config.get(key, default)
        size, base = _size(value), _size(default)
        if size is not None and base and size >= LARGE * base:
            said = f"{key}={value}" if isinstance(value, int) else \
                f"{key} of {size} items"
            found.append(f"{said} ({size / base:.3g}x its default)")
    return found


def _size(value):
    """How large a setting is: a count itself, a list's or a string's length."""
    if isinstance(value, bool) or isinstance(value, float):
        return None
    if isinstance(value, int):
        return value
    return len(value) if isinstance(value, (list, str)) else None


def progress_label(module: ModuleType, config: JSONDict, progress: bool | None,
                   label: str) -> tuple[bool | None, str]:
    """``(progress, label)`` of a sweep's bar: a sweep with
    :func:`large_settings` shows it even off a terminal, its label saying why.

    >>> progress_label(load_experiment("yield"), {"runs": 30}, None, "yield")
    (None, 'yield')
    """
    large = large_settings(module, config)
    if not large:
        return progress, label
    return (True if progress is None else progress), f"{label} ({'; '.join(large)})"


def config_hash(name: str, config: JSONDict, seed: int) -> str:
    """A short hash of everything a task result depends on (and markone's version).

    >>> config_hash("x", {"a": 1}, 0) == config_hash("x", {"a": 1}, 0)
    True
    >>> config_hash("x", {"a": 1}, 0) == config_hash("x", {"a": 1}, 1)
    False
    """
    text = json.dumps({"name": name, "config": config, "seed": seed,
                       "version": __version__}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _roundtrip(obj):
    """The exact value a result has after being written to and read from JSON."""
    return json.loads(json.dumps(to_jsonable(obj), sort_keys=True))


def _check_specs(name, specs):
    ids = [s.get("id") if isinstance(s, dict) else None for s in specs]
    if any(not isinstance(i, str) for i in ids) or len(set(ids)) != len(ids):
        raise ValueError(
            f"experiment {name!r}: tasks() must return dicts with unique string 'id's."
        )
    return ids


def run_inline(module: ModuleType, config: JSONDict | None = None, seed: int = 0
               ) -> JSONDict:
    """Run ``module`` in memory: ``tasks``, ``run_task`` for each, ``combine``.

    ``config`` defaults to ``module.DEFAULTS``; the result equals what
    :func:`run_experiment` writes to ``results.json`` (without the run metadata).
    """
    config = _roundtrip(module.DEFAULTS if config is None else config)
    specs = _roundtrip(module.tasks(config, seed))
    _check_specs(module.NAME, specs)
    results = [_roundtrip(module.run_task(spec)) for spec in specs]
    return _roundtrip(module.combine(config, results))


def _line_check(task_id, key, result):
    """The checksum of a task-log line: SHA-256 of its canonical content."""
    text = json.dumps({"id": task_id, "key": key, "result": result}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _record(task_id, key, result):
    return {"id": task_id, "key": key, "result": result,
            "check": _line_check(task_id, key, result)}


def _scan_log(data, key):
    """``(done, problems, kept)`` of a task log's bytes.

    ``done`` maps task id -> result of the lines that verify; ``problems`` lists
    ``(line_number, task_id_or_None, reason)``; ``kept`` is the bytes of the verified
    lines (one per task). A torn last line (no newline) is dropped silently: that is
    what a crash leaves behind.
    """
    done: dict[str, Any] = {}
    lines: dict[str, bytes] = {}
    problems: list[tuple[int, Any, str]] = []
    conflicts: set[str] = set()
    body = data[: data.rfind(b"\n") + 1]
    for n, line in enumerate(body.split(b"\n")[:-1], 1):
        try:
            rec = json.loads(line)
        except ValueError:
            problems.append((n, None, "it is not JSON"))
            continue
        task = rec.get("id") if isinstance(rec, dict) else None
        if not isinstance(rec, dict) or not {"id", "key", "result", "check"} <= set(rec):
            problems.append((n, task, "it lacks the id, key, result or checksum"))
        elif rec["key"] != key:
            problems.append((n, task, "it belongs to another sweep (key "
                             f"{str(rec['key'])[:16]})"))
        elif rec["check"] != _line_check(rec["id"], rec["key"], rec["result"]):
            problems.append((n, task, "its checksum does not match its content"))
        elif not isinstance(task, str):
            problems.append((n, task, "its task id is not a string"))
        elif task in done and done[task] != rec["result"]:
            problems.append((n, task, "a second line for the task disagrees"))
            conflicts.add(task)
        elif task not in done:
            done[task], lines[task] = rec["result"], line
    for task in conflicts:
        del done[task], lines[task]
    return done, problems, b"".join(line + b"\n" for line in lines.values())


def read_task_log(path: PathLike, key: str) -> dict[str, JSONDict]:
    """The task results recorded in the JSON-lines log ``path`` under ``key``.

    Only lines whose checksum verifies count; every other line (edited, without a
    result, of another sweep, a second and different line for one task) is reported
    with a :class:`SweepWarning` and its task counts as not done. A torn last line
    (after a crash) is dropped quietly. Returns ``{task_id: result}``.
    """
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return {}
    done, problems, _ = _scan_log(data, key)
    _warn_problems(path, problems)
    return done


def _warn_problems(path, problems):
    for n, task, reason in problems:
        which = f"task {task}" if isinstance(task, str) else "its task"
        warnings.warn(f"{path}, line {n} does not verify ({reason}); {which} will be "
                      "run again", SweepWarning, stacklevel=3)


def _load_log(path, key):
    """Read the task log, report the lines that do not verify, and keep only the good
    ones (rewritten atomically when anything was dropped). Returns ``{id: result}``."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    done, problems, kept = _scan_log(data, key)
    _warn_problems(path, problems)
    if kept != data:
        atomic_write(path, kept, mode="wb")
    return done


def _open_log(path):
    """Open the task log for appending (the file and its folder entry made durable)."""
    created = not path.exists()
    fh = open(path, "ab")
    if created:  # make the new file's directory entry durable too
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return fh


def _append(fh, record):
    fh.write((json.dumps(record, sort_keys=True) + "\n").encode())
    fh.flush()
    os.fsync(fh.fileno())


def _run_one(name, spec):
    """Run one task of experiment ``name`` (a top-level function: picklable)."""
    return _roundtrip(load_experiment(name).run_task(spec))


def _results(name, specs, workers, dask):
    """``(task id, result)`` of every spec as it finishes (:func:`run_each`)."""
    for i, result in run_each(functools.partial(_run_one, name), specs,
                              workers=workers, dask=dask):
        yield specs[i]["id"], result


def run_experiment(name: str, *, out: PathLike = "sim-out", seed: int = 0,
                   size: str = "default", runs: int | None = None,
                   overrides: dict[str, Any] | None = None, workers: int = 1,
                   dask: str | None = None, plot: bool = True, progress: bool | None = None,
                   overwrite: bool = False) -> SweepResult:
    """Run experiment ``name`` resumably and write ``OUT/NAME/results.json`` + figures.

    Parameters
    ----------
    name : str
        One of :data:`EXPERIMENTS`.
    out : str or path
        Output folder; the experiment writes into ``out/name/``.
    seed : int
        Root seed; every task's seed is drawn from it up front.
    size, runs, overrides
        The configuration, see :func:`make_config`.
    workers : int
        Processes to run tasks in (``concurrent.futures.ProcessPoolExecutor``).
    dask : str, optional
        ``"local"`` starts a ``dask.distributed.LocalCluster``; ``"tcp://host:port"``
        uses a running scheduler. Overrides ``workers``.
    plot : bool
        Write the figures too.
    progress : bool, optional
        Show a progress bar; ``None`` shows it on a terminal, and on stderr whatever
        it is when a setting is far beyond its default (:func:`large_settings`).
    overwrite : bool
        Replace the results of another sweep (other configuration or seed) in
        ``out/name``; without it such a folder is refused.

    Returns
    -------
    SweepResult

    Raises
    ------
    SweepConflictError
        ``out/name`` holds another sweep (and not ``overwrite``), or a sweep is running
        in it.
    """
    module = load_experiment(name)
    seed = check_int_at_least(seed, "seed", 0)
    workers = check_int_at_least(workers, "workers", 1)
    dask = check_dask(dask)
    config = make_config(module, size=size, runs=runs, overrides=overrides)
    key = config_hash(name, config, seed)
    out_dir = Path(out) / name
    log_path = out_dir / TASK_LOG
    specs = _roundtrip(module.tasks(config, seed))
    _check_specs(name, specs)

    with _locked_folder(out_dir) as folder:
        identity = {"experiment": name, "config": config, "seed": seed, "key": key,
                    "version": __version__}
        replace = _other_sweep(out_dir, identity, overwrite)
        done = {} if replace else _load_log(log_path, key)
        todo = [s for s in specs if s["id"] not in done]
        n_reused = len(specs) - len(todo)
        if todo:
            results = _results(name, todo, workers, dask)
            fh = None
            shown, label = progress_label(module, config, progress, name)
            try:
                with progress_bar(len(specs), label, initial=n_reused,
                                  enabled=shown) as bar:
                    for task_id, result in results:
                        if fh is None:  # the folder changes only now
                            folder.touched = True
                            fh = _start_log(out_dir, identity, replace)
                        _append(fh, _record(task_id, key, result))
                        done[task_id] = result
                        bar.update()
            finally:
                if fh is not None:
                    fh.close()
        elif not (out_dir / SWEEP).exists():
            write_json(out_dir / SWEEP, identity)

        combined = _roundtrip(module.combine(config, [done[s["id"]] for s in specs]))
        combined = {**combined, "experiment": name, "config": config, "seed": seed}
        folder.touched = True
        if hasattr(module, "files"):
            write_files(out_dir / module.FILES,
                        module.files(config, [done[s["id"]] for s in specs]))
        results_path = write_json(out_dir / RESULTS, combined)
        figures = tuple(module.plot(combined, out_dir)) if plot else ()
    return SweepResult(name, combined, results_path, figures, len(specs), len(todo),
                       n_reused)


def write_files(folder: PathLike, contents: dict[str, str]) -> Path:
    """Make ``folder`` hold exactly ``contents`` (``{file name: text}``), as a whole:
    the files are written into a new folder beside it, which then takes its place by
    a rename (the old one, files of an earlier sweep included, is removed). Killed
    in between, ``folder`` is either the old one or absent; the sweep's next run
    writes it again from its task log.

    >>> import tempfile, pathlib
    >>> top = pathlib.Path(tempfile.mkdtemp())
    >>> _ = write_files(top / "certs", {"a.json": "{}", "b.json": "[]"})
    >>> sorted(p.name for p in write_files(top / "certs", {"c.json": "1"}).iterdir())
    ['c.json']
    """
    folder = Path(folder)
    for name in contents:
        if Path(name).name != name or name in (".", ".."):
            raise ValueError(f"file name {name!r} must be a plain name, without a "
                             "folder.")
    folder.parent.mkdir(parents=True, exist_ok=True)
    new = Path(tempfile.mkdtemp(prefix=f".{folder.name}.new-", dir=folder.parent))
    os.chmod(new, 0o755)  # mkdtemp makes 0700: give the usual mode
    try:
        for name, text in contents.items():
            (new / name).write_text(text)
        raise_if_terminated()   # a SIGTERM whose exception a finaliser swallowed
        old = folder.with_name(f".{folder.name}.old-{os.getpid()}")
        if folder.exists():
            os.replace(folder, old)
        os.replace(new, folder)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return folder


class _Folder:
    touched = False


@contextlib.contextmanager
def _locked_folder(out_dir):
    """Hold ``OUT/NAME/.lock`` for the sweep; on a failure before the folder was
    touched, remove what was made for it (the lock, new folders)."""
    import fcntl

    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"{out_dir} exists and is not a folder; choose another --out.")
    made = [p for p in (*reversed(out_dir.absolute().parents), out_dir.absolute())
            if not p.exists()]
    out_dir.mkdir(parents=True, exist_ok=True)
    lock_path = out_dir / LOCK
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        os.close(fd)  # the lock file is the running sweep's: leave it
        raise SweepConflictError(
            f"another sweep (pid {holder}) is running in {out_dir}; wait for it to "
            "finish, or choose another --out.") from None
    folder = _Folder()
    try:
        stale = os.pread(fd, 32, 0).decode(errors="replace").strip()
        if stale:
            warnings.warn(f"{out_dir}: took over the lock left by an interrupted sweep "
                          f"(pid {stale}, no longer running)", SweepWarning, stacklevel=3)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield folder
    except BaseException:
        _remove_quietly(lock_path)
        if not folder.touched:
            for path in reversed(made):
                with contextlib.suppress(OSError):
                    path.rmdir()
        raise
    else:
        _remove_quietly(lock_path)
    finally:
        os.close(fd)


def _remove_quietly(path):
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _other_sweep(out_dir, identity, overwrite):
    """True when ``out_dir`` holds another sweep that ``overwrite`` allows to replace;
    :class:`SweepConflictError` when it holds one and ``overwrite`` is false."""
    sweep = out_dir / SWEEP
    if sweep.exists():
        try:
            held = read_json(sweep)
        except ValueError:
            held = {}
    elif (out_dir / RESULTS).exists() or (out_dir / TASK_LOG).exists():
        held = {}  # results without a record of their sweep: not ours to mix with
    else:
        return False
    if isinstance(held, dict) and held.get("key") == identity["key"]:
        return False
    if overwrite:
        return True
    raise SweepConflictError(
        f"{out_dir} holds another sweep ({_describe(held, identity)}); pass "
        "--overwrite to replace it, or choose another --out.")


def _describe(held, identity):
    if not isinstance(held, dict) or "key" not in held:
        return f"results without a readable {SWEEP}"
    diffs = []
    if held.get("seed") != identity["seed"]:
        diffs.append(f"seed {held.get('seed')}, not {identity['seed']}")
    old = held["config"] if isinstance(held.get("config"), dict) else {}
    changed = sorted(k for k in set(old) | set(identity["config"])
                     if old.get(k) != identity["config"].get(k))
    if changed:
        diffs.append(f"other settings: {', '.join(changed)}")
    if held.get("version") != identity["version"]:
        diffs.append(f"made by markone {held.get('version')}")
    return "; ".join(diffs) or "another configuration"


def _start_log(out_dir, identity, replace):
    """Open the task log for the first result of this run (replacing another sweep's
    files when asked to), recording the sweep's identity first."""
    if replace:
        for name in (TASK_LOG, RESULTS, SWEEP):
            _remove_quietly(out_dir / name)
    if not (out_dir / SWEEP).exists():
        write_json(out_dir / SWEEP, identity)
    return _open_log(out_dir / TASK_LOG)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use: markone sim run NAME")
