"""The claims a machine report can hold: the registry and one module per slot.

The registry (:mod:`verify.machine.claims.registry`) is the mechanism: the slots of a
report and each kind of claim (slot and method) with its verdicts, evidence fields,
provers and re-check; its functions are re-exported here (``add_kind``, ``proves``,
``rechecks``, ...), with :class:`Method` (:mod:`verify.machine.claims.methods`, the
words of the built-in methods). Each slot module below declares its kinds
(:func:`add_kind`, and :func:`add_slot` for a slot about the whole machine) beside
their provers and re-checks, decorated with :func:`proves` and :func:`rechecks`;
this ``__init__`` is the one place that imports
them, and so the one place that registers them: a new claim is one module, its line
in the list below, and one test file (``docs/verify-machine.md``, "Adding a claim").

Modules
-------
``registry``
    slots, kinds (:class:`ClaimKind`), provers and re-checks: the mechanism.
``methods``
    :class:`Method`, the words of the built-in methods.
``_learnable``, ``_end_stops``, ``_converges``, ``_faults``, ``timing``, ``_quantisation``
    one module per slot: its provers and re-checks (``_end_stops_recheck`` and
    ``_converges_recheck`` hold the longer re-checks of the two R-unit claims).
``_worst_case``
    the trained weights' exact worst case (potentiometer tolerance, dead and stuck
    A-units; issue 42), a slot of its own.
``_variation``, ``_derived``
    claims of several slots: those under device variation, and those that follow
    from a claim decided before them (``_rules`` gives the forced and gamma rules').
``_context``, ``_evidence``, ``_exact``, ``_fields``
    what provers and re-checks are given, reading evidence, the exact re-runs the
    re-checks share, and how a kind's evidence fields are checked.

Examples
--------
>>> from verify.machine.claims import kind_of
>>> kind_of("end_stops", "one-signed columns").recheck.__name__
'recheck_end_stops'
"""

from verify.machine.claims.methods import Method
from verify.machine.claims.registry import (KINDS, MACHINE, R_UNIT, SLOTS, ClaimKind,
                                            Slot, add_kind, add_slot, decide, kind_of,
                                            proves, provers, rechecks, remove_slot, slots)

# The claim modules, each registering its provers and re-checks (one line per module).
from verify.machine.claims import _learnable  # noqa: E402,F401
from verify.machine.claims import _end_stops, _end_stops_recheck  # noqa: E402,F401
from verify.machine.claims import _converges, _converges_recheck  # noqa: E402,F401
from verify.machine.claims import _derived  # noqa: E402,F401
from verify.machine.claims import _faults  # noqa: E402,F401
from verify.machine.claims import timing  # noqa: E402,F401
from verify.machine.claims import _quantisation  # noqa: E402,F401
from verify.machine.claims import _variation  # noqa: E402,F401
from verify.machine.claims import _worst_case  # noqa: E402,F401

__all__ = ["Method", "Slot", "ClaimKind", "SLOTS", "KINDS", "R_UNIT", "MACHINE",
           "add_slot", "add_kind", "remove_slot", "kind_of", "slots", "provers",
           "proves", "rechecks", "decide"]
