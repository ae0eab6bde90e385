"""``markone sim``: list, run and re-check the classic experiments of :mod:`sims`.

Thin: parses arguments and calls :func:`sims.runner.run_experiment`, or an
experiment's ``recheck`` (those that write certificates: :func:`sims.certified_yield.recheck`).
"""

from __future__ import annotations

import math
import sys
from argparse import ArgumentParser
from pathlib import Path, PurePath
from typing import Any
import json
import re

from markone.cli import (CommandError, add_command, add_group, nonnegative_int,
                         output_folder, plural, positive_int)
from markone.cli import purpose
from markone.cli import EXIT_NO, EXIT_OK, EXIT_USAGE, JOB_EXITS

__all__ = ["register"]

RUN_EXAMPLES = """\
  markone sim run novikoff                       300 datasets, mistakes vs (R/gamma)^2
  markone sim run all --out results --workers 2  every experiment, 2 processes
  markone sim run novikoff --dask local          on a dask.distributed LocalCluster
  markone sim run novikoff --dask tcp://host:8786  on your own cluster
  markone sim run yield --set rates=[0.5,0.9] --set runs=100   other settings
  markone sim list yield                         an experiment's settings
Killed and restarted with the same arguments, a sweep runs only the missing tasks.
Another --seed, --runs, --size or --set into a folder of earlier results needs
--overwrite."""


#: Bounds of a ``--set`` VALUE: characters, nesting of lists and objects, digits in a
#: run (no setting needs more; deeper JSON would recurse the parser into an error).
SET_MAX_CHARS = 10_000
SET_MAX_DEPTH = 4
SET_MAX_DIGITS = 30


def parse_setting(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` of ``--set``: VALUE is read as JSON (``3``, ``0.5``, ``[1, 2]``,
    ``true``, ``null``, ``"AB"``) and otherwise taken as written, a string
    (``chars=ABCD``; ``chars=`` is the empty string). Refused: a VALUE in single quotes
    (not JSON: the shell did not remove them), numbers that are not finite, and VALUEs
    over :data:`SET_MAX_CHARS` characters, nested over :data:`SET_MAX_DEPTH` levels or
    with a run of over :data:`SET_MAX_DIGITS` digits.

    >>> parse_setting("rates=[0.5, 0.9]")
    ('rates', [0.5, 0.9])
    >>> parse_setting("chars=ABCD"), parse_setting("chars=")
    (('chars', 'ABCD'), ('chars', ''))
    >>> parse_setting("chars=''")
    Traceback (most recent call last):
    ...
    markone.cli._errors.CommandError: --set chars: the VALUE '' is in single quotes, which are not JSON; give a string bare (chars=ABCD) or as JSON in double quotes (chars="ABCD", quoted for your shell); an empty VALUE (chars=) is the empty string.
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise CommandError(f"--set {text[:80]!r}: give KEY=VALUE, e.g. --set runs=100 or "
                           "--set rates=[0.5,0.9] (`markone sim list NAME` lists the "
                           "settings).")
    _check_bounds(key, raw)
    try:
        value = json.loads(raw, parse_constant=lambda word: float("nan"))
    except ValueError:
        return key, raw
    if _not_finite(value):
        raise CommandError(f"--set {key}={raw}: numbers must be finite (no NaN, "
                           "Infinity or overflowing exponent).")
    return key, value


def _check_bounds(key, raw):
    """Refuse a --set VALUE over the bounds, or in single quotes (module constants)."""
    from markone._internal.io import nesting_depth_over

    if len(raw) > SET_MAX_CHARS:
        raise CommandError(f"--set {key}=...: the VALUE has {len(raw):,} characters, "
                           f"over the {SET_MAX_CHARS:,} a setting may have.")
    if nesting_depth_over(raw.encode(), SET_MAX_DEPTH):
        raise CommandError(f"--set {key}=...: the VALUE nests lists or objects more than "
                           f"{SET_MAX_DEPTH} levels deep; no setting does (`markone sim "
                           "list NAME` shows each setting's kind).")
    digits = max(map(len, re.findall(r"[0-9]+", raw)), default=0)
    if digits > SET_MAX_DIGITS:
        raise CommandError(f"--set {key}=...: the VALUE has a number of {digits:,} "
                           f"digits, over the {SET_MAX_DIGITS} a setting may have.")
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        raise CommandError(f"--set {key}: the VALUE {raw} is in single quotes, which "
                           f"are not JSON; give a string bare ({key}=ABCD) or as JSON in "
                           f"double quotes ({key}=\"ABCD\", quoted for your shell); an "
                           f"empty VALUE ({key}=) is the empty string.")


def _not_finite(value):
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, list):
        return any(map(_not_finite, value))
    return isinstance(value, dict) and any(map(_not_finite, value.values()))


def _list(args):
    from sims.runner import EXPERIMENTS, load_experiment

    if args.name is not None:
        return _settings(args.name)

    width = max(map(len, EXPERIMENTS))
    for name in EXPERIMENTS:
        doc = (load_experiment(name).__doc__ or "").strip().splitlines()
        print(f"{name:<{width}}  {doc[0] if doc else ''}")
    return 0


def _settings(name):
    """Print experiment ``name``'s settings: default, and the value ``--size small``
    uses where it differs."""
    from sims.runner import EXPERIMENTS, load_experiment

    if name not in EXPERIMENTS:   # as `sim run` and `sim check` refuse it
        raise _no_such_experiment(name, "list")
    module = load_experiment(name)
    small = getattr(module, "SMALL", {})
    width = max(map(len, module.DEFAULTS))
    print(f"{name}: settings (change one with `markone sim run {name} --set KEY=VALUE`)")
    for key, value in module.DEFAULTS.items():
        extra = f"   (--size small: {json.dumps(small[key])})" if key in small else ""
        print(f"  {key:<{width}}  {json.dumps(value)}{extra}")
    return 0


def _no_such_experiment(name: str, action: str) -> CommandError:
    """The refusal of ``markone sim ACTION NAME`` when no experiment is called
    ``name``: the names there are, and, when ``name`` is the folder of a sweep
    (``sim-out/iris``, or its ``results.json``), the command that was meant.

    >>> print(_no_such_experiment("sim-out/iris", "check"))  # doctest: +ELLIPSIS
    no experiment named 'sim-out/iris'; for the sweep in that folder run `markone sim check iris --out sim-out`; choose one of novikoff, ...
    """
    from sims.runner import EXPERIMENTS

    parts = PurePath(name).parts
    parts = parts[:-1] if parts and parts[-1] == "results.json" else parts
    meant = (f"; for the sweep in that folder run `markone sim {action} {parts[-1]} --out "
             f"{PurePath(*parts[:-1])}`" if len(parts) > 1 and parts[-1] in EXPERIMENTS
             else "")
    also = ", or 'all'" if action == "run" else ""
    return CommandError(f"no experiment named {name!r}{meant}; choose one of "
                        f"{', '.join(EXPERIMENTS)}{also} (see `markone sim list`).")


def _run(args):
    from sims.runner import EXPERIMENTS, load_experiment, run_experiment

    if args.name != "all" and args.name not in EXPERIMENTS:
        raise _no_such_experiment(args.name, "run")
    names = EXPERIMENTS if args.name == "all" else (args.name,)
    overrides = dict(parse_setting(text) for text in args.set or ())
    if overrides and args.name == "all":
        raise CommandError("--set applies to one experiment (each has its own settings); "
                           "run `markone sim run NAME --set ...` for each.")
    if args.runs is not None and "runs" in overrides:
        raise CommandError(f"--runs {args.runs} and --set runs={overrides['runs']} both "
                           "set the number of runs; give one of them.")
    for name in names:
        runs = args.runs
        if args.name == "all" and "runs" not in load_experiment(name).DEFAULTS:
            runs = None  # --runs applies to the experiments that have runs
        try:
            res = run_experiment(name, out=args.out, seed=args.seed, size=args.size,
                                 runs=runs, overrides=overrides, workers=args.workers,
                                 dask=args.dask, overwrite=args.overwrite)
        except ImportError as exc:  # --dask without dask.distributed installed
            raise CommandError(str(exc)) from exc
        except ValueError as exc:
            raise _as_setting(exc, overrides) from None
        print(f"{name}: {plural(res.n_run, 'task')} run, {res.n_reused} reused -> "
              f"{res.results_path} ({plural(len(res.figures), 'figure')})")
    return 0


def _as_setting(exc: ValueError, overrides: dict) -> Exception:
    """A refusal of a setting given with ``--set``, worded as the flag: the library's
    ``rates(=[0.5, 1.5]) must be ...`` is ``--set rates=[0.5, 1.5]: it must be ...``;
    any other error is left as it is.

    >>> print(_as_setting(ValueError("confidence(=1) must be in (0, 1)."),
    ...                   {"confidence": 1}))
    --set confidence=1: it must be in (0, 1).
    >>> print(_as_setting(ValueError("confidence(=1) must be in (0, 1)."), {}))
    confidence(=1) must be in (0, 1).
    """
    match = re.match(r"(\w+)\(=(.*?)\) must ", str(exc))
    if match is None or match.group(1) not in overrides:
        return exc
    value = overrides[match.group(1)]
    shown = value if isinstance(value, str) else json.dumps(value)
    return CommandError(f"--set {match.group(1)}={shown}: it {str(exc)[match.end() - 5:]}")


def _check(args):
    from sims.runner import EXPERIMENTS, RESULTS

    if args.name == "all":   # what `sim run all` wrote: each experiment's folder there
        names = [name for name in EXPERIMENTS if (Path(args.out) / name / RESULTS).is_file()]
        if not names:
            raise CommandError(f"{args.out} holds no finished sweep; run `markone sim run "
                               f"all --out {args.out}` first.")
        return max(_check_one(name, args.out, many=True) for name in names)
    if args.name not in EXPERIMENTS:
        raise _no_such_experiment(args.name, "check")
    return _check_one(args.name, args.out)


def _check_one(name, out, many=False):
    """Check the sweep of experiment ``name`` in ``out``; print OK or INVALID and
    return the status. A malformed file is a CommandError (``many``: said on stderr,
    status 2, and the other sweeps are checked too)."""
    from sims.check import check_sweep
    from sims.errors import MalformedResults, ResultsMismatch
    from verify.errors import CertificateError

    try:
        got = check_sweep(name, out)
    except MalformedResults as exc:
        if not many:
            raise CommandError(str(exc)) from exc
        print(f"markone sim check: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ResultsMismatch, CertificateError) as exc:
        print(f"INVALID: {exc}")
        return EXIT_NO
    files = (f"; {plural(got.files, 'certificate file')} re-checked, each tied to the "
             "machine it names" if got.files else "")
    log = f"; {plural(got.log_lines, 'task-log line')} equal" if got.log_lines else ""
    print(f"OK: {got.name}: all {plural(got.values, 'value')} of results.json "
          f"recomputed from the seed ({plural(got.tasks, 'task')} run again) and "
          f"equal{log}{files}")
    for item in got.unchecked:
        print(f"unchecked: {item}")
    return EXIT_OK


def register(subparsers: Any) -> ArgumentParser:
    """Add ``markone sim list`` and ``markone sim run`` to ``subparsers``."""
    p, sub = add_group(
        subparsers, "sim",
        help=purpose("sim"),
        description="Each experiment writes OUT/NAME/results.json (the numbers behind "
        "its figures, with config and seed) and PNG figures; sweeps are resumable.",
        example="markone sim run novikoff --out results",
    )
    lst = add_command(sub, "list", help="list the experiments, or one's settings",
                      description="One line per experiment; with a NAME, that "
                      "experiment's settings (what --set changes) and their defaults.",
                      example="markone sim list\n  markone sim list yield",
                      func=_list, exits=JOB_EXITS)
    lst.add_argument("name", nargs="?", default=None,
                     help="an experiment: show its settings")
    r = add_command(sub, "run", help="run one experiment or all of them",
                    description="Tasks are seeded up front from --seed, so results do "
                    "not depend on --workers or --dask.", example=RUN_EXAMPLES,
                    func=_run, exits=JOB_EXITS)
    r.set_defaults(when_stopped="; the same command again runs only the tasks not done "
                   "yet")
    r.add_argument("name", help="experiment name (see `markone sim list`) or 'all'")
    r.add_argument("--out", type=output_folder, default="sim-out", help="output folder")
    r.add_argument("--runs", type=positive_int, default=None,
                   help="number of runs (experiments with repeated runs)")
    r.add_argument("--seed", type=nonnegative_int, default=0, help="root seed")
    r.add_argument("--workers", type=positive_int, default=1,
                   help="worker processes, this one included")
    r.add_argument("--dask", default=None, metavar="local|ADDRESS",
                   help="run on a dask LocalCluster ('local') or a scheduler address")
    r.add_argument("--size", choices=("small", "default"), default="default",
                   help="problem sizes: 'small' is quick")
    r.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="change one setting (repeatable); VALUE is JSON or a string; "
                   "`markone sim list NAME` lists the settings")
    r.add_argument("--overwrite", action="store_true",
                   help="replace the results of another sweep (other seed or settings) "
                   "in the output folder")
    c = add_command(sub, "check", help="recompute every number of a finished sweep",
                    description="Every value of OUT/NAME/results.json recomputed from "
                    "its settings and seed (every task run again, each run's record "
                    "present once), every line of the task log compared, and for yield "
                    "every certificate file re-checked (its proof, as `markone verify "
                    "check` does, on the patterns of the machine it names). What "
                    "cannot be recomputed is listed as unchecked.",
                    example="markone sim run yield --size small --out results\n"
                    "markone sim check yield --out results\n"
                    "markone sim check all --out results   every sweep the folder holds",
                    func=_check,
                    exits={EXIT_OK: "every value, log line and file holds",
                           EXIT_NO: "a value differs from its recomputation (named by "
                           "its JSON path), or a file does not hold"})
    c.add_argument("name", help="experiment name (see `markone sim list`), or 'all': every "
                   "sweep the folder holds, as `sim run all` writes them")
    c.add_argument("--out", default="sim-out", help="the folder given to `sim run`")
    return p
