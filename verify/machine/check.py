"""check_machine: what the theorems promise a given Mark I on a given task.

For each R-unit :func:`check_machine` proves or refutes three claims (learnable, end
stops, converges), and the claims about the whole machine (what the faults broke,
timing, quantisation, and any other slot registered in
:mod:`verify.machine.claims`); each slot's provers run in their registered order. What each claim means and why its methods are sound is on the
theory page ``docs/theory/machine-claims.md``; how to run it and read the report is
in ``docs/verify-machine.md``.

Examples
--------
>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
...                 max_fanout=1, theta=1, n_r_units=1, weight_range=(-1, 1))
>>> r = check_machine(MarkI(p, seed=0), np.array([[1, 0], [0, 1]]), ["a", "b"]).r_units[0]
>>> r.learnable.holds, r.end_stops.holds, r.converges.holds
(True, True, True)
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING


from markone._internal.progress import search_bar
from markone._internal.typing import ArrayLike, Seed
from markone._internal.validation import as_generator, check_int_at_least
from markone.hardware.faults import AUnitStuck
from verify._internal.budget import BUDGET, TIMEOUT, deadline_after, expired
from verify.machine.claims._context import MachineContext, RUnitContext
from verify.machine.claims._converges import convergence_claim
from verify.machine.claims._end_stops import end_stop_claim
from verify.machine.claims._rules import analyses
from verify.machine.claims._worst_case import UNTRAINED
from verify.machine.claims import MACHINE, Method, decide, slots
from verify.machine.report import MachineReport, RUnitReport
from verify.machine.task import Units, data_hash, machine_task, patterns_hash
from markone.hardware import MarkI

if TYPE_CHECKING:
    from markone.hardware import MarkI

__all__ = ["check_machine"]

#: Tasks with at most this many distinct A-unit columns and examples get the exact
#: (all streams) searches.
EXACT_MAX_STATES = 200_000

#: Methods whose undecided claims are so by design (the report is not stopped by a
#: budget): the analyses do not cover the machine, or it is untrained (the worst
#: case of its weights is not assessed).
BY_DESIGN = (str(Method.NOT_ASSESSED), str(Method.VARIATION), UNTRAINED)


# --------------------------------------------------------------------------------------
# the public entry point


def check_machine(machine: MarkI, images: ArrayLike, labels: ArrayLike, *,
                  exposure_s: float | None = None, exact_budget: int | None = None,
                  orders: int = 8, z3_depth: int = 40, seed: Seed = 0,
                  timeout_s: float | None = None,
                  progress: bool | None = None) -> MachineReport:
    """What the perceptron's theorems promise ``machine`` on ``(images, labels)``.

    Parameters
    ----------
    machine : markone.hardware.MarkI
        The machine (its wiring, threshold rule, end stops, increment, topology).
        It is not changed.
    images : array (n, rows, cols) or (n, rows*cols)
        Figures (light levels in [0, 1]).
    labels : array (n,)
        Class labels (coded on the R-units as ``MarkI.train`` codes them).
    exposure_s : float, optional
        Exposure to judge in the timing claim (default ``params.exposure_s``; None
        waits for the retina to settle).
    exact_budget : int, optional
        Most states of the exact all-streams searches (default 200,000); they run
        only on tasks small enough to finish.
    orders : int
        Random periodic orders tried per R-unit when end stops can bite.
    z3_depth : int
        Bounded model checking of the end-stop question runs when the Novikoff depth
        ``(R/gamma)^2`` is at most this (and the task is small).
    seed : int or numpy.random.Generator
        For the random orders.
    timeout_s : float, optional
        Stop searching after about this long: the separability checks, the
        weight-by-weight balls, the beam and random orders, the Z3 queries and the
        fault minimisation are cut at that time, and the claims they would have
        decided stay undecided (``holds=None``, saying so), never guessed. Without
        it (the default) only budgets of work limit the searches, so the report does
        not depend on the clock: ``exact_budget`` states, ``orders``, at most
        ``verify.machine.theory._reach.MAX_REFINE`` (1,024) weights refined by their own
        ball, ``verify.machine.theory._stop_searches.Z3_RLIMIT`` (20 million) Z3 resource units
        per R-unit, and ``verify.machine.faults.MAX_TESTS`` (400) separability
        checks to minimise the faults.
    progress : bool, optional
        Show a progress bar of the R-units checked (tqdm, on stderr; ``None``: only
        on a terminal, once the check takes more than half a second). It changes no
        claim.

    Returns
    -------
    MachineReport

    Raises
    ------
    TypeError
        When ``machine`` is not a :class:`~markone.hardware.MarkI`.
    ValueError
        On bad figures or labels (shape, range, length, too many classes).
    """
    t0 = time.perf_counter()
    if not isinstance(machine, MarkI):
        raise TypeError(f"machine must be a markone.hardware.MarkI, got "
                        f"{type(machine).__name__}; build one with MarkI(MarkIParams()).")
    orders = check_int_at_least(orders, "orders", 0)
    z3_depth = check_int_at_least(z3_depth, "z3_depth", 0)
    budget = EXACT_MAX_STATES if exact_budget is None else check_int_at_least(
        exact_budget, "exact_budget", 1)
    deadline = deadline_after(timeout_s)
    task = machine_task(machine, images, labels)
    p = machine.params
    plan = machine.faults.plan if machine.faults is not None else None
    units = Units(p.increment_steps, p.weight_range)
    dynamic, rules = analyses(p, plan, task, units)
    stuck = frozenset() if plan is None else frozenset(
        f.a_unit for f in plan.faults if isinstance(f, AUnitStuck))
    rng = as_generator(seed)
    with search_bar(p.n_r_units, "check_machine: R-units", progress,
                    unit=" R-units") as bar:
        reports = []
        for r in range(p.n_r_units):
            reports.append(_check_r_unit(RUnitContext(
                r, task, units, dynamic, rules, stuck, budget, orders, z3_depth, rng,
                deadline, params=p, plan=plan)))
            bar.update(1)
    reports = tuple(reports)
    ctx = MachineContext(machine, images, labels, task, units, plan, reports,
                         p.exposure_s if exposure_s is None else exposure_s, deadline)
    for slot in slots(MACHINE):
        ctx.claims[slot] = decide(slot, ctx)
    return MachineReport(
        r_units=reports, claims=ctx.claims,
        theta=task.theta, n_examples=len(task.patterns), n_a_units=p.n_a_units,
        weight_range=p.weight_range, increment_steps=p.increment_steps, rule=p.rule,
        data_sha256=data_hash(task), time_s=time.perf_counter() - t0,
        patterns_sha256=patterns_hash(task), params=p.to_dict(),
        stopped_by=_stopped_by([c for r in reports for c in
                                (r.learnable, r.end_stops, r.converges)]
                               + list(ctx.claims.values()), deadline))


def _stopped_by(claims, deadline):
    """What left claims of a report undecided: ``"timeout"`` once the user's time
    limit has passed, else ``"budget"`` (a search ran out of its work); ``""`` when
    every claim is decided (or, by design, not assessed: :data:`BY_DESIGN`)."""
    if all(c.holds is not None or c.method in BY_DESIGN for c in claims):
        return ""
    return TIMEOUT if expired(deadline) else BUDGET


# --------------------------------------------------------------------------------------
# one R-unit


def _check_r_unit(ctx: RUnitContext) -> RUnitReport:
    """The three claims of one R-unit, each slot's provers in their order (the
    end-stop and convergence provers see the claims before theirs in ``ctx``)."""
    ctx.claims["learnable"] = decide("learnable", ctx)
    ctx.claims["end_stops"] = end_stop_claim(ctx)
    ctx.claims["converges"] = convergence_claim(ctx)
    return RUnitReport(ctx.r, **ctx.claims)
