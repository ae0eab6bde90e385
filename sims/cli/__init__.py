"""The ``sims`` commands of the ``markone`` command line: ``markone sim ...`` and
``markone demo``.

They sit in the top layer, ``sims``, above the command-line framework they use
(:mod:`markone.cli`); the framework finds them by the ``"module:function"`` strings of
its table of commands and imports only the one a command line names.

Modules
-------
``sim``
    ``markone sim list|run|check``: the classic experiments.
``demo``
    ``markone demo``: the tour (the Mark I learning letters, a certificate, the worst
    case, XOR's cycle).
"""

__all__ = []  # type: list[str]
