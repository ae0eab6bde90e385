"""Mutants of the Node example (``examples/perceptron.js``) for the mutation score.

Covers: mechanical edits of the JavaScript source, one per mutant, at the sites of the
rule (the mistake test, the update, the argmax, the variants, the dual counts):

* comparison operators (``<=`` to ``<``, ``>`` to ``>=``...): tie handling, argmax ties;
* a zero compared with made an epsilon (``<= 0`` to ``<= 1e-9`` or ``<= -1e-9``);
* numeric literals 0 and 1 moved by one (counts, starts, the intercept's constant);
* ``+`` and ``-`` swapped, ``*`` made ``/``; the learning rate's default ``"1"`` made
  ``"2"`` or ``"0.5"``;
* the stream (``p.order``) read short, from its second element, reversed or sorted;
* the intercept's constant put first;
* the dtype: inputs or weights stored in a ``Float32Array`` (rounded to float32);
* a condition negated, or a statement deleted (a count, a vote, a pocket, a sum).

The mutants are run as programs (``node FILE``) through the suite's ``--cmd``
adapter by ``tests/mutation_score.py``, which counts them apart from the Python
ones; equivalence is decided on the same random problems, all answered by one
``node`` process per mutant (:func:`batch_answers`).
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "perceptron.js"

#: The example's last line answers one problem; a batch run answers a list of them.
_ONE = "process.stdout.write(JSON.stringify(solve(JSON.parse(input))));"
_MANY = ("process.stdout.write(JSON.stringify(JSON.parse(input).map((p) => {"
         " try { return solve(p); } catch (e) { return { error: String(e) }; } })));")

_COMPARE = {"<=": ["<", ">", "==="], "<": ["<=", ">"], ">": [">=", "<"],
            ">=": [">", "<"], "===": ["!=="], "!==": ["==="]}
_OP = re.compile(r"(?<![=!<>])(===|!==|<=|>=|<(?![=])|>(?![=]))")
_ORDER_READINGS = {"short": "p.order.slice(0, -1)", "from the second": "p.order.slice(1)",
                   "reversed": "[...p.order].reverse()",
                   "sorted": "[...p.order].sort((a, b) => a - b)",
                   # a loop off by one at the stream's ends (once too often or too rarely)
                   "with the first again at the end": "[...p.order, p.order[0]]",
                   "with the last twice": "[...p.order, p.order[p.order.length - 1]]",
                   "with the first twice": "[p.order[0], ...p.order]",
                   "rotated right by one": "[...p.order.slice(-1), ...p.order.slice(0, -1)]",
                   "rotated left by one": "[...p.order.slice(1), p.order[0]]",
                   # ... and at the boundaries of passes of p.y.length presentations
                   "in whole passes only":
                       "p.order.slice(0, p.order.length - p.order.length % p.y.length)",
                   "without the first of each pass":
                       "p.order.filter((v, t) => t % p.y.length !== 0)",
                   "without the last of each pass":
                       "p.order.filter((v, t) => t % p.y.length !== p.y.length - 1)",
                   "with the first of each pass twice":
                       "p.order.flatMap((v, t) => (t % p.y.length === 0 ? [v, v] : [v]))",
                   "with the last of each pass twice":
                       "p.order.flatMap((v, t) => (t % p.y.length === p.y.length - 1 ? "
                       "[v, v] : [v]))"}
_STATEMENT = re.compile(r"(?:alpha\[i\] \+= 1|m \+= 1|run = 0|run \+= 1|best = run|"
                        r"pocket = w|votes\.push\(\[w, 0\]\)|"
                        r"votes\[votes\.length - 1\]\[1\] \+= 1|"
                        r"w\.forEach\(\(v, j\) => \{ sum\[j\] \+= v; \}\));")
_UPDATE = "w = w.map((v, j) => v + eta * p.y[i] * X[i][j]);"
_FLOAT32 = {
    "const X = p.X.map(aug);":
        ("inputs stored in a Float32Array",
         "const X = p.X.map((x) => Array.from(new Float32Array(aug(x))));"),
    _UPDATE:
        ("weights stored in a Float32Array",
         "w = Array.from(new Float32Array("
         "w.map((v, j) => v + eta * p.y[i] * X[i][j])));"),
}
#: Edits of the binary update that no operator above writes: (what, new text, cause).
#: Math.fround rounds to float32 in a plain array: an overflow is Infinity, which
#: JSON.stringify writes as null.
_STEPS = [
    ("a step normalised to unit length",
     "w = w.map((v, j) => v + eta * p.y[i] * X[i][j] / Math.sqrt(dot(X[i], X[i])));",
     "a step normalised to unit length"),
    ("a step scaled by 1 / ||x||^2",
     "w = w.map((v, j) => v + eta * p.y[i] * X[i][j] / dot(X[i], X[i]));",
     "a step scaled by 1 / ||x||^2"),
    ("weights rounded with Math.fround (Infinity written as null)",
     "w = w.map((v, j) => Math.fround(v + eta * p.y[i] * X[i][j]));",
     "float32 arithmetic"),
]


@dataclass(frozen=True)
class NodeMutant:
    """One edit of the example: ``where`` (line and column), ``what`` (the edit),
    ``cause`` (words the checker's cause should contain when the edit is a known
    misreading, else "") and the edited ``source``."""

    where: str
    what: str
    cause: str
    source: str


def _mutable_lines(lines):
    """Numbers of the lines of the rule: the textbook mistake test, ``dot``, ``sign``
    and the body of ``solve`` (not the command-line options, the other ``--rule``
    tests, the handshake or the I/O)."""
    start = next(n for n, line in enumerate(lines) if line.startswith("function solve"))
    end = next(n for n in range(start, len(lines)) if lines[n] == "}")
    body = [n for n in range(start + 1, end) if "handshake" not in lines[n]]
    heads = [n for n, line in enumerate(lines) if line.strip().startswith(
        ("textbook:", "const dot", "const sign"))]
    return heads + body


def _sites(line):
    """(column, old text, new text, what) for every edit of one line."""
    out = []
    for m in _OP.finditer(line):
        op = m.group(1)
        out += [(m.start(), op, new, f"{op} -> {new}") for new in _COMPARE[op]]
        after = line[m.end():]
        if after.startswith(" 0") and not after[2:3].isdigit() and op in ("<=", ">="):
            for eps in ("1e-9", "-1e-9"):
                out.append((m.end() + 1, "0", eps, f"0 -> {eps} in a comparison"))
    for m in re.finditer(r"(?<![\w.\"])([01])(?![\w.\"])", line):
        for new in ({"0": ["1"], "1": ["0", "2"]}[m.group(1)]):
            out.append((m.start(), m.group(1), new, f"{m.group(1)} -> {new}"))
    for m in re.finditer(r" ([+\-*]) ", line):
        new = {"+": "-", "-": "+", "*": "/"}[m.group(1)]
        out.append((m.start() + 1, m.group(1), new, f"{m.group(1)} -> {new}"))
    for m in re.finditer(r"p\.order(?!\.length)", line):
        out += [(m.start(), "p.order", text, f"order read {label}")
                for label, text in _ORDER_READINGS.items()]
    if "[...x, 1]" in line:
        out.append((line.index("[...x, 1]"), "[...x, 1]", "[1, ...x]",
                    "the constant 1 put first"))
    for m in re.finditer(r"if \((.*?)\) (?=[{a])", line):
        out.append((m.start(), m.group(0), f"if (!({m.group(1)})) ", "condition negated"))
    for m in _STATEMENT.finditer(line):
        out.append((m.start(), m.group(0), "", "statement deleted"))
    for old, (what, new) in _FLOAT32.items():
        if old in line:
            out.append((line.index(old), old, new, what))
    return out


#: The causes the checker names for mutants that read the stream otherwise, for the
#: argmax's ties sent to the highest class, and for slips in the dual counts (the
#: Python mutants' causes too: ``tests/mutation_score.py``).
ORDER_CAUSES = {"order read short": "the last presentation of the stream was skipped",
                "order read from the second": "the first presentation of the stream "
                                              "was skipped",
                "order read sorted": "the stream was sorted by example index",
                "order read reversed": "the stream was presented in reverse"}
ARGMAX_CAUSE = "argmax ties go to the highest class index"
KERNEL_CAUSES = {"add 2": "a mistake adds 2 to alpha_i",
                 "start at 1": "the dual counts start at 1"}


#: The cause of a mutant that keeps inputs or weights in a ``Float32Array``: the words
#: the checker's float32 diagnosis starts with (a float32 re-run reproduces it where
#: float32's range or rounding decides a case).
FLOAT32_CAUSE = "float32 arithmetic"


def _cause(line, what):
    """The cause words for edits that are known misreadings of the rule."""
    if what in {words for words, _ in _FLOAT32.values()}:
        return FLOAT32_CAUSE
    if line.strip().startswith("textbook:"):
        return {"<= -> <": "the strict rule",
                "0 -> 1e-9 in a comparison": "a score up to 1e-09 above zero",
                "0 -> -1e-9 in a comparison": "a score up to 1e-09 below zero"
                }.get(what, "")
    if 'opt("--eta", "1")' in line:
        return {"eta 1 -> 2": "learning rate 2", "eta 1 -> 0.5": "learning rate 1/2",
                "eta 1 -> 0.1": "learning rate 1/10"}.get(what, "")
    if "for (const i of p.order)" in line:
        return ORDER_CAUSES.get(what, "")
    if "dot(w, x) > dot(W[best], x)" in line and what == "> -> >=":
        return ARGMAX_CAUSE
    if "alpha[i] += 1" in line and what == "1 -> 2":
        return KERNEL_CAUSES["add 2"]
    if "const alpha = p.y.map(() => 0)" in line and what == "0 -> 1":
        return KERNEL_CAUSES["start at 1"]
    if "[...x, 1]" in line and what == "the constant 1 put first":
        return "the intercept weight is stored first"
    return ""


def node_mutants() -> list[NodeMutant]:
    """Every single-edit mutant of the example, in source order."""
    lines = EXAMPLE.read_text().split("\n")
    out = []
    [n] = [n for n, line in enumerate(lines) if 'opt("--eta", "1")' in line]
    for new in ("2", "0.5", "0.1"):
        edited = lines[n].replace('opt("--eta", "1")', f'opt("--eta", "{new}")')
        out.append(_mutant(lines, n, lines[n].index("opt"), f"eta 1 -> {new}", edited,
                           lines[n]))
    [n] = [n for n, line in enumerate(lines) if line.strip() == _UPDATE]
    for what, new, cause in _STEPS:
        out.append(NodeMutant(where=f"line {n + 1}", what=what, cause=cause, source=(
            "\n".join(lines[:n] + [lines[n].replace(_UPDATE, new)] + lines[n + 1:]))))
    for n in _mutable_lines(lines):
        line = lines[n]
        for col, old, new, what in _sites(line):
            edited = line[:col] + line[col:].replace(old, new, 1)
            out.append(_mutant(lines, n, col, what, edited, line))
    return out


def _mutant(lines, n, col, what, edited, line):
    source = "\n".join(lines[:n] + [edited] + lines[n + 1:])
    return NodeMutant(where=f"line {n + 1}:{col}", what=what, cause=_cause(line, what),
                      source=source)


def batch_answers(node: str, source: str, problems: list[dict], workdir: Path
                  ) -> list:
    """The answers of ``source`` (the example or a mutant) to every problem, from one
    ``node`` process; a problem it throws on answers ``{"error": ...}``."""
    path = workdir / "batch.js"
    path.write_text(source.replace(_ONE, _MANY))
    run = subprocess.run([node, str(path)], input=json.dumps(problems),
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        return [{"error": run.stderr[-200:]}]
    return json.loads(run.stdout)
