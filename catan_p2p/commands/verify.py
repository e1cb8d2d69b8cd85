"""``catan-p2p verify``: re-check every commit of a game; exit 1 naming the first bad one."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from catan_p2p.commands._common import open_repo, print_json
from catan_p2p.commands._options import add_json, add_repo
from catan_p2p.rules.engine import owed_reveal
from catan_p2p.rules.state import GameState
from catan_p2p.rules.views import pending_cards
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


def pending(state: GameState) -> list[str]:
    """What the verified commits still wait on: hidden parts checked once revealed."""
    deck = state.deck
    if deck is None or state.settled:
        return []
    out = []
    unknown = [p for p, s in zip(state.players, deck.secrets, strict=True) if not s]
    if unknown:
        names = ", ".join(p.capitalize() for p in unknown)
        out.append(
            f"the shuffles of the development cards by {names} are checked when their deck "
            "secrets are revealed after the game"
        )
    face_down = sum(1 for t in deck.shown if t < 0)
    if face_down:
        opening = sum(pending_cards(state, s) for s in range(len(state.players)))
        out.append(
            f"{face_down} face-down development card(s) are checked when shown"
            + (f" ({opening} still waiting for other seats' shares)" if opening else "")
        )
    owed = owed_reveal(state)
    if owed is not None:
        out.append(f"the game is over and waits for {owed.capitalize()}'s deck secret")
    return out


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
                "waiting": pending(report.state) if report.state is not None else [],
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
        waiting = pending(state)
        if waiting:
            print("Verified as far as they can be yet; hidden parts wait on reveals:")
            for line in waiting:
                print(f"  - {line}")
        elif state.deck is not None:
            print("Every secret is revealed: every shuffle and every development card checked.")
    else:
        if report.problem:
            print(f"Game {game}: bad commit {report.bad_commit}: {report.problem}", file=sys.stderr)
        for fork in report.forks:
            print(f"Game {game}: {fork}", file=sys.stderr)
    return 0 if report.ok else 1
