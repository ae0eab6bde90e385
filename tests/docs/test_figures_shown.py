"""The documentation's figures on a room's screen and on a laptop's (issues 29 and 37):
every page of the built site that shows a figure, opened from disk in headless
Chromium at 1920 x 1080 and at 1366 x 768, scrolls nowhere sideways and cuts no figure
off (at 1366 px wide the wide figures were cut off at the right, each in a box that
scrolled), and shows each figure's smallest text at least as large as the page's body
text in a room (it was about 45 % in the gallery: 9 px labels) and three quarters of
it on a laptop (``_browser.SCREENS``)."""

import pytest

pytestmark = pytest.mark.browser


def test_every_page_shows_its_figures_whole_and_readable(site_tour, site):
    # each page opened once, laid out on each screen, without JavaScript (conftest.py's
    # tour_site)
    with_figures = {url: shown.figure_problems for url, shown in site_tour.shown.items()
                    if shown.figure_problems is not None}
    assert (site / "gallery.html").as_uri() in with_figures and len(with_figures) >= 5
    problems = [f"{url.removeprefix(site.as_uri() + '/')} on {screen}: {p}"
                for url, screens in sorted(with_figures.items())
                for screen, found in screens.items() for p in found]
    assert problems == []
