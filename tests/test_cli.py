"""The ``markone`` command's polish: help with a purpose and an example everywhere,
``--version``, and errors that are one line on stderr with exit status 2.

Subcommand behaviour is tested next to each subcommand (``test_cli_verify.py``,
``test_demo.py``, ...); the examples in every ``--help`` are parsed in
``test_docs.py``.
"""

from __future__ import annotations

import os
import re
import runpy
import select
import subprocess
import sys
from pathlib import Path

import pytest

import markone
from markone.cli import SUBCOMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parents[1]
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


def test_progress_stays_quiet_in_a_pipe(tmp_path):
    done = run_markone(*SMALL_SWEEP, "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "orthonormal_tight: 1 task(s) run" in done.stdout


def test_progress_shows_on_a_terminal(tmp_path):
    pty = pytest.importorskip("pty")
    leader, follower = pty.openpty()
    try:
        done = run_markone(*SMALL_SWEEP, "--out", str(tmp_path), stderr=follower)
    finally:
        os.close(follower)
    shown = b""
    while select.select([leader], [], [], 0.5)[0]:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert done.returncode == 0
    assert b"\rorthonormal_tight [" in shown and b"1/1" in shown
