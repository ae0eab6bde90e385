"""sims.certified_yield: damaged machines decided exactly, every verdict a certificate file that
`markone verify check` re-checks; Wilson intervals; resumable; on Dask."""

import json
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

import sims._certified as certified
from markone.cli import main
from sims._stats import clopper_pearson_interval, normal_quantile, wilson_interval
from sims.runner import load_experiment, make_config, run_experiment
from verify.certificate import data_sha256
from verify.errors import CertificateError, CertificateUnreadable

Y = load_experiment("yield")
SMALL = dict(size="small", plot=False, seed=0)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    return run_experiment("yield", out=tmp_path_factory.mktemp("yield"), **SMALL)


def _machines(results):
    return [(kind, i, m) for kind in results["kinds"]
            for i, row in enumerate(results[kind]["machines"]) for m in row]


def _files(res):
    folder = res.results_path.parent / Y.FILES
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# -- the Wilson interval ---------------------------------------------------------------

@pytest.mark.parametrize("k, n, low, high", [
    # Newcombe (1998), Statistics in Medicine 17, 857-872, Table II, method 3 (score)
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (5, 10, 0.2366, 0.7634),
])
def test_wilson_interval_known_values(k, n, low, high):
    got = wilson_interval(k, n, 0.95)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_at_no_success_and_every_success():
    z2 = normal_quantile(0.95) ** 2
    assert wilson_interval(0, 10) == (0.0, pytest.approx(z2 / (10 + z2), rel=1e-12))
    low, high = wilson_interval(10, 10)
    assert high == 1.0 and low == pytest.approx(10 / (10 + z2), rel=1e-12)


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.sampled_from([0.5, 0.9, 0.95, 0.99]))
def test_wilson_end_points_are_the_score_test_roots_hypo(kn, confidence):
    """Each end point inside (0, 1) solves (phat - p)^2 = z^2 p (1 - p) / n."""
    k, n = kn
    z, phat = normal_quantile(confidence), k / n
    low, high = wilson_interval(k, n, confidence)
    assert 0 <= low <= phat <= high <= 1
    for p in (low, high):
        if 0 < p < 1:
            assert (phat - p) ** 2 == pytest.approx(z * z * p * (1 - p) / n,
                                                    rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("args, match", [
    ((1, 0), "trials"), ((3, 2), "successes <= trials"), ((-1, 2), "successes"),
    ((1.0, 2), "integer"), ((True, 2), "integer"), ((1, 2, 1.0), "confidence"),
    ((1, 2, 0), "confidence"),
])
def test_wilson_interval_refuses_bad_counts(args, match):
    with pytest.raises(ValueError, match=match):
        wilson_interval(*args)


# -- the sweep -------------------------------------------------------------------------

def test_yield_goes_from_one_to_zero_with_its_intervals(sweep):
    r = sweep.results
    cfg = make_config(Y, size="small")
    assert r["rates"] == cfg["rates"] == [0.0, 0.7, 0.95]
    row = r["dead_a_units"]
    assert row["decided"] == [cfg["runs"]] * 3
    assert row["yield"][0] == 1.0 and row["yield"][-1] == 0.0   # healthy, and wrecked
    for k, n, lo, hi, y in zip(row["learnable"], row["decided"], row["low"],
                               row["high"], row["yield"]):
        assert (lo, hi) == wilson_interval(k, n, cfg["confidence"])
        assert lo <= y == k / n <= hi
    for k, n, lo, hi in zip(row["learnable"], row["decided"], row["cp_low"],
                            row["cp_high"]):
        assert (lo, hi) == clopper_pearson_interval(k, n, cfg["confidence"])
        assert lo <= k / n <= hi
    machines = row["machines"]
    assert [[m["run"] for m in rate] for rate in machines] == [list(range(4))] * 3
    # the same machines at every rate: the healthy one has no fault at all
    assert all(m["faults"] == 0 and m["minimal"] is None for m in machines[0])


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (10, 10), (29, 30), (1, 1)])
def test_clopper_pearson_is_the_exact_binomial_tail_inversion(k, n):
    """Its ends are where a binomial tail equals (1 - confidence) / 2, exactly as
    Clopper and Pearson defined them (checked by a sum, not scipy); it contains
    Wilson's interval's ends at 0 and n successes, being wider."""
    from math import comb

    low, high = clopper_pearson_interval(k, n, 0.95)

    def tail_up(p):       # P(X >= k)
        return sum(comb(n, j) * p**j * (1 - p)**(n - j) for j in range(k, n + 1))

    def tail_down(p):     # P(X <= k)
        return sum(comb(n, j) * p**j * (1 - p)**(n - j) for j in range(0, k + 1))

    assert low == 0.0 if k == 0 else tail_up(low) == pytest.approx(0.025, rel=1e-6)
    assert high == 1.0 if k == n else tail_down(high) == pytest.approx(0.025, rel=1e-6)
    w_low, w_high = wilson_interval(k, n, 0.95)
    assert low <= w_low + 1e-12 and high >= w_high - 1e-12 or 0 < k < n
    with pytest.raises(ValueError, match="successes <= trials"):
        clopper_pearson_interval(n + 1, n)


def test_recheck_refuses_a_clopper_pearson_interval_that_does_not_follow(sweep,
                                                                          tmp_path):
    folder = _copy(sweep, tmp_path)
    results = json.loads((folder / "results.json").read_text())
    results["dead_a_units"]["cp_low"][1] = 0.0
    (folder / "results.json").write_text(json.dumps(results))
    with pytest.raises(CertificateError, match="rate 0.7: results.json says"):
        Y.recheck(folder)
    del results["dead_a_units"]["cp_low"]
    (folder / "results.json").write_text(json.dumps(results))
    with pytest.raises(CertificateError, match="no Clopper-Pearson interval"):
        Y.recheck(folder)


def test_every_verdict_has_its_certificate_files(sweep):
    names = set(_files(sweep))
    listed = set()
    for kind, i, m in _machines(sweep.results):
        stem = f"{kind}-r{i}-m{m['run']:03d}"
        want = {f"{stem}-machine.json"}
        if m["learnable"] is False:
            assert m["minimal"] and all(" dead" in f for f in m["minimal"])
            want |= {f"{stem}-minimal.json"} | ({f"{stem}-minimality.json"}
                                               if m["minimal_complete"] else set())
        assert set(m["certificates"]) == want
        listed |= want
    assert listed == names


def _check(path, capsys):
    status = main(["verify", "check", str(path)])
    return status, capsys.readouterr().out


def test_verify_check_rechecks_a_sample(sweep, capsys):
    folder = sweep.results_path.parent / Y.FILES
    for kind, i, m in _machines(sweep.results)[::3]:
        for name in m["certificates"]:
            status, out = _check(folder / name, capsys)
            assert status == 0, out
            proves_separable = {"machine": m["learnable"], "minimal": False,
                                "minimality": True}[name[:-5].rsplit("-", 1)[1]]
            assert out.startswith("OK: the witness" if proves_separable
                                  else "OK: the certificate"), (name, out)


@pytest.mark.parametrize("which", ["witness", "certificate", "label"])
def test_a_tampered_certificate_is_refused(sweep, tmp_path, capsys, which):
    folder = sweep.results_path.parent / Y.FILES
    name = next(n for n in sorted(_files(sweep))
                if n.endswith("-machine.json" if which != "certificate"
                              else "-minimal.json"))
    doc = json.loads((folder / name).read_text())
    if which == "witness":        # the separating vector made 0
        doc["witness"] = ["0"] * len(doc["witness"])
    elif which == "certificate":  # forged: all the weight on one figure that is seen
        ptr = doc["data"]["indptr"]
        seen = next(i for i in range(len(ptr) - 1) if ptr[i + 1] > ptr[i])
        doc["certificate"] = {str(seen): "1"}
    else:                         # one figure's answer flipped, hash left as it was
        doc["data"]["y"][0] = -doc["data"]["y"][0]
    bad = tmp_path / name
    bad.write_text(json.dumps(doc))
    status, out = _check(bad, capsys)
    assert status == 1 and out.startswith("INVALID"), out


def test_certificates_are_about_the_damaged_machine(sweep):
    """The data in a file are the machine's own damaged patterns: rebuilt from the
    task's seeds, they hash to the file's data_sha256."""
    from verify.machine import machine_task

    folder = sweep.results_path.parent / Y.FILES
    cfg = make_config(Y, size="small")
    specs = {(s["kind"], s["rate_index"], r): (s, seed)
             for s in Y.tasks(cfg, SMALL["seed"]) for r, seed in s["machines"]}
    checked = 0
    for kind, i, m in _machines(sweep.results)[1::2]:
        spec, seed = specs[kind, i, m["run"]]
        machine, plan, images, labels = Y.machine_and_task(spec, seed)
        assert len(plan) == m["faults"]
        X, y = certified.stack(certified.machine_parts(machine_task(machine, images,
                                                                    labels)))
        doc = json.loads((folder / f"{kind}-r{i}-m{m['run']:03d}-machine.json").read_text())
        assert doc["data_sha256"] == data_sha256(X, y)
        assert doc["source"]["machine_seed"] == seed and doc["separable"] == m["learnable"]
        checked += 1
    assert checked >= 4


def _copy(res, tmp_path):
    import shutil

    return Path(shutil.copytree(res.results_path.parent, tmp_path / "yield"))


def test_recheck_ties_every_file_to_its_machine_and_point(sweep):
    r = sweep.results
    got = Y.recheck(sweep.results_path.parent)
    assert got == Y.YieldRecheck(len(_files(sweep)), len(_machines(r)), 3)


def test_recheck_refuses_a_valid_certificate_of_another_machine(sweep, tmp_path):
    """Two machines' files swapped: each still passes `verify check`, but is not
    about the machine it stands for."""
    folder = _copy(sweep, tmp_path) / Y.FILES
    a, b = "dead_a_units-r2-m000-machine.json", "dead_a_units-r2-m001-machine.json"
    (folder / a).write_bytes(_files(sweep)[b])
    (folder / b).write_bytes(_files(sweep)[a])
    with pytest.raises(CertificateError, match="r2-m00[01]-machine.json: its data are "
                       "not the patterns of the machine it names"):
        Y.recheck(folder.parent)


def test_recheck_refuses_a_missing_file_and_a_count_that_does_not_follow(sweep, tmp_path):
    folder = _copy(sweep, tmp_path)
    saved = (folder / "results.json").read_text()
    results = json.loads(saved)
    results["dead_a_units"]["learnable"][1] += 1
    (folder / "results.json").write_text(json.dumps(results))
    with pytest.raises(CertificateError, match="rate 0.7: results.json says"):
        Y.recheck(folder)
    (folder / "results.json").write_text(saved)
    name = "dead_a_units-r2-m003-minimal.json"
    (folder / Y.FILES / name).unlink()
    with pytest.raises(CertificateUnreadable, match=f"{name} cannot be opened"):
        Y.recheck(folder)
    results = json.loads(saved)     # and no longer listed either
    results["dead_a_units"]["machines"][2][3]["certificates"].remove(name)
    (folder / "results.json").write_text(json.dumps(results))
    with pytest.raises(CertificateError, match="machine 3 of dead_a_units-r2-b1: no "
                       "minimal certificate"):
        Y.recheck(folder)


def test_a_sweep_resumed_on_a_dask_cluster_writes_the_same_files(sweep, tmp_path,
                                                                 monkeypatch):
    """A sweep cut after two tasks, resumed on a Dask cluster: the two are reused, the
    rest run on Dask, and the files are the uninterrupted local sweep's (one
    interrupted sweep for the resume and for Dask, which ran the sweep again each)."""
    distributed = pytest.importorskip("dask.distributed")
    real, calls = Y.run_task, []

    def crashing(spec):
        if len(calls) == 2:
            raise RuntimeError("power cut")
        calls.append(spec["id"])
        return real(spec)

    monkeypatch.setattr(Y, "run_task", crashing)
    with pytest.raises(RuntimeError, match="power cut"):
        run_experiment("yield", out=tmp_path, **SMALL)
    assert not (tmp_path / "yield" / Y.FILES).exists()
    monkeypatch.setattr(Y, "run_task", real)
    with distributed.LocalCluster(n_workers=1, processes=False,
                                  dashboard_address=None) as cluster:
        again = run_experiment("yield", out=tmp_path, dask=cluster.scheduler_address,
                               **SMALL)
    assert (again.n_reused, again.n_run) == (2, sweep.n_tasks - 2)
    assert again.results_path.read_bytes() == sweep.results_path.read_bytes()
    assert _files(again) == _files(sweep)


def test_another_sweep_leaves_no_stale_certificate(sweep, tmp_path):
    _copy(sweep, tmp_path)          # a finished sweep of every rate in the folder
    fewer = run_experiment("yield", out=tmp_path, overrides={"rates": [0.0]},
                           overwrite=True, **SMALL)
    assert set(_files(fewer)) == {f"dead_a_units-r0-m{r:03d}-machine.json"
                                  for r in range(4)}


def test_verdicts_ignore_the_clock(monkeypatch):
    """The same batch decided under a clock 1,000 times faster: the same result."""
    spec = next(s for s in Y.tasks(make_config(Y, size="small"), 0)
                if s["rate"] == 0.7)
    before = Y.run_task(spec)
    for name in ("perf_counter", "monotonic", "time"):
        real = getattr(time, name)
        monkeypatch.setattr(time, name, lambda real=real: real() * 1000.0)
    assert Y.run_task(spec) == before


def test_an_r_unit_without_inputs_is_certified_unlearnable(tmp_path, capsys):
    """Every motor of R-unit 1 stopped: its block has no column, and its figures (all
    zero) are the certificate."""
    parts = [(np.array([[1, 0], [0, 1]]), np.array([1, -1])),
             (np.zeros((2, 0), np.int64), np.array([1, -1]))]
    verdict = certified.decide(parts)
    assert (verdict.separable, verdict.part, verdict.certificate) == (False, 1, {2: 1})
    doc = certified.certificate(parts, verdict, {"experiment": "test"})
    path = tmp_path / "c.json"
    from verify.certificate import certificate_json
    path.write_text(certificate_json(doc))
    status, out = _check(path, capsys)
    assert status == 0 and "not linearly separable" in out


@pytest.mark.parametrize("overrides, match", [
    ({"max_tests": 0}, "max_tests"),     # every "1-minimal" set would be all faults
    ({"confidence": float("nan")}, "confidence"),
    ({"confidence": 1.0}, "confidence"),
    ({"chars": ""}, "chars"),
    ({"chars": "''"}, "chars"),
    ({"chars": "ABA"}, "'A' twice"),
    ({"per_class": 0}, "per_class"),
    ({"kinds": ["melted_wires"]}, "kind.*melted_wires.*dead_a_units"),
    ({"kinds": []}, "kinds.*must not be empty"),
    ({"kinds": ["cut_wires", "cut_wires"]}, "twice"),
    ({"rates": [0.5, 1.5]}, r"rates.*fractions in \[0, 1\]"),
    ({"rates": [0.5, 0.5]}, "distinct"),
    ({"rates": "0.5"}, "list"),
    ({"batch": 0}, "batch"),
    ({"n_a_units": 0}, "n_a_units"),
])
def test_a_bad_grid_is_named_before_any_task(overrides, match, tmp_path):
    with pytest.raises(ValueError, match=match):
        run_experiment("yield", out=tmp_path, overrides=overrides, **SMALL)
    assert not (tmp_path / "yield").exists()


def test_write_files_refuses_a_path(tmp_path):
    from sims.runner import write_files

    with pytest.raises(ValueError, match="plain name"):
        write_files(tmp_path / "f", {"../escape.json": "{}"})
    assert not (tmp_path / "f").exists()


def test_from_the_command_line(sweep, tmp_path, capsys):
    """`markone sim run yield` writes the same files; `verify check` takes any one."""
    assert main(["sim", "run", "yield", "--size", "small", "--out", str(tmp_path)]) == 0
    assert "yield: 6 tasks run, 0 reused" in capsys.readouterr().out
    folder = tmp_path / "yield" / Y.FILES
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == _files(sweep)
    assert (tmp_path / "yield" / "yield.png").exists()
    status, out = _check(folder / "dead_a_units-r2-m000-minimal.json", capsys)
    assert status == 0 and "not linearly separable" in out


def test_sim_check_rechecks_a_sweep_and_names_what_fails(sweep, tmp_path, capsys):
    out = str(sweep.results_path.parent.parent)
    assert main(["sim", "check", "yield", "--out", out]) == 0
    assert "; 24 certificate files re-checked, each tied to the machine it names" in \
        capsys.readouterr().out.splitlines()[0]
    folder = _copy(sweep, tmp_path) / Y.FILES
    a, b = "dead_a_units-r0-m000-machine.json", "dead_a_units-r0-m001-machine.json"
    (folder / a).write_bytes(_files(sweep)[b])
    assert main(["sim", "check", "yield", "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().out.startswith(f"INVALID: {a}: its data are not")
    (folder / a).unlink()           # a point no longer backed: it does not hold
    assert main(["sim", "check", "yield", "--out", str(tmp_path)]) == 1
    assert f"{a} cannot be opened" in capsys.readouterr().out


@pytest.mark.parametrize("argv, match", [
    (["melted"], "no experiment named 'melted'"),
    (["sim-out/yield"], "no experiment named 'sim-out/yield'; for the sweep in that "
     "folder run `markone sim check yield --out sim-out`; choose one of novikoff,"),
    (["out/damage/results.json"], "run `markone sim check damage --out out`; choose"),
    (["yield", "--out", "nowhere"], "no finished sweep"),
    (["damage", "--out", "nowhere"], "no finished sweep"),
])
def test_sim_check_refuses_what_it_cannot_check(argv, match, capsys):
    assert main(["sim", "check", *argv]) == 2
    assert match in capsys.readouterr().err


def test_a_machine_that_cannot_learn_even_unbroken_gets_no_minimality_file(tmp_path):
    """Found by the slow docs run (r15): `markone sim run yield --set rates=[0.5,0.9]
    --set runs=100` (docs/sims.md, `sim run --help`) ended "parts is empty: there is
    no task to stack". Machine 37 (cut wires, rate 0.5) cannot learn with none of its
    faults: its 1-minimal set is empty, and "each fault repaired in turn" claims
    nothing, so there is no minimality file to write, nor to ask for on re-check."""
    from markone._internal.io import write_json
    from sims.certified_yield import DEFAULTS, tasks
    from sims._yield_machine import decide_machine, recheck_machine

    config = dict(DEFAULTS, kinds=["cut_wires"], rates=[0.5], runs=100)
    spec = next(s for s in tasks(config, 0) if any(r == 37 for r, _ in s["machines"]))
    seed = dict(spec["machines"])[37]
    record = decide_machine(spec, 37, seed)
    assert record["learnable"] is False and record["minimal_faults"] == []
    assert record["minimal_complete"] and sorted(record["certificates"]) == [
        "cut_wires-r0-m037-machine.json", "cut_wires-r0-m037-minimal.json"]
    for name, doc in record["certificates"].items():
        write_json(tmp_path / name, doc)
    record = dict(record, certificates=sorted(record["certificates"]))
    assert recheck_machine(tmp_path, record, spec, seed) == 2
