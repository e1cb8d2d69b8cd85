"""Red team: a dishonest seat crafts commits, merges and answers against version 5.

One 3-player game with seat keys and a one-hour timeout is played in memory by bots
until the first steal is merged and still pending (module fixture: a few seconds). On
that real history each attack is written as a cheating peer would write it, with the
cheater's own seat key, and read by a fresh ``Verifier`` that trusts only the honest
commits before it: private steals (``give_card``, ``show``, monopoly), liveness
(``abandon`` and the closing merge) and concurrent answers and merges. Every attack must
be refused with a ``VerificationError`` (or ``IllegalAction`` from the rules) naming
it, never with another exception. An attack the current code lets through is marked
``xfail(strict=True)`` with the hole described.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

import pytest

from catan_p2p import clock
from catan_p2p.bots import make_bot
from catan_p2p.errors import IllegalAction, VerificationError
from catan_p2p.net.driver import Driver
from catan_p2p.protocol import liveness
from catan_p2p.protocol.genesis import open_genesis
from catan_p2p.protocol.message import action_message, merge_message
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.protocol.verify import Verifier
from catan_p2p.rules.actions import (
    Abandon,
    Action,
    AnswerTrade,
    EndTurn,
    GiveCard,
    MoveRobber,
    PlayMonopoly,
    ShowSteal,
)
from catan_p2p.rules.cards import Resource, one
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.state import Answer as Reply
from catan_p2p.rules.state import GameState, Phase, TradeOffer
from catan_p2p.session.git import GitSession
from catan_p2p.session.keys import new_key
from catan_p2p.session.start import create_game
from catan_p2p.store.memory import MemoryRepo
from catan_p2p.store.repo import Repository
from catan_p2p.trust import poker as cards_deck
from catan_p2p.trust.engine import step
from catan_p2p.trust.steals import steal_context

THREE = ("red", "blue", "white")
HOUR = 3600
GENESIS = 1_700_000_000


@dataclass
class Game:
    session: GitSession
    opening: str  # the robber's move_robber: the steal step's opening
    answer: str  # the victim's give_card on it
    merged: str  # the robber's steal merge: the steal is pending from here on
    mover: int
    victim: int

    @property
    def repo(self) -> Repository:
        return self.session.repo

    def state(self, oid: str) -> GameState:
        return self.session.peers["red"].verifier.verify(oid)

    def key(self, seat: int | str) -> SeatKey:
        return self.session.peers[seat if isinstance(seat, str) else THREE[seat]].key

    def secret(self, seat: int) -> bytes:
        return self.session.peers[THREE[seat]].deck_secret

    @property
    def third(self) -> int:
        return next(s for s in range(3) if s not in (self.mover, self.victim))

    def verifier(self, *trusted: str) -> Verifier:
        """A fresh peer's verifier that trusts the genesis and the honest ``trusted``."""
        s = self.session
        v = Verifier(s.repo, s.info, s.genesis, open_genesis(s.repo, s.genesis)[0], clock=clock.now)
        for oid in trusted:
            v.trust(oid, self.state(oid))
        return v

    def write(
        self,
        parents: list[str],
        author: str,
        message: str,
        tree_of: GameState | None = None,
        when: int | None = None,
        key: SeatKey | None = None,
    ) -> str:
        """Any commit, signed by ``author``'s own key unless ``key`` is given; its tree is
        ``tree_of`` (default: the first parent's tree)."""
        tree = (
            self.repo.writer(self.session.info).write(tree_of)
            if tree_of is not None
            else self.repo.commit(parents[0]).tree
        )
        return self.repo.write_commit(
            tree, parents, author, message, key or self.key(author), when=when
        )

    def act(
        self, parent: str, action: Action, when: int | None = None, secrets: bool = True
    ) -> str:
        """``action`` on ``parent`` as its player's peer writes it (legal: exact tree)."""
        state = self.state(parent)
        if secrets:
            action = self.session.peers[action.player].with_secrets(action, state)
        new, resolved = step(state, action, derive_chance(self.session.info.seed, parent))
        return self.write(
            [parent], action.player, action_message(resolved, "g"), tree_of=new, when=when
        )

    def forge(self, parent: str, action: Action, when: int | None = None) -> str:
        """``action`` on ``parent`` as is (the rules would refuse it), the parent's tree."""
        return self.write([parent], action.player, action_message(action, "g"), when=when)


@pytest.fixture(scope="module")
def game() -> Game:
    repo = MemoryRepo()
    create_game(repo, THREE, seed="red-team", game_id="g", timeout=HOUR, when=GENESIS)
    session = GitSession(repo, "g")
    driver = Driver(session, {p: make_bot("random", f"red/{p}") for p in THREE})
    for _ in range(4000):
        driver.step()
        state = session.committed_state
        if state.steals and state.phase in (Phase.MAIN, Phase.ROLL):
            break
    else:
        pytest.fail("the bots' game never robbed anyone")
    for oid in repo.first_parents(session.head):
        c = repo.commit(oid)
        if len(c.parents) == 2 and '"kind":"steal"' in c.message:
            break
    else:
        pytest.fail("no steal merge on the robber's line")
    g = Game(session, c.parents[0], c.parents[1], oid, 0, 0)
    steal = g.state(oid).steals[-1]
    g.mover, g.victim = steal.mover, steal.victim
    return g


def _now(fake_clock, when: float) -> None:
    fake_clock.set(when)


# --- private steals ------------------------------------------------------------------------------


def test_a_give_card_by_a_player_who_was_not_robbed_is_refused(game):
    third = THREE[game.third]
    state = game.state(game.opening)
    answer = cards_deck.token(
        game.secret(game.third), steal_context(state.turn, state.robber, game.third)
    )
    forged = game.forge(game.opening, GiveCard(third, answer))
    with pytest.raises(
        VerificationError, match="rejected: illegal action .*is the one robbed, not"
    ):
        game.verifier(game.opening).verify_answer(forged, game.opening, "steal")


def test_a_give_card_with_a_value_made_for_another_steal_is_refused(game):
    """The victim cannot steer the card: a value for another turn, tile or seat (one it
    could pick among) is not its value for this steal."""
    v = game.victim
    state = game.state(game.opening)
    for context in (
        steal_context(state.turn - 1, state.robber, v),
        steal_context(state.turn, (state.robber + 1) % 19, v),
        steal_context(state.turn, state.robber, game.third),
    ):
        forged = game.forge(
            game.opening, GiveCard(THREE[v], cards_deck.token(game.secret(v), context))
        )
        with pytest.raises(VerificationError, match="answer carries its value for this steal"):
            game.verifier(game.opening).verify_answer(forged, game.opening, "steal")


def test_the_robbers_token_cannot_be_replayed_nor_name_the_card(game):
    """The robber cannot choose the card: naming it, or bringing a token made for another
    steal (another tile or victim) or with another seat's key, is refused."""
    before = game.repo.commit(game.opening).parents[0]
    move = _move(game)
    state = game.state(before)
    tile = state.board.graph.tile_index[move.tile]
    bad_tokens = (
        cards_deck.token(game.secret(game.mover), steal_context(state.turn, tile, game.third)),
        cards_deck.token(game.secret(game.mover), steal_context(state.turn - 1, tile, game.victim)),
        cards_deck.token(game.secret(game.third), steal_context(state.turn, tile, game.victim)),
    )
    for token in bad_tokens:
        forged = game.forge(before, replace(move, token=token))
        with pytest.raises(VerificationError, match="carries its token for this steal"):
            game.verifier(before).verify(forged)
    named = game.forge(before, replace(move, stolen=Resource.ORE))
    with pytest.raises(VerificationError, match="but the seed and parent give"):
        game.verifier(before).verify(named)


def _move(game: Game) -> MoveRobber:
    from catan_p2p.protocol.message import parse_action

    action = parse_action(game.repo.commit(game.opening))
    assert isinstance(action, MoveRobber) and action.token
    return action


def test_a_give_card_on_a_players_log_is_refused(game):
    with pytest.raises(VerificationError, match="concurrent answer"):
        game.verifier(game.opening).verify(game.answer)


def _honest(game: Game, state: GameState, seat: int) -> tuple[str, ...]:
    return tuple(
        cards_deck.exchange(game.secret(seat), s.other_value(seat))
        for s in state.steals
        if seat in (s.mover, s.victim)
    )


def _trade_state(game: Game) -> GameState:
    """The pending steal's state during a trade offer of the third seat, whom both the
    robber and the robbed may answer."""
    state = game.state(game.merged)
    offer = TradeOffer(one(0), one(1), (Reply.PENDING,) * 3)
    return state._replace(phase=Phase.TRADE, current=game.third, trade=offer, dice=(1, 2))


def test_a_proof_of_someone_elses_steal_is_refused(game):
    """A bystander carrying the robber's proof, the robber carrying the victim's, the
    victim carrying the robber's: each proof is checked against its carrier's key."""
    state = _trade_state(game)
    by_robber = _honest(game, state, game.mover)
    by_victim = _honest(game, state, game.victim)
    with pytest.raises(IllegalAction, match="all of its 0 pending steal"):
        step(
            state._replace(current=game.mover),
            AnswerTrade(THREE[game.third], False, steals=by_robber),
        )
    with pytest.raises(IllegalAction, match="does not hold"):
        step(state, AnswerTrade(THREE[game.mover], False, steals=by_victim))
    with pytest.raises(IllegalAction, match="does not hold"):
        step(state, AnswerTrade(THREE[game.victim], False, steals=by_robber))
    # the right shared value with the other party's proof scalars
    mixed = by_victim[0][:64] + by_robber[0][64:]
    with pytest.raises(IllegalAction, match="does not hold"):
        step(state, AnswerTrade(THREE[game.victim], False, steals=(mixed,)))


def test_a_steal_shown_once_cannot_be_shown_again(game):
    state = _trade_state(game)
    shown = step(
        state, AnswerTrade(THREE[game.victim], False, steals=_honest(game, state, game.victim))
    )[0]
    assert game.state(game.merged).steals[-1] not in shown.steals
    again = AnswerTrade(THREE[game.mover], False, steals=_honest(game, state, game.mover))
    with pytest.raises(IllegalAction, match="all of its 0 pending steal"):
        step(shown, again)


def test_an_action_without_a_steals_field_cannot_carry_one(game):
    """``end_turn`` has no ``steals``: a proof written into its JSON is refused when the
    commit is parsed, not silently dropped."""
    end = game.session.peers[THREE[game.mover]].with_secrets(
        EndTurn(THREE[game.mover]), game.state(game.merged)
    )
    proof = _honest(game, game.state(game.merged), game.mover)
    message = action_message(end, "g")
    payload = json.dumps(
        {**json.loads(message.split("Catan-Action: ")[1].split("\n")[0]), "steals": list(proof)},
        sort_keys=True,
        separators=(",", ":"),
    )
    text = message.split("Catan-Action: ")[0] + "Catan-Action: " + payload + "\n"
    text += "\n".join(message.split("Catan-Action: ")[1].split("\n")[1:])
    forged = game.write([game.merged], THREE[game.mover], text)
    with pytest.raises(VerificationError, match="unknown fields: steals"):
        game.verifier(game.merged).verify(forged)


def _monopoly(game: Game) -> GameState:
    """The third seat's monopoly waiting for the robbed player to show its card."""
    state = game.state(game.merged)
    hands = list(state.hands)
    hands[game.third] = hands[game.third]._replace(dev_cards=one(4))
    plain = state._replace(current=game.third, hands=tuple(hands), dev_played=False, deck=None)
    waiting = step(plain, PlayMonopoly(THREE[game.third], Resource.ORE))[0]
    assert waiting.phase is Phase.MONOPOLY
    return waiting._replace(deck=state.deck)


def test_a_monopoly_answer_shows_only_the_answerers_own_steal(game):
    waiting = _monopoly(game)
    steal = waiting.steals[-1]
    robber_proof = cards_deck.exchange(game.secret(game.mover), steal.answer)
    with pytest.raises(IllegalAction, match="robbed in no pending steal"):
        step(waiting, ShowSteal(THREE[game.mover], robber_proof))
    with pytest.raises(IllegalAction, match="robbed in no pending steal"):
        step(waiting, ShowSteal(THREE[game.third], robber_proof))
    with pytest.raises(IllegalAction, match="does not hold"):
        step(waiting, ShowSteal(THREE[game.victim], robber_proof))
    honest = cards_deck.exchange(game.secret(game.victim), steal.token)
    after = step(waiting, ShowSteal(THREE[game.victim], honest))[0]
    assert after.phase is not Phase.MONOPOLY and not after.steals
    with pytest.raises(IllegalAction, match="cannot show a stolen card now"):
        step(after, ShowSteal(THREE[game.victim], honest))  # the same answer twice


def test_a_discard_may_not_spend_what_may_be_the_lost_card(game):
    """A robbed player owing a discard counts one card less of each kind until it shows."""
    state = game.state(game.merged)
    v = game.victim
    hands = list(state.hands)
    hands[v] = hands[v]._replace(resources=(9, 0, 0, 0, 0), hidden=-1)
    rigged = state._replace(
        hands=tuple(hands),
        phase=Phase.DISCARD,
        discards=tuple(4 if s == v else 0 for s in range(3)),
    )
    from catan_p2p.rules.actions import Discard

    # 8 cards: owes 4; lumber is all it holds, so any 4 lumber are surely its own
    step(rigged, Discard(THREE[v], (4, 0, 0, 0, 0)))
    hands[v] = hands[v]._replace(resources=(4, 1, 1, 1, 2))
    rigged = rigged._replace(hands=tuple(hands))
    with pytest.raises(IllegalAction, match="not shown yet"):
        step(rigged, Discard(THREE[v], (0, 1, 1, 1, 1)))  # the brick may be the stolen card


# --- concurrent answers and merges ---------------------------------------------------------------


def _merge(game: Game, parents: list[str], author: str, kind: str, answers, tree_of) -> str:
    """A merge commit as ``author`` could write it: any parents, kind, answers and tree."""
    return game.write(parents, author, merge_message(author, kind, answers, "g"), tree_of=tree_of)


def test_a_steal_merge_by_anyone_but_the_robber_is_refused(game):
    state = game.state(game.merged)
    for author in (THREE[game.victim], THREE[game.third]):
        forged = _merge(
            game, [game.opening, game.answer], author, "steal", [THREE[game.victim]], state
        )
        with pytest.raises(VerificationError, match="only .* may merge answers"):
            game.verifier(game.opening).verify(forged)


def test_a_merge_taking_one_answer_twice_or_naming_others_is_refused(game):
    robber, victim = THREE[game.mover], THREE[game.victim]
    state = game.state(game.merged)
    twice = _merge(
        game, [game.opening, game.answer, game.answer], robber, "steal", [victim, victim], state
    )
    with pytest.raises(VerificationError, match="at most one per player"):
        game.verifier(game.opening).verify(twice)
    named = _merge(game, [game.opening, game.answer], robber, "steal", [THREE[game.third]], state)
    with pytest.raises(VerificationError, match="trailer names"):
        game.verifier(game.opening).verify(named)
    as_discard = _merge(game, [game.opening, game.answer], robber, "discard", [victim], state)
    with pytest.raises(VerificationError, match="a discard branch holds a give_card"):
        game.verifier(game.opening).verify(as_discard)


def test_a_steal_merge_that_reads_the_card_into_the_tree_is_refused(game):
    """The merge's tree is the answers applied, nothing more: a robber who writes the
    card it learnt as moved (public) is refused."""
    state = game.state(game.merged)
    steal = state.steals[-1]
    shared = cards_deck.shared_value(game.secret(game.mover), steal.answer)
    from catan_p2p.rules.steals import settle

    read = settle(state, steal, shared)._replace(steals=state.steals[:-1])
    robber = THREE[game.mover]
    forged = _merge(game, [game.opening, game.answer], robber, "steal", [THREE[game.victim]], read)
    with pytest.raises(VerificationError, match="state files were altered"):
        game.verifier(game.opening).verify(forged)


def test_an_answer_off_another_opening_is_refused(game):
    """The victim's answer written on a later commit (or on the robber's move's parent)
    is not an answer to the opening, and no steal step is open there."""
    victim = THREE[game.victim]
    action = GiveCard.loads(json.dumps(_answer_json(game)))
    before = game.repo.commit(game.opening).parents[0]
    for parent in (before, game.merged):
        forged = game.forge(parent, action)
        with pytest.raises(VerificationError, match="directly on the opening commit"):
            game.verifier(game.opening).verify_answer(forged, game.opening, "steal")
        with pytest.raises(VerificationError, match="no steal step is open"):
            game.verifier(parent).verify_answer(forged, parent, "steal")
    assert action.player == victim


def _answer_json(game: Game) -> dict:
    message = game.repo.commit(game.answer).message
    return json.loads(message.split("Catan-Action: ")[1].split("\n")[0])


# --- liveness: abandon ---------------------------------------------------------------------------


def test_an_abandon_of_a_player_the_game_does_not_wait_on_is_refused(game, fake_clock):
    """At the pending steal the game waits on the robber's move: the robbed player (who
    owes nothing) cannot be abandoned, however long everyone waited."""
    since = game.repo.commit(game.merged).when
    _now(fake_clock, since + 2 * HOUR)
    forged = game.forge(game.merged, Abandon(THREE[game.third], THREE[game.victim]), since + HOUR)
    with pytest.raises(VerificationError, match="does not wait on"):
        game.verifier(game.merged).verify(forged)
    itself = game.forge(game.merged, Abandon(THREE[game.mover], THREE[game.mover]), since + HOUR)
    with pytest.raises(VerificationError, match="waiting on itself"):
        game.verifier(game.merged).verify(itself)


def test_an_abandon_as_a_concurrent_answer_is_refused(game, fake_clock):
    since = game.repo.commit(game.opening).when
    _now(fake_clock, since + 2 * HOUR)
    forged = game.forge(game.opening, Abandon(THREE[game.third], THREE[game.victim]), since + HOUR)
    with pytest.raises(VerificationError, match="a steal branch holds a abandon"):
        game.verifier(game.opening).verify_answer(forged, game.opening, "steal")


def test_an_abandon_after_the_game_ended_is_refused(game, fake_clock):
    """Once abandoned (and while deck secrets are owed) the game is over: nobody may
    abandon again, not even the player whose reveal it waits for."""
    since = game.repo.commit(game.merged).when
    _now(fake_clock, since + 3 * HOUR)
    over = game.act(game.merged, Abandon(THREE[game.victim], THREE[game.mover]), when=since + HOUR)
    game.verifier(game.merged).verify(over)
    again = game.forge(over, Abandon(THREE[game.third], THREE[game.victim]), since + 2 * HOUR + 5)
    with pytest.raises(VerificationError, match="ended without"):
        game.verifier(game.merged).verify(again)
    first = next(p for p in THREE if p != THREE[game.mover])
    revealed = game.act(over, game.session.peers[first].reveal_deck(), when=since + HOUR + 1)
    owed = next(p for p in THREE if p not in (THREE[game.mover], first))
    late = game.forge(revealed, Abandon(first, owed), since + 3 * HOUR)
    with pytest.raises(VerificationError, match="ended without"):
        game.verifier(game.merged).verify(late)


def test_an_abandon_after_a_backdated_move_of_the_abandoner_is_refused(game, fake_clock):
    """The robber ends its turn with a commit dated two hours back, then abandons the
    next player at once: by the commit times the game waited two hours on it. The wait
    must count from the newest time on the line (PROTOCOL.md: a player who backdates
    its own commits shortens the next one's wait only by having kept the game waiting
    that long itself)."""
    robber = THREE[game.mover]
    nxt = THREE[(game.mover + 1) % 3]
    since = game.repo.commit(game.merged).when
    _now(fake_clock, since + 60)
    ended = game.act(game.merged, EndTurn(robber), when=since - 2 * HOUR)
    after = game.verifier(game.merged).verify(ended)
    assert after.players[after.current] == nxt
    forged = game.act(ended, Abandon(robber, nxt), when=since + 60)
    with pytest.raises(VerificationError, match="before the 3600 s the players agreed"):
        game.verifier(game.merged).verify(forged)


def test_a_move_dated_in_the_future_is_refused_for_now(game, fake_clock):
    """A player who dates its own move years ahead could never be abandoned (an abandon
    must come ``timeout`` after it, and no peer takes an abandon dated in its future):
    such a move is refused until its time has come."""
    robber = THREE[game.mover]
    since = game.repo.commit(game.merged).when
    _now(fake_clock, since + 60)
    ahead = game.act(game.merged, EndTurn(robber), when=since + 10 * 365 * 24 * HOUR)
    with pytest.raises(VerificationError, match="dated in the future"):
        game.verifier(game.merged).verify(ahead)
    _now(fake_clock, since + 10 * 365 * 24 * HOUR)
    game.verifier(game.merged).verify(ahead)  # taken once that time has come


# --- liveness: the closing merge -----------------------------------------------------------------


@dataclass
class Lines:
    base: str  # the commit the game waited after (the robber's move is owed)
    over: str  # an abandon of the robber on it
    late: str  # the robber's late move on it
    other: str  # a late move by another player on ``base``... (the robber's own log)


@pytest.fixture
def lines(game, fake_clock) -> Lines:
    since = game.repo.commit(game.merged).when
    _now(fake_clock, since + 2 * HOUR)
    over = game.act(game.merged, Abandon(THREE[game.victim], THREE[game.mover]), when=since + HOUR)
    late = game.act(game.merged, EndTurn(THREE[game.mover]), when=since + HOUR + 10)
    return Lines(game.merged, over, late, "")


def _closing(game: Game, parents: list[str], author: str, answers=None, tree_of=None) -> str:
    absent = THREE[game.mover]
    tree = tree_of if tree_of is not None else game.state(parents[0])
    return _merge(game, parents, author, "abandon", answers or [absent], tree)


def test_an_honest_closing_merge_verifies(game, lines):
    ok = _closing(game, [lines.over, lines.late], THREE[game.victim])
    state = game.verifier(game.merged).verify(ok)
    assert state.abandoned == game.mover and state.is_over
    assert liveness.extends(game.repo, lines.late, ok)


def test_a_closing_merge_by_another_seat_than_the_abandoner_is_refused(game, lines):
    """Only the author of the abandon that wins writes closing merges: two players who
    each closed the same lines at once left two heads no branch could move between."""
    forged = _closing(game, [lines.over, lines.late], THREE[game.third])
    with pytest.raises(VerificationError, match="may write its closing merges"):
        game.verifier(game.merged).verify(forged)


def test_a_closing_merge_by_someone_who_holds_no_seat_is_refused(game, lines):
    """Only a seated player may write it; a stranger's merge (its own key, an author the game
    does not know) is refused as such, not with a crash of the verifier."""
    stranger = new_key()
    forged = game.write(
        [lines.over, lines.late],
        "mallory",
        merge_message("mallory", "abandon", [THREE[game.mover]], "g"),
        tree_of=game.state(lines.over),
        key=stranger,
    )
    with pytest.raises(VerificationError, match="mallory"):
        game.verifier(game.merged).verify(forged)


def test_a_closing_merge_with_another_tree_is_refused(game, lines):
    """The abandon wins: a closing merge that takes the late line's state (the absent
    player's moves) is refused."""
    forged = _closing(
        game, [lines.over, lines.late], THREE[game.victim], tree_of=game.state(lines.late)
    )
    with pytest.raises(VerificationError, match="state files were altered"):
        game.verifier(game.merged).verify(forged)


def test_a_closing_merge_with_its_lines_swapped_or_a_third_is_refused(game, lines):
    author = THREE[game.victim]
    swapped = _closing(game, [lines.late, lines.over], author, tree_of=game.state(lines.over))
    with pytest.raises(VerificationError, match="joins an abandoned game's line"):
        game.verifier(game.merged).verify(swapped)
    three = _closing(game, [lines.over, lines.late, game.answer], author)
    with pytest.raises(VerificationError, match="joins an abandoned game's line and one other"):
        game.verifier(game.merged).verify(three)
    named = _closing(game, [lines.over, lines.late], author, answers=[THREE[game.victim]])
    with pytest.raises(VerificationError, match="no abandoned line"):
        game.verifier(game.merged).verify(named)


def test_a_closing_merge_of_no_late_line_is_refused(game, lines):
    """The second parent must be the absent player's own moves after the commit the game
    was abandoned on: not that commit itself, not an older commit, not another line."""
    author = THREE[game.victim]
    older = game.repo.commit(game.merged).parents[0]
    for second in (lines.base, older, game.answer):
        forged = _closing(game, [lines.over, second], author)
        with pytest.raises(VerificationError, match="neither .*own moves after"):
            game.verifier(game.merged).verify(forged)


def test_a_closing_merge_on_a_game_that_was_not_abandoned_is_refused(game, lines):
    author = THREE[game.victim]
    forged = _closing(game, [lines.late, lines.late], author, tree_of=game.state(lines.late))
    with pytest.raises(VerificationError, match="joins an abandoned game's line"):
        game.verifier(game.merged).verify(forged)


def test_of_two_crossing_abandons_the_earlier_seats_wins(game, fake_clock):
    """On the steal opening the robbed player abandons the robber (the active player may
    always be waited on) and the robber the robbed: each line is the other's late moves.
    Only one closing merge verifies, so the game cannot close on two lines."""
    since = game.repo.commit(game.opening).when
    _now(fake_clock, since + 2 * HOUR)
    robber, victim = THREE[game.mover], THREE[game.victim]
    by_victim = game.act(game.opening, Abandon(victim, robber), when=since + HOUR)
    by_robber = game.act(game.opening, Abandon(robber, victim), when=since + HOUR + 1)
    closed = []
    for over, late, absent in ((by_victim, by_robber, robber), (by_robber, by_victim, victim)):
        by = game.repo.commit(over).author  # the only seat that may close its abandon
        merge = _merge(game, [over, late], by, "abandon", [absent], game.state(over))
        try:
            game.verifier(game.opening).verify(merge)
            closed.append(over)
        except VerificationError as exc:
            assert "later in seat order" in str(exc)
    # Of two abandons on one commit, the one by the player earlier in seat order wins.
    first = min((robber, victim), key=THREE.index)
    assert closed == [by_victim if first == victim else by_robber]
    # A peer that sees both lines writes only that closing merge, whichever it holds.
    for head, other in ((by_victim, by_robber), (by_robber, by_victim)):
        close = liveness.closing(game.repo, game.verifier(game.opening).verify, head, other)
        assert close is not None and close.over == closed[0]
