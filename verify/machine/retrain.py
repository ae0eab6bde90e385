"""Retrain the machine itself on a stream: what a blocking claim predicts, checked.

A claim that an R-unit never learns gives a ``prefix`` shown once and a ``cycle`` of
every figure; :func:`retrain_on_stream` trains a :class:`~markone.hardware.MarkI` on them
(retrained from zero) and says whether its potentiometers come back after each cycle.

Examples
--------
Two photocells, each wired to its own A-unit; with end stops at (0, 1) figure "a"
(target -1) is never corrected, so the cycle of both figures never learns:

>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
...                 max_fanout=1, theta=1, n_r_units=1, weight_range=(0, 1))
>>> out = retrain_on_stream(MarkI(p, seed=0), np.array([[1, 0], [0, 1]]), ["a", "b"], [],
...                     [0, 1])
>>> out["returns"], out["converged"], out["mistakes_per_epoch"]
(True, False, [1, 1, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING
import warnings

import numpy as np

from markone._internal.typing import ArrayLike, JSONDict
from markone._internal.validation import check_int_at_least
from markone.hardware.runits import r_unit_name

if TYPE_CHECKING:
    from markone.hardware import MarkI

__all__ = ["retrain_on_stream"]


def retrain_on_stream(machine: MarkI, images: ArrayLike, labels: ArrayLike,
                  prefix: Sequence[int], cycle: Sequence[int], *, passes: int = 3,
                  r_unit: int | None = None) -> JSONDict:
    """Show ``prefix + cycle`` once, then ``cycle`` ``passes`` times, on ``machine``
    (retrained from zero); return what a blocking claim predicts can be checked.

    Returns a dict: ``saturated`` (moves cut short, per R-unit), ``mistakes_per_epoch``
    of the cycle passes, ``returns`` (the weights after the cycle passes equal those
    after the first run: the machine is on a cycle) and ``converged``. A blocking
    claim is about one R-unit: with ``r_unit`` only its weights and its mistakes are
    judged (each cycle pass is then its own ``train`` call, and ``returns`` needs its
    weights back after every one); without it, the whole machine's.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = machine.train(images, labels, order=list(prefix) + list(cycle),
                              max_epochs=1)
        w = machine.weights
        if r_unit is None:
            more = machine.train(images, labels, order=list(cycle), max_epochs=passes,
                                 warm_start=True)
            return {"saturated": (first.saturated + more.saturated).tolist(),
                    "mistakes_per_epoch": list(more.mistakes_per_epoch),
                    "returns": bool(np.array_equal(machine.weights, w)),
                    "converged": bool(more.converged)}
        check_int_at_least(r_unit, "r_unit", 0)
        check_int_at_least(passes, "passes", 1)
        if r_unit >= len(w):
            raise ValueError(f"r_unit={r_unit} is out of range: the machine has "
                             f"{len(w)} R-units, indices 0 to {len(w) - 1} "
                             f"({r_unit_name(0)} to {r_unit_name(len(w) - 1)})")
        saturated, mistakes, returns = first.saturated.copy(), [], True
        for _ in range(passes):
            run = machine.train(images, labels, order=list(cycle), max_epochs=1,
                                warm_start=True)
            saturated += run.saturated
            mistakes.append(int(run.mistakes[r_unit]))
            returns &= bool(np.array_equal(machine.weights[r_unit], w[r_unit]))
    return {"saturated": saturated.tolist(), "mistakes_per_epoch": mistakes,
            "returns": returns, "converged": mistakes[-1] == 0}
