"""Tests of verify.proofs: every part of every theorem proved by Z3 and by cvc5, every
wrong variant refuted by both with an exact rational counterexample that is re-checked
here (PSD by our own elimination, the statement by hand), and the exported SMT-LIB 2
files answered the same way by the ``z3`` executable."""

import shutil
import subprocess
import sysconfig
from fractions import Fraction
from pathlib import Path

import pytest

from markone.cli import main
from verify.proofs import OBLIGATIONS, ProofResult, check_all, prove, table
from verify.smt import evaluate


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Every obligation, right and wrong, with both solvers (queries saved)."""
    out = tmp_path_factory.mktemp("smt2")
    results = check_all(smt2_dir=out)
    return {(r.name, r.wrong, r.solver): r for r in results}, out


@pytest.mark.parametrize("name", list(OBLIGATIONS))
def test_each_part_is_proved_by_both_solvers(run, name):
    results, _ = run
    for solver in ("z3", "cvc5"):
        r = results[name, False, solver]
        assert r.status == "proved" and r.expected and r.counterexample == {}
        assert r.dimension_free and r.form in ("gram", "scalar")


def _gram(cex):
    """The Gram matrix in a counterexample (vector names have no underscore)."""
    names = []
    for key in cex:
        if key.startswith("g_"):
            for n in key[2:].split("_"):
                if n not in names:
                    names.append(n)
    return names, [[cex[_key(a, b, cex)] for b in names] for a in names]


def _key(a, b, cex):
    return f"g_{a}_{b}" if f"g_{a}_{b}" in cex else f"g_{b}_{a}"


def _is_psd(G):
    """Exact PSD test by symmetric elimination (our own, not the solver's minors)."""
    A = [[Fraction(v) for v in row] for row in G]
    n = len(A)
    for p in range(n):
        if A[p][p] < 0:
            return False
        if A[p][p] == 0:
            if any(A[p][j] != 0 for j in range(p + 1, n)):
                return False
            continue
        for i in range(p + 1, n):
            f = A[i][p] / A[p][p]
            for j in range(p, n):
                A[i][j] -= f * A[p][j]
    return True


@pytest.mark.parametrize("name", list(OBLIGATIONS))
def test_each_wrong_variant_is_refuted_with_an_exact_counterexample(run, name):
    results, _ = run
    for solver in ("z3", "cvc5"):
        r = results[name, True, solver]
        assert r.status == "counterexample" and r.expected
        cex = r.counterexample
        assert cex and all(type(v) is Fraction for v in cex.values()), cex
        hyp, concl = r.statement_terms()
        assert all(evaluate(h, cex) for h in hyp) and not evaluate(concl, cex)
        assert r.holds(cex) is False
        if r.form == "gram":
            names, G = _gram(cex)
            assert _is_psd(G), (name, solver, G)   # realisable by real vectors


def test_is_psd_oracle():
    assert _is_psd([[1, 1], [1, 1]]) and _is_psd([[0, 0], [0, 2]])
    assert not _is_psd([[1, 2], [2, 1]]) and not _is_psd([[0, 1], [1, 5]])
    assert not _is_psd([[1, 0, 0], [0, 1, 1], [0, 1, Fraction(1, 2)]])


def _dotter(cex):
    def dot(a, b):
        """Inner product of two combinations {name: coef} through the Gram entries."""
        return sum(ca * cb * cex[_key(p, q, cex)] for p, ca in a.items()
                   for q, cb in b.items())
    return dot


def test_counterexamples_break_the_statements_written_out_by_hand(run):
    results, _ = run
    for solver in ("z3", "cvc5"):
        # Novikoff's step without "mistake": the norm grows past (k+1) R^2
        c = results["novikoff.step", True, solver].counterexample
        dot, y, k, g, R = _dotter(c), c["y"], c["k"], c["gamma"], c["R"]
        u, w, x, new = {"u": 1}, {"w": 1}, {"x": 1}, {"w": 1, "x": c["y"]}
        assert y in (1, -1) and dot(u, u) == 1 and y * dot(u, x) >= g > 0
        assert dot(x, x) <= R * R and k >= 0 and dot(u, w) >= k * g
        assert dot(w, w) <= k * R * R
        assert not (dot(u, new) >= (k + 1) * g and dot(new, new) <= (k + 1) * R * R)
        assert y * dot(w, x) > 0                       # because it was no mistake
        # the bound k <= R/gamma is wrong, k <= (R/gamma)^2 is right
        c = results["novikoff.bound", True, solver].counterexample
        k, g, R = c["k"], c["gamma"], c["R"]
        assert k * g > R and k * g * g <= R * R
        # Freund-Schapire: (R^2 + D^2)/gamma^2 is exceeded, ((R + D)/gamma)^2 is not
        c = results["freund_schapire.bound", True, solver].counterexample
        k, g, R, D = c["k"], c["gamma"], c["R"], c["D"]
        assert R * R + D * D < k * g * g <= (R + D) ** 2
        # Kesler without the factor 2
        c = results["kesler.bound", True, solver].counterexample
        k, g, R = c["k"], c["gamma"], c["R"]
        assert R * R < k * g * g <= 2 * R * R
        # the end stop at R/gamma is too tight; R^2/gamma holds
        c = results["endstop.norm", True, solver].counterexample
        dot, g, R = _dotter(c), c["gamma"], c["R"]
        wj = dot({"w": 1}, {"e": 1})
        assert dot({"e": 1}, {"e": 1}) == 1 and (g * wj) ** 2 > R * R
        assert (g * wj) ** 2 <= R ** 4
        # the intercept's best constant is c^2 = R|b|, not c = R|b|
        c = results["intercept.optimum", True, solver].counterexample
        R, b, cc = c["R"], c["b"], c["c"]
        assert cc == R * abs(b) and (R * R + cc * cc) * (1 + b * b / (cc * cc)) != \
            (R + abs(b)) ** 2
    R, b = Fraction(4), Fraction(9)            # at c^2 = R|b| = 36 the minimum is met
    assert (R * R + 36) * (1 + b * b / 36) == (R + b) ** 2


def _z3_executable():
    found = shutil.which("z3", path=sysconfig.get_path("scripts")) or shutil.which("z3")
    assert found, ("the z3 executable of the z3-solver wheel was not found in "
                   f"{sysconfig.get_path('scripts')} or on PATH")
    return found


def test_exported_smt2_files_get_the_same_answers_from_the_z3_executable(run):
    results, out = run
    files = sorted(Path(out).glob("*.smt2"))
    assert len(files) == 2 * len(OBLIGATIONS)
    z3 = _z3_executable()
    for f in files:
        name = f.name[:-len(".smt2")]
        wrong = name.endswith(".wrong")
        name = name[:-len(".wrong")] if wrong else name
        answer = subprocess.run([z3, "-T:60", str(f)], capture_output=True, text=True,
                                check=False).stdout.split()[0]
        r = results[name, wrong, "z3"]
        assert answer == {"proved": "unsat", "counterexample": "sat"}[r.status], f.name
        assert f.read_text() == r.smt2 == results[name, wrong, "cvc5"].smt2


def test_table_lists_every_check_and_flags_disagreement(run):
    results, _ = run
    text = table(results.values())
    assert text.splitlines()[0].split()[:4] == ["obligation", "dimension-free", "z3", "cvc5"]
    assert len(text.splitlines()) == 2 + 2 * len(OBLIGATIONS)
    assert "DISAGREE" not in text
    a = ProofResult("novikoff.step", "", "gram", False, "z3", "proved")
    b = ProofResult("novikoff.step", "", "gram", False, "cvc5", "counterexample")
    assert table([a, b]).splitlines()[-1].endswith("DISAGREE")
    # an unknown decides nothing: no DISAGREE on its row, as the summary line counts
    # "0 disagreement(s)" (a row said DISAGREE above that line under --timeout) (#37)
    c = ProofResult("novikoff.step", "", "gram", False, "cvc5", "unknown")
    assert not table([a, c]).splitlines()[-1].endswith("DISAGREE")
    assert not b.expected and not c.expected


def test_bad_arguments():
    with pytest.raises(ValueError, match="name"):
        prove("pythagoras")
    with pytest.raises(ValueError, match="solver"):
        prove("novikoff.step", solver="yices")
    with pytest.raises(ValueError, match="timeout_s"):
        prove("novikoff.step", timeout_s=0)
    with pytest.raises(ValueError, match="budget"):
        prove("novikoff.step", budget=0)
    with pytest.raises(TypeError, match="timeout_ms"):   # gone before 1.0 (#40)
        prove("novikoff.step", timeout_ms=20_000)


def test_the_budget_is_the_solvers_resource_limit():
    """A proof is limited by the solver's deterministic resource count, not the clock:
    Freund-Schapire's step needs about 1.4 million Z3 units and 69 thousand cvc5 ones."""
    for solver, budget in (("z3", 100_000), ("cvc5", 1_000)):
        cut = prove("freund_schapire.step", solver=solver, budget=budget)
        assert (cut.status, cut.stopped_by) == ("unknown", "budget"), solver
        assert prove("freund_schapire.step", solver=solver).status == "proved"
    with pytest.raises(ValueError, match="name"):
        check_all(names=["novikoff.stp"])


def test_cli_prints_the_table_and_writes_queries(tmp_path, capsys):
    out = tmp_path / "q"
    assert main(["verify", "proofs", "--only", "novikoff.step", "endstop.norm",
                 "--smt2", str(out)]) == 0
    text = capsys.readouterr().out
    assert "novikoff.step (wrong)" in text and "every obligation proved" in text
    assert sorted(p.name for p in out.iterdir()) == [
        "endstop.norm.smt2", "endstop.norm.wrong.smt2", "novikoff.step.smt2",
        "novikoff.step.wrong.smt2"]
    assert f"queries written to {out}/ (unsat" in text
    # the folder as typed, with its slash (issue 37, walk: it was printed 'q//')
    assert main(["verify", "proofs", "--only", "novikoff.base", "--smt2", f"{out}/"]) == 0
    assert f"queries written to {out}/ (unsat" in capsys.readouterr().out
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(SystemExit) as refused:  # by the parser, before any query
        main(["verify", "proofs", "--smt2", str(blocker)])
    assert refused.value.code == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    assert main(["verify", "proofs", "--only", "nope"]) == 2
    assert "no such obligation" in capsys.readouterr().err
    for bad in ("0", "inf", "nan"):  # refused by the parser, before any query
        with pytest.raises(SystemExit) as refused:
            main(["verify", "proofs", "--timeout", bad])
        assert refused.value.code == 2
        assert "--timeout" in capsys.readouterr().err
