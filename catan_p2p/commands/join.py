"""``catan-p2p join``: fetch a game from a remote and take a seat."""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

from catan_p2p.commands._common import (
    default_game_repo,
    games_in,
    local_seats,
    open_repo,
    print_json,
    refuse_foreign_folder,
    removed_on_failure,
    without_retry_advice,
)
from catan_p2p.commands._options import add_json, add_key, add_publish, add_start, parse_peers
from catan_p2p.errors import RemoteError, UsageError
from catan_p2p.net import serve
from catan_p2p.protocol.invite import Invite, is_invite, parse_invite
from catan_p2p.session.home import remember_repo
from catan_p2p.session.lobby import list_remote
from catan_p2p.session.start import check_start, join_game, join_invite

#: What to do when the remote cannot be read.
UNREACHABLE = "check the URL and that the remote is reachable, then run `catan-p2p join` again"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p join``."""
    parser.add_argument(
        "url",
        metavar="INVITE|URL",
        help="the invitation `catan-p2p new` printed (catan-p2p:1:...), which says all the "
        "rest, or the Git remote the game is shared on (a path, ssh or https URL)",
    )
    parser.add_argument(
        "--game",
        metavar="ID",
        help="the game's id, from its creator (default: the one game at the remote with "
        "your seat open)",
    )
    parser.add_argument(
        "--as",
        dest="as_player",
        default=None,
        metavar="COLOUR",
        help="the seat you take (with an invitation: default the seat it offers, else the "
        "one open seat, else asked on a terminal)",
    )
    parser.add_argument(
        "--repo",
        default=None,
        metavar="PATH",
        help="your own repository for the game, created if missing (default: the current "
        "directory, if it is empty or already holds your seat)",
    )
    add_start(parser)
    add_key(parser)
    add_publish(parser)
    add_json(parser)


def which_game(url: str, player: str) -> str:
    """The game to join when ``--game`` is not given: the one at ``url`` with ``player``'s
    seat open (a lobby's listing, unverified; the join verifies what it fetches)."""
    try:
        found = list_remote(url)
    except RemoteError as exc:
        raise without_retry_advice(exc, UNREACHABLE) from None
    games = [g.game for g in found.games if player in g.open_seats]
    if len(games) == 1:
        return games[0]
    if not games:
        raise UsageError(
            f"{url} holds no game with {player.capitalize()}'s seat open; see its games with "
            f"`catan-p2p games {url}` and pass --game ID"
        )
    shown = ", ".join(games[:5]) + (", ..." if len(games) > 5 else "")
    raise UsageError(
        f"{url} holds {len(games)} games with {player.capitalize()}'s seat open ({shown}); "
        "choose one with --game ID"
    )


def _invite(args: argparse.Namespace) -> Invite | None:
    """The invitation given instead of a URL (None: a URL); refused in one sentence when
    it is no invitation or contradicts the options given beside it."""
    if not is_invite(args.url):
        return None
    invite = parse_invite(args.url)
    if args.game is not None and args.game != invite.game:
        raise UsageError(
            f"--game {args.game} is not the invitation's game ({invite.game}); drop --game"
        )
    if args.start is not None and not invite.start.startswith(args.start.strip().lower()):
        raise UsageError(f"--start {args.start} is not the invitation's start; drop --start")
    return invite


def ask_seat(game: str, open_seats: tuple[str, ...]) -> str:
    """The seat to take: the one open seat, or the answer on a terminal; refused in one
    sentence naming the open seats and ``--as`` when nobody can be asked."""
    names = ", ".join(p.capitalize() for p in open_seats)
    if len(open_seats) == 1:
        print(f"Taking the one open seat of game {game}: {names}.")
        return open_seats[0]
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(f"game {game} has open seats {names}; pick one with --as COLOUR")
    while True:
        try:
            answer = input(f"Game {game} has open seats {names}. Which do you take? ")
        except EOFError:
            raise UsageError(f"no seat chosen; pick one of {names} with --as COLOUR") from None
        seat = answer.strip().lower()
        if seat in open_seats:
            return seat
        print(f"{answer.strip()!r} is not an open seat; type one of {names}.")


def run(args: argparse.Namespace) -> int:
    invite = _invite(args)
    player = args.as_player.lower() if args.as_player else None
    start = check_start(args.start) if args.start else None  # refused before anything is made
    if invite is not None:
        args.game = invite.game
    elif player is None:
        raise UsageError(
            "join URL needs --as COLOUR (the seat you take); an invitation "
            "(catan-p2p:1:...) needs nothing else"
        )
    if args.game is None:
        args.game = which_game(args.url, player)
    peers = parse_peers(args.peer)  # refused before anything is made
    key = Path(args.key).expanduser() if args.key else None
    path = default_game_repo(args.repo, "join")
    refuse_foreign_folder(path, "join")
    seats = seats_here(path, args.game)
    if seats and (player or "") not in seats:
        raise UsageError(
            f"{path} already holds {', '.join(seats)}'s seat of game {args.game}; "
            f"join into a repository of your own with --repo PATH"
        )
    served = serve.wants_serving(args.publish)
    if served:  # this repository itself, served from this machine (``catan-p2p serve``)
        args.publish = serve.served_url(args.publish, path)
    with removed_on_failure(path):
        try:
            if invite is not None:
                choose = partial(ask_seat, invite.game)
                session = join_invite(
                    invite, path, player, key, args.publish, choose, served=served
                )
            else:
                session = join_game(
                    args.url, path, args.game, player, key, args.publish, start, served=served
                )
            for colour, url in peers.items():
                session.add_point(colour, url)
        except RemoteError as exc:
            raise without_retry_advice(
                exc,
                UNREACHABLE,
            ) from None
    remember_repo(path)
    player = session.local_players[0]
    state = session.state
    waiting = [p for p, k in zip(state.players, state.seats, strict=True) if not k]
    if args.json:
        print_json(
            {
                "game": session.game_id,
                "player": player,
                "repo": str(path.resolve()),
                "players": list(state.players),
                "turn": state.turn,
                "open_seats": waiting if state.lobby_open else [],
            }
        )
        return 0
    print(
        f"Joined game {session.game_id} as {player} in {path.resolve()} "
        f"(players: {', '.join(state.players)}; turn {state.turn})"
    )
    if state.lobby_open:
        print(f"Your seat is claimed; set-up starts once {join_phrase(waiting)}.")
    print(f"Play with: catan-p2p play --resume {path}")
    return 0


def join_phrase(players: list[str]) -> str:
    """``White joins`` / ``White and Orange join``: who still has to take a seat."""
    names = [p.capitalize() for p in players]
    if len(names) == 1:
        return f"{names[0]} joins"
    return f"{', '.join(names[:-1])} and {names[-1]} join"


def seats_here(path: Path, game: str) -> tuple[str, ...]:
    """The seats of ``game`` whose branch already lives in the repository at ``path``."""
    if game not in games_in(path):
        return ()
    return local_seats(open_repo(str(path)), game)
