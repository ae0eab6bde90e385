"""Sparse certificate files (issue 19): format ``/3`` stores scipy.sparse data by their
non-zero entries (``"layout": "csr"``), names them by the same hash as the dense
layout, and is written and checked without ever making the data dense."""

import hashlib
import json
import os
from pathlib import Path
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from _paths import ROOT
from markone.cli import main
from test_certificate import claims, oracle
from test_certificate_files import certs, rewrite, sparse_certs, sparse_data, status  # noqa: F401
from verify.certificate import (SparseData, certificate_document, certificate_json,
                                check_certificate_file, data_sha256)
from verify.errors import CertificateError


def write(path, doc):
    path.write_text(certificate_json(doc))
    return path


def checks(path):
    """True when the file checks, False when its proof fails (CertificateError)."""
    try:
        return check_certificate_file(path).separable in (True, False)
    except CertificateError as exc:
        assert "Unreadable" not in type(exc).__name__, exc
        return False


def hash_oracle(X, y):
    """The version-2 data hash, from its definition, in Fractions: the columns of a
    row's non-zero entries, ':', the entries."""
    lines = ["markone-data/2", f"{len(X)} {len(X[0])}"]
    for row in X:
        nz = [(j, Fraction(v)) for j, v in enumerate(row) if Fraction(v) != 0]
        lines.append(" ".join(str(j) for j, _ in nz) + ":" +
                     " ".join(str(v) for _, v in nz))
    classes = sorted(set(y))  # markone's rule: -1/+1 as they are; else sorted
    pm1 = set(y) <= {-1, 1}
    lines.append(" ".join("+1" if (t == 1 if pm1 else len(classes) == 1 or
                                   t == classes[1]) else "-1" for t in y))
    return hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest()


@given(claim=claims())
def test_dense_and_sparse_files_give_the_same_hash_and_verdict_hypo(claim,
                                                                  tmp_path_factory):
    X, y, v = claim
    path = tmp_path_factory.mktemp("c")
    numeric = all(type(x) in (int, float) for row in X for x in row)
    stored = [X, sp.csr_array(np.array(X))] if numeric else [X]
    docs = [certificate_document(X, y, v, layout="dense")] + \
        [certificate_document(A, y, v, layout="csr") for A in stored]
    assert docs[-1]["data"]["layout"] == "csr" and "X" in docs[0]["data"]
    expected = oracle(X, y, v)
    for k, doc in enumerate(docs):
        assert doc["data_sha256"] == hash_oracle(X, y)
        assert checks(write(path / f"{k}.json", doc)) == expected


@given(st.integers(1, 8), st.integers(1, 8), st.data())
def test_sparsity_patterns_with_empty_rows_and_columns_hypo(n, d, data):
    """Random patterns (whole rows and columns of zeros included), stored unsorted and
    with entries twice: the csr block is canonical and hashes as the dense matrix."""
    M = np.array(data.draw(st.lists(st.lists(st.sampled_from([0, 0, 0, 1, -2, 0.5]),
                                             min_size=d, max_size=d),
                                    min_size=n, max_size=n)), dtype=float)
    y = data.draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    i, j = np.nonzero(M)
    half = M[i, j] / 2  # every entry stored twice, in reverse order: adds up exactly
    A = sp.csr_array((np.r_[half, half][::-1], (np.r_[i, i][::-1], np.r_[j, j][::-1])),
                     shape=(n, d))
    A = sp.csr_array((A.data, A.indices, A.indptr), shape=(n, d))  # keep as stored
    v = SimpleNamespace(separable=False, intercept=True, witness=None,
                        certificate={0: 1})
    doc = certificate_document(A, y, v)
    block = SparseData(doc["data"]["shape"], doc["data"]["indptr"],
                       doc["data"]["indices"], doc["data"]["values"])  # canonical
    assert block.indices == j.tolist() and block.values == M[i, j].tolist()
    assert doc["data_sha256"] == hash_oracle(M.tolist(), y) == data_sha256(M, y)


def test_sparse_npz_certificates_round_trip_through_verify_check(sparse_certs, capsys):
    for name in ("s.json", "t.json"):
        doc = json.loads((sparse_certs / name).read_text())
        assert doc["format"] == "markone.verify.separability/3"
        assert doc["data"]["layout"] == "csr" and "X" not in doc["data"]
        code, out = status(sparse_certs / name, capsys)
        assert code == 0 and "sha256 matches, its data are the embedded data" in out
    doc = json.loads((sparse_certs / "s.json").read_text())
    assert doc["data"]["indices"] == [1, 1, 0, 3, 3]  # row 2 is empty
    assert doc["data"]["indptr"] == [0, 1, 2, 2, 4, 5]
    A, y = sparse_data()
    assert doc["data_sha256"] == data_sha256(A.toarray(), y) == hash_oracle(
        A.toarray().tolist(), y)


def test_sparse_edits_with_a_recomputed_hash_are_caught_by_the_source(sparse_certs,
                                                                      capsys):
    doc = json.loads((sparse_certs / "s.json").read_text())
    doc["data"]["values"][:2] = [4, 4]  # examples 0 and 1 still cancel
    d = doc["data"]
    doc["data_sha256"] = data_sha256(SparseData(d["shape"], d["indptr"], d["indices"],
                                                d["values"]), d["y"])
    code, out = status(rewrite(sparse_certs / "forged.json", doc), capsys)
    assert code == 1 and "not the data of s.npz" in out


def test_truncated_sparse_files_exit_2(sparse_certs, capsys):
    text = (sparse_certs / "s.json").read_text()
    for cut in (len(text) // 3, text.index('"values"') + 12, len(text) - 3):
        code, out = status(rewrite(sparse_certs / "cut.json", text=text[:cut]), capsys)
        assert code == 2, (cut, out)


def test_format_2_files_still_read_and_check(tmp_path, capsys):
    """A /2 file: dense rows, named by the version-1 hash (every entry written out),
    recomputed here from its definition."""
    X, y = [[0, "1/2"], [3, 0]], [1, 0]
    v = SimpleNamespace(separable=True, intercept=False, witness=(-1, 1),
                        certificate=None)
    doc = certificate_document(X, y, v, layout="dense")
    doc["format"] = "markone.verify.separability/2"
    doc["data_sha256"] = hashlib.sha256(b"markone-data/1\n2 2\n0 1/2\n3 0\n+1 -1\n") \
        .hexdigest()
    assert data_sha256(X, y, version=1) == doc["data_sha256"] != data_sha256(X, y)
    assert status(write(tmp_path / "old.json", doc), capsys)[0] == 0
    doc["data_sha256"] = data_sha256(X, y)  # a version-2 hash in a /2 file: wrong
    assert status(write(tmp_path / "old.json", doc), capsys)[0] == 1


HUGE = """
import resource, sys, warnings
import numpy as np, scipy.sparse as sp
from types import SimpleNamespace
from verify.certificate import certificate_document, certificate_json, \\
    check_certificate_file

n, d = 200_000, 1_000_000
rng = np.random.default_rng(0)
rows = np.sort(rng.choice(n, 1_000, replace=False))
A = sp.csr_array((rng.integers(1, 9, 1_000).astype(float),
                  (rows, rng.integers(0, d, 1_000))), shape=(n, d))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # scipy: changing the sparsity structure
    A[[rows[0]], :] = A[[rows[1]], :]  # two equal examples of opposite labels
y = np.ones(n, dtype=int)
y[rows[1]] = -1
v = SimpleNamespace(separable=False, intercept=True, witness=None,
                    certificate={int(rows[0]): 1, int(rows[1]): 1})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with open(sys.argv[1], "w") as fh:
    fh.write(certificate_json(certificate_document(A, y, v)))
assert check_certificate_file(sys.argv[1]).separable is False
print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def test_a_huge_sparse_certificate_is_written_and_checked_without_densifying(tmp_path):
    """200,000 x 1,000,000 with 1,000 non-zeros: dense, the data would be 1.6 TB (and
    the text of the version-1 hash 400 GB); written and checked, the whole round trip
    stays within a few hundred MB of the process's size before it (peak RSS, in a
    fresh process)."""
    import subprocess
    import sys

    path = tmp_path / "huge.json"
    repo = ROOT  # this checkout's verify, not another
    out = subprocess.run([sys.executable, "-c", HUGE, str(path)], capture_output=True,
                         text=True, check=True, cwd=repo,
                         env={**os.environ, "PYTHONPATH": str(repo)}).stdout
    before, after = map(int, out.split())  # KiB (Linux)
    assert after - before < 400_000, (before, after)
    assert path.stat().st_size < 3_000_000  # 200,001 indptr entries, 1,000 entries
    doc = json.loads(path.read_text())
    assert doc["data"]["shape"] == [200_000, 1_000_000] and len(doc["data"]["values"]) \
        == 1_000
