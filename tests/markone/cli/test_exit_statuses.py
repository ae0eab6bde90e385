"""Exit statuses follow docs/command-line.md in every command and every ``--help``
(issue 24).

One table, ``markone.cli._errors.EXIT_STATUSES``, is the source: ``markone --help``
prints it, docs/command-line.md shows it, and every command's ``--help`` ends with the
statuses that command can end with. Each command is run in its documented situations
and must end with the status it documents; a closed pipe ends a command quietly.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _paths import ROOT

from markone.cli import build_parser, main
from markone.cli._errors import (EXIT_BUG, EXIT_PIPE, EXIT_STATUS_HELP, EXIT_STATUSES,
                                 EXIT_UNDECIDED, EXIT_USAGE)



def _iter_commands():
    spec = importlib.util.spec_from_file_location("markone_docs_hooks",
                                                  ROOT / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return hooks.iter_commands


COMMANDS = {" ".join(path[1:]): parser
            for path, _, parser in _iter_commands()(build_parser())}
SHORT = {status: words for status, words, _ in EXIT_STATUSES}
EXIT_LINE = re.compile(r"^exit status: (.*) \(see markone --help\)$")


def declared(command):
    """``{status: words}`` from the last line of ``command``'s ``--help``."""
    last = COMMANDS[command].format_help().rstrip().splitlines()[-1]
    found = EXIT_LINE.match(last)
    assert found, f"`markone {command} --help` does not end with its exit statuses"
    items = re.split(r", (?=\d )", found.group(1))
    return {int(item[0]): item[2:] for item in items}


def test_markone_help_and_the_docs_state_the_one_table():
    assert EXIT_STATUS_HELP in build_parser().format_help()
    page = (ROOT / "docs" / "command-line.md").read_text()
    rows = dict(re.findall(r"^\| (\d) \| (.*) \|$", page, flags=re.M))
    assert sorted(map(int, rows)) == [s for s, _, _ in EXIT_STATUSES]
    for status, _, meaning in EXIT_STATUSES:
        assert rows[str(status)].startswith(meaning), status
    assert f"exit status {EXIT_PIPE}" in page


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_help_states_its_statuses_as_the_table_does(command):
    if not command:
        return  # `markone --help` prints the whole table (above)
    statuses = declared(command)
    assert set(statuses) <= set(SHORT)
    assert statuses[EXIT_USAGE] == SHORT[EXIT_USAGE]
    assert statuses[EXIT_BUG] == SHORT[EXIT_BUG]
    text = COMMANDS[command].format_help()
    # every other mention of a status names one the command declares, and a status
    # said to mean "unknown" or "not decided" is 4
    for mention in re.findall(r"(?i)\bexit(?: status)?:? (\d)\b", text):
        assert int(mention) in statuses, (command, mention)
    for mention in re.findall(r"(?i)\b(\d),? (?:unknown|undecided|not decided)", text):
        assert int(mention) == EXIT_UNDECIDED, (command, mention)
    # a time or budget limit that names its status names 4
    for action in COMMANDS[command]._actions:
        limit = {"--timeout", "--budget"} & set(action.option_strings)
        if limit and action.help:
            for mention in re.findall(r"\bexit (\d)\b", action.help):
                assert int(mention) == EXIT_UNDECIDED, (command, limit, action.help)


AND = "x1,x2,y\n0,0,0\n0,1,0\n1,0,0\n1,1,1\n"
WRONG_IMPL = "def run(X, y, order):\n    return [0] * (len(X[0]) + 1), 0\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "and.csv").write_text(AND)
    (tmp_path / "garbage.json").write_text("not json")
    (tmp_path / "wrong.py").write_text(WRONG_IMPL)
    return tmp_path


def tampered_certificate(path):
    doc = json.loads(Path(path).read_text())
    doc["witness"][0] = str(-int(doc["witness"][0]))   # a proof that fails
    Path(path).write_text(json.dumps(doc))


SITUATIONS = [
    ("train", "train {d}/and.csv", 0),
    ("train", "train xor --max-epochs 3", 1),
    ("train", "train {d}/missing.csv", 2),
    ("verify separable", "verify separable {d}/and.csv", 0),
    ("verify separable", "verify separable xor", 1),
    ("verify margin", "verify margin {d}/and.csv", 0),
    ("verify margin", "verify margin xor", 1),
    ("verify check", "verify check {d}/garbage.json", 2),
    ("verify bound", "verify bound {d}/and.csv", 0),
    ("verify cycling", "verify cycling xor", 0),
    ("verify cycling", "verify cycling xor --budget 1", 4),
    ("verify proofs", "verify proofs --only novikoff.step --solver z3", 0),
    ("adversary orthonormal", "adversary orthonormal --m 3 --out {d}/o.json", 0),
    ("adversary greedy", "adversary greedy {d}/and.csv --out {d}/g.json", 0),
    ("adversary exhaustive", "adversary exhaustive {d}/and.csv --out {d}/e.json", 0),
    ("adversary exhaustive",
     "adversary exhaustive {d}/and.csv --budget 1 --out {d}/e.json", 4),
    ("machine params", "machine params", 0),
    ("machine train", "machine train --chars AB", 0),
    ("machine train", "machine train --chars ABCDEFGHIJ --max-epochs 1", 1),
    ("sim list", "sim list", 0),
    ("verify", "verify", 2),
]


@pytest.mark.parametrize("command, argv, status", SITUATIONS,
                         ids=[argv.format(d="D") for _, argv, _ in SITUATIONS])
def test_each_command_ends_as_documented(command, argv, status, files, capsys):
    assert main(argv.format(d=files).split()) == status
    if command != "verify":   # a group without an action: its usage, status 2
        assert status in declared(command)


def test_certificate_checks_end_as_documented(files, capsys):
    cert = files / "cert.json"
    assert main(["verify", "separable", str(files / "and.csv"), "--certificate",
                 str(cert)]) == 0
    assert main(["verify", "check", str(cert)]) == 0
    tampered_certificate(cert)
    assert main(["verify", "check", str(cert)]) == 1
    assert {0, 1} <= set(declared("verify check"))


def test_conformance_checks_end_as_documented(files, capsys):
    case = files / "o.json"
    assert main(["adversary", "orthonormal", "--m", "3", "--out", str(case)]) == 0
    assert main(["adversary", "check", str(case), "--impl",
                 f"{files / 'wrong.py'}:run"]) == 1
    assert 1 in declared("adversary check")


def test_machine_recheck_ends_as_documented(tmp_path, capsys):
    report = tmp_path / "report.json"
    task = ["verify", "machine", "letters", "--chars", "AB", "--weight-range", "3"]
    assert main(task + ["--json", str(report)]) == 0
    assert main(task + ["--recheck", str(report)]) == 0
    doc = json.loads(report.read_text())
    evidence = doc["r_units"][0]["learnable"]["evidence"]
    evidence["witness"] = [str(-int(v)) for v in evidence["witness"]]   # wrong side
    report.write_text(json.dumps(doc))
    assert main(task + ["--recheck", str(report)]) == 1
    assert {0, 1} <= set(declared("verify machine"))


def test_a_closed_pipe_ends_quietly():
    # the reader is gone before the command writes: the write fails with EPIPE
    proc = subprocess.Popen([sys.executable, "-m", "markone", "machine", "params"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == EXIT_PIPE
    assert err == ""
