"""Fixtures of the verify tests."""

import pytest


@pytest.fixture(scope="session")
def suite(tmp_path_factory):
    """The conformance suite written once for the session (a second of CPU each time:
    every case built and checked against the schema), shared by the conformance test
    files that only read it; a test that edits files edits a copy. (Here, not in a
    ``conformance/conftest.py``: that one sorts before this file, and pytest's doctest
    collection then finds another module named ``conftest`` already imported.)"""
    from verify.conformance import write_suite  # only the conformance tests need it

    out = tmp_path_factory.mktemp("conformance") / "suite"
    write_suite(out)
    return out


@pytest.fixture
def train_budgets(monkeypatch):
    """The ``max_epochs`` of every :func:`markone.train` run the provers make, in order
    (a spy on ``markone.engine.train``, which the runs still go through)."""
    import markone.engine

    budgets = []
    real_train = markone.engine.train

    def spy(*args, **kw):
        budgets.append(kw["max_epochs"])
        return real_train(*args, **kw)

    monkeypatch.setattr(markone.engine, "train", spy)
    return budgets
