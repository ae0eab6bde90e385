"""Fixtures of the conformance tests."""

import pytest

from verify import conformance as C


@pytest.fixture(scope="session")
def suite(tmp_path_factory):
    """The conformance suite written once for the session (a second of CPU each time:
    every case built and checked against the schema), shared by the files that only
    read it; a test that edits files edits a copy."""
    out = tmp_path_factory.mktemp("conformance") / "suite"
    C.write_suite(out)
    return out
