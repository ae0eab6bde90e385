"""The motors that turn the potentiometers.

The motors of one reinforcement run in parallel: R-unit ``r``'s bank needs
``steps[r] * motor_step_s`` seconds (its largest move), and the motor phase ends when
the slowest bank stops. One SimPy timeout per motor phase (the slowest bank's run, so
the clock reads exactly what waiting for every bank would give), never one per
potentiometer.

Examples
--------
>>> import numpy as np, simpy
>>> env = simpy.Environment()
>>> motors = Motors(env, motor_step_s=0.2)
>>> proc = env.process(motors.turn(np.array([1.0, 3.0, 0.0])))
>>> seconds = env.run(proc)
>>> round(seconds, 6), round(env.now, 6)    # the slowest bank: 3 steps
(0.6, 0.6)
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
import simpy

from markone.hardware.trial import PLAIN, motor_seconds

__all__ = ["Motors"]


class Motors:
    """The motor banks, one per R-unit, as a SimPy component holding ``env``."""

    def __init__(self, env: simpy.Environment, motor_step_s: float) -> None:
        self.env = env
        self.motor_step_s = float(motor_step_s)

    def turn(self, steps: np.ndarray) -> Generator[Any, Any, float]:
        """SimPy process: run each bank for its largest move (``steps``, in motor
        steps) in parallel (the trial kernel's
        :func:`~markone.hardware.trial.motor_seconds`); return the motor phase's
        duration in seconds."""
        # rounding is monotone: max(s) * step == max(s * step), start + it likewise
        seconds = PLAIN.kernel(motor_seconds)(float(np.max(steps, initial=0.0)),
                                              self.motor_step_s)
        if not seconds > 0:
            return 0.0
        start = self.env.now
        yield self.env.timeout(seconds)
        return self.env.now - start
