"""Certified yield: the fraction of randomly damaged Mark Is that can still learn a task.

Setup: ``runs`` Mark Is (:class:`markone.hardware.MarkI` with ``n_a_units`` A-units
and ``n_r_units`` R-units, the other parameters at their defaults), each with its own wiring, are damaged from the
start by :func:`markone.hardware.faults.random_faults` at each rate of ``rates`` for
each kind of ``kinds`` (its fraction options: ``dead_a_units``, ``cut_wires``,
``stopped_motors``, ``dead_photocells``; the same machines and damage seeds at every
rate, so the curves are paired). The task is the same for every machine: the letters
``chars``, ``per_class`` jittered figures each, drawn once from the root seed.

Each damaged machine is *decided exactly*: learnable when every R-unit's targets are
separable on its live A-unit patterns (an exact witness), unlearnable when one R-unit's
are not (a Gordan certificate), and then :func:`verify.machine.minimal_faults` names a
1-minimal set of its faults (work budget ``max_tests``): alone they make the task
unlearnable, and without any one of them it is learnable. Each verdict is written as a
certificate file that ``markone verify check`` re-checks
(:mod:`sims._certified`), into ``OUT/yield/certificates/``:

``KIND-rRATE-mRUN-machine.json``
    the damaged machine's task, learnable (witness) or not (certificate);
``KIND-rRATE-mRUN-minimal.json``
    an unlearnable machine's task with only its 1-minimal faults (certificate);
``KIND-rRATE-mRUN-minimality.json``
    the same task with each one of those faults repaired in turn, every one learnable
    (one witness for all), when the minimisation completed.

:func:`recheck` re-checks a finished sweep from these files: each proof, and that
its data are the damaged patterns of the machine it names, built again from the seeds.

Yield at a rate is the fraction learnable, with its Wilson score interval at
``confidence`` (:func:`sims._stats.wilson_interval`) and its exact Clopper-Pearson
interval (:func:`sims._stats.clopper_pearson_interval`). Every verdict is limited by
work (separability checks, ``max_tests``), never by the clock.

**Certified against sampled** (``compare``: true). Each machine is also trained once,
from zero, in a seeded random order, for at most ``mc_epochs`` passes
(:func:`sims._yield_machine.train_machine`): Monte Carlo's verdict, ``trained`` when a
pass ends without a mistake. A trained machine can learn (its weights prove it), so
Monte Carlo's fraction never passes the certified one on the same machines; a machine
that did not train within its passes is counted as broken, although it may be
learnable. At each point, with ``p`` Monte Carlo's fraction on the same decided
machines and ``L`` the certified Clopper-Pearson lower end, ``mc_needed`` is the
fewest sampled machines at which Monte Carlo, succeeding at ``p``, would prove as
much: the least ``n`` with ``B^-1(a/2; p n, (1 - p) n + 1) >= L``
(:func:`sims._stats.samples_to_match`, ``a = 1 - confidence``); null when ``p <= L``
(no number of samples reaches it).

``results.json``: ``kinds``, ``rates``, and per kind a list over rates of ``learnable``,
``decided``, ``yield``, ``low``, ``high`` (the Wilson interval), ``cp_low``, ``cp_high``
(the Clopper-Pearson interval), with ``compare`` also ``trained``, ``mc_fraction``,
``mc_cp_low``, ``mc_cp_high`` and ``mc_needed``, ``mean_minimal`` (the mean
size of the 1-minimal fault sets) and ``machines`` (one record per machine: its run,
verdict, number of faults, live A-units, the minimal faults named by what broke and as
indices into its fault plan, and its certificate files).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from markone._internal.style import legend_outside, styled
from markone._internal.typing import JSONDict, PathLike
from markone._internal.validation import check_choice, check_int_at_least, child_seeds
from sims._common import check_letters, chunked, inline, new_figure, save_figure
from sims._yield_machine import (FILE_CLAIMS, claim_parts, decide_machine,
                                 machine_and_task, recheck_machine, train_machine)
from sims._stats import (clopper_pearson_interval, normal_quantile, samples_to_match,
                         wilson_interval)
from verify.certificate import certificate_json
from verify.errors import CertificateError
from markone._internal.io import read_json
from sims.runner import RESULTS

__all__ = ["NAME", "DEFAULTS", "SMALL", "FILES", "tasks", "run_task", "combine",
           "plot", "files", "run", "recheck", "YieldRecheck", "intervals", "sampled",
           # one machine, from sims._yield_machine:
           "machine_and_task", "claim_parts", "FILE_CLAIMS"]

NAME = "yield"
#: The fraction options of :func:`markone.hardware.faults.random_faults`.
KINDS = ("dead_a_units", "cut_wires", "stopped_motors", "dead_photocells")
#: The folder (in ``OUT/yield``) of the certificate files.
FILES = "certificates"
DEFAULTS = {"chars": "ABCD", "per_class": 3, "n_a_units": 64, "n_r_units": 2,
            "kinds": ["dead_a_units", "cut_wires"],
            "rates": [0.0, 0.2, 0.4, 0.5, 0.6, 0.65, 0.7, 0.8, 0.9], "runs": 30,
            "batch": 10, "confidence": 0.95, "max_tests": 400, "compare": False,
            "mc_epochs": 20}
SMALL = {"kinds": ["dead_a_units"], "rates": [0.0, 0.7, 0.95], "runs": 4, "batch": 2}


def tasks(config: JSONDict, seed: int) -> list[JSONDict]:
    """One task per (kind, rate, batch of machines); the figures' seed and each
    machine's seed are drawn from ``seed`` up front and shared across rates."""
    _check_grid(config)
    data_seed, machines_seed = child_seeds(seed, 2)
    runs = list(enumerate(child_seeds(machines_seed, config["runs"])))
    keys = ("chars", "per_class", "n_a_units", "n_r_units", "max_tests", "compare",
            "mc_epochs")
    return [{"id": f"{kind}-r{i}-b{b}", "kind": kind, "rate": rate, "rate_index": i,
             "data_seed": data_seed, "machines": [[r, s] for r, s in batch],
             **{k: config[k] for k in keys}}
            for kind in config["kinds"]
            for i, rate in enumerate(config["rates"])
            for b, batch in enumerate(chunked(runs, config["batch"]))]


def _check_grid(config):
    """Refuse a grid that no machine could be broken by, before any task is made."""
    from markone.hardware import MarkIParams

    kinds, rates = config["kinds"], config["rates"]
    if not isinstance(kinds, list) or not kinds:
        raise ValueError(f"kinds(={kinds!r}) must be a non-empty list of fault kinds "
                         f"({', '.join(KINDS)}).")
    for kind in kinds:
        check_choice(kind, "kind", KINDS)
    if len(set(kinds)) != len(kinds):
        raise ValueError(f"kinds(={kinds!r}) names a kind twice; name each once.")
    if not isinstance(rates, list) or not rates or any(
            isinstance(r, bool) or not isinstance(r, (int, float)) or not 0 <= r <= 1
            for r in rates) or len(set(rates)) != len(rates):
        raise ValueError(f"rates(={rates!r}) must be a non-empty list of distinct "
                         "fractions in [0, 1], e.g. [0.0, 0.5, 0.9].")
    for key in ("batch", "per_class", "max_tests", "mc_epochs"):  # max_tests=0: none
        check_int_at_least(config[key], key, 1)                   # is minimal
    if not isinstance(config["compare"], bool):
        raise ValueError(f"compare(={config['compare']!r}) must be true or false.")
    check_letters(config["chars"])
    normal_quantile(config["confidence"])
    MarkIParams(n_a_units=config["n_a_units"], n_r_units=config["n_r_units"])



def run_task(spec: JSONDict) -> JSONDict:
    """Decide each machine of the batch, with its certificates (module doc); with
    ``compare``, Monte Carlo's verdict on each too."""
    return {"kind": spec["kind"], "rate": spec["rate"],
            "machines": [{**decide_machine(spec, run, seed),
                          **(train_machine(spec, seed) if spec["compare"] else {})}
                         for run, seed in spec["machines"]]}


def combine(config: JSONDict, task_results: list[JSONDict]) -> JSONDict:
    """Per kind and rate: the yield, its Wilson interval and the machines' records."""
    out: JSONDict = {"kinds": config["kinds"], "rates": config["rates"],
                     "runs": config["runs"], "chars": config["chars"],
                     "n_a_units": config["n_a_units"], "n_r_units": config["n_r_units"],
                     "confidence": config["confidence"], "compare": config["compare"]}
    for kind in config["kinds"]:
        rows: dict[str, list] = {k: [] for k in ("learnable", "decided", "yield", "low",
                                                 "high", "cp_low", "cp_high",
                                                 "mean_minimal", "machines")
                                 + _SAMPLED * config["compare"]}
        for rate in config["rates"]:
            machines = sorted((m for t in task_results
                               if t["kind"] == kind and t["rate"] == rate
                               for m in t["machines"]), key=lambda m: m["run"])
            for key, value in _yield_of(machines, config["confidence"],
                                        config["compare"]):
                rows[key].append(value)
        out[kind] = rows
    return out


#: The entries of a point that ``compare`` adds.
_SAMPLED = ("trained", "mc_fraction", "mc_cp_low", "mc_cp_high", "mc_needed")


def _yield_of(machines, confidence, compare=False):
    """The ``(key, value)`` entries of one kind at one rate: learnable and decided
    machines, the yield and its Wilson interval, the mean minimal set, the records
    (with ``compare``, Monte Carlo's: :func:`sampled`)."""
    decided = [m for m in machines if m["learnable"] is not None]
    good = sum(m["learnable"] for m in decided)
    low, high, cp_low, cp_high = intervals(good, len(decided), confidence)
    sizes = [len(m["minimal"]) for m in decided if m["minimal"] is not None]
    return (("learnable", good), ("decided", len(decided)),
            ("yield", good / len(decided) if decided else None),
            ("low", low), ("high", high), ("cp_low", cp_low), ("cp_high", cp_high),
            ("mean_minimal", float(np.mean(sizes)) if sizes else None),
            ("machines", [_record(m) for m in machines]),
            *(zip(_SAMPLED, sampled(sum(m["trained"] for m in decided), len(decided),
                                    cp_low, confidence)) if compare else ()))


def sampled(trained: int, decided: int, certified_low: float, confidence: float
            ) -> tuple:
    """Monte Carlo's entries of a point: ``(trained, mc_fraction, mc_cp_low,
    mc_cp_high, mc_needed)``, of ``trained`` machines of ``decided`` and the certified
    Clopper-Pearson lower end ``certified_low`` (module doc; all None but ``trained``
    when none is decided).

    >>> low = intervals(30, 30, 0.95)[2]          # all 30 machines proved to learn
    >>> [sampled(trained, 30, low, 0.95)[-1] for trained in (30, 29, 27)]
    [30, 60, 1610]
    """
    if not decided:
        return trained, None, None, None, None
    _, _, low, high = intervals(trained, decided, confidence)
    p = trained / decided
    return trained, p, low, high, samples_to_match(p, certified_low, confidence)


def intervals(good: int, decided: int, confidence: float
              ) -> tuple[float, float, float, float]:
    """The Wilson and the Clopper-Pearson intervals of ``good`` learnable machines of
    ``decided``, ``(low, high, cp_low, cp_high)`` (``[0, 1]`` twice when none is
    decided).

    >>> [round(v, 4) for v in intervals(30, 30, 0.95)]
    [0.8865, 1.0, 0.8843, 1.0]
    """
    if not decided:
        return 0.0, 1.0, 0.0, 1.0
    return (*wilson_interval(good, decided, confidence),
            *clopper_pearson_interval(good, decided, confidence))


def _record(machine):
    """A machine's record in ``results.json``: its certificates by file name only."""
    return {**{k: v for k, v in machine.items() if k != "certificates"},
            "certificates": sorted(machine["certificates"])}


def files(config: JSONDict, task_results: list[JSONDict]) -> dict[str, str]:
    """The certificate files, ``{name: text}`` (written into ``OUT/yield/FILES``)."""
    return {name: certificate_json(doc) for t in task_results for m in t["machines"]
            for name, doc in m["certificates"].items()}


@dataclasses.dataclass(frozen=True)
class YieldRecheck:
    """What :func:`recheck` confirmed: every certificate file (``files``) of every
    machine (``machines``) of every point (``points``) of a yield sweep."""

    files: int
    machines: int
    points: int


def recheck(folder: PathLike) -> YieldRecheck:
    """Re-check a finished yield sweep, ``OUT/yield``, from its files.

    Beyond what ``markone verify check`` confirms of each file (its proof, on its own
    data), this ties each file to the curve: the machine it names is built again from
    the sweep's configuration and seed, its damaged patterns (and those of its
    1-minimal faults, alone and each repaired) must hash to the file's data, the file
    must prove what ``results.json`` says of that machine, every decided machine must
    have its files, and every point's counts and intervals must follow from
    them.

    Returns
    -------
    YieldRecheck

    Raises
    ------
    verify.errors.CertificateError
        Naming the first file or point that does not hold (a certificate about other
        data, a missing file, a count that does not follow).
    """
    folder = Path(folder)
    results = read_json(folder / RESULTS)
    # a sweep written before the comparison mode has neither setting: it is off
    config = {"compare": False, "mc_epochs": DEFAULTS["mc_epochs"], **results["config"]}
    specs = {(s["kind"], s["rate_index"], run): (s, seed)
             for s in tasks(config, results["seed"]) for run, seed in s["machines"]}
    n_files = n_machines = 0
    for kind in config["kinds"]:
        row = results[kind]
        for i, machines in enumerate(row["machines"]):
            for m in machines:
                n_files += recheck_machine(folder / FILES, m, *specs[kind, i, m["run"]])
            decided = [m for m in machines if m["learnable"] is not None]
            good = sum(m["learnable"] for m in decided)
            _check_point(kind, config, row, i, good, len(decided))
            if config["compare"]:
                _check_sampled(kind, config, row, i, decided)
            n_machines += len(machines)
    return YieldRecheck(n_files, n_machines, len(config["kinds"]) * len(config["rates"]))


def _check_point(kind, config, row, i, good, decided):
    """CertificateError unless point ``i`` of ``row`` has the counts and intervals
    its certified machines give."""
    if "cp_low" not in row or "cp_high" not in row:
        raise CertificateError(f"{kind}: results.json has no Clopper-Pearson interval "
                               "(cp_low, cp_high; written before they existed): run "
                               "the sweep again.")
    said = tuple(row[k][i] for k in ("learnable", "decided", "low", "high", "cp_low",
                                     "cp_high"))
    if (good, decided, *intervals(good, decided, config["confidence"])) != said:
        raise CertificateError(
            f"{kind} at rate {config['rates'][i]}: results.json says "
            f"{row['learnable'][i]} of {row['decided'][i]} learnable (intervals "
            f"{said[2:]}), but the certified machines are {good} of {decided}.")


def _check_sampled(kind, config, row, i, decided):
    """CertificateError unless every machine Monte Carlo trained is certified
    learnable (a run that trains it proves it can learn) and point ``i``'s Monte Carlo
    entries follow from the records."""
    where = f"{kind} at rate {config['rates'][i]}"
    wrong = [m["run"] for m in decided if m["trained"] and not m["learnable"]]
    if wrong:
        raise CertificateError(f"{where}: machine {wrong[0]} trained without a mistake "
                               "but is certified unable to learn: one of the two is "
                               "wrong.")
    said = tuple(row[k][i] for k in _SAMPLED)
    want = sampled(sum(m["trained"] for m in decided), len(decided), row["cp_low"][i],
                   config["confidence"])
    if said != want:
        raise CertificateError(f"{where}: results.json says Monte Carlo {said}, but its "
                               f"machines give {want}.")


_LABELS = {"cut_wires": "plugboard wires cut", "dead_a_units": "A-units dead",
           "stopped_motors": "motors stopped", "dead_photocells": "photocells dead"}


@styled
def plot(results: JSONDict, out_dir: PathLike) -> list[Path]:
    """Yield against the fault rate, one curve per kind, with Wilson intervals."""
    fig, (ax,) = new_figure(1, width=6)
    rates = np.asarray(results["rates"], dtype=float)
    for kind in results["kinds"]:
        row = results[kind]
        y = np.asarray([np.nan if v is None else v for v in row["yield"]], dtype=float)
        ax.fill_between(rates, row["low"], row["high"], alpha=0.2)
        ax.plot(rates, y, "o-", label=_LABELS.get(kind, kind))
    ax.set(xlabel="fraction broken", ylabel="yield (fraction still able to learn)",
           ylim=(-0.02, 1.02),
           title=f"Certified yield: {results['chars']} on Mark Is of "
           f"{results['n_a_units']} A-units\n{results['runs']} machines per point, "
           f"{round(100 * results['confidence'])} % Wilson intervals")
    legend_outside(ax)
    paths = [save_figure(fig, out_dir, "yield")]
    if results.get("compare"):
        paths.append(_plot_sampled(results, out_dir))
    return paths


def _plot_sampled(results: JSONDict, out_dir: PathLike) -> Path:
    """Certified against Monte Carlo: the two fractions on the same machines, and the
    machines Monte Carlo would need to prove the certified lower end."""
    fig, (ax, bx) = new_figure(2, width=5)
    rates = np.asarray(results["rates"], dtype=float)
    for kind in results["kinds"]:
        row, label = results[kind], _LABELS.get(kind, kind)
        line, = ax.plot(rates, _floats(row["yield"]), "o-", label=f"{label}: certified")
        ax.plot(rates, _floats(row["mc_fraction"]), "s--", color=line.get_color(),
                label=f"{label}: Monte Carlo")
        needed = [None if low == 0 else n for n, low in zip(row["mc_needed"],
                                                             row["cp_low"])]
        bx.plot(rates, _floats(needed), "o-", label=label)  # a bound of 0: any n
    ax.set(xlabel="fraction broken", ylabel="fraction able to learn", ylim=(-0.02, 1.02),
           title=f"Certified and sampled\n({results['runs']} machines per point)")
    bx.set(xlabel="fraction broken", yscale="log", ylabel="machines (none: never)",
           title="Sampled machines to match the\ncertified "
           f"{round(100 * results['confidence'])} % lower end")
    legend_outside(bx)
    ax.legend()
    return save_figure(fig, out_dir, "yield_sampled")


def _floats(values: list) -> np.ndarray:
    return np.asarray([np.nan if v is None else v for v in values], dtype=float)


run = inline(__name__)
