"""What the theorems promise a given Mark I on a given task, and what breaks it.

The public face of the package: :func:`check_machine` proves or refutes, for each
R-unit of a :class:`~markone.hardware.MarkI`, that its task is learnable, that no end
stop cuts a move short and that the machine converges; :func:`recheck_report` confirms
a report from its evidence; :func:`minimal_faults` names a 1-minimal set of faults that
breaks a damaged machine's task. The user guide is ``docs/verify-machine.md``.

Modules
-------
``check``
    :func:`check_machine`: each R-unit's claims and the machine's, from the provers of
    each slot in their registered order.
``task``
    the task as the machine sees it: A-unit patterns, targets, integer units, hashes.
``report``, ``schema``
    the report: :class:`Claim`, :class:`RUnitReport`, :class:`MachineReport` and their
    JSON; its format read strictly (:func:`load_report`).
``claims``
    the registry (the slots of a report, and each kind of claim with its verdicts,
    provers and re-check) and one module per slot; its ``__init__`` registers them.
``recheck``
    :func:`recheck_report`: each claim of a report re-checked by its kind's re-check.
``theory``
    the mathematics behind the end-stop and convergence claims: balls, caps, pushes,
    clipped runs, the forced and gamma rules and their chains
    (``docs/theory/machine-claims.md``, ``docs/theory/machine-balls.md``).
``retrain``
    :func:`retrain_on_stream`: the machine itself retrained on a blocking stream.
``drift``, ``drift_walk``
    how long a trained machine stays right while its potentiometers drift: exactly
    for a bounded rate (:func:`drift_horizon`), with probability ``1 - delta`` for a
    random walk (:func:`walk_horizon`, and the retraining schedule).
``faults``
    :func:`minimal_faults`; exposures (:func:`exposure_limits`) and the noise model
    (:func:`flip_probability`) come from ``claims.timing`` and ``theory.rules``.

Examples
--------
>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
...                 max_fanout=1, theta=1, n_r_units=1, weight_range=(-1, 1))
>>> check_machine(MarkI(p, seed=0), np.array([[1, 0], [0, 1]]), ["a", "b"]).converges
True
"""

from verify.machine.theory._projected import ProjectedBall, check_projected_ball
from verify.machine.check import check_machine
from verify.machine.drift import DriftHorizon, drift_horizon
from verify.machine.drift_walk import RetrainingSchedule, WalkHorizon, walk_horizon
from verify.machine.faults import FaultMinimum, minimal_faults
from verify.machine.recheck import Recheck, recheck_report
from verify.machine.retrain import retrain_on_stream
from verify.machine.report import Claim, MachineReport, RUnitReport
from verify.machine.theory.rules import drift_spread, flip_probability
from verify.machine.schema import load_report
from verify.machine.task import machine_task
from verify.machine.claims.timing import exposure_limits

__all__ = ["check_machine", "MachineReport", "RUnitReport", "Claim", "machine_task",
           "exposure_limits", "retrain_on_stream", "minimal_faults", "FaultMinimum",
           "flip_probability", "drift_spread", "check_projected_ball",
           "ProjectedBall", "recheck_report", "Recheck", "load_report",
           "drift_horizon", "DriftHorizon", "walk_horizon", "WalkHorizon",
           "RetrainingSchedule"]
