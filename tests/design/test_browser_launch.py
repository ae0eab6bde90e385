"""The run's one Chromium and its driver hold no more than the browser tests need
(issue 37, ``tests/_browser.py``): no address-bar pop-up page, which headless Chromium
otherwise renders in a process of its own for each window (about 80 MB); Playwright's
own choice of disabled features kept (Chromium reads only the last
``--disable-features``); the Node.js driver collecting its young objects each MB."""

import os
from pathlib import Path

import _browser
import pytest

pytestmark = pytest.mark.browser


def _descendants():
    """``pid -> command line (its arguments)`` of every process under this one."""
    parents, commands = {}, {}
    for entry in Path("/proc").iterdir():
        try:
            parents[int(entry.name)] = int(
                (entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            commands[int(entry.name)] = (entry / "cmdline").read_bytes().split(b"\0")
        except (ValueError, OSError):  # not a process, or it ended while we looked
            continue
    found, todo = {}, [os.getpid()]
    while todo:
        pid = todo.pop()
        for child, parent in parents.items():
            if parent == pid:
                found[child] = [arg.decode() for arg in commands.get(child, []) if arg]
                todo.append(child)
    return found


def _features(args):
    return [set(arg.split("=", 1)[1].split(",")) for arg in args
            if arg.startswith("--disable-features=")]


def test_chromium_keeps_playwrights_disabled_features_and_adds_ours(browser):
    browser.new_page()
    chromium = [args for args in _descendants().values()
                if "--remote-debugging-pipe" in args]
    assert len(chromium) == 1
    *theirs, ours = _features(chromium[0])
    missing = set().union(*theirs) - ours
    assert missing == set(), ("add them to PLAYWRIGHT_DISABLED_FEATURES in "
                              f"tests/_browser.py: {sorted(missing)}")
    assert set(_browser.NO_OMNIBOX_POPUP) <= ours


def test_no_page_of_the_address_bar_is_rendered(browser):
    page = browser.new_page()
    page.goto("about:blank")
    targets = browser.new_browser_cdp_session().send("Target.getTargets")["targetInfos"]
    assert [t["url"] for t in targets if t["type"] != "page"] == []
    assert [args[1] for args in _descendants().values()
            if "--top-chrome-webui" in args] == []


def test_the_driver_alone_runs_with_a_small_young_generation(browser):
    driver = [pid for pid, args in _descendants().items()
              if args[-1:] == ["run-driver"]]
    assert len(driver) == 1
    environ = Path(f"/proc/{driver[0]}/environ").read_bytes().split(b"\0")
    assert b"NODE_OPTIONS=" + _browser.DRIVER_NODE_OPTIONS.encode() in environ
    assert _browser.DRIVER_NODE_OPTIONS not in os.environ.get("NODE_OPTIONS", "")
