"""``catan-p2p verify``: re-check every commit of a game; exit 1 naming the first bad one."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from catan_p2p import clock
from catan_p2p.commands._common import open_repo, print_json
from catan_p2p.commands._options import add_json, add_repo
from catan_p2p.protocol.audit import audit
from catan_p2p.protocol.message import ACTION, parse_action, trailer
from catan_p2p.rules.actions import BuyDevCard
from catan_p2p.rules.state import GameState
from catan_p2p.rules.waiting import expecting, owed_reveal, waits_for
from catan_p2p.store import gitcmd
from catan_p2p.store.repo import Repository
from catan_p2p.trust.views import pending_cards


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p verify``."""
    add_repo(parser)
    add_json(parser)


def count_merges(git_dir: Path, heads: list[str]) -> int:
    """Merge commits reachable from ``heads`` (they close discards and trade offers)."""
    if not heads:
        return 0
    proc = gitcmd.run(git_dir, "rev-list", "--count", "--merges", *heads)
    return int(proc.stdout.strip() or 0) if proc.returncode == 0 else 0


def pending(repo: Repository, head: str, state: GameState) -> list[str]:
    """The verified commits whose hidden part is still to be checked, and what they wait on.

    A card drawn face down is checked when it is shown or at the game's end, and so is
    the card of a steal. (Shuffles are proved when they arrive: nothing about them waits.)
    """
    deck = state.deck
    if deck is not None and state.abandoned >= 0:
        unread = sum(1 for t in deck.shown if t < 0)
        absent = state.players[state.abandoned].capitalize()
        if unread:
            return [
                f"the game was ended without {absent}, whose deck secret never comes: "
                f"{unread} face-down card(s) stay unchecked"
            ]
    if deck is None or state.settled:
        return []
    out = []
    drawn = 0
    for oid in reversed(repo.first_parents(head)):
        c = repo.commit(oid)
        if len(c.parents) != 1 or trailer(c, ACTION) is None:
            continue
        action = parse_action(c)
        if isinstance(action, BuyDevCard):
            if drawn < len(deck.shown) and deck.shown[drawn] < 0:
                opening = pending_cards(state, deck.holders[drawn])
                note = " (not yet open to its holder)" if opening else ""
                out.append(
                    f"{oid[:10]}: {action.player.capitalize()}'s card {drawn} is face down "
                    f"until shown or the game's end{note}"
                )
            drawn += 1
    for steal in state.steals:
        robber, robbed = (state.players[steal.mover], state.players[steal.victim])
        out.append(
            f"turn {steal.turn}: the card {robber.capitalize()} stole from "
            f"{robbed.capitalize()} is known to those two only, until one of them shows it "
            "or the game ends"
        )
    owed = owed_reveal(state)
    if owed is not None:
        out.append(f"the game is over and waits for {owed.capitalize()}'s deck secret")
    return out


def waiting_line(repo: Repository, head: str, state: GameState) -> str | None:
    """Whom the game waits on and since when (its newest commit's time, as its author wrote it)."""
    if state.settled:
        return None
    who = waits_for(state)
    if not who:
        return None
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(repo.commit(head).when))
    names = ", ".join(p.capitalize() for p in who)
    return f"The game waits for {names} ({expecting(state)}) since {when}."


#: At most this many refused refs are named; a remote may hold any number of them.
JUNK_NAMED = 3


def unread(junk: dict[str, str]) -> str | None:
    """One line on the refs beside the game that the ref policy refused (none read)."""
    if not junk:
        return None
    named = "; ".join(why for _, why in sorted(junk.items())[:JUNK_NAMED])
    more = f"; and {len(junk) - JUNK_NAMED} more" if len(junk) > JUNK_NAMED else ""
    return (
        f"Not read: {len(junk)} ref{'s' * (len(junk) != 1)} beside the game that the "
        f"protocol does not take ({named}{more}); the game was verified without them."
    )


def run(args: argparse.Namespace) -> int:
    repo = open_repo(args.repo)
    game = repo.only_game(args.game)
    report = audit(repo, game, clock.now)
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
                "waiting": pending(repo, report.head, report.state) if report.ok else [],
                "waits_for": waits_for(report.state) if report.state is not None else [],
                "junk": len(report.junk),
            }
        )
    elif report.ok:
        state = report.state
        assert state is not None
        merges = count_merges(repo.git_dir, list(report.branches.values()))
        actions = report.commits - 1 - merges
        print(
            f"Game {game}: all {report.commits} commit{'s' * (report.commits != 1)} verified "
            f"on {len(report.branches)} "
            f"branch{'es' * (len(report.branches) != 1)} (the genesis, {actions} "
            f"action{'s' * (actions != 1)} and {merges} "
            f"merge{'s' * (merges != 1)} that collect{'s' * (merges == 1)} seat claims, "
            "discards, steals and trade answers)."
        )
        waiting = pending(repo, report.head, state)
        if waiting:
            print("Verified as far as they can be yet; these hidden parts wait on a reveal:")
            for line in waiting:
                print(f"  - {line}")
        elif state.deck is not None:
            print("Every secret is revealed: every development card is checked.")
        stalled = waiting_line(repo, report.head, state)
        if stalled:
            print(stalled)
        if said := unread(report.junk):
            print(said)
    else:
        if report.problem:
            print(f"Game {game}: bad commit {report.bad_commit}: {report.problem}", file=sys.stderr)
        for fork in report.forks:
            print(f"Game {game}: {fork}", file=sys.stderr)
        if said := unread(report.junk):
            print(said, file=sys.stderr)
    return 0 if report.ok else 1
