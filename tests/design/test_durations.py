"""The default suite stays affordable (issue 37): no test of it costs over 5 s.

``tests/data/durations.json`` is a measured report, test id -> CPU seconds, written by
``python -m pytest FOLDER --record-durations tests/data/durations.json`` (root
``conftest.py``; one folder at a time, merged). A test recorded there at over
:data:`LIMIT` seconds must be made faster (then re-record it) or marked
``@pytest.mark.slow``. A test not in the report (a new one) is not judged until it is
recorded; nothing here measures time.
"""

import subprocess
import sys
from pathlib import Path

from _paths import ROOT, TESTS

from markone._internal.io import read_json

#: The most a test of the default suite may cost, in CPU seconds.
LIMIT = 5.0
REPORT = TESTS / "data" / "durations.json"


def _report():
    recorded = read_json(REPORT)
    assert isinstance(recorded, dict) and recorded, f"{REPORT} is not a report"
    bad = {k: v for k, v in recorded.items()
           if "::" not in k or not isinstance(v, (int, float)) or v < 0}
    assert bad == {}, f"{REPORT}: not test id -> seconds"
    return recorded


def default_ids(files):
    """The ids of the tests that ``python -m pytest`` (the default options: ``slow``
    deselected) collects from ``files``."""
    if not files:
        return set()
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                           "-p", "no:cacheprovider", *files], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode in (0, 5), done.stdout[-3000:] + done.stderr[-3000:]
    return {line.strip() for line in done.stdout.splitlines() if "::" in line}


def test_the_report_covers_the_suite():
    """The report is a measured run of (nearly) everything, not a handful of tests."""
    assert len(_report()) >= 1000


def collected_default_ids(session, files, group_suffix):
    """The ids of the tests of ``files`` that the running ``session`` collected and kept,
    when it collected each of them whole with the default options (each asked for as
    itself or in a folder, with the default ``-m 'not slow'``, no ``-k`` nor
    ``--deselect``, and a test of it kept): what :func:`default_ids` would collect again
    in a new process (2 to 3 s of CPU). Else None. ``group_suffix`` is the pattern of
    the worker group xdist appends to an id (the root ``conftest.py``'s)."""
    config = session.config
    if (config.option.markexpr != "not slow" or config.option.keyword
            or config.getoption("deselect", None)):
        return None
    asked = [Path(config.invocation_params.dir, arg).resolve() for arg in config.args
             if "::" not in arg]
    ids = {group_suffix.sub("", item.nodeid) for item in session.items}
    for file in files:
        path = (ROOT / file).resolve()
        if not any(path == a or path.is_relative_to(a) for a in asked) or not any(
                i.startswith(f"{file}::") for i in ids):
            return None
    return {i for i in ids if i.split("::")[0] in files}


def test_no_default_test_is_recorded_over_the_limit(request, root_conftest):
    over = {k: v for k, v in _report().items() if v > LIMIT and not k.endswith("fixture)")}
    files = sorted({k.split("::")[0] for k in over if (ROOT / k.split("::")[0]).exists()})
    collected = collected_default_ids(request.session, files, root_conftest._GROUP_SUFFIX)
    slow_free = sorted(k for k in (default_ids(files) if collected is None else collected)
                       if k in over)
    assert slow_free == [], (
        f"over {LIMIT:g} s in {REPORT.name} and not marked slow (make each faster and "
        "re-record it with --record-durations, or mark it @pytest.mark.slow): "
        + "; ".join(f"{k} {over[k]:g} s" for k in slow_free))


def test_record_durations_merges_into_the_report(tmp_path):
    """``--record-durations`` adds the tests it ran to what the report holds."""
    report = tmp_path / "durations.json"
    report.write_text('{"tests/elsewhere.py::test_kept": 7.5}\n')
    test = "tests/design/test_durations.py::test_the_report_covers_the_suite"
    # one xdist worker: the workers' figures still go through the controller, with one
    # interpreter fewer than the default -n auto starts
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-n", "1", test, "--record-durations", str(report)], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    recorded = read_json(report)
    assert set(recorded) == {"tests/elsewhere.py::test_kept", test}
    assert recorded["tests/elsewhere.py::test_kept"] == 7.5
    assert recorded[test] >= 0


def _session(args, nodeids, markexpr="not slow", keyword="", deselect=None):
    """A stand-in for a pytest session: what :func:`collected_default_ids` reads."""
    from types import SimpleNamespace

    option = SimpleNamespace(markexpr=markexpr, keyword=keyword)
    config = SimpleNamespace(option=option, args=args,
                             invocation_params=SimpleNamespace(dir=ROOT),
                             getoption=lambda name, default=None: deselect)
    return SimpleNamespace(config=config,
                           items=[SimpleNamespace(nodeid=i) for i in nodeids])


def test_the_running_sessions_collection_is_read_only_when_it_holds_the_files_whole(
        root_conftest):
    """The ids of a file come from the session when it collected the file whole with
    the default options (xdist's group suffix taken off); else None, and the file is
    collected again in a new process."""
    suffix = root_conftest._GROUP_SUFFIX
    file = "tests/verify/coq/test_coq_limits.py"
    ids = [f"{file}::test_a@browser", f"{file}::test_b[1-2]@browser",
           "tests/design/test_names.py::test_c@tests/design/test_names.py"]
    mine = {f"{file}::test_a", f"{file}::test_b[1-2]"}
    for args in (["tests"], ["tests/verify"], [file], ["tests/design", "tests/verify/coq"]):
        assert collected_default_ids(_session(args, ids), [file], suffix) == mine, args
    for session in (_session(["tests/design"], ids),             # the file not asked for
                    _session([f"{file}::test_a"], ids),          # one test of it asked
                    _session(["tests"], ids, markexpr="slow"),
                    _session(["tests"], ids, keyword="test_a"),
                    _session(["tests"], ids, deselect=[f"{file}::test_b"]),
                    _session(["tests"], ids[2:])):               # none of it kept
        assert collected_default_ids(session, [file], suffix) is None
