"""The live console end to end in a real headless browser (Debian's chromium +
Playwright): a person draws, picks, presents, reinforces, kills an A-unit, cuts a
wire and saves; the saved run then plays in the replay console and prints through
``markone machine show``. What the page shows is compared with the Python MarkI
behind the server. Skips, saying how to install, when chromium or playwright is
missing; ``.ci/run`` installs both.

Run ``python tests/markone/hardware/test_console_browser.py`` to refresh
docs/figures/console-live.png.
"""

import threading
from pathlib import Path

import numpy as np
import pytest

from markone._internal.io import to_jsonable
from markone.hardware import MachineRun, MarkI
from markone.console.server import ConsoleServer
from markone.hardware.live import LiveSession
from markone.hardware.replay import write_replay_html
from _browser import refresh_docs_screenshot
from test_replay_browser import assert_knobs_turn_at_motor_pace
from _paths import ROOT

pytestmark = pytest.mark.browser

DOCS_SCREENSHOT = ROOT / "docs" / "figures" / "console-live.png"


def serve(out, **options):
    server = ConsoleServer(LiveSession(MarkI(seed=0)), out, **options)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def console(tmp_path):
    server = serve(tmp_path / "lesson.json")
    yield server
    server.close()


def new_page(browser):
    # bypass_csp: Playwright's wait_for_function evaluates strings, which the
    # console's Content-Security-Policy forbids to the page itself
    page = browser.new_page(bypass_csp=True, viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return page, errors


@pytest.fixture
def page(browser):
    pg, errors = new_page(browser)
    yield pg
    pg.close()
    assert errors == [], f"the page logged errors: {errors}"


def settled(page):
    """Wait until the answer is in and the animation has run to the machine's time.

    The animation plays at the fastest speed while the test waits (at the page's own,
    the machine's pace, each answer waited a second or more of real time: most of
    these files' wall time, issue 37); the page's speed is then put back."""
    page.evaluate("""() => {
        const speed = window.markoneConsole.state().speed;
        window.markoneConsole.setSpeed(1000);
        return new Promise((done) => {
            const look = () => {
                const on = window.markoneConsole.state();
                if (!window.markoneLive.state().busy && !on.playing) {
                    if (speed !== undefined) window.markoneConsole.setSpeed(speed);
                    done();
                } else requestAnimationFrame(look);
            };
            look();
        });
    }""")
    return page.evaluate("window.markoneConsole.state()")


def live(page):
    return page.evaluate("window.markoneLive.state()")


def easel_cell(page, k, cols=20):
    """Page coordinates of the centre of easel cell k."""
    box = page.locator("#easel").bounding_box()
    size = box["width"] / cols
    return box["x"] + (k % cols + 0.5) * size, box["y"] + (k // cols + 0.5) * size


def test_operate_the_machine_and_replay_the_saved_run(page, console, tmp_path, capsys):
    machine = console.session.machine
    page.goto(console.url)
    assert page.is_visible("#p-live") and live(page)["presentations"] == 0
    assert "Present (P)" in page.inner_text("#narration")

    # draw a bar with the mouse, and one cell more with the keyboard
    x0, y = easel_cell(page, 5 * 20 + 4)
    x1, _ = easel_cell(page, 5 * 20 + 15)
    page.mouse.move(x0, y)
    page.mouse.down()
    page.mouse.move(x1, y, steps=12)
    page.mouse.up()
    page.focus("#easel")
    for key in ["ArrowDown"] * 2 + [" "]:
        page.keyboard.press(key)
    drawn = np.array(live(page)["easel"])
    want = np.zeros(400)
    want[5 * 20 + 4: 5 * 20 + 16] = 1
    want[7 * 20 + 15] = 1
    np.testing.assert_array_equal(drawn, want)

    # present it as "bar" (from the keyboard): the machine answers, nothing learnt
    page.fill("#live-label", "bar")
    page.focus("#easel")
    page.keyboard.press("p")
    s = settled(page)
    shown = console.session.pending
    assert shown is not None and live(page)["pending"]
    assert s["phase"] == "done" and s["t"] == pytest.approx(machine.now_s)
    assert page.inner_text("#runits tbody tr:first-child td:nth-child(2)") == "0"
    assert f"{len(shown.active_a)} of 512 A-units fired" in page.inner_text("#aunits-caption")
    assert page.is_disabled("#live-reinforce") is False

    # reinforce: the knobs turn at the machine's pace to where the Python MarkI has them
    # (each frame drawn is noted, at a quarter of the machine's pace: the 0.2 s of the
    # motors last 0.8 s on the page, so a slow frame on a busy machine cannot skip them)
    page.evaluate("window.markoneConsole.onRender(() => { const s ="
                  " window.markoneConsole.state(); if (s.playing && s.phase === 'motors'"
                  " && s.moving > 0) window.sawMotors = true; })")
    page.select_option("#speed", "0.25")
    page.click("#live-reinforce")   # the motors turn on the page, as the clock runs
    s = settled(page)
    assert page.evaluate("window.sawMotors === true"), "no frame showed the motors turning"
    page.select_option("#speed", "1")
    np.testing.assert_array_equal(np.array(s["weights"]), machine.weights)
    assert s["t"] == pytest.approx(machine.now_s) and not live(page)["pending"]
    assert "potentiometers turned in 0.20 s" in live(page)["message"]

    # pick a letter, let the trainer reinforce at once
    page.select_option("#live-pick", "A")
    assert page.input_value("#live-label") == "A"
    page.check("#live-trainer")
    page.click("#live-present")
    s = settled(page)
    np.testing.assert_array_equal(np.array(s["weights"]), machine.weights)
    first_a = console.session.run().log[-1].active_a

    # kill the first A-unit that fired, by clicking it
    a = first_a[0]
    page.locator("#aunits").scroll_into_view_if_needed()
    box = page.locator("#aunits").bounding_box()
    size = box["width"] / 32
    page.mouse.click(box["x"] + (a % 32 + 0.5) * size, box["y"] + (a // 32 + 0.5) * size)
    # a person counts from 1: the first A-unit (index 0) is A-unit 1 (issue 37)
    assert live(page)["selected"] == a and page.input_value("#live-aunit") == str(a + 1)
    page.click("#live-kill")
    settled(page)
    assert machine.faults.a_value[a] == 0
    assert f"A-unit {a + 1} killed" in live(page)["message"]
    # cut the first wire of the next A-unit that fired, chosen from its wires
    b = first_a[1]
    page.fill("#live-aunit", str(b + 1))             # typed as a person counts
    page.dispatch_event("#live-aunit", "change")
    assert live(page)["selected"] == b
    wires = page.eval_on_selector_all("#live-wire option", "os => os.map(o => o.value)")
    assert sorted(map(int, wires)) == sorted(machine.wiring.inputs[b].tolist())
    names = page.eval_on_selector_all("#live-wire option", "os => os.map(o => o.text)")
    assert [n.split(" (")[0] for n in names] == [f"S-unit {int(w) + 1}" for w in wires]
    wire = int(wires[-1])                  # choose it by clicking its photocell
    page.locator("#retina").scroll_into_view_if_needed()
    box = page.locator("#retina").bounding_box()
    size = box["width"] / 20
    page.mouse.click(box["x"] + (wire % 20 + 0.5) * size, box["y"] + (wire // 20 + 0.5) * size)
    assert page.input_value("#live-wire") == str(wire)
    assert page.evaluate("document.activeElement.id") == "live-cut"
    page.keyboard.press("Enter")
    settled(page)
    assert machine.faults.plan.faults[-1].s_unit == int(wire)
    assert machine.faults.cut[b].any()
    assert f"Wire from S-unit {wire + 1} to A-unit {b + 1} cut" in live(page)["message"]

    page.click("#live-present")                      # "A" again, trainer on
    s = settled(page)
    last = console.session.run().log[-1]
    assert a not in last.active_a
    assert "1 dead (crossed)" in page.inner_text("#aunits-caption")
    np.testing.assert_array_equal(np.array(s["weights"]), machine.weights)

    # the knobs of the second figure turned at the motors' pace, as in a replay
    so_far = console.session.run()
    assert_knobs_turn_at_motor_pace(page, to_jsonable(so_far.to_dict()),
                                    [so_far.weights_at(k) for k in range(3)], 1)

    page.keyboard.press("s")
    settled(page)
    assert "saved to" in page.inner_text("#live-out")
    saved = MachineRun.load(console.out)
    assert saved.n_presentations == 3 and len(saved.faults) == 2
    np.testing.assert_array_equal(saved.weights, machine.weights)
    page.reload()                                     # the page asks the machine again
    assert live(page)["presentations"] == 3 and "1 dead" in page.inner_text("#aunits-caption")

    # the saved run in the replay console: same weights at the end, the dead unit marked
    page.goto(write_replay_html(console.out, tmp_path / "replay.html").as_uri())
    page.evaluate("window.markoneConsole.end()")
    s = page.evaluate("window.markoneConsole.state()")
    assert s["loaded"] and s["step"] == 2
    np.testing.assert_array_equal(np.array(s["weights"]), machine.weights)
    assert "1 dead (crossed)" in page.inner_text("#aunits-caption")
    assert not page.is_visible("#p-live")

    # and through `markone machine show`
    from markone.cli import main

    assert main(["machine", "show", str(console.out)]) == 0
    out = capsys.readouterr().out
    assert f"A-unit {a + 1} dead from " in out and "3 presentations" in out


def test_an_upload_becomes_light_levels(page, console, tmp_path):
    from PIL import Image

    img = Image.new("RGB", (40, 40), "white")           # black ink on white paper
    img.paste((0, 0, 0), (0, 0, 10, 40))
    path = tmp_path / "half.png"
    img.save(path)
    page.goto(console.url)
    page.set_input_files("#live-upload", str(path))
    page.wait_for_function("window.markoneLive.state().message.startsWith('Read half.png')")
    easel = np.array(live(page)["easel"]).reshape(20, 20)
    np.testing.assert_allclose(easel[:, :5], 1.0, atol=0.02)   # the ink is lit
    np.testing.assert_allclose(easel[:, 5:], 0.0, atol=0.02)


def test_reinforce_without_a_figure_and_a_nameless_figure_say_why(browser, console):
    page, errors = new_page(browser)
    page.goto(console.url)
    page.click("#live-present")
    assert "Name the figure's class first" in live(page)["message"]
    assert page.is_disabled("#live-reinforce")
    page.evaluate("window.markoneLive.reinforce()")
    assert "No figure awaits the trainer" in live(page)["message"]
    page.evaluate("window.markoneLive.save()")
    settled(page)
    assert "nothing has been presented yet" in page.inner_text("#live-status")
    assert console.session.machine.now_s == 0
    page.close()
    assert errors == ["Failed to load resource: the server responded with a status of "
                      "400 (Bad Request)"]                     # the refused save


def test_another_site_cannot_drive_the_console(browser, console, tmp_path):
    """A page from elsewhere (here a file:// page, origin "null") that posts to the
    console is stopped by the browser's preflight and the server's guards."""
    page, _ = new_page(browser)
    evil = tmp_path / "evil.html"
    evil.write_text("<!DOCTYPE html><title>x</title>")
    page.goto(evil.as_uri())
    result = page.evaluate("""async (url) => {
        try {
            const r = await fetch(url + 'api/present', {method: 'POST',
                headers: {'Content-Type': 'application/json'},
                body: JSON.stringify({image: new Array(400).fill(1), label: 'X'})});
            return 'status ' + r.status;
        } catch (e) { return 'blocked'; }
    }""", console.url)
    simple = page.evaluate("""async (url) => {
        try {
            const r = await fetch(url + 'api/save', {method: 'POST', mode: 'no-cors',
                body: '{}'});
            return 'sent';
        } catch (e) { return 'blocked'; }
    }""", console.url)
    page.close()
    assert result == "blocked" and simple in ("sent", "blocked")
    assert console.session.pending is None and console.session.machine.now_s == 0
    assert not console.out.exists()


def agrees_with_the_server(page, console):
    """The page's verdict, counters and header are the server's view of the session
    (one source of truth); returns that view's last verdict."""
    state = console.state()
    view, run = state["view"], state["run"]
    last = view["verdicts"][-1]
    word = "✓ right" if last["right"] else "✗ wrong"
    answer = ("no class (it has been taught none yet)" if last["answer"] is None
              else f"“{run['classes'][last['answer']]}”")
    assert page.inner_text("#verdict") == f"Machine says {answer}: {word}"
    assert page.inner_text("#summary") == view["header"]
    assert page.get_attribute("#mistakes", "data-value") == str(last["wrong_so_far"])
    assert page.get_attribute("#corrections", "data-value") == \
        str(last["corrections_so_far"])
    narration = page.inner_text("#narration")
    assert (f"answered {answer}: {word[2:]} ({last['r_units_right']} of 8 R-units right)"
            in narration), narration
    assert f"Figures wrong so far: {last['wrong_so_far']}." in narration
    assert page.evaluate("window.markoneConsole.state().answer") == last["answer"]
    # and the run the machine saves says the same
    assert console.session.run().errors_per_epoch == (last["wrong_so_far"],)
    return last


def test_a_class_the_machine_has_not_seen_yet(page, console, tmp_path):
    """Issue 37: a new letter was "right (0 of 8 R-units right)", then 24 knobs
    turned while "Figures wrong so far: 0" and the header read "0 classes ()". The
    verdict, the counters and the header now all come from the server's view."""
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/api/" in r.url else None)
    page.goto(console.url)
    assert page.inner_text("#summary").startswith("0 presentations · no class yet · ")
    page.select_option("#live-pick", "T")
    page.click("#live-present")
    settled(page)
    first = agrees_with_the_server(page, console)
    assert (first["answer"], first["right"], first["r_units_right"]) == (None, False, 0)
    assert page.inner_text("#summary").startswith("1 presentation · 1 class (T) · ")
    assert "the machine was wrong" in live(page)["message"]

    page.click("#live-reinforce")                # every R-unit erred: all are corrected
    settled(page)
    done = agrees_with_the_server(page, console)
    turned = len(console.session.run().log[-1].changes)
    assert turned > 0 and f"{turned} potentiometers moved" in page.inner_text("#narration")
    assert (done["wrong_so_far"], done["corrections_so_far"]) == (1, 8)
    page.keyboard.press("s")
    settled(page)
    only_t = tmp_path / "only-t.json"
    only_t.write_bytes(console.out.read_bytes())

    page.select_option("#live-pick", "A")        # a second class, never taught either
    page.click("#live-present")
    settled(page)
    second = agrees_with_the_server(page, console)
    assert (second["answer"], second["right"], second["wrong_so_far"]) == (0, False, 2)
    assert page.inner_text("#summary").startswith("2 presentations · 2 classes (T, A) · ")
    assert page.inner_text("#verdict") == "Machine says “T”: ✗ wrong"

    page.reload()                                # a page loaded anew shows the same
    settled(page)
    agrees_with_the_server(page, console)
    assert asked and all("?since=" in url for url in asked)   # the page asks incrementally

    # the saved runs replay as they were told: wrong, never "T" answered wrong for T
    page.keyboard.press("s")
    settled(page)
    for run, n in ((only_t, 1), (console.out, 2)):
        page.goto(write_replay_html(run, tmp_path / "replay.html").as_uri())
        page.evaluate("window.markoneConsole.jump(0)")
        verdict = page.inner_text("#verdict")
        assert verdict.endswith(": ✗ wrong") and "“T”:" not in verdict, verdict
        if n == 1:   # T its only class: the nearest code is T's own
            assert verdict == ("Machine says no class it had been taught (not “T” "
                               "yet): ✗ wrong")
        page.evaluate("window.markoneConsole.end()")
        assert page.get_attribute("#mistakes", "data-value") == str(n)


def evil_site(html):
    """A web server of another origin (another port of 127.0.0.1) serving ``html``
    at / and a plain page of its own elsewhere; returns it running and its address."""
    import http.server

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            data = (html if self.path == "/" else
                    "<!DOCTYPE html><title>own page</title>").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    return site, f"http://127.0.0.1:{site.server_address[1]}/"


def test_another_site_cannot_frame_the_console(browser, console):
    """Issue 46: a page of another origin that frames the console (to lead a
    visitor's clicks onto present, kill or save) gets an empty frame; a page of its
    own origin frames itself, so the frame works."""
    site, url = evil_site(f'<!DOCTYPE html><title>win a prize</title>'
                          f'<iframe id="console" src="{console.url}"></iframe>'
                          f'<iframe id="own" src="/own"></iframe>')
    page = browser.new_context().new_page()   # the policies enforced (no bypass_csp)
    try:
        page.goto(url)
        page.wait_for_load_state("load")
        frames = {frame.name or frame.url: frame for frame in page.frames[1:]}
        own = [f for f in page.frames[1:] if f.url.endswith("/own")]
        framed = [f for f in page.frames[1:] if f.url.startswith(console.url)]
        assert len(own) == 1 and own[0].evaluate("document.title") == "own page"
        loaded = [f.evaluate("Boolean(document.getElementById('p-live'))")
                  for f in framed]
        assert loaded in ([], [False]), frames
    finally:
        page.context.close()
        site.shutdown()
        site.server_close()
    assert console.session.machine.now_s == 0


def save_screenshot(page, server, out):
    """A lesson in progress: letters presented, one A-unit killed, a figure on show."""
    page.goto(server.url)
    page.check("#live-trainer")
    for name in ("A", "B", "A", "B"):
        page.select_option("#live-pick", name)
        page.click("#live-present")
        settled(page)
    page.evaluate("window.markoneLive.select(40)")
    page.click("#live-kill")
    settled(page)
    page.uncheck("#live-trainer")
    page.select_option("#live-pick", "A")
    page.click("#live-present")
    settled(page)
    page.screenshot(path=str(out), full_page=True)
    return out


@pytest.mark.slow
def test_screenshot(page, console, tmp_path):
    out = save_screenshot(page, console, tmp_path / "live.png")
    assert out.stat().st_size > 10_000   # a real picture, not a blank page


if __name__ == "__main__":  # refresh the docs figure
    refresh_docs_screenshot(new_page, serve, save_screenshot, DOCS_SCREENSHOT)
