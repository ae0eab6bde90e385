"""An import inside a function keeps start-up light, and says so (issue 40).

In the modules of :data:`HELD` (each folder's own modules, not its subfolders), a
function imports only a module of :data:`ALLOWED`, those whose import at the top would
make ``import markone`` or ``markone --help`` heavy, and the line (or the comment line
just above it, or above the imports it opens) gives the reason. Any other import goes
to the top of the module. More folders join :data:`HELD` as their imports are sorted.
"""

from __future__ import annotations

import ast

import pytest
from _paths import ROOT

#: Folders whose modules are held to the rule (paths from the repository's root).
HELD = ("markone", "markone/hardware", "markone/console", "verify/certificate",
        "verify/coq", "verify/machine/claims")
#: The modules a function may import, with why they are not imported at the top.
ALLOWED = {
    "numba": "the compiler: imported by the first compile (docs/start-up.md)",
    "llvmlite": "numba's code generator, with it",
    "scipy": "only sparse data need it",
    "matplotlib": "only a figure needs it",
    "verify.margin": "it brings the LP solver, which one machine claim needs",
}


def inner_imports(source):
    """``(line, module, reason given)`` of every import inside a function."""
    lines = source.splitlines()
    found = {}
    for fn in ast.walk(ast.parse(source)):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    modules = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    modules = ["." * node.level + (node.module or "")]
                else:
                    continue
                for module in modules:
                    found[(node.lineno, module)] = _reason(lines, node.lineno - 1)
    return [(line, module, reason) for (line, module), reason in sorted(found.items())]


def _reason(lines, k):
    """Whether line ``k`` carries a comment, or the comment line above the block of
    imports it belongs to does."""
    if "#" in lines[k]:
        return True
    while k > 0 and lines[k - 1].strip().startswith(("import ", "from ")):
        k -= 1
    return k > 0 and lines[k - 1].strip().startswith("#")


def problems(source):
    """The inner imports of ``source`` that break the rule, said as sentences."""
    out = []
    for line, module, reason in inner_imports(source):
        if not any(module == m or module.startswith(m + ".") for m in ALLOWED):
            out.append(f"line {line}: {module} is not one of the heavy modules; import it "
                       "at the top")
        elif not reason:
            out.append(f"line {line}: {module} inside a function needs its reason, a "
                       "comment")
    return out


@pytest.mark.parametrize("folder", HELD)
def test_inner_imports_are_heavy_modules_with_a_reason(folder):
    files = sorted((ROOT / folder).glob("*.py"))
    assert files, folder
    found = [f"{path.relative_to(ROOT)}: {problem}" for path in files
             for problem in problems(path.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def test_the_rule_can_fail():
    source = ("def f():\n    import json\n    import scipy.sparse\n"
              "    # light start-up: drawing only\n    import matplotlib.pyplot as plt\n"
              "    from numba import njit  # light start-up\n")
    assert problems(source) == [
        "line 2: json is not one of the heavy modules; import it at the top",
        "line 3: scipy.sparse inside a function needs its reason, a comment"]
