"""markone: Rosenblatt's Mark I Perceptron emulated, perceptron theory verified.

The learner core lives here: :func:`train` and the estimators, the single online
update rule (:mod:`markone.online`), the datasets, and the Mark I emulation in
:mod:`markone.hardware`. Names are imported lazily, so ``import markone`` is cheap.

>>> import markone
>>> X, y = markone.datasets.xor()
>>> markone.train(X, y, max_epochs=20).converged   # doctest: +SKIP
False
"""

from __future__ import annotations

import importlib

from markone._version import __version__

# public name -> module that defines it
_EXPORTS = {
    "train": "markone.perceptron",
    "TrainResult": "markone.perceptron",
    "Perceptron": "markone.perceptron",
    "ConvergenceWarning": "markone.perceptron",
    "MulticlassPerceptron": "markone.multiclass",
    "KernelPerceptron": "markone.kernel",
}
_SUBMODULES = {"datasets", "online", "hardware", "perceptron", "multiclass", "kernel",
               "sklearn", "batch"}

__all__ = sorted(_EXPORTS) + ["__version__", "datasets", "online", "hardware"]


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        module = importlib.import_module(f"markone.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'markone' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
