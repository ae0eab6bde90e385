"""The command tree's table (``markone.cli._commands``): a command line builds only the
parsers it needs, and what it shows is what the full parser shows.

What is imported by a listing (``markone --help``, ``markone verify --help``) is checked
in ``tests/design/test_light_imports.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from markone.cli import build_parser
from markone.cli._commands import COMMANDS, Command, add_commands, purpose


def _subparsers(parser):
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _group(parser, name):
    return _subparsers(parser).choices[name]


def test_the_table_lists_every_command_with_its_parsers_purpose():
    full = _subparsers(build_parser())
    helps = {a.dest: a.help for a in full._choices_actions}
    assert helps == {name: c.purpose for name, c in COMMANDS.items()}
    verify = _subparsers(full.choices["verify"])
    assert {a.dest: a.help for a in verify._choices_actions} == {
        name: c.purpose for name, c in COMMANDS["verify"].actions.items()}


@pytest.mark.parametrize("words", [[], ["--help"], ["nosuchcommand"]])
def test_a_listing_shows_what_the_full_parser_shows(words):
    assert build_parser(words).format_help() == build_parser().format_help()


@pytest.mark.parametrize("words", [["verify"], ["verify", "nosuchaction"]])
def test_the_verify_listing_shows_what_the_full_parser_shows(words):
    assert (_group(build_parser(words), "verify").format_help()
            == _group(build_parser(), "verify").format_help())


def test_a_named_command_builds_its_own_parser_only():
    parser = build_parser(["verify", "margin", "and.csv"])
    assert list(_subparsers(parser).choices) == ["verify"]
    assert list(_subparsers(_group(parser, "verify")).choices) == ["margin"]
    assert list(_subparsers(build_parser("train")).choices) == ["train"]


@pytest.mark.parametrize("argv", [["nosuchcommand"], ["verify", "nosuchaction", "x.csv"],
                                  ["verify", "separable"], ["train", "--no-such-flag"]])
def test_errors_read_as_with_the_full_parser(argv):
    def error(parser):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as stop:
            parser.parse_args(argv)
        return stop.value.code, err.getvalue()

    assert error(build_parser([w for w in argv if not w.startswith("-")])) == \
        error(build_parser())


def test_purpose_names_an_unknown_command():
    assert purpose("verify machine").startswith("what the perceptron theorems")
    with pytest.raises(KeyError, match="'verify nosuch' is not a command"):
        purpose("verify nosuch")
    with pytest.raises(KeyError, match="empty path"):
        purpose("")


def test_a_listing_imports_no_command_module():
    table = {"one": Command("the first", "no_such_module:register")}
    listing = argparse.ArgumentParser().add_subparsers()
    add_commands(listing, table, [])
    assert list(listing.choices) == ["one"]
    with pytest.raises(ModuleNotFoundError, match="no_such_module"):
        add_commands(argparse.ArgumentParser().add_subparsers(), table, ["one"])
