"""Tests for `markone adversary ...`, `markone verify bound` and `markone verify cycling`."""

import json
import textwrap

import numpy as np
import pytest

from markone.cli import main
from markone.datasets import parity
from verify.cli.adversary import CASE_FORMAT, check_case

IMPL = textwrap.dedent("""
    import numpy as np

    def run(X, y, order):
        w = np.zeros(X.shape[1]); m = 0
        for i in order:
            if y[i] * (w @ X[i]) <= 0:
                w += y[i] * X[i]; m += 1
        return w, m

    def strict(X, y, order):           # the strict rule: a different perceptron
        w = np.zeros(X.shape[1]); m = 0
        for i in order:
            if y[i] * (w @ X[i]) < 0:
                w += y[i] * X[i]; m += 1
        return w, m

    def count_only(X, y, order):
        return run(X, y, order)[1]
""")


@pytest.fixture
def work(tmp_path, monkeypatch):
    (tmp_path / "myperc_cli_test.py").write_text(IMPL)
    (tmp_path / "small.csv").write_text("1,0,1\n0,1,1\n1,1,1\n2,-1,-1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_orthonormal_case_file_and_check(work, capsys):
    assert main(["adversary", "orthonormal", "--m", "5", "--labels", "+-+-+",
                 "--out", "o.json"]) == 0
    doc = json.loads((work / "o.json").read_text())
    assert doc["format"] == CASE_FORMAT and doc["expected_mistakes"] == 5
    assert doc["order"] == [0, 1, 2, 3, 4] and doc["y"] == [1, -1, 1, -1, 1]
    assert doc["expected_w"] == [1.0, -1.0, 1.0, -1.0, 1.0] and doc["intercept"] is False
    assert abs(doc["bound"] - 5) < 1e-9
    capsys.readouterr()
    assert main(["adversary", "check", "o.json", "--impl", "myperc_cli_test:run"]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out
    assert main(["adversary", "check", "o.json", "--impl", "myperc_cli_test:strict"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "cause (reproduced): the strict rule" in out
    assert main(["adversary", "check", "o.json",
                 "--impl", "myperc_cli_test:count_only"]) == 0


@pytest.mark.parametrize("method", ["exhaustive", "z3", "greedy"])
def test_search_cases_rerun_in_an_independent_implementation(work, method):
    assert main(["adversary", method, "small.csv", "--no-intercept",
                 "--out", f"{method}.json"]) == 0
    doc = json.loads((work / f"{method}.json").read_text())
    if method != "greedy":
        assert doc["expected_mistakes"] == 10 and doc["complete"]
    import myperc_cli_test

    X = np.array(doc["X"])
    w, m = myperc_cli_test.run(X, np.array(doc["y"]), np.array(doc["order"]))
    assert m == doc["expected_mistakes"] == len(doc["order"])
    assert w.tolist() == doc["expected_w"]


def test_lattice_family_with_intercept(work):
    assert main(["adversary", "lattice", "--draws", "30", "--seed", "2",
                 "--out", "l.json"]) == 0
    doc = json.loads((work / "l.json").read_text())
    assert doc["intercept"] is True and doc["complete"]
    agree, lines = check_case(doc, __import__("myperc_cli_test").run)
    assert agree, lines
    assert doc["expected_mistakes"] <= doc["bound"]


def test_check_errors(work, capsys):
    assert main(["adversary", "check", "small.csv", "--impl", "m:f"]) == 2
    main(["adversary", "orthonormal", "--m", "3", "--out", "o.json"])
    assert main(["adversary", "check", "o.json", "--impl", "no_such_module:f"]) == 2
    assert main(["adversary", "check", "o.json", "--impl", "nocolon"]) == 2
    (work / "other.json").write_text('{"format": "something else"}')
    assert main(["adversary", "check", "other.json", "--impl", "m:f"]) == 2
    assert main(["adversary", "orthonormal", "--m", "3", "--labels", "+x+",
                 "--out", "bad.json"]) == 2
    assert not (work / "bad.json").exists()
    err = capsys.readouterr().err
    assert "not a markone conformance case" in err and "module:function" in err


@pytest.mark.parametrize("labels, said", [
    ("+x+", "--labels holds 'x' (character 2): write each label as + or -"),
    ("+-+-", "--labels has 4 labels, but --m 3 asks for 3 examples: give one + or - per "
             "example (3 characters), or --m 4."),
    # not "or --m 0", which --m refuses (#37)
    ("", "--labels has 0 labels, but --m 3 asks for 3 examples: give one + or - per "
         "example (3 characters).\n"),
])
def test_orthonormal_labels_say_what_is_wrong(labels, said, work, capsys):
    """Issue 37 (walk): four labels for --m 3 (or ten, the default) were told "must be
    3 characters of + and -", not that --m asks for another count, nor how to change
    it; a wrong character was not named."""
    assert main(["adversary", "orthonormal", "--m", "3", "--labels", labels,
                 "--out", "bad.json"]) == 2
    assert said in capsys.readouterr().err and not (work / "bad.json").exists()


def test_an_orthonormal_case_too_big_for_memory_is_refused_before_it_is_built(work,
                                                                              capsys):
    # --m 100000000 ended in an internal error (MemoryError, exit 3) (#37)
    assert main(["adversary", "orthonormal", "--m", "100000000", "--out", "o.json"]) == 2
    assert "the case of --m 100000000 (X is 100000000 x 100000000" in \
        capsys.readouterr().err
    assert main(["adversary", "orthonormal", "--m", "200", "--max-memory", "0.001",
                 "--out", "o.json"]) == 2
    assert capsys.readouterr().err.endswith(
        "would need about 0.0016 GB of memory, more than --max-memory 0.001 allows; "
        "lower --m, or raise --max-memory.\n")
    assert not (work / "o.json").exists()
    assert main(["adversary", "orthonormal", "--m", "200", "--out", "o.json"]) == 0


@pytest.mark.parametrize("method", ["greedy", "exhaustive", "z3"])
def test_each_search_says_what_its_budget_counts(method, capsys):
    """Issue 37 (walk): every search's --help said "greedy: updates; exhaustive:
    states; z3: longest stream", with no default; each now says its own, and the
    default it states is the one worst_order uses."""
    from verify.adversary import _DEFAULT_BUDGET

    with pytest.raises(SystemExit):
        main(["adversary", method, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"(default: {_DEFAULT_BUDGET[method]})" in text
    assert "greedy: updates" not in text


def test_an_impl_that_names_no_function_of_the_file_lists_those_it_has(work, capsys):
    """Issue 37 (walk): `--impl examples/perceptron.py:fitt` said only that the file
    has no attribute 'fitt'; it now names the function it does define."""
    from pathlib import Path

    example = Path(__file__).resolve().parents[3] / "examples" / "perceptron.py"
    main(["adversary", "orthonormal", "--m", "3", "--out", "o.json"])
    capsys.readouterr()
    assert main(["adversary", "check", "o.json", "--impl", f"{example}:fitt"]) == 2
    assert capsys.readouterr().err.strip().endswith(
        f"has no attribute 'fitt'; it defines fit: pass --impl {example}:fit.")


def test_verify_cycling_builtin_and_file(work, capsys):
    assert main(["verify", "cycling", "xor"]) == 0
    out = capsys.readouterr().out
    assert "period of 4 updates" in out and "w = [1, 1, -1]" in out
    assert main(["verify", "cycling", "parity3", "--encoding", "01", "--order", "all"]) == 0
    assert "48562 weight vectors" in capsys.readouterr().out
    assert main(["verify", "cycling", "xor", "--rule", "strict"]) == 0
    assert "never updates" in capsys.readouterr().out
    (work / "xor.csv").write_text("0,0,-1\n0,1,1\n1,0,1\n1,1,-1\n")
    assert main(["verify", "cycling", "xor.csv"]) == 0
    assert main(["verify", "cycling", "parity3", "--order", "all", "--budget", "10"]) == 4


def test_verify_cycling_encoding_is_never_dropped_in_silence(work, capsys):
    # `verify cycling xor:01 --encoding pm1` ran on 0/1 inputs and said nothing (#37)
    assert main(["verify", "cycling", "xor", "--encoding", "pm1"]) == 0
    assert "w = [1, 1, -1]" in capsys.readouterr().out   # -1/+1, as without the flag
    for name, encoding in [("xor:01", "pm1"), ("parity3:01", "01")]:
        assert main(["verify", "cycling", name, "--encoding", encoding]) == 2
        assert capsys.readouterr().err.endswith(
            f"error: --encoding {encoding} given with {name}, which already names 0/1 "
            "inputs; drop one of the two.\n")
    (work / "xor.csv").write_text("0,0,-1\n0,1,1\n1,0,1\n1,1,-1\n")
    assert main(["verify", "cycling", "xor.csv", "--encoding", "pm1"]) == 2
    assert "--encoding pm1 applies to the built-in data sets" in capsys.readouterr().err


def test_builtin_data_parity():
    X, y = parity(3, "01")
    assert X.shape == (8, 3) and (y == np.where(X.sum(1) % 2 == 1, 1, -1)).all()


def test_verify_bound(work, capsys):
    assert main(["verify", "bound", "small.csv", "--order", "shuffle", "--runs", "4",
                 "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "held: True" in out and "rebuild w: True" in out
    (work / "xor.csv").write_text("0,0,-1\n0,1,1\n1,0,1\n1,1,-1\n")
    assert main(["verify", "bound", "xor.csv"]) == 2
    assert "not linearly separable" in capsys.readouterr().err


@pytest.mark.parametrize("flags", [["--runs", "20"], ["--seed", "1"],
                                   ["--order", "given", "--runs", "3"]])
def test_verify_bound_refuses_runs_and_seed_of_the_given_order(flags, work, capsys):
    # --runs 20 ran the one given order 20 times ("over 20 runs: max 5, min 5") and
    # --seed was dropped, in silence (#37)
    assert main(["verify", "bound", "small.csv", *flags]) == 2
    err = capsys.readouterr().err
    assert f"error: {flags[-2]} {flags[-1]} applies to shuffled orders: add --order " \
        "shuffle (the given order is one run, the same every time).\n" in err


def test_a_sparse_matrix_too_large_for_a_case_file_is_refused_before_the_search(
        tmp_path, capsys):
    """A case file holds dense rows: 5,000 x 5,000 (25 M entries, 10 stored) is refused
    with one line on stderr, exit 2, nothing written; a small sparse case is written."""
    import numpy as np
    import scipy.sparse as sp

    from verify.cli.adversary import MAX_CASE_ENTRIES

    n = d = 5_000
    assert n * d > MAX_CASE_ENTRIES
    A = sp.csr_array((np.ones(10), (np.arange(10), np.arange(10))), shape=(n, d + 1))
    A = sp.hstack([A[:, :d], sp.csr_array(np.arange(n)[:, None] % 2)], format="csr")
    sp.save_npz(tmp_path / "big.npz", A)
    capsys.readouterr()
    assert main(["adversary", "greedy", str(tmp_path / "big.npz"), "--out",
                 str(tmp_path / "case.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert "5000 x 5000" in err and "dense rows" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "case.json").exists()
    sp.save_npz(tmp_path / "small.npz", A[:20, [0, 1, 2, d]].tocsr())
    assert main(["adversary", "greedy", str(tmp_path / "small.npz"), "--budget", "50",
                 "--out", str(tmp_path / "case.json")]) == 0
    assert len(json.loads((tmp_path / "case.json").read_text())["X"]) == 20


def test_max_depth_over_its_ceiling_is_told_as_the_flag(work, capsys):
    # "max_depth(=1000) must be at most 500": the Python name on the command line, and
    # not the words `verify check --max-depth` uses for the same limit (#37)
    main(["adversary", "orthonormal", "--m", "3", "--out", "o.json"])
    capsys.readouterr()
    assert main(["adversary", "check", "o.json", "--cmd", "cat", "--max-depth",
                 "1000"]) == 2
    assert capsys.readouterr().err.endswith(
        "error: --max-depth is 1000, over the ceiling of 500: Python's JSON reader "
        "recurses once per level.\n")


def test_lattice_help_gives_its_budget_default(capsys):
    # "--budget N  most states to explore": the one search budget without its default
    # in --help (it is exhaustive's, 2,000,000 weight vectors, as its message says) (#37)
    with pytest.raises(SystemExit):
        main(["adversary", "lattice", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--budget N most weight vectors (states) to explore (default: 2000000)" \
        in help_text
