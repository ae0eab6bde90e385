"""Make docs/figures/playground-bars.png, the playground's encoding of a point of any
number of features on the Mark I's 20 x 20 retina (``markone.console.playground.
bar_images``): ``python docs/figures/make_playground_bars_figure.py``.

Three points of a five-feature table, each drawn as the Mark I sees it: one bar a
feature, four columns wide, lit from the bottom to a height that places the value in
that feature's range over the table (one photocell at the lowest, the whole column at
the highest).
"""

from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")

from markone._internal.style import new_figure, save_figure, styled  # noqa: E402
from markone.console.playground import bar_images  # noqa: E402

OUT = Path(__file__).parent
#: A small five-feature table (the last column of a CSV would be its class).
TABLE = np.array([[0.0, 10.0, -1.0, 5.0, 0.2],
                  [2.0, 40.0, 1.0, 5.0, 0.9],
                  [1.0, 25.0, 0.0, 5.0, 0.5],
                  [4.0, 0.0, -0.5, 5.0, 0.1]])
SHOWN = (0, 1, 2)


@styled
def main():
    images = bar_images(TABLE, (20, 20))
    fig, axes = new_figure(1, len(SHOWN), width=3.4, height=4.4)
    for ax, i in zip(axes, SHOWN):
        ax.imshow(images[i], cmap="gray_r", vmin=0, vmax=1.6, interpolation="nearest")
        ax.set_xticks([1.5 + 4 * j for j in range(5)], [f"x{j + 1}" for j in range(5)])
        ax.set_yticks([])
        ax.set_title("(" + ", ".join(f"{v:g}" for v in TABLE[i]) + ")", fontsize=11)
        for j in range(1, 5):
            ax.axvline(4 * j - 0.5, color="0.6", lw=0.8)
    fig.suptitle("A point on the retina: one bar a feature, its height the value's "
                 "place in the feature's range", fontsize=12)
    save_figure(fig, OUT / "playground-bars.png")


if __name__ == "__main__":
    main()
