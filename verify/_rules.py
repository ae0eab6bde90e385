"""What can be decided about the ``"forced"`` and ``"gamma"`` rules, and the noise.

Everything here is in increments of ``eta`` from zero, about one R-unit with its 0/1
input patterns ``X`` and targets ``y``.

**forced** (S-controlled): every figure reinforces towards its target, right or wrong.
After ``P`` passes that each show every figure once (in any order, a new order each
pass allowed) the weights are ``P m`` with the Hebb vector ``m = sum_i y_i x_i``; inside
a pass, before figure ``i``, they are ``P m + s`` with ``s`` a sum of some other
``y_k x_k``. So figure ``i``'s score is ``P mu_i + y_i x_i . s`` with
``mu_i = y_i m . x_i`` and ``|y_i x_i . s| <= B_i = sum_{k != i} x_i . x_k``:

* every ``mu_i > 0``: no mistake in any pass after ``P* = max_i floor(B_i / mu_i)``, so
  the machine learns on every such stream within ``P* + 1`` passes, provided no end
  stop is reached before (``|w_j| <= P* |m_j| + c_j`` with ``c_j`` the figures that
  activate ``j``: checked against the stops);
* some ``mu_i < 0``: figure ``i`` is a mistake in every pass after
  ``floor(B_i / |mu_i|)``, for every such stream: the ideal machine never learns;
* some ``mu_i = 0`` (none negative): showing ``i`` first in every pass makes its score
  0, a mistake, every pass: there is a stream on which it never learns.

**gamma**: active A-units gain what the inactive ones lose, so the increment is
``y (x - mean(x))`` and the sum of an R-unit's weights is conserved: it stays 0 from
the zero start. Then ``w . x = w . (x - mean(x))``, so with real-valued weights
(``quantize=False``) the gamma rule *is* the perceptron on the centred patterns
``x - mean(x)``: it learns for every order iff they are separable through the origin
(an exact certificate either way), within Novikoff's ``(R/gamma)^2`` reinforcements of
the centred task, and no end stop bites while ``||w|| <= R^2/gamma`` fits inside them.
Whole motor steps round the fractional moves stochastically, which this does not cover.

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

from markone._typing import ArrayLike

__all__ = ["forced_verdict", "gamma_verdict", "flip_probability", "drift_spread"]


def forced_verdict(X: ArrayLike, y: ArrayLike, stop: float | None = None,
                   eta: float = 1) -> dict[str, Any]:
    """The forced rule on passes that show every figure once (see the module doc).

    Returns a dict: ``learns`` (True / False / None), ``why``, ``mu`` (the Hebb scores
    ``y_i m . x_i``), ``passes`` (the pass bound ``P* + 1`` when it learns),
    ``max_weight`` (the bound on ``|w_j|`` until then, in steps) and ``stream`` (a
    pass order that never learns, when one is known).
    """
    X = np.asarray(X, np.int64)
    y = np.asarray(y, np.int64)
    m = y @ X
    mu = y * (X @ m)
    G = X @ X.T
    B = G.sum(axis=1) - np.diag(G)
    out: dict[str, Any] = {"mu": mu.tolist(), "hebb": m.tolist()}
    if (mu < 0).any():
        i = int(np.flatnonzero(mu < 0)[0])
        out.update(learns=False, figure=i, stream=list(range(len(y))),
                   why=f"figure {i} has Hebb score {int(mu[i])} < 0: from pass "
                   f"{int(B[i] // -mu[i]) + 1} on it is answered wrongly in every pass, "
                   "whatever the order")
        return out
    if (mu == 0).any():
        i = int(np.flatnonzero(mu == 0)[0])
        order = [i] + [k for k in range(len(y)) if k != i]
        out.update(learns=False, figure=i, stream=order,
                   why=f"figure {i} has Hebb score 0: shown first in every pass its "
                   "score is 0, a mistake, so that stream never learns")
        return out
    passes = int((B // mu).max()) + 1
    top = Fraction(eta) * int((passes * np.abs(m) + X.sum(axis=0)).max(initial=0))
    out.update(passes=passes, max_weight=str(top))
    if stop is not None and top > stop:
        out.update(learns=None, why=f"every Hebb score is positive, so without end "
                   f"stops it learns within {passes} passes; the weights may reach "
                   f"{top} steps by then, beyond the stops at {stop}, which are not "
                   "analysed further")
        return out
    out.update(learns=True, why=f"every Hebb score is positive: it learns within "
               f"{passes} passes on every stream of whole passes, and no weight goes "
               f"beyond {top} steps on the way")
    return out


def gamma_verdict(X: ArrayLike, y: ArrayLike, stop: float | None = None,
                  eta: float = 1) -> dict[str, Any]:
    """The gamma rule as the perceptron on centred patterns (see the module doc).

    Returns a dict: ``learnable`` (exact, True / False / None), ``certificate`` or
    ``witness`` (on the integer patterns ``d x - (sum x) 1``), ``reinforcement_bound``
    and ``max_weight`` (Novikoff on the centred task, steps) and ``fits`` (the
    weights provably stay inside ``[-stop, stop]``).
    """
    from verify.margin import max_margin
    from verify.separability import check_separable

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
    out["reinforcement_bound"] = math.floor(Fraction(R_sq) / low ** 2)
    top = Fraction(eta) * Fraction(R_sq) / (low * d)   # ||w|| in steps, w = Zc-sum / d
    out["max_weight"] = str(math.floor(top))
    out["fits"] = None if stop is None else bool(top <= stop)
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
