"""``catan-p2p join``: fetch a game from a remote and take a seat."""

from __future__ import annotations

import argparse
from pathlib import Path

from catan_p2p.session.git import join_game


def run(args: argparse.Namespace) -> int:
    key = Path(args.key) if getattr(args, "key", None) else None
    session = join_game(args.url, Path(args.repo), args.game, args.as_player.lower(), key)
    state = session.state
    print(
        f"Joined game {session.game_id} as {args.as_player.lower()} in {Path(args.repo).resolve()} "
        f"(players: {', '.join(state.players)}; turn {state.turn})"
    )
    if state.lobby_open:
        waiting = [p for p, k in zip(state.players, state.seats, strict=True) if not k]
        print(f"Your seat is claimed; set-up starts once {', '.join(waiting)} join.")
    return 0
