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


def verify_modules():
    for name in sorted(source_modules()):
        if name.startswith("verify") and not name.endswith("__main__"):
            yield name, importlib.import_module(name)


def test_verify_keeps_its_exceptions_in_verify_errors():
    """Every exception class that verify defines under a public name is defined in
    verify.errors (they were spread over 10 modules, issue 40), but the kernel's
    CertificateError, which verify.errors exports; and no other module of verify
    exports one (no second home), but the package's lazy top level. MemoryLimitError
    is markone's (``machine train`` refuses with it too), exported here as well."""
    import verify.errors

    defined = {f"{name}.{attr}": obj for name, module in verify_modules()
               for attr, obj in vars(module).items()
               if inspect.isclass(obj) and issubclass(obj, BaseException)
               and obj.__module__ == name and not attr.startswith("_")}
    assert len(defined) >= 13, defined   # the walk found them
    outside = sorted(n for n, c in defined.items()
                     if c.__module__ not in ("verify.errors", *STDLIB_ONLY))
    assert not outside, f"define these in verify/errors.py: {outside}"
    shared = {n for n in verify.errors.__all__   # markone's, for every layer (#37)
              if getattr(verify.errors, n).__module__ == "markone.errors"}
    assert shared == {"MemoryLimitError"}
    assert set(verify.errors.__all__) == {c.__name__ for c in defined.values()} | shared
    again = sorted(f"{name}.{attr}" for name, module in verify_modules()
                   if name not in ("verify", "verify.errors", *STDLIB_ONLY)
                   for attr in getattr(module, "__all__", ())
                   if inspect.isclass(obj := getattr(module, attr, None))
                   and issubclass(obj, BaseException))
    assert not again, f"exported outside verify.errors: {again}"


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
