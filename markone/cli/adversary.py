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

from markone.cli import add_command, add_group

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


def check_case(doc, impl):
    """Run ``impl(X, y, order)`` on a case document; return ``(agree, lines)``."""
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
    out = impl(X.copy(), y.copy(), order.copy())
    w = None
    if isinstance(out, tuple) and len(out) == 2:
        w, m = np.asarray(out[0], dtype=float).ravel(), int(out[1])
    else:
        m = int(out)
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
    print(f"case written to {args.out} ({len(a.order)} presentations)")
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
        from markone._io import load_table
        from verify.adversary import worst_order

        X, y = load_table(args.file, label=args.label, exact=method != "greedy")
        from markone._validation import encode_binary_labels

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

    from markone.cli import CommandError, read_tagged_json

    doc = read_tagged_json(args.case, CASE_FORMAT, what="a markone adversary case",
                           how="write one with `markone adversary orthonormal --out "
                           "CASE.json`")
    mod_name, sep, func_name = args.impl.partition(":")
    if not sep or not mod_name or not func_name:
        raise CommandError(f"--impl must look like module:function, got {args.impl!r}.")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        impl = getattr(importlib.import_module(mod_name), func_name)
    except (ImportError, AttributeError) as exc:
        raise CommandError(f"cannot load {args.impl!r}: {exc}") from exc
    agree, lines = check_case(doc, impl)
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
    o.add_argument("--m", type=int, default=10)
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
        q.add_argument("file", metavar="FILE", help="CSV (last column the label) or .npz")
        q.add_argument("--label", default=None, metavar="COL")
        q.add_argument("--no-intercept", action="store_true")
        q.add_argument("--budget", type=int, default=None,
                       help="greedy: updates; exhaustive: states; z3: longest stream")
        out_arg(q)

    lt = add_command(sub, "lattice", help="a small-margin family: integer points in "
                     "[-k, k]^d, the hardest of many draws, solved exhaustively",
                     description="Labels from random affine hyperplanes; the draw "
                     "with the largest (R/gamma)^2 is kept.",
                     example="markone adversary lattice --n 8 --d 3 --k 5 --out l.json",
                     func=_lattice)
    lt.add_argument("--n", type=int, default=8)
    lt.add_argument("--d", type=int, default=3)
    lt.add_argument("--k", type=int, default=5)
    lt.add_argument("--draws", type=int, default=200)
    lt.add_argument("--seed", type=int, default=0)
    lt.add_argument("--budget", type=int, default=None, help="most states to explore")
    out_arg(lt)

    c = add_command(sub, "check", help="run another implementation on a case",
                    description="IMPL is module:function with f(X, y, order) -> "
                    "(w, mistakes); X comes augmented with the constant 1 when the case "
                    "has an intercept. Exit 0 agree, 1 disagree.",
                    example="markone adversary check case.json --impl mypkg.perc:run",
                    func=_check)
    c.add_argument("case", metavar="CASE.json")
    c.add_argument("--impl", required=True, metavar="MODULE:FUNCTION")
    return p
