"""A saved Mark I run in words: what ``markone machine show RUN.json`` prints.

:func:`describe_run` gives the machine (its parameters as changed from the defaults),
its faults named by what broke, the mistakes and machine time of every pass, and each
R-unit's mistakes, reinforcements, blocked moves and final weights.

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

import numpy as np

from markone.hardware.demo import format_minutes
from markone.hardware.params import MarkIParams
from markone.hardware.run import MachineRun
from markone.hardware.runits import r_unit_name

__all__ = ["describe_run"]


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
