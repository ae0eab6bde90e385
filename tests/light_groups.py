"""What each worker group of the suite costs a worker in memory (issue 37): whether it
reaches a compiled kernel, how much the worker grows, how large the processes it
starts get; the root ``conftest.py`` hands the *light* groups (:func:`is_light`) out
first, beside the Coq build and the browsers.

The suite's peak is its start: one worker builds the Coq proofs (a ``coqc`` of half a
GB) and then drives the browsers (a Chromium and its driver, half a GB), while the
other worker runs what is handed out next. Groups that compile or load numba kernels
grow a worker by tens of MB each (the compiler, the machine code; more on a cold
cache), so beside those two phases the other worker runs groups that reach no kernel
at all, and the costly ones after.

Usage: ``python tests/light_groups.py [--write] [PATH...]`` collects the default
suite once (as a worker does: what the collection imports is not a group's cost),
then runs each group (the root ``conftest.py``'s :func:`xdist_group`; the browser
group is not run: it is first anyway), or those with a test in a file or folder
``PATH``, in a process forked from the collected one, as a fresh worker would run it
first, and prints what it measured; ``--write`` merges it into :data:`REPORT` (group -> measures):

- ``kernels``: the kernels the group compiled or loaded from the disk cache (numba's
  dispatchers adding a signature), by qualified name; a group is stopped at its
  first test that reaches one (it is costly: no need to run the rest);
- ``growth_mb``: how much the process's resident memory grew over the group;
- ``subprocess_mb``: the largest summed PSS of the processes the group started, as
  sampled every 0.2 s (a command run, a Python that compiles, a cluster's workers);
- ``tests``, ``failed``: tests run, tests that failed or errored;
- ``cpu_s``: CPU seconds of the group and its processes;
- ``kernels_after_light``: the kernels the group reached when the light groups ran
  one after the other in one process, in the order they are handed out (a light
  group may spend the process's allowance of plain work, after which the next one
  compiles): then it is not light either.

The report's figures depend on the machine (the cache warm or cold, the libraries'
versions) but not much, and the classification not at all: a kernel reached is a
kernel reached. The root ``conftest.py`` fails a test of a light group that reaches
a kernel (:func:`reached_kernels`): re-run this tool on its file then.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parent.parent / "benchmarks"))

from _paths import ROOT, TESTS  # noqa: E402
from pss_peak import tree_pss  # noqa: E402

#: The measured report: worker group -> what it costs (see the module's docstring).
REPORT = TESTS / "data" / "light_groups.json"
#: The most runs of the light groups one after the other (each without the groups
#: the one before found reaching a kernel).
PASSES = 8


def _resident_mb():
    with open("/proc/self/statm") as file:
        return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class _Subprocesses(threading.Thread):
    """The largest summed PSS (MB) of the processes below this one, sampled every
    0.2 s while the group runs (``getrusage`` cannot tell: a child started by
    ``vfork`` reports the parent's resident size as its own)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peak_mb = 0.0
        self.done = threading.Event()

    def run(self):
        me = os.getpid()
        while not self.done.wait(0.2):
            below = sum(kib for kib, pid, _ in tree_pss(me) if pid != me) / 1024
            self.peak_mb = max(self.peak_mb, below)


def _cpu_s():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _root_conftest(config):
    for plugin in config.pluginmanager.get_plugins():
        if getattr(plugin, "__file__", None) == str(ROOT / "conftest.py"):
            return plugin
    raise RuntimeError("the root conftest.py is not loaded: run from the checkout")


class Measure:
    """A pytest plugin: run each worker group in a forked process and measure it."""

    def __init__(self, only=()):
        self.only = [path.rstrip("/") for path in only]
        self.results: dict[str, dict] = {}

    def _chosen(self, members):
        """Whether a group of ``members`` is to be measured: every group, else those
        with a test in a file or folder of :attr:`only`."""
        files = {item.nodeid.split("::", 1)[0] for item in members}
        return not self.only or any(file == path or file.startswith(path + "/")
                                    for file in files for path in self.only)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        root = _root_conftest(session.config)
        files = root.browser_files(session.items)
        groups: dict[str, list] = {}
        for item in session.items:
            groups.setdefault(root.xdist_group(item, files), []).append(item)
        groups.pop("browser", None)
        all_groups = groups
        groups = {name: members for name, members in groups.items()
                  if self._chosen(members)}
        import numba  # noqa: F401  (as the suite's collection does: its watch then holds)

        gc.collect()
        gc.freeze()   # the forked processes then copy no page for the collector's sake
        for number, (name, members) in enumerate(groups.items(), 1):
            self.results[name] = result = _forked(
                lambda: _run_group(session, root, members),
                {"kernels": ["(the measuring process died)"]})
            print(f"\n[{number}/{len(groups)}] {name}: {json.dumps(result)}", flush=True)
        self._in_order(session, root, all_groups)
        return True

    def _in_order(self, session, root, groups):
        """Run the light groups one after the other in one forked process, in the
        order they are handed out, as the worker beside the Coq build and the browsers
        runs them: a group that reaches a kernel there (the process-wide allowance of
        plain work spent by those before it, ``markone._internal.jit.PlainWork``) is
        not light (``kernels_after_light``). Again without those, until none does
        (at most :data:`PASSES` times)."""
        from markone._internal.io import read_json

        measured = {**(read_json(REPORT) if REPORT.exists() else {}), **self.results}
        seconds = root._read(root.DURATIONS)
        for _ in range(PASSES):
            light, early = root.light_groups(measured), root.early_groups(measured)
            items = [item for name in light | early for item in groups.get(name, ())]
            ordered = root.start_order(items, seconds, light, early)
            reached = _forked(lambda: _run_in_order(root, ordered),
                              {"(the measuring process died)": ["?"]})
            print(f"\nin order, {len(light)} light and {len(early)} early groups: "
                  f"kernels reached by {json.dumps(reached)}", flush=True)
            if not reached:
                return
            for name, kernels in reached.items():
                measured[name] = self.results[name] = {
                    **measured.get(name, {}), "kernels_after_light": kernels}


def _forked(run, died):
    """``run()``'s JSON answer, run in a process forked from this one (``died`` if
    that process ends without one)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: run, send the answer, leave at once
        os.close(read)
        code = 1
        try:
            os.write(write, json.dumps(run()).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 1 << 16):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks)) if chunks else died


def _run_in_order(root, items):
    """Run ``items`` in this process; the kernels each group's tests reached."""
    watch, files = root.reached_kernels(), root.browser_files(items)
    reached: dict[str, list[str]] = {}
    for index, item in enumerate(items):
        after = items[index + 1] if index + 1 < len(items) else None
        seen = len(watch())
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=after)
        if watch()[seen:]:
            reached.setdefault(root.xdist_group(item, files), []).extend(watch()[seen:])
    return {name: sorted(set(kernels)) for name, kernels in reached.items()}


def _run_group(session, root, members):
    """Run ``members`` (one group's tests) in this process; what they cost."""
    reached = root.reached_kernels()
    failed = []

    class Failures:
        @staticmethod
        def pytest_runtest_logreport(report):
            if report.failed:
                failed.append(report.nodeid)

    session.config.pluginmanager.register(Failures())
    subprocesses = _Subprocesses()
    subprocesses.start()
    start_mb, start_cpu, ran = _resident_mb(), _cpu_s(), 0
    for index, item in enumerate(members):
        after = members[index + 1] if index + 1 < len(members) else None
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=after)
        ran += 1
        if reached():
            session._setupstate.teardown_exact(None)
            break
    subprocesses.done.set()
    subprocesses.join()
    return {"kernels": sorted(set(reached())), "tests": ran, "failed": len(failed),
            "growth_mb": round(_resident_mb() - start_mb, 1),
            "subprocess_mb": round(subprocesses.peak_mb, 1), "cpu_s": round(_cpu_s() - start_cpu, 2)}


def main(argv):
    write = "--write" in argv
    paths = [arg for arg in argv if arg != "--write"]
    plugin = Measure(paths)
    start = time.time()
    os.chdir(ROOT)
    code = pytest.main(["-q", "-n", "0"], plugins=[plugin])
    if code not in (0, 5) and not plugin.results:
        return int(code)
    print(f"\n{len(plugin.results)} groups measured in {time.time() - start:.0f} s")
    if write:
        from markone._internal.io import read_json, write_json

        merged = read_json(REPORT) if REPORT.exists() else {}
        merged.update(plugin.results)
        merged = {name: cost for name, cost in merged.items()   # groups of removed files
                  if "/" not in name or (ROOT / name.split("::")[0]).exists()}
        write_json(REPORT, dict(sorted(merged.items())))
        print(f"written to {REPORT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
