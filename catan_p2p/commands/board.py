"""``catan-p2p board``: generate a board, print it with its balance score, draw it to PNG."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from catan_p2p.boards import FACTORS, BoardScore, Constraints, make_board, score_board
from catan_p2p.commands._options import BOARD_KINDS, add_json
from catan_p2p.errors import UsageError
from catan_p2p.rules.board import Board
from catan_p2p.rules.cards import Terrain
from catan_p2p.rules.hexgrid import format_place

#: One letter per terrain in the text picture (G for fields: grain).
LETTERS: dict[Terrain, str] = {
    Terrain.FOREST: "F",
    Terrain.HILLS: "H",
    Terrain.PASTURE: "P",
    Terrain.FIELDS: "G",
    Terrain.MOUNTAINS: "M",
    Terrain.DESERT: "D",
}
LEGEND = "F forest (lumber)  H hills (brick)  P pasture (wool)  G fields (grain)  M mountains (ore)"


def format_board(board: Board) -> str:
    """The island as rows of hexes, north at the top: a terrain letter and its number."""
    by_row: dict[int, list] = {}
    for t in board.tiles:
        by_row.setdefault(t.tile[1], []).append(t)
    lines = []
    for r in sorted(by_row):
        cells = [
            f"{LETTERS[t.terrain]}{t.number if t.number else '-':>3}"
            for t in sorted(by_row[r], key=lambda t: t.tile[0])
        ]
        lines.append(" " * (3 * abs(r)) + "  ".join(cells))
    return "\n".join(lines)


def format_score(result: BoardScore) -> str:
    """The score and each factor, one line each."""
    lines = [f"balance score {result.score:.3f}  (0 = most balanced, 1 = least)"]
    for name in FACTORS:
        lines.append(f"  {name.replace('_', ' '):<26}{result.factors[name]:.3f}")
    raw = ", ".join(
        f"{k.replace('_', ' ')} {v:g}" if isinstance(v, int) else f"{k.replace('_', ' ')} {v:.3f}"
        for k, v in result.raw.items()
    )
    lines.append(f"  raw: {raw}")
    return "\n".join(lines)


def board_data(board: Board, result: BoardScore) -> dict:
    """The JSON object of ``board --json``."""
    data = board.to_data()
    numbers = Counter(t.number for t in board.tiles if t.number)
    terrain = Counter(t.terrain.label for t in board.tiles)
    ports = Counter(p.label for p in board.ports)
    return {
        **result.to_data(),
        "name": board.name,
        "radius": board.radius,
        "tiles": data["tiles"],
        "numbers": {str(n): numbers[n] for n in sorted(numbers)},
        "terrain": dict(sorted(terrain.items())),
        "ports": [
            {**p, "label": port.label}
            for p, port in zip(data["ports"], sorted(board.ports), strict=True)
        ],
        "port_kinds": dict(sorted(ports.items())),
        "board": data,
    }


#: The names ``--constraints`` takes, and the ``Constraints`` flag each turns on.
CONSTRAINT_NAMES = {"terrain-apart": "terrain_apart", "red-spread": "red_spread"}


def parse_constraints(text: str | None) -> Constraints:
    """``terrain-apart,red-spread`` -> ``Constraints`` (6/8 apart is always on)."""
    flags: dict[str, bool] = {}
    for name in (text or "").split(","):
        name = name.strip()
        if not name:
            continue
        if name not in CONSTRAINT_NAMES:
            known = ", ".join(CONSTRAINT_NAMES)
            raise UsageError(f"unknown constraint {name!r}; choose from {known}")
        flags[CONSTRAINT_NAMES[name]] = True
    return Constraints(**flags)


def _check(args: argparse.Namespace) -> None:
    constraints = getattr(args, "constraints", None)
    if constraints and args.kind != "balanced":
        raise UsageError("--constraints only applies to --kind balanced; add --kind balanced")
    parse_constraints(constraints)
    if args.balance is not None and args.kind != "balanced":
        raise UsageError("--balance only applies to --kind balanced; add --kind balanced")
    if args.balance is not None and not 0.0 <= args.balance <= 1.0:
        raise UsageError(
            f"--balance must be between 0 (fairest) and 1 (wildest), got {args.balance}"
        )
    if not 2 <= args.radius <= 5:
        raise UsageError(
            f"--radius must be between 2 (19 tiles) and 5 (91 tiles), got {args.radius}"
        )
    if not 2 <= args.players <= 6:
        raise UsageError(f"--players must be 2 to 6, got {args.players}")
    if args.players >= 5 and args.radius != 2:
        raise UsageError(
            f"--players {args.players} plays the 5-6 player extension's island; leave --radius out"
        )
    if args.kind == "standard" and args.radius != 2:
        raise UsageError(
            "the standard board has radius 2; use --kind random or balanced "
            f"for radius {args.radius}"
        )
    if args.png is not None and not Path(args.png).parent.is_dir():
        raise UsageError(f"cannot write {args.png}: its folder does not exist")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p board``."""
    parser.add_argument(
        "--kind",
        "--board",
        dest="kind",
        choices=BOARD_KINDS,
        default="standard",
        help="the beginner map, a shuffled one, or a shuffled one scored for fairness",
    )
    parser.add_argument(
        "--balance",
        type=float,
        default=None,
        help="balanced boards: 0 as fair as the search finds .. 1 anything goes",
    )
    parser.add_argument("--radius", type=int, default=2, help="island radius 2..5 (default 2)")
    parser.add_argument(
        "--players",
        type=int,
        default=4,
        help="seats the board is for: 5 or 6 give the 5-6 player extension's 30-tile island",
    )
    parser.add_argument(
        "--seed", default="0", metavar="S", help="the same seed makes the same board (default 0)"
    )
    parser.add_argument("--png", default=None, metavar="FILE", help="draw the board to FILE")
    parser.add_argument(
        "--constraints",
        default=None,
        metavar="LIST",
        help="extra rules a balanced board keeps, comma-separated: terrain-apart, red-spread",
    )
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    try:
        _check(args)
    except UsageError as exc:
        print(f"catan-p2p board: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    constraints = parse_constraints(getattr(args, "constraints", None))
    board = make_board(
        args.kind, args.seed, args.radius, args.balance, constraints, players=args.players
    )
    elapsed = time.perf_counter() - started
    result = score_board(board)
    if args.png is not None:
        from catan_p2p.client.render import save_png  # pygame only when drawing

        save_png(board, args.png)
    if args.json:
        data = board_data(board, result)
        data.update(kind=args.kind, seed=str(args.seed), generation_s=round(elapsed, 4))
        if args.png is not None:
            data["png"] = str(args.png)
        print(json.dumps(data, sort_keys=True))
        return 0
    island = "the 5-6 player island" if args.players >= 5 else f"radius {board.radius}"
    title = f"{args.kind} board, {island}, seed {args.seed}"
    if args.kind == "balanced":
        from catan_p2p.boards import DEFAULT_BALANCE

        target = DEFAULT_BALANCE if args.balance is None else args.balance
        title += f", balance asked {target:g}, constraints: {constraints.describe()}"
    print(title)
    print()
    print(format_board(board))
    print()
    print(LEGEND)
    print("ports: " + ", ".join(f"{p.label} {format_place(p.edge)}" for p in sorted(board.ports)))
    print()
    print(format_score(result))
    print(f"generated in {elapsed * 1000:.0f} ms")
    if args.png is not None:
        print(f"drawn to {args.png}")
    return 0
