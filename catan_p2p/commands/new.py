"""``catan-p2p new``: write a game's genesis commit (and share it on a remote)."""

from __future__ import annotations

import argparse
from pathlib import Path

from catan_p2p.boards import make_board
from catan_p2p.errors import UsageError
from catan_p2p.rules.board import Board
from catan_p2p.session.git import GitSession, create_game
from catan_p2p.session.keys import remember, seat_key
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
    me = (args.as_player or players[0]).lower()
    key_path = Path(args.key) if getattr(args, "key", None) else None
    keys = {me: seat_key(me, key_path)} if key_path else None
    local = (me,) if args.remote else None
    game = create_game(
        path,
        players,
        board,
        seed=args.seed,
        game_id=args.game,
        victory_points=args.victory_points,
        local=local,
        keys=keys,
    )
    print(f"Created game {game} for {', '.join(players)} in {path.resolve()}")
    repo = GameRepo(path)
    if key_path:
        remember(repo.git_dir, me, key_path)
    if args.remote:
        transport.set_remote(repo.git_dir, args.remote)
        session = GitSession(path, game, (me,), keys=keys)
        try:
            session.flush()
        finally:
            session.close()
        print(f"Shared on {args.remote}; you hold {me}'s seat. The others claim theirs with:")
        print(f"  catan-p2p join {args.remote} --game {game} --as <colour>")
        print("Set-up starts once every seat is claimed (your next sync merges the claims).")
    else:
        print("Play it hot-seat with: catan-p2p play --resume", path)
    return 0
