"""What :func:`~verify.machine.check_machine` can still claim when the potentiometers
vary (the device variation of :class:`~markone.hardware.MarkIParams`,
``params.variation``).

The learnable, timing and fault claims are about the retina, the plugboard and the
A-unit patterns: variation does not touch them, and they stand as decided. The
end-stop, convergence and quantisation claims are about the moves: their proofs assume
that every move is the requested whole number of steps. Under variation
(:func:`variation_effect`):

``"harmless"``
    ``sticky_steps`` alone, at most the increment, under the error-correction or forced
    rule: every requested move is ``+/-increment_steps``, never below the threshold,
    so nothing sticks and the machine is the one without it; every claim stands.
``"frozen"``
    ``sticky_prob = 1``, or ``sticky_steps`` above the increment under the
    error-correction or forced rule, with no creep (``drift_rate = 0``) and no drift or
    summation-noise fault: no potentiometer ever moves. Every sum stays 0, which is a
    mistake, so no pass is ever clean (the machine does not learn, on any stream: the
    given order is the witness) and no move is ever cut short by an end stop.
``"open"``
    any other variation: the end-stop, convergence and quantisation claims are not
    decided (``holds=None``), and the claim names the variation and what it breaks.

Examples
--------
>>> from markone.hardware import MarkIParams
>>> variation_effect(MarkIParams(), None) is None
True
>>> [variation_effect(MarkIParams(**v), None) for v in (
...     {"sticky_steps": 1}, {"sticky_steps": 2}, {"step_dtod": 0.1})]
['harmless', 'frozen', 'open']
>>> stops, converges = variation_claims(MarkIParams(up_down=0.2), None, 4)
>>> converges.holds, converges.method
(None, 'device variation')
>>> variation_claims(MarkIParams(sticky_steps=2), None, 4)[1].holds   # frozen
False
"""

from __future__ import annotations

from typing import Any

from verify.machine.claims._evidence import same_claim
from verify.errors import Refuted
from verify.machine.claims.methods import Method
from verify.machine.claims.registry import add_kind, proves, rechecks
from verify.machine.report import Claim

__all__ = ["variation_effect", "variation_claims", "variation_quantisation",
           "variation_words", "under_variation", "recheck_variation"]

#: Fault kinds that move the weights or the sums without a reinforcement.
_MOVING_FAULTS = ("PotentiometerDrift", "NoisySum")

_VARIATION = ("variation",)
add_kind("end_stops", Method.VARIATION_FROZEN, True, evidence=_VARIATION)
add_kind("end_stops", Method.VARIATION, None, evidence=_VARIATION)
add_kind("converges", Method.VARIATION_FROZEN, False, evidence=(*_VARIATION, "stream"))
add_kind("converges", Method.VARIATION, None, evidence=_VARIATION)

#: What each kind of variation breaks, in words.
_BREAKS = {
    "step_dtod": "each potentiometer turns its own step, so weights are not whole steps",
    "step_std": "each move turns a random amount",
    "up_down": "steps up and down differ, so weights are not whole steps",
    "drift_rate": "the weights creep between decisions",
    "sticky_steps": "moves below the threshold stick",
    "sticky_prob": "moves stick at random",
}


def variation_words(params: Any) -> str:
    """The variation of ``params`` in words (``'up_down=0.2'``).

    >>> from markone.hardware import MarkIParams
    >>> variation_words(MarkIParams(up_down=0.2, sticky_prob=0.1))
    'up_down=0.2, sticky_prob=0.1'
    """
    return ", ".join(f"{k}={v:g}" for k, v in params.variation.items())


def variation_effect(params: Any, plan: Any) -> str | None:
    """``"harmless"``, ``"frozen"`` or ``"open"`` (see the module doc) for a machine
    with ``params`` and fault plan ``plan`` (or None); None without variation."""
    v = params.variation
    if not v:
        return None
    whole_moves = params.rule in ("error_correction", "forced")
    if set(v) == {"sticky_steps"} and whole_moves \
            and v["sticky_steps"] <= params.increment_steps:
        return "harmless"
    moving = plan is not None and any(type(f).__name__ in _MOVING_FAULTS
                                      for f in plan.faults)
    sticks = params.sticky_prob == 1 or (
        whole_moves and params.sticky_steps > params.increment_steps)
    if sticks and params.drift_rate == 0 and not moving:
        return "frozen"
    return "open"


def variation_claims(params: Any, plan: Any, n_examples: int
                     ) -> tuple[Claim, Claim] | None:
    """The end-stop and convergence claims of a learnable R-unit on a machine whose
    variation is ``"frozen"`` or ``"open"`` (the figures' count ``n_examples`` gives
    the frozen machine's witness stream); None when the usual analyses decide them
    (no variation, or harmless)."""
    effect = variation_effect(params, plan)
    if effect in (None, "harmless"):
        return None
    ev = {"variation": dict(params.variation)}
    words = variation_words(params)
    if effect == "frozen":
        stream = list(range(n_examples))
        return (Claim(True, Method.VARIATION_FROZEN, f"with {words} no potentiometer "
                      "ever moves, so no move is ever cut short by an end stop", ev),
                Claim(False, Method.VARIATION_FROZEN, f"with {words} no potentiometer "
                      "ever moves: every sum stays 0, a mistake, so no pass is ever "
                      "clean (the given order, repeated, is the witness)",
                      {**ev, "stream": stream}))
    note = (f"not decided under device variation ({words}): "
            + "; ".join(_BREAKS[k] for k in params.variation)
            + "; the proofs assume every move is the requested whole number of steps")
    return Claim(None, Method.VARIATION, note, ev), Claim(None, Method.VARIATION, note, ev)


def variation_quantisation(params: Any) -> Claim | None:
    """The quantisation claim under variation that is not harmless: not decided (the
    requested moves may be whole, the turned ones are not); None when the usual claim
    stands."""
    if variation_effect(params, None) in (None, "harmless"):
        return None
    return Claim(None, Method.VARIATION, f"not decided under device variation "
                 f"({variation_words(params)}): the potentiometers do not turn the "
                 "requested whole steps, so the machine's decisions need not be the "
                 "real-valued rule's", {"variation": dict(params.variation)})


def _slot_of(pair: tuple, slot: str) -> Claim:
    """The claim of ``slot`` from an ``(end_stops, converges)`` pair."""
    return pair[("end_stops", "converges").index(slot)]


@proves(Method.VARIATION_FROZEN, Method.VARIATION, order=10)
def under_variation(ctx: Any) -> Claim | None:
    """The claim (of ``ctx.slot``) of a learnable R-unit whose potentiometers vary so
    that the whole-step analyses do not apply (:func:`variation_claims`)."""
    base = ctx.base
    if base.params is None:
        return None
    pair = variation_claims(base.params, base.plan, len(base.task.patterns))
    return None if pair is None else _slot_of(pair, ctx.slot)


@rechecks(Method.VARIATION_FROZEN, Method.VARIATION)
def recheck_variation(ctx: Any, claim: dict) -> Any:
    """Derive the claim again from the machine's variation and compare; a frozen
    machine's witness stream is re-run on it (no pass clean, nothing moved)."""
    pair = variation_claims(ctx.machine.params, ctx.plan, len(ctx.task.patterns))
    if pair is None:
        raise Refuted(f"its method {claim['method']!r} is for a machine whose "
                      "potentiometers vary, and this machine's do not (or harmlessly)")
    same_claim(claim, _slot_of(pair, ctx.slot), ctx.where)
    if claim["holds"] is None:
        return None
    stream = _slot_of(pair, "converges").evidence["stream"]
    run = ctx.rerun(lambda m: m.train(ctx.images, ctx.labels, order=stream,
                                       max_epochs=3))
    if run.converged or run.weights.any() or run.saturated.any():
        raise Refuted("re-run, a potentiometer moved or a pass was clean")
    return ("re-run on the machine: three passes of the given order, no "
            "potentiometer moved and no pass was clean")
