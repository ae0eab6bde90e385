"""Headless Debian chromium through Playwright, for the tests that open real pages.

Never ``playwright install``: the tests use the system's chromium (``.ci/run`` installs
it with apt-get) and skip, saying how to install, when it or playwright is missing.
"""

import os
import shutil

import pytest

CHROMIUM = os.environ.get("MARKONE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


def launch(playwright):
    """A headless chromium browser from a running ``sync_playwright()``."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def headless_chromium():
    """Generator for a browser fixture: yields a launched browser, closes it after."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed: pip install playwright (or "
                    "pip install '.[test]'); do not run 'playwright install', the test "
                    "uses Debian's chromium")
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed: apt-get install -y chromium (Debian; "
                    ".ci/run does this), or point MARKONE_CHROMIUM at a Chromium binary")
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


#: The screen of a room: a full-HD projector, where pages with figures are measured.
ROOM_VIEWPORT = {"width": 1920, "height": 1080}

_SHOWN_IMAGES = """() => {
  const text = document.querySelector('.md-content p') || document.querySelector('p');
  const bodyPx = parseFloat(getComputedStyle(text).fontSize);
  return [...document.images].map(img => ({
    src: img.currentSrc || img.src, natural: img.naturalWidth,
    shown: img.getBoundingClientRect().width, body: bodyPx}));
}"""


def figure_display_problems(page):
    """What makes the figures of the open ``page`` hard to read, as sentences (empty
    when none): an image shown smaller than its own size in pixels, and a figure whose
    smallest text (``MIN_POINTS`` at the PNG's dpi, which the figure audit guarantees)
    shows smaller than the page's body text. Local images only; the page must be
    loaded."""
    from urllib.parse import unquote, urlparse

    from PIL import Image

    from markone._internal.style import MIN_POINTS, displayed_text_px

    problems = []
    shown = page.evaluate(_SHOWN_IMAGES)
    for img in shown:
        name = img["src"].rsplit("/", 1)[-1]
        if not img["natural"]:
            problems.append(f"{name} did not load")
            continue
        if img["shown"] < img["natural"] - 0.5:
            problems.append(f"{name} is shown {img['shown']:.0f} px wide, smaller than "
                            f"its own {img['natural']} px")
        with Image.open(unquote(urlparse(img["src"]).path)) as im:
            dpi = im.info.get("dpi", (0,))[0]
        if dpi:  # a figure (screenshots and animations carry no dpi)
            px = displayed_text_px(img["natural"], img["shown"], dpi=round(dpi))
            if px < img["body"]:
                problems.append(f"{name}: its {MIN_POINTS} pt text shows at {px:.1f} px, "
                                f"smaller than the {img['body']:g} px body text")
    return problems
