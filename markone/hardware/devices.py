"""Device variation: potentiometers that are not all alike, nor alike every time.

The Mark I's potentiometers are modelled as ideal by default: every motor step turns
every potentiometer by one step. :class:`Devices` holds what is not ideal when a
:class:`~markone.hardware.MarkIParams` turns it on (its fields
:data:`~markone.hardware.params.VARIATION_FIELDS`, named as in IBM's aihwkit where
they fit): each potentiometer's own step (``step_dtod``, drawn once per machine from its
seed), the noise of each move (``step_std``), up/down asymmetry (``up_down``),
stiction (``sticky_steps``, ``sticky_prob``) and a deterministic creep
(``drift_rate``). The arithmetic is the trial kernel's
(:func:`~markone.hardware.trial.device_moves`, :func:`~markone.hardware.trial.creep`);
this module draws the random numbers and keeps the time of the last creep.

These are modelling assumptions, not facts about the 1960 machine: ``markone machine
params`` labels them ``assumed``. A machine without variation never builds a
:class:`Devices` and draws nothing, so it is today's machine bit for bit; one with
variation runs every figure on the per-figure path (the compiled segments assume
whole steps).

Examples
--------
>>> import numpy as np
>>> from markone.hardware.params import MarkIParams
>>> d = Devices.of(MarkIParams(n_a_units=3, n_r_units=1, step_dtod=0.2),
...                np.random.default_rng(0))
>>> d.gains.round(3).tolist()                      # drawn once, per potentiometer
[[1.025, 0.974, 1.128]]
>>> d.moves(np.array([0]), np.array([[1.0, -1.0, 0.0]]), np.random.default_rng(1)
...         ).round(3).tolist()
[[1.025, -0.974, 0.0]]
>>> Devices.of(MarkIParams(), np.random.default_rng(0)) is None   # ideal ones
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from markone.hardware.trial import PLAIN, creep, device_moves

if TYPE_CHECKING:
    from markone.hardware.params import MarkIParams

__all__ = ["Devices"]


class Devices:
    """The device variation of one machine's potentiometers (build it with
    :meth:`of`).

    Attributes
    ----------
    gains : ndarray (n_r_units, n_a_units)
        Each potentiometer's turn per motor step, in nominal steps (all 1 without
        ``step_dtod``).
    last_s : float
        The machine time up to which the potentiometers have crept.
    """

    def __init__(self, params: MarkIParams, gains: np.ndarray) -> None:
        self.params = params
        self.gains = gains
        self.last_s = 0.0

    @classmethod
    def of(cls, params: MarkIParams, rng: np.random.Generator) -> Devices | None:
        """The variation ``params`` asks for, each potentiometer's step drawn from
        ``rng`` (only with ``step_dtod``); None when every device is ideal."""
        if not params.variation:
            return None
        shape = (params.n_r_units, params.n_a_units)
        gains = np.ones(shape)
        if params.step_dtod > 0:
            gains = np.maximum(1.0 + params.step_dtod * rng.standard_normal(shape), 0.0)
        return cls(params, gains)

    def moves(self, rows: np.ndarray, request: np.ndarray,
              rng: np.random.Generator) -> np.ndarray:
        """What the potentiometers of R-units ``rows`` turn when asked for
        ``request`` steps (one row per R-unit of ``rows``), before the end stops; the
        per-move noise and stiction are drawn from ``rng`` (only when they are on)."""
        p = self.params
        # C-ordered and writeable: the one layout the kernel is compiled for (a read-only
        # request, e.g. a caller's frozen array, was a second compile, issue 37)
        request = np.require(request, np.float64, ["C", "W"])
        noise = (rng.standard_normal(request.shape) if p.step_std > 0
                 else np.zeros(request.shape))
        stuck = (rng.random(request.shape) < p.sticky_prob if p.sticky_prob > 0
                 else np.zeros(request.shape, dtype=np.bool_))
        out = np.empty(request.shape)
        PLAIN.kernel(device_moves)(
            request, np.ascontiguousarray(self.gains[rows]), float(p.up_down),
            float(p.step_std), noise, float(p.sticky_steps), stuck, out)
        return out

    def creep(self, weights: np.ndarray, mask: np.ndarray | None, now_s: float) -> None:
        """In place: every potentiometer of ``weights`` that is wired (``mask``, the
        R-units' source sets; None: all) crept at ``drift_rate`` from :attr:`last_s`
        to ``now_s``, up to its end stops."""
        p = self.params
        dt, self.last_s = now_s - self.last_s, now_s
        if p.drift_rate == 0 or not dt > 0:
            return
        lo, hi = (-np.inf, np.inf) if p.weight_range is None else p.weight_range
        wired = (np.ones(weights.shape, dtype=np.bool_) if mask is None
                 else np.asarray(mask, dtype=np.bool_))
        PLAIN.kernel(creep)(weights, wired, float(p.drift_rate * dt), float(lo),
                            float(hi))
