"""The ``markone`` command: a thin layer that parses arguments and calls the library.

Each subcommand lives in its own module, in the layer it belongs to (``train`` and
``machine`` here, the ``verify`` and ``adversary`` commands in :mod:`verify.cli`,
``sim`` and ``demo`` in :mod:`sims.cli`), and exposes ``register(subparsers)``, which
adds its parser and sets ``func`` (called with the parsed arguments; it returns the
exit status). This package is the framework they share and sits below them: it names
their modules only in the strings of its table, never in an import. Heavy modules are imported inside
``func``. The table :data:`markone.cli._commands.COMMANDS` lists the subcommands (and
the ``verify`` actions) with their one-line purposes, so a command line builds the
parser of the command it names only, and ``markone --help`` imports no subcommand's
module at all.

Every command ends with one of the exit statuses of :mod:`markone.cli._errors`
(0 holds / done, 1 does not hold, 2 bad input or options, 3 a bug in markone, 4 not
decided within the budget or time limit); its ``--help`` ends with the ones it can end
with (``add_command(..., exits=...)``). A closed pipe (``| head``) ends the printing,
not the work: the command runs to its end, writes every file it was asked for, then
ends quietly with status 141 (:mod:`markone.cli._stdout`).
Errors raised as ``ValueError``, ``TypeError``, ``OSError`` or :class:`CommandError`
are printed to stderr as one line in command-line terms, with exit status 2; any other
exception is a bug: one line says so and where its traceback was written (status 3).
Code the user hands over (``--impl``) runs through :func:`call_user_code`. ``--debug``
shows every traceback instead.
"""

from __future__ import annotations

import argparse
import decimal
import os
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn
from pathlib import Path

from markone._internal.lazy import lazy_exports
from markone._internal.signals import Terminated, sigterm_raises
from markone._version import __version__
from markone.cli._commands import COMMANDS, add_commands, purpose
from markone.cli._errors import (EXIT_NO, EXIT_OK, EXIT_PIPE,  # noqa: F401
                                 EXIT_STATUS_HELP, EXIT_TERMINATED, EXIT_UNDECIDED,
                                 EXIT_USAGE, JOB_EXITS, USER_ERRORS, CommandError,
                                 UserCodeError, call_user_code, cli_terms, exit_line,
                                 one_line, remember_timeout, report_bug,
                                 report_user_code)
from markone.cli._stdout import guarded_stdout, stdout_failure_status

if TYPE_CHECKING:
    from markone._internal.typing import JSONDict, PathLike

__all__ = ["main", "build_parser", "CommandError", "SUBCOMMANDS", "add_command", "add_group",
           "read_tagged_json", "call_user_code", "UserCodeError", "Parser",
           "positive_int", "nonnegative_int", "positive_float", "nonnegative_float",
           "probability",
           "plural", "data_options", "load_data", "needs_exact", "cli_terms", "one_line",
           "output_file", "output_folder", "timeout_left", "memory_option",
           "budget_and_timeout", "purpose", "EXIT_OK", "EXIT_NO", "EXIT_UNDECIDED",
           "JOB_EXITS"]

#: Re-exported for the subcommands, imported on first use: markone._internal.io imports
#: numpy, which ``markone --help`` does without.
__getattr__, __dir__ = lazy_exports(__name__, {"plural": "markone._internal.io"}, set())

#: Subcommand modules, in the order ``markone --help`` lists them.
SUBCOMMANDS = tuple(COMMANDS)

EPILOG = f"""\
examples:
  markone demo                         the tour: Mark I, certificates, bounds, XOR
  markone train data.csv               train a perceptron on a CSV (last column = label)
  markone verify separable data.csv    exact separability verdict with certificate
  markone machine demo letters         the Mark I learning letters
  markone sim run novikoff             reproduce a textbook figure

Every subcommand has --help with an example. Data files: CSV, or separated by
semicolons, tabs or spaces (found by themselves, or --delimiter), with or without a
header line; .npz with arrays X and y, or a scipy.sparse.save_npz file of [X, y]
(labels last; X stays sparse); or a built-in name (xor, parity3, iris).

{EXIT_STATUS_HELP}
"""

class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {one_line(message)} (see "
                  f"`{self.prog} --help`)\n")

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        """As argparse's, but an argument no option takes is refused by the command
        it was given to (``markone train: error: unrecognized arguments: --out o.json
        (see `markone train --help`)``), not by ``markone`` itself."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command: argparse.ArgumentParser = self
            for word in getattr(parsed, "prog", self.prog).split()[1:]:
                command = next(a for a in command._actions if isinstance(
                    a, argparse._SubParsersAction)).choices[word]
            command.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


def _number_type(convert: Callable[[str], Any], name: str, ok: Callable[[Any], bool],
                 rule: str) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"{text!r} is not {name}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{text!r} must be {rule}")
        return value
    parse.__name__ = name
    return parse


def _finite_float(text):
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(text)
    return value


_INT_MAX = 2**63 - 1


def _whole(text: str) -> int:
    """``int(text)``; a whole number not written in digits (``1e3``, ``2.0``) is
    refused with the digits to write, not called "not a whole number".

    >>> _whole("12"), _whole(" 7 ")
    (12, 7)
    >>> _whole("1e3")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '1e3' is 1000, but whole numbers are written in digits here: write 1000
    """
    try:
        return int(text)
    except ValueError:
        try:
            d = decimal.Decimal(text.strip())
        except decimal.InvalidOperation:
            raise ValueError(text) from None
        if d.is_finite() and abs(d.adjusted()) <= 18 and d == d.to_integral_value():
            raise argparse.ArgumentTypeError(
                f"{text!r} is {int(d)}, but whole numbers are written in digits here: "
                f"write {int(d)}") from None
        raise

#: argparse types: whole numbers >= 1 / >= 0 (below 2**63), finite numbers > 0 / >= 0.
positive_int = _number_type(_whole, "a whole number", lambda v: 1 <= v <= _INT_MAX,
                            "at least 1 and below 2**63")
nonnegative_int = _number_type(_whole, "a whole number", lambda v: 0 <= v <= _INT_MAX,
                               "0 or more and below 2**63")
positive_float = _number_type(_finite_float, "a finite number", lambda v: v > 0,
                              "greater than 0")
nonnegative_float = _number_type(_finite_float, "a finite number", lambda v: v >= 0,
                                 "0 or more")
#: argparse type: a probability strictly between 0 and 1.
probability = _number_type(_finite_float, "a finite number", lambda v: 0 < v < 1,
                           "strictly between 0 and 1")


def output_file(text: str) -> str:
    """argparse type: a file to write, checked when the options are read (not a
    folder, no file where a folder must be), so that no work is lost to a bad path.

    >>> output_file("results/run.json")
    'results/run.json'
    """
    from markone._internal.io import check_output_file

    try:
        check_output_file(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    _takes_new_files(text, Path(text).absolute().parent)
    return text


def _takes_new_files(text: str, folder: Path) -> None:
    """Refuse the output ``text`` (argparse's error) when ``folder``, or the nearest
    folder above it that exists, takes no new file (read-only, not the user's, a
    pseudo file system such as ``/proc``): tried by creating and removing an empty
    hidden file there when the options are read, so no work is done only to be lost
    at the end. The atomic write at the end stays: this is only the early check.
    """
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    probe = folder / f".markone-write-check-{os.getpid()}"
    try:
        os.close(os.open(probe, os.O_CREAT | os.O_WRONLY, 0o600))
        os.unlink(probe)
    except OSError as exc:
        raise argparse.ArgumentTypeError(
            f"cannot write {text}: the folder {folder} takes no new file "
            f"({exc.strerror or exc}); give a path in a folder you can write.") from None


def output_folder(text: str) -> str:
    """argparse type: a folder to write files into (new, or one that exists), checked
    when the options are read: not a file, and no file where a folder above it must be.

    >>> output_folder("results/run-1")
    'results/run-1'
    """
    path = Path(text)
    if not text.strip():  # Path("") is "." (the current folder), not an empty name
        raise argparse.ArgumentTypeError("the output folder name is empty; give one, "
                                         "e.g. results.")
    for folder in (path, *path.absolute().parents):
        if folder.exists():
            if not folder.is_dir():
                raise argparse.ArgumentTypeError(
                    f"cannot write into {text}: {folder} is a file, not a folder; give "
                    "a folder (new or existing).")
            break
    _takes_new_files(text, path.absolute())
    return text


#: argparse type: a number in [0, 1] (a fraction of parts, a probability).
unit_fraction = _number_type(_finite_float, "a finite number", lambda v: 0 <= v <= 1,
                             "a fraction in [0, 1]")


class HelpFormatter(argparse.RawDescriptionHelpFormatter,
                    argparse.ArgumentDefaultsHelpFormatter):
    """Keeps hand-written examples as they are and shows defaults that say something
    (not None, False, ``[]`` or a required argument's; a default of 0 is shown), and names a
    whole number's value ``N`` where no metavar was given (``--seed SEED`` keeps its
    name), as the options that give one do.

    >>> p = argparse.ArgumentParser(prog="p", formatter_class=HelpFormatter)
    >>> _ = p.add_argument("--per-class", type=positive_int, default=5)
    >>> _ = p.add_argument("--seed", type=nonnegative_int, default=0, help="seed")
    >>> print(p.format_usage(), end="")
    usage: p [-h] [--per-class N] [--seed SEED]
    >>> "(default: 0)" in p.format_help()
    True
    """

    def _get_help_string(self, action):
        if action.default is None or action.default is False or action.required or \
                action.default == []:        # a repeatable option given no value
            return action.help
        return super()._get_help_string(action)

    def _get_default_metavar_for_optional(self, action):
        if action.type in (positive_int, nonnegative_int) and action.dest != "seed":
            return "N"
        return super()._get_default_metavar_for_optional(action)


def build_parser(only: str | Sequence[str] | None = None) -> Parser:
    """Return the ``markone`` argument parser: the full one (used by the CLI reference
    docs), or, with ``only`` the words of a command line (options left out; a single
    subcommand's name will do), the parsers that command line needs and no more: the
    named subcommand's (and in ``verify``, the named action's), or one-line stubs of
    them all when none is named, as for ``markone --help`` (see
    :func:`markone.cli._commands.add_commands` and docs/start-up.md)."""
    parser = Parser(
        prog="markone",
        description="markone: Rosenblatt's Mark I Perceptron [HayWightman1960] "
        "emulated, perceptron "
        "theory verified, classic experiments reproduced.",
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"markone {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show full tracebacks instead of one-line errors")
    parser.add_argument("--verbose", action="store_true",
                        help="say what a slow first run is doing (compiling, building "
                        "the Coq checker) even when stderr is not a terminal")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    words = [only] if isinstance(only, str) else only
    add_commands(sub, COMMANDS, words)
    return parser


def _command_words(argv: Sequence[str]) -> list[str]:
    """The words of ``argv`` that are not options: the command's path comes first.

    >>> _command_words(["--debug", "verify", "separable", "and.csv", "--svm"])
    ['verify', 'separable', 'and.csv']
    """
    return [str(a) for a in argv if not str(a).startswith("-")]


#: A stop can land while a progress bar draws its line, before the bar knows it was
#: shown (tqdm's first display): the bar then leaves its line unfinished and the
#: message would follow it on that line. On a terminal the message first goes back to
#: the line's start and clears it (ANSI "erase to the end of the line"); after a bar
#: that ended its line, that clears only the "^C" the terminal echoed.
_LINE_CLEARED = "\r\x1b[K"


def _stopped(prog: str, args: argparse.Namespace, exc: BaseException) -> int:
    """Say on stderr that Ctrl-C (``exc`` a KeyboardInterrupt, status 130) or SIGTERM
    (status 143) stopped the command, that no file was left half written, and what
    the command's ``when_stopped`` default adds (how to resume); return the status."""
    why, status = (("interrupted (Ctrl-C)", 130) if isinstance(exc, KeyboardInterrupt)
                   else ("terminated (SIGTERM)", EXIT_TERMINATED))
    on_a_terminal = getattr(sys.stderr, "isatty", lambda: False)()
    print(f"{_LINE_CLEARED if on_a_terminal else ''}"
          f"{prog}: {why}; nothing half written was left behind"
          f"{getattr(args, 'when_stopped', '')}", file=sys.stderr)
    return status


def _stop_behind(exc: BaseException) -> BaseException | None:
    """The Ctrl-C or SIGTERM that ``exc`` was raised while unwinding, if any: a
    library's cleanup can fail on a stop (matplotlib's GIF writer, stopped before its
    first frame, raises IndexError in its ``finish``), and the stop is still the cause.

    >>> try:
    ...     try:
    ...         raise KeyboardInterrupt
    ...     finally:
    ...         [][0]
    ... except IndexError as exc:
    ...     type(_stop_behind(exc)).__name__
    'KeyboardInterrupt'
    >>> _stop_behind(ValueError("bad input")) is None
    True
    """
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, (KeyboardInterrupt, Terminated)):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``markone`` console script; returns the exit status."""
    words = _command_words(sys.argv[1:] if argv is None else argv)
    try:
        # building the parser imports the command's module (numpy, numba: a second or
        # more): Ctrl-C in there is a stop as anywhere else, not a traceback
        parser = build_parser(words)
        args = parser.parse_args(argv)
    except KeyboardInterrupt as exc:
        return _stopped("markone", argparse.Namespace(), exc)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0 if args.command is None else EXIT_USAGE
    prog = getattr(args, "prog", "markone")
    args.started = time.perf_counter()  # --timeout counts from here, loading included
    try:
        from markone._internal.exact import MAX_DIGITS, digit_limit
        if args.verbose:
            from markone._internal.progress import VERBOSE
            VERBOSE[0] = True
        # a failing stdout (| head, | grep -q) ends the printing, not the command:
        # every file asked for is written whole before the status below says so
        with guarded_stdout() as stdout, sigterm_raises(), warnings.catch_warnings(), \
                digit_limit(getattr(args, "max_digits", None) or MAX_DIGITS):
            warnings.showwarning = _warning_printer(prog)
            status = args.func(args)
    except (KeyboardInterrupt, Terminated) as exc:
        return _stopped(prog, args, exc)
    except Exception as exc:  # noqa: BLE001 - sorted out below
        stop = _stop_behind(exc)
        if stop is not None and not args.debug:
            return _stopped(prog, args, stop)
        if args.debug and not isinstance(exc, UserCodeError):
            raise  # the full traceback, from where it was raised
        return _failed(prog, exc)
    if stdout.failure is not None:
        return stdout_failure_status(prog, stdout.failure)
    return 0 if status is None else int(status)


def _failed(prog: str, exc: Exception) -> int:
    """Report ``exc``, which ended the command: the user's code's error, a user error
    (one line, status 2) or a bug in markone (status 3)."""
    if isinstance(exc, UserCodeError):
        return report_user_code(prog, exc)
    if isinstance(exc, USER_ERRORS):
        print(f"{prog}: error: {cli_terms(one_line(exc))}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(exc, MemoryError):   # the job asked for, not a bug: say how to shrink it
        said = f" ({one_line(exc)})" if str(exc) else ""
        print(f"{prog}: error: out of memory{said}: the job needs more memory than this "
              "computer has; make it smaller (fewer runs, machines or figures, smaller "
              "settings).", file=sys.stderr)
        return EXIT_USAGE
    return report_bug(prog, exc)


def _warning_printer(prog):
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"{prog}: warning: {cli_terms(one_line(message))}",
              file=sys.stderr if file is None else file)
    return show


def add_command(sub: Any, name: str, *, help: str, description: str, example: str,
                func: Callable[[argparse.Namespace], Any],
                exits: dict[int, str] | None = None) -> argparse.ArgumentParser:
    """Add one subcommand parser with a one-line purpose and an example epilog.

    ``exits`` maps the verdict statuses the command can end with (0, 1, 4) to its own
    words; its help ends with them (:func:`markone.cli._errors.exit_line`). None: the
    command may end with any status of the table.
    """
    examples = (f"example:\n  {example}" if "\n" not in example else "examples:\n"
                + "\n".join(line if line.startswith(" ") else "  " + line
                             for line in example.splitlines()))
    p = sub.add_parser(
        name,
        help=help,
        description=f"{help}\n\n{description}".rstrip(),
        epilog=f"{examples}\n\n{exit_line(exits)}",
        formatter_class=HelpFormatter,
    )
    p.set_defaults(func=func, prog=p.prog)
    return p


def add_group(sub: Any, name: str, *, help: str, description: str, example: str,
              metavar: str = "ACTION") -> tuple[argparse.ArgumentParser, Any]:
    """Add a subcommand with actions of its own; return ``(parser, actions)``.

    Called without an action, the group prints its help and exits with status 2.
    """
    def usage(args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p = add_command(sub, name, help=help, description=description, example=example,
                    func=usage)
    return p, p.add_subparsers(dest=f"{name}_command", metavar=metavar)


def read_tagged_json(path: PathLike, fmt: str, *, what: str, how: str) -> JSONDict:
    """Read a JSON document whose ``"format"`` field must be ``fmt``.

    Anything else raises :class:`CommandError` saying the file is not ``what`` and
    ``how`` to make one.
    """
    from markone._internal.io import read_json

    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise CommandError(f"{path} is not {what} (expected format {fmt!r}); {how}.")
    return doc


def data_options(p: argparse.ArgumentParser, *, label: bool = True, what: str = "FILE"
                 ) -> None:
    """Add the data-file argument and ``--label``/``--delimiter``/``--header`` to ``p``."""
    from markone._internal.exact import MAX_DIGITS

    p.add_argument("file", metavar=what, help="CSV (or ; tab space separated) data "
                   "file, .npz with arrays X and y (or a scipy.sparse.save_npz file of "
                   "[X, y], labels last), or a built-in name: xor, parity3, iris")
    if label:
        p.add_argument("--label", default=None, metavar="COL",
                       help="label column: header name or 0-based index, negative from "
                       "the end (default: the last column)")
    p.add_argument("--delimiter", default=None, metavar="SEP",
                   help="cell separator: comma, semicolon, tab, whitespace or one "
                   "character (default: found from the file)")
    p.add_argument("--header", default=None, action=argparse.BooleanOptionalAction,
                   help="whether the first line names the columns (default: found "
                   "from the file)")
    p.add_argument("--max-digits", type=positive_int, default=MAX_DIGITS, metavar="N",
                   help="longest number a cell may hold, in digits written out in full "
                   "(the exponent counts: 1e400 has 401); longer cells are refused")


#: The least time left that --timeout hands to a search (the search then stops at
#: once, saying that the time limit stopped it).
_LEAST_TIMEOUT_S = 1e-3


def memory_option(p: argparse.ArgumentParser, text: str | None = None) -> None:
    """Add ``--max-memory GB`` (the library's ``max_memory_gb``): by default, work
    whose estimated memory is beyond it is refused before it starts (exit status 2);
    ``text`` is the help of a command that uses the limit in another way."""
    p.add_argument("--max-memory", type=positive_float, default=None, metavar="GB",
                   help=text or "refuse, before starting, work that could need more "
                   "memory than this (default 4)")


def budget_and_timeout(p: argparse.ArgumentParser, budget: str, timeout: str, *,
                       unit: str = "UNITS") -> None:
    """Add ``--budget UNIT`` (a count of work, default none) and ``--timeout SECONDS``
    (default none), with their helps ``budget`` and ``timeout``.

    >>> p = argparse.ArgumentParser()
    >>> budget_and_timeout(p, "work", "time", unit="WORDS")
    >>> p.parse_args(["--budget", "5"])
    Namespace(budget=5, timeout=None)
    """
    p.add_argument("--budget", type=positive_int, default=None, metavar=unit, help=budget)
    p.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help=timeout)


def timeout_left(args: argparse.Namespace) -> float | None:
    """``--timeout`` less the time the command has taken so far (reading the data
    included), as the library's ``timeout_s``; None without ``--timeout``."""
    timeout = getattr(args, "timeout", None)
    if timeout is None:
        return None
    spent = time.perf_counter() - getattr(args, "started", time.perf_counter())
    left = max(timeout - spent, _LEAST_TIMEOUT_S)
    remember_timeout(left, timeout)   # messages name the --timeout given, not this
    return left


def load_data(args: argparse.Namespace, *, exact: bool | None = None,
              fix: str | None = None) -> tuple[Any, Any]:
    """``(X, y)`` of the data options added by :func:`data_options`.

    ``exact`` as in :func:`markone.datasets.load_table` (None: float64 when float64
    holds every cell exactly, the exact cells otherwise); with ``exact=False`` a cell
    that float64 would round is an error whose remedy is ``fix`` (the command's way
    out, in flag terms)."""
    from markone._table import InexactCell, load_table

    try:
        X, y = load_table(args.file, label=getattr(args, "label", None),
                          delimiter=args.delimiter, header=args.header, exact=exact)
    except InexactCell as exc:
        raise (exc.with_fix(fix) if fix else exc) from None
    _two_classes_of_a_builtin(args.file, y)
    return X, y


#: How to save two classes of iris as a table (docs/command-line.md, "Files the
#: examples use"): setosa against versicolor, in millimetres, labels -1/+1 last.
IRIS_PAIR_TO_CSV = ("python -c \"from markone.datasets import iris; import numpy as np; "
                    "X, y = iris(); np.savetxt('data.csv', np.c_[10 * X[y < 2], "
                    "2 * y[y < 2] - 1], fmt='%.0f', delimiter=',')\"")


def _two_classes_of_a_builtin(source: str, y: Any) -> None:
    """Refuse a built-in data set of more than two classes (iris) naming what to do:
    the commands learn two classes, and ``--label``, which the general message
    suggests for a table, does not apply to a built-in name."""
    import numpy as np

    from markone._table import BUILTIN_TABLES

    classes = np.unique(np.asarray(y))
    if len(classes) <= 2 or Path(source).exists() or \
            str(source).lower() not in BUILTIN_TABLES:
        return
    raise CommandError(
        f"{source} has {len(classes)} classes ({', '.join(map(str, classes))}), but "
        "this command learns two; save two of them as a table and give its name: "
        f"{IRIS_PAIR_TO_CSV} writes setosa against versicolor to data.csv (in Python, "
        "markone.MulticlassPerceptron learns all three).")


def rounded_note(texts: Any, *, what: str, where: str) -> str | None:
    """The note that follows numbers written by
    :func:`~markone._internal.exact.fraction_shown` when one is too long to read and
    shown rounded (``about ...``): ``where`` (``--json OUT writes``, or the file that
    holds them) has every ``what`` exactly. None when every one is exact.

    >>> rounded_note(["-2/5", "about 1.03543e-334"], what="weight", where="--json OUT writes")
    "note: a weight too long to read is shown rounded to 6 significant digits ('about ...'); --json OUT writes every weight exactly."
    """
    if not any(text.startswith("about ") for text in texts):
        return None
    return (f"note: a {what} too long to read is shown rounded to 6 significant digits "
            f"('about ...'); {where} every {what} exactly.")


def needs_exact(X: Any) -> str | None:
    """A note when ``X`` (as :func:`load_data` read it) holds numbers that float64
    cannot hold exactly, so a float command must compute exactly; else None."""
    import numpy as np

    from markone._internal.exact import describe_number, exactly_float64, float64_of
    from markone._internal.validation import is_sparse

    if is_sparse(X) or exactly_float64(X) is not None:
        return None
    for (i, j), v in np.ndenumerate(np.asarray(X, dtype=object)):
        try:
            if float64_of(v) is None:
                return (f"sample {i + 1}, feature {j + 1} is {describe_number(v)}, which "
                        "float64 cannot hold exactly")
        except (TypeError, ValueError):
            break
    return "the data are not exactly float64"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
