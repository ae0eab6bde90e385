"""A knob fixed by the wiring turned in a live session (issue 44, item 3): the session
goes on with a new machine built with it from the same seed, the run so far becomes
one of the run's ``earlier`` runs, ended by a ``rewired`` knob change; saved as run
format 4 and loaded back; each machine of the saved run rebuilt from it and shown the
same figures does what the live session's did, bit for bit. Bad values, and machines
too large to rebuild on a request, are refused and change nothing, over HTTP too.
"""

import dataclasses
import json

import numpy as np
import pytest

from markone.hardware import MachineRun, MarkI, MarkIParams
from markone.hardware.faults import AUnitStuck
from markone.hardware.live import LiveSession, figure_catalogue
from markone.hardware.params import RETUNABLE, WIRED
from markone.hardware.replay import check_run
from test_console_server import ask, console, figure  # noqa: F401 (console: a fixture)

FIGURES = figure_catalogue((20, 20))
TYPICAL = list(FIGURES.values())


def session():
    return LiveSession(MarkI(seed=3), calibrate_on=TYPICAL)


def teach(live, names):
    for name in names:
        live.present(FIGURES[name], name)
        live.reinforce()


def rewired_session():
    """A session that rewires twice: n_a_units, then topology (after a fault and a
    knob turned between figures, which the earlier runs keep)."""
    live = session()
    teach(live, "AB")
    live.break_part(AUnitStuck(a_unit=2))
    live.turn_knob("motor_step_s", 0.4)
    teach(live, "A")
    first = live.turn_knob("n_a_units", 200)
    teach(live, ["B", "disc", "A"])
    second = live.turn_knob("topology", "source_sets")
    teach(live, "AB")
    return live, (first, second)


def test_wired_and_retunable_knobs_are_every_parameter():
    names = list(MarkIParams.__dataclass_fields__)
    assert sorted(WIRED + RETUNABLE) == sorted(names) and not set(WIRED) & set(RETUNABLE)


def test_a_wiring_knob_rewires_and_the_session_goes_on(tmp_path):
    live, (first, second) = rewired_session()
    assert (first.presentation, first.old, first.new, first.rewired) == (3, 512, 200, True)
    assert (second.name, second.old, second.new) == ("topology", "full", "source_sets")
    m = live.machine
    assert (m.params.n_a_units, m.params.topology, m.params.motor_step_s) == \
        (200, "source_sets", 0.4)
    assert m.faults is None and m.seed == 3   # a new machine, healthy, the same seed
    run = live.run()
    assert [r.n_presentations for r in run.earlier] == [3, 3]
    assert run.n_presentations == 2 and run.weights.shape == (8, 200)
    assert [r.knob_changes[-1] for r in run.earlier] == [first, second]
    assert run.earlier[0].faults is not None and run.faults is None
    assert run.earlier[0].knob_changes[0].name == "motor_step_s"
    assert run.earlier[1].log[0].t_s == 0.0   # the new machine's clock starts at 0 s

    text = live.save(tmp_path / "rewired.json").read_text()
    data = json.loads(text)
    assert data["version"] == 4 and [e["version"] for e in data["earlier"]] == [4, 4]
    assert data["earlier"][0]["knob_changes"][0] == {
        "presentation": 2, "at_s": data["earlier"][0]["knob_changes"][0]["at_s"],
        "name": "motor_step_s", "old": 0.2, "new": 0.4}   # no "rewired": a plain turn
    assert check_run(data) is data
    again = MachineRun.load(tmp_path / "rewired.json")
    assert again.save(tmp_path / "again.json").read_text() == text
    assert again.earlier[1].knob_changes == (second,)


def rerun(part, calibrate_on=TYPICAL):
    """One machine of a saved run built again from it (its params and seed) and shown
    its figures by a session that reinforces each, its knobs turned where it says."""
    live = LiveSession(MarkI(part.params, seed=part.seed), calibrate_on=calibrate_on)
    turns = [c for c in part.knob_changes if not c.rewired]
    for k, rec in enumerate(part.log):
        for change in [c for c in turns if c.presentation == k]:
            live.turn_knob(change.name, change.new)
        live.present(part.figures[rec.figure].astype(float), part.classes[rec.label])
        live.reinforce()
    return live.run()


def test_each_machine_of_a_saved_run_does_again_what_the_live_one_did(tmp_path):
    """The rewire reproduces from the saved run: each machine rebuilt from its
    params and seed has the recorded wiring, threshold and start, and the same
    figures give the same records and weights, bit for bit (the first machine, whose
    fault is not replayed, is compared up to the fault)."""
    live, _ = rewired_session()
    saved = MachineRun.load(live.save(tmp_path / "rewired.json"))
    for k, part in enumerate((*saved.earlier, saved)):
        machine = MarkI(part.params, seed=part.seed)
        np.testing.assert_array_equal(machine.wiring.excitatory, part.excitatory)
        np.testing.assert_array_equal(machine.wiring.inhibitory, part.inhibitory)
        np.testing.assert_array_equal(machine.weights, part.weights_initial)
        if k == 0:
            continue
        again = rerun(part)
        assert again.theta == part.theta and tuple(again.log) == part.log
        np.testing.assert_array_equal(again.weights, part.weights)
        assert again.sim_time_s == part.sim_time_s
    first = saved.earlier[0]
    again = rerun(dataclasses.replace(first, log=first.log[:2]))   # before its fault
    assert tuple(again.log) == first.log[:2]


@pytest.mark.parametrize("name, value, words", [
    ("n_a_units", 0, "n_a_units(=0) must be >= 1"),
    ("n_a_units", 5000, "max_fanout(=40) is too small: 5000 A-units"),
    ("retina_shape", [100, 100], "retina_cells(=10000) is over 4096"),
    ("retina_shape", [20.5, 20], "retina_shape(=[20.5, 20]) must be two integers"),
    ("retina_shape", [30, 40], "theta='auto' needs typical figures"),
    ("n_r_units", 100, "n_r_units(=100) is over 64"),
    ("topology", "ring", "topology(='ring') must be one of 'full', 'source_sets'"),
    ("class_code", None, "class_code(=None) must be one of"),
    ("theta_target_rate", [0.3, 0.1], "theta_target_rate(=[0.3, 0.1]) must be (lo, hi)"),
    ("n_excitatory", True, "n_excitatory must be an integer, got True"),
    ("max_fanout", 1, "max_fanout(=1) is too small"),
])
def test_a_bad_wiring_value_is_refused_with_its_own_message(name, value, words):
    live = session()
    teach(live, "A")
    machine = live.machine
    with pytest.raises((ValueError, TypeError)) as caught:
        live.turn_knob(name, value)
    assert words in str(caught.value)
    assert live.machine is machine and live.run().earlier == ()
    assert live.run().n_presentations == 1


def test_a_machine_too_large_to_rebuild_on_a_request_is_refused():
    live = LiveSession(MarkI(MarkIParams(max_fanout=10 ** 6), seed=0), calibrate_on=TYPICAL)
    machine = live.machine
    with pytest.raises(ValueError, match=r"n_a_units\(=5000\) is over 4096, the most a "
                                         "live session rebuilds its machine with"):
        live.turn_knob("n_a_units", 5000)
    assert live.machine is machine


def test_rewiring_needs_a_seed_and_no_figure_on_show():
    live = LiveSession(MarkI(seed=np.random.default_rng(0)), calibrate_on=TYPICAL)
    with pytest.raises(ValueError, match="has no integer seed"):
        live.turn_knob("n_a_units", 256)
    live = session()
    live.present(FIGURES["A"], "A")
    with pytest.raises(ValueError, match="a figure awaits the trainer"):
        live.turn_knob("n_a_units", 256)


def test_a_rewire_before_any_figure_keeps_no_empty_run():
    live = session()
    live.turn_knob("class_code", "one_hot")
    assert live.run().earlier == () and live.run().params.class_code == "one_hot"
    teach(live, "AB")
    assert live.run().codes.tolist()[:2] == [[1] + [-1] * 7, [-1, 1] + [-1] * 6]


@pytest.mark.parametrize("damage, words", [
    (lambda d: d["earlier"][0]["knob_changes"].pop(), "ended by a rewired knob change"),
    (lambda d: d["earlier"][0].update(format="other"), "must be a whole Mark I run"),
    (lambda d: d["earlier"][0]["knob_changes"][-1].update(rewired="yes"),
     "rewired must be true or false"),
    (lambda d: d["earlier"].append(dict(d["earlier"][0], earlier=d["earlier"][:1])),
     "no earlier runs of its own"),
])
def test_a_damaged_earlier_run_is_refused(tmp_path, damage, words):
    live = session()
    teach(live, "A")
    live.turn_knob("n_a_units", 100)
    teach(live, "B")
    data = json.loads(live.save(tmp_path / "r.json").read_text())
    damage(data)
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=words):
        MachineRun.load(tmp_path / "bad.json")


# ----------------------------------------------------------------------- over HTTP
def test_a_rewire_over_http_answers_the_new_run_whole(console):
    for name in "AB":
        ask(console, "POST", "/api/present?since=0", {"image": figure(name), "label": name,
                                                      "reinforce": True})
    got, state = ask(console, "POST", "/api/knob?since=2",
                     {"name": "n_a_units", "value": 128})
    assert got == 200 and "since" not in state, state.get("error")
    run = state["run"]
    assert run["n_a_units"] == 128 and run["presentations"] == [] and run["version"] == 4
    assert [len(e["presentations"]) for e in run["earlier"]] == [2]
    assert run["earlier"][0]["knob_changes"][-1]["rewired"] is True
    assert state["params_now"]["n_a_units"] == 128
    got, state = ask(console, "POST", "/api/present?since=0",
                     {"image": figure("A"), "label": "A", "reinforce": True})
    assert got == 200 and "earlier" not in state["run"]   # a delta: sent once
    got, state = ask(console, "GET", "/api/state")
    assert len(state["run"]["earlier"]) == 1 and state["run"]["version"] == 4
    page = ask(console, "GET", "/", token=False)[1]
    assert '"n_a_units":128' in page.replace(" ", "")


@pytest.mark.parametrize("body, status, words", [
    ({"name": "n_a_units", "value": 10 ** 12}, 400, "max_fanout(=40) is too small"),
    ({"name": "retina_shape", "value": [[20], 20]}, 400, "retina_shape(=[[20], 20])"),
    ({"name": "retina_shape", "value": [4096, 4096]}, 400, "retina_cells(=16777216)"),
    ({"name": "n_r_units", "value": "8"}, 400, "n_r_units must be an integer"),
    ({"name": "topology", "value": {"a": 1}}, 400, "topology(={'a': 1}) must be one of"),
    ({"name": "n_a_units", "value": 1e400}, 400, "n_a_units must be an integer"),
])
def test_hostile_rewires_are_refused_and_change_nothing(console, body, status, words):
    machine = console.session.machine
    raw = json.dumps(body).replace("Infinity", "1e400").encode()
    got, answer = ask(console, "POST", "/api/knob", raw)
    assert (got, words in answer.get("error", "")) == (status, True), answer
    assert console.session.machine is machine
    assert ask(console, "POST", "/api/knob", {"name": "n_a_units", "value": 64},
               token=False)[0] == 403
    assert console.session.machine is machine
