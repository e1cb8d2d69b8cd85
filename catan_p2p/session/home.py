"""Where catan_p2p keeps things on this machine: ``$CATAN_P2P_HOME``, else ``~/.catan_p2p``.

Keys (``keys/``), games started in the window (``games/``), games watched (``watch/``)
and what lobby listings fetched (``lobby/``) live there. A module of its own, with no
heavy imports, so a quick command such as ``games URL`` starts fast.
"""

from __future__ import annotations

import os
from pathlib import Path


def catan_home() -> Path:
    base = os.environ.get("CATAN_P2P_HOME")
    return Path(base) if base else Path.home() / ".catan_p2p"
