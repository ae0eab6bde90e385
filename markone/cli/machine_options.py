"""The Mark I's knobs and faults as command-line options, shared by every command that
builds machines (``machine train|fleet|demo|params``, ``verify machine``).

Physics: ``--set NAME=VALUE`` (repeatable) for any field of
:class:`~markone.hardware.MarkIParams`, validated exactly as the class validates it,
plus ``--ideal`` and the older shortcuts ``--topology``, ``--rule``, ``--noise``.
Faults: a fraction of each kind of part broken at random (:data:`FAULT_RATES`, drawn
from ``--seed``), or a fault-plan JSON file (``--faults FILE``, the format of
:meth:`~markone.hardware.faults.FaultPlan.to_dict`).
"""

from __future__ import annotations

import argparse
import ast
import json
from collections.abc import Sequence
from typing import Any
import dataclasses
import difflib

from markone.cli import (CommandError, nonnegative_float, positive_float,
                         unit_fraction)

__all__ = ["add_physics_options", "machine_params", "parse_setting",
           "add_fault_options", "fault_request", "FAULT_RATES", "FAULT_FILE_EXAMPLE"]

#: The older shortcuts: flag attribute -> MarkIParams field.
SHORTCUTS = {"topology": "topology", "rule": "rule", "noise": "photocell_noise_sd"}

#: Random faults: option (a keyword of ``random_faults``) -> (fault kind, type, help).
FAULT_RATES = {
    "cut_wires": ("CutWire", unit_fraction, "FRACTION", "of the plugboard wires cut"),
    "dead_a_units": ("AUnitStuck", unit_fraction, "FRACTION", "of the A-units dead"),
    "stopped_motors": ("MotorStopped", unit_fraction, "FRACTION",
                       "of the potentiometer motors stopped"),
    "dead_photocells": ("PhotocellStuck", unit_fraction, "FRACTION",
                        "of the photocells dead (dark)"),
    "drift_sd": ("PotentiometerDrift", positive_float, "SD",
                 "every potentiometer random-walks, SD motor steps per sqrt(second)"),
    "noise_sd": ("NoisySum", positive_float, "SD",
                 "Gaussian noise of SD motor steps on every R-unit's sum"),
}

#: Flags of the rates whose keyword does not read well as a flag.
_RATE_FLAGS = {"drift_sd": "--drift", "noise_sd": "--sum-noise"}

FAULT_FILE_EXAMPLE = ('{"seed": 0, "faults": [{"kind": "CutWire", "a_unit": 3, '
                      '"s_unit": 38}, {"kind": "PhotocellStuck", "cell": 42, "value": 1}]}')


def parse_setting(text: str, option: str = "--set") -> tuple[str, Any]:
    """``(name, value)`` from ``NAME=VALUE``: the value read as JSON, else as a Python
    literal, else as the text itself (so ``topology=source_sets`` needs no quotes).

    >>> parse_setting("weight_range=[-3, 3]")
    ('weight_range', (-3, 3))
    >>> parse_setting("topology=source_sets")
    ('topology', 'source_sets')
    >>> parse_setting("exposure_s=None")
    ('exposure_s', None)
    """
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise CommandError(f"{option} {text!r} must be NAME=VALUE, e.g. {option} "
                           f"motor_step_s=0.5 or {option} 'weight_range=[-3, 3]'.")
    value: Any
    try:
        value = json.loads(raw)
    except ValueError:
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            value = _float_or_word(raw)
    return name.strip(), _tuples(value)


def _float_or_word(raw: str) -> Any:
    """``raw`` as a float when Python reads it as one although no literal spells it
    (``nan``, ``inf``, ``-Infinity``: refused later as not finite, as ``1e400`` is),
    else the word itself.

    >>> _float_or_word("nan"), _float_or_word("source_sets")
    (nan, 'source_sets')
    """
    try:
        return float(raw)
    except ValueError:
        return raw


def _tuples(value):
    """Lists (from JSON) as the tuples MarkIParams keeps."""
    return tuple(map(_tuples, value)) if isinstance(value, (list, tuple)) else value


def check_param_name(name: str, option: str) -> None:
    """Refuse a name that is not a MarkIParams field, suggesting the nearest."""
    from markone.hardware import MarkIParams

    names = [f.name for f in dataclasses.fields(MarkIParams)]
    if name not in names:
        near = difflib.get_close_matches(name, names, n=1)
        hint = f"did you mean {near[0]}? " if near else ""
        raise CommandError(f"{option} {name}: not a machine parameter; {hint}"
                           "`markone machine params` lists them.")


def add_physics_options(p: argparse.ArgumentParser, *, shortcuts: bool = True) -> None:
    """``--set NAME=VALUE`` and ``--ideal`` (and, with ``shortcuts``, ``--topology``,
    ``--rule``, ``--noise``) on ``p``; read them back with :func:`machine_params`."""
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   dest="settings",
                   help="set a machine parameter (repeatable; `markone machine params` "
                   "lists them), e.g. --set motor_step_s=0.5 --set 'weight_range=[-3, "
                   "3]' --set topology=source_sets; VALUE is JSON or a Python literal "
                   "(None, true), else a word")
    p.add_argument("--ideal", action="store_true",
                   help="start from the ideal machine (no physics) instead of the "
                   "default one")
    if shortcuts:
        p.add_argument("--topology", choices=["full", "source_sets"], default=None,
                       help="plugboard wiring (the same as --set topology=...)")
        p.add_argument("--rule", choices=["error_correction", "forced", "gamma"],
                       default=None, help="reinforcement rule (the same as --set "
                       "rule=...)")
        p.add_argument("--noise", type=nonnegative_float, default=None,
                       help="photocell noise sd (the same as --set "
                       "photocell_noise_sd=...)")


def machine_params(args: argparse.Namespace, *, varied: Sequence[str] = (),
                   **defaults: Any) -> Any:
    """The :class:`~markone.hardware.MarkIParams` the options of
    :func:`add_physics_options` ask for; ``defaults`` are the command's own changes,
    which the options override. A refusal names the option and the parameter; a
    parameter in ``varied`` (``machine fleet --vary``) set by an option too is refused,
    not overridden in silence."""
    from markone.hardware import MarkIParams

    changes: dict[str, Any] = dict(defaults)
    given: dict[str, str] = {}
    for attr, name in SHORTCUTS.items():
        value = getattr(args, attr, None)
        if value is not None:
            changes[name] = value
            given[name] = "--" + attr
    for text in getattr(args, "settings", ()):
        name, value = parse_setting(text)
        check_param_name(name, "--set")
        if name in given:
            raise CommandError(f"--set {name} is given twice (also by {given[name]}); "
                               "give it once.")
        changes[name] = value
        given[name] = "--set"
    for name in varied:
        if name in given:
            flag = f"--set {name}" if given[name] == "--set" else given[name]
            raise CommandError(f"{flag} and --vary {name} both set {name}: list every "
                               f"value in --vary, or drop {flag}.")
    try:
        return (MarkIParams.ideal(**changes) if getattr(args, "ideal", False)
                else MarkIParams(**changes))
    except (TypeError, ValueError) as exc:
        raise CommandError(f"--set: {exc}") from None


def add_fault_options(p: argparse.ArgumentParser) -> None:
    """The fault options on ``p``; read them back with :func:`fault_request`."""
    g = p.add_argument_group(
        "faults", "break the machine before it runs: fractions of each kind of part, "
        "drawn from --seed, or a fault-plan file (faults named by unit index, from 0: "
        "\"a_unit\": 3 is the A-unit messages call A-unit 4)")
    for name, (kind, kind_type, metavar, what) in FAULT_RATES.items():
        g.add_argument(_RATE_FLAGS.get(name, "--" + name.replace("_", "-")),
                       dest=name, type=kind_type, default=None, metavar=metavar,
                       help=f"{what} ({kind})")
    g.add_argument("--faults-at", type=nonnegative_float, default=None,
                   metavar="SECONDS", help="when the random faults happen, in machine "
                   "seconds (default 0: broken from the start)")
    g.add_argument("--faults", default=None, metavar="PLAN.json", dest="fault_plan",
                   help="break exactly these parts: a JSON fault plan, e.g. "
                   f"{FAULT_FILE_EXAMPLE.replace('%', '%%')} (a wire of the plugboard "
                   "of --seed 0; a CutWire names a wire of the machine's own plugboard, "
                   "which --seed draws; kinds: PhotocellStuck "
                   "cell value, CutWire a_unit s_unit, AUnitStuck a_unit value, "
                   "MotorStopped r_unit a_unit, PotentiometerDrift sd, NoisySum sd; "
                   "each with an optional at_s)")


def fault_request(args: argparse.Namespace) -> Any:
    """What the fault options ask for: None (a healthy machine), a
    :class:`~markone.hardware.faults.FaultPlan` read from ``--faults``, or the
    keyword arguments of :func:`~markone.hardware.faults.random_faults` (seeded by
    ``--seed``); :func:`markone.hardware.faults.faults_for` makes either a plan."""
    rates = {name: getattr(args, name) for name in FAULT_RATES
             if getattr(args, name, None)}
    at_s = getattr(args, "faults_at", None)
    path = getattr(args, "fault_plan", None)
    if path is not None:
        if rates or at_s is not None:
            flags = [_RATE_FLAGS.get(n, "--" + n.replace("_", "-")) for n in rates]
            raise CommandError(f"--faults and {', '.join(flags) or '--faults-at'} "
                               "exclude each other: put every fault in the plan file.")
        return _read_plan(path)
    if not rates:
        if at_s is not None:
            raise CommandError("--faults-at needs faults to schedule: add e.g. "
                               "--cut-wires 0.1.")
        return None
    return {**rates, "at_s": at_s or 0.0, "seed": args.seed}


def _read_plan(path):
    from markone._internal.io import read_json
    from markone.hardware.faults import FaultPlan

    try:
        return FaultPlan.from_dict(read_json(path))
    except ValueError as exc:
        raise CommandError(f"--faults {path}: {exc}") from None
    except OSError as exc:
        raise CommandError(f"--faults {path}: {exc.strerror or exc}; give the path of a "
                           "fault-plan JSON file") from None
