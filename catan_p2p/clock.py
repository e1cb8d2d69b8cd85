"""The time now, read in one place.

The protocol's rules never read the clock: whoever asks them passes the time
(``protocol.verify.Verifier(clock=...)``, ``liveness.abandon_time(..., now)``). Everything
above them that needs "now" (a commit's date, when this machine first saw a head, how long
a game has waited) reads ``now``, so one seam decides a process's time: a test sets
``source`` to a clock it controls, never ``time.time``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: What ``now`` reads (``protocol.graph.Clock``).
source: Callable[[], float] = time.time


def now() -> float:
    """The time now, in seconds since the epoch."""
    return source()
