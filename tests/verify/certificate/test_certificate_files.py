"""Certificates bound to their data (issue 17): ``markone verify check`` exits 0 for a
valid certificate, 1 for one that is wrong (a proof that fails, data that do not match
their hash or their source), 2 for a file that cannot be read as a certificate, and
never shows a traceback. Every certificate markone writes reads back. The forgery
battery covers both layouts of the data: dense rows and the sparse ``csr`` block of
format ``/3`` (issue 19)."""

import copy
import json
import os

import numpy as np
import pytest
import scipy.sparse as sp

from markone.cli import main
from verify.certificate import SparseData, data_sha256

XOR_CSV = "0,0,0\n0,1,1\n1,0,1\n1,1,0\n"
AND_CSV = "x1,x2,label\n0,0,no\n0,1,no\n1,0,no\n1,1,yes\n"


@pytest.fixture
def certs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "xor.csv").write_text(XOR_CSV)
    (tmp_path / "and.csv").write_text(AND_CSV)
    assert main(["verify", "separable", "xor.csv", "--certificate", "xor.json"]) == 1
    assert main(["verify", "separable", "and.csv", "--certificate", "and.json"]) == 0
    return tmp_path


def sparse_data():
    """A small not-separable sparse data set: examples 0 (+1) and 1 (-1) are equal."""
    A = sp.csr_array(np.array([[0, 3, 0, 0], [0, 3, 0, 0], [0, 0, 0, 0], [1, 0, 0, 2],
                               [0, 0, 0, 5]]))
    return A, [1, 0, 1, 0, 1]


@pytest.fixture
def sparse_certs(certs):
    """The dense certificates, and two of ``.npz`` sparse data (csr blocks)."""
    tmp_path = certs
    A, y = sparse_data()
    sp.save_npz(tmp_path / "s.npz", sp.hstack([A, sp.csr_array(np.array(y)[:, None])])
                .tocsr())
    assert main(["verify", "separable", "s.npz", "--certificate", "s.json"]) == 1
    B = sp.csr_array(np.array([[1, 0], [0, 0], [0, 2], [3, 0]]))
    sp.save_npz(tmp_path / "t.npz", sp.hstack([B, sp.csr_array(np.array(
        [[1], [1], [0], [1]]))]).tocsr())
    assert main(["verify", "separable", "t.npz", "--certificate", "t.json"]) == 0
    return tmp_path


def status(path, capsys):
    """``verify check``'s exit status; the output must never be a traceback."""
    capsys.readouterr()
    code = main(["verify", "check", str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and code in (0, 1, 2), (code, out, err)
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err  # one line on stderr
    return code, out + err


def rewrite(path, doc=None, text=None):
    path.write_text(text if text is not None else json.dumps(doc))
    return path


def forged_status(folder, cert, forge, capsys):
    """:func:`status` of ``folder/cert`` after ``forge`` edited its JSON document."""
    doc = json.loads((folder / cert).read_text())
    forge(doc)
    return status(rewrite(folder / "forged.json", doc), capsys)


def test_valid_certificates_exit_0_whichever_verdict(certs, capsys):
    for name in ("xor.json", "and.json"):
        code, out = status(certs / name, capsys)
        assert code == 0 and "OK" in out and "sha256 matches" in out
    (certs / "and.csv").rename(certs / "elsewhere.csv")  # source gone: not compared
    code, out = status(certs / "and.json", capsys)
    assert code == 0 and "not present here" in out


def test_a_source_that_is_no_regular_file_is_named_for_what_it_is(certs, capsys):
    # issue 46: a FIFO or a device is there, so "not present here" was untrue; the
    # check must not open it either (a FIFO with no writer blocks)
    (certs / "and.csv").unlink()
    os.mkfifo(certs / "and.csv")
    code, out = status(certs / "and.json", capsys)
    assert code == 0 and "source and.csv is a FIFO, not a regular file: not compared" in out
    doc = json.loads((certs / "and.json").read_text())
    doc["source"]["path"] = os.devnull
    code, out = status(rewrite(certs / "null.json", doc), capsys)
    assert code == 0 and (f"source {os.devnull} is a character device, not a regular "
                          "file: not compared") in out
    doc["source"]["path"] = "."
    code, out = status(rewrite(certs / "dot.json", doc), capsys)
    assert code == 0 and "source . is a folder, not a regular file" in out


def test_the_certificate_names_its_data(certs):
    doc = json.loads((certs / "xor.json").read_text())
    assert doc["data_sha256"] == data_sha256(doc["data"]["X"], doc["data"]["y"])
    assert doc["data_sha256"] == data_sha256([[0, 0], [0, 1], [1, 0], [1, 1]],
                                             [-1, 1, 1, -1])
    assert len(doc["source"]["sha256"]) == 64 and doc["source"]["path"] == "xor.csv"


WRONG = {  # forgeries that are readable certificates but prove nothing: exit 1
    "edited data": lambda d: d["data"]["X"][0].__setitem__(0, 5),
    "flipped label": lambda d: d["data"]["y"].__setitem__(0, 1 - d["data"]["y"][0]),
    "negative multiplier": lambda d: d["certificate"].__setitem__("1", "-1"),
    "zero multiplier": lambda d: d["certificate"].__setitem__("0", "0"),
    "changed multiplier": lambda d: d["certificate"].__setitem__("3", "3/2"),
    "dropped example": lambda d: d["certificate"].pop("2"),
    "unknown example": lambda d: d["certificate"].__setitem__("9", "1"),
}


def sparse_edit(field, k, value):
    return lambda d: d["data"][field].__setitem__(k, value)


SPARSE_UNREADABLE = {  # exit 2: not a sparse block one can read
    "indptr not monotone": sparse_edit("indptr", 2, 0),
    "indptr not ending at nnz": sparse_edit("indptr", -1, 4),
    "indptr too short": lambda d: d["data"]["indptr"].pop(1),
    "index out of range": sparse_edit("indices", 3, 4),
    "negative index": sparse_edit("indices", 0, -1),
    "duplicate index": sparse_edit("indices", 3, 0),
    "index as a float": sparse_edit("indices", 0, 1.0),
    "index as a boolean": sparse_edit("indices", 0, True),
    "shape with more rows": lambda d: d["data"].__setitem__("shape", [6, 4]),
    "shape with fewer columns": lambda d: d["data"].__setitem__("shape", [5, 3]),
    "shape of one number": lambda d: d["data"].__setitem__("shape", [5]),
    "a value short": lambda d: d["data"]["values"].pop(),
    "a stored zero": sparse_edit("values", 0, 0),
    "a value that is no number": sparse_edit("values", 0, "three"),
    "a null value": sparse_edit("values", 0, None),
    "1/0 value": sparse_edit("values", 0, "1/0"),
    "labels short": lambda d: d["data"]["y"].pop(),
    "unknown layout": lambda d: d["data"].__setitem__("layout", "coo"),
    "no indices": lambda d: d["data"].pop("indices"),
    "csr in format /2": lambda d: d.__setitem__("format", "markone.verify.separability/2"),
}

SPARSE_WRONG = {  # exit 1: readable, but not the data or not a proof
    "value edited": sparse_edit("values", 3, 3),
    "value edited to a fraction": sparse_edit("values", 0, "3/2"),
    "entry moved to another column": sparse_edit("indices", 0, 2),
    "hash edited": lambda d: d.__setitem__("data_sha256", "0" * 64),
    "label flipped": lambda d: d["data"]["y"].__setitem__(0, 0),
    "10**15 columns, hash recomputed": lambda d: (  # same non-zeros, other data
        d["data"].__setitem__("shape", [5, 10**15]),
        d.__setitem__("data_sha256", data_sha256(SparseData(
            d["data"]["shape"], d["data"]["indptr"], d["data"]["indices"],
            d["data"]["values"]), d["data"]["y"]))),
}


@pytest.mark.parametrize("cert,name", [("xor.json", k) for k in sorted(WRONG)] +
                         [("s.json", k) for k in sorted(SPARSE_WRONG)])
def test_wrong_certificates_exit_1(sparse_certs, capsys, cert, name):
    code, out = forged_status(sparse_certs, cert, {**WRONG, **SPARSE_WRONG}[name], capsys)
    assert code == 1 and "INVALID" in out, out


def test_edited_data_with_a_recomputed_hash(certs, capsys):
    """A forger who edits the data and recomputes data_sha256 is caught by the source
    file when it is present, and by the proof when it is not."""
    doc = json.loads((certs / "xor.json").read_text())
    # moving examples 0 (label -1) and 1 (label +1) by the same vector keeps
    # sum lambda_i y_i [x_i, 1] = 0: the proof holds for these other data
    doc["data"]["X"][0] = [2, 3]
    doc["data"]["X"][1] = [2, 4]
    doc["data_sha256"] = data_sha256(doc["data"]["X"], doc["data"]["y"])
    code, out = status(rewrite(certs / "forged.json", doc), capsys)
    assert code == 1 and "not the data of xor.csv" in out
    (certs / "xor.csv").unlink()  # no source to compare: valid for its own data
    code, out = status(certs / "forged.json", capsys)
    assert code == 0 and "not present here" in out
    doc["data"]["X"][3] = [1, 2]  # and a proof that fails on the edited data
    doc["data_sha256"] = data_sha256(doc["data"]["X"], doc["data"]["y"])
    code, out = status(rewrite(certs / "forged.json", doc), capsys)
    assert code == 1 and "does not cancel" in out


def test_a_changed_source_file_exit_1(certs, capsys):
    (certs / "xor.csv").write_text(XOR_CSV + "2,2,1\n")
    code, out = status(certs / "xor.json", capsys)
    assert code == 1 and "has changed" in out


def test_perturbed_witnesses(certs, capsys):
    doc = json.loads((certs / "and.json").read_text())
    assert doc["witness"] == ["3", "2", "-4"]
    for w, expected in ((["3", "2", "-3"], 1),             # (1, 0): 3 - 3 = 0, not < 0
                        (["3", "2", "-4.000000000000000000001"], 0),  # still separates
                        (["3", "2", "-5"], 1),             # (1, 1): 0
                        ([f"3{'0' * 300}", f"2{'0' * 300}", f"-4{'0' * 300}"], 0),
                        (["3", "2"], 1)):                  # too short
        doc["witness"] = w
        code, out = status(rewrite(certs / "w.json", doc), capsys)
        assert code == expected, (w, out)


UNREADABLE = {  # not a certificate one can read: exit 2
    "intercept as a string": lambda d: d.__setitem__("intercept", "false"),
    "separable as a string": lambda d: d.__setitem__("separable", "false"),
    "separable as 0": lambda d: d.__setitem__("separable", 0),
    "certificate as a list": lambda d: d.__setitem__("certificate", [1, 1, 1, 1]),
    "witness where none belongs": lambda d: d.__setitem__("witness", ["1", "1", "1"]),
    "hash of the wrong type": lambda d: d.__setitem__("data_sha256", 12),
    "missing hash": lambda d: d.pop("data_sha256"),
    "missing data": lambda d: d.pop("data"),
    "boolean entry": lambda d: d["data"]["X"][0].__setitem__(0, True),
    "null entry": lambda d: d["data"]["X"][0].__setitem__(0, None),
    "ragged rows": lambda d: d["data"]["X"][0].append(1),
    "label list": lambda d: d["data"]["y"].__setitem__(0, [1]),
    "three classes": lambda d: d["data"]["y"].__setitem__(0, 7),
    "1/0 weight": lambda d: d["certificate"].__setitem__("0", "1/0"),
    "huge exponent": lambda d: d["certificate"].__setitem__("0", "1e999999999"),
    "word for a number": lambda d: d["certificate"].__setitem__("0", "one"),
    "index that is not one": lambda d: d["certificate"].__setitem__("x", "1"),
    "old format": lambda d: d.__setitem__("format", "markone.verify.separability/1"),
    "source path not a string": lambda d: d["source"].__setitem__("path", 3),
}


@pytest.mark.parametrize("cert,name", [("xor.json", k) for k in sorted(UNREADABLE)] +
                         [("s.json", k) for k in sorted(SPARSE_UNREADABLE)])
def test_malformed_certificates_exit_2(sparse_certs, capsys, cert, name):
    code, out = forged_status(sparse_certs, cert, {**UNREADABLE, **SPARSE_UNREADABLE}[name],
                              capsys)
    assert code == 2, out


def test_broken_files_exit_2(certs, capsys):
    text = (certs / "xor.json").read_text()
    raw = {
        "truncated": text[: len(text) // 2],
        "cut at the end": text[:-2],
        "empty": "",
        "infinite number": text.replace('"certificate": {\n    "0": "1"',
                                        '"certificate": {\n    "0": 1e999'),
        "NaN": text.replace('"certificate": {\n    "0": "1"',
                            '"certificate": {\n    "0": NaN'),
        "5000-digit integer": text.replace('"certificate": {\n    "0": "1"',
                                           '"certificate": {\n    "0": ' + "7" * 5000),
        "deep nesting": "[" * 100_000 + "]" * 100_000,
        "not an object": "[1, 2, 3]",
    }
    assert raw["infinite number"] != text and raw["NaN"] != text
    for name, body in raw.items():
        code, out = status(rewrite(certs / "broken.json", text=body), capsys)
        assert code == 2, (name, out)
    (certs / "bin.json").write_bytes(b"\xff\xfe\x00garbage")
    assert status(certs / "bin.json", capsys)[0] == 2
    assert status(certs / "missing.json", capsys)[0] == 2


def test_every_certificate_markone_writes_reads_back(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rat.csv").write_text("0.1,1/3,1\n0.2,2/3,0\n0.3,1,1\n")
    for args in (["xor"], ["rat.csv", "--no-intercept"], ["rat.csv"],
                 ["iris", "--method", "lp"]):
        capsys.readouterr()
        main(["verify", "separable", *args, "--certificate", "c.json"])
        assert status(tmp_path / "c.json", capsys)[0] == 0, args
    import numpy as np

    X = np.array([[1.0], [1.0]], dtype=np.longdouble)
    X[1, 0] += np.longdouble(2) ** -60  # a longdouble: embedded exactly, not rounded
    np.savez(tmp_path / "ld.npz", X=X, y=np.array([0, 1]))
    assert main(["verify", "separable", "ld.npz", "--certificate", "c.json"]) == 0
    assert status(tmp_path / "c.json", capsys)[0] == 0


def test_the_demo_certificate_reads_back(tmp_path, capsys):
    from sims.cli.demo import _separability_section

    class Report:
        out = tmp_path

        def section(self, *a, **k):
            pass

    assert _separability_section(Report())["certificate_checked"]
    code, out = status(tmp_path / "xor-certificate.json", capsys)
    assert code == 0 and "built-in data xor" in out
    doc = copy.deepcopy(json.loads((tmp_path / "xor-certificate.json").read_text()))
    doc["data"]["X"][0] = [5, 5]  # examples 0 (-1) and 1 (+1) moved alike: still
    doc["data"]["X"][1] = [5, 7]  # cancels, but these are not the data of xor
    doc["data_sha256"] = data_sha256(doc["data"]["X"], doc["data"]["y"])
    code, out = status(rewrite(tmp_path / "f.json", doc), capsys)
    assert code == 1 and "not the data of xor" in out
