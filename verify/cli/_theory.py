"""``markone verify bound|cycling|proofs``: theorems checked on data, and proved.

Each action is added to the ``verify`` group by its own function (``add_proofs``,
``add_bound``, ``add_cycling``; :mod:`markone.cli._commands` names them). Thin: parses arguments
and calls :func:`verify.check_mistake_bound`, :func:`verify.check_compression`,
:func:`verify.check_cycling` and :func:`verify.proofs.check_all`.
"""

from __future__ import annotations

import math
import os
from argparse import ArgumentParser
from typing import Any
from pathlib import Path

from markone.cli import (CommandError, add_command, budget_and_timeout, cli_terms,
                         data_options, load_data, memory_option, needs_exact, nonnegative_int,
                         output_file, output_folder,
                         plural,
                         positive_float, positive_int, timeout_left)
from markone.cli import purpose
from markone.cli import EXIT_NO, EXIT_OK, EXIT_UNDECIDED

__all__ = ["add_proofs", "add_bound", "add_cycling"]

BOUND_EXAMPLES = """\
  markone verify bound data.csv                       one run in the given order
  markone verify bound data.csv --order shuffle --runs 20 --seed 1"""

#: States the bound's search of every order may visit by default: parity3 needs 48,562,
#: and a search this small stays in numpy (``verify.cycling._PLAIN_STATES``), so the
#: bound never waits for numba's compiler.
BOUND_STATES = 1 << 16

#: Passes of each run of ``verify bound`` and of its compression check at most (the
#: same run must be judged by both): ``check_mistake_bound``'s default budget.
BOUND_PASSES = 100_000

CYCLING_EXAMPLES = """\
  markone verify cycling xor                            the XOR cycle, exactly
  markone verify cycling xor --encoding 01 --order all  every order at once
  markone verify cycling parity3 --rule strict          the strict rule never moves
  markone verify cycling data.csv --budget 100000
  markone verify cycling data.csv --budget 10000000 --max-memory 16   a long cycle
  markone verify cycling xor --certificate cycle.json   save the cycle
  markone verify check cycle.json                       run it again from scratch"""


def _bound(args):
    from verify.bounds import check_compression, check_mistake_bound

    if args.order == "given" and (args.runs > 1 or args.seed is not None):
        # never run the one given order N times, nor drop the seed, in silence (#37)
        given = f"--runs {args.runs}" if args.runs > 1 else f"--seed {args.seed}"
        raise CommandError(f"{given} applies to shuffled orders: add --order shuffle "
                           "(the given order is one run, the same every time).")
    X, y = load_data(args)
    why = needs_exact(X)
    if why is not None:
        print(f"note: {why}; the runs are exact (rational arithmetic).")
    intercept, order, exact = not args.no_intercept, args.order, why is not None
    r = check_mistake_bound(X, y, order=order, runs=args.runs, seed=args.seed,
                            intercept=intercept, exact=exact, max_epochs=BOUND_PASSES,
                            per_run=False)   # a tally: --runs 10**8 in constant memory
    print(_novikoff_line(r))
    t = r.tally
    counts = f"mistakes over {plural(t.runs, 'run')}: max {t.most}, min {t.fewest}"
    if not r.converged:
        print(f"{counts} so far; not decided: a run stopped at {BOUND_PASSES:,} passes "
              "without an error-free pass, so its total of mistakes is not known")
        return EXIT_UNDECIDED
    print(f"{counts}; ratio to the bound {r.ratio:.4f}; held: {r.held}")
    c = check_compression(X, y, order=order, seed=args.seed, intercept=intercept,
                          exact=exact, max_epochs=BOUND_PASSES)
    print(f"compression: the {plural(c.mistakes, 'mistake')} "
          f"({plural(len(c.support), 'distinct example')}) "
          f"re-run alone {'rebuilds' if c.mistakes == 1 else 'rebuild'} w: {c.reproduced}")
    return EXIT_OK if (r.held and c.reproduced) else EXIT_NO


def _novikoff_line(r):
    """R, gamma and the bound of a :class:`verify.bounds.MistakeBoundReport`, or
    that they lie beyond float64's range (they are never printed as inf or 0)."""
    if math.isfinite(r.bound) and r.gamma > 0:
        return (f"Novikoff: R = {r.R:.6g}, gamma = {r.gamma:.6g} ({r.gamma_source}), "
                f"bound (R/gamma)^2 = {r.bound:.6g}")
    return ("Novikoff: R or gamma lies beyond float64's range, so the bound (R/gamma)^2 "
            "is too large for it (`markone verify separable` gives an exact bound)")


def _cycling(args):
    from markone._internal.io import counted
    from verify.cycling import check_cycling

    X, y = _cycling_data(args)
    r = check_cycling(X, y, intercept=not args.no_intercept, order=args.order,
                      rule=args.rule, budget=args.budget, timeout_s=timeout_left(args),
                      max_memory_gb=args.max_memory)
    print(cli_terms(r.message))
    if r.order == "cyclic" and r.cycle and not r.converged:
        scale = "" if r.scale == 1 else f" (in units of 1/{r.scale})"
        print(f"the cycle{scale}: each weight vector, then the example it errs on")
        for w, i in zip(r.cycle, r.cycle_indices):
            print(f"  w = {list(w)}  -> update on {counted(i)}")
    if r.order == "cyclic" and r.rule == "nonstrict" and r.complete and args.bound_states:
        print(_bound_line(X, y, r, args))
    if args.certificate:
        _write_cycle(args, X, y, r)
    return EXIT_OK if r.complete else EXIT_UNDECIDED


def _cycling_data(args):
    """``(X, y)`` of ``verify cycling``, its flags checked together first."""
    if args.certificate and args.order != "cyclic":
        raise CommandError("--certificate applies to --order cyclic (the cycle of one "
                           "run); drop --order all or --certificate.")
    if args.encoding is not None:   # given: never dropped in silence (xor:01 --encoding pm1)
        if args.file in ("xor:01", "parity3:01") and not Path(args.file).exists():
            raise CommandError(f"--encoding {args.encoding} given with {args.file}, which "
                               "already names 0/1 inputs; drop one of the two.")
        if Path(args.file).exists() or args.file not in ("xor", "parity3"):
            raise CommandError(f"--encoding {args.encoding} applies to the built-in data "
                               f"sets xor and parity3 (-1/+1 unless --encoding 01), not to "
                               f"{args.file}; drop it.")
        if args.encoding == "01":
            args.file = f"{args.file}:01"
    return load_data(args, exact=True)


def _bound_line(X, y, r, args):
    """The cycling theorem's bound on the cyclic run (``cycle_bound``), compared."""
    from verify.cycling import cycle_bound
    from verify.errors import MemoryLimitError

    try:
        bound = cycle_bound(X, y, intercept=not args.no_intercept, budget=args.bound_states,
                            timeout_s=timeout_left(args), max_memory_gb=args.max_memory)
    except MemoryLimitError as exc:
        return f"no bound from the cycling theorem: {cli_terms(str(exc))}"
    if bound is None:
        return ("no bound from the cycling theorem: the search of every order stopped "
                f"at {args.bound_states:,} states (raise --bound-states or --timeout)")
    passes = r.transient_epochs + r.period_epochs
    if passes > bound:
        raise RuntimeError(f"BUG: transient + period = {passes} passes, more than the "
                           f"{bound} the cycling theorem allows; please report it.")
    return (f"the cycling theorem (Coq: cycling_closed): transient + period = "
            f"{plural(passes, 'pass', 'passes')} <= {bound}, the weight vectors "
            "reachable from zero in any order")


def _write_cycle(args, X, y, r):
    """Write the cycle's certificate to ``--certificate``, or say why there is none."""
    from markone._internal.io import atomic_write
    from verify.certificate import certificate_json, cycle_document
    from verify.cli.verify import _source

    if r.converged or not r.complete:
        why = "the run converged" if r.converged else "no cycle was found"
        print(f"no certificate written to {args.certificate}: {why}")
        return
    atomic_write(args.certificate, certificate_json(
        cycle_document(X, y, r, source=_source(args))))
    print(f"certificate written to {args.certificate} (check it: markone verify check "
          f"{args.certificate})")


PROOFS_EXAMPLES = """\
  markone verify proofs                          every obligation, Z3 and cvc5
  markone verify proofs --smt2 queries/          also save each query as SMT-LIB 2
  markone verify proofs --only novikoff.step novikoff.bound --solver cvc5"""


def _proofs(args):
    from verify.proofs import check_all, table

    _check_proofs_args(args)
    solvers = tuple(dict.fromkeys(args.solver or ("z3", "cvc5")))
    results = check_all(solvers=solvers, budget=args.budget, timeout_s=args.timeout,
                        smt2_dir=args.smt2, names=args.only)
    print(table(results))
    status = _proofs_summary(results, solvers)
    if args.smt2 is not None:
        print(f"SMT-LIB 2 queries written to {os.path.join(args.smt2, '')} (unsat = "
              "proved, sat = "
              "counterexample)")
    return status


def _check_proofs_args(args):
    """``--only`` names obligations (``--smt2`` is checked by :func:`output_folder`)."""
    from verify.proofs import OBLIGATIONS

    for name in args.only or ():
        if name not in OBLIGATIONS:
            raise CommandError(f"--only {name}: no such obligation; choose from "
                               f"{', '.join(OBLIGATIONS)}")


def _disagreements(decided):
    """The checks ``(name, wrong)`` on which the solvers' decided statuses differ."""
    agreed = {(r.name, r.wrong) for r in decided
              if all(q.status == r.status for q in decided
                     if (q.name, q.wrong) == (r.name, r.wrong))}
    return {(r.name, r.wrong) for r in decided} - agreed


def _proofs_summary(results, solvers):
    """Print the summary line of ``verify proofs``; return its exit status."""
    # an "unknown" (past --budget or --timeout) decides nothing: it is neither a wrong outcome nor
    # a disagreement, but leaves the run undecided (exit 4)
    decided = [r for r in results if r.status != "unknown"]
    unknown = len(results) - len(decided)
    bad = [r for r in decided if not r.expected]
    disagree = _disagreements(decided)
    total = sum(r.time_s for r in results)
    print(f"{len(results)} checks ({len(solvers)} solver{'s' * (len(solvers) > 1)}), "
          f"{total:.1f} s of solver time: "
          + ("every obligation proved and every wrong variant refuted"
             if not bad and not disagree and not unknown else
             f"{len(bad)} unexpected outcome(s), {len(disagree)} disagreement(s), "
             f"{unknown} undecided within --budget or --timeout"))
    return EXIT_NO if bad or disagree else EXIT_UNDECIDED if unknown else EXIT_OK


def add_proofs(verify_subparsers: Any) -> ArgumentParser:
    """Add ``proofs`` to the ``markone verify`` group."""
    pr = add_command(verify_subparsers, "proofs", help=purpose("verify proofs"),
                     description="Each theorem as base case, induction step and bound, "
                     "over the Gram matrix of its vectors (so for every dimension); "
                     "every part proved and a wrong variant refuted by each solver.",
                     example=PROOFS_EXAMPLES, func=_proofs,
                     exits={EXIT_OK: "every outcome as expected and the solvers agree",
                            EXIT_NO: "an unexpected outcome or a disagreement",
                            EXIT_UNDECIDED: "a query undecided within --budget or --timeout"})
    pr.add_argument("--smt2", default=None, metavar="DIR", type=output_folder,
                    help="save every query as an SMT-LIB 2 file in DIR")
    pr.add_argument("--solver", action="append", choices=("z3", "cvc5"),
                    help="solver to run (repeat for both; default both)")
    pr.add_argument("--only", nargs="+", metavar="NAME", help="these obligations only")
    budget_and_timeout(pr, "the solver's resource units per query (its deterministic "
                       "rlimit; default 20 million for z3, 1 million for cvc5); past it "
                       "the status is unknown", "a time limit per query, only when "
                       "given; past it the status is unknown")
    return pr


def add_bound(verify_subparsers: Any) -> ArgumentParser:
    """Add ``bound`` to the ``markone verify`` group."""
    b = add_command(verify_subparsers, "bound", help=purpose("verify bound"),
                    description="gamma is the certified max margin; each run must stay "
                    "within the bound (a violation is reported as a bug), and the "
                    "mistakes alone must rebuild the weights.",
                    example=BOUND_EXAMPLES, func=_bound,
                    exits={EXIT_OK: "both hold", EXIT_NO: "the weights are not rebuilt",
                           EXIT_UNDECIDED: f"a run did not converge within {BOUND_PASSES:,} "
                           "passes"})
    data_options(b)
    b.add_argument("--order", choices=("given", "shuffle"), default="given",
                   help="presentation order of each pass")
    b.add_argument("--runs", type=positive_int, default=1,
                   help="runs to check (each in its own shuffled order)")
    b.add_argument("--seed", type=nonnegative_int, default=None,
                   help="seed of the shuffled orders")
    b.add_argument("--no-intercept", action="store_true",
                   help="no constant input (separator through the origin)")
    return b


def add_cycling(verify_subparsers: Any) -> ArgumentParser:
    """Add ``cycling`` to the ``markone verify`` group."""
    c = add_command(verify_subparsers, "cycling", help=purpose("verify cycling"),
                    description="Exact integer arithmetic. Cyclic order: transient and "
                    "period of the weight cycle. --order all: every weight vector "
                    "reachable in any order (finite: the cycling theorem).",
                    example=CYCLING_EXAMPLES, func=_cycling,
                    exits={EXIT_OK: "decided", EXIT_UNDECIDED: "--budget, --timeout "
                           "or --max-memory stopped the search"})
    data_options(c, what="FILE|xor|parity3")
    c.add_argument("--encoding", choices=("pm1", "01"),
                   help="inputs of the built-in data sets xor and parity3: -1/+1 (pm1, "
                   "their default) or 0/1 (the same as xor:01, parity3:01)")
    c.add_argument("--order", choices=("cyclic", "all"), default="cyclic",
                   help="cyclic: the same order every pass; all: every order at once")
    c.add_argument("--rule", choices=("nonstrict", "strict"), default="nonstrict",
                   help="mistake when y w.x <= 0 (markone) or < 0")
    c.add_argument("--budget", type=positive_int, default=1_000_000,
                   help="at most this many updates (cyclic) or states (all; also what "
                   "bounds its memory)")
    c.add_argument("--bound-states", type=nonnegative_int, default=BOUND_STATES,
                   metavar="N", help="cyclic order: compare the cycle with the cycling "
                   "theorem's bound, the weight vectors reachable in any order, searched "
                   f"up to N states (at most about a second and 0.1 GB; 0: no bound)")
    c.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="stop the search after about this long (exit 4, what was found "
                   "so far)")
    c.add_argument("--no-intercept", action="store_true", help="no constant input")
    c.add_argument("--certificate", type=output_file, default=None, metavar="OUT.json",
                   help="--order cyclic: write the cycle (the data, the transient, the "
                   "period and its updates) for `markone verify check` to run again")
    memory_option(c, text="the memory the search may keep (default 4). --order all: "
                  "a --budget whose states could need more is refused before starting "
                  "(exit 2). cyclic: the states kept (their digits counted) and the "
                  "presentations run again are counted as the search goes, and it stops "
                  "before they would need more (exit 4, what was found so far); raise "
                  "it, e.g. --max-memory 16, for long cycles of wide or huge numbers")
    return c
