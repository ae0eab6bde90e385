"""``markone train``: train a perceptron on a data file and print the result."""

from __future__ import annotations

from argparse import Namespace
from typing import Any
import warnings

from markone.cli import (add_command, cli_terms, data_options, load_data, needs_exact,
                         nonnegative_int, one_line, output_file, plural, positive_int,
                         rounded_note)
from markone.cli._commands import purpose
from markone.cli._errors import EXIT_NO, EXIT_OK, TRAINING_EXITS, CommandError
from markone.variants import VARIANTS

__all__ = ["register"]


def register(sub: Any) -> None:
    p = add_command(
        sub, "train",
        help=purpose("train"),
        description="Reads a table (one sample per line, the last column the label "
        "unless --label says otherwise; comma, semicolon, tab or space separated; an "
        "optional header line), a .npz file (arrays X and y, or a sparse [X, y] from "
        "scipy.sparse.save_npz) or a built-in data set. "
        "Labels may be any two values. Numbers are never rounded: when a cell is not "
        "exactly a float64 (0.1, 1e-400, 12345678901234567890), training is exact, as "
        "with --exact, and a note says so.",
        example="markone train data.csv --variant averaged --max-epochs 100 --json out.json",
        func=run, exits=TRAINING_EXITS,
    )
    data_options(p)
    p.add_argument("--no-intercept", action="store_true",
                   help="no appended constant: a separator through the origin")
    p.add_argument("--variant", default="last", choices=list(VARIANTS),
                   help="which weight vector predicts")
    p.add_argument("--max-epochs", type=positive_int, default=1000, help="passes at most")
    p.add_argument("--order", default="given", choices=["given", "shuffle"],
                   help="presentation order of each pass")
    p.add_argument("--seed", type=nonnegative_int, default=None,
                   help="seed for --order shuffle")
    p.add_argument("--exact", action="store_true",
                   help="exact rational arithmetic (weights printed as fractions, "
                   "rounded when too long to read: --json keeps them exact); chosen by "
                   "itself when a cell is not exactly a float64")
    p.add_argument("--json", type=output_file, metavar="OUT", default=None,
                   help="also write the full result as JSON (atomically)")


def run(args: Namespace) -> int:
    import markone
    from markone._internal.exact import fraction_shown
    from markone._internal.io import write_json

    if args.seed is not None and args.order != "shuffle":
        raise CommandError("--seed draws the order of --order shuffle, and the order is "
                           "given: add --order shuffle, or drop --seed.")
    X, y = load_data(args, exact=True if args.exact else None)
    why = None if args.exact else needs_exact(X)
    exact = args.exact or why is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", markone.ConvergenceWarning)
        res = markone.train(X, y, intercept=not args.no_intercept, variant=args.variant,
                            max_epochs=args.max_epochs, order=args.order, seed=args.seed,
                            exact=exact)
    number = fraction_shown if exact else (lambda v: repr(float(v)))
    coef, intercept = [number(v) for v in res.coef], number(res.intercept)
    print(f"data: {plural(len(y), 'sample')} x {plural(X.shape[1], 'feature')}; "
          f"{_classes(y, res.classes)}")
    if why is not None:
        print(f"note: {why}; trained in exact arithmetic (as with --exact).")
    if res.converged:
        print(f"converged after {plural(res.epochs, 'pass', 'passes')} with "
              f"{plural(res.mistakes, 'mistake')}")
    else:
        print(f"not converged: {plural(res.mistakes, 'mistake')} in "
              f"{plural(res.epochs, 'pass', 'passes')} (--max-epochs {args.max_epochs})")
    print(f"coef: {', '.join(coef) or '(none)'}")
    print(f"intercept: {intercept}")
    note = rounded_note([*coef, intercept], what="weight", where=f"{args.json} holds"
                        if args.json else "--json OUT writes")
    if note:
        print(note)
    _notes(args, caught, markone.ConvergenceWarning)
    if args.json:
        write_json(args.json, res)
        print(f"wrote {args.json}")
    return EXIT_OK if res.converged else EXIT_NO


def _notes(args, caught, convergence):
    """A note for each warning of the run (``convergence``: the class that says the
    run did not converge, with what to try)."""
    if any(issubclass(w.category, convergence) for w in caught):
        hint = ("" if args.variant in ("pocket", "averaged")
                else ", or use --variant pocket or --variant averaged")
        print(f"note: the data may not be linearly separable (check with `markone verify "
              f"separable {args.file}`); raise --max-epochs{hint}.")
    for w in caught:
        if not issubclass(w.category, convergence):
            print(f"note: {cli_terms(one_line(w.message))}")


def _classes(y, classes):
    """``'classes no -> -1, yes -> +1'``, or the one class a file holds."""
    present = set(y.tolist())
    shown = [(c, s) for c, s in zip(classes.tolist(), ("-1", "+1")) if c in present]
    if len(shown) == 1:
        return f"one class only ({shown[0][0]}, as {shown[0][1]})"
    return "classes " + ", ".join(f"{c} -> {s}" for c, s in shown)
