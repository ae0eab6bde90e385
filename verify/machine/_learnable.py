"""The learnable claim of one R-unit, and what follows when it does not hold.

A witness or a Gordan certificate from :func:`verify.check_separable` decides it
(``docs/theory/machine-claims.md``); an R-unit whose task is not proven learnable gets
end-stop and convergence claims that only repeat why (:func:`after_learnable`).
"""

from __future__ import annotations

from markone._internal.io import plural
from verify.machine.report import Claim

__all__ = ["learnable_claim", "a_units_words", "after_learnable", "not_assessed"]

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
                     f"{len(v.certificate)} figures shows that no setting of the "
                     "potentiometers answers all of them",
                     {"certificate": {str(i): str(c) for i, c in v.certificate.items()},
                      "a_units": [int(c) for c in cols]})
    if v.method == "timeout":  # cut by check_machine's own limit, named as such
        return Claim(None, "check_separable/timeout",
                     f"undecided: the separability check on {units} did not "
                     "finish within timeout_s")
    return Claim(None, f"check_separable/{v.method}", v.message)
