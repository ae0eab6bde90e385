"""The ``verify`` commands of the ``markone`` command line: ``markone verify ...`` and
``markone adversary ...``.

They sit in the ``verify`` layer, above the command-line framework they use
(:mod:`markone.cli`: ``add_command``, the exit statuses, the option types); the
framework finds them by the ``"module:function"`` strings of its table of commands
(:data:`markone.cli.COMMANDS`) and imports only the one a command line names, so
``markone --help`` imports none of them (``docs/start-up.md``).

Modules
-------
``verify``
    ``markone verify separable|margin|check`` (the ``verify`` group itself is built by
    the framework).
``_theory``
    ``markone verify proofs|bound|cycling``.
``_machine``
    ``markone verify machine|drift``.
``adversary``
    ``markone adversary ...``: worst-case streams, the conformance suite, checks of
    other perceptrons.
"""

__all__ = []  # type: list[str]
