"""The checker extracted from the Coq proofs (``markone verify check --checker coq``)
agrees with the Python kernel on every certificate of the certificate-file tests:
the valid ones, every readable forgery, and the perturbed witnesses (issue 30)."""

import copy
import json
import subprocess

import pytest
from _paths import load_test_module

from markone.cli import main
from verify.certificate import read_certificate
from verify.errors import CertificateError, CertificateUnreadable
from verify.certificate.kernel import check_certificate
from verify.coq import check_with_coq, missing_tools

MISSING = missing_tools()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"Coq is absent: {MISSING}")


FILES = load_test_module("verify/certificate/test_certificate_files.py")
certs, sparse_certs = FILES.certs, FILES.sparse_certs  # the same fixtures


def verdict(check, X, y, claim):
    try:
        return check(X, y, claim)
    except CertificateError:
        return False
    except ValueError as exc:
        return f"ValueError: {exc}"


def forged_documents(folder):
    """(name, document) of every certificate the certificate-file tests write or forge."""
    for cert in ("xor.json", "and.json", "s.json", "t.json"):
        yield cert, json.loads((folder / cert).read_text())
    forgeries = [("xor.json", k, f) for k, f in FILES.WRONG.items()] + \
        [("s.json", k, f) for k, f in FILES.SPARSE_WRONG.items()] + \
        [(c, k, f) for c in ("xor.json",) for k, f in FILES.UNREADABLE.items()] + \
        [("s.json", k, f) for k, f in FILES.SPARSE_UNREADABLE.items()]
    for cert, name, forge in forgeries:
        doc = json.loads((folder / cert).read_text())
        forge(doc)
        yield f"{cert}: {name}", doc
    doc = json.loads((folder / "and.json").read_text())
    for w in (["3", "2", "-3"], ["3", "2", "-4.000000000000000000001"], ["3", "2", "-5"],
              [f"3{'0' * 300}", f"2{'0' * 300}", f"-4{'0' * 300}"], ["3", "2"]):
        yield f"and.json: witness {w[-1][:8]}", {**copy.deepcopy(doc), "witness": w}


def test_the_coq_checker_agrees_with_the_python_kernel(sparse_certs, coq_build):
    seen = {True: 0, False: 0}
    for name, doc in forged_documents(sparse_certs):
        path = sparse_certs / "forged.json"
        path.write_text(json.dumps(doc))
        try:
            X, y, claim = read_certificate(path)
        except CertificateUnreadable:
            continue  # neither kernel sees it
        py = verdict(check_certificate, X, y, claim)
        coq = verdict(lambda *a: check_with_coq(*a, built=coq_build), X, y, claim)
        assert py == coq, (name, py, coq)
        seen[py] += 1
    assert seen[True] >= 6 and seen[False] >= 10, seen  # both kinds were compared


def test_verify_check_kernel_coq(sparse_certs, capsys, coq_build, monkeypatch):
    import verify.coq

    monkeypatch.setattr(verify.coq, "build", lambda: coq_build)
    for cert, code in (("xor.json", 0), ("t.json", 0)):
        assert main(["verify", "check", "--checker", "coq", str(sparse_certs / cert)]) == code
        assert "checked by the checker extracted from the Coq proofs" in capsys.readouterr().out
    doc = json.loads((sparse_certs / "and.json").read_text())
    doc["witness"] = ["3", "2", "-3"]
    (sparse_certs / "w.json").write_text(json.dumps(doc))
    assert main(["verify", "check", "--checker", "coq", str(sparse_certs / "w.json")]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and "Coq" in out, out


@pytest.mark.parametrize("text", [
    "markone-coq-certificate 1\nintercept 1\nexamples 1 1\n1 1/0\nwitness 2 1 1\n",
    "markone-coq-certificate 1\nintercept 2\nexamples 1 1\n1 1\nwitness 2 1 1\n",
    "markone-coq-certificate 1\nintercept 1\nexamples 2 1\n1 1\n",
    "markone-coq-certificate 1\nintercept 1\nexamples 1 1\n1 1\nwitness 2 1 1 extra\n",
    "something else\n",
])
def test_the_executable_refuses_text_it_cannot_read(tmp_path, coq_build, text):
    path = tmp_path / "c.txt"
    path.write_text(text)
    done = subprocess.run([str(coq_build.executable), str(path)], capture_output=True,
                          text=True)
    assert done.returncode == 2 and done.stderr.startswith("unreadable:"), done
