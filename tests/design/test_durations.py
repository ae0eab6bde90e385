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


def test_no_default_test_is_recorded_over_the_limit():
    over = {k: v for k, v in _report().items() if v > LIMIT and not k.endswith("fixture)")}
    files = sorted({k.split("::")[0] for k in over if (ROOT / k.split("::")[0]).exists()})
    slow_free = sorted(k for k in default_ids(files) if k in over)
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
