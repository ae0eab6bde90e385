"""The Coq development compiled once per test session, from the sources, in a fresh
folder (never the source tree); skipped, with the reason, when Coq is absent."""

import pytest

from verify.coq import missing_tools
from verify.coq.build import build


@pytest.fixture(scope="session")
def coq_build(tmp_path_factory):
    reason = missing_tools()
    if reason is not None:
        pytest.skip(f"Coq is absent: {reason}")
    return build(tmp_path_factory.mktemp("coq") / "build")
