"""Lazy package attributes: import a public name's module only when it is used.

Keeps ``import markone`` and ``import verify`` cheap (numba, scipy, z3 and simpy load
only when needed) while ``markone.train`` and ``verify.max_margin`` still work.

>>> getattr_, dir_ = lazy_exports("json", {"dumps": "json"}, set())
>>> getattr_("dumps")([1])
'[1]'
"""

from __future__ import annotations

import importlib
import sys

__all__ = ["lazy_exports"]


def lazy_exports(package, exports, submodules):
    """Return ``(__getattr__, __dir__)`` for ``package``.

    ``exports`` maps a public name to the module defining it; ``submodules`` are
    names of subpackages/modules importable as attributes.
    """

    def __getattr__(name):
        if name in exports:
            value = getattr(importlib.import_module(exports[name]), name)
        elif name in submodules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(exports) | set(submodules))

    return __getattr__, __dir__
