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
        assert " ".join(t.conclusion.split()) in statement(t.name, t.module), t.name


@needs_coq
def test_every_theorem_rests_on_no_axiom_beyond_its_listed_set(coq_build):
    found = print_assumptions(coq_build, {t.name: t.module for t in THEOREMS})
    assert found == {t.name: list(t.axioms) for t in THEOREMS}


def coq_formula(name, **values):
    """Evaluate the bound a Coq conclusion states (``x ^+ 2`` is ``x**2``) in exact
    rationals; ``normsq u`` is given as ``U``."""
    conclusion = next(t.conclusion for t in THEOREMS if t.name == name)
    rhs = conclusion.split("<=", 1)[1].replace("^+", "**").replace("normsq u", "U")
    return eval(rhs, {}, {k: Fraction(v) for k, v in values.items()})  # noqa: S307


@pytest.mark.parametrize("R,gamma", [(3.0, 1.0), (1.0, 3.0), (2.5, 0.1), (0.7, 0.3)])
def test_novikoff_bound_is_the_coq_formula_for_a_unit_u(R, gamma):
    from verify.margin import novikoff_bound

    exact = coq_formula("novikoff", R=R, gamma=gamma, U=1)
    got = novikoff_bound(R, gamma)  # the exact value rounded up to a float
    assert Fraction(got) >= exact > Fraction(math.nextafter(got, 0))


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
    assert "qpos (snd il)" in coq and "forallb (fun q => Qeq_bool q 0) (combination" in coq
    py = inspect.getsource(kernel._check_gordan)
    assert "if lam <= 0:" in py and "if t:" in py
