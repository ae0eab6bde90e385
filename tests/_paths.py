"""Where things are, for tests in any folder below ``tests/``: the checkout's root and
the ``tests`` folder (which holds the shared helpers and ``data/``)."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def load_test_module(relative: str):
    """The test module at ``tests/<relative>`` (its fixtures, corpora, forgeries), loaded
    once under its file's stem, so a fixture shared from it is the same object in every
    file that uses it."""
    import importlib.util
    import sys

    path = TESTS / relative
    if path.stem not in sys.modules:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        sys.modules[path.stem] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[path.stem])
    return sys.modules[path.stem]
