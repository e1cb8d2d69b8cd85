"""``catan-p2p stats``: a game's figures, each recounted from its verified history.

Every commit is verified and the main line replayed through the rules
(``session.review.verified_game``) before anything is counted; only what every player
sees is counted, so hidden cards stay hidden until the game's end shows them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from catan_p2p.commands._common import open_repo, print_json
from catan_p2p.commands._options import add_json, add_repo
from catan_p2p.rules.cards import DEV_CARDS, format_counts
from catan_p2p.rules.stats import SUMS, GameStats
from catan_p2p.session.review import verified_game


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p stats``."""
    add_repo(parser)
    add_json(parser)
    parser.add_argument(
        "--png", default=None, metavar="FILE", help="also draw the statistics screen into FILE"
    )


def format_stats(stats: GameStats) -> str:
    """The figures as lines of text (``catan-p2p stats`` without ``--json``)."""
    lines = []
    if stats.over and stats.winner:
        lines.append(f"{stats.winner.capitalize()} won in {stats.turns} turns.")
    else:
        lines.append(f"The game so far: turn {stats.turns} (hidden cards stay hidden).")
    lines.append(f"The dice, {stats.rolls} rolls (expected by the odds in brackets):")
    peak = max(stats.dice.values(), default=0) or 1
    for total in SUMS:
        n = stats.dice[total]
        bar = "#" * round(30 * n / peak)
        lines.append(f"  {total:>2}: {n:>3} ({stats.expected(total):5.1f})  {bar}")
    for player in stats.players:
        s = stats.per_player[player]
        vp = "" if s.victory_cards is None else f", {s.victory_cards} victory point card(s)"
        played = format_counts(s.dev_played, DEV_CARDS)  # type: ignore[arg-type]
        lines += [
            f"{player.capitalize()}: {s.points} points{vp}",
            f"  produced        {format_counts(s.produced)}",
            f"  from the bank   {format_counts(s.bank_got)} for {format_counts(s.bank_gave)}",
            f"  traded in       {format_counts(s.trade_got)} for {format_counts(s.trade_gave)}",
            f"  discarded       {format_counts(s.discarded)}",
            f"  robber          lost {s.robbed} card(s), stole {s.stole}",
            f"  development     bought {s.dev_bought}, played {played}",
        ]
    points = " ".join(
        f"{p.capitalize()} {'-'.join(str(row[i]) for row in stats.points[::10])}"
        for i, p in enumerate(stats.players)
    )
    lines.append(f"Points every ten turns: {points}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    repo = open_repo(args.repo)
    game = repo.only_game(args.game)
    review = verified_game(repo, game)
    stats = review.stats()
    if args.png:
        from catan_p2p.client.stats_screen import save_png  # pygame only when drawing

        save_png(stats, Path(args.png))
    if args.json:
        print_json({"game": game, "head": review.head, **stats.to_json()})
    else:
        print(format_stats(stats))
        if args.png:
            print(f"Drew the statistics into {args.png}.")
    return 0
