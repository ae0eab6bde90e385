"""Steps toward the perceptron cycling theorem (verify/coq/Bounded.v, issue 41): the
bounds from any start that ``verify.coq.THEOREMS`` lists, evaluated as Coq states them
and compared with exact runs of Coq's ``run perceptron_update`` (a zero score is a
mistake, then ``w + z``), from many integer starts, in random orders. That the
statements compile with no axiom is ``test_coq_proofs.py``'s to check."""

import math
import random
from fractions import Fraction

import markone
from verify.cycling import check_cycling, cycle_bound
from _paths import load_test_module
from verify.coq import THEOREMS

PROOFS = load_test_module("verify/coq/test_coq_proofs.py")


def walk(w, stream):
    """Every weight vector of ``run perceptron_update w stream``, the start included."""
    yield w
    for z in stream:
        if sum(a * b for a, b in zip(w, z)) <= 0:
            w = [a + b for a, b in zip(w, z)]
        yield w


def mistakes(w, stream):
    """``(run perceptron_update w stream).2``: the number of updates."""
    ws = list(walk(w, stream))
    return sum(a != b for a, b in zip(ws, ws[1:]))


def normsq(v):
    return sum(a * a for a in v)


def ceil_norm(v):
    """The least integer ``B >= ||v||``."""
    root = math.isqrt(normsq(v))
    return root if root * root == normsq(v) else root + 1


def test_the_steps_are_listed_as_steps():
    """No Python number rests on them yet: ``used_by`` is empty, and they are in
    Bounded.v, not in Cycling.v (whose rows back ``cycle_bound``)."""
    rows = {t.name: t for t in THEOREMS if t.module == "Bounded"}
    assert set(rows) == {"dominated_run", "separable_bounded", "separable_mistakes",
                         "run_shift", "line_bounded", "line_cycles"}
    assert all(t.used_by == "" for t in rows.values())


def test_separable_bounded_holds_from_every_start():
    """u = (1, 0) (a unit vector), gamma = 1, R2 = 10, M = R2 ||u|| / gamma meets the
    condition; from every integer start, with B its norm rounded up, every step stays
    within ``(B + 2 M)^2``, and the zero start's run (markone's own) within ``(2M)^2``."""
    Z = [(1, 2), (2, -1), (1, 0), (3, 1), (1, -3)]
    R2, gamma, M = max(map(normsq, Z)), min(z[0] for z in Z), 10
    assert R2 ** 2 * 1 <= PROOFS.coq_formula("separable_bounded", "condition",
                                               M=M, gamma=gamma)
    rng = random.Random(0)
    for _ in range(300):
        w = [rng.randint(-40, 40), rng.randint(-40, 40)]
        stream = [rng.choice(Z) for _ in range(200)]
        bound = PROOFS.coq_formula("separable_bounded", B=ceil_norm(w), M=M)
        assert max(map(normsq, walk(w, stream))) <= bound
    r = markone.train([z for z in Z], [1] * len(Z), intercept=False, exact=True,
                      record=True)
    assert max(normsq(v) for v in r.weights_after) <= PROOFS.coq_formula(
        "separable_bounded", B=0, M=M)


def test_separable_mistakes_holds_from_every_start():
    """separable_mistakes: the same data, u = (1, 0), gamma = 1, R2 = 10; from every
    integer start the updates times R2 are at most ``||w - (R2/gamma) u||^2``; from far
    starts against ``u`` there are many (the bound grows with the start, as it must)."""
    Z = [(1, 2), (2, -1), (1, 0), (3, 1), (1, -3)]
    R2, gamma = max(map(normsq, Z)), 1
    rng = random.Random(3)
    most = 0
    for _ in range(300):
        w = [rng.randint(-40, 40), rng.randint(-40, 40)]
        k = mistakes(w, [rng.choice(Z) for _ in range(300)])
        assert k * R2 <= normsq([w[0] - Fraction(R2, gamma), w[1]])
        most = max(most, k)
    assert most >= 10


def test_run_shift_moves_the_run_and_changes_no_decision():
    """run_shift: v = (0, 0, 5) is orthogonal to every example: the run from w + v is
    the run from w plus v, with the same updates."""
    Z = [(1, -2, 0), (-3, 1, 0), (2, 2, 0), (-1, -1, 0)]
    v = (0, 0, 5)
    rng = random.Random(4)
    for _ in range(100):
        w = [rng.randint(-9, 9) for _ in range(3)]
        stream = [rng.choice(Z) for _ in range(60)]
        shifted = list(walk([a + b for a, b in zip(w, v)], stream))
        assert shifted == [[a + b for a, b in zip(x, v)] for x in walk(w, stream)]


def test_line_bounded_holds_for_any_data_and_start():
    """On a line, examples of both signs (no separator): the ball of squared radius
    ``C = max(w0^2, max z^2)`` holds the whole run, and the run reaches its edge."""
    rng = random.Random(1)
    reached = False
    for _ in range(300):
        Z = [(rng.choice([-1, 1]) * rng.randint(1, 9),) for _ in range(4)]
        w = [rng.randint(-60, 60)]
        C = max(normsq(w), *map(normsq, Z))
        seen = [normsq(v) for v in walk(w, [rng.choice(Z) for _ in range(100)])]
        assert max(seen) <= C
        reached |= max(seen[1:]) == C
    assert reached


def test_line_cycles_bounds_what_verify_cycling_finds_on_a_line():
    """line_cycles: integer examples on a line within ``R`` of zero, cyclic order: the
    starts of two passes ``i < j <= 2R + 1`` repeat. The cycle ``verify`` finds and the
    bound it prints (the weights reachable in any order) are within that ``2R + 1``, and
    the bound is reached: with the examples 1, -1, R and -R, every weight from -R to R
    is reachable."""
    rng = random.Random(2)
    for _ in range(20):
        X = [[rng.choice([-1, 1]) * rng.randint(1, 7)] for _ in range(rng.randint(2, 5))]
        y = [rng.choice([-1, 1]) for _ in X]
        if len({yi * x[0] > 0 for x, yi in zip(X, y)}) == 1:
            continue                                    # one sign: it converges
        R = max(abs(x[0]) for x in X)
        r = check_cycling(X, y, intercept=False)
        assert r.transient_epochs + r.period_epochs <= 2 * R + 1
        assert cycle_bound(X, y, intercept=False) <= 2 * R + 1
    assert cycle_bound([[1], [1], [5], [5]], [1, -1, 1, -1], intercept=False) == 2 * 5 + 1
