"""What can be decided about the ``"forced"`` and ``"gamma"`` rules, and the noise.

Everything here is in increments of ``eta`` from zero, about one R-unit with its 0/1
input patterns ``X`` and targets ``y``.

**forced** (S-controlled): every figure reinforces towards its target, right or wrong,
so each weight is a clipped walk driven by the stream alone. :mod:`verify.machine.theory._forced`
bounds every weight at the start of every pass, for every stream of whole passes (each
figure once a pass, a new order each pass allowed), with and without end stops, and
decides any one order repeated every pass exactly (closed form without stops; with
stops the starts of the passes are monotone and reach a fixed point).
:func:`forced_verdict` turns that into claims: the R-unit is right on every figure in
every pass from a known pass on, on every stream (True); or a named order never has a
clean pass (False: a concrete stream); or neither is shown (None). A negative Hebb score
``mu_i = y_i m . x_i`` makes figure ``i`` wrong in every pass from some pass on, but a
stream can end clean before that, so it is not by itself a proof that no stream learns.

**gamma**: active A-units gain what the inactive ones lose, so the increment is
``y (x - mean(x))`` and the sum of an R-unit's weights is conserved: it stays 0 from
the zero start. Then ``w . x = w . (x - mean(x))``, so with real-valued weights
(``quantize=False``) the gamma rule *is* the perceptron on the centred patterns
``x - mean(x)``: it learns for every order iff they are separable through the origin
(an exact certificate either way), within Novikoff's ``(R/gamma)^2`` reinforcements of
the centred task, and no end stop bites while ``||w|| <= R^2/gamma`` fits inside them.
Whole motor steps (``quantize=True``) round each fractional move to the step below or
above it at random, each potentiometer on its own, so the sum is no longer conserved
and no bound holds for every rounding. :func:`gamma_steps_verdict` decides three
rounding branches exactly, each of positive probability at every move: every move
rounds to 0 (then nothing ever moves: the machine does not learn *surely*, on any
order); one figure steps one A-unit it does not activate (its own sum stays 0, so it is
shown again and again as a mistake: the end stops are reached with positive
probability, on every order); and every move rounds as the error-correction rule's
(then Novikoff on the raw patterns: some rounding learns on every order). Whether the
machine learns *with probability 1* is decided only on small tasks, for the given order
(:mod:`verify.machine.theory._gamma_chain`: an exact search of the finite chain of weights). When every move is a whole number
of steps (``eta k`` a multiple of ``d`` for every figure, ``d`` a power of two) nothing
is rounded and the real-valued analysis holds.

**noise** (empirical, not certified): Gaussian summation noise of ``sd`` steps on a
sum whose noise-free value is ``s`` steps (right side up) gives a wrong answer with
probability ``Phi(-s/sd)`` per presentation (:func:`flip_probability`); potentiometer
drift of ``sd`` steps per sqrt(second) moves the sum over ``k`` active A-units by a
Gaussian of ``sd sqrt(k t)`` after ``t`` seconds, so the same formula holds with that
spread. The tests check the noise formula against seeded runs of the machine.

>>> import numpy as np
>>> X, y = np.array([[1, 1, 0], [0, 1, 1]]), np.array([1, -1])
>>> forced_verdict(X, y)["learns"]          # m = (1, 0, -1): mu = (1, 1)
True
>>> gamma_verdict(X, y)["learnable"]        # centred: (1/3, 1/3, -2/3) and back
True
>>> round(flip_probability(2.0, 1.0), 4)    # 2 sd from zero: 2.3 % of presentations
0.0228
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.typing import ArrayLike
from markone.hardware.runits import numbered
from verify._internal.novikoff import novikoff_mistakes
from verify.machine.theory._forced import every_stream, fixed_order
from verify.machine.task import Units
from verify.margin import max_margin
from verify.separability import check_separable

__all__ = ["forced_verdict", "gamma_verdict", "gamma_steps_verdict",
           "flip_probability", "drift_spread"]


def forced_verdict(X: ArrayLike, y: ArrayLike, weight_range: tuple | None = None,
                   eta: float = 1, machine_passes: int | None = None
                   ) -> dict[str, Any]:
    """The forced rule on streams of whole passes, with or without end stops
    (:mod:`verify.machine.theory._forced`).

    Parameters
    ----------
    X, y : arrays
        One R-unit's 0/1 A-unit patterns and -1/+1 targets.
    weight_range : (lo, hi) or None
        End stops in motor steps (None: none).
    eta : number
        The increment in motor steps.
    machine_passes : int, optional
        The most passes the whole machine can run before it has learned (every
        R-unit proven to learn): the end stops are judged over those passes.

    Returns
    -------
    dict
        ``learns`` (True: right on every figure in every pass from pass ``passes``
        on, on every stream; False: ``stream``, repeated every pass, never has a
        clean pass; None), ``why``, ``mu`` (Hebb scores), ``passes``, ``stream``,
        ``end_stops`` (True: no move is cut short before the machine has learned;
        False: ``hit_stream`` has one; None), ``end_why`` and ``max_weight`` (steps).
    """
    X = np.asarray(X, np.int64)
    y = np.asarray(y, np.int64)
    units = Units(eta, weight_range)
    lo, hi = (units.lo, units.hi) if units.stops else (None, None)
    floats_exact = units.Q & (units.Q - 1) == 0   # float64 sums are these exactly
    es = every_stream(X, y, units.e, lo, hi)
    names = _fixed_orders(np.array(es["mu"]), len(y))
    runs = [(list(o), fixed_order(X, y, units.e, lo, hi, o)) for o in names]
    out: dict[str, Any] = {"mu": es["mu"], "hebb": (y @ X).tolist(),
                           "wrong_from": es["wrong_from"]}
    stops = "" if lo is None else (f" with the end stops at {units.steps(units.lo)} "
                                   f"and {units.steps(units.hi)} steps")
    out.update(_forced_learns(es, runs, names, stops, floats_exact))
    out.update(_forced_end_stops(X, y, units, runs, names, machine_passes,
                                 floats_exact))
    return out


def _fixed_orders(mu, n):
    """The fixed orders the forced rule is tried in, each once with its name: given,
    reversed, and the two lowest Hebb scores first and last."""
    named = {"the given order": list(range(n)), "the reversed order":
             list(range(n))[::-1]}
    for i in np.argsort(mu, kind="stable")[:2].tolist():
        rest = [k for k in range(n) if k != i]
        named.setdefault(f"the order with {numbered('figure', i)} first", [i] + rest)
        named.setdefault(f"the order with {numbered('figure', i)} last", rest + [i])
    names: dict[tuple, str] = {}
    for name, o in named.items():
        names.setdefault(tuple(o), name)
    return names


def _forced_learns(es, runs, names, stops, floats_exact):
    """``learns``, ``why`` (and ``passes`` or ``stream``): the bounds for every
    stream, or a fixed order that never has a clean pass."""
    never = [(o, r) for o, r in runs if r["first_clean"] is None]
    if es["clean_from"] is not None:
        return dict(learns=True, passes=es["clean_from"] + 1,
                    why=f"from pass {es['clean_from'] + 1} on it answers every figure "
                    f"right in every pass, on every stream of whole passes{stops} (the "
                    "start-of-pass bounds of verify.machine.theory._forced)")
    if never and floats_exact:
        o, r = never[0]
        return dict(learns=False, stream=o,
                    why=f"shown in {names[tuple(o)]} every pass{stops}, it is wrong on "
                    f"some figure in every pass ({r['why']}), so the machine never "
                    "learns")
    why = ("not decided: the bounds for every stream do not show a pass after which "
           f"every figure is right, and none of the {len(runs)} fixed orders tried "
           "(given, reversed, lowest Hebb scores first and last) fails for ever; first "
           f"clean passes {[r['first_clean'] for _, r in runs]}")
    if never:
        why += ("; an order that never learns rests on exact ties the float64 machine "
                "may round")
    return dict(learns=None, why=why)


def _forced_end_stops(X, y, units, runs, names, machine_passes, floats_exact):
    """``end_stops``, ``end_why`` (and ``max_weight``, ``hit_stream``): the end stops
    over the passes the machine can run."""
    out: dict[str, Any] = {}
    a, b = (X * (y[:, None] > 0)).sum(axis=0), (X * (y[:, None] < 0)).sum(axis=0)
    if machine_passes is not None:
        top = units.steps(units.e * int(((machine_passes - 1) * np.abs(a - b) + a + b)
                                        .max(initial=0)))
        out["max_weight"] = str(top)
    if not units.stops:
        return dict(out, end_stops=True, end_why="the machine has no end stops")
    if machine_passes is not None and top <= min(-units.steps(units.lo),
                                                 units.steps(units.hi)):
        return dict(out, end_stops=True, end_why=f"every R-unit learns within "
                    f"{machine_passes} passes on every stream, and no weight goes "
                    f"beyond {top} steps by then: inside the stops")
    hits = [(o, r) for o, r in runs if r["first_block"] is not None]
    if hits and floats_exact:
        o, r = hits[0]
        t = r["first_block"]
        stream = (o * (t // len(y) + 1))[:t + 1]
        # "replay:" is report text, which a re-check compares: kept as written, so
        # saved reports still re-check (docs/architecture.md)
        return dict(out, end_stops=False, hit_stream=stream,
                    end_why=f"shown in {names[tuple(o)]} every pass, an end stop cuts a "
                    f"move short at presentation {t + 1}, before this R-unit has a "
                    "clean pass (replay: MarkI.train(images, labels, order=stream, "
                    "max_epochs=1) has saturated > 0)")
    return dict(out, end_stops=None, end_why="not decided: no bound keeps the weights "
                "inside the stops until the machine has learned, and no tried order has "
                "a move cut short before this R-unit learns")


def gamma_verdict(X: ArrayLike, y: ArrayLike, stop: float | None = None,
                  eta: float = 1) -> dict[str, Any]:
    """The gamma rule as the perceptron on centred patterns (see the module doc).

    Returns a dict: ``learnable`` (exact, True / False / None), ``certificate`` or
    ``witness`` (on the integer patterns ``d x - (sum x) 1``), ``reinforcement_bound``
    and ``max_weight`` (Novikoff on the centred task, steps) and ``fits`` (the
    weights provably stay inside ``[-stop, stop]``).
    """
    X = np.asarray(X, np.int64)
    d = X.shape[1]
    Zc = d * X - X.sum(axis=1, keepdims=True)
    v = check_separable(Zc, y, intercept=False, progress=False)
    out: dict[str, Any] = {"learnable": v.separable, "method": v.method}
    if not v.separable:
        if v.separable is False and v.certificate is not None:
            out["certificate"] = {str(i): str(c) for i, c in v.certificate.items()}
        return out
    out["witness"] = [str(c) for c in v.witness or ()]
    mm = max_margin(Zc.astype(np.float64), y, intercept=False)
    R_sq = int((Zc * Zc).sum(axis=1).max())
    low = Fraction(mm.lower)
    out["reinforcement_bound"] = novikoff_mistakes(R_sq, low)
    top = Fraction(eta) * Fraction(R_sq) / (low * d)   # ||w|| in steps, w = Zc-sum / d
    out["max_weight"] = str(math.floor(top))
    out["fits"] = None if stop is None else bool(top <= stop)
    return out


def gamma_steps_verdict(X: ArrayLike, y: ArrayLike,
                        weight_range: tuple | None = None,
                        eta: int = 1) -> dict[str, Any]:
    """The gamma rule with whole motor steps (``quantize=True``), see the module doc.

    The machine rounds every fractional move ``eta y (x_j - k/d)`` of a reinforced
    R-unit to the whole step below or above it, at random (unbiased: up with
    probability equal to its fractional part), each potentiometer on its own. Three
    rounding branches, each of positive probability at every move, are decided here:

    * **stall**: every move rounds to 0 (possible for a figure when every entry is
      below one step, ``eta max(k, d - k) < d``, or when ``k`` is 0 or ``d``): the
      weights stay 0, every sum is 0, a mistake, for ever;
    * **hit**: while the rest stall, figure ``i`` moves one A-unit ``j`` it does not
      activate by a whole step each time (its own sum stays 0, so it stays a
      mistake): ``j`` reaches an end stop after ``|stop| + 1`` presentations of ``i``;
    * **alpha**: active A-units round up to ``eta``, inactive ones to 0 (possible when
      ``eta k < d`` and ``k < d`` for every figure): the machine is then exactly the
      error-correction rule on the raw patterns, which learns within Novikoff's
      ``(R/gamma)^2`` reinforcements on every order and stays inside
      ``eta R^2/gamma`` steps.

    Returns a dict: ``whole`` (every move is a whole number of steps: no rounding),
    ``stall`` (and ``stall_log10``: log10 of the least probability of a stalled move),
    ``hit`` (``figure``, ``a_unit`` (column of ``X``), ``direction``,
    ``presentations``) or None, and ``alpha`` (``reinforcements``, ``max_weight``,
    ``fits``, ``log10``: log10 of a lower bound on the probability of the whole
    branch) or None. The log10 values are floats (approximate); the branches' existence
    is exact.
    """
    X = np.asarray(X, np.int64)
    y = np.asarray(y, np.int64)
    n, d = X.shape
    eta = int(eta)
    k = X.sum(axis=1)
    inner = (k > 0) & (k < d)
    out: dict[str, Any] = {"whole": bool(((eta * k) % d == 0).all())}
    low = inner & (eta * np.maximum(k, d - k) < d)       # every entry below one step
    out["stall"] = bool((low | ~inner).all())
    if out["stall"]:
        logs = [d * 0.0 if not inner[i] else
                k[i] * math.log10(1 - eta * (d - k[i]) / d)
                + (d - k[i]) * math.log10(1 - eta * k[i] / d) for i in range(n)]
        out["stall_log10"] = min(logs)
    out["hit"] = None
    if out["stall"] and inner.any():
        i = int(np.flatnonzero(inner)[0])
        j = int(np.flatnonzero(X[i] == 0)[0])
        direction = -int(y[i])           # the inactive units' move: -y eta k / d
        stop = None if weight_range is None else (
            weight_range[1] if direction > 0 else -weight_range[0])
        out["hit"] = {"figure": i, "a_unit": j, "direction": direction,
                      "presentations": None if stop is None
                      else math.floor(Fraction(stop)) + 1}
    out["alpha"] = None
    if ((k < d) & (eta * k < d)).all():
        mm = max_margin(X.astype(np.float64), y, intercept=False)
        lower = Fraction(mm.lower)
        if lower > 0:
            R_sq = int(k.max())
            M = novikoff_mistakes(R_sq, lower)
            top = eta * Fraction(R_sq) / lower
            stop = None if weight_range is None else min(
                -Fraction(weight_range[0]), Fraction(weight_range[1]))
            per = min(d * math.log10(1 - eta * int(kk) / d) for kk in k)
            out["alpha"] = {"reinforcements": M, "max_weight": str(math.floor(top)),
                            "fits": stop is None or top <= stop, "log10": M * per}
    return out


def flip_probability(score_steps: float, sd: float) -> float:
    """Probability that Gaussian noise of ``sd`` steps turns a sum of ``score_steps``
    (> 0: the right answer) into a wrong one (a sum <= 0): ``Phi(-score/sd)``.
    Empirical model, checked against seeded machine runs, not certified."""
    return 0.5 * math.erfc(score_steps / (sd * math.sqrt(2.0)))


def drift_spread(sd: float, active: int, seconds: float) -> float:
    """Standard deviation (steps) of an R-unit's sum over ``active`` A-units after
    ``seconds`` of potentiometer drift of ``sd`` steps per sqrt(second), before any end
    stop: ``sd sqrt(active seconds)``."""
    return sd * math.sqrt(active * seconds)
