"""Mark I runs in words: what ``markone machine show RUN.json`` and ``markone machine
fleet`` print.

:func:`describe_run` gives the machine (its parameters as changed from the defaults),
its faults named by what broke, the mistakes and machine time of every pass, and each
R-unit's mistakes, reinforcements, blocked moves and final weights.
:func:`fleet_tables` gives a fleet one table per varied parameter, and says which of
the quantities differ with it.

Examples
--------
>>> from markone._figures import letters
>>> from markone.hardware import MarkI, MarkIParams
>>> images, labels = letters("AB", per_class=2, seed=0)
>>> run = MarkI(MarkIParams(motor_step_s=0.5), seed=0).train(images, labels)
>>> print("\\n".join(describe_run(run).splitlines()[:8]))
Mark I run: 2 classes (A, B), seed 0, theta 2, rule error_correction
parameters: the defaults except motor_step_s=0.5
faults: none
training: 2 passes (converged), 8 presentations, machine time 4.6 s (about 5 seconds)
pass  figures with a mistake  figures misread  ends at (s)
1                          4                3          3.2
2                          0                0          4.6
R-unit  mistakes  reinforcements  blocked moves  weights (min..max)  nonzero  at end stops
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from markone._internal.io import percent
from markone.hardware.demo import format_minutes
from markone.hardware.params import MarkIParams
from markone.hardware.run import MachineRun
from markone.hardware.runits import r_unit_name

__all__ = ["describe_run", "fleet_tables"]


def describe_run(run: MachineRun) -> str:
    """A saved run as printable text (see the module doc for an example).

    Parameters
    ----------
    run : MachineRun
        A run, as :meth:`MarkI.train` returns it or :meth:`MachineRun.load` reads it.

    Returns
    -------
    str
        Lines: the machine, its parameters and faults, a table of passes and a table
        of R-units, and whether the per-presentation log was kept.
    """
    if not isinstance(run, MachineRun):
        raise TypeError(f"run must be a MachineRun, got {type(run).__name__}; read a "
                        "saved one with MachineRun.load(path).")
    lines = [f"Mark I run: {len(run.classes)} classes ({', '.join(map(str, run.classes))}"
             f"), seed {run.seed}, theta {run.theta}, rule {run.rule}",
             f"parameters: {_changed(run.params)}",
             f"faults: {'none' if run.faults is None else run.faults.describe()}",
             f"training: {run.epochs} passes ({'converged' if run.converged else 'not converged'}), "
             f"{run.n_presentations} presentations, machine time {run.sim_time_s:.1f} s "
             f"({format_minutes(run.sim_time_s)})"]
    lines += _table(("pass", "figures with a mistake", "figures misread", "ends at (s)"),
                    [(k + 1, m, e, f"{t:.1f}") for k, (m, e, t) in enumerate(zip(
                        run.mistakes_per_epoch, run.errors_per_epoch,
                        run.end_s_per_epoch))])
    lines += _table(("R-unit", "mistakes", "reinforcements", "blocked moves",
                     "weights (min..max)", "nonzero", "at end stops"),
                    [(r_unit_name(r), *row) for r, row in enumerate(_r_rows(run))])
    lines.append("log: " + ("not kept (train with --log to replay the run)"
                            if run.log is None else
                            f"{len(run.log)} presentations (`markone machine replay` "
                            "shows them)"))
    return "\n".join(lines)


def fleet_tables(fleet: Sequence[Any], varied: Sequence[str] = ()) -> str:
    """One table per varied parameter of a fleet (:func:`markone.hardware.run_fleet`):
    for each of its values, the mean over the machines that have it of the accuracy,
    the R-unit mistakes, the moves blocked by end stops and the machine time; then
    which of these differ with the parameter. No parameter: one row, ``all``, for the
    whole fleet.

    >>> from markone._figures import letters
    >>> from markone.hardware import MachineSpec, run_fleet
    >>> images, labels = letters("AB", per_class=1, seed=0)
    >>> fleet = run_fleet(MachineSpec.grid([0, 1], motor_step_s=[0.1, 0.5]), images,
    ...                   labels, presentations=20)
    >>> print(fleet_tables(fleet, ["motor_step_s"]))
    motor_step_s  machines  accuracy  R-unit mistakes  blocked moves  machine time (s)
    0.1                  2      100%              9.0            0.0               7.0
    0.5                  2      100%              9.0            0.0               7.8
    differs with motor_step_s: machine time (s)
    """
    tables = []
    for name in varied or ("fleet",):
        groups: dict[Any, list[Any]] = {}
        for f in fleet:
            key = getattr(f.spec.params, name) if varied else "all"
            groups.setdefault(key, []).append(f)
        rows = [(str(key), len(members),
                 percent(float(np.mean([f.accuracy for f in members]))),
                 f"{np.mean([f.run.mistakes.sum() for f in members]):.1f}",
                 f"{np.mean([f.run.saturated.sum() for f in members]):.1f}",
                 f"{np.mean([f.run.sim_time_s for f in members]):.1f}")
                for key, members in groups.items()]
        head = (name, "machines", "accuracy", "R-unit mistakes", "blocked moves",
                "machine time (s)")
        tables += _table(head, rows)
        if varied:
            differ = [head[c] for c in range(2, len(head))
                      if len({row[c] for row in rows}) > 1]
            tables.append(f"differs with {name}: "
                          + (", ".join(differ) if differ else "none of these"))
    return "\n".join(tables)


def _changed(params):
    """The parameters that differ from :class:`MarkIParams`' defaults, in words."""
    default = MarkIParams()
    changed = [f"{f.name}={getattr(params, f.name)!r}" for f in dataclasses.fields(params)
               if getattr(params, f.name) != getattr(default, f.name)]
    return "the defaults" + (f" except {', '.join(changed)}" if changed else "")


def _r_rows(run):
    """Per R-unit: mistakes, reinforcements, blocked moves, weight range, nonzero
    weights and weights resting on an end stop (other than one at zero)."""
    w = run.weights if run.weight_mask is None else np.where(run.weight_mask,
                                                             run.weights, 0.0)
    wr = run.params.weight_range
    for r in range(w.shape[0]):
        at_stop = "-" if wr is None else int(np.isin(w[r], [v for v in wr if v]).sum())
        yield (int(run.mistakes[r]), int(run.reinforcements[r]), int(run.saturated[r]),
               f"{w[r].min():g}..{w[r].max():g}", int(np.count_nonzero(w[r])), at_stop)


def _table(head, rows):
    """Right-aligned columns under ``head`` (the first column left-aligned)."""
    cells = [tuple(map(str, head)), *(tuple(map(str, r)) for r in rows)]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                      for i, (c, w) in enumerate(zip(cell, widths))).rstrip()
            for cell in cells]
