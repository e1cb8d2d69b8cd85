"""``catan-p2p abandon``: end a game that a player has kept waiting longer than agreed.

The players agree on the time at ``new --timeout``. Once the game has waited that long
after its newest commit on a player who is not here, any seat played here may end it:
nobody wins an abandoned game, so the rule stops a game and can win none
(state_schema/PROTOCOL.md "Liveness").
"""

from __future__ import annotations

import argparse

from catan_p2p.clock import now
from catan_p2p.commands._common import open_session, print_json
from catan_p2p.commands._options import add_json, add_repo
from catan_p2p.errors import UsageError
from catan_p2p.rules.actions import Abandon
from catan_p2p.rules.waiting import waits_for


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p abandon``."""
    add_repo(parser)
    parser.add_argument(
        "--as",
        dest="as_player",
        default=None,
        metavar="COLOUR",
        help="the seat played here that ends the game (default: the first one)",
    )
    add_json(parser)


def _span(seconds: int) -> str:
    if seconds >= 86400:
        return f"{seconds / 86400:.1f} days"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} hours"
    return f"{max(seconds, 0) // 60} minutes"


def run(args: argparse.Namespace) -> int:
    session = open_session(args.repo, args.game)
    try:
        session.sync()  # the newest moves first: the absent player may be back
        state = session.state
        timeout = session.info.timeout
        game = session.game_id
        if not timeout:
            raise UsageError(
                f"game {game} has no timeout: its players agreed at `new` to wait for each "
                "other, so nobody may end it; ask the others, or start a new game with --timeout"
            )
        if state.is_over:
            raise UsageError(f"game {game} is over already")
        local = set(session.local_players)
        waited_on = [p for p in waits_for(state) if p not in local]
        if not waited_on and state.players[state.current] not in local:
            waited_on = [state.players[state.current]]
        if not waited_on:
            raise UsageError(
                f"game {game} waits on you ({', '.join(sorted(local))}), not on someone absent"
            )
        absent = waited_on[0]
        me = (args.as_player or "").lower() or next(
            (p for p in state.players if p in local and p != absent), ""
        )
        if me not in local or me == absent:
            raise UsageError(f"--as {me or '?'}: end the game as a seat played in this repository")
        since = session.waiting_since()  # as the verifier counts
        waited = int(now()) - since
        if waited < timeout:
            raise UsageError(
                f"game {game} has waited {_span(waited)} on {absent.capitalize()}; the players "
                f"agreed on {_span(timeout)}, so it may be ended in {_span(timeout - waited)}"
            )
        session.submit(Abandon(me, absent))
        session.sync()
        if args.json:
            print_json({"game": game, "absent": absent, "by": me, "waited_s": waited})
            return 0
        print(
            f"Game {game} ended without {absent.capitalize()}, who kept it waiting "
            f"{_span(waited)}. Nobody wins an abandoned game."
        )
    finally:
        session.close()
    return 0
