"""Numbers in words for what markone prints and writes: ``1 mistake``, ``2 mistakes``.

>>> plural(1, "mistake"), plural(2, "mistake"), plural(3, "pass"), plural(0, "figure")
('1 mistake', '2 mistakes', '3 passes', '0 figures')
>>> plural(2, "weight vector"), plural(1, "new figure")
('2 weight vectors', '1 new figure')
"""

from __future__ import annotations

__all__ = ["plural"]


def plural(n, noun):
    """``n`` and ``noun``, the noun in the plural unless ``n`` is exactly 1."""
    if n == 1:
        return f"{n} {noun}"
    if noun.endswith(("s", "x", "ch", "sh")):
        return f"{n} {noun}es"
    return f"{n} {noun}s"
