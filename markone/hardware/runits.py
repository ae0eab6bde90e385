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
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from markone._internal.jit import kernel, plain_form
from markone._internal.typing import Seed
from markone._internal.validation import as_generator
from markone.hardware.devices import Devices
from markone.hardware.trial import PLAIN, _stopped, score, turn_units

if TYPE_CHECKING:
    from markone.hardware.params import MarkIParams

__all__ = ["RUnits", "Move", "r_unit_name", "numbered", "source_set_mask",
           "stochastic_round"]


def r_unit_name(k: int) -> str:
    """The name a person reads for R-unit ``k`` (a 0-based index): ``R1`` ... ``R8``.

    Every human-facing text (the console, the demo, figures, ``markone verify machine``
    and its ``--recheck``) names R-units this way; JSON keeps the 0-based index (the
    field ``r_unit``).

    Parameters
    ----------
    k : int
        The R-unit's 0-based index.

    Returns
    -------
    str
        ``"R"`` followed by ``k + 1``.

    Examples
    --------
    >>> r_unit_name(0), r_unit_name(7)
    ('R1', 'R8')
    """
    return f"R{int(k) + 1}"


def numbered(word: str, k: int | Sequence[int]) -> str:
    """The words a person reads for part ``k`` (a 0-based index) of the machine, or
    for several: ``word`` and the number counted from 1.

    Photocells, S-units, A-units and the figures of a task are named this way in every
    message (docs/command-line.md, "How things are numbered"); fault plans, runs and
    reports keep the 0-based index (``"a_unit": 3`` is A-unit 4).

    Parameters
    ----------
    word : str
        The part's name: ``"A-unit"``, ``"S-unit"``, ``"photocell"``, ``"figure"``.
    k : int or sequence of int
        0-based index, or indices (named in the plural, in the order given).

    Returns
    -------
    str

    Examples
    --------
    >>> numbered("A-unit", 0), numbered("figure", [2, 0, 5]), numbered("S-unit", [7])
    ('A-unit 1', 'figures 3, 1 and 6', 'S-unit 8')
    """
    if isinstance(k, (int, np.integer)):
        return f"{word} {int(k) + 1}"
    names = [str(int(i) + 1) for i in k]
    if not names:
        return f"no {word}s"
    if len(names) == 1:
        return f"{word} {names[0]}"
    return f"{word}s {', '.join(names[:-1])} and {names[-1]}"


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


@kernel()
def _move(weights, rows, request, lo, hi, old, new, blocked, steps):
    """Fill ``old``/``new`` (the rows' weights before and after the end stops),
    ``blocked`` (requested moves an end stop cut short) and ``steps`` (each row's
    largest move): the trial kernel's :func:`~markone.hardware.trial.turn_units` on
    every potentiometer of each row. The old weights are copied entry by entry:
    assigning a row makes numba compile its shape-mismatch message too (string
    formatting, some 2 s in each process compiling it, issue 37)."""
    units = np.arange(weights.shape[1])
    for k in range(rows.size):
        for j in range(weights.shape[1]):
            old[k, j] = weights[rows[k], j]
        blocked[k], steps[k] = turn_units(weights[rows[k]], units, request[k], lo, hi,
                                          new[k])


@plain_form(_move)
def _move_rows(weights, rows, request, lo, hi, old, new, blocked, steps):
    old[...] = weights[rows]
    wanted = old + request
    new[...] = _stopped(wanted, lo, hi)
    blocked[...] = np.count_nonzero((new != wanted) & (request != 0), axis=1)
    steps[...] = np.fmax.reduce(np.abs(new - old), axis=1, initial=0.0)


def stochastic_round(request: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Unbiased rounding to whole steps with uniform draws ``u`` in [0, 1): a
    fractional entry ``x`` becomes ``floor(x + u)`` (``floor(x) + 1`` with probability
    ``x - floor(x)``); a whole entry stays as it is.

    ``floor(x + u)`` alone rounds ``x + u`` first, and turns a whole ``x`` into
    ``x + 1`` when ``u`` is within half an ulp of ``x`` below 1 (at ``x = 10^6`` about
    one draw in 10^10).

    >>> stochastic_round(np.array([2.0, 2.25, -0.5]), np.array([1 - 2**-53, 0.8, 0.5]))
    array([2., 3., 0.])
    """
    whole = np.floor(request)
    return np.where(request == whole, request, np.floor(request + u))


def source_set_mask(n_r: int, n_a: int, seed: Seed = None) -> np.ndarray:
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
        Draws the source sets (``topology="source_sets"``), then each
        potentiometer's own step (``step_dtod``), and the stochastic rounding of
        fractional increments (the gamma rule with ``quantize=True``) and the
        per-move device variation.

    Attributes
    ----------
    devices : Devices or None
        The potentiometers' device variation (:mod:`markone.hardware.devices`);
        None when every device is ideal.
    """

    def __init__(self, params: MarkIParams, seed: Seed = None) -> None:
        self.params = params
        self.rng = as_generator(seed)
        n_r, n_a = params.n_r_units, params.n_a_units
        self.mask = (source_set_mask(n_r, n_a, self.rng)
                     if params.topology == "source_sets" else None)
        self.devices = Devices.of(params, self.rng)
        self.weights = np.zeros((n_r, n_a))

    def scores(self, a: np.ndarray) -> np.ndarray:
        """Weighted sums of the active A-units ``a`` (0/1): one score per R-unit,
        the trial kernel's :func:`~markone.hardware.trial.score`. (The machine asks
        its cached :class:`~markone.hardware.plugboard.Pattern`, which gives the same
        numbers.)"""
        out = np.empty(self.weights.shape[0])
        PLAIN.kernel(score)(self.weights, np.flatnonzero(a), out)
        return out

    def plan(self, rows: np.ndarray, delta: np.ndarray, whole: bool = False) -> Move:
        """The :class:`Move` that realises increments ``delta`` (one row per R-unit in
        ``rows``) within the potentiometers' steps and end stops. ``whole=True``
        promises whole-step increments (skips the check for fractions)."""
        p = self.params
        request = delta
        if p.quantize and not whole and not np.array_equal(request, np.round(request)):
            request = stochastic_round(request, self.rng.random(request.shape))
        lo, hi = (-np.inf, np.inf) if p.weight_range is None else p.weight_range
        shape = (len(rows), self.weights.shape[1])
        if self.devices is not None:
            request = self.devices.moves(rows, np.broadcast_to(request, shape), self.rng)
        old, new = np.empty(shape), np.empty(shape)
        blocked, steps = np.empty(len(rows), dtype=np.int64), np.empty(len(rows))
        if request.shape != shape or request.dtype != np.float64 \
                or not request.flags.c_contiguous:
            request = np.ascontiguousarray(np.broadcast_to(request, shape),
                                           dtype=np.float64)
        PLAIN.kernel(_move)(self.weights, np.asarray(rows, dtype=np.int64), request,
                            float(lo), float(hi), old, new, blocked, steps)
        return Move(rows, old, new, blocked, steps)

    def commit(self, move: Move) -> None:
        """Set the weights the motors have turned to."""
        self.weights[move.rows] = move.new
