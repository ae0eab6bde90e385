"""The perceptron's theorems as chained proof obligations, for every dimension at once.

Each theorem is an induction on the number of mistakes ``k``, split into parts that an
SMT solver discharges over the reals: a **base** case (the zero start satisfies the
invariant), a **step** (a mistake preserves it) and a **bound** (the invariant forces
the conclusion). Natural-number induction itself (base and step give the invariant
after every mistake; an example the perceptron gets right changes nothing) is the only
reasoning left outside the solver.

**Dimension-free.** A part mentions a few vectors (the comparator ``u``, the weights
``w``, an example ``x``, ...) only through their inner products, which are real
unknowns ``g_a_b`` whose matrix (the Gram matrix) is positive semidefinite: every
principal minor is ``>= 0``. Any finite family of vectors in any real inner-product
space has a PSD Gram matrix, and every PSD ``k x k`` matrix is the Gram matrix of
``k`` vectors of ``R^k`` (the rows of a Cholesky factor); so a part proved this way
holds in every dimension, and a counterexample is one in ``R^k`` (see
``docs/theory/proofs.md``).

Every part has a deliberately wrong variant (a dropped hypothesis or a wrong constant)
that must get a counterexample: an exact rational model that can be plugged back into
the statement (:meth:`ProofResult.holds`). Each query is SMT-LIB 2 text that Z3 and
cvc5 both read (:mod:`verify.smt`) and that :func:`prove` can save for any other solver.

Theorems and parts (:data:`OBLIGATIONS`):

* ``novikoff.*`` -- Novikoff (1962): ``||u|| = 1`` and ``y u.x >= gamma`` on every
  example of radius ``R``; invariant ``u.w_k >= k gamma`` and ``||w_k||^2 <= k R^2``;
  conclusion ``k <= (R/gamma)^2``.
* ``freund_schapire.*`` -- Freund & Schapire (1999), any data, one pass: with deviations
  ``d_t = max(0, gamma - y_t u.x_t)`` and ``D^2 = sum d_t^2``, invariant
  ``u.w_k >= k gamma - A_k``, ``||w_k||^2 <= k R^2``, ``A_k^2 <= k S_k`` (``A``, ``S``
  the sums of ``d`` and ``d^2`` over the mistakes); conclusion
  ``k <= ((R + D)/gamma)^2``.
* ``intercept.*`` -- the cost of learning an intercept by appending a constant ``c``:
  radius ``sqrt(R^2 + c^2)``, comparator ``(u, b/c)`` of squared norm ``1 + b^2/c^2``,
  hence ``k <= (R^2 + c^2)(1 + b^2/c^2)/gamma^2``, at least ``((R + |b|)/gamma)^2``
  with equality at ``c^2 = R |b|`` (Novikoff's base and step apply unchanged in the
  augmented space, being dimension-free).
* ``kesler.*`` -- the multiclass (argmax) perceptron through Kesler's construction:
  invariant ``U.W_k >= k gamma``, ``||W_k||^2 <= 2 k R^2``; conclusion
  ``k <= 2 (R/gamma)^2``.
* ``endstop.*`` -- what the Mark I's potentiometers must hold (``verify.machine``):
  every weight ``|w_j| <= ||w|| <= R^2/gamma``, and ``|w_j| <= k`` when every
  ``|x_j| <= 1``.
* ``clipped.*`` -- the clipped Novikoff ball (``verify.machine.theory._projected``): an end stop
  never moves a weight away from a centre ``a`` inside the stops (``project``, one
  coordinate; summing over the coordinates is left outside the solver, like the
  induction), a mistake brings ``w`` closer to ``a`` by ``2 e y x.a - e^2 ||x||^2``
  (``step``), and ``k`` falls of at least ``delta`` from ``D_0`` allow at most
  ``D_0/delta`` mistakes (``bound``).

Examples
--------
>>> r = prove("novikoff.step")
>>> r.status, r.dimension_free
('proved', True)
>>> bad = prove("novikoff.step", wrong=True)          # without "it was a mistake"
>>> bad.status, bad.holds(bad.counterexample)
('counterexample', False)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markone._internal.io import atomic_write
from markone._internal.validation import check_choice, check_int_at_least
from markone._internal.typing import PathLike
from verify._internal.budget import check_timeout
from verify.smt import SOLVERS, And, Eq, Not, Or, Real, Session, Sum, evaluate
from verify.smt import Term

__all__ = ["ProofResult", "OBLIGATIONS", "prove", "check_all", "table", "save_smt2"]

# --------------------------------------------------------------------------------------
# vectors in an inner-product space known only through its Gram matrix


class Vec:
    """A linear combination of named vectors, with coefficients (numbers or terms)."""

    def __init__(self, space, coefs):
        self.space, self.coefs = space, coefs

    def __add__(self, other):
        out = dict(self.coefs)
        for k, c in other.coefs.items():
            out[k] = out[k] + c if k in out else c
        return Vec(self.space, out)

    def __neg__(self):
        return Vec(self.space, {k: -c for k, c in self.coefs.items()})

    def __sub__(self, other):
        return self + (-other)

    def __rmul__(self, scalar):
        return Vec(self.space, {k: _times(scalar, c) for k, c in self.coefs.items()})

    def dot(self, other):
        """The inner product, expanded by bilinearity into the space's products."""
        terms = []
        for (a, ca), (b, cb) in itertools.product(self.coefs.items(), other.coefs.items()):
            terms.append(_times(_times(ca, cb), self.space.inner(a, b)))
        return Sum(terms)


def _times(a, b):
    if isinstance(a, int) and a == 1:
        return b
    if isinstance(b, int) and b == 1:
        return a
    if isinstance(a, int) and a == -1:
        return -b
    return a * b


class GramSpace:
    """Vectors known only through their inner products: unknowns ``g_a_b`` whose
    matrix is positive semidefinite (every principal minor >= 0, which characterises
    positive semidefiniteness)."""

    def __init__(self):
        self.names = []

    @property
    def form(self):
        """``"gram"``, or ``"scalar"`` for a statement that mentions no vector."""
        return "gram" if self.names else "scalar"

    def vectors(self, *names):
        for n in names:
            if n not in self.names:
                self.names.append(n)
        return [Vec(self, {n: 1}) for n in names]

    def inner(self, a, b):
        i, j = sorted((self.names.index(a), self.names.index(b)))
        return Real(f"g_{self.names[i]}_{self.names[j]}")

    def realisable(self):
        """The PSD conditions: every principal minor of the Gram matrix is >= 0."""
        out = []
        for r in range(1, len(self.names) + 1):
            for sub in itertools.combinations(self.names, r):
                out.append(_det([[self.inner(a, b) for b in sub] for a in sub]) >= 0)
        return out


def _det(M):
    """Determinant by Laplace expansion along the first row (small symbolic matrices)."""
    if len(M) == 1:
        return M[0][0]
    terms = []
    for j, a in enumerate(M[0]):
        minor = [row[:j] + row[j + 1:] for row in M[1:]]
        term = a * _det(minor)
        terms.append(term if j % 2 == 0 else -term)
    return Sum(terms)


def _reals(names):
    return [Real(n) for n in names.split()]


def _pm1(y):
    return Or(Eq(y, 1), Eq(y, -1))


# --------------------------------------------------------------------------------------
# the theorems, part by part: each builder(space, wrong) -> (hypotheses, conclusion)


def _novikoff_base(S, wrong):
    u, w = S.vectors("u", "w")
    hyp = [Eq(u.dot(u), 1)] + ([] if wrong else [Eq(w.dot(w), 0)])
    return hyp, And(u.dot(w) >= 0, w.dot(w) <= 0)


def _novikoff_step(S, wrong):
    u, w, x = S.vectors("u", "w", "x")
    y, k, g, R = _reals("y k gamma R")
    hyp = [Eq(u.dot(u), 1), _pm1(y), y * u.dot(x) >= g, g > 0, x.dot(x) <= R * R,
           k >= 0, u.dot(w) >= k * g, w.dot(w) <= k * R * R]
    if not wrong:
        hyp.append(y * w.dot(x) <= 0)
    new = w + y * x
    return hyp, And(u.dot(new) >= (k + 1) * g, new.dot(new) <= (k + 1) * R * R)


def _comparator_bound(S, wrong, radius_sq, norm_sq_hyp, claim):
    """``v.w >= k gamma`` and ``||w||^2 <= k R'^2`` force ``k gamma^2 <= R'^2 ||v||^2``."""
    v, w = S.vectors("u", "w")
    k, g = _reals("k gamma")
    hyp = [g > 0, k >= 0, v.dot(w) >= k * g, w.dot(w) <= k * radius_sq] + norm_sq_hyp(v)
    return hyp, claim(k, g)


def _novikoff_bound(S, wrong):
    (R,) = _reals("R")
    return _comparator_bound(
        S, wrong, R * R, lambda v: [Eq(v.dot(v), 1), R >= 0],
        lambda k, g: k * g <= R if wrong else k * g * g <= R * R)


def _fs_base(S, wrong):
    u, w = S.vectors("u", "w")
    A, Ssum = _reals("A S")
    hyp = [Eq(u.dot(u), 1), Eq(A, 0), Eq(Ssum, 0)] + ([] if wrong else [Eq(w.dot(w), 0)])
    return hyp, And(u.dot(w) >= 0 - A, w.dot(w) <= 0, A * A <= 0 * Ssum)


def _fs_step(S, wrong):
    u, w, x = S.vectors("u", "w", "x")
    y, k, g, R, A, Ssum, d = _reals("y k gamma R A S d")
    target = 0 if wrong else g   # wrong: the deviation measured from 0, not gamma
    hyp = [Eq(u.dot(u), 1), _pm1(y), g > 0, x.dot(x) <= R * R,
           d >= 0, d >= target - y * u.dot(x),
           k >= 0, A >= 0, Ssum >= 0, u.dot(w) >= k * g - A, w.dot(w) <= k * R * R,
           A * A <= k * Ssum, y * w.dot(x) <= 0]
    new = w + y * x
    return hyp, And(u.dot(new) >= (k + 1) * g - (A + d),
                    new.dot(new) <= (k + 1) * R * R,
                    (A + d) * (A + d) <= (k + 1) * (Ssum + d * d))


def _fs_bound(S, wrong):
    u, w = S.vectors("u", "w")
    k, g, R, A, Ssum, D = _reals("k gamma R A S D")
    hyp = [Eq(u.dot(u), 1), g > 0, R >= 0, D >= 0, k >= 0, A >= 0,
           u.dot(w) >= k * g - A, w.dot(w) <= k * R * R, A * A <= k * Ssum,
           Ssum <= D * D]
    bound = R * R + D * D if wrong else (R + D) * (R + D)
    return hyp, k * g * g <= bound


def _intercept_radius(S, wrong):
    x, e = S.vectors("x", "e")
    R, c = _reals("R c")
    hyp = [Eq(e.dot(e), 1), Eq(e.dot(x), 0), x.dot(x) <= R * R, c > 0]
    aug = x + c * e
    return hyp, aug.dot(aug) <= (R * R if wrong else R * R + c * c)


def _intercept_margin(S, wrong):
    u, x, e = S.vectors("u", "x", "e")
    y, b, g, c = _reals("y b gamma c")
    hyp = [Eq(u.dot(u), 1), Eq(e.dot(e), 1), Eq(e.dot(u), 0), Eq(e.dot(x), 0), _pm1(y),
           y * (u.dot(x) + b) >= g, g > 0, c > 0]
    aug = x + c * e
    if wrong:  # the comparator (u, b) instead of (u, b/c)
        v = u + b * e
        return hyp, y * v.dot(aug) >= g
    v = c * u + b * e          # c times the comparator (u, b/c)
    return hyp, And(y * v.dot(aug) >= c * g, Eq(v.dot(v), c * c + b * b))


def _intercept_bound(S, wrong):
    R, b, c = _reals("R b c")
    if wrong:
        return _comparator_bound(
            S, wrong, R * R + c * c, lambda v: [Eq(c * c * v.dot(v), c * c + b * b), c > 0],
            lambda k, g: k * g * g <= R * R + c * c)
    return _comparator_bound(
        S, wrong, R * R + c * c, lambda v: [Eq(c * c * v.dot(v), c * c + b * b), c > 0],
        lambda k, g: c * c * k * g * g <= (R * R + c * c) * (c * c + b * b))


def _intercept_optimum(S, wrong):
    R, b, c, ab = _reals("R b c abs_b")
    # |b| as an unknown pinned by its definition; the cost times c^2 (no division)
    hyp = [R > 0, c > 0, ab >= 0, Or(Eq(ab, b), Eq(ab, -1 * b))]
    cost = (R * R + c * c) * (c * c + b * b)
    best = (R + ab) * (R + ab) * c * c
    if wrong:   # claims the minimiser is c = R|b| (it is c^2 = R|b|)
        return hyp + [Eq(c, R * ab)], Eq(cost, best)
    return hyp, And(cost >= best, Or(Not(Eq(c * c, R * ab)), Eq(cost, best)))


def _kesler_base(S, wrong):
    U, W = S.vectors("U", "W")
    hyp = [Eq(U.dot(U), 1)] + ([] if wrong else [Eq(W.dot(W), 0)])
    return hyp, And(U.dot(W) >= 0, W.dot(W) <= 0)


def _kesler_step(S, wrong):
    uc, up, wc, wp, x = S.vectors("uc", "up", "wc", "wp", "x")
    k, g, R, Ar, Nr = _reals("k gamma R A_rest N_rest")
    # stacked U.W and ||W||^2: the true class c and the predicted p, plus the rest
    UW = uc.dot(wc) + up.dot(wp) + Ar
    WW = wc.dot(wc) + wp.dot(wp) + Nr
    two = 1 if wrong else 2     # wrong: forgets that ||psi||^2 = 2 ||x||^2
    hyp = [g > 0, k >= 0, x.dot(x) <= R * R, uc.dot(x) - up.dot(x) >= g,
           wc.dot(x) - wp.dot(x) <= 0, UW >= k * g, WW <= two * k * R * R]
    wc2, wp2 = wc + x, wp - x
    UW2 = uc.dot(wc2) + up.dot(wp2) + Ar
    WW2 = wc2.dot(wc2) + wp2.dot(wp2) + Nr
    return hyp, And(UW2 >= (k + 1) * g, WW2 <= two * (k + 1) * R * R)


def _kesler_bound(S, wrong):
    (R,) = _reals("R")
    return _comparator_bound(
        S, wrong, 2 * R * R, lambda v: [Eq(v.dot(v), 1), R >= 0],
        lambda k, g: k * g * g <= (R * R if wrong else 2 * R * R))


def _endstop_norm(S, wrong):
    w, e = S.vectors("w", "e")
    k, g, R = _reals("k gamma R")
    hyp = [Eq(e.dot(e), 1), g > 0, k >= 0, R >= 0, w.dot(w) <= k * R * R,
           k * g * g <= R * R]
    wj = w.dot(e)
    return hyp, g * g * wj * wj <= (R * R if wrong else R * R * R * R)


def _endstop_step(S, wrong):
    w, x, e = S.vectors("w", "x", "e")
    y, k = _reals("y k")
    hyp = [Eq(e.dot(e), 1), _pm1(y), k >= 0, w.dot(e) * w.dot(e) <= k * k]
    if not wrong:
        hyp.append(x.dot(e) * x.dot(e) <= 1)
    wj = (w + y * x).dot(e)
    return hyp, wj * wj <= (k + 1) * (k + 1)


def _clipped_project(S, wrong):
    v, c, a, lo, hi = _reals("v c a lo hi")
    clip = Or(And(v < lo, Eq(c, lo)), And(v > hi, Eq(c, hi)),
              And(v >= lo, v <= hi, Eq(c, v)))
    hyp = [lo <= hi, clip, a <= hi] + ([] if wrong else [a >= lo])
    return hyp, (c - a) * (c - a) <= (v - a) * (v - a)


def _clipped_step(S, wrong):
    w, x, a = S.vectors("w", "x", "a")
    y, e = _reals("y e")
    hyp = [_pm1(y), e >= 0]
    if not wrong:
        hyp.append(y * w.dot(x) <= 0)
    d = w + (e * y) * x - a
    return hyp, d.dot(d) <= (w - a).dot(w - a) - (2 * e * y * x.dot(a)
                                                  - e * e * x.dot(x))


def _clipped_bound(S, wrong):
    k, D0, Dk, delta = _reals("k D0 Dk delta")
    hyp = [k >= 0, delta > 0, Dk >= 0, Dk <= D0 - k * delta]
    return hyp, (2 * k * delta <= D0 if wrong else k * delta <= D0)


@dataclass(frozen=True)
class _Part:
    build: Callable[..., Any]
    text: str
    wrong_text: str


#: name -> part: the builder and the statement (right and wrong) in words
OBLIGATIONS = {
    "novikoff.base": _Part(
        _novikoff_base, "w_0 = 0 => u.w_0 >= 0 gamma, ||w_0||^2 <= 0 R^2",
        "any w_0 => u.w_0 >= 0, ||w_0||^2 <= 0 (the zero start dropped)"),
    "novikoff.step": _Part(
        _novikoff_step, "u.w >= k gamma, ||w||^2 <= k R^2, y w.x <= 0 => u.(w + y x) >= "
        "(k+1) gamma, ||w + y x||^2 <= (k+1) R^2",
        "the same without the mistake y w.x <= 0"),
    "novikoff.bound": _Part(
        _novikoff_bound, "||u|| = 1, u.w >= k gamma, ||w||^2 <= k R^2 => k <= (R/gamma)^2",
        "... => k <= R/gamma"),
    "freund_schapire.base": _Part(
        _fs_base, "w_0 = 0, A_0 = S_0 = 0 => u.w_0 >= -A_0, ||w_0||^2 <= 0, A_0^2 <= 0",
        "any w_0 (the zero start dropped)"),
    "freund_schapire.step": _Part(
        _fs_step, "d >= max(0, gamma - y u.x), invariant at k, y w.x <= 0 => "
        "u.w' >= (k+1) gamma - (A + d), ||w'||^2 <= (k+1) R^2, (A + d)^2 <= (k+1)(S + d^2)",
        "the deviation measured from 0: d >= max(0, -y u.x)"),
    "freund_schapire.bound": _Part(
        _fs_bound, "u.w >= k gamma - A, ||w||^2 <= k R^2, A^2 <= k S <= k D^2 => "
        "k <= ((R + D)/gamma)^2", "... => k <= (R^2 + D^2)/gamma^2"),
    "intercept.radius": _Part(
        _intercept_radius, "e unit, e.x = 0, ||x|| <= R => ||x + c e||^2 <= R^2 + c^2",
        "... => ||x + c e||^2 <= R^2"),
    "intercept.margin": _Part(
        _intercept_margin, "y (u.x + b) >= gamma => y (u + (b/c) e).(x + c e) >= gamma, "
        "||u + (b/c) e||^2 = 1 + b^2/c^2", "the comparator u + b e has margin gamma"),
    "intercept.bound": _Part(
        _intercept_bound, "v.w >= k gamma, ||w||^2 <= k (R^2 + c^2), ||v||^2 = 1 + b^2/c^2"
        " => k <= (R^2 + c^2)(1 + b^2/c^2)/gamma^2", "... => k <= (R^2 + c^2)/gamma^2"),
    "intercept.optimum": _Part(
        _intercept_optimum, "c > 0 => (R^2 + c^2)(1 + b^2/c^2) >= (R + |b|)^2, equality "
        "at c^2 = R |b|", "equality at c = R |b|"),
    "kesler.base": _Part(
        _kesler_base, "W_0 = 0 => U.W_0 >= 0, ||W_0||^2 <= 0",
        "any W_0 (the zero start dropped)"),
    "kesler.step": _Part(
        _kesler_step, "U.W >= k gamma, ||W||^2 <= 2 k R^2, w_c.x <= w_p.x => "
        "(w_c + x, w_p - x) keeps both with k + 1", "the same with R^2 for 2 R^2"),
    "kesler.bound": _Part(
        _kesler_bound, "||U|| = 1, U.W >= k gamma, ||W||^2 <= 2 k R^2 => "
        "k <= 2 (R/gamma)^2", "... => k <= (R/gamma)^2"),
    "endstop.norm": _Part(
        _endstop_norm, "||e|| = 1, ||w||^2 <= k R^2, k <= (R/gamma)^2 => "
        "|w.e| <= R^2/gamma", "... => |w.e| <= R/gamma"),
    "endstop.step": _Part(
        _endstop_step, "||e|| = 1, |w.e| <= k, |x.e| <= 1 => |(w + y x).e| <= k + 1",
        "the same without |x.e| <= 1"),
    "clipped.project": _Part(
        _clipped_project, "lo <= a <= hi, c = clip(v, lo, hi) => |c - a| <= |v - a|",
        "the same with the centre a allowed below lo"),
    "clipped.step": _Part(
        _clipped_step, "y w.x <= 0, e >= 0 => ||w + e y x - a||^2 <= ||w - a||^2 - "
        "(2 e y x.a - e^2 ||x||^2)", "the same without the mistake y w.x <= 0"),
    "clipped.bound": _Part(
        _clipped_bound, "0 <= D_k <= D_0 - k delta, delta > 0 => k <= D_0/delta",
        "... => k <= D_0/(2 delta)"),
}


# --------------------------------------------------------------------------------------
# proving


@dataclass(frozen=True)
class ProofResult:
    """The outcome of one obligation with one solver.

    Attributes
    ----------
    name : str
        Key in :data:`OBLIGATIONS` (``"theorem.part"``).
    statement : str
        The statement in words and symbols (the wrong variant's when ``wrong``).
    form : {"gram", "scalar"}
        Over the Gram matrix of its vectors (dimension-free), or about numbers only.
    wrong : bool
        Whether this is the deliberately wrong variant.
    solver : {"z3", "cvc5"}
    status : {"proved", "counterexample", "unknown"}
    counterexample : dict
        Variable name -> exact Fraction when ``status == "counterexample"`` (a decimal
        string ending in ``"?"`` if a solver's value was irrational and no rational
        one was found near it).
    time_s : float
        Solver time.
    smt2 : str
        The query as an SMT-LIB 2 script.
    stopped_by : str
        When ``status == "unknown"``: ``"budget"`` (the solver's resource limit),
        ``"timeout"`` (``timeout_s``) or ``""`` (the solver gave up by itself).
    """

    name: str
    statement: str
    form: str
    wrong: bool
    solver: str
    status: str
    counterexample: dict = field(default_factory=dict, repr=False)
    time_s: float = 0.0
    smt2: str = field(default="", repr=False)
    stopped_by: str = field(default="", repr=False)

    @property
    def dimension_free(self) -> bool:
        """True: a Gram-form proof covers every dimension (scalar ones have none)."""
        return True

    @property
    def expected(self) -> bool:
        """True when the outcome is the intended one (proved, or refuted if wrong)."""
        return self.status == ("counterexample" if self.wrong else "proved")

    def statement_terms(self) -> tuple[list[Term], Term]:
        """``(hypotheses, conclusion)`` as terms, the PSD conditions included."""
        return _statement(self.name, self.wrong)[1:]

    def holds(self, values: Mapping[str, Any]) -> bool:
        """Evaluate the statement exactly at ``values`` (name -> number): False when
        ``values`` satisfy every hypothesis (PSD included) and violate the conclusion."""
        hyp, concl = self.statement_terms()
        return not (all(evaluate(h, values) for h in hyp) and not evaluate(concl, values))


def _statement(name, wrong):
    part = OBLIGATIONS[name]
    space = GramSpace()
    hyp, concl = part.build(space, wrong)
    return space, space.realisable() + hyp, concl


def prove(name: str, *, wrong: bool = False, solver: str = "z3",
          budget: int | None = None, timeout_s: float | None = None,
          smt2_dir: PathLike | None = None) -> ProofResult:
    """Discharge one obligation (or refute its wrong variant) with one solver.

    Parameters
    ----------
    name : str
        One of :data:`OBLIGATIONS`.
    wrong : bool, default False
        Check the deliberately wrong variant; it must get a counterexample.
    solver : {"z3", "cvc5"}
    budget : int, optional
        The solver's resource units for the query (its deterministic ``rlimit``; see
        :class:`verify.smt.Session`), default :data:`verify.smt.RLIMIT` of the
        solver: 20 million for Z3, 1 million for cvc5, over ten times what the
        hardest obligation needs. Past it the status is ``"unknown"`` and
        ``stopped_by="budget"``.
    timeout_s : float, optional
        A wall-clock limit, only when given: past it the status is ``"unknown"`` and
        ``stopped_by="timeout"``.
    smt2_dir : path, optional
        Also write the query to ``smt2_dir/<name>[.wrong].smt2``.

    Returns
    -------
    ProofResult

    Examples
    --------
    >>> prove("novikoff.bound", solver="cvc5").status
    'proved'
    >>> r = prove("novikoff.bound", wrong=True)     # claims k <= R/gamma
    >>> r.status, r.holds(r.counterexample)
    ('counterexample', False)
    """
    check_choice(name, "name", tuple(OBLIGATIONS))
    check_choice(solver, "solver", SOLVERS)
    timeout_s = check_timeout(timeout_s)
    budget = None if budget is None else check_int_at_least(budget, "budget", 1)
    space, hyp, concl = _statement(name, wrong)
    part = OBLIGATIONS[name]
    statement = part.wrong_text if wrong else part.text
    session = Session("QF_NRA", solver=solver, rlimit=budget, timeout_s=timeout_s, comment=(
        f"markone proof obligation {name}{' (wrong variant)' if wrong else ''}, "
        f"{space.form} form: {statement}\n"
        "unsat = proved (no counterexample); sat = a counterexample"))
    session.add(*hyp, Not(concl))
    answer = session.check()
    smt2 = session.smt2()
    cex: dict[str, Any] = {}
    if answer == "sat":
        cex = session.rational_model() or session.model()
    status = {"unsat": "proved", "sat": "counterexample"}.get(answer, "unknown")
    if smt2_dir is not None:
        save_smt2(smt2_dir, f"{name}{'.wrong' if wrong else ''}.smt2", smt2)
    return ProofResult(name=name, statement=statement, form=space.form,
                       wrong=bool(wrong), solver=solver, status=status,
                       counterexample=cex, time_s=session.time_s, smt2=smt2,
                       stopped_by=session.stopped_by)


def save_smt2(directory: PathLike, filename: str, text: str) -> Path:
    """Write one SMT-LIB 2 script into ``directory`` (created), atomically."""
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    atomic_write(path / filename, text)
    return path / filename


def check_all(*, wrong: Iterable[bool] = (False, True), solvers: Sequence[str] = SOLVERS,
              budget: int | None = None, timeout_s: float | None = None,
              smt2_dir: PathLike | None = None,
              names: Iterable[str] | None = None) -> tuple[ProofResult, ...]:
    """Check every obligation, right and wrong, with every solver.

    ``budget`` and ``timeout_s`` limit each query as in :func:`prove`.

    Returns
    -------
    tuple of ProofResult

    >>> rs = check_all(wrong=(False,), solvers=("z3",),
    ...                names=["novikoff.base", "novikoff.step", "novikoff.bound"])
    >>> [(r.name, r.status) for r in rs]
    [('novikoff.base', 'proved'), ('novikoff.step', 'proved'), ('novikoff.bound', 'proved')]
    """
    timeout_s = check_timeout(timeout_s)
    if isinstance(wrong, bool):
        wrong = (wrong,)
    for name in names or ():
        check_choice(name, "name", tuple(OBLIGATIONS))
    out = []
    for name in names or OBLIGATIONS:
        for w in wrong:
            for solver in solvers:
                out.append(prove(name, wrong=w, solver=solver, budget=budget,
                                 timeout_s=timeout_s,
                                 smt2_dir=smt2_dir if solver == solvers[0] else None))
    return tuple(out)


def table(results: Sequence[ProofResult]) -> str:
    """The results as text: obligation, dimension-free?, one column per solver, and
    the time; a row whose solvers decide differently ends in ``DISAGREE`` (an
    ``unknown`` decides nothing)."""
    rows: dict[tuple[str, str], dict[str, ProofResult]] = {}
    for r in results:
        rows.setdefault((r.name + (" (wrong)" if r.wrong else ""), r.form), {})[r.solver] = r
    solvers = [s for s in SOLVERS if any(r.solver == s for r in results)]
    head = f"{'obligation':<30} {'dimension-free':<15} " + " ".join(
        f"{s:<15}" for s in solvers) + "   time"
    lines = [head, "-" * len(head)]
    for (name, form), by in rows.items():
        cells = " ".join(f"{by[s].status if s in by else '-':<15}" for s in solvers)
        t = sum(r.time_s for r in by.values())
        # an "unknown" (past the budget or time limit) decides nothing, so it is no
        # disagreement: the summary of `verify proofs` counts them so too (#37)
        decided = {r.status for r in by.values() if r.status != "unknown"}
        flag = "  DISAGREE" if len(decided) > 1 else ""
        free = "yes (Gram)" if form == "gram" else "yes (scalars)"
        lines.append(f"{name:<30} {free:<15} {cells} {t:6.2f} s{flag}")
    return "\n".join(lines)
