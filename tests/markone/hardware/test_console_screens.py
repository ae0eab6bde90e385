"""The console on every screen, by keyboard alone, and under axe-core's rules (issue
44, item 6), in a real headless Chromium: no sideways scrolling on a laptop, a
projector or a notebook cell 1,000 px wide, even with a figure 1,800 px wide on it;
every control reached with Tab; no serious or critical violation of axe-core's
accessibility rules (vendored in tests/data/axe-core, injected by the test only).
"""

import pytest

from _axe import axe_violations
from _browser import CONSOLE_SCREENS, TAB_STOPS, sideways_scrolls
from test_console_browser import console, new_page, settled  # noqa: F401 (console: the fixture)
from test_playground_browser import XOR, serve_playground, use_table
from test_replay_browser import open_replay, recording

pytestmark = pytest.mark.browser

#: An 1,800 px wide figure put in each panel of the console (a picture, a drawing and
#: a canvas), as the playground's own figures and exports are.
WIDE_FIGURES = """() => {
  const made = [];
  for (const panel of document.querySelectorAll('.panel:not([hidden])')) {
    const img = new Image(1800, 300);
    img.alt = 'a wide figure';
    img.src = 'data:image/svg+xml,' + encodeURIComponent(
      '<svg xmlns="http://www.w3.org/2000/svg" width="1800" height="300"></svg>');
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('width', '1800');
    svg.setAttribute('height', '300');
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', 'a wide drawing');
    const canvas = document.createElement('canvas');
    canvas.width = 1800;
    canvas.height = 300;
    panel.append(img, svg, canvas);
    made.push(panel.id);
  }
  return made;
}"""


def test_axe_finds_what_it_should(browser):
    """The audit is not blind: axe-core, injected, names a page's serious faults."""
    page = browser.new_page()
    page.set_content("<html><body><button></button><img src='x.png'></body></html>")
    found = axe_violations(page)
    assert [line.split(" ")[0] for line in found] == ["button-name", "document-title",
                                                      "html-has-lang", "image-alt"]


@pytest.mark.parametrize("viewport", CONSOLE_SCREENS)
def test_live_console_fits_every_screen(browser, console, viewport):
    page, errors = new_page(browser)
    page.set_viewport_size(viewport)
    page.goto(console.url)
    page.click("#live-more summary")   # every fault and knob shown too
    page.select_option("#live-pick", "W")
    page.click("#live-present")
    settled(page)
    assert sideways_scrolls(page) == []
    assert len(page.evaluate(WIDE_FIGURES)) >= 5
    assert sideways_scrolls(page) == []
    page.close()
    assert errors == []


@pytest.mark.parametrize("viewport", CONSOLE_SCREENS)
def test_replay_fits_every_screen(browser, tmp_path, viewport):
    page, errors = new_page(browser)
    page.set_viewport_size(viewport)
    open_replay(page, recording(presentations=4)[0], tmp_path)
    page.evaluate("window.markoneConsole.end()")
    assert len(page.evaluate(WIDE_FIGURES)) == 5
    assert sideways_scrolls(page) == []
    page.close()
    assert errors == []


def test_live_console_passes_axe(browser, console):
    page, errors = new_page(browser)
    page.goto(console.url)
    assert axe_violations(page) == []          # as loaded: nothing presented
    page.click("#live-more summary")
    page.select_option("#live-pick", "A")
    page.check("#live-trainer")
    page.click("#live-present")
    settled(page)
    page.evaluate("window.markoneLive.select(3)")
    assert axe_violations(page) == []          # a figure learnt, an A-unit chosen
    page.close()
    assert errors == []


def test_replay_passes_axe(browser, tmp_path):
    page, errors = new_page(browser)
    open_replay(page, recording(presentations=4)[0], tmp_path)
    page.evaluate("window.markoneConsole.jump(2)")
    assert axe_violations(page) == []
    page.close()
    assert errors == []


_CONTROLS = f"""() => {{
  window.tabbedTo = [];   // the control each press of Tab moves the focus to
  document.addEventListener('focusin', (e) => tabbedTo.push(Number(e.target.dataset.control)));
  return {TAB_STOPS}.map((e, k) => {{ e.dataset.control = String(k); return k; }});
}}"""


def test_tab_reaches_every_control(browser, console):
    """Keyboard alone: Tab visits every control the page shows (every fault and
    knob too), each once."""
    page, errors = new_page(browser)
    page.goto(console.url)
    page.click("#live-more summary")
    page.select_option("#live-pick", "A")
    page.click("#live-present")
    settled(page)
    assert_tab_reaches_every_control(page)
    page.close()
    assert errors == []


def assert_tab_reaches_every_control(page):
    """Tab from the top visits every enabled control the open ``page`` shows."""
    page.focus("body")
    controls = page.evaluate(_CONTROLS)
    for _ in range(len(controls) + 5):   # looked at once, after (issue 37)
        page.keyboard.press("Tab")
    seen = page.evaluate("window.tabbedTo")
    visited = seen[:seen.index(seen[0], 1)] if seen[0] in seen[1:] else seen
    assert sorted(set(visited) & set(controls)) == sorted(controls)


@pytest.fixture
def playground(tmp_path):
    with serve_playground(tmp_path / "run.json") as server:
        yield server


def open_playground(browser, playground, viewport=None):
    page, errors = new_page(browser)
    if viewport:
        page.set_viewport_size(viewport)
    page.goto(playground.url + "playground")
    use_table(page, XOR)
    return page, errors


@pytest.mark.parametrize("viewport", CONSOLE_SCREENS)
def test_playground_fits_every_screen(browser, playground, viewport):
    page, errors = open_playground(browser, playground, viewport)
    assert sideways_scrolls(page) == []
    page.evaluate(WIDE_FIGURES.replace(".panel:not([hidden])", "section:not([hidden])"))
    assert sideways_scrolls(page) == []
    page.close()
    assert errors == []


def test_playground_passes_axe_and_tab(browser, playground):
    page, errors = open_playground(browser, playground)
    assert axe_violations(page) == []
    assert_tab_reaches_every_control(page)
    page.close()
    assert errors == []
