"""Test configuration: hypothesis profiles and shared fixtures.

Profiles: ``ci`` (derandomised, the default under CI=true), ``dev`` (the default
locally), ``thorough`` (many examples; select with HYPOTHESIS_PROFILE=thorough).
"""

import os

import pytest
from _browser import SHARED
from _rewrites import files_to_collect, share_rewrites
from _run import run_folder
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, max_examples=50, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", max_examples=50, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev")
)


@pytest.fixture
def browser(request):
    """The run's one headless Chromium (``_browser.SHARED``), for the tests marked
    ``browser`` only: they run on one worker, one after the other (the root
    ``conftest.py`` puts them in one group), so that a run never holds two Chromiums
    at once (issue 37: about half a GB each). What the test opened is closed after it;
    the browser itself when the worker moves on to a test that is not marked (the root
    ``conftest.py``, :func:`close_the_shared_browser`)."""
    yield SHARED.get(request.node)
    SHARED.close_pages()


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    """Under xdist, the workers share their rewriting of the test modules' asserts
    (``_rewrites.py``): each rewrites its share of the files, then collects."""
    config = session.config
    worker = getattr(config, "workerinput", None)
    if worker is None:
        return
    files = files_to_collect(config.args, config.invocation_params.dir)
    mine = files[int(worker["workerid"][2:])::worker["workercount"]]
    share_rewrites(config, run_folder(config._tmp_path_factory) / "rewritten", mine)
