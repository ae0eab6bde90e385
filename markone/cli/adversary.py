"""``markone adversary``: export worst-case streams, and test other perceptrons on them.

``markone adversary NAME --out CASE.json`` writes a self-contained test case: the data,
the stream (``order``), the number of mistakes the textbook perceptron makes on it, its
final weights and Novikoff's bound. ``markone adversary check CASE.json --impl
module:function`` runs another implementation on the case and reports agreement.

The implementation is a function ``f(X, y, order) -> (w, mistakes)``:

* ``X``: float64 array (n, d'), the inputs *already augmented* with the constant 1 when
  the case has an intercept, so ``f`` needs only the homogeneous rule;
* ``y``: int64 array of -1/+1 labels;
* ``order``: int64 array, the stream of example indices, presented once;
* returns the final weight vector (length d') and the number of updates, starting
  from ``w = 0`` and updating ``w += y_i x_i`` whenever ``y_i w.x_i <= 0``. Returning
  only the number of mistakes (an int) is accepted too.
"""

from __future__ import annotations

from markone.cli import (add_command, add_group, call_user_code, data_options, load_data,
                         nonnegative_int, plural, positive_int)

__all__ = ["register", "CASE_FORMAT", "case_document", "check_case"]

#: The ``format`` tag of case files.
CASE_FORMAT = "markone.adversary/1"

EXAMPLES = """\
  markone adversary orthonormal --m 10 --out ortho10.json   the bound met exactly
  markone adversary greedy data.csv --out hard.json          scales to thousands
  markone adversary exhaustive small.csv --out worst.json    true maximum (integers)
  markone adversary lattice --seed 1 --out lattice.json      a small-margin family
  markone adversary check worst.json --impl mypkg.perc:run   test your perceptron"""


def case_document(a, name):
    """The JSON document of an :class:`verify.AdversarialOrder` (see the module doc)."""
    return {
        "format": CASE_FORMAT,
        "name": name,
        "method": a.method,
        "X": a.X,
        "y": a.y,
        "intercept": a.intercept,
        "order": list(a.order),
        "expected_mistakes": a.mistakes,
        "expected_w": a.w,
        "bound": a.bound,
        "R": a.R,
        "gamma": a.gamma,
        "complete": a.complete,
        "rule": "start at w = 0; on example i, if y_i w.x_i <= 0 then w += y_i x_i "
                "(x_i augmented with a constant 1 when intercept is true)",
    }


def check_case(doc, impl, what=None):
    """Run ``impl(X, y, order)`` on a case document; return ``(agree, lines)``.

    With ``what`` (how the user named ``impl``, e.g. ``"--impl mypkg:run"``), an
    exception inside ``impl`` or a result of the wrong kind is reported as the user's
    (:class:`markone.cli.UserCodeError`).
    """
    import numpy as np

    from markone.perceptron import augment

    try:
        X = np.asarray(doc["X"], dtype=float)
        y = np.asarray(doc["y"], dtype=np.int64)
        order = np.asarray(doc["order"], dtype=np.int64)
        want_m = int(doc["expected_mistakes"])
        want_w = np.asarray(doc["expected_w"], dtype=float)
        intercept = bool(doc["intercept"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"the case is missing or has a malformed field: {exc}") from exc
    X = augment(X, intercept)
    if what is None:
        out = impl(X.copy(), y.copy(), order.copy())
    else:
        out = call_user_code(what, impl, X.copy(), y.copy(), order.copy())
    w = None
    try:
        if isinstance(out, tuple) and len(out) == 2:
            w, m = np.asarray(out[0], dtype=float).ravel(), int(out[1])
        else:
            m = int(out)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{what or 'the implementation'} returned {type(out).__name__} "
                         f"{str(out)[:60]}; it must return (w, mistakes) or mistakes."
                         ) from None
    lines = [f"mistakes: expected {want_m}, got {m}"]
    agree = m == want_m
    if w is not None:
        same = w.shape == want_w.shape and np.allclose(
            w, want_w, rtol=1e-9, atol=1e-9 * max(1.0, float(np.abs(want_w).max())))
        lines.append(f"final w: {'agrees' if same else 'differs'} "
                     f"(expected {want_w.tolist()[:6]}, got {w.tolist()[:6]})")
        agree = agree and same
    return agree, lines


def _write(args, a, name):
    from markone._io import write_json

    write_json(args.out, case_document(a, name))
    print(a.message)
    print(f"case written to {args.out} ({plural(len(a.order), 'presentation')})")
    return 0


def _orthonormal(args):
    from verify.adversary import orthonormal_case

    labels = None if args.labels is None else [1 if c == "+" else -1 for c in args.labels]
    if labels is not None and (len(labels) != args.m or set(args.labels) - {"+", "-"}):
        raise ValueError(f"--labels must be {args.m} characters of + and -, "
                         f"got {args.labels!r}.")
    return _write(args, orthonormal_case(args.m, labels=labels), "orthonormal")


def _search(method):
    def run(args):
        from markone._validation import encode_binary_labels
        from verify.adversary import worst_order

        X, y = load_data(args, exact=method != "greedy")
        ypm, _ = encode_binary_labels(y, allow_single=True)
        a = worst_order(X, ypm, intercept=not args.no_intercept, method=method,
                        budget=args.budget)
        return _write(args, a, f"{method}:{args.file}")
    return run


def _lattice(args):
    from verify.adversary import small_margin_lattice, worst_order

    X, y = small_margin_lattice(args.n, args.d, args.k, draws=args.draws, seed=args.seed)
    a = worst_order(X, y, method="exhaustive", budget=args.budget)
    return _write(args, a, f"lattice:n={args.n},d={args.d},k={args.k},seed={args.seed}")


def _check(args):
    import importlib
    import os
    import sys

    from markone.cli import CommandError, UserCodeError, read_tagged_json

    doc = read_tagged_json(args.case, CASE_FORMAT, what="a markone adversary case",
                           how="write one with `markone adversary orthonormal --out "
                           "CASE.json`")
    mod_name, sep, func_name = args.impl.partition(":")
    if not sep or not mod_name or not func_name:
        raise CommandError(f"--impl must look like module:function, got {args.impl!r}.")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    what = f"--impl {args.impl}"
    try:
        module = call_user_code(what, importlib.import_module, mod_name, status=2)
    except UserCodeError as exc:
        if "ModuleNotFoundError" in exc.text and mod_name in exc.text.splitlines()[-1]:
            raise CommandError(f"cannot load {args.impl!r}: no module named {mod_name!r} "
                               "(run from the folder that holds it, or add it to "
                               "PYTHONPATH).") from None
        raise
    impl = getattr(module, func_name, None)
    if not callable(impl):
        raise CommandError(f"cannot load {args.impl!r}: module {mod_name!r} has no "
                           f"function {func_name!r}.")
    agree, lines = check_case(doc, impl, what)
    for line in lines:
        print(line)
    print(f"{'AGREE' if agree else 'DISAGREE'}: {args.impl} on {args.case} "
          f"({doc.get('name', '?')})")
    return 0 if agree else 1


def register(subparsers):
    """Add ``markone adversary`` (orthonormal, greedy, exhaustive, z3, lattice, check)."""
    p, sub = add_group(
        subparsers, "adversary",
        help="worst-case streams as test cases, and checks of other perceptrons",
        description="Write a case (data, stream, expected mistakes and weights, bound) "
        "or check an implementation f(X, y, order) -> (w, mistakes) against one "
        "(exit 0 agree, 1 disagree).",
        example=EXAMPLES, metavar="NAME")

    def out_arg(q):
        q.add_argument("--out", required=True, metavar="CASE.json",
                       help="where to write the case (atomically)")

    o = add_command(sub, "orthonormal", help="e_1..e_m: exactly m = (R/gamma)^2 mistakes",
                    description="R = 1, gamma = m^-1/2, no intercept.",
                    example="markone adversary orthonormal --m 10 --out o.json",
                    func=_orthonormal)
    o.add_argument("--m", type=positive_int, default=10, help="number of examples")
    o.add_argument("--labels", default=None, metavar="+-+...",
                   help="labels as + and - characters (default all +)")
    out_arg(o)

    for method, what in (("greedy", "fast heuristics, thousands of points"),
                         ("exhaustive", "the true maximum over all streams (small "
                          "integer data)"),
                         ("z3", "bounded model checking with Z3 (small integer data)")):
        q = add_command(sub, method, help=f"worst stream on a data file: {what}",
                        description="The stream is replayed by the core to count "
                        "mistakes; the result is checked against Novikoff's bound.",
                        example=f"markone adversary {method} data.csv --out case.json",
                        func=_search(method))
        data_options(q)
        q.add_argument("--no-intercept", action="store_true",
                       help="no constant input (separator through the origin)")
        q.add_argument("--budget", type=positive_int, default=None,
                       help="greedy: updates; exhaustive: states; z3: longest stream")
        out_arg(q)

    lt = add_command(sub, "lattice", help="a small-margin family: integer points in "
                     "[-k, k]^d, the hardest of many draws, solved exhaustively",
                     description="Labels from random affine hyperplanes; the draw "
                     "with the largest (R/gamma)^2 is kept.",
                     example="markone adversary lattice --n 8 --d 3 --k 5 --out l.json",
                     func=_lattice)
    lt.add_argument("--n", type=positive_int, default=8, help="points")
    lt.add_argument("--d", type=positive_int, default=3, help="dimension")
    lt.add_argument("--k", type=positive_int, default=5,
                    help="coordinates are integers in [-k, k]")
    lt.add_argument("--draws", type=positive_int, default=200,
                    help="random draws; the hardest is kept")
    lt.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the draws")
    lt.add_argument("--budget", type=positive_int, default=None,
                    help="most states to explore")
    out_arg(lt)

    c = add_command(sub, "check", help="run another implementation on a case",
                    description="IMPL is module:function with f(X, y, order) -> "
                    "(w, mistakes); X comes augmented with the constant 1 when the case "
                    "has an intercept. Exit 0 agree, 1 disagree.",
                    example="markone adversary check case.json --impl mypkg.perc:run",
                    func=_check)
    c.add_argument("case", metavar="CASE.json", help="a case written by `markone "
                   "adversary NAME --out`")
    c.add_argument("--impl", required=True, metavar="MODULE:FUNCTION",
                   help="your implementation, importable from the current folder")
    return p
