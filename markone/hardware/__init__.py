"""The Mark I Perceptron (1960) as a discrete-event machine built on SimPy.

One module per component: :mod:`~markone.hardware.retina` (camera and photocells),
:mod:`~markone.hardware.plugboard` (random S->A wiring, A-units),
:mod:`~markone.hardware.runits` (R-units and potentiometers),
:mod:`~markone.hardware.devices` (the potentiometers' device variation),
:mod:`~markone.hardware.motors`, :mod:`~markone.hardware.trainer`, and
:mod:`~markone.hardware.params` (every parameter with its provenance).
:class:`MarkI` puts them on one clock; :class:`MachineRun` is what training leaves;
:func:`run_fleet` trains many machines (:class:`MachineSpec`) on one task at once;
:class:`~markone.hardware.live.LiveSession` lets a person operate one figure by figure
(``markone machine console``, :mod:`~markone.console.server`).

>>> from markone.hardware import MarkI, MarkIParams
>>> MarkI(MarkIParams.ideal(), seed=0).params.motor_step_s
0.0
"""

from markone.hardware.fleet import FleetRun, MachineSpec, run_fleet
from markone.hardware.machine import MarkI, class_codes
from markone.hardware.params import MarkIParams, ParamRow
from markone.hardware.run import MachineRun, Presentation, PresentationLog
from markone.hardware.runits import numbered, r_unit_name

__all__ = ["MarkI", "MarkIParams", "MachineRun", "Presentation", "PresentationLog",
           "ParamRow", "class_codes", "MachineSpec", "FleetRun", "run_fleet",
           "r_unit_name", "numbered"]
