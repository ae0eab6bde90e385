"""Issue 41, item 4's last gap: the number ``verify separable`` and ``verify check``
print for a witness is the formula of the Coq theorem ``check_witness_novikoff``
evaluated on the certificate's own numbers (its witness, its data), and the row of
``verify.coq.THEOREMS`` names the function that computes it."""

import json
import math
import re
from fractions import Fraction

import pytest

from markone.cli import main
from verify.coq import THEOREMS
from verify.margin import witness_novikoff

LINE = re.compile(r"check_witness_novikoff\): at most floor\(R\^2 \|\|w\|\|\^2 / "
                  r"gamma\^2\) = (\d+) mistakes in any order")


def theorem_formula(doc):
    """``radius2 (rows intercept data) * dot w w / margin w (rows ...)^2`` from the
    certificate file alone, in Fractions (the theorem's right side over its gamma^2)."""
    w = [Fraction(v) for v in doc["witness"]]
    classes = sorted(set(doc["data"]["y"]))
    rows = [[(1 if label == classes[-1] else -1) * Fraction(v)
             for v in [*x, *([1] * doc["intercept"])]]
            for x, label in zip(doc["data"]["X"], doc["data"]["y"])]
    gamma = min(sum(a * b for a, b in zip(w, z)) for z in rows)
    R2 = max(sum(v * v for v in z) for z in rows)
    assert gamma > 0
    return R2 * sum(v * v for v in w) / gamma ** 2


@pytest.mark.parametrize("data,no_intercept", [
    ("x1,x2,y\n0,0,0\n0,1,0\n1,0,0\n1,1,1\n", []),                       # AND
    ("x1,x2,y\n1/2,3,a\n-2,1/3,b\n4,-1,a\n0.25,2,b\n", []),
    ("x1,x2,y\n1,2,1\n2,1,1\n-1,-3,-1\n-2,-1,-1\n", ["--no-intercept"]),
])
def test_the_printed_bound_is_the_theorem_on_the_certificate(tmp_path, capsys, data,
                                                             no_intercept):
    (tmp_path / "d.csv").write_text(data)
    cert = tmp_path / "c.json"
    assert main(["verify", "separable", str(tmp_path / "d.csv"), *no_intercept,
                 "--certificate", str(cert)]) == 0
    written = LINE.search(capsys.readouterr().out)
    assert main(["verify", "check", str(cert)]) == 0
    checked = LINE.search(capsys.readouterr().out)
    doc = json.loads(cert.read_text())
    assert doc["separable"] and written and checked
    assert int(written[1]) == int(checked[1]) == math.floor(theorem_formula(doc))


def test_the_theorem_row_names_the_function_that_computes_it():
    row = next(t for t in THEOREMS if t.name == "check_witness_novikoff")
    assert row.used_by == "verify.margin.witness_novikoff"
    assert row.conclusion == "<= radius2 (rows intercept data) * dot w w"


def test_a_witness_that_does_not_separate_is_refused():
    with pytest.raises(ValueError, match="does not separate the data"):
        witness_novikoff([[0], [1]], [0, 1], [1, 0])
