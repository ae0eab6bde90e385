"""Re-check a machine report from its evidence, independently of how it was found.

:func:`recheck_report` takes a :class:`~verify.machine.MachineReport` (or its JSON) and
the machine, figures and labels it is about. First the report must be well formed and
about this machine (:func:`verify.machine.schema.read_report`: every field known and
of its type, every number finite, the machine's parameters equal to the ones it
names; the SHA-256 of the figures and labels and of the A-unit patterns equal).
Anything else is a ``ValueError`` (the command line's exit 2). Then each claim goes to
the re-check its kind registers (:mod:`verify.machine.claims`: the claim's slot and
method name the kind; a method that does not decide that slot, or cannot give that
verdict, refutes it). Every number in every claim's evidence is either verified as a
certificate or recomputed from the machine and figures and compared exactly, and a
claim's verdict must be the one its evidence implies:

* **learnable** (:func:`verify.machine.claims._learnable.recheck_learnable`): a witness
  ``w`` must answer every figure (``y_i x_i . w > 0``); a Gordan certificate
  ``c >= 0``, not all zero, must have ``sum_i c_i y_i x_i = 0``; ``a_units`` are the
  R-unit's inputs. A witness makes the claim true, a certificate false, whatever
  ``holds`` says.
* **end stops** and **converges** of the error-correction rule
  (:mod:`verify.machine.claims._end_stops_recheck`, :mod:`verify.machine.claims._converges_recheck`):
  margins, bounds and reachable sets are recomputed from their certificates, streams
  and cycles re-run exactly and on a copy of the machine.
* **timing** (:mod:`verify.machine.claims.timing`): a fixed exposure's limits are recomputed
  in closed form and its blend of figures re-run for the one pair it names.
* claims that follow from others or from an exact deterministic analysis (the
  forced and gamma rules, "equals the ideal perceptron", the claims of an R-unit that
  is not learnable: :mod:`verify.machine.claims._derived`; settling, quantisation, the
  faults' culprits) are derived again and compared in full; the smallest set of faults is
  re-checked (it breaks the R-units it names, and, when it is said to be 1-minimal,
  removing any one fault repairs the task).

A claim with nothing to check is ``unchecked`` (an end-stop claim proven by Z3, or by
the balls at the pushes, is first tried against the greedy streams: one that reaches
a stop refutes it). The report's summary fields (``theta``, ``learnable``, ...) are
recomputed too. Messages are words for people, not re-checked.

Examples
--------
>>> import numpy as np
>>> from markone.hardware import MarkI, MarkIParams
>>> from verify.machine.check import check_machine
>>> p = MarkIParams(retina_shape=(1, 2), n_a_units=2, n_excitatory=1, n_inhibitory=0,
...                 max_fanout=1, theta=1, n_r_units=1, weight_range=(0, 1))
>>> machine, figures = MarkI(p, seed=0), np.array([[1, 0], [0, 1]])
>>> report = check_machine(machine, figures, ["a", "b"])
>>> checks = recheck_report(report, machine, figures, ["a", "b"])
>>> [(c.claim, c.status) for c in checks if c.status != "unchecked"][:4]
[('report', 'confirmed'), ('R1 learnable', 'confirmed'), ('R1 end_stops', 'confirmed'), ('R1 converges', 'confirmed')]
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from markone._internal.typing import ArrayLike, JSONDict
from markone.hardware.runits import r_unit_name
from verify.machine.claims._evidence import RecheckContext, registered_kind
from verify.errors import Refuted
from verify.machine.claims import MACHINE, R_UNIT, slots
from verify.machine.report import MachineReport, combined_verdict
from verify.machine.schema import REPORT_FORMAT, read_report
from verify.machine.task import Units, data_hash, machine_task, patterns_hash

if TYPE_CHECKING:
    from markone.hardware import MarkI

__all__ = ["Recheck", "recheck_report", "REPORT_FORMAT"]


@dataclasses.dataclass(frozen=True)
class Recheck:
    """The re-check of one claim: ``status`` is ``"confirmed"`` (its evidence holds),
    ``"refuted"`` (it does not: the report is wrong or tampered with) or
    ``"unchecked"`` (no certificate to check, or nothing claimed); ``why`` says
    which."""

    claim: str
    status: str
    why: str

    def to_dict(self) -> JSONDict:
        """As a JSON-ready dict."""
        return dataclasses.asdict(self)


def recheck_report(report: MachineReport | JSONDict, machine: MarkI,
                   images: ArrayLike, labels: ArrayLike) -> list[Recheck]:
    """Re-check every claim of ``report`` from its evidence (see the module doc).

    Returns one :class:`Recheck` for the report's summary fields (``"report"``), one
    per claim of each R-unit, and one per claim about the whole machine.

    Raises
    ------
    ValueError
        When ``report`` is not a well-formed machine report (unknown fields, wrong
        types, NaN or infinities), or is about other figures, labels, A-unit patterns
        or machine parameters than these (the message names the first that differs).
    """
    d = read_report(report, machine.params.to_dict())
    task = machine_task(machine, images, labels)
    _same_task(d, task)
    p = machine.params
    ctx = RecheckContext(machine, images, labels, task,
                         Units(p.increment_steps, p.weight_range), d)
    out = [_run("report", _summary, d, task, p)]
    for entry in d["r_units"]:
        r = entry["r_unit"]
        done: dict[str, Recheck] = {}     # the R-unit's claims re-checked so far
        for slot in slots(R_UNIT):
            where = f"{r_unit_name(r)} {slot}"
            done[slot] = _run(where, _recheck_claim, ctx.about(slot, r, where, done),
                              entry[slot])
        out += done.values()
    for slot in slots(MACHINE):
        if slot in d:    # a report of an older format lacks the slots added since
            out.append(_run(slot, _recheck_claim, ctx.about(slot, None, slot, {}),
                            d[slot]))
    return out


def _recheck_claim(ctx: RecheckContext, claim: JSONDict) -> Any:
    """Re-check one claim with the re-check its kind registers: why it is confirmed,
    None (nothing to check) or ``("unchecked", why)``; :class:`Refuted` when its
    method cannot give its verdict in its slot or its evidence fails."""
    kind = registered_kind(claim, ctx.slot)
    if kind.recheck is None:   # pragma: no cover - tests/verify/machine/test_claims.py
        raise RuntimeError(f"BUG: the kind {(kind.slot, kind.method)} has no re-check")
    return kind.recheck(ctx, claim)


def _same_task(d, task):
    """ValueError unless the report is about this task on this machine."""
    if d["data_sha256"] != data_hash(task):
        raise ValueError("the report is about other figures or labels: its data_sha256 "
                         "does not match these")
    if not d.get("patterns_sha256"):
        raise ValueError("the report has no patterns_sha256 (it was written by an older "
                         "markone), so it is not tied to a machine; run check_machine "
                         "again to get a report that can be re-checked")
    if d["patterns_sha256"] != patterns_hash(task):
        raise ValueError("the report is about another machine: the A-unit patterns "
                         "(wiring, threshold, faults) it was made on are not this "
                         "machine's (patterns_sha256 differs)")


def _summary(d, task, p):
    """The report's own fields, recomputed."""
    verdicts = {c: combined_verdict(r[c]["holds"] for r in d["r_units"])
                for c in ("learnable", "converges")}
    for k, want in (("theta", task.theta), ("n_examples", len(task.patterns)),
                    ("n_a_units", p.n_a_units),
                    ("weight_range", None if p.weight_range is None
                     else list(p.weight_range)),
                    ("increment_steps", p.increment_steps), ("rule", p.rule),
                    *verdicts.items()):
        if d[k] != want or type(d[k]) is not type(want):
            raise Refuted(f"its {k} is {d[k]!r}; recomputed it is {want!r}")
    return ("theta, the number of figures and A-units, the stops, the increment, the "
            "rule and the summary verdicts are the machine's and its claims'")


def _run(label, check, *args):
    """Run one re-check, ``check(*args)``: confirmed (it returns why), unchecked (it
    returns None or ``("unchecked", why)``) or refuted (the evidence fails)."""
    try:
        why = check(*args)
    except Refuted as exc:
        return Recheck(label, "refuted", str(exc))
    if isinstance(why, tuple):
        return Recheck(label, *why)
    if why is not None:
        return Recheck(label, "confirmed", why)
    return Recheck(label, "unchecked", "nothing to check: it claims nothing, or it "
                   "rests on a search or on claims that are not confirmed")
