"""Every fault kind and every knob a control of the live console (issue 44, item 3),
in a real headless Chromium: the page's controls are the registries (the toy fault
kind of test_toy_fault, registered first, appears with no page edit), each knob's
tooltip says its provenance and source, every control is operated from the keyboard
alone, a knob turned mid-run is in the saved run and its replay at the right
presentation, and the page after many incremental answers equals the page loaded
anew.
"""

import pytest

from markone.hardware import MachineRun, MarkIParams
from markone.hardware.faults import FAULT_KINDS
from markone.hardware.params import RETUNABLE
from markone.hardware.replay import write_replay_html
from _axe import axe_violations
from _browser import tab_to
from test_console_browser import live, new_page, serve, settled
from test_toy_fault import row_dead  # noqa: F401 (the fixture: a kind this test adds)

pytestmark = pytest.mark.browser


@pytest.fixture
def console(tmp_path, row_dead):   # noqa: F811 (a fault kind registered first)
    server = serve(tmp_path / "lesson.json")
    yield server
    server.close()


def open_controls(page, console):
    page.goto(console.url)
    page.click("#live-more summary")
    return page.evaluate("window.markoneLive.controls()")


def test_the_controls_are_the_registries(browser, console):
    page, errors = new_page(browser)
    controls = open_controls(page, console)
    assert controls["faults"] == list(FAULT_KINDS) and "PhotocellRowDead" in FAULT_KINDS
    rows = MarkIParams().describe()
    assert [k["name"] for k in controls["knobs"]] == [r.name for r in rows]
    for knob, row in zip(controls["knobs"], rows):
        assert f": {row.provenance}. {row.note}." in knob["title"], knob
        assert not knob["readonly"] and knob["rewires"] == (row.name not in RETUNABLE), knob
    assert "[Nagy2011]" in controls["knobs"][7]["title"]   # n_a_units: its source
    assert axe_violations(page) == []
    page.close()
    assert errors == []


def type_into(page, element_id, text):
    tab_to(page, element_id)
    page.keyboard.press("Control+A")
    page.keyboard.type(text)


def test_every_control_by_keyboard_alone(browser, console):
    page, errors = new_page(browser)
    machine = console.session.machine
    page.goto(console.url)
    page.focus("body")
    tab_to(page, "")   # the summary of "Every fault and knob" has no id
    assert page.evaluate("document.activeElement.tagName") == "SUMMARY"
    page.keyboard.press("Enter")
    assert page.evaluate("document.getElementById('live-more').open")

    wire = int(machine.wiring.excitatory[7, 0])
    entries = {"PhotocellStuck": {"cell": "5", "value": "1"},
               "CutWire": {"a_unit": "8", "s_unit": str(wire + 1)},
               "AUnitStuck": {"a_unit": "10"}, "MotorStopped": {"r_unit": "1", "a_unit": "3"},
               "PotentiometerDrift": {"sd": "0.1"}, "NoisySum": {"sd": "0.1"},
               "PhotocellRowDead": {"row": "2"}}
    assert sorted(entries) == sorted(FAULT_KINDS)
    for kind, fields in entries.items():
        for name, text in fields.items():
            type_into(page, f"fault-{kind}-{name}", text)
        tab_to(page, f"fault-{kind}")
        page.keyboard.press("Enter")
        settled(page)
        assert type(machine.faults.plan.faults[-1]).__name__ == kind, live(page)["message"]
    broke = {type(f).__name__: f for f in machine.faults.plan.faults}
    assert (broke["PhotocellStuck"].cell, broke["PhotocellStuck"].value) == (4, 1)
    assert (broke["CutWire"].a_unit, broke["CutWire"].s_unit) == (7, wire)
    assert broke["PhotocellRowDead"].row == 1 and broke["AUnitStuck"].a_unit == 9

    page.focus("#live-faults")
    type_into(page, "knob-motor_step_s", "0.5")
    page.keyboard.press("Enter")
    settled(page)
    type_into(page, "knob-weight_range", "[-3, 3]")
    page.keyboard.press("Enter")
    settled(page)
    tab_to(page, "knob-quantize")
    page.keyboard.press("Space")
    settled(page)
    tab_to(page, "knob-rule")
    page.keyboard.press("ArrowDown")
    settled(page)
    p = machine.params
    assert (p.motor_step_s, p.weight_range, p.quantize, p.rule) == \
        (0.5, (-3, 3), False, "forced")
    assert [c.name for c in console.session.run().knob_changes] == [
        "motor_step_s", "weight_range", "quantize", "rule"]

    tab_to(page, "live-pick")                      # a figure, presented by keyboard
    page.keyboard.press("ArrowDown")
    assert page.input_value("#live-label") == "A"
    tab_to(page, "live-present")
    page.keyboard.press("Enter")
    settled(page)
    tab_to(page, "live-reinforce")
    page.keyboard.press("Enter")
    s = settled(page)
    assert console.session.run().n_presentations == 1 and s["weights"][0]
    page.close()
    assert errors == []


def test_a_knob_turned_mid_run_is_saved_and_replayed(browser, console, tmp_path):
    page, errors = new_page(browser)
    open_controls(page, console)
    page.check("#live-trainer")
    for name, motor_step_s in (("A", None), ("B", "0.5"), ("C", None)):
        if motor_step_s:
            page.fill("#knob-motor_step_s", motor_step_s)
            page.press("#knob-motor_step_s", "Enter")
            settled(page)
            assert "Turned motor_step_s from 0.2 to 0.5" in live(page)["message"]
        page.select_option("#live-pick", name)
        page.click("#live-present")
        settled(page)
    page.fill("#knob-weight_range", "[-3, oops]")
    page.press("#knob-weight_range", "Enter")
    assert "weight_range must be written as JSON" in live(page)["message"]
    assert page.input_value("#knob-weight_range") == "[-50,50]"   # the machine's value
    page.fill("#knob-motor_step_s", "-1")
    page.press("#knob-motor_step_s", "Enter")
    settled(page)
    assert "motor_step_s(=-1) must be a finite number >= 0" in live(page)["message"]
    assert page.input_value("#knob-motor_step_s") == "0.5"
    assert errors.pop() == ("Failed to load resource: the server responded with a "
                            "status of 400 (Bad Request)")

    # the page after its incremental answers is the page loaded anew
    before = page.evaluate("[window.markoneLive.run(), window.markoneConsole.state()]")
    page.reload()
    settled(page)
    after = page.evaluate("[window.markoneLive.run(), window.markoneConsole.state()]")
    for got in (before, after):
        got[0].pop("weights_final")   # follows from the presentations' changes
    assert after == before

    page.keyboard.press("s")
    settled(page)
    saved = MachineRun.load(console.out)
    [change] = saved.knob_changes
    assert (change.presentation, change.name, change.old, change.new) == \
        (1, "motor_step_s", 0.2, 0.5)
    assert saved.params.motor_step_s == 0.2 and saved.params_at(1).motor_step_s == 0.5
    assert (saved.log[0].motor_s, saved.log[1].motor_s) == (0.2, 0.5)   # one step each

    page.goto(write_replay_html(console.out, tmp_path / "replay.html").as_uri())
    knobs = []
    for step in range(3):
        page.evaluate(f"window.markoneConsole.jump({step})")
        knobs.append(page.evaluate("window.markoneConsole.state().knobs"))
        turned = "Knobs turned before this figure: motor_step_s from 0.2 to 0.5."
        assert (turned in page.inner_text("#narration")) == (step == 1)
    assert knobs == [{}, {"motor_step_s": 0.5}, {"motor_step_s": 0.5}]
    page.close()
    assert errors == []
