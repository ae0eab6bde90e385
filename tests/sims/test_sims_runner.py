"""sims.runner: resumable, loss-free, independent of workers and of Dask."""

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import sims.novikoff
from markone.cli import main
from sims.errors import SweepConflictError, SweepWarning
from sims.runner import (EXPERIMENTS, MAX_RUNS, config_hash, load_experiment, make_config,
                         read_task_log,
                         run_experiment)

SMALL = dict(size="small", plot=False, seed=3)


def _bytes(path):
    return path.read_bytes()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted small novikoff sweep."""
    return run_experiment("novikoff", out=tmp_path_factory.mktemp("ref"), **SMALL)


def test_uninterrupted_run_logs_every_task(reference):
    log = reference.results_path.parent / "tasks.jsonl"
    assert reference.n_tasks == reference.n_run >= 3 and reference.n_reused == 0
    assert len(log.read_text().splitlines()) == reference.n_tasks
    saved = json.loads(reference.results_path.read_text())
    assert saved == reference.results
    assert saved["seed"] == 3 and saved["config"]["runs"] == 12


def test_torn_log_resumes_to_identical_results(reference, tmp_path):
    """The log a SIGKILL leaves mid-write resumes to the uninterrupted results (stands
    for the slow `test_kill_9_then_restart_equals_uninterrupted`)."""
    run_experiment("novikoff", out=tmp_path, **SMALL)
    log = tmp_path / "novikoff" / "tasks.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:1]) + lines[1][: len(lines[1]) // 2])  # kill -9
    (tmp_path / "novikoff" / "results.json").unlink()
    again = run_experiment("novikoff", out=tmp_path, **SMALL)
    assert (again.n_reused, again.n_run) == (1, reference.n_tasks - 1)
    assert _bytes(again.results_path) == _bytes(reference.results_path)
    assert all(json.loads(line) for line in log.read_text().splitlines())  # torn cut


def test_crash_mid_sweep_keeps_finished_tasks(reference, tmp_path, monkeypatch):
    real, calls = sims.novikoff.run_task, []

    def crashing(spec):
        if len(calls) == 2:
            raise RuntimeError("power cut")
        calls.append(spec["id"])
        return real(spec)

    monkeypatch.setattr(sims.novikoff, "run_task", crashing)
    with pytest.raises(RuntimeError, match="power cut"):
        run_experiment("novikoff", out=tmp_path, **SMALL)
    assert not (tmp_path / "novikoff" / "results.json").exists()
    monkeypatch.setattr(sims.novikoff, "run_task", real)
    again = run_experiment("novikoff", out=tmp_path, **SMALL)
    assert again.n_reused == 2
    assert _bytes(again.results_path) == _bytes(reference.results_path)
    # a finished sweep reruns nothing
    assert run_experiment("novikoff", out=tmp_path, **SMALL).n_run == 0


def test_other_config_or_seed_is_refused_unless_overwrite(reference, tmp_path):
    run_experiment("novikoff", out=tmp_path, **SMALL)
    before = {p.name: p.read_bytes() for p in (tmp_path / "novikoff").iterdir()}
    with pytest.raises(SweepConflictError, match=r"seed 3, not 4.*--overwrite"):
        run_experiment("novikoff", out=tmp_path, **{**SMALL, "seed": 4})
    with pytest.raises(SweepConflictError, match=r"other settings: runs"):
        run_experiment("novikoff", out=tmp_path, runs=5, **SMALL)
    assert {p.name: p.read_bytes() for p in (tmp_path / "novikoff").iterdir()} == before
    other = run_experiment("novikoff", out=tmp_path, overwrite=True, **{**SMALL, "seed": 4})
    assert other.n_reused == 0
    key = config_hash("novikoff", other.results["config"], 4)
    assert len(read_task_log(tmp_path / "novikoff" / "tasks.jsonl", key)) == other.n_tasks


def test_two_workers_equal_one(reference, tmp_path):
    res = run_experiment("novikoff", out=tmp_path, workers=2, **SMALL)
    assert _bytes(res.results_path) == _bytes(reference.results_path)


def test_dask_local_cluster_equals_local(reference, tmp_path):
    pytest.importorskip("dask.distributed")
    res = run_experiment("novikoff", out=tmp_path, dask="local", **SMALL)
    assert _bytes(res.results_path) == _bytes(reference.results_path)


def test_inline_run_equals_results_json(reference):
    cfg = make_config(sims.novikoff, size="small")
    inline = sims.novikoff.run(cfg, seed=3)
    saved = {k: v for k, v in reference.results.items()
             if k not in ("experiment", "config", "seed")}
    assert inline == saved


def test_every_experiment_follows_the_protocol():
    for name in EXPERIMENTS:
        mod = load_experiment(name)
        assert mod.NAME == name and mod.__doc__.strip()
        assert set(mod.SMALL) <= set(mod.DEFAULTS)
        for attr in ("tasks", "run_task", "combine", "plot", "run"):
            assert callable(getattr(mod, attr)), (name, attr)
        assert set(mod.__all__) >= {"NAME", "DEFAULTS", "tasks", "run_task", "combine",
                                    "plot", "run"}


@pytest.mark.parametrize("kwargs, match", [
    (dict(name="nope"), "experiment"),
    (dict(name="xor_cycling", runs=3), "no 'runs' setting"),
    (dict(name="novikoff", size="huge"), "size"),
    (dict(name="novikoff", overrides={"bogus": 1}), "has no setting 'bogus'"),
    (dict(name="novikoff", dask="localhost:1"), "scheduler address"),
])
def test_bad_arguments_are_named(kwargs, match, tmp_path):
    with pytest.raises(ValueError, match=match):
        run_experiment(out=tmp_path, **{"size": "small", **kwargs})


def test_cli_list_and_run(tmp_path, capsys):
    assert main(["sim", "list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in EXPERIMENTS)
    assert main(["sim", "run", "orthonormal_tight", "--size", "small", "--out",
                 str(tmp_path)]) == 0
    assert (tmp_path / "orthonormal_tight" / "results.json").exists()
    assert (tmp_path / "orthonormal_tight" / "orthonormal_tight.png").exists()
    assert main(["sim", "run", "xor_cycling", "--runs", "3", "--out",
                 str(tmp_path)]) == 2
    assert "no 'runs' setting" in capsys.readouterr().err
    assert main(["sim", "run", "nope"]) == 2
    assert "or 'all'" in capsys.readouterr().err


def test_sim_run_resumes_after_a_crash(reference, tmp_path, capsys):
    """`markone sim run` killed after its first task (its log cut mid-line, no results)
    and then run again gives the uninterrupted results (stands for the slow
    `test_kill_9_then_restart_equals_uninterrupted`)."""
    cmd = ["sim", "run", "novikoff", "--size", "small", "--seed", "3", "--out",
           str(tmp_path)]
    assert main(cmd) == 0
    log = tmp_path / "novikoff" / "tasks.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(lines[0] + lines[1][:-2])
    (tmp_path / "novikoff" / "results.json").unlink()
    capsys.readouterr()
    assert main(cmd) == 0
    assert f"{reference.n_tasks - 1} tasks run, 1 reused" in capsys.readouterr().out
    assert _bytes(tmp_path / "novikoff" / "results.json") == _bytes(reference.results_path)


@pytest.mark.slow
def test_kill_9_then_restart_equals_uninterrupted(tmp_path):
    """A real SIGKILL in the middle of a sweep, then the same command again.

    Three sweeps of the Mark I letters and two interpreters; by default
    `test_torn_log_resumes_to_identical_results` (the log a SIGKILL leaves) and
    `test_sim_run_resumes_after_a_crash` (the same command again) stand for it."""
    import os
    import signal
    import subprocess
    import sys
    import time

    ref = run_experiment("mark1_letters", out=tmp_path / "ref", size="small", plot=False)
    cmd = [sys.executable, "-m", "markone", "sim", "run", "mark1_letters", "--size",
           "small", "--out", str(tmp_path / "killed")]
    log = tmp_path / "killed" / "mark1_letters" / "tasks.jsonl"
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if log.exists() and log.read_bytes().count(b"\n") >= 1:
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.01)
    assert proc.wait() == -signal.SIGKILL          # killed mid-sweep, not finished
    assert not (tmp_path / "killed" / "mark1_letters" / "results.json").exists()
    assert subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode == 0
    again = tmp_path / "killed" / "mark1_letters" / "results.json"
    assert again.read_bytes() == ref.results_path.read_bytes()


def test_dask_scheduler_address_equals_local(reference, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, processes=False,
                                  dashboard_address=None) as cluster:
        res = run_experiment("novikoff", out=tmp_path, dask=cluster.scheduler_address,
                             **SMALL)
    assert _bytes(res.results_path) == _bytes(reference.results_path)


def test_progress_bar_counts_reused_and_new_tasks(reference, tmp_path, capsys):
    run_experiment("novikoff", out=tmp_path, **SMALL)
    (tmp_path / "novikoff" / "tasks.jsonl").write_text(
        (tmp_path / "novikoff" / "tasks.jsonl").read_text().splitlines()[0] + "\n")
    run_experiment("novikoff", out=tmp_path, progress=True, **SMALL)
    err = capsys.readouterr().err
    n = reference.n_tasks
    assert f"1/{n}" in err and f"{n}/{n}" in err and "novikoff" in err
    run_experiment("novikoff", out=tmp_path, progress=None, **SMALL)  # not a tty
    assert capsys.readouterr().err == ""


@settings(max_examples=15,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.floats(0, 1))
def test_log_cut_anywhere_resumes_identically_hypo(reference, tmp_path_factory, cut):
    out = tmp_path_factory.mktemp("cut")
    run_experiment("novikoff", out=out, **SMALL)
    log = out / "novikoff" / "tasks.jsonl"
    data = log.read_bytes()
    log.write_bytes(data[: int(cut * len(data))])       # a crash at any byte
    (out / "novikoff" / "results.json").unlink()
    again = run_experiment("novikoff", out=out, **SMALL)
    assert again.n_reused == data[: int(cut * len(data))].count(b"\n")
    assert _bytes(again.results_path) == _bytes(reference.results_path)


def test_missing_dask_says_how_to_install(tmp_path, monkeypatch, capsys):
    """It said `pip install "markone[dask]"`, which asks PyPI for a package called
    markone (this one is installed from its checkout) and would replace the editable
    install with whatever PyPI holds under that name (walk of issue 37)."""
    import sys

    monkeypatch.setitem(sys.modules, "dask.distributed", None)   # import fails
    with pytest.raises(ImportError, match=r'pip install "dask\[distributed\]"'):
        run_experiment("novikoff", out=tmp_path, dask="local", **SMALL)
    assert main(["sim", "run", "novikoff", "--size", "small", "--dask", "local",
                 "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert 'pip install "dask[distributed]"' in err and 'pip install -e ".[dask]"' in err
    assert "markone[" not in err


def test_no_page_installs_markone_from_pypi():
    """markone is installed from its checkout (pip install -e .): a page that says
    `pip install markone...` fetches another package of that name, if any."""
    from _paths import ROOT

    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    said = [f"{page.name}: {line.strip()}" for page in pages
            for line in page.read_text().splitlines()
            if re.search(r"pip install [\"']?markone\b", line)]
    assert said == []


def _edit_log(folder, edit):
    log = folder / "novikoff" / "tasks.jsonl"
    lines = log.read_text().splitlines()
    log.write_text("\n".join(edit(lines)) + "\n")
    (folder / "novikoff" / "results.json").unlink()


def _bump_a_number(line):
    """The line with its first whole number plus one: a plausible hand edit."""
    rec = json.loads(line)

    def bump(node):
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in items:
            if isinstance(v, int) and not isinstance(v, bool):
                node[k] = v + 1
                return True
            if isinstance(v, (dict, list)) and bump(v):
                return True
        return False

    assert bump(rec["result"])
    return json.dumps(rec, sort_keys=True)


def _forge(line):
    """A different result for the task, with its checksum recomputed to match."""
    from sims.runner import _line_check

    rec = json.loads(_bump_a_number(line))
    rec["check"] = _line_check(rec["id"], rec["key"], rec["result"])
    return json.dumps(rec, sort_keys=True)


# how the log is edited -> (is a warning expected, are tasks run again)
TAMPERINGS = {
    "edited number": lambda lines: [_bump_a_number(lines[0]), *lines[1:]],
    "second edited line for a task": lambda lines: [*lines, _bump_a_number(lines[1])],
    "second forged line for a task": lambda lines: [*lines, _forge(lines[1])],
    "line without result": lambda lines: [json.dumps(
        {k: v for k, v in json.loads(lines[0]).items() if k != "result"}), *lines[1:]],
    "not json": lambda lines: [lines[0][:-3], *lines[1:]],
    "duplicate identical line": lambda lines: [*lines, lines[0]],
    "line of another sweep": lambda lines: [lines[0].replace(
        json.loads(lines[0])["key"], "0" * 16), *lines[1:]],
}


@pytest.mark.parametrize("how", sorted(TAMPERINGS))
def test_tampered_task_log_is_reported_and_rerun(reference, tmp_path, how):
    run_experiment("novikoff", out=tmp_path, **SMALL)
    _edit_log(tmp_path, TAMPERINGS[how])
    if how == "duplicate identical line":
        again = run_experiment("novikoff", out=tmp_path, **SMALL)
    else:
        with pytest.warns(SweepWarning, match=r"tasks.jsonl, line \d+ does not verify"):
            again = run_experiment("novikoff", out=tmp_path, **SMALL)
    # the untouched original line of an edited duplicate still verifies: nothing to rerun
    rerun = how not in ("duplicate identical line", "second edited line for a task")
    assert again.n_run == (1 if rerun else 0)
    assert _bytes(again.results_path) == _bytes(reference.results_path)
    # the log was cleaned: a further run trusts every line and runs nothing
    log = tmp_path / "novikoff" / "tasks.jsonl"
    assert len(log.read_text().splitlines()) == reference.n_tasks
    assert run_experiment("novikoff", out=tmp_path, **SMALL).n_run == 0


def test_every_line_carries_checksum_and_key(reference):
    key = config_hash("novikoff", reference.results["config"], 3)
    for line in (reference.results_path.parent / "tasks.jsonl").read_text().splitlines():
        rec = json.loads(line)
        assert rec["key"] == key and len(rec["check"]) == 64
    assert len(read_task_log(reference.results_path.parent / "tasks.jsonl", key)) == \
        reference.n_tasks


def test_a_lock_keeps_a_second_sweep_out(tmp_path):
    import fcntl
    import os

    folder = tmp_path / "novikoff"
    folder.mkdir()
    fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT)
    os.write(fd, b"4242\n")
    fcntl.flock(fd, fcntl.LOCK_EX)                 # a sweep that is running
    try:
        with pytest.raises(SweepConflictError, match=r"another sweep \(pid 4242\) is "
                                                     r"running"):
            run_experiment("novikoff", out=tmp_path, **SMALL)
        assert sorted(p.name for p in folder.iterdir()) == [".lock"]
    finally:
        os.close(fd)                               # ... and now it is gone
    with pytest.warns(SweepWarning, match=r"took over the lock .*pid 4242"):
        res = run_experiment("novikoff", out=tmp_path, **SMALL)
    assert res.n_run == res.n_tasks and not (folder / ".lock").exists()


def test_a_sweep_too_large_is_refused_before_any_task(tmp_path):
    with pytest.raises(ValueError, match=rf"at most {MAX_RUNS}"):
        run_experiment("novikoff", out=tmp_path, runs=10_000_000, size="small")
    assert list(tmp_path.iterdir()) == []


def test_failure_before_any_task_leaves_no_trace(tmp_path, monkeypatch):
    def broken(spec):
        raise RuntimeError("no task finishes")

    monkeypatch.setattr(sims.novikoff, "run_task", broken)
    out = tmp_path / "new" / "folder"
    with pytest.raises(RuntimeError):
        run_experiment("novikoff", out=out, **SMALL)
    assert list(tmp_path.iterdir()) == []


def test_unreachable_dask_scheduler_leaves_no_trace(tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    assert main(["sim", "run", "novikoff", "--size", "small", "--dask",
                 "tcp://127.0.0.1:1", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in err
    assert err.count("\n") == 1 and not (tmp_path / "o").exists()


def _descendants(pid):
    """Pids of every process below ``pid`` (from /proc)."""
    import os

    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        out += kids
        todo += kids
    return out


def _cmdline(pid):
    """The command line of process ``pid`` ('' once it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _alive(pid):
    import os

    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_kill_9_of_a_two_worker_sweep_leaves_no_process(tmp_path):
    """A real SIGKILL of `--workers 2`: the workers and the resource tracker die too."""
    import os
    import signal
    import subprocess
    import sys
    import time

    cmd = [sys.executable, "-m", "markone", "sim", "run", "novikoff", "--runs", "400",
           "--workers", "2", "--out", str(tmp_path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    kids = []
    # the 2nd worker (the 1st is the sweep's own process), forked or spawned (then
    # with multiprocessing's resource tracker beside it)
    while time.monotonic() < deadline and proc.poll() is None and not any(
            "resource_tracker" not in _cmdline(k) for k in kids):
        kids = _descendants(proc.pid)
        time.sleep(0.05)
    assert proc.poll() is None and kids, "the sweep ended before the kill"
    kids = _descendants(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_alive(k) for k in kids):
        time.sleep(0.1)
    assert not [k for k in kids if _alive(k)], "a child of the sweep survived it"


def test_the_old_epochs_setting_is_refused_naming_max_epochs():
    """The experiments name the most passes ``max_epochs``, as ``markone.train`` does;
    the old setting ``epochs`` is gone before 1.0 (#40): an unknown setting, refused
    with the valid ones listed."""
    module = load_experiment("iris")
    with pytest.raises(ValueError, match=r"has no setting 'epochs'; its settings: .*max_epochs"):
        make_config(module, size="small", overrides={"epochs": 3})
    assert make_config(module, size="small", overrides={"max_epochs": 3})["max_epochs"] == 3
