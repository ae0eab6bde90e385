"""verify: perceptron theory checked on concrete data, with exact certificates.

Floating-point LP proposes, exact arithmetic disposes, Z3 is the independent exact
arbiter. Every verdict can be re-checked from scratch with :func:`check_certificate`,
the trusted kernel :mod:`verify.certificate.kernel` (one file, standard library only).
Names are imported lazily from their modules.
"""

from __future__ import annotations

from markone._internal.lazy import lazy_exports

# public name -> module that defines it
_EXPORTS = {
    # separability and margins
    "check_separable": "verify.separability",
    "SeparabilityVerdict": "verify.separability",
    "check_certificate": "verify.certificate",
    "CertificateError": "verify.errors",
    "max_margin": "verify.margin",
    "Margin": "verify.margin",
    # bounds, adversaries, cycling, proofs
    "check_mistake_bound": "verify.bounds",
    "freund_schapire_bound": "verify.bounds",
    "intercept_cost": "verify.bounds",
    "check_multiclass_bound": "verify.bounds",
    "check_compression": "verify.bounds",
    "worst_order": "verify.adversary",
    "AdversarialOrder": "verify.adversary",
    "orthonormal_case": "verify.adversary",
    "label_adversary": "verify.adversary",
    "check_cycling": "verify.cycling",
    "CyclingReport": "verify.cycling",
    # the machine
    "check_machine": "verify.machine",
    "MachineReport": "verify.machine",
    "minimal_faults": "verify.machine",
}
_SUBMODULES = {"certificate", "separability", "margin", "bounds", "adversary", "cycling",
               "proofs", "smt", "machine"}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports('verify', _EXPORTS, _SUBMODULES)
