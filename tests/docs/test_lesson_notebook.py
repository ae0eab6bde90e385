"""The classroom notebook (examples/lesson.ipynb) runs from top to bottom, and its
results show themselves as HTML (issue 15): it cannot rot."""

from pathlib import Path

import pytest
from _paths import ROOT

NOTEBOOK = ROOT / "examples" / "lesson.ipynb"


@pytest.fixture(scope="module")
def executed():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    return nb


def _html_outputs(cell):
    return [o["data"]["text/html"] for o in cell.get("outputs", [])
            if o.get("output_type") == "execute_result" and "text/html" in o["data"]]


def test_every_cell_runs_without_error(executed):
    errors = [o for cell in executed.cells if cell.cell_type == "code"
              for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors


def test_the_machine_run_shows_the_console_inline(executed):
    shown = [h for cell in executed.cells if cell.cell_type == "code"
             and "MarkI(seed=0).train" in cell.source for h in _html_outputs(cell)]
    assert shown and "<iframe" in shown[0] and "Mark I console" in shown[0]


@pytest.mark.parametrize("call, headline", [
    ("verify.check_separable", "SeparabilityVerdict</b>: not separable"),
    ("verify.max_margin", "Margin</b>: separable"),
    ("verify.check_cycling", "CyclingReport</b>: cycles"),
    ("verify.worst_order", "AdversarialOrder</b>: 10 mistakes"),
    ("markone.train(X, y, record=True)", "TrainResult</b>: converged after"),
])
def test_results_show_their_message_as_a_headline(executed, call, headline):
    shown = [h for cell in executed.cells if cell.cell_type == "code"
             and call in cell.source for h in _html_outputs(cell)]
    assert shown and headline in shown[0] and "<table>" in shown[0]


def test_the_notebook_extra_installs_jupyter_and_the_docs_say_how():
    """Issue 29: ``pip install -e ".[notebook]"`` gives ``jupyter notebook`` (Notebook 7)
    and a Python kernel, and the teaching page and the README say to run it."""
    import tomllib

    from packaging.requirements import Requirement

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    wanted = {r.name: r.specifier for r in map(Requirement, extras["notebook"])}
    assert set(wanted) == {"notebook", "ipykernel"}
    assert "7" in wanted["notebook"] and "6.99" not in wanted["notebook"]
    for page in ("README.md", "docs/teaching.md"):
        text = (ROOT / page).read_text()
        assert 'pip install -e ".[notebook]"' in text and "jupyter notebook" in text, page
