"""The commit format of the replicated log (state_schema/PROTOCOL.md is the reference).

Every commit message is a readable summary line, a blank line and one trailer that
carries the machine-readable payload as one-line JSON:

- ``Catan-Genesis: {...}`` on the first commit of a game,
- ``Catan-Action: {...}`` on a commit that records one action,
- ``Catan-Merge: {...}`` on the merge that closes a concurrent step.

Action and merge commits then name their game and protocol version
(``Catan-Game: <game>``, ``Catan-Protocol: 7``), so a commit says what it belongs to
and which rules read it even when it travels alone (a shared remote, a cherry-pick).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from catan_p2p.errors import VerificationError
from catan_p2p.rules.actions import Abandon, Action
from catan_p2p.rules.steps import STEPS
from catan_p2p.store.formats import Commit
from catan_p2p.store.schema import MAX_TIMEOUT

GENESIS = "Catan-Genesis"
ACTION = "Catan-Action"
MERGE = "Catan-Merge"
GAME = "Catan-Game"
PROTOCOL = "Catan-Protocol"
PROTOCOL_VERSION = 7


def _stamp(game: str) -> str:
    return f"{GAME}: {game}\n{PROTOCOL}: {PROTOCOL_VERSION}\n"


def action_message(action: Action, game: str) -> str:
    return f"{action}\n\n{ACTION}: {action.dumps()}\n{_stamp(game)}"


@dataclass(frozen=True)
class GenesisInfo:
    """What a genesis declares; its tree must be the initial state these values give."""

    game: str
    players: tuple[str, ...]
    seed: str
    victory_points: int
    timeout: int = 0  # seconds a silent player may take before the others may end the game

    def payload(self) -> str:
        return json.dumps(
            {
                "game": self.game,
                "players": list(self.players),
                "protocol": PROTOCOL_VERSION,
                "seed": self.seed,
                "victory_points": self.victory_points,
                **({"timeout": self.timeout} if self.timeout else {}),
            },
            sort_keys=True,
            separators=(",", ":"),
        )


def genesis_message(info: GenesisInfo) -> str:
    return (
        f"Genesis: game {info.game} for {', '.join(info.players)}\n\n{GENESIS}: {info.payload()}\n"
    )


def parse_genesis(commit: Commit) -> GenesisInfo:
    """The declared values of a genesis commit whose message is exactly canonical."""
    who = f"genesis {commit.oid[:10]}"
    text = trailer(commit, GENESIS)
    if text is None:
        raise VerificationError(f"{who} carries no {GENESIS} trailer")
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or set(data) - {"timeout"} != {
            "game",
            "players",
            "protocol",
            "seed",
            "victory_points",
        }:
            raise ValueError(
                "it must name game, players, protocol, seed and victory_points (and may "
                "name a timeout)"
            )
        if data["protocol"] != PROTOCOL_VERSION or type(data["protocol"]) is not int:
            raise ValueError(
                f"protocol {data['protocol']!r} is not this catan_p2p's {PROTOCOL_VERSION}; "
                "play it with the release that started it"
            )
        players = data["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ValueError("players must be a list of names")
        if not isinstance(data["game"], str) or not isinstance(data["seed"], str):
            raise ValueError("game and seed must be strings")
        vp = data["victory_points"]
        if type(vp) is not int or not 3 <= vp <= 30:
            raise ValueError("victory_points must be an integer 3..30")
        if len(data["seed"]) > 128:
            raise ValueError("the seed is longer than 128 characters")
        timeout = data.get("timeout", 0)
        if "timeout" in data and (type(timeout) is not int or not 60 <= timeout <= MAX_TIMEOUT):
            raise ValueError(f"timeout must be an integer 60..{MAX_TIMEOUT} (seconds)")
        info = GenesisInfo(data["game"], tuple(players), data["seed"], vp, timeout)
    except (ValueError, TypeError, KeyError) as exc:
        raise VerificationError(
            f"{who} is refused: its {GENESIS} trailer is malformed ({exc})"
        ) from None
    if commit.message != genesis_message(info):
        raise VerificationError(
            f"{who} is refused: its message is not the canonical genesis message"
        )
    return info


ABANDON = "abandon"
"""The kind of the closing merge that joins an absent player's late line (``protocol.liveness``)."""

MERGE_WHAT = {**{s.name: s.merged for s in STEPS}, ABANDON: "the late moves"}
"""What a merge of each kind takes, in its summary line (``rules.steps``, and the closing
merge)."""


def merge_message(actor: str, kind: str, answers: list[str], game: str) -> str:
    names = ", ".join(a.capitalize() for a in answers) or "nobody"
    what = MERGE_WHAT[kind]
    payload = json.dumps({"kind": kind, "answers": answers}, sort_keys=True, separators=(",", ":"))
    return f"{actor.capitalize()}: merge {what} of {names}\n\n{MERGE}: {payload}\n{_stamp(game)}"


def who(commit: Commit) -> str:
    """``commit <id> by <Player>``: how messages name a commit."""
    return f"commit {commit.oid[:10]} by {commit.author.capitalize() or '(nobody)'}"


def trailer(commit: Commit, key: str) -> str | None:
    """The value of trailer ``key`` in a commit message, or None."""
    prefix = key + ": "
    for line in reversed(commit.message.splitlines()):
        if line.startswith(prefix):
            return line[len(prefix) :]
    return None


def is_closing(commit: Commit) -> bool:
    """Whether ``commit`` is a closing merge: two parents, ``Catan-Merge`` of kind
    ``abandon`` (``protocol.liveness``)."""
    return len(commit.parents) == 2 and f'"kind":"{ABANDON}"' in (trailer(commit, MERGE) or "")


def is_abandon(commit: Commit) -> bool:
    """Whether ``commit`` records an ``abandon`` (``rules.actions.Abandon``) on one parent."""
    return (
        len(commit.parents) == 1
        and trailer(commit, ACTION) is not None
        and isinstance(parse_action(commit), Abandon)
    )


def check_stamp(commit: Commit, game: str) -> None:
    """Refuse a commit of another game or of a protocol this peer does not speak."""
    who = f"commit {commit.oid[:10]} by {commit.author}"
    version = trailer(commit, PROTOCOL)
    named = trailer(commit, GAME)
    if version is None or named is None:
        raise VerificationError(
            f"{who} carries no {GAME} and {PROTOCOL} trailers; "
            f"it was not written by a protocol {PROTOCOL_VERSION} peer"
        )
    if not version.isdigit() or int(version) < PROTOCOL_VERSION:
        raise VerificationError(
            f"{who} follows protocol {version!r}, older than this catan_p2p's "
            f"{PROTOCOL_VERSION}; play that game with the release that started it"
        )
    if int(version) > PROTOCOL_VERSION:
        raise VerificationError(
            f"{who} follows protocol {version}, newer than this catan_p2p's "
            f"{PROTOCOL_VERSION}; please upgrade catan_p2p"
        )
    if named != game:
        raise VerificationError(f"{who} belongs to game {named!r}, not to game {game!r}")


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
