"""Pictures of the Mark I at work: retina, A-unit activity, weights seen through the
plugboard, learning against machine time, and an animation of training.

Every function draws with matplotlib's Agg backend into ``path`` and returns it.

Examples
--------
>>> import os, tempfile
>>> from markone._figures import letters
>>> from markone.hardware import MarkI
>>> images, labels = letters("AB", per_class=2, seed=0)
>>> machine = MarkI(seed=0)
>>> run = machine.train(images, labels, epochs=5)
>>> weight_maps(run).shape        # one retina-shaped map per R-unit
(8, 20, 20)
>>> path = plot_weights(run, os.path.join(tempfile.mkdtemp(), "w.png"))
>>> os.path.getsize(path) > 0
True
"""

from __future__ import annotations

import numpy as np

from markone.hardware.plugboard import Wiring, connection_matrix

__all__ = ["weight_maps", "active_r_units", "plot_retina", "plot_a_activity",
           "plot_weights", "plot_learning_curve", "animate_training"]


def _pyplot():
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    return plt


def _save(fig, path, **kw):
    fig.savefig(path, **kw)
    _pyplot().close(fig)
    return path


def weight_maps(run, weights=None):
    """Each R-unit's weights projected back onto the retina through the plugboard:
    ``(n_r, rows, cols)``; cell ``s`` of map ``k`` is the sum of ``w[k, a]`` over
    A-units excited by ``s`` minus those inhibited by it."""
    wiring = Wiring(run.excitatory, run.inhibitory, int(np.prod(run.params.retina_shape)))
    w = run.weights if weights is None else weights
    maps = (connection_matrix(wiring) @ w.T).T
    return maps.reshape(len(w), *run.params.retina_shape)


def active_r_units(run):
    """Indices of the R-units whose target differs between classes (the others
    always answer the same and carry no information)."""
    varying = np.flatnonzero(np.ptp(run.codes, axis=0) > 0)
    return varying if varying.size else np.arange(1)


def plot_retina(image, path, *, title="the retina (20 x 20 photocells)"):
    """One figure as the photocells see it."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(3, 3))
    ax.imshow(np.asarray(image), cmap="gray_r", vmin=0, vmax=1)
    ax.set_xticks([]), ax.set_yticks([])
    ax.set_title(title, fontsize=9)
    return _save(fig, path, dpi=80, bbox_inches="tight")


def plot_a_activity(a_rows, labels, path):
    """A-unit outputs (one 16 x 32 panel per figure; a dot per A-unit that fired)."""
    plt = _pyplot()
    a_rows = np.asarray(a_rows)
    n = len(a_rows)
    side = int(np.sqrt(a_rows.shape[1] / 2)) or 1
    shape = (side, a_rows.shape[1] // side) if side * (a_rows.shape[1] // side) == \
        a_rows.shape[1] else (1, a_rows.shape[1])
    fig, axes = plt.subplots(n, 1, figsize=(4, 1.6 * n + 0.4), squeeze=False,
                             layout="constrained")
    for ax, a, label in zip(axes[:, 0], a_rows, labels):
        ax.imshow(a.reshape(shape), cmap="Greys", vmin=0, vmax=1, interpolation="nearest")
        ax.set_xticks([]), ax.set_yticks([])
        ax.set_ylabel(str(label), rotation=0, labelpad=12, fontsize=10)
        ax.set_title(f"{int(a.sum())} of {a.size} A-units fire", fontsize=8)
    fig.suptitle("A-unit activity", fontsize=10)
    return _save(fig, path, dpi=80, bbox_inches="tight")


def plot_weights(run, path, *, units=None):
    """Each R-unit's weights projected onto the retina (red +, blue -)."""
    plt = _pyplot()
    maps = weight_maps(run)
    units = np.arange(len(maps)) if units is None else np.asarray(units)
    fig, axes = plt.subplots(1, len(units), figsize=(1.6 * len(units) + 0.4, 2),
                             squeeze=False)
    lim = max(float(np.abs(maps).max()), 1e-9)
    for ax, k in zip(axes[0], units):
        ax.imshow(maps[k], cmap="RdBu_r", vmin=-lim, vmax=lim)
        ax.set_xticks([]), ax.set_yticks([])
        ax.set_title(f"R{k}", fontsize=9)
    fig.suptitle("R-unit weights seen through the plugboard", fontsize=10)
    return _save(fig, path, dpi=80, bbox_inches="tight")


def plot_learning_curve(run, path):
    """Figures misclassified against machine time (minutes): per pass, and (with the
    log) as a running rate over the last pass's worth of figures."""
    plt = _pyplot()
    n_per_pass = max(1, round(run.n_presentations / max(run.epochs, 1)))
    fig, ax = plt.subplots(figsize=(4.5, 3))
    if run.log:
        wrong = np.array([not rec.figure_correct for rec in run.log], dtype=float)
        window = np.convolve(wrong, np.ones(n_per_pass), "full")[:len(wrong)]
        count = np.minimum(np.arange(1, len(wrong) + 1), n_per_pass)
        minutes = np.array([rec.end_t_s for rec in run.log]) / 60
        ax.plot(minutes, 100 * window / count, "-", lw=1, alpha=0.7,
                label=f"last {n_per_pass} figures")
    ax.plot(np.asarray(run.epoch_end_s) / 60,
            100 * np.asarray(run.epoch_errors) / n_per_pass, "o", ms=4, label="whole pass")
    ax.set_xlabel("machine time (minutes, 1960 motors)")
    ax.set_ylabel("figures misclassified (%)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("learning against machine time", fontsize=10)
    return _save(fig, path, dpi=80, bbox_inches="tight")


def animate_training(run, path, *, frames=36, fps=5):
    """An animated GIF of training: the figure shown and the weights of the R-units
    that carry the class code, as the motors turn them. Needs ``log=True``."""
    if run.log is None:
        raise ValueError("animate_training needs the per-presentation log; train "
                         "with log=True.")
    import matplotlib.animation as animation
    plt = _pyplot()
    units = active_r_units(run)
    steps = np.unique(np.linspace(0, len(run.log) - 1, min(frames, len(run.log)))
                      .astype(int))
    snapshots, w = [], run.weights_initial.copy()
    for t, rec in enumerate(run.log):
        for r, a, value in rec.changes:
            w[r, a] = value
        if t in set(steps.tolist()):
            snapshots.append((t, rec, weight_maps(run, w)[units]))
    lim = max(max(float(np.abs(m).max()) for *_, m in snapshots), 1e-9)
    fig, axes = plt.subplots(1, len(units) + 1, figsize=(1.5 * (len(units) + 1), 1.9))
    shape = run.params.retina_shape
    fig_im = axes[0].imshow(np.zeros(shape), cmap="gray_r", vmin=0, vmax=1)
    w_ims = [ax.imshow(np.zeros(shape), cmap="RdBu_r", vmin=-lim, vmax=lim)
             for ax in axes[1:]]
    for ax, k in zip(axes[1:], units):
        ax.set_title(f"R{k} weights", fontsize=7)
    for ax in axes:
        ax.set_xticks([]), ax.set_yticks([])
    title = fig.suptitle("", fontsize=8)

    def draw(i):
        t, rec, maps = snapshots[i]
        fig_im.set_data(run.figures[rec.figure].reshape(shape))
        axes[0].set_title(f"shown: {run.classes[rec.label]}", fontsize=7)
        for im, m in zip(w_ims, maps):
            im.set_data(m)
        mark = "right" if rec.figure_correct else "wrong"
        title.set_text(f"figure {t + 1}/{len(run.log)}, {rec.end_t_s / 60:.1f} min: "
                       f"{mark}, {sum(rec.reinforced)} R-units reinforced")
        return [fig_im, *w_ims, title]

    anim = animation.FuncAnimation(fig, draw, frames=len(snapshots), blit=False)
    anim.save(path, writer=animation.PillowWriter(fps=fps), dpi=80)
    plt.close(fig)
    return path
