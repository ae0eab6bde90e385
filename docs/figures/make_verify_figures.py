"""Figures of docs/verify-separability.md: a max-margin band and a Gordan certificate.

Covers: ``verify.max_margin(..., svm=True)`` on a separable pair of iris species and
``verify.check_separable`` on an overlapping pair, whose certificate points are drawn
with their weights and the common point of the two classes' hulls they prove.

Run: ``python docs/figures/make_verify_figures.py`` (writes verify_*.png beside it).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

from markone import datasets  # noqa: E402
from markone._internal.style import legend_outside, new_figure, save_figure, styled  # noqa: E402
from verify import check_separable, max_margin  # noqa: E402

__all__ = ["main"]

OUT = Path(__file__).resolve().parent
FEATURES = [2, 3]  # petal length, petal width (cm)
COLORS = {-1: "#1f77b4", 1: "#d62728"}


def iris_pair(a, b):
    X, y = datasets.iris()
    keep = np.isin(y, (a, b))
    return X[keep][:, FEATURES], np.where(y[keep] == b, 1, -1)


def drop_shared_points(X, y):
    """Remove flowers measured identically in both classes (a trivial certificate)."""
    pos = {tuple(r) for r in X[y == 1]}
    neg = {tuple(r) for r in X[y == -1]}
    keep = np.array([tuple(r) not in (pos & neg) for r in X])
    return X[keep], y[keep]


def plot_band(ax, X, y, names):
    """Points, the SVM's max-margin band and its support vectors."""
    m = max_margin(X, y, svm=True)
    for label in (-1, 1):
        ax.scatter(*X[y == label].T, s=14, color=COLORS[label], alpha=0.7,
                   label=names[label])
    sv = np.array(m.support)
    ax.scatter(*X[sv].T, s=90, facecolors="none", edgecolors="k", linewidths=1.2,
               label="support vectors")
    xs = np.linspace(X[:, 0].min() - 0.5, X[:, 0].max() + 0.5, 2)
    u, b = m.u, m.offset
    for level, style in ((0, "-"), (m.gamma, "--"), (-m.gamma, "--")):
        ax.plot(xs, (level - b - u[0] * xs) / u[1], "k" + style, lw=1)
    ax.set_title(f"separable: max margin {m.gamma:.4f} cm\ncertified in "
                 f"[{m.lower:.12f}, {m.upper:.12f}]")


def plot_certificate(ax, X, y, names):
    """Points, the certificate's points sized by weight, and the common hull point."""
    v = check_separable(X, y)
    assert v.separable is False
    for label in (-1, 1):
        ax.scatter(*X[y == label].T, s=14, color=COLORS[label], alpha=0.35,
                   label=names[label])
    idx = np.array(sorted(v.certificate))
    lam = np.array([float(v.certificate[i]) for i in idx])
    for label in (-1, 1):
        sel = y[idx] == label
        ax.scatter(*X[idx[sel]].T, s=60 + 240 * lam[sel] / lam.max(),
                   facecolors="none", edgecolors=COLORS[label], linewidths=1.8)
    # sum lambda_i y_i [x_i, 1] = 0: both classes' weighted means are one point
    pos = y[idx] == 1
    common = (lam[pos] @ X[idx[pos]]) / lam[pos].sum()
    ax.scatter(*common, marker="*", s=260, color="k", zorder=5,
               label="common point of both hulls")
    ax.set_title(f"not separable: exact certificate on {len(idx)} flowers\n"
                 "(circles sized by lambda; shared measurements removed)")


@styled
def main(out=OUT):
    fig, axes = new_figure(1, 2, width=6.0, height=4.6)
    X, y = iris_pair(0, 1)
    plot_band(axes[0], X, y, {-1: "setosa", 1: "versicolor"})
    X, y = drop_shared_points(*iris_pair(1, 2))
    plot_certificate(axes[1], X, y, {-1: "versicolor", 1: "virginica"})
    for ax in axes:
        ax.set_xlabel("petal length (cm)")
        ax.set_ylabel("petal width (cm)")
        legend_outside(ax)
        ax.set_aspect("equal", adjustable="box")
    axes[0].set_xlim(0.5, 5.5)
    axes[0].set_ylim(-0.3, 2.3)
    path = Path(out) / "verify_separability.png"
    save_figure(fig, path)
    return [path]


if __name__ == "__main__":
    for p in main():
        print(p)
