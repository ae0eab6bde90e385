"""The conformance suite's mutation score: how many faulty perceptrons it catches, and
how often it names the planted fault.

Covers: a mutant generator that derives faulty versions of the reference perceptron
(``benchmarks/mutation_reference.py``, every task and variant in exact Fractions) by
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

Usage: ``python benchmarks/mutation_score.py`` prints the table; ``--write`` also
writes ``docs/mutation-score.md`` (checked by the slow test
``tests/verify/conformance/test_mutation_score.py``). Deterministic: the same table
on every run (no timing in it).
"""

from __future__ import annotations

import ast
import copy
import functools
import random
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = Path(__file__).with_name("mutation_reference.py")
OUT = ROOT / "docs" / "mutation-score.md"
RANDOM_PROBLEMS = 300

_COMPARE = [ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq]
_ORDER_READINGS = {"short": "order[:-1]", "from the second": "order[1:]",
                   "reversed": "order[::-1]", "sorted": "sorted(order)"}


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
    text = _reference_lines()[line - 1]
    if "y[i] * s <= 0" in text or "y[i] * f <= 0" in text:
        return {"<= -> <": "the strict rule",
                "0 -> 1e-9 in a comparison": "a score up to 1e-09 above zero",
                "0 -> -1e-9 in a comparison": "a score up to 1e-09 below zero"
                }.get(what, "")
    if "eta = 1" in text:
        return {"1 -> 2": "learning rate 2", "1 -> 0": ""}.get(what, "")
    if "for i in order" in text and what.startswith("order read"):
        return {"order read short": "the last presentation of the stream was skipped",
                "order read from the second": "the first presentation of the stream "
                                              "was skipped",
                "order read sorted": "the stream was sorted by example index",
                "order read reversed": "the stream was presented in reverse"}.get(what, "")
    if "dot(W[k], x) > dot(W[best], x)" in text and what == "> -> >=":
        return "argmax ties go to the highest class index"
    return ""


@functools.lru_cache(maxsize=1)
def _reference_lines():
    return REFERENCE.read_text().splitlines()


def mutants() -> list[Mutant]:
    """Every single-edit mutant of the reference, in source order."""
    tree = ast.parse(REFERENCE.read_text())
    counter = _Sites()
    counter.visit(copy.deepcopy(tree))
    out = []
    for k in range(counter.count):
        editor = _Sites(k)
        new = ast.fix_missing_locations(editor.visit(copy.deepcopy(tree)))
        line, column, what = editor.edit
        out.append(Mutant(where=f"line {line}:{column}", what=what,
                          cause=_cause(line, what),
                          source=ast.unparse(new)))
    return out


def load(source, name="mutant"):
    """The ``solve`` of a source text."""
    namespace = {"__name__": name}
    exec(compile(source, name, "exec"), namespace)
    return namespace["solve"]


# ---- equivalence on random problems -------------------------------------------------

def random_problems(n=RANDOM_PROBLEMS, seed=0):
    """Small random problems of every task and variant (integer data, ties likely)."""
    from verify.conformance.protocol import VARIANTS

    rng = random.Random(seed)
    out = []
    for k in range(n):
        task = ("binary", "binary", "multiclass", "kernel")[k % 4]
        n_rows, d = rng.randint(2, 5), rng.randint(1, 3)
        X = [[rng.randint(-2, 2) for _ in range(d)] for _ in range(n_rows)]
        intercept = rng.random() < 0.5
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
            p["variant"] = VARIANTS[k // 4 % 4]
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


def differs(solve, reference, problems):
    """Does ``solve`` give another answer than ``reference`` on some problem (or
    raise)?"""
    for p in problems:
        try:
            if _normal(solve(dict(p))) != _normal(reference(dict(p))):
                return True
        except Exception:  # noqa: BLE001 - a mutant that raises is not equivalent
            return True
    return False


# ---- the score ----------------------------------------------------------------------

#: What the page says of the survivors (they are listed after it).
SURVIVOR_NOTE = (
    "A mutant that computes part of the rule in float (`Fraction -> float`) passes "
    "when its rounding stays within the cases' relative tolerance (1e-9): the suite "
    "judges float and exact implementations alike, so on exact-integer data these are "
    "equivalent to it. The others differ from the reference only on streams where no "
    "presentation is ever correct (`pocket = w` deleted) or where a weighted vote sums "
    "to exactly 0 or -1 (the zero start's initial vote count): no case has such a "
    "stream yet.")


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    equivalent: bool
    killed: bool
    named: bool          # a failing case names the planted cause
    wrong: bool          # a failing case names causes, none of them the planted one


def score(mutant_list=None, cases=None):
    """Run every mutant; a list of :class:`Outcome`."""
    import warnings

    from verify import conformance as C

    mutant_list = mutants() if mutant_list is None else mutant_list
    cases = C.build_cases() if cases is None else cases
    reference = load(REFERENCE.read_text(), "reference")
    problems = random_problems()
    out = []
    for mut in mutant_list:
        solve = load(mut.source)
        if not differs(solve, reference, problems):
            out.append(Outcome(mut, True, False, False, False))
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = C.run_suite(cases, C.adapter_for(solve, name=mut.what),
                                  divergence=False)
        caught = [r for r in results if r.status in ("fail", "error")]
        with_causes = [r for r in caught if r.diagnosis]
        named = bool(mut.cause) and any(mut.cause in d for r in caught
                                        for d in r.diagnosis)
        wrong = bool(mut.cause) and any(not any(mut.cause in d for d in r.diagnosis)
                                        for r in with_causes)
        out.append(Outcome(mut, False, bool(caught), named, wrong))
    return out


def render(outcomes):
    """The Markdown page."""
    live = [o for o in outcomes if not o.equivalent]
    killed = [o for o in live if o.killed]
    known = [o for o in live if o.mutant.cause]
    named = [o for o in known if o.named]
    wrong = [o for o in known if o.wrong]
    survivors = [o for o in live if not o.killed]
    equivalent = [o for o in outcomes if o.equivalent]
    pct = (lambda a, b: f"{100 * a / b:.1f} %" if b else "n/a")
    lines = [
        "# Mutation score of the conformance suite",
        "",
        "Generated by `benchmarks/mutation_score.py --write` (checked by "
        "`tests/verify/conformance/test_mutation_score.py`, marked slow). Each mutant is "
        "the reference perceptron (`benchmarks/mutation_reference.py`: every task and "
        "variant, exact Fractions) with one mechanical edit: a comparison operator, a "
        "constant (the step, a zero moved to an epsilon), an arithmetic operator, the "
        "stream read short, shifted, reversed or sorted, Fraction made float, a "
        "condition negated or a statement deleted. A "
        f"mutant that gives the reference's answer on {RANDOM_PROBLEMS} random small "
        "problems is counted as equivalent.",
        "",
        "| | count | share |",
        "|---|---|---|",
        f"| mutants | {len(outcomes)} | |",
        f"| equivalent (same answers on the random problems) | {len(equivalent)} | |",
        f"| non-equivalent | {len(live)} | |",
        f"| killed by the suite (a case fails or errors) | {len(killed)} | "
        f"{pct(len(killed), len(live))} |",
        f"| with a known cause (the edit is a catalogued misreading) | {len(known)} | |",
        f"| ... whose cause the checker names | {len(named)} | "
        f"{pct(len(named), len(known))} |",
        f"| ... where it names another cause instead on some case | {len(wrong)} | "
        f"{pct(len(wrong), len(known))} |",
        "",
    ]
    if survivors:
        lines += ["## Surviving non-equivalent mutants", "", SURVIVOR_NOTE, ""]
        lines += [f"* {o.mutant.where}: `{o.mutant.what}`" for o in survivors]
        lines.append("")
    if wrong:
        lines += ["## Another cause named", ""]
        lines += [f"* {o.mutant.where}: `{o.mutant.what}` (planted: {o.mutant.cause})"
                  for o in wrong]
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    sys.path.insert(0, str(ROOT))
    text = render(score())
    print(text)
    if "--write" in argv:
        OUT.write_text(text)
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
