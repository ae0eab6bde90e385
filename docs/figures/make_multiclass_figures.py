"""Make the figure of docs/multiclass-kernel.md: ``python docs/figures/make_multiclass_figures.py``.

Covers: MulticlassPerceptron (argmax and one-vs-rest) on iris petals, and
KernelPerceptron on XOR. Writes ``multiclass_regions.png`` next to this script.
"""

import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402

import markone  # noqa: E402
from markone._internal.style import legend_outside, new_figure, save_figure, styled  # noqa: E402

OUT = Path(__file__).parent
COLORS = ["#4c72b0", "#dd8452", "#55a868"]
EPOCHS = 100  # passes over iris (not separable: training stops here)


def regions(ax, clf, X, y, names, title, pad=0.4, steps=300):
    """Shade the class the model predicts over the plane, then scatter the data."""
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], steps), np.linspace(lo[1], hi[1], steps))
    grid = np.c_[gx.ravel(), gy.ravel()]
    pred = np.searchsorted(clf.classes_, clf.predict(grid)).reshape(gx.shape)
    k = len(clf.classes_)
    ax.contourf(gx, gy, pred, levels=np.arange(k + 1) - 0.5, alpha=0.25,
                cmap=ListedColormap(COLORS[:k]))
    for j, name in enumerate(names):
        pts = X[y == clf.classes_[j]]
        ax.scatter(pts[:, 0], pts[:, 1], s=14, color=COLORS[j], edgecolor="k",
                   linewidth=0.3, label=name)
    ax.set_title(title)


@styled
def main():
    X, y = markone.datasets.iris()
    petals = X[:, 2:]
    names = ["setosa", "versicolor", "virginica"]
    fig, axes = new_figure(1, 3, width=3.5, height=4.4)  # 1575 px: a page's width
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", markone.ConvergenceWarning)
        for ax, strategy in zip(axes[:2], ["argmax", "ovr"]):
            clf = markone.MulticlassPerceptron(
                strategy=strategy, variant="averaged", order="shuffle", seed=0,
                max_epochs=EPOCHS).fit(petals, y)
            regions(ax, clf, petals, y, names,
                    f"{strategy}: averaged, {EPOCHS} passes,\naccuracy "
                    f"{clf.score(petals, y):.2f}")
            ax.set_xlabel("petal length (cm)")
            ax.set_ylabel("petal width (cm)")
    legend_outside(axes[0])

    Xx, yx = markone.datasets.xor()
    kern = markone.KernelPerceptron(kernel="poly", degree=2).fit(Xx, yx)
    regions(axes[2], kern, Xx, yx, ["same (-1)", "differ (+1)"],
            f"XOR, kernel poly degree 2:\n{kern.n_mistakes_} mistakes, "
            f"{kern.n_epochs_} passes", pad=0.8)
    gx, gy = np.meshgrid(np.linspace(-1.8, 1.8, 200), np.linspace(-1.8, 1.8, 200))
    f = kern.decision_function(np.c_[gx.ravel(), gy.ravel()]).reshape(gx.shape)
    axes[2].contour(gx, gy, f, levels=[0], colors="k", linewidths=1)
    legend_outside(axes[2])
    axes[2].set_xlabel("x1")
    axes[2].set_ylabel("x2")
    save_figure(fig, OUT / "multiclass_regions.png")


if __name__ == "__main__":
    main()
