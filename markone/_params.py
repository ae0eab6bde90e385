"""Declarative parameter constraints: one table per learner, checked in every entry point.

scikit-learn's idea (``_parameter_constraints``) in markone's own small module, so the
estimators depend on scikit-learn's public API only. A table maps each parameter to the
constraints it may satisfy (any one is enough):

* a :class:`Constraint` (:class:`Interval`, :class:`Options`, :class:`StrOptions` or a
  subclass with its own ``is_satisfied_by`` and ``__str__``);
* ``None`` (the value ``None``), ``"boolean"`` (``bool`` or ``numpy.bool_``),
  ``"array-like"`` (a sequence or array, not a scalar), ``callable``, or a type (an
  instance of it).

:func:`validate_parameter_constraints` raises :class:`InvalidParameterError` naming the
parameter, the caller, every accepted form and the value given.

>>> import numbers
>>> table = {"max_epochs": [Interval(numbers.Integral, 1, None, closed="left")],
...          "order": [StrOptions({"given", "shuffle"}), "array-like"]}
>>> validate_parameter_constraints(table, {"max_epochs": 3, "order": [2, 0]}, "train")
>>> validate_parameter_constraints(table, {"order": "backwards"}, "train")
Traceback (most recent call last):
...
markone.InvalidParameterError: The 'order' parameter of train must be a str among {'given', 'shuffle'} or an array-like. Got 'backwards' instead.

:data:`CORE_CONSTRAINTS` is the one table that :func:`markone.train` and every
estimator share (each estimator adds its own entries), so the function and the
estimators accept and refuse the same values: step sizes and intercept constants may be
positive reals, ``Fraction`` or rational strings such as ``"1/2"`` (markone's
exact-mode extension). This module does not import scikit-learn.

>>> validate_core_params({"eta": "1/2", "max_epochs": 3}, "train")
>>> validate_core_params({"eta": "-1/2"}, "train")
Traceback (most recent call last):
...
markone.InvalidParameterError: The 'eta' parameter of train must be a finite real number > 0 (int, float or Fraction) or a str holding a positive rational such as '1/2' or '0.25'. Got '-1/2' instead.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from fractions import Fraction
from typing import Any

import numpy as np

from markone._internal.exact import exact_float
from markone.errors import MarkoneError
from markone.variants import VARIANTS

__all__ = ["InvalidParameterError", "Constraint", "Interval", "Options", "StrOptions",
           "validate_parameter_constraints", "CORE_CONSTRAINTS", "PositiveReal",
           "PositiveRationalString", "validate_core_params", "as_float",
           "FLOAT_PARAMETER_FIX"]


class InvalidParameterError(MarkoneError, ValueError, TypeError):
    """A parameter is outside its table of constraints (a ``ValueError`` and a
    ``TypeError``, as scikit-learn's error of the same name)."""


InvalidParameterError.__module__ = "markone"   # its public name: markone.InvalidParameterError


class Constraint:
    """One accepted form of a parameter: ``is_satisfied_by`` and a phrase (``str``)."""

    def is_satisfied_by(self, val: Any) -> bool:
        """Whether ``val`` has this form."""
        raise NotImplementedError

    def __str__(self) -> str:
        raise NotImplementedError


class Interval(Constraint):
    """A number of ``type`` (``numbers.Integral`` or ``numbers.Real``, never a bool)
    between ``left`` and ``right`` (``None``: unbounded); ``closed`` is ``"left"``,
    ``"right"``, ``"both"`` or ``"neither"``.

    >>> Interval(numbers.Integral, 1, None, closed="left").is_satisfied_by(True)
    False
    """

    def __init__(self, type: type, left: float | None, right: float | None, *,
                 closed: str) -> None:
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"closed={closed!r} must be 'left', 'right', 'both' or "
                             "'neither'.")
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def is_satisfied_by(self, val: Any) -> bool:
        if isinstance(val, (bool, np.bool_)) or not isinstance(val, self.type):
            return False
        return self._above_left(val) and self._below_right(val)

    def _above_left(self, val: Any) -> bool:
        if self.left is None:
            return True
        return bool(val >= self.left if self.closed in ("left", "both")
                    else val > self.left)

    def _below_right(self, val: Any) -> bool:
        if self.right is None:
            return True
        return bool(val <= self.right if self.closed in ("right", "both")
                    else val < self.right)

    def __str__(self) -> str:
        kind = "an int" if self.type is numbers.Integral else "a real number"
        lo = "(-inf" if self.left is None else (
            f"[{self.left}" if self.closed in ("left", "both") else f"({self.left}")
        hi = "inf)" if self.right is None else (
            f"{self.right}]" if self.closed in ("right", "both") else f"{self.right})")
        return f"{kind} in the range {lo}, {hi}"


class Options(Constraint):
    """One of the values ``options``, of type ``type``: a set (kept as given, so a
    live view such as a registry's ``keys()`` is read at each check) or any iterable
    (copied into a set)."""

    def __init__(self, type: type, options: Iterable) -> None:
        self.type = type
        self.options = options if isinstance(options, AbstractSet) else set(options)

    def is_satisfied_by(self, val: Any) -> bool:
        return isinstance(val, self.type) and val in self.options

    def __str__(self) -> str:
        listed = ", ".join(repr(o) for o in sorted(self.options, key=repr))
        return f"a {self.type.__name__} among {{{listed}}}"


class StrOptions(Options):
    """One of the strings ``options``.

    >>> str(StrOptions({"last", "averaged"}))
    "a str among {'averaged', 'last'}"
    """

    def __init__(self, options: Iterable[str]) -> None:
        super().__init__(str, options)


class _Named(Constraint):
    """The constraints a table names by a value: None, "boolean", "array-like",
    callable, or a type."""

    def __init__(self, spec: Any) -> None:
        if spec is None:
            self._test, self._text = (lambda v: v is None), "None"
        elif spec == "boolean":
            self._test, self._text = (lambda v: isinstance(v, (bool, np.bool_))), "a bool"
        elif spec == "array-like":
            self._test, self._text = _is_array_like, "an array-like"
        elif spec is callable:
            self._test, self._text = callable, "a callable"
        elif isinstance(spec, type):
            self._test = lambda v: isinstance(v, spec)
            self._text = f"an instance of {spec.__module__}.{spec.__qualname__}"
        else:
            raise ValueError(f"{spec!r} is not a parameter constraint: use a "
                             "Constraint, None, 'boolean', 'array-like', callable or "
                             "a type.")

    def is_satisfied_by(self, val: Any) -> bool:
        return bool(self._test(val))

    def __str__(self) -> str:
        return self._text


def _is_array_like(val: Any) -> bool:
    return ((hasattr(val, "__len__") or hasattr(val, "shape")
             or hasattr(val, "__array__")) and not np.isscalar(val))


def _as_constraint(spec: Any) -> Constraint:
    """``spec`` as a :class:`Constraint`; a named one (None, "boolean", ...) is made
    once per spec and kept, as the tables are checked on every call."""
    if isinstance(spec, Constraint):
        return spec
    try:
        named = _NAMED.get(spec)
    except TypeError:  # unhashable: no named constraint (_Named says so)
        return _Named(spec)
    if named is None:
        named = _NAMED[spec] = _Named(spec)
    return named


#: The :class:`_Named` constraint of each spec met so far (specs are hashable: None,
#: strings, ``callable``, types).
_NAMED: dict[Any, Constraint] = {}


def validate_parameter_constraints(constraints: Mapping[str, list], params:
                                   Mapping[str, Any], caller_name: str) -> None:
    """Check each of ``params`` (name -> value) against its entry of ``constraints``.

    Parameters
    ----------
    constraints : mapping
        Parameter name -> list of accepted forms (see the module's docstring); a
        parameter without an entry is not checked.
    params : mapping
        Parameter name -> value.
    caller_name : str
        The function or class named in the error.

    Raises
    ------
    InvalidParameterError
        When a value has none of its accepted forms.
    """
    for name, value in params.items():
        specs = constraints.get(name)
        if specs is None or _satisfies(specs, value):
            continue
        words = [str(_as_constraint(c)) for c in specs]
        allowed = words[0] if len(words) == 1 else (", ".join(words[:-1]) + " or "
                                                     + words[-1])
        raise InvalidParameterError(f"The {name!r} parameter of {caller_name} must be "
                                    f"{allowed}. Got {value!r} instead.")


def _satisfies(specs: list, value: Any) -> bool:
    """Whether ``value`` has one of the forms ``specs`` (a loop, not ``any`` of a
    generator: this runs for every parameter of every call)."""
    for spec in specs:
        if _as_constraint(spec).is_satisfied_by(value):
            return True
    return False


class PositiveRationalString(Options):
    """Constraint: a string holding a positive finite rational (``"1/2"``, ``"0.25"``).

    markone's extension of scikit-learn's parameter table: exact mode reads step sizes
    and intercept constants as rationals, so the estimators accept the same strings.

    >>> PositiveRationalString().is_satisfied_by("3/4"), PositiveRationalString(
    ...     ).is_satisfied_by("0")
    (True, False)
    """

    def __init__(self) -> None:
        super().__init__(str, set())

    def is_satisfied_by(self, val: Any) -> bool:
        if not isinstance(val, str):
            return False
        try:
            return Fraction(val.strip()) > 0
        except (ValueError, ZeroDivisionError):
            return False

    def __str__(self) -> str:
        return "a str holding a positive rational such as '1/2' or '0.25'"


class PositiveReal(Interval):
    """Constraint: a finite real number ``> 0`` (``Fraction`` included), not a bool.

    >>> from fractions import Fraction
    >>> [PositiveReal().is_satisfied_by(v) for v in (0.5, Fraction(1, 3), True, 0)]
    [True, True, False, False]
    """

    def __init__(self) -> None:
        super().__init__(numbers.Real, 0, None, closed="neither")

    def is_satisfied_by(self, val: Any) -> bool:
        if type(val) is float:  # the common case, without the ABC checks below
            return 0 < val < float("inf")
        if isinstance(val, (bool, np.bool_)) or not isinstance(val, numbers.Real):
            return False
        if isinstance(val, numbers.Rational):  # exact: Fraction, int
            return Fraction(val) > 0
        if isinstance(val, np.floating):  # any precision: a longdouble beyond float64 too
            return bool(np.isfinite(val) and val > 0)
        return bool(0 < float(val) < float("inf"))

    def __str__(self) -> str:
        return "a finite real number > 0 (int, float or Fraction)"


_POSITIVE = [PositiveReal(), PositiveRationalString()]

#: The one table of the parameters that :func:`markone.train` and every estimator
#: share (each estimator adds its own entries to it).
CORE_CONSTRAINTS: dict = {
    "intercept": ["boolean"],
    "intercept_scale": _POSITIVE,
    "eta": list(_POSITIVE),
    "max_epochs": [Interval(numbers.Integral, 1, None, closed="left")],
    "order": [StrOptions({"given", "shuffle"}), "array-like"],
    "seed": [None, Interval(numbers.Integral, 0, None, closed="left"),
             np.random.Generator, np.random.SeedSequence],
    "variant": [StrOptions(VARIANTS.keys())],   # live: a variant added later counts
}


def validate_core_params(params: dict, caller: str) -> None:
    """Check ``params`` (name -> value) against :data:`CORE_CONSTRAINTS`."""
    unknown = params.keys() - CORE_CONSTRAINTS.keys()
    if unknown:
        raise KeyError(f"no constraints for {sorted(unknown)}")
    validate_parameter_constraints(CORE_CONSTRAINTS, params, caller_name=caller)


#: What to do about a parameter that float64 cannot hold (the estimators' wording).
FLOAT_PARAMETER_FIX = ("the estimators train in float64: pass a value that float64 "
                       "holds exactly (such as 0.5 or 2), or train exactly with "
                       "markone.train(..., exact=True)")


def as_float(value: Any, name: str, *, fix: str = FLOAT_PARAMETER_FIX) -> float:
    """A validated positive real, ``Fraction`` or rational string as the float64 that
    equals it; a ``ValueError`` naming ``name``, the value and ``fix`` when float64
    cannot hold it exactly (``Fraction(1, 3)``, ``"0.1"``, ``2**53 + 1``, ``"1e-400"``,
    a longdouble with more bits), so no float run starts from a rounded constant.

    >>> as_float("1/2", "eta"), as_float(Fraction(3, 4), "eta")
    (0.5, 0.75)
    >>> as_float("0.1", "eta")
    Traceback (most recent call last):
    ...
    ValueError: eta='0.1' is not exactly a float64 (float arithmetic would use 0.1 instead); the estimators train in float64: pass a value that float64 holds exactly (such as 0.5 or 2), or train exactly with markone.train(..., exact=True).
    """
    return exact_float(value, name=name, fix=fix)
