"""The suite's processes hold only what they use (issue 37): the xdist controller,
which hands the tests out and runs none, imports neither matplotlib nor markone (about
40 MB of the run's peak); a process that runs tests draws with a non-GUI backend and
audits each figure (``runs_tests`` and ``pytest_configure`` of the root
``conftest.py``)."""

import importlib.util
import subprocess
import sys
from types import SimpleNamespace

from _paths import ROOT

_CONFIGURE = """
import importlib.util, sys
from types import SimpleNamespace
spec = importlib.util.spec_from_file_location("root_conftest", "conftest.py")
conftest = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conftest)
options = {"collectonly": False, "tx": ["popen", "popen"]}
config = SimpleNamespace(getoption=lambda name, default=None: options.get(name, default))
conftest.pytest_configure(config)
print(sorted({name.split(".")[0] for name in sys.modules} & {"matplotlib", "markone"}))
"""


def _config(worker=False, **options):
    config = SimpleNamespace(getoption=lambda name, default=None: options.get(name, default))
    if worker:
        config.workerinput = {"workerid": "gw0"}
    return config


def test_only_the_xdist_controller_runs_no_tests():
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)
    runs_tests = conftest.runs_tests
    assert not runs_tests(_config(collectonly=False, tx=["popen", "popen"]))
    assert runs_tests(_config(worker=True, collectonly=False, tx=None))
    assert runs_tests(_config(collectonly=False, tx=[]))  # -n 0
    assert runs_tests(_config(collectonly=True, tx=["popen"]))  # --collect-only -n 2


def test_the_controller_imports_neither_matplotlib_nor_markone():
    # in a fresh interpreter: this one has imported both for the tests
    out = subprocess.run([sys.executable, "-c", _CONFIGURE], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    assert out.strip() == "[]"
