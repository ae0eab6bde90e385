"""``markone train``: train a perceptron on a CSV or .npz file and print the result."""

from __future__ import annotations

from markone.cli import add_command

__all__ = ["register"]


def register(sub):
    p = add_command(
        sub, "train",
        help="train a perceptron on a data file and print weights, mistakes and passes",
        description="Reads CSV (one sample per row, last column the label unless --label "
        "says otherwise; an optional header) or .npz (arrays X and y). Labels may be any "
        "two values. Exit status 0 when training converged, 1 when it stopped at "
        "--max-epochs, 2 on bad input.",
        example="markone train data.csv --variant averaged --max-epochs 100 --json out.json",
        func=run,
    )
    p.add_argument("file", help="CSV or .npz data file")
    p.add_argument("--label", default=None, help="label column: header name or 0-based index")
    p.add_argument("--no-intercept", action="store_true",
                   help="no appended constant: a separator through the origin")
    p.add_argument("--variant", default="last", choices=["last", "averaged", "voted", "pocket"],
                   help="which weight vector predicts")
    p.add_argument("--max-epochs", type=int, default=1000, help="passes at most")
    p.add_argument("--order", default="given", choices=["given", "shuffle"],
                   help="presentation order of each pass")
    p.add_argument("--seed", type=int, default=None, help="seed for --order shuffle")
    p.add_argument("--exact", action="store_true",
                   help="exact rational arithmetic (weights printed as fractions)")
    p.add_argument("--json", metavar="OUT", default=None,
                   help="also write the full result as JSON (atomically)")


def run(args):
    import warnings

    import markone
    from markone._io import load_table, write_json

    X, y = load_table(args.file, label=args.label, exact=args.exact)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", markone.ConvergenceWarning)
        res = markone.train(X, y, intercept=not args.no_intercept, variant=args.variant,
                            max_epochs=args.max_epochs, order=args.order, seed=args.seed,
                            exact=args.exact)
    print(f"data: {len(y)} samples x {len(X[0])} features, classes "
          f"{res.classes.tolist()} -> [-1, +1]")
    print(f"converged: {res.converged} after {res.epochs} passes, {res.mistakes} mistakes")
    print(f"coef: {[str(v) if args.exact else float(v) for v in res.coef]}")
    print(f"intercept: {res.intercept if args.exact else float(res.intercept)}")
    for w in caught:
        print(f"note: {w.message}")
    if args.json:
        write_json(args.json, res)
        print(f"wrote {args.json}")
    return 0 if res.converged else 1
