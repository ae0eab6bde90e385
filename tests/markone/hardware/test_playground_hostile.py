"""The playground's endpoints against hostile requests, over real sockets on 127.0.0.1
(markone/console/playground.py, served by markone/console/server.py; issue 44): each
new path is guarded as the console's own are (token, Host, Origin, method, bounded
and shallow bodies), a bad upload is a 4xx with a one-line message, and no name sent
by a request reaches the filesystem.
"""

import builtins
import io
import json
import os

import pytest

from markone.console.playground import ANALYST, _digest
from markone.console.server import MAX_BODY
from test_console_hostile import parse, raw, request, serve, token

#: Every path the playground adds, with its method and a well-formed body.
ENDPOINTS = [("GET", "/api/playground", b""),
             ("POST", "/api/playground/data", b'{"csv": "x,y,c\\n0,0,a\\n1,1,b\\n"}'),
             ("POST", "/api/playground/point", b'{"x": [0.5, 0.5], "label": 0}'),
             ("POST", "/api/playground/clear", b"{}"),
             ("POST", "/api/playground/cycle", b"{}"),
             ("POST", "/api/playground/train", b'{"max_epochs": 2}'),
             ("POST", "/api/playground/session", b'{"text": "{}"}'),
             ("GET", "/api/playground/saved", b""),
             ("GET", "/api/playground/certificate", b""),
             ("GET", "/api/playground/replay", b"")]
IDS = [path.rsplit("/", 1)[-1] for _, path, _ in ENDPOINTS]


@pytest.fixture
def console(tmp_path):
    server, thread = serve(tmp_path, analyst=ANALYST)
    yield server
    server.close()
    thread.join()


def answer(server, method, path, body=b"", headers=None):
    status, head, data = parse(raw(server, request(
        server, method, path, body, [token(server)] if headers is None else headers)))
    return status, head, json.loads(data) if data else None


@pytest.mark.parametrize("method, path, body", ENDPOINTS, ids=IDS)
def test_every_endpoint_needs_the_token_host_and_origin(console, method, path, body):
    me = f"127.0.0.1:{console.port}"
    for headers in ([], ["X-Markone-Token: guess"],
                    [token(console), "Host: evil.example"],
                    [token(console), "Origin: http://evil.example"]):
        status, head, data = answer(console, method, path, body, headers)
        assert status in (400, 403), (headers, status)   # two Host headers: 400
        assert set(data) == {"error"} and head["x-frame-options"] == ["DENY"]
    status, _, _ = answer(console, method, path, body,
                          [token(console), f"Origin: http://{me}"])
    assert status in (200, 400)   # 400: e.g. no cycle on these data; never refused


@pytest.mark.parametrize("method, path, body", ENDPOINTS, ids=IDS)
def test_every_endpoint_answers_its_method_only(console, method, path, body):
    other = "POST" if method == "GET" else "GET"
    status, _, data = answer(console, other, path, b"{}" if other == "POST" else b"")
    assert status == 405 and f"answers {method} requests" in data["error"]


@pytest.mark.parametrize("path", [p for m, p, _ in ENDPOINTS if m == "POST"])
def test_deep_huge_and_malformed_bodies_are_refused(console, path):
    deep = b'{"csv": ' + b"[" * 100 + b"]" * 100 + b"}"
    status, _, data = answer(console, "POST", path, deep)
    assert status == 400 and "more than 16 levels deep" in data["error"]
    status, _, data = answer(console, "POST", path, b"x" * (MAX_BODY + 1))
    assert status == 413 and "over 1048576 bytes" in data["error"]
    for bad in (b"[1, 2]", b"{not json", b'"text"'):
        status, _, data = answer(console, "POST", path, bad)
        assert status == 400 and set(data) == {"error"}


@pytest.mark.parametrize("body, words", [
    ({"csv": "x,y,c\n1,2,a\n3,b\n"}, "line 3: 2 columns"),
    ({"figures": [{"name": "A/1.txt", "text": "####"}]}, "must be 20 lines"),
    ({"csv": "x,c\n" + "1,a\n" * 2001}, "at most 2000 rows"),
    ({"text": "{}"}, 'send {"csv": table text} or {"figures": [files]}'),
])
def test_a_bad_upload_is_a_4xx_with_its_reason(console, body, words):
    status, _, data = answer(console, "POST", "/api/playground/data",
                             json.dumps(body).encode())
    assert status == 400 and words in data["error"]
    status, _, data = answer(console, "GET", "/api/playground")
    assert data["data"]["n"] == 0   # nothing half-loaded


def test_a_tampered_session_over_http_is_a_4xx(console):
    answer(console, "POST", "/api/playground/data", ENDPOINTS[1][2])
    _, _, saved = answer(console, "GET", "/api/playground/saved")
    saved["data"]["labels"][0] = 1 - saved["data"]["labels"][0]
    status, _, data = answer(console, "POST", "/api/playground/session",
                             json.dumps({"text": json.dumps(saved)}).encode())
    assert status == 400 and "changed after it was saved" in data["error"]


@pytest.mark.parametrize("params, words", [
    ({"n_a_units": 4000, "max_fanout": 10 ** 6, "n_r_units": 10 ** 4},
     "n_r_units(=10000) is over 64"),
    ({"retina_shape": [10 ** 5, 10 ** 5]}, "retina_cells(=10000000000) is over 4096"),
    ({"__class__": 1}, "unknown MarkIParams fields ['__class__']"),
])
def test_a_signed_session_of_a_huge_machine_is_refused(console, params, words):
    """A session's machine settings are applied on loading: one signed anew with a
    machine no request may build is refused before anything is built."""
    answer(console, "POST", "/api/playground/data", ENDPOINTS[1][2])
    _, _, saved = answer(console, "GET", "/api/playground/saved")
    saved["machine"]["params"].update(params)
    saved["sha256"] = _digest(saved)
    status, _, data = answer(console, "POST", "/api/playground/session",
                             json.dumps({"text": json.dumps(saved)}).encode())
    assert status == 400 and words in data["error"], data
    assert console.playground.params == console.session.machine.params


def test_no_name_from_a_request_reaches_the_filesystem(console, monkeypatch):
    """Figure names that look like paths only name classes; the server opens no file
    while it answers (any open fails the request)."""
    opened = []

    def refuse(*args, **kwargs):
        opened.append(args[0] if args else kwargs)
        raise PermissionError("no file may be opened")

    figure = "\n".join(("#" if r < 2 else ".") * 20 for r in range(20))
    names = ["../../etc/passwd", "/etc/shadow", "C:\\Windows\\win.ini", "~/x/.ssh"]
    body = json.dumps({"figures": [{"name": n, "text": figure} for n in names]}).encode()
    for name in ("open",):
        monkeypatch.setattr(builtins, name, refuse)
    monkeypatch.setattr(io, "open", refuse)
    monkeypatch.setattr(os, "open", refuse)
    status, _, data = answer(console, "POST", "/api/playground/data", body)
    monkeypatch.undo()
    assert status == 400 and "classes" in data["error"] and opened == []
    assert "etc" in data["error"]   # the folder's name is a class name, nothing more


def test_the_playground_page_is_guarded_like_the_console_page(console):
    status, head, data = parse(raw(console, request(console, "GET", "/playground")))
    assert status == 200 and console.token.encode() in data
    assert head["x-frame-options"] == ["DENY"]
    status, _, _ = parse(raw(console, request(console, "GET", "/playground",
                                              headers=["Host: evil.example"])))
    assert status == 403


@pytest.mark.parametrize("value", ["1", 1.0, -1, True, None, [0], {"g": 0}, 1e400])
def test_a_cycle_request_with_a_bad_generation_is_refused(console, value):
    """The cycle request names the data it asks about by their generation, a whole
    number: anything else is refused with a message, not taken for superseded data."""
    body = json.dumps({"generation": value}).encode()
    status, _, data = answer(console, "POST", "/api/playground/cycle", body)
    assert status == 400 and "generation must be the whole number" in data["error"]
