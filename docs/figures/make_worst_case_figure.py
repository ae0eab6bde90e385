"""Figure of docs/breaking-the-machine.md: what a trained Mark I tolerates, exactly.

The default Mark I (512 A-units, 8 R-units, seed 0) trained on the 26 letters, 10
figures each, to a pass without a mistake. Left: per R-unit, the certified tolerance
``delta*(k)`` (the largest error on every potentiometer with every figure still right)
against the number ``k`` of A-units dead, up to the most that may die
(``verify.machine.theory.worst_case``); a cross at ``k + 1`` where the witness set
breaks a figure. Right: the Monte Carlo failure rate of the same R-units when ``k``
A-units chosen at random die (no potentiometer error), from seeded draws, with the
certified worst case (the first ``k`` at which some set breaks a figure) marked.

Run: ``python docs/figures/make_worst_case_figure.py`` (writes
breaking_worst_case.png beside it).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

from markone._internal.style import legend_outside, new_figure, save_figure, styled  # noqa: E402
from markone.datasets import letters  # noqa: E402
from markone.hardware import MarkI, r_unit_name  # noqa: E402
from verify.machine.task import machine_task  # noqa: E402
from verify.machine.theory.worst_case import worst_case  # noqa: E402

__all__ = ["main", "random_failures"]

OUT = Path(__file__).resolve().parent
DRAWS, KS, SEED = 500, (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64), 0


def random_failures(weights, patterns, targets, ks=KS, draws=DRAWS, seed=SEED):
    """``(n_r, len(ks))``: the fraction of ``draws`` random sets of ``k`` dead A-units
    (the same sets for every R-unit) after which some figure is answered wrong (a
    tie counts wrong); exact, since the margins are whole steps in float64."""
    rng = np.random.default_rng(seed)
    A = patterns.astype(np.float64)
    n_a = A.shape[1]
    out = np.zeros((len(weights), len(ks)))
    for c, k in enumerate(ks):
        dead = np.zeros((draws, n_a))
        for d in range(draws):
            dead[d, rng.choice(n_a, size=k, replace=False)] = 1
        for r, w in enumerate(weights):
            y = targets[:, r][:, None]
            left = y * ((A * w) @ (1 - dead).T)          # (figures, draws)
            out[r, c] = float((left <= 0).any(axis=0).mean())
    return out


@styled
def main(out=OUT):
    """Draw the figure into ``out``; returns the paths written."""
    images, labels = letters("ABCDEFGHIJKLMNOPQRSTUVWXYZ", per_class=10, seed=0)
    machine = MarkI(seed=0)
    machine.train(images, labels)
    units = worst_case(machine, images, labels)
    task = machine_task(machine, images, labels)
    rates = random_failures(machine.weights, task.patterns, task.targets)
    fig, (left, right) = new_figure(1, 2, width=5.0, height=4.0)
    colours = matplotlib.colormaps["tab10"]
    for u in units:
        colour = colours(u.r_unit)
        ks = np.arange(len(u.tolerance_dead))
        left.plot(ks, [float(v) for v in u.tolerance_dead], "o-", color=colour,
                  ms=3, lw=1.2, label=r_unit_name(u.r_unit))
        left.plot([u.dead + 1], [0], "x", color=colour, ms=7)
        right.plot(KS, rates[u.r_unit], "o-", color=colour, ms=3, lw=1.2,
                   label=r_unit_name(u.r_unit))
        right.axvline(u.dead + 1, color=colour, lw=0.8, ls=":")
    left.set_xlabel("A-units dead (any of them)")
    left.set_ylabel("certified tolerance delta* (motor steps)")
    left.set_title("worst case: every smaller error is safe")
    right.set_xscale("log")
    right.set_xlabel("A-units dead, chosen at random")
    right.set_ylabel(f"fraction of {DRAWS} draws with a wrong answer")
    right.set_ylim(-0.02, 1.02)
    right.set_title("Monte Carlo (dotted: the worst case breaks)")
    legend_outside(right)
    return [save_figure(fig, Path(out) / "breaking_worst_case.png")]


if __name__ == "__main__":
    for p in main():
        print(p)
