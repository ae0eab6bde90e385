"""The C example (examples/perceptron.c), compiled in a temporary folder and run
through ``--cmd``: it declares float64 in the handshake and exits 0 on the whole
suite; its --rule strict and a declared exact profile are diagnosed by their causes."""

import shutil
import subprocess

import pytest
from _paths import ROOT

from markone.cli import main
from verify import conformance as C

EXAMPLE = ROOT / "examples" / "perceptron.c"
COMPILER = shutil.which("cc") or shutil.which("gcc")
#: How the docs say to build it (no fused multiply-add: sums as the re-run's).
FLAGS = ["-std=c99", "-O2", "-ffp-contract=off", "-Wall", "-Wextra"]

pytestmark = pytest.mark.skipif(
    COMPILER is None, reason="no C compiler (cc or gcc) on the PATH to build "
                             "examples/perceptron.c")


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    out = tmp_path_factory.mktemp("c_example") / "perceptron"
    build = subprocess.run([COMPILER, *FLAGS, "-o", str(out), str(EXAMPLE)],
                           capture_output=True, text=True, check=False)
    assert build.returncode == 0, build.stderr
    return out


def test_the_c_example_passes_cases_of_every_task_under_its_declared_profile(binary):
    """The fast sibling of the whole-suite run below."""
    ids = ["zero-score-orthonormal", "float64-near-tie", "extreme-small",
           "variant-averaged", "variant-voted-ties", "variant-pocket-ties",
           "multiclass-stream-order", "kernel-dual-count-slips", "exact-rational-tie"]
    adapter = C.CommandAdapter(str(binary))
    results = C.run_suite(C.build_cases(ids), adapter, profile=adapter.declared_profile())
    assert {r.id: r.status for r in results} == {
        **dict.fromkeys(ids, "pass"), "exact-rational-tie": "n/a"}


@pytest.mark.slow
def test_the_c_example_passes_the_suite_under_its_declared_profile(binary, tmp_path,
                                                                   capsys):
    suite = tmp_path / "suite"
    C.write_suite(suite)
    assert main(["adversary", "check", str(suite), "--cmd", str(binary)]) == 0
    out = capsys.readouterr().out
    assert "27 passed, 0 failed, 0 errors, 7 not applicable (of 34 cases)" in out
    assert "profile arithmetic=float64," in out and "declared in the handshake" in out


def test_its_planted_bugs_are_named(binary):
    cases = C.build_cases(["zero-score-orthonormal", "exact-intercept-rounding",
                           "exact-averaged-sum", "exact-multiclass-scores"])
    strict = C.run_suite(cases[:1], C.CommandAdapter(f"{binary} --rule strict"))
    assert strict[0].status == "fail"
    assert strict[0].diagnosis[0].startswith("the strict rule")
    # declared exact, its float64 is caught where only exact arithmetic passes (the
    # case it passes rules out the 0/1 labels' rule, which gives float64's answer on
    # exact-intercept-rounding by chance)
    exact = C.run_suite(C.build_cases(["intercept-convention"]) + cases[1:],
                        C.CommandAdapter(str(binary)),
                        profile=C.Profile(arithmetic="exact"))
    assert [r.status for r in exact] == ["pass"] + ["fail"] * 3
    exact = exact[1:]
    assert all(len(r.diagnosis) == 1 and r.diagnosis[0].startswith(
        "float64 arithmetic: rounding changes") for r in exact)


def test_the_c_example_with_a_start_passes_declared_and_fails_otherwise(binary):
    """--start 0.5, as the Node example has it: every weight (each class's row, the
    pocket's and the voted start's) starts at 1/2; declared, every task's cases
    pass; declared otherwise, the start it used is named."""
    adapter = C.CommandAdapter(f"{binary} --start 0.5")
    ids = ["intercept-convention", "variant-averaged", "variant-voted-ties",
           "variant-pocket-ties", "multiclass-argmax-ties", "kernel-dual-counts"]
    results = C.run_suite(C.build_cases(ids), adapter,
                          profile=C.Profile.parse("arithmetic=float64,start=0.5"))
    assert {r.id: r.status for r in results} == dict.fromkeys(ids, "pass")
    [wrong] = C.run_suite(C.build_cases(["intercept-convention"]), adapter,
                          profile=C.Profile.parse("arithmetic=float64,start=0.1"))
    assert wrong.status == "fail"
    assert any(d.startswith("starting weights w = 1/2 (every weight), not the declared "
                            "start") for d in wrong.diagnosis), wrong.diagnosis


def test_the_c_example_refuses_an_unknown_option_in_one_line(binary):
    out = subprocess.run([str(binary), "--begin", "1"], input="{}", capture_output=True,
                         text=True, check=False)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.splitlines() == ["perceptron: options: --rule textbook|strict|"
                                       "zero-correct, --eta NUMBER, --start NUMBER"]
