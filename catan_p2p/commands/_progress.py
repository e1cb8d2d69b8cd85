"""A one-line progress bar on stderr that is drawn only on a terminal.

Redrawing a line with ``\\r`` is for people watching; when stderr goes to a file or
a pipe the bar stays silent except for one final line, so logs stay readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """``label [####------] done/total rate/s``, redrawn at most ten times a second."""

    def __init__(
        self,
        total: int,
        label: str,
        stream: TextIO | None = None,
        width: int = 30,
        unit: str = "/s",
    ) -> None:
        self.total = max(0, total)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.unit = unit
        self.start = time.perf_counter()
        self._drawn = 0.0
        self._finished = False
        isatty = getattr(self.stream, "isatty", None)
        self.live = bool(isatty and isatty())

    def line(self, done: int, extra: str = "") -> str:
        now = time.perf_counter()
        filled = self.width * min(done, self.total) // max(1, self.total)
        rate = done / max(now - self.start, 1e-9)
        bar = "#" * filled + "-" * (self.width - filled)
        text = f"{self.label} [{bar}] {done}/{self.total} {rate:.1f}{self.unit}"
        return f"{text} {extra}".rstrip()

    def update(self, done: int, extra: str = "") -> None:
        """Show ``done`` of ``total``; at ``total`` the line ends (once, also off a terminal)."""
        if self._finished:
            return
        now = time.perf_counter()
        last = done >= self.total
        if not last and (not self.live or now - self._drawn < 0.1):
            return
        self._drawn = now
        if self.live:
            self.stream.write("\r" + self.line(done, extra))
        elif last:
            self.stream.write(self.line(done, extra))
        if last:
            self.stream.write("\n")
            self._finished = True
        self.stream.flush()
