"""Make the figures of docs/history.md and docs/machine.md, and print the Navy table:
``python docs/figures/make_machine_figures.py`` (about a minute)."""

import shutil
import tempfile
from pathlib import Path

from markone.hardware.demo import letters_demo, navy_sweep, navy_table

OUT = Path(__file__).parent


def main():
    with tempfile.TemporaryDirectory() as tmp:
        summary = letters_demo(tmp, seed=0)   # the defaults of `markone machine demo letters`
        for path in summary["figures"]:
            shutil.copy(path, OUT / Path(path).name)
            print(f"wrote {OUT / Path(path).name}")
    print(summary["report"])
    print(navy_table(navy_sweep()))


if __name__ == "__main__":
    main()
