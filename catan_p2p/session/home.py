"""Where catan_p2p keeps things on this machine: ``$CATAN_P2P_HOME``, else ``~/.catan_p2p``.

Keys (``keys/``), games started in the window (``games/``), games watched (``watch/``)
and what lobby listings fetched (``lobby/``) live there, and ``known-games``: the game
repositories this machine made, joined or watches wherever they live (``--repo PATH``),
one absolute path a line, so the lobby and ``games`` find them. A module of its own, with
no heavy imports, so a quick command such as ``games URL`` starts fast.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The registry of game repositories kept outside the home's own folders.
KNOWN = "known-games"
#: Paths kept at most (the oldest are dropped): a listing opens each.
MAX_KNOWN = 1000


def catan_home() -> Path:
    base = os.environ.get("CATAN_P2P_HOME")
    return Path(base) if base else Path.home() / ".catan_p2p"


def remember_repo(path: Path, home: Path | None = None) -> None:
    """Note the game repository ``path`` (made, joined or watched here) in the registry.

    A registry that cannot be written costs only the listing of this game: nothing a
    player made is refused for it.
    """
    where = str(Path(path).expanduser().resolve())
    if "\n" in where:
        return
    known = [str(p) for p in known_repos(home, existing=False)]
    if where in known:
        return
    known = [*known, where][-MAX_KNOWN:]
    file = (home or catan_home()) / KNOWN
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        spare = file.with_name(f".{KNOWN}.{os.getpid()}")
        spare.write_text("".join(k + "\n" for k in known))
        spare.replace(file)  # whole, or not at all: never half a line
    except OSError:
        pass


def known_repos(home: Path | None = None, existing: bool = True) -> list[Path]:
    """The game repositories in the registry, in the order noted (``existing``: only
    those still on disk)."""
    try:
        lines = ((home or catan_home()) / KNOWN).read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    out, seen = [], set()
    for line in lines:
        if not line.startswith("/") or line in seen:
            continue
        seen.add(line)
        if not existing or Path(line).is_dir():
            out.append(Path(line))
    return out
