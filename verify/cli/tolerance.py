"""``markone verify tolerance``: what a trained Mark I tolerates, exactly (issue 42).

Thin: reads a saved run (its machine, faults, figures and trained weights) or trains
the machine the usual options build, prints the per-R-unit table of
:func:`verify.machine.theory.worst_case.worst_case` and writes the machine report
(with its ``worst_case`` claim) or re-checks one. Exit status: 0 every figure is
answered right (the tolerances are given), 1 some answer is already wrong (with
``--recheck``: a claim refuted), 2 bad input or a malformed report.
"""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any
import os

from markone.cli import (EXIT_NO, EXIT_OK, CommandError, add_command, nonnegative_int,
                         output_file, plural, positive_int, purpose)
from markone.cli.machine_options import (add_fault_options, add_physics_options,
                                          fault_request)

__all__ = ["add_tolerance", "table_text"]

EXAMPLES = """\
  markone verify tolerance letters --chars ABCD          train, then the exact table
  markone verify tolerance run.json                      a run saved with --log
  markone verify tolerance letters --chars AB --json report.json
  markone verify tolerance letters --chars AB --recheck report.json"""

_HEAD = ("R-unit", "tolerance", "whole steps", "stops cap it", "dead", "stuck at 1",
         "tolerance with k dead, k = 0, 1, ...")


#: Most A-units of a witness set, values of a table, named in a line.
_SHOWN = 6


def _row(u) -> tuple:
    from markone.hardware.runits import r_unit_name

    table = ", ".join(str(v) for v in u.tolerance_dead[:_SHOWN])
    if len(u.tolerance_dead) > _SHOWN:
        table += f", ... ({len(u.tolerance_dead)} values)"
    capped = f"yes ({u.with_stops})" if u.capped_by_stops else "no"
    return (r_unit_name(u.r_unit), str(u.tolerance), str(u.safe_steps), capped,
            str(u.dead), "any" if u.stuck is None else str(u.stuck), table)


def _units(units: tuple) -> str:
    """A witness set of A-units in words (the first few by number)."""
    from markone.hardware.runits import numbered

    if len(units) <= _SHOWN:
        return numbered("A-unit", list(units))
    first = ", ".join(str(j + 1) for j in units[:_SHOWN])
    return f"A-units {first} and {len(units) - _SHOWN} more (--json lists them)"


def _witness_line(u) -> str:
    from markone.hardware.runits import numbered, r_unit_name

    line = (f"{r_unit_name(u.r_unit)}: every potentiometer {u.tolerance} steps against "
            f"{numbered('figure', u.tolerance_figure)} makes it tie; "
            f"killing {_units(u.dead_units)} breaks {numbered('figure', u.dead_figure)}")
    if u.stuck is not None:
        line += (f"; sticking {_units(u.stuck_units)} at 1 breaks "
                 f"{numbered('figure', u.stuck_figure)}")
    if u.safe_steps >= 1:
        line += "; dead A-units allowed with every potentiometer off by s whole " \
                "steps: " + ", ".join(f"s = {s}: {u.dead_at(s)}"
                                       for s in range(min(u.safe_steps, _SHOWN) + 1))
    return line


def table_text(units: tuple) -> str:
    """The per-R-unit table and each R-unit's witnesses, in words (steps are motor
    steps; A-units and figures numbered from 1)."""
    rows = [_HEAD, *(_row(u) for u in units)]
    widths = [max(len(r[c]) for r in rows) for c in range(len(_HEAD))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines + [_witness_line(u) for u in units])


def _trained_letters(args):
    """The machine the options build, trained on the letters."""
    from verify.cli._machine import _break, _letters_task

    machine, images, labels = _letters_task(args)
    _break(machine, args)
    run = machine.train(images, labels, max_epochs=args.max_epochs)
    print(f"trained {plural(run.epochs, 'pass', 'passes')} on {plural(len(images), 'figure')}: "
          f"{'converged' if run.converged else 'not converged'}")
    return machine, images, labels


def _task(args):
    """``(machine, images, labels)``: the letters task trained, or a saved run."""
    letters = {"chars": "ABCD", "per_class": 3, "typeface": "block"}
    if args.task == "letters":
        for k, v in letters.items():
            setattr(args, k, v if getattr(args, k) is None else getattr(args, k))
        return _trained_letters(args)
    if not os.path.isfile(args.task):
        raise CommandError(f"{args.task} is not a file: give a run saved with --log "
                           "(`markone machine train --log --out run.json`) or "
                           "'letters'.")
    if any(getattr(args, k) is not None for k in letters) or args.settings \
            or args.ideal or args.weight_range is not None or any(
                getattr(args, a) is not None for a in ("topology", "rule", "noise")) \
            or fault_request(args) is not None:
        raise CommandError(f"{args.task} carries its figures, machine, faults and "
                           "weights: the letters, machine and fault options apply "
                           "to the letters task only.")
    from verify.cli._machine import saved_run

    return saved_run(args.task)


def _tolerance(args):
    from markone._internal.io import write_json
    from verify.cli._machine import _recheck, refuse_json_with_recheck
    from verify.machine.theory.worst_case import worst_case

    refuse_json_with_recheck(args)
    machine, images, labels = _task(args)
    if args.recheck is not None:
        code = _recheck(args.recheck, machine, images, labels)
        if args.checker == "coq":
            code = max(code, _coq_report(args.recheck, machine, images, labels))
        return code
    try:
        units = worst_case(machine, images, labels)
    except ValueError as exc:
        print(str(exc))
        return EXIT_NO
    print(table_text(units))
    if args.checker == "coq" and _coq_check(machine, images, labels, units) != EXIT_OK:
        return EXIT_NO
    if args.json:
        from verify.machine import check_machine

        write_json(args.json, check_machine(machine, images, labels,
                                            seed=args.seed).to_dict())
        print(f"report written to {args.json} (its worst_case claim holds these "
              "numbers and witnesses)")
    return EXIT_OK


def _coq_check(machine, images, labels, r_units) -> int:
    """Check ``r_units`` (the answers computed, or a report's evidence) with the
    checker extracted from the Coq proofs: EXIT_OK accepted, EXIT_NO refuted."""
    from verify.coq import build
    from verify.coq.tolerance import check_tolerance_with_coq
    from verify.errors import CertificateError, CoqUnavailable
    from verify.machine.task import machine_task
    from verify.machine.theory.worst_case import wired_potentiometers

    try:
        built = build()
    except CoqUnavailable as exc:
        raise CommandError(f"--checker coq: {exc}") from None
    task = machine_task(machine, images, labels)
    try:
        check_tolerance_with_coq(machine.weights, task.patterns, task.targets,
                                 wired_potentiometers(machine), r_units, built=built)
    except CertificateError as exc:
        print(f"refuted: {exc}")
        return EXIT_NO
    print("confirmed by the checker extracted from the Coq proofs (verify/coq/"
          "Tolerance.v): every tolerance, number of dead and stuck A-units, line of the "
          "table and witness")
    return EXIT_OK


def _coq_report(path, machine, images, labels) -> int:
    """The Coq checker on a saved report's worst_case claim (already re-checked)."""
    from verify.machine import load_report

    claim = load_report(path).get("worst_case")
    if not isinstance(claim, dict) or claim.get("holds") is not True:
        print("--checker coq: the report's worst_case claim does not hold, so there is "
              "no worst case for the Coq checker to check")
        return EXIT_OK
    return _coq_check(machine, images, labels, claim["evidence"]["r_units"])


def add_tolerance(verify_subparsers: Any) -> ArgumentParser:
    """Add ``tolerance`` to the ``markone verify`` group."""
    t = add_command(verify_subparsers, "tolerance", help=purpose("verify tolerance"),
                    description="Per R-unit of a trained machine, exactly: the largest "
                    "error delta on every potentiometer it uses with every training "
                    "figure still right (a tie counts wrong: every smaller delta is "
                    "safe, at delta the witness ties), in whole motor steps and whether "
                    "the end stops cap it; the most A-units that may die (output 0), "
                    "or stick at 1, with a witness set of one more and the figure it "
                    "breaks; and delta with k A-units dead. Independent potentiometers; "
                    "the machine's own weights.",
                    example=EXAMPLES, func=_tolerance,
                    exits={EXIT_OK: "every figure is answered right (--recheck: "
                           "nothing refuted)",
                           EXIT_NO: "some answer is already wrong (--recheck: a claim "
                           "refuted)"})
    t.add_argument("task", metavar="letters|RUN.json",
                   help="train on the letters task, or a run saved with --log "
                   "(`markone machine train --log --out run.json`)")
    t.add_argument("--chars", default=None, help="letters (classes) of the task "
                   "(default ABCD)")
    t.add_argument("--per-class", type=positive_int, default=None,
                   help="figures per letter (default 3)")
    t.add_argument("--typeface", choices=("block", "serif"), default=None,
                   help="the letters' typeface (default block)")
    t.add_argument("--weight-range", type=nonnegative_int, default=None, metavar="K",
                   help="end stops at +/-K motor steps (0: none; default the "
                   "machine's +/-50)")
    t.add_argument("--max-epochs", type=positive_int, default=50,
                   help="most training passes (letters)")
    t.add_argument("--seed", type=nonnegative_int, default=0,
                   help="wiring, figures and the report's searches")
    add_physics_options(t)
    add_fault_options(t)
    t.add_argument("--json", type=output_file, default=None, metavar="OUT.json",
                   help="also write the machine report (every claim, with the "
                   "worst_case claim) as JSON; it runs `verify machine`'s searches too")
    t.add_argument("--recheck", default=None, metavar="REPORT.json",
                   help="instead, re-check a saved report on this trained machine: the "
                   "witnesses run again, every bound recomputed exactly; exit 1 if a "
                   "claim is refuted, 2 if the report is malformed or about other "
                   "weights")
    t.add_argument("--checker", choices=("python", "coq"), default="python",
                   help="coq: also check the worst case (the one computed, or with "
                   "--recheck the report's) with the checker extracted from the Coq "
                   "proofs (verify/coq/Tolerance.v), proved sound; exit 1 if it refutes "
                   "it. python (default): markone's exact computation and re-check only")
    return t
