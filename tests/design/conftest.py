"""Fixtures shared by the design tests."""

from __future__ import annotations

import importlib.util

import pytest

from _paths import ROOT


@pytest.fixture(scope="module")
def root_conftest():
    """The repository's root ``conftest.py`` (the timeline, the worker groups), loaded
    as a module of its own so that its functions can be called directly."""
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
