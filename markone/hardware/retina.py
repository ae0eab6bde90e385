"""The camera and the 20x20 retina of cadmium-sulphide photocells (the S-units).

Each cell follows its light with a first-order lag: time constant
``photocell_rise_s`` when the light rises, ``photocell_decay_s`` when it falls. The
lag is solved analytically (exponential approach), never time-stepped: after ``t``
seconds a cell at level ``L0`` under light ``T`` reads ``T + (L0 - T) exp(-t / tau)``.
The machine waits until every cell is within ``settle_tolerance`` of its light, or
only ``exposure_s`` when that is set: a figure shown too soon after the last one is
read as a blend of the two. An S-unit is on when its cell reads ``>= s_threshold``.

Examples
--------
>>> import numpy as np, simpy
>>> from markone.hardware.params import MarkIParams
>>> env = simpy.Environment()
>>> retina = Retina(env, MarkIParams(retina_shape=(1, 2), n_excitatory=1,
...                                   n_inhibitory=1, n_a_units=1))
>>> round(retina.settle_time_s(np.array([1.0, 0.0])), 4)   # 20 ms * ln(1 / 0.05)
0.0599
>>> proc = env.process(retina.show(np.array([1.0, 0.0])))
>>> s_units = env.run(proc)
>>> s_units.tolist(), round(env.now, 4)
([1, 0], 0.0599)
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import numpy as np

from markone._internal.validation import as_generator
from markone._internal.typing import ArrayLike, Seed
from markone.hardware.trial import (PHYSICS, PLAIN, look, physics_of, settle, settle_wait,
                                    trials_of)

if TYPE_CHECKING:
    import simpy

    from markone.hardware.params import MarkIParams

__all__ = ["Retina", "approach"]

#: no S-state to compare the settled cells with (:func:`~markone.hardware.trial.settle`)
_NO_STATE = np.zeros(0, dtype=np.uint8)


def approach(level: ArrayLike, light: ArrayLike, dt: float, rise_s: float, decay_s: float
             ) -> np.ndarray:
    """Cell levels after ``dt`` seconds of first-order lag towards ``light``.

    The closed form of the lag: ``light + (level - light) * exp(-dt / tau)``, with
    ``tau = rise_s`` where the light is above the level, else ``decay_s``; a new array
    (computed by the trial kernel's :func:`~markone.hardware.trial.settle`).

    >>> approach(np.array([0.0, 1.0]), np.array([1.0, 0.0]), 0.1, 0.1, 0.0).round(3)
    array([0.632, 0.   ])
    """
    level, light = np.broadcast_arrays(np.asarray(level, dtype=np.float64),
                                       np.asarray(light, dtype=np.float64))
    out = level.copy()
    lag = np.zeros(1, dtype=PHYSICS).view(np.recarray)   # only its time constants
    lag["rise_s"], lag["decay_s"] = rise_s, decay_s
    PLAIN.kernel(settle, trials_of(out.size))(
        out.reshape(-1), np.ascontiguousarray(light).reshape(-1), float(dt), lag,
        _NO_STATE)
    return out


class Retina:
    """The photocell array as a SimPy component holding ``env``.

    Parameters
    ----------
    env : simpy.Environment
    params : MarkIParams
    seed : None, int or numpy.random.Generator
        Source of the photocell noise (used only when ``photocell_noise_sd > 0``).
    """

    def __init__(self, env: simpy.Environment, params: MarkIParams, seed: Seed = None
                 ) -> None:
        self.env = env
        self.params = params
        self.rng = as_generator(seed)
        n = params.retina_shape[0] * params.retina_shape[1]
        self.level = np.zeros(n)   # what each cell reads now
        self.light = np.zeros(n)   # what the camera currently puts on each cell
        #: the physics as the trial kernel reads it
        self.physics = physics_of(params)
        self._t = env.now

    def settle_time_s(self, light: np.ndarray) -> float:
        """Seconds until every cell is within ``settle_tolerance`` of ``light``."""
        gap = np.asarray(light, dtype=np.float64) - self.level
        return PLAIN.kernel(settle_wait)(float(np.max(gap, initial=-np.inf)),
                           float(np.max(-gap, initial=-np.inf)), self.physics, math.nan)

    def show(self, image: np.ndarray, exposure_s: float | None = None
             ) -> Generator[Any, Any, np.ndarray]:
        """SimPy process: put ``image`` (flat light levels in [0, 1]) on the retina,
        wait until it settles (or ``exposure_s``), and return the S-units (uint8 0/1)."""
        s = yield from self.read(image, exposure_s)
        return s.astype(np.uint8)

    def read(self, image: np.ndarray, exposure_s: float | None = None
             ) -> Generator[Any, Any, np.ndarray]:
        """SimPy process behind :meth:`show`: one timeout (the settling time or the
        exposure), the photocells in closed form on both sides of it (the trial
        kernel's :func:`~markone.hardware.trial.look`, :func:`~.trial.settle_wait` and
        :func:`~.trial.settle`); returns the S-units as a bool array (the machine's
        key to its A-unit patterns)."""
        p, ph = self.params, self.physics
        light = np.asarray(image, dtype=np.float64)
        if p.photocell_noise_sd > 0:
            light = np.clip(image + self.rng.normal(0.0, p.photocell_noise_sd, image.shape),
                            0.0, 1.0)
        if self.level.dtype != np.float64 or not self.level.flags.writeable:
            self.level = np.array(self.level, dtype=np.float64)
        rise, fall = PLAIN.kernel(look)(self.level, np.asarray(self.light, dtype=np.float64), light,
                          float(self.env.now - self._t), ph, self.level)
        self.light, self._t = light, self.env.now
        if exposure_s is None:
            exposure_s = p.exposure_s
        yield self.env.timeout(PLAIN.kernel(settle_wait)(
            rise, fall, ph, math.nan if exposure_s is None else float(exposure_s)))
        PLAIN.kernel(settle)(self.level, light, float(self.env.now - self._t), ph,
                             _NO_STATE)
        self._t = self.env.now
        return self.level >= p.s_threshold

    def settled(self, images: ArrayLike) -> np.ndarray:
        """S-units of each figure once settled, without noise: ``(n, n_s)`` uint8."""
        return (np.asarray(images) >= self.params.s_threshold).astype(np.uint8)
