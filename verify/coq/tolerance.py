"""The worst-case answers of a trained machine checked by the checker extracted from
the Coq proofs (issue 42).

``verify/coq/Tolerance.v`` proves, for a linear score, that the worst case over a box
of weight errors, or over ``k`` A-units forced to an output, is attained at a witness
(``box_worst_at_witness``, ``forced_worst_at_witness``), and proves its checker
``check_units`` sound: a certificate it accepts has, per R-unit, the exact tolerance,
the exact numbers of dead and stuck A-units and the exact table of the tolerance with
``k`` dead (``tolerance_sound``, ``dead_sound``, ``stuck_sound``, ``table_sound``).
:func:`tolerance_text` writes the certificate of the answers as they are claimed (an
R-unit's entries of the ``worst_case`` claim, or
:class:`~verify.machine.theory.worst_case.RUnitWorstCase`), forged or not, with the
machine's weights and figures, and :func:`check_tolerance_with_coq` runs the checker on
it. The writer is not trusted: it adds what the claim does not hold, each figure's
threshold (the ``k + 1``-th largest of its terms, at least 0, which bounds what any
``k`` A-units take) and the witness of each line of the table; a forged number leaves
no threshold or witness that passes.

The text form (read by ``main.ml``)::

    markone-coq-tolerance 1
    units R
    unit D N                          (per R-unit: D potentiometers, N figures)
    weights W_1 ... W_D
    Y X_1 ... X_D                     (N lines)
    tolerance DELTA I
    dead K I M J_1 ... J_M  T_1 ... T_N
    stuck any   |   stuck K I M J_1 ... J_M  T_1 ... T_N
    table L
    DELTA I M J_1 ... J_M  S_1 ... S_N    (L lines)

A-units are written as positions among the potentiometers the R-unit has; one it does
not have is written as ``D`` (no position), which the checker refuses.

Examples
--------
>>> import numpy as np
>>> from verify.machine.theory.worst_case import trained_worst_case
>>> w, X, T = np.array([[3.0, 1.0, -2.0]]), np.array([[1, 1, 0], [0, 1, 1]]), \\
...     np.array([[1], [-1]])
>>> units = trained_worst_case(w, X, T, np.ones((1, 3), bool))
>>> print(tolerance_text(w, X, T, np.ones((1, 3), bool), units), end="")
markone-coq-tolerance 1
units 1
unit 3 2
weights 3 1 -2
1 1 1 0
-1 0 1 1
tolerance 1/2 1
dead 0 1 1 2 3 2
stuck 0 1 1 0 2 3
table 1
1/2 1 0 5/2 3/2
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterator, Sequence

import numpy as np

from markone._internal.typing import ArrayLike
from verify.coq.build import CoqBuild
from verify.coq.checker import run_checker
from verify.errors import CertificateError
from verify.machine.theory.worst_case import scaled_weights

__all__ = ["tolerance_text", "check_tolerance_with_coq"]

#: The fields of an R-unit's answers that the certificate states.
_FIELDS = ("tolerance", "tolerance_figure", "dead", "dead_units", "dead_figure",
           "stuck", "stuck_units", "stuck_figure", "tolerance_dead")


def _q(v: Any) -> str:
    f = Fraction(v)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def _answers(u: Any, k: int) -> dict:
    """An R-unit's answers as a dict (of a RUnitWorstCase or an evidence entry),
    ValueError when a field is missing or of the wrong kind."""
    d = u.to_dict() if hasattr(u, "to_dict") else u
    if not isinstance(d, dict) or any(f not in d for f in _FIELDS):
        raise ValueError(f"r_units[{k}] must hold the fields {list(_FIELDS)}")
    counts = [d["tolerance_figure"], d["dead"], d["dead_figure"], *d["dead_units"],
              *d["stuck_units"]] + ([d["stuck"], d["stuck_figure"]]
                                    if d["stuck"] is not None else [])
    if not all(type(c) is int for c in counts):
        raise ValueError(f"r_units[{k}]: figures, A-units and counts must be "
                         "integers")
    try:
        d = dict(d, tolerance=Fraction(d["tolerance"]),
                 tolerance_dead=[Fraction(v) for v in d["tolerance_dead"]])
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(f"r_units[{k}]: its tolerances must be exact numbers such "
                         "as \"3\" or \"7/2\"") from None
    return d


def _threshold(terms: np.ndarray, k: int) -> np.ndarray:
    """Per row, the ``k + 1``-th largest term, at least 0 (0 when there are at most
    ``k``): with it, ``k t + sum (v - t)^+`` is the most any ``k`` terms sum to."""
    if k >= terms.shape[1] or k < 0:
        return np.zeros(terms.shape[0], dtype=terms.dtype)
    kth = -np.partition(-terms, k, axis=1)[:, k]
    return np.maximum(kth, 0)


def _top_positive(row: np.ndarray, k: int) -> list[int]:
    """The positions of the (at most) ``k`` largest positive entries of ``row``."""
    order = np.argsort(-row, kind="stable")[:max(k, 0)]
    return [int(j) for j in order if row[j] > 0]


def _table_line(k, delta, W, Q, X, y, m):
    """One line of the table: ``delta``, its witness figure and A-units, the figures'
    thresholds (the terms ``y w_j x_j - delta x_j``, in units of ``1 / (Q b)``)."""
    a, b = delta.numerator, delta.denominator
    U = b * y[:, None] * W[None, :] * X - a * Q * X
    gap = [b * int(m[i]) - a * Q * int(X[i].sum()) - int(U[i, _top_positive(U[i], k)]
                                                           .sum())
           for i in range(len(y))]
    i = int(np.argmin(gap))
    t = _threshold(U, k)
    return (f"{_q(delta)} {i} {_units_text(_top_positive(U[i], k))} "
            + " ".join(_q(Fraction(int(v), Q * b)) for v in t))


def _units_text(positions: Sequence[int]) -> str:
    return " ".join(map(str, [len(positions), *positions]))


def _forced(k, figure, units, V, Q, n, pos):
    """``K I M J... T...`` of the dead (``V`` the terms ``y w_j x_j``) or stuck
    (``y w_j (x_j - 1)``) answers; figures and A-units out of range written as ``n``
    and ``D``."""
    where = [pos.get(j, len(pos)) for j in units]
    t = _threshold(V, k)
    figure = figure if 0 <= figure < n else n
    return f"{k} {figure} {_units_text(where)} " + " ".join(_q(Fraction(int(v), Q))
                                                             for v in t)


def _unit_lines(w: np.ndarray, X: np.ndarray, y: np.ndarray, cols: np.ndarray,
                d: dict) -> Iterator[str]:
    """The lines of one R-unit's certificate."""
    n = len(y)
    W, Q = scaled_weights(w)
    W = W.astype(object) if W.dtype == object else W.astype(np.int64)
    Xi = X.astype(W.dtype)
    m = y * (Xi @ W)
    pos = {int(a): p for p, a in enumerate(cols)}
    yield f"unit {len(cols)} {n}\n"
    yield "weights " + " ".join(_q(Fraction(int(v), Q)) for v in W) + "\n"
    for i in range(n):
        yield f"{int(y[i])} " + " ".join(map(str, Xi[i])) + "\n"
    fig = d["tolerance_figure"]
    yield f"tolerance {_q(d['tolerance'])} {fig if 0 <= fig < n else n}\n"
    V = y[:, None] * W[None, :] * Xi
    yield "dead " + _forced(d["dead"], d["dead_figure"], d["dead_units"], V, Q, n,
                            pos) + "\n"
    if d["stuck"] is None:
        yield "stuck any\n"
    else:
        yield "stuck " + _forced(d["stuck"], d["stuck_figure"], d["stuck_units"],
                                 y[:, None] * W[None, :] * (Xi - 1), Q, n, pos) + "\n"
    yield f"table {len(d['tolerance_dead'])}\n"
    for k, delta in enumerate(d["tolerance_dead"]):
        yield _table_line(k, delta, W, Q, Xi, y, m) + "\n"


def _lines(weights, patterns, targets, wired, r_units) -> Iterator[str]:
    weights = np.asarray(weights, dtype=np.float64)
    A = np.asarray(patterns).astype(bool)
    T = np.asarray(targets).astype(np.int64)
    wired = np.asarray(wired, bool)
    if len(r_units) != weights.shape[0]:
        raise ValueError(f"{len(r_units)} R-unit entries for {weights.shape[0]} R-units")
    answers = [_answers(u, k) for k, u in enumerate(r_units)]
    yield f"markone-coq-tolerance 1\nunits {len(answers)}\n"
    for r, d in enumerate(answers):
        cols = np.flatnonzero(wired[r])
        yield from _unit_lines(weights[r][cols], A[:, cols], T[:, r], cols, d)


def tolerance_text(weights: ArrayLike, patterns: ArrayLike, targets: ArrayLike,
                   wired: ArrayLike, r_units: Sequence[Any]) -> str:
    """The certificate, in the checker's text form, that every R-unit's answers
    (``r_units``: RUnitWorstCase or the ``worst_case`` claim's evidence entries, in
    the order of the R-units) are exact for ``weights`` ``(n_r, n_a)`` in motor steps,
    A-unit ``patterns`` ``(n, n_a)`` (0/1), ``targets`` ``(n, n_r)`` (+/-1) and the
    potentiometers each R-unit has, ``wired`` ``(n_r, n_a)``.

    Raises
    ------
    ValueError
        When an entry lacks a field or holds one of the wrong kind.
    """
    return "".join(_lines(weights, patterns, targets, wired, r_units))


def check_tolerance_with_coq(weights: ArrayLike, patterns: ArrayLike,
                             targets: ArrayLike, wired: ArrayLike,
                             r_units: Sequence[Any], *, built: CoqBuild | None = None,
                             budget: int | None = None, timeout: float | None = None,
                             max_memory_gb: float | None = None) -> bool:
    """Check every R-unit's worst-case answers (as :func:`tolerance_text` takes them)
    with the checker extracted from the Coq proofs: True when it accepts them;
    :class:`~verify.errors.CertificateError` when it refutes one. ``built``,
    ``budget``, ``timeout`` and ``max_memory_gb`` as
    :func:`verify.coq.check_with_coq` takes them (the same errors)."""
    lines = _lines(weights, patterns, targets, wired, r_units)
    if run_checker(lines, built=built, budget=budget, timeout=timeout,
                   max_memory_gb=max_memory_gb):
        return True
    raise CertificateError("the checker extracted from the Coq proofs "
                           "(verify/coq/Tolerance.v) refutes the worst case: a "
                           "tolerance, a count of dead or stuck A-units, a table line "
                           "or a witness is not what the weights and figures give")
