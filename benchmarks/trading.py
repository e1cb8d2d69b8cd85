"""What player trades are worth to the greedy bot: win rate with trading against without.

Four-player games on the standard board: two greedy bots that trade (they offer now
and then and accept what raises their hand's worth) against two that never trade
(``greedy-notrade``: no offers, every offer declined), seated alternately and swapped
every other game, so no seat favours either side. With no edge, each side wins half
of the games (a trader 25% each). Also two-player games, one of each, seats swapped.

    python -m benchmarks.trading [--games N] [--out benchmarks/results/trading.json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from catan_p2p.bots import make_bot
from catan_p2p.commands._progress import ProgressBar
from catan_p2p.sim import play_game

COLOURS = ("red", "blue", "white", "orange")


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson interval of a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (round(centre - half, 4), round(centre + half, 4))


def run(games: int = 200, players: int = 4, seed: str = "trading") -> dict:
    """Play ``games`` games; the traders' share of wins and the trades made."""
    names = COLOURS[:players]
    trader_wins = notrade_wins = unfinished = trades = 0
    bar = ProgressBar(games, f"{players}p games")
    started = time.perf_counter()
    for g in range(games):
        kinds = ["greedy", "greedy-notrade"] * (players // 2)
        if g % 2:
            kinds.reverse()
        bots = [make_bot(k, f"{seed}/{g}/{i}") for i, k in enumerate(kinds)]
        result = play_game(
            names, bots, f"{seed}-{players}p-{g}", check_invariants=False, record=True
        )
        trades += sum(1 for a in result.log if a.kind == "confirm_trade")
        if result.winner is None:
            unfinished += 1
        elif kinds[names.index(result.winner)] == "greedy":
            trader_wins += 1
        else:
            notrade_wins += 1
        bar.update(g + 1)
    finished = trader_wins + notrade_wins
    share = trader_wins / finished if finished else 0.0
    traders = players // 2
    return {
        "players": players,
        "games": games,
        "unfinished": unfinished,
        "trader_wins": trader_wins,
        "notrade_wins": notrade_wins,
        "traders_share_of_wins": round(share, 4),
        "traders_share_95ci": wilson(trader_wins, finished),
        "win_rate_per_trading_bot": round(share / traders, 4),
        "win_rate_per_notrade_bot": round((1 - share) / traders, 4),
        "no_edge_win_rate": round(1 / players, 4),
        "trades_per_game": round(trades / games, 2),
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.trading", description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games per player count")
    parser.add_argument("--out", default=None, help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    result = {f"{n}p": run(args.games, n) for n in (2, 4)}
    text = json.dumps(result, indent=2, sort_keys=True)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
