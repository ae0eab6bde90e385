"""The timing claim: can a short exposure change an A-unit pattern?

A photocell follows its light with a rise and a decay time constant, so a figure shown
too briefly can be read as the one before it. :func:`exposure_limits` gives, in closed
form, the exposures below which a cell can be misread; :func:`timing_claim` judges the
machine's own exposure on its figures (``docs/theory/machine-claims.md``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from markone._internal.typing import ArrayLike, JSONDict
from markone.hardware import plugboard
from markone.hardware.runits import numbered
from verify.machine.claims._evidence import RECOMPUTED, evidence, same_claim, verdict
from verify.errors import Refuted
from verify.machine.claims.methods import Method
from verify.machine.claims.registry import MACHINE, add_kind, add_slot, proves, rechecks
from verify.machine.report import Claim
from verify.machine.task import MachineTask

if TYPE_CHECKING:
    from markone.hardware import MarkI, MarkIParams
    from verify.machine.claims._context import MachineContext
    from verify.machine.claims._evidence import RecheckContext

__all__ = ["exposure_limits", "timing_claim", "timing", "recheck_settling",
           "recheck_photocell", "TIMING_FIELDS"]

#: The evidence of a timing claim: the exposure, the closed-form limits, and for an
#: exposure that blends figures, the figure shown before, the figure and the A-units
#: it fires differently.
TIMING_FIELDS = ("exposure_s", "rise_limit_s", "decay_limit_s",
                 "shortest_safe_exposure_s", "before", "figure", "a_units_changed")


_LIMITS = TIMING_FIELDS[:4]
add_slot("timing", MACHINE)
add_kind("timing", Method.SETTLING, True, None, evidence=_LIMITS)
add_kind("timing", Method.PHOTOCELL, True, False, None,
         evidence={True: _LIMITS, None: _LIMITS, False: TIMING_FIELDS})


def exposure_limits(params: MarkIParams, images: ArrayLike | None = None
                    ) -> tuple[float, float]:
    """``(rise_s, decay_s)``: exposures below which a photocell can be misread.

    A lit cell (light ``T >= s_threshold``) shown after darkness reads
    ``T (1 - exp(-t/tau_rise))``: it is read dark while ``t < rise_s``. A dark cell
    (``T < s_threshold``) after long light ``L`` reads ``T + (L - T) exp(-t/tau_decay)``:
    it is read lit while ``t < decay_s``. Worst cases are taken over the light levels
    in ``images`` (default: figures of 0 and 1). 0.0 when the cell cannot be misread.

    >>> from markone.hardware import MarkIParams
    >>> [round(t, 6) for t in exposure_limits(MarkIParams())]   # 20 ms ln 2, 100 ms ln 2
    [0.013863, 0.069315]
    """
    th = params.s_threshold
    levels = np.array([0.0, 1.0]) if images is None else np.unique(np.asarray(images))
    lit, dark = levels[levels >= th], levels[levels < th]
    rise = decay = 0.0
    if lit.size and params.photocell_rise_s > 0:
        t = float(lit.min())
        rise = math.inf if t == th else params.photocell_rise_s * math.log(t / (t - th))
    if lit.size and dark.size and params.photocell_decay_s > 0:
        t, top = float(dark.max()), float(lit.max())
        decay = params.photocell_decay_s * math.log((top - t) / (th - t))
    return rise, decay


@proves(Method.SETTLING, Method.PHOTOCELL, order=0)
def timing(ctx: MachineContext) -> Claim:
    """The timing claim of the machine of ``ctx`` (its
    :class:`~verify.machine.claims._context.MachineContext`) at its exposure."""
    return timing_claim(ctx.machine, ctx.task, ctx.machine._images(ctx.images),
                        ctx.exposure_s)


@rechecks(Method.SETTLING)
def recheck_settling(ctx: RecheckContext, claim: JSONDict) -> str | None:
    """Showing each figure until the retina settles: recomputed from the machine's
    parameters and light levels (:func:`timing_claim`), the same claim."""
    evidence(claim, TIMING_FIELDS, ctx.where)
    m, exposure = ctx.machine, claim["evidence"].get("exposure_s")
    if exposure is not None:
        raise Refuted(f"it names an exposure of {exposure} s, not settling")
    same_claim(claim, timing_claim(m, ctx.task, m._images(ctx.images), None),
               ctx.where)
    return None if claim["holds"] is None else RECOMPUTED


@rechecks(Method.PHOTOCELL)
def recheck_photocell(ctx: RecheckContext, claim: JSONDict) -> str | None:
    """A fixed exposure, from its evidence: the limits recomputed in closed form; an
    exposure at least as long is safe (true); a shorter one must show its blend (the
    A-units ``figure`` fires differently after ``before``, exactly those named) to be
    false; an undecided claim rests on a search and stays unchecked."""
    ev = evidence(claim, TIMING_FIELDS, ctx.where)
    exposure, m = ev.get("exposure_s"), ctx.machine
    if exposure is None:
        raise Refuted("it names no exposure, so it is no photocell response")
    images = m._images(ctx.images)
    rise, decay = exposure_limits(m.params, images)
    for k, v in _limits_evidence(rise, decay).items():
        if ev.get(k, "<missing>") != v:
            raise Refuted(f"its {k} is {ev.get(k, '<missing>')!r}; in closed form it "
                          f"is {v!r}")
    if _safe(exposure, rise, decay):
        return verdict(claim, True, f"{exposure} s is at least the limits {rise:.6g} s "
                       f"and {decay:.6g} s (closed form)", "the exposure is safe")
    if "figure" not in ev:
        if claim["holds"] is not None:
            raise Refuted(f"{exposure} s is shorter than a limit, and it shows no blend "
                          "of figures: the claim can only be undecided")
        return None
    return verdict(claim, False, _blend_holds(ctx, ev, images, rise, decay),
                   "the exposure is safe")


def _blend_holds(ctx, ev, images, rise, decay):
    """Why the evidence's blend is real (exact), or a refutation."""
    before, figure = ev.get("before"), ev.get("figure")
    n = len(ctx.task.patterns)
    if figure is None or not 0 <= figure < n or not (before is None or 0 <= before < n):
        raise Refuted("its blend names a figure that does not exist")
    A = _read_after(ctx.machine, ctx.task, before, ev["exposure_s"], rise, decay)
    changed = np.flatnonzero(A[figure] != ctx.task.patterns[figure]).tolist()
    if not changed or changed != ev.get("a_units_changed"):
        raise Refuted(f"after {_shown(before)}, {numbered('figure', figure)} fires "
                      f"a_units_changed {changed} differently, not "
                      f"{ev.get('a_units_changed')}")
    return (f"after {_shown(before)}, {numbered('figure', figure)} fires "
            f"{len(changed)} A-units differently (exact)")


def _shown(before):
    """What was on the retina before: the dark start or a figure (from 1)."""
    return "the dark start" if before is None else numbered("figure", before)


def _safe(exposure_s, rise, decay):
    """Whether a fixed exposure is long enough for no photocell to be misread."""
    return exposure_s >= rise and (exposure_s > decay or decay == 0)


def _limits_evidence(rise, decay):
    """The closed-form limits as evidence (JSON has no infinity: ``"inf"``)."""
    return {k: v if math.isfinite(v) else "inf"
            for k, v in (("rise_limit_s", rise), ("decay_limit_s", decay),
                         ("shortest_safe_exposure_s", max(rise, decay)))}


def _read_after(machine, task, before, exposure_s, rise, decay):
    """The A-unit patterns of every figure shown for ``exposure_s`` after figure
    ``before`` was shown long (None: after darkness)."""
    S = task.settled.astype(bool)
    prev = np.zeros(S.shape[1], bool) if before is None else S[before]
    read = S.copy()
    if exposure_s < rise:
        read &= ~(S & ~prev)               # lit now, dark before: still dark
    if exposure_s < decay:
        read |= (~S & prev)                # dark now, lit before: still lit
    return plugboard.fire(machine.wiring, read.astype(np.uint8), task.theta)


def timing_claim(machine: MarkI, task: MachineTask, images: np.ndarray,
                 exposure_s: float | None) -> Claim:
    """Can an exposure of ``exposure_s`` (None: until the retina settles) change an
    A-unit pattern of ``task`` (the figures ``images`` on ``machine``)?

    >>> from markone.datasets import letters
    >>> from markone.hardware import MarkI, MarkIParams
    >>> from verify.machine.task import machine_task
    >>> images, labels = letters("AB", per_class=1, seed=0)
    >>> machine = MarkI(MarkIParams(n_r_units=1), seed=0)
    >>> task = machine_task(machine, images, labels)
    >>> timing_claim(machine, task, machine._images(images), 0.01).holds   # 10 ms
    False
    """
    p = machine.params
    rise, decay = exposure_limits(p, images)
    ev = {"exposure_s": exposure_s, **_limits_evidence(rise, decay)}
    if exposure_s is None:
        return _settling_claim(p, images, ev, max(rise, decay))
    if _safe(exposure_s, rise, decay):
        return Claim(True, Method.PHOTOCELL,
                     f"an exposure of {exposure_s * 1000:.4g} ms cannot change any S-unit "
                     f"(so no A-unit pattern), whatever came before: every exposure "
                     f"longer than {max(rise, decay) * 1000:.4g} ms is safe; shorter ones "
                     "can misread a photocell", ev)
    for q in [None, *range(len(task.patterns))]:   # the dark start, or figure q long
        A = _read_after(machine, task, q, exposure_s, rise, decay)
        changed = np.flatnonzero((A != task.patterns).any(axis=1))
        if changed.size:
            c = int(changed[0])
            units = np.flatnonzero(A[c] != task.patterns[c]).tolist()
            ev.update(before=q, figure=c, a_units_changed=units)
            first = "the dark start" if q is None else f"{_shown(q)} shown long before"
            return Claim(False, Method.PHOTOCELL,
                         f"an exposure of {exposure_s * 1000:.4g} ms blends figures: after "
                         f"{first}, {numbered('figure', c)} fires a different set of "
                         "A-units "
                         f"({len(units)} change); exposures longer than "
                         f"{max(rise, decay) * 1000:.4g} ms are safe", ev)
    return Claim(None, Method.PHOTOCELL,
                 f"an exposure of {exposure_s * 1000:.4g} ms can misread S-units, but no "
                 "figure shown after one other figure changes an A-unit; longer "
                 f"histories were not searched (safe from {max(rise, decay) * 1000:.4g} "
                 "ms)", ev)


def _settling_claim(p, images, ev, safe_from):
    """Each figure shown until the retina settles: safe unless a light level lies
    within the settling tolerance of the threshold."""
    levels = np.unique(images)
    th, tol = p.s_threshold, p.settle_tolerance
    close = levels[(levels >= th) & (levels - tol < th)
                   | (levels < th) & (levels + tol >= th)]
    if close.size:
        return Claim(None, Method.SETTLING,
                     f"light levels {close[:5].tolist()} lie within the settling "
                     f"tolerance {tol} of the threshold {th}: a settled cell may "
                     "still be read on the wrong side", ev)
    return Claim(True, Method.SETTLING, "each figure is shown until the retina settles "
                 f"within {tol} of its light, and every light level is further than "
                 "that from the threshold, so every S-unit is read as settled; "
                 f"fixed exposures longer than {safe_from * 1000:.4g} ms are safe too",
                 ev)
