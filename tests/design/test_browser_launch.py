"""The run's one Chromium and its driver hold no more than the browser tests need
(issue 37, ``tests/_browser.py``): Debian's headless shell when it is installed (a
browser process of about 60 MB, not 0.15 GB); no address-bar pop-up page, which headless
Chromium otherwise renders in a process of its own for each window (about 80 MB);
Playwright's own choice of disabled and enabled features kept (Chromium reads only the
last ``--disable-features`` and ``--enable-features``); the network service in the
browser process, not in one of its own; no GPU emulation loaded; the pages' JavaScript
run without V8's optimizing compilers; the Node.js driver collecting its young objects
each MB and making no machine code."""

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


def _features(args, switch="--disable-features="):
    return [set(arg.split("=", 1)[1].split(",")) for arg in args if arg.startswith(switch)]


@pytest.mark.parametrize(("switch", "kept", "added"), [
    ("--disable-features=", "PLAYWRIGHT_DISABLED_FEATURES", "NO_OMNIBOX_POPUP"),
    ("--enable-features=", "PLAYWRIGHT_ENABLED_FEATURES", "NETWORK_IN_PROCESS")])
def test_chromium_keeps_playwrights_features_and_adds_ours(browser, switch, kept, added):
    browser.new_page()
    chromium = [args for args in _descendants().values()
                if "--remote-debugging-pipe" in args]
    assert len(chromium) == 1
    *theirs, ours = _features(chromium[0], switch)
    missing = set().union(*theirs) - ours
    assert missing == set(), f"add them to {kept} in tests/_browser.py: {sorted(missing)}"
    assert set(getattr(_browser, added)) <= ours


def test_the_gpu_process_loads_no_gpu_emulation(browser):
    browser.new_page().goto("about:blank")
    gpu = [pid for pid, args in _descendants().items()
           if "--type=gpu-process" in " ".join(args)]
    assert gpu, "no GPU process: update this test (and tests/_browser.py's comments)"
    maps = "".join(Path(f"/proc/{pid}/maps").read_text() for pid in gpu)
    assert "swiftshader" not in maps, "add --disable-software-rasterizer"


def test_the_network_service_runs_in_the_browser_process(browser):
    browser.new_page().goto("about:blank")
    assert [args for args in _descendants().values()
            if "--utility-sub-type=network.mojom.NetworkService" in " ".join(args)] == []


def test_no_page_of_the_address_bar_is_rendered(browser):
    page = browser.new_page()
    page.goto("about:blank")
    targets = browser.new_browser_cdp_session().send("Target.getTargets")["targetInfos"]
    assert [t["url"] for t in targets if t["type"] != "page"] == []
    assert [args[1] for args in _descendants().values()
            if "--top-chrome-webui" in args] == []


def _driver():
    driver = [pid for pid, args in _descendants().items()
              if args[-1:] == ["run-driver"]]
    assert len(driver) == 1
    return driver[0]


def test_the_driver_alone_runs_with_a_small_young_generation(browser):
    environ = Path(f"/proc/{_driver()}/environ").read_bytes().split(b"\0")
    assert b"NODE_OPTIONS=" + _browser.DRIVER_NODE_OPTIONS.encode() in environ
    assert "--max-semi-space-size=1" in _browser.DRIVER_NODE_OPTIONS.split()
    assert _browser.DRIVER_NODE_OPTIONS not in os.environ.get("NODE_OPTIONS", "")


def test_the_driver_makes_no_machine_code(browser):
    # --jitless (issue 37: about 28 MB less): V8 then maps no memory it could run,
    # where its compilers would put their code (an anonymous executable mapping)
    browser.new_page().evaluate("[1, 2, 3].map((x) => x * x)")
    maps = Path(f"/proc/{_driver()}/maps").read_text().splitlines()
    made = [line for line in maps if "x" in line.split()[1] and len(line.split()) < 6]
    assert made == [], "the driver compiles to machine code: add --jitless"


def _browser_process():
    found = [pid for pid, args in _descendants().items()
             if "--remote-debugging-pipe" in args]
    assert len(found) == 1
    return found[0]


def test_the_headless_shell_runs_when_installed(browser):
    if os.environ.get("MARKONE_CHROMIUM"):
        pytest.skip("MARKONE_CHROMIUM names the Chromium to run")
    if not os.path.exists(_browser.HEADLESS_SHELL):
        pytest.skip("chromium-headless-shell is not installed: apt-get install -y "
                    "chromium-headless-shell (Debian; .ci/run does this)")
    browser.new_page()
    assert os.path.realpath(f"/proc/{_browser_process()}/exe") == _browser.HEADLESS_SHELL


def test_ci_installs_the_headless_shell():
    ci = (Path(__file__).parents[2] / ".ci" / "run").read_text()
    assert "apt-get install -y -qq chromium chromium-headless-shell" in ci


def test_the_pages_javascript_runs_without_optimizing_compilers(browser):
    browser.new_page().goto("about:blank")
    renderers = [" ".join(args) for args in _descendants().values()
                 if "--type=renderer" in " ".join(args)]
    assert renderers and all("--js-flags=--lite-mode" in r for r in renderers)


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
