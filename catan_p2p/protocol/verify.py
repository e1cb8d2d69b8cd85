"""Verification of incoming commits: the key vouches, the rules decide, the tree id proves.

A commit is accepted only when its bytes are the canonical form of what it records,
its author is the player its action names and that player's seat key signed it, the
action is legal in the parent's state, its chance outcomes are the ones derived
from the seed and the parent id, and applying it gives exactly the commit's tree.
Each peer owns a ``Verifier`` with its own caches, so verification is independent:
apply + serialise + hash, never a trusted read.
"""

from __future__ import annotations

from typing import NoReturn

from catan_p2p.errors import IllegalAction, NotYetValid, StateFileError, VerificationError
from catan_p2p.protocol import concurrent, liveness
from catan_p2p.protocol.concurrent import ANSWER_KINDS
from catan_p2p.protocol.graph import Clock, CommitGraph
from catan_p2p.protocol.liveness import CLOCK_SKEW
from catan_p2p.protocol.message import (
    MergeInfo,
    action_message,
    check_stamp,
    merge_message,
    parse_action,
    parse_merge,
    who,
)
from catan_p2p.protocol.signing import check_signature
from catan_p2p.rules.actions import Abandon, Action
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.state import GameState
from catan_p2p.store.codec import GameInfo, StateWriter
from catan_p2p.store.formats import Commit, HashingStore, player_email
from catan_p2p.trust.engine import step

__all__ = ["ANSWER_KINDS", "CLOCK_SKEW", "Verifier", "check_vouched"]


def check_signer(c: Commit, before: GameState) -> bool:
    """Before any rule runs: a commit by a seated player carries its seat key's signature.

    Cheap, and first, so an unsigned or forged commit costs a peer one signature check,
    not a replay of its action (a shuffle proof takes a tenth of a second). Returns
    whether the signature was checked (a seat claim's key only comes with the claim).
    """
    if c.author not in before.players or not before.seats:
        return False
    key = before.seats[before.players.index(c.author)]
    if not key:
        return False
    if c.signature is None:
        raise VerificationError(
            f"{who(c)} is rejected: it is not signed; every move must carry its player's signature"
        )
    problem = check_signature(key, c.signed_data, c.signature)
    if problem is not None:
        raise VerificationError(
            f"{who(c)} is rejected: it is not signed by {c.author.capitalize()}'s seat key "
            f"({problem})"
        )
    return True


def check_vouched(c: Commit, state: GameState, message: str, signed: bool = False) -> None:
    """The commit is byte-canonical and signed by its author's seat key in ``state``.

    ``state`` is the state the commit produces, so a seat claim is signed by the key it
    claims (proof that its author holds that key), and every other commit by a key
    claimed before it. ``message`` is the canonical message of what it records;
    ``signed``: ``check_signer`` has already checked the signature.
    """
    if c.message != message:
        raise VerificationError(
            f"{who(c)} is rejected: its message is not the canonical text of what it "
            "records (extra spaces, other line ends or extra trailers)"
        )
    if not c.canonical or c.email != player_email(c.author):
        raise VerificationError(
            f"{who(c)} is rejected: its header is not in canonical form (author and "
            "committer must be the player, time zone +0000, nothing else)"
        )
    if signed:
        return
    if c.author not in state.players:  # red team: a stranger's commit is refused, no ValueError
        raise VerificationError(f"{who(c)} is rejected: {c.author!r} holds no seat in this game")
    seat = state.players.index(c.author)
    key = state.seats[seat] if state.seats else ""
    if c.signature is None:
        raise VerificationError(
            f"{who(c)} is rejected: it is not signed; every move must carry its player's signature"
        )
    problem = check_signature(key, c.signed_data, c.signature) if key else "no seat key"
    if problem is not None:
        raise VerificationError(
            f"{who(c)} is rejected: it is not signed by {c.author.capitalize()}'s seat key "
            f"({problem})"
        )


def check_not_ahead(c: Commit, now: float) -> None:
    """No commit is taken before its own time (``CLOCK_SKEW`` allowed).

    Red team: the abandon alone was checked, so a player could date its own move years
    ahead and never be abandoned (an abandon must come ``timeout`` after it). Such a
    commit is refused for now, and taken once its time has come.
    """
    if c.when > now + CLOCK_SKEW:
        raise NotYetValid(
            f"{who(c)} is rejected for now: it is dated in the future "
            f"({c.when - int(now)} s ahead of this clock)"
        )


#: Refused commits a verifier remembers (``Verifier._refuse``), oldest forgotten first.
REFUSED_KEPT = 16384


class Verifier:
    """Verified states of one game for one peer, keyed by commit id."""

    def __init__(
        self,
        repo: CommitGraph,
        info: GameInfo,
        genesis: str | None = None,
        genesis_state: GameState | None = None,
        *,
        clock: Clock,
    ) -> None:
        """A verifier that trusts nothing but ``genesis`` (derived by ``open_genesis``).

        ``clock`` is the verifying peer's: a commit dated further ahead of it than
        ``CLOCK_SKEW`` is refused for now (``check_not_ahead``).
        """
        self.repo = repo
        self.clock = clock
        self.info = info
        self.states: dict[str, GameState] = {}
        self._writer = StateWriter(HashingStore(), info)
        self._pinned: set[str] = set()
        self._refused: dict[str, VerificationError] = {}
        if genesis is not None and genesis_state is not None:
            self.trust(genesis, genesis_state)
            self._pinned.add(genesis)

    def trust(self, oid: str, state: GameState, pin: bool = False) -> None:
        """Record a state this peer produced or verified before (its own branch); a
        pinned one (an earlier process's checkpoint) is never evicted."""
        self.states[oid] = state
        if pin:
            self._pinned.add(oid)

    def tree_of(self, state: GameState) -> str:
        return self._writer.write(state)

    def verify(self, oid: str) -> GameState:
        """The state at ``oid`` after verifying every commit back to a known one.

        Raises:
            VerificationError: the first bad commit, its author and the reason.
        """
        known = self.states.get(oid)
        if known is not None:
            return known
        chain = []
        cur = oid
        while cur not in self.states:
            refused = self._refused.get(cur)
            if refused is not None:
                self._refuse(chain, refused)
            chain.append(cur)
            parents = self.repo.commit(cur).parents
            if not parents:
                self._refuse(
                    chain,
                    VerificationError(
                        f"commit {cur[:10]} is a root this peer does not know: "
                        "it belongs to another game or history was rewritten"
                    ),
                )
            cur = parents[0]
        state = self.states[cur]
        for i in range(len(chain) - 1, -1, -1):
            try:
                state = self._verify_one(self.repo.commit(chain[i]), state)
            except NotYetValid:
                raise  # taken once its time has come: not remembered
            except VerificationError as exc:
                self._refuse(chain[: i + 1], exc)
            self.states[chain[i]] = state
        if len(self.states) > 256:
            for old in list(self.states)[: len(self.states) - 128]:
                if old != oid and old not in self._pinned:
                    del self.states[old]
        return state

    def _refuse(self, chain: list[str], exc: VerificationError) -> NoReturn:
        """Remember that every commit of ``chain`` (newest first, down to the refused
        one) is refused for ``exc``, then raise it.

        Red team: 30,000 unsigned commits on a seat's log on a shared remote were read
        back one by one at every sync (0.6 s of CPU each, ten times that for 300,000)
        while the seat could not restore its branch. A walk now stops at the first
        commit already refused: the head, and a commit every ``len(chain) // 1024``, so
        a head moved on, or a sibling of it, costs a few steps.
        """
        step = max(1, len(chain) // 1024)
        for oid in {*chain[::step], *chain[-1:]}:  # chain[::step] holds the head
            self._refused[oid] = exc
        while len(self._refused) > REFUSED_KEPT:
            del self._refused[next(iter(self._refused))]
        raise exc

    def _check_tree(self, c: Commit, state: GameState) -> None:
        tree = self.tree_of(state)
        if tree != c.tree:
            raise VerificationError(
                f"{who(c)} is rejected: its tree {c.tree[:10]} is not the state its action "
                f"produces ({tree[:10]}); the state files were altered"
            )

    def _apply(self, c: Commit, parent: str, state: GameState, action: Action) -> GameState:
        if c.author != action.player:
            raise VerificationError(
                f"{who(c)} is rejected: it records an action of {action.player.capitalize()}, "
                "and only a player may write their own actions"
            )
        try:
            new, resolved = step(state, action.unresolved(), derive_chance(self.info.seed, parent))
        except IllegalAction as exc:
            raise VerificationError(f"{who(c)} is rejected: illegal action ({exc})") from None
        except Exception as exc:  # noqa: BLE001 - a hostile field the rules did not foresee
            raise VerificationError(
                f"{who(c)} is rejected: its action cannot be applied ({type(exc).__name__}: "
                f"{exc}); a peer wrote a malformed field"
            ) from None
        if resolved != action:
            raise VerificationError(
                f"{who(c)} is rejected: it records {action}, "
                f"but the seed and parent give {resolved}"
            )
        return new

    def _check_waited(self, c: Commit) -> None:
        """An ``abandon`` comes after the game waited the agreed time on its parent.

        Times are the commits' own (canonical, ``+0000``): the parent's author cannot
        backdate it before its own parent's time without every peer seeing it, and an
        abandon dated in the future is refused until then.
        """
        timeout = self.info.timeout
        if not timeout:
            raise VerificationError(
                f"{who(c)} is rejected: this game has no timeout, its players agreed at "
                "`new` to wait for each other"
            )
        parent = self.repo.commit(c.parents[0])
        waited = c.when - liveness.wait_start(self.repo, parent.oid)  # not parent.when: backdating
        if waited < timeout:
            raise VerificationError(
                f"{who(c)} is rejected: it ends the game {waited} s after "
                f"{parent.oid[:10]}, before the {timeout} s the players agreed"
            )
        check_not_ahead(c, self.clock())

    def _verify_one(self, c: Commit, parent_state: GameState) -> GameState:
        try:
            check_stamp(c, self.info.game)
            check_not_ahead(c, self.clock())
            signed = check_signer(c, parent_state)
            if len(c.parents) == 1:
                action = parse_action(c)
                concurrent.check_not_answer(c, action)
                if isinstance(action, Abandon):
                    self._check_waited(c)
                new = self._apply(c, c.parents[0], parent_state, action)
                check_vouched(c, new, action_message(action, self.info.game), signed)
            else:
                new = self._verify_merge(c, parent_state, signed)
        except StateFileError as exc:
            raise VerificationError(f"{who(c)} is rejected: {exc}") from None
        self._check_tree(c, new)
        return new

    def verify_answer(
        self, oid: str, opening: str, kind: str, own: bool = False
    ) -> tuple[Action, GameState]:
        """Check a concurrent answer: one action of its author on top of ``opening``.

        ``own``: an answer this peer wrote on its own branch; its date is not held against
        this clock (which may have gone back since), everything else is checked.
        """
        c = self.repo.commit(oid)
        concurrent.check_answer_place(c, opening)
        check_stamp(c, self.info.game)
        if not own:
            check_not_ahead(c, self.clock())
        action = parse_action(c)
        concurrent.check_answer_kind(c, kind, action)
        opening_state = self.verify(opening)
        concurrent.check_step_open(c, opening, kind, opening_state)
        signed = check_signer(c, opening_state)
        new = self._apply(c, opening, opening_state, action)
        check_vouched(c, new, action_message(action, self.info.game), signed)
        self._check_tree(c, new)
        return action, new

    def _verify_merge(self, c: Commit, opening_state: GameState, signed: bool) -> GameState:
        """A merge of either kind: its kind's own checks, then the one vouching all share
        (canonical bytes, the merger's signature) for the state it produces."""
        info = parse_merge(c)
        if info.kind == liveness.KIND:  # an abandon's line joined with the late moves
            state, answers = self._verify_closing(c, info, opening_state)
        else:
            state, answers = self._verify_step_merge(c, info, opening_state)
        message = merge_message(c.author, info.kind, answers, self.info.game)
        check_vouched(c, state, message, signed)
        return state

    def _verify_closing(
        self, c: Commit, info: MergeInfo, over: GameState
    ) -> tuple[GameState, list[str]]:
        """A closing merge (``protocol.liveness``): it keeps its abandoned line's state
        ``over``; its late line verifies on its own."""
        liveness.check_closing(self.repo, c, info, over)
        self.verify(c.parents[1])
        return over, list(info.answers)

    def _verify_step_merge(
        self, c: Commit, info: MergeInfo, opening_state: GameState
    ) -> tuple[GameState, list[str]]:
        """The merge closing a concurrent step (``protocol.concurrent``): the verified
        answers applied to the opening's state, and their authors."""
        concurrent.check_merger(c, info, opening_state)
        opening = c.parents[0]
        answers = c.parents[1:]
        authors = [self.repo.commit(a).author for a in answers]
        concurrent.check_merge_parents(c, info, authors, opening_state.players)
        state = opening_state
        for a in answers:
            action, _ = self.verify_answer(a, opening, info.kind)
            state = concurrent.combine(c, opening_state, state, a, action)
        concurrent.check_merged(c, info.kind, state)
        return state, authors
