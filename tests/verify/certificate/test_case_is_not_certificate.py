"""``markone verify check`` on a file ``markone adversary`` wrote: it is a test case,
not a certificate, and the message says which command runs it."""

from __future__ import annotations

from markone.cli import main


def test_verify_check_on_a_case_names_adversary_check(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["adversary", "orthonormal", "--m", "3", "--out", "case.json"]) == 0
    capsys.readouterr()
    assert main(["verify", "check", "case.json"]) == 2
    err = capsys.readouterr().err
    assert "is a test case for a perceptron" in err
    assert "`markone adversary check case.json --impl MODULE:FUNCTION`" in err
    assert "verify separable" not in err
