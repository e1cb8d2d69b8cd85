"""``catan-p2p sync``: fetch, verify and fast-forward, merge answers, push own refs."""

from __future__ import annotations

import argparse
import sys

from catan_p2p.commands._common import open_session, print_json
from catan_p2p.rules.engine import expecting


def run(args: argparse.Namespace) -> int:
    session = open_session(args.repo, args.game)
    status = session.sync()
    state = session.state
    if args.json:
        print_json(
            {
                "game": session.game_id,
                "head": session.head,
                "turn": state.turn,
                "expecting": expecting(state),
                "error": status.error,
                "forks": list(status.forks),
                "rejected": session.rejected,
            }
        )
    else:
        print(
            f"Game {session.game_id} at {session.head[:10]}, turn {state.turn}: {expecting(state)}"
        )
        for oid, reason in session.rejected.items():
            print(f"rejected {oid[:10]}: {reason}", file=sys.stderr)
        for fork in status.forks:
            print(fork, file=sys.stderr)
        if status.error:
            print(f"sync error: {status.error}", file=sys.stderr)
    session.close()
    return 1 if status.error or status.forks or session.rejected else 0
