"""Figure of docs/verify-machine.md: end stops that bite but never block learning.

The default Mark I on the 26-letter task (10 figures per letter), R-units R1 to R4: each
is shown the stream that ``check_machine`` found to reach an end stop, then shuffled
passes until it learns. The machine's own log gives the weights after every
reinforcement; the figure draws their squared distance to the certified centre ``a``
of the clipped Novikoff ball (it falls at every reinforcement, cut short or not, by at
least the certified ``delta``) and the largest weight, which sits at the stop.

Run: ``python docs/figures/make_verify_machine_figures.py`` (writes
verify_machine_clipped_ball.png beside it).
"""

from __future__ import annotations

import string
from fractions import Fraction
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402

from markone.datasets import letters  # noqa: E402
from markone._internal.style import (count_axis, legend_outside, new_figure,  # noqa: E402
                            save_figure, styled)
from markone.hardware import MarkI, r_unit_name  # noqa: E402
from verify.machine import check_machine  # noqa: E402

__all__ = ["main", "trajectories"]

OUT = Path(__file__).resolve().parent
R_UNITS = (0, 1, 2, 3)


def trajectories(machine, images, labels, report, r_units=R_UNITS, seed=1):
    """For each R-unit: ``(distance, top, bound, delta, ||a||^2)``, the exact squared
    distance ``||w - a||^2`` (steps^2, a Fraction) and ``max_j |w_j|`` after each of
    its reinforcements on the machine (the stream reaching a stop, then shuffled
    passes until it learns), and the certificate's numbers."""
    out = {}
    for r in r_units:
        ev = report.r_units[r].converges.evidence
        cols = np.asarray(ev["a_units"])
        q = ev["center_denominator"]
        a = [Fraction(v, q) for v in ev["center_numerators"]]
        machine.reset()
        runs = [machine.train(images, labels, order=report.r_units[r].end_stops
                              .evidence["stream"], max_epochs=1, log=True),
                machine.train(images, labels, max_epochs=100, order="shuffle",
                              seed=seed, warm_start=True, log=True)]
        assert runs[-1].converged
        where = {int(c): k for k, c in enumerate(cols)}
        w = [Fraction(0)] * len(cols)
        dist = [sum(v * v for v in a)]
        top = [0]
        for run in runs:
            for rec in run.log:
                moved = [(where[a_], v) for r_, a_, v in rec.changes if r_ == r]
                if not moved:
                    continue
                for k, v in moved:
                    w[k] = Fraction(v)
                dist.append(sum((wi - ai) ** 2 for wi, ai in zip(w, a)))
                top.append(max(abs(v) for v in w))
        out[r] = (dist, top, ev["reinforcement_bound"], Fraction(ev["min_decrease"]),
                  dist[0])
    return out


@styled
def main(out=OUT, paths=None):
    """Draw the figure into ``out``; ``paths``: :func:`trajectories` if already
    computed for the default machine on the letters task."""
    machine = MarkI(seed=0)
    if paths is None:
        images, labels = letters(string.ascii_uppercase, per_class=10, seed=0)
        report = check_machine(machine, images, labels, orders=0)
        paths = trajectories(machine, images, labels, report)
    fig, (left, right) = new_figure(1, 2, width=5.0, height=4.2)
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    for (r, (dist, top, bound, delta, start)), c in zip(paths.items(), colors):
        k = np.arange(len(dist))
        left.plot(k, [float(d / start) for d in dist], color=c, lw=1.4,
                  label=f"{r_unit_name(r)} (at most {bound})")
        left.plot(k, [max(0.0, float(1 - i * delta / start)) for i in k], color=c,
                  lw=1, ls="--")
        right.plot(k, [float(t) for t in top], color=c, lw=1.4, label=r_unit_name(r))
    right.axhline(machine.params.weight_range[1], color="k", lw=1, ls=":",
                  label="end stop")
    left.set_title("squared distance to the certified centre\n(dashed: the "
                   "guaranteed fall per reinforcement)")
    left.set_xlabel("reinforcements of the R-unit")
    left.set_ylabel(r"$\|w - a\|^2 \,/\, \|a\|^2$")
    left.set_ylim(0, 1.05)
    right.set_title("largest weight: the stop bites,\nlearning goes on")
    right.set_xlabel("reinforcements of the R-unit")
    right.set_ylabel(r"$\max_j |w_j|$ (motor steps)")
    for ax in (left, right):
        count_axis(ax.xaxis)
    legend_outside(left, title="R-unit (bound)")
    legend_outside(right)
    return [save_figure(fig, Path(out) / "verify_machine_clipped_ball.png")]


if __name__ == "__main__":
    for p in main():
        print(p)
