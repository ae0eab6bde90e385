"""The learnable claim of one R-unit, and what follows when it does not hold.

A witness or a Gordan certificate from :func:`verify.check_separable` decides it
(``docs/theory/machine-claims.md``); an R-unit whose task is not proven learnable gets
end-stop and convergence claims that only repeat why (:func:`after_learnable`), and so
does one on a machine that no analysis covers (:func:`not_assessed`; both are given by
the provers of :mod:`verify.machine.claims._derived`).
"""

from __future__ import annotations

import math

import numpy as np

from markone._internal.io import plural
from markone.hardware.runits import numbered
from verify._internal.budget import seconds_left
from verify.machine.claims._evidence import a_units_of, evidence, fraction, verdict
from verify.errors import Refuted
from verify.machine.claims.methods import Method
from verify.machine.claims.registry import add_kind, proves, rechecks
from verify.machine.faults import check_r_unit_task
from verify.machine.report import Claim

__all__ = ["learnable_claim", "a_units_words", "after_learnable", "not_assessed",
           "separability", "SEPARABLE", "recheck_learnable", "LEARNABLE_FIELDS"]

#: The learnable claim's methods: the provers of :func:`verify.check_separable`.
SEPARABLE = tuple(m for m in Method if m.value.startswith("check_separable/"))

#: The verdicts of the provers of check_separable that cannot give all three.
_VERDICTS = {Method.SEPARABLE_TIMEOUT: (None,), Method.SEPARABLE_BUDGET: (None,),
             Method.SEPARABLE_PERCEPTRON: (True, None),
             Method.SEPARABLE_LEASTSQ: (False, None)}
for _method in SEPARABLE:
    add_kind("learnable", _method, *_VERDICTS.get(_method, (True, False, None)),
             evidence={True: ("witness", "a_units"), False: ("certificate", "a_units"),
                       None: ()})


@proves(*SEPARABLE, order=0, slot="learnable")
def separability(ctx) -> Claim:
    """Is the R-unit's task separable on its A-units (``ctx``: its
    :class:`~verify.machine.claims._context.RUnitContext`)?"""
    verdict = check_r_unit_task(ctx.X, ctx.y, timeout_s=seconds_left(ctx.deadline))
    return learnable_claim(verdict, ctx.cols, ctx.stuck)

#: The evidence of a learnable claim.
LEARNABLE_FIELDS = ("witness", "certificate", "a_units")


def after_learnable(learnable):
    """The end-stop and convergence claims of an R-unit whose task is not proven
    learnable (they follow from its learnable claim)."""
    why = ("not learnable, so no order can make it converge"
           if learnable.holds is False else "learnability undecided")
    return (Claim(None, "not assessed", f"end stops: {why}"),
            Claim(False if learnable.holds is False else None, learnable.method,
                  f"converges: {why}"))


def not_assessed():
    """The end-stop and convergence claims of a learnable R-unit on a machine that
    only the learnable claim covers."""
    note = ("only the 'error_correction' rule without photocell noise, drift, "
            "summation noise or motors that stop late is analysed (and the "
            "'forced' and 'gamma' rules on a machine without faults or photocell "
            "noise); learnability holds")
    return Claim(None, "not assessed", note), Claim(None, "not assessed", note)


def a_units_words(cols, stuck=frozenset()):
    """The A-units an R-unit learns on, in words: all of them, or (on a damaged
    machine) how many work, the others being stuck dead or on by a fault.

    >>> a_units_words(range(512)), a_units_words(range(512), frozenset(range(461)))
    ('its 512 A-units', 'its 51 working A-units (461 of its 512 stuck)')
    """
    cols = list(cols)
    broken = sum(int(a) in stuck for a in cols)
    if not broken:
        return f"its {plural(len(cols), 'A-unit')}"
    return (f"its {plural(len(cols) - broken, 'working A-unit')} ({broken} of its "
            f"{len(cols)} stuck)")


def learnable_claim(v, cols, stuck=frozenset()):
    """The learnable claim from a separability verdict ``v`` on the A-units ``cols``
    (``stuck``: those a fault holds dead or on, named in the message)."""
    n = len(cols)
    units = a_units_words(cols, stuck)
    if v.separable:
        return Claim(True, f"check_separable/{v.method}",
                     f"separable on {units}: an exact witness classifies every "
                     "figure, so training can succeed",
                     {"witness": [str(c) for c in v.witness],
                      "a_units": [int(c) for c in cols]})
    if v.separable is False:
        return Claim(False, f"check_separable/{v.method}",
                     "cannot learn: no A-unit reaches it (every motor stopped or every "
                     "input cut), so its sum is 0 on every figure, a mistake" if n == 0
                     else f"not separable on {units}: an exact certificate on "
                     f"{plural(len(v.certificate), 'figure')} shows that no setting of "
                     "the potentiometers answers "
                     + ("it" if len(v.certificate) == 1 else "all of them"),
                     {"certificate": {str(i): str(c) for i, c in v.certificate.items()},
                      "a_units": [int(c) for c in cols]})
    if v.method == "timeout":  # cut by check_machine's own limit, named as such
        return Claim(None, "check_separable/timeout",
                     f"undecided: the separability check on {units} did not "
                     "finish within timeout_s")
    return Claim(None, f"check_separable/{v.method}", v.message)


@rechecks(*SEPARABLE, slot="learnable")
def recheck_learnable(ctx, claim):
    """A witness must answer every figure (``y_i x_i . w > 0``), a Gordan certificate
    ``c >= 0``, not all zero, must have ``sum_i c_i y_i x_i = 0``; ``a_units`` are the
    R-unit's inputs. A witness makes the claim true, a certificate false."""
    ev = evidence(claim, LEARNABLE_FIELDS, ctx.where)
    X = a_units_of(ctx, ev) if ev else None
    y = ctx.task.targets[:, ctx.r].astype(object)
    if "witness" not in ev and "certificate" not in ev:
        if claim["holds"] is not None:
            raise Refuted("it has no witness or certificate")
        return None
    if "witness" in ev and "certificate" in ev:
        raise Refuted("it has both a witness and a certificate")
    if "witness" in ev:
        return verdict(claim, True, _witness_holds(X, y, ev["witness"]),
                       "the task is learnable")
    return verdict(claim, False, _certificate_holds(X, y, ev["certificate"]),
                   "the task is learnable")


def _witness_holds(X, y, witness):
    """Why the witness answers every figure (exact), or a refutation."""
    w = [fraction(v) for v in witness]
    if len(w) != X.shape[1]:
        raise Refuted(f"the witness has {len(w)} entries for {X.shape[1]} A-units")
    q = math.lcm(*(v.denominator for v in w))     # the witness times q: integers
    scores = y * X.dot(np.array([int(v * q) for v in w], dtype=object))
    bad = [i for i, s in enumerate(scores) if not s > 0]
    if bad:
        raise Refuted(f"the witness misclassifies {numbered('figure', bad[0])}")
    return "the witness answers every figure (exact)"


def _certificate_holds(X, y, certificate):
    """Why the Gordan certificate proves that no setting answers every figure (exact),
    or a refutation."""
    c = {int(i): fraction(v) for i, v in certificate.items()}
    if not c or any(v < 0 for v in c.values()) or not any(c.values()):
        raise Refuted("the certificate's weights must be >= 0 and not all zero")
    if any(not 0 <= i < len(y) for i in c):
        raise Refuted("the certificate names a figure that does not exist")
    total = sum((v * y[i] * X[i] for i, v in c.items()), np.zeros(X.shape[1], object))
    if any(total):
        raise Refuted("sum_i c_i y_i x_i is not zero: the certificate does not prove "
                      "that no setting answers every figure")
    return (f"sum_i c_i y_i x_i = 0 over {len(c)} figures with c >= 0 (exact): no "
            "setting answers them all")
