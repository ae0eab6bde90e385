"""The ``markone`` command's polish: help with a purpose and an example everywhere,
``--version``, and errors that are one line on stderr with exit status 2.

Subcommand behaviour is tested next to each subcommand (``test_cli_verify.py``,
``test_demo.py``, ...); the examples in every ``--help`` are parsed in
``test_docs.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import runpy
import select
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import markone
from markone.cli import SUBCOMMANDS, build_parser, main
from _paths import ROOT

COMMANDS = [(" ".join(path), help, parser) for path, help, parser
            in runpy.run_path(str(ROOT / "docs" / "hooks.py"))["iter_commands"](build_parser())]


def run_markone(*args, stderr=subprocess.PIPE):
    """Run ``python -m markone ARGS`` in a fresh process, stdout through a pipe."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "markone", *args], env=env,
                          stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=120)


def test_every_subcommand_is_registered():
    names = [c for c, _, _ in COMMANDS if c.count(" ") == 1]
    assert names == [f"markone {n}" for n in SUBCOMMANDS]


def test_top_level_help_lists_every_subcommand_with_examples(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in SUBCOMMANDS:
        assert re.search(rf"^ {{4}}{name}\b", out, re.M), f"`markone --help` lacks {name}"
    assert "examples:" in out and "markone demo" in out


@pytest.mark.parametrize(("name", "help", "parser"), COMMANDS[1:], ids=[c for c, _, _ in COMMANDS[1:]])
def test_subcommand_help_has_purpose_and_example(name, help, parser):
    assert help and "\n" not in help.strip(), f"`{name}` has no one-line purpose"
    assert len(help) <= 100, f"`{name}`'s purpose is not one short line: {help!r}"
    text = parser.format_help()
    assert text.splitlines()[0].startswith(f"usage: {name}")
    assert "example" in text.lower(), f"`{name} --help` shows no example"
    tail = text[text.lower().rindex("example"):]
    assert "markone " in tail, f"the example section of `{name} --help` has no command"


def test_no_command_prints_help(capsys):
    assert main([]) == 0
    assert capsys.readouterr().out.startswith("usage: markone")


def test_version_in_process(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"markone {markone.__version__}"


def test_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "invalid choice: 'no-such-command'" in captured.err


def test_user_error_is_one_line_on_stderr_with_status_2(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("0,0,0\n0,x,1\n")
    assert main(["train", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("markone train: error: ")
    assert "bad.csv" in lines[0]


def test_debug_shows_the_traceback(tmp_path):
    with pytest.raises(FileNotFoundError):
        main(["--debug", "train", str(tmp_path / "missing.csv")])


def test_real_process_version_and_errors(tmp_path):
    done = run_markone("--version")
    assert (done.returncode, done.stdout.strip()) == (0, f"markone {markone.__version__}")

    done = run_markone("train", str(tmp_path / "missing.csv"))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("markone train: error: ") and done.stderr.count("\n") == 1

    done = run_markone("--debug", "train", str(tmp_path / "missing.csv"))
    assert done.returncode == 1 and "Traceback" in done.stderr


SMALL_SWEEP = ("sim", "run", "orthonormal_tight", "--size", "small")


def sweep_shown_on(reader, writer, out_dir):
    """Run the small sweep in this process with its stderr written to the file
    descriptor ``writer`` (a pipe or a terminal: the bar decides by the real
    descriptor, as in a new process) and read what came out at ``reader``; both are
    closed. Returns ``(status, stdout, bytes shown)``."""
    stderr = os.fdopen(writer, "w")  # closes ``writer`` when done
    stdout = io.StringIO()
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            status = main([*SMALL_SWEEP, "--out", str(out_dir)])
    finally:
        stderr.close()
    shown = b""
    while select.select([reader], [], [], 0.5)[0]:
        try:
            chunk = os.read(reader, 4096)
        except OSError:  # the terminal closed
            break
        if not chunk:
            break
        shown += chunk
    os.close(reader)
    return status, stdout.getvalue(), shown


def test_progress_stays_quiet_in_a_pipe(tmp_path):
    status, out, shown = sweep_shown_on(*os.pipe(), tmp_path)
    assert status == 0 and shown == b"", shown
    assert "orthonormal_tight: 1 task run, 0 reused" in out


def test_progress_shows_on_a_terminal(tmp_path):
    pty = pytest.importorskip("pty")
    # a new terminal has an unknown size (0 x 0), which must not hide the bar
    status, _, shown = sweep_shown_on(*pty.openpty(), tmp_path)
    assert status == 0
    assert b"orthonormal_tight: 100%|" in shown and b"1/1" in shown, shown


@pytest.mark.slow
def test_progress_stays_quiet_in_a_pipe_of_a_fresh_process(tmp_path):
    """The real ``python -m markone`` with stderr a pipe: not a byte on stderr, no
    warning at start-up either (the fast tests above run in this process)."""
    done = run_markone(*SMALL_SWEEP, "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "orthonormal_tight: 1 task run, 0 reused" in done.stdout


def test_every_option_has_help_text():
    missing = [f"{name} {'/'.join(a.option_strings) or a.dest}"
               for name, _, parser in COMMANDS for a in parser._actions
               if not a.help and not isinstance(a, argparse._SubParsersAction)]
    assert not missing, missing


def test_every_help_states_the_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out
    for status in ("0  the claim holds", "1  the claim does not hold",
                   "2  the input or the options are wrong", "3  an internal error",
                   "4  not decided"):
        assert status in top
    # each command states the statuses it can end with, in its own words (checked
    # against the table in tests/markone/cli/test_exit_statuses.py); 2 and 3 always
    for name, _, parser in COMMANDS[1:]:
        text = " ".join(parser.format_help().split())
        assert "exit status: 0 " in text, name
        assert "2 bad input or options, 3 bug in markone" in text, name


def test_no_help_text_gives_another_status_for_undecided():
    # "undecided"/"unknown" is exit 4 everywhere (verify machine once said 2, and
    # verify separable --timeout "exit 2")
    import re

    said = re.compile(r"(?:undecided|unknown)\W+(?:\w+\W+){0,3}?exit (\d)|(\d) undecided",
                      re.IGNORECASE)
    for name, _, parser in COMMANDS:
        text = " ".join(parser.format_help().split())
        for found in said.finditer(text):
            assert "4" in found.groups(), (name, found.group(0))


def test_usage_errors_are_one_line(capsys):
    for argv, match in ([["train", "x.csv", "--max-epochs", "0"], "at least 1 and below 2**63"],
                        [["demo", "--seed", "-1"], "'-1' must be 0 or more"],
                        [["sim", "run", "novikoff", "--workers", "two"], "whole number"],
                        [["verify", "separable", "x", "--timeout", "nan"], "not a finite number"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        err = capsys.readouterr().err
        assert exc.value.code == 2 and err.count("\n") == 1 and match in err, err
        assert err.startswith("markone ") and "--help" in err


def test_label_out_of_range_is_refused_not_wrapped(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("0,0,1\n1,1,-1\n")
    for label in ("7", "-99", "3"):
        assert main(["verify", "separable", str(data), "--label", label]) == 2
        err = capsys.readouterr().err
        assert f"--label {label} is outside the table" in err and "3 columns" in err


def test_messages_speak_flags_not_python(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("label,x\nno,1\nyes,2\n")
    assert main(["train", str(data)]) == 2
    err = capsys.readouterr().err
    assert "pass --label 0 or --label 'label'" in err and "label=" not in err
    assert main(["train", "xor", "--max-epochs", "2", "--variant", "pocket"]) == 1
    out = capsys.readouterr().out
    assert "raise --max-epochs" in out and "--variant pocket" not in out
    assert "2 passes" in out and "coef: " in out and "[" not in out.split("coef:")[1]
    zero = tmp_path / "zero.csv"
    zero.write_text("0,0,1\n1,1,-1\n")
    assert main(["train", str(zero), "--no-intercept"]) == 2
    err = capsys.readouterr().err
    assert "drop --no-intercept" in err and "intercept=" not in err


def test_single_class_file_says_so(tmp_path, capsys):
    data = tmp_path / "one.csv"
    data.write_text("1,2,1\n3,4,1\n")
    assert main(["train", str(data)]) == 0
    out = capsys.readouterr().out
    assert "one class only (1, as +1)" in out and "[-1, 1]" not in out
    assert "1 mistake\n" in out
    data.write_text("1,2,5\n3,4,5\n")
    assert main(["train", str(data)]) == 2
    err = capsys.readouterr().err
    assert "only one class (5)" in err and "np." not in err and "partial_fit" not in err
    # the labels, not Python's y (a column may be named y, and be another one)
    assert err.startswith("markone train: error: the labels have only one class (5), "
                          "which has no side (+1 or -1) of its own; pass samples of two "
                          "classes, or label every sample +1 (or -1)"), err
    data.write_text("y,x,label\n1,2,a\n3,4,b\n5,6,c\n")
    assert main(["train", str(data)]) == 2
    assert capsys.readouterr().err.startswith(
        "markone train: error: the labels have 3 classes ['a', 'b', 'c'], but")


@pytest.mark.parametrize("argv, command, extra", [
    (["train", "xor", "--out", "o.json"], "train", "--out o.json"),
    (["verify", "separable", "xor", "extra"], "verify separable", "extra"),
    (["machine", "navy", "--bogus"], "machine navy", "--bogus"),
    (["verify", "--bogus"], "verify", "--bogus")])
def test_an_argument_no_option_takes_is_refused_by_its_command(argv, command, extra,
                                                               capsys):
    """``markone train data.csv --out o.json`` (train has --json, not --out): the
    command that got it refuses it, with its own --help, not ``markone``."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and capsys.readouterr().err == (
        f"markone {command}: error: unrecognized arguments: {extra} (see `markone "
        f"{command} --help`)\n")


def test_an_internal_error_is_reported_as_a_bug(monkeypatch, tmp_path, capsys):
    import markone.cli.train as train_cli

    def broken(args):
        return {}["result"]

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(train_cli, "run", broken)
    assert main(["train", "xor"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "this is a bug in markone" in err
    assert "KeyError" in err and "Traceback" not in err
    report = Path(re.search(r"traceback is in (\S+),", err).group(1))
    assert report.parent == tmp_path and "Traceback" in report.read_text()
    with pytest.raises(KeyError):
        main(["--debug", "train", "xor"])


def test_user_code_errors_are_shown_as_the_users(tmp_path, monkeypatch, capsys):
    (tmp_path / "mine_cli_err.py").write_text(
        "def run(X, y, order):\n    return helper(X)\n\n"
        "def helper(X):\n    raise ZeroDivisionError('my bug')\n\n"
        "def odd(X, y, order):\n    return 'many'\n")
    (tmp_path / "broken_cli_mod.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert main(["adversary", "orthonormal", "--m", "3", "--out", "o.json"]) == 0
    capsys.readouterr()
    assert main(["adversary", "check", "o.json", "--impl", "mine_cli_err:run"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("markone adversary check: error in your code (--impl "
                          "mine_cli_err:run)") and "not a bug in markone" in err
    assert "mine_cli_err.py" in err and "in helper" in err and "my bug" in err
    assert "markone/cli" not in err                      # only the user's frames
    # an answer of the wrong kind: the implementation does not conform (status 1)
    assert main(["adversary", "check", "o.json", "--impl", "mine_cli_err:odd"]) == 1
    assert "must return (w, mistakes)" in capsys.readouterr().err
    assert main(["adversary", "check", "o.json", "--impl", "broken_cli_mod:run"]) == 2
    err = capsys.readouterr().err
    assert "error in your code" in err and "no_such_dependency_xyz" in err


def test_mark1_training_shows_passes_only_when_asked(capsys):
    from markone.datasets import letters
    from markone.hardware import MarkI

    images, labels = letters("AB", per_class=1, seed=0)
    quiet = MarkI(seed=0).train(images, labels, max_epochs=3)
    assert capsys.readouterr().err == ""
    shown = MarkI(seed=0).train(images, labels, max_epochs=3, progress=True)
    err = capsys.readouterr().err
    assert "Mark I passes" in err and f"{shown.epochs}/3" in err
    assert shown.weights.tolist() == quiet.weights.tolist()   # the bar changes nothing
