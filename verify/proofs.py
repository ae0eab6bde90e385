"""The perceptron's theorems as proof obligations, discharged by Z3 over the reals.

Each step of the classical proofs is a universally quantified statement about real
numbers and real vectors (of a fixed symbolic dimension, 2 or 3 by default, plus a
dimension-free scalar form where the step only needs scalars). Z3 proves a statement by
showing that its negation has no model; when the negation has one, the model is a
counterexample. Every statement comes with a deliberately wrong variant (a dropped
hypothesis or a wrong constant) that must get a counterexample: that shows the checker
can fail, so a "proved" means something.

Obligations (Novikoff 1962; Freund & Schapire 1999):

``alignment``
    ``||u|| = 1``, ``y u.x >= gamma`` and ``y in {-1, +1}`` imply
    ``u.(w + y x) >= u.w + gamma``: each mistake raises the alignment by at least gamma.
``norm``
    ``y w.x <= 0`` (a mistake), ``||x||^2 <= R^2`` and ``y in {-1, +1}`` imply
    ``||w + y x||^2 <= ||w||^2 + R^2``.
``cauchy_schwarz``
    ``(u.w)^2 <= ||u||^2 ||w||^2`` in the stated dimension.
``novikoff``
    (scalars) ``A >= k gamma``, ``N <= k R^2``, ``A^2 <= N``, ``gamma > 0``, ``k >= 0``
    imply ``k gamma^2 <= R^2``, i.e. ``k <= (R/gamma)^2``.
``fs_margin``
    with ``d = max(0, gamma - y u.x)``, the augmented example ``x' = (x, Delta e_t)``
    and ``u' = (u, y d e_t / Delta)`` satisfy ``y u'.x' >= gamma``; after normalising
    ``u'`` the margin is ``gamma / sqrt(1 + D^2/Delta^2)``.
``fs_norm``
    the augmented vector's squared norm is ``1 + D^2/Delta^2`` when ``||u|| = 1`` and
    ``D^2 = sum d_t^2`` (here with ``T`` = dimension deviations).
``fs_optimum`` and ``intercept_optimum``
    ``(R^2 + c^2)(1 + b^2/c^2) >= (R + |b|)^2`` for every ``c > 0``, with equality at
    ``c^2 = R |b|``: the best appended constant, and the Freund-Schapire
    ``((R + D)/gamma)^2`` (the same inequality with ``b = D``).

Examples
--------
>>> r = prove("norm", dim=2)
>>> r.status
'proved'
>>> bad = prove("norm", dim=2, wrong=True)     # without the mistake hypothesis
>>> bad.status, sorted(bad.counterexample)[:3]
('counterexample', ['R', 'w0', 'w1'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import z3

from markone._validation import check_choice, check_int_at_least

__all__ = ["ProofResult", "OBLIGATIONS", "prove", "check_all"]


@dataclass(frozen=True)
class ProofResult:
    """The outcome of one obligation.

    Attributes
    ----------
    name : str
        Key in :data:`OBLIGATIONS`.
    statement : str
        The statement in words and symbols (the wrong variant's when ``wrong``).
    dim : int
        Dimension of the symbolic vectors.
    wrong : bool
        Whether this is the deliberately wrong variant.
    status : {"proved", "counterexample", "unknown"}
    counterexample : dict
        Variable name -> value (Fraction, or a decimal string for algebraic values)
        when ``status == "counterexample"``; else empty.
    """

    name: str
    statement: str
    dim: int
    wrong: bool
    status: str
    counterexample: dict = field(default_factory=dict, repr=False)

    @property
    def expected(self):
        """True when the outcome is the intended one (proved, or refuted if wrong)."""
        return self.status == ("counterexample" if self.wrong else "proved")


def _vec(name, dim):
    return [z3.Real(f"{name}{i}") for i in range(dim)]


def _dot(a, b):
    return z3.Sum([p * q for p, q in zip(a, b)])


def _sign(y):
    return z3.Or(y == 1, y == -1)


def _alignment(dim, wrong):
    u, w, x = _vec("u", dim), _vec("w", dim), _vec("x", dim)
    y, g = z3.Reals("y gamma")
    gain = 2 * g if wrong else g
    hyp = [_dot(u, u) == 1, _sign(y), y * _dot(u, x) >= g, g > 0]
    new = [wi + y * xi for wi, xi in zip(w, x)]
    return hyp, _dot(u, new) >= _dot(u, w) + gain, (
        f"||u||=1, y u.x >= gamma => u.(w + y x) >= u.w + {'2 ' if wrong else ''}gamma")


def _norm(dim, wrong):
    w, x = _vec("w", dim), _vec("x", dim)
    y, R = z3.Reals("y R")
    hyp = [_sign(y), _dot(x, x) <= R * R, R >= 0]
    if not wrong:
        hyp.append(y * _dot(w, x) <= 0)
    new = [wi + y * xi for wi, xi in zip(w, x)]
    return hyp, _dot(new, new) <= _dot(w, w) + R * R, (
        ("" if wrong else "y w.x <= 0, ") + "||x||^2 <= R^2 => ||w + y x||^2 <= ||w||^2 + R^2")


def _cauchy_schwarz(dim, wrong):
    u, w = _vec("u", dim), _vec("w", dim)
    lhs = _dot(u, w) if wrong else _dot(u, w) * _dot(u, w)
    return [], lhs <= _dot(u, u) * _dot(w, w), (
        "(u.w)" + ("" if wrong else "^2") + " <= ||u||^2 ||w||^2")


def _novikoff(dim, wrong):
    k, A, N, g, R = z3.Reals("k A N gamma R")
    hyp = [A >= k * g, N <= k * R * R, A * A <= N, g > 0, R > 0, k >= 0]
    concl = k * g <= R if wrong else k * g * g <= R * R
    return hyp, concl, ("A >= k gamma, N <= k R^2, A^2 <= N => "
                        + ("k <= R/gamma" if wrong else "k <= (R/gamma)^2"))


def _fs_margin(dim, wrong):
    y, g, s, d, Delta = z3.Reals("y gamma s d Delta")   # s = u.x
    # the wrong variant measures the deviation from 0 instead of from gamma
    target = 0 if wrong else g
    hyp = [_sign(y), g > 0, Delta > 0,
           d == z3.If(target - y * s > 0, target - y * s, 0)]
    # augmented: x' = (x, Delta e_t), u' = (u, y d / Delta) (unnormalised)
    return hyp, y * (s + Delta * (y * d / Delta)) >= g, (
        "d = max(0, " + ("" if wrong else "gamma ")
        + "- y u.x) => y (x, Delta e_t).(u, y d e_t/Delta) >= gamma")


def _fs_norm(dim, wrong):
    u, dev = _vec("u", dim), _vec("d", dim)
    Delta, D = z3.Reals("Delta D")
    # augmented u' = (u, d_1/Delta, ..., d_T/Delta) (signs y_t squared away)
    # both sides times Delta^2, to keep Z3 away from division
    aug_sq = _dot(u, u) * Delta * Delta + _dot(dev, dev)
    hyp = [_dot(u, u) == 1, Delta > 0, D * D == _dot(dev, dev), D >= 0]
    rhs = Delta * Delta + (D * Delta if wrong else D * D)
    return hyp, aug_sq == rhs, (
        "||(u, d/Delta)||^2 = 1 + " + ("D/Delta" if wrong else "D^2/Delta^2"))


def _optimum(dim, wrong, names=("R", "b", "c"), nonneg_b=False):
    R, b, c = z3.Reals(" ".join(names))
    absb = z3.If(b >= 0, b, -b)
    # the cost times c^2 (c > 0), to keep Z3 away from division
    cost = (R * R + c * c) * (c * c + b * b)
    best = (R + absb) * (R + absb) * c * c
    hyp = [R > 0, c > 0] + ([b >= 0] if nonneg_b else [])
    if wrong:   # claims the minimiser is c = R|b| (it is c^2 = R|b|)
        hyp.append(c == R * absb)
        concl = cost == best
    else:
        concl = z3.And(cost >= best, z3.Implies(c * c == R * absb, cost == best))
    r, bb, cc = names
    return hyp, concl, (
        f"{cc} > 0 => ({r}^2 + {cc}^2)(1 + {bb}^2/{cc}^2) >= ({r} + |{bb}|)^2, "
        + (f"equality at {cc} = {r}|{bb}| (wrong)" if wrong
           else f"equality at {cc}^2 = {r}|{bb}|"))


def _fs_optimum(dim, wrong):
    return _optimum(dim, wrong, names=("R", "D", "Delta"), nonneg_b=True)


#: name -> builder(dim, wrong) returning (hypotheses, conclusion, statement text)
OBLIGATIONS = {
    "alignment": _alignment,
    "norm": _norm,
    "cauchy_schwarz": _cauchy_schwarz,
    "novikoff": _novikoff,
    "fs_margin": _fs_margin,
    "fs_norm": _fs_norm,
    "fs_optimum": _fs_optimum,
    "intercept_optimum": _optimum,
}


def _value(v):
    if z3.is_rational_value(v):
        return Fraction(v.numerator_as_long(), v.denominator_as_long())
    if z3.is_algebraic_value(v):
        return v.approx(20).as_decimal(20).rstrip("?")
    return str(v)


def prove(name, *, dim=2, wrong=False, timeout_ms=20_000):
    """Discharge one obligation with Z3 (or refute its wrong variant).

    Parameters
    ----------
    name : str
        One of :data:`OBLIGATIONS`.
    dim : int, default 2
        Dimension of the symbolic vectors (ignored by the scalar statements).
    wrong : bool, default False
        Check the deliberately wrong variant instead; it must get a counterexample.
    timeout_ms : int, default 20000
        Z3's time limit; past it the status is ``"unknown"``.

    Returns
    -------
    ProofResult

    Examples
    --------
    >>> prove("novikoff").status, prove("novikoff", wrong=True).status
    ('proved', 'counterexample')
    """
    check_choice(name, "name", tuple(OBLIGATIONS))
    dim = check_int_at_least(dim, "dim", 1)
    hyp, concl, text = OBLIGATIONS[name](dim, wrong)
    solver = z3.Solver()
    solver.set("timeout", int(timeout_ms))
    solver.add(*hyp)
    solver.add(z3.Not(concl))
    verdict = solver.check()
    if verdict == z3.unsat:
        status, cex = "proved", {}
    elif verdict == z3.sat:
        model = solver.model()
        status = "counterexample"
        cex = {d.name(): _value(model[d]) for d in sorted(model.decls(), key=str)
               if d.arity() == 0}
    else:
        status, cex = "unknown", {}
    return ProofResult(name=name, statement=text, dim=dim, wrong=bool(wrong),
                       status=status, counterexample=cex)


def check_all(*, dims=(2, 3), wrong=False, timeout_ms=20_000):
    """Check every obligation in every dimension; return a tuple of :class:`ProofResult`.

    Statements that involve no vector are checked once (reported with the first
    dimension).

    >>> results = check_all(dims=(2,))
    >>> all(r.status == "proved" for r in results), len(results)
    (True, 8)
    """
    scalar = {"novikoff", "fs_margin", "fs_optimum", "intercept_optimum"}
    out = []
    for name in OBLIGATIONS:
        for k, dim in enumerate(dims):
            if name in scalar and k > 0:
                continue
            out.append(prove(name, dim=dim, wrong=wrong, timeout_ms=timeout_ms))
    return tuple(out)
