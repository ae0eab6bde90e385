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
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from markone.errors import MarkoneError

__all__ = ["InvalidParameterError", "Constraint", "Interval", "Options", "StrOptions",
           "validate_parameter_constraints"]


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
    """One of the values ``options``, of type ``type``."""

    def __init__(self, type: type, options: Iterable) -> None:
        self.type, self.options = type, set(options)

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
    return spec if isinstance(spec, Constraint) else _Named(spec)


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
        if name not in constraints:
            continue
        forms = [_as_constraint(c) for c in constraints[name]]
        if any(c.is_satisfied_by(value) for c in forms):
            continue
        words = [str(c) for c in forms]
        allowed = words[0] if len(words) == 1 else (", ".join(words[:-1]) + " or "
                                                     + words[-1])
        raise InvalidParameterError(f"The {name!r} parameter of {caller_name} must be "
                                    f"{allowed}. Got {value!r} instead.")
