"""The commit format of the replicated log (state_schema/PROTOCOL.md is the reference).

Every commit message is a readable summary line, a blank line and one trailer that
carries the machine-readable payload as one-line JSON:

- ``Catan-Genesis: {...}`` on the first commit of a game,
- ``Catan-Action: {...}`` on a commit that records one action,
- ``Catan-Merge: {...}`` on the merge that closes a concurrent step.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from catan_p2p.errors import VerificationError
from catan_p2p.rules.actions import Action
from catan_p2p.store.objects import Commit

GENESIS = "Catan-Genesis"
ACTION = "Catan-Action"
MERGE = "Catan-Merge"
PROTOCOL_VERSION = 1


def player_email(player: str) -> str:
    return f"{player}@catan-p2p"


def action_message(action: Action) -> str:
    return f"{action}\n\n{ACTION}: {action.dumps()}\n"


def genesis_message(game: str, players: tuple[str, ...]) -> str:
    payload = json.dumps(
        {"game": game, "protocol": PROTOCOL_VERSION}, sort_keys=True, separators=(",", ":")
    )
    return f"Genesis: game {game} for {', '.join(players)}\n\n{GENESIS}: {payload}\n"


def merge_message(actor: str, kind: str, answers: list[str]) -> str:
    names = ", ".join(a.capitalize() for a in answers) or "nobody"
    what = "discards" if kind == "discard" else "trade answers"
    payload = json.dumps({"kind": kind, "answers": answers}, sort_keys=True, separators=(",", ":"))
    return f"{actor.capitalize()}: merge {what} of {names}\n\n{MERGE}: {payload}\n"


def trailer(commit: Commit, key: str) -> str | None:
    """The value of trailer ``key`` in a commit message, or None."""
    prefix = key + ": "
    for line in reversed(commit.message.splitlines()):
        if line.startswith(prefix):
            return line[len(prefix) :]
    return None


@dataclass(frozen=True)
class MergeInfo:
    kind: str
    answers: tuple[str, ...]


def parse_action(commit: Commit) -> Action:
    """The action a commit records; ``VerificationError`` when there is none or it is malformed."""
    text = trailer(commit, ACTION)
    if text is None:
        raise VerificationError(
            f"commit {commit.oid[:10]} by {commit.author} carries no {ACTION} trailer"
        )
    try:
        return Action.loads(text)
    except ValueError as exc:
        raise VerificationError(f"commit {commit.oid[:10]} by {commit.author}: {exc}") from None


def parse_merge(commit: Commit) -> MergeInfo:
    text = trailer(commit, MERGE)
    if text is None:
        raise VerificationError(
            f"merge {commit.oid[:10]} by {commit.author} carries no {MERGE} trailer"
        )
    try:
        data = json.loads(text)
        return MergeInfo(str(data["kind"]), tuple(str(a) for a in data["answers"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise VerificationError(
            f"merge {commit.oid[:10]}: malformed {MERGE} trailer ({exc})"
        ) from None
