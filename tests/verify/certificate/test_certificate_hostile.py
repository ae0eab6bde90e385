"""Hostile certificate files (issue 31): each is refused by ``markone verify check`` with
exit 2 and one line that names the problem (and, for a limit, the limit and the flag that
raises it); none hangs, none is an internal error (exit 3), none shows Python's
"Exceeds the limit (4300 digits)". Numbers beyond Python's 4,300-digit ``int(str)``
limit are read exactly when written as strings, and markone writes them so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from _paths import ROOT

from markone.cli import main
from verify.certificate import certificate_document, certificate_json, data_sha256

AND = ([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1])
XOR = ([[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 0])
BIG = "3" + "0" * 5000  # a 5,001-digit number: over Python's int(str) limit
LIMIT_MESSAGES = ("Exceeds the limit", "set_int_max_str_digits", "Traceback")


AND_PROOF = SimpleNamespace(separable=True, intercept=True, witness=(3, 2, -4),
                            certificate=None)


def and_doc(layout="dense"):
    """A valid certificate of AND: the witness (3, 2, -4)."""
    return certificate_document(*AND, AND_PROOF, layout=layout)


def xor_doc():
    """A valid certificate of XOR: every weight 1."""
    return certificate_document(*XOR, SimpleNamespace(
        separable=False, intercept=True, witness=None,
        certificate=dict.fromkeys(range(4), 1)))


def edited(make, edit):
    """The JSON text of the document ``make()`` after ``edit`` changed it."""
    doc = make()
    edit(doc)
    return json.dumps(doc)


def nested(depth):
    return "[" * depth + "]" * depth


#: What a file nested too deep is told (the default limit, and the flag that raises it).
DEEP = ["nests arrays and objects more than 100 levels deep", "--max-depth",
        "a certificate nests 4 levels"]


HOSTILE = {  # name: (file text, extra flags, fragments the one-line message must hold)
    "a key twice at the top": (
        json.dumps(and_doc())[:-1] + ', "separable": false}', (),
        ["'separable' appears twice", "two checkers could read different claims"]),
    "a certificate weight twice": (
        json.dumps(xor_doc()).replace('"certificate": {"0": "1"',
                                      '"certificate": {"0": "1", "0": "2"'), (),
        ["'0' appears twice"]),
    "an unknown built-in source": (
        edited(xor_doc, lambda d: d.__setitem__("source", {"builtin": "nonexistent"})), (),
        ["source.builtin names 'nonexistent'", "not a built-in data set"]),
    "a source that is a file and a built-in": (
        edited(xor_doc, lambda d: d.__setitem__("source", {"builtin": "xor", "path": "x",
                                                           "sha256": "0" * 64})), (),
        ["both a file"]),
    "underscores in the exponent": (
        edited(and_doc, lambda d: d["witness"].__setitem__(0, "1e1_000_000_00")), (),
        ["witness[0]", "exponent 100000000", "limit |exponent| <= 100,000",
         "--max-exponent"]),
    "a nine-digit exponent": (
        edited(and_doc, lambda d: d["witness"].__setitem__(0, "1e999999999")), (),
        ["--max-exponent"]),
    "a thirty-digit exponent": (
        edited(and_doc, lambda d: d["witness"].__setitem__(0, "1e" + "9" * 30)), (),
        ["999999999999...", "--max-exponent"]),
    "a negative exponent in groups": (
        edited(and_doc, lambda d: d["witness"].__setitem__(0, "-1e-1_0_0_0_0_0_0")), (),
        ["exponent -1000000", "--max-exponent"]),
    "200,000 digits": (
        edited(and_doc, lambda d: d["witness"].__setitem__(0, "1" * 200_000)), (),
        ["200,000 characters", "limit of 100,000", "--max-number-chars"]),
    "a data entry with a huge exponent": (
        edited(and_doc, lambda d: d["data"]["X"][1].__setitem__(1, "1e1_000_000_00")), (),
        ["data.X[1][1]", "--max-exponent"]),
    "a sparse value with a huge exponent": (
        edited(lambda: and_doc("csr"),
               lambda d: d["data"]["values"].__setitem__(0, "1e1_000_000_00")), (),
        ["data.values[0]", "--max-exponent"]),
    "a 5,001-digit JSON integer": (
        json.dumps(and_doc()).replace('"witness": ["3"', f'"witness": [{BIG}'), (),
        ["more than 4,300 digits", "write it as a string", "PYTHONINTMAXSTRDIGITS"]),
    "100,000 levels of nesting": (
        nested(100_000), (), DEEP),
    "100,000 nested objects": (
        '{"a":' * 100_000 + "1" + "}" * 100_000, (), DEEP),
    "100,000 levels left open": ("[" * 100_000, (), DEEP),
    "100,000 objects left open": ('{"a":' * 100_000, (), DEEP),
    "arrays and objects in turn": ('[{"a":' * 50_000 + "1" + "}]" * 50_000, (), DEEP),
    "deep nesting inside a valid certificate": (
        json.dumps({**and_doc(), "message": 0}).replace('"message": 0',
                                                       '"message": ' + nested(5000)), (),
        DEEP),
    "one level over --max-depth": (json.dumps(and_doc()), ("--max-depth", "3"),
                                   ["more than 3 levels deep", "--max-depth"]),
    "--max-depth over its ceiling": (json.dumps(and_doc()), ("--max-depth", "401"),
                                     ["--max-depth is 401, over the ceiling of 400"]),
    "nesting inside a field": (
        json.dumps({**and_doc(), "message": 0}).replace('"message": 0',
                                                       '"message": ' + nested(70)), (),
        ["message is [[[", "]]]; it must be a string"]),
    "NaN": (
        json.dumps(and_doc()).replace('"intercept": true', '"intercept": NaN'), (),
        ["NaN is not a number"]),
    "-Infinity": (
        json.dumps(and_doc()).replace('"witness": ["3"', '"witness": [-Infinity'), (),
        ["-Infinity is not a number"]),
    "a file over --max-bytes": (
        json.dumps(and_doc()), ("--max-bytes", "100"),
        ["over the limit of 100 bytes", "--max-bytes"]),
    "a number over --max-number-chars": (
        edited(and_doc, lambda d: d["witness"].__setitem__(0, "3.000")),
        ("--max-number-chars", "4"), ["5 characters", "limit of 4", "--max-number-chars"]),
    "a field the format does not have": (
        edited(and_doc, lambda d: d.__setitem__("comment", "trust me")), (),
        ["the field 'comment'", "does not have"]),
    "a data field the format does not have": (
        edited(and_doc, lambda d: d["data"].__setitem__("weights", [1, 1, 1, 1])), (),
        ["data has the field 'weights'"]),
    "Arabic-Indic digits": (
        edited(and_doc, lambda d: d["witness"].__setitem__(0, "\u0663")), (),
        ["witness[0]", "not a number"]),
    "an index with a leading zero": (
        edited(xor_doc, lambda d: d["certificate"].__setitem__("01", "1")), (),
        ["'01'", "not an example index"]),
}


def check(path, capsys, *flags):
    """``verify check``'s exit status and its output; never a traceback or a bug."""
    capsys.readouterr()
    code = main(["verify", "check", str(path), *flags])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2) and not any(m in out + err for m in LIMIT_MESSAGES), \
        (code, out, err)
    return code, out, err


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_files_exit_2_naming_the_problem(name, tmp_path, capsys):
    text, flags, fragments = HOSTILE[name]
    path = tmp_path / "hostile.json"
    path.write_text(text)
    code, out, err = check(path, capsys, *flags)
    assert code == 2 and len(err.strip().splitlines()) == 1, (code, out, err)
    missing = [f for f in fragments if f not in err]
    assert not missing, (missing, err)


def test_a_directory_is_not_read(tmp_path, capsys):
    # "is a directory": every other message calls it a folder (#37)
    code, _, err = check(tmp_path, capsys)
    assert code == 2 and "is a folder, not a regular file" in err


@pytest.mark.parametrize("fmt, says", [
    ("markone.verify.machine/3", "is a `markone verify machine` report (format "
     "'markone.verify.machine/3'), not a certificate: re-check it with `markone verify "
     "machine TASK --recheck "),
    ("markone-machine-run", "is a Mark I run (format 'markone-machine-run'), not a "
     "certificate: check it with `markone verify machine "),
])
def test_a_machine_report_or_run_is_named_with_its_command(fmt, says, tmp_path, capsys):
    # "report.json is not a markone certificate ... write it again with `markone verify
    # separable`": a file markone wrote itself, sent to the wrong command (#37)
    path = tmp_path / "file.json"
    path.write_text(json.dumps({"format": fmt}))
    code, _, err = check(path, capsys)
    assert code == 2 and says in err, err


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_fifo_or_a_device_is_refused_before_reading(kind, tmp_path):
    """In a child process with a timeout: a reader that opened a FIFO would block for
    ever, one that read /dev/zero would never end."""
    if kind == "fifo":
        path = tmp_path / "c.json"
        os.mkfifo(path)
    else:
        path = Path(kind)
    if not path.exists():
        pytest.skip(f"{kind} does not exist here")
    out = subprocess.run([sys.executable, "-m", "markone", "verify", "check", str(path)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 2 and "not a regular file" in out.stderr, out


def test_numbers_beyond_4300_digits_are_read_exactly(tmp_path, capsys):
    """A witness and weights of 5,001 digits, as strings, check (exit 0); a failing one
    says so without printing the number Python will not print (exit 1)."""
    path = tmp_path / "c.json"
    path.write_text(edited(and_doc, lambda d: d.__setitem__(
        "witness", [BIG, "2" + BIG[1:], "-4" + BIG[1:]])))
    assert check(path, capsys)[0] == 0
    path.write_text(edited(and_doc, lambda d: d.__setitem__(
        "witness", ["-" + BIG, "2", "-4"])))
    code, out, _ = check(path, capsys)
    assert code == 1 and "more than 4,300 digits" in out
    path.write_text(edited(xor_doc, lambda d: d.__setitem__(
        "certificate", dict.fromkeys("0123", BIG))))
    assert check(path, capsys)[0] == 0
    path.write_text(edited(xor_doc, lambda d: d["certificate"].__setitem__("1" + "0" * 5000,
                                                                           "1")))
    code, out, _ = check(path, capsys)
    assert code == 1 and "names the index (a number of more than 4,300 digits)" in out


def test_data_beyond_4300_digits_are_written_and_read_back(tmp_path, capsys):
    """Data holding an int of 5,001 digits: written as a string of digits, named by the
    same hash as in memory, checked exit 0."""
    X = [[0, 3 * 10 ** 5000], [1, 0]]
    verdict = SimpleNamespace(separable=True, intercept=False, witness=(1, 1),
                              certificate=None)
    doc = certificate_document(X, [1, 1], verdict)
    assert doc["data"]["X"][0][1] == BIG and doc["data_sha256"] == data_sha256(X, [1, 1])
    path = tmp_path / "big.json"
    path.write_text(certificate_json(doc))
    assert check(path, capsys)[0] == 0


def test_a_lower_python_int_limit_changes_nothing(tmp_path):
    """Under PYTHONINTMAXSTRDIGITS=640 (Python's lowest), numbers of 700 digits in
    strings still read exactly (the kernel converts digits 640 at a time)."""
    path = tmp_path / "c.json"
    path.write_text(edited(and_doc, lambda d: d.__setitem__(
        "witness", ["3" + "0" * 700, "2" + "0" * 700, "-4" + "0" * 700])))
    out = subprocess.run([sys.executable, "-m", "markone", "verify", "check", str(path)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT),
                              "PYTHONINTMAXSTRDIGITS": "640"})
    assert out.returncode == 0 and out.stdout.startswith("OK"), out


def test_a_verdict_beyond_4300_digits_is_printed_written_and_checked(tmp_path, capsys,
                                                                     monkeypatch):
    """`verify separable` prints a witness of 5,001 digits, short (its powers of ten
    taken out), and writes its certificate in full (Python's str(int) would refuse the
    number), and `verify check` accepts it."""
    import verify

    big = 10 ** 5000
    verdict = SimpleNamespace(separable=True, intercept=True, witness=(2 * big, -big),
                              certificate=None, method="given", exact=True, time_s=0.0,
                              message="")
    monkeypatch.setattr(verify, "check_separable", lambda *a, **k: verdict)
    (tmp_path / "d.csv").write_text("0,0\n1,1\n")
    cert = tmp_path / "c.json"
    capsys.readouterr()
    assert main(["verify", "separable", str(tmp_path / "d.csv"), "--certificate",
                 str(cert)]) == 0
    out = capsys.readouterr().out
    assert "witness (w, intercept): 2 * 10**5000, -10**5000\n" in out
    assert json.loads(cert.read_text())["witness"] == [f"2{'0' * 5000}", f"-1{'0' * 5000}"]
    assert check(cert, capsys)[0] == 0


def test_nesting_is_refused_before_the_json_parser_runs(tmp_path, capsys, monkeypatch):
    """The parser (which recurses once per level) never sees a file nested too deep,
    and a certificate nested exactly to the limit is read: every layout markone writes
    nests 4 levels, and brackets inside strings are not levels."""
    import types

    import markone._internal.io as strict   # the one strict JSON reader parses here

    parsed = []
    parser = types.SimpleNamespace(**vars(json))
    parser.loads = lambda text, **hooks: parsed.append(len(text)) or json.loads(text,
                                                                                **hooks)
    monkeypatch.setattr(strict, "json", parser)
    path = tmp_path / "c.json"
    for text in (nested(100_000), '{"a":' * 100_000 + "1" + "}" * 100_000,
                 nested(101), "[" * 100_000):
        path.write_text(text)
        assert check(path, capsys)[0] == 2 and not parsed
    for layout in ("dense", "csr"):
        path.write_text(json.dumps(and_doc(layout)))
        assert check(path, capsys, "--max-depth", "4")[0] == 0
    path.write_text(json.dumps(xor_doc()))
    assert check(path, capsys, "--max-depth", "4")[0] == 0
    assert check(path, capsys, "--max-depth", "3")[0] == 2
    path.write_text(json.dumps({**xor_doc(), "message": "[[[[{{{{" * 10_000 + '\\"[['}))
    assert check(path, capsys, "--max-depth", "4")[0] == 0
    path.write_text(json.dumps({**and_doc(), "message": 0}).replace(
        '"message": 0', '"message": ' + nested(96)))     # 100 levels: read, then refused
    code, _, err = check(path, capsys)
    assert code == 2 and "message is [[[" in err and len(parsed) == 5


def test_the_depth_is_counted_exactly():
    """Against a recursive count of the parsed document, on random JSON of depths 0
    to 12 with brackets, braces and quotes inside strings."""
    import random

    from markone._internal.io import nesting_depth_over

    def depth(v):
        kids = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        return 1 + max(map(depth, kids), default=0) if isinstance(v, (dict, list)) else 0

    def make(rng, level):
        kind = rng.choice("lds" if level else "s")
        if kind == "s":
            return rng.choice(["[", "]{", '"}', "\\", "a", 1, None])
        items = [make(rng, level - 1) for _ in range(rng.randint(0, 3))]
        return items if kind == "l" else {f"k{i}]": v for i, v in enumerate(items)}

    rng = random.Random(0)
    for _ in range(400):
        doc = make(rng, rng.randint(0, 12))
        raw, d = json.dumps(doc).encode(), depth(doc)
        assert [nesting_depth_over(raw, k) for k in (max(d - 1, 1), d, d + 1)] == \
            [d > 1, False, False], (raw, d)


def test_many_nests_side_by_side_at_the_limit():
    """50,000 arrays nested 100 deep side by side (10 MB; a peeling count made 100
    passes over them, 200 s of CPU at 1 GB): exactly at the limit, and one more
    level anywhere is over it."""
    from markone._internal.io import nesting_depth_over

    nest = b"[" * 99 + b"]" * 99
    many = b"[" + b",".join([nest] * 50_000) + b"]"
    assert not nesting_depth_over(many, 100)
    deeper = many[:-1] + b",[" + nest + b"]]"
    assert nesting_depth_over(deeper, 100) and not nesting_depth_over(deeper, 101)
