"""Remake the page "What the Mark I did, and what markone does" from a default run.

Runs ``markone sim run published`` at its default size (seed 0; about 40 s of CPU),
keeps its ``results.json`` as ``docs/figures/published-results.json`` and its figure as
``docs/figures/published.png``, and writes the page's generated block
(:func:`sims.published.claims_page`) between its ``published-table`` markers.
``tests/sims/test_published.py`` keeps the block equal to the stored results, and (a
slow test) the stored results equal to a fresh run; ``--render`` only rewrites the
block from the stored results::

    python docs/figures/make_published_page.py
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from markone._internal.io import atomic_write
from sims.published import claims_page
from sims.runner import run_experiment

HERE = Path(__file__).resolve().parent
PAGE = HERE.parent / "history-published.md"
RESULTS = HERE / "published-results.json"
FIGURE = HERE / "published.png"
BLOCK = re.compile(r"(<!-- published-table:start -->\n).*?\n?(<!-- published-table:end -->)",
                   re.S)


def main() -> None:
    if "--render" not in sys.argv:
        with tempfile.TemporaryDirectory() as tmp:
            sweep = run_experiment("published", out=tmp, seed=0)
            shutil.copyfile(sweep.results_path, RESULTS)
            shutil.copyfile(sweep.figures[0], FIGURE)
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    page = PAGE.read_text(encoding="utf-8")
    if not BLOCK.search(page):
        raise SystemExit(f"{PAGE} has no published-table markers")
    atomic_write(PAGE, BLOCK.sub(lambda m: m[1] + claims_page(results) + "\n" + m[2], page))
    print(f"wrote {RESULTS.name}, {FIGURE.name} and the block of {PAGE.name}")


if __name__ == "__main__":
    main()
