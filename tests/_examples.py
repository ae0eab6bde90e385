"""Every example a user can read, found and run (issue 37).

An *example* is a shell block (```bash, ```console, ```sh ...) of README.md or a
page of ``docs/``, or the examples of one command's ``--help`` epilog (every command
and subcommand, enumerated from the real parser). Each is run by
``tests/docs/test_examples_run.py`` in a fresh temporary folder, line after line,
and each line must end with the exit status its text promises:

* 0, unless the line says otherwise with ``# exits N`` (in a block) or ``exits N``
  in the explanation column of an epilog;
* in a ``console`` block only the ``$ `` lines run (the others are output);
* ``\\`` continues a line;

The folder starts with the files the examples use, made by the block under "Files
the examples use" of ``docs/command-line.md`` (run once per session; see
:func:`example_files`), and ``examples/`` of the checkout. Installing (``pip``,
``apt-get``) and commands other tests run (``python -m pytest``, ``mkdocs``,
``jupyter``) are not repeated here; every other line runs for real.

A line that is one plain ``markone`` command (no pipe, redirection, list, variable,
substitution or glob: :func:`markone_argv`) runs in this process, through
:func:`markone.cli.main`, whose return value is the exit status ``python -m
markone`` ends with (``markone/__main__.py`` is ``sys.exit(main())``): what the
shell sees, without a Python start and its imports and compiles per line (issue 37).
Any other line runs with bash, ``markone`` as ``python -m markone`` of this checkout
(``tests/markone/cli/test_closed_pipe.py`` runs every writing command so, through
real pipes).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from _paths import ROOT

__all__ = ["FENCE", "SHELL", "MARKDOWN", "Line", "Example", "fenced_blocks", "command_lines",
           "shell_commands", "expected_status", "doc_examples", "help_examples",
           "markone_argv", "run_line", "run_in_bash", "SKIPPED"]

DOCS = ROOT / "docs"
MARKDOWN = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<lang>[^\n`]*)\n"
                   r"(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$", re.M | re.S)
SHELL = {"bash", "console", "sh", "shell", "shell-session"}
EXITS = re.compile(r"(?:^|[\s(#;,])exits (\d+)\b")

#: Commands an example may show that this runner does not repeat, and why.
SKIPPED = {
    "pip": "installing: the tests run on the installed checkout",
    "apt-get": "installing a system package",
    "mkdocs": "the site build runs in tests/docs/test_docs.py (-m slow)",
    "jupyter": "the lesson notebook runs in tests/docs/test_lesson_notebook.py",
    "python -m pytest": "the test suite itself",
}


@dataclass(frozen=True)
class Line:
    """One command line of an example: its text, the status it promises, where."""

    text: str
    expect: int
    where: str


@dataclass(frozen=True)
class Example:
    """The command lines of one block or one ``--help`` epilog."""

    where: str
    lines: tuple[Line, ...]

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


def _rel(path):
    return path.relative_to(ROOT).as_posix()


def fenced_blocks(text):
    """``(language, body, line number)`` of every fenced code block of ``text``."""
    for m in FENCE.finditer(text):
        lang = m.group("lang").strip().split()[0].lower() if m.group("lang").strip() else ""
        yield lang, m.group("body"), text.count("\n", 0, m.start()) + 1


def command_lines(body):
    """``(offset, line)`` of each command of a shell block: continuations joined, a
    console block's output lines and blank or comment-only lines dropped."""
    lines, joined, start = [], "", 0
    for i, raw in enumerate(body.splitlines()):
        line = raw.rstrip()
        if joined:
            line = joined + " " + line.lstrip()
            joined = ""
        else:
            start = i
        if line.endswith("\\"):
            joined = line[:-1].rstrip()
            continue
        lines.append((start, line))
    prompted = any(line.lstrip().startswith("$ ") for _, line in lines)
    found = []
    for i, line in lines:
        stripped = line.strip()
        if prompted and not stripped.startswith("$ "):
            continue  # a console block: lines without a prompt are output
        stripped = stripped.removeprefix("$ ").strip()
        if stripped and not stripped.startswith("#"):
            found.append((i, stripped))
    return found


def expected_status(line):
    """The exit status a command line promises: ``# exits N`` in its comment, else 0.

    >>> expected_status("markone verify separable xor   # exits 1: not separable")
    1
    """
    comment = _comment(line)
    m = EXITS.search(comment) if comment else None
    return int(m.group(1)) if m else 0


def _outside_quotes(text, starts):
    """The first index of ``text`` outside quotes where ``starts(i)`` holds, or None."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif starts(i):
            return i
    return None


def _comment(line):
    """The ``# ...`` comment of a shell line (outside quotes), or ''."""
    i = _outside_quotes(line, lambda i: line[i] == "#" and (i == 0 or line[i - 1].isspace()))
    return "" if i is None else line[i:]


def shell_commands(body):
    """The ``markone`` invocations in a shell block, each as a list of arguments.

    Handles ``$ `` prompts, ``\\`` continuations, comments and command lists
    (``&&``, ``||``, ``;``, ``|``); lines that do not start a command (output) are
    skipped.
    """
    commands = []
    for _, line in command_lines(body):
        if not re.match(r"^(markone|pip|python|cd|mkdocs|[A-Za-z_]+=)", line):
            continue  # output, or a command that does not concern us
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        segment = []
        for token in [*lexer, ";"]:
            if token in {"&&", "||", ";", "|", "&"}:
                while segment and re.match(r"^[A-Za-z_]\w*=", segment[0]):
                    segment.pop(0)  # VAR=value before the command
                if segment and segment[0] == "markone":
                    commands.append(segment[1:])
                segment = []
            else:
                segment.append(token)
    return commands


def doc_examples():
    """Every shell block of README.md and docs/*.md as an :class:`Example`."""
    found = []
    for path in MARKDOWN:
        for lang, body, line in fenced_blocks(path.read_text(encoding="utf-8")):
            if lang in SHELL:
                where = f"{_rel(path)}:{line}"
                lines = tuple(Line(text, expected_status(text), f"{_rel(path)}:{line + 1 + i}")
                              for i, text in command_lines(body))
                if lines:
                    found.append(Example(where, lines))
    return found


def _iter_commands():
    import importlib.util

    spec = importlib.util.spec_from_file_location("markone_docs_hooks", DOCS / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    from markone.cli import build_parser

    return hooks.iter_commands(build_parser())


def help_examples():
    """The examples of every command's ``--help`` epilog, one :class:`Example` each:
    the lines that start with ``markone`` (an indented ``\\`` continuation joins
    them), an explanation after two spaces, ``exits N`` in it the promised status."""
    found = []
    for path, _, sub in _iter_commands():
        name = " ".join(path)
        epilog = re.split(r"\n\s*\n", sub.epilog or "")[0]   # the examples paragraph
        lines = []
        for _, text in command_lines(epilog):
            if not text.startswith(("markone ", "$ markone ")):
                continue
            command, explanation = _split_explanation(text)
            expect = int(m.group(1)) if (m := EXITS.search(" " + explanation)) else 0
            lines.append(Line(command.removeprefix("$ "), expect, f"`{name} --help`"))
        found.append(Example(f"`{name} --help`", tuple(lines)))
    return found


def _split_explanation(text):
    """``(command, explanation)`` of an epilog line: the explanation starts after two
    or more spaces outside quotes."""
    i = _outside_quotes(text, lambda i: text.startswith("  ", i))
    return (text, "") if i is None else (text[:i], text[i:].strip())


# --- running -------------------------------------------------------------------------

_PRELUDE = """\
markone() { "$MARKONE_PYTHON" -m markone "$@"; }
python() {
  if [ "$1 $2" = "-m pytest" ]; then return 0; fi   # the suite itself
  "$MARKONE_PYTHON" "$@"
}
""" + "".join(f"{name}() {{ return 0; }}\n" for name in SKIPPED if " " not in name)


def environment():
    """The environment of a running example: this checkout first on the path, no
    browser opened, no colour, the same Python."""
    env = {**os.environ, "MARKONE_PYTHON": sys.executable, "BROWSER": "true",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "NO_COLOR": "1"}
    env.pop("CI", None)
    return env


def prepare(folder: Path, files: Path | None) -> None:
    """Fill a fresh example folder: the example files and ``examples/``."""
    if files is not None:
        shutil.copytree(files, folder, dirs_exist_ok=True, symlinks=True)
    if not (folder / "examples").exists():
        (folder / "examples").symlink_to(ROOT / "examples")


#: What makes a line the shell's to run, outside quotes: pipes, redirections, lists,
#: variables, substitutions, globs, brace and tilde expansion, escapes.
_SHELL_SYNTAX = set("|&;<>$`*?~(){}[]\\")


def markone_argv(text: str) -> list[str] | None:
    """The arguments of a line that is one plain ``markone`` command, else None.

    >>> markone_argv("markone verify separable xor   # exits 1: no line")
    ['verify', 'separable', 'xor']
    >>> markone_argv("markone machine train --set 'weight_range=[-3, 3]'")
    ['machine', 'train', '--set', 'weight_range=[-3, 3]']
    >>> [markone_argv(t) for t in ("markone train data.csv | head -1",
    ...                            "markone sim list > out.txt", "X=1 markone sim list",
    ...                            'markone train "$DATA"', "python -m markone sim list")]
    [None, None, None, None, None]
    """
    comment = _comment(text)
    command = text[:len(text) - len(comment)] if comment else text
    if "$" in command or "`" in command or \
            _outside_quotes(command, lambda i: command[i] in _SHELL_SYNTAX) is not None:
        return None
    try:
        words = shlex.split(command)
    except ValueError:   # an unbalanced quote: bash's to report
        return None
    return words[1:] if words and words[0] == "markone" else None


def run_line(line: Line, folder: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run one command line in ``folder``: a plain ``markone`` command in this process
    (:func:`markone_argv`), any other with bash; a ``machine console`` (a server that
    runs until stopped) in its own process, stopped with SIGTERM once it prints its
    address."""
    if re.search(r"\bmachine console\b", line.text):
        return _run_server(line, folder, timeout)
    argv = markone_argv(line.text)
    if argv is not None:
        return _run_here(argv, folder)
    return run_in_bash(line, folder, timeout)


def run_in_bash(line: Line, folder: Path, timeout: float = 900
                ) -> subprocess.CompletedProcess:
    """Run one command line with bash in ``folder``, ``markone`` as ``python -m
    markone``. Past ``timeout`` seconds every process the line started is killed
    (its own session), not only bash: a sweep left running would go on writing."""
    proc = subprocess.Popen(["bash", "-c", _PRELUDE + line.text], cwd=folder,
                            env=environment(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _run_here(argv, folder):
    """``markone ARGV`` run by :func:`markone.cli.main` in this process, in ``folder``
    with :func:`environment`'s variables (all put back after): its exit status and
    output, as a :class:`subprocess.CompletedProcess`."""
    from markone._internal.progress import VERBOSE
    from markone.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd, saved_verbose = dict(os.environ), os.getcwd(), VERBOSE[0]
    try:
        os.environ.clear()
        os.environ.update(environment())
        os.chdir(folder)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exc:   # argparse: --help (0), a usage error (2)
                code = exc.code
                status = code if isinstance(code, int) else int(code is not None)
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        VERBOSE[0] = saved_verbose
    return subprocess.CompletedProcess(["markone", *argv], status, out.getvalue(),
                                       err.getvalue())


def _run_server(line, folder, timeout):
    import signal

    argv = shlex.split(line.text, comments=True)
    assert argv[0] == "markone", line.text
    proc = subprocess.Popen([sys.executable, "-m", "markone", *argv[1:]], cwd=folder,
                            env=environment(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, first + out, err)
