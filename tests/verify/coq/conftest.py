"""The Coq development compiled once per run of the suite, from the sources, in a
fresh folder of the run (never the source tree, never the user's cache); skipped, with
the reason, when Coq is absent. Under xdist the first worker to ask builds it while
holding a lock of the run and the others wait, then reuse the finished build, so
the suite runs at most the build's two ``coqc`` at a time (``COQC_JOBS``), on the
worker of the browser tests, which is handed out first, while the workers are still
small (issue 37)."""

import pytest

from _run import run_folder, run_lock
from verify.coq import missing_tools
from verify.coq.build import build


@pytest.fixture(scope="session")
def coq_build(tmp_path_factory):
    reason = missing_tools()
    if reason is not None:
        pytest.skip(f"Coq is absent: {reason}")
    folder = run_folder(tmp_path_factory)
    with run_lock(folder, "coq"), pytest.MonkeyPatch.context() as env:
        # build()'s own cache, in the run's folder: built once, then reused as it is
        env.setenv("XDG_CACHE_HOME", str(folder / "coq-cache"))
        return build()
