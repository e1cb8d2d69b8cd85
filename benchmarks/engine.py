"""Engine speed: games per second and microseconds per action, beside catanatron's.

Run ``python -m benchmarks.engine [--games N] [--json] [--out FILE]``.

How the comparison is kept fair:

- Same kind of player. Ours is ``UniformBot``: uniform over the legal actions except
  player trade offers, which catanatron's ``RandomPlayer`` (uniform over its playable
  actions) cannot make either. Both games then last about as many turns and actions;
  the mean actions per game of each side are printed so a difference is visible, and
  microseconds per action is the figure that does not depend on game length.
- Same work. No invariant checks on our side, no accumulators on theirs; both start
  from a board built once (our standard board; one catanatron ``BASE`` map) and play
  to 10 points. Catanatron's loop is ``Game.play`` without its two state copies.
- Same time. Both engines run in one process, interleaved in rounds, so a busy
  machine slows both alike. A game catanatron stops at its turn limit counts as
  played.

Our weighted ``RandomBot`` (prefers building, rarely offers trades: the ``simulate``
default) is timed too, for reference.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from catan_p2p.bots import RandomBot, UniformBot
from catan_p2p.sim import play_game

COLOURS = ("red", "blue", "white", "orange")
DEFAULT_OUT = Path(__file__).parent / "results" / "engine.json"
FAIRNESS = (
    "both sides uniform random over their legal actions without player trades; "
    "no invariant checks; board built once; catanatron's play loop without state copies; "
    "engines interleaved in rounds in one process"
)


@dataclass
class Tally:
    """Games, actions, turns and seconds of one engine at one player count."""

    games: int = 0
    actions: int = 0
    turns: int = 0
    unfinished: int = 0
    seconds: float = 0.0

    def add(self, actions: int, turns: int, finished: bool) -> None:
        self.games += 1
        self.actions += actions
        self.turns += turns
        self.unfinished += not finished

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def us_per_action(self) -> float:
        return self.seconds / self.actions * 1e6 if self.actions else 0.0

    def summary(self) -> dict:
        return {
            "games": self.games,
            "games_per_s": round(self.games_per_s, 3),
            "us_per_action": round(self.us_per_action, 3),
            "mean_actions": round(self.actions / max(1, self.games), 1),
            "mean_turns": round(self.turns / max(1, self.games), 1),
            "unfinished": self.unfinished,
            "seconds": round(self.seconds, 3),
        }


def play_ours(tally: Tally, players: int, first: int, count: int, bot: type) -> None:
    """Play ``count`` of our games (game numbers ``first``...) into ``tally``."""
    names = COLOURS[:players]
    start = time.perf_counter()
    for g in range(first, first + count):
        seed = f"bench/{g}"
        bots = [bot(f"{seed}/{i}") for i in range(players)]
        result = play_game(names, bots, seed, check_invariants=False)
        tally.add(result.actions, result.turns, result.winner is not None)
    tally.seconds += time.perf_counter() - start


class Catanatron:
    """catanatron's engine with its random players, when it is installed."""

    def __init__(self) -> None:
        import catanatron  # noqa: F401  (ImportError: not installed)
        from catanatron import Color, Game, RandomPlayer
        from catanatron.game import TURNS_LIMIT
        from catanatron.models.map import build_map

        self.Game, self.RandomPlayer, self.limit = Game, RandomPlayer, TURNS_LIMIT
        self.colours = (Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE)
        random.seed(0)
        self.map = build_map("BASE")  # built once, as our standard board is
        try:
            from importlib.metadata import PackageNotFoundError, version

            self.version = version("catanatron")
        except PackageNotFoundError:  # the version is only informative
            self.version = "unknown"

    def play(self, tally: Tally, players: int, first: int, count: int) -> None:
        start = time.perf_counter()
        for g in range(first, first + count):
            bots = [self.RandomPlayer(c) for c in self.colours[:players]]
            game = self.Game(bots, seed=g, catan_map=self.map)
            while game.winning_color() is None and game.state.num_turns < self.limit:
                game.play_tick()
            state = game.state
            actions = len(getattr(state, "action_records", None) or state.actions)
            tally.add(actions, state.num_turns, game.winning_color() is not None)
        tally.seconds += time.perf_counter() - start


def run(games: int, rounds: int, with_catanatron: bool, progress: bool) -> dict:
    """Time ``games`` games per engine and player count, interleaved in ``rounds``."""
    theirs = None
    status = "skipped (--no-catanatron)"
    if with_catanatron:
        try:
            theirs = Catanatron()
            status = "ran"
        except ImportError:
            status = "not installed: pip install -e '.[bench]' to compare"
    tallies: dict[str, Tally] = {}
    per_round = [games // rounds + (1 if r < games % rounds else 0) for r in range(rounds)]
    done = 0
    for r, count in enumerate(per_round):
        if not count:
            continue
        for players in (2, 4):
            play_ours(
                tallies.setdefault(f"ours_{players}p", Tally()), players, done, count, UniformBot
            )
            if theirs is not None:
                theirs.play(tallies.setdefault(f"cat_{players}p", Tally()), players, done, count)
            play_ours(
                tallies.setdefault(f"weighted_{players}p", Tally()), players, done, count, RandomBot
            )
        done += count
        if progress:
            print(f"\rround {r + 1}/{rounds}: {done}/{games} games each", end="", file=sys.stderr)
    if progress:
        print(file=sys.stderr)

    result: dict = {
        "command": "python -m benchmarks.engine " + " ".join(sys.argv[1:]),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "games": games,
        "bot": "UniformBot: uniform over legal actions except player trade offers",
        "fairness": FAIRNESS,
        "catanatron": status,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    for players in (2, 4):
        ours = tallies[f"ours_{players}p"]
        result[f"games_per_s_{players}p"] = round(ours.games_per_s, 3)
        result[f"us_per_action_{players}p"] = round(ours.us_per_action, 3)
        result[f"ours_{players}p"] = ours.summary()
        result[f"weighted_random_{players}p"] = tallies[f"weighted_{players}p"].summary()
    if theirs is not None:
        result["catanatron_version"] = theirs.version
        for players in (2, 4):
            ours, cat = tallies[f"ours_{players}p"], tallies[f"cat_{players}p"]
            result[f"catanatron_games_per_s_{players}p"] = round(cat.games_per_s, 3)
            result[f"catanatron_us_per_action_{players}p"] = round(cat.us_per_action, 3)
            result[f"catanatron_{players}p"] = cat.summary()
            result[f"ratio_{players}p"] = round(ours.games_per_s / cat.games_per_s, 3)
            result[f"ratio_per_action_{players}p"] = round(
                cat.us_per_action / ours.us_per_action, 3
            )
    return result


def format_result(r: dict) -> str:
    lines = [f"engine benchmark: {r['games']} games per engine and player count ({r['bot']})"]
    for players in (2, 4):
        o = r[f"ours_{players}p"]
        lines.append(
            f"  {players}p ours       {o['games_per_s']:8.2f} games/s "
            f"{o['us_per_action']:8.1f} us/action"
            f"  ({o['mean_actions']:.0f} actions, {o['mean_turns']:.0f} turns per game)"
        )
        if f"catanatron_{players}p" in r:
            c = r[f"catanatron_{players}p"]
            lines.append(
                f"  {players}p catanatron {c['games_per_s']:8.2f} games/s "
                f"{c['us_per_action']:8.1f} us/action"
                f"  ({c['mean_actions']:.0f} actions, {c['mean_turns']:.0f} turns per game,"
                f" {c['unfinished']} hit the turn limit)"
            )
            lines.append(
                f"  {players}p ratio      {r[f'ratio_{players}p']:8.2f}x games/s"
                f" {r[f'ratio_per_action_{players}p']:8.2f}x per action"
            )
        w = r[f"weighted_random_{players}p"]
        lines.append(
            f"  {players}p ours, weighted RandomBot {w['games_per_s']:.2f} games/s"
            f" {w['us_per_action']:.1f} us/action ({w['mean_actions']:.0f} actions per game)"
        )
    if "catanatron_version" not in r:
        lines.append(f"  catanatron {r['catanatron']}")
    else:
        lines.append(f"  fair play: {r['fairness']} (catanatron {r['catanatron_version']})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.engine", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--games", type=int, default=200, help="games per engine and player count")
    parser.add_argument("--rounds", type=int, default=10, help="interleaved rounds (load fairness)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-catanatron", action="store_true", help="time our engine only")
    parser.add_argument("--out", default=None, help=f"also save the JSON here (e.g. {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        print("benchmarks.engine: --games and --rounds must be at least 1.", file=sys.stderr)
        return 2
    result = run(
        args.games, min(args.rounds, args.games), not args.no_catanatron, sys.stderr.isatty()
    )
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(json.dumps(result, sort_keys=True) if args.json else format_result(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
