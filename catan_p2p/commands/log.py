"""``catan-p2p log``: the game as a readable table of actions."""

from __future__ import annotations

import argparse

from catan_p2p.commands._common import open_session, print_json
from catan_p2p.commands._options import add_json, add_repo
from catan_p2p.rules.places import in_words
from catan_p2p.sync.concurrent import is_answer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p log``."""
    parser.add_argument(
        "--chat", action="store_true", help="list the players' chat instead of the actions"
    )
    add_repo(parser)
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    if args.chat:
        from catan_p2p.commands import chat

        args.text = None
        return chat.run(args)
    session = open_session(args.repo, args.game)
    entries = session.history()
    board = session.state.board
    if args.json:
        print_json(
            [
                {
                    "commit": e.commit,
                    "author": e.author,
                    "action": e.action.to_json(),
                    "summary": e.summary,
                    "words": in_words(board, e.summary),
                }
                for e in entries
            ]
        )
        return 0
    print(f"{'#':>5}  {'commit':10}  {'player':8}  action")
    for i, e in enumerate(entries, 1):
        summary = in_words(board, e.summary.split(": ", 1)[-1])
        print(f"{i:>5}  {e.commit[:10]}  {e.author:8}  {summary}")
    print(count_note(entries))
    return 0


def count_note(entries: list) -> str:  # type: ignore[type-arg]
    """What the table counts, so it can be set beside ``verify`` and ``bisect``."""
    answers = sum(1 for e in entries if is_answer(e.action))
    return (
        f"{len(entries)} actions: {len(entries) - answers} on the game's main line and "
        f"{answers} answers (seat claims, discards, trade answers) made on side branches; the genesis "
        "commit and the merges that collect answers are commits, not actions"
    )
