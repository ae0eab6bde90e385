"""Headless Debian chromium through Playwright, for the tests that open real pages.

Never ``playwright install``: the tests use the system's chromium (``.ci/run`` installs
it with apt-get) and skip, saying how to install, when it or playwright is missing.
"""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

#: The Chromium the tests drive: ``MARKONE_CHROMIUM`` if set, else Debian's
#: ``chromium-headless-shell`` (the headless-only build of the same Chromium release, the
#: one Playwright itself runs for headless tests; ``.ci/run`` installs it), else Debian's
#: ``chromium``. The binary itself: Debian's ``/usr/bin/chromium-headless-shell`` is a
#: shell script that stays running as its parent. Issue 37: the headless shell has no
#: browser window code (a 0.22 GB binary, not 0.30 GB): its browser process held 55-70 MB
#: instead of 0.14-0.16 GB over the browser tests, with no utility process beside the
#: network one (13-17 MB), and its browser process used 7 s of CPU, not 20 s.
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
CHROMIUM = (os.environ.get("MARKONE_CHROMIUM")
            or (HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else None)
            or shutil.which("chromium") or "/usr/bin/chromium")
#: The features Playwright (1.65) turns off in the Chromium it launches. Chromium reads
#: only the last ``--disable-features`` of its command line, so :data:`CHROMIUM_ARGS`
#: repeats them with ours (``test_browser_launch.py`` fails, naming them, if a
#: Playwright release turns off one more).
PLAYWRIGHT_DISABLED_FEATURES = [
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose",
    "HttpsUpgrades", "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter",
    "PaintHolding", "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying",
    "AimEnabled", "PreconnectToSearch", "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion"]
#: The features Playwright (1.65) turns on, repeated by :data:`CHROMIUM_ARGS` with ours
#: for the same reason (Chromium reads only the last ``--enable-features``).
PLAYWRIGHT_ENABLED_FEATURES = ["CDPScreenshotNewSurface",
                               "SkipListAccountsWithoutGaiaCookies"]
#: ``NetworkServiceInProcess2``: Chromium's network service run in its browser process,
#: not in a utility process of its own (issue 37: that process held 27-34 MB; the
#: browser process holds about 10 MB more with it, the browser tests' median of
#: Chromium's processes with the driver 0.36 GB instead of 0.37 GB, their peak 0.43 GB
#: instead of 0.44-0.48 GB).
NETWORK_IN_PROCESS = ["NetworkServiceInProcess2"]
#: The address bar's pop-up, a page of Chromium's own (``chrome://omnibox-popup``) that
#: headless Chromium loads in a renderer of its own for each window it opens though no
#: one sees it (issue 37: about 80 MB at each moment of the browser tests).
NO_OMNIBOX_POPUP = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup",
                    "PreloadTopChromeWebUI"]
#: ``--js-flags=--lite-mode``: the pages' JavaScript (in the renderer processes) run by
#: V8's interpreter and baseline compiler, without its optimizing compilers and their
#: code (issue 37: a docs page with its search index built, then a full-page screenshot,
#: held 0.18 GB instead of 0.26-0.30 GB in its renderer; the renderers used no more CPU
#: over the browser tests, 20-24 s either way). ``--disable-site-isolation-trials``: the
#: pages tested (file:// and loopback ones) need no process of their own per site (issue
#: 37: four documentation pages opened in turn, Chromium's processes held 0.60 GB at
#: most instead of 0.71 GB). The same-origin rules the console's tests check are the
#: browser's either way. ``--disable-software-rasterizer``: no SwiftShader (the GPU
#: emulated on the CPU, which Playwright's ``--enable-unsafe-swiftshader`` allows) loaded
#: in the GPU process, which with ``--disable-gpu`` only composites the pages' frames;
#: the pages draw on 2D canvases, no WebGL (issue 37: the GPU process's own memory, a
#: docs page shown and screenshot, 53 MB instead of 63 MB).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-software-rasterizer", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic",
                 "--disable-site-isolation-trials", "--js-flags=--lite-mode",
                 "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES
                                                  + NO_OMNIBOX_POPUP),
                 "--enable-features=" + ",".join(PLAYWRIGHT_ENABLED_FEATURES
                                                 + NETWORK_IN_PROCESS)]
#: Options of the Node.js process that drives the browser (Playwright's driver), the
#: only V8 options Node accepts in ``NODE_OPTIONS`` that save memory (issue 37): young
#: objects collected after each MB, not each 16 MB (the driver held 0.20 GB by the end
#: of the browser tests; with this, about 25 MB less); ``--jitless``, its JavaScript
#: interpreted, no machine code made (24 documentation pages measured: the driver's
#: resident memory 108 MB instead of 121 MB, in each of three runs, 5 MB of it its own
#: and 8 MB of Node's compilers' code not loaded; over all the browser tests the driver
#: used 9.6 s of CPU instead of 6-7 s). Not kept: an old generation capped at 32 MB
#: (``--max-old-space-size=32``: 115 MB at most instead of 141 MB, but 15 s of the
#: driver's CPU instead of 9.6 s, collecting again and again; at 48 or 64 MB, or with
#: ``--v8-pool-size=1`` or ``MALLOC_ARENA_MAX=1``, no less memory).
DRIVER_NODE_OPTIONS = "--max-semi-space-size=1 --jitless"


def start_playwright():
    """``sync_playwright().start()``, its driver started with
    :data:`DRIVER_NODE_OPTIONS` (added to any ``NODE_OPTIONS`` of the environment, for
    the driver only: the environment is left as it was)."""
    from playwright.sync_api import sync_playwright

    before = os.environ.get("NODE_OPTIONS")
    os.environ["NODE_OPTIONS"] = f"{before or ''} {DRIVER_NODE_OPTIONS}".strip()
    try:
        return sync_playwright().start()
    finally:
        if before is None:
            del os.environ["NODE_OPTIONS"]
        else:
            os.environ["NODE_OPTIONS"] = before


def launch(playwright):
    """A headless chromium browser from a running ``sync_playwright()``."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


class SharedBrowser:
    """The run's one headless Chromium (issue 37: a Chromium holds about half a GB; two
    at once made the suite's peak). Launched when a test of the ``browser`` group first
    asks for it (the ``browser`` fixture of ``tests/conftest.py``), shared by the
    group's tests, each test's pages closed after it, and closed when the worker moves
    on to a test outside the group (:meth:`close`); a later browser test launches it
    again. Skips, saying how to install, when chromium or playwright is missing."""

    def __init__(self):
        self._playwright = None
        self._browser = None
        self.launches = 0

    @property
    def running(self):
        """Whether a browser is open."""
        return self._browser is not None

    def get(self, item):
        """The running browser (launched if need be) for the test ``item``, which must
        be marked ``browser`` (the tests so marked run on one worker, one after the
        other); fails the test, launching nothing, if it is not."""
        if item.get_closest_marker("browser") is None:
            pytest.fail(f"{item.nodeid} asks for the browser but is not marked "
                        "@pytest.mark.browser: mark it (or its module) so that it runs "
                        "with the other browser tests, on one worker", pytrace=False)
        if self._browser is None:
            try:
                import playwright.sync_api  # noqa: F401
            except ImportError:
                pytest.skip("playwright is not installed: pip install playwright (or "
                            "pip install '.[test]'); do not run 'playwright install', the "
                            "test uses Debian's chromium")
            if not os.path.exists(CHROMIUM):
                pytest.skip("chromium is not installed: apt-get install -y chromium "
                            "(Debian; .ci/run does this), or point MARKONE_CHROMIUM at a "
                            "Chromium binary")
            self._playwright = start_playwright()
            self._browser = KeptContexts(launch(self._playwright))
            self.launches += 1
        return self._browser

    def close_pages(self):
        """Close what a test opened (its pages, and the contexts it made itself), so
        that pages do not pile up in the browser the next tests share."""
        if self._browser is not None:
            self._browser.close_pages()

    def close(self):
        """Close the browser and Playwright's driver (nothing if none is running)."""
        if self._browser is not None:
            browser, self._browser = self._browser, None
            try:
                browser.close()
            finally:
                self._playwright.stop()
                self._playwright = None


#: The most documents one page loads (issue 37): a page's renderer process keeps much of
#: what each document it showed allocated, page closed or not, until the page closes
#: (the 48 pages of the documentation site walked in one page grew it to 0.3-0.48 GB,
#: its largest page alone takes 0.15 GB). A test that walks more documents opens them a
#: few at a time in fresh pages (:func:`pages_in_turn`); :meth:`KeptContexts.close_pages`
#: fails a test whose page loaded more.
DOCUMENTS_PER_PAGE = 4


def pages_in_turn(browser, urls, *, wait_until="load", **options):
    """``(page, url)`` for each of ``urls``, loaded in turn: each page (from
    ``browser.new_page(**options)``, a renderer process of its own) loads
    :data:`DOCUMENTS_PER_PAGE` of them, then is closed and a fresh one takes over.

    >>> from types import SimpleNamespace
    >>> class Shown(SimpleNamespace):
    ...     def goto(self, url, wait_until): self.urls.append(url)
    ...     def close(self): self.closed = True
    >>> opened = []
    >>> fake = SimpleNamespace(new_page=lambda: opened.append(Shown(urls=[])) or opened[-1])
    >>> [url for _, url in pages_in_turn(fake, "abcdefghij")] == list("abcdefghij")
    True
    >>> [("".join(p.urls), getattr(p, "closed", False)) for p in opened]
    [('abcd', True), ('efgh', True), ('ij', True)]
    """
    page = None
    try:
        for i, url in enumerate(urls):
            if i % DOCUMENTS_PER_PAGE == 0:
                if page is not None:
                    page.close()
                page = browser.new_page(**options)
            page.goto(url, wait_until=wait_until)
            yield page, url
    finally:
        if page is not None:
            page.close()


class KeptContexts:
    """A Playwright ``Browser`` whose :meth:`new_page` opens the page in a context kept
    for the run, one for each set of context options (issue 37: the first page of a
    fresh context costs about half a second of Chromium's work, a page in a kept one a
    third of it). Everything else (``new_context`` for a test that needs a context of
    its own: routes, downloads, an offline network) is the browser's. A kept context
    holds no state a test relies on: the pages tested keep nothing in cookies or
    storage, and each test's pages are closed after it (:meth:`close_pages`)."""

    def __init__(self, browser):
        self._browser = browser
        self._kept = {}
        self._opened = []  # the pages of new_page since close_pages, closed or not

    def __getattr__(self, name):
        return getattr(self._browser, name)

    def new_page(self, *, viewport=None, **options):
        """A new page in the kept context for ``options`` (``viewport`` is the page's:
        Playwright's default, 1280 x 720, when not given)."""
        key = repr(sorted(options.items()))
        context = self._kept.get(key)
        if context is None:
            context = self._kept[key] = self._browser.new_context(**options)
            context.on("close", lambda _: self._kept.pop(key, None))
        page = context.new_page()
        page.documents_loaded = 0
        page.on("load", _count_a_document)
        self._opened.append(page)
        if viewport is not None:
            page.set_viewport_size(viewport)
        return page

    def close_pages(self):
        """Close the pages of the kept contexts and every other context; then fail the
        test if one of the pages it opened with :meth:`new_page` loaded more than
        :data:`DOCUMENTS_PER_PAGE` documents."""
        kept = list(self._kept.values())
        for context in self._browser.contexts:
            if any(context is k for k in kept):
                for page in context.pages:
                    page.close()
            else:
                context.close()
        loaded = [page.documents_loaded for page in self._opened]
        self._opened.clear()
        if max(loaded, default=0) > DOCUMENTS_PER_PAGE:
            pytest.fail(f"one page loaded {max(loaded)} documents, more than "
                        f"{DOCUMENTS_PER_PAGE}: its renderer process keeps much of each "
                        "(issue 37); open them a few at a time with "
                        "_browser.pages_in_turn", pytrace=False)

    def close(self):
        """Close the browser."""
        self._kept.clear()
        self._browser.close()


def _count_a_document(page):
    page.documents_loaded += 1


#: The one browser of a worker, used only through the ``browser`` fixture.
SHARED = SharedBrowser()


#: The screen of a room: a full-HD projector.
ROOM_VIEWPORT = {"width": 1920, "height": 1080}
#: The screen of a common laptop (issue 37: figures were cut off at the right there).
LAPTOP_VIEWPORT = {"width": 1366, "height": 768}
#: Where pages with figures are measured, each with how large a figure's smallest text
#: must show there, as a share of the page's body text: in a room as large as the body
#: text (issue 29); on a laptop, read at arm's length, three quarters of it (12 px
#: against the documentation's 16 px), so that a wide figure may shrink to fit.
SCREENS = [pytest.param(ROOM_VIEWPORT, 1.0, id="room-1920x1080"),
           pytest.param(LAPTOP_VIEWPORT, 0.75, id="laptop-1366x768")]

_SHOWN_IMAGES = """() => {
  const text = document.querySelector('.md-content p') || document.querySelector('p');
  const bodyPx = parseFloat(getComputedStyle(text).fontSize);
  const view = document.documentElement.clientWidth;
  const cutBy = img => {  // px of the image outside the screen or a clipping box
    const r = img.getBoundingClientRect();
    let cut = Math.max(0, r.right - view, -r.left);
    for (let a = img.parentElement; a; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === 'visible') continue;
      const b = a.getBoundingClientRect();
      cut = Math.max(cut, r.right - (b.left + a.clientLeft + a.clientWidth),
                     b.left + a.clientLeft - r.left);
    }
    return cut;
  };
  return {sideways: document.documentElement.scrollWidth - view,
          images: [...document.images].map(img => ({
    src: img.currentSrc || img.src, natural: img.naturalWidth,
    shown: img.getBoundingClientRect().width, cut: cutBy(img), body: bodyPx}))};
}"""


def figure_display_problems(page, *, text_share=1.0):
    """What makes the figures of the open ``page`` hard to read, as sentences (empty
    when none): a page that scrolls sideways, an image cut off at the edge of the
    screen or of a box around it (one that would scroll), and a figure whose smallest
    text (``MIN_POINTS`` at the PNG's dpi, which the figure audit guarantees) shows
    smaller than ``text_share`` times the page's body text (a figure may shrink to fit
    the screen as long as its text stays that large; see :data:`SCREENS`). Local
    images only; the page must be loaded."""
    from urllib.parse import unquote, urlparse

    from PIL import Image

    from markone._internal.style import MIN_POINTS, displayed_text_px

    seen = page.evaluate(_SHOWN_IMAGES)
    problems = []
    if seen["sideways"] > 0:
        problems.append(f"the page scrolls sideways by {seen['sideways']} px")
    for img in seen["images"]:
        name = img["src"].rsplit("/", 1)[-1]
        if not img["natural"]:
            problems.append(f"{name} did not load")
            continue
        if img["cut"] > 0.5:
            problems.append(f"{name} is cut off by {img['cut']:.0f} px (it scrolls "
                            "sideways)")
        with Image.open(unquote(urlparse(img["src"]).path)) as im:
            dpi = im.info.get("dpi", (0,))[0]
        need = text_share * img["body"]
        if dpi:  # a figure (screenshots and animations carry no dpi)
            px = displayed_text_px(img["natural"], img["shown"], dpi=round(dpi))
            if px < need:
                problems.append(f"{name}: its {MIN_POINTS} pt text shows at {px:.1f} px, "
                                f"smaller than {need:g} px ({text_share:g} of the "
                                f"{img['body']:g} px body text)")
    return problems


#: Where a console page must not scroll sideways (issue 44): a common laptop, a room's
#: projector and a notebook cell 1,000 px wide.
CONSOLE_SCREENS = [pytest.param(LAPTOP_VIEWPORT, id="laptop-1366x768"),
                   pytest.param(ROOM_VIEWPORT, id="room-1920x1080"),
                   pytest.param({"width": 1000, "height": 800}, id="notebook-1000")]

_SIDEWAYS = """() => {
  const wide = (e) => e.scrollWidth - e.clientWidth;
  const found = [];
  const page = document.documentElement.scrollWidth - innerWidth;
  if (page > 0) found.push(`the page scrolls sideways by ${page} px`);
  for (const e of document.body.querySelectorAll('*')) {
    const x = getComputedStyle(e).overflowX;
    if ((x === 'auto' || x === 'scroll') && e.getClientRects().length && wide(e) > 1) {
      found.push(`#${e.id || e.tagName.toLowerCase()} scrolls sideways by ${wide(e)} px`);
    }
  }
  return found;
}"""


def sideways_scrolls(page):
    """What scrolls sideways in the open ``page``, as sentences (empty when nothing
    does): the page itself (``document.documentElement.scrollWidth`` beyond
    ``innerWidth``), or a box on it that scrolls its content sideways."""
    return page.evaluate(_SIDEWAYS)


#: The elements of the open page that a press of Tab stops at, in their order, as a
#: JavaScript expression (a group of radio buttons is one stop, its checked button;
#: the arrows move within it).
TAB_STOPS = """[...document.querySelectorAll(
    'button, input, select, textarea, summary, a[href], [tabindex]:not([tabindex="-1"])')]
  .filter((e) => e.checkVisibility() && !e.disabled && !(e.type === 'radio' && !e.checked))"""

_TAB_PLAN = f"""(target) => {{
  const stops = {TAB_STOPS};
  return [stops.indexOf(document.activeElement), stops.findIndex((e) => e.id === target),
          stops.length];
}}"""


def tab_to(page, element_id, limit=150):
    """Move the focus of the open ``page`` to ``element_id`` with the keyboard alone:
    Tab, or Shift+Tab when that is the shorter way, as many times as the page's order
    of :data:`TAB_STOPS` says (one round trip to the browser per press, none to look
    in between: issue 37), then one press at a time, looking after each, until it has
    the focus (``limit`` presses at most); fails if it never does."""
    at, goal, n = page.evaluate(_TAB_PLAN, element_id)
    if at < 0 and goal >= 0:   # the page has the focus: Tab goes on from where the
        page.keyboard.press("Tab")   # browser last was (a removed element, the top)
        at, goal, n = page.evaluate(_TAB_PLAN, element_id)
    key, presses = "Tab", 0
    if at >= 0 and goal >= 0:   # round the end of the page one press more, never less
        ahead = (goal - at) % n
        key, presses = ("Tab", ahead) if ahead <= n - ahead else ("Shift+Tab", n - ahead)
    for _ in range(presses):
        page.keyboard.press(key)
    for _ in range(limit + 1):
        if page.evaluate("document.activeElement.id") == element_id:
            return
        page.keyboard.press(key)
    raise AssertionError(f"{key} never reached #{element_id}")


def refresh_docs_screenshot(new_page, serve, save_screenshot, out):
    """Refresh a docs figure of the console: in a fresh headless chromium, a page from
    ``new_page(browser)`` and a console from ``serve(run_file)`` make a full-page PNG
    by ``save_screenshot(page, server, png)``, written to ``out`` at two thirds of its
    size, in 256 colours."""
    from PIL import Image
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
        browser = launch(pw)
        page, _ = new_page(browser)
        server = serve(Path(tmp) / "run.json")
        try:
            shot = save_screenshot(page, server, Path(tmp) / "shot.png")
        finally:
            server.close()
            browser.close()
        img = Image.open(shot).convert("RGB")
        img = img.resize((img.width * 2 // 3, img.height * 2 // 3), Image.LANCZOS)
        img.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)
    print(out, Path(out).stat().st_size, "bytes")
