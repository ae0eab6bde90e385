"""The ``markone`` command: a thin layer that parses arguments and calls the library.

Each subcommand lives in its own module of this package and exposes
``register(subparsers)``, which adds its parser and sets ``func`` (called with the
parsed arguments; it returns the exit status). Heavy modules are imported inside
``func``, so ``markone --help`` stays instant.

Errors raised as ``ValueError``, ``TypeError``, ``FileNotFoundError`` or
:class:`CommandError` are printed to stderr as one line, with exit status 2; ``--debug``
shows the traceback instead.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from markone._version import __version__

__all__ = ["main", "build_parser", "CommandError", "SUBCOMMANDS", "add_command", "add_group",
           "read_tagged_json"]

#: Subcommand modules, in the order ``markone --help`` lists them.
SUBCOMMANDS = ("train", "verify", "adversary", "machine", "sim", "demo")

EPILOG = """\
examples:
  markone demo                         the tour: Mark I, certificates, bounds, XOR
  markone train data.csv               train a perceptron on a CSV (last column = label)
  markone verify separable data.csv    exact separability verdict with certificate
  markone machine demo letters         the Mark I learning letters
  markone sim run novikoff             reproduce a textbook figure

Every subcommand has --help with an example.
"""


class CommandError(Exception):
    """A user-facing error: printed without traceback, exit status 2."""


class HelpFormatter(argparse.RawDescriptionHelpFormatter,
                    argparse.ArgumentDefaultsHelpFormatter):
    """Keeps hand-written examples as they are and shows defaults that say something
    (not None, False or a required argument's)."""

    def _get_help_string(self, action):
        if action.default in (None, False) or action.required:
            return action.help
        return super()._get_help_string(action)


def build_parser():
    """Return the full ``markone`` argument parser (used by the CLI reference docs)."""
    parser = argparse.ArgumentParser(
        prog="markone",
        description="markone: Rosenblatt's Mark I Perceptron emulated, perceptron "
        "theory verified, classic experiments reproduced.",
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"markone {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show full tracebacks instead of one-line errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"markone.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"markone.cli.{name}":
                raise
            continue  # subcommand not built yet
        module.register(sub)
    return parser


def main(argv=None):
    """Entry point of the ``markone`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0 if args.command is None else 2
    try:
        status = args.func(args)
    except KeyboardInterrupt:
        print("markone: interrupted", file=sys.stderr)
        return 130
    except (CommandError, ValueError, TypeError, FileNotFoundError, OSError) as exc:
        if args.debug:
            raise
        print(f"markone {args.command}: error: {exc}", file=sys.stderr)
        return 2
    return 0 if status is None else int(status)


def add_command(sub, name, *, help, description, example, func):
    """Add one subcommand parser with a one-line purpose and an example epilog."""
    p = sub.add_parser(
        name,
        help=help,
        description=f"{help}\n\n{description}".rstrip(),
        epilog=f"example:\n  {example}" if "\n" not in example else f"examples:\n{example}",
        formatter_class=HelpFormatter,
    )
    p.set_defaults(func=func)
    return p


def add_group(sub, name, *, help, description, example, metavar="ACTION"):
    """Add a subcommand with actions of its own; return ``(parser, actions)``.

    Called without an action, the group prints its help and exits with status 2.
    """
    p = add_command(sub, name, help=help, description=description, example=example,
                    func=lambda args: p.print_help() or 2)
    return p, p.add_subparsers(dest=f"{name}_command", metavar=metavar)


def read_tagged_json(path, fmt, *, what, how):
    """Read a JSON document whose ``"format"`` field must be ``fmt``.

    Anything else raises :class:`CommandError` saying the file is not ``what`` and
    ``how`` to make one.
    """
    from markone._io import read_json

    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise CommandError(f"{path} is not {what} (expected format {fmt!r}); {how}.")
    return doc


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
