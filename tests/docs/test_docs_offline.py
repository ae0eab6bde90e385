"""The documentation site opened from disk, as a classroom without network would
(issue 15): built with ``mkdocs build``, loaded from a file:// URL in headless chromium,
every navigation link opens a page (not a directory listing), search finds pages, and
nothing is fetched from the network."""


import pytest
from _browser import pages_in_turn

pytestmark = pytest.mark.browser


def test_every_nav_link_opens_a_page_from_disk(browser, site):
    # without JavaScript: what is checked is the page each link opens, and the theme's
    # scripts (the search index built anew on every page, about half of Chromium's work
    # per page; issue 37) change neither the links nor the pages' headings; the search
    # and the pages' scripts are checked by the tests below
    # a few pages at a time in a fresh page (issue 37: the 48 in one grew its renderer
    # process to 0.3-0.48 GB, the suite's largest process)
    page = browser.new_page(java_script_enabled=False)
    page.goto((site / "index.html").as_uri())
    links = page.eval_on_selector_all(
        "nav.md-nav--primary a.md-nav__link[href]", "els => els.map(e => e.href)")
    page.close()
    targets = sorted({h.split("#")[0] for h in links if h.startswith("file:")})
    assert len(targets) >= 20, targets          # every page of the nav
    folders = [url for url in targets if not url.endswith(".html")]
    assert folders == [], "folders, which open as listings"
    for page, url in pages_in_turn(browser, targets, wait_until="load",
                                   java_script_enabled=False):
        assert "Index of" not in page.title()
        assert page.locator("article h1").count() >= 1, url


def test_clicking_through_the_nav_stays_on_pages(browser, site):
    page = browser.new_page()
    page.goto((site / "index.html").as_uri())
    page.click("nav.md-nav--primary a.md-nav__link[href$='teaching.html']")
    assert page.url.endswith("teaching.html")
    assert "Teaching with markone" in page.inner_text("article h1")
    page.close()


def test_pages_fetch_nothing_from_the_network(browser, site):
    """Figures, styles and scripts all come from disk, the search worker's shim too
    (vendored in docs/javascripts/; the theme would fetch it from unpkg.com)."""
    page = browser.new_page()
    remote = []
    page.on("request", lambda r: remote.append(r.url)
            if not r.url.startswith(("file:", "data:", "blob:")) else None)
    for name in ("index.html", "teaching.html", "gallery.html", "machine.html"):
        page.goto((site / name).as_uri())
        assert page.locator("article img").count() + page.locator("article h1").count()
    assert remote == []
    page.close()


@pytest.mark.parametrize("start", ["index.html", "api/index.html"])
def test_search_works_from_disk(browser, site, start):
    """Browsers refuse Web Workers on file:// URLs; with the vendored shim the search
    box still answers, from the top page and from a page one folder down (a small one:
    the API pages of 0.3 to 1.2 MB of HTML took Chromium's renderer from 0.24 to 0.27 GB
    with the search index built, issue 37)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    remote = []
    page.on("request", lambda r: remote.append(r.url)
            if not r.url.startswith(("file:", "data:", "blob:")) else None)
    page.goto((site / start).as_uri())
    page.focus("input.md-search__input")
    page.keyboard.type("Novikoff")
    page.wait_for_selector(".md-search-result__item", timeout=20_000)
    assert "matching document" in page.inner_text(".md-search-result__meta")
    titles = page.locator(".md-search-result__item h1").all_inner_texts()
    assert any("Novikoff" in t for t in titles), titles
    assert remote == []
    page.close()
