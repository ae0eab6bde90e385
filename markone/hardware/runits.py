"""The 8 R-units and their potentiometer weights.

Each R-unit sums the weights of the active A-units it is wired to and answers
``sign(sum)``. A weight is a potentiometer: it moves in whole motor steps (when
``quantize``) and stops at the ends of ``weight_range``. :meth:`RUnits.plan` turns the
increments the trainer asks for into the moves the potentiometers can make: it rounds
them to steps and counts the requested moves that an end stop blocked.

Examples
--------
>>> import numpy as np
>>> from markone.hardware.params import MarkIParams
>>> r = RUnits(MarkIParams(n_a_units=3, n_r_units=1, weight_range=(-1, 1)))
>>> move = r.plan(np.array([0]), np.array([[2.0, -1.0, 0.0]]))
>>> move.new.tolist(), move.blocked.tolist(), move.steps.tolist()
([[1.0, -1.0, 0.0]], [1], [1.0])
>>> r.commit(move); r.scores(np.array([1, 1, 1])).tolist()
[0.0]
"""

from __future__ import annotations

import dataclasses

import numpy as np

from markone._validation import as_generator

__all__ = ["RUnits", "Move", "source_set_mask"]


@dataclasses.dataclass(frozen=True, eq=False)
class Move:
    """What the motors will do for one reinforcement.

    ``rows`` are the R-units that move, ``old``/``new`` their weights before and after,
    ``blocked`` the requested moves an end stop cut short (per row) and ``steps`` the
    largest move of each row in motor steps (it sets that row's motor time).
    """

    rows: np.ndarray
    old: np.ndarray
    new: np.ndarray
    blocked: np.ndarray
    steps: np.ndarray


def source_set_mask(n_r, n_a, seed=None):
    """``(n_r, n_a)`` bool mask giving each R-unit a disjoint random source set
    (sizes differ by at most one; 64 each for 512 A-units and 8 R-units)."""
    perm = as_generator(seed).permutation(n_a)
    mask = np.zeros((n_r, n_a), dtype=bool)
    for r, part in enumerate(np.array_split(perm, n_r)):
        mask[r, part] = True
    return mask


class RUnits:
    """The R-units' weights (``n_r_units x n_a_units``, in motor steps) and wiring.

    Parameters
    ----------
    params : MarkIParams
    seed : None, int or Generator
        Draws the source sets (``topology="source_sets"``) and the stochastic rounding
        of fractional increments (the gamma rule with ``quantize=True``).
    """

    def __init__(self, params, seed=None):
        self.params = params
        self.rng = as_generator(seed)
        n_r, n_a = params.n_r_units, params.n_a_units
        self.mask = (source_set_mask(n_r, n_a, self.rng)
                     if params.topology == "source_sets" else None)
        self.weights = np.zeros((n_r, n_a))

    def scores(self, a):
        """Weighted sums of the active A-units ``a`` (0/1): one score per R-unit."""
        return self.weights @ a

    def plan(self, rows, delta):
        """The :class:`Move` that realises increments ``delta`` (one row per R-unit in
        ``rows``) within the potentiometers' steps and end stops."""
        p = self.params
        old = self.weights[rows]
        request = delta
        if p.quantize and not np.array_equal(request, np.round(request)):
            # unbiased (stochastic) rounding to whole steps: the gamma rule's fractions
            request = np.floor(request + self.rng.random(request.shape))
        new = old + request
        if p.weight_range is not None:
            stopped = np.clip(new, *p.weight_range)
            blocked = ((stopped != new) & (request != 0)).sum(axis=1)
            new = stopped
        else:
            blocked = np.zeros(len(rows), dtype=np.int64)
        steps = np.abs(new - old).max(axis=1) if new.size else np.zeros(len(rows))
        return Move(rows, old, new, blocked, steps)

    def commit(self, move):
        """Set the weights the motors have turned to."""
        self.weights[move.rows] = move.new
