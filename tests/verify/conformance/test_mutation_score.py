"""The mutation score (tests/mutation_score.py): at least 200 single-edit
mutants of the reference perceptron and 50 of the Node example; the planted causes
named; the page current."""

import shutil
from pathlib import Path

import mutation_score
import pytest
from _paths import ROOT

NODE = shutil.which("node")


@pytest.fixture(scope="module")
def script():
    return mutation_score


@pytest.fixture(scope="module")
def mutants(script):
    """The reference's mutants, made once for the module (3 s of CPU each time: an
    AST copied and unparsed per mutant); a tuple of frozen mutants, so no test can
    change another's."""
    return tuple(script.mutants())


def test_at_least_200_distinct_mutants_of_every_kind(script, mutants):
    assert len(mutants) >= 200 and len({m.source for m in mutants}) == len(mutants)
    kinds = " ".join(m.what for m in mutants)
    for kind in ("<= -> <", "1 -> 2", "0 -> 1e-9", "+ -> -", "* -> /", "+= -> -=",
                 "order read short", "order read sorted", "Fraction -> float",
                 "condition negated", "statement deleted", "eta 1 -> 1/10",
                 "order read with the first twice", "order read with the last twice",
                 "order read in whole passes only", "order read without the first of "
                 "each pass", "order read with the last of each pass twice",
                 "a step normalised to unit length", "weights stored in float32",
                 "written as JSON (Infinity as null)"):
        assert kind in kinds, kind
    reference = script.load(script.REFERENCE.read_text())
    problems = script.random_problems(12)
    assert not script.differs(reference, reference, problems)
    strict = next(m for m in mutants if m.cause == "the strict rule")
    assert script.differs(script.load(strict.source), reference, problems)


@pytest.mark.slow
def test_planted_causes_are_named_on_a_few_mutants(script, mutants):
    from verify import conformance as C

    cases = [c for c in C.build_cases() if c["id"] in (
        "zero-score-orthonormal", "intercept-convention", "multiclass-argmax-ties",
        "kernel-dual-counts", "kernel-dual-count-slips", "extreme-large")]
    # one mutant per known cause: the last in the source (the binary loop's)
    # (float32 weights: the last is the one writing Infinity as null; only the
    # cases beyond float32's range reach it, and extreme-large names its cause)
    # (the tie tolerances need the cases with tiny scores: in the slow page test)
    # (the float64 cause needs the exact-only cases: the fast test below)
    known = list({m.cause: m for m in mutants
                  if m.cause and not m.cause.startswith("a score up to")
                  and m.cause != script.FLOAT64_CAUSE}.values())
    for outcome in script.score(known, cases):
        assert outcome.killed and outcome.named and not outcome.wrong, outcome.mutant


#: Where the reference's `Fraction -> float` mutants survived the suite until the
#: exact-only cases reached them (a line's start, and the call made float): the
#: intercept's constant, the multiclass zero start, the averaged running sum.
FLOAT_SURVIVORS = (("rows = ", "Fraction(1)"), ("W = ", "Fraction(0)"),
                   ("total = [Fraction(0)]", "Fraction(0)"))


@pytest.mark.slow
def test_the_fraction_to_float_survivors_are_killed_with_float64_named(
        script, mutants):
    """(Its fast sibling, on implementations of its own:
    tests/verify/conformance/test_exact_only.py.)"""
    from verify import conformance as C

    lines = script._reference_lines()
    where = {f"line {n + 1}:{line.index(call)}" for n, line in enumerate(lines)
             for start, call in FLOAT_SURVIVORS if line.strip().startswith(start)}
    floats = [m for m in mutants if m.what == "Fraction -> float" and
              m.where in where]
    assert len(floats) == 3
    cases = C.build_cases(["exact-intercept-rounding", "exact-averaged-sum",
                           "exact-multiclass-scores"])
    for outcome in script.score(floats, cases):
        assert outcome.mutant.cause == script.FLOAT64_CAUSE
        assert not outcome.equivalent and outcome.killed, outcome.mutant.where
        assert outcome.named and not outcome.wrong, outcome.mutant.where


def test_at_least_50_distinct_node_mutants_of_every_kind(script):
    mutants = script.mutation_node.node_mutants()
    assert len(mutants) >= 50 and len({m.source for m in mutants}) == len(mutants)
    kinds = " ".join(m.what for m in mutants)
    for kind in ("<= -> <", "> -> >=", "0 -> 1e-9", "0 -> 1", "1 -> 2", "+ -> -",
                 "* -> /", "eta 1 -> 2", "order read short", "order read sorted",
                 "the constant 1 put first", "inputs stored in a Float32Array",
                 "weights stored in a Float32Array", "condition negated",
                 "statement deleted", "eta 1 -> 0.1", "order read rotated right by one",
                 "order read with the first of each pass twice",
                 "order read in whole passes only", "a step scaled by 1 / ||x||^2",
                 "weights rounded with Math.fround"):
        assert kind in kinds, kind
    causes = {m.cause for m in mutants}
    for cause in ("the strict rule", "learning rate 2", "argmax ties go to the highest",
                  "a mistake adds 2 to alpha_i", "the dual counts start at 1",
                  "the intercept weight is stored first",
                  "the last presentation of the stream was skipped"):
        assert any(c.startswith(cause) for c in causes), cause


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_a_node_mutant_runs_through_cmd_and_its_cause_is_named(script, tmp_path):
    """The example agrees with the Python reference on random problems (one node
    process for them all); its strict-rule mutant does not, and the suite, run
    through --cmd, kills it and names the strict rule."""
    from verify import conformance as C

    problems = script.random_problems(12)
    example = script.mutation_node.EXAMPLE.read_text()
    answers = script.mutation_node.batch_answers(NODE, example, problems, tmp_path)
    reference = script.load(script.REFERENCE.read_text())
    assert all(script.agree(a, reference(dict(p))) for a, p in zip(answers, problems))
    [strict] = [m for m in script.mutation_node.node_mutants()
                if m.cause == "the strict rule"]
    strict_answers = script.mutation_node.batch_answers(NODE, strict.source, problems,
                                                        tmp_path)
    assert not all(script.agree(a, b) for a, b in zip(strict_answers, answers))
    cases = [c for c in C.build_cases() if c["id"] == "zero-score-orthonormal"]
    [outcome] = script.score_node(NODE, [strict], cases, equivalence=False)
    assert outcome.killed and outcome.named and not outcome.wrong


@pytest.mark.slow
@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_mutation_page_is_current():
    script = mutation_score
    page = Path(ROOT / "docs" / "mutation-score.md").read_text()
    assert page == script.render(script.score(), script.score_node(NODE))


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_float32array_node_mutants_are_named_float32_arithmetic(script):
    """Inputs or weights kept in a Float32Array: the catalogued cause is float32
    arithmetic, and every failing case that names a cause names it (float32's range
    on extreme-small, float32 storage on float64-near-tie)."""
    from verify import conformance as C

    mutants = [m for m in script.mutation_node.node_mutants() if "Float32Array" in m.what]
    assert [m.cause for m in mutants] == [script.mutation_node.FLOAT32_CAUSE] * 2
    cases = C.build_cases(["float64-near-tie", "extreme-small"])
    for outcome in script.score_node(NODE, mutants, cases, equivalence=False):
        assert outcome.killed and outcome.named and not outcome.wrong, outcome.mutant.what


def test_the_average_over_whole_passes_only_is_killed_by_the_partial_pass_case(
        script, mutants):
    """A loop over whole passes of len(y) presentations drops the short last one: the
    averaged variant's divisor (its len(order)) survived every case until
    variant-averaged-partial-pass; a rotated stream has the same length (equivalent)."""
    from verify import conformance as C

    at_average = [m for m in mutants if m.what.startswith("order read") and
                  "a / len(order)" in script._reference_lines()[
                      int(m.where.split()[1].split(":")[0]) - 1]]
    whole = [m for m in at_average if m.what == "order read in whole passes only"]
    rotated = [m for m in at_average if "rotated" in m.what]
    cases = C.build_cases(["variant-averaged", "variant-averaged-partial-pass"])
    [before, after] = [script.score(whole, [case])[0] for case in cases]
    assert not before.equivalent and not before.killed
    assert after.killed
    assert all(o.equivalent for o in script.score(rotated, cases))
    for m in rotated:
        line = script._reference_lines()[int(m.where.split()[1].split(":")[0]) - 1]
        assert script.why_equivalent(line.strip(), m.what) == script._SAME_LENGTH


def _line_of(script, mutant):
    return script._reference_lines()[int(mutant.where.split()[1].split(":")[0]) - 1]


def test_the_query_fraction_to_float_mutants_are_killed_by_the_query_score_cases(
        script, mutants):
    """The queries read as floats (their coordinates or the intercept's constant), in
    the multiclass and the voted answers, survived every case: the query-score cases
    kill all four (a score of +-2^-60 that float64 rounds to 0)."""
    from verify import conformance as C

    queries = [m for m in mutants if m.what == "Fraction -> float" and
               _line_of(script, m).strip().startswith("queries = ")]
    assert len(queries) == 4
    cases = C.build_cases(["exact-multiclass-query-scores", "exact-voted-query-scores"])
    for outcome in script.score(queries, cases):
        assert outcome.killed, outcome.mutant.where


DOUBLED = ("order read with the first again at the end", "order read with the last "
           "twice", "order read with the first of each pass twice",
           "order read with the last of each pass twice")


def _loop_mutants(mutants, lines, tasks, whats):
    """The mutants ``whats`` of the ``for`` loops over ``order`` in the kernel and
    multiclass branches (the first and the second such loop of the source)."""
    loops = sorted({m.where.split(":")[0] for m in mutants if m.what in whats
                    and "order" in lines(m)}, key=lambda w: int(w.split()[1]))[:tasks]
    return [m for m in mutants if m.what in whats and m.where.split(":")[0] in loops]


def test_the_doubled_presentations_of_the_dual_and_argmax_loops_are_killed(
        script, mutants):
    """A kernel or multiclass loop that presents the first example again at the end,
    the last twice, or the first or last of a pass twice survived every case until
    the pass-boundary cases; the first twice is equivalent (argued)."""
    from verify import conformance as C

    loops = _loop_mutants(mutants, lambda m: _line_of(script, m), 2, DOUBLED)
    assert len(loops) == 8
    cases = C.build_cases(["kernel-pass-boundaries", "multiclass-pass-boundaries"])
    for outcome in script.score(loops, cases):
        assert outcome.killed, (outcome.mutant.where, outcome.mutant.what)
    first = _loop_mutants(mutants, lambda m: _line_of(script, m), 2,
                          ("order read with the first twice",))
    assert len(first) == 2
    for outcome in script.score(first, cases):
        assert outcome.equivalent
        assert script.why_equivalent(_line_of(script, outcome.mutant).strip(),
                                     outcome.mutant.what) == script._FIRST_TWICE


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_doubled_presentations_of_the_node_example_loops_are_killed(script):
    """The same for the Node example's kernel and multiclass loops."""
    from verify import conformance as C

    node = script.mutation_node
    lines = node.EXAMPLE.read_text().splitlines()
    mutants = node.node_mutants()
    loops = _loop_mutants(mutants, lambda m: lines[int(m.where.split()[1].split(":")[0])
                                                   - 1], 2, DOUBLED)
    assert len(loops) == 8
    cases = C.build_cases(["kernel-pass-boundaries", "multiclass-pass-boundaries"])
    for outcome in script.score_node(NODE, loops, cases, equivalence=False):
        assert outcome.killed, (outcome.mutant.where, outcome.mutant.what)
