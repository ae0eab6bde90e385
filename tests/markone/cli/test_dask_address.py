"""``--dask ADDRESS`` where no Dask scheduler listens: a clear exit 2 within the
connect timeout, and the sweep's lock released (only loopback servers here)."""

import http.server
import socket
import threading

import pytest

import markone._internal.parallel as parallel
from markone.cli import main


@pytest.fixture(autouse=True, scope="module")
def _dask_installed():
    # skipped when Dask is absent; imported when the tests run, not when the suite is
    # collected (issue 37: 18 MB in each worker, though one of them runs these tests)
    pytest.importorskip("dask.distributed")


class _Garbage:
    """A TCP server on 127.0.0.1 that sends ``greeting`` to whoever connects (and then
    keeps the connection open until the test ends)."""

    def __init__(self, greeting):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.greeting, self.conns = greeting, []
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            conn.sendall(self.greeting)

    def close(self):
        self.sock.close()
        for conn in self.conns:
            conn.close()


@pytest.fixture
def http_address():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             http.server.SimpleHTTPRequestHandler)
    # a short poll: shutdown() waits for the loop's next look (0.5 s by default)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    yield f"tcp://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


#: The connect timeout of these tests: a server that never greets runs it out, so it is
#: waited for in full each time (0.5 s made the file's wall time 2 s longer, issue 37);
#: a loopback greeting arrives well within it.
TIMEOUT_S = 0.2

# 0xff.. is what made dask ask for 3.07 EiB; a plausible length with a nonsense frame
# count; a greeting that stops short
GREETINGS = {"an absurd length": b"\xff" * 64,
             "a nonsense frame count": (64).to_bytes(8, "little") + b"\xff" * 8,
             "a cut greeting": (64).to_bytes(8, "little")[:5]}


@pytest.mark.parametrize("name", list(GREETINGS))
def test_a_service_that_does_not_speak_dask_is_refused(name, monkeypatch):
    monkeypatch.setattr(parallel, "CONNECT_TIMEOUT_S", TIMEOUT_S)
    server = _Garbage(GREETINGS[name])
    try:
        with pytest.raises(OSError, match="does not speak Dask"):
            list(parallel.run_each(abs, [1, -2], dask=server.address))
    finally:
        server.close()


@pytest.mark.parametrize("port", ["0", "65536", "99999"])
def test_a_port_out_of_range_is_refused_not_wrapped(port):
    """The walk of issue 37: the socket layer takes a port modulo 65536, so
    tcp://127.0.0.1:99999 tried port 34463 (and whatever listens there)."""
    with pytest.raises(OSError, match="does not name a host and port .*the port from "
                                      "1 to 65535"):
        parallel.probe_scheduler(f"tcp://127.0.0.1:{port}", TIMEOUT_S)


def test_an_http_server_is_refused_within_the_connect_timeout(http_address, monkeypatch):
    monkeypatch.setattr(parallel, "CONNECT_TIMEOUT_S", TIMEOUT_S)
    with pytest.raises(OSError, match="does not speak Dask: no greeting within the "
                                      "connect timeout"):
        list(parallel.run_each(abs, [1, -2], dask=http_address))


def test_sim_run_exits_2_and_releases_the_lock(http_address, tmp_path, monkeypatch,
                                               capsys):
    monkeypatch.setattr(parallel, "CONNECT_TIMEOUT_S", TIMEOUT_S)
    garbage = _Garbage(GREETINGS["an absurd length"])
    try:
        for address in (http_address, garbage.address):
            assert main(["sim", "run", "novikoff", "--size", "small", "--out",
                         str(tmp_path), "--dask", address]) == 2
            err = capsys.readouterr().err
            assert f"cannot reach the Dask scheduler at {address}" in err
            assert "does not speak Dask" in err and "internal error" not in err
            assert not (tmp_path / "novikoff" / ".lock").exists()
    finally:
        garbage.close()


def test_a_real_scheduler_passes_the_probe():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, processes=False, protocol="tcp://",
                                  dashboard_address=None) as cluster:
        parallel.probe_scheduler(cluster.scheduler_address, 5.0)
        assert sorted(parallel.run_each(abs, [1, -2], dask=cluster.scheduler_address)
                      ) == [(0, 1), (1, 2)]
