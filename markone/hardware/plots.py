"""Pictures of the Mark I at work: retina, A-unit activity, weights seen through the
plugboard, learning against machine time, and an animation of training.

Every function draws with matplotlib's Agg backend into ``path`` and returns it.

Examples
--------
>>> import os, tempfile
>>> from markone.datasets import letters
>>> from markone.hardware import MarkI
>>> images, labels = letters("AB", per_class=2, seed=0)
>>> machine = MarkI(seed=0)
>>> run = machine.train(images, labels, max_epochs=5)
>>> weight_maps(run).shape        # one retina-shaped map per R-unit
(8, 20, 20)
>>> path = plot_weights(run, os.path.join(tempfile.mkdtemp(), "w.png"))
>>> os.path.getsize(path) > 0
True
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from markone._internal.signals import raise_if_terminated
from markone._internal.style import DPI, legend_outside, new_figure, save_figure, styled
from markone._internal.typing import ArrayLike, PathLike
from markone.hardware.plugboard import Wiring, connection_matrix
from markone.hardware.runits import r_unit_name

if TYPE_CHECKING:
    from markone.hardware.run import MachineRun

__all__ = ["weight_maps", "active_r_units", "code_caption", "plot_retina", "plot_a_activity",
           "plot_weights", "plot_learning_curve", "animate_training"]


def weight_maps(run: MachineRun, weights: np.ndarray | None = None) -> np.ndarray:
    """Each R-unit's weights projected back onto the retina through the plugboard:
    ``(n_r, rows, cols)``; cell ``s`` of map ``k`` is the sum of ``w[k, a]`` over
    A-units excited by ``s`` minus those inhibited by it."""
    wiring = Wiring(run.excitatory, run.inhibitory, int(np.prod(run.params.retina_shape)))
    w = run.weights if weights is None else weights
    maps = (connection_matrix(wiring) @ w.T).T
    return maps.reshape(len(w), *run.params.retina_shape)


def active_r_units(run: MachineRun) -> np.ndarray:
    """Indices of the R-units whose target differs between classes (the others
    always answer the same and carry no information)."""
    varying = np.flatnonzero(np.ptp(run.codes, axis=0) > 0)
    return varying if varying.size else np.arange(1)


def code_caption(run: MachineRun) -> str:
    """One sentence on how the R-units spell the class, for captions and pages.

    >>> from markone.hardware import MarkI
    >>> from markone.datasets import letters
    >>> run = MarkI(seed=0).train(*letters("ABCD", per_class=1, seed=0), max_epochs=3)
    >>> print(code_caption(run))
    The 8 R-units spell each letter's number in binary: with 4 letters only R1-R2 change from letter to letter; R3-R8 answer -1 to every letter, and all they learn is to say so.
    """
    n_units = run.codes.shape[1]
    active = active_r_units(run)
    names = _span(active)
    idle = [k for k in range(n_units) if k not in set(active.tolist())]
    text = (f"The {n_units} R-units spell each letter's number in "
            f"{run.params.class_code.replace('_', '-')}: with {len(run.classes)} letters "
            f"only {names} change from letter to letter")
    if idle:
        values = sorted({int(run.codes[0, k]) for k in idle})
        answer = "-1" if values == [-1] else "+1" if values == [1] else "the same"
        text += (f"; {_span(idle)} answer {answer} to every letter, and all they learn "
                 f"is to say so.")
    else:
        text += "."
    return text


def _span(units):
    """``R1-R3`` for consecutive units, ``R1, R4`` otherwise (0-based in)."""
    units = [int(k) for k in units]
    if len(units) > 2 and units == list(range(units[0], units[-1] + 1)):
        return f"{r_unit_name(units[0])}-{r_unit_name(units[-1])}"
    if len(units) == 2 and units[1] == units[0] + 1:
        return f"{r_unit_name(units[0])}-{r_unit_name(units[1])}"
    return ", ".join(r_unit_name(k) for k in units)


@styled
def plot_retina(image: ArrayLike, path: PathLike, *,
                title: str = "a figure on the retina") -> Path:
    """One figure as the 20 x 20 photocells see it (black: lit cell)."""
    image = np.asarray(image)
    fig, (ax,) = new_figure(width=3.4, height=3.6)
    ax.imshow(image, cmap="gray_r", vmin=0, vmax=1)
    ax.set_xticks([]), ax.set_yticks([])
    ax.set_title(title)
    ax.set_xlabel(f"{image.shape[0]} x {image.shape[1]} photocells")
    return save_figure(fig, path)


@styled
def plot_a_activity(a_rows: ArrayLike, labels: ArrayLike, path: PathLike) -> Path:
    """A-unit outputs for a few figures: one panel per figure, a dark cell per A-unit
    that fired."""
    a_rows = np.asarray(a_rows)
    n = len(a_rows)
    side = int(np.sqrt(a_rows.shape[1] / 2)) or 1
    shape = (side, a_rows.shape[1] // side) if side * (a_rows.shape[1] // side) == \
        a_rows.shape[1] else (1, a_rows.shape[1])
    fig, axes = new_figure(n, 1, width=5.0, height=1.9)
    for ax, a, label in zip(axes, a_rows, labels):
        ax.imshow(a.reshape(shape), cmap="Greys", vmin=0, vmax=1)
        ax.set_xticks([]), ax.set_yticks([])
        ax.set_ylabel(str(label), rotation=0, labelpad=14, fontsize=14,
                      va="center")
        ax.set_title(f"{int(a.sum())} of {a.size} A-units fire")
    fig.suptitle("A-unit activity for one figure of each letter")
    return save_figure(fig, path)


@styled
def plot_weights(run: MachineRun, path: PathLike, *, units: Sequence[int] | None = None
                 ) -> Path:
    """Each R-unit's weights projected back onto the retina (red: a lit cell pushes
    the R-unit towards +1, blue: towards -1), with a colour bar in weight units and a
    caption on the class code."""
    maps = weight_maps(run)
    units = np.arange(len(maps)) if units is None else np.asarray(units)
    ncols = min(len(units), 4)
    nrows = -(-len(units) // ncols)
    fig, axes = new_figure(nrows, ncols, width=2.3, height=2.5, squeeze=False)
    lim = max(float(np.abs(maps).max()), 1e-9)
    active = set(active_r_units(run).tolist())
    image = None
    for ax, k in zip(axes.ravel(), units):
        image = ax.imshow(maps[k], cmap="RdBu_r", vmin=-lim, vmax=lim)
        ax.set_xticks([]), ax.set_yticks([])
        ax.set_title(r_unit_name(k) + ("" if k in active else
                                        f" (always {int(run.codes[0, k]):+d})"))
    for ax in axes.ravel()[len(units):]:
        ax.set_visible(False)
    bar = fig.colorbar(image, ax=axes, shrink=0.8)
    bar.set_label("summed weight seen by the cell")
    fig.suptitle("R-unit weights seen through the plugboard")
    fig.supxlabel(_wrap(code_caption(run), 72), fontsize=10)  # laid out with the rest
    return save_figure(fig, path)


def _wrap(text, width):
    return "\n".join(textwrap.wrap(text, width))


@styled
def plot_learning_curve(run: MachineRun, path: PathLike) -> Path:
    """Figures misclassified against machine time (minutes): after each pass, and
    (with the log) as a running rate over the last pass's worth of figures."""
    n_per_pass = max(1, round(run.n_presentations / max(run.epochs, 1)))
    fig, (ax,) = new_figure(width=8.4, height=4.0)
    if run.log and len(run.log) > n_per_pass:      # a line needs two windows
        wrong = np.array([not rec.figure_correct for rec in run.log], dtype=float)
        window = np.convolve(wrong, np.ones(n_per_pass), "valid")  # full windows only
        minutes = np.array([rec.end_t_s for rec in run.log])[n_per_pass - 1:] / 60
        ax.plot(minutes, 100 * window / n_per_pass, "-", lw=1.5, alpha=0.8,
                label=f"the {n_per_pass} figures before")
    ax.plot(np.asarray(run.end_s_per_epoch) / 60,
            100 * np.asarray(run.errors_per_epoch) / n_per_pass, "o", ms=6,
            label="a whole pass")
    ax.set_xlabel("machine time (minutes at the motors' speed)")
    ax.set_ylabel("figures misread (%)")
    ax.set_ylim(bottom=0)
    ax.set_xlim(left=0)
    ax.grid(alpha=0.3)
    legend_outside(ax)
    ax.set_title("The Mark I learning: figures misread")
    return save_figure(fig, path)


@styled
def animate_training(run: MachineRun, path: PathLike, *, frames: int = 36, fps: int = 5
                     ) -> Path:
    """An animated GIF of training: the figure shown and the weights of the R-units
    that carry the class code, as the motors turn them. Needs ``log=True``."""
    if run.log is None:
        raise ValueError("animate_training needs the per-presentation log; train "
                         "with log=True (on the command line: --log).")
    import matplotlib.animation as animation  # light start-up: only for the animation

    units = active_r_units(run)
    steps = set(np.unique(np.linspace(0, len(run.log) - 1, min(frames, len(run.log)))
                          .astype(int)).tolist())
    snapshots, w = [], run.weights_initial.copy()
    for t, rec in enumerate(run.log):
        for r, a, value in rec.changes:
            w[r, a] = value
        if t in steps:
            snapshots.append((t, rec, weight_maps(run, w)[units]))
    lim = max(max(float(np.abs(m).max()) for *_, m in snapshots), 1e-9)
    fig, axes = new_figure(1, len(units) + 1, width=2.2, height=2.9)
    shape = run.params.retina_shape
    fig_im = axes[0].imshow(np.zeros(shape), cmap="gray_r", vmin=0, vmax=1)
    w_ims = [ax.imshow(np.zeros(shape), cmap="RdBu_r", vmin=-lim, vmax=lim)
             for ax in axes[1:]]
    for ax, k in zip(axes[1:], units):
        ax.set_title(f"{r_unit_name(k)} weights")
    for ax in axes:
        ax.set_xticks([]), ax.set_yticks([])
    title = fig.suptitle("")

    def draw(i):
        t, rec, maps = snapshots[i]
        fig_im.set_data(run.figures[rec.figure].reshape(shape))
        axes[0].set_title(f"shown: {run.classes[rec.label]}")
        for im, m in zip(w_ims, maps):
            im.set_data(m)
        mark = "read right" if rec.figure_correct else "misread"
        title.set_text(f"figure {t + 1} of {len(run.log)}, {rec.end_t_s / 60:.1f} min: "
                       f"{mark}, {sum(rec.reinforced)} R-units reinforced")
        return [fig_im, *w_ims, title]

    anim = animation.FuncAnimation(fig, draw, frames=len(snapshots), blit=False)
    path = Path(path)
    part = path.with_name(f".{path.stem}.part{path.suffix}")  # Pillow reads the suffix
    try:
        anim.save(str(part), writer=animation.PillowWriter(fps=fps), dpi=DPI)
        raise_if_terminated()   # a SIGTERM whose exception a finaliser swallowed
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    os.replace(part, path)
    return path
