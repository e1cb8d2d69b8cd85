"""``catan-p2p new``: write a game's genesis commit (and share it on a remote)."""

from __future__ import annotations

import argparse
from pathlib import Path

from catan_p2p.boards import make_board
from catan_p2p.commands._common import (
    default_game_repo,
    games_in,
    removed_on_failure,
    without_retry_advice,
)
from catan_p2p.commands._options import add_board
from catan_p2p.errors import CatanError, UsageError
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p new``."""
    parser.add_argument(
        "--players",
        required=True,
        help="comma-separated colours, one per seat, e.g. red,blue,white",
    )
    add_board(parser, "game seed: the same seed deals the same board and dice (default: random)")
    parser.add_argument(
        "--victory-points", type=int, default=10, help="points needed to win (default 10)"
    )
    parser.add_argument(
        "--remote", default=None, metavar="URL", help="also share the game on this Git remote"
    )
    parser.add_argument(
        "--as",
        dest="as_player",
        default=None,
        metavar="COLOUR",
        help="your seat when sharing on --remote (default: the first player)",
    )
    parser.add_argument(
        "--repo",
        default=None,
        metavar="PATH",
        help="the game's own repository, created if missing (default: the current directory, "
        "if it is empty or already holds games)",
    )
    parser.add_argument(
        "--game",
        default=None,
        metavar="ID",
        help="game id (default: a random one); needed to add a second game to a repository",
    )


def run(args: argparse.Namespace) -> int:
    players = [p.strip().lower() for p in args.players.split(",") if p.strip()]
    if not 2 <= len(players) <= 4:
        raise UsageError(f"--players needs 2 to 4 comma-separated colours, got {len(players)}")
    board = board_for(args.board, args.seed, args.radius, args.balance)
    if not 3 <= args.victory_points <= 30:
        raise UsageError(f"--victory-points must be 3..30, got {args.victory_points}")
    if args.as_player and args.as_player.lower() not in players:
        raise UsageError(f"--as {args.as_player} is not one of the players ({', '.join(players)})")
    twice = sorted({p for p in players if players.count(p) > 1})
    if twice:
        raise UsageError(
            f"--players names {', '.join(twice)} more than once; every seat needs its own colour"
        )
    path = default_game_repo(args.repo, "new")
    existing = games_in(path)
    if existing and args.game is None:
        raise UsageError(
            f"{path} already holds game {', '.join(existing)}; choose another --repo for a new "
            "game, or pass --game ID to add one beside it (later commands then need --game)"
        )
    with removed_on_failure(path):
        game = create_game(
            path,
            players,
            board,
            seed=args.seed,
            game_id=args.game,
            victory_points=args.victory_points,
        )
        pick = f" --game {game}" if existing else ""
        print(f"Created game {game} for {', '.join(players)} in {path.resolve()}")
        if args.remote:
            _share(path, game, players, args.remote, (args.as_player or players[0]).lower())
            print(f"Shared on {args.remote}; you play {(args.as_player or players[0]).lower()}.")
            print("Others join with:")
            print(f"  catan-p2p join {args.remote} --game {game} --as <colour>")
            print(f"You play with: catan-p2p play --resume {path}{pick}")
        else:
            print(f"Play it hot-seat with: catan-p2p play --resume {path}{pick}")
    return 0


def _share(path: Path, game: str, players: list[str], remote: str, me: str) -> None:
    """Push every seat's branch to ``remote`` and keep only ``me``'s seat here."""
    repo = GameRepo(path)
    transport.set_remote(repo.git_dir, remote)
    try:
        transport.push(repo.git_dir, [player_ref(game, p) for p in players])
    except CatanError as exc:
        raise without_retry_advice(
            exc,
            "check the URL (an empty bare repository made with `git init --bare`) and run "
            "`catan-p2p new` again",
        ) from None
    for p in players:
        if p != me:
            repo.refs.delete(player_ref(game, p))
