"""The console's playground in a real headless browser (Debian's chromium + Playwright;
issue 44): paste a table, click points onto the plane, read the exact answers, train
the core and the Mark I side by side, save and load the session, export PNG, SVG, the
certificate (checked by ``markone verify check``) and the replay page (opened from
file:// with the network cut off). What the page shows is compared with the
playground behind the server.

Run ``python tests/markone/hardware/test_playground_browser.py`` to refresh
docs/figures/console-playground.png.
"""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from markone.cli import main
from markone.console.playground import ANALYST
from _browser import CONSOLE_SCREENS, refresh_docs_screenshot, sideways_scrolls
from test_console_browser import new_page, serve
from test_playground import GatedAnalyst
from _paths import ROOT

pytestmark = pytest.mark.browser

DOCS_SCREENSHOT = ROOT / "docs" / "figures" / "console-playground.png"
XOR = "x,y,class\n0,0,a\n0,1,b\n1,0,b\n1,1,a\n"
AND = "x,y,class\n0,0,no\n0,1,no\n1,0,no\n1,1,yes\n"

def serve_playground(out, analyst=ANALYST):
    return serve(out, analyst=analyst)


@pytest.fixture
def console(tmp_path):
    with serve_playground(tmp_path / "run.json") as server:
        yield server


@pytest.fixture
def page(browser):
    pg, errors = new_page(browser)
    yield pg
    pg.close()
    refused = "the server responded with a status of 400"   # a bad upload, on purpose
    assert not [e for e in errors if refused not in e], f"the page logged errors: {errors}"


def settled(page):
    page.wait_for_function("!window.markonePlayground.busy()")
    return page.evaluate("window.markonePlayground.state()")


def content(state):
    """A state without its generation (a count of the changes that led to it)."""
    return {k: v for k, v in state.items() if k != "generation"}


def use_table(page, text):
    page.fill("#csv", text)
    page.click("#use-csv")
    return settled(page)


def download(page, button, folder):
    with page.expect_download() as info:
        page.click(button)
    path = Path(folder) / info.value.suggested_filename
    info.value.save_as(path)
    return path


def test_paste_click_and_read_the_exact_answers(page, console):
    ground = console.playground
    page.goto(console.url + "playground")
    state = use_table(page, XOR)
    assert state["data"]["n"] == 4 and page.inner_text("#cls0") == "a"
    page.wait_for_function("window.markonePlayground.cycle() !== null")
    assert "Not separable" in page.inner_text("#panel")
    assert "Gordan multipliers λ ≥ 0 on 4 points" in page.inner_text("#panel")
    assert "period of 4 updates (1 pass)" in page.inner_text("#cycle")
    rings = [s for s in page.evaluate("window.markonePlayground.scene().shapes")
             if s["t"] == "circle" and s.get("stroke") == "#ff5c5c"]
    assert len(rings) == 4   # every point carries a multiplier

    # a real mouse click on the plane adds a point of the chosen class there
    page.check("input[name=cls][value='1']")
    box = page.locator("#plane").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.9, box["y"] + box["height"] * 0.1)
    state = settled(page)
    assert state["data"]["n"] == 5 and ground.labels[-1] == 1
    x, y = (float(v) for v in ground.X[-1])
    # the plane shows [-1, 1] and the data, 8 % wider: [-1.16, 1.16] on each axis;
    # a click lands on the nearest hundredth
    assert x == y == pytest.approx(-1.16 + 0.9 * 2.32, abs=0.006)
    assert state["data"]["X"][-1] == [x, y]
    assert state["panel"] == json.loads(json.dumps(ground.panel()))
    assert page.evaluate("window.markonePlayground.lastMs()") > 0

    # separable data: the witness line is drawn, the bound is shown
    use_table(page, AND)
    lines = [s for s in page.evaluate("window.markonePlayground.scene().shapes")
             if s["t"] == "line" and s["stroke"] == "#3ddc84"]
    assert len(lines) == 1 and "Separable" in page.inner_text("#panel")
    assert "Novikoff bound: at most" in page.inner_text("#panel")

    # the core and the Mark I side by side
    page.fill("#epochs", "20")
    page.click("#train")
    state = settled(page)
    run = ground.run
    assert state["run"] == json.loads(json.dumps(run))
    assert f"converged in {run['core']['epochs']} passes" in page.inner_text("#core")
    assert f"right on {run['machine']['right']} of 4" in page.inner_text("#machine")


def test_a_bad_upload_says_what_is_wrong_on_the_page(page, console):
    page.goto(console.url + "playground")
    use_table(page, AND)
    use_table(page, "x,class\n1,a\n2,b\n3,c\n")
    assert page.is_visible("#error")
    assert "3 classes (a, b, c); the playground takes two" in page.inner_text("#error")
    assert page.evaluate("window.markonePlayground.state().data.n") == 4
    use_table(page, XOR)
    assert not page.is_visible("#error")


def test_figures_from_files(page, console, tmp_path):
    files = []
    for name, rows in (("top_1.txt", {0, 1}), ("top_2.txt", {1, 2}), ("bottom_1.txt", {18})):
        path = tmp_path / name
        path.write_text("\n".join(("#" if r in rows else ".") * 20 for r in range(20)))
        files.append(path)
    page.goto(console.url + "playground")
    page.set_input_files("#figure-files", [str(f) for f in files])
    page.wait_for_function("window.markonePlayground.state().data.kind === 'figures'")
    state = settled(page)
    assert state["data"]["kind"] == "figures" and state["data"]["classes"] == ["bottom", "top"]
    assert "the figures, framed by class" in page.inner_text("#plane-hint")


def test_a_click_during_a_cycle_search_is_answered_and_its_cycle_shown_alone(page, console):
    """The page asks for the cycle of XOR; while that search is held at a gate, a click
    is answered (the panel of five points drawn); once released, the superseded
    search's cycle (of four points) is never shown, the five points' is."""
    ground = console.playground
    gate = ground.analyst = GatedAnalyst(ground.analyst)
    page.goto(console.url + "playground")
    page.fill("#csv", XOR)
    page.click("#use-csv")
    gate.started.wait()   # the page's search for XOR's cycle is under way
    try:   # the click's promise ends with its own cycle: not waited for here
        page.evaluate("() => { window.markonePlayground.clickAt(0.5, 0.5); }")
        page.wait_for_function("window.markonePlayground.state().data.n === 5")
        assert page.evaluate("window.markonePlayground.cycle()") is None
        assert page.inner_text("#panel").startswith("Not separable")
    finally:
        gate.release.set()
    page.wait_for_function("window.markonePlayground.cycle() !== null")
    settled(page)
    shown = page.evaluate("window.markonePlayground.cycle()")
    assert gate.searched == [4, 5]
    assert shown == dict(gate.real.cycle(ground.X, ground.signs()), available=True)


def test_save_load_and_export_everything(page, console, tmp_path, browser, capsys):
    page.goto(console.url + "playground")
    use_table(page, XOR)
    page.evaluate("window.markonePlayground.clickAt(0.5, 0.25)")
    page.fill("#epochs", "6")
    page.click("#train")
    before = settled(page)

    saved = download(page, "#save", tmp_path)
    page.click("#clear")
    assert settled(page)["data"]["n"] == 0
    page.set_input_files("#load", str(saved))
    page.wait_for_function("document.getElementById('status').textContent.startsWith("
                           "'loaded')")
    assert content(settled(page)) == content(before)
    doc = json.loads(saved.read_text())
    doc["data"]["labels"][0] = 1 - doc["data"]["labels"][0]
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(doc))
    page.set_input_files("#load", str(tampered))
    page.wait_for_selector("#error", state="visible")
    assert "changed after it was saved" in page.inner_text("#error")
    assert content(page.evaluate("window.markonePlayground.state()")) == content(before)

    png = download(page, "#png", tmp_path)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = ET.parse(download(page, "#svg", tmp_path)).getroot()
    marks = [e for e in svg if e.tag.endswith(("circle", "rect"))
             and e.get("fill") in ("#4cc3ff", "#ffb347")]
    assert len(marks) == 5   # one per point

    cert = download(page, "#cert", tmp_path)
    assert main(["verify", "check", str(cert)]) == 0, capsys.readouterr()

    replay = download(page, "#replay", tmp_path)
    context = browser.new_context(bypass_csp=True)
    asked = []
    context.route("**/*", lambda route: (asked.append(route.request.url),
                                        route.abort() if not route.request.url.startswith(
                                            "file:") else route.continue_()))
    offline = context.new_page()
    errors = []
    offline.on("pageerror", lambda exc: errors.append(str(exc)))
    offline.goto(replay.as_uri())
    shown = offline.evaluate("window.markonePlayground.state()")
    assert content(shown) == content(before) and not offline.evaluate("window.markonePlayground.live")
    assert [u for u in asked if not u.startswith("file:")] == [] and errors == []
    assert offline.is_hidden("#train-row") and offline.is_visible("#replay-row")
    weights = before["run"]["core"]["weights_after"]
    k = next(k for k, w in enumerate(weights, 1) if w[0] or w[1])  # a line to draw
    offline.evaluate(f"window.markonePlayground.step({k})")
    line = [s for s in offline.evaluate("window.markonePlayground.scene().shapes")
            if s["t"] == "line" and s["stroke"] == "#ffffff"]
    assert len(line) == 1
    assert offline.inner_text("#replay-at") == f"after update {k} of {len(weights)}"
    context.close()


def test_without_an_analyst_the_panel_says_so(page, tmp_path):
    server = serve(tmp_path / "run.json", analyst=None)
    try:
        page.goto(server.url + "playground")
        use_table(page, AND)
        assert "Exact answers unavailable: the console was started without an analyst" \
            in page.inner_text("#panel")
    finally:
        server.close()


def save_screenshot(page, console, out):
    """The playground on 40 points of two classes that a line nearly separates, one
    point across, trained: the Gordan multipliers ringed, the cycle marked."""
    rng = np.random.default_rng(4)
    points = np.round(rng.uniform(-1, 1, (40, 2)), 2)
    labels = np.where(points[:, 0] + 0.5 * points[:, 1] > 0.1, "right", "left")
    labels[0] = "left" if labels[0] == "right" else "right"
    table = "x,y,side\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(points, labels))
    page.set_viewport_size({"width": 1500, "height": 1000})
    page.goto(console.url + "playground")
    use_table(page, table)
    page.wait_for_function("window.markonePlayground.cycle() !== null")
    page.click("#train")
    settled(page)
    page.screenshot(path=str(out), full_page=True)
    return out


if __name__ == "__main__":  # refresh the docs figure
    refresh_docs_screenshot(new_page, serve_playground, save_screenshot, DOCS_SCREENSHOT)


@pytest.mark.parametrize("screen", [p.values[0] for p in CONSOLE_SCREENS],
                         ids=[p.id for p in CONSOLE_SCREENS])
def test_the_playground_fits_every_screen(page, console, screen):
    page.set_viewport_size(screen)
    page.goto(console.url + "playground")
    use_table(page, "a,b,c,d,class\n" + "12345.678,-0.5,3,1/3,long-class-name\n" * 3
              + "1,2,3,4,other\n")
    assert sideways_scrolls(page) == []
