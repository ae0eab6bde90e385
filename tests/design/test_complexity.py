"""No function too long or too branchy, in every package (issues 25 and 40).

In every Python file under :data:`FOLDERS` (the packages, the benchmarks and the docs'
build scripts), no function, method or closure has more than :data:`MAX_LINES` lines
of code (radon's ``sloc``: no blank lines, comments or docstrings) or a cyclomatic
complexity over :data:`MAX_COMPLEXITY` (radon's ``cc``);
no module of ``verify/machine`` has more than :data:`MAX_MODULE_LINES` lines.
A function that outgrows the limits is split into named steps, not exempted.
"""

from __future__ import annotations

import ast
import textwrap

import pytest
from _paths import ROOT
from radon.complexity import cc_visit, cc_visit_ast
from radon.raw import analyze


#: The folders held to the limits, with every folder below them (paths from the
#: repository's root).
FOLDERS = ("markone", "verify", "sims", "benchmarks", "docs")
MAX_LINES = 60
MAX_COMPLEXITY = 15
#: The most lines a module of ``verify/machine`` may have: the claim registry keeps
#: each claim's prover and re-check in a small module of its own.
MAX_MODULE_LINES = 400
#: The most modules the top level of ``verify/machine`` may hold, its packages
#: (``claims``, ``theory``) counted as one each (issue 40: 36 lay flat there).
MAX_MACHINE_TOP = 14


def functions(source):
    """``(name, complexity, body)`` of every function, method and closure (``body``:
    its text, dedented)."""
    lines, complexity = source.splitlines(), {}

    def note(blocks):  # radon's blocks by their first line: functions, closures, methods
        for block in blocks:
            note(getattr(block, "methods", ()) or getattr(block, "closures", ()))
            complexity[block.lineno] = block.complexity

    tree = ast.parse(source)            # once: radon's cc_visit would parse it again
    note(cc_visit_ast(tree))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = textwrap.dedent("\n".join(lines[node.lineno - 1:node.end_lineno]))
            if node.lineno not in complexity:   # a method of a class inside a function
                complexity[node.lineno] = cc_visit(body)[0].complexity
            yield node.name, complexity[node.lineno], body


def offenders(source):
    """The functions of ``source`` over a limit, said as sentences. Lines of code are
    counted (radon's ``analyze``, most of this check's cost) only for a function over
    the complexity limit or of more lines than :data:`MAX_LINES`: a function's lines
    of code are never more than its lines."""
    out = []
    for name, cc, body in functions(source):
        if cc > MAX_COMPLEXITY or body.count("\n") >= MAX_LINES:
            lines = analyze(body).sloc
            if cc > MAX_COMPLEXITY or lines > MAX_LINES:
                out.append(f"{name}: {lines} lines of code, complexity {cc}")
    return out


def test_machine_modules_are_small():
    machine = ROOT / "verify" / "machine"
    sizes = {str(path.relative_to(machine)): len(path.read_text(encoding="utf-8").splitlines())
             for path in sorted(machine.rglob("*.py"))}
    assert len(sizes) > 20, sizes      # the walk found them
    assert {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES} == {}


def test_the_machine_package_shows_its_parts():
    """The top level of ``verify/machine`` is a short list: claims and theory are
    packages of their own."""
    machine = ROOT / "verify" / "machine"
    top = sorted(p.name for p in machine.iterdir()
                 if p.suffix == ".py" or (p / "__init__.py").is_file())
    assert {"claims", "theory", "check.py", "recheck.py"} <= set(top), top
    assert len(top) <= MAX_MACHINE_TOP, top


@pytest.mark.parametrize("folder", FOLDERS)
def test_functions_are_short_and_simple(folder):
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files, f"{folder} has no Python files"
    found = [f"{path.relative_to(ROOT)}: {problem}" for path in files
             for problem in offenders(path.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def test_the_measure_sees_a_long_branchy_function():
    """The check can fail: 16 ``if``s are complexity 17, 61 statements 61 lines; a
    docstring and comments are not lines of code, and a method is measured too."""
    branchy = "def f(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n"
                                      for i in range(16)) + "    return -1\n"
    long = ("class C:\n    def g(self):\n        '''A docstring\n\n        of lines.'''\n"
            + "".join(f"        x{i} = {i}  # a comment\n" for i in range(61)))
    nested = ("def outer():\n    class Inner:\n        def m(self, x):\n"
              + "".join(f"            if x == {i}:\n                return {i}\n"
                        for i in range(16)) + "    return Inner\n")
    assert offenders(nested) == ["m: 33 lines of code, complexity 17"]
    assert offenders(branchy) == ["f: 34 lines of code, complexity 17"]
    assert offenders(long) == ["g: 62 lines of code, complexity 1"]
    assert offenders("def h():\n    '''Short.'''\n    return 1\n") == []
    commented = "def k():\n" + "".join(f"    # note {i}\n    y{i} = {i}\n"
                                      for i in range(40))
    assert offenders(commented) == []          # 81 lines, 41 of code
