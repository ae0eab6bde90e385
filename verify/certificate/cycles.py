"""The trusted check of a cycling certificate: the perceptron's cycle, run again.

A cycling certificate (``markone verify cycling DATA --certificate OUT.json``, format
``markone.verify.cycling/1``) says that the perceptron (markone's rule: a mistake when
``y w.[x, 1] <= 0``, then ``w + y [x, 1]``), from ``w = 0``, presenting the examples in
the given order pass after pass (the cyclic order), is eventually periodic:

* ``transient_presentations`` presentations (``transient_updates`` updates among them)
  come before the cycle, and no fewer would do;
* the cycle is ``period_passes`` passes long (the least), starting at example
  ``transient_presentations mod n``, and comes back to the weights it starts from;
* ``cycle_updates`` lists the example of each update on the cycle, in order (at least
  one: the run never converges).

:func:`check_cycle` runs it again from scratch and says which of these fails. Like
:mod:`verify.certificate.kernel` (whose exact readers it uses) it imports nothing but
the standard library. It runs on integers: the signed rows ``y_i [x_i, 1]`` times the
least common denominator of all entries, which multiplies every weight vector of the
run by that one positive number and changes no decision and no repeat. The checker
extracted from the Coq proofs (``verify/coq/CycleCheck.v``) checks the same, in
rationals, and is proved sound: what it accepts is periodic and never converges.
"""

from __future__ import annotations

import math
from typing import Any

from verify.certificate.kernel import CertificateError, exact_rows, labels_pm1

__all__ = ["check_cycle", "signed_integer_rows"]


def signed_integer_rows(X: Any, y: Any, *, intercept: bool
                        ) -> tuple[list[list[int]], int]:
    """``(rows, den)``: the rows ``y_i [x_i, 1]`` (or ``y_i x_i``) times ``den``, the
    least common denominator of all of them: integers, the same run up to one positive
    factor.

    >>> signed_integer_rows([["1/2", 1], [0, "1/3"]], [1, -1], intercept=True)
    ([[3, 6, 6], [0, -2, -6]], 6)
    """
    rows, scales = exact_rows(X, intercept=intercept)
    signs = labels_pm1(y)
    if len(rows) != len(signs):
        raise ValueError(f"X has {len(rows)} samples but y has {len(signs)}.")
    den = math.lcm(*(s.denominator for s in scales))
    return [[s * (den // sc.denominator) * v for v in row]
            for row, s, sc in zip(rows, signs, scales)], den


class _Run:
    """The cyclic run: the weights ``w``, the presentations made (``t``), and the
    examples of the updates made (``updates``)."""

    def __init__(self, zs: list[list[int]], w: list[int], t: int) -> None:
        self.zs, self.w, self.t = zs, w, t
        self.updates: list[int] = []

    def present(self, k: int) -> None:
        """Make ``k`` more presentations in the cyclic order."""
        zs, n, w = self.zs, len(self.zs), self.w
        for t in range(self.t, self.t + k):
            z = zs[t % n]
            if sum(map(int.__mul__, w, z)) <= 0:   # markone's rule: 0 is a mistake
                w = list(map(int.__add__, w, z))
                self.updates.append(t % n)
        self.w, self.t = w, self.t + k


def check_cycle(X: Any, y: Any, claim: Any) -> bool:
    """Re-check a cycling certificate's claim on ``(X, y)`` by running it again.

    ``claim`` has ``intercept``, ``transient_presentations``, ``transient_updates``,
    ``period_passes`` and ``cycle_updates`` (as
    :class:`verify.certificate.reading.CycleClaim`). True when the run is what the
    claim says; else :class:`CertificateError` names what differs.

    >>> from types import SimpleNamespace as Claim
    >>> X, y = [[-1, -1], [-1, 1], [1, -1], [1, 1]], [-1, 1, 1, -1]   # XOR
    >>> check_cycle(X, y, Claim(intercept=True, transient_presentations=0,
    ...     transient_updates=0, period_passes=1, cycle_updates=[0, 1, 2, 3]))
    True
    >>> check_cycle(X, y, Claim(intercept=True, transient_presentations=0,
    ...     transient_updates=0, period_passes=2, cycle_updates=[0, 1, 2, 3] * 2))
    Traceback (most recent call last):
    ...
    verify.certificate.kernel.CertificateError: the period is not the least: the weights come back after 1 pass of the 2 claimed.
    """
    zs, _ = signed_integer_rows(X, y, intercept=bool(claim.intercept))
    n, T, q = len(zs), claim.transient_presentations, claim.period_passes
    if not (type(T) is int and T >= 0 and type(q) is int and q >= 1):
        raise CertificateError(f"transient_presentations={T!r} and period_passes={q!r} "
                               "must be an int >= 0 and an int >= 1.")
    pre = _Run(zs, [0] * len(zs[0]), 0)
    pre.present(T)
    if len(pre.updates) != claim.transient_updates:
        raise CertificateError(f"the transient makes {len(pre.updates)} updates, not "
                               f"the {claim.transient_updates!r} the certificate says.")
    cycle = _Run(zs, pre.w, T)
    for j in range(1, q + 1):
        cycle.present(n)
        if j < q and cycle.w == pre.w:
            raise CertificateError(f"the period is not the least: the weights come back "
                                   f"after {_passes(j)} of the {q} claimed.")
    if cycle.w != pre.w:
        raise CertificateError(f"the states do not repeat: {_passes(q)} after the "
                               f"transient the weights are {_show(cycle.w)}, not "
                               f"{_show(pre.w)} (in integer units).")
    _same_updates(cycle.updates, list(claim.cycle_updates))
    if T:
        _least_transient(zs, T, q)
    return True


def _same_updates(ran: list[int], claimed: list[Any]) -> None:
    """The updates of the cycle as run must be the claimed ones, at least one."""
    if not ran:
        raise CertificateError("the cycle makes no update: the run has converged, it "
                               "does not cycle.")
    k = next((k for k, (a, b) in enumerate(zip(ran, claimed)) if a != b), None)
    if k is not None:
        said = claimed[k]
        said = (f"example {said + 1} (X[{said}])" if type(said) is int and said >= 0
                else repr(said))
        raise CertificateError(f"update {k + 1} of the cycle is on example {ran[k] + 1} "
                               f"(X[{ran[k]}]), not on {said} as the certificate's "
                               f"cycle_updates[{k}] says.")
    if len(ran) != len(claimed):
        raise CertificateError(f"the cycle makes {len(ran)} updates; the certificate "
                               f"lists {len(claimed)}.")


def _least_transient(zs: list[list[int]], T: int, q: int) -> None:
    """One presentation earlier the state must not come back ``q`` passes later (else
    the cycle starts earlier: the transient is not the least)."""
    before = _Run(zs, [0] * len(zs[0]), 0)
    before.present(T - 1)
    again = _Run(zs, before.w, T - 1)
    again.present(q * len(zs))
    if again.w == before.w:
        raise CertificateError(f"the transient is not the least: the state after "
                               f"{T - 1} presentations comes back {_passes(q)} later.")


def _passes(k: int) -> str:
    return f"{k} pass" if k == 1 else f"{k} passes"


def _show(w: list[int]) -> str:
    text = ", ".join(map(str, w[:8]))
    return f"[{text}{', ...' if len(w) > 8 else ''}]"

