"""Re-check a finished sweep: every number of its ``results.json``, recomputed.

``markone sim check NAME --out OUT`` (:func:`check_sweep`) takes nothing in
``OUT/NAME/results.json`` on trust but its premises, the settings (``config``) and the
root ``seed``, and those only once they are a valid configuration of the experiment
(one that :func:`sims.runner.make_config` accepts unchanged and whose tasks can be
made). From them it runs every task again (each task's seed is drawn from the root
seed up front, so the work is the sweep's, task for task) and compares the result with
the file, field by field:

1. the file is read within limits and its shape checked before any number is
   compared: JSON (no ``NaN``, no key twice in one object, nested at most
   :data:`MAX_DEPTH` levels), an object of the experiment's keys, each value of the
   kind the experiment writes there (:class:`MalformedResults`, exit 2);
2. each run's record (an object with a ``"run"``) appears exactly once at its point,
   and every value (counts, rates, intervals, summaries, the echoed settings) equals
   its recomputation (:class:`ResultsMismatch`, exit 1, naming the JSON path);
3. ``sweep.json`` records the same settings and seed, and each line of the task log
   that verifies (what a resumed sweep would reuse) equals its task recomputed;
4. an experiment that writes certificate files (``yield``) has them re-checked by the
   trusted checker, each tied to the machine it names (the experiment's ``recheck``),
   and holds no file that is not its own.

What this cannot recompute is listed in :attr:`SweepCheck.unchecked`.

>>> import tempfile
>>> from sims.runner import run_experiment
>>> out = tempfile.mkdtemp()
>>> _ = run_experiment("orthonormal_tight", out=out, size="small", plot=False)
>>> got = check_sweep("orthonormal_tight", out)
>>> got.tasks, got.values > 10, got.files
(1, True, 0)
"""

from __future__ import annotations

import dataclasses
import json
import math
import reprlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from markone._internal.io import JSONRefused, not_json, read_strict_json, read_json
from markone._internal.progress import progress_bar
from markone._internal.typing import JSONDict, PathLike
from sims.errors import MalformedResults, ResultsMismatch
from sims.runner import (RESULTS, load_experiment, _check_specs, _roundtrip,
                         progress_label, make_config, TASK_LOG, _scan_log, config_hash,
                         SWEEP)

__all__ = ["check_sweep", "recompute", "SweepCheck", "MAX_DEPTH"]

#: How deeply ``results.json`` may nest arrays and objects (the experiments nest at
#: most 5 levels; Python's JSON parser recurses once per level).
MAX_DEPTH = 20

#: What no check recomputes, for every experiment.
UNCHECKED = (
    "the settings and the seed (config, seed): the premises every other number is "
    "recomputed from; checked only to be a valid configuration",
    "the figures (*.png): drawn from the numbers checked here, not compared",
)

#: What is unchecked of an experiment without certificate files.
SAME_CODE = ("an independent proof: the numbers are recomputed by the code that made "
             "them, which a bug in it would repeat (only yield's verdicts are proved, by "
             "certificate files)")


@dataclasses.dataclass(frozen=True)
class SweepCheck:
    """What :func:`check_sweep` confirmed.

    Attributes
    ----------
    name : str
        The experiment.
    tasks : int
        Tasks run again.
    values : int
        Values (numbers, strings, true/false, null) of ``results.json`` compared.
    log_lines : int
        Task-log lines compared with their tasks recomputed.
    files : int
        Certificate files re-checked (0 for an experiment without them).
    unchecked : tuple of str
        What was not recomputed, said plainly.
    """

    name: str
    tasks: int
    values: int
    log_lines: int
    files: int
    unchecked: tuple[str, ...]


def check_sweep(name: str, out: PathLike = "sim-out", *,
                progress: bool | None = None) -> SweepCheck:
    """Re-check the finished sweep of experiment ``name`` in ``out/name`` (module doc).

    Parameters
    ----------
    name : str
        One of :data:`sims.runner.EXPERIMENTS`.
    out : str or path
        The folder given to ``run_experiment`` (or ``markone sim run --out``).
    progress : bool, optional
        A progress bar of the tasks run again; ``None``: on a terminal, or when the
        settings are far beyond the defaults (:func:`sims.runner.progress_label`).

    Returns
    -------
    SweepCheck

    Raises
    ------
    MalformedResults
        The file is not the experiment's results (no finished sweep, not JSON, a key
        missing, a value of the wrong kind, invalid settings).
    ResultsMismatch
        A value differs from its recomputation (named by its JSON path).
    verify.errors.CertificateError
        A certificate file does not hold, or is not about the machine it names.
    """
    module = load_experiment(name)
    folder = Path(out) / name
    results = read_results(folder / RESULTS)
    config, seed = _premises(module, results)
    specs, task_results, expected = recompute(module, config, seed, progress=progress)
    problem = shape_problem(results, expected)
    if problem:
        raise MalformedResults(f"{folder / RESULTS}: {problem}.")
    values = _compare(results, expected, f"{folder / RESULTS}")
    _check_record(folder, config, seed)
    log_lines = _check_log(folder, name, config, seed, specs, task_results)
    files = _check_files(module, folder, config, task_results)
    return SweepCheck(name, len(specs), values, log_lines, files,
                      UNCHECKED + (() if files else (SAME_CODE,)))


def recompute(module: ModuleType, config: JSONDict, seed: int, *,
              progress: bool | None = None) -> tuple[list, list, JSONDict]:
    """``(specs, task_results, results)``: every task of ``module`` run again from
    ``config`` and ``seed``, and the results as ``results.json`` holds them.

    >>> from sims.runner import load_experiment, make_config
    >>> xor = load_experiment("xor_cycling")
    >>> specs, _, res = recompute(xor, make_config(xor, size="small"), 0)
    >>> len(specs), res["experiment"], res["seed"]
    (2, 'xor_cycling', 0)
    """
    specs = _roundtrip(module.tasks(config, seed))
    _check_specs(module.NAME, specs)
    task_results = []
    progress, label = progress_label(module, config, progress, f"check {module.NAME}")
    with progress_bar(len(specs), label, enabled=progress) as bar:
        for spec in specs:
            task_results.append(_roundtrip(module.run_task(spec)))
            bar.update()
    combined = _roundtrip(module.combine(config, task_results))
    return specs, task_results, {**combined, "experiment": module.NAME,
                                 "config": config, "seed": seed}


# -- reading and the premises -----------------------------------------------------------

class _Constant:
    """A ``NaN`` or ``Infinity`` token of the file (not JSON; markone writes ``"nan"``)."""

    def __init__(self, text: str) -> None:
        self.text = text


def read_results(path: PathLike) -> Any:
    """The JSON document of ``results.json`` at ``path``, read within limits
    (:class:`MalformedResults` naming the problem and the file)."""
    path = Path(path)
    if not path.is_file():
        raise MalformedResults(f"{path.parent} holds no finished sweep (no {path.name}); "
                               f"run `markone sim run {path.parent.name} --out "
                               f"{path.parent.parent}` first.")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise MalformedResults(f"{path} cannot be read: {exc.strerror}.") from None
    try:
        return read_strict_json(raw, max_depth=MAX_DEPTH, constant=_Constant)
    except JSONRefused as exc:
        if exc.problem == "depth":
            raise MalformedResults(f"{path} nests arrays and objects more than "
                                   f"{MAX_DEPTH} levels deep; no experiment writes that: "
                                   "run the sweep again.") from None
        raise MalformedResults(f"{path}: the key {exc.detail!r} appears twice in one "
                               "object (JSON readers differ on which one counts); keep "
                               "one.") from None
    except json.JSONDecodeError as exc:
        raise MalformedResults(f"{path} {not_json(exc)}; run the sweep again.") from None
    except UnicodeDecodeError as exc:
        raise MalformedResults(f"{path} is not a text file (byte {exc.start} is not "
                               "UTF-8), so not JSON; run the sweep again.") from None
    except ValueError as exc:  # too many digits
        raise MalformedResults(f"{path} is not valid JSON ({exc}); run the sweep "
                               "again.") from None


def _premises(module, results):
    """``(config, seed)`` of ``results``, once they are a valid configuration."""
    if not isinstance(results, dict):
        raise MalformedResults(f"results.json is {_kind(results)}, not an object of "
                               "results.")
    missing = [k for k in ("experiment", "config", "seed") if k not in results]
    if missing:
        raise MalformedResults(f"results.json lacks {', '.join(map(repr, missing))}: it "
                               "is not a sweep's results.")
    if results["experiment"] != module.NAME:
        raise MalformedResults(f"results.json is of experiment "
                               f"{_show(results['experiment'])}, not {module.NAME!r}.")
    seed, config = results["seed"], results["config"]
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise MalformedResults(f"results.json: seed is {_show(seed)}; a sweep's seed is "
                               "an integer >= 0.")
    if not isinstance(config, dict):
        raise MalformedResults(f"results.json: config is {_kind(config)}, not an object "
                               "of settings.")
    try:
        valid = make_config(module, overrides=config)
        module.tasks(valid, seed)
    except (ValueError, TypeError) as exc:
        raise MalformedResults(f"results.json: config: {exc}") from None
    lacking = sorted(set(valid) - set(config))
    if lacking:
        raise MalformedResults(f"results.json: config lacks {', '.join(lacking)}.")
    return valid, seed


# -- shape and values -------------------------------------------------------------------

def _kind(value: Any) -> str:
    if isinstance(value, _Constant):
        return value.text
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    return {dict: "an object", list: "a list", str: "a string",
            type(None): "null"}.get(type(value), type(value).__name__)


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60
_REPR.maxlist = _REPR.maxdict = 6


def _show(value: Any) -> str:
    """A value, short, as it would read in JSON."""
    if isinstance(value, _Constant):
        return value.text
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return _REPR.repr(value)


def _step(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{json.dumps(key)}]"


def shape_problem(got: Any, want: Any, path: str = "results") -> str | None:
    """What makes ``got`` not of the shape of ``want`` (``None`` if nothing): a key
    missing or unknown, a value of another kind (null stands for any kind: it is a
    value, compared later), a NaN; list lengths are values, compared later.

    >>> shape_problem({"a": [1, "x"]}, {"a": [1, 2]})
    'results.a[1] is a string, where a number belongs'
    >>> shape_problem({"a": 1}, {"a": 1, "b": None})
    "results lacks the key 'b'"
    """
    if isinstance(got, _Constant):
        return f"{path} is {got.text}, which is not a JSON number (markone writes " \
               "non-finite numbers as text, \"nan\")"
    if got is None or want is None:
        return None
    if _kind(got) != _kind(want):
        return f"{path} is {_kind(got)}, where {_kind(want)} belongs"
    if isinstance(got, dict):
        for key in want:
            if key not in got:
                return f"{path} lacks the key {key!r}"
        for key in got:
            if key not in want:
                return f"{path} has the key {key!r}, which this experiment does not write"
        return next(filter(None, (shape_problem(got[k], want[k], _step(path, k))
                                  for k in want)), None)
    if isinstance(got, list):
        return next(filter(None, (shape_problem(g, w, _step(path, i))
                                  for i, (g, w) in enumerate(zip(got, want)))), None)
    return None


def _same(got: Any, want: Any) -> bool:
    """Equal leaves: a number equals the same number written otherwise (1 and 1.0)."""
    if isinstance(got, float) and math.isnan(got):
        return isinstance(want, float) and math.isnan(want)
    return type(got) is type(want) and got == want or (
        _kind(got) == _kind(want) == "a number" and got == want)


def _runs(items: list) -> list | None:
    """The ``"run"`` of each record in ``items``, or None when they are not records."""
    if items and all(isinstance(m, dict) and "run" in m for m in items):
        return [m["run"] for m in items]
    return None


def _presence(got: list, want: list, path: str) -> str | None:
    """Each run recomputed at a point appears there exactly once, and no other."""
    have, need = _runs(got), _runs(want)
    if have is None or need is None:
        return None
    counts = Counter(map(json.dumps, have))
    for run in need:
        n = counts.get(json.dumps(run), 0)
        if n != 1:
            return (f"{path}: run {_show(run)} is missing" if n == 0 else
                    f"{path}: run {_show(run)} appears {n} times")
    extra = [r for r in have if r not in need]
    if extra:
        return f"{path}: run {_show(extra[0])} is not one of the sweep's runs"
    return None


def differences(got: Any, want: Any, path: str = "results") -> Iterator[str]:
    """Each place where ``got`` differs from ``want``, by JSON path (a key missing or
    a value of another kind is one too).

    >>> next(differences({"y": [0.5, 0.75]}, {"y": [0.5, 0.5]}))
    'results.y[1] is 0.75; recomputed: 0.5'
    >>> next(differences([{"run": 0}], [{"run": 0}, {"run": 1}]))
    'results: run 1 is missing'
    """
    if isinstance(got, dict) and isinstance(want, dict):
        lacking = [k for k in want if k not in got]
        extra = [k for k in got if k not in want]
        if lacking or extra:
            yield (f"{path} lacks the key {lacking[0]!r}" if lacking else
                   f"{path} has the key {extra[0]!r}, which the recomputation has not")
            return
        for key in want:
            yield from differences(got[key], want[key], _step(path, key))
    elif isinstance(got, list) and isinstance(want, list):
        yield from _list_differences(got, want, path)
    elif not _same(got, want):
        yield f"{path} is {_show(got)}; recomputed: {_show(want)}"


def _list_differences(got, want, path):
    missing = _presence(got, want, path)
    if missing:
        yield missing
    elif len(got) != len(want):
        yield f"{path} has {len(got)} items; recomputed: {len(want)}"
    else:
        for i, (g, w) in enumerate(zip(got, want)):
            yield from differences(g, w, _step(path, i))


def _leaves(value: Any) -> int:
    if isinstance(value, dict):
        return sum(map(_leaves, value.values()))
    if isinstance(value, list):
        return sum(map(_leaves, value))
    return 1


def _compare(results, expected, where):
    """Refuse the first difference (with how many more there are); return how many
    values were compared."""
    found = differences(results, expected, "results")
    first = next(found, None)
    if first is not None:
        more = sum(1 for _ in found)
        also = f" (and {more} more difference{'s' * (more != 1)})" if more else ""
        raise ResultsMismatch(f"{where}: {first}{also}.")
    return _leaves(expected)


# -- the task log and the files ----------------------------------------------------------

def _check_log(folder, name, config, seed, specs, task_results):
    """Each verified line of the task log equals its task recomputed; return how many
    lines were compared."""
    path = folder / TASK_LOG
    if not path.is_file():
        return 0
    done, problems, _ = _scan_log(path.read_bytes(), config_hash(name, config, seed))
    for n, task, reason in problems[:1]:   # a finished sweep leaves none (run drops them)
        which = f"task {task}" if isinstance(task, str) else "its task"
        raise ResultsMismatch(f"{path}, line {n} does not verify ({reason}): the log is "
                              f"not the one the sweep wrote, and a resumed sweep would "
                              f"run {which} again; run the sweep again to rewrite it.")
    recomputed = {s["id"]: r for s, r in zip(specs, task_results)}
    for task, result in done.items():
        if task not in recomputed:
            raise ResultsMismatch(f"{path}: task {task!r} is not one of the sweep's "
                                  "tasks.")
        first = next(differences(result, recomputed[task], f"task {task}"), None)
        if first is not None:
            raise ResultsMismatch(f"{path}: {first} (a resumed sweep would reuse it; "
                                  "delete the line to have the task run again).")
    return len(done)


def _check_record(folder, config, seed):
    """``sweep.json`` (the record of the sweep the folder holds, which a next run
    resumes) names the settings and seed of ``results.json``."""
    path = folder / SWEEP
    if not path.is_file():
        return
    try:
        held = read_json(path)
    except ValueError as exc:
        raise ResultsMismatch(f"{path} is not the record of this sweep ({exc}).") from None
    held = held if isinstance(held, dict) else {}
    other: dict = held["config"] if isinstance(held.get("config"), dict) else {}
    changed = sorted(k for k in set(config) | set(other) if other.get(k) != config.get(k))
    if held.get("seed") != seed or changed:
        said = ", ".join(changed) if changed else "the seed"
        raise ResultsMismatch(f"{path} records this folder's sweep with other settings "
                              f"than results.json ({said}): the numbers are not of the "
                              "sweep that was run.")


def _check_files(module, folder, config, task_results):
    """Re-check the certificate files of an experiment that writes them; return how
    many were checked."""
    if not hasattr(module, "files"):
        return 0
    files_dir = folder / module.FILES
    own = set(module.files(config, task_results))
    present = {p.name for p in files_dir.iterdir()} if files_dir.is_dir() else set()
    stray = sorted(present - own)
    if stray:
        raise ResultsMismatch(f"{files_dir / stray[0]} is not a file of this sweep "
                              "(no machine of results.json names it); remove it.")
    return module.recheck(folder).files
