"""How markone's results show themselves in Jupyter (``_repr_html_``).

A verdict, a margin, a cycling report, an adversarial order or a training result shows
its one-sentence ``message`` as a headline and its fields as a table, numbers in full
and arrays summarised. (A :class:`~markone.hardware.MachineRun` shows the Mark I console
itself: :func:`markone.hardware.replay.console_html`.)

Examples
--------
>>> import markone
>>> res = markone.train([[0, 0], [0, 1], [1, 0], [1, 1]], [-1, -1, -1, 1])
>>> page = result_html(res, headline="AND, learned")
>>> "<table" in page and "AND, learned" in page and "mistakes" in page
True
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
import html

import numpy as np

from markone._internal.exact import fraction_text, int_text

__all__ = ["ShownInJupyter", "result_html", "result_repr", "exact_repr"]

#: Arrays with more entries than this are summarised (shape and first entries).
PREVIEW = 12


class ShownInJupyter:
    """Mixin of markone's result dataclasses: Jupyter shows them with
    :func:`result_html` (the message as a headline, the fields as a table)."""

    __slots__ = ()

    def _repr_html_(self):
        return result_html(self)


def result_repr(obj):
    """The repr a dataclass gives ``obj`` (its fields with ``repr=True``), with
    numbers of any size: a result class sets ``__repr__ = result_repr`` (Python's own
    repr of an int beyond 4300 digits raises ``ValueError``).

    >>> import dataclasses
    >>> @dataclasses.dataclass
    ... class Found:
    ...     scale: Fraction
    ...     __repr__ = result_repr
    >>> text = repr(Found(Fraction(10**5000, 3)))
    >>> text[:22], text[-4:], len(text)
    ('Found(scale=Fraction(1', ' 3))', 5027)
    """
    shown = ", ".join(f"{f.name}={exact_repr(getattr(obj, f.name))}"
                      for f in dataclasses.fields(obj) if f.repr)
    return f"{type(obj).__qualname__}({shown})"


def exact_repr(value):
    """``repr(value)``, with ints and Fractions of any size inside tuples, lists and
    dicts written out in full.

    >>> exact_repr((Fraction(1, 2), [3], {4: -5}))
    '(Fraction(1, 2), [3], {4: -5})'
    """
    if type(value) is int:
        return int_text(value)
    if type(value) is Fraction:
        return f"Fraction({int_text(value.numerator)}, {int_text(value.denominator)})"
    if isinstance(value, tuple) and type(value) is tuple:
        inner = ", ".join(map(exact_repr, value))
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if type(value) is list:
        return "[" + ", ".join(map(exact_repr, value)) + "]"
    if type(value) is dict:
        return "{" + ", ".join(f"{exact_repr(k)}: {exact_repr(v)}"
                               for k, v in value.items()) + "}"
    return repr(value)


def result_html(obj, *, headline=None, skip=()):
    """An HTML card for a result dataclass: a headline (``headline`` or the result's
    ``message``) and a table of its fields."""
    title = type(obj).__name__
    head = headline if headline is not None else getattr(obj, "message", "")
    rows = []
    for field in dataclasses.fields(obj):
        if field.name in ("message", *skip) or field.name.startswith("_"):
            continue
        value = getattr(obj, field.name)
        rows.append(f"<tr><th style='text-align:left;padding-right:1em'>"
                    f"{html.escape(field.name)}</th><td style='text-align:left'>"
                    f"{html.escape(_show(value))}</td></tr>")
    return (f"<div class='markone-result'><p><b>{html.escape(title)}</b>"
            + (f": {html.escape(str(head))}" if head else "") + "</p>"
            f"<table>{''.join(rows)}</table></div>")


def _show(value):
    """A value in words: numbers exactly, long arrays and sequences summarised."""
    if isinstance(value, (Fraction, int)) and not isinstance(value, bool):
        return fraction_text(value)
    if isinstance(value, np.ndarray):
        if value.size <= PREVIEW:
            return _plain(value.tolist())
        head = _plain(value.ravel()[:PREVIEW // 2].tolist())
        return f"array of shape {value.shape}: {head[:-1]}, ...]"
    if isinstance(value, dict):
        items = list(value.items())
        text = ", ".join(f"{k}: {_show(v)}" for k, v in items[:PREVIEW])
        return "{" + text + (", ..." if len(items) > PREVIEW else "") + "}"
    if isinstance(value, (list, tuple)):
        if len(value) > PREVIEW:
            return _plain(list(value[:PREVIEW // 2]))[:-1] + f", ...] ({len(value)} in all)"
        return _plain(list(value))
    if isinstance(value, (np.generic,)):
        return str(value.item())
    return str(value)


def _plain(items):
    """A list printed without Python reprs (Fractions as ``1/3``, numpy scalars bare)."""
    def one(v):
        if isinstance(v, (list, tuple)):
            return _plain(list(v))
        if isinstance(v, np.generic):
            return str(v.item())
        if isinstance(v, (Fraction, int)) and not isinstance(v, bool):
            return fraction_text(v)
        return str(v)

    return "[" + ", ".join(one(v) for v in items) + "]"

