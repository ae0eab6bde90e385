"""The command tree's table of contents, known without importing the commands.

:data:`COMMANDS` names every subcommand of ``markone`` (in the order ``markone
--help`` lists them) and every action of ``markone verify``: each with its one-line
purpose and the function that adds its full parser (``"module:function"``, imported
only when that command is built). A command's parser takes its one-line help from
here (:func:`purpose`), so a listing and the full parser cannot disagree.

:func:`add_commands` builds what a command line needs and no more: the parser of the
command it names (and, in a group with a table of actions, of that action only), or,
when it names none (``markone --help``, ``markone verify --help``, a misspelt name),
a one-line stub per command, which is all that a listing or argparse's "invalid
choice" error shows. ``markone verify separable data.csv`` thus imports neither the
other subcommands' modules nor the other ``verify`` actions'
(``docs/start-up.md``).

>>> purpose("verify separable")
'exact separability verdict with a proof'
>>> list(COMMANDS)[:3]
['train', 'verify', 'adversary']
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

__all__ = ["Command", "COMMANDS", "purpose", "add_commands"]


class Command(NamedTuple):
    """One command: its one-line ``purpose``; ``adds``, the ``"module:function"``
    that adds its full parser to a subparsers object (for a group with ``actions``,
    it returns the group's own subparsers object, to which the actions are added);
    ``actions``, a group's actions built one at a time (None: the function adds them
    all)."""

    purpose: str
    adds: str
    actions: Mapping[str, Command] | None = None


_VERIFY_ACTIONS = {
    "separable": Command("exact separability verdict with a proof",
                         "verify.cli.verify:add_separable"),
    "margin": Command("maximum margin with a certified interval",
                      "verify.cli.verify:add_margin"),
    "check": Command("re-check a certificate file from scratch",
                     "verify.cli.verify:add_check"),
    "proofs": Command("prove Novikoff's and Freund-Schapire's theorems (Z3 and cvc5)",
                      "verify.cli._theory:add_proofs"),
    "bound": Command("run the perceptron and check Novikoff's (R/gamma)^2",
                     "verify.cli._theory:add_bound"),
    "cycling": Command("exact cycle of the perceptron on non-separable data",
                       "verify.cli._theory:add_cycling"),
    "drift": Command("how long a trained Mark I stays right while its potentiometers "
                     "drift", "verify.cli._machine:add_drift"),
    "machine": Command("what the perceptron theorems promise the Mark I on a task",
                       "verify.cli._machine:add_machine"),
    "tolerance": Command("what a trained Mark I tolerates, exactly: potentiometer "
                         "error, dead and stuck A-units", "verify.cli.tolerance:"
                         "add_tolerance"),
}

#: markone's subcommands, in the order ``markone --help`` lists them.
COMMANDS: dict[str, Command] = {
    "train": Command("train a perceptron on a data file and print weights, mistakes "
                     "and passes", "markone.cli.train:register"),
    "verify": Command("verify perceptron theory on data: separability, margins, bounds",
                      "markone.cli._groups:add_verify", _VERIFY_ACTIONS),
    "adversary": Command("worst-case streams as test cases, the conformance suite, and "
                         "checks of other perceptrons", "verify.cli.adversary:register"),
    "machine": Command("the Mark I Perceptron emulated: demo, parameters, training, "
                       "replay", "markone.cli.machine:register"),
    "sim": Command("list, run and re-check the classic experiments (results.json + "
                   "figures)",
                   "sims.cli.sim:register"),
    "demo": Command("the tour: Mark I learning letters, a certificate, the worst case, "
                    "XOR's cycle", "sims.cli.demo:register"),
}


def purpose(path: str) -> str:
    """The one-line purpose of the command ``path`` (its words after ``markone``).

    >>> purpose("demo")
    "the tour: Mark I learning letters, a certificate, the worst case, XOR's cycle"
    """
    table: Mapping[str, Command] | None = COMMANDS
    command = None
    for word in path.split():
        if table is None or word not in table:
            raise KeyError(f"{path!r} is not a command of the table in "
                           "markone.cli._commands; add it there")
        command = table[word]
        table = command.actions
    if command is None:
        raise KeyError("an empty path names no command; give e.g. 'verify separable'")
    return command.purpose


def add_commands(sub: Any, table: Mapping[str, Command],
                 words: Sequence[str] | None) -> None:
    """Add the commands of ``table`` to ``sub`` (an argparse subparsers object).

    ``words`` are the command line's words from this level on, options left out.
    When the first names a command of ``table``, only that command's parser is built
    (its actions, if it has a table of them, from ``words[1:]``); otherwise every
    command is added as a stub carrying its one-line purpose. ``words=None`` builds
    every command in full (the reference documentation, the tests).
    """
    named = words[0] if words and words[0] in table else None
    for name, command in table.items():
        if words is not None and name != named:
            if named is None:
                sub.add_parser(name, help=command.purpose)
            continue
        module, function = command.adds.split(":")
        added = getattr(importlib.import_module(module), function)(sub)
        if command.actions is not None:
            add_commands(added, command.actions,
                         None if words is None else words[1:])
