"""``catan-p2p simulate``: bots play many games in memory, invariants checked after every action.

The games themselves are played by ``catan_p2p.sim.play_game``; this command parses
the options, shows a progress bar on stderr and sums the results up.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from catan_p2p.bridges.strategies import ALL_STRATEGIES, make_bot
from catan_p2p.commands._options import BOARD_KINDS, add_json, add_think
from catan_p2p.commands._progress import ProgressBar
from catan_p2p.errors import UsageError
from catan_p2p.rules.board import STANDARD_BOARD, Board
from catan_p2p.rules.cards import MAX_PLAYERS
from catan_p2p.rules.state import SEAT_COLOURS
from catan_p2p.sim import GameResult, play_game, play_session_game

COLOURS = SEAT_COLOURS


def parse_bots(text: str, players: int) -> list[str]:
    """The strategy of each seat: the comma-separated list, cycled over the seats."""
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    if not names:
        raise UsageError("--bots needs at least one strategy, e.g. --bots random,greedy")
    for n in names:
        if n not in ALL_STRATEGIES:
            known = ", ".join(sorted(ALL_STRATEGIES))
            raise UsageError(f"unknown bot {n!r} in --bots; choose from {known}")
    return [names[i % len(names)] for i in range(players)]


def board_maker(kind: str, radius: int, players: int = 4) -> Callable[[str], Board]:
    """A function from a game's seed to its board (boards/ makes the non-standard ones;
    5-6 players get the extension's island)."""
    if importlib.util.find_spec("catan_p2p.boards") is not None:
        boards = importlib.import_module("catan_p2p.boards")
        make_board = getattr(boards, "make_board", None)
        if make_board is not None:
            # fail now, before any game, on a bad kind/radius
            make_board(kind, "0", radius, players=players)
            return lambda seed: make_board(kind, seed, radius, players=players)
    if kind == "standard" and radius == 2:
        return lambda seed: STANDARD_BOARD
    raise UsageError(
        f"--board {kind} --radius {radius} is not available in this version; "
        "use --board standard --radius 2"
    )


def check_args(args: argparse.Namespace) -> None:
    if not 2 <= args.players <= MAX_PLAYERS:
        raise UsageError(
            f"--players must be 2 to {MAX_PLAYERS} (5 and 6 play the extension), not {args.players}"
        )
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}")
    if args.git and importlib.util.find_spec("catan_p2p.session.git") is None:
        raise UsageError("--git is not available yet in this version; run simulate without --git")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p simulate``."""
    parser.add_argument(
        "--players",
        type=int,
        default=4,
        help="seats per game, 2..6 (default 4; 5-6 play the extension)",
    )
    parser.add_argument("--games", type=int, default=10, help="how many games (default 10)")
    parser.add_argument(
        "--bots",
        default="random",
        metavar="LIST",
        help="comma-separated strategies, cycled over the seats, e.g. greedy,random; "
        "greedy-notrade is greedy without player trades",
    )
    parser.add_argument(
        "--board",
        choices=BOARD_KINDS,
        default="standard",
        help="the island of every game (default: standard)",
    )
    parser.add_argument("--radius", type=int, default=2, help="island radius 2..5 (default 2)")
    parser.add_argument(
        "--seed", default="0", metavar="S", help="the same seed plays the same games (default 0)"
    )
    parser.add_argument(
        "--git", action="store_true", help="record every action in Git and verify it"
    )
    parser.add_argument(
        "--repo",
        default=None,
        metavar="PATH",
        help="with --git: where to keep the repositories (default: a temporary folder)",
    )
    parser.add_argument("--no-check", action="store_true", help="skip invariant checks (for speed)")
    add_think(parser)
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    try:
        check_args(args)
        strategies = parse_bots(args.bots, args.players)
        boards = board_maker(args.board, args.radius, args.players)
    except UsageError as exc:
        print(f"catan-p2p simulate: {exc}", file=sys.stderr)
        return 2
    players = COLOURS[: args.players]
    seed = str(args.seed)
    play = _git_player(args, players) if args.git else None
    bar = ProgressBar(args.games, "games")
    results: list[GameResult] = []
    start = time.perf_counter()
    for g in range(args.games):
        game_seed = f"{seed}/{g}"
        think = getattr(args, "think", None)
        bots = [make_bot(s, f"{game_seed}/{i}", think) for i, s in enumerate(strategies)]
        board = boards(game_seed)
        if play is None:
            results.append(play_game(players, bots, game_seed, board, not args.no_check))
        else:
            results.append(play(g, game_seed, board, dict(zip(players, bots, strict=True))))
        bar.update(g + 1)
    elapsed = time.perf_counter() - start
    report = summarise(results, players, strategies, elapsed)
    report["seed"] = seed
    report["invariants_checked"] = not args.no_check
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        print(format_report(report))
    return 0


def _git_player(args: argparse.Namespace, players: tuple[str, ...]):  # type: ignore[no-untyped-def]
    """A function playing game ``g`` in a Git repository (``--repo`` or a new temp dir)."""
    from catan_p2p.session.git import GitSession
    from catan_p2p.session.start import create_game

    repo = Path(args.repo) if args.repo else Path(tempfile.mkdtemp(prefix="catan-sim-"))
    print(f"recording games in {repo}", file=sys.stderr)

    def play(g: int, game_seed: str, board: Board, bots: dict) -> GameResult:
        try:
            game = create_game(repo, players, board, seed=game_seed, game_id=f"sim-{g}")
        except UsageError as exc:
            if "already holds" not in str(exc):
                raise
            raise UsageError(
                f"{repo} already holds a simulated game sim-{g}; give simulate --git a new --repo"
            ) from None
        session = GitSession(repo, game)
        try:
            return play_session_game(session, bots, not args.no_check)
        finally:
            session.close()

    return play


def summarise(
    results: list[GameResult], players: tuple[str, ...], strategies: list[str], elapsed: float
) -> dict:
    """The figures of a run as one JSON-ready object."""
    n = len(results)
    wins = Counter(r.winner for r in results)
    by_strategy: Counter[str] = Counter()
    for p, s in zip(players, strategies, strict=True):
        by_strategy[s] += wins.get(p, 0)
    actions = sum(r.actions for r in results)
    return {
        "games": n,
        "players": list(players),
        "bots": dict(zip(players, strategies, strict=True)),
        "winners": {p: wins.get(p, 0) for p in players},
        "wins_by_bot": dict(by_strategy),
        "unfinished": wins.get(None, 0),
        "mean_actions": actions / n,
        "mean_turns": sum(r.turns for r in results) / n,
        "seconds": elapsed,
        "games_per_s": n / elapsed if elapsed else 0.0,
        "us_per_action": elapsed / actions * 1e6 if actions else 0.0,
    }


def format_report(report: dict) -> str:
    lines = [f"{report['games']} games, seed {report['seed']!r}"]
    for p in report["players"]:
        wins = report["winners"][p]
        share = 100 * wins / report["games"]
        lines.append(f"  {p:<7} {report['bots'][p]:<7} {wins:>6} wins ({share:.1f}%)")
    if report["unfinished"]:
        lines.append(f"  {report['unfinished']} game(s) stopped without a winner")
    lines.append(
        f"mean {report['mean_turns']:.1f} turns, {report['mean_actions']:.1f} actions per game"
    )
    checked = "with" if report["invariants_checked"] else "without"
    lines.append(
        f"{report['games_per_s']:.2f} games/s, {report['us_per_action']:.1f} us/action "
        f"({checked} invariant checks)"
    )
    return "\n".join(lines)
