"""The mathematics behind the machine's claims, free of the report and its registry.
Nothing here imports :mod:`verify.machine.claims` or the report.

Modules
-------
``_ball``, ``_cap``, ``_push``, ``_reach``
    how far each weight of an R-unit can go: the Novikoff ball per weight, the cap at
    the move that pushes it, a beam search for a stream that pushes it, and both ends
    together (``docs/theory/machine-balls.md``).
``_clipped``, ``_projected``
    the R-unit's update with end stops in exact integer units, and when clipping
    provably never blocks learning (:func:`check_projected_ball`).
``_stop_searches``
    searches for a stream that reaches an end stop (greedy, Z3).
``_forced``, ``_gamma_chain``, ``rules``
    the forced and gamma rules decided exactly, and the summation-noise model
    (:func:`flip_probability`, :func:`drift_spread`).
``worst_case``
    what a trained machine tolerates, exactly: potentiometer error, dead and stuck
    A-units, and both at once (``docs/breaking-the-machine.md``).
``_walk_search``, ``_subplans``
    the searches behind the random-walk drift horizon, and the tasks of the sub-plans
    of a fault plan.
"""

__all__ = []  # type: list[str]
