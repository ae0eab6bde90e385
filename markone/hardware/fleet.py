"""Fleets: many Mark I machines trained on the same task in one call.

A sweep over seeds, parameters and faults is a fleet of independent machines: each
:class:`MachineSpec` builds one :class:`~markone.hardware.MarkI` (its physics, its
seed, its faults), every machine trains on the same figures with the same training
arguments, and :func:`run_fleet` returns a :class:`FleetRun` per machine (its spec,
its :class:`~markone.hardware.MachineRun` and its accuracy on the training figures)
in the order of the specs. The machines run here, in local worker processes
(``workers=``) or on a Dask cluster (``dask=``), through the same executor as
``markone sim run --workers/--dask`` (:func:`markone._internal.parallel.run_each`); each
machine is fully determined by its spec, so the runs are the same wherever they ran.

Examples
--------
>>> from markone._figures import letters
>>> images, labels = letters("ABC", per_class=2, seed=0)
>>> specs = MachineSpec.grid(seeds=[0, 1], weight_range=[(-50, 50), (-1, 1)])
>>> [(s.seed, s.params.weight_range) for s in specs]
[(0, (-50, 50)), (1, (-50, 50)), (0, (-1, 1)), (1, (-1, 1))]
>>> fleet = run_fleet(specs, images, labels, presentations=60)
>>> [int(f.run.saturated.sum()) > 0 for f in fleet]
[False, False, True, True]
>>> fleet[0]
FleetRun(seed=0, accuracy=1.000, run=MachineRun(presentations=60, ...))
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import numbers
from collections.abc import Iterable, Sequence
from typing import Any

from markone._internal.parallel import keep_freed_memory, run_each
from markone._internal.typing import ArrayLike
from markone._internal.validation import check_consistent_length, check_int_at_least
from markone.hardware._packed import pack, unpack
from markone.hardware.faults import FaultPlan, apply_faults, faults_for, random_faults
from markone.hardware.lockstep import lockstep_groups, train_side_by_side
from markone.hardware.machine import DEFAULT_EPOCHS, MarkI, TrainingSet
from markone.hardware.params import MarkIParams
from markone.hardware.trial import PLAIN

__all__ = ["MachineSpec", "FleetRun", "run_fleet"]

#: Training arguments a fleet passes on to :meth:`MarkI.train` (not ``log``: a fleet
#: of logs would not fit in memory; train one machine with ``log=True`` instead).
TRAIN_ARGUMENTS = frozenset(inspect.signature(MarkI.train).parameters) - {
    "self", "images", "labels", "log", "warm_start"}

#: Tasks per worker a fleet is cut into by default: each worker takes many machines
#: per task (it starts once), and the last tasks are small enough for the workers to
#: finish at about the same time.
CHUNKS_PER_WORKER = 32

#: What a ``faults`` dict may hold: the arguments of ``random_faults`` after the machine.
RANDOM_FAULTS = frozenset(inspect.signature(random_faults).parameters) - {"machine"}


@dataclasses.dataclass(frozen=True)
class MachineSpec:
    """One machine of a fleet: its physics, its seed and its faults.

    Parameters
    ----------
    params : MarkIParams
    seed : int
        Draws the machine's wiring, source sets, noise and shuffles.
    faults : FaultPlan or dict, optional
        The machine's hardware faults (:mod:`markone.hardware.faults`): a
        :class:`~markone.hardware.faults.FaultPlan` applied as it is, or the keyword
        arguments of :func:`~markone.hardware.faults.random_faults` (fractions of cut
        wires, dead A-units, ... and their ``seed``), drawn on the machine itself.
        None: a healthy machine.
    """

    params: MarkIParams = dataclasses.field(default_factory=MarkIParams)
    seed: int = 0
    faults: object = None

    def __post_init__(self):
        if not isinstance(self.params, MarkIParams):
            raise TypeError(
                f"MachineSpec.params must be a MarkIParams, got "
                f"{type(self.params).__name__}; build one with MarkIParams(...)."
            )
        if isinstance(self.seed, bool) or not isinstance(self.seed, numbers.Integral) \
                or self.seed < 0:
            raise ValueError(
                f"MachineSpec.seed(={self.seed!r}) must be an integer >= 0: a fleet's "
                "machines are seeded so that their runs do not depend on where they ran."
            )
        object.__setattr__(self, "seed", int(self.seed))
        if isinstance(self.faults, dict):
            unknown = sorted(set(self.faults) - RANDOM_FAULTS)
            if unknown:
                raise ValueError(
                    f"MachineSpec.faults has unknown key(s) {unknown}; a dict holds "
                    f"random_faults arguments: {sorted(RANDOM_FAULTS)}."
                )
        elif self.faults is not None and not isinstance(self.faults, FaultPlan):
            raise TypeError(
                f"MachineSpec.faults must be a FaultPlan, a dict of random_faults "
                f"arguments or None, got {type(self.faults).__name__}."
            )

    @classmethod
    def grid(cls, seeds: Iterable[int], base: MarkIParams | None = None,
             faults: Any = None, **vary: Sequence[Any]) -> list[MachineSpec]:
        """One spec per seed for every combination of the ``vary`` values.

        ``vary`` maps MarkIParams field names to lists of values (the first field
        varies slowest); ``base`` (default ``MarkIParams()``) gives the other fields.

        >>> [s.params.topology for s in MachineSpec.grid([0], topology=["full",
        ...                                                       "source_sets"])]
        ['full', 'source_sets']
        """
        base = MarkIParams() if base is None else base
        names = list(vary)
        for name, values in vary.items():
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
                raise TypeError(
                    f"{name} must be a list of values to vary over, got {values!r}; "
                    f"write {name}=[{values!r}]."
                )
        seeds = list(seeds)
        return [cls(base.replace(**dict(zip(names, combo))), seed, faults)
                for combo in itertools.product(*(list(vary[n]) for n in names))
                for seed in seeds]


@dataclasses.dataclass(frozen=True, eq=False)
class FleetRun:
    """What one machine of a fleet did: its ``spec``, its ``run`` (without the
    per-presentation log) and ``accuracy``, the fraction of the training figures it
    classifies correctly at the end (settled, noise-free: :meth:`MarkI.score`)."""

    spec: MachineSpec
    run: object
    accuracy: float

    def __repr__(self):
        return (f"FleetRun(seed={self.spec.seed}, accuracy={self.accuracy:.3f}, "
                f"run={self.run!r})")


def _train_machines(task):
    """Train every machine of one chunk of a fleet (a top-level function: picklable):
    groups of many machines of one parameter set side by side
    (:mod:`markone.hardware.lockstep`), the others one by one. A task of
    :func:`run_fleet` holds the fleet's plan as well: the task's lockstep groups and
    the trials of the fleet's machines trained one by one, in all."""
    keep_freed_memory()   # else each machine's arrays fault in fresh pages again
    specs, images, labels, train, *fleet = task   # (the fleet's plan, if given)
    images = unpack(images)
    groups, fleet_alone = fleet if fleet else (lockstep_groups(
        specs, train, _trials(len(specs), len(images), train), len(images)), None)
    out: list[Any] = [None] * len(specs)
    checked: dict = {}   # the figures as MarkI._images gives them, per retina shape

    def score(i, machine, run):   # each machine scored at once, then let go (#37)
        shape = specs[i].params.retina_shape
        if shape not in checked:
            checked[shape] = machine._images(images)
        # machine.score(images, labels), the figures checked once per task
        out[i] = FleetRun(specs[i], run, machine._accuracy(checked[shape], labels))

    for group in groups:
        machines, runs = train_side_by_side(
            specs[group[0]].params, [specs[i].seed for i in group], images, labels, train)
        for i, machine, run in zip(group, machines, runs):
            if run is not None:
                score(i, machine, run)
        del machines
    alone = [i for i in range(len(specs)) if out[i] is None]
    # a large fleet runs compiled from its first trial (the same runs, bit for bit):
    # its trials of machines alone in all, not this task's (a worker takes many tasks)
    PLAIN.expect(_trials(len(alone), len(images), train) if fleet_alone is None
                 else fleet_alone)
    known: dict[MarkIParams, TrainingSet] = {}   # the figures checked once per params
    for i in alone:
        if specs[i].faults is None:   # train() sets the machine up: once, not twice
            machine = MarkI._to_train(specs[i].params, specs[i].seed)
        else:
            machine = MarkI(specs[i].params, seed=specs[i].seed)
            apply_faults(machine, faults_for(machine, specs[i].faults))
        if specs[i].params not in known:
            known[specs[i].params] = machine._training_set(images, labels)
        score(i, machine, machine.train(known[specs[i].params], None, **train))
    return out


def _trials(machines, figures, train):
    """The most trials ``machines`` machines make with training arguments ``train``
    on ``figures`` figures."""
    return machines * (train.get("presentations") or figures * (
        train.get("max_epochs") or DEFAULT_EPOCHS))


def run_fleet(specs: Sequence[MachineSpec], images: ArrayLike, labels: ArrayLike, *,
              workers: int = 1, dask: str | None = None, chunks: int | None = None,
              **train: Any) -> list[FleetRun]:
    """Train one machine per spec on ``images``/``labels``; return their runs.

    Parameters
    ----------
    specs : sequence of MachineSpec
        The machines (see :meth:`MachineSpec.grid` for seeds x parameters).
    images, labels
        The task, as for :meth:`MarkI.train`.
    workers : int
        Processes to spread the machines over (1: here, in order; 2: this one and
        one started for the fleet, ...; see
        :func:`markone._internal.parallel.run_each`).
    dask : str, optional
        ``"local"`` (a ``dask.distributed.LocalCluster``: two threads here with
        ``workers=1``, else ``workers`` processes) or a scheduler address
        ``"tcp://host:8786"``.
    chunks : int, optional
        How many tasks the machines are cut into (default: 1 here, else
        ``CHUNKS_PER_WORKER`` per worker, so that the workers finish together); it
        changes nothing but the overhead.
    **train
        :meth:`MarkI.train` arguments (``max_epochs``, ``presentations``, ``order``,
        ``rule``, ...).

    Returns
    -------
    list of FleetRun
        One per spec, in the order of ``specs``, the same wherever they ran.

    Notes
    -----
    Every process that trains machines (this one included, with ``workers=1``)
    keeps the memory it frees for its next machines
    (:func:`markone._internal.parallel.keep_freed_memory`, glibc only), and a fleet
    whose machines trained one by one make more trials in all than a process's plain
    allowance runs compiled from the first trial of every task, however small the
    task (each worker takes many); neither changes a run. Many machines of one parameter set (at least
    :data:`~markone.hardware.lockstep.LOCKSTEP_MACHINES`, in a fleet of at most
    :data:`~markone.hardware.lockstep.LOCKSTEP_TRIALS` trials) train side by side,
    one numpy step per figure for all of them, without a compiler
    (:mod:`markone.hardware.lockstep`): the same runs too.
    """
    specs = list(specs)
    if not specs:
        raise ValueError("specs is empty: give at least one MachineSpec.")
    bad = [i for i, s in enumerate(specs) if not isinstance(s, MachineSpec)]
    if bad:
        raise TypeError(
            f"specs[{bad[0]}] is a {type(specs[bad[0]]).__name__}, not a MachineSpec; "
            "build specs with MachineSpec(params, seed) or MachineSpec.grid(seeds, ...)."
        )
    unknown = sorted(set(train) - TRAIN_ARGUMENTS)
    if unknown:
        raise TypeError(
            f"run_fleet got unknown training argument(s) {unknown}; the fleet passes "
            f"on these MarkI.train arguments: {sorted(TRAIN_ARGUMENTS)}."
        )
    workers = check_int_at_least(workers, "workers", 1)
    probe = MarkI(specs[0].params, seed=0)
    images = probe._images(images)   # checked once here, not in every worker
    check_consistent_length(images, labels, names=("images", "labels"))
    if chunks is None:
        chunks = 1 if workers == 1 and dask is None else CHUNKS_PER_WORKER * max(
            workers, 2)
    chunks = min(check_int_at_least(chunks, "chunks", 1), len(specs))
    parts = [specs[k::chunks] for k in range(chunks)]   # balanced: mixed parameters
    shared = pack(images)   # 0/1 figures travel as int8: 1/8 of the bytes per task
    trials = _trials(len(specs), len(images), train)   # the fleet's: one rule for all
    groups = [lockstep_groups(part, train, trials, len(images)) for part in parts]
    alone = _trials(len(specs) - sum(len(g) for part in groups for g in part),
                    len(images), train)
    tasks = [(part, shared, labels, train, part_groups, alone)
             for part, part_groups in zip(parts, groups)]
    runs: list[Any] = [None] * len(specs)
    for k, part_runs in run_each(_train_machines, tasks, workers=workers, dask=dask):
        runs[k::chunks] = part_runs
    return runs
