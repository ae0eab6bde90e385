"""One numbering convention in every text a person reads (issue 37, item 4).

docs/command-line.md, "How things are numbered": a word followed by a number counts
from 1 (sample 3 is the third sample, feature 2 / column 2 the second column, line 7
the file's seventh line); a number in brackets (``X[2]``, ``lambda[2]``) or an option
that takes an index (``--label 1``) counts from 0, as Python and JSON do.

Each case below runs a command or a library function on input whose culprit sits at a
known place (counted from 1: its sample, its feature, its line in the file), and scans
the whole text: every "sample N", "example N", "row N", "feature N", "column N",
"line N", every ``X[i]``/``X[i, j]``/``lambda[i]`` and every ``--label N`` must name
that place, in the count its form calls for, and at least one must.
"""

from __future__ import annotations

import re
import pytest

import markone
import verify
from markone.cli import main
from verify.certificate import data_sha256

#: word -> what it counts (from 1)
WORDS = {"sample": "row", "example": "row", "row": "row", "feature": "col",
         "column": "col", "line": "line"}
WORD = re.compile(r"\b(sample|example|row|feature|column|line)s? (\d+)(?: and (\d+))?")
INDEX = re.compile(r"\b(?:X|lambda)\[(\d+)(?:, (\d+))?\]")
LABEL = re.compile(r"--label (\d+)")


def numbers_named(text):
    """``[(kind, number counted from 1)]`` of every place ``text`` names."""
    named = []
    for word, *numbers in WORD.findall(text):
        named += [(WORDS[word], int(n)) for n in numbers if n]
    for i, j in INDEX.findall(text):
        named += [("row", int(i) + 1)] + ([("col", int(j) + 1)] if j else [])
    named += [("col", int(j) + 1) for j in LABEL.findall(text)]
    return named


def assert_numbered(text, rows=(), cols=(), lines=()):
    """Every place ``text`` names is one of ``rows``/``cols``/``lines`` (from 1)."""
    expected = {"row": set(rows), "col": set(cols), "line": set(lines)}
    named = numbers_named(text)
    assert named, f"names no place: {text!r}"
    for kind, n in named:
        assert n in expected[kind], (kind, n, text)


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out + err


@pytest.fixture
def csv(tmp_path):
    def write(text, name="d.csv"):
        path = tmp_path / name
        path.write_text(text)
        return str(path)
    return write


# ---- the command line ------------------------------------------------------------------

def test_a_bad_cell_is_named_by_its_line_and_column(csv, capsys):
    path = csv("x1,x2,label\n1,2,a\n3,4,b\n5,oops,a\n")   # sample 3, line 4, column 2
    status, text = run(["train", path], capsys)
    assert status == 2
    assert_numbered(text.replace(path, "FILE"), cols={2}, lines={4})


def test_an_inexact_cell_is_named_by_its_sample_and_feature(csv, capsys):
    path = csv("x1,x2,label\n1,2,a\n3,4,b\n5,0.1,a\n")   # sample 3, feature 2
    status, text = run(["train", path], capsys)
    assert status == 0 and "note: sample 3, feature 2 is '0.1'" in text
    note = next(line for line in text.splitlines() if line.startswith("note:"))
    assert_numbered(note, rows={3}, cols={2})


def test_a_zero_sample_is_named_from_one_and_its_weight_from_zero(csv, capsys):
    path = csv("x,y,label\n1,1,a\n2,0,b\n0,0,a\n3,1,b\n")   # sample 3 is zero
    status, text = run(["verify", "separable", path, "--no-intercept"], capsys)
    assert status == 1 and "lambda[2] = 1" in text and "example 3 (X[2])" in text
    assert_numbered(text.replace(path, "FILE"), rows={3})


def test_the_same_point_with_both_labels(csv, capsys):
    path = csv("x,y,label\n5,5,a\n1,2,a\n7,1,b\n1,2,b\n")  # samples 2 and 4
    status, text = run(["verify", "separable", path, "--no-intercept"], capsys)
    assert status == 1 and "examples 2 and 4 (X[1] and X[3])" in text
    assert_numbered(text.replace(path, "FILE"), rows={2, 4})


def test_a_witness_that_fails_names_the_sample(csv, capsys, tmp_path):
    import json

    path = csv("x1,x2,label\n0,0,0\n0,1,0\n1,0,0\n1,1,1\n")
    cert = tmp_path / "c.json"
    assert run(["verify", "separable", path, "--certificate", str(cert)], capsys)[0] == 0
    doc = json.loads(cert.read_text())
    doc["witness"] = [2, 0, -1]   # right on samples 1 and 2, wrong on sample 3
    cert.write_text(json.dumps(doc))
    status, text = run(["verify", "check", str(cert)], capsys)
    assert status == 1 and "example 3 (X[2])" in text
    assert_numbered(text.replace(str(cert), "FILE"), rows={3})


def test_the_cycle_names_each_update_both_ways(capsys):
    status, text = run(["verify", "cycling", "xor"], capsys)
    updates = [line for line in text.splitlines() if "update on" in line]
    assert status == 0 and len(updates) == 4
    for line in updates:   # "update on example N (X[N-1])", one sample a line
        (n, i), = re.findall(r"example (\d+) \(X\[(\d+)\]\)", line)
        assert int(n) == int(i) + 1
    assert {int(n) for n in re.findall(r"example (\d+)", text)} == {1, 2, 3, 4}


def test_greedy_names_the_inexact_cell_by_line_and_column(csv, capsys, tmp_path):
    path = csv("x1,x2,label\n1,2,a\n3,1.2,b\n")          # line 3, column 2
    status, text = run(["adversary", "greedy", path, "--out", str(tmp_path / "g.json")],
                       capsys)
    assert status == 2
    assert_numbered(text.replace(path, "FILE"), cols={2}, lines={3})


# ---- the library -------------------------------------------------------------------------

def _message(call):
    with pytest.raises(ValueError) as caught:
        call()
    return str(caught.value)


def test_library_messages_name_samples_by_index_or_both_ways():
    nan = [[0, 0], [1, 2], [1, float("nan")]]                      # X[2, 1]
    assert_numbered(_message(lambda: markone.train(nan, [0, 1, 1])), rows={3}, cols={2})
    ragged = [[0, 0], [1, 2], [1]]                                  # X[2]
    assert_numbered(_message(lambda: data_sha256(ragged, [0, 1, 1])), rows={1, 3})
    zero = [[1, 1], [2, 0], [0, 0]]                                 # sample 3
    v = verify.check_separable(zero, [1, -1, 1], intercept=False)
    assert v.separable is False and "example 3 (X[2])" in v.message
    assert_numbered(v.message, rows={3})
    assert list(v.certificate) == [2]   # JSON and Python: from 0


def test_a_u_that_does_not_separate_names_the_worst_sample():
    X, y = [[2, 0], [1, 1], [-1, 0]], [1, 1, -1]
    text = _message(lambda: verify.check_mistake_bound(X, y, u=[1, -3], intercept=False))
    (n, i), = re.findall(r"example (\d+) \(X\[(\d+)\]\)", text)
    assert (int(n), int(i)) == (2, 1)   # y x.u = 2, -2, 1: the worst is sample 2
    assert_numbered(text, rows={2})
