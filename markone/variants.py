"""The perceptron variants: one table that the core, the estimators, the command line,
the conformance suite and its re-runs all read.

A variant is one way to turn a run of the update rule into the vector that predicts:
the last iterate, their average, the pocket vector, or a vote of the iterates. Each
entry of :data:`VARIANTS` says how, twice over:

* ``predicts(state)``: from the training engine's state after any presentation (its
  fields ``w``, ``acc``, ``pocket``, ``ctr`` and the methods ``averaged()`` and
  ``voted()``), in O(d) work; this is what :func:`markone.train` and
  :class:`markone.Perceptron` return and predict with;
* ``defined(w, iterates, correct)``: the definition, from the whole run written out
  (the final ``w``, the iterate after every presentation, whether each presentation
  was correct), as the conformance suite re-runs it in exact arithmetic;

with its rule in words (stored in every conformance problem) and the property its
conformance case pins down. A variant that votes (``votes=True``) answers with
predictions on queries instead of a vector; its ``defined`` gives ``(vectors,
counts)``.

Adding a variant is its entry here (with ``add_variant``), and its tests:
``markone train --variant``, ``Perceptron(variant=...)``, the conformance case
``variant-NAME`` and its re-run follow from the entry (``tests/markone/test_toy_variant.py``
shows one defined in a test file alone).

>>> list(VARIANTS)
['last', 'averaged', 'voted', 'pocket']
>>> from fractions import Fraction as F
>>> VARIANTS["averaged"].defined([F(2)], [[F(1)], [F(1)], [F(2)]], [False, True, False])
[Fraction(4, 3)]
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from markone._internal.registry import register, unregister

__all__ = ["Variant", "VARIANTS", "add_variant", "remove_variant"]


@dataclass(frozen=True)
class Variant:
    """One entry of :data:`VARIANTS` (see the module's docstring)."""

    name: str
    predicts: Callable[[Any], Any]
    defined: Callable[[Sequence[Any], Sequence[Sequence[Any]], Sequence[bool]], Any]
    rule: str
    pins: str
    votes: bool = False


def _average(w: Sequence[Any], iterates: Sequence[Sequence[Any]],
             correct: Sequence[bool]) -> list[Any]:
    """The mean of the iterates after every presentation."""
    return [sum(c) / len(iterates) for c in zip(*iterates)]


def _pocket(w: Sequence[Any], iterates: Sequence[Sequence[Any]],
            correct: Sequence[bool]) -> Any:
    """The iterate with the longest run of correct presentations (the zero start
    counts; ties keep the earlier)."""
    best, length, pocket = 0, 0, [0 * v for v in w]
    for vec, good in zip(iterates, correct):
        length = length + 1 if good else 0
        if length > best:
            best, pocket = length, vec
    return pocket


def _vote(w: Sequence[Any], iterates: Sequence[Sequence[Any]],
          correct: Sequence[bool]) -> tuple[list[Any], list[int]]:
    """``(vectors, counts)``: every iterate (the zero start first) and the
    presentations it survived."""
    vectors: list[Any] = [[0 * v for v in w]]
    counts = [0]
    for vec, good in zip(iterates, correct):
        if good:
            counts[-1] += 1
        else:
            vectors.append(vec)
            counts.append(0)
    return vectors, counts


#: The variants by name, in the order the command line and the suite list them (an
#: OrderedDict: a sequence of names to tools that sample from one, as Hypothesis does).
VARIANTS: OrderedDict[str, Variant] = OrderedDict()


def add_variant(variant: Variant) -> Variant:
    """Register ``variant`` (a new name; ValueError for one taken) and return it.

    >>> add_variant(VARIANTS["last"])
    Traceback (most recent call last):
    ...
    ValueError: variant 'last' is registered already; give the new variant a new name.
    """
    return register(VARIANTS, variant.name, variant, "variant")


def remove_variant(name: str) -> None:
    """Unregister the variant ``name`` (for tests that add one); the built-in ones
    stay."""
    unregister(VARIANTS, name, _BUILT_IN, "variant")


add_variant(Variant(
    "last", lambda state: state.w, lambda w, iterates, correct: w,
    "start at w = 0; present the examples in `order` (indices into X, repeats "
    "allowed), once; on example i, if y_i * (w . x_i) <= 0 (a zero score is a "
    "mistake) then w += y_i * x_i. With `intercept`, x_i is first augmented with a "
    "constant 1 appended last. Answer {\"w\": final w, \"mistakes\": updates}.",
    "the last iterate"))
add_variant(Variant(
    "averaged", lambda state: state.averaged(), _average,
    "the rule of the last variant; answer the average of the T iterates w_1..w_T "
    "held after each of the T presentations (w_t is w after presentation t), "
    "as \"w\", with \"mistakes\".",
    "averaged: the mean of the iterates after every presentation "
    "(not only after mistakes; the zero start excluded)"))
add_variant(Variant(
    "voted", lambda state: state.voted()[2], _vote,
    "the rule of the last variant; every iterate (the zero start first) votes with "
    "weight = the number of presentations it classified correctly before it was "
    "replaced (the last one: until the end of the stream); "
    "a vote is sign(v . q) with sign(0) = +1, the prediction is the sign of the "
    "weighted sum of votes (0 -> +1). Answer {\"predictions\": labels of `queries`, "
    "\"mistakes\": updates}.",
    "voted (Freund & Schapire): each iterate votes, weighted by the "
    "presentations it survived; sign(0) = +1", votes=True))
add_variant(Variant(
    "pocket", lambda state: state.pocket, _pocket,
    "the rule of the last variant; answer the pocket vector: the iterate with the "
    "longest run of consecutive correct presentations so far (a longer run "
    "replaces it; ties keep the earlier one; the zero start counts), as \"w\", with "
    "\"mistakes\".",
    "pocket (Gallant): the iterate with the longest run of "
    "consecutive correct presentations; a longer run replaces it, ties keep "
    "the earlier"))

_BUILT_IN = frozenset(VARIANTS)
