"""An import inside a function keeps start-up light, and says why (issue 40).

In every module of :data:`HELD` (tests/ and benchmarks/ are not held to it), a
function imports a module only when the pair (importing module, imported module) is
listed in :data:`ALLOWED`, with the reason it is not imported at the top: a module
that would make ``import markone``, ``markone --help`` or a small question heavy
(``tests/design/test_light_imports.py`` shows what must not be imported early), or one
that exists only on some systems. Any other import goes to the top of the module. An
import cycle is never a reason: the layers have none (``test_import_graph.py``).
"""

from __future__ import annotations

import ast
import functools

import pytest
from _paths import ROOT

#: The packages whose modules import inside functions.
PACKAGES = ("markone", "verify", "sims")
#: The modules held to the rule (globs from the repository's root): every module of
#: :data:`PACKAGES`.
HELD = tuple(f"{package}/**/*.py" for package in PACKAGES)
#: A command module is imported to build its parser (``markone CMD --help``, and
#: ``markone verify`` for each action); its handler imports the work.
_COMMAND_REASON = ("a command module is imported to build its parser; its handler "
                   "imports the work, so --help and the other commands stay light")
#: The packages each layer's command modules import in their handlers.
_COMMANDS = {"markone.cli.*": ("markone.*", "numpy"),
             "verify.cli.*": ("markone.*", "verify.*", "numpy"),
             "sims.cli.*": ("markone.*", "verify.*", "sims.*")}
#: What an experiment needs only when it runs: each brings numba, SciPy or SimPy.
_SIMS_HEAVY = ("markone.batch", "markone.hardware", "verify.machine", "sims._certified")
#: The estimators derive from scikit-learn's, which only a multiclass or kernel
#: question needs: a binary bound, a case file, or a suite's binary cases stay light.
_ESTIMATORS_REASON = ("it brings scikit-learn, which only the multiclass and kernel "
                      "questions need; the binary ones and the other cases stay light")
#: ``(importing module, imported module): reason``. A name ending in ``.*`` stands for
#: a package and every module in it; ``*`` for any module.
ALLOWED = {
    ("*", "numba"): "the compiler: imported by the first compile (docs/start-up.md)",
    ("*", "llvmlite"): "numba's code generator, with it",
    ("*", "scipy"): "only sparse data and some solvers need it",
    ("*", "matplotlib"): "only a figure needs it",
    ("*", "sklearn"): "only the scikit-learn comparisons need it",
    ("*", "dask"): "only a sweep on a cluster needs it",
    ("*", "tqdm"): "only a progress bar on a terminal needs it",
    ("*", "z3"): "an SMT solver: only the questions put to it need it",
    ("*", "cvc5"): "an SMT solver: only the questions put to it need it",
    ("*", "flint"): "exact linear algebra: only an exact solve needs it",
    ("*", "highspy"): "the LP solver: only an LP needs it",
    ("*", "jsonschema"): "only the suite's schema check needs it",
    ("*", "PIL"): "only an image file needs it",
    ("*", "threadpoolctl"): "only a BLAS pinned to one thread needs it",
    ("*", "fcntl"): "Unix only: imported where a file lock is taken",
    ("verify.machine.claims.*", "verify.margin"):
        "it brings the LP solver, which one machine claim needs",
    ("verify.bounds", "markone.multiclass"): _ESTIMATORS_REASON,
    **{("sims.*", heavy): "it brings numba, SciPy or SimPy, and `markone sim list` "
       "imports every experiment to show its settings" for heavy in _SIMS_HEAVY},
    **{(cmd, pkg): _COMMAND_REASON for cmd, pkgs in _COMMANDS.items() for pkg in pkgs},
}


def _matches(name, pattern):
    if pattern == "*":
        return True
    base = pattern.removesuffix(".*")
    return name == base or name.startswith(base + ".")


def allowed(importer, imported):
    """The reason ``importer`` may import ``imported`` inside a function, or None."""
    return next((why for (who, what), why in ALLOWED.items()
                 if _matches(importer, who) and _matches(imported, what)), None)


def inner_imports(source):
    """``(line, module)`` of every import inside a function (relative ones as
    written, with their dots)."""
    found = set()
    for fn in ast.walk(ast.parse(source)):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    found.update((node.lineno, a.name) for a in node.names)
                elif isinstance(node, ast.ImportFrom):
                    found.add((node.lineno, "." * node.level + (node.module or "")))
    return sorted(found)


@functools.cache
def _inner_imports_at(path):
    """:func:`inner_imports` of the file at ``path``, parsed once for both tests that
    read every module (their parsing was 1.2 s of the 1.7 s the second one took)."""
    return inner_imports(path.read_text(encoding="utf-8"))


def problems(source, importer):
    """The inner imports of ``source`` (the module ``importer``) that break the rule,
    said as sentences."""
    return _broken(inner_imports(source), importer)


def _broken(found, importer):
    """The inner imports ``found`` (``(line, module)``) of ``importer`` that break the
    rule, said as sentences."""
    return [f"line {line}: {module} is imported inside a function, and "
            f"({importer}, {module}) is not in ALLOWED; import it at the top"
            for line, module in found if not allowed(importer, module)]


def module_name(path):
    """The dotted name of the module at ``path`` (relative to the repository)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize("held", HELD)
def test_inner_imports_are_listed_with_a_reason(held):
    files = sorted(ROOT.glob(held))
    assert files, held
    found = [f"{path.relative_to(ROOT)}: {problem}" for path in files
             for problem in _broken(_inner_imports_at(path), module_name(path))]
    assert not found, "\n".join(found)


def test_every_allowed_pair_is_used():
    used = {key for path in (p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))
            for _, module in _inner_imports_at(path)
            for key in ALLOWED
            if _matches(module_name(path), key[0]) and _matches(module, key[1])}
    assert set(ALLOWED) - used == set(), "listed but never imported inside a function"


def test_the_rule_can_fail():
    source = ("def f():\n    import json\n    import scipy.sparse\n"
              "    from markone._internal import io\n")
    assert problems(source, "verify.bounds") == [
        "line 2: json is imported inside a function, and (verify.bounds, json) is not "
        "in ALLOWED; import it at the top",
        "line 4: markone._internal is imported inside a function, and (verify.bounds, "
        "markone._internal) is not in ALLOWED; import it at the top"]
    assert problems(source.replace("json", "scipy"), "verify.cli.adversary") == []
