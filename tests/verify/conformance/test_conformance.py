"""The conformance suite: its cases against two independent implementations, every
adapter against a correct and three deliberately wrong perceptrons (strict rule, zero
score counted as correct, learning rate 0.5), diagnoses, reports and bad input."""

import json
import re
import shutil
import sys
import textwrap
import warnings
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

import jsonschema
import numpy as np
import pytest

import markone
from markone.cli import main
from verify import conformance as C
from verify.errors import NotApplicable

from _paths import TESTS  # noqa: E402

HERE = TESTS
sys.path.insert(0, str(HERE))
import conformance_impls as impls  # noqa: E402

NODE = shutil.which("node")
#: Python for the programs under test, without site (they use the standard library
#: only): half its start, 25 ms less a run, hundreds of runs (issue 37)
PYTHON = f"{sys.executable} -S"
NODE_EXAMPLE = HERE.parent / "examples" / "perceptron.js"


@pytest.fixture(scope="module")
def cases():
    return C.build_cases()


def by_id(cases, cid):
    return next(c for c in cases if c["id"] == cid)


# ---- markone's own answer, independently --------------------------------------------

def markone_impl(problem):
    """f(problem) through markone's public API (train, MulticlassPerceptron,
    KernelPerceptron), in exact mode where it exists."""
    X = problem.get("X_exact") or problem["X"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if problem["task"] == "kernel":
            G = np.array(problem["gram"], dtype=float)
            idx = np.arange(len(G), dtype=float)[:, None]
            clf = markone.KernelPerceptron(
                kernel=lambda A, B: G[np.ix_(A[:, 0].astype(int), B[:, 0].astype(int))],
                intercept=False, order=problem["order"], max_epochs=1).fit(
                    idx, problem["y"])
            return {"alpha": clf.alpha_.tolist(), "mistakes": clf.n_mistakes_}
        if problem["task"] == "multiclass":
            # one pass in the case's order, every class known (a class may be absent)
            clf = markone.MulticlassPerceptron(intercept=problem["intercept"],
                                               order=problem["order"], exact=True)
            clf.partial_fit(X, problem["y"], classes=range(problem["n_classes"]))
            W = np.hstack([clf.coef_, clf.intercept_[:, None]]) if problem["intercept"] \
                else clf.coef_
            return {"W": [[str(v) for v in row] for row in W], "mistakes": clf.n_mistakes_,
                    "predictions": clf.predict(problem["queries"]).tolist()}
        r = markone.train(X, problem["y"], intercept=problem["intercept"],
                          order=problem["order"], max_epochs=1,
                          variant=problem["variant"], exact=True)
        if problem["variant"] == "voted":
            return {"predictions": r.predict(problem["queries"]).tolist(),
                    "mistakes": r.mistakes}
        return {"w": [str(v) for v in r.w], "mistakes": r.mistakes}


@pytest.mark.parametrize("impl", [markone_impl, impls.correct],
                         ids=["markone", "fraction-loop"])
def test_every_case_passes_against_two_implementations(cases, impl):
    """markone (in exact mode: train and MulticlassPerceptron with exact=True) and the
    Fraction loop each pass every case, exact-multiclass-scores included."""
    results = C.run_suite(cases, C.adapter_for(impl))
    assert [r.id for r in results if not r.passed] == []
    assert C.exit_status(results) == 0


def test_suite_covers_the_contract(cases):
    props = {c["property"] for c in cases}
    assert {"zero-score-is-a-mistake", "adversarial-worst-order", "intercept-convention",
            "exact-arithmetic", "float64-rounding", "extreme-magnitudes", "cycle-states",
            "variant-averaged", "variant-voted", "variant-pocket",
            "multiclass-tie-breaking", "kernel-dual-counts"} <= props
    assert {c["variant"] for c in cases} == {"last", "averaged", "voted", "pocket"}
    # exact values that theory gives
    assert by_id(cases, "zero-score-orthonormal")["expected"]["mistakes"] == 8
    assert by_id(cases, "xor-cycle")["expected"]["w"] == ["0", "0", "0"]
    states = [cp["w"] for cp in by_id(cases, "xor-cycle")["expected"]["checkpoints"]]
    assert len({tuple(s) for s in states}) == 4 and states[3] == ["0", "0", "0"]
    assert by_id(cases, "exact-rational-tie")["expected"]["mistakes"] == 2
    big = by_id(cases, "extreme-large")["problem"]["X"]
    assert 1e150 < max(abs(v) for r in big for v in r) < 1e152
    small = by_id(cases, "extreme-small")["problem"]["X"]
    assert 1e-152 < min(abs(v) for r in small for v in r if v) < 1e-150


def test_suite_files_validate_against_their_schema(suite, cases):
    schema = json.loads((suite / "schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    # one validator of the checked schema (jsonschema.validate checks it again each time)
    validator = jsonschema.Draft202012Validator(schema)
    manifest = json.loads((suite / "manifest.json").read_text())
    validator.validate(manifest)
    assert [e["id"] for e in manifest["cases"]] == [c["id"] for c in cases]
    for entry in manifest["cases"]:
        validator.validate(json.loads((suite / entry["file"]).read_text()))
    assert [c["id"] for c in C.load_cases(suite)] == [c["id"] for c in cases]


def test_tampered_or_foreign_files_are_refused(suite, tmp_path):
    copy = tmp_path / "s"
    shutil.copytree(suite, copy)
    f = copy / "xor-cycle.json"
    doc = json.loads(f.read_text())
    doc["expected"]["mistakes"] = 11
    f.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="modified after the suite was written"):
        C.load_cases(copy)
    with pytest.raises(ValueError, match="at expected/mistakes"):
        doc["expected"]["mistakes"] = -1
        f.write_text(json.dumps(doc))
        C.load_cases(f)
    (tmp_path / "other.json").write_text('{"format": "else"}')
    with pytest.raises(ValueError, match="not a markone conformance case"):
        C.load_cases(tmp_path / "other.json")
    with pytest.raises(ValueError, match="without manifest.json"):
        C.load_cases(tmp_path)


def test_write_suite_refuses_a_non_empty_folder_and_leaves_nothing(tmp_path, cases):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(ValueError, match="not an empty folder"):
        C.write_suite(tmp_path, cases=cases[:1])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]
    bad = dict(cases[0], id="Bad Id")
    with pytest.raises(ValueError, match="not a valid case"):
        C.write_suite(tmp_path / "new", cases=[bad])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


# ---- every adapter, a correct and three wrong implementations -------------------------

STRICT = "the strict rule"
ZERO = "a zero score counted as correct when the label is +1"
RATE = "learning rate 1/2 instead of 1"
RATE_FLOAT = "learning rate 0.5 instead of 1"


def node_adapter(kind):
    flags = {"correct": "", "strict": " --rule strict", "zero_correct":
             " --rule zero-correct", "half_rate": " --eta 0.5"}[kind]
    return C.CommandAdapter(f"node {NODE_EXAMPLE}{flags}")


def python_cmd_adapter(kind, tmp_path):
    script = tmp_path / f"cmd_{kind}.py"
    script.write_text(textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(HERE)!r})
        import conformance_impls
        print(json.dumps(conformance_impls.{kind}(json.load(sys.stdin))))
    """))
    return C.CommandAdapter(f"{PYTHON} {script}")


ADAPTERS = {
    "callable": lambda kind, tmp: C.adapter_for(getattr(impls, kind)),
    "legacy-callable": lambda kind, tmp: C.adapter_for(getattr(impls, f"legacy_{kind}")),
    "file": lambda kind, tmp: C.load_impl(f"{HERE / 'conformance_impls.py'}:{kind}"),
    "estimator": lambda kind, tmp: C.adapter_for(impls.OnlinePerceptron(kind)),
    "river": lambda kind, tmp: C.adapter_for(impls.LearnOnly(kind)),
    "cmd-python": python_cmd_adapter,
    "cmd-node": lambda kind, tmp: node_adapter(kind),
}

EXPECT = {"correct": None, "strict": STRICT, "zero_correct": ZERO, "half_rate": RATE}
PROBE = ("zero-score-orthonormal", "intercept-convention", "worst-order-lattice",
         "extreme-small")
#: The adapters that start a process per answer (five to eight per case): a wrong
#: implementation through them is judged on two of the probe cases (the zero score
#: and the tiny numbers, what a program's own JSON can get wrong); the correct one on
#: every probe case, and every wrong one on every probe case in-process (the same
#: diagnosis on the same answers).
PROCESS_ADAPTERS = ("cmd-python", "cmd-node")
PROCESS_PROBE = ("zero-score-orthonormal", "extreme-small")


@pytest.mark.parametrize("kind", list(EXPECT))
@pytest.mark.parametrize("how", list(ADAPTERS))
def test_adapter_verdicts_and_diagnoses(how, kind, cases, tmp_path):
    if how == "cmd-node" and NODE is None:
        pytest.skip("node is not installed")
    adapter = ADAPTERS[how](kind, tmp_path)
    probe = PROCESS_PROBE if how in PROCESS_ADAPTERS and kind != "correct" else PROBE
    for cid in probe:
        r = C.run_case(by_id(cases, cid), adapter)
        assert r.status == ("pass" if kind == "correct" else "fail"), (how, cid, r)
        if kind == "correct":
            continue
        assert "mistakes" in r.failed or "w" in r.failed
        words = EXPECT[kind]
        if kind == "half_rate" and how not in ("callable", "file", "estimator", "river"):
            words = (RATE, RATE_FLOAT)        # float answers: the factor is 0.5
        assert any(d.startswith(words) for d in r.diagnosis), (how, cid, r.diagnosis)


#: Cases for the Node example in the default suite: two that float64 passes and the
#: four it cannot (a decision, an average, a multiclass score, an intercept); every
#: case, one Node process per answer, in the slow suite.
FLOAT_PROBE = ("zero-score-orthonormal", "variant-averaged", "exact-rational-tie",
               "exact-averaged-sum", "exact-multiclass-scores", "exact-intercept-rounding",
               "exact-voted-query-scores")   # a vote's query score rounds: float64 named


@pytest.mark.parametrize("which", ["probe", pytest.param("all", marks=pytest.mark.slow)])
def test_float_implementation_fails_only_where_floats_cannot_pass(cases, which):
    if NODE is None:
        pytest.skip("node is not installed")
    if which == "probe":
        cases = [by_id(cases, cid) for cid in FLOAT_PROBE]
    results = C.run_suite(cases, node_adapter("correct"))
    failed = {r.id for r in results if not r.passed}
    assert failed == {c["id"] for c in cases if not c["float64_can_pass"]}
    for r in results:
        if not r.passed:
            what = "the average (the running sum of the iterates rounds)" if (
                r.variant == "averaged") else "a decision"
            assert any(d.startswith(f"float64 arithmetic: rounding changes {what} of "
                                    "this case, which needs exact arithmetic")
                       for d in r.diagnosis), r.id


def test_not_applicable_cases_are_said_so(cases):
    def declines(problem):
        if problem["task"] != "binary":
            raise NotApplicable("binary only")
        return impls.correct(problem)
    r = C.run_case(by_id(cases, "kernel-dual-counts"), C.adapter_for(declines))
    assert r.status == "n/a" and r.details == ("binary only",)
    r = C.run_case(by_id(cases, "kernel-dual-counts"), C.adapter_for(impls.legacy_correct))
    assert r.status == "n/a" and "f(problem)" in r.details[0]
    r = C.run_case(by_id(cases, "variant-voted"),
                   C.adapter_for(impls.OnlinePerceptron("correct")))
    assert r.status == "n/a"


# ---- diagnoses that need their own wrong implementations -------------------------------

def _legacy(transform):
    def run(X, y, order):
        w, m = impls.legacy_correct(transform(X), y, order)
        return w, m
    return run


def test_diagnosis_own_intercept_on_augmented_input(cases):
    case = by_id(cases, "intercept-convention")
    twice = _legacy(lambda X: np.hstack([X, np.ones((len(X), 1))]))
    r = C.run_case(case, C.adapter_for(twice))
    assert r.status == "fail" and "length 3 instead of 2" in r.details[-1]
    assert r.diagnosis[0].startswith("an intercept of its own added to an input")


def test_diagnosis_wrong_dimension_and_intercept_first(cases):
    case = by_id(cases, "intercept-convention")
    no_b = _legacy(lambda X: X[:, :-1])
    assert C.run_case(case, C.adapter_for(no_b)).diagnosis[0].startswith(
        "wrong dimension: no intercept weight")

    def first(X, y, order):
        w, m = impls.legacy_correct(X, y, order)
        return np.roll(w, 1), m
    assert C.run_case(case, C.adapter_for(first)).diagnosis == (
        "the intercept weight is stored first; the suite expects it last",)
    ortho = by_id(cases, "zero-score-orthonormal")
    extra = _legacy(lambda X: np.hstack([X, np.ones((len(X), 1))]))
    r = C.run_case(ortho, C.adapter_for(extra))
    assert r.diagnosis[0].startswith("wrong dimension: an intercept the case does not have")


def test_diagnosis_variants(cases):
    def last_instead(problem):
        return impls.correct(dict(problem, variant="last"))
    for cid in ("variant-averaged", "variant-pocket"):
        r = C.run_case(by_id(cases, cid), C.adapter_for(last_instead))
        assert r.diagnosis[0].startswith("the last iterate was returned"), r

    def with_zero(problem):
        rows = impls._rows(problem)
        _, m, it, _ = impls.perceptron(rows, problem["y"], problem["order"])
        it = [[Fraction(0)] * len(rows[0])] + it
        return {"w": [sum(c) / len(it) for c in zip(*it)], "mistakes": m}
    r = C.run_case(by_id(cases, "variant-averaged"), C.adapter_for(with_zero))
    assert r.diagnosis[0].startswith("the average including the zero start")


def test_diagnosis_multiclass_ties_to_highest(cases):
    case = by_id(cases, "multiclass-argmax-ties")
    from verify.conformance.rule_runs import multiclass_run

    def highest(problem):
        W, m, argmax = multiclass_run(problem, ties="highest")
        q = [[Fraction(v) for v in r] + [1] for r in problem["queries"]]
        return {"W": [[str(v) for v in r] for r in W], "mistakes": m,
                "predictions": [argmax(x) for x in q]}
    r = C.run_case(case, C.adapter_for(highest))
    assert r.status == "fail" and r.diagnosis[0].startswith("argmax ties go to the highest")


def test_diagnosis_float32(cases):
    def float32(X, y, order):         # sequential float32 sums
        w = np.zeros(X.shape[1], dtype=np.float32)
        X32, m = X.astype(np.float32), 0
        for i in order:
            s = np.float32(0)
            for a, b in zip(w, X32[i]):
                s = s + a * b
            if y[i] * s <= 0:
                w += y[i] * X32[i]
                m += 1
        return w.astype(float), m
    with np.errstate(all="ignore"):
        r = C.run_case(by_id(cases, "float64-near-tie"), C.adapter_for(float32))
    assert r.status == "fail" and r.diagnosis == (
        "float32 arithmetic: rounding changed a decision",)


# ---- answers people write, and implementations that break -----------------------------

def test_answer_shapes_are_accepted_or_explained(cases):
    case = by_id(cases, "zero-score-orthonormal")
    w = [1, -1, 1, 1, -1, -1, 1, -1]
    for out in ((w, 8), [np.array(w), 8], {"w": w, "mistakes": 8}, np.array(w)):
        assert C.run_case(case, C.adapter_for(lambda X, y, o, out=out: out)).passed
    r = C.run_case(case, C.adapter_for(lambda X, y, o: 8))
    assert r.passed     # the number of mistakes alone is checked alone
    r = C.run_case(case, C.adapter_for(lambda X, y, o: "eight"))
    assert r.status == "error" and "it must return (w, mistakes)" in r.details[0]
    r = C.run_case(case, C.adapter_for(lambda p: {"w": ["x"] * 8, "mistakes": 8}))
    assert r.status == "error" and "w[0] is 'x', not a number" in r.details[0]
    r = C.run_case(case, C.adapter_for(lambda p: {"weights": w}))
    assert r.status == "error" and "has no 'w' (keys: ['weights'])" in r.details[0]
    with pytest.raises(TypeError, match="takes 2 required arguments"):
        C.adapter_for(lambda a, b: None)


def test_long_vectors_are_shown_with_an_explicit_ellipsis(cases):
    r = C.run_case(by_id(cases, "zero-score-orthonormal"),
                   C.adapter_for(impls.legacy_strict))
    assert r.details[1] == ("w: expected [1, -1, 1, 1, -1, -1, 1, -1], got "
                            "[0, 0, 0, 0, 0, 0, 0, 0]")
    assert C.show_vector(range(12)) == "[0, 1, 2, 3, 4, 5, ..., 10, 11] (12 entries)"
    doc = json.loads(C.as_json([r], "x"))
    assert doc["cases"][0]["answer"]["w"] == [0.0] * 8     # JSON keeps it all


BROKEN = textwrap.dedent("""
    def boom(problem):
        return helper(problem)

    def helper(problem):
        raise ZeroDivisionError("my own bug on line 6")
""")


def test_cli_shows_the_implementations_traceback_marked_as_its_own(suite, tmp_path,
                                                                   capsys):
    (tmp_path / "broken_impl.py").write_text(BROKEN)
    status = main(["adversary", "check", str(suite / "xor-cycle.json"),
                   "--impl", f"{tmp_path / 'broken_impl.py'}:boom"])
    out, err = capsys.readouterr()
    assert status == 1
    assert err.startswith("markone adversary check: error in your code (--impl ")
    assert "on case xor-cycle:" in err and "not a bug in markone" in err
    assert "ZeroDivisionError: my own bug on line 6" in err and "conformance" not in err
    assert "in helper" in err and "broken_impl.py" in err
    assert "ERROR" in out and "1 error," in out


def test_cli_command_errors_show_stderr(suite, tmp_path, capsys):
    script = tmp_path / "bad.py"
    script.write_text("import sys\nprint('half an answer')\n"
                      "sys.stderr.write('cannot parse the problem\\n')\nsys.exit(3)\n")
    status = main(["adversary", "check", str(suite / "xor-cycle.json"),
                   "--cmd", f"{PYTHON} {script}"])
    out, err = capsys.readouterr()
    assert status == 1 and "exited with status 3" in out
    assert "error in your code (--cmd " in err and "cannot parse the problem" in err
    script.write_text("print('not json')\n")
    assert main(["adversary", "check", str(suite / "xor-cycle.json"),
                 "--cmd", f"{PYTHON} {script}"]) == 1
    assert "did not write one JSON object" in capsys.readouterr().out


def test_cli_reports_and_exit_statuses(suite, cases, tmp_path, capsys):
    """Exit statuses, the JUnit and JSON reports and bad input; the wrong
    implementations on the cases that catch them (the whole suite, whose diagnoses
    take seconds per failure, in the slow test below)."""
    impl = f"{HERE / 'conformance_impls.py'}"
    assert main(["adversary", "check", str(suite), "--impl", f"{impl}:correct"]) == 0
    assert "34 passed, 0 failed" in capsys.readouterr().out
    few = tmp_path / "few"
    C.write_suite(few, cases=[by_id(cases, cid) for cid in (
        "zero-score-orthonormal", "exact-intercept-rounding", "exact-averaged-sum")])
    report = tmp_path / "r.xml"
    assert main(["adversary", "check", str(few), "--impl", f"{impl}:zero_correct",
                 "--format", "junit", "--report", str(report)]) == 1
    root = ET.parse(report).getroot()
    assert root.tag == "testsuite" and int(root.get("failures")) >= 1
    failure = root.find("testcase[@name='zero-score-orthonormal']/failure")
    assert "cause (reproduced): a zero score counted as correct" in failure.text
    capsys.readouterr()
    assert main(["adversary", "check", str(few), "--impl", f"{impl}:strict",
                 "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["exit_status"] == 1
    assert {"exact-intercept-rounding", "exact-averaged-sum"} <= {
        r["id"] for r in doc["cases"] if r["status"] == "fail"}
    # bad input: exit 2, one line, nothing written
    for argv in (["--impl", "nocolon"], ["--impl", "no_such_mod_xyz:f"],
                 ["--cmd", "no-such-program-xyz"], [],
                 ["--impl", f"{impl}:correct", "--cmd", "node"],
                 ["--impl", f"{impl}:nothere"]):
        assert main(["adversary", "check", str(suite)] + argv) == 2, argv
    assert main(["adversary", "check", str(tmp_path / "nope"), "--impl", "m:f"]) == 2
    err = capsys.readouterr().err
    assert "module:function" in err and "exactly one of --impl" in err


@pytest.mark.slow
def test_cli_reports_on_the_whole_suite(suite, tmp_path, capsys):
    """The wrong implementations against every case: how many each fails."""
    impl = f"{HERE / 'conformance_impls.py'}"
    report = tmp_path / "r.xml"
    assert main(["adversary", "check", str(suite), "--impl", f"{impl}:zero_correct",
                 "--format", "junit", "--report", str(report)]) == 1
    root = ET.parse(report).getroot()
    assert root.tag == "testsuite" and int(root.get("failures")) >= 8
    capsys.readouterr()
    assert main(["adversary", "check", str(suite), "--impl", f"{impl}:strict",
                 "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    # the cases it fails are those where the strict rule's own answer differs from the
    # rule's (the test's implementations, not markone's): a count written here went
    # stale as the suite grew (25 written, 29 of 34 cases today; r15 slow run)
    differ = {c["id"] for c in C.build_cases()
              if impls.solve(c["problem"], "strict") != impls.solve(c["problem"])}
    failed = {r["id"] for r in doc["cases"] if r["status"] == "fail"}
    assert doc["exit_status"] == 1 and failed == differ
    assert {"exact-intercept-rounding", "exact-averaged-sum"} <= failed  # start on a tie


def test_cli_suite_writes_and_refuses(tmp_path, capsys):
    out = tmp_path / "suite"
    assert main(["adversary", "suite", "--out", str(out)]) == 0
    assert (out / "manifest.json").is_file() and (out / "schema.json").is_file()
    assert main(["adversary", "suite", "--out", str(out)]) == 2
    assert "not an empty folder" in capsys.readouterr().err


def test_a_folder_is_named_as_typed_with_its_trailing_slash(suite, tmp_path, capsys,
                                                            monkeypatch):
    # "suite already exists ..." for --out suite/: the / the user typed was dropped
    # (Path() drops it), here and in adversary check's and --report's refusals (#37)
    monkeypatch.chdir(tmp_path)
    shutil.copytree(suite, "suite")
    Path("empty").mkdir()
    node = "node examples/perceptron.js"
    for argv, said in [
            (["suite", "--out", "suite/"], "suite/ already exists and is not an empty "
             "folder"),
            (["check", "empty/", "--cmd", node], "empty/ is a folder without "
             "manifest.json"),
            (["check", "nosuch/", "--cmd", node], "no such case file or suite folder: "
             "nosuch/"),
            (["check", "suite/", "--cmd", node, "--report", "empty/"],
             "empty/ is a folder; give the name of a file to write")]:
        try:
            code = main(["adversary"] + argv)
        except SystemExit as stop:   # argparse's refusal of --report
            code = stop.code
        assert code == 2
        assert said in capsys.readouterr().err, argv


@pytest.mark.parametrize("name", ["../data.csv", "/etc/passwd", "sub/case.json", ".."])
def test_a_manifest_entry_outside_the_suite_folder_is_refused(suite, tmp_path, name):
    # "s3/../data.csv was modified after the suite was written": a manifest entry's
    # file is a name in the suite's folder, nothing else (#37)
    copy = tmp_path / "suite"
    shutil.copytree(suite, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["cases"][1]["file"] = name
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=rf"manifest.json: cases\[1\]\.file is "
                       rf"'{re.escape(name)}', not the name of a file in the suite's "
                       "folder"):
        C.load_cases(copy)


def test_a_suite_folder_that_cannot_be_written_is_refused_before_the_cases(monkeypatch):
    """No seconds of case building lost to a bad --out: ``build_cases`` is not called."""
    import verify.conformance.suite as suite_module

    def no_building():
        raise AssertionError("the cases were built before the folder was checked")

    monkeypatch.setattr(suite_module, "build_cases", no_building)
    with pytest.raises(OSError, match="/proc/no"):
        C.write_suite("/proc/no/such")


#: The Node example through the command line in the default suite: two cases that
#: float64 passes and two that need exact arithmetic (one Node process per answer,
#: about 0.1 s each); the whole suite (27 and 7) in the slow suite.
NODE_CLI_CASES = ("zero-score-orthonormal", "variant-averaged", "exact-rational-tie",
                  "exact-averaged-sum")
NODE_CLI_COUNTS = {"some": (2, 2), "all": (27, 7)}  # (passed, not applicable)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("which", ["some", pytest.param("all", marks=pytest.mark.slow)])
def test_cli_node_example(suite, cases, tmp_path, capsys, which):
    """The example declares float64 in the handshake: the cases that need exact
    arithmetic do not apply, and a correct float64 implementation exits 0 (it exited
    1 before profiles existed, with those cases 'FAIL (float64: expected)')."""
    if which == "some":
        suite = tmp_path / "some"
        C.write_suite(suite, cases=[by_id(cases, cid) for cid in NODE_CLI_CASES])
    passed, not_applicable = NODE_CLI_COUNTS[which]
    status = main(["adversary", "check", str(suite), "--cmd", f"node {NODE_EXAMPLE}"])
    out = capsys.readouterr().out
    assert status == 0 and (f"{passed} passed, 0 failed, 0 errors, {not_applicable} not "
                            "applicable") in out
    assert "profile arithmetic=float64," in out and "declared in the handshake" in out
    assert out.count("the case needs exact arithmetic (float64 rounding changes its "
                     "answer); the profile declares float64") == not_applicable


def test_docs_show_the_complete_node_example():
    page = (HERE.parent / "docs" / "test-your-perceptron.md").read_text()
    assert NODE_EXAMPLE.read_text() in page


def test_nasty_answers_are_errors_not_passes(cases):
    case = by_id(cases, "zero-score-orthonormal")
    w = [1, -1, 1, 1, -1, -1, 1, -1]
    for bad, words in (({"w": w, "mistakes": True}, "boolean"),
                       ({"w": w, "mistakes": 8.5}, "integers"),
                       ({"w": w[:-1] + [float("nan")], "mistakes": 8}, "nan"),
                       ({"w": w[:-1] + [float("inf")], "mistakes": 8}, "inf"),
                       ({"w": [w], "mistakes": 8}, "not a number")):
        r = C.run_case(case, C.adapter_for(lambda p, bad=bad: bad))
        assert r.status == "error" and words in r.details[0], (bad, r.details)


def test_cmd_timeout_is_the_implementations_error(suite, tmp_path, capsys):
    script = tmp_path / "slow.py"
    script.write_text("import time\ntime.sleep(30)\n")
    status = main(["adversary", "check", str(suite / "intercept-convention.json"),
                   "--cmd", f"{PYTHON} {script}", "--timeout", "0.5"])
    assert status == 1 and "did not answer within 0.5 s" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:  # a usage error, before anything runs
        main(["adversary", "check", str(suite), "--cmd", "node", "--timeout", "0"])
    assert refused.value.code == 2


def test_cli_estimator_and_learner_classes(suite, capsys):
    """--impl names a class: an instance with its defaults is made for every case."""
    case = str(suite / "zero-score-orthonormal.json")
    assert main(["adversary", "check", case, "--impl",
                 "sklearn.linear_model:Perceptron"]) == 0
    assert "1 passed" in capsys.readouterr().out
    assert main(["adversary", "check", case, "--impl", "markone:Perceptron"]) == 0
    pytest.importorskip("river")
    assert main(["adversary", "check", case, "--impl",
                 "river.linear_model:Perceptron"]) == 1
    assert "an intercept the case does not have" in capsys.readouterr().out
