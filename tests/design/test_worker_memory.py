"""The suite's processes hold only what they use (issue 37): the xdist controller,
which hands the tests out and runs none, imports neither matplotlib nor markone (about
40 MB of the run's peak) nor Hypothesis (14 MB); a process that runs tests draws with a non-GUI backend and
audits each figure (``runs_tests`` and ``pytest_configure`` of the root
``conftest.py``); the workers share the rewriting of the test modules' asserts
(``tests/_rewrites.py``)."""

import ast
import gc
import importlib.util
import os
import subprocess
import sys
import weakref
from types import SimpleNamespace

import _rewrites
import pytest
from _pytest.assertion import rewrite

from _paths import ROOT

_CONFIGURE = """
import importlib.util, sys
from types import SimpleNamespace
spec = importlib.util.spec_from_file_location("root_conftest", "conftest.py")
conftest = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conftest)
options = {"collectonly": False, "tx": ["popen", "popen"]}
config = SimpleNamespace(getoption=lambda name, default=None: options.get(name, default))
conftest.pytest_configure(config)
sys.path.insert(0, "tests")
spec = importlib.util.spec_from_file_location("tests_conftest", "tests/conftest.py")
spec.loader.exec_module(importlib.util.module_from_spec(spec))
print(sorted({name.split(".")[0] for name in sys.modules}
             & {"matplotlib", "markone", "hypothesis"}))
"""


def _config(worker=False, **options):
    config = SimpleNamespace(getoption=lambda name, default=None: options.get(name, default))
    if worker:
        config.workerinput = {"workerid": "gw0"}
    return config


def test_only_the_xdist_controller_runs_no_tests():
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)
    runs_tests = conftest.runs_tests
    assert not runs_tests(_config(collectonly=False, tx=["popen", "popen"]))
    assert runs_tests(_config(worker=True, collectonly=False, tx=None))
    assert runs_tests(_config(collectonly=False, tx=[]))  # -n 0
    assert runs_tests(_config(collectonly=True, tx=["popen"]))  # --collect-only -n 2


def test_the_controller_imports_neither_matplotlib_nor_markone_nor_hypothesis():
    # in a fresh interpreter: this one has imported both for the tests
    out = subprocess.run([sys.executable, "-c", _CONFIGURE], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_a_module_rewritten_by_one_worker_is_loaded_by_the_other(
        tmp_path, request, monkeypatch):
    # issue 37: each xdist worker rewrote the asserts of every test module (half of
    # its collection's CPU); now one worker rewrites a module and the others load it
    rewritten = []

    def counted(fn, config, plain=rewrite._rewrite_test):
        rewritten.append(fn.name)
        return plain(fn, config)

    monkeypatch.setattr(rewrite, "_rewrite_test", counted)  # restored after the test
    module = tmp_path / "test_sample.py"
    module.write_text("def check():\n    x = 2\n    assert x == 3\n")
    folder = tmp_path / "rewritten"
    _rewrites.share_rewrites(request.config, folder, [module])  # the first worker
    monkeypatch.setattr(rewrite, "_rewrite_test", counted)
    load = _rewrites.share_rewrites(request.config, folder)  # the second one
    namespace = {}
    exec(load(module, request.config)[1], namespace)
    assert rewritten == ["test_sample.py"]
    with pytest.raises(AssertionError, match="assert 2 == 3"):  # rewritten
        namespace["check"]()


def test_the_workers_share_out_the_files_a_run_collects(tmp_path):
    for name in ("a/test_x.py", "a/b/test_y.py", "a/helper.py", "c/test_z.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    found = _rewrites.files_to_collect(["a", "c/test_z.py::test_one"], tmp_path)
    assert found == [tmp_path / "a/b/test_y.py", tmp_path / "a/test_x.py",
                     tmp_path / "c/test_z.py"]


#: Modules some tests need that no worker should hold for the whole run just because
#: it collected a test module (issue 37: dask and distributed, 18 MB in each worker).
ON_DEMAND = ("dask", "distributed", "playwright", "z3", "cvc5", "nbclient", "river")


def _imported_at_collection(source):
    """``(line, module)`` of the ``ON_DEMAND`` modules a test module imports when it
    is collected: at its top level (a plain import, or ``pytest.importorskip``), its
    ``if __name__ == "__main__":`` block aside."""
    found = []
    for node in ast.parse(source).body:
        if (isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                or isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)):
            continue
        for sub in ast.walk(node):
            names = []
            if isinstance(sub, ast.Import):
                names = [alias.name for alias in sub.names]
            elif isinstance(sub, ast.ImportFrom) and sub.module and not sub.level:
                names = [sub.module]
            elif (isinstance(sub, ast.Call) and ast.unparse(sub.func).endswith("importorskip")
                  and sub.args and isinstance(sub.args[0], ast.Constant)):
                names = [sub.args[0].value]
            found += [(sub.lineno, name) for name in names
                      if name.split(".")[0] in ON_DEMAND]
    return found


def test_collecting_the_suite_imports_no_on_demand_module():
    found = {path.relative_to(ROOT).as_posix(): lines
             for path in sorted((ROOT / "tests").rglob("test_*.py"))
             if (lines := _imported_at_collection(path.read_text()))}
    assert found == {}, ("import these in the tests (or a fixture) that use them, "
                         f"not when the module is collected: {found}")
    assert _imported_at_collection(
        'import dask\npytest.importorskip("dask.distributed")\n'
        'def test():\n    import z3\nif __name__ == "__main__":\n    import z3\n'
        ) == [(1, "dask"), (2, "dask.distributed")]


def test_a_worker_gives_back_freed_memory_when_it_moves_to_another_file(
        root_conftest, monkeypatch):
    import _browser

    monkeypatch.setattr(_browser, "SHARED", SimpleNamespace(running=False))
    given = []
    monkeypatch.setattr(root_conftest, "give_back_freed_memory", lambda: given.append(1))
    here = SimpleNamespace(nodeid="tests/a.py::t", get_closest_marker=lambda name: None)
    same = SimpleNamespace(nodeid="tests/a.py::u", get_closest_marker=lambda name: None)
    other = SimpleNamespace(nodeid="tests/b.py::t", get_closest_marker=lambda name: None)
    for nextitem, gives in [(same, False), (other, True), (None, True)]:
        given.clear()
        hook = root_conftest.pytest_runtest_teardown(here, nextitem)
        next(hook)
        with pytest.raises(StopIteration):
            next(hook)
        assert given == ([1] if gives else [])


def _rss_kib():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_giving_back_freed_memory_lowers_the_resident_set(root_conftest):
    # 40 MB in small blocks, all freed but the last, which holds the heap's top: free
    # alone keeps the pages, malloc_trim returns them
    blocks = [bytearray(2000) for _ in range(20_000)]
    del blocks[:-1]
    before = _rss_kib()
    root_conftest.give_back_freed_memory()
    assert before - _rss_kib() > 20_000


def test_a_run_told_to_write_no_bytecode_lets_its_processes_write_and_share_it(
        root_conftest, tmp_path, monkeypatch):
    # issue 37: under PYTHONDONTWRITEBYTECODE every Python the suite started compiled
    # markone from its source again (59 s of 539 s of CPU), and with a folder of the
    # run's own (PYTHONPYCACHEPREFIX) the standard library, numpy and scipy too; now
    # the run's processes write their bytecode where Python looks for it by default
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    written = ROOT / "markone" / "_internal" / "__pycache__" / (
        f"io.{sys.implementation.cache_tag}.pyc")
    written.unlink(missing_ok=True)
    session = SimpleNamespace(config=SimpleNamespace())
    root_conftest.pytest_sessionstart(session)  # as the controller, before the workers
    assert "PYTHONDONTWRITEBYTECODE" not in os.environ
    child = subprocess.run(
        [sys.executable, "-c", "import sys, markone._internal.io; "
                               "print(sys.dont_write_bytecode, sys.pycache_prefix)"],
        cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    assert child == "False None\n"
    assert written.is_file()
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    session.config.workerinput = {"workerid": "gw0"}
    root_conftest.pytest_sessionstart(session)  # a worker leaves it to the controller
    assert os.environ["PYTHONDONTWRITEBYTECODE"] == "1"


class _Node:
    """An object a cycle can hold and a weak reference can watch."""


def test_giving_back_freed_memory_collects_cycles_and_freezes_the_survivors(root_conftest):
    # issue 37: a worker's cyclic garbage waited for Python's rare full collection;
    # now each file's is collected when the worker leaves it, and what survives is
    # frozen so that the next collection passes over it
    survivor = _Node()
    garbage = _Node()
    garbage.cycle = garbage
    garbage.payload = bytearray(10_000_000)
    watched = weakref.ref(garbage)
    del garbage
    frozen = gc.get_freeze_count()
    automatic = gc.isenabled()
    gc.disable()  # no automatic collection between here and the call
    try:
        assert watched() is not None  # kept alive by its own cycle
        root_conftest.give_back_freed_memory()
    finally:
        if automatic:
            gc.enable()
    assert watched() is None
    assert gc.get_freeze_count() > frozen
    # frozen: in no generation a collection looks at
    assert not any(tracked is survivor for tracked in gc.get_objects())


def _report(outcome):
    return SimpleNamespace(passed=outcome == "passed", keywords={"test_x": 1, "slow": 1},
                           sections=[("Captured stdout call", "lots of output\n")])


def test_the_controller_keeps_passed_reports_without_keywords_or_output(root_conftest):
    # issue 37: the controller's terminal keeps each of the run's 18,000 reports to the
    # end; a passed one's keywords and captured output are read by no one there
    slims = root_conftest.slims_passed_reports
    assert slims(_config(reportchars="s", xmlpath=None))
    assert not slims(_config(reportchars="sA"))  # -rA shows passed tests' output
    assert not slims(_config(reportchars="P"))
    assert not slims(_config(reportchars="s", xmlpath="junit.xml"))  # written there
    passed, failed = _report("passed"), _report("failed")
    root_conftest._SLIM_PASSED[:] = [True]  # the controller of a plain run
    for report in (passed, failed):
        root_conftest.pytest_runtest_logreport(report)
    assert (passed.keywords, passed.sections) == ({}, [])
    assert failed.keywords and failed.sections  # a failure is shown whole
    kept = _report("passed")
    root_conftest._SLIM_PASSED[:] = []  # a process that runs tests (-n 0, a worker)
    root_conftest.pytest_runtest_logreport(kept)
    assert kept.keywords and kept.sections


def test_only_the_controller_slims_reports(root_conftest):
    options = {"reportchars": "s", "collectonly": False}
    root_conftest.pytest_configure(_config(tx=["popen", "popen"], **options))
    assert root_conftest._SLIM_PASSED == [True]
    root_conftest._SLIM_PASSED[:] = []
    root_conftest.pytest_configure(_config(worker=True, **options))
    assert root_conftest._SLIM_PASSED == []
