"""The shared runner: resumable, loss-free sweeps, locally or on a Dask cluster.

Every experiment module in :mod:`sims` exposes the same small protocol:

``NAME``
    the experiment's name (``markone sim run NAME``);
``DEFAULTS`` / ``SMALL``
    the default configuration (a JSON-ready dict) and the overrides of ``--size small``;
``tasks(config, seed) -> list[dict]``
    the independent pieces of work, each a JSON-ready dict with an ``"id"`` and its own
    ``"seed"``, drawn up front with :func:`markone._validation.child_seeds` so that
    results never depend on the number of workers or on scheduling;
``run_task(spec) -> dict``
    pure: the JSON-ready result of one task;
``combine(config, task_results) -> dict``
    the numbers behind every figure (results in the order of ``tasks``);
``plot(results, out_dir) -> list[Path]``
    PNG figures (Agg backend);
``run(config=None, *, seed=0) -> dict``
    the convenience path: tasks, run_task and combine, in memory.

:func:`run_experiment` drives a module durably. Each finished task is appended as one
JSON line (flushed and ``fsync``-ed) to ``OUT/NAME/tasks.jsonl``, keyed by task id and a
hash of the configuration and seed. Killed at any moment (even ``kill -9``) and started
again with the same arguments, it runs only the missing tasks; a torn last line is
dropped; ``results.json`` is written atomically (write, then rename). Fresh results are
passed through the same JSON round trip as reloaded ones, so a resumed sweep produces
byte-identical files.

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

import functools
import hashlib
import importlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from markone._version import __version__
from markone._io import to_jsonable, write_json
from markone._parallel import check_dask, run_each
from markone._progress import Progress
from markone._validation import check_choice, check_int_at_least

__all__ = [
    "EXPERIMENTS",
    "SweepResult",
    "load_experiment",
    "make_config",
    "config_hash",
    "run_inline",
    "run_experiment",
    "read_task_log",
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
)

TASK_LOG = "tasks.jsonl"
RESULTS = "results.json"


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


def load_experiment(name):
    """Return the module of experiment ``name``, naming the valid ones if unknown."""
    check_choice(name, "experiment", EXPERIMENTS)
    return importlib.import_module(f"sims.{name}")


def make_config(module, *, size="default", runs=None, overrides=None):
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
        extra["runs"] = check_int_at_least(runs, "runs", 1)
    unknown = set(extra) - set(config)
    if unknown:
        raise ValueError(
            f"unknown setting(s) {sorted(unknown)} for experiment {module.NAME!r}; "
            f"valid settings: {', '.join(sorted(config))}."
        )
    config.update(extra)
    return json.loads(json.dumps(to_jsonable(config)))


def config_hash(name, config, seed):
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


def run_inline(module, config=None, seed=0):
    """Run ``module`` in memory: ``tasks``, ``run_task`` for each, ``combine``.

    ``config`` defaults to ``module.DEFAULTS``; the result equals what
    :func:`run_experiment` writes to ``results.json`` (without the run metadata).
    """
    config = _roundtrip(module.DEFAULTS if config is None else config)
    specs = _roundtrip(module.tasks(config, seed))
    _check_specs(module.NAME, specs)
    results = [_roundtrip(module.run_task(spec)) for spec in specs]
    return _roundtrip(module.combine(config, results))


def read_task_log(path, key):
    """The task results recorded in the JSON-lines log ``path`` under ``key``.

    Lines that do not parse (a torn last line after a crash) and lines of another
    configuration are ignored. Returns ``{task_id: result}``.
    """
    done = {}
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return done
    for line in data.split(b"\n"):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and rec.get("key") == key and "id" in rec:
            done[rec["id"]] = rec["result"]
    return done


def _open_log(path):
    """Open the task log for appending, cutting a torn (unterminated) last line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    created = not path.exists()
    fh = open(path, "ab")
    if created:  # make the new file's directory entry durable too
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    size = fh.seek(0, os.SEEK_END)
    if size:
        with open(path, "rb") as rd:
            data = rd.read()
        if not data.endswith(b"\n"):
            fh.truncate(data.rfind(b"\n") + 1)
            fh.seek(0, os.SEEK_END)
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


def run_experiment(name, *, out="sim-out", seed=0, size="default", runs=None,
                   overrides=None, workers=1, dask=None, plot=True, progress=None):
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
        Show a progress bar; ``None`` shows it only on a terminal.

    Returns
    -------
    SweepResult
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
    done = read_task_log(log_path, key)
    todo = [s for s in specs if s["id"] not in done]
    n_reused = len(specs) - len(todo)

    if todo:
        fh = _open_log(log_path)
        try:
            results = _results(name, todo, workers, dask)
            with Progress(len(specs), name, enabled=progress) as bar:
                bar.advance(n_reused)
                for task_id, result in results:
                    _append(fh, {"id": task_id, "key": key, "result": result})
                    done[task_id] = result
                    bar.advance()
        finally:
            fh.close()

    combined = _roundtrip(module.combine(config, [done[s["id"]] for s in specs]))
    combined = {**combined, "experiment": name, "config": config, "seed": seed}
    results_path = write_json(out_dir / RESULTS, combined)
    figures = tuple(module.plot(combined, out_dir)) if plot else ()
    return SweepResult(name, combined, results_path, figures, len(specs), len(todo),
                       n_reused)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use: markone sim run NAME")
