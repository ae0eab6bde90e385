"""``markone adversary``: export worst-case streams, and test other perceptrons on them.

``markone adversary NAME --out CASE.json`` writes a self-contained test case: the data,
the stream (``order``), the number of mistakes the textbook perceptron makes on it, its
final weights and Novikoff's bound. ``markone adversary suite --out DIR`` writes the
whole conformance suite (:mod:`verify.conformance`). ``markone adversary check
DIR_OR_CASE --impl SPEC`` (or ``--cmd "COMMAND"``) runs another implementation on a
suite or a case and reports, case by case, what differs and its cause (a misreading
of the rule that reproduces the answer, or "unexplained").

The simplest implementation is a function ``f(X, y, order) -> (w, mistakes)``:

* ``X``: float64 array (n, d'), the inputs *already augmented* with the constant 1 when
  the case has an intercept, so ``f`` needs only the homogeneous rule;
* ``y``: int64 array of -1/+1 labels;
* ``order``: int64 array, the stream of example indices, presented once;
* returns the final weight vector (length d') and the number of updates, starting
  from ``w = 0`` and updating ``w += y_i x_i`` whenever ``y_i w.x_i <= 0``. Returning
  only the number of mistakes (an int) is accepted too.
"""

from __future__ import annotations

from argparse import ArgumentParser
from typing import TYPE_CHECKING, Any
from pathlib import Path

from markone._internal.typing import JSONDict
from markone.cli import (CommandError, add_command, add_group, cli_terms, data_options,
                         load_data, memory_option, needs_exact, nonnegative_int,
                         output_file, output_folder, plural, positive_float, positive_int,
                         timeout_left)
from markone.cli import purpose
from markone.cli import EXIT_NO, EXIT_OK, EXIT_UNDECIDED, JOB_EXITS

if TYPE_CHECKING:
    from verify.adversary import AdversarialOrder

__all__ = ["register", "CASE_FORMAT", "case_document", "check_case",
           "show_implementation_error"]

#: The ``format`` tag of case files.
CASE_FORMAT = "markone.adversary/1"

#: A case file holds ``X`` as dense rows (what an implementation under test is given);
#: sparse data beyond this many entries (n x d) are refused before any search.
MAX_CASE_ENTRIES = 20_000_000

EXAMPLES = """\
  markone adversary orthonormal --m 10 --out ortho10.json   the bound met exactly
  markone adversary greedy data.csv --out hard.json          scales to thousands
  markone adversary exhaustive small.csv --out worst.json    true maximum (integers)
  markone adversary lattice --seed 1 --out lattice.json      a small-margin family
  markone adversary suite --out suite/                       the conformance suite
  markone adversary check suite/ --impl examples/perceptron.py:fit \\
      --profile arithmetic=float64                          test yours (float64)
  markone adversary check suite/ --cmd "node examples/perceptron.js"  any language"""


def case_document(a: AdversarialOrder, name: str) -> JSONDict:
    """The JSON document of an :class:`verify.AdversarialOrder` (see the module doc).

    Numbers are exact: ``X`` and ``expected_w`` hold JSON numbers where the data are
    float64, exact ``"p/q"`` strings where they are not (``"1/10"``, huge integers).
    """
    _fits_a_case(a.X)
    X = a.X.toarray() if hasattr(a.X, "toarray") else a.X  # a case file is a table
    return {
        "format": CASE_FORMAT,
        "name": name,
        "method": a.method,
        "X": X,
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


def _fits_a_case(X):
    """Refuse sparse data whose dense rows a case file could not hold."""
    n, d = X.shape if hasattr(X, "toarray") else (0, 0)
    if n * d > MAX_CASE_ENTRIES:
        raise CommandError(
            f"a case file holds X as dense rows, and this sparse X of shape {n} x {d} "
            f"would be {n * d:,} entries (at most {MAX_CASE_ENTRIES:,}); take fewer "
            "examples or features for a case, or use `markone verify separable FILE "
            "--certificate OUT.json`, whose files store sparse data by their non-zero "
            "entries.")


def check_case(doc: JSONDict, impl: Any) -> tuple[bool, list[str]]:
    """Run a Python implementation on one case document; return ``(agree, lines)``."""
    from verify.conformance import CASE_FORMAT as SUITE_CASE
    from verify.conformance import adapter_for, run_case
    from verify.conformance.protocol import from_legacy_case
    from verify.conformance.report import failure_lines

    case = doc if doc.get("format") == SUITE_CASE else from_legacy_case(doc)
    r = run_case(case, adapter_for(impl))
    return r.passed, list(r.details) + failure_lines(r)


#: The statuses of a search for the worst stream that can be cut short.
SEARCH_EXITS = {EXIT_OK: "the search is complete (the case holds the maximum)",
                EXIT_UNDECIDED: "--budget or --timeout stopped the search (the case "
                "holds the longest stream found)"}


def _write(args, a, name, bar=None):
    """Write the case ``a`` to ``--out`` (its rows of ``X`` counted on ``bar``, when
    given), then say what it holds; the exit status."""
    from markone._internal.io import write_json_rows
    from markone._internal.progress import QuietBar

    write_json_rows(args.out, case_document(a, name), "X", bar or QuietBar())
    print(cli_terms(a.message))
    print(f"case written to {args.out} ({plural(len(a.order), 'presentation')})")
    # a search cut short by --budget/--timeout has not decided the maximum (the case
    # holds the longest stream found); greedy never claims one, so it is done
    cut = not a.complete and a.method != "greedy"
    return EXIT_UNDECIDED if cut else EXIT_OK


#: Peak bytes per entry of the ``m`` x ``m`` matrix that ``adversary orthonormal``
#: builds and writes as JSON, one row at a time (measured: peak RSS 0.56 GB at
#: ``--m 4000``, 0.17 GB at 2000, 0.04 GB at 10: about 32 bytes an entry; the file
#: itself holds 11; written whole it was 2.1 GB at 4000).
ORTHONORMAL_BYTES_PER_ENTRY = 40


def _orthonormal(args):
    from markone._internal.memory import check_memory
    from markone._internal.progress import progress_bar
    from verify.adversary import orthonormal_case

    labels = None if args.labels is None else _signs(args.labels, args.m)
    m = args.m   # refused before it is built: --m 100000000 ended in a MemoryError
    check_memory(m * m * ORTHONORMAL_BYTES_PER_ENTRY, args.max_memory,
                 f"the case of --m {m} (X is {m} x {m}: {m * m:,} numbers, written out "
                 f"as JSON, a file of about {m * m * 11 / 1e9:.2g} GB)", "lower --m")
    # --m 4000 takes about 30 s, most of it writing m^2 numbers: a bar of the rows
    # written, from the start (the case is built first), as the other long commands
    with progress_bar(m, "adversary orthonormal", unit="row") as bar:
        return _write(args, orthonormal_case(m, labels=labels), "orthonormal", bar)


def _signs(text, m):
    """The labels ``--labels`` writes as ``+`` and ``-``, one per example of ``--m``.

    >>> _signs("+-+", 3)
    [1, -1, 1]
    >>> _signs("+-", 3)
    Traceback (most recent call last):
    ...
    ValueError: --labels has 2 labels, but --m 3 asks for 3 examples: give one + or - per example (3 characters), or --m 2.
    """
    bad = next((k for k, c in enumerate(text) if c not in "+-"), None)
    if bad is not None:
        raise ValueError(f"--labels holds {text[bad]!r} (character {bad + 1}): write "
                         "each label as + or -, e.g. --labels +-+.")
    if len(text) != m:
        other = f", or --m {len(text)}" if text else ""   # never --m 0, which is refused
        raise ValueError(f"--labels has {len(text)} labels, but --m {m} asks for {m} "
                         f"examples: give one + or - per example ({m} characters)"
                         f"{other}.")
    return [1 if c == "+" else -1 for c in text]


#: What ``adversary greedy`` says to do with a cell that float64 cannot hold.
GREEDY_FIX = ("the greedy search ranks the examples in float64: pass --exact to search "
              "on the nearest float64 values and count the stream's mistakes exactly "
              "on the values as written, or use `markone adversary exhaustive` or `z3` "
              "(exact throughout)")


def _search(method):
    def run(args):
        from markone._internal.validation import labels_to_pm1
        from verify.adversary import worst_order

        exact = method != "greedy" or args.exact
        X, y = load_data(args, exact=exact, fix=GREEDY_FIX)
        why = None if exact else needs_exact(X)  # (.npz arrays)
        if why is not None:
            raise CommandError(f"{args.file}: {why}; {GREEDY_FIX}.")
        _fits_a_case(X)  # before the search: nothing to write would be refused after
        ypm, _ = labels_to_pm1(y)
        a = worst_order(X, ypm, intercept=not args.no_intercept, method=method,
                        budget=args.budget, timeout_s=timeout_left(args),
                        max_memory_gb=getattr(args, "max_memory", None), exact=exact)
        return _write(args, a, f"{method}:{args.file}")
    return run


def _lattice(args):
    from verify.adversary import small_margin_lattice, worst_order

    X, y = small_margin_lattice(args.n, args.d, args.k, draws=args.draws, seed=args.seed)
    a = worst_order(X, y, method="exhaustive", budget=args.budget,
                    timeout_s=timeout_left(args), max_memory_gb=args.max_memory)
    return _write(args, a, f"lattice:n={args.n},d={args.d},k={args.k},seed={args.seed}")


def show_implementation_error(name: str, case_id: str, text: str) -> None:
    """Show on stderr what the implementation under test said when it failed (its
    traceback or stderr), marked as the user's code through the CLI's one mechanism
    (:func:`markone.cli.report_user_code`)."""
    from markone.cli import UserCodeError, report_user_code

    marked = "\n".join(f"  | {line}" for line in text.splitlines())
    report_user_code("markone adversary check",
                     UserCodeError(name, f"on case {case_id}:\n{marked}"))


def _suite(args):
    from verify.conformance import write_suite

    manifest = write_suite(args.out)
    print(f"suite version {manifest['suite_version']}: {len(manifest['cases'])} cases, "
          f"manifest.json and schema.json written to {args.out}")
    return 0


def _check(args):
    from verify.conformance import exit_status, load_cases, run_suite
    from verify.conformance.fit import fit_report
    from verify.conformance.suite import select_cases

    _check_check_args(args)
    cases = load_cases(args.target)
    adapter = _adapter(args)
    if args.cases is not None:
        cases = select_cases(cases, args.cases)
    profile, source = _profile(args, adapter)
    results = run_suite(cases, adapter, profile=profile)
    results, preface = fit_report(cases, results, adapter, profile, source)
    who = f"--impl {args.impl}" if args.impl is not None else f"--cmd {args.cmd}"
    name = f"{who} [profile {profile.describe()}, {source}]"
    if all(r.status == "n/a" for r in results):
        raise CommandError(f"none of the {len(results)} cases applies to {name}: "
                           f"{results[0].details[0]}.")
    for r in results:
        if r.status == "error" and r.error:
            show_implementation_error(who, r.id, r.error)
    _check_report(args, results, name, preface)
    return exit_status(results)


def _check_check_args(args):
    """Exactly one of ``--impl`` and ``--cmd``; ``--report`` a file, not a folder."""
    if (args.impl is None) == (args.cmd is None):
        raise CommandError("give exactly one of --impl MODULE:FUNCTION (or "
                           "path/to/file.py:FUNCTION) and --cmd \"COMMAND\".")
    if args.report is not None and Path(args.report).is_dir():
        raise CommandError(f"--report {args.report} is a folder; give a file name.")


def _adapter(args):
    """The implementation ``adversary check`` runs: a ``--cmd`` program within its
    limits, or the ``--impl`` function or estimator."""
    from markone.cli import UserCodeError
    from verify.conformance import CommandAdapter, load_impl
    from verify.errors import ImplementationError
    from verify.conformance.command import OutputLimits

    if args.cmd is not None:
        given = {name: getattr(args, name) for name in
                 ("max_output", "max_depth", "max_digits", "max_stderr_lines")
                 if getattr(args, name) is not None}
        return CommandAdapter(args.cmd, total_timeout_s=args.timeout,
                              limits=OutputLimits(**given))
    try:
        return load_impl(args.impl)
    except ImplementationError as exc:   # the user's module raised on import
        raise UserCodeError(f"--impl {args.impl}", exc.text or str(exc),
                            status=2) from None


def _check_report(args, results, name, preface):
    """Print the report in ``--format`` (or write it to ``--report`` and print the
    table)."""
    from verify.conformance import as_json, as_junit, as_table

    render = {"table": lambda: preface + as_table(results, name, show_errors=False) + "\n",
              "json": lambda: as_json(results, name),
              "junit": lambda: as_junit(results, name)}[args.format]
    text = render()
    if args.report is not None:
        from markone._internal.io import atomic_write

        atomic_write(args.report, text)
        print(as_table(results, name, show_errors=False))
        print(f"{args.format} report written to {args.report}")
    else:
        print(text, end="")


def _profile(args, adapter):
    """The profile to judge by, and where it came from: --profile, the program's
    handshake (--cmd), or none declared (exact arithmetic, everything claimed)."""
    from verify.conformance import CommandAdapter
    from verify.conformance.profile import Profile

    if args.profile is not None:
        return Profile.parse(args.profile), "from --profile"
    if isinstance(adapter, CommandAdapter):
        declared = adapter.declared_profile()
        if declared is not None:
            return declared, "declared in the handshake"
    return Profile(), "none declared"


def _out_arg(q):
    q.add_argument("--out", type=output_file, required=True, metavar="CASE.json",
                   help="where to write the case (atomically)")

def _timeout_arg(q):
    q.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="stop the search after about this long (the case then "
                   "holds the longest stream found, marked incomplete)")


def _add_orthonormal(sub):
    """``markone adversary orthonormal``."""
    o = add_command(sub, "orthonormal", help="e_1..e_m: exactly m = (R/gamma)^2 mistakes",
                    description="R = 1, gamma = m^-1/2, no intercept.",
                    example="markone adversary orthonormal --m 10 --out o.json",
                    func=_orthonormal, exits=JOB_EXITS)
    o.add_argument("--m", type=positive_int, default=10, help="number of examples")
    o.add_argument("--labels", default=None, metavar="+-+...",
                   help="labels as + and - characters (default all +)")
    memory_option(o)
    _out_arg(o)


#: What ``--budget`` counts in each search, and its default (verify.worst_order's).
SEARCH_BUDGETS = {
    "greedy": "most updates of each greedy rule's stream (default: 100000)",
    "exhaustive": "most weight vectors (states) to explore (default: 2000000)",
    "z3": "the longest stream asked about, one query per length (default: 40)",
}


def _add_searches(sub):
    """``markone adversary greedy|exhaustive|z3``: the worst stream on a data file."""
    for method, what in (("greedy", "fast heuristics, thousands of points"),
                         ("exhaustive", "the true maximum over all streams (small "
                          "integer data)"),
                         ("z3", "bounded model checking with Z3 (small integer data)")):
        q = add_command(sub, method, help=f"worst stream on a data file: {what}",
                        description="The stream is run again by the core to count "
                        "mistakes; the result is checked against Novikoff's bound.",
                        example=f"markone adversary {method} "
                        f"{'data' if method == 'greedy' else 'small'}.csv --out case.json",
                        func=_search(method),
                        exits=JOB_EXITS if method == "greedy" else SEARCH_EXITS)
        data_options(q)
        q.add_argument("--no-intercept", action="store_true",
                       help="no constant input (separator through the origin)")
        q.add_argument("--budget", type=positive_int, default=None,
                       help=SEARCH_BUDGETS[method])
        if method == "greedy":
            q.add_argument("--exact", action="store_true",
                           help="accept cells that float64 cannot hold exactly (0.1, "
                           "1/3): the search ranks by their nearest float64 values, the "
                           "case holds the values as written and its stream's mistakes "
                           "and weights counted exactly (without it such a cell is "
                           "refused)")
        if method == "exhaustive":
            memory_option(q)
        _timeout_arg(q)
        _out_arg(q)


def _add_lattice(sub):
    """``markone adversary lattice``."""
    lt = add_command(sub, "lattice", help="a small-margin family: integer points in "
                     "[-k, k]^d, the hardest of many draws, solved exhaustively",
                     description="Labels from random affine hyperplanes; the draw "
                     "with the largest (R/gamma)^2 is kept.",
                     example="markone adversary lattice --n 8 --d 3 --k 5 --out l.json",
                     func=_lattice, exits=SEARCH_EXITS)
    lt.add_argument("--n", type=positive_int, default=8, help="points")
    lt.add_argument("--d", type=positive_int, default=3, help="dimension")
    lt.add_argument("--k", type=positive_int, default=5,
                    help="coordinates are integers in [-k, k]")
    lt.add_argument("--draws", type=positive_int, default=200,
                    help="random draws; the hardest is kept")
    lt.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the draws")
    lt.add_argument("--budget", type=positive_int, default=None,
                    help=SEARCH_BUDGETS["exhaustive"])   # its search is exhaustive's
    memory_option(lt)
    _timeout_arg(lt)
    _out_arg(lt)


def _add_suite(sub):
    """``markone adversary suite``."""
    st = add_command(sub, "suite", help="write the conformance suite: manifest, "
                     "schema and one JSON file per case",
                     description="Each case pins one convention of the perceptron "
                     "(zero score, intercept, exact rationals, variants, multiclass "
                     "ties, kernel counts...) with the answer markone computes.",
                     example="markone adversary suite --out suite/", func=_suite,
                     exits=JOB_EXITS)
    st.add_argument("--out", type=output_folder, required=True, metavar="DIR",
                    help="a new (or empty) folder for the suite")


def _add_check(sub):
    """``markone adversary check``: another implementation on a suite or a case."""
    c = add_command(sub, "check", help="run another implementation on a suite or a case",
                    description="IMPL is module:function, path/to/file.py:function, a "
                    "scikit-learn estimator (partial_fit) or a River learner (learn_one); "
                    "a function is f(problem) -> answer or f(X, y, order) -> (w, "
                    "mistakes). --cmd runs a program: the problem as JSON on stdin, the "
                    "answer as JSON on stdout.",
                    example="markone adversary check suite/ --cmd \"node examples/perceptron.js\"",
                    func=_check, exits={EXIT_OK: "every case passes",
                                        EXIT_NO: "some case fails"})
    c.add_argument("target", metavar="DIR_OR_CASE",
                   help="a suite folder or one case file")
    c.add_argument("--impl", default=None, metavar="SPEC",
                   help="module:function or path/to/file.py:function (or an estimator)")
    c.add_argument("--cmd", default=None, metavar="COMMAND",
                   help="a program speaking JSON on stdin/stdout")
    c.add_argument("--profile", default=None, metavar="KEY=VALUE,...",
                   help="what the implementation claims: arithmetic=exact|float64|"
                   "float32, variants=last+averaged+voted+pocket, tasks=binary+"
                   "multiclass+kernel, intercept=yes|no, rate=0.1 (the learning rate, "
                   "default 1); cases outside it are not "
                   "applicable (default: a --cmd program's handshake, else exact and "
                   "everything)")
    c.add_argument("--cases", default=None, metavar="PATTERN,...",
                   help="run only the cases whose id or tag (task, variant, property, "
                   "intercept, exact-only) matches a shell pattern")
    c.add_argument("--format", choices=("table", "json", "junit"), default="table",
                   help="report format")
    c.add_argument("--report", type=output_file, default=None, metavar="FILE",
                   help="write the report to FILE (atomically) and print the table")
    c.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="--cmd: seconds allowed for all runs of the program together "
                   "(the handshake and every case: writing the problem, reading the "
                   "answer, its exit); a run still going then is stopped, the cases "
                   "left are not run (errors); default: no time limit")
    _add_check_limits(c)


def _add_check_limits(c):
    """``adversary check``'s limits of a ``--cmd`` program's output."""
    # defaults live in OutputLimits (not imported here: the CLI starts light);
    # tests/markone/cli check that these words match them
    for flag, what in (
            ("--max-output", "bytes a run may write on stdout and stderr together "
             "(default 16 MiB)"),
            ("--max-depth", "nesting depth of the JSON answer (default 64, at most 500)"),
            ("--max-digits", "digits of one number in the answer; a string's exponent "
             "counts: \"1e99999\" has 100,000 (default 4,000)"),
            ("--max-stderr-lines", "lines of the program's stderr shown when it fails; "
             "the rest are counted (default 40)")):
        c.add_argument(flag, type=positive_int, default=None, metavar="N",
                       help=f"--cmd: {what}")


def register(subparsers: Any) -> ArgumentParser:
    """Add ``markone adversary`` (orthonormal, greedy, exhaustive, z3, lattice, suite,
    check)."""
    p, sub = add_group(
        subparsers, "adversary",
        help=purpose("adversary"),
        description="Write a case (data, stream, expected mistakes and weights, bound) "
        "or the whole conformance suite, or check any implementation against them. "
        "Each command's --help ends with the exit statuses it can end with.",
        example=EXAMPLES, metavar="NAME")
    _add_orthonormal(sub)
    _add_searches(sub)
    _add_lattice(sub)
    _add_suite(sub)
    _add_check(sub)
    return p
