"""A small progress bar for long work: tasks done, rate, time left; quiet off a tty.

>>> import io
>>> out = io.StringIO()
>>> with Progress(3, "demo", stream=out) as bar:
...     for _ in range(3):
...         bar.advance()
>>> out.getvalue()  # not a terminal: nothing printed
''
>>> shown = io.StringIO()
>>> bar = Progress(4, "sweep", stream=shown, enabled=True, min_interval_s=0)
>>> bar.advance(2); bar.close()
>>> shown.getvalue().splitlines()[-1].split("]")[1].split()[0]
'2/4'
"""

from __future__ import annotations

import sys
import time

__all__ = ["Progress"]


class Progress:
    """Report progress of ``total`` tasks on ``stream`` when it is a terminal.

    ``enabled=None`` (default) shows the bar only when ``stream.isatty()``.
    """

    def __init__(self, total, label="", *, stream=None, enabled=None, min_interval_s=0.1):
        self.total = int(total)
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", lambda: False)
        self.enabled = bool(isatty()) if enabled is None else bool(enabled)
        self.done = 0
        self.min_interval_s = min_interval_s
        self._start = time.perf_counter()
        self._last = 0.0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def advance(self, n=1):
        """Mark ``n`` more tasks done and redraw at most every ``min_interval_s``."""
        self.done += n
        now = time.perf_counter()
        if self.enabled and (now - self._last >= self.min_interval_s or self.done >= self.total):
            self._last = now
            self._draw(now - self._start)

    def _draw(self, elapsed):
        frac = self.done / self.total if self.total else 1.0
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = f"{(self.total - self.done) / rate:5.0f}s" if rate > 0 else "    ?s"
        bar = "#" * int(30 * frac)
        self.stream.write(
            f"\r{self.label} [{bar:<30}] {self.done}/{self.total} "
            f"{rate:6.1f}/s  {left} left "
        )
        self.stream.flush()

    def close(self):
        """Finish the line (only when the bar was shown)."""
        if self.enabled:
            self._draw(time.perf_counter() - self._start)
            self.stream.write("\n")
            self.stream.flush()
