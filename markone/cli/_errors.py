"""How the ``markone`` command ends: exit statuses, one-line errors, bug reports.

Every command follows one convention, written once in :data:`EXIT_STATUSES`:
``markone --help`` prints it (:data:`EXIT_STATUS_HELP`), every command's ``--help``
ends with the statuses that command can end with, in its own words
(:func:`exit_line`), and ``docs/command-line.md`` shows the same table (a test
compares them). A reader that closes the pipe early (``markone machine params | head
-2``) ends its printing, not its work (:mod:`markone.cli._stdout`): the files it was
asked for are written, then it ends quietly with :data:`EXIT_PIPE`.

Library messages speak Python (``variant='pocket'``, ``max_epochs=``); on the command
line they are rewritten by :func:`cli_terms` into flags (``--variant pocket``,
``--max-epochs``). Code that the user hands to a command (``--impl module:function``)
runs through :func:`call_user_code`, so that an exception inside it is shown with its
own traceback, marked as the user's, instead of being taken for a bug in markone.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import textwrap
import time
import traceback

from markone.errors import MarkoneError

__all__ = ["EXIT_OK", "EXIT_NO", "EXIT_USAGE", "EXIT_BUG", "EXIT_UNDECIDED", "EXIT_PIPE",
           "EXIT_TERMINATED", "EXIT_STATUSES", "EXIT_STATUS_HELP", "JOB_EXITS", "TRAINING_EXITS", "exit_line", "CommandError", "UserCodeError", "call_user_code", "cli_terms", "USER_ERRORS",
           "report_bug", "report_user_code"]

EXIT_OK = 0     #: the claim holds / the job finished
EXIT_NO = 1     #: the claim does not hold
EXIT_USAGE = 2  #: bad input or options
EXIT_BUG = 3    #: an internal error: a bug in markone
EXIT_UNDECIDED = 4  #: not decided: a budget or time limit ran out before an answer
#: The reader closed the pipe (``| head``): 128 + SIGPIPE (13), the status a shell
#: reports for any Unix tool a closed pipe stopped; neither 0 nor 1, which would read
#: as a verdict about output that nobody read to the end.
EXIT_PIPE = 141
#: SIGTERM stopped the command (``kill``, a CI job's timeout): 128 + SIGTERM (15), after
#: removing what it had half written, as on Ctrl-C (130).
EXIT_TERMINATED = 143

#: The exit statuses of every command: ``(status, short words, meaning)``.
EXIT_STATUSES = (
    (EXIT_OK, "holds/done", "the claim holds / the job finished"),
    (EXIT_NO, "does not hold",
     "the claim does not hold (not separable, disagrees, did not converge)"),
    (EXIT_USAGE, "bad input or options",
     "the input or the options are wrong (one line on stderr says which)"),
    (EXIT_BUG, "bug in markone",
     "an internal error: a bug in markone (the traceback is written to a file)"),
    (EXIT_UNDECIDED, "not decided within the budget or time limit",
     "not decided: a budget or time limit ran out before an answer (the output says "
     "which)"),
)


#: The statuses of a command that does a job and claims nothing (writes, prints).
JOB_EXITS = {EXIT_OK: "done"}
#: The statuses of a command that trains (``train``, ``machine train``).
TRAINING_EXITS = {EXIT_OK: "converged",
                  EXIT_NO: "stopped at --max-epochs before an error-free pass"}


def _status_help():
    lines = ["exit status (every command):"]
    for status, _, meaning in EXIT_STATUSES:
        lines += textwrap.wrap(meaning, 76, initial_indent=f"  {status}  ",
                               subsequent_indent="     ")
    return "\n".join(lines + [
        "  A reader that closes the pipe early (| head) ends the printing, not the",
        "  work: every file asked for is written, then the command ends quietly",
        f"  with {EXIT_PIPE} (128 + SIGPIPE), as any Unix tool."])


#: The exit statuses as ``markone --help`` prints them.
EXIT_STATUS_HELP = _status_help()


def exit_line(own=None):
    """The last line of a command's ``--help``: the statuses it can end with.

    ``own`` maps the statuses of the verdict (0, 1, 4) that the command can end with
    to its own words; 2 and 3 are always possible and always say what
    :data:`EXIT_STATUSES` says. ``None``: every status, in the table's short words.

    >>> exit_line({0: "converged", 1: "stopped at --max-epochs"})
    'exit status: 0 converged, 1 stopped at --max-epochs, 2 bad input or options, 3 bug in markone (see markone --help)'
    """
    short = {status: words for status, words, _ in EXIT_STATUSES}
    if own is None:
        own = {s: w for s, w in short.items() if s not in (EXIT_USAGE, EXIT_BUG)}
    unknown = set(own) - {EXIT_OK, EXIT_NO, EXIT_UNDECIDED}
    if unknown:
        raise ValueError(f"a command's own exit statuses are among 0, 1 and 4, not "
                         f"{sorted(unknown)}: 2 and 3 mean the same for every command")
    words = {**own, EXIT_USAGE: short[EXIT_USAGE], EXIT_BUG: short[EXIT_BUG]}
    return ("exit status: " + ", ".join(f"{s} {words[s]}" for s in sorted(words))
            + " (see markone --help)")


class CommandError(MarkoneError):
    """A user-facing error: printed without traceback, exit status 2."""


#: Exceptions that mean "the input or the options are wrong" (exit status 2).
USER_ERRORS = (CommandError, ValueError, TypeError, OSError)


class UserCodeError(MarkoneError):
    """An exception raised inside code the user gave to a command (``--impl``).

    ``what`` names the code as the user wrote it (``"--impl mypkg:run"``), ``text`` is
    the traceback of the user's frames only, and ``status`` the exit status to end
    with (default 1: the user's code does not do what the command checks).
    """

    def __init__(self, what, text, status=EXIT_NO):
        super().__init__(f"{what} raised an exception")
        self.what, self.text, self.status = what, text, status


def call_user_code(what, func, *args, status=EXIT_NO, **kwargs):
    """Call ``func(*args, **kwargs)``, code the user gave as ``what``.

    An exception inside it becomes :class:`UserCodeError` carrying the traceback of
    the user's frames (markone's own calling frame is left out).

    >>> def users_run(X):
    ...     return X[10]
    >>> try:
    ...     call_user_code("--impl mine:users_run", users_run, [1, 2])
    ... except UserCodeError as exc:
    ...     print(exc.what, "->", exc.text.strip().splitlines()[-1])
    --impl mine:users_run -> IndexError: list index out of range
    """
    try:
        return func(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - anything the user's code raises
        tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
        text = "".join(traceback.format_exception(type(exc), exc, tb))
        raise UserCodeError(what, text, status) from None


# (pattern, replacement): Python phrasing in library messages -> command-line phrasing
_CLI_TERMS: list = [
    # an OSError as Python words it -> as a Unix tool does ("FILE: No such file ...")
    (r"\[Errno \d+\] ([^'\[\]]+?): '([^']+)'(?! ->)", r"\2: \1"),
    (r"\bsee verify\.check_cycling \(bounded weights\) or freund_schapire_bound\b",
     "see `markone verify cycling` (the weights stay bounded)"),
    (r"`markone verify separable` or verify\.check_separable", "`markone verify separable`"),
    (r"MarkI\(\.\.\.\)\.train\(\.\.\., log=True\)( and save it with run\.save\(path\))?",
     "`markone machine train --log --out RUN.json`"),
    (r"\buse intercept=True\b", "drop --no-intercept"),
    (r"\bintercept=True\b", "without --no-intercept"),
    (r"\bintercept=False\b", "--no-intercept"),
    (r"\bsvm=True\b", "--svm"),
    (r"\bvariant='(\w+)' or '(\w+)'", r"--variant \1 or --variant \2"),
    (r"\bvariant='(\w+)'", r"--variant \1"),
    (r"\btimeout_s=([\d.eE+-]+) s\b", lambda m: f"--timeout {given_timeout(m[1])} s"),
    (r"\b(a longer |raise )timeout_s\b", r"\1--timeout"),
    (r"\bbudget=(\d+)", r"--budget \1"),
    (r"\bmax_digits=(\d+)", r"--max-digits \1"),
    (r"\(with markone\.datasets\.digit_limit\(N\): \.\.\.\)", "with --max-digits N"),
    (r"\b(within |pass )timeout_s\b", r"\1--timeout"),
    (r"^chars is empty\b", "--chars is empty"),
    (r"\bchars='([^']*)'", r"--chars \1"),
    (r"\bjitter=(\d+)", r"--jitter \1"),
    (r"\bjitter <= ", "--jitter <= "),
    (r"\braise budget\b", "raise --budget"),
    (r"\blower budget\b", "lower --budget"),
    (r"\bmax_memory_gb=([\d.eE+-]+)", r"--max-memory \1"),
    (r"\bmax_memory_gb\b", "--max-memory"),
    (r"\braise draws\b", "raise --draws"),
    (r"MarkI\.train\(images, labels, order=(\w+), max_epochs=1\)",
     r"one pass of the \1 (saved by --json) on the machine"),
    (r"re-check with verify\.machine\.check_projected_ball", "re-check with --recheck"),
    (r"\bmax_epochs=(\d+)", r"--max-epochs \1"),
    (r"\b(raise|Raise) max_epochs\b", r"\1 --max-epochs"),
    (r"\bmethod='(\w+)'", r"--method \1"),
    (r"\bexact=True\b", "--exact"),
    (r"\blabel='(-?\d+)'", r"--label \1"),   # as typed: --label 0, not --label '0'
    (r"\blabel=(-?\d+|'[^']*')", r"--label \1"),
    (r"\blabel= ", "--label "),
    (r"\bdelimiter= ", "--delimiter "),
    (r"\bdelimiter=('[^']*')(?!\))", r"--delimiter \1"),  # not a call's last argument
    (r"; use MulticlassPerceptron for more\.",
     "; if another column holds the labels, name it with --label."),
    (r"^y has (\d+|only one) class", r"the labels have \1 class"),  # y: the Python name
    (r"MarkI\(\.\.\.\)\.train\(\.\.\.\)\.save\(path\) writes",
     "`markone machine train --out RUN.json` writes (the demo's is machine-run.json)"),
    (r"\bbut class_code='(\w+)' over\b", r"but the \1 class code over"),
    (r"\bmore R-units \(n_r_units\)", "more R-units (--set n_r_units=N)"),
    (r"\bclass_code='(\w+)'", r"--set class_code=\1"),
    (r"^dask\(='([^']*)'\) must be 'local'", r"--dask \1 must be 'local'"),
    (r"^host\(='([^']*)'\) must be a loopback", r"--host '\1' must be a loopback"),
    (r"\bheader=True\b", "--header"),
    (r"\bheader=False\b", "--no-header"),
    (r"\bchar\(='(.)'\) has no glyph", r"--chars: '\1' has no glyph"),
    (r"\bverify\.check_separable\b", "`markone verify separable`"),
    (r"\bverify\.check_cycling\b", "`markone verify cycling`"),
    (r"\bnp\.(?:u?int|float|str_|bool_|complex)\w*\(([^()]*)\)", r"\1"),  # numpy reprs
    (r"\s*\(pass classes=\[a, b\] to partial_fit[^)]*\)", ""),
    (r"\brerun check_separable\b", "rerun `markone verify separable`"),
    (r"\b(?:ReadLimits|CommandAdapter)[(.](max_\w+)(?:=\.\.\.\))?",  # verify check's, --cmd's
     lambda m: "--" + m.group(1).replace("_", "-")),
]
_CLI_TERMS = [(re.compile(p), r) for p, r in _CLI_TERMS]


#: The ``--timeout`` a user gave, by the ``timeout_s`` (as ``:g`` shows it) that was
#: left of it for the library once start-up and reading were paid: a message then
#: names the limit the user typed, not the remainder (#37).
_TIMEOUT_GIVEN: dict[str, float] = {}


def remember_timeout(left, given):
    """Record that ``left`` seconds of ``--timeout given`` went to the library."""
    _TIMEOUT_GIVEN[f"{left:g}"] = given


def given_timeout(shown):
    """The ``--timeout`` the user gave whose remainder a message shows as ``shown``.

    >>> remember_timeout(1.02327, 2.0)
    >>> given_timeout("1.02327"), given_timeout("7")
    ('2', '7')
    """
    given = _TIMEOUT_GIVEN.get(shown)
    return shown if given is None else f"{given:g}"


def cli_terms(message):
    """Rewrite the Python phrasing of a library message into command-line terms.

    >>> cli_terms("Raise max_epochs, or use variant='pocket' or 'averaged'.")
    'Raise --max-epochs, or use --variant pocket or --variant averaged.'
    >>> cli_terms("Remove it or use intercept=True.")
    'Remove it or drop --no-intercept.'
    >>> cli_terms("y has only one class (np.int64(5))")
    'the labels have only one class (5)'
    >>> cli_terms("more than max_memory_gb=4 allows; lower budget, or raise max_memory_gb.")
    'more than --max-memory 4 allows; lower --budget, or raise --max-memory.'
    >>> cli_terms("replay: MarkI.train(images, labels, order=stream, max_epochs=1)")
    'replay: one pass of the stream (saved by --json) on the machine'
    >>> cli_terms("labels have 9 classes but class_code='one_hot' over 8 R-units "
    ...           "represents at most 8; use fewer classes, more R-units (n_r_units) or "
    ...           "class_code='binary'.")
    'labels have 9 classes but the one_hot class code over 8 R-units represents at most 8; use fewer classes, more R-units (--set n_r_units=N) or --set class_code=binary.'
    >>> cli_terms("[Errno 2] No such file or directory: 'run.json'")
    'run.json: No such file or directory'
    """
    text = str(message)
    for pattern, repl in _CLI_TERMS:
        text = pattern.sub(repl, text)
    return text


def one_line(message):
    """A message as one line: newlines folded, surrounding space removed."""
    return " ".join(str(message).split())


def report_bug(prog, exc, stream=None):
    """Write the traceback of ``exc`` to a file and say, on one line, that it is a bug.

    Returns :data:`EXIT_BUG`.
    """
    stream = sys.stderr if stream is None else stream
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    where = _save_traceback(prog, text)
    stream.write(f"{prog}: internal error ({type(exc).__name__}: {one_line(exc)}): this "
                 f"is a bug in markone; the traceback is in {where}, please report it "
                 "with the command you ran.\n")
    return EXIT_BUG


def _save_traceback(prog, text):
    stamp = time.strftime("%Y%m%d-%H%M%S")
    fd, path = tempfile.mkstemp(prefix=f"markone-bug-{stamp}-", suffix=".txt")
    with os.fdopen(fd, "w") as fh:
        fh.write(f"command: {' '.join(sys.argv)}\nprogram: {prog}\n\n{text}")
    return path


def report_user_code(prog, exc, stream=None):
    """Show the traceback of the user's code, marked as theirs; return its status."""
    stream = sys.stderr if stream is None else stream
    stream.write(f"{prog}: error in your code ({exc.what}); its traceback follows "
                 "(not a bug in markone):\n")
    stream.write(exc.text if exc.text.endswith("\n") else exc.text + "\n")
    return exc.status
