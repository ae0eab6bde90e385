"""The suite's worker groups hold (issue 37): under ``--dist loadgroup`` the tests that
share a group (the browser's, the Coq build's, a file's) run on one worker, so one
Chromium and one ``coqc`` run at a time and a module fixture is built once. pytest 9.2
with pytest-xdist 3.8 broke this without a word (the group suffix xdist writes into a
test's id no longer takes; pytest-xdist issue 1386): every test went its own way."""

import os
import subprocess
import sys
import textwrap


def test_a_group_runs_on_one_worker(tmp_path):
    (tmp_path / "test_grouped.py").write_text(textwrap.dedent("""
        import os
        import pytest

        @pytest.mark.xdist_group("one")
        @pytest.mark.parametrize("i", range(8))
        def test_member(i):
            with open(os.environ["GROUP_LOG"], "a") as log:
                log.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")
        """))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")   # not the project's addopts
    log = tmp_path / "workers.txt"
    # xdist alone, no other plugin loaded (hypothesis, playwright...: 2.5 of the 4 s
    # of CPU the three processes took); with --dist load the group splits
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist",
         "-n", "2", "--dist", "loadgroup", "test_grouped.py"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
        env={**os.environ, "GROUP_LOG": str(log), "PYTEST_ADDOPTS": "",
             "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert run.returncode == 0, run.stdout + run.stderr
    workers = log.read_text().split()
    assert len(workers) == 8
    assert len(set(workers)) == 1, (
        f"the group 'one' ran on {sorted(set(workers))}: --dist loadgroup does not group "
        "(pytest 9.2 with pytest-xdist 3.8? see pyproject.toml's test extra)")
