"""Root conftest: doctests of modules, README and docs run with a non-GUI backend.

``--record-durations PATH`` writes what each test that ran cost into the JSON file
``PATH`` (test id -> seconds, rounded to 0.01), merged into what the file already
holds, so that a report is made from several runs (one folder at a time) and a re-run
of some tests updates just those:

    python -m pytest tests/verify --record-durations tests/data/durations.json

The seconds are CPU seconds, from the test's setup to its teardown, of the test's
process and of the processes it started and waited for: about what the test takes on
an otherwise idle core, whatever the load of the machine that recorded it (on a shared
machine wall-clock times vary several-fold). A fixture shared by several tests (module
or session scope, such as the documentation site) is paid once: its setup is not
counted in the test that happens to come first but listed on its own, as
``"FOLDER_OR_FILE::NAME (shared SCOPE fixture)"``. ``tests/design/test_durations.py``
reads ``tests/data/durations.json``: a test of the default suite recorded there at
over 5 s must be made faster or marked ``slow``.
"""

import os

import matplotlib
import pytest

matplotlib.use("Agg")

_CPU: dict[str, float] = {}
_STARTED: list[float] = []
_SHARING: list[bool] = []  # the fixtures being set up, outermost first: shared or not


def _cpu_seconds():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def pytest_addoption(parser):
    parser.addoption(
        "--record-durations", metavar="PATH", default=None,
        help="merge each test's CPU seconds (setup to teardown, with the processes it "
             "waited for) into the JSON report PATH (test id -> seconds), e.g. "
             "tests/data/durations.json")


def pytest_runtest_logstart(nodeid, location):
    _STARTED[:] = [_cpu_seconds(), 0.0]  # [start, seconds of shared fixtures since]


def pytest_runtest_logfinish(nodeid, location):
    _CPU[nodeid] = _cpu_seconds() - _STARTED[0] - _STARTED[1]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    _STARTED.append(_cpu_seconds())  # [start, shared, since the last fixture ended]
    yield
    del _STARTED[2:]


def pytest_fixture_post_finalizer(fixturedef, request):
    if len(_STARTED) < 3:
        return
    now = _cpu_seconds()
    if fixturedef.scope != "function":  # a browser closing, a server stopping...
        _share(fixturedef, now - _STARTED[2])
    _STARTED[2] = now


def _share(fixturedef, seconds):
    """Count ``seconds`` spent setting up or ending a shared fixture for it, not for
    the test that happened to be running."""
    _STARTED[1] += seconds
    name = f"{fixturedef.baseid or '.'}::{fixturedef.argname} (shared {fixturedef.scope} fixture)"
    _CPU[name] = _CPU.get(name, 0.0) + seconds


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    shared = fixturedef.scope != "function" and bool(_STARTED) and not any(_SHARING)
    start = _cpu_seconds()
    _SHARING.append(shared)
    try:
        yield
    finally:
        _SHARING.pop()
        if shared:
            _share(fixturedef, _cpu_seconds() - start)


def pytest_sessionfinish(session):
    path = session.config.getoption("record_durations")
    if path is None or not _CPU:
        return
    from pathlib import Path

    from markone._internal.io import read_json, write_json

    merged = read_json(path) if Path(path).exists() else {}
    merged.update({k: round(v, 2) for k, v in _CPU.items()
                   if round(v, 2) or not k.endswith("fixture)")})
    write_json(path, dict(sorted(merged.items())))
