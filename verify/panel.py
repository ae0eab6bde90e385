"""The console playground's live panel: exact answers on a small labelled data set.

The playground of the console (``markone machine console``, page ``/playground``) is
served by :mod:`markone.console`, in the ground layer, which may not import
``verify``. The command that starts the console names this module's :func:`analyst`
by a ``"module:function"`` string (:data:`markone.console.playground.ANALYST`), as the
command line names its commands, and the server imports it by that name when it
starts; without ``verify`` the playground works and its panel says it is unavailable.

:class:`PanelAnalyst` answers three questions on the points of the playground (exact
rationals, two classes as -1/+1):

* :meth:`~PanelAnalyst.panel`: the exact separability verdict with its certificate
  (the witness line, or the Gordan multipliers), the certified margin interval and
  Novikoff's bound, on every change of the data;
* :meth:`~PanelAnalyst.cycle`: on non-separable data, the exact cycle of the
  perceptron under the cyclic order (:func:`verify.check_cycling`), limited by a count
  of updates, never by the clock;
* :meth:`~PanelAnalyst.certificate`: the certificate file that ``markone verify
  check`` reads (:func:`verify.certificate.certificate_document`).

>>> a = analyst()
>>> X, y = [[0, 0], [0, 1], [1, 0], [1, 1]], [-1, 1, 1, -1]
>>> answer = a.panel(X, y)
>>> answer["separable"], answer["gordan"]
(False, {'0': '1', '1': '1', '2': '1', '3': '1'})
>>> a.cycle(X, y)["period_updates"]
4
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from markone._internal.data import as_dataset
from markone._internal.typing import ArrayLike, JSONDict
from verify.certificate.writing import certificate_document
from verify.cycling import check_cycling
from verify.margin import max_margin
from verify.separability import check_separable

__all__ = ["PanelAnalyst", "analyst", "CYCLE_BUDGET", "CYCLE_SHOWN"]

#: Most perceptron updates the cycle search makes (a count: the same answer on every
#: computer, however busy).
CYCLE_BUDGET = 20_000
#: Most weight vectors of a cycle sent to the page (the period may be longer).
CYCLE_SHOWN = 400


def _text(q: Any) -> str:
    """An exact number as text: ``"3"``, ``"-1/2"``."""
    return str(Fraction(q))


def _float(v: float) -> float | None:
    """A float for JSON: None for an infinity."""
    return float(v) if math.isfinite(v) else None


class PanelAnalyst:
    """The exact answers of the playground's live panel (see the module docstring).

    Every method takes ``X`` (rows of exact numbers: ints, Fractions, or text like
    ``"-1/3"``) and ``y`` (-1/+1) and returns a JSON-ready dict.
    """

    def __repr__(self) -> str:
        return "PanelAnalyst()"

    def panel(self, X: ArrayLike, y: ArrayLike) -> JSONDict:
        """The verdict with its certificate, the margin interval and Novikoff's bound.

        Keys: ``separable`` (True, False, or None when undecided), ``method`` and
        ``message`` (the verdict's), ``witness`` (exact text, last entry the
        intercept) and ``witness_float``, or ``gordan`` (example index as text ->
        exact multiplier); ``margin`` (``lower``, ``upper``, ``R``, ``message``) and
        ``novikoff`` (the bound rounded up; None when infinite), ``bound_theorem``.

        >>> PanelAnalyst().panel([[0], [2]], [-1, 1])["witness"]
        ['2', '-1']
        """
        data = as_dataset(X, y)   # checked once; its exact rows made once
        verdict = check_separable(data, None)
        margin = max_margin(data, None)
        answer: JSONDict = {
            "separable": verdict.separable, "method": verdict.method,
            "message": verdict.message,
            "margin": {"lower": float(margin.lower), "upper": float(margin.upper),
                       "R": _float(margin.R), "message": margin.message},
            "novikoff": _float(margin.bound), "bound_theorem": margin.bound_theorem}
        if verdict.witness is not None:
            answer["witness"] = [_text(v) for v in verdict.witness]
            answer["witness_float"] = [float(v) for v in verdict.witness]
        if verdict.certificate is not None:
            answer["gordan"] = {str(i): _text(v)
                                for i, v in sorted(verdict.certificate.items())}
        return answer

    def cycle(self, X: ArrayLike, y: ArrayLike, budget: int = CYCLE_BUDGET) -> JSONDict:
        """The perceptron's exact cycle under the cyclic order, searched for at most
        ``budget`` updates.

        Keys: ``found`` (a cycle of non-zero period), ``complete`` (False when the
        budget ran out), ``converged``, ``transient`` and ``period_updates``,
        ``period_passes``, ``examples`` (the examples updated on on the cycle, sorted),
        ``weights`` (at most :data:`CYCLE_SHOWN` weight vectors on the cycle, in the
        data's units, as floats), ``message``.

        >>> PanelAnalyst().cycle([[0], [2]], [-1, 1])["converged"]
        True
        """
        report = check_cycling(X, y, budget=budget)
        found = bool(report.complete and not report.converged
                     and report.period_updates)
        scale = Fraction(report.scale)
        return {
            "found": found, "complete": bool(report.complete),
            "converged": report.converged, "transient": report.transient,
            "period_updates": report.period_updates,
            "period_passes": report.period_epochs,
            "examples": sorted({int(i) for i in report.cycle_indices}),
            "weights": [[float(Fraction(v) / scale) for v in w]
                        for w in report.cycle[:CYCLE_SHOWN]],
            "message": report.message}

    def certificate(self, X: ArrayLike, y: ArrayLike) -> JSONDict:
        """The certificate file's document (``markone verify check`` reads it) for the
        exact verdict on ``(X, y)``; ValueError when the provers left it undecided.

        >>> PanelAnalyst().certificate([[0], [2]], [-1, 1])["format"]
        'markone.verify.separability/3'
        """
        verdict = check_separable(X, y)
        if verdict.separable is None:
            raise ValueError(f"no certificate: {verdict.message}")
        return certificate_document(X, y, verdict,
                                    source={"console": "markone machine console"})


def analyst() -> PanelAnalyst:
    """The analyst the console's playground asks (named ``"verify.panel:analyst"``).

    >>> analyst()
    PanelAnalyst()
    """
    return PanelAnalyst()
