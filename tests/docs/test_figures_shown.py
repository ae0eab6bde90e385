"""The documentation's figures as a room sees them (issue 29): every page of the built
site that shows a figure, opened from disk in headless Chromium on a full-HD screen,
shows each figure at its own size in pixels or larger, with its smallest text at least
as large as the page's body text (it was about 45 % in the gallery: 9 px labels)."""

import re

import pytest

from _browser import ROOM_VIEWPORT, figure_display_problems, headless_chromium

pytestmark = pytest.mark.browser
browser = pytest.fixture(scope="module")(headless_chromium)


def _pages_with_figures(site):
    return sorted(p for p in site.rglob("*.html")
                  if re.search(r'<img[^>]+src="[^"]*figures/', p.read_text()))


def test_the_gallery_and_every_page_show_figures_for_a_room(browser, site):
    pages = _pages_with_figures(site)
    assert site / "gallery.html" in pages and len(pages) >= 5
    page = browser.new_page(viewport=ROOM_VIEWPORT)
    problems = []
    for path in pages:
        page.goto(path.as_uri(), wait_until="load")
        problems += [f"{path.relative_to(site)}: {p}" for p in figure_display_problems(page)]
    page.close()
    assert problems == []


def test_the_gallery_shows_its_figures_whole(browser, site):
    """On the gallery (no side bars) a figure needs no scrolling on a full-HD screen."""
    page = browser.new_page(viewport=ROOM_VIEWPORT)
    page.goto((site / "gallery.html").as_uri(), wait_until="load")
    cut = page.evaluate("""[...document.images].filter(img => {
        const box = img.parentElement.getBoundingClientRect();
        return img.getBoundingClientRect().right > box.right + 0.5;
    }).map(img => img.src.split('/').pop())""")
    page.close()
    assert cut == []
