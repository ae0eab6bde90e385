"""Tests of verify.certificate, the small trusted checker: forged proofs are rejected,
numbers are read exactly, labels follow the core's rule, and it imports no NumPy."""

import dataclasses
import json
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from markone._internal.validation import labels_to_pm1
from markone.cli import main
from verify import check_separable
from verify.certificate import (check_certificate, check_certificate_file, data_sha256,
                                exact_rows, labels_pm1)
from verify.errors import CertificateError
from _paths import ROOT

XOR = ([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 0])
AND = ([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1])


def forge(verdict, **changes):
    return dataclasses.replace(verdict, **changes)


def test_the_checker_imports_only_the_standard_library():
    path = ROOT / "verify" / "certificate" / "kernel.py"
    code = ("import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('cert', {str(path)!r})\n"
            "m = importlib.util.module_from_spec(spec); sys.modules['cert'] = m\n"
            "spec.loader.exec_module(m)\n"
            "bad = sorted(n for n in sys.modules if n.split('.')[0] in "
            "('numpy', 'markone', 'verify', 'z3', 'cvc5', 'flint', 'scipy'))\n"
            "assert not bad, bad\n"
            "print(m.check_certificate([[0], [1]], [0, 1], type('V', (), dict("
            "separable=True, intercept=True, witness=[2, -1], certificate=None))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_forged_certificates_are_rejected():
    X, y = XOR
    good = check_separable(X, y)
    assert check_certificate(X, y, good)
    forged = [
        ({**good.certificate, 2: Fraction(3, 2)}, "does not cancel"),   # changed multiplier
        ({**good.certificate, 1: Fraction(-1)}, "must be > 0"),         # negative multiplier
        ({**good.certificate, 0: Fraction(0)}, "must be > 0"),          # zero multiplier
        ({i: v for i, v in good.certificate.items() if i != 3}, "does not cancel"),
        ({**good.certificate, 4: Fraction(1)}, r"index 4, .*indices are 0..3"),  # no such example
        ({**good.certificate, "two": Fraction(1)}, "not an index"),
        ({0: Fraction(1), 1.5: Fraction(1)}, "not an index"),
        ({True: Fraction(1), 0: Fraction(1)}, "not an index"),
        ({}, "empty"),
    ]
    for cert, msg in forged:
        with pytest.raises(CertificateError, match=msg):
            check_certificate(X, y, forge(good, certificate=cert))
    flipped = list(y)
    flipped[0] = 1 - flipped[0]  # a flipped label: the four points no longer cancel
    with pytest.raises(CertificateError, match="does not cancel"):
        check_certificate(X, flipped, good)


def test_forged_witnesses_are_rejected():
    X, y = AND
    good = check_separable(X, y)
    w = list(good.witness)
    assert check_certificate(X, y, good)
    # perturb each entry until the witness fails somewhere: it must be caught exactly
    for j in range(len(w)):
        for delta in (Fraction(1, 10**30), Fraction(-1, 10**30)):
            bumped = w[:j] + [w[j] + delta] + w[j + 1:]
            margins = [(2 * (yi == 1) - 1) * (sum(Fraction(a) * b for a, b in
                                                  zip(list(x) + [1], bumped)))
                       for x, yi in zip(X, y)]
            if min(margins) > 0:
                assert check_certificate(X, y, forge(good, witness=tuple(bumped)))
            else:
                with pytest.raises(CertificateError, match="fails on example"):
                    check_certificate(X, y, forge(good, witness=tuple(bumped)))
    # a witness that is exactly zero on one example (not > 0)
    with pytest.raises(CertificateError, match=r"example 1 \(X\[0\]\): .* = 0, not > 0"):
        check_certificate(X, y, forge(good, witness=(Fraction(1), Fraction(1), 0)))
    for bad in ((1, 1), "123", None, {0: 1, 1: 1, 2: 1}):
        with pytest.raises(CertificateError, match="entries, expected 3"):
            check_certificate(X, y, forge(good, witness=bad))
    for bad in ((1, 1, float("nan")), (1, 1, "x"), (1, 1, True)):
        with pytest.raises(ValueError):
            check_certificate(X, y, forge(good, witness=bad))
    flipped = [0, 0, 1, 1]
    with pytest.raises(CertificateError, match=r"fails on example 3 \(X\[2\]\)"):
        check_certificate(X, flipped, good)


def test_float_data_are_read_as_the_exact_binary_fractions():
    # 0.1 + 0.2 != 0.3 in binary: the points (0.1), (0.2), (-0.3) are not collinear
    # through the origin in a way that cancels with weights 1, 1, 1
    X = [[0.1], [0.2], [-0.3]]
    v = check_separable(X, [1, 1, 1], intercept=False)
    assert check_certificate(X, [1, 1, 1], v)
    assert check_certificate(np.array(X), np.array([1, 1, 1]), v)
    fake = forge(v, separable=False, witness=None, certificate={0: 1, 1: 1, 2: 1})
    with pytest.raises(CertificateError, match="does not cancel"):
        check_certificate(X, [1, 1, 1], fake)
    exact = [["0.1"], ["0.2"], ["-0.3"]]  # decimal strings: exactly 0.1 + 0.2 - 0.3 = 0
    assert check_certificate(exact, [1, 1, 1], fake)
    assert check_certificate([[Decimal("0.1")], [Decimal("0.2")], [Decimal("-0.3")]],
                             [1, 1, 1], fake)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.longdouble,
                                   np.int8, np.int64, np.uint16])
def test_numpy_dtypes_are_exact(dtype):
    X = np.array([[1, 2], [3, 5]], dtype=dtype) / (dtype(3) if dtype(1) / 2 else 1)
    rows, scales = exact_rows(X, intercept=True)
    for r, s, x in zip(rows, scales, X):
        assert [v * s for v in r] == [Fraction(*a.as_integer_ratio()) if
                                      hasattr(a, "as_integer_ratio") else Fraction(int(a))
                                      for a in x] + [1]


def test_bad_data_are_refused_clearly():
    for X, msg in (([[0, 1], [1]], "ragged"), ([], "non-empty"), ([1, 2], "not a sequence"),
                   ([[]], "no features"), ([[float("inf")]], "finite"),
                   ([[np.bool_(True)]], "boolean"), ([[object()]], "not a number")):
        with pytest.raises(ValueError, match=msg):
            exact_rows(X, intercept=False)
    with pytest.raises(ValueError, match="3 classes"):
        labels_pm1([0, 1, 2])
    with pytest.raises(ValueError, match="samples but y has"):
        check_certificate([[0], [1]], [0, 1, 1], check_separable([[0], [1]], [0, 1]))


labels = st.one_of(
    st.lists(st.sampled_from([-1, 1]), min_size=1, max_size=6),
    st.lists(st.sampled_from([0, 7]), min_size=1, max_size=6).filter(lambda v: len(set(v)) > 1),
    st.lists(st.sampled_from(["cat", "dog"]), min_size=1, max_size=6)
    .filter(lambda v: len(set(v)) > 1),
    st.lists(st.sampled_from([-1.0, 1.0, 2.5]), min_size=2, max_size=6)
    .filter(lambda v: len(set(v)) == 2),
)


@given(labels)
def test_labels_follow_the_core_rule_hypo(y):
    assert labels_pm1(y) == labels_to_pm1(y)[0].tolist()
    assert labels_pm1(np.array(y)) == labels_to_pm1(y)[0].tolist()


def test_certificate_files_truncated_or_tampered(tmp_path, capsys):
    data = tmp_path / "xor.csv"
    data.write_text("0,0,0\n0,1,1\n1,0,1\n1,1,0\n")
    cert = tmp_path / "c.json"
    assert main(["verify", "separable", str(data), "--certificate", str(cert)]) == 1
    assert check_certificate_file(cert).separable is False
    assert check_certificate_file(cert).source_checked
    text = cert.read_text()
    for cut in (len(text) // 3, len(text) - 3):
        cert.write_text(text[:cut])
        with pytest.raises(CertificateError, match="not valid JSON.*truncated"):
            check_certificate_file(cert)
        assert main(["verify", "check", str(cert)]) == 2
        assert "truncated" in capsys.readouterr().err
    doc = json.loads(text)
    for key in ("separable", "intercept", "data"):
        broken = {k: v for k, v in doc.items() if k != key}
        cert.write_text(json.dumps(broken))
        with pytest.raises(CertificateError, match="misses the field"):
            check_certificate_file(cert)
    for change, msg in (({"intercept": "yes"}, "true or false"),
                        ({"certificate": [1, 1, 1, 1]}, "map example indices"),
                        ({"separable": "no"}, "true or false"),
                        ({"certificate": {"0": "1", "1": "1", "2": "1", "3": "1/2"}},
                         "does not cancel")):
        cert.write_text(json.dumps({**doc, **change}))
        with pytest.raises(CertificateError, match=msg):
            check_certificate_file(cert)
    doc["data"]["y"][0] = 1  # flip a label: the data no longer match their hash
    cert.write_text(json.dumps(doc))
    with pytest.raises(CertificateError, match="do not match their hash"):
        check_certificate_file(cert)


# --- the fast paths re-derive the same verdicts as a plain Fraction oracle ----------

entries = st.one_of(st.integers(-6, 6), st.integers(-6, 6).map(float),
                    st.sampled_from([0.5, -0.25, 0.1, 1e-300, 3e17]),
                    st.fractions(max_denominator=7), st.sampled_from(["1/3", "-0.2"]))


@st.composite
def claims(draw):
    """Data of one entry kind (ints, integer floats, floats, Fractions or strings, as
    the fast paths see them) or mixed, labels, and a witness or a certificate that
    may or may not hold."""
    n, d = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    kind = draw(st.sampled_from(["int", "intfloat", "mixed"]))
    one = {"int": st.integers(-6, 6), "intfloat": st.integers(-6, 6).map(float),
           "mixed": entries}[kind]
    X = draw(st.lists(st.lists(one, min_size=d, max_size=d), min_size=n, max_size=n))
    y = draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
    intercept = draw(st.booleans())
    small = st.integers(-3, 3).map(Fraction) | st.fractions(max_denominator=5)
    if draw(st.booleans()):
        w = draw(st.lists(small, min_size=d + intercept, max_size=d + intercept))
        claim = dict(separable=True, witness=tuple(w), certificate=None)
        if draw(st.booleans()):  # labels by the witness: it holds unless a score is 0
            y = [1 if sum(Fraction(a) * b for a, b in zip(row + [1], w)) > 0 else -1
                 for row in X]
    else:
        idx = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
        lam = draw(st.lists(st.integers(1, 3).map(Fraction) | st.fractions(
            min_value=Fraction(1, 4), max_denominator=4), min_size=len(idx),
            max_size=len(idx)))
        claim = dict(separable=False, witness=None, certificate=dict(zip(idx, lam)))
    return X, y, dataclasses.make_dataclass("V", ["separable", "intercept", "witness",
                                                  "certificate"])(intercept=intercept,
                                                                  **claim)


def oracle(X, y, v):
    """The claim checked the slow, obvious way: every row in Fractions."""
    Z = [[Fraction(x) * t for x in row] + ([Fraction(t)] if v.intercept else [])
         for row, t in zip(X, y)]
    if v.separable:
        return all(sum(a * b for a, b in zip(z, v.witness)) > 0 for z in Z)
    return all(lam > 0 for lam in v.certificate.values()) and all(
        sum(lam * Z[i][j] for i, lam in v.certificate.items()) == 0
        for j in range(len(Z[0])))


def verdict_of(X, y, v):
    try:
        return check_certificate(X, y, v)
    except CertificateError:
        return False


@given(claims())
def test_checker_equals_the_fraction_oracle_dense_numpy_and_sparse_hypo(claim):
    import scipy.sparse as sp

    X, y, v = claim
    expected = oracle(X, y, v)
    assert verdict_of(X, y, v) == expected
    if all(type(x) in (int, float) for row in X for x in row):  # NumPy and sparse too
        A = np.array(X)
        assert verdict_of(A, y, v) == expected
        assert verdict_of(sp.csr_array(A), y, v) == expected
        assert data_sha256(sp.csr_array(A), y) == data_sha256(X, y)


def test_sparse_repeated_entries_add_up_exactly():
    import scipy.sparse as sp

    # a CSR matrix storing 0.1 and 0.2 at (i, 0): exactly 0.1 + 0.2 (binary), not
    # their float sum (a COO matrix's tocsr() would already have summed them in float)
    A = sp.csr_array((np.array([0.1, 0.2, 0.1, 0.2]), np.array([0, 0, 0, 0]),
                      np.array([0, 2, 4])), shape=(2, 1))
    assert not A.has_canonical_format
    exact = Fraction(0.1) + Fraction(0.2)
    assert exact != Fraction(0.1 + 0.2)
    claim = dataclasses.make_dataclass("V", ["separable", "intercept", "witness",
                                             "certificate"])
    assert check_certificate(A, [1, -1], claim(False, False, None, {0: 1, 1: 1}))
    w = (1 / exact,)  # w . x = 1 exactly for the exact sum only
    assert check_certificate(A, [1, 1], claim(True, False, w, None))
    assert data_sha256(A, [1, 1]) == data_sha256([[exact], [exact]], [1, 1])


@given(st.lists(st.integers(-10**20, 10**20)), st.integers(1, 10**6))
def test_fractions_text_is_what_str_fraction_writes_hypo(nums, den):
    from markone._internal.datahash import fractions_text

    assert fractions_text(nums, den) == " ".join(str(Fraction(v, den)) for v in nums)


def test_a_coordinate_that_does_not_cancel_is_numbered_from_1_with_its_index():
    # "coordinate 0 of sum lambda_i y_i [x_i, 1]": a word and a number from 0 in text a
    # person reads (#37; docs/command-line.md, "How things are numbered")
    X, y = [[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 0]
    good = check_separable(X, y)
    forged = forge(good, certificate={0: Fraction(1), 1: Fraction(2), 2: Fraction(1),
                                      3: Fraction(1)})   # sums to (0, 1, 1)
    with pytest.raises(CertificateError, match=r"does not cancel: coordinate 2 of sum "
                       r"lambda_i y_i \[x_i, 1\] \(index 1\) is 1, not 0\.$"):
        check_certificate(X, y, forged)
