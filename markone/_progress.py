"""Progress bars for long work (sweeps, searches, the Mark I on big sets): tqdm, shown
on a terminal only, so pipes and logs stay clean.

>>> import io
>>> out = io.StringIO()
>>> with progress_bar(3, "demo", stream=out) as bar:
...     bar.update(3)
>>> out.getvalue()  # not a terminal: nothing printed
''
>>> shown = io.StringIO()
>>> with progress_bar(4, "sweep", stream=shown, enabled=True) as bar:
...     bar.update(2)
>>> "sweep" in shown.getvalue() and "2/4" in shown.getvalue()
True
"""

from __future__ import annotations

import sys

__all__ = ["progress_bar"]


def progress_bar(total, label="", *, initial=0, stream=None, enabled=None):
    """A :class:`tqdm.tqdm` bar over ``total`` steps, ``initial`` of them done already.

    ``enabled=None`` (default) shows it only when ``stream`` (default stderr) is a
    terminal; use it as a context manager and call ``bar.update(n)``.
    """
    from tqdm import tqdm

    stream = sys.stderr if stream is None else stream
    if enabled is None:
        enabled = bool(getattr(stream, "isatty", lambda: False)())
    known = _terminal_size(stream)  # a terminal of unknown size (0 x 0) hides tqdm
    return tqdm(total=total, desc=label, initial=initial, file=stream,
                disable=not enabled, leave=True, mininterval=0.1,
                ncols=None if known else 80, nrows=None if known else 24)


def _terminal_size(stream):
    """The terminal's columns x lines, or 0 when unknown."""
    import os

    try:
        size = os.get_terminal_size(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return 0
    return size.columns * size.lines
