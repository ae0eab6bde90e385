"""Regenerate the gallery: ``python docs/figures/gallery/make_gallery.py``.

Runs ``markone sim run all`` at default sizes (seed 0) into a temporary folder and
copies every PNG here, next to this script.
"""

import shutil
import sys
import tempfile
from pathlib import Path

__all__ = ["main"]


def main(argv=()):
    from markone.cli import main as markone

    here = Path(__file__).parent
    with tempfile.TemporaryDirectory() as out:
        status = markone(["sim", "run", "all", "--out", out, *argv])
        for png in sorted(Path(out).glob("*/*.png")):
            shutil.copy(png, here / png.name)
            print(f"{png.name}: {png.stat().st_size // 1024} KB")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
