"""``catan-p2p keys``: the seat keys of a game, and this machine's own signing key.

``--allowed-signers FILE`` writes Git's allowed-signers file for the game's seats, so
``git -c gpg.ssh.allowedSignersFile=FILE verify-commit <id>`` (or ``git log
--show-signature``) checks the same signatures the peers check.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from catan_p2p import clock
from catan_p2p.commands._common import open_repo, print_json
from catan_p2p.commands._options import SEAT_COLOURS, add_json, add_repo
from catan_p2p.errors import CatanError, UsageError
from catan_p2p.protocol.audit import seat_keys
from catan_p2p.protocol.signing import allowed_signers
from catan_p2p.session.keys import existing_key, seat_key


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--allowed-signers",
        default=None,
        metavar="FILE",
        help="write Git's allowed-signers file of the game's seats to FILE ('-': stdout)",
    )
    p.add_argument(
        "--mine",
        default=None,
        metavar="PLAYER",
        help="print the public key this machine signs PLAYER's moves with (made on first use)",
    )
    p.add_argument("--key", default=None, metavar="PATH", help="with --mine: an ed25519 key file")
    add_repo(p)
    add_json(p)


def _seats_here(path: str) -> tuple[str, ...]:
    """The seats of every game in the repository at ``path`` (none if it is no game's)."""
    try:
        repo = open_repo(path)
        return tuple(p for game in repo.games() for p in seat_keys(repo, game, clock.now))
    except CatanError:
        return ()


def run(args: argparse.Namespace) -> int:
    if args.mine:
        player = args.mine.lower()
        key = Path(args.key) if args.key else None
        if key is None and existing_key(player) is None:
            seats = _seats_here(args.repo)
            if player not in SEAT_COLOURS and player not in seats:
                known = ", ".join(dict.fromkeys([*SEAT_COLOURS, *seats]))
                raise UsageError(
                    f"{player!r} is no seat colour ({known}) and no seat of a game in "
                    f"{args.repo}; name your seat's colour, or pass --repo with the game"
                )
        if args.json:
            print_json({"player": player, "key": seat_key(player, key).public})
        else:
            print(seat_key(player, key).public)
        return 0
    repo = open_repo(args.repo)
    game = repo.only_game(args.game)
    seats = seat_keys(repo, game, clock.now)
    if args.allowed_signers:
        text = allowed_signers(seats)
        if not text:
            raise UsageError(f"no seat of game {game} is claimed yet; nothing to write")
        if args.allowed_signers == "-":
            print(text, end="")
        else:
            try:
                Path(args.allowed_signers).write_text(text)
            except OSError as exc:
                raise UsageError(
                    f"cannot write {args.allowed_signers} ({exc.strerror}); choose another FILE"
                ) from None
            print(
                f"Wrote {len(seats)} seat keys to {args.allowed_signers}; check a commit with\n"
                f"  git -c gpg.ssh.allowedSignersFile={Path(args.allowed_signers).resolve()} "
                "verify-commit <commit>"
            )
        return 0
    if args.json:
        print_json({"game": game, "seats": seats})
    else:
        for player, key in seats.items():
            print(f"{player:8} {key or '(seat not claimed yet)'}")
    return 0
