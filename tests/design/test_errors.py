"""One error tree: every exception markone raises on purpose is a MarkoneError, every
warning a MarkoneWarning, and the convergence warning is scikit-learn's too when
scikit-learn is loaded."""

from __future__ import annotations

import importlib
import inspect
import sys
import warnings

import pytest

import markone
from markone.errors import ConvergenceWarning, MarkoneError, MarkoneWarning, convergence_warning
from test_import_graph import source_modules

#: The trusted certificate kernel imports nothing but the standard library (by design),
#: so its CertificateError cannot derive from MarkoneError.
STDLIB_ONLY = ("verify.certificate.kernel",)


def public_classes():
    for name in sorted(source_modules()):
        if name.endswith("__main__") or name.startswith(STDLIB_ONLY):
            continue
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr, None)
            if inspect.isclass(obj) and obj.__module__ == name:
                yield f"{name}.{attr}", obj


def test_every_public_exception_and_warning_is_in_the_tree():
    errors = {n: c for n, c in public_classes() if issubclass(c, BaseException)}
    assert len(errors) >= 10, errors  # the walk found them
    stray = [n for n, c in errors.items()
             if not issubclass(c, (MarkoneError, MarkoneWarning))]
    assert not stray, f"not under MarkoneError/MarkoneWarning: {stray}"


def test_a_refused_input_is_caught_by_the_base_class(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("x,label\n0.1,1\n2,0\n")  # 0.1 is not a float64
    with pytest.raises(MarkoneError, match="0.1"):
        markone.datasets.load_table(path, exact=False)


def test_convergence_warning_is_markones_without_sklearn(monkeypatch):
    """Without scikit-learn loaded, the plain class (nothing is imported to warn)."""
    monkeypatch.delitem(sys.modules, "sklearn.exceptions", raising=False)
    assert convergence_warning() is ConvergenceWarning


def test_convergence_warning_is_sklearns_when_sklearn_is_loaded():
    sklearn_exceptions = pytest.importorskip("sklearn.exceptions")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        markone.train(*markone.datasets.xor(), max_epochs=2)
    category = caught[0].category
    assert issubclass(category, ConvergenceWarning)
    assert issubclass(category, sklearn_exceptions.ConvergenceWarning)
    with warnings.catch_warnings(record=True) as caught:  # a user's sklearn filter
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", sklearn_exceptions.ConvergenceWarning)
        markone.train(*markone.datasets.xor(), max_epochs=2)
    assert caught == []
