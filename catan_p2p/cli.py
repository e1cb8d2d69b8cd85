"""``catan-p2p``: the one entry point. It parses arguments and hands over to commands/.

Each sub-command lives in ``catan_p2p/commands/<name>.py`` as ``run(args) -> int``.
Errors from the game become one sentence on stderr and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from catan_p2p.bots import ALL_STRATEGIES
from catan_p2p.errors import CatanError

BOARD_KINDS = ("standard", "random", "balanced")


def _add_repo(p: argparse.ArgumentParser, game: bool = True) -> None:
    p.add_argument(
        "--repo", default=".", help="the game's Git repository (default: current directory)"
    )
    if game:
        p.add_argument(
            "--game", default=None, help="game id (default: the only game in the repository)"
        )


def _add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="catan-p2p",
        description="Peer-to-peer Catan whose only infrastructure is Git.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("play", help="play in a window (you against bots by default)")
    p.add_argument("--humans", type=int, default=1, help="human seats in this window (hot-seat)")
    p.add_argument(
        "--bots", type=int, default=None, help="bot seats (default: 3 minus extra humans)"
    )
    p.add_argument("--board", choices=BOARD_KINDS, default="standard")
    p.add_argument("--radius", type=int, default=2, help="island radius 2..5 (random/balanced)")
    p.add_argument("--balance", type=float, default=None, help="balanced boards: 0 fair .. 1 wild")
    p.add_argument("--seed", default=None, help="game seed (default: random)")
    p.add_argument("--repo", default=None, help="where to save the game (default: a new folder)")
    p.add_argument("--remote", default=None, help="shared Git remote URL of a networked game")
    p.add_argument("--game", default=None, help="game id to join on the remote")
    p.add_argument("--as", dest="as_player", default=None, help="your colour in a networked game")
    p.add_argument("--resume", default=None, metavar="PATH", help="continue a saved game")
    p.add_argument("--headless", action="store_true", help="no window: bots take every seat")
    p.add_argument(
        "--opponents",
        default="greedy",
        metavar="LEVEL",
        choices=("easy", "greedy", "strong", *ALL_STRATEGIES),
        help="bot seats: easy, greedy or strong (or a strategy such as catanatron:alphabeta)",
    )

    p = sub.add_parser("new", help="create a game in a repository")
    p.add_argument("--players", required=True, help="comma-separated colours, e.g. red,blue,white")
    p.add_argument("--board", choices=BOARD_KINDS, default="standard")
    p.add_argument("--seed", default=None)
    p.add_argument("--radius", type=int, default=2, help="island radius 2..5 (random/balanced)")
    p.add_argument("--balance", type=float, default=None, help="balanced boards: 0 fair .. 1 wild")
    p.add_argument("--victory-points", type=int, default=10, help="points needed to win")
    p.add_argument("--remote", default=None, help="also push the game to this remote")
    p.add_argument(
        "--as", dest="as_player", default=None, help="your seat when sharing on --remote"
    )
    _add_repo(p, game=False)
    p.add_argument("--game", default=None, help="game id (default: a random one)")

    p = sub.add_parser("join", help="fetch a game from a remote and take a seat")
    p.add_argument("url")
    p.add_argument("--game", required=True)
    p.add_argument("--as", dest="as_player", required=True)
    p.add_argument("--repo", default=".")

    p = sub.add_parser("bot", help="run a bot as a networked peer until the game ends")
    p.add_argument("--as", dest="as_player", required=True)
    p.add_argument("--strategy", choices=ALL_STRATEGIES, default="greedy")
    p.add_argument(
        "--think", type=float, default=None, metavar="SECONDS", help="strong bot: time per decision"
    )
    p.add_argument("--seed", default=None)
    p.add_argument("--poll", type=float, default=0.05, help="seconds between syncs when idle")
    _add_repo(p)

    p = sub.add_parser("sync", help="fetch, verify and fast-forward, then push own refs")
    _add_repo(p)
    _add_json(p)

    p = sub.add_parser("log", help="the game as a table of actions")
    _add_repo(p)
    _add_json(p)

    p = sub.add_parser("show", help="the state at a commit")
    p.add_argument("commit", nargs="?", default=None)
    p.add_argument("--png", default=None, metavar="FILE")
    _add_repo(p)
    _add_json(p)

    p = sub.add_parser("verify", help="re-check every commit of a game")
    _add_repo(p)
    _add_json(p)

    p = sub.add_parser("replay", help="step through a game's history in a window")
    p.add_argument("path", nargs="?", default=None)
    p.add_argument("--export", default=None, metavar="DIR", help="write PNG frames instead")
    _add_repo(p)

    p = sub.add_parser("bisect", help="first commit where a condition holds")
    p.add_argument("--when", required=True, help='e.g. "points(red) >= 8" or "invariant-broken"')
    p.add_argument("--commit", default=None, help="test one commit (for git bisect run)")
    _add_repo(p)
    _add_json(p)

    p = sub.add_parser("board", help="generate, score and draw a board")
    p.add_argument("--kind", choices=BOARD_KINDS, default="standard")
    p.add_argument("--balance", type=float, default=None)
    p.add_argument("--radius", type=int, default=2)
    p.add_argument("--seed", default="0")
    p.add_argument("--png", default=None, metavar="FILE")
    p.add_argument(
        "--constraints",
        default=None,
        metavar="LIST",
        help="extra rules a balanced board keeps, comma-separated: terrain-apart, red-spread",
    )
    _add_json(p)

    p = sub.add_parser("simulate", help="bots play games; invariants checked after every action")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--bots", default="random", help="comma-separated strategies, cycled over seats")
    p.add_argument("--board", choices=BOARD_KINDS, default="standard")
    p.add_argument("--radius", type=int, default=2)
    p.add_argument("--seed", default="0")
    p.add_argument("--git", action="store_true", help="record every action in Git and verify it")
    p.add_argument("--repo", default=None)
    p.add_argument("--no-check", action="store_true", help="skip invariant checks (for speed)")
    p.add_argument(
        "--think", type=float, default=None, metavar="SECONDS", help="strong bot: time per decision"
    )
    _add_json(p)

    p = sub.add_parser("bench", help="storage, diff and latency benchmarks")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--games", type=int, default=None)
    p.add_argument("--out", default="benchmarks/results")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    name = args.command
    try:
        module = importlib.import_module(f"catan_p2p.commands.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"catan_p2p.commands.{name}":
            raise
        print(f"catan-p2p: the {name} command is not built yet in this version.", file=sys.stderr)
        return 2
    try:
        return int(module.run(args) or 0)
    except CatanError as exc:
        print(f"catan-p2p {name}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"catan-p2p {name}: interrupted; everything played so far is saved.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
