"""What keeps the default suite affordable on two cores (issue 37), as the root
``conftest.py`` arranges it: the processes of half a GB that tests start (a Chromium,
``coqc``) run on one worker, one at a time, and the workers take turns compiling numba
kernels, so that a kernel both need is compiled once and loaded from numba's cache by
the other."""

import fcntl
import importlib.util
from types import SimpleNamespace

import pytest

from _paths import ROOT


@pytest.fixture(scope="module")
def root_conftest():
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _item(nodeid, fixtures=(), browser=False):
    return SimpleNamespace(nodeid=nodeid, fixturenames=list(fixtures),
                           get_closest_marker=lambda name: browser or None)


def test_the_coq_build_and_the_browsers_share_one_worker(root_conftest):
    group = root_conftest.xdist_group
    coq = group(_item("tests/verify/coq/test_coq_limits.py::t", ["tmp_path", "coq_build"]))
    browser = group(_item("tests/markone/hardware/test_replay_browser.py::t", browser=True))
    site = group(_item("tests/docs/test_docs_offline.py::t", ["site"]))
    assert coq == browser == site
    assert group(_item("tests/verify/coq/test_coq_proofs.py::t")) != browser


def _held(path):
    """Whether another open file holds the lock ``path``."""
    with open(path, "a") as other:
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        return False


def test_a_worker_compiles_only_while_it_holds_the_lock_the_workers_share(
        root_conftest, tmp_path):
    seen = []

    class Dispatcher:  # numba's, as far as the hook uses it
        def compile(self, sig):
            seen.append((sig, _held(root_conftest.compile_lock(tmp_path))))
            if sig == "outer":  # a kernel that compiles one it calls: no deadlock
                self.compile("inner")
            return sig

    numba = SimpleNamespace(core=SimpleNamespace(dispatcher=SimpleNamespace(
        Dispatcher=Dispatcher)))
    root_conftest._one_compile_at_a_time(tmp_path)(numba)
    assert Dispatcher().compile("outer") == "outer"
    assert seen == [("outer", True), ("inner", True)]
    assert not _held(root_conftest.compile_lock(tmp_path))  # released after
    assert root_conftest.compile_lock(tmp_path) != root_conftest.compile_lock(ROOT)
