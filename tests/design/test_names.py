""""Replay" means one thing (issue 40): the console's browser replay of a recorded run.

Outside the console's modules (:data:`CONSOLE`), no name, docstring, comment or message
of ``markone``, ``verify`` or ``sims`` says replay for the other things once called so
(the core trained on a given order, the conformance rule runs, the Mark I retrained on
a stream): those say run, re-run or retrain. The one exception is the report text that
a re-check compares (:data:`REPORT_TEXT`), kept so saved reports still re-check
(``docs/architecture.md``, "Names that mean one thing").
"""

from __future__ import annotations

import fnmatch
import re

from _paths import ROOT

#: The packages whose modules are read.
PACKAGES = ("markone", "verify", "sims")
#: Where "replay" is the console's browser replay (globs from the repository's root).
CONSOLE = ("markone/hardware/*", "markone/console/*", "markone/cli/machine.py",
           "markone/cli/_commands.py", "markone/_internal/html.py", "sims/cli/demo.py")
#: The words of a machine report's end-stop claims (and of their command-line
#: wording), which ``markone verify machine --recheck`` compares with what it
#: recomputes; the comment beside them says why they stay.
REPORT_TEXT = ("replay: ", "replayed in tests", '"replay:"', '"replayed"')


def misused(source: str) -> list[int]:
    """The lines of ``source`` that say replay, but for the report text."""
    return [n for n, line in enumerate(source.splitlines(), 1)
            if re.search("replay", line, re.IGNORECASE)
            and not any(text in line for text in REPORT_TEXT)]


def test_replay_is_only_the_console():
    found = [f"{path.relative_to(ROOT)}:{n}"
             for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
             if not any(fnmatch.fnmatch(path.relative_to(ROOT).as_posix(), glob)
                        for glob in CONSOLE)
             for n in misused(path.read_text(encoding="utf-8"))]
    assert found == [], "say run, re-run or retrain (docs/architecture.md): " + ", ".join(found)


def test_the_rule_can_fail():
    source = ('def is_replay(order):\n    """A stream replayed once."""\n'
              '    why = "(replay: MarkI.train(...))"\n')
    assert misused(source) == [1, 2]
