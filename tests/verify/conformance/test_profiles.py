"""Profiles (what an implementation claims), declining a case, and --cases: a
correct float64 implementation exits 0 under its profile; cases outside it are
skipped in JUnit, not failed."""

import json
import re
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest
from _paths import TESTS

from markone.cli import main
from verify import conformance as C
from verify.conformance.profile import Profile
from verify.conformance.suite import case_tags, select_cases

HANDSHAKE = textwrap.dedent("""
    import json, sys
    problem = json.load(sys.stdin)
    if problem.get("format") == "markone.conformance.handshake/1":
        print(json.dumps({"profile": PROFILE}))
    else:
        print(json.dumps({"unsupported": "only the handshake"}))
""")


@pytest.fixture
def impls():
    return TESTS / "conformance_impls.py"


def test_a_correct_float64_implementation_exits_0_under_its_profile(suite, impls,
                                                                     capsys):
    impl = ["--impl", f"{impls}:float64_perceptron"]
    assert main(["adversary", "check", str(suite), *impl]) == 1    # claims exact
    out = capsys.readouterr().out
    assert re.search(r"\nexact-rational-tie +exact-arithmetic +FAIL\n", out)
    assert main(["adversary", "check", str(suite), *impl,
                 "--profile", "arithmetic=float64"]) == 0
    out = capsys.readouterr().out
    assert "12 passed, 0 failed, 0 errors, 22 not applicable (of 34 cases)" in out
    assert "[profile arithmetic=float64,variants=last+averaged+voted+pocket," in out


def test_the_summary_names_the_variants_it_could_not_judge(suite, impls, capsys):
    # the profile lists every variant and task, but f(X, y, order) answers only the
    # binary last iterate: the summary says plainly which it did not judge
    assert main(["adversary", "check", str(suite), "--impl",
                 f"{impls}:float64_perceptron", "--profile", "arithmetic=float64"]) == 0
    out = capsys.readouterr().out
    assert ("not judged, each of its cases not applicable: the averaged, voted and "
            "pocket variants, the multiclass and kernel tasks") in out
    assert main(["adversary", "check", str(suite), "--impl",
                 f"{impls}:float64_perceptron", "--profile", "arithmetic=float64",
                 "--cases", "zero-score-orthonormal,intercept-convention"]) == 0
    assert "not judged" not in capsys.readouterr().out


def test_a_correct_float32_implementation_passes_under_float32(suite, impls, capsys):
    status = main(["adversary", "check", str(suite), "--impl",
                   f"{impls}:float32_perceptron", "--profile",
                   "arithmetic=float32,variants=last,tasks=binary"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "extreme-large" in out and "float32 rounding or range changes" in out


def test_junit_skips_what_does_not_apply(suite, impls, tmp_path):
    report = tmp_path / "r.xml"
    assert main(["adversary", "check", str(suite), "--impl",
                 f"{impls}:float64_perceptron", "--profile", "arithmetic=float64",
                 "--format", "junit", "--report", str(report)]) == 0
    root = ET.parse(report).getroot()
    assert (root.get("tests"), root.get("failures"), root.get("errors"),
            root.get("skipped")) == ("34", "0", "0", "22")
    skipped = root.find("testcase[@name='exact-cancellation']/skipped")
    assert "needs exact arithmetic" in skipped.get("message")


def test_a_case_the_implementation_declines_is_not_applicable(suite, impls):
    [kernel] = [c for c in C.load_cases(suite) if c["id"] == "kernel-dual-counts"]
    r = C.run_case(kernel, C.load_impl(f"{impls}:no_kernels"))
    assert (r.status, r.details) == ("n/a", ("the implementation declines it: no "
                                             "kernels here",))


@pytest.mark.parametrize("profile, n_a, one", [
    ({"arithmetic": "float64", "variants": ["last"], "tasks": ["binary"],
      "intercept": False}, {"exact-rational-tie", "exact-cancellation"},
     "zero-score-orthonormal"),
    ({"tasks": ["multiclass"]}, set(), "multiclass-argmax-ties")])
def test_a_cmd_program_declares_its_profile_in_the_handshake(suite, tmp_path, capsys,
                                                             profile, n_a, one):
    """The library runs the whole suite under the declared profile; the command, on
    one case the profile takes (``one``: a process per case, the whole suite again
    cost twice the test), refuses a program that declined all it was sent."""
    script = tmp_path / "declares.py"
    script.write_text(f"PROFILE = {profile!r}\n" + HANDSHAKE.replace("true", "True"))
    cmd = f"{sys.executable} {script}"
    declared = C.CommandAdapter(cmd).declared_profile()
    assert declared == Profile.from_json(profile)
    results = C.run_suite(C.load_cases(suite), C.CommandAdapter(cmd), profile=declared)
    assert {r.id for r in results if "needs exact" in r.details[0]} == n_a
    # it declines every case it was sent: nothing ran, which is bad input (exit 2)
    assert main(["adversary", "check", str(suite / f"{one}.json"), "--cmd", cmd]) == 2
    err = capsys.readouterr().err
    assert f"[profile {declared.describe()}, declared in the handshake]" in err


def test_an_invalid_declared_profile_is_bad_input(suite, tmp_path, capsys):
    script = tmp_path / "bad.py"
    script.write_text("PROFILE = {'arithmetic': 'float16'}\n" + HANDSHAKE)
    assert main(["adversary", "check", str(suite), "--cmd",
                 f"{sys.executable} {script}"]) == 2
    assert "'float16' is not one of exact, float64, float32" in capsys.readouterr().err


@pytest.mark.parametrize("text, words", [
    ("arithmetic=float16", "'float16' is not one of exact, float64, float32"),
    ("variants=last+median", "'median' is not one of last, averaged"),
    ("tasks=", "'' is not one of binary"),
    ("colour=blue", "KEY=VALUE with KEY one of arithmetic"),
    ("intercept=maybe", "intercept must be yes or no")])
def test_profile_refuses_what_it_does_not_know(text, words):
    with pytest.raises(ValueError, match=words.replace("+", r"\+")):
        Profile.parse(text)


def test_profile_round_trips_and_full_claims_everything():
    p = Profile.parse("arithmetic=float32,variants=last+voted,intercept=no")
    assert Profile.from_json(p.as_json()) == p
    assert Profile.parse(p.describe()) == p
    assert all(Profile().excludes(c) is None for c in C.build_cases())


def test_cases_select_by_id_or_tag(suite, impls, capsys):
    cases = C.load_cases(suite)
    assert [c["id"] for c in select_cases(cases, "variant-*")] == [
        "variant-averaged", "variant-voted", "variant-pocket", "variant-voted-ties",
        "variant-pocket-ties", "variant-pocket-no-run", "variant-voted-close-vote",
        "variant-averaged-partial-pass"]
    assert {c["id"] for c in select_cases(cases, "exact-only")} == {
        "exact-rational-tie", "exact-cancellation", "exact-intercept-rounding",
        "exact-averaged-sum", "exact-multiclass-scores", "exact-multiclass-query-scores",
        "exact-voted-query-scores"}
    assert all("intercept" in case_tags(c) for c in select_cases(cases, "intercept"))
    assert main(["adversary", "check", str(suite), "--impl",
                 f"{impls}:float64_perceptron", "--cases", "zero-*,xor-*"]) == 0
    assert "2 passed, 0 failed, 0 errors, 0 not applicable (of 2 cases)" in \
        capsys.readouterr().out
    assert main(["adversary", "check", str(suite), "--impl",
                 f"{impls}:float64_perceptron", "--cases", "nothing-*"]) == 2
    err = capsys.readouterr().err
    assert "matches no case" in err and "exact-only" in err and "multiclass" in err
