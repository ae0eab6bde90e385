"""The Mark I console driven in a real headless browser (Debian's chromium + Playwright).

The page is loaded from a file:// URL, stepped with the keyboard, the slider and its
script API, and what it shows (mistake count, weights, phase) is compared with the run's
JSON and with the weights the run held after each presentation. Skips, saying how to
install, when chromium or playwright is missing; ``.ci/run`` installs both.

Run ``python tests/markone/hardware/test_replay_browser.py`` to refresh docs/figures/console.png.
"""

import copy
import json
import re
from pathlib import Path

import numpy as np
import pytest

from markone.hardware.replay import console_html, render_replay_html, write_replay_html
from _browser import launch
from test_replay import BAD_RUNS, as_json, machine_run, make_run
from _paths import ROOT

pytestmark = pytest.mark.browser

CONSOLE_HTML = ROOT / "markone" / "hardware" / "console" / "console.html"
DOCS_SCREENSHOT = ROOT / "docs" / "figures" / "console.png"


@pytest.fixture
def page(browser):
    pg = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield pg
    pg.close()
    assert errors == [], f"the page logged errors: {errors}"


def recording(**kwargs):
    """A real Mark I run as saved JSON, and ``weights_at(step)`` for every step."""
    run = machine_run(**kwargs)
    return as_json(run.to_dict()), [run.weights_at(k) for k in range(len(run.log))]


@pytest.fixture(scope="module")
def recorded():
    return recording(presentations=30)


def open_replay(page, run, tmp_path, **kwargs):
    path = write_replay_html(run, tmp_path / "replay.html", **kwargs)
    page.goto(path.as_uri())
    return page


def state(page):
    return page.evaluate("window.markoneConsole.state()")


def wrong_up_to(run, step):
    return sum(not p["figure_correct"] for p in run["presentations"][: step + 1])


#: What the page shows, read in one round trip to the browser (issue 37).
_SHOWN = """() => { const text = (id) => document.getElementById(id).innerText;
  return {state: window.markoneConsole.state(), mistakes: text('mistakes'),
          mistakesValue: document.getElementById('mistakes').getAttribute('data-value'),
          bodyStep: document.body.getAttribute('data-step'), verdict: text('verdict'),
          narration: text('narration')}; }"""


def assert_shows_step(page, run, history, step):
    """The open page shows the run at ``step``; returns what it shows (``_SHOWN``)."""
    shown = page.evaluate(_SHOWN)
    s = shown["state"]
    assert (s["step"], s["phase"]) == (step, "done" if step >= 0 else "rest")
    expected = history[step] if step >= 0 else np.array(run["weights_initial"])
    np.testing.assert_array_equal(np.array(s["weights"]), expected)
    mistakes = wrong_up_to(run, step)
    assert s["mistakes"] == mistakes
    assert shown["mistakes"] == str(mistakes)
    assert shown["mistakesValue"] == str(mistakes)
    assert shown["bodyStep"] == str(step)
    if step >= 0:  # the answer shown decodes as the machine did
        p = run["presentations"][step]
        assert (s["answer"] == p["label"]) == p["figure_correct"]
        assert shown["verdict"].endswith("right" if p["figure_correct"] else "wrong")
        assert f'“{run["classes"][s["answer"]]}”' in shown["verdict"]
    return shown


def test_keyboard_steps_show_the_runs_weights_and_mistakes(page, recorded, tmp_path):
    run, history = recorded
    n = len(run["presentations"])
    open_replay(page, run, tmp_path)
    s = state(page)
    assert s["loaded"] and s["step"] == -1 and s["phase"] == "rest"
    assert_shows_step(page, run, history, -1)
    page.locator("body").click(position={"x": 5, "y": 5})
    for step in range(8):
        page.keyboard.press("ArrowRight")
        narration = assert_shows_step(page, run, history, step)["narration"]
        assert f"Presentation {step + 1} of {n}" in narration
        assert f"Figures wrong so far: {wrong_up_to(run, step)}." in narration
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    assert_shows_step(page, run, history, 4)
    page.keyboard.press("End")
    assert_shows_step(page, run, history, n - 1)
    np.testing.assert_array_equal(np.array(state(page)["weights"]), run["weights_final"])
    page.keyboard.press("ArrowRight")  # nothing after the end
    assert_shows_step(page, run, history, n - 1)
    page.keyboard.press("Home")
    assert_shows_step(page, run, history, -1)


def test_slider_and_buttons_jump(page, recorded, tmp_path):
    run, history = recorded
    open_replay(page, run, tmp_path)
    for step in (17, 3, 29, 0):
        page.evaluate("""(v) => { const s = document.getElementById('slider');
            s.value = String(v); s.dispatchEvent(new Event('input')); }""", step + 1)
        assert_shows_step(page, run, history, step)
    page.click("#btn-step")
    assert_shows_step(page, run, history, 1)
    page.click("#btn-back")
    page.click("#btn-back")
    assert_shows_step(page, run, history, -1)
    page.click("#btn-end")
    assert_shows_step(page, run, history, len(history) - 1)


def test_knobs_turn_at_the_motors_pace(page, recorded, tmp_path):
    run, history = recorded
    open_replay(page, run, tmp_path)
    i = max(range(1, len(history)), key=lambda k: run["presentations"][k]["motor_s"])
    assert_knobs_turn_at_motor_pace(page, run, history, i)


#: Seek the open page to a time and return its state, in one round trip (issue 37).
_SEEK = "(t) => { window.markoneConsole.seek(t); return window.markoneConsole.state(); }"


def assert_knobs_turn_at_motor_pace(page, run, history, i):
    p = run["presentations"][i]
    before, after = history[i - 1], history[i]
    start = p["end_t_s"] - p["motor_s"]
    step_time = p["motor_s"] / np.abs(after - before).max()  # all motors, one speed
    for frac in (0.0, 0.3, 0.7):
        elapsed = frac * p["motor_s"]
        s = page.evaluate(_SEEK, start + elapsed)
        assert (s["presentation"], s["step"], s["phase"]) == (i, i - 1, "motors")
        delta = after - before
        moved = np.minimum(np.abs(delta), elapsed / step_time)
        np.testing.assert_allclose(np.array(s["weights"]), before + np.sign(delta) * moved,
                                   atol=1e-9)
        assert s["moving"] == int((np.abs(delta) > elapsed / step_time).sum())
        assert s["mistakes"] == wrong_up_to(run, i)  # the trainer decided at `start`
    s = page.evaluate(_SEEK, (p["t_s"] + start) / 2)
    if start > p["t_s"]:
        assert s["phase"] == "sensing" and s["mistakes"] == wrong_up_to(run, i - 1)
        np.testing.assert_array_equal(np.array(s["weights"]), before)


def test_play_runs_to_the_end_and_space_pauses(page, recorded, tmp_path):
    run, history = recorded
    open_replay(page, run, tmp_path, speed=2)
    assert state(page)["speed"] == 2 and page.input_value("#speed") == "2"
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("ArrowUp")
    assert state(page)["speed"] == 5
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert state(page)["speed"] == 1
    page.keyboard.press("Space")
    assert state(page)["playing"]
    assert page.get_attribute("#btn-play", "aria-label") == "Pause (Space)"
    page.wait_for_function("window.markoneConsole.state().t > 0")
    page.keyboard.press("Space")
    s = state(page)
    assert not s["playing"] and 0 < s["t"] < run["sim_time_s"]
    page.evaluate("window.markoneConsole.setSpeed(1000)")
    page.keyboard.press("Space")
    page.wait_for_function("!window.markoneConsole.state().playing", timeout=20000)
    assert_shows_step(page, run, history, len(history) - 1)
    assert state(page)["corrections"] == sum(sum(p["reinforced"]) for p in run["presentations"])


def _symbol_box(page, button):
    """Width and height of the drawn symbol of a control button (its SVG icon)."""
    return page.evaluate(
        "(b) => { const r = document.querySelector(b + ' svg').getBoundingClientRect();"
        " return [r.width, r.height]; }", button)


def test_controls_show_visible_symbols_and_words(page, recorded, tmp_path):
    """Every control shows a drawn symbol and a word, in any font: the pause button was
    an empty box where the font had no U+23F8 (issue 15)."""
    run, _ = recorded
    open_replay(page, run, tmp_path)
    for button, word in (("#btn-home", "start"), ("#btn-back", "step"),
                         ("#btn-play", "play"), ("#btn-step", "step"),
                         ("#btn-end", "end")):
        width, height = _symbol_box(page, button)
        assert width >= 6 and height >= 6, (button, width, height)
        assert page.inner_text(button).strip().endswith(word) or \
            page.inner_text(button).strip().startswith(word)
    page.click("#btn-play")
    assert page.inner_text("#btn-play").strip() == "pause"
    width, height = _symbol_box(page, "#btn-play")
    assert width >= 6 and height >= 6
    assert page.evaluate("document.querySelector('#btn-play svg path').getAttribute('d')") \
        .count("z") == 2                              # two bars: the pause symbol
    page.click("#btn-play")
    assert page.inner_text("#btn-play").strip() == "play"


def test_number_keys_choose_the_r_unit(page, recorded, tmp_path):
    run, _ = recorded
    open_replay(page, run, tmp_path)
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("3")
    assert state(page)["unit"] == 2
    assert page.inner_text("#knob-unit") == "R3"
    assert page.get_attribute("#knob-select button:nth-child(3)", "aria-pressed") == "true"
    page.keyboard.press("9")  # there are only 8 R-units
    assert state(page)["unit"] == 2


def test_source_sets_run_with_end_stops_replays(page, tmp_path):
    run, history = recording(presentations=24, seed=1, topology="source_sets",
                             weight_range=(-2, 2))
    assert sum(p["saturated"] for p in run["presentations"]) > 0
    open_replay(page, run, tmp_path)
    for step in (5, 23, 11):
        page.evaluate("(s) => window.markoneConsole.jump(s)", step)
        assert_shows_step(page, run, history, step)


def test_synthetic_run_with_long_motor_phases(page, tmp_path):
    # knobs that move several steps in one presentation (not in the default machine)
    run, history = make_run(10, seed=4, w_max=3)
    open_replay(page, run, tmp_path)
    i = max(range(1, len(history)), key=lambda k: run["presentations"][k]["motor_s"])
    assert_knobs_turn_at_motor_pace(page, run, history, i)


def _page_with_embedded(run_text, tmp_path, good_run):
    html = render_replay_html(good_run)
    html = re.sub(r'(id="markone-run">).*?(</script>)', lambda m: m.group(1) + run_text
                  + m.group(2), html, count=1, flags=re.S)
    path = tmp_path / "bad.html"
    path.write_text(html)
    return path


BAD = {
    "format": (lambda r: r.update(format="markone-certificate"),
               'its "format" is "markone-certificate", expected "markone-machine-run"'),
    "newer version": (lambda r: r.update(version=5), "uses format version 5"),
    "missing fields": (lambda r: (r.pop("figures"), r.pop("presentations")),
                       "missing the field(s) figures, presentations"),
    "missing presentation field": (lambda r: r["presentations"][2].pop("changes"),
                                   "presentations[2] is missing the field(s) changes"),
    "no log": (lambda r: r.update(presentations=[]), "has no presentations to replay"),
    "index out of range": (lambda r: r["presentations"][1].update(figure=77),
                           'presentations[1]: "figure" is 77'),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_embedded_run_shows_a_message(page, recorded, tmp_path, case):
    run, _ = recorded
    edit, message = BAD[case]
    bad = copy.deepcopy(run)
    edit(bad)
    page.goto(_page_with_embedded(json.dumps(bad), tmp_path, run).as_uri())
    assert page.is_visible("#error") and not page.is_visible("#machine")
    assert message in page.inner_text("#error")
    assert page.get_attribute("#error", "role") == "alert"
    assert state(page) == {"loaded": False, "error": page.inner_text("#error")}


def test_page_refuses_every_run_python_refuses(page, tmp_path):
    # the page's checks and check_run agree on the bad runs of test_replay.py
    run, _ = make_run(12, seed=1, n_a=64, n_r=4, shape=(6, 6))
    open_replay(page, run, tmp_path)
    check = "(r) => window.markoneConsole.checkRun(r)"
    assert page.evaluate(check, run) == []
    for case, (edit, _) in sorted(BAD_RUNS.items()):
        bad = copy.deepcopy(run)
        edit(bad)
        assert page.evaluate(check, bad) != [], case


def test_invalid_json_shows_a_message(page, recorded, tmp_path):
    page.goto(_page_with_embedded('{"format": "markone-machine', tmp_path, recorded[0]).as_uri())
    assert "is not valid JSON" in page.inner_text("#error")


def test_bare_console_opens_run_files(page, recorded, tmp_path):
    run, history = recorded
    page.goto(CONSOLE_HTML.as_uri())
    assert "No run is embedded in this page" in page.inner_text("#error")
    bad = tmp_path / "old.json"
    bad.write_text(json.dumps(dict(run, version=9)))
    page.set_input_files("#open-file", str(bad))
    page.wait_for_function("document.getElementById('error').textContent.includes('version 9')")
    good = tmp_path / "run.json"
    good.write_text(json.dumps(run))
    page.set_input_files("#open-file", str(good))
    page.wait_for_function("window.markoneConsole.state().loaded")
    page.evaluate("window.markoneConsole.jump(10)")
    assert_shows_step(page, run, history, 10)


#: A notebook 1000 px wide (Jupyter Notebook 7): its output area starts about 90 px
#: from the left and ends about 40 px from the right.
NOTEBOOK_VIEWPORT = {"width": 1000, "height": 800}
_NOTEBOOK_CELL = ('<!doctype html><html><body style="margin:0;padding:8px 40px 0 90px">'
                  "{}</body></html>")


def test_the_notebook_console_shows_the_r_units_without_scrolling(browser, tmp_path):
    """Issue 29: the console a notebook shows (console_html, a 760 px iframe) in a
    notebook 1000 px wide, scrolled to the cell: the retina, the A-units and the
    R-units' panel are whole inside the iframe without scrolling it (the R-units were
    below its fold), and the R-units' table is not cut off at the side."""
    host = tmp_path / "notebook.html"
    host.write_text(_NOTEBOOK_CELL.format(console_html(machine_run(presentations=5))))
    page = browser.new_page(viewport=NOTEBOOK_VIEWPORT)
    page.goto(host.as_uri(), wait_until="load")
    frame = page.frames[1]
    frame.wait_for_selector("#p-runits")
    assert page.evaluate("document.querySelector('iframe').getBoundingClientRect().bottom"
                         ) <= NOTEBOOK_VIEWPORT["height"]  # the cell fits the screen
    shown = frame.evaluate("""() => {
        const seen = (id) => { const r = document.getElementById(id).getBoundingClientRect();
                               return r.top >= 0 && r.bottom <= innerHeight; };
        const panel = document.getElementById('p-runits');
        return {scrolled: scrollY, wide: innerWidth, retina: seen('p-retina'),
                aunits: seen('p-aunits'), runits: seen('p-runits'),
                runitsCut: panel.scrollWidth - panel.clientWidth};
    }""")
    page.close()
    assert 800 <= shown.pop("wide") < 1000  # the console is laid out for the cell
    assert shown == {"scrolled": 0, "retina": True, "aunits": True, "runits": True,
                     "runitsCut": 0}


def save_screenshot(page, run, out, tmp_path):
    """Show the machine mid-way through its motors, and save a screenshot to ``out``."""
    open_replay(page, run, tmp_path)
    i = max(range(len(run["presentations"]) // 2),
            key=lambda k: run["presentations"][k]["motor_s"])
    p = run["presentations"][i]
    page.evaluate("(t) => window.markoneConsole.seek(t)", p["end_t_s"] - 0.6 * p["motor_s"])
    page.screenshot(path=str(out), full_page=True)
    return out


def test_screenshot(page, recorded, tmp_path):
    out = save_screenshot(page, recorded[0], tmp_path / "console.png", tmp_path)
    assert out.stat().st_size > 10_000  # a real picture, not a blank page


if __name__ == "__main__":  # refresh the docs figure
    import tempfile

    from PIL import Image
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw, tempfile.TemporaryDirectory() as tmp:
        b = launch(pw)
        pg = b.new_page(viewport={"width": 1400, "height": 1000})
        shot = save_screenshot(pg, recording(presentations=30)[0],
                               Path(tmp) / "shot.png", Path(tmp))
        b.close()
        img = Image.open(shot).convert("RGB")
        img = img.resize((img.width * 2 // 3, img.height * 2 // 3), Image.LANCZOS)
        img.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(DOCS_SCREENSHOT, optimize=True)
    print(DOCS_SCREENSHOT, DOCS_SCREENSHOT.stat().st_size, "bytes")
