"""End-stop and convergence claims for the forced and gamma rules, from the verdicts
of :mod:`verify.machine.theory.rules`, and the forced rule's streams re-run for their
re-check (:func:`rerun_forced`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from markone.hardware.runits import numbered
from verify.machine.theory import _gamma_chain
from verify.machine.theory import rules as _rules
from verify.machine.claims._evidence import stream_of
from verify.errors import Refuted
from verify.machine.claims._exact import check_hits, clipped_run
from verify.machine.theory._forced import every_stream
from verify.machine.claims.methods import Method
from verify.machine.faults import static_fault
from verify.machine.report import Claim

__all__ = ["analyses", "rule_claims", "forced_machine_passes", "rerun_forced",
           "RULE_KINDS", "GAMMA_CHAIN_STATES"]

M = Method
#: The kinds of claim the forced and gamma rules' analyses give, by slot.
RULE_KINDS = {"end_stops": (M.NOT_ASSESSED, M.FORCED_BOUND, M.FORCED_HIT, M.FORCED_OPEN,
                            M.GAMMA_CENTRED, M.GAMMA_ROUNDING),
              "converges": (M.NOT_ASSESSED, M.FORCED_LEARNS, M.FORCED_NEVER,
                            M.GAMMA_CENTRED, M.GAMMA_ROUNDING, M.GAMMA_CHAIN)}

#: Most pass-start states of the exact chain search for the gamma rule with whole
#: steps (small tasks only: at most ``verify.machine.theory._gamma_chain.MAX_INPUTS`` inputs).
GAMMA_CHAIN_STATES = 5_000


def rule_claims(X, y, units, rule, quantize, machine_passes=None):
    """End-stop and convergence claims for the forced and gamma rules
    (:mod:`verify.machine.theory.rules`, :mod:`verify.machine.theory._forced`)."""
    wr = (units.steps(units.lo), units.steps(units.hi)) if units.stops else None
    if rule == "forced":
        return _forced_claims(X, y, units, wr, machine_passes)
    return _gamma_claims(X, y, units, wr, quantize)


def _forced_claims(X, y, units, wr, machine_passes):
    """The forced rule's claims, from :func:`verify.machine.theory.rules.forced_verdict`."""
    v = _rules.forced_verdict(X, y, weight_range=wr, eta=units.eta,
                              machine_passes=machine_passes)
    ev = {k: v[k] for k in ("mu", "passes", "max_weight", "stream", "hit_stream")
          if k in v}
    converges = Claim(v["learns"], M.FORCED_LEARNS if v["learns"] is not False
                      else M.FORCED_NEVER, "on streams of whole passes (each figure "
                      "once a pass, any order): " + v["why"], ev)
    end_stops = Claim(v["end_stops"], {True: M.FORCED_BOUND, False: M.FORCED_HIT,
                                       None: M.FORCED_OPEN}[v["end_stops"]],
                      v["end_why"], ev)
    return end_stops, converges


def _gamma_claims(X, y, units, wr, quantize):
    """The gamma rule's claims: with whole motor steps (its rounding branches), or as
    the perceptron on the centred patterns."""
    stop = min(-wr[0], wr[1]) if wr is not None else None
    v = _rules.gamma_verdict(X, y, stop=stop, eta=units.eta)
    ev = {k: v[k] for k in ("learnable", "certificate", "reinforcement_bound",
                            "max_weight", "fits") if k in v}
    d = X.shape[1]
    if quantize:
        g = _rules.gamma_steps_verdict(X, y, weight_range=wr, eta=int(units.eta))
        if not (g["whole"] and not d & (d - 1)):   # else no move is rounded: below
            chain = None
            if wr is not None and all(Fraction(b).denominator == 1 for b in wr):
                chain = _gamma_chain.decide(X, y, int(units.eta), int(wr[0]),
                                            int(wr[1]), range(len(y)),
                                            max_states=GAMMA_CHAIN_STATES)
            return _gamma_steps_claims(g, v, ev, wr, chain)
    if d & (d - 1):
        note = (f"exact for the real-valued rule only: the machine's float64 weights "
                f"round moves of 1/{d} ({d} inputs, not a power of two), so an exact tie "
                "can come out either way; the centred task is "
                + {True: "separable", False: "not separable", None: "undecided"}[
                    v["learnable"]])
        return Claim(None, M.NOT_ASSESSED, note, ev), Claim(None, M.NOT_ASSESSED, note,
                                                             ev)
    return _centred_claims(v, ev)


def _centred_claims(v, ev):
    """The gamma rule as the perceptron on the centred patterns ``x - mean(x)``
    (real-valued weights, or whole steps that never round)."""
    if v["learnable"] is not True:
        why = ("the centred patterns x - mean(x) are not separable (exact certificate): "
               "the gamma rule, which conserves the sum of the weights (0), never "
               "learns for any order" if v["learnable"] is False else
               "separability of the centred patterns undecided")
        return (Claim(None, M.NOT_ASSESSED, why, ev),
                Claim(False if v["learnable"] is False else None,
                      M.GAMMA_CENTRED, why, ev))
    fits = v["fits"] is not False
    end_stops = Claim(True if fits else None, M.GAMMA_CENTRED,
                      f"every weight stays within +/-{v['max_weight']} steps "
                      "(||w|| <= R^2/gamma of the centred task)"
                      + ("" if fits else ", beyond the end stops: not decided"), ev)
    converges = Claim(True if fits else None, M.GAMMA_CENTRED,
                      "the gamma rule conserves the sum of the weights (0), so it is "
                      "the perceptron on the centred patterns x - mean(x), which are "
                      f"separable: it learns for every order within "
                      f"{v['reinforcement_bound']} reinforcements"
                      + ("" if fits else " unless an end stop bites (not decided)"), ev)
    return end_stops, converges


def _gamma_steps_claims(g, v, ev, wr, chain=None):
    """Claims for the gamma rule with whole motor steps (stochastic rounding) from
    :func:`verify.machine.theory.rules.gamma_steps_verdict`; ``v`` the centred (real-valued) verdict,
    ``chain`` the exact finite-chain verdict on the given order
    (:func:`verify.machine.theory._gamma_chain.decide`) when the task is small enough."""
    how = M.GAMMA_ROUNDING
    ev = dict(ev, **{k: g[k] for k in ("stall", "stall_log10", "hit", "alpha")
                     if k in g})
    centred = {True: "separable", False: "not separable", None: "undecided"}[
        v["learnable"]]
    hit = g["hit"]
    if wr is None:
        end_stops = Claim(True, how, "the machine has no end stops", ev)
    elif hit is not None:
        # "replayed" is report text, which a re-check compares: kept as written, so
        # saved reports still re-check (docs/architecture.md)
        end_stops = Claim(False, how, (
            f"not for every rounding: while every other move rounds to 0 (each with "
            f"probability at least 10^{g['stall_log10']:.1f}), "
            f"{numbered('figure', hit['figure'])} moves {numbered('A-unit', hit['a_unit'])} "
            "(inactive in it) by one step each time it is "
            "shown; its own sum stays 0, a mistake, so the stop is reached and cut at its "
            f"presentation {hit['presentations']}, on every order that shows it that "
            "often (replayed in tests by steering the machine's rounding)"), ev)
    else:
        end_stops = Claim(None, M.NOT_ASSESSED, "whole motor steps round the gamma "
                          "rule's moves at random; no rounding branch that reaches a "
                          "stop is known here and no bound covers every rounding", ev)
    words = []
    if g["stall"]:
        words.append(f"it does not learn surely: every move can round to 0 (probability "
                     f"at least 10^{g['stall_log10']:.1f} per move), leaving every weight "
                     "at 0 and every sum at 0, a mistake, so no number of presentations "
                     "makes learning certain on any order")
    alpha = g["alpha"]
    if alpha is not None and alpha["fits"]:
        words.append(f"on every order some rounding learns: with probability at least "
                     f"10^{alpha['log10']:.0f} every move rounds as the error-correction "
                     f"rule's, which learns within {alpha['reinforcements']} "
                     f"reinforcements inside +/-{alpha['max_weight']} steps")
    if chain is not None:
        ev["chain"] = chain
    if chain is not None and chain["learns"] is False:
        start = "from the start" if not chain["path"] else (
            f"after the rounding outcomes in evidence['chain']['path'] (the weights are "
            f"then {chain['trap']})")
        return end_stops, Claim(False, M.GAMMA_CHAIN, (
            f"on the given order, with positive probability it never learns: {start} "
            "no rounding of any later move reaches weights that answer every figure "
            f"right (exact search of {chain['states']} pass-start states)"), ev)
    if chain is not None:
        words.append(f"on the given order it learns with probability 1 (exact search "
                     f"of the finite chain of {chain['states']} pass-start states); "
                     "for other orders whether it does is not decided")
    else:
        words.append("whether it learns with probability 1 is not decided")
    words[-1] += f" (with quantize=False the centred task is {centred})"
    return end_stops, Claim(None, how, "; ".join(words), ev)


def forced_machine_passes(task, units):
    """The most passes a forced-rule machine runs on any stream of whole passes: each
    R-unit is right on every figure in every pass from its own bound on, so the machine
    has learned by the largest. None when some R-unit is not proven to learn."""
    lo, hi = (units.lo, units.hi) if units.stops else (None, None)
    passes = []
    for r, cols in enumerate(task.inputs):
        v = every_stream(task.patterns[:, cols], task.targets[:, r], units.e, lo, hi)
        if v["clean_from"] is None:
            return None
        passes.append(v["clean_from"] + 1)
    return max(passes, default=1)


def analyses(p, plan, task, units):
    """``(dynamic, rules)``: whether the error-correction claims apply (no noise,
    only static faults), and the ``(rule, quantize, machine_passes)`` that the
    forced- and gamma-rule analyses need (None when they do not apply)."""
    dynamic = (p.rule == "error_correction" and p.photocell_noise_sd == 0
               and (plan is None or _static(plan)))
    rules = ((p.rule, p.quantize, forced_machine_passes(task, units)
              if p.rule == "forced" else None) if p.photocell_noise_sd == 0
             and (plan is None or not len(plan)) else None)
    return dynamic, rules


def _static(plan):
    """True when every fault is one the dynamic claims model exactly (permanent
    pattern faults, and motors stopped from the start)."""
    return all(static_fault(f) for f in plan.faults)


def rerun_forced(ctx, claim) -> str | None:
    """The forced rule's streams, re-run exactly and on the machine: the stream
    that reaches a stop (end stops false) and the order that never learns
    (converges false); why, or None when the claim has no stream to run again."""
    ev = claim["evidence"]
    units, (X, y, _) = ctx.units, ctx.r_unit()
    if ctx.slot == "end_stops" and "hit_stream" in ev and claim["holds"] is False:
        stream = stream_of(ev, "hit_stream", len(y))
        check_hits(X, y, units, stream, ctx.rerun, ctx.r, forced=True)
        return (f"the stream of {len(stream)} presentations has its last move cut "
                "short, in exact arithmetic and on the machine")
    if ctx.slot == "converges" and claim["holds"] is False:
        return _forced_never(ctx, X, y, stream_of(ev, "stream", len(y)))
    return None


def _forced_never(ctx, X, y, order):
    """The forced rule shown ``order`` every pass never has a clean pass: with end
    stops every pass starts where a pass with a mistake left off, until a pass ends
    where it began (then every later pass repeats it)."""
    units, rerun, r = ctx.units, ctx.rerun, ctx.r
    if sorted(order) != list(range(len(y))):
        raise Refuted("the stream is not a pass showing every figure once")
    if not units.stops:
        return None   # decided in closed form (P e mu_i + c_i), not a re-runnable cycle
    w = np.zeros(X.shape[1], np.int64)
    for passes in range(1, units.hi - units.lo + 3):
        after, mistakes, _ = clipped_run(X, y, units.e, units.lo, units.hi, order, w,
                                         forced=True)
        if mistakes == 0:
            raise Refuted(f"pass {passes} of the stream is clean")
        if (after == w).all():
            break
        w = after
    else:
        raise Refuted("the passes do not come to a fixed point")

    def per_pass(m):     # one train call per pass: this R-unit's own mistakes
        return [int(m.train(rerun.images, rerun.labels, order=order, max_epochs=1,
                            warm_start=k > 0).mistakes[r]) for k in range(passes + 1)]

    if min(rerun(per_pass)) == 0:
        raise Refuted("on the machine this R-unit has a clean pass on the stream")
    return (f"shown every pass, the order has a mistake in each of {passes} passes "
            "and the last ends where it began, exactly and on the machine")
