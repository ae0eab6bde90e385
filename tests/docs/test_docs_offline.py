"""The documentation site opened from disk, as a classroom without network would
(issue 15): built with ``mkdocs build``, loaded from a file:// URL in headless chromium,
every navigation link opens a page (not a directory listing), search finds pages, and
nothing is fetched from the network."""


import pytest


pytestmark = pytest.mark.browser


def test_every_nav_link_opens_a_page_from_disk(site_tour):
    # each page opened without JavaScript (conftest.py's tour_site): the search and the
    # pages' scripts are checked by the tests below
    assert len(site_tour.nav) >= 20, site_tour.nav          # every page of the nav
    folders = [url for url in site_tour.nav if not url.endswith(".html")]
    assert folders == [], "folders, which open as listings"
    for url in site_tour.nav:
        assert "Index of" not in site_tour.shown[url].title
        assert site_tour.shown[url].headings >= 1, url


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
