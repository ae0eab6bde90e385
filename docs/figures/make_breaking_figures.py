"""Figure of docs/breaking-the-machine.md: the random-walk drift bound on the machine.

The default Mark I (with 0.5 s of A/R logic) trained on A and B (two figures each);
then its potentiometers random-walk at 0.3 steps per sqrt(second). The figure draws
the certified bound on the probability that some answer to a training figure has
changed by machine time t (``verify.machine.drift_walk``), and the fraction of 300
seeded walks on the SimPy machine in which one had (``first_changes``), with the
horizon for delta = 0.05.

Run: ``python docs/figures/make_breaking_figures.py`` (writes breaking_drift.png
beside it).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

from markone._internal.style import legend_outside, new_figure, save_figure, styled  # noqa: E402
from markone.datasets import letters  # noqa: E402
from markone.hardware import MarkI, MarkIParams  # noqa: E402
from verify.machine.drift_walk import first_changes, walk_horizon, walk_terms  # noqa: E402

__all__ = ["main"]

OUT = Path(__file__).resolve().parent
PARAMS = MarkIParams(logic_s=0.5)
SD, DELTA, WALKS, UNTIL_S = 0.3, 0.05, 300, 30.0


@styled
def main(out=OUT):
    """Draw the figure into ``out``; returns the paths written."""
    images, labels = letters("AB", per_class=2, seed=0)
    machine = MarkI(PARAMS, seed=0)
    run = machine.train(images, labels)
    terms = walk_terms(machine, run, images, labels)
    horizon = walk_horizon(machine, run, images, labels, drift_sd=SD, delta=DELTA)
    changed = [t for t in first_changes(PARAMS, 0, run.weights, images, labels,
                                        drift_sd=SD, until_s=UNTIL_S, walks=WALKS)
               if t is not None]
    t = np.linspace(0.25, UNTIL_S, 120)
    bound = [min(1.0, float(terms.probability(Fraction(SD), Fraction(v)))) for v in t]
    seen = [sum(c <= v for c in changed) / WALKS for v in t]
    fig, (ax,) = new_figure(1, 1, width=6.0, height=4.0)
    ax.plot(t, bound, color="#d62728", lw=1.6, label="certified bound")
    ax.step(t, seen, where="post", color="#1f77b4", lw=1.4,
            label=f"SimPy machine ({WALKS} walks)")
    ax.axhline(DELTA, color="k", lw=1, ls=":", label=f"delta = {DELTA}")
    ax.axvline(float(horizon.horizon_s), color="k", lw=1, ls="--",
               label=f"horizon {float(horizon.horizon_s):.2f} s")
    ax.set_xlabel("machine time since training (s)")
    ax.set_ylabel("P(some answer has changed)")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"random walk: {SD} steps per sqrt(s)")
    legend_outside(ax)
    return [save_figure(fig, Path(out) / "breaking_drift.png")]


if __name__ == "__main__":
    for p in main():
        print(p)
