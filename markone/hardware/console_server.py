"""The Mark I console in live mode, served to a browser on this computer only.

:class:`ConsoleServer` puts one :class:`~markone.hardware.live.LiveSession` behind a
small JSON API on a loopback address (standard library ``http.server``). ``GET /`` is
the console page (:func:`~markone.hardware.replay.render_live_html`); its script only
shows and asks:

=======================  ==========================================================
``GET  /api/state``       the session: the run so far, and whether a figure awaits
                          the trainer
``POST /api/present``     ``{"image": [light levels], "label": "A"}``, and
                          ``"reinforce": true`` to let the trainer act at once
``POST /api/reinforce``   ``{}`` or ``{"label": "B"}``: the trainer reinforces the
                          figure on show (toward another class, if given)
``POST /api/fault``       a fault as in a fault-plan file, without ``at_s`` (it
                          happens now): ``{"kind": "AUnitStuck", "a_unit": 5}``,
                          ``{"kind": "CutWire", "a_unit": 5, "s_unit": 17}``
``POST /api/save``        ``{}``: the run to the file named when the server started
=======================  ==========================================================

Each call answers with the state, or ``{"error": message}`` (400 bad request, 403
refused, 404, 405, 413 too large). :func:`refusal` guards every request: the peer
must be a loopback address, the ``Host`` header this server's own address (a page
that rebinds its DNS name to 127.0.0.1 still sends its own name), an ``Origin``, when
sent, this server's origin, and API calls must carry the page's token
(``X-Markone-Token``), which only a page served here can read.

Examples
--------
>>> refusal("127.0.0.1", {"Host": "127.0.0.1:8000"}, allowed_hosts("127.0.0.1", 8000))
>>> refusal("127.0.0.1", {"Host": "evil.example:8000"}, allowed_hosts("127.0.0.1", 8000))
"the Host header 'evil.example:8000' is not this console's address (127.0.0.1:8000 or localhost:8000); open the console at the address markone printed"
>>> check_host("0.0.0.0")
Traceback (most recent call last):
...
ValueError: host(='0.0.0.0') must be a loopback address such as 127.0.0.1 or ::1 (or 'localhost'): the console never listens beyond this computer.
"""

from __future__ import annotations

import errno
import hmac
import http.server
import ipaddress
import json
import secrets
import socket
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from markone._internal.io import check_output_file, to_jsonable
from markone._internal.typing import JSONDict, PathLike
from markone.hardware.faults import FaultPlan
from markone.hardware.live import LiveSession, figure_catalogue
from markone.hardware.replay import render_live_html

__all__ = ["ConsoleServer", "refusal", "allowed_hosts", "check_host", "MAX_BODY"]

#: Largest request body accepted, in bytes (a 20 x 20 figure is about 2 kB).
MAX_BODY = 1 << 20
#: Longest class name accepted from the page.
MAX_LABEL = 40


def check_host(host: str) -> str:
    """The loopback address to listen on, from ``host`` (``"localhost"`` is
    127.0.0.1); any other address is refused.

    >>> check_host("localhost"), check_host("::1")
    ('127.0.0.1', '::1')
    """
    name = "127.0.0.1" if host == "localhost" else host
    try:
        ip = ipaddress.ip_address(name)
    except ValueError:
        ip = None
    if ip is None or not ip.is_loopback:
        raise ValueError(f"host(={host!r}) must be a loopback address such as 127.0.0.1 "
                         "or ::1 (or 'localhost'): the console never listens beyond this "
                         "computer.")
    return str(ip)


def _literal(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def allowed_hosts(address: str, port: int) -> tuple[str, ...]:
    """The ``Host`` header values a request to ``address:port`` may carry.

    >>> allowed_hosts("::1", 8000)
    ('[::1]:8000', 'localhost:8000')
    """
    return (f"{_literal(address)}:{port}", f"localhost:{port}")


def refusal(peer: str, headers: Mapping[str, str], hosts: tuple[str, ...],
            token: str | None = None) -> str | None:
    """Why a request must be refused, or None when it may be served.

    Parameters
    ----------
    peer : str
        The address the request came from.
    headers : mapping
        Its headers (``Host``, ``Origin``, ``X-Markone-Token``; names in any case).
    hosts : tuple of str
        The server's own ``host:port`` names (:func:`allowed_hosts`).
    token : str, optional
        The token API calls must carry; None for the page itself.
    """
    try:
        local = ipaddress.ip_address(peer).is_loopback
    except ValueError:
        local = False
    if not local:
        return f"the console serves this computer only, not {peer}"
    headers = {name.lower(): value for name, value in headers.items()}
    host = (headers.get("host") or "").lower()
    if host not in hosts:
        return (f"the Host header {headers.get('host')!r} is not this console's address "
                f"({' or '.join(hosts)}); open the console at the address markone "
                "printed")
    origin = headers.get("origin")
    if origin is not None and origin.lower() not in {f"http://{h}" for h in hosts}:
        return f"requests from pages of {origin!r} are refused"
    if token is not None and not hmac.compare_digest(
            headers.get("x-markone-token") or "", token):
        return "the request lacks this console's token; reload the console page"
    return None


class _Refused(Exception):
    """A request answered with an HTTP error status and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _label(body, required=True):
    label = body.get("label")
    if label is None and not required:
        return None
    if not isinstance(label, str) or not 0 < len(label.strip()) <= MAX_LABEL:
        raise ValueError(f"label must be the figure's class, a name of 1 to {MAX_LABEL} "
                         f"characters, got {label!r}.")
    return label.strip()


def _image(body):
    image = body.get("image")
    if not isinstance(image, list) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in image):
        raise ValueError("image must be a list of light levels in [0, 1], one per "
                         "photocell, row by row.")
    return np.asarray(image, dtype=np.float64)


def _fault(body):
    if "at_s" in body:
        raise ValueError("a fault from the console happens now: leave out at_s.")
    return FaultPlan.from_dict({"faults": [dict(body)]}).faults[0]


class ConsoleServer:
    """One live Mark I session served on a loopback address.

    Parameters
    ----------
    session : LiveSession
        The machine to operate.
    out : path-like
        Where ``POST /api/save`` writes the run (checked now, written on request).
    host : str
        A loopback address (default 127.0.0.1); anything else is refused.
    port : int
        0 (default): a free port chosen by the system; else that port, which must be
        free.

    Attributes
    ----------
    url : str
        The console's address, e.g. ``http://127.0.0.1:50321/``.
    token : str
        The secret the page's API calls carry.

    Examples
    --------
    >>> import tempfile, threading
    >>> from markone.hardware import MarkI
    >>> server = ConsoleServer(LiveSession(MarkI(seed=0)), tempfile.mkdtemp() + "/r.json")
    >>> server.url.startswith("http://127.0.0.1:"), server.call("/api/state", "GET")["pending"]
    (True, False)
    >>> threading.Thread(target=server.serve_forever, daemon=True).start()
    >>> server.close()        # from another thread, or after Ctrl-C ends serve_forever
    """

    def __init__(self, session: LiveSession, out: PathLike, *, host: str = "127.0.0.1",
                 port: int = 0) -> None:
        if not isinstance(session, LiveSession):
            raise TypeError(f"session must be a LiveSession, got "
                            f"{type(session).__name__}.")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port < 65536:
            raise ValueError(f"port(={port!r}) must be an integer in 0..65535 (0: a free "
                             "port chosen by the system).")
        address = check_host(host)
        self.session, self.out = session, check_output_file(out)
        self.token = secrets.token_urlsafe(24)
        self.saved: str | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._serving = False
        self._httpd = _bind(address, port, self)
        self.port = int(self._httpd.server_address[1])
        self.hosts = allowed_hosts(address, self.port)
        self.url = f"http://{_literal(address)}:{self.port}/"
        self._routes: dict[str, tuple[str, Callable[[dict], Any]]] = {
            "/api/state": ("GET", lambda body: None),
            "/api/present": ("POST", self._present),
            "/api/reinforce": ("POST", lambda body: self.session.reinforce(
                _label(body, required=False))),
            "/api/fault": ("POST", lambda body: self.session.break_part(_fault(body))),
            "/api/save": ("POST", self._save),
        }

    def __repr__(self) -> str:
        return f"ConsoleServer({self.url!r}, {self.session!r})"

    def __enter__(self) -> ConsoleServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def serve_forever(self) -> None:
        """Answer requests until :meth:`close` (from another thread) or Ctrl-C."""
        with self._lock:
            if self._closed:
                return
            self._serving = True
        try:
            self._httpd.serve_forever()
        finally:
            self._serving = False

    def close(self) -> None:
        """Stop: wait for the call under way (a save finishes whole), refuse any
        later one, and close the socket. Safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            serving = self._serving
        if serving:   # the loop runs in another thread: end it
            self._httpd.shutdown()
        self._httpd.server_close()

    def page(self) -> str:
        """The console page in live mode, with this session and token."""
        with self._lock:
            state = self.state()
        catalogue = figure_catalogue(self.session.machine.params.retina_shape)
        return render_live_html(state, {
            "token": self.token, "out": str(self.out),
            "catalogue": {name: image.ravel().tolist()
                          for name, image in catalogue.items()}})

    def state(self) -> JSONDict:
        """What ``GET /api/state`` answers (JSON-ready)."""
        return to_jsonable(dict(self.session.to_dict(), saved=self.saved,
                                out=str(self.out)))

    def call(self, path: str, method: str, body: dict | None = None) -> JSONDict:
        """Answer one API call (the HTTP layer's work once a request is admitted).

        Raises ``_Refused`` (404, 405) or the session's ``ValueError``/``TypeError``
        for a bad request.
        """
        route = self._routes.get(path)
        if route is None:
            raise _Refused(404, f"no such page: {path}")
        if route[0] != method:
            raise _Refused(405, f"{path} answers {route[0]} requests, not {method}")
        with self._lock:
            if self._closed:
                raise _Refused(503, "the console is stopping")
            route[1](body or {})
            return self.state()

    def _present(self, body):
        self.session.present(_image(body), _label(body))
        if body.get("reinforce", False) is True:
            self.session.reinforce()

    def _save(self, body):
        self.saved = str(self.session.save(self.out))


class _HTTPServer(http.server.ThreadingHTTPServer):
    console: ConsoleServer


def _bind(address: str, port: int, console: ConsoleServer) -> _HTTPServer:
    """An HTTP server listening on ``address:port`` for ``console``."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    server_class = type("_Server", (_HTTPServer,), {"address_family": family})
    try:
        httpd = server_class((address, port), _Handler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ValueError(f"port {port} on {address} is in use; give another --port, "
                             "or leave it out to use a free one.") from None
        raise
    httpd.console = console
    return httpd


class _Handler(http.server.BaseHTTPRequestHandler):
    """Admits a request through :func:`refusal`, then lets the console answer."""

    server: _HTTPServer
    server_version = "markone-console"

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        self._answer("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._answer("POST")

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows the address and the stop, not every request."""

    def _answer(self, method: str) -> None:
        console = self.server.console
        path = urlsplit(self.path).path
        public = method == "GET" and path in ("/", "/index.html", "/favicon.ico")
        why = refusal(self.client_address[0], dict(self.headers.items()), console.hosts,
                      None if public else console.token)
        if why is not None:
            return self._send(403, {"error": why})
        try:
            if path == "/favicon.ico":   # the browser asks; the console has none
                return self._send(204, "", "image/x-icon")
            if public:
                return self._send(200, console.page(), "text/html; charset=utf-8")
            self._send(200, console.call(path, method, self._body(method)))
        except _Refused as exc:
            self._send(exc.status, {"error": str(exc)})
        except (ValueError, TypeError) as exc:
            self._send(400, {"error": str(exc)})

    def _body(self, method):
        if method != "POST":
            return None
        if (self.headers.get("Content-Type") or "").split(";")[0] != "application/json":
            raise _Refused(415, "send the request body as application/json")
        try:
            length = int(self.headers.get("Content-Length") or "")
        except ValueError:
            raise _Refused(411, "the request needs a Content-Length") from None
        if not 0 <= length <= MAX_BODY:
            raise _Refused(413, f"the request body is over {MAX_BODY} bytes")
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except (ValueError, UnicodeDecodeError):
            raise _Refused(400, "the request body is not valid JSON") from None
        if not isinstance(body, dict):
            raise _Refused(400, "the request body must be a JSON object")
        return body

    def _send(self, status, content, kind="application/json"):
        data = (content if isinstance(content, str)
                else json.dumps(content, allow_nan=False)).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", "default-src 'self' 'unsafe-inline' "
                         "data: blob:; connect-src 'self'")
        self.end_headers()
        self.wfile.write(data)
