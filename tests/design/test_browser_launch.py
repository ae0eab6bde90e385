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


def _renderers():
    # a process forked by Chromium's zygote rewrites its command line as one string
    return {pid for pid, args in _descendants().items()
            if "--type=renderer" in " ".join(args)}


def test_a_page_that_loads_too_many_documents_fails_its_test(browser, tmp_path):
    # issue 37: the documentation site's 48 pages walked in one page grew its renderer
    # process to 0.3-0.48 GB, the largest process of the suite
    doc = tmp_path / "doc.html"
    doc.write_text("<!DOCTYPE html><title>doc</title><p>text</p>")
    page = browser.new_page()
    for _ in range(_browser.DOCUMENTS_PER_PAGE):
        page.goto(doc.as_uri())
    browser.close_pages()   # as many as allowed
    page = browser.new_page()
    for _ in range(_browser.DOCUMENTS_PER_PAGE + 1):
        page.goto(doc.as_uri())
    page.close()            # closed by the test or not, it is counted
    with pytest.raises(pytest.fail.Exception, match=(
            f"loaded {_browser.DOCUMENTS_PER_PAGE + 1} documents.*pages_in_turn")):
        browser.close_pages()


def test_pages_in_turn_shows_each_few_documents_in_a_fresh_renderer(browser, tmp_path):
    # what pages_in_turn saves rests on a closed page's renderer process ending
    docs = []
    for i in range(2 * _browser.DOCUMENTS_PER_PAGE):
        docs.append(tmp_path / f"doc{i}.html")
        docs[-1].write_text(f"<!DOCTYPE html><title>doc {i}</title><p>text</p>")
    seen = []
    for page, url in _browser.pages_in_turn(browser, [doc.as_uri() for doc in docs]):
        assert page.title() == f"doc {len(seen)}"
        seen.append((page, _renderers()))
    pages = list(dict.fromkeys(page for page, _ in seen))
    assert len(pages) == 2 and all(page.is_closed() for page in pages)
    first = seen[0][1]
    assert first and all(renderers == first for _, renderers in seen[:4])
    assert not first & seen[-1][1], "the first page's renderer still runs the second"
