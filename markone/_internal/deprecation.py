"""Old spellings that keep working for a while, with a ``DeprecationWarning``.

One place words the warning, so every renamed keyword, attribute and flag says the
same thing: what is deprecated, and the spelling to use instead.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     renamed_keywords({"epochs": 5}, {"epochs": "max_epochs"}, "MarkI.train")
{'max_epochs': 5}
>>> print(caught[0].message)
MarkI.train(epochs=...) is deprecated; use max_epochs=... instead.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

__all__ = ["warn_deprecated", "renamed_keywords", "renamed_keyword"]


def warn_deprecated(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn (``DeprecationWarning``) that ``old`` is deprecated in favour of ``new``.

    ``stacklevel`` is :func:`warnings.warn`'s, counted from here: 2 is the caller of
    this function, 3 (the default) the line that called that caller.
    """
    warnings.warn(f"{old} is deprecated; use {new} instead.", DeprecationWarning,
                  stacklevel=stacklevel)


def renamed_keywords(given: Mapping[str, Any], renames: Mapping[str, str], where: str,
                     *, stacklevel: int = 4) -> dict[str, Any]:
    """The values of renamed keywords in ``given`` under their new names.

    Parameters
    ----------
    given : mapping
        The ``**kwargs`` a function received besides its own parameters.
    renames : mapping
        Old keyword -> new keyword.
    where : str
        The function's name as users call it (``"MarkI.train"``), for the messages.
    stacklevel : int
        Passed on to :func:`warnings.warn` (4: the user's call of ``where``).

    Raises
    ------
    TypeError
        For a keyword that is neither a parameter nor an old name (as Python would).

    Examples
    --------
    >>> renamed_keywords({"shuffel": True}, {"epochs": "max_epochs"}, "f")
    Traceback (most recent call last):
    ...
    TypeError: f() got an unexpected keyword argument 'shuffel'
    """
    out = {}
    for old, value in given.items():
        if old not in renames:
            raise TypeError(f"{where}() got an unexpected keyword argument {old!r}")
        warn_deprecated(f"{where}({old}=...)", f"{renames[old]}=...",
                        stacklevel=stacklevel)
        out[renames[old]] = value
    return out


def renamed_keyword(given: Mapping[str, Any], where: str, old: str, new: str, value: Any,
                    default: Any, *, stacklevel: int = 5) -> Any:
    """The value of keyword ``new``, taking the deprecated spelling ``old`` from
    ``given`` (the ``**kwargs`` of ``where``) when it is there.

    ``value`` is what ``new`` received and ``default`` its default: both spellings
    with different values is an error.

    >>> import warnings
    >>> warnings.simplefilter("ignore", DeprecationWarning)
    >>> renamed_keyword({"epochs": 5}, "f", "epochs", "max_epochs", 50, 50)
    5
    >>> renamed_keyword({}, "f", "epochs", "max_epochs", 7, 50)
    7
    >>> renamed_keyword({"epochs": 5}, "f", "epochs", "max_epochs", 7, 50)
    Traceback (most recent call last):
    ...
    TypeError: f() got epochs= and max_epochs=; give max_epochs= only (epochs= is its deprecated spelling).
    """
    moved = renamed_keywords(given, {old: new}, where, stacklevel=stacklevel)
    if new not in moved:
        return value
    if value is not default and value != default:
        raise TypeError(f"{where}() got {old}= and {new}=; give {new}= only ({old}= is "
                        "its deprecated spelling).")
    return moved[new]
