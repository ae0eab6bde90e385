"""sims: the classic perceptron experiments, reproducible, resumable, distributable.

One module per experiment, each a small protocol (``NAME``, ``DEFAULTS``, ``tasks``,
``run_task``, ``combine``, ``plot``, ``run``) driven by :mod:`sims.runner`, which
appends every finished task durably to a log, resumes after any crash, and runs the
tasks in-process, in worker processes or on a Dask cluster with identical results.

========================  ==========================================================
``novikoff``              mistakes vs (R/gamma)^2 on 300 random separable datasets
``proof_quantities``      u.w_k >= k gamma and ||w_k|| <= sqrt(k) R after each mistake
``online_to_batch``       mistake rate vs exact error of the iterates, one pass
``averaging_noise``       last vs averaged vector under label noise, exact errors
``orthonormal_tight``     m orthonormal examples: exactly m mistakes
``xor_cycling``           XOR's bounded, periodic weight orbit
``shapes``                discs vs squares: separable when large, not when small
``iris``                  setosa vs versicolor exactly; three classes averaged
``intercept_cost``        the bound against the appended constant c
``mark1_letters``         the Mark I on letters: motor speed and end stops
``damage``                the Mark I with cut wires, dead A-units, stopped motors
``yield``                 certified yield: damaged machines decided exactly, with files
========================  ==========================================================

Run them with ``markone sim run NAME|all`` or :func:`sims.runner.run_experiment`. Each
lives in the module of its name, but ``yield`` (a Python keyword) in
:mod:`sims.certified_yield`.
"""

__all__ = []
