"""A hostile ``--cmd`` corpus: programs that hang, flood, nest, fork and hide.

None may keep ``markone adversary check`` past its limits, none may end in an
internal error (exit 3), and none may leave a process behind. Each program is a tiny
script in ``hostile/``; the ones that fork write their children's pids to the file
named by ``HOSTILE_PIDS``.
"""

import json
import sys
import threading
from fractions import Fraction
from pathlib import Path

import pytest

from markone.cli import main
from verify.conformance import CommandAdapter, load_cases
from verify.errors import ImplementationError
from verify.conformance.command import (JSONShapeGuard, OutputLimits, StderrTail,
                                        run_bounded)
from verify.errors import OutputLimitExceeded
from verify.conformance.protocol import (CASE_FORMAT, PROBLEM_FORMAT, SUITE_VERSION,
                                         rule_text)
from verify.errors import LimitExceeded

HOSTILE = Path(__file__).parent / "hostile"
#: Python for the programs under test, without site (they use the standard library
#: only): half its start, 25 ms less a run, hundreds of runs (issue 37)
PYTHON = f"{sys.executable} -S"
#: no case of the corpus may take longer than this (a hang guard, not a speed test)
HANG_GUARD_S = 60

CORPUS = {
    # name: (script and its arguments, options, words the report must show)
    "hang": ("hang.py", ["--timeout", "1"], "did not answer within 1 s (it was still "
             "running)"),
    "ignores SIGTERM": ("ignore_term.py", ["--timeout", "1"], "did not answer within 1 s"),
    "floods stdout": ("flood_stdout.py", ["--max-output", "200000"],
                      "too much on stdout and stderr together (the last bytes on stdout)"
                      " (the limit is 200,000 bytes, --max-output); raise --max-output"),
    "floods stderr": ("flood_stderr.py", ["--max-output", "200000"],
                      "(the last bytes on stderr)"),
    "one endless stderr line": ("flood_one_line.py", [], "--max-output"),
    "nests a million deep": ("nesting.py", [], "nests JSON more than 64 deep (the limit "
                             "is 64, --max-depth)"),
    "a million-digit integer": ("huge_int.py", [], "a number of more than 4,000 "
                                "characters (the limit is 4,000, --max-digits)"),
    "1e99999 as a string": ("huge_exponent.py 1e99999", [], "w[0] is '1e99999', 100,000 "
                            "digits (the limit is 4,000, --max-digits)"),
    "1e1_000_000_00 as a string": ("huge_exponent.py 1e1_000_000_00", [],
                                   "without digit-group underscores"),
    "forks sleepers": ("forks.py", [], "FAIL"),
    "detached grandchild ignoring SIGTERM": ("detached.py", [], "FAIL"),
    "detached grandchild holding stdout": ("detached.py hold", ["--timeout", "2"], "FAIL"),
    "setsid grandchild ignoring SIGTERM": ("detached.py setsid", [], "FAIL"),
    # no mark in its environment, its parents gone: only a subreaper holds it (#46)
    "setsid grandchild with an empty environment": ("clean_escape.py", [], "FAIL"),
    "not UTF-8": ("non_utf8.py", [], "did not write one JSON object"),
    "exits without reading": ("early_exit.py", [], "did not write one JSON object"),
}


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    """One small case without checkpoints (one run of the program per check)."""
    problem = {"format": PROBLEM_FORMAT, "id": "tiny", "task": "binary",
               "variant": "last", "rule": rule_text("binary", "last"),
               "intercept": True, "X": [[1.0, 0.0], [0.0, 1.0]], "y": [1, -1],
               "order": [0, 1, 0]}
    doc = {"format": CASE_FORMAT, "suite_version": SUITE_VERSION, "id": "tiny",
           "title": "tiny", "property": "mistake-driven-updates", "pins": "the rule",
           "task": "binary", "variant": "last", "float64_can_pass": True,
           "tolerance": 0, "problem": problem,
           "expected": {"mistakes": 2, "w": ["1", "-1", "0"]}}
    path = tmp_path_factory.mktemp("hostile") / "tiny.json"
    path.write_text(json.dumps(doc))
    assert load_cases(path) == [doc]
    return path


def finishes(fn, *args):
    """fn(*args) (its value, or its exception raised here), failing the test rather
    than hanging it if it has not returned in time."""
    box = {}

    def call():
        try:
            box["value"] = fn(*args)
        except BaseException as exc:      # handed over to the test's thread
            box["error"] = exc

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(HANG_GUARD_S)
    assert not thread.is_alive(), f"still running after {HANG_GUARD_S} s: a hang"
    if "error" in box:
        raise box["error"]
    return box["value"]


def running(pid):
    """Is ``pid`` a live process (a zombie waiting for its reaper is not)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


@pytest.mark.parametrize("name", list(CORPUS))
def test_hostile_program_is_bounded_and_leaves_nothing(name, case, tmp_path,
                                                       monkeypatch, capsys):
    script, options, words = CORPUS[name]
    pids = tmp_path / "pids"
    pids.touch()
    monkeypatch.setenv("HOSTILE_PIDS", str(pids))
    cmd = f"{PYTHON} {HOSTILE / script}"
    status = finishes(main, ["adversary", "check", str(case), "--cmd", cmd, *options])
    out, err = capsys.readouterr()
    assert status == 1, (status, out, err)
    assert words in out
    assert "internal error" not in err
    left = [pid for pid in pids.read_text().split() if running(pid)]
    assert not left, f"{name}: processes left behind: {left}"


def test_the_timeout_covers_every_run_together(tmp_path, monkeypatch, capsys):
    """--timeout 1 on a program that never answers, with three cases: the handshake
    is stopped at 1 s, and no later run is started (each was another full --timeout:
    --timeout 20 took 41 s on one case); every case says why, the process is gone."""
    from verify.conformance import write_suite

    write_suite(tmp_path / "suite")
    pids = tmp_path / "pids"
    monkeypatch.setenv("HOSTILE_PIDS", str(pids))
    cmd = f"{PYTHON} {HOSTILE / 'hang.py'}"
    status = finishes(main, ["adversary", "check", str(tmp_path / "suite"), "--cases",
                             "intercept-convention,exact-cancellation,zero-score-"
                             "orthonormal", "--cmd", cmd, "--timeout", "1"])
    out = capsys.readouterr().out
    started = pids.read_text().split()
    assert status == 1 and len(started) == 1, (status, started, out)
    assert out.count("did not answer within 1 s (it was still running) (in an earlier "
                     "run); --timeout 1 s covers every run together") == 3, out
    assert "3 errors" in out and not running(started[0])


def test_control_characters_on_stderr_are_escaped(case, capsys):
    """Escape codes a program writes on stderr are shown as escapes, never sent to
    the terminal as they are."""
    cmd = f"{PYTHON} {HOSTILE / 'escapes.py'}"
    assert main(["adversary", "check", str(case), "--cmd", cmd]) == 1
    err = capsys.readouterr().err
    assert "  | \\x1b[2J\\x1b[H\\x1b]0;pwned\\x07 \\u202egnirts\n" in err, err
    assert "  | second\\x9b1m\n" in err, err
    assert not any(c in err for c in "\x1b\x07\u202e\x9b\r"), err


def test_a_correct_answer_written_a_character_at_a_time_passes(case, capsys):
    """Brackets, quotes and a backslash inside a string, cut at every character, do
    not count as nesting (the limit is 2 here, the answer nests 2 deep)."""
    cmd = f"{PYTHON} {HOSTILE / 'trickle.py'}"
    assert main(["adversary", "check", str(case), "--cmd", cmd, "--max-depth", "2"]) == 0
    assert "1 passed" in capsys.readouterr().out


def test_stderr_is_shown_marked_and_bounded(case, capsys):
    cmd = f"{PYTHON} {HOSTILE / 'flood_stderr.py'}"
    assert main(["adversary", "check", str(case), "--cmd", cmd, "--max-output", "100000",
                 "--max-stderr-lines", "3"]) == 1
    err = capsys.readouterr().err
    assert err.count("  | debug: still thinking\n") == 3
    assert "more lines of stderr not shown (--max-stderr-lines 3)" in err
    assert "\ndebug" not in err                  # every line of it marked


def test_a_program_that_exits_before_reading_a_large_problem():
    adapter = CommandAdapter(f"{PYTHON} {HOSTILE / 'early_exit.py'}")
    problem = {"task": "binary", "variant": "last", "intercept": False,
               "X": [[1.0] * 1000] * 500, "y": [1] * 500, "order": list(range(500))}
    with pytest.raises(ImplementationError, match="did not write one JSON object"):
        adapter.answer(problem)


def test_limits_are_checked_while_reading_not_after():
    """A program that floods stdout forever is stopped at the limit: were the limit
    checked after reading, this run would never end."""
    argv = [sys.executable, str(HOSTILE / "flood_stdout.py")]
    with pytest.raises(OutputLimitExceeded, match="--max-output"):
        finishes(lambda: run_bounded(argv, "", timeout_s=HANG_GUARD_S,
                                     limits=OutputLimits(max_output=50_000)))


SAMPLE = json.dumps({"w": [12345, "1/3"], "s": 'a \\" ]] [[ {', "n": [[[1]]]})


def refused(pieces, **limits):
    """Does the guard refuse the JSON text fed as ``pieces``?"""
    guard = JSONShapeGuard(**limits)
    try:
        for piece in pieces:
            guard.feed(piece)
    except LimitExceeded:
        return True
    return False


def every_cut(text):
    """``text`` cut once at every place (an empty chunk in the cut too), and cut
    between every two characters."""
    for k in range(len(text) + 1):
        yield [text[:k], text[k:]]
        yield [text[:k], "", text[k:]]
    yield list(text)


@pytest.mark.parametrize("max_depth, ok", [(4, True), (3, False)])
def test_shape_guard_depth_at_every_cut(max_depth, ok):
    """The sample nests 4 deep (brackets in its string do not count)."""
    for pieces in every_cut(SAMPLE):
        assert refused(pieces, max_depth=max_depth, max_digits=100) is not ok, pieces


@pytest.mark.parametrize("max_digits, ok", [(6, True), (5, False)])
def test_shape_guard_number_length_at_every_cut(max_digits, ok):
    """The longest number token has 6 characters (the longer one is a string)."""
    for pieces in every_cut('[123456, 1, "1234567890", 22]'):
        assert refused(pieces, max_depth=5, max_digits=max_digits) is not ok, pieces


def test_stderr_tail_keeps_the_first_lines_and_counts_the_rest():
    tail = StderrTail(max_lines=2, width=5)
    for piece in ("one\ntw", "o\nthree\n", "four\nfive"):
        tail.feed(piece)
    assert tail.text().splitlines() == [
        "one", "two", "... 3 more lines of stderr not shown (--max-stderr-lines 2)"]
    tail = StderrTail(max_lines=5, width=5)
    tail.feed("abcdefgh\n")
    assert tail.text() == "abcde ...(line cut)"


def test_limits_refuse_nonsense():
    for bad in ({"max_output": 0}, {"max_depth": 501}, {"max_digits": True}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            OutputLimits(**bad)


def test_cli_help_states_the_default_limits(capsys):
    with pytest.raises(SystemExit):
        main(["adversary", "check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    d = OutputLimits()
    assert d.max_output == 16 * 2**20 and "(default 16 MiB)" in text
    assert f"(default {d.max_depth}, at most 500)" in text
    assert f"(default {d.max_digits:,})" in text
    assert f"(default {d.max_stderr_lines})" in text


# ---- numbers in answers: one reader (markone._internal.exact.parse_number) ------------

HUGE_NUMBER_TEXTS = {
    # text: its size when written out in full, as the refusal must say it
    "1e1000000000": 1_000_000_001,              # a 10**9-digit value from 12 characters
    "-7.5e999999999999": 1_000_000_000_001,
    "1e" + "9" * 5000: 10**20 + 1,              # an exponent beyond any machine integer
    "9" * 4001: 4001,
    "1/" + "3" * 4000: 4001,
}


@pytest.mark.parametrize("text", list(HUGE_NUMBER_TEXTS))
def test_a_huge_answer_number_is_refused_by_its_size_before_it_is_built(text):
    """Each value would take minutes (or memory beyond the machine) to expand: it is
    refused from the text alone, with its size, by the protocol and by the exact
    reader it shares with markone's data paths."""
    from markone._internal.exact import NumberTooLong
    from markone._internal.exact import parse_number as read_text
    from verify.conformance.protocol import exact_numbers, parse_number

    size = HUGE_NUMBER_TEXTS[text]
    with pytest.raises(LimitExceeded, match=f"{size:,} digits \\(the limit is 4,000, "
                                            "--max-digits\\)"):
        finishes(parse_number, text)
    with pytest.raises(LimitExceeded, match=f"w\\[1\\] is .*{size:,} digits"):
        finishes(lambda: exact_numbers({"w": [0, text]}))
    with pytest.raises(NumberTooLong) as info:
        finishes(lambda: read_text(text, max_digits=4000))
    assert (info.value.size, info.value.limit) == (size, 4000)


def test_answer_numbers_read_exactly_up_to_the_limit_and_never_guessed():
    from verify.conformance.protocol import parse_number

    assert parse_number("9" * 4000) == 10**4000 - 1
    assert parse_number("1e3999") == 10**3999                # 4,000 digits: allowed
    assert parse_number(" -2.5e-3 ") == Fraction(-1, 400)
    assert parse_number("+3/4") == Fraction(3, 4)
    assert parse_number("5.") == 5 and parse_number(".5") == Fraction(1, 2)
    for bad in ("1_000", "1/0", "nan", "inf", "0x10", "1e", "", "3/4/5", "1.5/2"):
        with pytest.raises(ValueError, match="not a number"):
            parse_number(bad)
