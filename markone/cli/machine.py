"""``markone machine``: run, inspect and replay the emulated Mark I Perceptron.

Thin: parses arguments and calls :mod:`markone.hardware` (imported inside handlers).
"""

from __future__ import annotations

from argparse import ArgumentParser, ArgumentTypeError
from types import SimpleNamespace
from typing import Any
import json
import dataclasses
import webbrowser

from markone._internal.io import percent
from markone.cli import (CommandError, add_command, add_group, memory_option,
                         nonnegative_int, output_file, output_folder, plural, positive_int)
from markone.cli._commands import purpose
from markone.cli._errors import EXIT_NO, EXIT_OK, JOB_EXITS, TRAINING_EXITS
from markone.cli.machine_options import (add_fault_options, add_physics_options,
                                          fault_request, machine_params)

__all__ = ["register"]

DEMO_EXAMPLES = """\
  markone machine demo letters                     A-D, default physics, ./machine-demo
  markone machine demo letters --chars ABCDEF --max-epochs 30 --out demo --seed 1"""

TRAIN_EXAMPLES = """\
  markone machine train --chars ABC --out run.json --log
  markone machine train --chars ABCD --order shuffle --max-epochs 20
  markone machine train --shapes 40 --rule gamma --out run.json
  markone machine train --shapes 40 --topology source_sets   exits 1: an R-unit is silent on a figure"""


def _demo(args):
    from markone._figures import letters
    from markone._internal.io import staged_output
    from markone.hardware.demo import letters_demo

    letters(args.chars, per_class=1, typeface=args.typeface)  # checks --chars first
    params, faults = machine_params(args), fault_request(args)
    with staged_output(args.out) as stage:
        lines = []
        letters_demo(stage, seed=args.seed, chars=args.chars,
                     max_epochs=args.max_epochs,
                     per_class=args.per_class, typeface=args.typeface,
                     params=params, faults=faults, echo=lines.append)
    for line in lines:  # the files are in --out now, not in the staging folder
        print(line.replace(str(stage), str(args.out)))
    return 0


def _params_table(args):
    params = machine_params(args)
    print(params.table("markdown" if args.markdown else "text"))
    print()
    print(params.unsettled())
    return 0


def _train(args):
    import numpy as np

    from markone.hardware import MarkI
    from markone.hardware.demo import format_minutes
    from markone.hardware.faults import apply_faults, faults_for

    params, faults = machine_params(args), fault_request(args)
    images, labels = _training_figures(args, params)
    machine = MarkI(params, seed=args.seed)
    if faults is not None:
        plan = faults_for(machine, faults)
        apply_faults(machine, plan)
        print(f"faults: {plan.describe()}")
    run = machine.train(images, labels, max_epochs=args.max_epochs, log=args.log,
                        order=args.order, progress=None)  # a bar on a terminal
    ending = ("converged" if run.converged
              else f"stopped at --max-epochs {args.max_epochs} before an error-free pass")
    print(f"{plural(run.epochs, 'pass', 'passes')} ({ending}): "
          f"{plural(run.n_presentations, 'presentation')}, "
          f"{plural(int(run.mistakes.sum()), 'mistake')} of the R-units, "
          f"{plural(int(run.saturated.sum()), 'weight move')} blocked by end stops")
    print(f"training accuracy {percent(machine.score(images, labels))} on "
          f"{plural(len(images), 'figure')} ({', '.join(map(str, np.unique(labels)))}); "
          f"machine time {format_minutes(run.sim_time_s)}")
    if not run.converged:
        for why in _unclean_lines(machine, run, images):
            print(why)
    if args.out:
        print(f"wrote {run.save(args.out)}")
    return EXIT_OK if run.converged else EXIT_NO


def _training_figures(args: Any, params: Any) -> tuple[Any, Any]:
    """The figures and labels ``machine train`` asks for: ``--shapes N`` discs and
    squares, or letters; refused before any is drawn when training on them would not
    fit in ``--max-memory``."""
    from markone._figures import letters, shapes

    if args.shapes is not None:
        letter_options = [flag for flag, value in (("--chars", args.chars),
                          ("--per-class", args.per_class), ("--typeface", args.typeface))
                          if value is not None]
        if letter_options:
            raise CommandError(f"--shapes and {' and '.join(letter_options)} exclude "
                               "each other: train on shapes (--shapes N draws N discs "
                               "and squares) or on letters.")
        _check_training_memory(params, args.shapes, f"--shapes {args.shapes}",
                               args.max_memory)
        return shapes(args.shapes, seed=args.seed)
    chars = "ABC" if args.chars is None else args.chars
    per_class = args.per_class or 5
    _check_training_memory(params, len(chars) * per_class, f"--per-class {per_class}",
                           args.max_memory)
    return letters(chars, per_class=per_class, seed=args.seed,
                   typeface=args.typeface or "block")


#: Peak memory of training, in bytes per figure for each retina cell and each A-unit
#: (measured: 20,000 figures of 400 cells peak at 274 MB, 359 MB and 839 MB above a
#: 80 MB start with 128, 512 and 2048 A-units; the figures, their A-unit patterns
#: and the sums over them are all held at once).
_TRAINING_BYTES_PER_CELL_AND_A_UNIT = 16


def _check_training_memory(params: Any, n_figures: int, option: str,
                           max_memory_gb: float | None) -> None:
    """Refuse, before drawing a figure, training on ``n_figures`` that would need more
    memory than ``--max-memory`` (``option`` is the option that asked for them).

    >>> from markone.hardware import MarkIParams
    >>> _check_training_memory(MarkIParams(), 400, "--shapes 400", None)
    >>> _check_training_memory(MarkIParams(), 10**8, "--shapes 100000000", None)
    Traceback (most recent call last):
    ...
    markone.errors.MemoryLimitError: --shapes 100000000 (training on 100000000 figures) would need about 1,459 GB of memory, more than max_memory_gb=4 allows; ask for fewer figures, or raise max_memory_gb.
    """
    from markone._internal.memory import check_memory

    rows, columns = params.retina_shape
    per_figure = _TRAINING_BYTES_PER_CELL_AND_A_UNIT * (rows * columns + params.n_a_units)
    check_memory(n_figures * per_figure, max_memory_gb,
                 f"{option} (training on {n_figures} figures)", "ask for fewer figures")


def _unclean_lines(machine: Any, run: Any, images: Any) -> list[str]:
    """Why the last pass was not mistake-free, as far as the run shows it without a
    log: the silent R-units (:func:`_silent_line`), and the last pass's other
    mistakes, which silence does not explain (an R-unit whose A-units cannot
    separate the figures cycles for ever; ``verify machine`` decides it exactly)."""
    from markone.hardware.faults import NoisySum

    p, plan = machine.params, machine.faults
    if p.photocell_noise_sd or p.exposure_s is not None or (
            plan is not None and any(isinstance(f, NoisySum) for f in plan.plan.faults)):
        return []
    silent = machine.silent_r_units(images)
    lines = [line for line in [_silent_line(machine, silent)] if line]
    other = run.mistakes_per_epoch[-1] - int(silent.sum()) if run.mistakes_per_epoch else 0
    if other > 0 and len(run.mistakes_per_epoch) * len(images) == run.n_presentations:
        lines.append(
            f"the last pass also had {other} mistake{'s' if other != 1 else ''} where an "
            "A-unit wired to the R-unit fires: either training needs more passes "
            "(--max-epochs), or the figures are not linearly separable on that R-unit's "
            "A-units and no order of training ends them; `markone machine train --log "
            "--out RUN.json`, then `markone verify machine RUN.json`, says R-unit by "
            "R-unit whether it can learn its figures at all.")
    return lines


def _silent_line(machine: Any, silent: Any, shown: int = 6) -> str | None:
    """Why no pass can be mistake-free, if some R-unit has no active input on some
    figure (``silent``, from :meth:`~markone.hardware.MarkI.silent_r_units`) and the
    machine reads every figure settled and without noise; else None."""
    from markone.hardware.runits import r_unit_name

    p = machine.params
    figures = silent.any(axis=1).nonzero()[0]
    if not figures.size:
        return None
    named = [f"figure {i + 1} ({', '.join(map(r_unit_name, silent[i].nonzero()[0]))})"
             for i in figures[:shown]]
    if figures.size > shown:
        named.append(f"{figures.size - shown} more figures")
    fix = (f" --topology full wires all {p.n_a_units} A-units to every R-unit."
           if p.topology == "source_sets" else "")
    return ("no pass can be mistake-free: no A-unit wired to the R-unit fires on "
            f"{', '.join(named)}, so its sum is exactly 0, which training counts as a "
            "mistake, and reinforcing it moves no weight (the training accuracy counts "
            "the decoded class, which the other R-units can still get right)." + fix)


def _navy(args):
    from markone.hardware.demo import format_minutes, navy_comparison

    res = navy_comparison(seed=args.seed, per_class=args.per_class,
                          max_epochs=args.max_epochs,
                          jitter=args.jitter, params=machine_params(args))
    print("Navy, June 1960: one typeface eventually recognised without error; 85% once "
          "a second typeface was added [Navy1960].")
    for name in ("one_typeface", "two_typefaces"):
        r = res[name]
        print(f"emulator, {name.replace('_', ' ')}: {percent(r['train_accuracy'])} of "
              f"the training figures, {percent(r['test_accuracy'])} of freshly placed "
              f"ones after {plural(r['epochs'], 'pass', 'passes')} "
              f"({'converged' if r['converged'] else 'not converged'}, "
              f"{format_minutes(r['sim_time_s'])} of machine time)")
    print(f"trained on block letters only, it reads {percent(res['block_only_on_serif'])} "
          "of serif letters")
    return 0


FLEET_EXAMPLES = """\
  markone machine fleet --machines 200 --presentations 500 --workers 2
  markone machine fleet --machines 20 --vary 'weight_range=[[-50, 50], [-2, 2]]' \\
      --vary 'topology=["full", "source_sets"]' --chars ABCDEFG --out fleet.json
  markone machine fleet --machines 50 --vary 'photocell_noise_sd=[0, 0.1, 0.2]' \\
      --dask local"""


def _vary(texts):
    """``{field: [values]}`` from ``--vary NAME=JSON_LIST`` options."""
    vary = {}
    for text in texts or ():
        name, sep, values = text.partition("=")
        try:
            values = json.loads(values) if sep else None
        except ValueError:
            values = None
        if not name or not isinstance(values, list) or not values:
            raise CommandError(
                f"--vary {text!r} must be NAME=JSON_LIST, e.g. "
                "--vary 'photocell_noise_sd=[0, 0.1]' or "
                "--vary 'weight_range=[[-50, 50], [-2, 2]]'.")
        if name in vary:
            raise CommandError(f"--vary {name} is given twice; list all its values once.")
        values = [tuple(v) if isinstance(v, list) else v for v in values]
        twice = [v for i, v in enumerate(values) if v in values[:i]]
        if twice:
            raise CommandError(f"--vary {name} lists {json.dumps(twice[0])} twice; give "
                               "each value once.")
        vary[name] = values
    return vary


def _fleet(args):
    from markone._figures import letters
    from markone._internal.io import write_json
    from markone.hardware import MachineSpec
    from markone.hardware.show import fleet_tables

    vary = _vary(args.vary)
    base, faults = machine_params(args, varied=list(vary)), fault_request(args)
    fields = {f.name for f in dataclasses.fields(base)}
    unknown = sorted(set(vary) - fields)
    if unknown:
        raise CommandError(f"--vary {unknown[0]}: not a machine parameter; see "
                           "`markone machine params` for their names.")
    images, labels = letters(args.chars, per_class=args.per_class, seed=args.seed,
                             typeface=args.typeface)
    try:
        specs = MachineSpec.grid(range(args.seed, args.seed + args.machines), base=base,
                                 faults=faults, **vary)
    except (TypeError, ValueError) as exc:
        raise CommandError(f"--vary: {exc}") from None
    fleet = _fleet_summaries(specs, images, labels, args)
    print(f"{plural(len(fleet), 'machine')}, {plural(args.presentations, 'presentation')} "
          f"each, of {plural(len(images), 'figure')} of "
          f"{plural(len(args.chars), 'letter')} ({args.chars}):")
    if faults is not None:
        print(f"faults on every machine: {_fault_words(faults)}")
    print(fleet_tables(fleet, list(vary)))
    if args.out:
        rows = [{"seed": f.spec.seed, "params": {k: getattr(f.spec.params, k)
                                                 for k in vary},
                 "accuracy": f.accuracy, "mistakes": f.run.mistakes,
                 "saturated": f.run.saturated, "converged": f.run.converged,
                 "sim_time_s": f.run.sim_time_s} for f in fleet]
        print(f"wrote {write_json(args.out, {'chars': args.chars, 'machines': rows})}")
    return 0


#: Machines per call of ``run_fleet`` for each worker: ``machine fleet`` keeps of each
#: machine only what its table and ``--out`` show, so its memory grows by a summary a
#: machine, not a run (weights and wiring, some 150 KB), and its bar moves per slice.
FLEET_SLICE = 2000


def _fleet_summaries(specs: list, images: Any, labels: Any, args: Any) -> list:
    """Train the fleet slice by slice (the same runs: each machine is fully
    determined by its spec), with a bar on a terminal; per machine its ``spec``,
    ``accuracy`` and the ``run``'s mistakes, blocked moves, convergence and time."""
    from markone._internal.progress import progress_bar
    from markone.hardware import run_fleet

    kept = []
    step = FLEET_SLICE * args.workers
    with progress_bar(len(specs), "machines", unit="machine") as bar:
        for start in range(0, len(specs), step):
            part: list[Any] = run_fleet(  # FleetRun.run is typed object
                specs[start:start + step], images, labels, workers=args.workers,
                dask=args.dask, presentations=args.presentations)
            kept += [SimpleNamespace(spec=f.spec, accuracy=f.accuracy, run=SimpleNamespace(
                mistakes=f.run.mistakes, saturated=f.run.saturated,
                converged=f.run.converged, sim_time_s=f.run.sim_time_s)) for f in part]
            bar.update(len(part))
    return kept


def _fault_words(faults):
    """A fleet's fault request in words: a plan named by what broke, or its rates."""
    if hasattr(faults, "describe"):
        return faults.describe()
    rates = ", ".join(f"{k}={v}" for k, v in faults.items() if k not in ("seed", "at_s"))
    return f"{rates} (drawn on each machine from --seed {faults['seed']})"


def _show(args):
    from markone.hardware import MachineRun
    from markone.hardware.show import describe_run

    print(describe_run(MachineRun.load(args.run)))
    return 0


def _replay(args):
    from markone.hardware import MachineRun
    from markone.hardware.replay import write_replay_html

    run = MachineRun.load(args.run, for_log=True)   # read and checked as `show` does
    print(f"wrote {write_replay_html(run, args.html)}")
    return 0


CONSOLE_EXAMPLES = """\
  markone machine console                          the live console, in the browser
  markone machine console --no-browser --port 8765 --out lesson.json
  markone machine console --set motor_step_s=0.5 --seed 3"""


def _port(text: str) -> int:
    """A TCP port number from ``--port`` (0: a free one)."""
    try:
        port = nonnegative_int(text)
    except ArgumentTypeError:
        port = -1   # said as for 70000 below, unless the text is no whole number
        if not text.strip().lstrip("-").isdigit():
            raise
    if not 0 <= port <= 65535:
        raise ArgumentTypeError(f"{text!r} is not a port: ports go from 0 to 65535")
    return port


def _console(args):
    from markone._internal.signals import Terminated, termination_handled
    from markone.hardware import MarkI
    from markone.console.playground import ANALYST
    from markone.console.server import ConsoleServer
    from markone.hardware.live import LiveSession, figure_catalogue

    params = machine_params(args)
    if params.theta == "auto" and not figure_catalogue(params.retina_shape):
        raise CommandError("the console calibrates theta on its built-in figures, which "
                           "need a square retina of at least 9 rows; give the threshold "
                           "for this retina with --set theta=N.")
    session = LiveSession(MarkI(params, seed=args.seed))
    with ConsoleServer(session, args.out, host=args.host, port=args.port,
                       analyst=ANALYST) as server:
        try:   # from the first line on: a Ctrl-C as soon as it shows is a stop too
            print(f"Mark I console, live: {server.url}", flush=True)
            print(f"Your own data, with exact answers: {server.url}playground",
                  flush=True)
            print(f"save run (key S) writes {server.out}; Ctrl-C saves what is not saved "
                  "yet and stops the console.", flush=True)
            if not args.no_browser:
                webbrowser.open(server.url)
            server.serve_forever()
        except KeyboardInterrupt:
            why = "Ctrl-C"
        except Terminated:
            termination_handled()   # SIGTERM is the console's way to stop: a clean stop
            why = "SIGTERM"
    print(f"stopped ({why}); {server.save_unsaved()}.", flush=True)
    return EXIT_OK


def _add_demo(sub):
    """``markone machine demo``."""
    d = add_command(sub, "demo", help="train on letters with default physics; write "
                    "pictures, an animation and the run",
                    description="Prints accuracy, mistakes, saturation and the "
                    "machine time at the motors' speed; writes machine_*.png, machine_training.gif and "
                    "machine-run.json.", example=DEMO_EXAMPLES, func=_demo,
                    exits=JOB_EXITS)
    d.add_argument("what", choices=["letters"], help="the demonstration")
    d.add_argument("--out", type=output_folder, default="machine-demo",
                   help="output folder")
    d.add_argument("--seed", type=nonnegative_int, default=0,
                   help="seed of the wiring and the figures")
    d.add_argument("--chars", default="ABCD", help="letters to learn")
    d.add_argument("--per-class", type=positive_int, default=5, help="figures per letter")
    d.add_argument("--max-epochs", type=positive_int, default=50, help="most passes")
    d.add_argument("--typeface", choices=["block", "serif"], default="block",
                   help="the letters' typeface")
    add_physics_options(d)
    add_fault_options(d)


def _add_params(sub):
    """``markone machine params``."""
    t = add_command(sub, "params", help="print every parameter with its unit and "
                    "provenance (documented / disputed / assumed)",
                    description="The emulator's defaults and where each comes from; "
                    "then how many are documented, disputed and assumed, and what "
                    "would settle each one that is not documented.",
                    example="markone machine params --markdown", func=_params_table,
                    exits=JOB_EXITS)
    t.add_argument("--markdown", action="store_true", help="a Markdown table")
    add_physics_options(t)


def _add_train(sub):
    """``markone machine train``."""
    r = add_command(sub, "train", help="train on letters or shapes; save the run as JSON",
                    description="Default physics unless --ideal.", example=TRAIN_EXAMPLES,
                    func=_train, exits=TRAINING_EXITS)
    r.add_argument("--chars", default=None, help="letters to learn (default: ABC)")
    r.add_argument("--per-class", type=positive_int, default=None,
                   help="figures per letter (default: 5)")
    r.add_argument("--typeface", choices=["block", "serif"], default=None,
                   help="the letters' typeface (default: block)")
    r.add_argument("--shapes", type=positive_int, default=None, metavar="N",
                   help="learn N discs and squares instead of letters")
    r.add_argument("--max-epochs", type=positive_int, default=50, help="most passes")
    r.add_argument("--order", default="given", choices=["given", "shuffle"],
                   help="presentation order of each pass (shuffle: a new order each "
                   "pass, drawn from --seed)")
    r.add_argument("--seed", type=nonnegative_int, default=0,
                   help="seed of the wiring, the figures and the shuffles")
    r.add_argument("--log", action="store_true", help="record every presentation")
    r.add_argument("--out", type=output_file, default=None,
                   help="save the run to this JSON file")
    memory_option(r)
    add_physics_options(r)
    add_fault_options(r)


def _add_navy(sub):
    """``markone machine navy``."""
    n = add_command(sub, "navy", help="the Navy's 1960 letters task: one typeface, "
                    "then two [Navy1960]", description="Compares the emulator with the "
                    "June 1960 press caption [Navy1960].", example="markone machine navy --per-class 20",
                    func=_navy, exits=JOB_EXITS)
    n.add_argument("--per-class", type=positive_int, default=20, help="figures per letter")
    n.add_argument("--max-epochs", type=positive_int, default=30, help="most passes")
    n.add_argument("--jitter", type=nonnegative_int, default=1,
                   help="largest shift in pixels")
    n.add_argument("--seed", type=nonnegative_int, default=0,
                   help="seed of the wiring and the figures")
    add_physics_options(n)


def _add_fleet(sub):
    """``markone machine fleet``."""
    f = add_command(sub, "fleet", help="train many machines (seeds x parameters) on "
                    "letters at once, locally or on Dask",
                    description="One machine per seed for every combination of the "
                    "--vary values; prints each combination's mean accuracy, mistakes "
                    "and machine time. Results do not depend on --workers or --dask.",
                    example=FLEET_EXAMPLES, func=_fleet, exits=JOB_EXITS)
    f.add_argument("--machines", type=positive_int, default=10,
                   help="machines (seeds) per parameter combination")
    f.add_argument("--vary", action="append", metavar="NAME=JSON_LIST",
                   help="a machine parameter and its values (repeatable)")
    f.add_argument("--presentations", type=positive_int, default=500,
                   help="figures shown to each machine")
    f.add_argument("--chars", default="ABCDEFGHIJKLMNOPQRSTUVWXYZ", help="letters to learn")
    f.add_argument("--per-class", type=positive_int, default=1, help="figures per letter")
    f.add_argument("--typeface", choices=["block", "serif"], default="block",
                   help="the letters' typeface")
    f.add_argument("--seed", type=nonnegative_int, default=0,
                   help="first machine seed (and the figures' seed)")
    f.add_argument("--workers", type=positive_int, default=1,
                   help="worker processes, this one included")
    f.add_argument("--dask", default=None, metavar="local|ADDRESS",
                   help="run on a dask LocalCluster ('local') or a scheduler address")
    f.add_argument("--out", type=output_file, default=None,
                   help="write every machine's summary as JSON")
    add_physics_options(f)
    add_fault_options(f)


def _add_show(sub):
    """``markone machine show``."""
    w = add_command(sub, "show", help="print a saved run: parameters, faults, "
                    "mistakes per pass, final weights, timing",
                    description="Reads a run saved by `markone machine train --out` or "
                    "the demo (machine-run.json); a file that is not one is refused "
                    "(exit 2).", example="markone machine show run.json", func=_show,
                    exits=JOB_EXITS)
    w.add_argument("run", metavar="RUN.json", help="a saved Mark I run")


def _add_replay(sub):
    """``markone machine replay``."""
    y = add_command(sub, "replay", help="write a browser replay of a saved run",
                    description="A self-contained HTML page: figures appear, motors "
                    "turn the weights.",
                    example="markone machine replay run.json --html replay.html",
                    func=_replay, exits=JOB_EXITS)
    y.add_argument("run", help="a run saved by `markone machine train --log --out` or "
                   "the demo (machine-run.json)")
    y.add_argument("--html", type=output_file, required=True, help="the page to write")


def _add_console(sub):
    """``markone machine console``."""
    c = add_command(sub, "console", help="operate the machine live in the browser: "
                    "present figures, reinforce, break parts, save",
                    description="Starts a local server on this computer only (a "
                    "loopback address) and opens the console page; the Python MarkI "
                    "does the work, the page shows it at the machine's pace. Ctrl-C "
                    "(or SIGTERM) saves the run if it is not saved yet, and stops it.", example=CONSOLE_EXAMPLES, func=_console,
                    exits={0: "stopped (Ctrl-C or SIGTERM)"})
    c.add_argument("--host", default="127.0.0.1",
                   help="a loopback address to listen on (127.0.0.1, ::1 or localhost); "
                   "others are refused")
    c.add_argument("--port", type=_port, default=0,
                   help="the port (0: a free one chosen by the system)")
    c.add_argument("--no-browser", action="store_true",
                   help="do not open a browser; open the printed address yourself")
    c.add_argument("--out", type=output_file, default="machine-live.json",
                   help="where the page's save run (and Ctrl-C, if the run is not saved yet) "
                   "writes the run (JSON)")
    c.add_argument("--seed", type=nonnegative_int, default=0,
                   help="seed of the wiring")
    add_physics_options(c)


def register(subparsers: Any) -> ArgumentParser:
    """Add ``markone machine demo|params|train|navy|fleet|show|replay|console`` to
    ``subparsers``."""
    p, sub = add_group(
        subparsers, "machine",
        help=purpose("machine"),
        description="A discrete-event emulation of Rosenblatt's 1960 machine "
        "[HayWightman1960]: 20x20 "
        "photocells, a random plugboard, 512 A-units, 8 R-units with motor-driven "
        "potentiometers.",
        example="markone machine demo letters --out machine-demo",
    )
    _add_demo(sub)
    _add_params(sub)
    _add_train(sub)
    _add_navy(sub)
    _add_fleet(sub)
    _add_show(sub)
    _add_replay(sub)
    _add_console(sub)
    return p
