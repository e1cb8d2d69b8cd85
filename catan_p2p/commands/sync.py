"""``catan-p2p sync``: fetch, verify and fast-forward, merge answers, push own refs."""

from __future__ import annotations

import argparse
import sys

from catan_p2p.commands._common import open_session, print_json, without_retry_advice
from catan_p2p.commands._options import add_json, add_publish, add_repo, parse_peers
from catan_p2p.errors import CatanError
from catan_p2p.rules.waiting import expecting
from catan_p2p.store import disk


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p sync``."""
    add_repo(parser)
    add_json(parser)
    add_publish(parser, own=False)


def run(args: argparse.Namespace) -> int:
    session = open_session(args.repo, args.game)
    for colour, url in parse_peers(args.peer).items():
        session.add_point(colour, url)
    status = session.sync()
    error = status.error
    if error is not None and not disk.problem(error):  # a disk's sentence says what to do
        error = str(
            without_retry_advice(
                CatanError(error),
                "nothing is lost: your moves stay in this repository until a sync reaches "
                "the remote",
            )
        )
    state = session.state
    if args.json:
        print_json(
            {
                "game": session.game_id,
                "head": session.head,
                "turn": state.turn,
                "expecting": expecting(state),
                "error": error,
                "forks": [str(f) for f in status.forks],
                "waiting": list(status.waiting),
                "points_down": list(status.points_down),
                "rejected": session.rejected,
            }
        )
    else:
        print(
            f"Game {session.game_id} at {session.head[:10]}, turn {state.turn}: {expecting(state)}"
        )
        for oid, reason in session.rejected.items():
            print(f"rejected {oid[:10]}: {reason}", file=sys.stderr)
        for note in status.waiting:
            print(note)
        for note in status.points_down:
            print(note, file=sys.stderr)
        for fork in status.forks:
            print(fork, file=sys.stderr)
        if error:
            print(f"sync error: {error}", file=sys.stderr)
    session.close()
    return 1 if status.error or status.forks or session.rejected else 0
