"""``catan-p2p verify``: re-check every commit of a game; exit 1 naming the first bad one."""

from __future__ import annotations

import argparse
import sys

from catan_p2p.commands._common import open_repo, print_json
from catan_p2p.commands._options import add_json, add_repo
from catan_p2p.sync.audit import audit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p verify``."""
    add_repo(parser)
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    repo = open_repo(args.repo)
    game = repo.only_game(args.game)
    report = audit(repo, game)
    if args.json:
        print_json(
            {
                "game": game,
                "ok": report.ok,
                "commits": report.commits,
                "bad_commit": report.bad_commit,
                "problem": report.problem,
                "forks": report.forks,
                "head": report.head,
            }
        )
    elif report.ok:
        state = report.state
        assert state is not None
        print(
            f"Game {game}: all {report.commits} commits verified on {len(report.branches)} branches."
        )
    else:
        if report.problem:
            print(f"Game {game}: bad commit {report.bad_commit}: {report.problem}", file=sys.stderr)
        for fork in report.forks:
            print(f"Game {game}: {fork}", file=sys.stderr)
    return 0 if report.ok else 1
