"""Every public function of markone, verify and sims is annotated (issue 11).

"Public" is what a user can reach by name: each name in the ``__all__`` of every
module whose dotted path has no private part (``markone._loops`` is internal,
``markone.hardware.machine`` is not), and the public methods (and ``__init__``) that
its classes define themselves. Every parameter needs an annotation and so does the
return (``__init__`` excepted); mypy (``.ci/run``) then checks the calls against them.
"""

import dataclasses
import importlib
import inspect
import pkgutil

PACKAGES = ("markone", "verify", "sims")


def public_modules():
    for pkg in PACKAGES:
        root = importlib.import_module(pkg)
        yield root
        for info in pkgutil.walk_packages(root.__path__, pkg + "."):
            parts = info.name.split(".")
            if any(p.startswith("_") for p in parts):
                continue                 # private modules, __main__ included
            yield importlib.import_module(info.name)


def unannotated(func, *, need_return=True):
    """Names of ``func``'s parameters without an annotation (``->`` for the return)."""
    sig = inspect.signature(func)
    missing = [name for i, (name, p) in enumerate(sig.parameters.items())
               if p.annotation is inspect.Parameter.empty
               and not (i == 0 and name in ("self", "cls"))]
    if need_return and sig.return_annotation is inspect.Signature.empty:
        missing.append("->")
    return missing


def own_functions(cls):
    """``(name, function)`` for the public methods, properties and ``__init__`` that
    ``cls`` defines itself (a dataclass's generated ``__init__`` is annotated by
    construction)."""
    for name, value in vars(cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        if name == "__init__" and dataclasses.is_dataclass(cls):
            continue
        if isinstance(value, (classmethod, staticmethod)):
            value = value.__func__
        elif isinstance(value, property):
            value = value.fget
        if inspect.isfunction(value):
            yield name, value


def public_api():
    """``(qualified name, function, needs a return annotation)`` of the public API."""
    for module in public_modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if getattr(obj, "__module__", None) != module.__name__:
                continue                 # re-exported: checked where it is defined
            if inspect.isfunction(obj):
                yield f"{module.__name__}.{name}", obj, True
            elif inspect.isclass(obj):
                for meth, func in own_functions(obj):
                    yield f"{module.__name__}.{name}.{meth}", func, meth != "__init__"


API = sorted(public_api(), key=lambda item: item[0])


def test_the_public_api_is_found():
    """The walk reaches every package and the well-known names (so that an empty
    walk cannot pass the test below)."""
    names = {name for name, _, _ in API}
    for expected in ("markone.engine.train", "markone.hardware.machine.MarkI.train",
                     "verify.separability.check_separable", "verify.smt.Session.check",
                     "sims.runner.run_experiment", "sims.novikoff.plot",
                     "verify.strategies.separable_sets"):
        assert expected in names
    assert {name.split(".")[0] for name in names} == set(PACKAGES)
    assert len(API) > 300


def test_every_public_function_is_annotated():
    missing = {name: gaps for name, func, need_return in API
               if (gaps := unannotated(func, need_return=need_return))}
    assert not missing, "missing annotations (parameter names, -> for the return):\n" + \
        "\n".join(f"  {name}: {gaps}" for name, gaps in missing.items())


def test_the_check_catches_a_missing_annotation():
    def half(x: int, y):
        return x

    def full(x: int, *, y: str = "") -> int:
        return x

    assert unannotated(half) == ["y", "->"]
    assert unannotated(full) == []
