"""The Coq development (verify/coq, issue 30): it builds from the sources with no
``Admitted`` and no axiom, its theorems state the formulas the Python code uses, and
the checker extracted from it agrees with the Python kernel on every certificate of
the certificate tests, valid and forged. Skipped, with the reason, without Coq."""

import math
import re
from fractions import Fraction

import pytest

from verify.coq import THEOREMS, missing_tools
from verify.coq.build import SOURCE_DIR, print_assumptions, project_files

MISSING = missing_tools()
needs_coq = pytest.mark.skipif(MISSING is not None, reason=f"Coq is absent: {MISSING}")


def sources():
    return {name: (SOURCE_DIR / name).read_text() for name in project_files()[1]}


def statement(name, module):
    """The statement of theorem ``name`` in ``module.v``: from its keyword to Proof."""
    text = sources()[f"{module}.v"]
    m = re.search(rf"(?:Theorem|Lemma|Corollary)\s+{re.escape(name)}\b(.*?)Proof\.",
                  text, re.S)
    assert m, f"{name} is not stated in {module}.v"
    return " ".join(m[1].split())


def test_no_admitted_and_no_axiom_in_the_sources():
    for name, text in sources().items():
        found = re.findall(r"\b(Admitted|admit|Axiom|Parameter|Conjecture|Abort)\b", text)
        assert not found, (name, found)


def test_every_theorem_of_the_table_states_its_conclusion():
    for t in THEOREMS:
        stated = statement(t.name, t.module)
        assert " ".join(t.conclusion.split()) in stated, t.name
        assert " ".join(t.condition.split()) in stated, t.name


@needs_coq
def test_every_theorem_rests_on_no_axiom_beyond_its_listed_set(coq_build):
    found = print_assumptions(coq_build, {t.name: t.module for t in THEOREMS})
    assert found == {t.name: list(t.axioms) for t in THEOREMS}


@needs_coq
def test_print_assumptions_names_the_axiom_of_the_theorem_that_uses_one(coq_build):
    """All theorems are asked at once first; when that answer has an axiom, each is
    asked alone, so the one that uses it is named and the others stay closed, in its
    module and in another. The modules are small probes that load no library (a
    theorem of the development, such as Novikoff's, loads mathcomp: 1.6 s of CPU for
    each of the two questions; every theorem of the development is asked at once above)."""
    import subprocess

    probes = {"AxiomProbe": "Axiom markone_probe : False.\n"
                            "Theorem uses_it : False. Proof. exact markone_probe. Qed.\n"
                            "Theorem closed : True. Proof. exact I. Qed.\n",
              "ClosedProbe": "Theorem also_closed : 1 = 1. Proof. reflexivity. Qed.\n"}
    for module, text in probes.items():
        (coq_build.directory / f"{module}.v").write_text(text)
        subprocess.run(["coqc", *coq_build.coq_args, f"{module}.v"],
                       cwd=coq_build.directory, check=True, capture_output=True)
    found = print_assumptions(coq_build, {"closed": "AxiomProbe", "uses_it": "AxiomProbe",
                                          "also_closed": "ClosedProbe"})
    assert found == {"closed": [], "uses_it": ["AxiomProbe.markone_probe"],
                     "also_closed": []}, found


def coq_formula(name, field="conclusion", **values):
    """Evaluate the right side of a Coq conclusion (or condition) of the table in exact
    rationals: ``x ^+ 2`` is ``x**2``, ``normsq u`` (and ``normsq (mxvec U)``) is given
    as ``U``, ``dot a z`` as ``az`` and ``normsq z`` as ``r``, ``normsq a`` as ``A``;
    ``R ^+ 2`` as ``R2`` when that is given (a squared radius whose root is irrational)."""
    text = getattr(next(t for t in THEOREMS if t.name == name), field)
    rhs = text.split("<=", 1)[1]
    if "R2" in values:
        rhs = rhs.replace("R ^+ 2", "R2")
    for coq, py in (("^+", "**"), ("normsq (mxvec U)", "U"), ("normsq u", "U"), ("dot a z", "az"), ("normsq z", "r"),
                    ("normsq a", "A")):
        rhs = rhs.replace(coq, py)
    return eval(rhs, {}, {k: Fraction(v) for k, v in values.items()})  # noqa: S307


@pytest.mark.parametrize("R,gamma", [(3.0, 1.0), (1.0, 3.0), (2.5, 0.1), (0.7, 0.3)])
def test_novikoff_bound_is_the_coq_formula_for_a_unit_u(R, gamma):
    from verify.margin import novikoff_bound

    exact = coq_formula("novikoff", R=R, gamma=gamma, U=1)
    got = novikoff_bound(R, gamma)  # the exact value rounded up to a float
    assert Fraction(got) >= exact > Fraction(math.nextafter(got, 0))


def test_multiclass_bound_is_the_kesler_formula_rounded_up():
    """kesler_bound with a unit U: ``2 R^2 / gamma^2``, R the largest ``||x||`` and
    gamma the report's (the certified Kesler margin's lower end). Here
    ``||psi||^2 = 2 R^2 = 4`` exactly: the bound is the formula rounded up."""
    from verify.bounds import check_multiclass_bound

    X, y = [[1, 0], [0, 1], [-1, -1]], ["a", "b", "c"]
    r = check_multiclass_bound(X, y, intercept=False, order="shuffle", runs=5, seed=0)
    exact = coq_formula("kesler_bound", R2=2, U=1, gamma=r.gamma)
    assert Fraction(r.bound) >= exact > Fraction(math.nextafter(r.bound, 0))
    assert max(r.mistakes) <= exact


@pytest.mark.parametrize("intercept", [True, False])
def test_multiclass_bound_is_at_least_the_kesler_formula(intercept):
    """With an irrational Kesler radius ``sqrt(2) R`` (rounded up by max_margin) the
    bound is the formula to 12 digits, and never below it."""
    from verify.bounds import check_multiclass_bound

    X, y = [[0, 3], [3, 0], [-3, -3], [1, 4], [4, 1]], ["a", "b", "c", "a", "b"]
    r = check_multiclass_bound(X, y, intercept=intercept)
    R2 = max(sum(v * v for v in x) + intercept for x in X)
    exact = coq_formula("kesler_bound", R2=R2, U=1, gamma=r.gamma)
    assert exact <= Fraction(r.bound) <= exact * (1 + Fraction(1, 10**12))


@pytest.mark.parametrize("u,gamma", [([2, 0, 0], 1.0), ([1, 1, 1], 0.5), ([0, 3, 4], 2.0)])
def test_freund_schapire_bound_is_the_coq_formula(u, gamma):
    """freund_schapire: its deviations are Coq's ``hinge`` (``max(0, gamma - u.z)`` for
    the unit ``u``, of the signed rows ``z = y [x, 1]``), ``D^2`` their sum of squares
    (the condition), ``R`` the largest ``||z||``, and the bound ``((R + D)/gamma)^2``."""
    import markone
    from verify.bounds import freund_schapire_bound

    X, y = markone.datasets.xor()
    r = freund_schapire_bound(X, y, u=u, gamma=gamma)
    norm = math.sqrt(sum(v * v for v in u))
    zs = [[yi * v for v in [*x, 1]] for x, yi in zip(X.tolist(), y.tolist())]
    hinge = [max(0.0, gamma - sum(a * b for a, b in zip(u, z)) / norm) for z in zs]
    assert r.deviations.tolist() == pytest.approx(hinge, abs=1e-12)
    D2 = coq_formula("freund_schapire", "condition", D=r.D)
    assert D2 == pytest.approx(sum(h * h for h in hinge), rel=1e-12)
    assert r.R ** 2 == pytest.approx(max(sum(v * v for v in z) for z in zs), rel=1e-12)
    exact = coq_formula("freund_schapire", R=r.R, D=r.D, gamma=r.gamma)
    assert float(exact) == pytest.approx(r.bound, rel=1e-12)
    assert max(r.mistakes) <= exact


def test_an_accepted_gordan_certificate_means_a_mistake_in_every_pass():
    """check_certificate_cycles: XOR's certificate is accepted, so every pass of the
    cyclic order has a mistake (markone's exact run over p passes: >= p mistakes)."""
    import markone
    import verify
    from verify.certificate import check_certificate

    X, y = markone.datasets.xor()
    claim = verify.check_separable(X, y)
    assert not claim.separable and check_certificate(X, y, claim)
    for p in range(1, 7):
        with pytest.warns(UserWarning):
            r = markone.train(X, y, exact=True, max_epochs=p)
        assert not r.converged and r.mistakes >= p


@pytest.mark.parametrize("seed", range(6))
def test_an_accepted_witness_gives_novikoff_with_its_margin(seed):
    """check_witness_novikoff: AND's witness is accepted; with gamma its least score
    ``min y w.[x, 1]`` and R^2 the largest ``||[x, 1]||^2``, every order makes at most
    ``R^2 ||w||^2 / gamma^2`` mistakes (the conclusion's right side over gamma^2)."""
    import markone
    import verify
    from verify.certificate import check_certificate

    X, y = [[0, 0], [0, 1], [1, 0], [1, 1]], [-1, -1, -1, 1]
    claim = verify.check_separable(X, y)
    assert claim.separable and check_certificate(X, y, claim)
    w = [Fraction(v) for v in claim.witness]
    zs = [[yi * Fraction(v) for v in [*x, 1]] for x, yi in zip(X, y)]
    gamma = min(sum(a * b for a, b in zip(w, z)) for z in zs)
    R2 = max(sum(v * v for v in z) for z in zs)
    assert gamma > 0
    r = markone.train(X, y, exact=True, order="shuffle", seed=seed)
    assert r.converged and r.mistakes * gamma ** 2 <= R2 * sum(v * v for v in w)


@pytest.mark.parametrize("R,lower,b", [(4.0, 2.0, -2.0), (1.0, 0.5, 0.0), (3.0, 0.25, 1.5)])
def test_intercept_bound_is_the_coq_formula_with_c_1(R, lower, b):
    import numpy as np

    from verify.margin import intercept_theorem_bound

    exact = coq_formula("novikoff_intercept", R=R, c=1, U=1, b=b, gamma=lower)
    got = intercept_theorem_bound(R, lower, np.array([1.0]), b)
    assert Fraction(got) >= exact > Fraction(math.nextafter(got, 0))


def test_the_kernel_checks_the_gordan_condition_of_the_coq_checker():
    """The Python kernel's two conditions (every weight > 0, the combination is 0) are
    the Coq checker's (qpos of every weight, every coordinate Qeq_bool to 0)."""
    import inspect

    from verify.certificate import kernel

    coq = " ".join(sources()["Checker.v"].split())
    assert "qpos (snd il)" in coq and "(sum, []) => forallb (fun q => Qeq_bool q 0) sum" in coq
    py = inspect.getsource(kernel._check_gordan)
    assert "if lam <= 0:" in py and "if t:" in py


@pytest.mark.parametrize("X,y,e,lo,hi,centre", [
    ([[1, 0], [0, 1]], [-1, 1], 1, -1, 1, ([-2, 2], 2)),
    ([[1, 1, 0], [0, 1, 1], [1, 0, 1]], [1, -1, 1], 2, -5, 5, ([5, -1, -2], 1)),
])
def test_the_clipped_ball_of_check_machine_is_the_coq_formula(X, y, e, lo, hi, centre):
    """check_projected_ball's decrease and bound are clipped_ball's: delta the least
    ``e (2 a.z - e ||z||^2)`` over the examples, at most ``||a||^2 / delta`` mistakes."""
    from verify.machine import check_projected_ball

    numerators, q = centre
    a = [Fraction(v, q) for v in numerators]
    zs = [[yi * v for v in x] for x, yi in zip(X, y)]
    delta = min(coq_formula("clipped_ball", "condition", e=e,
                            az=sum(map(lambda p, s: p * s, a, z)), r=sum(v * v for v in z))
                for z in zs)
    bound = coq_formula("clipped_ball", A=sum(v * v for v in a), delta=delta)
    assert check_projected_ball(X, y, e, lo, hi, numerators, q) == (math.floor(bound), delta)


@pytest.mark.parametrize("m", [1, 4, 9])
def test_orthonormal_case_makes_the_mistakes_orthogonal_mistakes_counts(m):
    """orthogonal_mistakes: m orthonormal examples, m mistakes, which is Novikoff's
    bound (R = 1, gamma = 1/sqrt(m)): the bound is met."""
    from verify.adversary import orthonormal_case

    case = orthonormal_case(m)
    assert case.mistakes == m == case.bound


def test_print_assumptions_asks_in_a_file_of_its_own(tmp_path, monkeypatch):
    """The test workers share one build (issue 37): each question goes in a file of its
    own, removed with what coqc wrote beside it, so two workers asking at once never
    compile each other's half-written question (one CI run failed on a shared
    ``PrintAssumptions.v``: "Syntax error: illegal begin of vernac")."""
    import importlib
    import subprocess

    coq = importlib.import_module("verify.coq.build")   # the module, not the function
    asked = []

    def fake_coqc(argv, cwd, **kwargs):
        probe = cwd / argv[-1]
        asked.append((probe.name, probe.read_text()))
        (cwd / f"{probe.stem}.vo").write_bytes(b"")
        return subprocess.CompletedProcess(argv, 0, "Closed under the global context\n", "")

    monkeypatch.setattr(coq.subprocess, "run", fake_coqc)
    built = coq.CoqBuild(tmp_path, (), tmp_path / "checker")
    for _ in range(2):
        assert coq.print_assumptions(built, {"novikoff": "Novikoff"}) == {"novikoff": []}
    assert len({name for name, _ in asked}) == 2
    assert all("Print Assumptions" in text for _, text in asked)
    assert list(tmp_path.iterdir()) == []
