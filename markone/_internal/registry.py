"""Tables that code extends with new kinds: one entry per name, the built-in ones kept.

:data:`markone.variants.VARIANTS` and :data:`markone.hardware.faults.FAULT_KINDS` add
and remove their entries through these two functions, so both say the same thing when
a name is taken or built in.

>>> table = {}
>>> register(table, "last", 1, "variant")
1
>>> register(table, "last", 2, "variant")
Traceback (most recent call last):
...
ValueError: variant 'last' is registered already; give the new variant a new name.
>>> unregister(table, "last", frozenset({"last"}), "variant")
Traceback (most recent call last):
...
ValueError: variant 'last' is built in and stays.
"""

from __future__ import annotations

from collections.abc import Collection, MutableMapping
from typing import Any, TypeVar

__all__ = ["register", "unregister"]

T = TypeVar("T")


def register(table: MutableMapping[str, Any], name: str, entry: T, what: str) -> T:
    """Add ``entry`` to ``table`` under the new ``name`` (a ``what``) and return it."""
    if name in table:
        raise ValueError(f"{what} {name!r} is registered already; give the new {what} a "
                         "new name.")
    table[name] = entry
    return entry


def unregister(table: MutableMapping[str, Any], name: str, built_in: Collection[str],
               what: str) -> None:
    """Remove ``name`` from ``table`` (nothing when it is not there); the names in
    ``built_in`` stay."""
    if name in built_in:
        raise ValueError(f"{what} {name!r} is built in and stays.")
    table.pop(name, None)
