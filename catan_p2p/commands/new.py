"""``catan-p2p new``: write a game's genesis commit (and share it on a remote)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from catan_p2p.boards import make_board
from catan_p2p.commands._common import (
    default_game_repo,
    games_in,
    print_json,
    refuse_foreign_folder,
    removed_on_failure,
    without_retry_advice,
)
from catan_p2p.commands._options import add_board, add_json, add_key, add_publish, parse_peers
from catan_p2p.errors import CatanError, UsageError
from catan_p2p.net import serve, transport
from catan_p2p.protocol.genesis import genesis_of
from catan_p2p.protocol.invite import Invite
from catan_p2p.rules.board import Board
from catan_p2p.rules.cards import MAX_PLAYERS
from catan_p2p.session.git import GitSession
from catan_p2p.session.home import remember_repo
from catan_p2p.session.keys import remember, seat_key
from catan_p2p.session.start import create_game, genesis_time, invite_of
from catan_p2p.store.refnames import player_ref
from catan_p2p.store.repo import GameRepo
from catan_p2p.store.schema import MAX_TIMEOUT


def board_for(
    kind: str,
    seed: str | None,
    radius: int = 2,
    balance: float | None = None,
    players: int = 4,
) -> Board:
    """The board of a new game (5-6 players: the extension's island); the generator's own
    errors become usage errors."""
    try:
        return make_board(kind, seed or "0", radius=radius, balance=balance, players=players)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p new``."""
    parser.add_argument(
        "--players",
        required=True,
        help="comma-separated colours, one per seat, e.g. red,blue,white (2 to 6; 5-6 "
        "play the 5-6 player extension)",
    )
    add_board(parser, "game seed: the same seed deals the same board and dice (default: random)")
    parser.add_argument(
        "--victory-points", type=int, default=10, help="points needed to win (default 10)"
    )
    parser.add_argument(
        "--timeout",
        default=None,
        metavar="TIME",
        help="how long a player may keep the game waiting before the others may end it "
        "with `catan-p2p abandon`, e.g. 30m, 48h, 7d (default: no limit, wait for ever)",
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
    add_key(parser)
    add_publish(parser)
    add_json(parser)


_UNITS = {"m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> int:
    """Seconds in ``30m``, ``48h`` or ``7d``; ``UsageError`` naming the form otherwise."""
    number, unit = text.strip()[:-1], text.strip()[-1:].lower()
    if unit not in _UNITS or not number.isdigit():
        raise UsageError(
            f"--timeout {text!r} is not a time like 30m, 48h or 7d (minutes, hours, days)"
        )
    seconds = int(number) * _UNITS[unit]
    if not 60 <= seconds <= MAX_TIMEOUT:
        raise UsageError(
            f"--timeout {text} is outside 1m..{MAX_TIMEOUT // 86400}d; pick a time in between"
        )
    return seconds


def _players(args: argparse.Namespace) -> list[str]:
    """The seats' colours of ``--players``, two to ``MAX_PLAYERS`` of them."""
    players = [p.strip().lower() for p in args.players.split(",")]
    if "" in players and len(players) > 1:
        raise UsageError(
            f"--players {args.players} has an empty name (two commas in a row, or one at an "
            "end); list each seat's colour once, e.g. red,blue,white"
        )
    players = [p for p in players if p]
    if not 2 <= len(players) <= MAX_PLAYERS:
        raise UsageError(
            f"--players needs 2 to {MAX_PLAYERS} comma-separated colours (5-6 play the "
            f"extension), got {len(players)}"
        )
    return players


def _tell(
    args: argparse.Namespace,
    game: str,
    players: list[str],
    path: Path,
    me: str,
    pick: str,
    start: str,
    peers: dict[str, str],
    invite: Invite | None = None,
    served: bool = False,
) -> None:
    """What was made, and how the players go on (the join names the game's start: a
    second game of the same id on a shared remote cannot pass for it), and the
    invitation that says all of it in one line."""
    print(f"Created game {game} for {', '.join(players)} in {path.resolve()}")
    if args.publish and not args.remote:
        print(f"Published at {args.publish}; you hold {me}'s seat. The others claim with:")
        print(
            f"  catan-p2p join {args.publish} --game {game} --start {start} --as <colour> "
            "--publish <URL>"
        )
        untold = [p for p in players if p != me and p not in peers]
        if served:  # a joiner's first nudge tells this game where it publishes
            print("where <URL> is a repository of their own, or `serve` (their machine")
            print("serves it and tells this game where). While your window is closed, keep")
            print(f"your seat reachable with: catan-p2p serve --repo {path}")
        elif untold:  # the seats --peer did not name: this game learns where later
            print(
                f"where <URL> is a repository of their own; tell this game where "
                f"{' and '.join(untold)} publish{'es' * (len(untold) == 1)} with"
            )
            print(f"  catan-p2p sync --repo {path} --peer <colour>=<URL>")
        else:
            print("where <URL> is the repository --peer named for their colour.")
        print(f"You play with: catan-p2p play --resume {path}{pick}")
    elif args.remote:
        print(f"Shared on {args.remote}; you hold {me}'s seat. The others claim theirs with:")
        print(f"  catan-p2p join {args.remote} --game {game} --start {start} --as <colour>")
        print("Set-up starts once every seat is claimed (your next sync merges the claims).")
        print(f"You play with: catan-p2p play --resume {path}{pick}")
    else:
        print(f"Play it hot-seat with: catan-p2p play --resume {path}{pick}")
    if invite is not None:
        print("Invite the others with this one line (each runs `catan-p2p join LINE`):")
        print(f"  {invite}")


def _peers(values: list[str], players: list[str], me: str) -> dict[str, str]:
    """``--peer COLOUR=URL`` values, each naming another seat."""
    peers = parse_peers(values)
    for colour in peers:
        if colour not in players or colour == me:
            raise UsageError(f"--peer {colour}=... names no other seat ({', '.join(players)})")
    return peers


def run(args: argparse.Namespace) -> int:
    players = _players(args)
    board = board_for(args.board, args.seed, args.radius, args.balance, len(players))
    if not 3 <= args.victory_points <= 30:
        raise UsageError(f"--victory-points must be 3..30, got {args.victory_points}")
    if args.as_player and args.as_player.lower() not in players:
        raise UsageError(f"--as {args.as_player} is not one of the players ({', '.join(players)})")
    twice = sorted({p for p in players if players.count(p) > 1})
    if twice:
        raise UsageError(
            f"--players names {', '.join(twice)} more than once; every seat needs its own colour"
        )
    when = genesis_time()  # a bad $CATAN_P2P_GENESIS_TIME is refused before anything is made
    path = default_game_repo(args.repo, "new")
    refuse_foreign_folder(path, "new")
    if args.remote:
        check_remote(args.remote)
    existing = games_in(path)
    if existing and args.game is None:
        raise UsageError(
            f"{path} already holds game {', '.join(existing)}; choose another --repo for a new "
            "game, or pass --game ID to add one beside it (later commands then need --game)"
        )
    me = (args.as_player or players[0]).lower()
    peers = _peers(args.peer, players, me)
    served = serve.wants_serving(args.publish)
    if served:  # this repository itself, served from this machine (``catan-p2p serve``)
        args.publish = serve.served_url(args.publish, path)
    networked = bool(args.remote or args.publish)
    key_path = Path(args.key).expanduser() if args.key else None
    keys = {me: seat_key(me, key_path)} if key_path else None
    with removed_on_failure(path):
        game = create_game(
            path,
            players,
            board,
            seed=args.seed,
            game_id=args.game,
            victory_points=args.victory_points,
            local=(me,) if networked else None,
            keys=keys,
            timeout=parse_duration(args.timeout) if args.timeout else 0,
            publish_url=args.publish,
            when=when,
        )
        made = GameRepo(path)
        if served:
            serve.remember(made.git_dir, args.publish)
        for colour, url in peers.items():
            transport.set_config(made.git_dir, f"catan.point.{colour}", url)
        if key_path:
            remember(made.git_dir, me, key_path)
        pick = f" --game {game}" if existing else ""
        mine = made.refs.get(player_ref(game, me))
        assert mine is not None  # create_game set it
        start = genesis_of(made, mine)
        invite = None
        if args.remote or args.publish:
            invite = _share(path, game, args.remote, me, keys)
        remember_repo(path)
        if args.json:
            print_json(
                {
                    "game": game,
                    "start": start,
                    "players": players,
                    "repo": str(path.resolve()),
                    "remote": args.remote,
                    "publish": args.publish,
                    "seat": me if networked else None,
                    "invite": None if invite is None else str(invite),
                }
            )
            return 0
        _tell(args, game, players, path, me, pick, start, peers, invite, served)
    return 0


def check_remote(url: str) -> None:
    """Refuse a remote Git cannot reach before anything is created (one sentence)."""
    from catan_p2p.net.listing import ls_remote

    try:
        ls_remote(url, time.monotonic() + transport.TIMEOUT)
    except CatanError as exc:
        reason = str(exc).split("; check", 1)[0]
        raise UsageError(
            f"--remote {url}: {reason}; check the URL (a path, ssh or https URL of an empty "
            "bare repository) and run `catan-p2p new` again; nothing was created"
        ) from None


def _share(path: Path, game: str, remote: str | None, me: str, keys: dict | None) -> Invite | None:
    """Push ``me``'s branch and seat claim to ``remote`` and the own publication point;
    the invitation to the game (None when its places are of no form an invitation
    carries)."""
    repo = GameRepo(path)
    if remote is not None:
        transport.set_remote(repo.git_dir, remote)
    session = GitSession(path, game, (me,), keys=keys)
    try:
        session.flush()
        error = session.sync().error
        invite = invite_of(session)
    finally:
        session.close()
    if error:
        raise without_retry_advice(
            CatanError(error),
            "check the URL (an empty bare repository made with `git init --bare` or "
            "`catan-p2p host init`) and run `catan-p2p new` again",
        )
    return invite
