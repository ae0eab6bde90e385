"""Fixtures of the documentation tests: the site, built once per session."""

import os
import subprocess
import sys

import pytest

from _paths import ROOT


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The documentation site built with ``mkdocs build --strict`` into a temporary
    folder (skipped when MkDocs is not installed)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(out)], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    return out
