"""One figure style for everything markone draws: readable on a projector.

Every figure markone writes (the demo, ``markone machine demo``, the experiments in
``sims``, the figures of the docs) is made by :func:`new_figure` and written by
:func:`save_figure`, so they share one resolution (:data:`DPI`), one set of type sizes
(no text under :data:`MIN_POINTS` at the figure's own size) and one set of habits:
R-units are numbered R1-R8 (:func:`markone.hardware.r_unit_name`), axes that count
have integer ticks (:func:`count_axis`), legends sit beside the data, not on it
(:func:`legend_outside`), and colour that means a number gets a colour bar. :func:`audit` lists what would make
a figure hard to read in a room; the test suite runs it on every figure markone makes.
A page shows a figure at its own size in pixels (:func:`display_width_px`), where its
smallest text is as large as body text; the browser tests measure the size at which
the demo page and the documentation really show it (:func:`displayed_text_px`).

Examples
--------
>>> import os, tempfile
>>> fig, (ax,) = new_figure(width=4, height=3)
>>> _ = ax.plot([1, 2, 3], [0, 2, 1], "o-", label="mistakes")
>>> count_axis(ax.yaxis); _ = ax.set(xlabel="pass", ylabel="mistakes")
>>> legend_outside(ax)
>>> audit(fig)
[]
>>> path = save_figure(fig, os.path.join(tempfile.mkdtemp(), "m.png"))
>>> from PIL import Image
>>> Image.open(path).size, round(Image.open(path).info["dpi"][0])
((600, 450), 150)
"""

from __future__ import annotations

import functools
from pathlib import Path

from markone.errors import MarkoneError
import numpy as np
from markone._internal.io import write_figure

__all__ = ["DPI", "MIN_POINTS", "RC", "styled", "new_figure", "save_figure",
           "count_axis", "legend_outside", "audit", "display_width_px",
           "displayed_text_px",
           "FigureAuditError"]

#: Resolution of every PNG markone writes (dots per inch of the figure's own size).
DPI = 150
#: The smallest type, in points at the figure's own size, that a room can read.
MIN_POINTS = 10
#: The matplotlib settings of every markone figure.
RC = {
    "font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11,
    "xtick.labelsize": 10, "ytick.labelsize": 10, "legend.fontsize": 10,
    "legend.title_fontsize": 10, "figure.titlesize": 13, "figure.dpi": DPI,
    "savefig.dpi": DPI, "axes.titlelocation": "center", "lines.markersize": 6,
    "image.interpolation": "nearest",
}
#: When true, :func:`save_figure` refuses a figure that :func:`audit` finds fault
#: with (the test suite sets it).
STRICT = False


class FigureAuditError(MarkoneError, ValueError):
    """A figure has text too small to read, clipped text, or a legend on its data."""


def styled(func):
    """Run ``func`` under :data:`RC`, so every artist it makes has markone's sizes
    whatever the user's matplotlib settings are."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        import matplotlib

        with matplotlib.rc_context(RC):
            return func(*args, **kwargs)

    return wrapper


@styled
def new_figure(nrows=1, ncols=1, *, width=5.0, height=4.0, squeeze=True,
               subplot_kw=None, **fig_kw):
    """A figure (never shown on screen) of ``width x height`` inches per panel.

    Returns ``fig, axes``; ``axes`` is a flat array of the ``nrows * ncols`` panels
    (a 2-D array with ``squeeze=False``). The layout is matplotlib's constrained
    layout, so titles, colour bars and outside legends get room of their own.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * ncols, height * nrows), dpi=DPI, layout="constrained",
                 **fig_kw)
    axes = fig.subplots(nrows, ncols, squeeze=False, subplot_kw=subplot_kw)
    return fig, (axes.ravel() if squeeze else axes)


@styled
def save_figure(fig, path, *, check=None):
    """Write ``fig`` to ``path`` (PNG at :data:`DPI`, written atomically) and return
    the path. With ``check`` (default :data:`STRICT`) a figure that :func:`audit`
    finds fault with is refused with :class:`FigureAuditError`, and nothing is
    written; the audit reads the draw the save made (issue 37: it drew the figure a
    second time, about a third of what a checked figure cost)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    strict = STRICT if check is None else check
    return write_figure(fig, path, dpi=DPI, check=_refusal(path.name) if strict else None)


def _refusal(name):
    """A check for :func:`~markone._internal.io.write_figure`: raise
    :class:`FigureAuditError` naming ``name`` when :func:`audit` finds fault with the
    figure just saved (drawn already when saved at its own dpi)."""

    def refuse(fig):
        problems = audit(fig, drawn=fig.dpi == DPI)
        if problems:
            raise FigureAuditError(f"{name}: " + "; ".join(problems))

    return refuse


def count_axis(axis):
    """Integer ticks on an axis that counts (mistakes, passes, units)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def legend_outside(ax, **kwargs):
    """The legend to the right of the axes, where it cannot cover data."""
    kwargs.setdefault("loc", "upper left")
    kwargs.setdefault("bbox_to_anchor", (1.02, 1.0))
    kwargs.setdefault("borderaxespad", 0.0)
    kwargs.setdefault("frameon", False)
    ax.legend(**kwargs)


def display_width_px(path):
    """The width, in CSS pixels, at which a page shows a figure written by
    :func:`save_figure` to a room: its own width in pixels, one pixel of the image to
    one CSS pixel, so its smallest text (:data:`MIN_POINTS` at :data:`DPI`) shows at
    :func:`displayed_text_px` of it, about 21 px, as large as a page's body text."""
    from PIL import Image

    with Image.open(path) as im:
        return im.size[0]


def displayed_text_px(natural_px, displayed_px, *, points=MIN_POINTS, dpi=DPI):
    """The size, in CSS pixels, of text drawn at ``points`` in a figure of ``dpi``
    whose image, ``natural_px`` wide, a page shows ``displayed_px`` wide.

    >>> round(displayed_text_px(1500, 1500), 2), round(displayed_text_px(1500, 675), 2)
    (20.83, 9.38)
    """
    if natural_px <= 0:
        raise ValueError(f"natural_px={natural_px!r}: an image is at least 1 px wide")
    return points * dpi / 72 * displayed_px / natural_px


def audit(fig, *, drawn=False):
    """What would make ``fig`` hard to read on a projector, as a list of sentences
    (empty when none): text under :data:`MIN_POINTS`, text cut off at the figure's
    edge, and legends drawn over the data of their axes. The figure is drawn first,
    unless ``drawn`` says its last draw (a save at its own dpi) laid it out as it is."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.legend import Legend

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    if not drawn:
        fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    problems = []
    for text in _drawn_texts(fig):
        label = text.get_text().strip()[:40]
        if text.get_fontsize() < MIN_POINTS - 1e-9:
            problems.append(f"text {label!r} is {text.get_fontsize():g} pt "
                            f"(at least {MIN_POINTS} pt)")
        if type(text).__name__ == "Text3D":  # placed by projection at draw time only
            continue
        ext = text.get_window_extent(renderer)
        if (ext.x0 < box.x0 - 1 or ext.y0 < box.y0 - 1 or ext.x1 > box.x1 + 1
                or ext.y1 > box.y1 + 1):
            problems.append(f"text {label!r} is cut off at the figure's edge")
    for ax in fig.axes:
        for legend in ax.findobj(Legend):
            if legend.get_visible() and _covers_data(ax, legend, renderer):
                problems.append(f"the legend of {ax.get_title()[:40]!r} covers data")
    return problems


def _drawn_texts(fig):
    """Every piece of text that a draw of ``fig`` shows: figure texts, titles, axis
    labels, the tick labels in view, texts inside axes and legends."""
    from matplotlib.legend import Legend

    texts = [*fig.texts]
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        texts += [ax.title, getattr(ax, "_left_title", None),
                  getattr(ax, "_right_title", None), *ax.texts]
        for axis in (ax.xaxis, ax.yaxis, getattr(ax, "zaxis", None)):
            if axis is None or not axis.get_visible():
                continue
            texts.append(axis.label)
            texts += _ticklabels_in_view(axis)
        for legend in [*ax.findobj(Legend)]:
            if legend.get_visible():
                texts += [*legend.get_texts(), legend.get_title()]
    for legend in fig.legends:
        texts += [*legend.get_texts(), legend.get_title()]
    return [t for t in texts if t is not None and t.get_visible()
            and t.get_text().strip()]


def _ticklabels_in_view(axis):
    """The tick labels a draw shows: those of ticks inside the view interval."""
    lo, hi = sorted(axis.get_view_interval())
    slack = (hi - lo) * 1e-9
    labels = []
    for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
        if lo - slack <= tick.get_loc() <= hi + slack:
            labels += [tick.label1, tick.label2]
    return labels


def _covers_data(ax, legend, renderer):
    """Whether a legend inside ``ax`` lies over any plotted point."""
    from matplotlib.collections import PathCollection
    from matplotlib.lines import Line2D

    lbox = legend.get_window_extent(renderer)
    if not ax.bbox.overlaps(lbox):
        return False
    points = []
    for line in ax.get_lines():
        if isinstance(line, Line2D) and line.get_visible() and len(line.get_xydata()):
            points.append(ax.transData.transform(line.get_xydata()))
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and coll.get_visible():
            offsets = coll.get_offsets()
            if len(offsets):
                points.append(coll.get_offset_transform().transform(offsets))
    if not points:
        return False
    xy = np.vstack(points)
    xy = xy[np.isfinite(xy).all(axis=1)]
    inside = ((xy[:, 0] >= lbox.x0) & (xy[:, 0] <= lbox.x1)
              & (xy[:, 1] >= lbox.y0) & (xy[:, 1] <= lbox.y1))
    return bool(inside.any())
