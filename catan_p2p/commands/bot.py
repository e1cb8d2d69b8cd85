"""``catan-p2p bot``: a bot playing one seat as a networked peer until the game ends.

Each round: sync (fetch, verify, fast-forward, merge, push), then act if the game
waits on this seat. As the active player with an open trade offer, it gives the other
players as long to answer as the game gives anyone to move: the timeout the players
agreed at ``new --timeout`` (``answer_wait``), or until every one answered when the
game has none, as a bot in a local game does.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from catan_p2p.bridges.strategies import ALL_STRATEGIES, make_bot
from catan_p2p.commands._common import local_seats, open_repo, open_session, print_json
from catan_p2p.commands._options import add_json, add_repo, add_think
from catan_p2p.errors import UsageError
from catan_p2p.net.game import Session
from catan_p2p.net.runtime import Runtime
from catan_p2p.store import gitcmd
from catan_p2p.store.repo import find_git_dir

#: While nothing changes a bot's runtime waits longer between syncs, up to this many
#: seconds, so idle peers leave the CPU to the others.
IDLE_MAX = 0.25


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p bot``."""
    parser.add_argument(
        "--as", dest="as_player", required=True, metavar="COLOUR", help="the seat the bot plays"
    )
    parser.add_argument(
        "--strategy",
        choices=ALL_STRATEGIES,
        default="greedy",
        help="random: any legal action; greedy: builds, trades and robs by a score (default); "
        "strong: searches ahead; catanatron:alphabeta|value|weighted: catanatron's players",
    )
    add_think(parser)
    parser.add_argument("--seed", default=None, metavar="S", help="the bot's own random seed")
    parser.add_argument(
        "--poll",
        type=float,
        default=0.05,
        metavar="SECONDS",
        help="seconds between syncs when idle",
    )
    parser.add_argument(
        "--pause",
        default=None,
        metavar="MIN[-MAX]",
        help="seconds the bot waits before each move, drawn between MIN and MAX (e.g. 5-60: "
        "a person's pace, so the others see moves as a human would make them)",
    )
    add_repo(parser)
    add_json(parser)


def parse_pause(text: str | None) -> tuple[float, float] | None:
    """``--pause MIN[-MAX]`` as (min, max) seconds; ``UsageError`` naming a bad one."""
    if text is None:
        return None
    low, _, high = text.partition("-")
    try:
        pair = (float(low), float(high or low))
    except ValueError:
        pair = (-1.0, -1.0)
    if not 0 <= pair[0] <= pair[1]:
        raise UsageError(f"--pause {text}: give seconds as MIN or MIN-MAX, e.g. --pause 5-60")
    return pair


def answer_wait(session: Session) -> float | None:
    """Seconds an own trade offer stays open for the other players' answers.

    As long as the game waits for any move: the players' agreed ``timeout`` (after
    which they could end the game without a silent player anyway), or None, until
    every player answered, when they agreed on none (the game waits for ever).
    """
    timeout = session.info.timeout if session.info is not None else 0
    return float(timeout) if timeout else None


def check_seat_here(repo: str, game: str | None, player: str) -> None:
    """Refuse to play a seat whose branch is not in this repository (another player's).

    Raises:
        UsageError: the repository holds other seats (or none) of the game.
    """
    game_repo = open_repo(repo)
    game_id = game_repo.only_game(game)
    here = local_seats(game_repo, game_id)
    if player not in here:
        held = ", ".join(p.capitalize() for p in here) or "no seat"
        raise UsageError(
            f"{game_repo.path} holds {held} of game {game_id}, not {player.capitalize()}; "
            f"run the bot in {player.capitalize()}'s own repository (made by `catan-p2p join "
            f"URL --game {game_id} --as {player}`)"
        )


def run(args: argparse.Namespace) -> int:
    player = args.as_player.lower()
    check_seat_here(args.repo, args.game, player)
    # A bot fetches several times a second: over ssh, one connection per host for all
    # of them, closed when the bot ends (gitcmd.ssh_reuse).
    with gitcmd.ssh_reuse(find_git_dir(Path(args.repo or "."))):
        return _play(args, player)


def _play(args: argparse.Namespace, player: str) -> int:
    """Run the peer runtime with this seat's bot until the game is settled (or its deck
    secrets stay owed); say what it notices on the way."""
    pause = parse_pause(args.pause)
    # at a person's pace every move is published at once, as a window publishes it
    session = open_session(args.repo, args.game, (player,), eager_push=pause is not None)
    if player not in session.players:
        raise UsageError(f"{player!r} is not a player of game {session.game_id}")
    bot = make_bot(
        args.strategy,
        args.seed if args.seed is not None else f"{session.game_id}/{player}",
        getattr(args, "think", None),
    )
    think = None
    if pause is not None:
        draw = random.Random(f"{session.game_id}/{player}/pause")
        think = lambda: draw.uniform(*pause)  # noqa: E731
    runtime = Runtime(
        session,
        {player: bot},
        think=think,
        trade_wait=answer_wait(session),
        fastest=args.poll,
        slowest=max(IDLE_MAX, args.poll),
    )
    try:
        runtime.run(until=lambda rt: _tell(rt, player) or rt.settled())
    finally:
        runtime.stop()
        session.flush()
    state = session.state
    session.close()
    if runtime.stopped_by is not None:
        raise UsageError(runtime.stopped_by)
    winner = state.players[state.winner] if state.winner >= 0 else "nobody"
    if args.json:
        print_json(
            {
                "game": session.game_id,
                "player": player,
                "turn": state.turn,
                "winner": state.players[state.winner] if state.winner >= 0 else None,
            }
        )
    else:
        print(f"Game {session.game_id} over after turn {state.turn}: {winner} won.")
    return 0


def _tell(runtime: Runtime, player: str) -> bool:
    """Say the runtime's notices on stderr; True once another device plays the seat."""
    for notice in runtime.take_notices():
        print(f"{player}: {notice.text}", file=sys.stderr, flush=True)
    return runtime.stopped_by is not None
