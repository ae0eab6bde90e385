"""The conformance suite's mutation score: how many faulty perceptrons it catches, and
how often it names the planted fault.

Covers: a mutant generator that derives faulty versions of the reference perceptron
(``tests/mutation_reference.py``, every task and variant in exact Fractions) by
mechanical edits of its syntax tree, one edit per mutant:

* comparison operators (``<=`` to ``<``, ``>``, ``==``...): tie handling, argmax ties;
* numeric constants (0, 1 and the step ``eta``) moved by one, or an epsilon added to
  the zero of a comparison;
* arithmetic operators (``+`` and ``-`` swapped, ``*`` made ``/``) and ``+=``/``-=``;
* the stream (``order``) read short, from its second element, reversed or sorted;
* the dtype: ``Fraction(...)`` made ``float(...)``;
* a condition negated, or a statement deleted (an assignment, a count, an append).

Scenario: every mutant is run on 300 random small problems (all tasks and variants)
against the reference; one that never differs is *equivalent* (listed, not counted).
Each other mutant is run through the suite (``run_suite``): it is *killed* when a case
fails or errors. For the mutants whose edit is a known misreading (the strict rule, a
learning rate, a skipped presentation, ...), the page also counts how often the
checker's causes name it, and how often they name something else instead.

Usage: ``python tests/mutation_score.py`` prints the table; ``--write`` also
writes ``docs/mutation-score.md`` (checked by the slow test
``tests/verify/conformance/test_mutation_score.py``). Deterministic: the same table
on every run (no timing in it).
"""

from __future__ import annotations

import ast
import functools
import random
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutation_node  # noqa: E402 - the Node example's mutants, beside this script

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = Path(__file__).with_name("mutation_reference.py")
OUT = ROOT / "docs" / "mutation-score.md"
RANDOM_PROBLEMS = 300

_COMPARE = [ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq]
_ORDER_READINGS = {"short": "order[:-1]", "from the second": "order[1:]",
                   "reversed": "order[::-1]", "sorted": "sorted(order)",
                   # a loop off by one at the stream's ends (once too often or too rarely)
                   "with the first again at the end": "order + order[:1]",
                   "with the last twice": "order + order[-1:]",
                   "with the first twice": "order[:1] + order",
                   "rotated right by one": "order[-1:] + order[:-1]",
                   "rotated left by one": "order[1:] + order[:1]",
                   # ... and at the boundaries of passes of len(y) presentations
                   "in whole passes only": "order[:len(order) // len(y) * len(y)]",
                   "without the first of each pass":
                       "[v for t, v in enumerate(order) if t % len(y) != 0]",
                   "without the last of each pass":
                       "[v for t, v in enumerate(order) if t % len(y) != len(y) - 1]",
                   "with the first of each pass twice":
                       "[u for t, v in enumerate(order) for u in [v] * (1 + (t % len(y) "
                       "== 0))]",
                   "with the last of each pass twice":
                       "[u for t, v in enumerate(order) for u in [v] * (1 + (t % len(y) "
                       "== len(y) - 1))]"}

#: Edits a student makes that no single operator above writes: (what, the line's text,
#: its new text, the cause words). The update and the rate are the binary loop's.
_UPDATE = "w = [a + eta * y[i] * b for a, b in zip(w, rows[i])]"
_FLOAT32 = "float(__import__('numpy').float32(a + eta * y[i] * b))"
_TEXT_EDITS = [
    ("eta 1 -> 1/2", "eta = 1", "eta = Fraction(1, 2)", "learning rate 1/2"),
    ("eta 1 -> 1/10", "eta = 1", "eta = Fraction(1, 10)", "learning rate 1/10"),
    ("a step normalised to unit length", _UPDATE, _UPDATE.replace(
        "* b for", "* b / Fraction(__import__('math').sqrt(dot(rows[i], rows[i]))) for"),
     "a step normalised to unit length"),
    ("a step scaled by 1 / ||x||^2", _UPDATE, _UPDATE.replace(
        "* b for", "* b / dot(rows[i], rows[i]) for"), "a step scaled by 1 / ||x||^2"),
    ("weights stored in float32", _UPDATE, _UPDATE.replace(
        "a + eta * y[i] * b for", _FLOAT32 + " for"), "float32 arithmetic"),
]


#: The cause of a mutant that computes part of the rule in float64 (the reference
#: declares exact arithmetic): the words the checker's float64 diagnosis starts with.
FLOAT64_CAUSE = "float64 arithmetic"
#: ... and of one that keeps its weights in float32 (a float32 re-run reproduces it).
FLOAT32_CAUSE = mutation_node.FLOAT32_CAUSE


@dataclass(frozen=True)
class Mutant:
    """One edit of the reference: ``where`` (line and what), ``what`` (the edit),
    ``cause`` (words the checker's cause should contain, when the edit is a known
    misreading; else "") and the edited ``source``."""

    where: str
    what: str
    cause: str
    source: str


class _Sites(ast.NodeTransformer):
    """Visit the tree, counting mutation sites; edit site number ``target`` only."""

    def __init__(self, target=-1):
        self.count, self.target, self.edit = 0, target, None

    def _site(self, node, options):
        """Options are (label, new_node); returns the node, edited when targeted."""
        for label, make in options:
            if self.count == self.target:
                self.edit = (node.lineno, node.col_offset, label)
                self.count += 1
                return make()
            self.count += 1
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        op = type(node.ops[0])
        opts = [(f"{_sym(op)} -> {_sym(new)}",
                 lambda new=new: ast.Compare(node.left, [new()], node.comparators))
                for new in _COMPARE if new is not op]
        right = node.comparators[0]
        if isinstance(right, ast.Constant) and right.value == 0:
            for eps in ("1e-9", "-1e-9"):
                opts.append((f"0 -> {eps} in a comparison", lambda eps=eps: ast.Compare(
                    node.left, node.ops, [ast.Constant(float(eps))])))
        return self._site(node, opts)

    def visit_Constant(self, node):
        if type(node.value) is int and node.value in (0, 1):
            new = [2, 0] if node.value == 1 else [1]
            return self._site(node, [(f"{node.value} -> {v}", lambda v=v: ast.Constant(v))
                                     for v in new])
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        swap = {ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.Div],
                ast.Div: [ast.Mult]}.get(type(node.op), [])
        return self._site(node, [(f"{_sym(type(node.op))} -> {_sym(new)}",
                                  lambda new=new: ast.BinOp(node.left, new(), node.right))
                                 for new in swap])

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        options = [("statement deleted", lambda: ast.Pass())]
        if isinstance(node.op, ast.Add):
            options.insert(0, ("+= -> -=", lambda: ast.AugAssign(node.target, ast.Sub(),
                                                                node.value)))
        return self._site(node, options)

    def visit_Name(self, node):
        if node.id == "order" and isinstance(node.ctx, ast.Load):
            return self._site(node, [(f"order read {label}", lambda text=text: ast.parse(
                text, mode="eval").body) for label, text in _ORDER_READINGS.items()])
        return node

    def visit_If(self, node):
        self.generic_visit(node)
        return self._site(node, [("condition negated", lambda: ast.If(
            ast.UnaryOp(ast.Not(), node.test), node.body, node.orelse))])

    def _deletable(self, node):
        """A statement that can be deleted (made ``pass``)."""
        node = self.generic_visit(node)
        return self._site(node, [("statement deleted", lambda: ast.Pass())])

    visit_Assign = visit_Expr = _deletable

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "Fraction" and node.args:
            return self._site(node, [("Fraction -> float", lambda: ast.Call(
                ast.Name("float", ast.Load()), node.args, []))])
        return node


def _sym(op):
    return {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
            ast.NotEq: "!=", ast.Add: "+", ast.Sub: "-", ast.Mult: "*",
            ast.Div: "/"}[op]


def _cause(line, what):
    """The cause words for edits that are known misreadings of the rule."""
    if what == "Fraction -> float":      # the reference declares exact arithmetic
        return FLOAT64_CAUSE
    text = _reference_lines()[line - 1]
    if "y[i] * s <= 0" in text or "y[i] * f <= 0" in text:
        return {"<= -> <": "the strict rule",
                "0 -> 1e-9 in a comparison": "a score up to 1e-09 above zero",
                "0 -> -1e-9 in a comparison": "a score up to 1e-09 below zero"
                }.get(what, "")
    if "eta = 1" in text:
        return {"1 -> 2": "learning rate 2", "1 -> 0": ""}.get(what, "")
    if "for i in order" in text:
        return mutation_node.ORDER_CAUSES.get(what, "")
    if "dot(W[k], x) > dot(W[best], x)" in text and what == "> -> >=":
        return mutation_node.ARGMAX_CAUSE
    if "alpha[i] += 1" in text and what == "1 -> 2":
        return mutation_node.KERNEL_CAUSES["add 2"]
    if "alpha = [0] * len(y)" in text and what == "0 -> 1":
        return mutation_node.KERNEL_CAUSES["start at 1"]
    return ""


@functools.lru_cache(maxsize=1)
def _reference_lines():
    return REFERENCE.read_text().splitlines()


def _text_mutants():
    """The mutants of :data:`_TEXT_EDITS`, and float32 weights written as JSON writes
    them in JavaScript (Infinity and NaN as null)."""
    text = REFERENCE.read_text()
    lines = text.splitlines()
    out = []
    for what, old, new, cause in _TEXT_EDITS:
        [n] = [n for n, line in enumerate(lines) if line.strip() == old]
        out.append(Mutant(where=f"line {n + 1}", what=what, cause=cause,
                          source=text.replace(old, new)))
    float32 = out[-1]
    nulls = float32.source.replace('return {"w": [str(v) for v in w]', 'return {"w": ['
                                   'str(v) if abs(v) < float("inf") else None for v in w]')
    out.append(Mutant(where=float32.where, what="weights stored in float32, written "
                      "as JSON (Infinity as null)", cause=FLOAT32_CAUSE, source=nulls))
    return out


def mutants() -> list[Mutant]:
    """Every single-edit mutant of the reference, in source order, then the edits of
    :data:`_TEXT_EDITS`."""
    text = REFERENCE.read_text()
    counter = _Sites()
    counter.visit(ast.parse(text))
    out = []
    for k in range(counter.count):   # a fresh tree per mutant: parsed (C) is 5x faster
        editor = _Sites(k)           # than copy.deepcopy of one tree (issue 37)
        new = ast.fix_missing_locations(editor.visit(ast.parse(text)))
        line, column, what = editor.edit
        out.append(Mutant(where=f"line {line}:{column}", what=what,
                          cause=_cause(line, what),
                          source=ast.unparse(new)))
    return out + _text_mutants()


def load(source, name="mutant"):
    """The ``solve`` of a source text."""
    namespace = {"__name__": name}
    exec(compile(source, name, "exec"), namespace)
    return namespace["solve"]


# ---- equivalence on random problems -------------------------------------------------

#: Powers of two that float64 holds and float32 does not (inf, and 0).
_EXTREME = (2.0**130, 2.0**-150)


def random_problems(n=RANDOM_PROBLEMS, seed=0):
    """Small random problems of every task and variant (integer data, ties likely; a
    quarter of the binary and multiclass ones scaled beyond float32's range, with no
    intercept; no zero row in a multiclass or kernel one, which markone refuses: with
    no intercept its class could never be learned)."""
    from verify.conformance.protocol import VARIANTS

    rng = random.Random(seed)
    out = []
    for k in range(n):
        task = ("binary", "binary", "multiclass", "kernel")[k % 4]
        n_rows, d = rng.randint(2, 5), rng.randint(1, 3)
        X = [[rng.randint(-2, 2) for _ in range(d)] for _ in range(n_rows)]
        intercept = rng.random() < 0.5
        if task != "binary":    # markone refuses a zero row there (never learned)
            X = [row if any(row) else [1] * d for row in X]
        if task != "kernel" and k // 16 % 4 == 3:    # beyond float32's range, both ways
            X = [[v * _EXTREME[k // 64 % 2] for v in row] for row in X]
            intercept = False       # (a constant 1 beside them: float64 would round)
        order = [rng.randrange(n_rows) for _ in range(rng.randint(1, 12))]
        p = {"task": task, "variant": "last", "intercept": intercept, "X": X,
             "order": order, "queries": [[rng.randint(-2, 2) for _ in range(d)]
                                         for _ in range(3)]}
        if task == "multiclass":
            p["n_classes"] = 3
            p["y"] = [rng.randrange(3) for _ in range(n_rows)]
        else:
            p["y"] = [rng.choice((-1, 1)) for _ in range(n_rows)]
        if task == "binary":
            p["variant"] = list(VARIANTS)[k // 4 % 4]
        if task == "kernel":
            aug = [r + [1] * intercept for r in X]
            p["gram"] = [[sum(a * b for a, b in zip(u, v)) for v in aug] for u in aug]
        out.append(p)
    return out


def _normal(answer):
    """An answer with its numbers exact, to compare two implementations."""
    if isinstance(answer, dict):
        return {k: _normal(v) for k, v in answer.items()}
    if isinstance(answer, list):
        return [_normal(v) for v in answer]
    if isinstance(answer, (str, int, float, Fraction)) and not isinstance(answer, bool):
        try:
            return Fraction(answer)
        except (ValueError, ZeroDivisionError, OverflowError):
            return answer
    return answer


def agree(a, b, tol=1e-9):
    """Do two answers agree as the suite judges them: decisions (counts, predictions,
    dual counts) exactly, weights within ``tol`` of the largest entry?"""
    from verify.conformance.compare import close

    a, b = _normal(a), _normal(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(agree(a[k], b[k], tol) for k in a)
    if isinstance(a, list) and isinstance(b, list) and a and all(
            isinstance(v, Fraction) for v in a + b):
        return close(a, b, tol)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(agree(u, v, tol) for u, v in zip(a, b))
    return a == b


def differs(solve, reference, problems, tol=0):
    """Does ``solve`` give another answer than ``reference`` on some problem (or
    raise)? Weights within ``tol`` agree (0: only identical answers agree)."""
    for p in problems:
        try:
            if not agree(solve(dict(p)), reference(dict(p)), tol):
                return True
        except Exception:  # noqa: BLE001 - a mutant that raises is not equivalent
            return True
    return False


# ---- the score ----------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    mutant: Any          # a Mutant, or a mutation_node.NodeMutant
    equivalent: bool
    killed: bool
    named: bool          # a failing case names the planted cause
    wrong: bool          # a failing case names causes, none of them the planted one


def _outcome(mut, results):
    """How the suite's ``results`` on a (non-equivalent) mutant went."""
    caught = [r for r in results if r.status in ("fail", "error")]
    with_causes = [r for r in caught if r.diagnosis]
    named = bool(mut.cause) and any(mut.cause in d for r in caught for d in r.diagnosis)
    wrong = bool(mut.cause) and any(not any(mut.cause in d for d in r.diagnosis)
                                    for r in with_causes)
    return Outcome(mut, False, bool(caught), named, wrong)


def score(mutant_list=None, cases=None):
    """Run every Python mutant; a list of :class:`Outcome`."""
    import warnings

    from verify import conformance as C

    mutant_list = mutants() if mutant_list is None else mutant_list
    cases = C.build_cases() if cases is None else cases
    reference = load(REFERENCE.read_text(), "reference")
    problems = random_problems()
    out = []
    for mut in mutant_list:
        solve = load(mut.source)
        adapter = C.adapter_for(solve, name=mut.what)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = _judged(mut, cases, adapter, C.Profile())
            if not differs(solve, reference, problems):
                out.append(settled(mut, results))
                continue
        out.append(_outcome(mut, results))
    return out


def settled(mut, results):
    """The outcome of a mutant the random problems cannot tell from the original:
    killed when a case of the suite fails on it (the suite tells it apart), else
    equivalent (listed on the page with why, :data:`WHY_EQUIVALENT`)."""
    outcome = _outcome(mut, results)
    return outcome if outcome.killed else Outcome(mut, True, False, False, False)


def score_node(node, mutant_list=None, cases=None, *, equivalence=True):
    """Run every mutant of the Node example through ``--cmd "node FILE"`` under the
    profile it declares in the handshake; a list of :class:`Outcome`. Without
    ``equivalence`` the mutants are not compared with the example on the random
    problems (one Node process each): a mutant no case kills is then not killed, never
    equivalent (for a test that asks only what the cases kill)."""
    import tempfile

    from verify import conformance as C
    from verify.errors import ImplementationError

    mutant_list = mutation_node.node_mutants() if mutant_list is None else mutant_list
    cases = C.build_cases() if cases is None else cases
    problems = random_problems() if equivalence else []
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        reference = mutation_node.batch_answers(
            node, mutation_node.EXAMPLE.read_text(), problems, work) if equivalence else ()
        for mut in mutant_list:
            answers = mutation_node.batch_answers(
                node, mut.source, problems, work) if equivalence else None
            path = work / "mutant.js"
            path.write_text(mut.source)
            adapter = C.CommandAdapter(f"{node} {path}")
            try:
                profile = adapter.declared_profile() or C.Profile()
            except (ValueError, ImplementationError):
                out.append(Outcome(mut, False, True, False, False))
                continue
            results = _judged(mut, cases, adapter, profile)
            out.append(settled(mut, results) if equivalence and answers == reference
                       else _outcome(mut, results))
    return out


def _judged(mut, cases, adapter, profile):
    """The suite's results on a mutant: every case when the mutant has a known cause
    (every failing case's diagnosis counts), else the cases up to the first that
    fails or errors, shortest stream first (killed or not, that case says it)."""
    from verify import conformance as C

    if mut.cause:
        return C.run_suite(cases, adapter, profile=profile, divergence=False)
    results = []
    for case in sorted(cases, key=lambda c: len(c["problem"]["order"])):
        results.append(C.run_case(case, adapter, profile, divergence=False))
        if results[-1].status in ("fail", "error"):
            break
    return results


_SAME_LENGTH = "the stream read otherwise has the same length: the average divides by it"
_DEAD_RUN = ("the first presentation is always a mistake (the zero start scores 0), and "
             "its update sets run = 0 before anything reads run")
_SHIFTED_RUN = ("every run counts one more (or twice as many): the pocket compares runs "
                "with each other and with 0, which every run of one or more beats either "
                "way")
_PM1 = "the factor is a label or a sign, +1 or -1: dividing by it is multiplying by it"
_SAME_ROW = "every row has the length of row 0 (every problem has two rows or more)"
_SAME_ROW_NODE = ("every row has the length of row 0, and every problem the example is "
                  "judged on has two rows or more: the random problems, and the cases "
                  "of its float64 profile (the one-row cases, exact-voted-query-scores "
                  "and exact-multiclass-query-scores, need exact arithmetic, which it "
                  "does not declare)")
_FIRST_TWICE = ("the first presentation starts from zero; when it is a mistake, its "
                "update makes it correct, so presented again it changes nothing: the dual "
                "score becomes y_i alpha_i G_ii = G_ii > 0, and the true class scores "
                "|x|^2 > 0 against the predicted class's -|x|^2 and the others' 0 "
                "(markone refuses a zero row, k(x, x) = 0 or x = 0 with no intercept, in "
                "both tasks, and so do the random problems; the binary loop's first twice "
                "is killed)")
#: Why each equivalent mutant gives the original's answers on every problem: (a piece
#: of its line, the edit) -> the argument. The page lists each equivalent mutant with
#: its argument.
WHY_EQUIVALENT = {
    ('"""The reference', "statement deleted"): "the module's docstring: no code",
    ("alpha[j] * y[j] * G[j][i]", "* -> /"): _PM1,
    ("alpha[j] * yj * p.gram[j][i]", "* -> /"): _PM1,
    ("y[i] * f <= 0", "0 -> 1e-9 in a comparison"):
        "f sums integer alphas, labels and Gram entries (every Gram matrix of the "
        "suite and of the random problems holds integers): no score lies in (0, 1e-9]",
    ("G = [[Fraction(v)", "Fraction -> float"):
        "the Gram matrices hold integers below 2^53, which float64 holds exactly, and "
        "the scores sum integers: float64 computes them exactly",
    ('problem["task"] == "multiclass"', "== -> >="):
        "the kernel task has returned already; of 'binary' and 'multiclass', only "
        "'multiclass' is >= 'multiclass'",
    ("W = [[Fraction(0)] * len(rows[0])", "0 -> 1"): _SAME_ROW,
    ("d = len(rows[0])", "0 -> 1"): _SAME_ROW,
    ("() => X[0].map(() => start)", "0 -> 1"): _SAME_ROW_NODE,
    ("let w = X[0].map", "0 -> 1"): _SAME_ROW_NODE + "; or, for run = 1 at the start: "
                                    + _DEAD_RUN,
    ("for i in order", "order read with the first twice"): _FIRST_TWICE,
    ("for (const i of p.order)", "order read with the first twice"): _FIRST_TWICE,
    ("for k in range(1, K)", "1 -> 0"):
        "k = 0 compares class 0 with best = 0, itself: > is false",
    ("run = 0", "0 -> 1"): _DEAD_RUN + "; or, after a mistake: " + _SHIFTED_RUN,
    ("run = 0", "statement deleted"): _DEAD_RUN,
    ("run += 1", "1 -> 2"): _SHIFTED_RUN + "; or, for a vote: every vote counts "
                                           "twice, which changes no sign",
    ("votes[-1][1] += 1", "1 -> 2"): "every vote counts twice: no weighted sum changes "
                                     "sign",
    ('problem["variant"] == "averaged"', "== -> <="):
        "'averaged' is the first variant name in order: only it is <= 'averaged'",
    ('problem["variant"] == "pocket"', "== -> >="):
        "'voted' is the only other name >= 'pocket', and the voted variant returns "
        "its votes' predictions, never w",
    ('problem["variant"] == "voted"', "== -> >="):
        "'voted' is the last variant name in order: only it is >= 'voted'",
    ("w = [a / len(order) for a in total]", "order read"): _SAME_LENGTH,
    ("n * sign(dot(v, q))", "* -> /"): _PM1,
    ("c * sign(dot(v, aug(q)))", "* -> /"): _PM1,
    ("v + eta * p.y[i] * X[i][j]", "* -> /"): _PM1,
}


def why_equivalent(line: str, what: str) -> str:
    """The argument of :data:`WHY_EQUIVALENT` for an edit ``what`` of ``line``, or ""."""
    return next((why for (piece, edit), why in WHY_EQUIVALENT.items()
                 if piece in line and what.startswith(edit)), "")


def _counts(outcomes):
    """The table's numbers for one language."""
    live = [o for o in outcomes if not o.equivalent]
    known = [o for o in live if o.mutant.cause]
    return {"mutants": len(outcomes), "equivalent": len(outcomes) - len(live),
            "live": len(live), "killed": sum(o.killed for o in live),
            "known": len(known), "named": sum(o.named for o in known),
            "wrong": sum(o.wrong for o in known)}


def _pct(a, b):
    return f"{100 * a / b:.1f} %" if b else "n/a"


def render(python, node=()):
    """The Markdown page: the Python mutants' outcomes and the Node example's."""
    columns = [("Python", _counts(python))] + ([("Node", _counts(node))] if node else [])

    def row(label, key, share_of=None):
        cells = []
        for _, c in columns:
            cells.append(f"{c[key]}" + (f" ({_pct(c[key], c[share_of])})" if share_of
                                        else ""))
        return f"| {label} | " + " | ".join(cells) + " |"

    lines = [
        "# Mutation score of the conformance suite",
        "",
        "Generated by `tests/mutation_score.py --write` (checked by "
        "`tests/verify/conformance/test_mutation_score.py`, marked slow). Each Python "
        "mutant is the reference perceptron (`tests/mutation_reference.py`: every "
        "task and variant, exact Fractions) with one mechanical edit: a comparison "
        "operator, a constant (the step, a zero moved to an epsilon), an arithmetic "
        "operator, the stream read short, shifted, reversed or sorted, or off by one "
        "at its ends or at the boundaries of passes of len(y) presentations (one "
        "presentation too many or too few), Fraction made float, a condition negated "
        "or a statement deleted; and the edits students make: a learning rate of 1/2 "
        "or 1/10, a step normalised to unit length or scaled by 1 / ||x||^2, the "
        "weights stored in float32 (and written as JavaScript's JSON writes "
        "Infinity: null). Each Node mutant is the "
        "[JavaScript example](test-your-perceptron.md) (`examples/perceptron.js`) with "
        "one such edit (`tests/mutation_node.py`; also the learning rate (2, 0.5, "
        "0.1), the step normalised or scaled, the intercept's constant put first, "
        "inputs or weights stored in a `Float32Array` or rounded by `Math.fround`, "
        "whose overflow `JSON.stringify` writes as null), "
        "run as a program through `--cmd \"node FILE\"` under the profile it declares "
        "(float64). A mutant that gives the original's answers on "
        f"{RANDOM_PROBLEMS} random small problems (the same numbers, exactly) is "
        "counted as equivalent unless a case of the suite fails on it (each is listed "
        "below with why it is); every other mutant is non-equivalent, and counts as "
        "killed only when a case of the suite fails or errors on it.",
        "",
        "| | " + " | ".join(name for name, _ in columns) + " |",
        "|---|" + "---|" * len(columns),
        row("mutants", "mutants"),
        row("equivalent (the same answers on the random problems)", "equivalent"),
        row("non-equivalent", "live"),
        row("killed by the suite (a case fails or errors)", "killed", "live"),
        row("with a known cause (the edit is a catalogued misreading)", "known"),
        row("... whose cause the checker names", "named", "known"),
        row("... where it names another cause instead on some case", "wrong", "known"),
        "",
    ]
    for name, outcomes, source in (("Python", python, _reference_lines()),
                                   ("Node", node, mutation_node.EXAMPLE.read_text()
                                    .split("\n"))):
        lines += _equivalents(name, [o.mutant for o in outcomes if o.equivalent], source)
        live = [o for o in outcomes if not o.equivalent]
        survivors = [o for o in live if not o.killed]
        wrong = [o for o in live if o.wrong]
        if survivors:
            lines += [f"## Surviving non-equivalent mutants ({name})", ""]
            lines += [f"* {o.mutant.where}: `{o.mutant.what}`" for o in survivors]
            lines.append("")
        if wrong:
            lines += [f"## Another cause named ({name})", ""]
            lines += [f"* {o.mutant.where}: `{o.mutant.what}` (planted: "
                      f"{o.mutant.cause})" for o in wrong]
            lines.append("")
    return "\n".join(lines)


def _equivalents(name, mutants, source):
    """The page's list of equivalent mutants, each with why it is equivalent."""
    if not mutants:
        return []
    out = [f"## Equivalent mutants ({name}), and why", ""]
    for m in mutants:
        line = source[int(m.where.split()[1].split(":")[0]) - 1].strip()
        why = why_equivalent(line, m.what) or ("not argued yet: the same answers on "
                                               "the random problems and every case")
        out.append(f"* {m.where}: `{m.what}` in `{line}`: {why}")
    return out + [""]


def main(argv=None):
    import shutil

    argv = sys.argv[1:] if argv is None else argv
    sys.path.insert(0, str(ROOT))
    node = shutil.which("node")
    if node is None:
        sys.exit("node is not on the PATH: the Node example's mutants need it")
    text = render(score(), score_node(node))
    print(text)
    if "--write" in argv:
        OUT.write_text(text)
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
