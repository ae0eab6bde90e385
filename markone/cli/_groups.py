"""The command groups whose actions live in another layer: the group's own parser is
built here, so that a listing (``markone verify --help``) imports none of the
actions' modules, nor the ``verify`` package (``tests/design/test_light_imports.py``).

>>> import argparse
>>> sub = argparse.ArgumentParser(prog="markone").add_subparsers()
>>> add_verify(sub).choices
{}
"""

from __future__ import annotations

from typing import Any

from markone.cli import add_group
from markone.cli._commands import purpose

__all__ = ["add_verify"]


def add_verify(subparsers: Any) -> Any:
    """Add the ``markone verify`` group; return its subparsers object, to which
    :func:`markone.cli._commands.add_commands` adds the actions (``add_separable``
    and the others that :data:`~markone.cli._commands.COMMANDS` names, in
    :mod:`verify.cli`)."""
    _, group = add_group(
        subparsers, "verify",
        help=purpose("verify"),
        description="Exact verdicts with certificates anyone can re-check. Each "
        "command's --help ends with the exit statuses it can end with.",
        example="markone verify separable data.csv --certificate cert.json",
    )
    return group
