"""Hypothesis strategies for testing your own perceptron.

Each strategy draws small *integer* data whose perceptron facts are known exactly, so
a property test can compare your implementation with what theory guarantees:

* :func:`separable_sets`: linearly separable data with a known separator ``u`` and
  its margin (so Novikoff's bound ``(R/gamma)^2`` holds for every order);
* :func:`orthonormal_streams`: ``e_1..e_m`` in any order with any labels: the rule
  makes exactly ``m`` mistakes (every score is 0);
* :func:`adversarial_orders`: a separable set and a stream on which *every*
  presentation is a mistake of the textbook rule (so a correct implementation makes
  exactly ``len(order)`` mistakes, never more than the bound);
* :func:`non_separable_sets`: data that no hyperplane separates (a point with both
  labels, or XOR embedded), on which a correct implementation never converges.

Hypothesis shrinks a failure to the smallest example, which is usually the bug in
one line. The inputs are plain lists of ints; labels are -1/+1.

Examples
--------
>>> from hypothesis import find, settings
>>> s = find(orthonormal_streams(max_m=5), lambda s: len(s.order) >= 3,
...          settings=settings(database=None, derandomize=True))
>>> s.X, s.y, s.order
([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [1, 1, 1], [0, 1, 2])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from hypothesis import strategies as st

from verify._internal.novikoff import float_up

__all__ = ["SeparableSet", "OrthonormalStream", "AdversarialStream",
           "separable_sets", "orthonormal_streams", "adversarial_orders",
           "non_separable_sets"]


@dataclass(frozen=True)
class SeparableSet:
    """Separable integer data: ``y_i (u . x_i) >= min_score > 0`` for every ``i``.

    ``margin = min_score / ||u||`` is the margin of ``u`` (a lower bound on the
    best margin), ``R`` the largest ``||x_i||``, and ``bound = (R / margin)^2``
    Novikoff's bound without intercept (an upper bound on the mistakes of any order).
    """

    X: list
    y: list
    u: list
    min_score: int

    @property
    def margin(self) -> float:
        return self.min_score / math.sqrt(sum(v * v for v in self.u))

    @property
    def R(self) -> float:
        return max(math.sqrt(sum(v * v for v in x)) for x in self.X)

    @property
    def bound(self) -> float:
        # Novikoff's (R / margin)**2 exactly (R**2 and margin**2 are rational), rounded up
        u_sq = sum(v * v for v in self.u)
        return float_up(Fraction(max(sum(v * v for v in x) for x in self.X) * u_sq,
                                 self.min_score ** 2))


@dataclass(frozen=True)
class OrthonormalStream:
    """``X = e_1..e_m`` (as rows of length m), labels ``y``, a permutation ``order``:
    the rule makes exactly ``m`` mistakes and ends with ``w = y``."""

    X: list
    y: list
    order: list


@dataclass(frozen=True)
class AdversarialStream:
    """A separable set and a stream ``order`` of which every presentation is a mistake
    of the textbook rule; ``w`` is the rule's final weight vector (integers)."""

    data: SeparableSet
    order: list
    w: list


def _dot(a, b):
    return sum(p * q for p, q in zip(a, b))


@st.composite
def separable_sets(draw: st.DrawFn, *, n: tuple[int, int] = (2, 12),
                   d: tuple[int, int] = (1, 4), coords: int = 4, min_score: int = 1
                   ) -> SeparableSet:
    """Separable integer sets with a known separator through the origin.

    Parameters
    ----------
    n, d : (int, int)
        Ranges of the number of points and of the dimension.
    coords : int
        Coordinates are drawn in ``[-coords, coords]``.
    min_score : int
        Every point has ``y (u . x) >= min_score`` (points closer to the hyperplane
        are moved away along ``u``), so the margin is at least ``min_score / ||u||``.

    Returns
    -------
    SearchStrategy[SeparableSet]
        Draws sets in which both labels always occur.
    """
    dim = draw(st.integers(*d))
    u = draw(st.lists(st.integers(-coords, coords), min_size=dim, max_size=dim)
             .filter(any))
    count = draw(st.integers(max(2, n[0]), n[1]))
    cell = st.lists(st.integers(-coords, coords), min_size=dim, max_size=dim)
    X = draw(st.lists(cell, min_size=count, max_size=count))
    signs = draw(st.lists(st.sampled_from((1, -1)), min_size=count, max_size=count)
                 .filter(lambda s: len(set(s)) == 2))
    k = max(abs(v) for v in u)
    j = [abs(v) for v in u].index(k)
    uu = _dot(u, u)
    out = []
    for x, s in zip(X, signs):
        x = list(x)
        score = s * _dot(u, x)
        if score < min_score:   # push x along e_j until y (u . x) >= min_score
            steps = -(-(min_score - score) // k)
            x[j] += s * steps * (1 if u[j] > 0 else -1)
        out.append(x)
    assert uu > 0
    return SeparableSet(X=out, y=list(signs), u=list(u),
                        min_score=min(s * _dot(u, x) for x, s in zip(out, signs)))


@st.composite
def orthonormal_streams(draw: st.DrawFn, *, max_m: int = 8) -> OrthonormalStream:
    """``e_1..e_m`` (1 <= m <= max_m) with any labels, presented in any order."""
    m = draw(st.integers(1, max_m))
    y = draw(st.lists(st.sampled_from((1, -1)), min_size=m, max_size=m))
    order = draw(st.permutations(range(m)))
    X = [[int(i == j) for j in range(m)] for i in range(m)]
    return OrthonormalStream(X=X, y=list(y), order=list(order))


@st.composite
def adversarial_orders(draw: st.DrawFn,
                       data: st.SearchStrategy[SeparableSet] | None = None, *,
                       max_len: int = 40) -> AdversarialStream:
    """A stream on which every presentation is a mistake of the textbook rule.

    At each step Hypothesis picks one of the examples that the current weights
    misclassify (``y (w . x) <= 0``), until none is left (the run converged) or
    ``max_len`` steps. ``data`` is a strategy of :class:`SeparableSet` (default
    :func:`separable_sets`).
    """
    sep = draw(separable_sets() if data is None else data)
    w = [0] * len(sep.X[0])
    order: list[int] = []
    while len(order) < max_len:
        wrong = [i for i, (x, t) in enumerate(zip(sep.X, sep.y)) if t * _dot(w, x) <= 0]
        if not wrong:
            break
        i = draw(st.sampled_from(wrong))
        w = [a + sep.y[i] * b for a, b in zip(w, sep.X[i])]
        order.append(i)
    return AdversarialStream(data=sep, order=order, w=w)


@st.composite
def non_separable_sets(draw: st.DrawFn, *, n: tuple[int, int] = (2, 10),
                       d: tuple[int, int] = (1, 4), coords: int = 4
                       ) -> tuple[list[list[int]], list[int]]:
    """Integer data that no hyperplane (through the origin) separates: a separable
    set plus one of its points again with the other label, or XOR's four points in
    the first two coordinates (with a constant third one) when ``d >= 3``.
    Returns ``(X, y)``."""
    if draw(st.booleans()) and d[1] >= 3:
        dim = draw(st.integers(max(3, d[0]), d[1]))
        pad = [0] * (dim - 3)
        X = [[a, b, 1] + pad for a, b in ((0, 0), (0, 1), (1, 0), (1, 1))]
        return X, [-1, 1, 1, -1]
    sep = draw(separable_sets(n=n, d=d, coords=coords))
    i = draw(st.integers(0, len(sep.X) - 1))
    return sep.X + [list(sep.X[i])], sep.y + [-sep.y[i]]
