"""No file a command was asked to write is lost to a reader that closes the pipe
(issue 37, item 1).

Every option that names a file or a folder to write is typed ``output_file`` or
``output_folder``; the commands that have one are found in the parser itself, and
each must have a recipe below (a small run) or a reason in ``NOT_RUN``, so that a new
command cannot be forgotten. Each recipe runs in a fresh process whose stdout is a
real pipe, its reader ``head -c 0``, ``grep -q .`` or a read end closed before the
command starts; stdout is unbuffered (``PYTHONUNBUFFERED=1``), so the first line
printed already fails. The command must end quietly (no traceback, no "bug") and the
file must be complete: parsed, and re-checked where it can be (a certificate by the
checker, a case by re-running its stream on the textbook loop, a run by loading it).

The fast test runs each recipe once, the readers taken in turn, in this process
(:func:`markone.cli.main` with ``sys.stdout`` an unbuffered stream on the pipe's write
end, as ``python -u`` makes it); one real ``python -m markone`` process per reader
runs beside it (issue 37: a process per recipe cost some 10 s of CPU, mostly loading
numpy, numba and the kernels again). The slow test runs every recipe through every
reader in a real process, and the recipes that take long (a whole demo, the whole
suite, an experiment).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from _paths import ROOT
from conformance_impls import perceptron
from markone.cli import build_parser, main, output_file, output_folder
from markone.cli._errors import EXIT_PIPE

ITER_COMMANDS = __import__("runpy").run_path(str(ROOT / "docs" / "hooks.py"))["iter_commands"]

AND = "x1,x2,y\n0,0,0\n0,1,0\n1,0,0\n1,1,1\n"

#: Flags that name something to write, in any command; each must be typed as an output.
OUTPUT_FLAGS = {"--out", "--json", "--certificate", "--report", "--html"}
#: Options with one of those names that are read, not written.
READ_NOT_WRITTEN = {("sim check", "--out")}  # the folder `sim run` wrote

#: Commands with an output option that this test does not run, and why.
NOT_RUN = {"machine console": "writes --out only when the page's Save is pressed; "
           "it prints its address with flush=True and serves until stopped"}


def _outputs(parser):
    return [a for a in parser._actions if a.type in (output_file, output_folder)]


def writing_commands():
    """``{command: [output actions]}`` of every command with an output option."""
    found = {}
    for path, _, parser in ITER_COMMANDS(build_parser()):
        outs = _outputs(parser)
        if outs:
            found[" ".join(path[1:])] = outs
    return found


# ---- checks of the files written ---------------------------------------------------

def _json(path):
    return json.loads(Path(path).read_text())


def _check_certificate(path):
    from verify.certificate import check_certificate_file

    check_certificate_file(path)  # raises on a wrong or unreadable certificate


def _number(v):
    return Fraction(v) if isinstance(v, str) else Fraction(v)


def _check_case(path):
    """Re-run the case's stream on the textbook loop (plain Fractions): its mistakes
    and final weights are the ones the file expects."""
    doc = _json(path)
    rows = [[_number(v) for v in row] + [Fraction(1)] * doc["intercept"]
            for row in doc["X"]]
    w, mistakes, _, _ = perceptron(rows, [int(v) for v in doc["y"]], doc["order"])
    assert mistakes == doc["expected_mistakes"]
    assert w == [_number(v) for v in doc["expected_w"]]


def _check_run(path):
    from markone.hardware import MachineRun

    assert MachineRun.load(path).epochs >= 1


def _check_html(path):
    assert Path(path).read_text().rstrip().endswith("</html>")


def _check_suite(folder):
    from verify.conformance import load_cases

    manifest = _json(Path(folder) / "manifest.json")
    assert len(load_cases(folder)) == len(manifest["cases"]) > 0


def _check_machine_demo(folder):
    _check_run(Path(folder) / "machine-run.json")


def _check_queries(folder):
    queries = sorted(Path(folder).glob("*.smt2"))
    assert [q.name for q in queries] == ["novikoff.base.smt2", "novikoff.base.wrong.smt2"]
    assert all(q.read_text().rstrip().endswith("(check-sat)\n(exit)") for q in queries)


def _check_sim(folder):
    assert _json(Path(folder) / "orthonormal_tight" / "results.json")


def _check_demo(folder):
    assert _json(Path(folder) / "summary.json")["out"] == str(folder)
    _check_certificate(next(Path(folder).glob("*certificate*.json")))
    _check_html(Path(folder) / "index.html")


def _check_keys(*keys):
    def check(path):
        doc = _json(path)
        assert all(k in doc for k in keys), sorted(doc)
    return check


# ---- the recipes ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """``and.csv``, a small logged Mark I run and an orthonormal case, made in-process."""
    from markone._internal.io import write_json
    from verify.cli.adversary import case_document
    from markone.datasets import letters
    from markone.hardware import MarkI
    from verify.adversary import orthonormal_case

    top = tmp_path_factory.mktemp("inputs")
    (top / "and.csv").write_text(AND)
    images, labels = letters("AB", per_class=1, seed=0)
    MarkI(seed=0).train(images, labels, max_epochs=3, log=True).save(top / "run.json")
    write_json(top / "case.json", case_document(orthonormal_case(3), "orthonormal"))
    return top


def _recipes(i):
    """``{command: (arguments, output, check)}``; ``i`` is the folder of inputs."""
    data, run, case = str(i / "and.csv"), str(i / "run.json"), str(i / "case.json")
    impl = f"{ROOT / 'tests' / 'conformance_impls.py'}:correct"
    return {
        "train": ([data, "--json", "{out}"], "t.json", _check_keys("last_w", "converged")),
        "verify separable": ([data, "--certificate", "{out}"], "c.json",
                             _check_certificate),
        "verify cycling": (["xor", "--certificate", "{out}"], "cy.json",
                           _check_certificate),
        "verify drift": ([run, "--rate", "0.01", "--json", "{out}"], "d.json", _json),
        "verify machine": (["letters", "--chars", "AB", "--per-class", "1",
                            "--weight-range", "3", "--json", "{out}"], "m.json", _json),
        "verify tolerance": (["letters", "--chars", "AB", "--per-class", "1",
                              "--weight-range", "3", "--json", "{out}"], "w.json", _json),
        "adversary orthonormal": (["--m", "3", "--out", "{out}"], "o.json", _check_case),
        "adversary greedy": ([data, "--out", "{out}"], "g.json", _check_case),
        "adversary exhaustive": ([data, "--budget", "1", "--out", "{out}"], "e.json",
                                 _check_case),
        "adversary z3": ([data, "--budget", "1", "--out", "{out}"], "z.json", _check_case),
        "adversary lattice": (["--n", "4", "--d", "2", "--k", "2", "--draws", "3",
                               "--out", "{out}"], "l.json", _check_case),
        "adversary check": ([case, "--impl", impl, "--format", "json", "--report",
                             "{out}"], "r.json", _json),
        "machine train": (["--chars", "AB", "--per-class", "1", "--log", "--out",
                           "{out}"], "run.json", _check_run),
        "machine fleet": (["--machines", "2", "--presentations", "10", "--chars", "AB",
                           "--out", "{out}"], "f.json", _check_keys("machines")),
        "machine replay": ([run, "--html", "{out}"], "r.html", _check_html),
        "verify proofs": (["--only", "novikoff.base", "--solver", "z3", "--smt2", "{out}"],
                          "queries", _check_queries),
        "machine demo": (["letters", "--chars", "AB", "--per-class", "1",
                          "--max-epochs", "2", "--out", "{out}"], "demo",
                         _check_machine_demo),
    }


#: Recipes that take many seconds of real work: run by the slow test only.
SLOW_RECIPES = {
    "adversary suite": (["--out", "{out}"], "suite", _check_suite),
    "sim run": (["orthonormal_tight", "--set", "m_max=2", "--out", "{out}"], "sim",
                _check_sim),
    "demo": (["--out", "{out}"], "tour", _check_demo),
}

READERS = ("closed at once", "head -c 0", "grep -q .")


def _reader_of(reader):
    """The read end of a new pipe and the process reading it (``None`` for a read end
    closed at once); ``(reader process, write end)``."""
    read_end, write_end = os.pipe()
    other = None
    if reader != "closed at once":
        other = subprocess.Popen(reader.split(), stdin=read_end,
                                 stdout=subprocess.DEVNULL)
    os.close(read_end)
    return other, write_end


def run_in_process(reader, argv, cwd):
    """Run ``markone ARGV`` in this process (:func:`markone.cli.main`, working folder
    ``cwd``) with ``sys.stdout`` unbuffered on a pipe to ``reader``;
    ``(status, stderr)``."""
    other, write_end = _reader_of(reader)
    err = io.StringIO()
    here = os.getcwd()
    with io.TextIOWrapper(io.FileIO(write_end, "w"), write_through=True) as pipe:
        os.chdir(cwd)
        try:
            with contextlib.redirect_stdout(pipe), contextlib.redirect_stderr(err):
                status = main(argv)
        finally:
            os.chdir(here)
            with contextlib.suppress(OSError):  # its buffer was sent to the null device
                pipe.flush()
    if other is not None:
        other.wait(timeout=300)
    return status, err.getvalue()


def run_through(reader, argv, cwd):
    """Run ``markone ARGV`` in a new process with stdout a pipe to ``reader``;
    ``(status, stderr)``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "markone", *argv]
    if reader == "closed at once":
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=cwd, env=env)
        proc.stdout.close()  # before the command has printed anything
        err = proc.stderr.read().decode()
        return proc.wait(timeout=300), err
    other, write_end = _reader_of(reader)
    try:
        proc = subprocess.Popen(cmd, stdout=write_end, stderr=subprocess.PIPE, cwd=cwd,
                                env=env)
    finally:
        os.close(write_end)
    err = proc.stderr.read().decode()
    other.wait(timeout=300)
    return proc.wait(timeout=300), err


def check_recipe(command, recipe, reader, tmp_path, run=run_through):
    """Run ``markone COMMAND`` with ``recipe`` through ``reader`` (by ``run``: in a new
    process or in this one); it ends quietly and its file is whole."""
    arguments, name, check = recipe
    out = tmp_path / name
    status, err = run(reader, [*command.split(), *(a.format(out=out) for a in arguments)],
                      tmp_path)
    assert "Traceback" not in err and "internal error" not in err, err
    if reader == "closed at once":  # every command prints: its first line fails
        assert status == EXIT_PIPE, (status, err)
    else:                           # grep may read all before it goes: a verdict then
        assert status in (0, 1, 4, EXIT_PIPE), (status, err)
    assert out.exists(), f"`markone {command}` lost {name} to `| {reader}`"
    check(out)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert not leftovers, leftovers  # no temporary file left behind


# ---- the tests -------------------------------------------------------------------------

def test_every_output_option_is_typed_as_one():
    for path, _, parser in ITER_COMMANDS(build_parser()):
        command = " ".join(path[1:])
        for action in parser._actions:
            for flag in OUTPUT_FLAGS & set(action.option_strings):
                if (command, flag) not in READ_NOT_WRITTEN:
                    assert action.type in (output_file, output_folder), (command, flag)


def test_every_command_that_writes_has_a_recipe(tmp_path):
    recipes = {**_recipes(tmp_path), **SLOW_RECIPES}
    assert set(writing_commands()) == set(recipes) | set(NOT_RUN)


#: The recipes of the fast test, each run through one reader (in turn).
FAST = sorted(_recipes(Path(".")))


@pytest.mark.parametrize("command", FAST)
def test_no_file_is_lost_to_a_closed_pipe(command, inputs, tmp_path):
    reader = READERS[FAST.index(command) % len(READERS)]
    check_recipe(command, _recipes(inputs)[command], reader, tmp_path, run_in_process)


#: The recipe run in a real process through each reader by the fast tests.
IN_A_PROCESS = "verify separable"


@pytest.mark.parametrize("reader", READERS)
def test_no_file_is_lost_to_a_closed_pipe_in_a_real_process(reader, inputs, tmp_path):
    check_recipe(IN_A_PROCESS, _recipes(inputs)[IN_A_PROCESS], reader, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("command", sorted([*FAST, *SLOW_RECIPES]))
def test_no_file_is_lost_to_any_reader(command, reader, inputs, tmp_path):
    recipe = {**_recipes(inputs), **SLOW_RECIPES}[command]
    check_recipe(command, recipe, reader, tmp_path)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_a_full_disk_on_stdout_is_one_line_after_the_work(inputs, tmp_path):
    out = tmp_path / "t.json"
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "markone", "train", str(inputs / "and.csv"), "--json",
             str(out)], stdout=full, stderr=subprocess.PIPE, text=True, timeout=300,
            env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"})
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "could not print to stdout" in proc.stderr
    assert _json(out)["converged"] is True
