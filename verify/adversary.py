"""Adversarial orders: how many mistakes can the order of presentation force?

Novikoff's theorem bounds the mistakes of the perceptron on separable data by
``(R/gamma)^2`` whatever the order, and an order is an online *stream*: the same
example may come again as long as it is still misclassified. This module searches for
streams that make the core (:func:`markone.train`) err as often as possible:

* ``method="exhaustive"`` enumerates every weight vector reachable from zero by
  mistake-driven updates, in exact integer arithmetic (each vector once, memoised), and
  finds the longest path of that graph: the true maximum number of mistakes over all
  streams, for small integer data;
* ``method="z3"`` asks an SMT solver (Z3, or cvc5 with ``solver="cvc5"``) "is there a
  stream of k mistakes?" (bounded model checking in linear integer arithmetic) for
  growing k;
* ``method="greedy"`` scales to thousands of points: it follows a few vectorised rules
  (largest growth of ``||w||``, least violated, smallest gain of alignment with the
  max-margin direction) and keeps the best stream.

Every result is re-run with ``markone.train(X, y, order=order, max_epochs=1)``, which
makes exactly ``mistakes`` updates, and checked against the bound.

:func:`orthonormal_case` is the classic construction that meets the bound exactly, and
:func:`label_adversary` forces *any* deterministic online learner into ``m`` mistakes on
an orthonormal stream that stays separable with margin ``m**-0.5``.

Examples
--------
>>> X = [[1, 0], [0, 1], [1, 1], [2, -1]]; y = [1, 1, 1, -1]
>>> a = worst_order(X, y, intercept=False, method="exhaustive")
>>> a.mistakes, a.complete, a.mistakes <= a.bound
(10, True, True)
>>> import markone
>>> a.order
(0, 3, 0, 0, 3, 0, 0, 3, 0, 0)
>>> markone.train(X, y, intercept=False, order=a.order, max_epochs=1).mistakes
10
>>> orthonormal_case(4, labels=[1, -1, -1, 1]).mistakes
4
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from markone._internal.html import ShownInJupyter, result_repr
from markone._internal.data import Dataset, as_dataset
from markone._internal.exact import float64_of, to_fraction
from markone._internal.io import plural
from markone._internal.jit import compiled, kernel
from markone._internal.progress import search_bar
from markone._internal.typing import ArrayLike, PathLike, Seed
from markone._internal.validation import as_generator, check_choice, check_int_at_least
from verify._internal.exact import dense_rows
from verify._internal.novikoff import novikoff_bound
from verify._internal.budget import (BUDGET, TIMEOUT, deadline_after, expired, seconds_left,
                            stopped_phrase, to_raise)
from markone import engine
from markone._internal.checks import FloatRangeError
from markone.datasets import orthonormal
from markone.engine import TrainResult
from verify.cycling import integer_yx, reachable_states
from verify.margin import _row_sq_norms, max_margin, scaled_data
from verify.proofs import save_smt2
from verify.smt import SOLVERS, Eq, If, Int, Session, Sum

__all__ = [
    "AdversarialOrder",
    "ForcedMistakes",
    "worst_order",
    "orthonormal_case",
    "label_adversary",
    "run_order",
    "novikoff_terms",
    "small_margin_lattice",
]

_METHODS = ("greedy", "exhaustive", "z3")
_DEFAULT_BUDGET = {"greedy": 100_000, "exhaustive": 2_000_000, "z3": 40}


@dataclass(frozen=True)
class AdversarialOrder(ShownInJupyter):
    """A stream of example indices and the mistakes the core makes on it.

    Attributes
    ----------
    order : tuple of int
        The stream: re-run by ``markone.train(X, y, order=order, max_epochs=1)``
        every presentation is a mistake.
    mistakes : int
        Number of updates on that run (``len(order)``).
    bound : float
        Novikoff's ``(R/gamma)^2`` for the (augmented) data; ``inf`` when not
        separable.
    R, gamma : float
        Radius and maximal margin of the augmented data (the certified lower end of
        the margin interval of :func:`verify.max_margin`, so ``bound`` is safe).
    complete : bool
        True when ``mistakes`` is proved to be the maximum over all streams (the
        exhaustive search finished, Z3 refuted one more, or the bound is met).
    method : str
    intercept : bool
    explored : int
        Weight vectors enumerated (exhaustive), solver queries (z3) or greedy steps.
    w : ndarray or tuple of Fraction
        The final weight vector of the run (augmented space): float64 when every
        entry is exactly a float64 and the data are float64, else exact Fractions.
    X : ndarray or tuple of tuple of Fraction
        The data, exactly (kept for export): a float64 array (sparse stays sparse)
        when float64 holds every entry, else rows of Fractions (ints beyond 2**53,
        decimal strings such as ``"0.1"``, ``Fraction(1, 3)``, longdoubles with more
        bits): never the nearest floats.
    y : ndarray
        The labels as -1/+1.
    message : str
    stopped_by : str
        What cut the search short: ``"budget"`` or ``"timeout"``; ``""`` when the
        search ran to its end (greedy's end is a heuristic's, and an SMT solver may
        answer unknown by itself: ``complete`` can still be False).
    """

    __repr__ = result_repr  # numbers of any size

    order: tuple = field(repr=False)
    mistakes: int
    bound: float
    R: float
    gamma: float
    complete: bool
    method: str
    intercept: bool
    explored: int
    w: Any = field(repr=False)
    X: Any = field(repr=False)
    y: np.ndarray = field(repr=False)
    message: str = ""
    stopped_by: str = field(default="", repr=False)


def novikoff_terms(X: ArrayLike, y: ArrayLike, *, intercept: bool = True
                   ) -> tuple[float, float, float]:
    """Novikoff's terms of a data set: ``(R, gamma, (R/gamma)^2)`` of the augmented
    data via :func:`verify.max_margin`, with ``gamma`` its certified lower end and the
    bound :func:`verify.margin.novikoff_bound` (so never below the exact one);
    non-separable data give ``(R, 0.0, inf)``.

    >>> R, gamma, bound = novikoff_terms([[3.0], [-3.0]], [1, -1], intercept=False)
    >>> R, round(gamma, 9), round(bound, 9), bound >= (R / gamma) ** 2
    (3.0, 3.0, 1.0, True)
    """
    m = max_margin(X, y, intercept=intercept)
    if not m.separable:
        return float(m.R), 0.0, math.inf
    # the certified lower end of the margin: the bound is then never below the true one
    return float(m.R), float(m.lower), novikoff_bound(float(m.R), float(m.lower))


def run_order(X: ArrayLike, y: ArrayLike, order: Sequence[int], *,
              intercept: bool = True, exact: bool = False) -> TrainResult:
    """Run ``order`` once with :func:`markone.train`; return its TrainResult.

    >>> run_order([[1.0], [-1.0]], [1, -1], [0, 1, 0], intercept=False).mistakes
    1
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return engine.train(X, y, intercept=intercept, order=list(order), max_epochs=1,
                     record=True, exact=exact)


def worst_order(X: ArrayLike, y: ArrayLike, *, intercept: bool = True,
                method: str = "greedy", budget: int | None = None,
                timeout_s: float | None = None, progress: bool | None = None,
                solver: str = "z3", smt2_dir: PathLike | None = None,
                max_memory_gb: float | None = None, exact: bool = False
                ) -> AdversarialOrder:
    """Search for a stream on which the perceptron makes as many mistakes as possible.

    Parameters
    ----------
    X : array-like (n_samples, n_features)
        Inputs; ``"exhaustive"`` and ``"z3"`` need integers or rationals (they are
        scaled to integers exactly).
    y : array-like (n_samples,)
        Two classes (any values; sorted, the first is -1).
    intercept : bool, default True
        Append a constant 1 to every input (the augmented data is what the bound and
        the search use).
    method : {"greedy", "exhaustive", "z3"}, default "greedy"
    budget : int, optional
        greedy: at most this many updates per rule (default 100,000); exhaustive: at
        most this many weight vectors (default 2,000,000); z3: the longest stream
        asked about (default 40), each query within the solver's resource limit
        (:data:`verify.smt.RLIMIT`). Past the budget the result has
        ``complete=False`` and ``stopped_by="budget"``.
    timeout_s : float, optional
        Stop searching after about this many seconds (every method; a z3 query is
        cut short too): the longest stream found so far is returned, with
        ``complete=False`` and ``stopped_by="timeout"``. Without it only the budget
        limits the search, so the result does not depend on the clock.
    progress : bool, optional
        Show a progress bar (tqdm, on stderr) of the greedy updates, the exhaustive
        weight vectors or the z3 queries; ``None`` (default): only on a terminal, once
        the search takes more than half a second. It changes no result.
    solver : {"z3", "cvc5"}, default "z3"
        The SMT solver of ``method="z3"`` (bounded model checking); both read the same
        SMT-LIB 2 text (:mod:`verify.smt`).
    smt2_dir : path, optional
        ``method="z3"``: save the whole incremental session (one ``check-sat`` per
        stream length) as ``smt2_dir/worst_order.smt2``.
    max_memory_gb : float, optional
        ``method="exhaustive"``: refuse, before searching, a ``budget`` of weight
        vectors (with their edges) that could need more memory than this (default
        4 GB; :class:`verify.errors.MemoryLimitError`, a ``ValueError``).
    exact : bool, default False
        ``method="greedy"``: accept inputs that float64 cannot hold exactly (``0.1``,
        ``Fraction(1, 3)``, huge integers). The search then ranks the examples by
        their nearest float64 values, and the stream it finds is re-run in exact
        arithmetic on the inputs as given: the mistakes, the weights and the bound
        are exact, only the choice of the stream saw rounded numbers. Without it such
        inputs are refused. ``"exhaustive"`` and ``"z3"`` are exact always.

    Returns
    -------
    AdversarialOrder

    Raises
    ------
    ValueError
        On bad input; for ``"exhaustive"`` when a reachable cycle shows the data is not
        separable (the number of mistakes is then unbounded: see
        :func:`verify.check_cycling`).

    Examples
    --------
    >>> X = [[2, 1], [1, 2], [-1, -1]]; y = [1, 1, -1]
    >>> g = worst_order(X, y, method="greedy")
    >>> e = worst_order(X, y, method="exhaustive")
    >>> g.mistakes <= e.mistakes <= e.bound, e.complete
    (True, True)
    """
    check_choice(method, "method", _METHODS)
    check_choice(solver, "solver", SOLVERS)
    budget = _DEFAULT_BUDGET[method] if budget is None else check_int_at_least(
        budget, "budget", 1)
    deadline = deadline_after(timeout_s)
    data = as_dataset(X, y)
    unit = {"greedy": "updates per rule", "exhaustive": "weight vectors",
            "z3": "mistakes"}[method]
    if method == "greedy":
        if not exact:  # a float search: data that float64 would round are refused
            data.floats
        with search_bar(None, "worst_order greedy: updates", progress,
                        unit=" updates") as bar:
            order, explored, stopped = _greedy(data, intercept, budget, deadline, bar)
        return _finish(data, intercept, order, method, explored, False,
                       stopped=(stopped, stopped
                                and stopped_phrase(stopped, budget, timeout_s, unit)))
    YX, _ = integer_yx(data, None, intercept=intercept)
    if method == "exhaustive":
        with search_bar(budget, "worst_order exhaustive: weight vectors",
                        progress, unit=" vectors") as bar:
            order, explored, stopped = _exhaustive(YX, budget, deadline, bar,
                                                   max_memory_gb)
    else:
        order, explored, stopped = _bmc_search(YX, budget, deadline, progress,
                                               solver, smt2_dir)
    unknown, stopped = stopped == _GAVE_UP, "" if stopped == _GAVE_UP else stopped
    why = ("the solver answered unknown" if unknown else
           stopped and stopped_phrase(stopped, budget, timeout_s, unit))
    return _finish(data, intercept, order, method, explored, not stopped and not unknown,
                   stopped=(stopped, why))


def _finish(data, intercept, order, method, explored, complete_hint, *,
            closed_form=None, stopped=("", "")):
    """Run ``order``, check it against Novikoff's bound, and report.

    The float run of the core is the answer when it confirms every step; when it
    does not (scores that float64 cannot carry, or a search that rounded), the stream
    is re-run in exact arithmetic, and only its prefix of genuine mistakes is kept.
    ``closed_form`` = ``(R, gamma, bound)`` when theory gives them; ``stopped`` =
    ``(stopped_by, why)`` when a budget or time limit cut the search short.
    """
    R, gamma, bound = closed_form or novikoff_terms(data, None, intercept=intercept)
    Xf = data.exact_floats
    res, order = _confirmed(data, intercept, order, bound) if len(order) else (None, order)
    mistakes = res.mistakes if res is not None else 0
    # exact arithmetic and a certified margin: Novikoff's theorem holds here
    assert mistakes <= bound * (1 + 1e-9), (mistakes, bound)
    # mistakes <= true maximum <= floor(true bound) <= floor(bound): equality is proof
    complete = bool(complete_hint or (math.isfinite(bound) and mistakes >= math.floor(bound)))
    kept = Xf if Xf is not None else tuple(tuple(r) for r in data.fractions)
    d = data.shape[1] + bool(intercept)
    w = _exact_vector(res.last_w if res is not None else [0] * d, floats=Xf is not None)
    stopped_by, why = stopped
    msg = _finish_message(mistakes, method, bound, complete, stopped, gamma > 0)
    return AdversarialOrder(
        order=tuple(int(i) for i in order), mistakes=int(mistakes), bound=float(bound),
        R=R, gamma=gamma, complete=complete, method=method, intercept=bool(intercept),
        explored=int(explored), w=w, X=kept, y=data.y, message=msg, stopped_by=stopped_by)


def _confirmed(data, intercept, order, bound):
    """``(run, order)``: the float run of ``order`` when it confirms every step
    within ``bound``, else the exact one of its prefix of genuine mistakes."""
    try:
        res = None if data.exact_floats is None else run_order(data, None, order,
                                                               intercept=intercept)
    except FloatRangeError:
        res = None
    if res is None or res.mistakes != len(order) or res.mistakes > bound:
        res = run_order(data, None, order, intercept=intercept, exact=True)
        order = _mistake_prefix(order, res)
        if len(order) != res.mistakes:
            res = run_order(data, None, order, intercept=intercept, exact=True)
    return res, order


def _finish_message(mistakes, method, bound, complete, stopped, separable=True):
    """The one-line message of an adversarial order.

    >>> _finish_message(12, "greedy", math.inf, False, ("budget", "the budget stopped "
    ...                 "the search"), separable=False)
    '12 mistakes (greedy) when the budget stopped the search; no Novikoff bound: the data are not linearly separable, so some stream makes mistakes forever (`markone verify cycling` finds one)'
    """
    stopped_by, why = stopped
    if not separable:   # not "a bound beyond float64's range": there is none (#37)
        return (f"{plural(mistakes, 'mistake')} ({method})"
                + (f" when {why}" if why else "")
                + "; no Novikoff bound: the data are not linearly separable, so some "
                "stream makes mistakes forever (`markone verify cycling` finds one)")
    shown = (f"{bound:.6g}" if bound != float("inf") else "beyond float64's range "
             "(`markone verify separable` gives an exact one)")
    return (f"{plural(mistakes, 'mistake')} ({method}); Novikoff's bound {shown}; "
            + ("the maximum over all streams" if complete else "a lower bound on the maximum")
            + (f" ({why}; raise {to_raise(stopped_by)} to search further)"
               if stopped_by and not complete else
               f" ({why})" if why and not complete else ""))


def _exact_vector(v, *, floats):
    """A weight vector exactly: float64 when ``floats`` and float64 holds every
    entry, else a tuple of Fractions."""
    if isinstance(v, np.ndarray) and v.dtype == np.float64:
        return v
    q = tuple(to_fraction(x) for x in v)
    f = [float64_of(x) for x in q] if floats else [None]
    return q if None in f else np.array(f, dtype=np.float64)


def _mistake_prefix(order, res):
    """The longest prefix of ``order`` whose every presentation was a mistake in the
    (exact) run ``res``, from its record of mistake indices and weights."""
    made = list(res.mistake_indices)
    k = 0
    while k < len(order) and k < len(made) and made[k] == order[k]:
        k += 1
    return list(order[:k])


# ---- greedy ------------------------------------------------------------------------

#: Sparse data up to this many entries (n x d) walk the greedy rules densely: the
#: alignment ``yx . u`` is a float sum whose rounding depends on the summation order, and
#: a different rounding can break a tie the other way. Small data thus get the same
#: order stored either way; larger sparse data keep CSR (its orders may differ from the
#: dense data's only where two alignments tie to within rounding).
DENSE_WALK_ENTRIES = 1_000_000


def _greedy(data, intercept, budget, deadline=None, bar=None):
    """The longest stream of the greedy rules; ``(order, steps, stopped_by)``."""
    # a power-of-two rescaling changes no decision and keeps the scores in range
    YX = scaled_data(data, None, intercept)[0]  # dense C-contiguous, or CSR
    if not isinstance(YX, np.ndarray) and YX.shape[0] * YX.shape[1] <= DENSE_WALK_ENTRIES:
        YX = YX.toarray()  # small: the dense walk's roundings, so sparse = dense exactly
    u = _direction(YX)
    rules = ("norm", "least", "align") if u is not None else ("norm", "least")
    best, steps, stopped_by = None, 0, ""
    for rule in rules:
        if bar is not None:
            bar.set_description(f"worst_order greedy ({rule}): updates", refresh=False)
        order, stopped = _greedy_walk(YX, rule, u, budget, deadline, bar)
        steps += len(order)
        if best is None or len(order) > len(best):
            best = order
        stopped_by = stopped_by or stopped
        if stopped == TIMEOUT:
            break
    return best, steps, stopped_by


def _direction(YX):
    """A unit separating direction (the max-margin one), or None if not separable."""
    m = max_margin(Dataset.of_rows(YX), None, intercept=False)
    if not m.separable:
        return None
    return np.asarray(m.u, dtype=float)


def _greedy_run(YX, rule, u, budget):
    """The greedy stream of ``rule`` (at most ``budget`` updates)."""
    return _greedy_walk(YX, rule, u, budget)[0]


def _greedy_walk(YX, rule, u, budget, deadline=None, bar=None):
    """``(order, stopped_by)``: the greedy stream of ``rule``, and ``"budget"`` or
    ``"timeout"`` when one of them ended it before every example was correct."""
    norms = _row_sq_norms(YX)
    gain = YX @ u if u is not None else None
    w = np.zeros(YX.shape[1])
    order = []
    while True:
        if len(order) % 256 == 0 and order:  # the bar and the clock, now and then
            if bar is not None:
                bar.update(256)
            if expired(deadline):
                return order, TIMEOUT
        s = YX @ w
        cand = np.flatnonzero(s <= 0)
        if cand.size == 0:
            break
        if len(order) >= budget:
            if bar is not None:
                bar.update(len(order) % 256)
            return order, BUDGET
        if rule == "norm":      # largest growth of ||w||^2 = 2 y w.x + ||x||^2
            key = 2 * s[cand] + norms[cand]
        elif rule == "least":   # the least violated example (score closest to 0)
            key = s[cand]
        else:                   # the smallest progress along the max-margin direction
            key = -gain[cand]
        i = int(cand[np.argmax(key)])
        w += dense_rows(YX, [i])[0]
        order.append(i)
    if bar is not None:
        bar.update(len(order) % 256)
    return order, ""


# ---- exhaustive --------------------------------------------------------------------

#: A mistake graph of at most this many edges gets its longest path as plain Python
#: (:func:`_longest_path` uncompiled: some 0.1 s at most, and numba is not imported);
#: a larger one compiled. The choice depends on the graph alone.
_PLAIN_EDGES = 1 << 14


@kernel()
def _longest_path(n_nodes, src, dst):
    """Longest path from node 0 in a graph given by edges (Kahn's topological order).

    Returns (dist, parent_edge, n_sorted); n_sorted < n_nodes means a cycle."""
    indeg = np.zeros(n_nodes, np.int64)
    for k in range(src.shape[0]):
        indeg[dst[k]] += 1
    start = np.zeros(n_nodes + 1, np.int64)
    for k in range(src.shape[0]):
        start[src[k] + 1] += 1
    for i in range(n_nodes):
        start[i + 1] += start[i]
    pos = start[:-1].copy()
    out = np.empty(src.shape[0], np.int64)
    for k in range(src.shape[0]):
        out[pos[src[k]]] = k
        pos[src[k]] += 1
    dist = np.full(n_nodes, -1, np.int64)
    parent = np.full(n_nodes, -1, np.int64)
    dist[0] = 0
    queue = np.empty(n_nodes, np.int64)
    head, tail = 0, 0
    for i in range(n_nodes):
        if indeg[i] == 0:
            queue[tail] = i
            tail += 1
    while head < tail:
        v = queue[head]
        head += 1
        for j in range(start[v], start[v + 1]):
            k = out[j]
            t = dst[k]
            if dist[v] >= 0 and dist[v] + 1 > dist[t]:
                dist[t] = dist[v] + 1
                parent[t] = k
            indeg[t] -= 1
            if indeg[t] == 0:
                queue[tail] = t
                tail += 1
    return dist, parent, head


def _exhaustive(YX, budget, deadline=None, bar=None, max_memory_gb=None):
    """The longest stream in the mistake graph; ``(order, states, stopped_by)``."""
    g = reachable_states(YX, budget=budget, edges=True, deadline=deadline, bar=bar,
                         max_memory_gb=max_memory_gb)
    n = len(g.states)
    longest = _longest_path if len(g.src) <= _PLAIN_EDGES else compiled(_longest_path)
    dist, parent, n_sorted = longest(n, g.src.astype(np.int64), g.dst.astype(np.int64))
    if n_sorted < n:
        raise ValueError(
            "the mistake graph has a cycle, so the data are not linearly separable (or "
            "a zero input makes an update that changes nothing) and the number of "
            "mistakes is unbounded; study it with verify.check_cycling instead.")
    end = int(np.argmax(dist))
    order = []
    while parent[end] >= 0:
        k = parent[end]
        order.append(int(g.example[k]))
        end = int(g.src[k])
    order.reverse()
    return order, n, g.stopped_by


# ---- z3 ----------------------------------------------------------------------------

#: What :func:`_bmc_search` says when the solver answered unknown by itself.
_GAVE_UP = "solver"


def _bmc_search(YX, budget, deadline=None, progress=None, solver="z3", smt2_dir=None):
    """Longest stream found by asking the SMT solver for k = 1, 2, ... mistakes
    (within ``budget`` queries and until ``deadline``); ``(order, queries,
    stopped_by)``, ``stopped_by`` ``""`` when the solver proved there is no longer
    stream, :data:`_GAVE_UP` when it answered unknown by itself. One incremental QF_LIA session: step ``k`` chooses an example ``c_k`` whose
    score under ``w_{k-1}`` is ``<= 0`` and defines ``w_k`` (fresh integer unknowns) by
    the update."""
    rows = [[int(v) for v in r] for r in YX]
    session = Session("QF_LIA", solver=solver, comment=(
        f"markone worst_order: bounded model checking, {len(rows)} examples; "
        "check-sat number k: is there a stream of k mistakes?"))
    w = [0] * len(rows[0])
    best, queries, stopped_by = [], 0, BUDGET
    with search_bar(budget, f"worst_order {solver}: stream length", progress,
                    unit=" queries") as bar:
        for k in range(1, budget + 1):
            if expired(deadline):
                stopped_by = TIMEOUT
                break
            w = _bmc_step(session, rows, w, k)
            answer = session.check(seconds_left(deadline))
            bar.update(1)
            queries += 1
            if answer != "sat":  # unsat: no longer stream (a proof); unknown: gave up
                stopped_by = ("" if answer == "unsat" else
                              session.stopped_by or _GAVE_UP)
                break
            model = session.model()
            best = [int(model[f"c{j}"]) for j in range(1, k + 1)]
    if smt2_dir is not None:
        save_smt2(smt2_dir, "worst_order.smt2", session.smt2())
    return best, queries, stopped_by


def _bmc_step(session, rows, w, k):
    """Assert step ``k``; return the integer unknowns of ``w_k``."""
    c = Int(f"c{k}")
    dot = [Sum([r[j] * w[j] for j in range(len(r)) if r[j] and not _zero(w[j])], "Int")
           for r in rows]
    score = Sum([If(Eq(c, i), s, 0) for i, s in enumerate(dot)
                 if not _zero(s)], "Int")
    new = [Int(f"w{k}_{j}") for j in range(len(w))]
    session.add(c >= 0, c < len(rows), score <= 0,
                *[Eq(new[j], w[j] + Sum([If(Eq(c, i), r[j], 0) for i, r in enumerate(rows)
                                         if r[j]], "Int")) for j in range(len(w))])
    return new


def _zero(t):
    return isinstance(t, int) and t == 0


# ---- families of hard cases ---------------------------------------------------------

def small_margin_lattice(n: int = 8, d: int = 3, k: int = 5, *, draws: int = 500,
                         seed: Seed = None, intercept: bool = True,
                         progress: bool | None = None
                         ) -> tuple[np.ndarray, np.ndarray]:
    """A small integer data set with a tiny margin: a hard case for the adversary.

    Draws ``draws`` sets of ``n`` points with integer coordinates in ``[-k, k]^d``,
    each labelled by a random affine hyperplane with integer normal and half-integer
    offset (so no point lies on it), and returns the one with the largest Novikoff
    bound ``(R/gamma)^2``. ``progress`` shows a bar of the draws (tqdm on stderr;
    ``None``: only on a terminal, once the draws take more than half a second).

    Returns
    -------
    X : ndarray of int64, shape (n, d)
    y : ndarray of int64 (-1/+1), shape (n,)

    >>> X, y = small_margin_lattice(6, 2, 3, draws=50, seed=0)
    >>> X.shape, sorted(set(y.tolist())), int(abs(X).max()) <= 3
    ((6, 2), [-1, 1], True)
    """
    n = check_int_at_least(n, "n", 2)
    d = check_int_at_least(d, "d", 1)
    k = check_int_at_least(k, "k", 1)
    draws = check_int_at_least(draws, "draws", 1)
    rng = as_generator(seed)
    best, best_bound = None, -1.0
    with search_bar(draws, "small_margin_lattice: draws", progress,
                    unit=" draws") as bar:
        for _ in range(draws):
            bar.update(1)
            X = rng.integers(-k, k + 1, size=(n, d))
            u = rng.integers(-k, k + 1, size=d)
            y = np.where(X @ u + rng.integers(-k, k + 1) + 0.5 > 0, 1,
                         -1).astype(np.int64)
            if abs(int(y.sum())) == n:
                continue
            m = max_margin(X, y, intercept=intercept)
            if m.separable and m.bound > best_bound:
                best, best_bound = (X.astype(np.int64), y), m.bound
    if best is None:
        raise ValueError(f"no two-class separable draw in {plural(draws, 'try', 'tries')}; "
                         "raise draws.")
    return best


# ---- the orthonormal construction ---------------------------------------------------

def orthonormal_case(m: int, labels: ArrayLike | None = None) -> AdversarialOrder:
    """The orthonormal stream on which the bound is met exactly.

    ``X`` holds the unit vectors ``e_1..e_m`` with ``labels`` (default all +1); without
    intercept, ``R = 1`` and the margin is ``m**-0.5`` (attained by
    ``u = sum_i y_i e_i / sqrt(m)``), so Novikoff's bound is ``m``, and the perceptron
    makes exactly ``m`` mistakes: each ``e_i`` is orthogonal to all earlier updates,
    so its score is 0, a mistake, whatever its label.

    >>> c = orthonormal_case(3)
    >>> c.mistakes, c.bound, c.order
    (3, 3.0, (0, 1, 2))
    """
    X, y = orthonormal(m, labels=labels)
    m = len(X)
    return _finish(as_dataset(X, y), False, list(range(m)), "orthonormal", 0, True,
                   closed_form=(1.0, m**-0.5, float(m)))


@dataclass(frozen=True)
class ForcedMistakes:
    """What :func:`label_adversary` forced: a separable stream and the learner's errors.

    ``X`` is the identity (``e_1..e_m``), ``y`` the labels the adversary chose (the
    opposite of each prediction), ``u = y / sqrt(m)`` a unit separator with margin
    ``gamma = m**-0.5`` and ``R = 1``, so the stream is separable and Novikoff's bound
    is ``m``; ``mistakes`` counts predictions that differed from the label.
    """

    X: np.ndarray = field(repr=False)
    y: np.ndarray
    predictions: np.ndarray
    mistakes: int
    u: np.ndarray = field(repr=False)
    gamma: float
    R: float


def label_adversary(learner: Any, m: int) -> ForcedMistakes:
    """Force a deterministic online learner into ``m`` mistakes on a separable stream.

    The adversary shows ``e_1, e_2, ..., e_m`` in turn, reads the learner's prediction
    and declares the opposite label, then lets the learner learn it. Whatever the
    learner, the labels are separable by ``u = y/sqrt(m)`` with margin ``m**-0.5``
    and ``R = 1``: no mistake bound better than ``(R/gamma)^2 = m`` holds for any
    online learner, so the perceptron's is optimal.

    Parameters
    ----------
    learner : object or callable
        One of:

        * an object with ``predict_one(x)`` and ``learn_one(x, y)`` (markone's
          estimators, River-style learners);
        * an object with ``partial_fit(X, y, classes=...)`` and ``predict(X)``
          (scikit-learn's ``Perceptron``, ``SGDClassifier``...);
        * a callable ``learner(history, x) -> label``, with ``history`` the tuple of
          ``(x, y)`` pairs seen so far: the definition of a deterministic online
          learner.

        Labels are -1/+1. Before its first update an estimator that cannot predict yet
        is taken to predict +1 (the zero-score convention).
    m : int
        Length of the stream (>= 1).

    Returns
    -------
    ForcedMistakes

    Examples
    --------
    >>> majority = lambda history, x: 1 if sum(t for _, t in history) >= 0 else -1
    >>> label_adversary(majority, 5).mistakes
    5
    >>> import markone
    >>> label_adversary(markone.Perceptron(), 4).mistakes
    4
    """
    m = check_int_at_least(m, "m", 1)
    predict, learn = _protocol(learner)
    X = np.eye(m)
    y = np.empty(m, dtype=np.int64)
    pred = np.empty(m, dtype=np.int64)
    for t in range(m):
        p = predict(X[t])
        if p not in (-1, 1):
            raise ValueError(
                f"the learner predicted {p!r} for e_{t + 1}; label_adversary needs "
                "predictions in {-1, +1}.")
        pred[t], y[t] = p, -p
        learn(X[t], int(y[t]))
    return ForcedMistakes(X=X, y=y, predictions=pred, mistakes=int((pred != y).sum()),
                          u=y / math.sqrt(m), gamma=1 / math.sqrt(m), R=1.0)


def _protocol(learner):
    if hasattr(learner, "predict_one") and hasattr(learner, "learn_one"):
        def predict(x):
            try:
                return int(learner.predict_one(x))
            except (ValueError, AttributeError):   # not fitted yet: zero-score convention
                return 1

        def learn(x, t):
            learner.learn_one(x, t)
        return predict, learn
    if hasattr(learner, "partial_fit") and hasattr(learner, "predict"):
        def predict(x):
            try:
                return int(learner.predict(x.reshape(1, -1))[0])
            except (ValueError, AttributeError):
                return 1

        def learn(x, t):
            learner.partial_fit(x.reshape(1, -1), [t], classes=[-1, 1])
        return predict, learn
    if callable(learner):
        history = []

        def predict(x):
            return int(learner(tuple(history), x.copy()))

        def learn(x, t):
            history.append((x.copy(), t))
        return predict, learn
    raise TypeError(
        f"learner must have predict_one/learn_one, partial_fit/predict, or be a callable "
        f"learner(history, x) -> label; got {type(learner).__name__}.")
