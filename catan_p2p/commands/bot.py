"""``catan-p2p bot``: a bot playing one seat as a networked peer until the game ends.

Each round: sync (fetch, verify, fast-forward, merge, push), then act if the game
waits on this seat. As the active player with an open trade offer, it gives the other
players as long to answer as the game gives anyone to move: the timeout the players
agreed at ``new --timeout`` (``answer_wait``), or until every one answered when the
game has none, as a bot in a local game does.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from catan_p2p.bridges.strategies import ALL_STRATEGIES, make_bot
from catan_p2p.commands._common import local_seats, open_repo, open_session, print_json
from catan_p2p.commands._options import add_json, add_repo, add_think
from catan_p2p.errors import IllegalAction, UsageError
from catan_p2p.rules.waiting import actors, owed_reveal
from catan_p2p.session.driver import Driver
from catan_p2p.store import gitcmd
from catan_p2p.store.refs import player_ref, tracking_ref
from catan_p2p.sync import disk
from catan_p2p.sync.repo import find_git_dir

IDLE_BACKOFF = 1.5  # while nothing changes, wait this much longer between syncs ...
IDLE_MAX = 0.25  # ... up to this many seconds, so idle peers leave the CPU to the others
REVEAL_WAIT = 120.0  # seconds a finished game waits for a silent seat's deck secret


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
    add_repo(parser)
    add_json(parser)


def answer_wait(session) -> float | None:  # type: ignore[no-untyped-def]
    """Seconds an own trade offer stays open for the other players' answers.

    As long as the game waits for any move: the players' agreed ``timeout`` (after
    which they could end the game without a silent player anyway), or None, until
    every player answered, when they agreed on none (the game waits for ever).
    """
    info = getattr(session, "info", None)
    timeout = getattr(info, "timeout", 0) or 0
    return float(timeout) if timeout else None


#: Seconds between the bot's tries while its disk refuses writes, and between repeats of
#: what it says about that (a bot left running must not fall silent on a full disk).
DISK_RETRY = 2.0
DISK_REPEAT = 30.0


class _Said:
    """The bot's messages: each said when it changes, a disk problem again every
    ``DISK_REPEAT`` seconds while it lasts."""

    def __init__(self, player: str) -> None:
        self.player = player
        self.last: tuple[str, float] | None = None

    def __call__(self, text: str, again: bool = False) -> None:
        """Say ``text`` unless just said; ``again``: a disk problem, said again in a while."""
        now = time.monotonic()
        if self.last is not None and self.last[0] == text:
            if not again or now - self.last[1] < DISK_REPEAT:
                return
        self.last = (text, now)
        print(f"{self.player}: {text}", file=sys.stderr, flush=True)


def _sync(session, said: _Said):  # type: ignore[no-untyped-def]
    """One sync; a disk that refuses a write is said and the old status kept."""
    while True:
        try:
            return session.sync()
        except OSError as exc:
            said(disk.describe(exc, session.repo.path) or f"cannot write: {exc}", again=True)
            time.sleep(DISK_RETRY)


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
    """The bot's rounds until the game is settled (or its deck secrets stay owed)."""
    session = open_session(args.repo, args.game, (player,), eager_push=False)
    if player not in session.players:
        raise UsageError(f"{player!r} is not a player of game {session.game_id}")
    bot = make_bot(
        args.strategy,
        args.seed if args.seed is not None else f"{session.game_id}/{player}",
        getattr(args, "think", None),
    )
    driver = Driver(session, {player: bot}, trade_wait=answer_wait(session))
    pause = args.poll
    seen = None
    owed_since: float | None = None
    owed_by: str | None = None
    said = _Said(player)
    status = _sync(session, said)
    while True:
        if actors(session.state) != [player]:  # mid-turn nobody else can add anything
            status = _sync(session, said)
        if session.head != seen:
            seen, pause = session.head, args.poll
        else:
            pause = min(pause * IDLE_BACKOFF, max(IDLE_MAX, args.poll))
        if status.error:
            said(status.error, again=disk.is_sentence(status.error))
        for oid, reason in session.take_rejected().items():
            print(f"{player}: rejected {oid[:10]}: {reason}", file=sys.stderr, flush=True)
        mine = tracking_ref(player_ref(session.game_id, player))
        if any(fork.ref == mine for fork in status.forks):
            session.close()
            raise UsageError(
                f"{player.capitalize()}'s branch on the remote holds moves this bot did not "
                "make: another device is playing this seat; stop one of them"
            )
        state = session.state
        if state.settled:
            break
        if state.is_over:  # the deck secrets follow, one seat after another
            owed = owed_reveal(state)
            if owed_since is None or owed != owed_by:
                owed_since, owed_by = time.monotonic(), owed
            elif time.monotonic() - owed_since > REVEAL_WAIT:
                print(
                    f"{player}: the game is over; it waits for {str(owed).capitalize()}'s deck "
                    f"secret since {REVEAL_WAIT:.0f} s, the game cannot be fully verified yet",
                    file=sys.stderr,
                    flush=True,
                )
                break
            time.sleep(pause)
            continue
        try:
            if driver.step() is not None:
                continue
        except IllegalAction as exc:
            print(f"{player}: refused: {exc}", file=sys.stderr, flush=True)
            continue
        except OSError as exc:  # the disk: the bot says so and tries again, never silent
            said(disk.describe(exc, session.repo.path) or f"cannot write: {exc}", again=True)
            time.sleep(max(pause, DISK_RETRY))
            continue
        time.sleep(pause)
    session.flush()
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
    session.close()
    return 0
