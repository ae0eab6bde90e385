"""The learnable claim of one R-unit, and what follows when it does not hold.

A witness or a Gordan certificate from :func:`verify.check_separable` decides it
(``docs/theory/machine-claims.md``); an R-unit whose task is not proven learnable gets
end-stop and convergence claims that only repeat why (:func:`after_learnable`).
"""

from __future__ import annotations

from verify.machine.report import Claim

__all__ = ["learnable_claim", "after_learnable", "not_assessed"]

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


def learnable_claim(v, cols):
    n = len(cols)
    if v.separable:
        return Claim(True, f"check_separable/{v.method}",
                     f"separable on its {n} A-units: an exact witness classifies every "
                     "figure, so training can succeed",
                     {"witness": [str(c) for c in v.witness],
                      "a_units": [int(c) for c in cols]})
    if v.separable is False:
        return Claim(False, f"check_separable/{v.method}",
                     "cannot learn: no A-unit reaches it (every motor stopped or every "
                     "input cut), so its sum is 0 on every figure, a mistake" if n == 0
                     else f"not separable on its {n} A-units: an exact certificate on "
                     f"{len(v.certificate)} figures shows that no setting of the "
                     "potentiometers answers all of them",
                     {"certificate": {str(i): str(c) for i, c in v.certificate.items()},
                      "a_units": [int(c) for c in cols]})
    if v.method == "timeout":  # cut by check_machine's own limit, named as such
        return Claim(None, "check_separable/timeout",
                     f"undecided: the separability check on its {n} A-units did not "
                     "finish within timeout_s")
    return Claim(None, f"check_separable/{v.method}", v.message)
