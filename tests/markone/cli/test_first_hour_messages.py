"""Messages a new user met on the first hour walked again (issue 37): a missing file
named as a Unix tool names it, a command line that names commands (not Python
functions), and ``verify bound`` that judges one run, and only a finished one."""

from __future__ import annotations

import pytest

import verify.cli._theory as theory
from markone.cli import main

MISSING = [
    ["machine", "show", "missing.json"],
    ["verify", "drift", "missing.json", "--rate", "0.01"],
    ["verify", "machine", "letters", "--recheck", "missing.json"],
    ["machine", "train", "--faults", "missing.json"],
]


@pytest.mark.parametrize("argv", MISSING, ids=lambda a: " ".join(a[:2]))
def test_a_missing_file_is_named_without_python_errno(argv, tmp_path, monkeypatch,
                                                     capsys):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert "[Errno" not in err
    if argv[:2] == ["machine", "show"]:  # a run: says what one is
        assert "no such run file: missing.json; a Mark I run is what" in err
    elif argv[:2] == ["verify", "drift"]:  # a run with its log: how to record one
        assert ("no such run file: missing.json; record one with `markone machine "
                "train --log --out RUN.json`") in err
    else:
        assert "missing.json: No such file or directory" in err
    if "--faults" in argv:
        assert "--faults missing.json: No such file or directory" in err


def test_bound_on_inseparable_data_points_to_the_command(capsys):
    assert main(["verify", "bound", "xor"]) == 2
    err = capsys.readouterr().err
    assert "`markone verify cycling`" in err
    assert "verify.check_cycling" not in err and "freund_schapire_bound" not in err


def test_bound_and_compression_judge_the_same_run(tmp_path, capsys):
    # a thin margin: the run takes 2,000 passes (4,000 mistakes), more than the
    # compression check's own default of 1,000 passes
    data = tmp_path / "thin.csv"
    data.write_text("1,1\n1.002,-1\n")
    assert main(["verify", "bound", str(data)]) == 0
    out = capsys.readouterr().out
    assert "mistakes over 1 run: max 4000, min 4000;" in out
    assert "compression: the 4000 mistakes" in out


def test_bound_not_reached_is_not_decided(tmp_path, monkeypatch, capsys):
    # R = 1e400 is beyond float64 and the margin too thin for it: the run cannot
    # converge within the budget, so the bound is neither met nor broken
    monkeypatch.setattr(theory, "BOUND_PASSES", 500, raising=False)
    data = tmp_path / "huge.csv"
    data.write_text("1,2,1\n1e400,4,-1\n")
    assert main(["verify", "bound", str(data)]) == 4
    out = capsys.readouterr().out
    assert "held: True" not in out and "compression" not in out
    assert "= inf" not in out and "gamma = 0 " not in out
    assert "not decided: a run stopped at 500 passes" in out


@pytest.mark.parametrize("command", [["machine", "train"], ["machine", "fleet"]])
def test_a_letter_given_twice_is_refused(command, capsys):
    # `--chars AA` trained one class and called it "2 letters (AA)" in the fleet
    assert main([*command, "--chars", "ABA"]) == 2
    err = capsys.readouterr().err
    assert "--chars ABA names 'A' more than once; give each letter once." in err


@pytest.mark.parametrize("value", ["1e400", "inf", "nan"])
def test_an_infinite_fraction_option_is_called_not_finite(value, capsys):
    # `--dead-a-units 1e400` was "not a number" (it is one, only not a finite one)
    with pytest.raises(SystemExit) as exc:
        main(["machine", "train", "--dead-a-units", value])
    assert exc.value.code == 2
    assert f"argument --dead-a-units: '{value}' is not a finite number" in \
        capsys.readouterr().err


@pytest.mark.parametrize("value", ["1e400", "inf", "nan"])
def test_an_infinite_float_option_is_called_not_finite(value, capsys):
    # '1e400' is a number, only not a finite one: the message said "is not a number"
    with pytest.raises(SystemExit) as exc:
        main(["verify", "separable", "xor", "--timeout", value])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --timeout: '{value}' is not a finite number" in err


def test_one_of_a_kind_is_counted_in_the_singular(tmp_path, capsys):
    # the fleet said "each of 1 letters (A)", verify bound "the 1 mistakes (1 distinct
    # examples)"
    assert main(["machine", "fleet", "--chars", "A", "--machines", "1",
                 "--presentations", "2"]) == 0
    assert "1 machine, 2 presentations each, of 1 figure of 1 letter (A):" in \
        capsys.readouterr().out
    data = tmp_path / "one.csv"
    data.write_text("1,1,1\n-1,-2,-1\n")       # the first presentation is the one mistake
    assert main(["verify", "bound", str(data)]) == 0
    out = capsys.readouterr().out
    assert "compression: the 1 mistake (1 distinct example) re-run alone rebuilds w" in out
    assert main(["machine", "train", "--chars", "A", "--per-class", "1"]) == 0
    assert "on 1 figure (A)" in capsys.readouterr().out


def _options(parser, path=("markone",)):
    """``(command words, action, the command's parser)`` of every option, every command."""
    import argparse

    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sub in a.choices.items():
                yield from _options(sub, (*path, name))
        elif a.option_strings:
            yield " ".join(path), a, parser


def test_whole_numbers_show_one_metavar_and_a_default_of_0_is_stated(capsys):
    # `--per-class PER_CLASS` and `--max-epochs MAX_EPOCHS` beside `--shapes N`, and
    # `machine train --seed`'s default 0 unstated (0 was taken for "no default")
    from markone.cli import build_parser, nonnegative_int, positive_int

    seen = 0
    for command, a, parser in _options(build_parser()):
        if a.type not in (positive_int, nonnegative_int) or a.choices:
            continue
        seen += 1
        formatter = parser._get_formatter()
        metavar = a.metavar or formatter._get_default_metavar_for_optional(a)
        if a.dest != "seed" and len(a.dest) > 1:   # --m M, --k K name themselves
            assert metavar != a.dest.upper(), (command, a.option_strings, metavar)
        if a.default == 0 and a.default is not False and a.help:
            assert "default: 0" in formatter._expand_help(a), (command, a.option_strings)
    assert seen > 50
    for command, a, parser in _options(build_parser()):
        # `--set NAME=VALUE ... (default: [])`: a repeatable option's empty list
        assert "(default: [])" not in parser._get_formatter()._expand_help(a), command
    with pytest.raises(SystemExit):
        main(["machine", "train", "--help"])
    out = capsys.readouterr().out
    assert "[--per-class N]" in out and "[--max-epochs N]" in out and "[--seed SEED]" in out


def test_a_bound_beyond_float64_is_not_called_inf(tmp_path, capsys):
    # 1e400 data: `adversary exhaustive` said "Novikoff's bound inf" (the bound is
    # finite, float64 cannot hold it) and `verify margin` "1 support examples"
    data = tmp_path / "big.csv"
    data.write_text("1e400,1,1\n-1,-2,-1\n")
    assert main(["adversary", "exhaustive", str(data), "--out",
                 str(tmp_path / "case.json")]) == 0
    out = capsys.readouterr().out
    assert "bound inf" not in out
    assert "Novikoff's bound beyond float64's range (`markone verify separable`" in out
    assert main(["verify", "margin", str(data)]) == 0
    assert "(rounded up), 1 support example, " in capsys.readouterr().out


@pytest.mark.parametrize("option, value, words", [
    ("--per-class", "0", "'0' must be at least 1 and below 2**63"),
    ("--seed", "-1", "'-1' must be 0 or more and below 2**63")])
def test_a_whole_number_out_of_range_is_told_without_19_digits(option, value, words,
                                                               capsys):
    # "'0' must be at least 1 and at most 9223372036854775807"
    with pytest.raises(SystemExit):
        main(["machine", "train", option, value])
    err = capsys.readouterr().err
    assert words in err and "9223372036854775807" not in err


@pytest.mark.parametrize("command", [["verify", "drift"], ["verify", "tolerance"],
                                     ["verify", "machine"]])
def test_a_run_without_its_log_names_a_command_that_records_it(command, tmp_path,
                                                               monkeypatch, capsys):
    """Issue 37 (walk): the remedy was "`markone machine train --log --out RUN.json`
    (or `markone machine train --log`)", whose second half saves no run at all."""
    monkeypatch.chdir(tmp_path)
    assert main(["machine", "train", "--chars", "AB", "--per-class", "1",
                 "--out", "nolog.json"]) == 0
    capsys.readouterr()
    assert main([*command, "nolog.json", *(["--rate", "0.01"] if "drift" in command
                                            else [])]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("has no per-presentation log, so its figures and labels "
                                "are unknown; record the run with `markone machine train "
                                "--log --out RUN.json`.")


@pytest.mark.parametrize("argv, said", [
    (["train", "xor", "--max-epochs", "1e3"], "'1e3' is 1000, but whole numbers are "
                                              "written in digits here: write 1000"),
    (["machine", "train", "--per-class", "2.0"], "'2.0' is 2, but whole numbers are "
                                                 "written in digits here: write 2"),
    (["train", "xor", "--seed", "1.5"], "'1.5' is not a whole number"),
])
def test_a_whole_number_in_another_notation_is_told_its_digits(argv, said, capsys):
    """Issue 37 (walk): `--max-epochs 1e3` was refused as "not a whole number", which
    1000 is; it is refused (no silent conversion) with the digits to write."""
    with pytest.raises(SystemExit) as refused:
        main(argv)
    assert refused.value.code == 2 and said in capsys.readouterr().err


@pytest.mark.parametrize("given, named", [
    (["--per-class", "3"], "--per-class"), (["--typeface", "serif"], "--typeface"),
    (["--chars", "AB"], "--chars"),
    (["--typeface", "block", "--per-class", "3"], "--per-class and --typeface")])
def test_letter_options_with_shapes_are_refused_not_ignored(given, named, capsys):
    """``machine train --shapes 4 --per-class 3`` trained on 4 shapes and said nothing
    of the 3 (nor of --typeface): only --chars was refused."""
    assert main(["machine", "train", "--shapes", "4", *given]) == 2
    err = capsys.readouterr().err
    assert f"error: --shapes and {named} exclude each other" in err


def test_letter_defaults_are_stated_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["machine", "train", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    for said in ("letters to learn (default: ABC)", "figures per letter (default: 5)",
                 "the letters' typeface (default: block)"):
        assert said in help_text


@pytest.mark.parametrize("argv", [["train"], ["verify", "separable"],
                                  ["verify", "margin"], ["verify", "bound"]],
                         ids=" ".join)
def test_iris_by_name_says_how_to_take_two_classes(argv, tmp_path, monkeypatch, capsys):
    """Every data command's help offers the built-in ``iris``, and each refused it with
    "if another column holds the labels, name it with --label", which a built-in name
    refuses in turn. The message now gives a line that makes a two-class table, the
    one docs/command-line.md gives, and that line works."""
    import shlex
    import subprocess
    import sys

    from markone.cli import IRIS_PAIR_TO_CSV
    from _paths import ROOT

    monkeypatch.chdir(tmp_path)
    assert main([*argv, "iris"]) == 2
    err = capsys.readouterr().err
    assert "iris has 3 classes (0, 1, 2), but this command learns two" in err
    assert "--label" not in err and IRIS_PAIR_TO_CSV in err
    assert IRIS_PAIR_TO_CSV in (ROOT / "docs" / "command-line.md").read_text()
    code = shlex.split(IRIS_PAIR_TO_CSV)[2]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)
    assert main([*argv, "data.csv"]) in (0, 1)


def test_a_seed_without_a_shuffle_is_refused_not_ignored(capsys):
    """``markone train and.csv --seed 3`` trained in the given order and said nothing
    of the seed, which only --order shuffle uses."""
    assert main(["train", "xor", "--seed", "3"]) == 2
    assert "--seed draws the order of --order shuffle" in capsys.readouterr().err
    assert main(["train", "xor", "--seed", "3", "--order", "shuffle",
                 "--max-epochs", "2"]) == 1


@pytest.mark.parametrize("argv", [
    ["machine", "fleet", "--machines", "1", "--presentations", "2", "--chars", "AB"],
    ["sim", "run", "novikoff"]], ids=lambda a: " ".join(a[:2]))
def test_a_dask_address_without_a_scheme_is_told_as_the_flag(argv, tmp_path, capsys):
    """`--dask nowhere:1` was told "dask(='nowhere:1') must be ...", in Python."""
    assert main([*argv, "--dask", "nowhere:1", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "error: --dask nowhere:1 must be 'local' or a scheduler address like " \
           "'tcp://host:8786'" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("port", ["-1", "70000", "99999999999999999999999"])
def test_every_port_out_of_range_is_told_the_range(port, capsys):
    """`--port 70000` was "not a port: ports go from 0 to 65535", but `--port -1`
    "must be 0 or more and below 2**63"."""
    with pytest.raises(SystemExit):
        main(["machine", "console", "--no-browser", "--port", port])
    assert f"'{port}' is not a port: ports go from 0 to 65535" in capsys.readouterr().err


def test_a_host_beyond_loopback_is_told_as_the_flag(capsys):
    assert main(["machine", "console", "--no-browser", "--host", "0.0.0.0"]) == 2
    assert "error: --host '0.0.0.0' must be a loopback address" in capsys.readouterr().err
