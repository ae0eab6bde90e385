"""The documentation's figures on a room's screen and on a laptop's (issues 29 and 37):
every page of the built site that shows a figure, opened from disk in headless
Chromium at 1920 x 1080 and at 1366 x 768, scrolls nowhere sideways and cuts no figure
off (at 1366 px wide the wide figures were cut off at the right, each in a box that
scrolled), and shows each figure's smallest text at least as large as the page's body
text in a room (it was about 45 % in the gallery: 9 px labels) and three quarters of
it on a laptop (``_browser.SCREENS``)."""

import re

import pytest

from _browser import SCREENS, figure_display_problems, pages_in_turn

pytestmark = pytest.mark.browser


def _pages_with_figures(site):
    return sorted(p for p in site.rglob("*.html")
                  if re.search(r'<img[^>]+src="[^"]*figures/', p.read_text()))


def test_every_page_shows_its_figures_whole_and_readable(browser, site):
    pages = _pages_with_figures(site)
    assert site / "gallery.html" in pages and len(pages) >= 5
    problems = []
    # a few pages at a time in a fresh page: one page's renderer keeps much of each
    # document it showed (issue 37)
    paths = {path.as_uri(): path.relative_to(site) for path in pages}
    for page, url in pages_in_turn(browser, paths):
        for screen in SCREENS:   # each page loaded once, laid out on each screen
            viewport, text_share = screen.values
            page.set_viewport_size(viewport)
            problems += [f"{paths[url]} on {screen.id}: {p}"
                         for p in figure_display_problems(page, text_share=text_share)]
    assert problems == []
