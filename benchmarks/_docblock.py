"""Write a benchmark's measured block into its docs page, whole or not at all.

Every benchmark that quotes numbers in ``docs/`` marks its block in the page with two
HTML comments, ``<!-- NAME: begin -->`` and ``<!-- NAME: end -->``, and with
``--write-docs`` replaces what lies between them by what it measured in this run (the
machine's load included), so a reader can regenerate every performance number the docs
quote. The page is replaced atomically: a killed run leaves the old page.

>>> import tempfile, pathlib
>>> page = pathlib.Path(tempfile.mkdtemp()) / "p.md"
>>> _ = page.write_text("a\\n<!-- demo: begin -->\\nold\\n<!-- demo: end -->\\nz\\n")
>>> write_block(page, "demo", ["new", "lines"])
>>> print(page.read_text(), end="")
a
<!-- demo: begin -->
new
lines
<!-- demo: end -->
z
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

__all__ = ["write_block", "ROOT"]

#: The repository's root (the folder holding ``docs/``).
ROOT = Path(__file__).resolve().parent.parent


def write_block(page: Path, name: str, lines: list[str]) -> None:
    """Replace the block ``name`` of ``page`` by ``lines``; refuse a page without it.

    Raises ``SystemExit`` naming the markers when the page has none or several.
    """
    begin, end = f"<!-- {name}: begin -->", f"<!-- {name}: end -->"
    text = Path(page).read_text()
    block = "\n".join([begin, *lines, end])
    new, count = re.subn(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text,
                         flags=re.S)
    if count != 1:
        raise SystemExit(f"{page} must hold exactly one block between {begin} and {end}; "
                         f"it holds {count}: add the two markers where the numbers go")
    fd, tmp = tempfile.mkstemp(dir=Path(page).parent, prefix=f".{Path(page).name}.")
    try:
        with os.fdopen(fd, "w") as out:
            out.write(new)
        os.replace(tmp, page)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
