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

from catan_p2p.bots import ALL_STRATEGIES, make_bot
from catan_p2p.errors import UsageError
from catan_p2p.rules.board import STANDARD_BOARD, Board
from catan_p2p.sim import GameResult, play_game, play_session_game

COLOURS = ("red", "blue", "white", "orange")


class ProgressBar:
    """A one-line progress bar on a text stream (stderr), redrawn at most ten times a second."""

    def __init__(self, total: int, label: str, stream=sys.stderr, width: int = 30) -> None:  # type: ignore[no-untyped-def]
        self.total = total
        self.label = label
        self.stream = stream
        self.width = width
        self.start = time.perf_counter()
        self._drawn = 0.0

    def update(self, done: int) -> None:
        now = time.perf_counter()
        if done < self.total and now - self._drawn < 0.1:
            return
        self._drawn = now
        filled = self.width * done // max(1, self.total)
        rate = done / max(now - self.start, 1e-9)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{self.total} {rate:.1f}/s")
        if done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


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


def board_maker(kind: str, radius: int) -> Callable[[str], Board]:
    """A function from a game's seed to its board (boards/ makes the non-standard ones)."""
    if importlib.util.find_spec("catan_p2p.boards") is not None:
        boards = importlib.import_module("catan_p2p.boards")
        make_board = getattr(boards, "make_board", None)
        if make_board is not None:
            make_board(kind, "0", radius)  # fail now, before any game, on a bad kind/radius
            return lambda seed: make_board(kind, seed, radius)
    if kind == "standard" and radius == 2:
        return lambda seed: STANDARD_BOARD
    raise UsageError(
        f"--board {kind} --radius {radius} is not available in this version; "
        "use --board standard --radius 2"
    )


def check_args(args: argparse.Namespace) -> None:
    if not 2 <= args.players <= 4:
        raise UsageError(f"--players must be 2, 3 or 4, not {args.players}")
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}")
    if args.git and importlib.util.find_spec("catan_p2p.session.git") is None:
        raise UsageError("--git is not available yet in this version; run simulate without --git")


def run(args: argparse.Namespace) -> int:
    try:
        check_args(args)
        strategies = parse_bots(args.bots, args.players)
        boards = board_maker(args.board, args.radius)
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
    from catan_p2p.session.git import GitSession, create_game

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
