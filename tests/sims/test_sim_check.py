"""`markone sim check NAME`: every value of results.json recomputed (issue 46).

Forgery corpora, made from a real `--size small` sweep of each experiment: no edit may
pass (exit 0) or crash the check (exit 3); a forgery is exit 1, a malformed file exit 2.
Each experiment is run once per session and its recomputation made once (the check's
`recompute` is memoised here: a check of the same settings and seed recomputes the
same thing).
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

import sims.check as check
from markone.cli import main
from sims.certified_yield import intervals
from sims.runner import EXPERIMENTS, run_experiment

#: Experiments whose corpora run by default; the others (slower to compile and run)
#: under `slow`. yield, the certificate-backed one, is always among them.
FAST = ("yield", "orthonormal_tight", "xor_cycling", "proof_quantities",
        "averaging_noise", "intercept_cost")
SLOW = tuple(n for n in EXPERIMENTS if n not in FAST)
PREMISES = ("experiment", "config", "seed")


@pytest.fixture(scope="module", autouse=True)
def recompute_once():
    real, memo = check.recompute, {}

    def cached(module, config, seed, *, progress=None):
        key = (module.NAME, json.dumps(config, sort_keys=True), seed)
        if key not in memo:
            memo[key] = real(module, config, seed, progress=progress)
        return copy.deepcopy(memo[key])

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(check, "recompute", cached)
        yield


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory):
    """``sweep(name)``: the folder of a small sweep of ``name`` (run once)."""
    made = {}

    def sweep(name):
        if name not in made:
            out = tmp_path_factory.mktemp(name)
            run_experiment(name, out=out, size="small", plot=False)
            made[name] = out / name
        return made[name]

    return sweep


def _sim_check(folder, text, tmp_path, capsys):
    """Run `markone sim check` on a copy of ``folder`` whose results.json is ``text``
    (a str, bytes or a JSON-ready object); return (status, stdout + stderr)."""
    copied = tmp_path / "copy" / folder.name
    shutil.rmtree(copied.parent, ignore_errors=True)
    shutil.copytree(folder, copied)
    if not isinstance(text, (str, bytes)):
        text = json.dumps(text)
    (copied / "results.json").write_bytes(text.encode() if isinstance(text, str)
                                          else text)
    capsys.readouterr()
    status = main(["sim", "check", folder.name, "--out", str(copied.parent)])
    got = capsys.readouterr()
    return status, got.out + got.err


# -- forgeries, made from the results ------------------------------------------------------

def _leaves(obj, path=()):
    """``(path, value)`` of every leaf of ``obj``, in order."""
    if isinstance(obj, dict):
        return [x for k, v in obj.items() for x in _leaves(v, path + (k,))]
    if isinstance(obj, list):
        return [x for i, v in enumerate(obj) for x in _leaves(v, path + (i,))]
    return [(path, obj)]


def _set(obj, path, value):
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value


def _forged_leaf(value):
    """A plausible other value: a count one more, a rate a little off, a flag
    flipped, a word changed, an absent value made present."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 0.05 if value < 0.95 else value - 0.05
    if isinstance(value, str):
        return value + "X" if value not in ("nan", "inf") else "0.5"
    return 0.5


def leaf_forgeries(results, count):
    """``count`` single-value edits, spread over every kind of value in the file."""
    leaves = [(p, v) for p, v in _leaves(results) if p[0] not in PREMISES]
    step = max(1, len(leaves) // count)
    edits = []
    for path, value in leaves[::step][:count]:
        def edit(r, path=path, value=value):
            _set(r, path, _forged_leaf(value))
        edits.append((f"{'/'.join(map(str, path))} changed", edit))
    return edits


def list_forgeries(results):
    """Records dropped or repeated: a run hidden from every list of its length at
    once (a consistent edit), the last item of the longest list dropped, one
    repeated."""
    lists = [(p, v) for p, v in _walk_lists(results) if p and p[0] not in PREMISES]
    longest_path, longest = max(lists, key=lambda pv: len(pv[1]))
    n = len(longest)
    edits = []

    def hide_a_run(r):
        for path, items in _walk_lists(r):
            if path and path[0] not in PREMISES and len(items) == n:
                del items[n // 2]

    def drop_last(r):
        _get(r, longest_path).pop()

    def repeat_one(r):
        items = _get(r, longest_path)
        items[-1] = copy.deepcopy(items[0])

    edits += [("a run hidden from every list", hide_a_run),
              ("the last item of the longest list dropped", drop_last),
              ("an item repeated in place of the last", repeat_one)]
    return edits


def _walk_lists(obj, path=()):
    if isinstance(obj, list):
        yield path, obj
        for i, v in enumerate(obj):
            yield from _walk_lists(v, path + (i,))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk_lists(v, path + (k,))


def _get(obj, path):
    for key in path:
        obj = obj[key]
    return obj


def premise_forgeries(results):
    """The settings or seed changed (the numbers left as they were)."""
    key = next(k for k, v in results["config"].items()
               if isinstance(v, int) and not isinstance(v, bool))

    def more(r):
        r["config"][key] += 1

    def seed(r):
        r["seed"] += 1

    return [(f"premise: config {key} one more", more), ("premise: another seed", seed)]


def generic_forgeries(results):
    return leaf_forgeries(results, 8) + list_forgeries(results) + \
        premise_forgeries(results)


# -- yield's forgeries: every kind of edit that passed on main -------------------------

def _recount(r, kind, i):
    """Make a point's counts, yield, interval and mean_minimal follow its records, as a
    careful forger would."""
    row, machines = r[kind], r[kind]["machines"][i]
    decided = [m for m in machines if m["learnable"] is not None]
    good = sum(m["learnable"] for m in decided)
    row["learnable"][i], row["decided"][i] = good, len(decided)
    row["yield"][i] = good / len(decided) if decided else None
    (row["low"][i], row["high"][i], row["cp_low"][i],
     row["cp_high"][i]) = intervals(good, len(decided), r["confidence"])
    sizes = [len(m["minimal"]) for m in decided if m["minimal"] is not None]
    row["mean_minimal"][i] = sum(sizes) / len(sizes) if sizes else None


def _failing(results):
    kind = results["kinds"][0]
    return next((kind, i, j) for i, ms in enumerate(results[kind]["machines"])
                for j, m in enumerate(ms) if m["learnable"] is False and
                any(o["learnable"] for o in ms))


def yield_forgeries(results):
    kind = results["kinds"][0]
    edits = []
    for i in range(len(results["rates"])):
        for field in ("yield", "learnable", "decided", "low", "high"):
            value = results[kind][field][i]
            edits.append((f"{field}[{i}]", lambda r, f=field, i=i, v=value:
                          r[kind][f].__setitem__(i, _forged_leaf(v))))
    first = next(i for i, v in enumerate(results[kind]["mean_minimal"]) if v is not None)
    edits.append(("mean_minimal", lambda r: r[kind]["mean_minimal"].__setitem__(
        first, r[kind]["mean_minimal"][first] + 1)))
    edits.append(("mean_minimal where none", lambda r: r[kind]["mean_minimal"].__setitem__(
        0, 1.0)))
    for top in ("rates", "chars", "runs", "confidence", "n_a_units", "kinds"):
        value = results[top]
        forged = [*value[:-1], value[-1] - 0.05] if top == "rates" else \
            ["cut_wires"] if top == "kinds" else _forged_leaf(value)
        edits.append((f"top-level {top}", lambda r, t=top, v=forged: r.__setitem__(t, v)))
    k, i, j = _failing(results)
    good = next(m for m in results[k]["machines"][i] if m["learnable"])

    def machine(field, value):
        return (f"machine {field}", lambda r: r[k]["machines"][i][j].__setitem__(field,
                                                                              value))

    m = results[k]["machines"][i][j]
    edits += [machine("faults", m["faults"] - 1), machine("live_a_units",
                                                          m["live_a_units"] + 2),
              machine("minimal", m["minimal"][:-1] or ["A-unit 0 dead"]),
              machine("minimal", [d.replace("A-unit", "R-unit") for d in m["minimal"]]),
              machine("minimal_faults", [f + 1 for f in m["minimal_faults"]]),
              machine("minimal_complete", not m["minimal_complete"])]

    def dropped(r):
        del r[k]["machines"][i][j]
        _recount(r, k, i)

    def undecided(r):
        r[k]["machines"][i][j].update(learnable=None, minimal=None, minimal_faults=None,
                                      minimal_complete=None, certificates=[])
        _recount(r, k, i)

    def overwritten(r):
        r[k]["machines"][i][j] = {**copy.deepcopy(good), "run": m["run"]}
        _recount(r, k, i)

    def overwritten_whole(r):   # the good machine's record as it is, its run too
        r[k]["machines"][i][j] = copy.deepcopy(good)
        _recount(r, k, i)

    def learnable(r):           # relabelled learnable, its counts made to match
        r[k]["machines"][i][j].update(learnable=True, minimal=None, minimal_faults=None,
                                      minimal_complete=None)
        _recount(r, k, i)

    def confidence(r):          # another confidence everywhere, intervals to match
        r["config"]["confidence"] = r["confidence"] = 0.9
        for p in range(len(r["rates"])):
            _recount(r, kind, p)

    edits += [("failing machine dropped, counts recomputed", dropped),
              ("failing machine relabelled undecided, counts recomputed", undecided),
              ("failing machine overwritten by a learnable one's record", overwritten),
              ("failing machine replaced by a copy of a learnable one", overwritten_whole),
              ("failing machine relabelled learnable, counts recomputed", learnable),
              ("premise: another confidence, every interval recomputed", confidence)]
    return edits


def forgeries(name, results):
    edits = generic_forgeries(results)
    return edits + yield_forgeries(results) if name == "yield" else edits


def _corpus(name, sweeps, tmp_path, capsys, premises=True):
    """Every forgery of ``name`` checked; with ``premises=False`` those that change
    the settings or seed (each costs a recomputation) are left out."""
    folder = sweeps(name)
    results = json.loads((folder / "results.json").read_text())
    status, out = _sim_check(folder, results, tmp_path, capsys)
    assert status == 0 and out.startswith(f"OK: {name}: all "), out
    tally, exits = [], {}
    for label, edit in forgeries(name, results):
        if not premises and label.startswith("premise: "):
            continue
        forged = copy.deepcopy(results)
        edit(forged)
        if forged == results:
            continue
        status, out = _sim_check(folder, forged, tmp_path, capsys)
        exits[status] = exits.get(status, 0) + 1
        tally.append((label, status, out))
    print(f"{name}: {len(tally)} forgeries tried; exits {sorted(exits.items())}")
    return tally


def _assert_refused(name, tally, at_least):
    assert len(tally) >= at_least, f"{name}: only {len(tally)} forgeries"
    passed = [(label, out) for label, status, out in tally if status not in (1, 2)]
    assert not passed, passed
    for label, status, out in tally:
        assert out.count("\n") <= 1 or status == 1, (label, out)   # one line, no trace
        assert "Traceback" not in out and "internal error" not in out, (label, out)


@pytest.mark.parametrize("name", FAST)
def test_no_forgery_passes(name, sweeps, tmp_path, capsys):
    """yield's forgeries of its settings or seed (each a recomputation of the sweep)
    are left to the slow sibling."""
    tally = _corpus(name, sweeps, tmp_path, capsys, premises=name != "yield")
    _assert_refused(name, tally, 30 if name == "yield" else 10)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW + ("yield",))
def test_no_forgery_passes_slow(name, sweeps, tmp_path, capsys):
    tally = _corpus(name, sweeps, tmp_path, capsys)
    _assert_refused(name, tally, 30 if name == "yield" else 10)


def test_yield_forgeries_are_named_by_their_json_path(sweeps, tmp_path, capsys):
    folder = sweeps("yield")
    results = json.loads((folder / "results.json").read_text())
    forged = copy.deepcopy(results)
    forged["dead_a_units"]["yield"][1] = _forged_leaf(results["dead_a_units"]["yield"][1])
    status, out = _sim_check(folder, forged, tmp_path, capsys)
    assert status == 1 and out.startswith("INVALID: ") and \
        "results.dead_a_units.yield[1] is " in out, out
    k, i, j = _failing(results)
    run = results[k]["machines"][i][j]["run"]
    del forged[k]["machines"][i][j]
    status, out = _sim_check(folder, forged, tmp_path, capsys)
    assert status == 1 and f"results.{k}.machines[{i}]: run {run} is missing" in out, out
    forged = copy.deepcopy(results)
    forged[k]["machines"][i].append(copy.deepcopy(forged[k]["machines"][i][0]))
    status, out = _sim_check(folder, forged, tmp_path, capsys)
    assert status == 1 and f"run {forged[k]['machines'][i][0]['run']} appears 2 times" \
        in out, out


def test_a_nan_interval_is_named(sweeps, tmp_path, capsys):
    folder = sweeps("yield")
    text = (folder / "results.json").read_text()
    results = json.loads(text)
    low = results["dead_a_units"]["low"][1]
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if line.strip() == '"low": [')
    assert json.loads(lines[at + 2].strip().rstrip(",")) == low
    lines[at + 2] = lines[at + 2].replace(repr(low), "NaN")
    status, out = _sim_check(folder, "\n".join(lines), tmp_path, capsys)
    assert status == 2 and "results.dead_a_units.low[1] is NaN" in out, out


# -- malformed files ------------------------------------------------------------------------

def malformed(name, results, text):
    """Files that are not the experiment's results, each a (label, text) pair."""
    some = next(k for k in results if k not in PREMISES)
    leaf_path, leaf = next((p, v) for p, v in _leaves(results)
                           if p[0] not in PREMISES and isinstance(v, (int, float))
                           and not isinstance(v, bool))
    cfg_key = next(iter(results["config"]))
    count = next(k for k, v in results["config"].items()
                 if isinstance(v, int) and not isinstance(v, bool))

    def edited(fn):
        r = copy.deepcopy(results)
        fn(r)
        return json.dumps(r)

    out = [("empty", ""), ("truncated", text[: len(text) // 2]), ("a list", "[1, 2]"),
           ("not text", b"\xff\xfe" + text.encode()[:40]),
           ("nested 1000 deep", "[" * 1000 + "]" * 1000),
           ("an integer of 5000 digits", "{\"seed\": " + "9" * 5000 + "}"),
           ("a key twice", text.replace("{", "{\"seed\": 1, ", 1)),
           ("NaN", edited(lambda r: _set(r, leaf_path, "@NAN@")).replace('"@NAN@"',
                                                                         "NaN")),
           ("Infinity", edited(lambda r: _set(r, leaf_path, "@I@")).replace('"@I@"',
                                                                            "Infinity"))]
    for key in PREMISES:
        out.append((f"no {key}", edited(lambda r, key=key: r.pop(key))))
    out += [("another experiment", edited(lambda r: r.__setitem__(
        "experiment", "iris" if name != "iris" else "yield"))),
        ("seed -1", edited(lambda r: r.__setitem__("seed", -1))),
        ("seed as text", edited(lambda r: r.__setitem__("seed", "0"))),
        ("seed true", edited(lambda r: r.__setitem__("seed", True))),
        ("config a list", edited(lambda r: r.__setitem__("config", []))),
        ("config lacks a setting", edited(lambda r: r["config"].pop(cfg_key))),
        ("config has an unknown setting", edited(lambda r: r["config"].__setitem__(
            "colour", 1))),
        ("config count 0", edited(lambda r: r["config"].__setitem__(count, 0))),
        ("config count as text", edited(lambda r: r["config"].__setitem__(count, "3"))),
        (f"no {some}", edited(lambda r: r.pop(some))),
        ("an unknown key", edited(lambda r: r.__setitem__("bonus", 1))),
        ("a number as text", edited(lambda r: _set(r, leaf_path, str(leaf)))),
        ("a number as a list", edited(lambda r: _set(r, leaf_path, [leaf]))),
        ("a number as true", edited(lambda r: _set(r, leaf_path, True)))]
    if name == "yield":
        k, i, j = _failing(results)
        out += [("max_tests 0", edited(lambda r: r["config"].__setitem__("max_tests", 0))),
                ("a machine record lacks its verdict", edited(
                    lambda r: r[k]["machines"][i][j].pop("learnable"))),
                ("a verdict as text", edited(
                    lambda r: r[k]["machines"][i][j].__setitem__("learnable", "no"))),
                ("a point's machines an object", edited(
                    lambda r: r[k]["machines"].__setitem__(i, {"0": 1}))),
                ("a kind's row a list", edited(lambda r: r.__setitem__(k, [])))]
    return out


def _malformed_corpus(name, sweeps, tmp_path, capsys):
    folder = sweeps(name)
    text = (folder / "results.json").read_text()
    tally = []
    for label, bad in malformed(name, json.loads(text), text):
        status, out = _sim_check(folder, bad, tmp_path, capsys)
        tally.append((label, status, out))
    print(f"{name}: {len(tally)} malformed files; exits "
          f"{sorted({s: sum(t[1] == s for t in tally) for _, s, _ in tally}.items())}")
    return tally


def _assert_malformed(tally):
    wrong = [(label, status, out) for label, status, out in tally
             if status != 2 or out.count("\n") != 1 or "Traceback" in out]
    assert not wrong, wrong


@pytest.mark.parametrize("name", FAST)
def test_a_malformed_file_is_exit_2(name, sweeps, tmp_path, capsys):
    tally = _malformed_corpus(name, sweeps, tmp_path, capsys)
    assert len(tally) >= 24
    _assert_malformed(tally)


@pytest.mark.parametrize("content, said", [
    (b"", "results.json is empty, so not JSON; run the sweep again."),
    (b"\xff\xfe", "results.json is not a text file (byte 0 is not UTF-8), so not JSON"),
    (b'{"a" 1}', "results.json is not valid JSON: Expecting ':' delimiter at line 1, "
                 "column 6; run")])
def test_a_results_file_that_is_no_json_is_said_as_a_person_counts(content, said,
                                                                  tmp_path, capsys):
    """The walk of issue 37: an empty results.json was "not valid JSON (Expecting
    value: line 1 column 1 (char 0))", counting from 1 and from 0 in one breath."""
    (tmp_path / "novikoff").mkdir()
    (tmp_path / "novikoff" / "results.json").write_bytes(content)
    assert main(["sim", "check", "novikoff", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert said in err and "char" not in err


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_a_malformed_file_is_exit_2_slow(name, sweeps, tmp_path, capsys):
    _assert_malformed(_malformed_corpus(name, sweeps, tmp_path, capsys))


# -- the rest of the sweep folder -------------------------------------------------------------

def test_a_forged_task_log_line_is_refused(sweeps, tmp_path, capsys):
    """A log line rewritten with a valid checksum: a resumed sweep would reuse it."""
    from sims.runner import _record

    folder = sweeps("xor_cycling")
    copied = Path(shutil.copytree(folder, tmp_path / "xor_cycling"))
    lines = (copied / "tasks.jsonl").read_text().splitlines()
    rec = json.loads(lines[0])
    rec["result"]["periodic"] = not rec["result"].get("periodic", False)
    lines[0] = json.dumps(_record(rec["id"], rec["key"], rec["result"]), sort_keys=True)
    (copied / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["sim", "check", "xor_cycling", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("INVALID: ") and "tasks.jsonl" in out and "periodic" in out


@pytest.mark.parametrize("edit, reason", [
    (lambda line: line[:-1] + "x", "it is not JSON"),
    (lambda line: line.replace('"id"', '"id_"', 1), "it lacks the id, key, result"),
    (lambda line: line.replace('"check": "', '"check": "0', 1),
     "its checksum does not match its content")])
def test_a_log_line_that_does_not_verify_is_refused(edit, reason, sweeps, tmp_path,
                                                    capsys):
    """The walk of issue 37: a line edited without its checksum passed as "OK ... 2
    task-log lines equal" (of 3), exit 0; a finished sweep leaves no such line."""
    folder = sweeps("xor_cycling")
    copied = Path(shutil.copytree(folder, tmp_path / "xor_cycling"))
    lines = (copied / "tasks.jsonl").read_text().splitlines()
    lines[0] = edit(lines[0])
    (copied / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["sim", "check", "xor_cycling", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("INVALID: ") and "tasks.jsonl, line 1 does not verify (" \
        f"{reason}" in out


def test_a_stray_certificate_file_is_refused(sweeps, tmp_path, capsys):
    folder = Path(shutil.copytree(sweeps("yield"), tmp_path / "yield"))
    certs = folder / "certificates"
    some = sorted(certs.iterdir())[0]
    shutil.copy(some, certs / "dead_a_units-r0-m999-machine.json")
    assert main(["sim", "check", "yield", "--out", str(tmp_path)]) == 1
    assert "m999-machine.json is not a file of this sweep" in capsys.readouterr().out


def test_ok_lists_what_is_unchecked(sweeps, capsys):
    for name, proved in (("yield", True), ("xor_cycling", False)):
        folder = sweeps(name)
        assert main(["sim", "check", name, "--out", str(folder.parent)]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0].startswith(f"OK: {name}: all ")
        unchecked = [line for line in out if line.startswith("unchecked: ")]
        assert any("figures" in line for line in unchecked)
        assert any("settings and the seed" in line for line in unchecked)
        assert any("independent proof" in line for line in unchecked) is not proved


# -- --set values and large settings -------------------------------------------------------

@pytest.mark.parametrize("value, match", [
    ("[" * 1000 + "]" * 1000, "nests lists or objects more than 4 levels deep"),
    ("9" * 5000, "a number of 5,000 digits, over the 30"),
    ("1" * 10_001, "over the 10,000 a setting may have"),
    ("1e999", "numbers must be finite"),
    ("NaN", "numbers must be finite"),
    ("[0.5, Infinity]", "numbers must be finite"),
])
def test_a_set_value_over_its_bounds_is_exit_2(value, match, tmp_path, capsys):
    assert main(["sim", "run", "yield", "--set", f"runs={value}",
                 "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1 and len(err) < 300, err
    assert not (tmp_path / "yield").exists()


@pytest.mark.parametrize("value, match", [
    ("''", "the VALUE '' is in single quotes, which are not JSON"),
    ("'AB'", "the VALUE 'AB' is in single quotes"),
    ("", "'chars' of experiment 'yield' must not be empty"),   # the empty string
    ('""', "'chars' of experiment 'yield' must not be empty"),
    ("A", "--set chars=A: it must be at least two capital letters A-Z"),
])
def test_chars_in_quotes_or_empty_is_refused(value, match, tmp_path, capsys):
    assert main(["sim", "run", "yield", "--set", f"chars={value}",
                 "--out", str(tmp_path)]) == 2
    assert match in capsys.readouterr().err


def test_a_count_below_one_is_refused(tmp_path, capsys):
    assert main(["sim", "run", "yield", "--set", "max_tests=0", "--out",
                 str(tmp_path)]) == 2
    assert "'max_tests' of experiment 'yield' is a count" in capsys.readouterr().err


@pytest.mark.parametrize("name, overrides, match", [
    ("novikoff", {"gamma": 0.0}, r"gamma\(=0.0\) must be a number in \(0, 1\)"),
    ("novikoff", {"dims": []}, "'dims' of experiment 'novikoff' must not be empty"),
    ("proof_quantities", {"gamma": 0.0}, "a margin of 0 bounds nothing"),
    ("online_to_batch", {"gamma": 0.0}, "a margin of 0 bounds nothing"),
    ("online_to_batch", {"gamma": 1.5}, "the points lie in the unit ball"),
    ("averaging_noise", {"flip": 0.5}, "nothing to learn"),
    ("averaging_noise", {"flip": -0.1}, r"flip\(=-0.1\)"),
    ("intercept_cost", {"gamma": 0.0}, "a margin of 0 bounds nothing"),
    ("intercept_cost", {"c_min": 5.0, "c_max": 1.0}, "from c_min up to c_max"),
    ("intercept_cost", {"offset": float("nan")}, "'offset' of experiment "
     "'intercept_cost' must be finite"),
    ("xor_cycling", {"encodings": []}, "must not be empty"),
    ("mark1_letters", {"motor_step_s": []}, "must not be empty"),
    ("mark1_letters", {"chars": "A"}, "one letter is no task to learn"),
    ("damage", {"kinds": []}, "must not be empty"),
    ("damage", {"fractions": []}, "must not be empty"),
    ("yield", {"chars": "ABA"}, "'A' twice"),
])
def test_a_vacuous_setting_is_refused_before_any_task(name, overrides, match, tmp_path):
    with pytest.raises(ValueError, match=match):
        run_experiment(name, out=tmp_path, size="small", overrides=overrides)
    assert not (tmp_path / name).exists()


def test_large_settings_show_progress_off_a_terminal(tmp_path, capsys):
    """Ten times a default: the sweep's progress goes to stderr, even into a pipe."""
    assert main(["sim", "run", "xor_cycling", "--size", "small", "--set",
                 "max_epochs=60", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "xor_cycling (max_epochs=60 (10x its default))" in err and "2/2" in err, err
    assert main(["sim", "run", "xor_cycling", "--size", "small", "--set",
                 "max_epochs=59", "--out", str(tmp_path / "b")]) == 0
    assert capsys.readouterr().err == ""


def test_check_all_checks_every_sweep_that_run_all_wrote(sweeps, tmp_path, capsys):
    """The walk of issue 37: `sim run all --out quick` has no `sim check all --out
    quick` to follow it ("no experiment named 'all'"); it checks each sweep the folder
    holds, and ends with the worst status."""
    for name in ("xor_cycling", "orthonormal_tight"):
        shutil.copytree(sweeps(name), tmp_path / name)
    assert main(["sim", "check", "all", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert [line.split(":")[1].strip() for line in out.splitlines()
            if line.startswith("OK: ")] == ["orthonormal_tight", "xor_cycling"]
    results = tmp_path / "xor_cycling" / "results.json"
    forged = json.loads(results.read_text())
    forged["seed"] += 1
    results.write_text(json.dumps(forged))
    assert main(["sim", "check", "all", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "OK: orthonormal_tight" in out and "INVALID: " in out
    results.write_text("")
    assert main(["sim", "check", "all", "--out", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "OK: orthonormal_tight" in captured.out and "is empty" in captured.err
    assert main(["sim", "check", "all", "--out", str(tmp_path / "none")]) == 2
    assert "holds no finished sweep; run `markone sim run all" in capsys.readouterr().err
