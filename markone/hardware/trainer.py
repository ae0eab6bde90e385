"""The trainer: which R-units to reinforce, and by how much.

Every decision and increment comes from :mod:`markone.online`, the single online
update rule of the learner core (the decision through the trial kernel's
:func:`~markone.hardware.trial.decide`, which compiles ``online.signed_mistake``); the
machine only realises it with motors.

``"error_correction"`` (R-controlled alpha system, the default)
    reinforce an R-unit when ``online.is_mistake(score, target)``; active A-units move
    by ``online.increment(a, target, eta)``.
``"forced"`` (S-controlled)
    the trainer forces the correct response on every figure: every R-unit is
    reinforced towards its target, right or wrong.
``"gamma"``
    error-driven like alpha, but the inactive A-units of the R-unit lose what the
    active ones gain (the increment of ``a`` minus its mean), so the total is conserved.

Examples
--------
>>> import numpy as np
>>> t = Trainer("error_correction", eta=1.0)
>>> mistakes, rows, delta = t.decide(np.array([0.0, 2.0]), np.array([1, 1]),
...                                  np.array([1, 0, 1]))
>>> mistakes.tolist(), rows.tolist(), delta.tolist()
([True, False], [0], [[1.0, 0.0, 1.0]])
>>> Trainer("gamma").decide(np.array([0.0]), np.array([-1]), np.array([1, 0]))[2].tolist()
[[-0.5, 0.5]]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from markone import online
from markone._internal.validation import check_choice
from markone.hardware.params import RULES
from markone.hardware.trial import PLAIN, decide

if TYPE_CHECKING:
    from markone.hardware.plugboard import Pattern

__all__ = ["Trainer"]

#: How many (pattern, target) increments a trainer keeps (8 x 512 floats each).
INCREMENT_CACHE = 512


class Trainer:
    """Decides reinforcements with rule ``rule`` and step ``eta`` (motor steps).

    ``mask`` (``n_r x n_a`` bool, optional) restricts each R-unit to its source set.
    """

    def __init__(self, rule: str = "error_correction", eta: float = 1.0,
                 mask: np.ndarray | None = None) -> None:
        self.rule = check_choice(rule, "rule", RULES)
        self.eta = eta
        self.mask = mask
        #: every increment is a whole number of motor steps (no rounding to plan)
        self.whole = self.rule != "gamma" and float(eta).is_integer()
        self._increments: dict[Any, Any] = {}   # (pattern, target) -> every R-unit's increment

    def decide(self, scores: np.ndarray, target: np.ndarray, a: np.ndarray,
               pattern: Pattern | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(mistakes, rows, delta)``: which R-units answered wrongly, which
        are reinforced, and their requested increments (one row per reinforced unit).

        ``pattern`` (a :class:`~markone.hardware.plugboard.Pattern` of ``a``) supplies
        the float inputs computed once per distinct pattern; the result is the same.
        """
        n_r = len(scores)
        mistakes, rows = np.empty(n_r, dtype=np.bool_), np.empty(n_r, dtype=np.int64)
        rows = rows[:PLAIN.kernel(decide)(
            np.asarray(scores, dtype=np.float64), np.asarray(target, dtype=np.int64),
            self.rule == "forced", mistakes, rows)]
        if not rows.size:
            return mistakes, rows, np.zeros((0, len(a)))
        if pattern is not None and self.rule != "gamma":
            return mistakes, rows, self._all_increments(pattern, target)[rows]
        if pattern is None:
            x = a.astype(np.float64)[None, :]   # broadcasts against the reinforced rows
            if self.mask is not None:
                x = x * self.mask[rows]
        else:
            x = pattern.x if self.mask is None else pattern.masked(self.mask)[rows]
        if self.rule == "gamma":
            own = (self.mask[rows].sum(axis=1, keepdims=True) if self.mask is not None
                   else len(a))
            x = x - x.sum(axis=1, keepdims=True) / own
            if self.mask is not None:
                x = x * self.mask[rows]
        delta = online.increment(x, target[rows, None], self.eta)
        return mistakes, rows, delta

    def _all_increments(self, pattern, target):
        """``online.increment`` for every R-unit at once on a cached ``pattern``:
        row ``r`` is what R-unit ``r`` gets when it is reinforced (computed once per
        pattern and target, at most ``INCREMENT_CACHE`` of them kept)."""
        key = (pattern, target.tobytes())
        inc = self._increments.get(key)
        if inc is None:
            if len(self._increments) >= INCREMENT_CACHE:
                self._increments.clear()
            x = pattern.x if self.mask is None else pattern.masked(self.mask)
            inc = self._increments[key] = online.increment(x, target[:, None], self.eta)
            inc.flags.writeable = False
        return inc
