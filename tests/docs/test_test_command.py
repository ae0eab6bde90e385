"""The README's test command (issue 37): CI runs it verbatim, and what its ``test``
extra installs is what the tests use, nothing for the benchmarks alone."""

import re

import pytest
from _paths import ROOT, TESTS

tomllib = pytest.importorskip("tomllib")

#: The README's second command, the one ``.ci/run`` ends with.
TEST_COMMAND = 'pip install -e ".[test]" && python -m pytest'
#: Requirements of the test extra that no test imports, with why they are there.
NOT_IMPORTED = {"mypy": ".ci/run type-checks the packages before the tests",
                "pytest-xdist": "pyproject.toml's addopts run the suite on every core "
                                "(-n auto)",
                "markone[docs]": "the docs tests build the site with mkdocs.yml's "
                                 "theme and plugins"}


def _extras():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]


def _imported_by_tests(module):
    pattern = re.compile(rf"^\s*(import|from)\s+{module}\b|importorskip\(\"{module}[.\"]",
                         re.M)
    return any(pattern.search(p.read_text()) for p in TESTS.rglob("*.py"))


def test_ci_runs_the_readme_test_command():
    assert TEST_COMMAND in (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert TEST_COMMAND in ci


def test_the_test_extra_is_what_the_tests_use():
    extras = _extras()
    unused = []
    for req in extras["test"]:
        if req in NOT_IMPORTED or req.split(">")[0] in NOT_IMPORTED:
            continue
        names = re.fullmatch(r"markone\[(.*)\]", req)
        for dist in (sum((extras[n] for n in names.group(1).split(",")), [])
                     if names else [req]):
            module = re.match(r"[A-Za-z0-9_.-]+", dist).group().replace("-", "_")
            if not _imported_by_tests(module):
                unused.append(dist)
    assert unused == [], f"the test extra installs what no test uses: {unused}"
