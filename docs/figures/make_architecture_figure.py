"""Make docs/figures/architecture_layers.png, the one-page map of docs/architecture.md,
from the source tree's own imports: ``python docs/figures/make_architecture_figure.py``.

Each box is a part of a package; an arrow runs from a part to one it imports (module
level or inside a function), its width growing with the number of module-to-module
imports behind it. Rows are the layers, from the ground up: ``markone``, ``verify``,
``sims``; every arrow runs sideways or down.
"""

import ast
from collections import Counter
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from markone._internal.style import new_figure, save_figure, styled  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).parent

#: The parts drawn, as (dotted prefix, label, column, row); a module belongs to the
#: part with the longest prefix it starts with.
PARTS = [
    ("markone._internal", "markone._internal", 0, 0),
    ("markone", "markone\n(the core)", 1, 0),
    ("markone.hardware", "markone.hardware\n(the Mark I)", 2, 0),
    ("markone.console", "console\n(server)", 3, 0),
    ("markone.cli", "markone.cli\n(framework)", 4, 0),
    ("verify._internal", "verify._internal", 0, 1),
    ("verify", "verify\n(theory checks)", 1, 1),
    ("verify.certificate", "certificate\n+ coq", 2, 1),
    ("verify.coq", "certificate\n+ coq", 2, 1),
    ("verify.conformance", "conformance", 3, 1),
    ("verify.machine", "verify.machine", 4, 1),
    ("verify.cli", "verify.cli", 5, 1),
    ("sims", "sims\n(experiments)", 1, 2),
    ("sims.cli", "sims.cli", 5, 2),
]


def module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part_of(module):
    best = max((p for p in PARTS if module == p[0] or module.startswith(p[0] + ".")),
               key=lambda p: len(p[0]), default=None)
    return best and (best[2], best[3])


def edges():
    """Counts of imports between parts, from every ``import`` statement."""
    count = Counter()
    for package in ("markone", "verify", "sims"):
        for path in sorted((ROOT / package).rglob("*.py")):
            here = part_of(module_name(path))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module] if isinstance(node, ast.ImportFrom)
                         and node.module and not node.level else [])
                for name in names:
                    there = part_of(name) if name.split(".")[0] in (
                        "markone", "verify", "sims") else None
                    if there and there != here:
                        count[here, there] += 1
    return count


@styled
def main():
    fig, (ax,) = new_figure(width=10.5, height=5.0)
    boxes = {(c, r): label for _, label, c, r in PARTS}
    for (a, b), n in sorted(edges().items()):
        ax.annotate("", xy=b, xytext=a, arrowprops=dict(
            arrowstyle="-|>", color="0.45", lw=0.6 + min(n, 40) / 12,
            shrinkA=30, shrinkB=30, connectionstyle="arc3,rad=0.12"))
    for (c, r), label in boxes.items():
        ax.text(c, r, label, ha="center", va="center", fontsize=11, bbox=dict(
            boxstyle="round,pad=0.45", fc=("#dbe7f3", "#fde6cf", "#e3f1dd")[r], ec="0.3"))
    for r, name in enumerate(("markone", "verify", "sims")):
        ax.text(-0.75, r, name, ha="right", va="center", fontsize=12, weight="bold")
    ax.set_xlim(-1.6, 5.7)
    ax.set_ylim(-0.5, 2.5)
    ax.set_axis_off()
    ax.set_title("The layers and their imports (arrows run sideways or down)")
    save_figure(fig, OUT / "architecture_layers.png")


if __name__ == "__main__":
    main()
