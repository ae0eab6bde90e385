"""Root conftest: doctests of modules, README and docs run with a non-GUI backend.

``--record-durations PATH`` writes what each test that ran cost into the JSON file
``PATH`` (test id -> seconds, rounded to 0.01), merged into what the file already
holds, so that a report is made from several runs (one folder at a time) and a re-run
of some tests updates just those:

    python -m pytest tests/verify --record-durations tests/data/durations.json

The seconds are CPU seconds, from the test's setup to its teardown, of the test's
process and of the processes it started and waited for: about what the test takes on
an otherwise idle core, whatever the load of the machine that recorded it (on a shared
machine wall-clock times vary several-fold). A fixture shared by several tests (module
or session scope, such as the documentation site) is paid once: its setup is not
counted in the test that happens to come first but listed on its own, as
``"FOLDER_OR_FILE::NAME (shared SCOPE fixture)"``. ``tests/design/test_durations.py``
reads ``tests/data/durations.json``: a test of the default suite recorded there at
over 5 s must be made faster or marked ``slow``.

The suite runs on every core (pytest-xdist: ``-n auto --maxprocesses 4`` in
``pyproject.toml``; ``-n 0`` runs it in one process). Tests are handed out a group at
a time (``--dist loadgroup``): the tests of one file go to one worker, so a module's
shared fixtures (a browser, a server) are set up once, and the tests that share a
costly session fixture (:data:`SHARED_SETUPS`: the Coq build, the documentation site,
the 26-letter machine) go to one worker together, so it is built once; the tests that
open a browser (marked ``browser``, with the other tests of their files) share one
worker too, with the Coq build, so that the largest processes the suite starts (a
Chromium, about half a GB; the build's two ``coqc``, a third of one each) never run
at the same time; that group is
handed out first, then the groups that reach no compiled kernel (:func:`light_groups`:
the other worker stays small beside the Coq build and the browsers), then the others,
from the costliest (:func:`start_order`). The browser tests share
one Chromium (``tests/_browser.py``), which only they can ask for (the ``browser``
fixture of ``tests/conftest.py`` fails any other test) and which is closed when the
worker leaves them (:func:`close_the_shared_browser`): one Chromium per run. The
workers (and the commands the tests start) compile each numba kernel once: one
compiles, the others wait and load it (:func:`markone._internal.jit_cache.compile_lock`);
under xdist ``--record-durations`` gathers each worker's figures and the controller
writes the report once.
"""

import gc
import json
import os
import re
import sys
import time

import pytest

_CPU: dict[str, float] = {}
_GROUP_SUFFIX = re.compile(r"@[^@\[\]]*$")  # a group: a file's path or a fixture's name
_STARTED: list[float] = []
_SHARING: list[bool] = []  # the fixtures being set up, outermost first: shared or not
_WALL: list = []  # [when the running test started (epoch s), its threads' run-queue waits]
_TIMELINE: dict[str, list] = {}  # test id -> [worker, start, wall, CPU, waited for a core]


def _queued_by_thread():
    """Nanoseconds each thread of this process has waited, runnable, for a core, by
    thread id (Linux ``/proc/self/task/*/schedstat``; empty elsewhere): the part of a
    test's wall time that is the machine's load, not the test sleeping. A thread that
    ends while it is read is left out, not the whole reading (issue 37: a server's
    threads ending during a test made its waited seconds jump by the worker's total,
    about 80 s of sleep that never happened)."""
    waited = {}
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return waited
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/schedstat") as file:
                waited[task] = int(file.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return waited


def waited_seconds(before, after):
    """Seconds waited for a core between two readings of :func:`_queued_by_thread`:
    the growth of each thread alive at the second, from zero for a thread started in
    between (a thread that ended in between is not counted: never less than zero).

    >>> waited_seconds({"1": 5_000_000_000, "2": 7}, {"1": 6_500_000_000, "3": 10**9})
    2.5
    """
    return sum(max(0, ns - before.get(task, 0)) for task, ns in after.items()) / 1e9


def _cpu_seconds():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def runs_tests(config):
    """Whether this process runs tests: not when it is the xdist controller, which
    hands them out to the workers (it then imports neither matplotlib nor markone:
    about 40 MB less in a run, issue 37)."""
    return (hasattr(config, "workerinput") or config.getoption("collectonly")
            or not config.getoption("tx", None))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """A process that runs tests loads the Hypothesis profile
    (:func:`load_hypothesis_profile`), draws with a non-GUI backend, audits every figure
    markone draws for a room (issue 15: text under 10 pt, text cut off at the figure's
    edge or a legend over the data fails the test that drew it:
    ``markone._internal.style.save_figure`` raises ``FigureAuditError``). The xdist
    controller keeps passed tests' reports slim (:func:`slims_passed_reports`)."""
    if not runs_tests(config):
        _SLIM_PASSED[:] = [slims_passed_reports(config)]
        return
    load_hypothesis_profile()
    import matplotlib

    import markone._internal.style

    matplotlib.use("Agg")
    markone._internal.style.STRICT = True


def write_bytecode(environ=os.environ):
    """If ``environ`` says ``PYTHONDONTWRITEBYTECODE``, drop it, so that the processes
    started with ``environ`` write their bytecode and share it, as Python does by
    default (in ``__pycache__`` folders beside the sources, which git ignores); return
    whether it did. Called by the process that starts a run's others (the xdist
    controller, or the one process of ``-n 0``).

    Issue 37: with the variable set, as on this project's machines, every Python the
    suite starts (two workers, hundreds of ``python -m markone`` commands) compiled
    markone's modules from their source again: 59 s of the suite's 539 s of CPU.
    A folder of the run's own (``PYTHONPYCACHEPREFIX``) kept the sources free of
    ``__pycache__`` but cost almost as much: Python then looks for all bytecode there,
    so each process compiled the standard library, numpy and scipy again until one
    had saved them (5 s for one process's imports). A fresh clone, idle, cold caches:
    449 s of CPU with that folder, 393 s with the bytecode written beside the
    sources.

    >>> environ = {"PYTHONDONTWRITEBYTECODE": "1", "HOME": "/root"}
    >>> write_bytecode(environ), environ
    (True, {'HOME': '/root'})
    >>> write_bytecode({"HOME": "/root"})
    False
    """
    if not environ.get("PYTHONDONTWRITEBYTECODE"):
        return False
    del environ["PYTHONDONTWRITEBYTECODE"]
    return True


@pytest.hookimpl(tryfirst=True)  # before xdist starts the workers
def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):
        write_bytecode()


def load_hypothesis_profile(environ=os.environ):
    """Register the suite's Hypothesis profiles and load one: ``ci`` (derandomised, the
    default under ``CI=true``), ``dev`` (the default elsewhere), ``thorough`` (many
    examples: ``HYPOTHESIS_PROFILE=thorough``). Done by the processes that run tests
    only: the xdist controller never imports Hypothesis (about 14 MB, issue 37)."""
    from hypothesis import HealthCheck, settings

    lenient = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
    settings.register_profile("ci", derandomize=True, max_examples=50, print_blob=True,
                              **lenient)
    settings.register_profile("dev", max_examples=50, **lenient)
    settings.register_profile("thorough", max_examples=1000, **lenient)
    settings.load_profile(environ.get("HYPOTHESIS_PROFILE",
                                      "ci" if environ.get("CI") else "dev"))


_SLIM_PASSED: list[bool] = []  # [whether this process slims passed tests' reports]


def slims_passed_reports(config):
    """Whether the reports of passed tests can drop their keywords and captured output
    once they reach the xdist controller: its terminal keeps every report to the end of
    the run (three per test: about 18,000 in the suite, 1.6 kB each, 0.6 kB of it the
    keywords) but shows a passed test's output only for ``-rP``/``-rA``, and
    ``--junitxml`` writes it; nothing reads the keywords of a report there (issue 37:
    the controller grew by about 35 MB over a run, beside the two grown workers at its
    end)."""
    chars = config.getoption("reportchars", None) or ""
    return not (config.getoption("xmlpath", None) or "P" in chars or "A" in chars)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report):
    """On the xdist controller (:func:`slims_passed_reports`), a passed test's report
    keeps its outcome, place and duration, not its keywords or captured output."""
    if _SLIM_PASSED[:1] == [True] and report.passed:
        report.keywords = {}
        report.sections = []


def pytest_addoption(parser):
    parser.addoption(
        "--record-durations", metavar="PATH", default=None,
        help="merge each test's CPU seconds (setup to teardown, with the processes it "
             "waited for) into the JSON report PATH (test id -> seconds), e.g. "
             "tests/data/durations.json")
    parser.addoption(
        "--record-timeline", metavar="PATH", default=None,
        help="write where and when each test ran into the JSON file PATH (test id -> "
             "[worker, start in seconds since the epoch, wall seconds, CPU seconds, "
             "seconds the worker waited for a core]): wall - CPU - waited is the time a "
             "test sleeps or waits on something else (a browser, a server)")


def pytest_runtest_logstart(nodeid, location):
    _STARTED[:] = [_cpu_seconds(), 0.0]  # [start, seconds of shared fixtures since]
    _WALL[:] = [time.time(), _queued_by_thread()]


def pytest_runtest_logfinish(nodeid, location):
    nodeid = _GROUP_SUFFIX.sub("", nodeid)  # xdist's loadgroup appends "@GROUP"
    _CPU[nodeid] = _cpu_seconds() - _STARTED[0] - _STARTED[1]
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    waited = waited_seconds(_WALL[1], _queued_by_thread())
    _TIMELINE[nodeid] = [worker, round(_WALL[0], 2), round(time.time() - _WALL[0], 3),
                         round(_CPU[nodeid], 3), round(waited, 3)]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    _STARTED.append(_cpu_seconds())  # [start, shared, since the last fixture ended]
    yield
    del _STARTED[2:]
    if nextitem is None or not _in_browser_group(nextitem):
        close_the_shared_browser()
    if nextitem is None or _file(nextitem) != _file(item):
        give_back_freed_memory()


def give_back_freed_memory():
    """Free what the tests of a file left behind and hand it back to the system: done
    when a worker moves on to another file. Cyclic garbage is collected
    (:func:`gc.collect`) and what survives is frozen (:func:`gc.freeze`: later
    collections, automatic or at the next file, pass over it, so each costs what the
    last file made, not the whole process: collecting 600,000 objects took 0.2 to 0.5 s,
    collecting only the new ones a few ms); then the memory C ``free`` kept for reuse goes
    back to the system (glibc's ``malloc_trim``; nothing elsewhere).

    Issue 37: a worker is most of the suite's peak, and Python collects its oldest
    objects only once they have grown by a quarter: a worker's garbage waited for that
    in the meantime. The 3,725 tests one worker ran in a run, run in one process with
    this at each file, peaked at 418 MB of anonymous memory instead of 493, for 0.7 s of
    CPU over 204 files; the heap's freed pages alone (``malloc_trim``) took four heavy
    files from 414 to 385 MB of RSS. A cycle the frozen objects later form is not
    collected: the price of the freeze, for objects that lived through a whole file.
    """
    gc.collect()
    gc.freeze()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _in_browser_group(item):
    """Whether ``item`` is a browser test or, under xdist, of the browser group."""
    group = item.get_closest_marker("xdist_group")
    return (item.get_closest_marker("browser") is not None
            or group is not None and group.args[:1] == ("browser",))


def close_the_shared_browser():
    """Close the run's one Chromium (``tests/_browser.py``: ``SHARED``, launched by the
    ``browser`` fixture) when the worker leaves the browser group; its CPU
    (the Chromium's own, counted when it ends) is the shared browser's, not the last
    test's."""
    shared = getattr(sys.modules.get("_browser"), "SHARED", None)
    if shared is None or not shared.running:
        return
    start = _cpu_seconds()
    shared.close()
    _share_as("tests::browser (shared session fixture)", _cpu_seconds() - start)


def pytest_fixture_post_finalizer(fixturedef, request):
    if len(_STARTED) < 3:
        return
    now = _cpu_seconds()
    if fixturedef.scope != "function":  # a browser closing, a server stopping...
        _share(fixturedef, now - _STARTED[2])
    _STARTED[2] = now


def _share(fixturedef, seconds):
    """Count ``seconds`` spent setting up or ending a shared fixture for it, not for
    the test that happened to be running."""
    _share_as(f"{fixturedef.baseid or '.'}::{fixturedef.argname} "
              f"(shared {fixturedef.scope} fixture)", seconds)


def _share_as(name, seconds):
    """Count ``seconds`` for the shared thing ``name``, not for the running test."""
    if _STARTED:
        _STARTED[1] += seconds
    _CPU[name] = _CPU.get(name, 0.0) + seconds


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    shared = fixturedef.scope != "function" and bool(_STARTED) and not any(_SHARING)
    start = _cpu_seconds()
    _SHARING.append(shared)
    try:
        yield
    finally:
        _SHARING.pop()
        if shared:
            _share(fixturedef, _cpu_seconds() - start)


#: Session fixtures costly enough to build once: a test that uses one runs on the
#: worker of that fixture's group (name of the fixture -> name of the group).
#: The tests that open a real browser (marked ``browser``) run on one worker, one
#: Chromium at a time (each holds about half a GB), with the documentation site's and
#: the Coq build's (two ``coqc`` at once, each up to a third of a GB): the suite's peak
#: memory is then one Chromium or one Coq build beside the two workers, never both
#: (issue 37).
SHARED_SETUPS = {"coq_build": "browser", "site": "browser", "letters26": "letters26"}


def xdist_group(item, browser_files=frozenset()):
    """The worker group of a test: a browser's (a test marked ``browser``, or any test
    of a file in ``browser_files``: one with a browser test, so that its module
    fixtures are built once), its costly shared fixture's, else its file's."""
    if item.get_closest_marker("browser") is not None or _file(item) in browser_files:
        return "browser"
    for fixture in getattr(item, "fixturenames", ()):
        if fixture in SHARED_SETUPS:
            return SHARED_SETUPS[fixture]
    return _file(item)


def _file(item):
    return item.nodeid.split("::", 1)[0]


def browser_files(items):
    """The files of ``items`` that hold a test marked ``browser``."""
    return frozenset(_file(item) for item in items
                     if item.get_closest_marker("browser") is not None)


def _browser_group_order(members):
    """The browser group's tests in the order they run: the Coq build's first (while
    the worker is small, and so that ``coqc`` has ended before the browser starts),
    then the others in their order; the one browser (``tests/_browser.py``) is launched
    by the first test that asks for it and stays open to the end of the group."""
    members.sort(key=lambda item: "coq_build" not in getattr(item, "fixturenames", ()))


def reached_kernels():
    """A function that lists the kernels (numba dispatchers, by qualified name) this
    process has compiled or loaded from the disk cache since this call: each new
    signature a dispatcher adds (numba's ``add_overload``, which both take). Watches
    only when numba is imported (the suite's collection imports it); else lists none."""
    noted = _watch_kernels()
    start = len(noted)
    return lambda: noted[start:]


def _watch_kernels():
    """The list in which numba's dispatchers note each signature they add (made on
    the first call: one for the process, however many copies of this module)."""
    if "numba" not in sys.modules:
        return []
    from numba.core.dispatcher import _DispatcherBase

    plain = _DispatcherBase.add_overload
    if hasattr(plain, "noted"):
        return plain.noted
    noted: list[str] = []

    def add_overload(self, cres):
        noted.append(getattr(self.py_func, "__qualname__", repr(self.py_func)))
        return plain(self, cres)

    add_overload.noted = noted
    _DispatcherBase.add_overload = add_overload
    return noted


#: The measured report of what each test costs (``--record-durations``), read to hand
#: out the costliest groups first.
DURATIONS = os.path.join(os.path.dirname(__file__), "tests", "data", "durations.json")
#: What a test missing from :data:`DURATIONS` is taken to cost, in CPU seconds.
UNRECORDED = 0.1


#: The measured cost of each worker group in a worker's memory (group -> what it cost
#: when a fresh worker ran it first: ``python tests/light_groups.py --write``), read to
#: hand out the light groups (:func:`light_groups`) beside the Coq build and the browsers.
GROUP_COSTS = os.path.join(os.path.dirname(__file__), "tests", "data", "light_groups.json")
#: The most a light group may grow a worker, in MB of resident memory.
LIGHT_GROWTH_MB = 20.0
#: The largest process a light group may start (a command run, a Python), in MB.
LIGHT_SUBPROCESS_MB = 100.0


def reaches_no_kernel(cost):
    """Whether a group's measured ``cost`` (:data:`GROUP_COSTS`) shows none of its tests
    compiled or loaded a numba kernel (a worker grows by tens of MB with the compiler
    and each kernel's machine code), run first in a fresh worker and after the groups
    handed out before it, and none failed while measured."""
    return (not cost.get("kernels", ["?"]) and not cost.get("kernels_after_light")
            and not cost.get("failed", 1))


def light_groups(measured):
    """The groups of ``measured`` (group -> what it cost, :data:`GROUP_COSTS`) that are
    light: they reach no kernel (:func:`reaches_no_kernel`), grew the worker by at most
    :data:`LIGHT_GROWTH_MB` and started no process larger than
    :data:`LIGHT_SUBPROCESS_MB`.

    >>> sorted(light_groups({
    ...     "tests/a.py": {"kernels": [], "failed": 0, "growth_mb": 1.5, "subprocess_mb": 0},
    ...     "tests/b.py": {"kernels": ["pass_kernel"], "failed": 0, "growth_mb": 60,
    ...                    "subprocess_mb": 0},
    ...     "tests/c.py": {"kernels": [], "failed": 0, "growth_mb": 2, "subprocess_mb": 240}}))
    ['tests/a.py']
    """
    return frozenset(
        name for name, cost in measured.items()
        if reaches_no_kernel(cost)
        and cost.get("growth_mb", float("inf")) <= LIGHT_GROWTH_MB
        and cost.get("subprocess_mb", float("inf")) <= LIGHT_SUBPROCESS_MB)


#: The most an early group (:func:`early_groups`) may grow a worker, in MB.
EARLY_GROWTH_MB = 30.0


def early_groups(measured):
    """The groups of ``measured`` that reach no kernel (:func:`reaches_no_kernel`) and
    grow a worker little (at most :data:`EARLY_GROWTH_MB`) but start a process larger
    than :data:`LIGHT_SUBPROCESS_MB` (a Dask cluster, a notebook's kernel, a Python
    compiling kernels in an empty cache): handed out first to the worker beside the Coq
    build, the suite's lightest moment. Late in a run, beside two grown workers, such
    a process made the peak (issue 37: 1.56 GB at load 2, a Python compiling the
    packed search beside workers of 0.76 and 0.59 GB).

    >>> sorted(early_groups({
    ...     "tests/a.py": {"kernels": [], "failed": 0, "growth_mb": 1.5, "subprocess_mb": 0},
    ...     "tests/c.py": {"kernels": [], "failed": 0, "growth_mb": 2, "subprocess_mb": 240},
    ...     "tests/d.py": {"kernels": [], "failed": 0, "growth_mb": 80, "subprocess_mb": 240}}))
    ['tests/c.py']
    """
    return frozenset(
        name for name, cost in measured.items()
        if reaches_no_kernel(cost)
        and cost.get("growth_mb", float("inf")) <= EARLY_GROWTH_MB
        and cost.get("subprocess_mb", 0) > LIGHT_SUBPROCESS_MB)


#: What a group's source says when it runs markone's parallel kernels (numba's
#: ``parallel=True``: its parallel loops lowered to threaded kernels), the largest compile
#: of a run (:func:`compiles_parallel_kernels`).
PARALLEL_KERNELS = "parallel=True"


def compiles_parallel_kernels(group, root=os.path.dirname(__file__)):
    """Whether the file of ``group`` (a path from the root; a shared fixture's group
    has none) asks markone for :data:`PARALLEL_KERNELS`: such a group compiles numba's
    parallel kernels, a worker growing by 0.13 to 0.2 GB for a few seconds. Handed out
    first of the costly groups (:func:`start_order`), while the workers are small: late
    in a run, beside two grown workers, it made the suite's peak (issue 37: 1.50 to
    1.53 GB at load 2, in three runs, ``test_batch.py::test_parallel_equals_serial``).

    >>> compiles_parallel_kernels("tests/markone/test_batch.py")
    True
    >>> compiles_parallel_kernels("tests/markone/test_table.py"), compiles_parallel_kernels("browser")
    (False, False)
    """
    try:
        with open(os.path.join(root, group.split("::")[0]), encoding="utf-8") as file:
            return PARALLEL_KERNELS in file.read()
    except (OSError, UnicodeDecodeError):
        return False


def start_order(items, seconds, light=frozenset(), early=frozenset(),
                parallel=frozenset()):
    """``items`` in the order their groups are handed out to the workers (pytest-xdist
    in the order of collection, with ``--no-loadscope-reorder``): the browsers' group
    first, its tests of the Coq build first and its browser tests together
    (:func:`_browser_group_order`), then the ``early`` groups (:func:`early_groups`),
    then the ``light`` ones (:func:`light_groups`), then the ``parallel`` ones
    (:func:`compiles_parallel_kernels`), then the others, each kind from the
    costliest (by ``seconds``: test id -> recorded CPU seconds) to the cheapest, each
    group's tests in their order.

    The largest processes the suite starts (``coqc``, then Chromium) then run at the
    start, beside workers that are still small (a worker grows as it runs: native
    libraries, compiled kernels), not near the end beside two grown ones; the other
    worker meanwhile runs the groups that reach no compiled kernel, and stays small
    (those that start a large process first, beside the Coq build);
    and with the costliest groups first, no long group is left to run alone at the
    end (issue 37).
    """
    groups: dict[str, list] = {}
    files = browser_files(items)
    for item in items:
        groups.setdefault(xdist_group(item, files), []).append(item)
    cost = {name: sum(seconds.get(item.nodeid, UNRECORDED) for item in members)
            for name, members in groups.items()}
    order = sorted(groups, key=lambda name: (name != "browser", name not in early,
                                             name not in light, name not in parallel,
                                             -cost[name]))
    _browser_group_order(groups.get("browser", []))
    return [item for name in order for item in groups[name]]


_LIGHT = pytest.StashKey[str]()   # a test's group, when it is light or early
_WATCH = pytest.StashKey[object]()   # the kernels a light group's test has reached


def _read(path):
    if not os.path.exists(path):
        return {}
    with open(path) as file:
        return json.load(file)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups into the test ids
def pytest_collection_modifyitems(config, items):
    files = browser_files(items)
    measured = _read(GROUP_COSTS)
    light, early = light_groups(measured), early_groups(measured)
    groups = set()
    for item in items:
        group = xdist_group(item, files)
        groups.add(group)
        if group in light or group in early:
            item.stash[_LIGHT] = group
        if getattr(config.option, "loadgroup", False):
            item.add_marker(pytest.mark.xdist_group(group))
    if getattr(config.option, "loadgroup", False):
        parallel = frozenset(filter(compiles_parallel_kernels, groups))
        items[:] = start_order(items, _read(DURATIONS), light, early, parallel)


_ONLY_LIGHT = [True]   # whether this process has run only light groups' tests so far


def plain_work_spent():
    """Whether this process has spent its allowance of plain machine trials
    (``markone.hardware.trial.PLAIN``): from then on machine runs are compiled, in
    whatever group comes next."""
    trial = sys.modules.get("markone.hardware.trial")
    return trial is not None and trial.PLAIN.left == 0


def examples_fixed():
    """Whether this run's generated examples are the same in every run: Hypothesis'
    loaded profile derandomised (``ci``, the default under ``CI=true``; see
    :func:`load_hypothesis_profile`) or Hypothesis not in use. With random examples (the ``dev``
    profile of a run at home) a light group's property test may draw an input large
    enough for the compiled path, which says nothing of the code: the light check
    (:func:`pytest_runtest_call`) judges only runs whose examples are fixed."""
    hypothesis = sys.modules.get("hypothesis")
    return hypothesis is None or bool(hypothesis.settings.default.derandomize)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if _LIGHT not in item.stash or plain_work_spent() or not examples_fixed():
        _ONLY_LIGHT[0] = False
    if _LIGHT in item.stash:
        item.stash[_WATCH] = reached_kernels() if _ONLY_LIGHT[0] else (lambda: [])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """A test of a light or early group (:func:`light_groups`, :func:`early_groups`)
    that compiles or loads a numba kernel (in its setup or its call) fails, in a
    process that has run only such groups so far (as the worker beside the Coq build and the browsers does: after
    other tests kernels reached may be loaded already) with its allowance of plain
    trials left (:func:`plain_work_spent`: ``tests/light_groups.py`` runs the light
    groups in order to find those that spend it, not always all): it must stay small
    there; measure it again. Judged only when the run's examples are fixed
    (:func:`examples_fixed`)."""
    result = yield
    reached = item.stash[_WATCH]() if _WATCH in item.stash else []
    if reached and not plain_work_spent():   # else it compiled what it had to
        group = item.stash[_LIGHT]
        pytest.fail(
            f"{group} is listed as reaching no kernel in tests/data/light_groups.json "
            "(light or early: run beside the Coq build and the browsers, it must compile "
            "or load no numba kernel) but "
            f"this test reached {', '.join(sorted(set(reached)))}: measure the group "
            f"again (python tests/light_groups.py --write {group.split('::')[0]})",
            pytrace=False)
    return result


_FROM_WORKERS: dict[str, float] = {}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """Under xdist, the controller gathers what each worker recorded."""
    output = getattr(node, "workeroutput", {})
    _FROM_WORKERS.update(json.loads(output.get("cpu", "{}")))
    _TIMELINE.update(json.loads(output.get("timeline", "{}")))


def pytest_sessionfinish(session):
    path = session.config.getoption("record_durations")
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller writes the report
        workeroutput["cpu"] = json.dumps(_CPU)
        workeroutput["timeline"] = json.dumps(_TIMELINE)
        return
    _CPU.update(_FROM_WORKERS)
    timeline = session.config.getoption("record_timeline")
    if timeline is not None and _TIMELINE:
        from markone._internal.io import write_json

        write_json(timeline, _TIMELINE)
    if path is None or not _CPU:
        return
    from pathlib import Path

    from markone._internal.io import read_json, write_json

    merged = read_json(path) if Path(path).exists() else {}
    merged.update({k: round(v, 2) for k, v in _CPU.items()
                   if round(v, 2) or not k.endswith("fixture)")})
    write_json(path, dict(sorted(merged.items())))
