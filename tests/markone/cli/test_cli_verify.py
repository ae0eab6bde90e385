"""Tests of ``markone verify separable|margin|check``: exit codes, files, messages."""

import json

import numpy as np
import pytest

from markone._internal.io import read_json
from markone.cli import main


@pytest.fixture
def files(tmp_path):
    def write(name, text):
        p = tmp_path / name
        p.write_text(text)
        return str(p)

    return {
        "and": write("and.csv", "x1,x2,label\n0,0,no\n0,1,no\n1,0,no\n1,1,yes\n"),
        "xor": write("xor.csv", "0,0,0\n0,1,1\n1,0,1\n1,1,0\n"),
        "rat": write("rat.csv", "0.1,1/3,1\n0.2,2/3,0\n0.3,1,1\n"),
        "nan": write("nan.csv", "0,nan,1\n1,1,0\n"),
        "first": write("first.csv", "label,x\n1,0.5\n0,-0.5\n"),
        "dir": tmp_path,
    }


def test_a_witness_too_long_to_read_is_printed_rounded_and_written_exactly(files, capsys):
    """A witness of 59-digit integers (the perceptron's, on cells of 1/3**70 and
    1/7**30) is printed 'about' its six digits with a note naming --certificate; the
    certificate holds it exactly. Powers of ten stay exact and short: 3/4 * 10**-401.
    It printed every digit (401 of them on cells of 1e-400)."""
    from fractions import Fraction

    from markone._internal.exact import fraction_g

    path, cert = files["dir"] / "long.csv", files["dir"] / "c.json"
    path.write_text(f"x1,x2,label\n1/{3**70},1/{7**30},b\n-1,1/3,a\n")
    assert main(["verify", "separable", str(path)]) == 0
    out = capsys.readouterr().out
    witness = out.split("witness (w, intercept): ")[1].split("\n")[0].split(", ")
    assert all(text.startswith("about ") for text in witness), out
    assert "\nnote: a number too long to read is shown rounded to 6 significant digits " \
        "('about ...'); --certificate OUT writes every number exactly.\n" in out
    assert main(["verify", "separable", str(path), "--certificate", str(cert)]) == 0
    assert f"; {cert} holds every number exactly.\n" in capsys.readouterr().out
    exact = [Fraction(v) for v in read_json(cert)["witness"]]
    assert witness == [f"about {fraction_g(v)}" for v in exact] and exact[0] > 10**58
    (files["dir"] / "tiny.csv").write_text(
        "x1,x2,label\n1e-400,1e-401,a\n-3e-400,1e-401,b\n2e-400,-1e-401,b\n")
    assert main(["verify", "separable", str(files["dir"] / "tiny.csv")]) == 0
    out = capsys.readouterr().out
    assert max(map(len, out.split("witness (w, intercept): ")[1].split("\n")[0]
                   .split(", "))) < 25 and "note: a number" not in out


def test_separable_writes_certificate_and_check_accepts_it(files, capsys):
    cert = str(files["dir"] / "c.json")
    assert main(["verify", "separable", files["and"], "--certificate", cert]) == 0
    out = capsys.readouterr().out
    assert out.startswith("separable") and "certificate written" in out
    assert "witness (w, intercept): 3, 2, -4" in out  # the perceptron's integer weights
    doc = read_json(cert)
    assert doc["separable"] is True and doc["data"]["y"] == ["no", "no", "no", "yes"]
    assert len(doc["witness"]) == 3 and len(doc["source"]["sha256"]) == 64
    assert main(["verify", "check", cert]) == 0
    assert "OK: the witness proves" in capsys.readouterr().out


def test_not_separable_exit_1_and_check(files, capsys):
    cert = str(files["dir"] / "x.json")
    assert main(["verify", "separable", files["xor"], "--certificate", cert]) == 1
    out = capsys.readouterr().out
    assert out.startswith("not separable") and "lambda[0] = 1, lambda[1] = 1, lambda[2] = 1, lambda[3] = 1" in out
    assert main(["verify", "check", cert]) == 0  # a valid proof, whichever verdict
    assert "are not linearly separable" in capsys.readouterr().out


def test_tampered_certificate_fails_with_reason(files, capsys):
    cert = files["dir"] / "x.json"
    main(["verify", "separable", files["xor"], "--certificate", str(cert)])
    doc = json.loads(cert.read_text())
    doc["certificate"]["3"] = "2"
    cert.write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["verify", "check", str(cert)]) == 1  # readable, but wrong
    assert "INVALID" in capsys.readouterr().out
    cert.write_text(json.dumps({"hello": 1}))
    assert main(["verify", "check", str(cert)]) == 2
    assert "not a markone certificate" in capsys.readouterr().err


def test_decimal_cells_are_exact(files, capsys):
    # 2 * (0.1, 1/3) - (0.2, 2/3) = 0 exactly in decimals, not in binary floats
    assert main(["verify", "separable", files["rat"], "--no-intercept"]) == 1
    assert "lambda[0] = 2, lambda[1] = 1" in capsys.readouterr().out


def test_label_column_and_npz(files, capsys):
    assert main(["verify", "separable", files["first"], "--label", "label"]) == 0
    npz = str(files["dir"] / "d.npz")
    np.savez(npz, X=np.array([[0.0, 0.0], [0.0, 0.0]]), y=np.array([0, 1]))
    assert main(["verify", "separable", npz, "--no-intercept"]) == 1
    assert "zero vector" in capsys.readouterr().out


def test_bad_input_exit_2(files, capsys):
    for action in ("separable", "margin"):
        assert main(["verify", action, files["nan"]]) == 2
        assert "nan.csv, line 1, column 2: 'nan' is not a finite number" in capsys.readouterr().err
    assert main(["verify", "separable", str(files["dir"] / "missing.csv")]) == 2
    assert "no such data file" in capsys.readouterr().err
    assert main(["verify"]) == 2


def test_timeout_gives_unknown_and_no_file(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.integers(-50, 51, size=(300, 20))
    y = (X @ rng.normal(size=20) > 0).astype(int)
    path = tmp_path / "big.csv"
    np.savetxt(path, np.hstack([X, y[:, None]]), fmt="%d", delimiter=",")
    cert = tmp_path / "c.json"
    status = main(["verify", "separable", str(path), "--method", "z3", "--timeout",
                   "0.001", "--certificate", str(cert)])
    assert status == 4 and not cert.exists()  # not decided: neither 1 nor 2
    assert capsys.readouterr().out.startswith("unknown")


def test_margin(files, capsys):
    assert main(["verify", "margin", files["and"]]) == 0
    out = capsys.readouterr().out
    assert "midpoint 0.242535625036" in out and "mistake bound 51.0" in out
    assert main(["verify", "margin", files["xor"], "--svm"]) == 1
    # exact cells: (0.2, 2/3) is exactly the midpoint of the other two points, so the
    # data are not separable (their nearest floats were: the margin used to say 0)
    assert main(["verify", "margin", files["rat"]]) == 1
    assert "not separable" in capsys.readouterr().out


def test_huge_numbers_leave_no_numpy_warning_on_stderr(tmp_path, capsys):
    data = tmp_path / "huge.npz"
    np.savez(data, X=np.array([[1.7e308, 1.7e308], [1.7e308, 1.7e308],
                               [-1e308, 1.5e308]]), y=np.array([0, 1, 1]))
    for command in (["verify", "separable"], ["verify", "margin"]):
        assert main(command + [str(data)]) == 1      # the same point, both labels
        assert "warning" not in capsys.readouterr().err, command


def test_a_bound_of_800_digits_is_shown_readably(tmp_path, capsys):
    # witness (1, 1, 1): gamma = min(1e400 + 2, 2) = 2, ||w||^2 = 3, R^2 = 1e800 + 2,
    # so floor(R^2 ||w||^2 / gamma^2) = 75 * 10**798 exactly: 800 digits
    data = tmp_path / "big.csv"
    data.write_text("1e400,1,1\n-1,-2,-1\n")
    cert = tmp_path / "c.json"
    assert main(["verify", "separable", str(data), "--certificate", str(cert)]) == 0
    assert main(["verify", "check", str(cert)]) == 0
    for out in capsys.readouterr().out.split("OK:"):
        line = next(t for t in out.splitlines() if t.startswith("Novikoff"))
        assert "= about 7.5e+799 (an integer of 800 digits) mistakes" in line
        assert len(line) < 300


@pytest.mark.parametrize("value, words", [("", "the output folder name is empty"),
                                          ("AND.csv", "is a file, not a folder")])
def test_proofs_smt2_folder_is_checked_before_any_work(tmp_path, monkeypatch, capsys,
                                                       value, words):
    """``--smt2 ''`` once wrote the queries into the current folder (the fuzz test saw
    exit 0 and two stray files appeared); it is refused like every output folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "AND.csv").write_text("x,y\n")
    with pytest.raises(SystemExit) as stop:
        main(["verify", "proofs", "--only", "novikoff.base", "--smt2", value])
    assert stop.value.code == 2
    assert words in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["AND.csv"]


def test_a_table_option_on_an_npz_file_is_named_as_the_flag_given(tmp_path, capsys):
    # "label=, --delimiter and header= apply to text tables": Python names in a
    # command-line message, and all three whichever was given (#37)
    data = tmp_path / "d.npz"
    np.savez(data, X=np.eye(2), y=np.array([0, 1]))
    for flag, said in [(["--no-header"], "--no-header"), (["--label", "1"], "--label 1"),
                       (["--delimiter", ";"], "--delimiter ';'")]:
        assert main(["verify", "separable", str(data)] + flag) == 2
        err = capsys.readouterr().err
        assert f"d.npz: {said} applies to text tables, not to .npz files" in err, err
        assert "=" not in err, err


def test_no_header_on_a_header_line_says_so_not_pass_label_0(tmp_path, capsys):
    # --no-header on "x1,x2,label" suggested "pass --label 0" (#37)
    data = tmp_path / "d.csv"
    data.write_text("x1,x2,label\n1,2,1\n3,4,-1\n")
    assert main(["verify", "separable", str(data), "--no-header"]) == 2
    err = capsys.readouterr().err
    assert "line 1 looks like a header (x1, x2, label), but --no-header was given: " \
        "drop --no-header" in err, err
    assert "--label" not in err, err


def test_the_witness_bound_line_has_no_constant_1_without_intercept(files, capsys):
    # "--no-intercept": the line said "gamma = min y w.[x, 1] and R^2 = max
    # ||[x, 1]||^2", the augmented vectors the witness does not have (#37)
    assert main(["verify", "separable", files["and"], "--no-intercept"]) == 1
    capsys.readouterr()
    data = files["dir"] / "through0.csv"
    data.write_text("1,2,1\n2,1,1\n-1,-2,-1\n")
    assert main(["verify", "separable", str(data), "--no-intercept"]) == 0
    out = capsys.readouterr().out
    assert "gamma = min y w.x and R^2 = max ||x||^2 exactly" in out and "[x, 1]" not in out
    assert main(["verify", "separable", str(data)]) == 0
    assert "gamma = min y w.[x, 1] and R^2 = max ||[x, 1]||^2 exactly" in \
        capsys.readouterr().out
