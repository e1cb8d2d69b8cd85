"""``catan-p2p games [URL]``: the lobby: which games a remote holds, or this machine plays.

With a URL: every game the remote holds, read from ``git ls-remote`` and the newest commit
of each log only (players, open seats, turn, whom it waits for, when they last moved,
the winner), as the remote says: joining or watching verifies a game in full. Without:
the games kept under ~/.catan_p2p/games (or $CATAN_P2P_HOME/games, or the folders
given with --in) and every game repository made, joined or watched here wherever it
lives (``known-games``), and which of them wait for you. With an invitation: its game,
read at every place it names (a seat claimed at any of them is not open).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from catan_p2p import clock
from catan_p2p.commands._options import add_json
from catan_p2p.commands._seats import bot_seats
from catan_p2p.printable import shown
from catan_p2p.protocol.invite import is_invite
from catan_p2p.session.home import known_repos
from catan_p2p.session.lobby import (
    GameSummary,
    games_folder,
    list_invite,
    list_local,
    list_remote,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p games``."""
    parser.add_argument(
        "url",
        nargs="?",
        default=None,
        help="a Git remote games are shared on, or an invitation (default: list the games "
        "on this machine)",
    )
    parser.add_argument(
        "--in",
        dest="folders",
        action="append",
        default=None,
        metavar="PATH",
        help="without URL: a game repository, or a folder of them, to list (repeatable; "
        "default ~/.catan_p2p/games and the games watched, ~/.catan_p2p/watch)",
    )
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    now = int(clock.now())
    if args.url:
        found = list_invite(args.url) if is_invite(args.url) else list_remote(args.url)
        if args.json:
            _print_json(
                {
                    "url": found.url,
                    "games": [g.to_json() for g in found.games],
                    "junk_refs": found.junk_refs,
                    "more": found.more,
                    "seconds": round(found.seconds, 3),
                }
            )
            return 0
        print(
            table(found.games, now, local=False) if found.games else f"{found.url} holds no game."
        )
        if found.junk_refs:
            print(f"({found.junk_refs} refs of no game were skipped)")
        if found.more:
            print(f"(and {found.more} more games not read)")
        if any(g.open_seats for g in found.games) and is_invite(found.url):
            print("Take an open seat with: catan-p2p join INVITE (the line above)")
        elif any(g.open_seats for g in found.games):
            print(f"Take an open seat with: catan-p2p join {found.url} --game ID --as COLOUR")
        if found.games and is_invite(found.url):
            print("Watch it with: catan-p2p watch INVITE")
        elif found.games:
            print(f"Watch one with: catan-p2p watch {found.url} --game ID")
        return 0
    folders = repositories(args.folders)
    bots = {f: _bots_of(f) for f in folders}
    games = list_local(folders, bots)
    if args.json:
        _print_json(
            {
                "games": [g.to_json() for g in games],
                "waiting_for_you": [g.game for g in games if g.mine_waiting],
            }
        )
        return 0
    if not games:
        where = ", ".join(str(f) for f in args.folders or [games_folder()])
        print(f"No games in {where}; start one with `catan-p2p play`.")
        return 0
    print(table(games, now, local=True))
    mine = [g for g in games if g.mine_waiting]
    if mine:
        print(f"{len(mine)} game{'s' * (len(mine) != 1)} wait{'s' * (len(mine) == 1)} for you:")
        for g in mine:
            print(f"  catan-p2p play --resume {g.path} --game {g.game}")
    else:
        print("No game waits for you.")
    return 0


def _print_json(data: dict) -> None:
    """One JSON object on stdout, written at once (a thousand games in one write)."""
    sys.stdout.write(json.dumps(data, sort_keys=True) + "\n")


def _bots_of(folder: Path) -> set[str]:
    """Seats bots play in the repository ``folder`` (of any game; games rarely share one)."""
    git_dir = folder / ".git" if (folder / ".git").is_dir() else folder
    seats = bot_seats(git_dir)
    return set().union(*seats.values()) if seats else set()


def repositories(given: list[str] | None) -> list[Path]:
    """The game repositories to list: each given path, or each repository in a given
    folder (default: the games and watch folders under ``$CATAN_P2P_HOME``)."""
    from catan_p2p.session.watch import watch_folder

    out: list[Path] = []
    default = [games_folder(), watch_folder(), *known_repos()]
    for folder in [Path(p).expanduser() for p in given] if given else default:
        if (folder / ".git").exists() or (folder / "objects").is_dir():
            out.append(folder)
        elif folder.is_dir():
            out.extend(sorted(p for p in folder.iterdir() if p.is_dir()))
    seen: set[Path] = set()
    kept = []
    for path in out:  # a game noted in the registry and kept in the games folder: once
        if path.resolve() not in seen:
            seen.add(path.resolve())
            kept.append(path)
    return kept


def ago(when: int, now: int) -> str:
    """``"3 min ago"``: how long ago the Unix time ``when`` was, as people say it."""
    if when <= 0:
        return "-"
    seconds = max(0, now - when)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return f"{seconds} s ago"


def _names(players: tuple[str, ...] | list[str]) -> str:
    return ", ".join(shown(p.capitalize(), 40) for p in players) or "-"


def table(games: tuple[GameSummary, ...] | list[GameSummary], now: int, local: bool) -> str:
    """The games as a plain-text table, one line each."""
    head = ["game", "players", "open seats", "turn", "waiting for", "last move", "winner"]
    if local:
        head += ["you", "where"]
    rows = [head]
    for g in sorted(games, key=lambda g: g.problem is not None):  # junk last
        if g.problem:
            rows.append([shown(g.game), f"unreadable: {shown(g.problem)}"] + [""] * (len(head) - 2))
            continue
        winner = (
            shown(g.winner.capitalize(), 40) if g.winner else ("abandoned" if g.abandoned else "-")
        )
        waiting = _names(g.waiting_for)
        if local and g.mine_waiting:
            waiting += " (you)"
        row = [
            shown(g.game),
            _names(g.players),
            _names(g.open_seats),
            str(g.turn),
            waiting if not g.is_over else "-",
            ago(g.last_move, now),
            winner,
        ]
        if local:
            row += [_names(g.yours) if g.yours else "watching", shown(g.path or "")]
        rows.append(row)
    plain = [r for r in rows if not r[1].startswith("unreadable")]
    widths = [max(len(r[i]) for r in plain) for i in range(len(head))]
    lines = []
    for r in rows:
        if len(r) == 2 or (r[1].startswith("unreadable") and len(r) > 1 and not r[2]):
            lines.append(f"{r[0]:<{widths[0]}}  {r[1]}")
            continue
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())
    return "\n".join(lines)
