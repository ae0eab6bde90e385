"""Every example a user can read runs, and ends as its text says (issue 37).

The examples are the shell blocks of README.md and docs/*.md and the examples of
every command's ``--help`` (enumerated from the parser, so a new command cannot be
missed); ``tests/_examples.py`` finds and runs them. Each runs in a fresh temporary
folder that holds the files it names, made by the block "Files the examples use" of
``docs/command-line.md`` (each file once per session, when an example first needs
it). The cheap examples run by default; the ones in :data:`SLOW` with ``-m slow``.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from _examples import (Example, Line, command_lines, doc_examples, expected_status,
                       help_examples, markone_argv, prepare, run_in_bash, run_line)
from _paths import ROOT

EXAMPLES = doc_examples() + help_examples()

#: The files the examples name, as "Files the examples use" makes them.
FILES = ("data.csv", "small.csv", "data.npz", "run.json", "cert.json", "suite/")

#: What makes an example too heavy for the default suite (a sweep, a fleet, the
#: tour, a solver run, the suite written or checked whole): it runs with -m slow.
SLOW = ("markone demo", "sim run", "sim check", "machine fleet", "verify proofs",
        "machine demo", "machine navy", "adversary suite", "suite/",
        "machine train --shapes", "verify machine", "--dask", "results/",
        "adversary exhaustive", "adversary z3", "adversary lattice",
        "--max-epochs 20", "cc -std")
#: The most command lines an example of the default suite has (each starts Python).
CHEAP_LINES = 2


def _is_recipe(example):
    return example.where.startswith("docs/command-line.md") and "> small.csv" in example.text


RECIPE = next(example for example in EXAMPLES if _is_recipe(example))
RUN = [example for example in EXAMPLES if example is not RECIPE]


def _needs(text):
    """The :data:`FILES` a text names (a folder by its name, with or without ``/``)."""
    return {name for name in FILES
            if re.search(r"(?<![\w./-])" + re.escape(name.rstrip("/")) + r"(?![\w.-])", text)}


class ExampleFiles:
    """The files of "Files the examples use", each made once, when first needed:
    a recipe line runs with the lines that make the files it names first."""

    def __init__(self, folder):
        self.folder = folder
        self.done = set()
        prepare(folder, None)

    def lines_for(self, names):
        """The recipe lines that make ``names``, and what those lines need."""
        wanted, lines = set(names), []
        while True:
            lines = [line for line in RECIPE.lines if _needs(line.text) & wanted]
            more = set().union(*(_needs(line.text) for line in lines)) if lines else set()
            if more <= wanted:
                return lines
            wanted |= more

    def fill(self, folder, names):
        """Copy the files ``names`` into ``folder`` (made first if need be)."""
        for line in self.lines_for(names):
            if line.text not in self.done:
                done = run_line(line, self.folder)
                assert done.returncode == 0, f"{line.where}: {line.text}\n{done.stderr}"
                self.done.add(line.text)
        for name in names:
            source = self.folder / name.rstrip("/")
            if source.is_dir():
                shutil.copytree(source, folder / name.rstrip("/"))
            else:
                shutil.copy2(source, folder / name)


@pytest.fixture(scope="session")
def example_files(tmp_path_factory):
    return ExampleFiles(tmp_path_factory.mktemp("example-files"))


def is_slow(example):
    """Heavy (:data:`SLOW`), or more than :data:`CHEAP_LINES` lines of commands."""
    return len(example.lines) > CHEAP_LINES or any(s in example.text for s in SLOW)


def _params():
    return [pytest.param(example, marks=[pytest.mark.slow] if is_slow(example) else [],
                         id=example.where) for example in RUN]


def _written(example):
    """The :data:`FILES` that the example writes itself (``--out NAME``)."""
    return {name for line in example.lines
            for m in re.finditer(r"--out\s+(\S+)", line.text) for name in _needs(m.group(1))}


#: A cluster address an example shows as a placeholder; the test runs it on a
#: dask.distributed LocalCluster of its own.
CLUSTER = re.compile(r"tcp://(?:host|scheduler):8786")


@pytest.fixture(scope="session")
def dask_address():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def _runnable(line, request):
    """``line`` with a placeholder cluster made real; skips what this machine lacks."""
    for tool in ("node", "cc"):
        if re.search(rf"(^|[\s\"']){tool} ", line.text) and shutil.which(tool) is None:
            pytest.skip(f"{line.where}: `{tool}` is not installed")
    if CLUSTER.search(line.text):
        address = request.getfixturevalue("dask_address")
        return Line(CLUSTER.sub(address, line.text), line.expect, line.where)
    return line


@pytest.mark.parametrize("example", _params())
def test_example_runs_as_promised(example, example_files, tmp_path, request):
    prepare(tmp_path, None)
    example_files.fill(tmp_path, _needs(example.text) - _written(example))
    for line in example.lines:
        done = run_line(_runnable(line, request), tmp_path)
        assert done.returncode == line.expect, (
            f"{line.where}: `{line.text}` ended with exit status {done.returncode}, "
            f"but the text promises {line.expect} (say `# exits N` when that is "
            f"meant).\nstdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}")


@pytest.mark.parametrize("text", [
    "markone verify separable xor   # exits 1",   # a verdict: main's return value
    "markone train --no-such-option",             # argparse's SystemExit(2)
    "markone machine params --markdown",          # 0, and a table on stdout
])
def test_a_plain_line_run_here_ends_as_in_bash(text, tmp_path):
    # the default examples run their plain `markone` lines in this process: the status
    # (and output) must be what `python -m markone` gives the shell
    line = Line(text, expected_status(text), "x")
    assert markone_argv(text) is not None
    here, bash = run_line(line, tmp_path), run_in_bash(line, tmp_path)
    seconds = functools.partial(re.sub, r"\d+\.\d+ s\b", "(time) s")   # a run's time
    assert here.returncode == bash.returncode in (0, 1, 2), bash.stderr
    assert seconds(here.stdout) == seconds(bash.stdout)
    assert here.stderr == bash.stderr


def test_every_command_shows_an_example_that_runs():
    helps = [example for example in EXAMPLES if example.where.endswith(" --help`")]
    assert len(helps) > 20 and "`markone machine train --help`" in [e.where for e in helps]
    bare = [example.where for example in helps if not example.lines]
    assert not bare, f"commands whose --help shows no example: {bare}"


def test_recipe_makes_every_file_the_examples_name():
    assert {name for line in RECIPE.lines for name in _needs(line.text)} == set(FILES)
    named = set().union(*(_needs(example.text) for example in RUN))
    assert named == set(FILES), f"files no example names any more: {set(FILES) - named}"


def test_no_example_opens_a_file_the_platform_way():
    # `open` is macOS only (`xdg-open`, `start` elsewhere): say "open it in a browser"
    found = [line.where for example in EXAMPLES for line in example.lines
             if re.search(r"(^|[;&|]\s*)(open|xdg-open|start)\s", line.text)]
    assert not found, f"platform-specific commands in examples: {found}"


def test_expected_status_and_lines():
    assert expected_status("markone verify separable xor   # exits 1: no line") == 1
    assert expected_status('markone x --cmd "a # exits 3"') == 0
    assert expected_status("markone train data.csv") == 0
    body = "$ markone a \\\n    --b   # exits 4\noutput # exits 9\n$ markone c\n"
    assert command_lines(body) == [(0, "markone a --b   # exits 4"), (3, "markone c")]
    assert [line.expect for line in Example("x", tuple(
        Line(text, expected_status(text), "x") for _, text in command_lines(body))).lines] \
        == [4, 0]


def test_help_examples_read_exits_from_the_explanation(monkeypatch):
    examples = {example.where: example for example in help_examples()}
    separable = examples["`markone verify separable --help`"]
    assert [line.text for line in separable.lines][0] == "markone verify separable data.csv"
    assert all(not line.text.endswith(" ") for example in examples.values()
               for line in example.lines)


def test_needs_names_files_not_their_neighbours():
    assert _needs("markone train data.csv --json out.json") == {"data.csv"}
    assert _needs("markone adversary check suite/ --impl x") == {"suite/"}
    assert _needs("markone machine show run.json") == {"run.json"}
    assert _needs("markone verify drift myrun.json") == set()
    writes = Example("x", (Line("markone adversary suite --out suite/", 0, "x"),
                           Line("markone adversary check suite/", 0, "x")))
    assert _written(writes) == {"suite/"}
    assert ROOT.joinpath("examples", "perceptron.py").is_file()


# --- numbers in the prose that the code can count ----------------------------------

_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}


def _number(word):
    return int(word) if word.isdigit() else _WORDS[word.lower()]


@functools.cache
def _counts():
    """What the code counts, by what the prose calls it."""
    from sims.runner import EXPERIMENTS
    from verify import conformance

    cases = conformance.build_cases()
    float64 = sum(bool(case["float64_can_pass"]) for case in cases)
    return {"experiments": len(EXPERIMENTS), "cases": len(cases),
            "float64 cases": float64, "n/a": len(cases) - float64}


#: (page, pattern, what each group counts): a number the prose states, and the count.
COUNTED = [
    ("docs/sims.md", r"the {N} experiments", ("experiments",)),
    ("README.md", r"all {N} at default sizes", ("experiments",)),
    ("docs/test-your-perceptron.md", r"passes (\d+) of the (\d+) cases",
     ("float64 cases", "cases")),
    ("docs/test-your-perceptron.md", r"(\d+) passed, (\d+) n/a", ("float64 cases", "n/a")),
    ("docs/test-your-perceptron.md", r"passes the same (\d+) cases", ("float64 cases",)),
    ("docs/test-your-perceptron.md", r"the {N} that do not apply", ("n/a",)),
]


@pytest.mark.parametrize(("page", "pattern", "what"), COUNTED,
                         ids=[f"{p}:{w[-1]}" for p, _, w in COUNTED])
def test_counts_in_the_prose_match_the_code(page, pattern, what):
    counts = _counts()
    pattern = pattern.replace("{N}", "(" + "|".join([r"\d+", *_WORDS]) + ")")
    found = re.findall(pattern, " ".join((ROOT / page).read_text(encoding="utf-8").split()))
    assert found, f"{page} no longer says {pattern!r}: update COUNTED"
    for groups in found:
        groups = (groups,) if isinstance(groups, str) else groups
        for said, name in zip(groups, what):
            assert _number(said) == counts[name], (
                f"{page}: {pattern!r} says {said} {name}; the code has {counts[name]}")


#: Generated pages whose counts of cases another test checks (page -> how).
COUNTED_ELSEWHERE = {
    "docs/conformance-catalogue.md": "rendered with the suite's case count from "
                                     "build_cases; tests/verify/conformance/"
                                     "test_catalogue.py checks it is",
    "docs/peer-table.md": "rendered from its record of the peers' runs; "
                          "tests/verify/conformance/test_peer_table.py checks it is",
}


def test_no_page_states_a_case_count_the_code_does_not_check():
    # "the suite has 25 cases" (it had 28): a count of cases is tested above or absent
    checked = {page for page, pattern, what in COUNTED if "cases" in what}
    checked |= set(COUNTED_ELSEWHERE)
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = " ".join(path.read_text(encoding="utf-8").split())
        rel = path.relative_to(ROOT).as_posix()
        if rel not in checked:
            assert not re.search(r"\b\d+ cases\b", text), f"{rel} states a number of cases"


def test_help_examples_line_up():
    # `markone sim list --help` showed its first example at column 0, the next at 2
    from _examples import _iter_commands

    for path, _, parser in _iter_commands():
        head, _, rest = (parser.epilog or "").partition(":\n")
        examples = rest.split("\n\n")[0].splitlines()
        starts = [line for line in examples if line.lstrip().startswith("markone ")]
        assert starts and all(line.startswith("  markone ") for line in starts), (
            " ".join(path), examples)


def test_command_blocks_say_they_are_shell():
    # a block with no language is not run: test-your-perceptron.md showed two
    # `markone adversary check` lines in one; label it ```bash (or ```console)
    from _examples import MARKDOWN, fenced_blocks

    unlabelled = [f"{path.relative_to(ROOT)}:{line}" for path in MARKDOWN
                  for lang, body, line in fenced_blocks(path.read_text(encoding="utf-8"))
                  if not lang and re.search(r"^(\$ )?markone ", body, re.M)]
    assert not unlabelled, f"blocks of commands without a shell language: {unlabelled}"


@pytest.mark.slow
def test_a_placeholder_cluster_runs_on_a_local_one(dask_address, tmp_path, request):
    # `--dask tcp://scheduler:8786` in an example runs on the test's own cluster
    line = Line("markone sim run novikoff --size small --dask tcp://scheduler:8786", 0, "x")
    done = run_line(_runnable(line, request), tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "sim-out" / "novikoff" / "results.json").is_file()


def test_a_line_past_its_timeout_leaves_no_process_running(tmp_path):
    """A line killed for its time (a sweep on a loaded host) must not leave its
    commands running: they went on writing into the test's folder for minutes."""
    line = Line("sleep 600 & echo $! > pid; wait", 0, "test")
    with pytest.raises(subprocess.TimeoutExpired):
        run_in_bash(line, tmp_path, timeout=5)
    status = Path(f"/proc/{int((tmp_path / 'pid').read_text())}/status")
    for _ in range(200):                  # SIGKILL lands at once; its reaping may lag
        if not status.exists() or "State:\tZ" in status.read_text():
            break
        time.sleep(0.05)
    assert not status.exists() or "State:\tZ" in status.read_text()
