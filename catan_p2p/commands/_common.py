"""Helpers shared by the commands: opening a game's repository and printing."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from catan_p2p.session.git import GitSession
from catan_p2p.store.refs import game_prefix, parse_ref
from catan_p2p.sync.repo import GameRepo


def open_repo(path: str | None) -> GameRepo:
    return GameRepo(Path(path or "."))


def local_seats(repo: GameRepo, game: str) -> tuple[str, ...]:
    """Seats whose branch lives in this repository (all of them in hot-seat)."""
    seats = []
    for ref in repo.refs.list(game_prefix(game)):
        owner, kind, _ = parse_ref(ref, game)
        if kind is None:
            seats.append(owner)
    return tuple(sorted(seats))


def open_session(
    path: str | None, game: str | None, seats: tuple[str, ...] | None = None, **options: bool
) -> GitSession:
    repo = open_repo(path)
    game_id = repo.only_game(game)
    return GitSession(repo.path, game_id, seats or local_seats(repo, game_id), **options)


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")
