"""Light groups first, beside the Coq build and the browsers (issue 37).

One worker builds the Coq proofs and then drives the browsers (half a GB each), the
suite's peak; the other worker runs what is handed out next. The root ``conftest.py``
hands out first the groups that ``tests/light_groups.py`` measured light (no numba
kernel compiled or loaded, little growth: :func:`light_groups`), the costly ones after;
and a test of a light group that reaches a kernel fails, so that the list cannot go
stale in silence. This file compiles a kernel itself: it is not light.
"""

from types import SimpleNamespace

import pytest

from _paths import ROOT, TESTS

from markone._internal.io import read_json


def _item(nodeid, fixtures=(), browser=False):
    return SimpleNamespace(nodeid=nodeid, fixturenames=list(fixtures), stash=pytest.Stash(),
                           get_closest_marker=lambda name: browser or None,
                           add_marker=lambda marker: None)


def _light(**cost):
    return {"kernels": [], "failed": 0, "growth_mb": 0.5, "subprocess_mb": 0, **cost}


def test_light_groups_come_after_the_browsers_and_before_the_costly_ones(root_conftest):
    measured = {"tests/a.py": _light(), "tests/d.py": _light(),
                "tests/b.py": _light(kernels=["pass_kernel"]),
                "tests/e.py": _light(subprocess_mb=400.0)}
    items = [_item("tests/a.py::cheap_light"), _item("tests/b.py::costly"),
             _item("tests/markone/hardware/test_replay_browser.py::t", browser=True),
             _item("tests/d.py::light"), _item("tests/e.py::starts_a_large_process"),
             _item("tests/c.py::unmeasured")]
    seconds = {"tests/a.py::cheap_light": 0.1, "tests/b.py::costly": 3.0,
               "tests/d.py::light": 2.0, "tests/e.py::starts_a_large_process": 1.0}
    light = root_conftest.light_groups(measured)
    assert light == {"tests/a.py", "tests/d.py"}
    early = root_conftest.early_groups(measured)
    assert early == {"tests/e.py"}
    order = [item.nodeid for item in root_conftest.start_order(items, seconds, light)]
    assert order == ["tests/markone/hardware/test_replay_browser.py::t",
                     "tests/d.py::light", "tests/a.py::cheap_light",
                     "tests/b.py::costly", "tests/e.py::starts_a_large_process",
                     "tests/c.py::unmeasured"]
    # a group that reaches no kernel but starts a large process goes first, beside the
    # Coq build, not late beside two grown workers
    order = [item.nodeid for item in
             root_conftest.start_order(items, seconds, light, early)]
    assert order == ["tests/markone/hardware/test_replay_browser.py::t",
                     "tests/e.py::starts_a_large_process",
                     "tests/d.py::light", "tests/a.py::cheap_light",
                     "tests/b.py::costly", "tests/c.py::unmeasured"]


def test_groups_that_compile_parallel_kernels_come_first_of_the_costly(root_conftest):
    # issue 37: numba's parallel kernels, compiled late beside two grown workers, made
    # the suite's peak at load 2 (1.50 to 1.53 GB in three runs)
    groups = ["tests/b.py", "tests/markone/test_batch.py", "tests/a.py", "letters26"]
    parallel = {group for group in groups if root_conftest.compiles_parallel_kernels(group)}
    assert parallel == {"tests/markone/test_batch.py"}   # it trains with parallel=True
    items = [_item("tests/b.py::costly"), _item("tests/markone/test_batch.py::parallel"),
             _item("tests/a.py::light")]
    seconds = {"tests/b.py::costly": 5.0, "tests/markone/test_batch.py::parallel": 0.5}
    order = [item.nodeid for item in root_conftest.start_order(
        items, seconds, frozenset({"tests/a.py"}), frozenset(), parallel)]
    assert order == ["tests/a.py::light", "tests/markone/test_batch.py::parallel",
                     "tests/b.py::costly"]


def test_the_report_lists_light_groups_of_the_suite(root_conftest):
    # a group of a file since removed is never handed out: left in the report until
    # tests/light_groups.py --write next runs (it drops them)
    measured = read_json(TESTS / "data" / "light_groups.json")
    light = {name for name in root_conftest.light_groups(measured)
             if "/" not in name or (ROOT / name.split("::")[0]).exists()}
    assert len(light) >= 20


def test_a_light_groups_test_that_reaches_a_kernel_fails(root_conftest, monkeypatch):
    numba = pytest.importorskip("numba")
    monkeypatch.setattr(root_conftest, "examples_fixed", lambda: True)   # as under CI
    from markone.hardware import trial

    # as in a fresh worker: the tests run before this one in its worker may have spent
    # the process's allowance of plain trials, which turns the check off
    monkeypatch.setattr(trial.PLAIN, "left", max(trial.PLAIN.left, 1))
    config = SimpleNamespace(option=SimpleNamespace(loadgroup=False))
    light = _item("tests/design/test_names.py::t")
    costly = _item("tests/markone/test_numbers.py::t")
    root_conftest.pytest_collection_modifyitems(config, [light, costly])
    assert root_conftest._LIGHT in light.stash, "test_names.py is no longer measured light"
    assert root_conftest._LIGHT not in costly.stash

    def run(test, before=()):
        root_conftest._ONLY_LIGHT[0] = True   # a fresh worker
        for item in (*before, light):
            root_conftest.pytest_runtest_setup(item)
        call = root_conftest.pytest_runtest_call(light)
        next(call)
        test()
        try:
            call.send(None)
        except StopIteration:
            return "passed"

    def compiles():
        numba.njit(lambda x: x + 1)(1)

    assert run(lambda: None) == "passed"
    with pytest.raises(pytest.fail.Exception, match=r"test_names.py is listed as reaching no kernel .* "
                       r"reached .*<lambda>.*light_groups.py --write tests/design/test_names"):
        run(compiles)
    # after a costly group's test the claim is not the record's (kernels loaded, a
    # process-wide allowance of plain work spent): not judged
    assert run(compiles, before=[costly]) == "passed"

    def spends_the_allowance_and_compiles():
        trial.PLAIN.left = 0
        compiles()

    # with random examples (Hypothesis' dev profile) a drawn input may take the
    # compiled path: not judged
    monkeypatch.setattr(root_conftest, "examples_fixed", lambda: False)
    assert run(compiles) == "passed"
    monkeypatch.setattr(root_conftest, "examples_fixed", lambda: True)
    left = trial.PLAIN.left
    try:
        assert run(spends_the_allowance_and_compiles) == "passed"
        assert run(compiles) == "passed"   # spent before
    finally:
        trial.PLAIN.left = left


def test_the_light_check_judges_runs_whose_examples_are_fixed(root_conftest):
    from hypothesis import settings

    profile = settings._current_profile
    settings.register_profile("fixed_examples", derandomize=True)
    settings.register_profile("random_examples", derandomize=False)
    try:
        settings.load_profile("fixed_examples")
        assert root_conftest.examples_fixed()
        settings.load_profile("random_examples")
        assert not root_conftest.examples_fixed()
    finally:
        settings.load_profile(profile)
