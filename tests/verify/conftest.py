"""Fixtures of the verify tests."""

import pytest


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
