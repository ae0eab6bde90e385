"""markone: Rosenblatt's Mark I Perceptron emulated, perceptron theory verified.

The learner core lives here: :func:`train` and the estimators, the single online
update rule (:mod:`markone.online`), the datasets, and the Mark I emulation in
:mod:`markone.hardware`. Names are imported lazily, so ``import markone`` is cheap.

>>> import markone
>>> X, y = markone.datasets.orthonormal(3)
>>> markone.train(X, y, intercept=False).mistakes
3
"""

from __future__ import annotations

from markone._internal.lazy import lazy_exports
from markone._version import __version__

# public name -> module that defines it
_EXPORTS = {
    "train": "markone.engine",
    "TrainResult": "markone.engine",
    "Perceptron": "markone.perceptron",
    "ConvergenceWarning": "markone.errors",
    "MarkoneError": "markone.errors",
    "MarkoneWarning": "markone.errors",
    "NotFittedError": "markone._internal.checks",
    "InvalidParameterError": "markone._params",
    "MulticlassPerceptron": "markone.multiclass",
    "KernelPerceptron": "markone.kernel",
}
_SUBMODULES = {"datasets", "online", "hardware", "engine", "perceptron", "multiclass", "kernel",
               "batch", "errors"}

__all__ = sorted(_EXPORTS) + ["__version__", "datasets", "online", "hardware", "errors"]


__getattr__, __dir__ = lazy_exports('markone', _EXPORTS, _SUBMODULES)
