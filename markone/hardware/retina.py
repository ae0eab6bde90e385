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
from numba import njit

from markone._internal.validation import as_generator
from markone._internal.typing import ArrayLike, Seed

if TYPE_CHECKING:
    import simpy

    from markone.hardware.params import MarkIParams

__all__ = ["Retina", "approach"]


def approach(level: ArrayLike, light: ArrayLike, dt: float, rise_s: float, decay_s: float
             ) -> np.ndarray:
    """Cell levels after ``dt`` seconds of first-order lag towards ``light``.

    The closed form of the lag: ``light + (level - light) * exp(-dt / tau)``, with
    ``tau = rise_s`` where the light is above the level, else ``decay_s``; a new array.

    >>> approach(np.array([0.0, 1.0]), np.array([1.0, 0.0]), 0.1, 0.1, 0.0).round(3)
    array([0.632, 0.   ])
    """
    level, light = np.broadcast_arrays(np.asarray(level, dtype=np.float64),
                                       np.asarray(light, dtype=np.float64))
    out = level.copy()
    _lag(out.reshape(-1), np.ascontiguousarray(light).reshape(-1),
         _remains(float(dt), float(rise_s)), _remains(float(dt), float(decay_s)))
    return out


# The scalar helpers below are compiled so that the machine's compiled segments
# (markone.hardware.segments) and this per-figure path run the very same code: the
# same exp and log, the same operations in the same order, bit for bit.
@njit(cache=True, nogil=True)
def _remains(dt, tau):
    """Fraction of a step still to go after ``dt`` seconds (time constant ``tau``)."""
    return math.exp(-dt / tau) if tau > 0 else 0.0


# Compiled without fast-math: the same IEEE operations, in the same order, as
# ``light + (level - light) * np.where(light > level, up, down)`` (bit for bit).
@njit(inline="always")
def _lag_cell(level, light, up, down):
    """One cell at ``level`` after its lag towards ``light``, the factors ``up``
    (light above the level) and ``down`` precomputed."""
    return light + (level - light) * (up if light > level else down)


@njit(cache=True, nogil=True)
def _lag(level, light, up, down):
    """In place: every cell ``level[i]`` after its lag towards ``light[i]``."""
    for i in range(level.size):
        level[i] = _lag_cell(level[i], light[i], up, down)


@njit(cache=True, nogil=True)
def _gaps(level, light):
    """``(max(light - level), max(level - light))``: the worst rise and fall."""
    rise = fall = -np.inf
    for i in range(level.size):
        rise = max(rise, light[i] - level[i])
        fall = max(fall, level[i] - light[i])
    return rise, fall


@njit(cache=True, nogil=True)
def _wait_for(rise, fall, rise_s, decay_s, tolerance):
    """Seconds until the worst rise ``rise`` and the worst fall ``fall`` are within
    ``tolerance`` (each needs ``tau * log(gap / tolerance)``)."""
    wait = 0.0
    if rise_s > 0 and rise > tolerance:
        wait = max(wait, rise_s * math.log(rise / tolerance))
    if decay_s > 0 and fall > tolerance:
        wait = max(wait, decay_s * math.log(fall / tolerance))
    return wait


@njit(cache=True, nogil=True)
def _settle_wait(level, light, rise_s, decay_s, tolerance):
    """Seconds until every cell at ``level`` is within ``tolerance`` of ``light``."""
    if not (rise_s > 0 or decay_s > 0):
        return 0.0   # instant cells
    rise, fall = _gaps(level, light)
    return _wait_for(rise, fall, rise_s, decay_s, tolerance)


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
        self._t = env.now

    def _catch_up(self):
        """Bring every cell's level to the clock, in place (closed form)."""
        p = self.params  # also at dt == 0: an instant cell jumps to its light
        dt = float(self.env.now - self._t)
        if self.level.dtype != np.float64 or not self.level.flags.writeable:
            self.level = np.array(self.level, dtype=np.float64)
        _lag(self.level, self.light, _remains(dt, float(p.photocell_rise_s)),
             _remains(dt, float(p.photocell_decay_s)))
        self._t = self.env.now

    def settle_time_s(self, light: np.ndarray) -> float:
        """Seconds until every cell is within ``settle_tolerance`` of ``light``."""
        p = self.params
        return _settle_wait(self.level, np.asarray(light, dtype=np.float64),
                           float(p.photocell_rise_s), float(p.photocell_decay_s),
                           float(p.settle_tolerance))

    def show(self, image: np.ndarray, exposure_s: float | None = None
             ) -> Generator[Any, Any, np.ndarray]:
        """SimPy process: put ``image`` (flat light levels in [0, 1]) on the retina,
        wait until it settles (or ``exposure_s``), and return the S-units (uint8 0/1)."""
        s = yield from self.read(image, exposure_s)
        return s.astype(np.uint8)

    def read(self, image: np.ndarray, exposure_s: float | None = None
             ) -> Generator[Any, Any, np.ndarray]:
        """SimPy process behind :meth:`show`: one timeout (the settling time or the
        exposure), the photocells in closed form on both sides of it; returns the
        S-units as a bool array (the machine's key to its A-unit patterns)."""
        p = self.params
        self._catch_up()
        light = image
        if p.photocell_noise_sd > 0:
            light = np.clip(image + self.rng.normal(0.0, p.photocell_noise_sd, image.shape),
                            0.0, 1.0)
        self.light = light
        if exposure_s is None:
            exposure_s = p.exposure_s
        wait = self.settle_time_s(light) if exposure_s is None else exposure_s
        yield self.env.timeout(wait)
        self._catch_up()
        return self.level >= p.s_threshold

    def settled(self, images: ArrayLike) -> np.ndarray:
        """S-units of each figure once settled, without noise: ``(n, n_s)`` uint8."""
        return (np.asarray(images) >= self.params.s_threshold).astype(np.uint8)
