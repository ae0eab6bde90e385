"""A small question imports only what it needs (issue 26).

Each check runs in a fresh interpreter and reads ``sys.modules`` at the end: importing
``markone`` and ``verify``, a small ``train``, ``check_separable`` and ``max_margin``,
and every command-line question on a 4-row file load none of scikit-learn, pandas,
dask, matplotlib, and not numba (small work runs uncompiled) nor tqdm (no bar is shown
off a terminal). Timing is in ``benchmarks/bench_startup.py``; nothing here measures
time.
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


def heavy_modules_after(code: str, cwd=None) -> list[str]:
    """The packages of :data:`HEAVY` imported once ``code`` has run in a new process."""
    out = subprocess.run([sys.executable, "-c", code + _REPORT.format(heavy=HEAVY)],
                         capture_output=True, text=True, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


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


@pytest.mark.parametrize("argv", [
    ["--help"],
    ["train", "and.csv"],
    ["verify", "separable", "and.csv"],
    ["verify", "margin", "and.csv"],
])
def test_small_command_line_questions_stay_light(argv, tmp_path):
    (tmp_path / "and.csv").write_text(AND)
    code = f"""
import contextlib, io
from markone.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit as stop:
        assert stop.code in (0, None), stop.code
"""
    assert heavy_modules_after(code, cwd=tmp_path) == []


def test_the_probe_sees_a_heavy_import():
    assert heavy_modules_after("import tqdm") == ["tqdm"]
