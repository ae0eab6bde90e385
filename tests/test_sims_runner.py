"""sims.runner: resumable, loss-free, independent of workers and of Dask."""

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import sims.novikoff
from markone.cli import main
from sims.runner import (EXPERIMENTS, config_hash, load_experiment, make_config,
                         read_task_log, run_experiment)

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


def test_other_config_or_seed_reuses_nothing(reference, tmp_path):
    run_experiment("novikoff", out=tmp_path, **SMALL)
    other = run_experiment("novikoff", out=tmp_path, **{**SMALL, "seed": 4})
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
    (dict(name="novikoff", overrides={"bogus": 1}), "unknown setting"),
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


def test_kill_9_then_restart_equals_uninterrupted(tmp_path):
    """A real SIGKILL in the middle of a sweep, then the same command again."""
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
    assert f"{n}/{n}" in err and "novikoff" in err
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
    import sys

    monkeypatch.setitem(sys.modules, "dask.distributed", None)   # import fails
    with pytest.raises(ImportError, match=r'pip install "markone\[dask\]"'):
        run_experiment("novikoff", out=tmp_path, dask="local", **SMALL)
    assert main(["sim", "run", "novikoff", "--size", "small", "--dask", "local",
                 "--out", str(tmp_path)]) == 2
    assert 'pip install "markone[dask]"' in capsys.readouterr().err
