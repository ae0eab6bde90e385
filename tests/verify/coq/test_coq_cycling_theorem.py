"""The perceptron cycling theorem checked by Coq's kernel (verify/coq/BlockLevin.v,
issue 41 item 1): its rows in ``verify.coq.THEOREMS``, and statements that assume
nothing but a finite set of examples over an ordered field. That they compile with no
axiom is ``test_coq_proofs.py``'s to check (it asks ``Print Assumptions`` of every row)."""

from _paths import load_test_module
from verify.coq import THEOREMS
from verify.coq.build import SOURCE_DIR

PROOFS = load_test_module("verify/coq/test_coq_proofs.py")


def test_the_theorem_and_its_zero_start_form_are_registered():
    rows = {t.name: t for t in THEOREMS if t.module == "BlockLevin"}
    assert set(rows) == {"cycling_bounded", "cycling_theorem"}
    assert rows["cycling_theorem"].used_by == "verify.cycling.check_cycling"
    assert all(t.axioms == () for t in rows.values())
    assert {t.name for t in THEOREMS if t.module == "Span"} == {"proj_bound"}
    corollaries = {t.name: t for t in THEOREMS if t.module == "CyclingIntegers"}
    assert set(corollaries) == {"integer_cycles", "integer_reachable"}
    assert {t.used_by for t in corollaries.values()} == {"verify.cycling.check_cycling"}


def test_the_integer_corollary_assumes_only_integer_coordinates():
    """Over the rationals, for examples with integer coordinates, in every dimension:
    the cyclic run from zero repeats within ``(2R + 1)^n`` passes, and the weights
    reachable from zero in every order are at most ``(2R + 1)^n``, for some ``R``."""
    stated = PROOFS.statement("integer_cycles", "CyclingIntegers")
    assert stated.startswith("(Z : seq vec) : (forall z, z \\in Z -> intvec z) ->"), stated
    assert stated.count("->") == 2, stated
    assert "exists R" not in stated, stated
    reachable = PROOFS.statement("integer_reachable", "CyclingIntegers")
    assert reachable.startswith("(Z : seq vec) : (forall z, z \\in Z -> intvec z) -> "
                                "forall S : seq vec, uniq S ->"), reachable
    source = (SOURCE_DIR / "CyclingIntegers.v").read_text()
    assert "Notation vec := 'rV[rat]_n." in source
    assert "Definition intvec (v : vec) : bool := [forall i, v 0 i \\is a Qint]." in source
    assert ("Definition cycling_R (Z : seq vec) : nat := (absz (numq (cycling_K Z))).+1."
            in source)


def test_the_statements_assume_only_the_examples():
    """No hypothesis on the data (no separability, no integrality, no bound given in
    advance): the constant is a definition on the examples, over any ordered field."""
    for name in ("cycling_bounded", "cycling_theorem"):
        stated = PROOFS.statement(name, "BlockLevin")
        assert stated.startswith("(Z : seq vec) "), stated
        assert "exists" not in stated and stated.endswith("cycling_K Z."), stated
        assert stated.count("->") == stated.count("{subset s <= Z} ->") == 1, stated
    source = (SOURCE_DIR / "BlockLevin.v").read_text()
    main = source[source.index("Section Main."):]
    assert "Variables (F : realFieldType) (n : nat)." in main
    assert "Hypothes" not in main
    assert "Definition cycling_K (Z : seq vec) : F := cycK (size Z).+1 Z." in main
