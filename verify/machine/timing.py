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
from verify.machine._evidence import RECOMPUTED, same_claim
from verify.machine.claims import Method, proves, rechecks
from verify.machine.schema import check_value
from verify.machine.report import Claim
from verify.machine.task import MachineTask

if TYPE_CHECKING:
    from markone.hardware import MarkI, MarkIParams
    from verify.machine._context import MachineContext
    from verify.machine._evidence import RecheckContext

__all__ = ["exposure_limits", "timing_claim", "timing", "recheck_timing"]

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
    :class:`~verify.machine._context.MachineContext`) at its exposure."""
    return timing_claim(ctx.machine, ctx.task, ctx.machine._images(ctx.images),
                        ctx.exposure_s)


@rechecks(Method.SETTLING, Method.PHOTOCELL)
def recheck_timing(ctx: RecheckContext, claim: JSONDict) -> str | None:
    """The timing claim at the exposure it names, recomputed in closed form from the
    machine's parameters and figures (:func:`timing_claim`): the same claim."""
    exposure = claim["evidence"].get("exposure_s")
    check_value(exposure, lambda v: v is None or (
        type(v) in (int, float) and math.isfinite(v) and v > 0),
        "null or a positive number", "timing evidence.exposure_s")
    m = ctx.machine
    same_claim(claim, timing_claim(m, ctx.task, m._images(ctx.images), exposure),
               ctx.where)
    return None if claim["holds"] is None else RECOMPUTED


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
    from markone.hardware import plugboard

    p = machine.params
    rise, decay = exposure_limits(p, images)
    ev = {"exposure_s": exposure_s,
          **{k: v if math.isfinite(v) else "inf"       # JSON has no infinity
             for k, v in (("rise_limit_s", rise), ("decay_limit_s", decay),
                          ("shortest_safe_exposure_s", max(rise, decay)))}}
    if exposure_s is None:
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
                     f"fixed exposures longer than {max(rise, decay) * 1000:.4g} ms are "
                     "safe too", ev)
    if exposure_s >= rise and (exposure_s > decay or decay == 0):
        return Claim(True, Method.PHOTOCELL,
                     f"an exposure of {exposure_s * 1000:.4g} ms cannot change any S-unit "
                     f"(so no A-unit pattern), whatever came before: every exposure "
                     f"longer than {max(rise, decay) * 1000:.4g} ms is safe; shorter ones "
                     "can misread a photocell", ev)
    S = task.settled.astype(bool)
    n = len(S)
    befores = [None] + list(range(n))   # the dark start, or figure q shown long before
    for q in befores:
        prev = np.zeros(S.shape[1], bool) if q is None else S[q]
        read = S.copy()
        if exposure_s < rise:
            read &= ~(S & ~prev)               # lit now, dark before: still dark
        if exposure_s < decay:
            read |= (~S & prev)                # dark now, lit before: still lit
        A = plugboard.fire(machine.wiring, read.astype(np.uint8), task.theta)
        changed = np.flatnonzero((A != task.patterns).any(axis=1))
        if changed.size:
            c = int(changed[0])
            units = np.flatnonzero(A[c] != task.patterns[c]).tolist()
            ev.update(before=q, figure=c, a_units_changed=units)
            first = "the dark start" if q is None else f"figure {q} shown long before"
            return Claim(False, Method.PHOTOCELL,
                         f"an exposure of {exposure_s * 1000:.4g} ms blends figures: after "
                         f"{first}, figure {c} fires a different set of A-units "
                         f"({len(units)} change); exposures longer than "
                         f"{max(rise, decay) * 1000:.4g} ms are safe", ev)
    return Claim(None, Method.PHOTOCELL,
                 f"an exposure of {exposure_s * 1000:.4g} ms can misread S-units, but no "
                 "figure shown after one other figure changes an A-unit; longer "
                 f"histories were not searched (safe from {max(rise, decay) * 1000:.4g} "
                 "ms)", ev)


