"""The Coq kernel reads what the Python kernel reads (issue 46, item 4): lists of
300,000 entries (its readers and recursions were not tail-recursive: Stack_overflow),
numbers over Python's 4,300-digit ``str(int)`` limit up to the reader's own limit
(100,000 characters, exponents to 10^100,000), the same exit status as the Python
kernel on every file of the hostile corpora, and a budget of counted work
(``--budget``) and a ``--timeout`` (exit 4)."""

import json
import os
import stat
from fractions import Fraction
from types import SimpleNamespace

import pytest
from _paths import load_test_module

from markone.cli import main
from verify.certificate import (SparseData, certificate_document, certificate_json,
                                data_sha256, read_certificate)
from verify.errors import CertificateError
from verify.certificate.kernel import check_certificate
from verify.coq import check_with_coq, missing_tools
from verify.errors import CoqUndecided
from verify.coq.build import CoqBuild

MISSING = missing_tools()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"Coq is absent: {MISSING}")


HOSTILE = load_test_module("verify/certificate/test_certificate_hostile.py")
CHECKER = load_test_module("verify/coq/test_coq_checker.py")
certs, sparse_certs = CHECKER.certs, CHECKER.sparse_certs  # the same fixtures

WITNESS = SimpleNamespace(separable=True, intercept=True, witness=None, certificate=None)


def claim(**fields):
    return SimpleNamespace(**{**vars(WITNESS), **fields})


def both(X, y, proof, coq_build):
    """(Python kernel's verdict, Coq checker's verdict): True, or False when refuted."""
    out = []
    for check in (check_certificate, lambda *a: check_with_coq(*a, built=coq_build)):
        try:
            out.append(check(X, y, proof))
        except CertificateError:
            out.append(False)
    return tuple(out)


# ---- lists of 300,000 entries ----

@pytest.mark.parametrize("n,d", [(300_000, 1), (1, 300_000)])
def test_300000_examples_or_features_are_checked(n, d, coq_build):
    """Rows alternate -1 and +1 times the label: w = (1, ..., 1, 0) separates them.
    With 300,000 examples, the last one made the first with the other label: a Gordan
    certificate of the two holds (the walk goes down every row)."""
    X = [[1 if i % 2 else -1] * d for i in range(n)]
    y = [1 if i % 2 else -1 for i in range(n)]
    assert both(X, y, claim(witness=[1] * d + [0]), coq_build) == (True, True)
    if n > 1:
        X[-1], y[-1] = X[0], 1
        gordan = claim(separable=False, witness=None, certificate={0: 1, n - 1: 1})
        assert both(X, y, gordan, coq_build) == (True, True)


@pytest.mark.slow
def test_3000000_examples_are_checked(coq_build):
    X, y = [[i % 7 + 1, 1] for i in range(3_000_000)], [1] * 3_000_000
    assert both(X, y, claim(witness=[1, 1, 0]), coq_build) == (True, True)


# ---- numbers of any size the reader reads ----

BIG = "3" + "0" * 5000  # 5,001 digits: over Python's str(int) limit


@pytest.mark.parametrize("w", [
    [BIG, "2" + BIG[1:], "-4" + BIG[1:]],                    # 5,001 digits
    ["1e100000", "1e100000", "-15e99999"],                   # 100,001 digits
    ["-1e100000", "2", "-4"],                                # refuted
    [f"1/{BIG}", f"1/{BIG}", f"-3/6{BIG[1:]}"],              # 5,001-digit denominators
    ["3e-100000", "2e-100000", "-4e-100000"],
])
def test_numbers_beyond_4300_digits(w, coq_build):
    X, y = HOSTILE.AND
    py, coq = both(X, y, claim(witness=w), coq_build)
    assert py == coq and py is (not w[0].startswith("-")), (py, coq)


def test_gordan_weights_and_indices_beyond_4300_digits(coq_build):
    X, y = HOSTILE.XOR
    gordan = claim(separable=False, witness=None)
    assert both(X, y, claim(**{**vars(gordan), "certificate": dict.fromkeys(
        range(4), "7e99999")}), coq_build) == (True, True)
    for far in (4, 2**62, 2**64, 10**30, 10**5000):  # past every example: refuted
        cert = {**dict.fromkeys(range(4), 1), far: 1}
        assert both(X, y, claim(**{**vars(gordan), "certificate": cert}),
                    coq_build) == (False, False), far


def test_fractions_of_60000_digits_in_the_data(coq_build):
    """Data of 60,000-digit fractions with distinct denominators: lowest terms by Coq's
    binary gcd recursed once per bit (200,000 deep: Stack_overflow; and quadratic, 290 s
    on a few MB of 4,000-digit fractions); by Zarith's gcd now, within a budget."""
    import random

    rng = random.Random(46)
    big = [rng.getrandbits(200_000) | 1 for _ in range(6)]
    X = [[Fraction(big[2 * i], big[2 * i + 1]), -Fraction(big[2 * i + 1], big[2 * i])]
         for i in range(3)]
    y = [1] * 3
    assert both(X, y, claim(intercept=False, witness=[1, 0]), coq_build) == (True, True)
    assert both(X, y, claim(intercept=False, witness=[0, 1]), coq_build) == (False, False)
    assert check_with_coq(X, y, claim(intercept=False, witness=[1, 0]), built=coq_build,
                          budget=50_000_000)


# ---- the same exit status as the Python kernel on every hostile file ----

def _corpus(folder):
    """(name, file text, flags) of every certificate of the hostile corpora: the
    forgeries of the certificate-file tests, the hostile files, and numbers and
    indices of every size."""
    for name, doc in CHECKER.forged_documents(folder):
        yield name, json.dumps(doc), ()
    for name, (text, flags, _) in HOSTILE.HOSTILE.items():
        yield name, text, flags
    for name, edit in {
        "5,001-digit witness": lambda d: d.__setitem__("witness", [BIG, BIG, "-" + BIG]),
        "100,001-digit witness": lambda d: d.__setitem__("witness", ["1e100000"] * 3),
        "witness too short": lambda d: d.__setitem__("witness", ["3", "2"]),
        "witness too long": lambda d: d.__setitem__("witness", ["3", "2", "-4", "0"]),
    }.items():
        yield name, HOSTILE.edited(HOSTILE.and_doc, edit), ()
    for key in ("4", "18446744073709551616", "1" + "0" * 5000):
        yield f"index {key[:20]}", HOSTILE.edited(
            HOSTILE.xor_doc, lambda d: d["certificate"].__setitem__(key, "1")), ()
    yield "weights 1e-100000", HOSTILE.edited(HOSTILE.xor_doc, lambda d: d.__setitem__(
        "certificate", dict.fromkeys("0123", "1e-100000"))), ()


def test_the_two_kernels_exit_alike_on_the_hostile_corpus(sparse_certs, capsys,
                                                          monkeypatch, coq_build):
    import verify.coq

    monkeypatch.setattr(verify.coq, "build", lambda: coq_build)
    path, tried, differing = sparse_certs / "hostile.json", 0, []
    for name, text, flags in _corpus(sparse_certs):
        path.write_text(text)
        codes = [main(["verify", "check", str(path), *flags, *kernel])
                 for kernel in ((), ("--checker", "coq"))]
        tried += 1
        if codes[0] != codes[1]:
            differing.append((name, codes))
    out, err = capsys.readouterr()
    print(f"hostile corpus: {tried} tried, {tried - len(differing)} equal status, "
          f"{len(differing)} differing {differing}")
    assert tried >= 90 and differing == [], differing  # 10**15 columns included
    assert "Exceeds the limit" not in out + err and "this is a bug" not in out + err


# ---- sparse data: the checker is handed the columns that occur ----

def _statuses(path, capsys):
    codes = [main(["verify", "check", str(path), *kernel])
             for kernel in ((), ("--checker", "coq"))]
    return codes, capsys.readouterr().out


def _sparse_file(tmp_path, X, y, proof):
    path = tmp_path / "sparse.json"
    path.write_text(certificate_json(certificate_document(X, y, proof)))
    return path


def test_sparse_columns_spread_over_10_12_indices(tmp_path, capsys, monkeypatch,
                                                  coq_build):
    """Examples 0 (+1) and 1 (-1) are equal, over columns up to 10^12 - 1: the Gordan
    certificate {0: 1, 1: 1} holds in both kernels (the Coq checker was handed 10^12
    dense columns: refused, exit 2); moved to another column, it does not (exit 1)."""
    import verify.coq

    monkeypatch.setattr(verify.coq, "build", lambda: coq_build)
    far = [7, 123_456_789_012, 10**12 - 1]
    X = SparseData((3, 10**12), [0, 3, 6, 7], far + far + [far[1]], [1, "5/3", -2] * 2 + [4])
    gordan = claim(separable=False, witness=None, certificate={0: 1, 1: 1})
    path = _sparse_file(tmp_path, X, [1, -1, 1], gordan)
    assert _statuses(path, capsys)[0] == [0, 0]
    doc = json.loads(path.read_text())
    doc["data"]["indices"][0] = 8  # tampered: the hash recomputed, the proof fails
    doc["data_sha256"] = data_sha256(SparseData(*(doc["data"][k] for k in (
        "shape", "indptr", "indices", "values"))), doc["data"]["y"])
    path.write_text(json.dumps(doc))
    codes, out = _statuses(path, capsys)
    assert codes == [1, 1] and out.count("INVALID") == 2, out


def test_more_columns_than_ocaml_can_number_are_refused_not_a_bug(tmp_path, capsys,
                                                                  monkeypatch, coq_build):
    """Columns past OCaml's max_int (2^62 - 1) cannot be numbered by the checker's
    reader: refused in one line (exit 2, naming the Python kernel), where it was an
    internal error (exit 3); the Python kernel checks the certificate (exit 0)."""
    import verify.coq

    monkeypatch.setattr(verify.coq, "build", lambda: coq_build)
    far = [7, 2**62 + 5]
    X = SparseData((2, 2**62 + 10), [0, 2, 4], far + far, [1, 2] * 2)
    gordan = claim(separable=False, witness=None, certificate={0: 1, 1: 1})
    path = _sparse_file(tmp_path, X, [1, -1], gordan)
    assert main(["verify", "check", str(path)]) == 0
    assert main(["verify", "check", str(path), "--checker", "coq"]) == 2
    err = capsys.readouterr().err
    assert "more than the Coq checker can number" in err and "Traceback" not in err


def test_sparse_witness_over_the_occurring_columns(tmp_path, capsys, monkeypatch,
                                                   coq_build):
    """3,000 x 50,000 sparse data (1.5 x 10^8 dense entries, over the 10^8 the checker
    holds; 2 columns occur): a witness of 50,001 entries is checked by both kernels,
    one that fails, and one entry short, refuted by both."""
    import verify.coq

    monkeypatch.setattr(verify.coq, "build", lambda: coq_build)
    n, d = 3000, 50_000
    X = SparseData((n, d), list(range(n + 1)), [3 if i % 2 else 40_000 for i in range(n)],
                   [1] * n)
    y = [1] * n
    w = [0] * (d + 1)
    for (j, v, b), codes in (((3, 1, 0), [0, 0]), ((40_000, 1, -1), [1, 1])):
        w[3], w[40_000], w[j], w[-1] = 1, 1, v, b
        path = _sparse_file(tmp_path, X, y, claim(witness=list(w)))
        assert _statuses(path, capsys)[0] == codes
    doc = json.loads(path.read_text())
    doc["witness"] = ["1"] * d  # one short
    path.write_text(json.dumps(doc))
    assert _statuses(path, capsys)[0] == [1, 1]


# ---- a budget of counted work, and a timeout ----

def _and_file(tmp_path):
    path = tmp_path / "and.json"
    path.write_text(certificate_json(certificate_document(*HOSTILE.AND, HOSTILE.AND_PROOF)))
    return str(path)


def test_the_budget_stops_the_coq_checker_at_the_same_point(tmp_path, capsys,
                                                            monkeypatch, coq_build):
    """A budget of words allocated: too small, exit 4 (every time); enough, exit 0."""
    import verify.coq

    monkeypatch.setattr(verify.coq, "build", lambda: coq_build)
    path = _and_file(tmp_path)
    for _ in range(2):
        assert main(["verify", "check", path, "--checker", "coq", "--budget", "1"]) == 4
        out = capsys.readouterr().out
        assert out.startswith("UNDECIDED:") and "--budget 1 words" in out, out
    assert main(["verify", "check", path, "--checker", "coq", "--budget", "10000000"]) == 0
    X = [[1, 2]] * 100_000
    with pytest.raises(CoqUndecided, match="--budget 1,000,000 words"):
        check_with_coq(X, [1] * 100_000, claim(witness=[1, 1, 1]), built=coq_build,
                       budget=1_000_000)


def test_budget_and_timeout_belong_to_the_coq_kernel(tmp_path, capsys):
    path = _and_file(tmp_path)
    for flag, value in (("--budget", "10"), ("--timeout", "1")):
        assert main(["verify", "check", path, flag, value]) == 2
        err = capsys.readouterr().err
        assert f"{flag} applies to --checker coq only" in err, err


def test_the_timeout_stops_a_checker_that_hangs(tmp_path):
    """A checker that never answers (a stand-in executable) is stopped at --timeout:
    CoqUndecided names it, and the process is gone."""
    pid_file = tmp_path / "pid"
    hang = tmp_path / "hang"
    hang.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 600\n")
    hang.chmod(hang.stat().st_mode | stat.S_IEXEC)
    X, y = HOSTILE.AND
    with pytest.raises(CoqUndecided, match="within --timeout 0.5 s"):
        check_with_coq(X, y, claim(witness=[3, 2, -4]), timeout=0.5,
                       built=CoqBuild(tmp_path, (), hang))
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)



# ---- a bound on memory (issue 46): running out is "stopped", exit 4, not a bug ----

def test_the_memory_bound_stops_the_coq_checker(coq_build):
    """300,000 examples read within 0.05 GB of memory: stopped (twice alike),
    ``stopped_by`` memory; within the default 4 GB: checked. The checker's memory was
    unbounded, and running out ended as an internal error (exit 3)."""
    X, y = [[1, 2]] * 300_000, [1] * 300_000
    for _ in range(2):
        with pytest.raises(CoqUndecided, match="within --max-memory 0.05 GB") as info:
            check_with_coq(X, y, claim(witness=[1, 1, 1]), built=coq_build,
                           max_memory_gb=0.05)
        assert info.value.stopped_by == "memory"
    assert check_with_coq(X, y, claim(witness=[1, 1, 1]), built=coq_build) is True
    with pytest.raises(ValueError, match="max_memory_gb=0.01 is below the 0.05 GB"):
        check_with_coq(X[:2], y[:2], claim(witness=[1, 1, 1]), built=coq_build,
                       max_memory_gb=0.01)


@pytest.mark.slow  # 6.5 s of CPU (200,000 examples); the library's sibling above is fast
def test_the_command_exits_4_when_the_coq_checker_runs_out_of_memory(
        tmp_path, capsys, monkeypatch, coq_build):
    import verify.coq

    monkeypatch.setattr(verify.coq, "build", lambda: coq_build)
    n = 200_000
    path = tmp_path / "big.json"
    path.write_text(certificate_json(certificate_document(
        [[-1, -2]] + [[1, 2]] * (n - 1), [0] + [1] * (n - 1), claim(witness=[1, 0, 0]))))
    assert main(["verify", "check", str(path), "--checker", "coq", "--max-memory",
                 "0.05"]) == 4
    out = capsys.readouterr().out
    assert out.startswith("UNDECIDED:") and "--max-memory 0.05 GB" in out, out
    assert main(["verify", "check", str(path), "--max-memory", "1"]) == 2
    assert "--max-memory applies to --checker coq only" in capsys.readouterr().err
