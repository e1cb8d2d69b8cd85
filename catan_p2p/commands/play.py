"""``catan-p2p play``: a game in a window; hot-seat, against bots, or over a shared remote.

Games are Git repositories (one commit per action), saved as they are played under
``~/.catan_p2p/games/<id>`` (or ``$CATAN_P2P_HOME/games/<id>``, or ``--repo``), so
``--resume PATH`` continues one and ``catan-p2p replay PATH`` replays it. Which seats
are bots is kept beside the game in the repository's Git directory.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from catan_p2p.bots import STRATEGIES, Bot  # noqa: E402
from catan_p2p.bridges.strategies import ALL_STRATEGIES, make_bot  # noqa: E402
from catan_p2p.client import theme  # noqa: E402
from catan_p2p.client.seats import Seats, strategy_for  # noqa: E402
from catan_p2p.commands._common import (  # noqa: E402
    games_in,
    removed_on_failure,
    without_retry_advice,
)
from catan_p2p.commands._options import add_board  # noqa: E402
from catan_p2p.commands._seats import load_seats as _load_seats  # noqa: E402
from catan_p2p.commands._seats import save_seats as _save_seats  # noqa: E402
from catan_p2p.commands.new import board_for  # noqa: E402
from catan_p2p.errors import RemoteError, UsageError  # noqa: E402
from catan_p2p.net.chat import ChatLog  # noqa: E402
from catan_p2p.net.driver import Driver  # noqa: E402
from catan_p2p.net.game import Session  # noqa: E402
from catan_p2p.net.runtime import Runtime  # noqa: E402
from catan_p2p.rules.cards import MAX_PLAYERS  # noqa: E402
from catan_p2p.rules.state import SEAT_COLOURS, GameState  # noqa: E402
from catan_p2p.session.memory import MemorySession  # noqa: E402
from catan_p2p.store import gitcmd  # noqa: E402
from catan_p2p.store.repo import find_git_dir  # noqa: E402

COLOURS = SEAT_COLOURS
BOT_STRATEGY = "greedy" if "greedy" in STRATEGIES else "random"
NO_DISPLAY = (
    "catan-p2p play: no display is available to open a window here; "
    "run `catan-p2p play --headless` to let bots play a recorded game instead."
)

try:  # the Git-backed session; without it games are played in memory only
    from catan_p2p.session.git import GitSession
    from catan_p2p.session.start import create_game, join_game, join_invite
except ImportError:  # pragma: no cover - only in a build without session/git.py
    GitSession = None  # type: ignore[assignment,misc]


@dataclass
class Game:
    """A started or resumed game: its session, who plays which seat, where it is saved."""

    session: Session
    seats: Seats
    repo: Path | None
    networked: bool = False
    game_flag: str = ""  # " --game ID" when the repository holds several games


def pick_flag(repo: Path, game_id: str) -> str:
    """`` --game ID`` when ``repo`` holds several games (a command must then name one)."""
    return f" --game {game_id}" if len(games_in(repo)) > 1 else ""


def games_home() -> Path:
    """Where new games are saved by default."""
    base = os.environ.get("CATAN_P2P_HOME")
    return Path(base) if base else Path.home() / ".catan_p2p"


def seat_counts(args: argparse.Namespace) -> tuple[int, int]:
    """(humans, bots) of a new game, checked: 2 to 6 seats in all (5-6: the extension)."""
    humans = args.humans
    bots = args.bots if args.bots is not None else max(0, 4 - humans)
    if humans < 0 or bots < 0:
        raise UsageError("--humans and --bots count seats and cannot be negative")
    total = humans + bots
    if not 2 <= total <= MAX_PLAYERS:
        raise UsageError(
            f"a game has 2 to {MAX_PLAYERS} seats (5-6 play the extension), and --humans "
            f"{humans} --bots {bots} makes {total}; e.g. --humans 2 --bots 1"
        )
    return (0, total) if args.headless else (humans, bots)


def _bots(players: list[str] | tuple[str, ...], strategy: str, seed: str) -> dict[str, Bot]:
    return {p: make_bot(strategy, f"{seed}/{p}") for p in players}


def new_game(args: argparse.Namespace) -> Game:
    """Create a game (a Git repository unless session/git.py is missing) and its seats."""
    humans, n_bots = seat_counts(args)
    players = COLOURS[: humans + n_bots]
    human_seats, bot_seats = players[:humans], players[humans:]
    seed = args.seed or secrets.token_hex(4)
    board = board_for(args.board, seed, args.radius, args.balance, len(players))
    strategy = strategy_for(getattr(args, "opponents", None) or BOT_STRATEGY)
    bots = _bots(bot_seats, strategy, seed)
    if GitSession is None:
        print("catan-p2p play: Git sessions are not available; this game is not saved.")
        from catan_p2p.rules.state import new_game as fresh_game

        session = MemorySession(fresh_game(players, board), seed)
        return Game(session, Seats(human_seats, bots), None)
    game_id = args.game or "g" + secrets.token_hex(4)
    repo = Path(args.repo) if args.repo else games_home() / "games" / game_id
    if games_in(repo):
        raise UsageError(
            f"{repo} already holds a game; continue it with `catan-p2p play --resume {repo}`, "
            "or pass another --repo for a new one"
        )
    with removed_on_failure(repo):
        create_game(repo, list(players), board, seed, game_id, keys=local_keys(repo, players))
    session = GitSession.open(repo, game_id)
    _save_seats(session.repo.git_dir, game_id, human_seats, {p: strategy for p in bot_seats})
    return Game(session, Seats(human_seats, bots), repo)


def local_keys(repo: Path, players: tuple[str, ...] | list[str]) -> dict:
    """Seat keys of a game every seat of which is played in this window.

    A key this machine already holds for the colour is used; any other is made inside
    the game's own Git directory (and remembered there), never in the shared keys
    folder: a game against bots leaves no keys behind that another game (or a bot
    started in the wrong repository) would then pick up.
    """
    from catan_p2p.session.keys import existing_key, new_key, remember, save_key
    from catan_p2p.store.repo import init_repo

    try:
        git_dir = find_git_dir(repo)
    except UsageError:
        git_dir = init_repo(repo)
    keys = {}
    for p in players:
        key = existing_key(p)
        if key is None:
            path = git_dir / "catan-p2p-keys" / p
            key = new_key()
            save_key(key, path)
            remember(git_dir, p, path)
        keys[p] = key
    return keys


def resume_game(args: argparse.Namespace) -> Game:
    """Open a saved game with the seats it was started with (all human when unknown)."""
    if GitSession is None:
        raise UsageError("--resume needs Git sessions, which this build lacks")
    repo = Path(args.resume).expanduser()
    if not repo.exists():
        raise UsageError(f"there is no saved game at {repo}; check the path printed at its end")
    from catan_p2p.commands._common import local_seats, open_repo

    game_repo = open_repo(str(repo))
    game_id = game_repo.only_game(args.game)
    saved = _load_seats(game_repo.git_dir, game_id)
    if saved is None:  # made by `catan-p2p new` or `join`: the seats whose branch is here
        saved = (local_seats(game_repo, game_id), {})
    humans, strategies = saved
    session = GitSession.open(repo, game_id, (*humans, *strategies))
    networked = session.networked  # a shared remote, publication points, or both
    bots = {p: make_bot(s, f"{game_id}/{p}") for p, s in strategies.items()}
    flag = pick_flag(repo, game_id)
    return Game(session, Seats(humans, bots), repo, networked=networked, game_flag=flag)


def join_remote(args: argparse.Namespace) -> Game:
    """Take a seat in a networked game: clone its refs from the remote, sync in background."""
    if GitSession is None:
        raise UsageError("networked play needs Git sessions, which this build lacks")
    from catan_p2p.protocol.invite import is_invite, parse_invite

    invite = parse_invite(args.remote) if is_invite(args.remote) else None
    if invite is not None:  # the lobby's Join of an invitation's game
        args.game = invite.game
    if not args.game or not args.as_player:
        raise UsageError(
            "--remote needs --game ID and --as COLOUR, e.g. "
            "catan-p2p play --remote URL --game g1234 --as blue"
        )
    repo = (
        Path(args.repo) if args.repo else games_home() / "games" / f"{args.game}-{args.as_player}"
    )
    with removed_on_failure(repo):
        try:
            if invite is not None:
                session = join_invite(invite, repo, args.as_player)
            else:
                session = join_game(args.remote, repo, args.game, args.as_player)
        except RemoteError as exc:
            raise without_retry_advice(
                exc, "check the URL and that the remote is reachable, then try again"
            ) from None
        _save_seats(session.repo.git_dir, session.game_id, (args.as_player,), {})
    return Game(
        session,
        Seats((args.as_player,)),
        repo,
        networked=True,
        game_flag=pick_flag(repo, session.game_id),
    )


def start(args: argparse.Namespace) -> Game:
    if args.resume and args.remote:
        raise UsageError("use either --resume PATH or --remote URL, not both")
    if args.resume:
        return resume_game(args)
    if args.remote:
        return join_remote(args)
    return new_game(args)


def open_window() -> pygame.Surface | None:
    """A resizable window fitting the screen, or None where SDL has no real display.

    SDL falls back to an off-screen driver when there is no display; that counts as
    no display unless the dummy or off-screen driver was asked for (tests, CI).
    """
    wanted = os.environ.get("SDL_VIDEODRIVER", "").lower()
    try:
        pygame.display.init()
        driver = pygame.display.get_driver()
        if driver in ("offscreen", "dummy") and wanted not in ("offscreen", "dummy"):
            pygame.display.quit()
            return None
        info = pygame.display.Info()
        size = theme.window_size((info.current_w, info.current_h))
        return pygame.display.set_mode(size, pygame.RESIZABLE)
    except pygame.error:
        return None


def open_chat(session: Session) -> ChatLog | None:
    """The chat beside a game kept in Git (None for a game played in memory)."""
    if GitSession is None or not isinstance(session, GitSession):
        return None
    return session.chat()


def open_runtime(game: Game) -> Runtime:
    """The window's peer runtime: on its own thread when the game has any remote (a
    shared one, publication points, or both), inline otherwise; it holds the seats'
    lock on this machine, and reopens the game if a seat's branch moves under it."""
    session = game.session
    reopen = None
    if game.repo is not None and GitSession is not None and isinstance(session, GitSession):
        repo, game_id, local = game.repo, session.game_id, session.local_players
        reopen = lambda: GitSession.open(repo, game_id, local)  # noqa: E731
    runtime = Runtime(session, chat=open_chat(session), reopen=reopen)
    return runtime.start() if session.networked else runtime


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p play``."""
    parser.add_argument(
        "--humans",
        type=int,
        default=1,
        help="human seats sharing this window (hot-seat; default 1)",
    )
    parser.add_argument(
        "--bots", type=int, default=None, help="bot seats (default: fill up to 4 seats)"
    )
    add_board(parser, "game seed: the same seed deals the same board and dice (default: random)")
    parser.add_argument(
        "--repo",
        default=None,
        metavar="PATH",
        help="where to save the game (default: a new folder in ~/.catan_p2p/games)",
    )
    parser.add_argument(
        "--remote",
        default=None,
        metavar="URL",
        help="play a networked game shared on this Git remote (with --game and --as); "
        "the window fetches quickly while moves come in and backs off to one fetch every "
        "few seconds while nothing happens",
    )
    parser.add_argument(
        "--game", default=None, metavar="ID", help="the game's id (networked, or with --resume)"
    )
    parser.add_argument(
        "--as",
        dest="as_player",
        default=None,
        metavar="COLOUR",
        help="your seat in a networked game",
    )
    parser.add_argument(
        "--resume", default=None, metavar="PATH", help="continue the game saved in this repository"
    )
    parser.add_argument(
        "--opponents",
        default="greedy",
        metavar="LEVEL",
        choices=("easy", "greedy", "strong", *ALL_STRATEGIES),
        help="the bot seats: easy, greedy or strong (or a strategy such as "
        "catanatron:alphabeta); default greedy",
    )
    parser.add_argument(
        "--headless", action="store_true", help="no window: bots take every seat and play it out"
    )
    parser.add_argument(
        "--bots-take-over",
        action="store_true",
        help="with --resume and --headless: let bots play the game's human seats (yours "
        "too) to its end; without it such a game is refused",
    )
    parser.add_argument(
        "--mute", action="store_true", help="start with the sound off (S toggles it in the window)"
    )
    parser.add_argument(
        "--still",
        action="store_true",
        help="no motion: the dice and the produced cards appear at once (A toggles it)",
    )


def run(args: argparse.Namespace) -> int:
    if args.headless:
        return play_headless(args)
    seat_counts(args)  # refuse bad seat counts before touching the display
    screen = open_window()
    if screen is None:
        print(NO_DISPLAY, file=sys.stderr)
        return 1
    try:
        play_in_window(start(args), args, screen)
    finally:
        pygame.display.quit()
    return 0


def build_options(**overrides: object) -> argparse.Namespace:
    """``play``'s options with their defaults (and ``overrides``): the lobby starts,
    joins and opens games through the same functions as the command line."""
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    options = parser.parse_args([])
    for name, value in overrides.items():
        setattr(options, name, value)
    return options


def play_in_window(game: Game, args: argparse.Namespace, screen: pygame.Surface) -> pygame.Surface:
    """Play ``game`` in the window until it is closed (then its replay, if asked for).

    Returns the surface last drawn on (the window may have been resized).
    """
    with _shared_ssh(game):
        return _window(game, args, screen)


def _shared_ssh(game: Game):  # type: ignore[no-untyped-def]
    """A networked window polls its remote several times a second: over ssh, one
    connection per host for all of it (``gitcmd.ssh_reuse``), closed with the window."""
    if not game.networked or game.repo is None:
        return contextlib.nullcontext()
    return gitcmd.ssh_reuse(find_git_dir(game.repo))


def _window(game: Game, args: argparse.Namespace, screen: pygame.Surface) -> pygame.Surface:
    from catan_p2p.client.app import App
    from catan_p2p.client.sound import Sounds

    invite = invitation(game)
    runtime = open_runtime(game)
    try:
        app = App(
            game.session,
            game.seats,
            screen=screen,
            runtime=runtime,
            sounds=Sounds(muted=args.mute),
            still=getattr(args, "still", False),
        )
        app.invite = invite
        app.run()
        if app.replay_requested:
            from catan_p2p.client.replay import ReplayViewer, replay_states

            ReplayViewer(*replay_states(app.session), screen=app.screen).run()
    finally:
        runtime.stop()
        runtime.session.close()
    if game.repo is not None:
        print(
            f"Game saved in {game.repo}; continue it with: "
            f"catan-p2p play --resume {game.repo}{game.game_flag}"
        )
    return app.screen


def invitation(game: Game) -> str | None:
    """The invitation a window shows while its game waits for seats (read before the
    runtime owns the session): a networked game with one seat here."""
    from catan_p2p.session.start import invite_of

    if (
        not game.networked
        or not isinstance(game.session, GitSession)
        or not game.session.state.lobby_open
    ):
        return None
    invite = invite_of(game.session)
    return None if invite is None else str(invite)


def play_headless(args: argparse.Namespace) -> int:
    """Bots take every seat; the game is recorded and its final board written as a PNG."""
    if args.remote:
        raise UsageError("--headless plays a local game; drop --remote (use `catan-p2p bot`)")
    game = start(args)
    if game.seats.humans and args.resume and not args.bots_take_over:
        game.session.close()
        raise UsageError(
            f"{args.resume} has human seats ({', '.join(game.seats.humans)}): resume it in "
            "a window to play them, or add --bots-take-over to let bots play them to the end"
        )
    if game.seats.humans:  # a new game, or a resumed one the player handed over
        seed = game.session.game_id
        extra = _bots(game.seats.humans, BOT_STRATEGY, seed)
        game.seats = Seats((), {**extra, **game.seats.bots})
    from catan_p2p.sim import MAX_ACTIONS

    session = game.session
    driver = Driver(session, game.seats.bots)
    started = time.perf_counter()
    last_report = 0.0
    live = sys.stderr.isatty()

    def progress(_action: object, state: GameState) -> None:
        nonlocal last_report
        now = time.perf_counter()
        if live and now - last_report > 0.5:
            last_report = now
            print(
                f"\rturn {state.turn}, {driver.actions} bot moves",
                end="",
                file=sys.stderr,
                flush=True,
            )

    driver.play(MAX_ACTIONS, on_action=progress)
    state = session.state
    actions = driver.actions
    if not state.is_over and actions < MAX_ACTIONS:
        raise UsageError("the game waits on a seat no bot plays; resume it in a window")
    head = "\r" if live else ""
    print(f"{head}turn {state.turn}, {actions} bot moves", file=sys.stderr)
    seconds = time.perf_counter() - started
    recorded = len(session.history())  # with the steps nobody chooses, as replay counts them
    png = _final_png(session, game.repo)
    session.close()
    winner = state.players[state.winner].capitalize() if state.winner >= 0 else "nobody"
    print(
        f"{winner} won after {state.turn} turns ({recorded} actions, {actions} of them the "
        f"bots' moves, in {seconds:.1f} s); "
        f"final scores: " + ", ".join(f"{p} {state.points(s)}" for s, p in enumerate(state.players))
    )
    if game.repo is not None:
        print(f"Game saved in {game.repo} (a Git repository); replay: catan-p2p replay {game.repo}")
    print(f"Final board: {png}")
    return 0


def _final_png(session: Session, repo: Path | None) -> Path:
    """Draw the final position (board and panel) to ``final.png`` beside the game."""
    pygame.font.init()
    from catan_p2p.client.replay import ReplayViewer, replay_states

    states, entries = replay_states(session)
    viewer = ReplayViewer(states, entries, screen=pygame.Surface(theme.WINDOW_SIZE))
    viewer.banner = "FINAL POSITION"
    final = states[-1]
    ranking = sorted(range(len(final.players)), key=lambda s: -final.points(s))
    viewer.caption = "   ".join(
        f"{final.players[s].capitalize()} {final.points(s)}" for s in ranking
    )
    viewer.draw()
    png = (repo if repo is not None else Path.cwd()) / "final.png"
    pygame.image.save(viewer.screen, str(png))
    return png
