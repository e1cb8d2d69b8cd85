"""``catan-p2p new``: write a game's genesis commit (and share it on a remote)."""

from __future__ import annotations

import argparse
from pathlib import Path

from catan_p2p.boards import make_board
from catan_p2p.errors import UsageError
from catan_p2p.rules.board import Board
from catan_p2p.session.git import create_game
from catan_p2p.store.refs import player_ref
from catan_p2p.sync import transport
from catan_p2p.sync.repo import GameRepo


def board_for(kind: str, seed: str | None, radius: int = 2, balance: float | None = None) -> Board:
    """The board of a new game; the generator's own errors become usage errors."""
    try:
        return make_board(kind, seed or "0", radius=radius, balance=balance)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    players = [p.strip().lower() for p in args.players.split(",") if p.strip()]
    if not 2 <= len(players) <= 4:
        raise UsageError(f"--players needs 2 to 4 comma-separated colours, got {len(players)}")
    board = board_for(args.board, args.seed, args.radius, args.balance)
    if not 3 <= args.victory_points <= 30:
        raise UsageError(f"--victory-points must be 3..30, got {args.victory_points}")
    if args.as_player and args.as_player.lower() not in players:
        raise UsageError(f"--as {args.as_player} is not one of the players ({', '.join(players)})")
    path = Path(args.repo)
    game = create_game(
        path, players, board, seed=args.seed, game_id=args.game, victory_points=args.victory_points
    )
    print(f"Created game {game} for {', '.join(players)} in {path.resolve()}")
    if args.remote:
        repo = GameRepo(path)
        transport.set_remote(repo.git_dir, args.remote)
        refs = [player_ref(game, p) for p in players]
        transport.push(repo.git_dir, refs)
        me = (args.as_player or players[0]).lower()
        for p in players:
            if p != me:
                repo.refs.delete(player_ref(game, p))
        print(f"Shared on {args.remote}; you play {me}. Others join with:")
        print(f"  catan-p2p join {args.remote} --game {game} --as <colour>")
    else:
        print("Play it hot-seat with: catan-p2p play --resume", path)
    return 0
