"""The architecture of docs/architecture.md, checked on the import graph of the source
tree.

Every ``import`` statement of ``markone``, ``verify`` and ``sims`` counts, at module
level or inside a function (an import inside a function still closes a cycle; it only
hides it until run time). The rules, with no exception:

- no import cycle among the modules;
- the packages are layers, :data:`LAYERS` from the ground up: a module imports its own
  layer and those below it, never one above (``markone`` neither ``verify`` nor
  ``sims``; ``verify`` not ``sims``);
- a package imports from another only its public modules, and from ``markone`` the
  one documented internal layer, ``markone._internal``;
- the command-line framework (``markone.cli``) is imported only by the command line:
  itself, ``markone.__main__`` and the commands of the layers above, ``verify.cli``
  and ``sims.cli`` (``markone.cli`` names their modules in ``"module:function"``
  strings, never in an import).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from _paths import ROOT

PACKAGES = ("markone", "verify", "sims")
#: The layers, from the ground up: each may import those before it, never those after.
LAYERS = PACKAGES
#: Within markone: the emulation (``markone.hardware``) is below the console's server.
BELOW = {"markone.hardware": ("markone.console",)}
#: The packages of commands, which alone may import the command-line framework.
COMMAND_LINE = ("markone.cli", "verify.cli", "sims.cli")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``name`` (at ``path``) imports anywhere in its body."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor[:len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import a.b.c` of a non-module name
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = source_modules()
    known = set(modules)
    return {name: imported_modules(name, path, known) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # recursion depth is bounded by the module count
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def is_private(module: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__")
               for part in module.split(".")[1:])


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def layering_violations(graph: dict[str, set[str]]) -> list[str]:
    bad = []
    for importer, targets in sorted(graph.items()):
        top = importer.split(".")[0]
        for target in sorted(targets):
            target_top = target.split(".")[0]
            if target_top != top and is_private(target) \
                    and not _within(target, "markone._internal"):
                bad.append(f"{importer} imports the private {target}")
            if LAYERS.index(target_top) > LAYERS.index(top):
                bad.append(f"{importer} imports {target}: {top} is below {target_top}")
            if any(_within(importer, low) and _within(target, high)
                   for low, highs in BELOW.items() for high in highs):
                bad.append(f"{importer} imports {target}: the emulation is below the "
                           "console")
            if _within(target, "markone.cli") and importer != "markone.__main__" \
                    and not any(_within(importer, c) for c in COMMAND_LINE):
                bad.append(f"{importer} imports the command line ({target})")
    return bad


@pytest.fixture(scope="module")
def graph():
    """The source tree's import graph, walked once for the module (1.5 s of CPU each
    time); frozen, so that no test changes another's."""
    return {name: frozenset(targets) for name, targets in import_graph().items()}


def test_the_walker_sees_every_kind_of_import(tmp_path, graph):
    """A function-level import is an edge like any other; relative imports resolve."""
    path = tmp_path / "mod.py"
    path.write_text("import numpy\nfrom . import b\nfrom .c import f\n"
                    "def g():\n    from verify.margin import max_margin\n    import sims.x.y\n")
    known = {"pkg.b", "pkg.c", "verify.margin", "sims.x", "pkg.mod"}
    assert imported_modules("pkg.mod", path, known) == {"pkg.b", "pkg.c", "verify.margin",
                                                        "sims.x"}
    assert "markone.cli" in graph["markone.__main__"]


def test_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles(graph):
    found = cycles(graph)
    assert not found, "import cycles (function-level imports count):\n" + "\n".join(
        " <-> ".join(c) for c in found)


def test_layers(graph):
    bad = layering_violations(graph)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("importer, target, ok", [
    ("verify.margin", "markone._internal.validation", True),
    ("verify.margin", "markone._loops", False),
    ("sims.novikoff", "markone.hardware._x", False),
    ("verify.margin", "markone.cli", False),
    ("markone.perceptron", "verify.bounds", False),
    ("markone.cli.machine", "verify.bounds", False),     # the command line too (issue 40)
    ("markone.cli", "sims.runner", False),
    ("verify.separability", "sims.runner", False),
    ("verify.cli.verify", "verify.bounds", True),
    ("verify.cli.verify", "markone.cli", True),
    ("sims.cli.sim", "markone.cli", True),
    ("sims.cli.demo", "verify.certificate", True),
    ("verify.cli.verify", "markone.cli._errors", False),  # its public names only
    ("sims.runner", "markone.cli", False),
    ("verify.machine", "verify._internal.budget", True),
    ("sims.novikoff", "verify._internal.budget", False),
    ("markone.console.server", "markone.hardware.live", True),
    ("markone.hardware.run", "markone.console.server", False),  # the emulation is below
])
def test_layering_rules(importer, target, ok):
    assert (layering_violations({importer: {target}}) == []) is ok
