"""``markone verify bound`` and ``markone verify cycling``: theorems checked on data.

Plugged into the ``verify`` group by :mod:`markone.cli.verify`. Thin: parses arguments
and calls :func:`verify.check_mistake_bound`, :func:`verify.check_compression` and
:func:`verify.check_cycling`.
"""

from __future__ import annotations

from markone.cli import (CommandError, add_command, data_options, load_data,
                         nonnegative_int, plural, positive_int)

__all__ = ["register"]

BOUND_EXAMPLES = """\
  markone verify bound data.csv                       one run in the given order
  markone verify bound data.csv --order shuffle --runs 20 --seed 1"""

CYCLING_EXAMPLES = """\
  markone verify cycling xor                            the XOR cycle, exactly
  markone verify cycling xor --encoding 01 --order all  every order at once
  markone verify cycling parity3 --rule strict          the strict rule never moves
  markone verify cycling data.csv --budget 100000"""


def _bound(args):
    from verify.bounds import check_compression, check_mistake_bound

    X, y = load_data(args)
    intercept = not args.no_intercept
    order = args.order
    r = check_mistake_bound(X, y, order=order, runs=args.runs, seed=args.seed,
                            intercept=intercept)
    print(f"Novikoff: R = {r.R:.6g}, gamma = {r.gamma:.6g} ({r.gamma_source}), "
          f"bound (R/gamma)^2 = {r.bound:.6g}")
    print(f"mistakes over {plural(len(r.mistakes), 'run')}: max {max(r.mistakes)}, min "
          f"{min(r.mistakes)}; ratio to the bound {r.ratio:.4f}; held: {r.held}")
    c = check_compression(X, y, order=order, seed=args.seed, intercept=intercept)
    print(f"compression: the {c.mistakes} mistakes ({len(c.support)} distinct examples) "
          f"replayed alone rebuild w: {c.reproduced}")
    return 0 if (r.held and c.reproduced) else 1


def _cycling(args):
    from pathlib import Path

    from verify.cycling import check_cycling

    if args.encoding != "pm1":
        if Path(args.file).exists() or args.file not in ("xor", "parity3"):
            raise CommandError("--encoding applies to the built-in data sets xor and "
                               f"parity3, not to {args.file}.")
        args.file = f"{args.file}:{args.encoding}"
    X, y = load_data(args, exact=True)
    r = check_cycling(X, y, intercept=not args.no_intercept, order=args.order,
                      rule=args.rule, budget=args.budget)
    print(r.message)
    if r.order == "cyclic" and r.cycle and not r.converged:
        scale = "" if r.scale == 1 else f" (in units of 1/{r.scale})"
        print(f"the cycle{scale}: each weight vector, then the example it errs on")
        for w, i in zip(r.cycle, r.cycle_indices):
            print(f"  w = {list(w)}  -> update on example {i}")
    return 0 if r.complete else 1


def register(verify_subparsers):
    """Add ``bound`` and ``cycling`` to the ``markone verify`` group."""
    b = add_command(verify_subparsers, "bound",
                    help="run the perceptron and check Novikoff's (R/gamma)^2",
                    description="gamma is the certified max margin; each run must stay "
                    "within the bound (a violation is reported as a bug), and the "
                    "mistakes alone must rebuild the weights. Exit 0 when both hold.",
                    example=BOUND_EXAMPLES, func=_bound)
    data_options(b)
    b.add_argument("--order", choices=("given", "shuffle"), default="given",
                   help="presentation order of each pass")
    b.add_argument("--runs", type=positive_int, default=1,
                   help="runs to check (each in its own shuffled order)")
    b.add_argument("--seed", type=nonnegative_int, default=None,
                   help="seed of the shuffled orders")
    b.add_argument("--no-intercept", action="store_true",
                   help="no constant input (separator through the origin)")

    c = add_command(verify_subparsers, "cycling",
                    help="exact cycle of the perceptron on non-separable data",
                    description="Exact integer arithmetic. Cyclic order: transient and "
                    "period of the weight cycle. --order all: every weight vector "
                    "reachable in any order (finite: the cycling theorem). Exit 0, or 1 "
                    "when the budget stopped the search.",
                    example=CYCLING_EXAMPLES, func=_cycling)
    data_options(c, what="FILE|xor|parity3")
    c.add_argument("--encoding", choices=("pm1", "01"), default="pm1",
                   help="inputs of the built-in data sets: -1/+1 or 0/1")
    c.add_argument("--order", choices=("cyclic", "all"), default="cyclic",
                   help="cyclic: the same order every pass; all: every order at once")
    c.add_argument("--rule", choices=("nonstrict", "strict"), default="nonstrict",
                   help="mistake when y w.x <= 0 (markone) or < 0")
    c.add_argument("--budget", type=positive_int, default=1_000_000,
                   help="at most this many updates (cyclic) or states (all)")
    c.add_argument("--no-intercept", action="store_true", help="no constant input")
