"""The JUnit report of ``adversary check`` is well-formed XML whatever the
implementation writes: ANSI colours are dropped, NUL and other characters XML 1.0
forbids are written out as escapes (issue 31)."""

import sys
import xml.etree.ElementTree as ET

import pytest

from markone.cli import main
from verify.conformance.judge import CaseResult
from verify.conformance.report import as_junit, xml_text

NOISE = "\x1b[1;31mred\x1b[0m \x00 nul \x07 bell"

LOUD_IMPL = f"""
def run(X, y, order):
    raise RuntimeError({NOISE!r})
"""

LOUD_PROGRAM = f"""
import sys
sys.stdin.read()
sys.stderr.write({NOISE!r} + "\\n")
sys.stdout.write("\\x1b[32m{{not json\\x00")
"""


@pytest.fixture
def case(tmp_path):
    out = tmp_path / "case.json"
    assert main(["adversary", "orthonormal", "--m", "3", "--out", str(out)]) == 0
    return out


def read_report(path):
    root = ET.fromstring(path.read_bytes())   # expat refuses what XML 1.0 forbids
    (error,) = root.iter("error")
    return error.text


def test_an_exception_with_colours_and_nul_gives_well_formed_xml(case, tmp_path,
                                                                  capsys):
    (tmp_path / "loud.py").write_text(LOUD_IMPL)
    report = tmp_path / "r.xml"
    assert main(["adversary", "check", str(case), "--impl", f"{tmp_path / 'loud.py'}:run",
                 "--format", "junit", "--report", str(report)]) == 1
    text = read_report(report)
    assert "red \\x00 nul \\x07 bell" in text and "\x1b" not in text


def test_a_program_writing_colours_and_nul_gives_well_formed_xml(case, tmp_path,
                                                                capsys):
    (tmp_path / "loud_program.py").write_text(LOUD_PROGRAM)
    report = tmp_path / "r.xml"
    command = f"{sys.executable} {tmp_path / 'loud_program.py'}"
    assert main(["adversary", "check", str(case), "--cmd", command, "--format",
                 "junit", "--report", str(report)]) == 1
    read_report(report)


def test_every_field_of_the_report_is_cleaned():
    r = CaseResult(id=f"case{NOISE}", property=f"p{NOISE}", task="binary",
                   variant="last", status="error", details=(f"said {NOISE}",),
                   error=f"trace {NOISE}")
    root = ET.fromstring(as_junit([r], f"--cmd {NOISE}"))
    assert root.get("name") == f"markone conformance: --cmd {xml_text(NOISE)}"
    case = root.find("testcase")
    assert case.get("name") == "case" + xml_text(NOISE)
    assert case.find("error").get("message") == "said " + xml_text(NOISE)


def test_xml_text_keeps_what_xml_can_hold():
    kept = "tab\tnew line\n é ü 😀 \ue000 \ufffd"
    assert xml_text(kept) == kept
    assert xml_text("lone \ud800 surrogate \x0b") == "lone \\ud800 surrogate \\x0b"
    assert xml_text("\x1b[38;5;196mx\x1b[0m\x1bMy") == "xy"
