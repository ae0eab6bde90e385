"""Test configuration: shared fixtures (the Hypothesis profiles are the root
``conftest.py``'s: :func:`load_hypothesis_profile`)."""

import pytest
from _browser import SHARED
from _rewrites import files_to_collect, share_rewrites
from _run import run_folder


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
