"""A knob of the wiring turned mid-run in the live console, in a real headless
Chromium (issue 44, item 3): the control says it rewires, turning it builds a new
machine and the page is built anew for it, the saved run keeps the earlier machine,
and its replay shows both machines, with a marker on the timeline where the machine
was rewired. A bad value is refused with the knob's own message and changes nothing.
"""

import pytest

from markone.hardware import MachineRun
from markone.hardware.replay import write_replay_html
from test_console_browser import live, new_page, serve, settled

pytestmark = pytest.mark.browser


@pytest.fixture
def console(tmp_path):
    server = serve(tmp_path / "lesson.json")
    yield server
    server.close()


def present(page, name):
    page.select_option("#live-pick", name)
    page.click("#live-present")
    settled(page)


def test_a_wiring_knob_turned_mid_run_is_saved_and_replayed(browser, console, tmp_path):
    page, errors = new_page(browser)
    page.goto(console.url)
    page.click("#live-more summary")
    title = page.get_attribute("#knob-n_a_units", "title")
    assert "turning it rewires" in title and "weights start again at zero" in title
    page.check("#live-trainer")
    for name in "AB":
        present(page, name)

    page.fill("#knob-n_a_units", "0")                      # refused, nothing changes
    page.press("#knob-n_a_units", "Enter")
    settled(page)
    assert "n_a_units(=0) must be >= 1" in live(page)["message"]
    assert page.input_value("#knob-n_a_units") == "512"
    assert errors.pop().endswith("status of 400 (Bad Request)")

    with page.expect_navigation():                         # the page is built anew
        page.fill("#knob-n_a_units", "128")
        page.press("#knob-n_a_units", "Enter")
    page.wait_for_function("window.markoneLive !== undefined")
    assert console.session.machine.params.n_a_units == 128
    assert "Rewired: n_a_units from 512 to 128" in live(page)["message"]
    state = page.evaluate("window.markoneConsole.state()")
    assert (state["machine"], state["machines"], len(state["weights"][0])) == (1, 2, 128)
    assert state["marks"] == ["wired anew: n_a_units"]
    assert page.is_visible("#wiring")
    page.check("#live-trainer")
    present(page, "A")
    page.keyboard.press("s")
    settled(page)

    saved = MachineRun.load(console.out)
    [earlier] = saved.earlier
    assert (earlier.n_presentations, earlier.params.n_a_units) == (2, 512)
    change = earlier.knob_changes[-1]
    assert (change.presentation, change.name, change.old, change.new, change.rewired) == \
        (2, "n_a_units", 512, 128, True)
    assert (saved.n_presentations, saved.params.n_a_units) == (1, 128)

    page.goto(write_replay_html(console.out, tmp_path / "replay.html").as_uri())
    state = page.evaluate("window.markoneConsole.state()")
    assert (state["machine"], state["machines"], state["presentation"]) == (1, 2, -1)
    assert "wired anew when n_a_units from 512 to 128 was turned" in \
        page.inner_text("#narration")
    page.select_option("#wiring", "0")                     # the earlier machine
    page.evaluate("window.markoneConsole.end()")
    state = page.evaluate("window.markoneConsole.state()")
    assert (state["machine"], state["step"], len(state["weights"][0])) == (0, 1, 512)
    assert state["marks"] == ["rewired: n_a_units"]
    assert "Then n_a_units from 512 to 128 was turned: the machine was rewired" in \
        page.inner_text("#narration")
    page.close()
    assert errors == []
