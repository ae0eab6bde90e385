"""What keeps the default suite affordable on two cores (issue 37), as the root
``conftest.py`` arranges it: the largest processes that tests start (a Chromium, half
a GB; ``coqc``, a third of one) run on one worker, one at a time. (The workers take turns compiling numba
kernels, so that a kernel both need is compiled once and loaded from the cache by the
other, through markone's own lock: ``tests/markone/test_compile_lock.py``.)"""

import ast
import fcntl
from types import SimpleNamespace

import _browser
import pytest

from _paths import ROOT


def _item(nodeid, fixtures=(), browser=False):
    return SimpleNamespace(nodeid=nodeid, fixturenames=list(fixtures),
                           get_closest_marker=lambda name: browser or None)


def test_a_test_not_marked_browser_is_refused_the_browser_before_any_launch():
    # issue 37: a run held two Chromiums at once; the browser is only for the tests
    # of the browser group (marked), which run on one worker, one after the other
    shared = _browser.SharedBrowser()
    with pytest.raises(pytest.fail.Exception, match="not marked @pytest.mark.browser"):
        shared.get(_item("tests/docs/test_x.py::t", ["browser"]))
    assert shared.launches == 0 and not shared.running


def _own_browsers(source):
    """The lines where the test module ``source`` defines a ``browser`` of its own or
    starts a browser itself (outside its ``if __name__ == "__main__":`` block)."""
    lines = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node):
            own = (isinstance(sub, ast.FunctionDef) and sub.name == "browser"
                   or isinstance(sub, ast.Name) and sub.id == "browser"
                   and isinstance(sub.ctx, ast.Store))
            starts = isinstance(sub, ast.Call) and ast.unparse(sub.func).split(".")[-1] in (
                "launch", "sync_playwright", "SharedBrowser")
            if own or starts:
                lines.append(sub.lineno)
    return lines


def test_every_browser_test_uses_the_one_browser_of_the_run():
    """A module with a browser fixture of its own (five had one: a Chromium per module)
    or a browser it starts itself escapes the one-browser rule."""
    own = {path.relative_to(ROOT).as_posix(): _own_browsers(path.read_text())
           for path in sorted((ROOT / "tests").rglob("*.py"))
           if path.name not in ("_browser.py", "conftest.py", "test_suite_cost.py")}
    assert {path: lines for path, lines in own.items() if lines} == {}
    assert _own_browsers('browser = pytest.fixture(scope="module")(headless_chromium)\n'
                         'def f(pw):\n    return launch(pw)\n'
                         'if __name__ == "__main__":\n    launch(sync_playwright())\n'
                         ) == [1, 3]


def test_the_browser_closes_when_the_worker_leaves_the_browser_tests(
        root_conftest, monkeypatch):
    closed = []
    monkeypatch.setattr(_browser, "SHARED", SimpleNamespace(
        running=True, close=lambda: closed.append(True)))
    marked = _item("tests/docs/test_docs_offline.py::t", browser=True)
    grouped = SimpleNamespace(nodeid="tests/markone/cli/test_demo.py::t", get_closest_marker=(
        lambda name: pytest.mark.xdist_group("browser").mark if name == "xdist_group" else None))
    elsewhere = SimpleNamespace(nodeid="tests/a.py::t", get_closest_marker=(
        lambda name: pytest.mark.xdist_group("tests/a.py").mark if name == "xdist_group" else None))
    for nextitem, closes in [(marked, False), (grouped, False), (elsewhere, True),
                             (_item("tests/a.py::t"), True), (None, True)]:
        closed.clear()
        hook = root_conftest.pytest_runtest_teardown(marked, nextitem)
        next(hook)
        with pytest.raises(StopIteration):
            next(hook)
        assert closed == ([True] if closes else [])


def test_a_file_with_a_browser_test_runs_whole_with_the_browser_tests(root_conftest):
    """test_demo.py's demo (a module fixture) was built twice, once on each worker:
    its figure test ran with the browsers, its other tests elsewhere."""
    items = [_item("tests/markone/cli/test_demo.py::numbers", ["demo"]),
             _item("tests/markone/cli/test_demo.py::page", ["demo", "browser"], True),
             _item("tests/markone/cli/test_cli.py::t")]
    files = root_conftest.browser_files(items)
    assert [root_conftest.xdist_group(item, files) for item in items] == [
        "browser", "browser", "tests/markone/cli/test_cli.py"]


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


def test_the_coq_build_then_the_browsers_start_and_costly_groups_come_first(root_conftest):
    items = [_item("tests/a.py::cheap"), _item("tests/b.py::costly_1"),
             _item("tests/docs/test_docs_offline.py::page", ["site"]),
             _item("tests/b.py::costly_2"),
             _item("tests/markone/hardware/test_replay_browser.py::t", browser=True),
             _item("tests/verify/coq/test_coq_limits.py::t", ["coq_build"]),
             _item("tests/c.py::unrecorded")]
    seconds = {"tests/a.py::cheap": 0.5, "tests/b.py::costly_1": 3.0,
               "tests/b.py::costly_2": 0.01}
    order = [item.nodeid for item in root_conftest.start_order(items, seconds)]
    assert order == ["tests/verify/coq/test_coq_limits.py::t",
                     "tests/docs/test_docs_offline.py::page",
                     "tests/markone/hardware/test_replay_browser.py::t",
                     "tests/b.py::costly_1", "tests/b.py::costly_2",
                     "tests/a.py::cheap", "tests/c.py::unrecorded"]


def test_the_workers_of_a_run_share_its_folder_and_take_turns_for_its_locks(
        tmp_path, monkeypatch):
    from _run import run_folder, run_lock

    factory = SimpleNamespace(getbasetemp=lambda: tmp_path / "popen-gw1")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert run_folder(factory) == tmp_path
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert run_folder(factory) == tmp_path / "popen-gw1"
    with run_lock(tmp_path, "coq"):
        assert _held(tmp_path / "coq.lock")
    assert not _held(tmp_path / "coq.lock")
