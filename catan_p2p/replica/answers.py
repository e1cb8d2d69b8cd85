"""The answers of an open concurrent step, as one peer finds them (protocol 5).

Answers sit on temporary branches off the opening commit: this repository's own, and a
copy under each source a fetch brought (``concurrent.answer_prefixes``). Each is
verified against its opening only (a replayed answer under a later opening is checked
again) and the first verified answer of a seat counts. This module also keeps the own
answer branches, to delete once their step is over, and finds the seat claims the
lobby's merge joined.
"""

from __future__ import annotations

from collections.abc import Iterable

from catan_p2p.errors import IllegalAction, NotYetValid, VerificationError
from catan_p2p.protocol import concurrent
from catan_p2p.protocol.concurrent import Answer
from catan_p2p.protocol.message import parse_action
from catan_p2p.replica.peer import Peer
from catan_p2p.replica.rejections import Rejections
from catan_p2p.rules.actions import ClaimSeat
from catan_p2p.store.refnames import fetched, game_prefix, parse_ref, source_of, well_formed
from catan_p2p.store.repo import Repository


class AnswerBook:
    """The verified answers of ``game``'s open step, remembered until refs change.

    ``changed()`` is called whenever refs may have moved (an own write, a fetch).
    """

    def __init__(
        self, repo: Repository, game: str, players: tuple[str, ...], rejections: Rejections
    ) -> None:
        self.repo = repo
        self.game = game
        self.players = players
        self.rejections = rejections
        self._cache: dict[tuple[str, str], Answer | None] = {}  # (answer, opening) -> verdict
        self._version = 0
        self._memo: tuple[tuple[str, int], list[Answer]] | None = None

    def changed(self) -> None:
        self._version += 1

    def made(self, oid: str, opening: str, answer: Answer) -> None:
        """Take ``answer``, which this process just computed and committed as ``oid`` off
        ``opening``, without verifying it again: its proofs and state were made here.
        One read from the repository (found at start, fetched) is always verified."""
        self._cache[oid, opening] = answer
        self.changed()

    def of(self, lead: Peer) -> list[Answer]:
        """Verified answers off ``lead``'s head, in seat order (none while no step is open)."""
        opening = lead.head or lead.genesis
        key = (opening, self._version)
        if self._memo is None or self._memo[0] != key:
            self._memo = (key, self._collect(lead, opening))
        return self._memo[1]

    def _collect(self, lead: Peer, opening: str) -> list[Answer]:
        kind = concurrent.open_kind(lead.state)
        if kind is None:
            return []
        found: dict[str, Answer] = {}
        names = sorted({source_of(r) for r in fetched(self.repo.refs, self.game)} - {None})
        prefixes = concurrent.answer_prefixes(self.game, kind, opening, names)  # type: ignore[arg-type]
        for i, base in enumerate(prefixes):  # the first is this peer's own branches
            for ref, oid in self.repo.refs.list(base).items():
                player = concurrent.answer_owner(ref)
                if player not in found:
                    answer = self._verified(lead, player, oid, opening, kind, own=i == 0)
                    if answer is not None:
                        found[player] = answer
        return concurrent.in_seat_order(found.values(), self.players)

    def _verified(
        self, lead: Peer, player: str, oid: str, opening: str, kind: str, own: bool
    ) -> Answer | None:
        """The answer ``oid`` if it verifies; ``own``: written by this peer on its own
        branch, so counted even when this clock went back past its date (else the seat
        would be asked to answer again, and its branch is taken)."""
        if (oid, opening) not in self._cache:
            try:
                action, _ = lead.verifier.verify_answer(oid, opening, kind, own=own)
                answer = Answer(player, oid, action) if action.player == player else None
            except NotYetValid as exc:  # not cached: it is taken once its time has come
                self.rejections.note(oid, str(exc))
                return None
            except (VerificationError, IllegalAction) as exc:
                self.rejections.note(oid, str(exc))
                answer = None
            self._cache[oid, opening] = answer
        return self._cache[oid, opening]


class OwnBranches:
    """The local seats' temporary answer branches (ref -> opening), found at start."""

    def __init__(self, repo: Repository, game: str, seats: Iterable[str]) -> None:
        self.repo = repo
        self.openings: dict[str, str] = {}
        seats = set(seats)
        for ref in repo.refs.list(game_prefix(game)):
            if well_formed(ref, game):
                owner, kind, opening = parse_ref(ref, game)
                if kind is not None and owner in seats and opening is not None:
                    self.openings[ref] = opening

    def add(self, ref: str, opening: str) -> None:
        self.openings[ref] = opening

    def finish(self, head: str) -> list[str]:
        """The branches whose step is over (their opening is not ``head``), let go.

        The local refs stay until the remotes have lost their copies too
        (``Exchange.delete`` removes them then): a process killed in between finds them
        again at its next start and deletes them then. Deleted first, a SIGKILL at the
        wrong moment left the answer branch on the shared remote for good."""
        done = [ref for ref, opening in self.openings.items() if opening != head]
        for ref in done:
            del self.openings[ref]
        return done


def merged_claims(repo: Repository, head: str) -> list[Answer]:
    """The claims the lobby's merge joined: the merge is the genesis's child on the
    head's first-parent line, and its other parents are the claims."""
    line = repo.first_parents(head)
    if len(line) < 2:
        return []
    merge = repo.commit(line[-2])
    out = []
    for oid in merge.parents[1:]:
        action = parse_action(repo.commit(oid))
        if isinstance(action, ClaimSeat):
            out.append(Answer(action.player, oid, action))
    return out
