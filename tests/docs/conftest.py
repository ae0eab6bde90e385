"""Fixtures of the documentation tests: the site, built once per session, and its
pages as headless Chromium shows them, opened once per session."""

import os
import re
import subprocess
import sys
from dataclasses import dataclass

import pytest

from _browser import SCREENS, figure_display_problems, pages_in_turn
from _paths import ROOT


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The documentation site built with ``mkdocs build --strict`` into a temporary
    folder (skipped when MkDocs is not installed)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(out)], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    return out


@dataclass(frozen=True)
class ShownPage:
    """One page of the site as Chromium showed it: its title, how many ``article h1``
    it has, and, for a page with figures, what makes them hard to read on each screen
    of ``_browser.SCREENS`` (screen id -> sentences; None for a page without)."""

    title: str
    headings: int
    figure_problems: dict | None


@dataclass(frozen=True)
class SiteTour:
    """The pages the navigation of ``index.html`` links to (URLs without anchors) and
    every page opened (those and the pages with figures), URL -> :class:`ShownPage`."""

    nav: list
    shown: dict


def pages_with_figures(site):
    """The pages of the built ``site`` that show a figure of ``docs/figures/``."""
    return sorted(p for p in site.rglob("*.html")
                  if re.search(r'<img[^>]+src="[^"]*figures/', p.read_text()))


def tour_site(browser, site):
    """Open every page of the navigation and every page with figures from disk, once
    each (issue 37: the navigation's test and the figures' test each opened them, about
    half of the browser tests' Chromium work), without JavaScript: the theme's scripts
    (the search index built anew on every page, about half of Chromium's work per page)
    change neither the links, the headings nor where a figure shows and how large (the
    figures' measurements are the same with scripts on); the search and the pages'
    scripts are checked by ``test_docs_offline.py``."""
    page = browser.new_page(java_script_enabled=False)
    page.goto((site / "index.html").as_uri())
    links = page.eval_on_selector_all(
        "nav.md-nav--primary a.md-nav__link[href]", "els => els.map(e => e.href)")
    page.close()
    nav = sorted({h.split("#")[0] for h in links if h.startswith("file:")})
    with_figures = {path.as_uri() for path in pages_with_figures(site)}
    shown = {}
    # a few pages at a time in a fresh page: one page's renderer keeps much of each
    # document it showed (issue 37)
    for page, url in pages_in_turn(browser, sorted(set(nav) | with_figures),
                                   java_script_enabled=False):
        problems = None
        if url in with_figures:   # each page loaded once, laid out on each screen
            problems = {}
            for screen in SCREENS:
                viewport, text_share = screen.values
                page.set_viewport_size(viewport)
                problems[screen.id] = figure_display_problems(page, text_share=text_share)
        shown[url] = ShownPage(page.title(), page.locator("article h1").count(), problems)
    return SiteTour(nav, shown)


@pytest.fixture(scope="session")
def _site_tours():
    return []


@pytest.fixture
def site_tour(browser, site, _site_tours):
    """:func:`tour_site` of the session's site, made by the first browser test that
    asks for it (the ``browser`` fixture is each test's) and kept for the others."""
    if not _site_tours:
        _site_tours.append(tour_site(browser, site))
    return _site_tours[0]
