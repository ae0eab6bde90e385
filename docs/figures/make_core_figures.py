"""Make the figures of docs/core.md: ``python docs/figures/make_core_figures.py``."""

import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import markone  # noqa: E402
from markone._internal.style import new_figure, save_figure, styled  # noqa: E402
from markone.plot import plot_boundary, plot_mistakes  # noqa: E402

OUT = Path(__file__).parent


@styled
def main():
    X, y = markone.datasets.iris()
    sv = y < 2
    Xs, ys = X[sv][:, 2:], y[sv]
    vv = y > 0
    Xv, yv = X[vv][:, 2:], y[vv]
    fig, axes = new_figure(1, 3, width=3.5, height=4.2)  # 1575 px: a page's width
    res = markone.train(Xs, ys)
    plot_boundary(axes[0], Xs, ys, res, labels=["setosa", "versicolor"],
                  title=f"separable: converged\nafter {res.mistakes} mistakes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        last = markone.train(Xv, yv, max_epochs=100)
        avg = markone.train(Xv, yv, max_epochs=100, variant="averaged")
    plot_boundary(axes[1], Xv, yv, avg, labels=["versicolor", "virginica"],
                  title=f"not separable: averaged\nweights, accuracy "
                        f"{(avg.predict(Xv) == yv).mean():.2f}")
    plot_mistakes(axes[2], last, title="not separable:\nmistakes never stop")
    for ax in axes[:2]:
        ax.set_xlabel("petal length (cm)")
        ax.set_ylabel("petal width (cm)")
    save_figure(fig, OUT / "core_iris.png")


if __name__ == "__main__":
    main()
