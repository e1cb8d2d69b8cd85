"""``catan-p2p verify``: re-check every commit of a game; exit 1 naming the first bad one."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from catan_p2p.commands._common import open_repo, print_json
from catan_p2p.commands._options import add_json, add_repo
from catan_p2p.sync.audit import audit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p verify``."""
    add_repo(parser)
    add_json(parser)


def count_merges(git_dir: Path, heads: list[str]) -> int:
    """Merge commits reachable from ``heads`` (they close discards and trade offers)."""
    if not heads:
        return 0
    proc = subprocess.run(
        ["git", "--git-dir", str(git_dir), "rev-list", "--count", "--merges", *heads],
        capture_output=True,
        text=True,
    )
    return int(proc.stdout.strip() or 0) if proc.returncode == 0 else 0


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
        merges = count_merges(repo.git_dir, list(report.branches.values()))
        print(
            f"Game {game}: all {report.commits} commits verified on {len(report.branches)} "
            f"branches (the genesis, {report.commits - 1 - merges} actions and {merges} merges "
            "that collect seat claims, discards and trade answers)."
        )
    else:
        if report.problem:
            print(f"Game {game}: bad commit {report.bad_commit}: {report.problem}", file=sys.stderr)
        for fork in report.forks:
            print(f"Game {game}: {fork}", file=sys.stderr)
    return 0 if report.ok else 1
