"""Fixtures shared by the tests of ``verify.machine``."""

import string

import pytest

from markone.datasets import letters
from markone.hardware import MarkI
from verify.machine import check_machine


@pytest.fixture(scope="session")
def letters26():
    """The 26-letter task (10 figures per letter) and the default machine's report on
    it, made once for the session: ``check_machine`` on it is one of the slowest steps
    of the suite, and two test files ask the same question. Reports are frozen; a
    test that trains builds its own ``MarkI(seed=0)``, the machine checked here (same
    seed, same wiring)."""
    images, labels = letters(string.ascii_uppercase, per_class=10, seed=0)
    return images, labels, check_machine(MarkI(seed=0), images, labels, orders=0)
