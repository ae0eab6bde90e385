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
