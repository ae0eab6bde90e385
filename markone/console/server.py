"""The Mark I console in live mode, served to a browser on this computer only.

:class:`ConsoleServer` puts one :class:`~markone.hardware.live.LiveSession` behind a
small JSON API on a loopback address (standard library ``http.server``). ``GET /`` is
the console page (:func:`~markone.hardware.replay.render_live_html`); its script only
shows and asks:

=======================  ==========================================================
``GET  /api/state``       the session: the run so far, and whether a figure awaits
                          the trainer; ``?since=N`` (any call takes it): only what
                          came after the first N presentations
``POST /api/present``     ``{"image": [light levels], "label": "A"}``, and
                          ``"reinforce": true`` to let the trainer act at once
``POST /api/reinforce``   ``{}`` or ``{"label": "B"}``: the trainer reinforces the
                          figure on show (toward another class, if given)
``POST /api/fault``       a fault as in a fault-plan file, without ``at_s`` (it
                          happens now): ``{"kind": "AUnitStuck", "a_unit": 5}``,
                          ``{"kind": "CutWire", "a_unit": 5, "s_unit": 17}``
``POST /api/knob``        ``{"name": "motor_step_s", "value": 0.5}``: turn a knob of
                          the machine now, recorded in the run; a knob of the
                          wiring (``WIRED``) rebuilds the machine, and the answer
                          is the whole state of the new run
``POST /api/save``        ``{}``: the run to the file named when the server started
=======================  ==========================================================

``GET /playground`` is the playground page, and ``/api/playground...`` its API
(:mod:`markone.console.playground`): your own data and the live panel of exact
answers, guarded as the rest.

Each call answers with the state, or ``{"error": message}`` (400 bad request, 403
refused, 404, 405, 408 too slow, 413 too large). :func:`refusal` guards every request:
the peer must be a loopback address, the ``Host`` header (exactly one) this server's
own address (a page that rebinds its DNS name to 127.0.0.1 still sends its own name),
an ``Origin``, when sent, this server's origin, and API calls must carry the page's
token (``X-Markone-Token``), which only a page served here can read. Every answer
forbids framing (``frame-ancestors 'none'``, ``X-Frame-Options: DENY``), so no other
site can show the console in a frame and lead a visitor's clicks. A body is read only
up to :data:`MAX_BODY` bytes and checked to nest at most :data:`MAX_DEPTH` levels
before it is parsed. A fixed pool of handler threads answers: a connection waits for
one without a thread of its own, and has ``timeout_s`` seconds from being accepted to
send its whole request.

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
import io
import ipaddress
import itertools
import json
import queue
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np

from markone._internal.io import check_output_file, nesting_depth_over
from markone._internal.typing import JSONDict, PathLike
from markone._internal.validation import check_int_at_least, check_positive
from markone.console.playground import PAGE, Answer, Later, Playground
from markone.hardware.faults import FaultPlan
from markone.hardware.live import LiveSession, console_controls, figure_catalogue
from markone.hardware.replay import render_live_html

__all__ = ["ConsoleServer", "refusal", "allowed_hosts", "check_host", "MAX_BODY",
           "MAX_DEPTH", "FRAMING", "TIMEOUT_S", "WORKERS"]

#: Largest request body accepted, in bytes (a 20 x 20 figure is about 8 kB).
MAX_BODY = 1 << 20
#: Deepest nesting of arrays and objects accepted in a request body (a request nests 2).
MAX_DEPTH = 16
#: Seconds a connection has, from being accepted, to send its whole request.
TIMEOUT_S = 10.0
#: Handler threads of a console.
WORKERS = 8
#: Connections accepted and waiting for a handler thread; beyond, the oldest is closed
#: if it has sent nothing, else the newest.
WAITING = 1024
#: Bytes of a body over :data:`MAX_BODY` read and dropped after the refusal, so that the
#: client, still sending, reads the answer (a larger body's connection is closed).
DRAIN = 8 * MAX_BODY
#: The headers on every answer that forbid other sites to frame the console.
FRAMING = (("Content-Security-Policy", "default-src 'self' 'unsafe-inline' data: blob:; "
            "connect-src 'self'; frame-ancestors 'none'"),
           ("X-Frame-Options", "DENY"))
#: The headers a request may carry once only (two could be read two ways).
SINGLE = ("Host", "Origin", "X-Markone-Token", "Content-Length", "Content-Type")
#: Longest class name accepted from the page.
MAX_LABEL = 40
#: Seconds between two looks of the serving loop at a :meth:`ConsoleServer.close`
#: (socketserver's default, 0.5 s, made every close wait up to half a second).
STOP_POLL_S = 0.05


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


def _knob(body):
    name = body.get("name")
    if not isinstance(name, str) or "value" not in body or set(body) != {"name", "value"}:
        raise ValueError('a knob is turned with {"name": "motor_step_s", "value": 0.5}: '
                         "the parameter's name and its new value, nothing else.")
    return name, body["value"]


#: The API calls that change the session's run (what a save would write).
_CHANGES_THE_RUN = frozenset({"/api/present", "/api/reinforce", "/api/fault",
                              "/api/knob"})


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
    timeout_s : float
        Seconds a connection has, from being accepted, to send its request (default
        :data:`TIMEOUT_S`); a slower one is answered 408 or closed.
    workers : int
        Handler threads (default :data:`WORKERS`): the most requests answered at once.
    analyst : str, optional
        ``"module:function"`` of the playground's analyst of exact answers
        (:data:`markone.console.playground.ANALYST`); None (default): its panel says
        it is unavailable. The playground (``/playground``) is :attr:`playground`.

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
                 port: int = 0, timeout_s: float = TIMEOUT_S,
                 workers: int = WORKERS, analyst: str | None = None) -> None:
        if not isinstance(session, LiveSession):
            raise TypeError(f"session must be a LiveSession, got "
                            f"{type(session).__name__}.")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port < 65536:
            raise ValueError(f"port(={port!r}) must be an integer in 0..65535 (0: a free "
                             "port chosen by the system).")
        check_positive(timeout_s, "timeout_s")
        check_int_at_least(workers, "workers", 1)
        address = check_host(host)
        self.session, self.out = session, check_output_file(out)
        self.token = secrets.token_urlsafe(24)
        self.saved: str | None = None
        self._out_was_there = self.out.exists()   # a run from before: only Save replaces it
        self._changes = self._saved_changes = 0   # calls that changed the session
        self._lock = threading.Lock()
        self._closed = False
        self._serving = False
        self._httpd = _bind(address, port, self, float(timeout_s), workers)
        self.port = int(self._httpd.server_address[1])
        self.hosts = allowed_hosts(address, self.port)
        self.url = f"http://{_literal(address)}:{self.port}/"
        self._routes: dict[str, tuple[str, Callable[[dict], Any]]] = {
            "/api/state": ("GET", lambda body: None),
            "/api/present": ("POST", self._present),
            "/api/reinforce": ("POST", lambda body: self.session.reinforce(
                _label(body, required=False))),
            "/api/fault": ("POST", lambda body: self.session.break_part(_fault(body))),
            "/api/knob": ("POST", lambda body: self.session.turn_knob(*_knob(body))),
            "/api/save": ("POST", self._save),
        }
        machine = session.machine
        self.playground = Playground(machine.params, machine.seed or 0, analyst)
        self._routes.update(self.playground.routes())
        self.pages: dict[str, Callable[[], str]] = {
            "/": self.page, "/index.html": self.page, PAGE: self._playground_page}

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
            self._httpd.serve_forever(poll_interval=STOP_POLL_S)
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
            "controls": console_controls(self.session.machine.params),
            "catalogue": {name: image.ravel().tolist()
                          for name, image in catalogue.items()}})

    def _playground_page(self) -> str:
        with self._lock:
            return self.playground.page(self.token)

    def state(self, since: int | None = None) -> JSONDict:
        """What ``GET /api/state`` answers (JSON-ready); ``since``: as
        :meth:`LiveSession.to_dict <markone.hardware.live.LiveSession.to_dict>`."""
        return dict(self.session.to_dict(since), saved=self.saved, out=str(self.out))

    def call(self, path: str, method: str, body: dict | None = None,
             since: int | None = None) -> JSONDict:
        """Answer one API call (the HTTP layer's work once a request is admitted),
        with the state after it (from ``since``, when given).

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
            self.session.check_since(since)   # before the call changes anything
            machine = self.session.machine
            answer = route[1](body or {})
            if path in _CHANGES_THE_RUN:
                self._changes += 1
            if self.session.machine is not machine:   # rewired: a new run, sent whole
                since = None
            if not isinstance(answer, Later):
                return answer if isinstance(answer, Answer) else self.state(since)
        result = answer.wait()   # long work (a cycle search), the lock left free
        with self._lock:
            return answer.finish(result)

    def _present(self, body):
        self.session.present(_image(body), _label(body))
        if body.get("reinforce", False) is True:
            self.session.reinforce()

    def _save(self, body):
        self.saved = str(self.session.save(self.out))
        self._saved_changes = self._changes

    def save_unsaved(self) -> str:
        """Once stopped (:meth:`close`): save the run if it changed since it was last
        saved, so that a Ctrl-C or SIGTERM loses nothing, and say where the run is, in
        words for the person at the console. It is saved to ``out``, unless ``out``
        held a file when the console started and no Save of this console replaced it:
        then beside it (``machine-live-2.json``), which leaves that file as it was.

        >>> import tempfile
        >>> from markone.hardware import MarkI
        >>> server = ConsoleServer(LiveSession(MarkI(seed=0)), tempfile.mkdtemp() + "/r.json")
        >>> server.close()
        >>> server.save_unsaved()
        'nothing to save: no figure was presented'
        """
        if self.session.empty:
            return "nothing to save: no figure was presented"
        if self.saved and self._changes == self._saved_changes:
            return f"the run is saved in {self.saved}"
        target = self.out
        if self._out_was_there and not self.saved:
            target = next(path for k in itertools.count(2) if not (
                path := self.out.with_name(f"{self.out.stem}-{k}{self.out.suffix}")).exists())
        self.saved, self._saved_changes = str(self.session.save(target)), self._changes
        if target == self.out:
            return f"saved the run to {target}"
        return (f"saved the run to {target}, beside {self.out}, which held a run from "
                "before this console started (only save run, key S, replaces it)")


class _HTTPServer(http.server.HTTPServer):
    """An HTTP server whose accepted connections wait in a bounded queue for one of
    a fixed pool of handler threads; each has ``timeout_s`` from being accepted to
    send its request (:class:`_Until`). One whose time ran out while it waited is
    dropped if it sent nothing, else answered in a new ``timeout_s``."""

    console: ConsoleServer
    request_queue_size = 128   # the listen backlog: a burst is accepted, not retried

    def __init__(self, address: tuple, timeout_s: float, workers: int) -> None:
        self.timeout_s = timeout_s
        self._waiting: queue.Queue = queue.Queue(maxsize=WAITING)
        self._workers: list[threading.Thread] = []
        super().__init__(address, _Handler)   # closes itself if it cannot bind
        self._workers = [threading.Thread(target=self._work, daemon=True,
                                          name=f"markone-console-{k}")
                         for k in range(workers)]
        for worker in self._workers:
            worker.start()

    def process_request(self, request, client_address):
        """Queue the connection for a handler thread. When too many wait, the oldest
        one makes room if it has sent nothing; else the new one is closed."""
        item = (request, client_address, time.monotonic() + self.timeout_s)
        try:
            self._waiting.put_nowait(item)
        except queue.Full:
            oldest = self._waiting.get_nowait()   # only this thread adds: one is there
            if _has_sent(oldest[0]):
                self._waiting.put_nowait(oldest)  # it stays, at the back
                self.shutdown_request(request)
            else:
                self.shutdown_request(oldest[0])
                self._waiting.put_nowait(item)

    def _work(self):
        """A handler thread: answer queued connections until a None comes."""
        while (item := self._waiting.get()) is not None:
            request, client_address, deadline = item
            try:
                now = time.monotonic()
                if now >= deadline and _has_sent(request):
                    deadline = now + self.timeout_s   # waited its time, but has sent
                if now < deadline:   # else it waited its whole time and sent nothing
                    _Handler(request, client_address, self, deadline)
            except Exception:
                self.handle_error(request, client_address)
            finally:
                self.shutdown_request(request)

    def handle_error(self, request, client_address):
        """Quiet when the client went away; anything else is a bug to report."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)

    def server_close(self):
        """Close the socket, drop the connections still waiting and stop the
        handler threads (each finishes the request it is answering)."""
        super().server_close()
        while True:
            try:
                item = self._waiting.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                self.shutdown_request(item[0])
        for _ in self._workers:
            self._waiting.put(None)
        for worker in self._workers:
            worker.join()


def _bind(address: str, port: int, console: ConsoleServer, timeout_s: float,
          workers: int) -> _HTTPServer:
    """An HTTP server listening on ``address:port`` for ``console``."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    server_class = type("_Server", (_HTTPServer,), {"address_family": family})
    try:
        httpd = server_class((address, port), timeout_s, workers)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ValueError(f"port {port} on {address} is in use; give another --port, "
                             "or leave it out to use a free one.") from None
        raise
    httpd.console = console
    return httpd


class _Until(io.RawIOBase):
    """A socket read until a deadline: a client that trickles its request a byte at a
    time still runs out of time (a socket timeout alone restarts at every byte). Bytes
    that arrived before the deadline are read after it too: a request sent in time is
    answered even when a handler thread comes to it late (a busy machine)."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        super().__init__()
        self._sock, self._deadline = sock, deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self._deadline - time.monotonic()
        if left <= 0:   # time is up: what arrived in time is still read, nothing more
            self._sock.settimeout(0)
            try:
                return self._sock.recv_into(buffer)
            except BlockingIOError:
                raise TimeoutError("the request took too long to arrive") from None
        self._sock.settimeout(left)
        return self._sock.recv_into(buffer)


class _Handler(http.server.BaseHTTPRequestHandler):
    """Admits a request through :func:`refusal`, then lets the console answer."""

    server: _HTTPServer
    server_version = "markone-console"

    def __init__(self, request, client_address, server,
                 deadline: float | None = None) -> None:
        self.deadline = (time.monotonic() + server.timeout_s if deadline is None
                         else deadline)
        super().__init__(request, client_address, server)

    def setup(self) -> None:
        """Read the request within the connection's time (:class:`_Until`)."""
        super().setup()
        self.rfile = io.BufferedReader(_Until(self.connection, self.deadline))

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        self._answer("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._answer("POST")

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows the address and the stop, not every request."""

    def end_headers(self) -> None:
        """Every answer, errors of ``http.server`` included, forbids framing."""
        for name, value in FRAMING:
            self.send_header(name, value)
        super().end_headers()

    def _answer(self, method: str) -> None:
        length = self.headers.get("Content-Length") or "0"
        self._unread = int(length) if length.isdigit() else 0   # until the body is read
        console = self.server.console
        url = urlsplit(self.path)
        public = method == "GET" and (url.path in console.pages
                                      or url.path == "/favicon.ico")
        why = refusal(self.client_address[0], dict(self.headers.items()), console.hosts,
                      None if public else console.token)
        try:
            _single_headers(self.headers)
            if why is not None:
                return self._send(403, {"error": why})
            if url.path == "/favicon.ico":   # the browser asks; the console has none
                return self._send(204, "", "image/x-icon")
            if public:
                return self._send(200, console.pages[url.path](),
                                  "text/html; charset=utf-8")
            since = _since(url.query)
            self._send(200, console.call(url.path, method, self._body(method), since))
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
            raw = self.rfile.read(length)
            self._unread = 0
        except TimeoutError:
            raise _Refused(408, f"the request took over {self.server.timeout_s:g} s to "
                                "arrive; send it whole at once") from None
        return _parse_body(raw)

    def _send(self, status, content, kind="application/json"):
        data = (content if isinstance(content, str)
                else json.dumps(content, allow_nan=False)).encode("utf-8")
        self.connection.settimeout(self.server.timeout_s)   # to write the answer
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(data)
        self._discard(self._unread)

    def _discard(self, length):
        """Read and drop up to ``length`` bytes of a body left unread (a request
        refused before its body was read; at most :data:`DRAIN`, within the
        connection's time), so that the client, which sends it before it reads, gets
        the answer rather than a reset."""
        left = min(length, DRAIN)
        try:
            if left > 0:   # the answer is whole: a client reading to the end stops
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_WR)
            while left > 0 and (chunk := self.rfile.read1(min(left, 1 << 16))):
                left -= len(chunk)
        except (TimeoutError, OSError):
            pass


def _has_sent(sock: socket.socket) -> bool:
    """Whether bytes from the client wait on ``sock``, looked at without waiting or
    taking them (``select`` fails on a descriptor over 1023, which a flood of
    connections reaches)."""
    sock.settimeout(0)
    try:
        return bool(sock.recv(1, socket.MSG_PEEK))
    except OSError:   # nothing yet (BlockingIOError), or the connection is gone
        return False


def _single_headers(headers) -> None:
    """Refuse (400) a request that carries one of the :data:`SINGLE` headers twice:
    with two ``Host`` headers one reader checks the first and another the last."""
    for name in SINGLE:
        count = len(headers.get_all(name) or ())
        if count > 1:
            raise _Refused(400, f"the request carries {count} {name} headers; send "
                                "exactly one")


def _since(query: str) -> int | None:
    """The ``since`` of a query string (None when absent)."""
    values = parse_qs(query, keep_blank_values=True).get("since")
    if values is None:
        return None
    if len(values) != 1 or not values[0].isdigit() or len(values[0]) > 9:
        raise ValueError(f"since must be one count of presentations (?since=N), got "
                         f"{values!r}.")
    return int(values[0])


def _parse_body(raw: bytes) -> dict:
    """The JSON object in a request body, its nesting checked before it is parsed."""
    if nesting_depth_over(raw, MAX_DEPTH):
        raise _Refused(400, f"the request body nests arrays and objects more than "
                            f"{MAX_DEPTH} levels deep; a console request nests 2")
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise _Refused(400, "the request body is not valid JSON") from None
    if not isinstance(body, dict):
        raise _Refused(400, "the request body must be a JSON object")
    return body
