"""``catan-p2p bisect``: the first commit of a game where a condition holds.

Binary search over the first-parent history, as ``git bisect`` would do it. With
``--commit REV`` it only tests that commit and exits 0 (condition false: good) or 1
(true: bad), so it also works under ``git bisect run``.
"""

from __future__ import annotations

import argparse

from catan_p2p.commands._common import open_repo, open_session, print_json
from catan_p2p.commands._options import add_json, add_repo
from catan_p2p.commands.show import resolve
from catan_p2p.errors import StateFileError
from catan_p2p.rules.places import in_words
from catan_p2p.rules.query import evaluate

MAIN_LINE = (
    "the game's main line (the genesis, each action of the player to move and each merge "
    "of answers; answers themselves sit on side branches)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p bisect``."""
    parser.add_argument(
        "--when",
        required=True,
        metavar="EXPR",
        help='the condition, e.g. "points(red) >= 8" or "invariant-broken"',
    )
    parser.add_argument(
        "--commit",
        default=None,
        metavar="REV",
        help="only test this commit: exit 0 if the condition is false, 1 if true (git bisect run)",
    )
    add_repo(parser)
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    repo = open_repo(args.repo)
    if args.commit:
        oid = resolve(repo, args.commit)
        try:
            state, _ = repo.state_of(oid)
        except StateFileError:
            return 125  # git bisect: cannot test this commit
        holds = evaluate(args.when, state)
        if args.json:
            print_json({"commit": oid, "holds": holds})
        return 1 if holds else 0
    session = open_session(args.repo, args.game, read_only=True)
    line = list(reversed(repo.first_parents(session.head)))
    lo, hi = 0, len(line) - 1
    if not evaluate(args.when, repo.state_of(line[hi])[0]):
        if args.json:
            print_json({"found": False, "condition": args.when, "tested": len(line)})
        else:
            print(f"{args.when!r} never holds in the {len(line)} commits of {MAIN_LINE}.")
        return 1
    tested = 1
    while lo < hi:  # invariant: the condition holds at hi
        mid = (lo + hi) // 2
        tested += 1
        if evaluate(args.when, repo.state_of(line[mid])[0]):
            hi = mid
        else:
            lo = mid + 1
    oid = line[hi]
    c = repo.commit(oid)
    state = repo.state_of(oid)[0]
    if args.json:
        print_json(
            {
                "found": True,
                "commit": oid,
                "index": hi,
                "summary": c.summary,
                "words": in_words(state.board, c.summary),
                "condition": args.when,
                "tested": tested,
            }
        )
    else:
        said = in_words(state.board, c.summary)
        print(f"First commit where {args.when!r} holds: {oid[:10]} (#{hi}) {said}")
        print(f"({tested} states tested of the {len(line)} commits of {MAIN_LINE})")
    return 0
