"""A small question imports only what it needs (issue 26).

Each check runs in a fresh interpreter and reads ``sys.modules`` at the end: importing
``markone`` and ``verify``, a small ``train``, ``check_separable`` and ``max_margin``,
and every command-line question on a 4-row file load none of scikit-learn, pandas,
dask, matplotlib, and not numba (small work runs uncompiled) nor tqdm (no bar is shown
off a terminal). A listing (``markone --help``, ``markone verify --help``) imports
neither numpy nor ``verify`` nor the modules of the commands it lists, and a command
imports no other command's module. Timing is in ``benchmarks/bench_startup.py``;
nothing here measures time.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: Top-level packages a small question must not import.
HEAVY = ("sklearn", "pandas", "dask", "matplotlib", "numba", "scipy", "tqdm")

_REPORT = """
import json, sys
heavy = {heavy!r}
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set(heavy))))
"""

AND = "x1,x2,y\n0,0,-1\n0,1,-1\n1,0,-1\n1,1,1\n"


_ALL_MODULES = """
import json, sys
print(json.dumps(sorted(sys.modules)))
"""

_COMMAND = """
import contextlib, io
from markone.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit as stop:
        assert stop.code in (0, None), stop.code
"""

#: The command line's own modules, which every command may import (and the packages
#: of the commands in the verify and sims layers, empty but for their docstrings).
CLI_CORE = {"markone.cli", "markone.cli._commands", "markone.cli._errors",
            "markone.cli._stdout", "verify.cli", "sims.cli"}
#: Where command modules live: markone's own, and those of the layers above.
COMMAND_PACKAGES = ("markone.cli", "verify.cli", "sims.cli")


def _modules_after(code: str, report: str, cwd=None):
    out = subprocess.run([sys.executable, "-c", code + report],
                         capture_output=True, text=True, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def heavy_modules_after(code: str, cwd=None) -> list[str]:
    """The packages of :data:`HEAVY` imported once ``code`` has run in a new process."""
    return _modules_after(code, _REPORT.format(heavy=HEAVY), cwd)


def modules_after_command(argv: list[str], cwd=None) -> set[str]:
    """Every module imported once ``markone ARGV`` has run in a new process."""
    return set(_modules_after(_COMMAND.format(argv=argv), _ALL_MODULES, cwd))


def command_modules(modules: set[str]) -> set[str]:
    """The command modules in ``modules`` beyond :data:`CLI_CORE`."""
    return {m for m in modules if m.startswith(COMMAND_PACKAGES) and m not in CLI_CORE}


def test_import_and_small_questions_stay_light():
    code = """
import markone, verify
from markone.engine import VARIANTS
X, y = [[0, 0], [0, 1], [1, 0], [1, 1]], [-1, -1, -1, 1]
for variant in VARIANTS:
    markone.train(X, y, variant=variant)
markone.train(X, y, exact=True)
assert verify.check_separable(X, y).separable is True
assert verify.check_separable(X, [-1, 1, 1, -1]).separable is False
verify.max_margin(X, y)
"""
    assert heavy_modules_after(code) == []


class _CommandRuns(dict):
    """argv (a tuple) -> every module ``markone ARGV`` imported, each command run once
    in a new process in a folder holding ``and.csv``, when a test first asks: the tests
    of its heavy packages and of its command modules read the same run (a process of
    about half a second fewer for each command both ask about)."""

    def __init__(self, folder):
        super().__init__()
        self.folder = folder
        (folder / "and.csv").write_text(AND)

    def __missing__(self, argv):
        self[argv] = modules_after_command(list(argv), cwd=self.folder)
        return self[argv]


@pytest.fixture(scope="module")
def command_runs(tmp_path_factory):
    return _CommandRuns(tmp_path_factory.mktemp("commands"))


def heavy_packages(modules: set[str]) -> list[str]:
    """The packages of :data:`HEAVY` among ``modules``, sorted.

    >>> heavy_packages({"numpy", "scipy.sparse", "markone.cli"})
    ['scipy']
    """
    return sorted({m.split(".")[0] for m in modules} & set(HEAVY))


@pytest.mark.parametrize("argv", [
    ("--help",),
    ("train", "and.csv"),
    ("verify", "separable", "and.csv"),
    ("verify", "margin", "and.csv"),
])
def test_small_command_line_questions_stay_light(argv, command_runs):
    assert heavy_packages(command_runs[argv]) == []


@pytest.mark.parametrize(("argv", "own"), [
    (("--help",), set()),
    (("verify", "--help"), {"markone.cli._groups"}),
])
def test_a_listing_imports_neither_numpy_nor_the_commands_it_lists(argv, own,
                                                                  command_runs):
    modules = command_runs[argv]
    assert command_modules(modules) == own
    assert not {m for m in modules if m.split(".")[0] in ("numpy", "verify")}


@pytest.mark.parametrize("argv", [("verify", "separable", "and.csv"),
                                  ("verify", "margin", "and.csv")])
def test_a_verify_action_imports_no_other_actions_module(argv, command_runs):
    assert command_modules(command_runs[argv]) == {
        "markone.cli._groups", "verify.cli.verify"}


def test_the_probe_sees_a_heavy_import():
    assert heavy_modules_after("import tqdm") == ["tqdm"]


#: What no main job imports unless it needs it (issue 38): scikit-learn pulls in
#: ``scipy.stats`` and pandas, seconds of a cold start.
ESTIMATOR_STACK = ("sklearn", "pandas", "scipy.stats", "matplotlib", "dask")

_STACK_REPORT = """
import json, sys
print(json.dumps(sorted(m for m in {stack!r} if m in sys.modules)))
"""


@pytest.mark.parametrize("argv", [
    ["adversary", "suite", "--out", "suite"],
    ["machine", "train", "--chars", "AE", "--per-class", "2"],
    ["machine", "fleet", "--machines", "3", "--chars", "AE", "--per-class", "2",
     "--presentations", "20"],
])
def test_a_main_job_imports_no_estimator_stack(argv, tmp_path):
    # issue 38: the conformance suite trained markone's scikit-learn estimators for
    # its multiclass and kernel cases (4 s of imports); it runs their passes instead
    report = _STACK_REPORT.format(stack=ESTIMATOR_STACK)
    assert _modules_after(_COMMAND.format(argv=argv), report, tmp_path) == []


def test_the_stack_probe_sees_scipy_stats():
    """The probe names a submodule that is loaded (``scipy.stats`` is put in
    ``sys.modules`` as an empty module: importing it would cost a second and a half
    of CPU, and the probe reads only ``sys.modules``) and no other."""
    report = _STACK_REPORT.format(stack=ESTIMATOR_STACK)
    plant = "import sys, types\nsys.modules['scipy.stats'] = types.ModuleType('scipy.stats')\n"
    assert _modules_after(plant, report) == ["scipy.stats"]
