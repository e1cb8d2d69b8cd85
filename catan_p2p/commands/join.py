"""``catan-p2p join``: fetch a game from a remote and take a seat."""

from __future__ import annotations

import argparse
from pathlib import Path

from catan_p2p.session.git import join_game


def run(args: argparse.Namespace) -> int:
    session = join_game(args.url, Path(args.repo), args.game, args.as_player.lower())
    state = session.state
    print(
        f"Joined game {session.game_id} as {args.as_player.lower()} in {Path(args.repo).resolve()} "
        f"(players: {', '.join(state.players)}; turn {state.turn})"
    )
    return 0
