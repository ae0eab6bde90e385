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


def test_verify_check_on_a_data_file_says_it_is_not_a_certificate(tmp_path, capsys):
    """A CSV of data is not a truncated certificate: the message names the command that
    decides a data file, and says nothing of truncation."""
    data = tmp_path / "data.csv"
    data.write_text("1,0,1\n0,1,-1\n")
    assert main(["verify", "check", str(data)]) == 2
    err = capsys.readouterr().err
    assert f'{data} is not a certificate: it does not start as a JSON document' in err
    assert 'but with "1,0,1"' in err
    assert f"`markone verify separable {data}`" in err
    assert "truncated" not in err


def test_verify_check_on_a_cut_certificate_asks_whether_it_is_truncated(tmp_path, capsys):
    cut = tmp_path / "cut.json"
    cut.write_text('  {"kind": "separable", "w')
    assert main(["verify", "check", str(cut)]) == 2
    err = capsys.readouterr().err
    assert "is not valid JSON" in err and "is it truncated?" in err
