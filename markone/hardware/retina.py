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

import numpy as np

from markone._validation import as_generator

__all__ = ["Retina", "approach"]


def approach(level, light, dt, rise_s, decay_s):
    """Cell levels after ``dt`` seconds of first-order lag towards ``light``.

    >>> approach(np.array([0.0, 1.0]), np.array([1.0, 0.0]), 0.1, 0.1, 0.0).round(3)
    array([0.632, 0.   ])
    """
    keep = np.where(light > level, _remains(dt, rise_s), _remains(dt, decay_s))
    return light + (level - light) * keep


def _remains(dt, tau):
    """Fraction of a step still to go after ``dt`` seconds (time constant ``tau``)."""
    return math.exp(-dt / tau) if tau > 0 else 0.0


class Retina:
    """The photocell array as a SimPy component holding ``env``.

    Parameters
    ----------
    env : simpy.Environment
    params : MarkIParams
    seed : None, int or numpy.random.Generator
        Source of the photocell noise (used only when ``photocell_noise_sd > 0``).
    """

    def __init__(self, env, params, seed=None):
        self.env = env
        self.params = params
        self.rng = as_generator(seed)
        n = params.retina_shape[0] * params.retina_shape[1]
        self.level = np.zeros(n)   # what each cell reads now
        self.light = np.zeros(n)   # what the camera currently puts on each cell
        self._t = env.now

    def _catch_up(self):
        p = self.params  # also at dt == 0: an instant cell jumps to its light
        self.level = approach(self.level, self.light, self.env.now - self._t,
                              p.photocell_rise_s, p.photocell_decay_s)
        self._t = self.env.now

    def settle_time_s(self, light):
        """Seconds until every cell is within ``settle_tolerance`` of ``light``."""
        p = self.params
        gap = light - self.level
        wait = 0.0
        for tau, worst in ((p.photocell_rise_s, gap.max()), (p.photocell_decay_s, -gap.min())):
            if tau > 0 and worst > p.settle_tolerance:
                wait = max(wait, tau * math.log(worst / p.settle_tolerance))
        return wait

    def show(self, image, exposure_s=None):
        """SimPy process: put ``image`` (flat light levels in [0, 1]) on the retina,
        wait until it settles (or ``exposure_s``), and return the S-units (uint8 0/1)."""
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
        return (self.level >= p.s_threshold).astype(np.uint8)

    def settled(self, images):
        """S-units of each figure once settled, without noise: ``(n, n_s)`` uint8."""
        return (np.asarray(images) >= self.params.s_threshold).astype(np.uint8)
