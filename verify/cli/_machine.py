"""``markone verify machine``: what the theorems promise a Mark I on a task.

Thin: builds the task (letters, or a saved run's figures and machine) and calls
:func:`verify.machine.check_machine`. Exit status: 0 the machine provably learns the
task for every order, 1 it provably does not for some order (or the task is not
learnable), 4 not decided; with ``--recheck``, 0 nothing refuted, 1 something refuted,
2 a malformed report or one about other figures or another machine.
"""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any
import math
from fractions import Fraction

from markone.cli import (CommandError, add_command, cli_terms, memory_option,
                         nonnegative_int, output_file, positive_float, positive_int,
                         probability)
from markone.cli import purpose
from markone.cli import EXIT_NO, EXIT_OK, EXIT_UNDECIDED
from markone.cli.machine_options import (add_fault_options, add_physics_options,
                                          fault_request, machine_params)

__all__ = ["add_drift", "add_machine"]

EXAMPLES = """\
  markone verify machine letters --chars ABCD            default machine, letters A-D
  markone verify machine letters --chars AB --weight-range 3 --json report.json
  markone verify machine letters --exposure 0.01        can a 10 ms exposure blend figures?
  markone verify machine letters --dead-a-units 0.9      which of the dead parts broke it?
  markone verify machine run.json                        a run saved with --log
  markone verify machine letters --chars AB --weight-range 3 --recheck report.json"""

def _letters_task(args):
    from markone.datasets import letters
    from markone.hardware import MarkI

    images, labels = letters(args.chars, per_class=args.per_class, seed=args.seed,
                             typeface=args.typeface)
    changes = {}
    if args.weight_range is not None and any(
            text.partition("=")[0].strip() == "weight_range" for text in args.settings):
        raise CommandError("--weight-range and --set weight_range=... both set the end "
                           "stops; give one of them.")
    if args.weight_range is not None:
        changes["weight_range"] = None if args.weight_range == 0 else (
            -args.weight_range, args.weight_range)
    return MarkI(machine_params(args, **changes), seed=args.seed), images, labels


def _run_task(path):
    """The machine and the logged figures of a saved run."""
    import numpy as np

    from markone.hardware import MachineRun, MarkI
    from markone.hardware.plugboard import PatternCache, Wiring

    run = MachineRun.load(path, for_log=True)
    if run.log is None or run.figures is None:
        raise CommandError(f"{path} has no per-presentation log, so its figures and "
                           "labels are unknown; record the run with "
                           "MarkI(...).train(..., log=True) and save it with "
                           "run.save(path).")
    label_of = {}
    for rec in run.log:
        label_of.setdefault(rec.figure, rec.label)
    shown = sorted(label_of)
    params = run.params.replace(theta=int(run.theta))
    machine = MarkI(params, seed=run.seed)
    machine.wiring = Wiring(run.excitatory, run.inhibitory,
                            params.retina_shape[0] * params.retina_shape[1])
    machine._patterns = PatternCache(machine.wiring)   # the run's plugboard
    if run.weight_mask is not None:
        machine.runits.mask = run.weight_mask
    labels = np.array([run.classes[label_of[i]] for i in shown])
    return machine, run.figures[shown], labels


def saved_run(path):
    """The machine of a saved run as it ended, its faults and trained weights on its
    plugboard, with the run's figures and labels (``verify machine``'s and ``verify
    tolerance``'s, so both speak of the same machine)."""
    from markone.hardware import MachineRun
    from markone.hardware.faults import apply_faults

    machine, images, labels = _run_task(path)
    run = MachineRun.load(path)
    if run.faults is not None:
        apply_faults(machine, run.faults)
    machine.runits.weights[...] = run.weights
    return machine, images, labels


def _break(machine, args):
    """Apply the faults the options ask for (none: the machine as it is)."""
    from markone.hardware.faults import apply_faults, faults_for

    faults = fault_request(args)
    if faults is not None:
        apply_faults(machine, faults_for(machine, faults))


def _recheck(path, machine, images, labels):
    """Re-check a saved report's evidence on this task: exit 0 none refuted, 1 some."""
    from markone._internal.io import plural
    from verify.machine import load_report, recheck_report

    checks = recheck_report(load_report(path), machine, images, labels)
    width = max(len(c.claim) for c in checks)
    for c in checks:
        print(f"{c.claim:{width}s}  {c.status:9s}  {c.why}")
    counts = {s: sum(c.status == s for c in checks)
              for s in ("confirmed", "refuted", "unchecked")}
    print(f"{path}: {plural(counts['confirmed'], 'claim')} confirmed from the evidence, "
          f"{counts['refuted']} refuted, {counts['unchecked']} without a certificate to "
          "check")
    return EXIT_NO if counts["refuted"] else EXIT_OK


def refuse_json_with_recheck(args):
    """``--json`` writes a new report, ``--recheck`` checks a saved one: both at once
    is refused before any work (the file asked for was silently not written)."""
    if args.recheck is not None and args.json:
        raise CommandError(f"--json {args.json} writes a new report and --recheck "
                           f"{args.recheck} checks a saved one: give one of the two.")


def _machine(args):
    from markone._internal.io import write_json
    from verify.machine import check_machine

    refuse_json_with_recheck(args)
    if args.task == "letters":
        machine, images, labels = _letters_task(args)
    else:
        if args.settings or args.ideal or args.weight_range is not None or any(
                getattr(args, attr) is not None for attr in ("topology", "rule", "noise")):
            raise CommandError(f"{args.task} carries its machine's parameters: --set, "
                               "--ideal, --weight-range, --topology, --rule and --noise "
                               "apply to the letters task only.")
        # as it ended: "the machine has no faults" of a run with 256 dead A-units,
        # and "untrained" of its trained weights, were said of the run's fresh machine
        machine, images, labels = saved_run(args.task)
    _break(machine, args)
    if args.recheck is not None:
        return _recheck(args.recheck, machine, images, labels)
    report = check_machine(machine, images, labels, exposure_s=args.exposure,
                           seed=args.seed, timeout_s=args.timeout)
    print(cli_terms(report.text()))
    if args.json:
        write_json(args.json, report.to_dict())
        print(f"report written to {args.json}")
    return {True: EXIT_OK, False: EXIT_NO, None: EXIT_UNDECIDED}[report.converges]


def _drift(args):
    from markone.hardware import MachineRun
    from verify.machine.drift import drift_horizon

    walk = [f"{flag} {value:g}" for flag, value in (
        ("--delta", args.delta), ("--over", args.over), ("--budget", args.budget),
        ("--max-memory", args.max_memory)) if value is not None]
    if args.rate is not None and walk:   # the flag given, not all four (#37)
        raise CommandError(f"{walk[0]} is for a random walk (--sd); --rate has an exact "
                           "horizon: drop one of the two.")
    if args.sd is not None and args.delta is None:
        raise CommandError("--sd needs --delta, the probability allowed that some "
                           "answer changes, e.g. --delta 0.01.")
    machine, images, labels = _run_task(args.run)
    run = MachineRun.load(args.run, for_log=True)
    rate, sd = args.rate, args.sd
    if rate is None and sd is None:
        rate, sd = _own_drift(run, args.delta)
    if sd is None:
        h = drift_horizon(machine, run, images, labels,
                          drift_rate=Fraction(str(rate)))   # the decimal typed
        print(_bounded_text(h, len(images)))
        ok = h.horizon_s != 0
    else:   # the walk the machine runs: the float typed, exactly
        h = drift_horizon(machine, run, images, labels, drift_sd=Fraction(sd),
                          delta=Fraction(str(args.delta)),
                          over_s=None if args.over is None else Fraction(str(args.over)),
                          budget=args.budget, max_memory_gb=args.max_memory)
        print(cli_terms(_walk_text(h, len(images))))
        ok = h.horizon_s > 0
    if args.json:
        from markone._internal.io import write_json

        write_json(args.json, h.to_dict())
        print(f"written to {args.json}")
    if not ok:
        return EXIT_NO
    return EXIT_UNDECIDED if getattr(h, "stopped_by", "") else EXIT_OK


def _own_drift(run, delta):
    """``(rate, sd)`` of the drift a saved run's machine has itself when neither
    ``--rate`` nor ``--sd`` is given: with ``--delta``, the random walk of its
    ``PotentiometerDrift`` faults (their sds combined); without, the creep of its
    ``drift_rate``."""
    if delta is not None:
        sds = [f.sd for f in (run.faults.faults if run.faults is not None else ())
               if type(f).__name__ == "PotentiometerDrift"]
        if not sds:
            raise CommandError("--delta without --sd: the run's machine has no "
                               "PotentiometerDrift fault (--drift) to read the walk "
                               "from; give --sd.")
        return None, math.hypot(*sds)
    if run.params.drift_rate == 0:
        raise CommandError("give --rate (a bounded drift) or --sd and --delta (a random "
                           "walk): the run's machine has no drift_rate of its own.")
    return abs(run.params.drift_rate), None


def _seconds(x):
    """A time (or rate) for a sentence: 6 digits, of any size (beyond float range
    too)."""
    from markone._internal.exact import fraction_g

    return fraction_g(x)


def _exactly(x):
    """An exact rational for a sentence, short (``a/b * 10**k``)."""
    from markone._internal.exact import fraction_pow10

    return fraction_pow10(x)


def _bounded_text(h, n):
    """What ``markone verify drift --rate`` prints about the horizon ``h``."""
    from markone.hardware.runits import numbered, r_unit_name

    rate = f"{_exactly(h.drift_rate)} steps/s"
    if h.horizon_s is None:
        return (f"never: at {rate} no drift can change an answer to any "
                f"of the {n} figures (the end stops leave too little room)")
    if h.horizon_s == 0:
        return (f"drift horizon 0: {r_unit_name(h.r_unit)} already answers "
                f"{numbered('figure', h.figure)} wrongly (margin {h.margin} steps)")
    return (f"drift horizon {_seconds(h.horizon_s)} s of machine time (exactly "
            f"{_exactly(h.horizon_s)}) at {rate}: before it no drift within the "
            f"rate changes any answer to the {n} figures; at it, the worst drift makes "
            f"{r_unit_name(h.r_unit)} answer {numbered('figure', h.figure)} wrongly (its margin "
            f"{h.margin} steps)")


def _at_least(delta):
    """``1 - delta`` for a sentence (``1 - 1e-20`` when 6 digits would say 1)."""
    text = _seconds(1 - Fraction(delta))
    return f"1 - {_seconds(delta)}" if text == "1" else text


def _walk_text(h, n):
    """What ``markone verify drift --sd --delta`` prints about the horizon ``h``."""
    walk = f"a random walk of {_seconds(h.drift_sd)} steps per sqrt(s)"
    if h.wrong:
        return (f"walk horizon 0: {h.wrong} answers to the {n} figures are already "
                "wrong; retrain first")
    if h.horizon_s == 0:
        return (f"walk horizon 0: {h.at_stop} potentiometers sit at the end stop that "
                f"works against an answer, so under {walk} the bound says nothing; "
                "widen weight_range")
    text = (f"walk horizon {_seconds(h.horizon_s)} s of machine time (exactly "
            f"{_exactly(h.horizon_s)}) under {walk}: every answer to the {n} figures "
            f"stays right until then with probability at least {_at_least(h.delta)} (a "
            f"change has probability at most {_seconds(h.probability)}: a union bound "
            f"over {h.answers} answers and {h.potentiometers} potentiometer end stops, "
            "certified with arb ball arithmetic)")
    if h.schedule is None:
        return text
    return text + "\n" + _schedule_text(h.schedule)


def _schedule_text(s):
    """The retraining line of ``markone verify drift --over``."""
    over = f"{_seconds(s.over_s)} s"
    if s.stopped_by:
        return (f"retraining over {over}: not planned: {s.message}, or plan for a "
                "shorter time")
    if s.intervals == 1:
        return f"retraining: none needed over {over}"
    return (f"retraining: every {_seconds(s.interval_s)} s ({s.intervals - 1} times) "
            f"keeps every answer right over {over} with probability at least "
            f"{_at_least(s.delta)}, if each retraining restores these weights")


def add_drift(verify_subparsers: Any) -> ArgumentParser:
    """Add ``drift`` to the ``markone verify`` group."""
    d = add_command(verify_subparsers, "drift", help=purpose("verify drift"),
                    description="With --rate: the exact machine time before which no "
                    "drift of at most that many steps per second changes any R-unit's "
                    "answer to a training figure (per figure: its margin in steps over "
                    "the largest drift of its active potentiometers, end stops "
                    "included). With --sd and --delta: a time within which a random "
                    "walk of the potentiometers changes some answer with probability "
                    "at most --delta (a certified union bound over the answers), and "
                    "with --over the retraining schedule for that long. Without --rate "
                    "and --sd, the drift of the run's own machine: its drift_rate, or "
                    "with --delta the walk of its PotentiometerDrift faults.",
                    example="markone verify drift run.json --rate 0.01\n"
                    "  markone verify drift run.json --sd 0.05 --delta 0.01 --over 3600",
                    func=_drift, exits={EXIT_OK: "the machine answers every figure "
                                        "correctly now (the horizon is > 0)",
                                        EXIT_NO: "some answer is already wrong",
                                        EXIT_UNDECIDED: "--budget or --max-memory "
                                        "stopped the retraining schedule (--over)"})
    d.add_argument("run", metavar="RUN.json",
                   help="a run saved with --log (`markone machine train --log --out`)")
    kind = d.add_mutually_exclusive_group()
    kind.add_argument("--rate", type=positive_float, metavar="STEPS_PER_S",
                      help="the most motor steps per machine second a potentiometer "
                      "drifts (a bounded drift: the exact horizon)")
    kind.add_argument("--sd", type=positive_float, metavar="STEPS_PER_SQRT_S",
                      help="a random walk of the potentiometers, as --drift breaks the "
                      "machine (needs --delta)")
    d.add_argument("--delta", type=probability, default=None, metavar="P",
                   help="with --sd: the probability allowed that some answer changes")
    d.add_argument("--over", type=positive_float, default=None, metavar="SECONDS",
                   help="with --sd: plan retraining for this many machine seconds")
    d.add_argument("--budget", type=positive_int, default=None, metavar="INTERVALS",
                   help="with --over: plan at most this many retraining intervals "
                   "(default 1000000; exit 4 when more are needed)")
    memory_option(d, text="with --over: the memory the list of retraining times may "
                  "take (default 4); exit 4 when it would take more")
    d.add_argument("--json", type=output_file, default=None, metavar="OUT.json",
                   help="also write the horizon (and each figure's) as JSON")
    return d


def add_machine(verify_subparsers: Any) -> ArgumentParser:
    """Add ``machine`` to the ``markone verify`` group."""
    m = add_command(verify_subparsers, "machine", help=purpose("verify machine"),
                    description="Per R-unit: learnable at all (exact certificate), end "
                    "stops never reached for any order (Novikoff or exact search) or a "
                    "stream that reaches them, and whether end stops then block "
                    "learning (the clipped Novikoff ball proves they never do, or a "
                    "stream run on the machine shows that they do); timing and quantisation.",
                    example=EXAMPLES, func=_machine,
                    exits={EXIT_OK: "learns for every order (--recheck: nothing refuted)",
                           EXIT_NO: "does not (--recheck: a claim refuted)",
                           EXIT_UNDECIDED: "not decided within the budget or time limit"})
    m.add_argument("task", metavar="letters|RUN.json",
                   help="the letters task, or a machine run saved with --log "
                   "(`markone machine train --log --out run.json`), as it ended: its "
                   "faults and trained weights")
    m.add_argument("--chars", default="ABCD", help="letters (classes) of the task")
    m.add_argument("--per-class", type=positive_int, default=3, help="figures per letter")
    m.add_argument("--typeface", choices=("block", "serif"), default="block",
                   help="the letters' typeface")
    m.add_argument("--weight-range", type=nonnegative_int, default=None, metavar="K",
                   help="end stops at +/-K motor steps (0: none; default the "
                   "machine's +/-50)")
    m.add_argument("--exposure", type=positive_float, default=None, metavar="SECONDS",
                   help="judge this exposure time (default: wait until settled)")
    m.add_argument("--seed", type=nonnegative_int, default=0,
                   help="wiring, figures and searches")
    m.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="stop searching after about this long (default: no time "
                   "limit, only budgets of work, so the report does not depend on "
                   "the clock)")
    add_physics_options(m)
    add_fault_options(m)
    m.add_argument("--json", type=output_file, default=None, metavar="OUT.json",
                   help="also write the report as JSON")
    m.add_argument("--recheck", default=None, metavar="REPORT.json",
                   help="instead of checking, re-check a saved report (--json) on this "
                   "task: every number in its evidence verified (witnesses, "
                   "certificates, streams, cycles, centres: in exact arithmetic and on "
                   "a copy of the machine) or recomputed, and each verdict the one its "
                   "evidence implies; exit 1 if any claim is refuted, 2 if the report "
                   "is malformed or about other figures or another machine (the "
                   "parameter that differs is named)")
    return m
