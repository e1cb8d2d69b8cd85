"""Options several commands share (``--repo``, ``--game``, ``--json``, board kinds).

Each command declares its own options in ``add_arguments(parser)`` beside its
``run(args)``; these helpers keep the shared ones worded alike. Light imports only:
``catan-p2p --help`` builds every command's parser.
"""

from __future__ import annotations

import argparse

# The seat colours the window and ``play`` use; ``keys --mine`` makes a key only for one
# of them or for a seat of a game it is shown.
from catan_p2p.rules.state import SEAT_COLOURS as SEAT_COLOURS

BOARD_KINDS = ("standard", "random", "balanced")


def add_repo(parser: argparse.ArgumentParser, game: bool = True, default: str | None = ".") -> None:
    """``--repo PATH`` (and ``--game ID`` unless ``game`` is False)."""
    where = "the current directory" if default == "." else "see the command's help"
    parser.add_argument(
        "--repo",
        default=default,
        metavar="PATH",
        help=f"the game's Git repository (default: {where})",
    )
    if game:
        add_game(parser)


def add_game(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        default=None,
        metavar="ID",
        help="game id (default: the only game in the repository)",
    )


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def add_board(parser: argparse.ArgumentParser, seed_help: str) -> None:
    """``--board``, ``--radius``, ``--balance`` and ``--seed`` of a new game."""
    parser.add_argument(
        "--board",
        choices=BOARD_KINDS,
        default="standard",
        help="the island: the beginner map, a shuffled one, or a shuffled one scored for fairness "
        "(default: standard)",
    )
    parser.add_argument(
        "--radius", type=int, default=2, help="island radius 2..5, random/balanced boards only"
    )
    parser.add_argument(
        "--balance",
        type=float,
        default=None,
        help="balanced boards: 0 as fair as the search finds .. 1 anything goes",
    )
    parser.add_argument("--seed", default=None, metavar="S", help=seed_help)


def add_key(parser: argparse.ArgumentParser) -> None:
    """``--key PATH``: the ed25519 SSH key a seat is claimed and played with."""
    parser.add_argument(
        "--key",
        default=None,
        metavar="PATH",
        help="your ed25519 SSH key (unencrypted) to claim the seat and sign moves with "
        "(default: one made for the colour under ~/.catan_p2p/keys, or $CATAN_P2P_HOME/keys)",
    )


def add_start(parser: argparse.ArgumentParser) -> None:
    """``--start COMMIT`` of ``join`` and ``watch``: the game its creator named."""
    parser.add_argument(
        "--start",
        metavar="COMMIT",
        help="the game's first commit id, from its creator (`catan-p2p new` prints it): "
        "tells the game from another of the same id that someone put on the remote",
    )


def add_publish(parser: argparse.ArgumentParser, own: bool = True) -> None:
    """``--publish URL`` (the own publication point) and ``--peer COLOUR=URL`` (another's)."""
    if own:
        parser.add_argument(
            "--publish",
            default=None,
            metavar="URL",
            help="a Git repository only you can write (e.g. your own on a forge, which the "
            "others may read): your seat claim names it and you publish your moves there; "
            "`serve` (or serve:PORT) publishes this game's own repository from this machine "
            "over git:// (the window, `bot` and `catan-p2p serve` serve it while they run)",
        )
    parser.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="COLOUR=URL",
        help="where another seat publishes, until its claim says so itself (repeatable)",
    )


def parse_peers(values: list[str]) -> dict[str, str]:
    """``{colour: url}`` of ``--peer COLOUR=URL`` values; ``UsageError`` naming a bad one."""
    from catan_p2p.errors import UsageError

    out = {}
    for value in values:
        colour, sep, url = value.partition("=")
        if not sep or not colour.strip() or not url.strip():
            raise UsageError(f"--peer {value!r} is not COLOUR=URL, e.g. --peer blue=git@host:b.git")
        out[colour.strip().lower()] = url.strip()
    return out


def add_think(parser: argparse.ArgumentParser) -> None:
    """``--think SECONDS``: the strong bot's time per decision."""
    parser.add_argument(
        "--think",
        type=float,
        default=None,
        metavar="SECONDS",
        help="the strong bot's time per decision (default 1 s)",
    )


def add_viewer(parser: argparse.ArgumentParser) -> None:
    """``--as PLAYER``: show what that player may know instead of the public view."""
    parser.add_argument(
        "--as",
        dest="viewer",
        default=None,
        metavar="PLAYER",
        help="show what PLAYER may know (its own face-down development cards too), read "
        "with its key on this machine (default: the public view, what anyone may know)",
    )
    parser.add_argument(
        "--key",
        default=None,
        metavar="PATH",
        help="with --as: the ed25519 SSH key that claimed PLAYER's seat (default: this "
        "machine's key for it)",
    )
