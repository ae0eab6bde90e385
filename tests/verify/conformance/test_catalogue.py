"""The bug catalogue (tests/conformance_catalogue.py, issue 39): at least 40 realistic
bugs in Python, Node and C, each with exactly one declared cause; every program runs;
the verdicts count what the checker names; docs/conformance-catalogue.md is what the
script writes today (slow)."""

import re
import shutil

import pytest
from conformance_catalogue import (
    BUGS,
    ROOT,
    C_EXAMPLE,
    CAUSES,
    LANGUAGES,
    NODE_EXAMPLE,
    OUT,
    PYTHON_BASE,
    Bug,
    Verdict,
    _outcome,
    edit,
    render,
    run_bug,
    run_catalogue,
)

from verify import conformance as C
from verify.conformance.judge import CaseResult

NEEDS_TOOLS = pytest.mark.skipif(
    shutil.which("node") is None or not (shutil.which("cc") or shutil.which("gcc")),
    reason="the catalogue's Node and C bugs need node and a C compiler on the PATH")


def test_at_least_40_bugs_every_language_well_represented_one_cause_each():
    assert len(BUGS) >= 40
    assert len({b.name for b in BUGS}) == len(BUGS)
    for language in LANGUAGES:
        assert sum(b.language == language for b in BUGS) >= 12, language
    for bug in BUGS:
        assert isinstance(bug.cause, str) and bug.cause in CAUSES, bug.name
        assert bug.what and bug.name.startswith({"python": "py-", "node": "js-",
                                                 "c": "c-"}[bug.language])
    assert len(set(CAUSES.values())) == len(CAUSES)       # one set of words per cause
    # no two causes whose words contain one another (a diagnosis names one of them)
    for a in CAUSES.values():
        assert [b for b in CAUSES.values() if a in b] == [a], a


def test_each_bug_is_an_edit_of_the_correct_program():
    base = {"python": PYTHON_BASE, "node": NODE_EXAMPLE.read_text(),
            "c": C_EXAMPLE.read_text()}
    sources = [b.source for b in BUGS]
    assert len(set(sources)) == len(sources)
    for bug in BUGS:
        assert bug.source != base[bug.language], bug.name
    with pytest.raises(ValueError, match="occurs 0 times, not once"):
        edit(PYTHON_BASE, "no such text", "")


@pytest.fixture(scope="module")
def small_cases():
    return C.build_cases(["zero-score-orthonormal", "xor-cycle"])


def test_every_python_bug_runs_and_is_caught(small_cases, tmp_path):
    for bug in [b for b in BUGS if b.language == "python"]:
        verdict = run_bug(bug, small_cases, tmp_path)
        assert verdict.applicable == 2, bug.name         # answered, not declined


def test_the_strict_rule_is_right_and_the_verdicts_count_as_documented(small_cases,
                                                                     tmp_path):
    [strict] = [b for b in BUGS if b.name == "py-strict"]
    assert run_bug(strict, small_cases, tmp_path).outcome == "right"
    correct = Bug("py-correct", "python", "the textbook loop", "strict", PYTHON_BASE)
    assert run_bug(correct, small_cases, tmp_path).outcome == "missed"

    def result(status, *diagnosis):
        return CaseResult(id="c", property="p", task="binary", variant="last",
                          status=status, diagnosis=diagnosis)

    words = CAUSES["strict"]
    assert _outcome(strict, [result("fail", words + " ...")]).outcome == "right"
    assert _outcome(strict, [result("fail", words), result("fail")]).outcome == "right"
    wrong = _outcome(strict, [result("fail", words),
                              result("fail", "the stream was presented in reverse")])
    assert (wrong.outcome, wrong.others) == ("wrong",
                                             ("the stream was presented in reverse",))
    at = _outcome(strict, [result("fail", "at the state after 3 presentations: "
                                          "learning rate 2 instead of 1: more")])
    assert at.others == ("learning rate 2 instead of 1",)
    assert _outcome(strict, [result("error"), result("n/a")]).outcome == "unexplained"
    assert _outcome(strict, [result("pass")]).outcome == "missed"


@NEEDS_TOOLS
def test_a_node_and_a_c_bug_run_as_programs(small_cases, tmp_path):
    for name in ("js-strict", "c-strict"):
        [bug] = [b for b in BUGS if b.name == name]
        verdict = run_bug(bug, small_cases, tmp_path)
        assert (verdict.outcome, verdict.applicable) == ("right", 2), name


@pytest.mark.slow
@NEEDS_TOOLS
def test_the_catalogue_page_is_what_the_script_writes_today():
    verdicts = run_catalogue()
    text = render(verdicts)
    assert "| all |" in text and len(verdicts) == len(BUGS)
    assert OUT.read_text() == text, (
        "docs/conformance-catalogue.md is stale: run python tests/conformance_catalogue.py "
        "--write")


def page_verdicts(page):
    """The verdicts docs/conformance-catalogue.md shows, one per bug of :data:`BUGS`
    (in its order): what the page says the checker found, and nothing else."""
    verdicts = []
    for bug in BUGS:
        rows = [line for line in page.splitlines() if line.startswith(f"| {bug.name} | ")]
        assert len(rows) == 1, f"{bug.name}: {len(rows)} rows on the page"
        *_, failed, verdict = rows[0].removesuffix(" |").rsplit(" | ", 2)
        n_failed, applicable = map(int, failed.split(" of "))
        outcome, _, others = verdict.partition(": ")
        verdicts.append(Verdict(bug, outcome, n_failed, applicable,
                                tuple(others.split("; ")) if others else ()))
    return verdicts


def test_the_page_says_what_the_code_has_today():
    """Fast, where the slow test below reruns every bug: every statement of the page
    but the checker's findings is derived from the code. Its text (the suite's case
    count, the profile the Python bugs declare), each bug's name, language, what was
    written and planted cause, in the catalogue's order, and the totals of the page's
    own verdicts. (The walk of issue 37 found the page silent on why a bug's cases
    number 12, 24 or 27 of a suite of 34, and docs/test-your-perceptron.md counting
    48 programs of 55.)"""
    page = OUT.read_text()
    assert render(page_verdicts(page)) == page, (
        "docs/conformance-catalogue.md is stale: run python tests/conformance_catalogue.py "
        "--write")
    guide = (ROOT / "docs" / "test-your-perceptron.md").read_text()
    [stated] = re.findall(r"\[bug catalogue\]\(conformance-catalogue\.md\), (\d+) small "
                          r"programs", guide)
    assert int(stated) == len(BUGS)


def test_a_pipe_in_a_cell_is_escaped_outside_code_only():
    [bug] = [b for b in BUGS if b.cause == "squared-norm step" and b.language == "python"]
    row = render([Verdict(bug, "right", 1, 2)]).splitlines()[-1]
    assert "1 / \\|\\|x\\|\\|^2" in row and "`w += y x / ||x||^2`" in row
