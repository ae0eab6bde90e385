"""The figure style and its audit (markone._internal.style): what makes a figure unreadable in a
room is found, and every figure markone writes is drawn at 150 dpi (issue 15)."""

import pytest
from PIL import Image

from markone._internal import style as _style
from markone._internal.style import (DPI, FigureAuditError, audit, display_width_px,
                                     displayed_text_px, legend_outside, new_figure,
                                     save_figure)


def test_a_clean_figure_passes():
    fig, (ax,) = new_figure(width=4, height=3)
    ax.plot([0, 1, 2], [0, 1, 0], label="data")
    legend_outside(ax)
    ax.set(title="three points", xlabel="x (cm)", ylabel="y (cm)")
    assert audit(fig) == []


def test_small_text_is_found():
    fig, (ax,) = new_figure(width=4, height=3)
    ax.set_title("tiny", fontsize=7)
    assert any("'tiny' is 7 pt" in p for p in audit(fig))


def test_text_cut_off_at_the_edge_is_found():
    fig, (ax,) = new_figure(width=2, height=2)
    fig.text(0.9, 0.5, "a sentence far too long to fit on this figure")
    assert any("cut off" in p for p in audit(fig))


def test_a_legend_over_the_data_is_found():
    fig, (ax,) = new_figure(width=4, height=3)
    ax.plot([0, 1], [1, 1], "o", label="points in the upper left")
    ax.plot([0.05, 0.1], [1, 0.99], "s", label="more points there")
    ax.set_xlim(0, 1), ax.set_ylim(0, 1.05)
    ax.legend(loc="upper left")
    assert any("covers data" in p for p in audit(fig))


def test_strict_save_refuses_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(_style, "STRICT", True)
    fig, (ax,) = new_figure(width=4, height=3)
    ax.set_title("tiny", fontsize=6)
    with pytest.raises(FigureAuditError, match="tiny"):
        save_figure(fig, tmp_path / "bad.png")
    assert not list(tmp_path.iterdir())


def test_saved_png_has_the_resolution_and_size_it_claims(tmp_path):
    fig, (ax,) = new_figure(width=4, height=3)
    path = save_figure(fig, tmp_path / "f.png")
    with Image.open(path) as im:
        assert im.size == (4 * DPI, 3 * DPI)
        assert round(im.info["dpi"][0]) == DPI
    assert display_width_px(path) == 4 * DPI  # shown at its own size in pixels
    assert displayed_text_px(4 * DPI, display_width_px(path)) >= 20  # body text, demo


def test_displayed_text_scales_with_the_image():
    assert displayed_text_px(1000, 1000, points=72, dpi=100) == 100
    assert displayed_text_px(1000, 450, points=72, dpi=100) == 45
    with pytest.raises(ValueError, match="natural_px=0"):
        displayed_text_px(0, 100)


def test_a_checked_save_draws_once_and_still_finds_each_fault(tmp_path):
    """The audit of a checked save reads the draw the save made (issue 37: it drew
    the figure a second time), and finds each kind of fault from it."""
    draws = []
    fig, (ax,) = new_figure(width=2, height=2)
    fig.canvas.mpl_connect("draw_event", draws.append)
    save_figure(fig, tmp_path / "unchecked.png", check=False)
    saving = len(draws)   # the draws of a save (matplotlib's layout pass and its own)
    save_figure(fig, tmp_path / "clean.png", check=True)
    assert len(draws) == 2 * saving
    ax.plot([0, 1], [1, 1], "o", label="points in the upper left")
    ax.set_xlim(0, 1), ax.set_ylim(0, 1.05)
    ax.legend(loc="upper left")
    ax.set_title("tiny", fontsize=7)
    fig.text(0.9, 0.5, "a sentence far too long to fit on this figure")
    with pytest.raises(FigureAuditError) as refused:
        save_figure(fig, tmp_path / "bad.png", check=True)
    assert len(draws) == 3 * saving and not (tmp_path / "bad.png").exists()
    assert ["'tiny' is 7 pt", "cut off", "covers data"] == [
        s for s in ["'tiny' is 7 pt", "cut off", "covers data"] if s in str(refused.value)]
