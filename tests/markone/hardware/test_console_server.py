"""The live console's server without a browser (markone/console/server.py):
its guards (loopback peers, Host and Origin headers against DNS rebinding, the page's
token), its JSON API over real HTTP, and ``markone machine console`` stopped by
SIGINT and SIGTERM in a subprocess.
"""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading

import numpy as np
import pytest

from markone.hardware import MachineRun, MarkI
from markone.console.server import (ConsoleServer, allowed_hosts, check_host,
                                             refusal)
from markone.hardware.live import LiveSession, figure_catalogue

FIGURES = figure_catalogue((20, 20))
HOSTS = allowed_hosts("127.0.0.1", 8000)
GOOD = {"Host": "127.0.0.1:8000", "X-Markone-Token": "secret"}


@pytest.mark.parametrize("peer, headers, why", [
    ("192.168.1.20", GOOD, "serves this computer only, not 192.168.1.20"),
    ("10.0.0.1", GOOD, "not 10.0.0.1"),
    ("not an address", GOOD, "not not an address"),
    # DNS rebinding: the attacker's name now points at 127.0.0.1, the Host is his
    ("127.0.0.1", dict(GOOD, Host="attacker.example:8000"), "Host header 'attacker.example"),
    ("127.0.0.1", dict(GOOD, Host="127.0.0.1:8001"), "Host header '127.0.0.1:8001'"),
    ("127.0.0.1", {"X-Markone-Token": "secret"}, "Host header None"),
    ("127.0.0.1", dict(GOOD, Origin="http://attacker.example"), "pages of 'http://attacker.example'"),
    ("127.0.0.1", dict(GOOD, Origin="null"), "pages of 'null'"),
    ("127.0.0.1", dict(GOOD, **{"X-Markone-Token": "guess"}), "lacks this console's token"),
    ("127.0.0.1", {"Host": "127.0.0.1:8000"}, "lacks this console's token"),
])
def test_refusal_names_why(peer, headers, why):
    assert why in refusal(peer, headers, HOSTS, "secret")


@pytest.mark.parametrize("peer, headers", [
    ("127.0.0.1", GOOD),
    ("127.0.0.2", dict(GOOD, Host="localhost:8000")),
    ("::1", dict(GOOD, Host="LOCALHOST:8000", Origin="http://localhost:8000")),
    ("127.0.0.1", dict(GOOD, Origin="http://127.0.0.1:8000")),
])
def test_refusal_admits_this_computer(peer, headers):
    assert refusal(peer, headers, HOSTS, "secret") is None


def test_page_needs_no_token_but_the_right_host():
    assert refusal("127.0.0.1", {"Host": "127.0.0.1:8000"}, HOSTS) is None
    assert refusal("127.0.0.1", {"Host": "evil:8000"}, HOSTS) is not None


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.2", "example.com", ""])
def test_only_loopback_addresses_are_listened_on(host):
    with pytest.raises(ValueError, match="must be a loopback address"):
        check_host(host)


def test_loopback_addresses():
    assert [check_host(h) for h in ("localhost", "127.0.0.1", "127.0.0.5", "::1")] == \
        ["127.0.0.1", "127.0.0.1", "127.0.0.5", "::1"]


# ----------------------------------------------------------------------- over HTTP
@pytest.fixture
def console(tmp_path):
    server = ConsoleServer(LiveSession(MarkI(seed=0)), tmp_path / "run.json")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.close()
    thread.join()


def ask(server, method, path, body=None, *, token=True, host=None, headers=()):
    conn = http.client.HTTPConnection("127.0.0.1", server.port)
    h = {"Host": host or f"127.0.0.1:{server.port}", **dict(headers)}
    if token:
        h["X-Markone-Token"] = server.token
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h.setdefault("Content-Type", "application/json")
    conn.request(method, path, body=data, headers=h)
    resp = conn.getresponse()
    text = resp.read().decode()
    conn.close()
    kind = resp.getheader("Content-Type")
    return resp.status, (json.loads(text) if kind == "application/json" else text)


def figure(name):
    return FIGURES[name].ravel().tolist()


def test_page_is_the_live_console_with_its_token(console):
    status, page = ask(console, "GET", "/", token=False)
    assert status == 200 and console.token in page and '"live":{' in page
    assert "http://" not in page and "https://" not in page   # offline: no CDN
    status, answer = ask(console, "GET", "/", token=False, host="attacker.example")
    assert status == 403 and "Host header 'attacker.example'" in answer["error"]


def test_api_present_reinforce_fault_save(console, tmp_path):
    status, state = ask(console, "GET", "/api/state")
    assert status == 200 and state["run"]["presentations"] == [] and not state["pending"]
    status, state = ask(console, "POST", "/api/present", {"image": figure("A"), "label": "A"})
    assert status == 200 and state["pending"] and state["run"]["classes"] == ["A"]
    shown = state["run"]["presentations"][-1]
    assert shown["changes"] == [] and shown["scores"] == [0.0] * 8
    status, state = ask(console, "POST", "/api/reinforce", {})
    assert status == 200 and not state["pending"]
    done = state["run"]["presentations"][-1]
    assert len(done["changes"]) == 8 * len(done["active_a"])
    np.testing.assert_array_equal(state["run"]["weights_final"],
                                  console.session.machine.weights)
    status, state = ask(console, "POST", "/api/fault", {"kind": "AUnitStuck", "a_unit": 4})
    assert status == 200 and state["run"]["faults"]["faults"][0]["a_unit"] == 4
    wire = int(console.session.machine.wiring.inputs[4, 0])
    status, state = ask(console, "POST", "/api/fault",
                        {"kind": "CutWire", "a_unit": 4, "s_unit": wire})
    assert status == 200 and len(state["run"]["faults"]["faults"]) == 2
    status, state = ask(console, "POST", "/api/present",
                        {"image": figure("B"), "label": "B", "reinforce": True})
    assert status == 200 and not state["pending"]
    assert len(state["run"]["presentations"]) == 2
    status, state = ask(console, "POST", "/api/save", {})
    assert status == 200 and state["saved"] == str(tmp_path / "run.json")
    run = MachineRun.load(tmp_path / "run.json")
    assert run.n_presentations == 2 and len(run.faults) == 2
    np.testing.assert_array_equal(run.weights, console.session.machine.weights)


@pytest.mark.parametrize("method, path, body, status, words", [
    ("POST", "/api/present", {"image": [0.5] * 10, "label": "A"}, 400,
     "image must have shape (20, 20) or (400,)"),
    ("POST", "/api/present", {"image": "A", "label": "A"}, 400, "image must be a list"),
    ("POST", "/api/present", {"image": [0] * 400, "label": " "}, 400,
     "label must be the figure's class"),
    ("POST", "/api/present", {"image": [0] * 400, "label": "A" * 41}, 400,
     "1 to 40 characters"),
    ("POST", "/api/reinforce", {}, 400, "no figure on show to reinforce"),
    ("POST", "/api/fault", {"kind": "Fire"}, 400, "kind 'Fire' is not a fault"),
    ("POST", "/api/fault", {"kind": "AUnitStuck", "a_unit": 999}, 400,
     "a_unit=999 names A-unit 1000, but this machine has A-units 1..512"),
    ("POST", "/api/fault", {"kind": "AUnitStuck", "a_unit": 1, "at_s": 5}, 400,
     "leave out at_s"),
    ("POST", "/api/save", {}, 400, "nothing has been presented yet"),
    ("POST", "/api/knob", {"name": "n_a_units", "value": 10 ** 9}, 400,
     "max_fanout(=40) is too small: 1000000000 A-units"),
    ("POST", "/api/knob", {"name": "motor_step_s", "value": -1}, 400,
     "motor_step_s(=-1) must be a finite number >= 0"),
    ("POST", "/api/knob", {"name": "motor_step_s", "value": [[0.5]]}, 400,
     "motor_step_s must be a number, got [[0.5]]"),
    ("POST", "/api/knob", {"name": "../../etc/passwd", "value": 1}, 400,
     "is not a parameter of the Mark I"),
    ("POST", "/api/knob", {"name": "theta", "value": "auto"}, 400,
     "not to 'auto' mid-run"),
    ("POST", "/api/knob", {"name": "rule"}, 400, "a knob is turned with"),
    ("POST", "/api/knob", {"name": "rule", "value": "forced", "at_s": 3}, 400,
     "a knob is turned with"),
    ("POST", "/api/knob", {"name": ["rule"], "value": "forced"}, 400,
     "a knob is turned with"),
    ("GET", "/api/knob", None, 405, "answers POST requests, not GET"),
    ("POST", "/api/state", {}, 405, "answers GET requests, not POST"),
    ("GET", "/api/present", None, 405, "answers POST requests, not GET"),
    ("GET", "/etc/passwd", None, 404, "no such page"),
    ("POST", "/api/present", b"{not json", 400, "not valid JSON"),
    ("POST", "/api/present", b"[1, 2]", 400, "must be a JSON object"),
])
def test_bad_requests_get_clear_errors(console, tmp_path, method, path, body, status, words):
    got, answer = ask(console, method, path, body)
    assert (got, words in answer["error"]) == (status, True), answer
    assert not (tmp_path / "run.json").exists()


def test_a_knob_turned_over_http_is_in_the_run(console):
    got, state = ask(console, "POST", "/api/knob", {"name": "motor_step_s", "value": 0.5})
    assert got == 200 and state["params_now"]["motor_step_s"] == 0.5
    assert state["run"]["knob_changes"] == [{"presentation": 0, "at_s": 0.0,
                                             "name": "motor_step_s", "old": 0.2,
                                             "new": 0.5}]
    assert state["run"]["params"]["motor_step_s"] == 0.2   # the machine at the start
    assert ask(console, "POST", "/api/knob", {"name": "motor_step_s", "value": 1},
               token=False)[0] == 403
    ask(console, "POST", "/api/present", {"image": figure("A"), "label": "A"})
    got, answer = ask(console, "POST", "/api/knob", {"name": "logic_s", "value": 0.1})
    assert got == 400 and "a figure awaits the trainer" in answer["error"]
    assert console.session.machine.params.logic_s == 0.05


def test_refused_requests_change_nothing(console):
    body = {"image": figure("A"), "label": "A"}
    assert ask(console, "POST", "/api/present", body, token=False)[0] == 403
    assert ask(console, "POST", "/api/present", body, host="attacker.example:80")[0] == 403
    assert ask(console, "POST", "/api/present", body,
               headers={"Origin": "http://attacker.example"})[0] == 403
    assert ask(console, "POST", "/api/present", json.dumps(body).encode(),
               headers={"Content-Type": "text/plain"})[0] == 415
    assert console.session.pending is None and console.session.machine.now_s == 0


def test_a_busy_port_is_refused_clearly(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ValueError, match=f"port {port} on 127.0.0.1 is in use"):
            ConsoleServer(LiveSession(MarkI(seed=0)), tmp_path / "r.json", port=port)


def test_bad_host_and_port(tmp_path):
    session = LiveSession(MarkI(seed=0))
    with pytest.raises(ValueError, match="loopback"):
        ConsoleServer(session, tmp_path / "r.json", host="0.0.0.0")
    with pytest.raises(ValueError, match="port.*0..65535"):
        ConsoleServer(session, tmp_path / "r.json", port=70000)
    with pytest.raises(ValueError, match="is a folder"):
        ConsoleServer(session, tmp_path)


def test_close_lets_a_save_under_way_finish_and_refuses_later_calls(tmp_path):
    session = LiveSession(MarkI(seed=0))
    session.present(FIGURES["A"], "A")
    server = ConsoleServer(session, tmp_path / "run.json")
    inside, release, order = threading.Event(), threading.Event(), []
    real_save = session.save

    def slow_save(path):
        inside.set()
        release.wait()
        out = real_save(path)
        order.append("saved")
        return out

    session.save = slow_save
    saver = threading.Thread(target=server.call, args=("/api/save", "POST", {}))
    saver.start()
    inside.wait()

    def close():
        server.close()
        order.append("closed")

    closer = threading.Thread(target=close)
    closer.start()
    closer.join(0.5)            # time for a close that does not wait to finish first
    release.set()
    saver.join()
    closer.join()
    assert order == ["saved", "closed"]
    assert MachineRun.load(tmp_path / "run.json").n_presentations == 1
    with pytest.raises(Exception, match="the console is stopping") as refused:
        server.call("/api/state", "GET")
    assert refused.value.status == 503
    server.close()                                     # twice is harmless


def _stopped_after(tmp_path, steps, *, there_before=False):
    """A console whose API got ``steps`` (``"present"`` reinforced, or ``"save"``),
    then stopped: what it says, and the runs on disk (name -> presentations)."""
    out = tmp_path / "run.json"
    if there_before:
        out.write_text("a run from before")
    server = ConsoleServer(LiveSession(MarkI(seed=0)), out)
    for step in steps:
        if step == "present":
            server.call("/api/present", "POST",
                        {"image": figure("A"), "label": "A", "reinforce": True})
        else:
            server.call("/api/save", "POST", {})
    server.close()
    said = server.save_unsaved()
    runs = {path.name: (MachineRun.load(path).n_presentations
                        if path.read_text() != "a run from before" else "before")
            for path in tmp_path.iterdir()}
    return said, runs


@pytest.mark.parametrize("steps, there_before, said, runs", [
    ([], False, "nothing to save: no figure was presented", {}),
    ([], True, "nothing to save: no figure was presented", {"run.json": "before"}),
    (["present"], False, "saved the run to {out}", {"run.json": 1}),
    (["present", "save"], False, "the run is saved in {out}", {"run.json": 1}),
    (["present", "save", "present"], False, "saved the run to {out}", {"run.json": 2}),
    (["present"], True, "saved the run to {beside}, beside {out}, which held a run from "
     "before this console started (only save run, key S, replaces it)",
     {"run.json": "before", "run-2.json": 1}),
    (["present", "save", "present"], True, "saved the run to {out}", {"run.json": 2}),
])
def test_a_stopped_console_saves_what_is_not_saved_and_says_where(tmp_path, steps,
                                                                 there_before, said, runs):
    """Ctrl-C or SIGTERM loses no figure shown: the run is saved if it changed since
    the last save, never over a file from before the console that no save of it
    replaced; the words say which happened (it said "nothing was saved", whether or
    not a figure had been shown)."""
    got, on_disk = _stopped_after(tmp_path, steps, there_before=there_before)
    assert got == said.format(out=tmp_path / "run.json", beside=tmp_path / "run-2.json")
    assert on_disk == runs


# ------------------------------------------------------------------ the command
# ------------------------------------------------------------------ the command
def _as_from_a_shell():
    """In the child, before it runs: Ctrl-C's signal delivered and handled as a
    terminal's would be (not ignored, not blocked), whatever this test process
    inherited or was left with by earlier tests in the same worker."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])


def start_console(tmp_path, *extra):
    proc = subprocess.Popen(
        [sys.executable, "-m", "markone", "machine", "console", "--no-browser",
         "--out", str(tmp_path / "run.json"), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        preexec_fn=_as_from_a_shell)
    line = proc.stdout.readline()
    url = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert url, (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc, int(url.group(1))


def post(port, token, path, body):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.request("POST", path, json.dumps(body), {
        "Host": f"127.0.0.1:{port}", "Content-Type": "application/json",
        "X-Markone-Token": token})
    resp = conn.getresponse()
    resp.read()
    conn.close()
    return resp.status


def token_of(port):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.request("GET", "/", headers={"Host": f"127.0.0.1:{port}"})
    page = conn.getresponse().read().decode()
    conn.close()
    return re.search(r'"token":"([^"]+)"', page).group(1)


@pytest.mark.parametrize("sig, words", [
    (signal.SIGINT, "stopped (Ctrl-C)"),
    pytest.param(signal.SIGTERM, "stopped (SIGTERM)", marks=pytest.mark.slow)])
def test_console_command_stops_cleanly_and_leaves_whole_files(tmp_path, sig, words):
    proc, port = start_console(tmp_path)
    try:
        token = token_of(port)
        assert post(port, token, "/api/present",
                    {"image": figure("A"), "label": "A", "reinforce": True}) == 200
        assert post(port, token, "/api/save", {}) == 200
        assert post(port, token, "/api/present",   # shown after the save: not lost
                    {"image": figure("B"), "label": "B", "reinforce": True}) == 200
        proc.send_signal(sig)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:   # say what the child was doing
            status = open(f"/proc/{proc.pid}/status").read()
            stack = subprocess.run(["cat", f"/proc/{proc.pid}/wchan"], text=True,
                                   capture_output=True).stdout
            raise AssertionError("the console did not stop within 60 s: " + " ".join(
                ln for ln in status.splitlines() if ln.startswith(("State", "Sig")))
                + f" wchan={stack}") from None
    finally:
        proc.kill() if proc.poll() is None else None
    assert proc.returncode == 0, err
    assert f"{words}; saved the run to {tmp_path / 'run.json'}.\n" in out
    assert sorted(os.listdir(tmp_path)) == ["run.json"]    # no temporary file left
    assert MachineRun.load(tmp_path / "run.json").n_presentations == 2


@pytest.mark.parametrize("options, words", [
    (["--host", "0.0.0.0"], "must be a loopback address"),
    (["--host", "192.168.0.10"], "must be a loopback address"),
    (["--port", "70000"], "'70000' is not a port: ports go from 0 to 65535"),
    (["--set", "retina_shape=[10, 12]", "--set", "max_fanout=60"],
     "give the threshold for this retina with --set theta=N"),
])
def test_console_command_refuses_bad_options(tmp_path, capsys, monkeypatch, options, words):
    from markone.cli import main

    monkeypatch.chdir(tmp_path)
    try:
        status = main(["machine", "console", "--no-browser", *options])
    except SystemExit as exc:   # argparse refuses an option's value itself
        status = exc.code
    assert status == 2 and words in capsys.readouterr().err
    assert os.listdir(tmp_path) == []
