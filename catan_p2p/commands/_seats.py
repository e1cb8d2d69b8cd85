"""Which seats of a game this machine's window plays as humans and which as bots.

Kept beside the game in the repository's Git directory (``catan-p2p-seats.json``) by
``play``, read by ``play --resume`` and by the lobby (a bot's seat never waits for you).
"""

from __future__ import annotations

import json
from pathlib import Path

SEATS_FILE = "catan-p2p-seats.json"


def save_seats(git_dir: Path, game_id: str, humans: tuple[str, ...], bots: dict[str, str]) -> None:
    """Note that ``humans`` click and ``bots`` (player -> strategy) play ``game_id`` here."""
    path = git_dir / SEATS_FILE
    data = load_all(git_dir)
    data[game_id] = {"humans": list(humans), "bots": bots}
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def load_all(git_dir: Path) -> dict:
    """Every game's seats noted in ``git_dir`` (empty when none or unreadable)."""
    try:
        data = json.loads((git_dir / SEATS_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def load_seats(git_dir: Path, game_id: str) -> tuple[tuple[str, ...], dict[str, str]] | None:
    """``(humans, bots)`` of ``game_id`` as noted here, or None."""
    entry = load_all(git_dir).get(game_id)
    if not isinstance(entry, dict):
        return None
    return tuple(entry.get("humans", ())), dict(entry.get("bots", {}))


def bot_seats(git_dir: Path) -> dict[str, set[str]]:
    """game -> the seats bots play here."""
    out = {}
    for game, entry in load_all(git_dir).items():
        if isinstance(entry, dict) and isinstance(entry.get("bots"), dict):
            out[game] = set(entry["bots"])
    return out
