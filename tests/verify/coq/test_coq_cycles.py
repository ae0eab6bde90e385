"""Cycling certificates through the checker extracted from the Coq proofs
(``markone verify check --checker coq``, ``verify/coq/CycleCheck.v``, issue 41 item 5):
the certificates ``verify cycling --certificate`` writes are accepted, and every forgery
of ``tests/verify/certificate/test_cycle_certificate.py`` is refused, as the Python
check refuses it."""

import json
import subprocess

import pytest
from _paths import load_test_module

from markone.cli import main
from verify.coq import missing_tools

MISSING = missing_tools()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"Coq is absent: {MISSING}")


CYCLES = load_test_module("verify/certificate/test_cycle_certificate.py")
cycle_cert = CYCLES.cycle_cert   # the same fixture


@pytest.fixture
def coq(coq_build, monkeypatch):
    import verify.coq

    monkeypatch.setattr(verify.coq, "build", lambda: coq_build)
    return coq_build


def both(path, capsys):
    """The exit statuses of ``verify check`` in the Python check and in Coq's, and
    Coq's output."""
    py = main(["verify", "check", str(path)])
    capsys.readouterr()
    status = main(["verify", "check", "--checker", "coq", str(path)])
    return py, status, capsys.readouterr().out


def test_the_coq_checker_accepts_the_cycle(cycle_cert, coq, capsys):
    py, status, out = both(cycle_cert, capsys)
    assert (py, status) == (0, 0)
    assert out.startswith("OK (checked by the checker extracted from the Coq proofs): "
                          "the perceptron from zero, in the cyclic order, enters a cycle "
                          "after 37 presentations"), out


@pytest.mark.parametrize("name", CYCLES.FORGED)
def test_the_coq_checker_refuses_every_forgery(cycle_cert, coq, capsys, name):
    forge, _ = CYCLES.FORGED[name]
    py, status, out = both(CYCLES.forged(cycle_cert, forge), capsys)
    assert (py, status) == (1, 1)
    assert out.startswith("INVALID: the checker extracted from the Coq proofs "
                          "(verify/coq/CycleCheck.v) refutes the cycle."), out


def test_rational_data_in_both_kernels(tmp_path, coq, capsys):
    data = [([f"{a}/3", f"{b}/2"], c) for (a, b), c in CYCLES.DATA]
    cert = tmp_path / "q.json"
    assert main(["verify", "cycling", str(CYCLES.write_csv(tmp_path / "q.csv", data)),
                 "--certificate", str(cert)]) == 0
    assert both(cert, capsys)[:2] == (0, 0)
    for xor in (["xor"], ["xor", "--encoding", "01"], ["parity3", "--no-intercept"]):
        assert main(["verify", "cycling", *xor, "--certificate", str(cert)]) == 0
        assert both(cert, capsys)[:2] == (0, 0), xor


@pytest.mark.parametrize("text", [
    "markone-coq-cycle 1\nintercept 1\nexamples 1 1\n1 1\ncycle 0 0 1\n",
    "markone-coq-cycle 1\nintercept 1\nexamples 1 1\n1 1\ncycle 0 0 1 0\nupdates 2 0\n",
    "markone-coq-cycle 1\nintercept 1\nexamples 1 1\n1 1\ncycle 0 0 1 0\nupdates 1 -1\n",
    "markone-coq-cycle 1\nintercept 1\nsparse-examples 1 1\n1 1 0 1\ncycle 0 0 1 0\n",
    "markone-coq-cycle 2\n",
])
def test_the_executable_refuses_cycle_text_it_cannot_read(tmp_path, coq_build, text):
    path = tmp_path / "c.txt"
    path.write_text(text)
    done = subprocess.run([str(coq_build.executable), str(path)], capture_output=True,
                          text=True)
    assert done.returncode == 2 and done.stderr.startswith("unreadable:"), done
