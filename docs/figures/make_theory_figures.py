"""Make the figures of docs/verify-bounds.md, verify-adversary.md and verify-cycling.md.

``python docs/figures/make_theory_figures.py`` writes

* ``theory_bounds.png``: mistakes against Novikoff's bound on random separable data,
  for the given order, random orders, and the greedy adversary (log-log);
* ``theory_xor_cycle.png``: the XOR weight cycle in weight space, both encodings;
* ``theory_reachable.png``: squared norms of every weight vector reachable from zero
  (all orders) on XOR and 3-bit parity, with the cyclic order's cycle marked.
"""

import itertools
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

import markone  # noqa: E402
from markone._internal.style import legend_outside, new_figure, save_figure, styled  # noqa: E402
from markone.plot import plot_cycle  # noqa: E402
from verify.adversary import worst_order  # noqa: E402
from verify.cycling import check_cycling, integer_yx, reachable_states  # noqa: E402

OUT = Path(__file__).parent
SEED = 0


def parity3(encoding="01"):
    P = np.array(list(itertools.product([0, 1], repeat=3)))
    return (P if encoding == "01" else 2 * P - 1), np.where(P.sum(1) % 2 == 1, 1, -1)


@styled
def bounds_figure(path):
    rng = np.random.default_rng(SEED)
    rows = []
    for margin in (0.3, 0.2, 0.1, 0.05, 0.03, 0.02):
        for _ in range(4):
            X, y, u = markone.datasets.separable(200, 5, margin, seed=rng)
            a = worst_order(X, y, intercept=False, method="greedy")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                given = markone.train(X, y, intercept=False).mistakes
                shuffled = [markone.train(X, y, intercept=False, order="shuffle",
                                          seed=rng).mistakes for _ in range(5)]
            rows.append((a.bound, given, max(shuffled), a.mistakes))
    B = np.array(rows, dtype=float)
    fig, (ax,) = new_figure(width=6.4, height=4.6)
    lim = [B[:, 0].min() * 0.7, B[:, 0].max() * 1.4]
    ax.plot(lim, lim, "k-", lw=1, label="bound $(R/\\gamma)^2$")
    ax.scatter(B[:, 0], B[:, 1], s=14, marker="o", label="given order")
    ax.scatter(B[:, 0], B[:, 2], s=14, marker="s", label="worst of 5 shuffles")
    ax.scatter(B[:, 0], B[:, 3], s=18, marker="^", label="greedy adversary")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("Novikoff's bound $(R/\\gamma)^2$ (certified margin)")
    ax.set_ylabel("mistakes until convergence")
    ax.set_title("200 points in $R^5$, 24 data sets")
    legend_outside(ax)
    save_figure(fig, path)


@styled
def xor_cycle_figure(path):
    fig, axes = new_figure(2, 1, width=7.4, height=3.1)
    for ax, enc in zip(axes, ("pm1", "01")):
        X, y = markone.datasets.xor(enc)
        r = check_cycling(X.astype(int), y)
        reach = check_cycling(X.astype(int), y, order="all")
        steps = [f"state {k + 1}\nerrs on x{i}" for k, i in enumerate(r.cycle_indices)]
        plot_cycle(ax, r.cycle, names=["$w_1$", "$w_2$", "$w_0$ (intercept)"],
                   steps=[*steps, "state 1\nagain"],
                   title=f"XOR, {'−1/+1' if enc == 'pm1' else '0/1'} inputs: a cycle of "
                         f"{r.period_updates} updates ({reach.states} vectors reachable "
                         f"in any order)")
    save_figure(fig, path)


@styled
def reachable_figure(path):
    cases = [("XOR −1/+1", markone.datasets.xor("pm1")),
             ("XOR 0/1", markone.datasets.xor("01")),
             ("parity3 −1/+1", parity3("pm1")),
             ("parity3 0/1", parity3("01"))]
    fig, axes = new_figure(2, 2, width=4.8, height=3.2)  # fits a page's width
    for ax, (name, (X, y)) in zip(axes, cases):
        X = np.asarray(X).astype(int)
        YX, _ = integer_yx(X, y)
        S = reachable_states(YX).states
        norms = np.einsum("ij,ij->i", S, S)
        cyc = check_cycling(X, y)
        values, counts = np.unique(norms, return_counts=True)
        ax.bar(values, counts, width=0.8, color="0.55")
        ax.axvline(cyc.max_norm_sq, color="C3", lw=1.5,
                   label=f"cyclic order max {cyc.max_norm_sq}")
        ax.set_title(f"{name}:\n{len(S)} states, max {norms.max()}")
        ax.set_xlabel("$\\|w\\|^2$")
        legend_outside(ax)
    for ax in axes[::2]:
        ax.set_ylabel("reachable weight vectors")
    save_figure(fig, path)


@styled
def main():
    bounds_figure(OUT / "theory_bounds.png")
    xor_cycle_figure(OUT / "theory_xor_cycle.png")
    reachable_figure(OUT / "theory_reachable.png")


if __name__ == "__main__":
    main()
