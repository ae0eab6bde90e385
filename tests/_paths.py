"""Where things are, for tests in any folder below ``tests/``: the checkout's root and
the ``tests`` folder (which holds the shared helpers and ``data/``)."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
