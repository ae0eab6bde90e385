"""Tiny hand-wired Mark I machines shared by the rule tests, and the small task
whose end stops the per-weight balls decide (shared by the re-check tests)."""

import warnings

import numpy as np
from hypothesis import strategies as st

from markone.hardware import MarkI, MarkIParams
from markone.hardware.plugboard import PatternCache, Wiring


def identity_machine(d, **params):
    """One R-unit; A-unit j sees photocell j alone, so the A-unit patterns are the
    figures (``params`` go to :class:`MarkIParams`)."""
    p = MarkIParams(retina_shape=(1, d), n_a_units=d, n_excitatory=1, n_inhibitory=0,
                    max_fanout=1, theta=1, n_r_units=1, **params)
    m = MarkI(p, seed=0)
    m.wiring = Wiring(np.arange(d)[:, None], np.zeros((d, 0), np.int64), d)
    m._patterns = PatternCache(m.wiring)
    return m


def ball_report(**options):
    """``(machine, images, labels, report)``: two letters at +/-3 steps, where the
    balls per weight decide the end stops, with ``check_machine(**options)`` (their
    refinement is limited by work, so a busy machine writes the same report)."""
    from markone.datasets import letters
    from verify.machine import check_machine

    images, labels = letters("EV", per_class=6, seed=0)
    machine = MarkI(MarkIParams(weight_range=(-3, 3), n_a_units=128, n_r_units=1),
                    seed=0)
    report = check_machine(machine, images, labels, orders=1, exact_budget=1, **options)
    return machine, images, labels, report


def train(machine, X, labels, **kw):
    """``machine.train`` on 0/1 figures, without the small-task warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return machine.train(np.asarray(X).astype(float), labels, **kw)


@st.composite
def binary_tasks(draw, widths=(2, 3, 4, 5), n_max=6):
    """0/1 figures (one per row, ``d`` in ``widths``) and 0/1 labels."""
    d = draw(st.sampled_from(widths))
    n = draw(st.integers(2, n_max))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=d, max_size=d),
                               min_size=n, max_size=n)))
    labels = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    return X, labels
