"""Stolen cards stay between robber and robbed: every way to read, forge or misuse one fails.

A 4-player game in memory is played to its end by random bots (they rob, spend and
play monopolies often). Then, for every steal of the game: no tree and no commit
message before it is shown holds the value that picks the card, and the public hands do
not move. Each attack is tried on a state with a pending steal, as any peer checks it:
a proof made with another key or for another steal, a robber spending the card unshown,
a victim spending what might be the lost card, a victim robbed again without showing, a
monopoly without the robbed players' answers, and a merge where robber and robbed both
show one steal.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from catan_p2p.bots import make_bot
from catan_p2p.client.replay import replayed
from catan_p2p.errors import CatanError, IllegalAction, StateFileError
from catan_p2p.net.driver import Driver
from catan_p2p.net.game import LogEntry
from catan_p2p.protocol import concurrent
from catan_p2p.protocol.concurrent import Answer
from catan_p2p.rules.actions import (
    AnswerTrade,
    ConfirmTrade,
    EndTurn,
    GiveCard,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    PlayMonopoly,
    ShowSteal,
)
from catan_p2p.rules.cards import Resource, one
from catan_p2p.rules.invariants import check_invariants
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import NOBODY, Phase, Terms, TradeOffer
from catan_p2p.rules.state import Answer as Reply
from catan_p2p.rules.steals import settle, stolen_resource
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.memory import MemoryRepo
from catan_p2p.store.reading import decode, read_files, read_state
from catan_p2p.trust import poker as cards_deck
from catan_p2p.trust.engine import step
from catan_p2p.trust.views import private_view, stolen_card

FOUR = ("red", "blue", "white", "orange")


@pytest.fixture(scope="module")
def played():
    """A whole 4-player game with seat keys, played to its last deck reveal."""
    repo = MemoryRepo()
    create_game(repo, FOUR, seed="steal-attacks", game_id="g")
    session = GitSession(repo, "g")
    driver = Driver(session, {p: make_bot("random", f"s/{p}") for p in FOUR})
    for _ in range(6000):
        done = driver.step() is None
        if done and session.committed_state.settled:
            break
    assert session.committed_state.settled, "the game did not end"
    return session


def _secret(session, seat: int) -> bytes:
    return session.peers[FOUR[seat]].deck_secret


def _shared(session, steal) -> str:
    return cards_deck.shared_value(_secret(session, steal.mover), steal.answer)


_STATES: dict[int, list] = {}


def _states(session):
    """(commit, state) of every commit of the game, answers included, oldest first.

    Read once per game (about 900 trees: 13 s), then shared by the tests of this module.
    """
    if id(session) not in _STATES:
        store = session.repo.store
        _STATES[id(session)] = [
            (e.commit, read_state(store, session.repo.commit(e.commit).tree, e.commit)[0])
            for e in session.history()
        ]
    return _STATES[id(session)]


def _state_at(session, commit: str):
    return read_state(session.repo.store, session.repo.commit(commit).tree, commit)[0]


def _with_pending(session, case=None, what: str = ""):
    """The first state of the game with a pending steal, on the robber's main phase
    (and, given ``case``, the first where ``case(state)`` holds).

    A search, not a skip: a test whose case the game never shows fails, saying which
    case to look for in another game (``played``'s seed).
    """
    for _, state in _states(session):
        if state.steals and state.phase is Phase.MAIN and state.current == state.steals[0].mover:
            if case is None or case(state):
                return state
    pytest.fail(f"no steal stayed pending into its robber's main phase{what}; play another seed")


def _proof(session, state, seat: int) -> tuple[str, ...]:
    """The honest proofs of ``seat``'s pending steals in ``state``."""
    return tuple(
        cards_deck.exchange(_secret(session, seat), s.other_value(seat))
        for s in state.steals
        if seat in (s.mover, s.victim)
    )


# --- the recorded game ------------------------------------------------------------------------


def test_no_tree_or_message_before_a_steal_is_shown_holds_what_picks_its_card(played):
    session = played
    store = session.repo.store
    steals = shown = 0
    states = dict(_states(session))
    last = None
    for commit, state in states.items():
        c = session.repo.commit(commit)
        blobs = [data for data in read_files(store, c.tree, "test").values()]
        for steal in state.steals:
            value = _shared(session, steal).encode()
            assert value not in c.data, f"{commit[:10]} names a pending steal's value"
            assert not any(value in blob for blob in blobs), f"{commit[:10]}'s tree does"
        parent = _state_at(session, c.parents[0]) if c.parents else None
        if parent is not None and len(c.parents) == 1:
            new = [s for s in state.steals if s not in parent.steals]
            gone = [s for s in parent.steals if s not in state.steals]
            steals += len(new)
            shown += len(gone)
            if new and not gone:  # the steal itself moves no card anyone can see
                assert [h.resources for h in state.hands] == [h.resources for h in parent.hands]
        last = state
    assert steals >= 5, f"only {steals} steals in the game"
    assert last.steals == ()  # every one is read by the end
    assert shown >= steals  # (robber and robbed may both show one in a merge's answers)


def test_robber_and_robbed_read_the_same_card_and_nobody_else_reads_it(played):
    session = played
    state = _with_pending(session)
    steal = state.steals[0]
    by_robber = stolen_card(steal, steal.mover, _secret(session, steal.mover))
    by_victim = stolen_card(steal, steal.victim, _secret(session, steal.victim))
    assert by_robber == by_victim == stolen_resource(steal, _shared(session, steal))
    mine = private_view(state, steal.mover, _secret(session, steal.mover))
    assert mine.hands[steal.mover].resources[by_robber] == (
        state.hands[steal.mover].resources[by_robber] + 1
    )
    assert mine.hands[steal.mover].card_count == state.hands[steal.mover].card_count
    third = next(s for s in range(4) if s not in (steal.mover, steal.victim))
    if not any(third in (s.mover, s.victim) for s in state.steals):
        other = private_view(state, third, _secret(session, third))
        assert other.hands[steal.mover].resources == state.hands[steal.mover].resources
        assert other.hands[steal.victim].resources == state.hands[steal.victim].resources
    check_invariants(state)


# --- attacks on a pending steal ---------------------------------------------------------------


def _needs_card(state, seat: int, r: int):
    """``state`` where ``seat`` holds 3 of ``r`` publicly, so a 4:1 trade needs one more."""
    hand = state.hands[seat]
    have = hand.resources[r]
    moved = 3 - have
    hands = list(state.hands)
    hands[seat] = hand._replace(
        resources=tuple(3 if i == r else n for i, n in enumerate(hand.resources))
    )
    bank = tuple(n - moved if i == r else n for i, n in enumerate(state.bank))
    return state._replace(hands=tuple(hands), bank=bank)


def test_the_robber_cannot_spend_the_card_unshown_nor_show_it_with_another_key(played):
    session = played

    def four_to_one(state) -> bool:  # the robber trades the stolen kind at 4:1
        steal = state.steals[0]
        return (
            state.rate(steal.mover, stolen_card(steal, steal.mover, _secret(session, steal.mover)))
            == 4
        )

    state = _with_pending(session, four_to_one, " with a robber trading the stolen kind at 4:1")
    steal = state.steals[0]
    m = steal.mover
    r = stolen_card(steal, m, _secret(session, m))
    get = next(x for x in range(5) if x != r)
    rigged = _needs_card(state, m, r)._replace(steals=(steal,))
    rigged = rigged._replace(
        hands=tuple(
            h._replace(hidden=(1 if i == m else -1 if i == steal.victim else 0))
            for i, h in enumerate(rigged.hands)
        )
    )
    assert rigged.rate(m, r) == 4
    trade = MaritimeTrade(FOUR[m], Resource(r), Resource(get))
    with pytest.raises(IllegalAction, match="not shown yet"):
        step(rigged, trade)
    honest = _proof(session, rigged, m)
    after = step(rigged, replace(trade, steals=honest))[0]
    assert after.steals == () and after.hands[m].resources[r] == 0
    assert after.hands[m].hidden == 0 and after.hands[steal.victim].hidden == 0
    third = next(s for s in range(4) if s not in (steal.mover, steal.victim))
    forged = (
        # another seat's key, on the right point
        cards_deck.exchange(_secret(session, third), steal.answer),
        # the robber's key on the victim's side of the steal
        cards_deck.exchange(_secret(session, m), steal.token),
        # the right value with another proof's scalars
        honest[0][:64] + cards_deck.exchange(_secret(session, third), steal.answer)[64:],
        "0" * 192,
    )
    for proof in forged:
        with pytest.raises(IllegalAction, match="does not hold"):
            step(rigged, replace(trade, steals=(proof,)))
    for proofs in ((), honest * 2):
        with pytest.raises(IllegalAction, match="all of its"):
            step(rigged, replace(trade, steals=proofs))


def test_a_robbed_player_cannot_spend_what_may_be_its_lost_card(played):
    session = played

    def four_to_one(state) -> bool:  # the robbed player trades its first kind at 4:1
        v = state.steals[0].victim
        kinds = [r for r in range(5) if state.hands[v].resources[r] >= 1]
        return bool(kinds) and state.rate(v, kinds[0]) == 4

    state = _with_pending(session, four_to_one, " with a robbed player trading at 4:1")
    steal = state.steals[0]
    v = steal.victim
    hand = state.hands[v].resources
    kinds = [r for r in range(5) if hand[r] >= 1]
    # Whatever it holds of a kind, it may only count one card less until it shows.
    trade_state = state._replace(phase=Phase.MAIN, current=v, dice=(1, 2), trade=None)
    r = kinds[0]
    rigged = _needs_card(trade_state, v, r)
    rigged = rigged._replace(
        hands=tuple(
            h._replace(
                resources=tuple(4 if (i == v and k == r) else n for k, n in enumerate(h.resources))
            )
            if i == v
            else h
            for i, h in enumerate(rigged.hands)
        ),
        bank=tuple(n - 1 if k == r else n for k, n in enumerate(rigged.bank)),
    )
    assert rigged.rate(v, r) == 4
    get = next(x for x in range(5) if x != r)
    trade = MaritimeTrade(FOUR[v], Resource(r), Resource(get))
    with pytest.raises(IllegalAction, match="not shown yet"):
        step(rigged, trade)
    lost = stolen_card(steal, v, _secret(session, v))
    showing = replace(trade, steals=_proof(session, rigged, v))
    if lost == r:  # shown, the loss leaves three: the trade was never possible
        with pytest.raises(IllegalAction, match="holds only 3$"):
            step(rigged, showing)
    else:
        assert step(rigged, showing)[0].hands[v].resources[r] == 0


def test_a_player_robbed_again_shows_its_last_steal_first(played):
    session = played

    def robbing_again(state) -> list:
        """The robber's moves that rob the same victim again."""
        steal = state.steals[0]
        return [
            a
            for a in legal_actions(state._replace(phase=Phase.MOVE_ROBBER), FOUR[steal.mover])
            if isinstance(a, MoveRobber) and a.victim == FOUR[steal.victim]
        ]

    state = _with_pending(session, robbing_again, " with a tile to rob the same victim from")
    steal = state.steals[0]
    v = steal.victim
    moves = robbing_again(state)
    before = state._replace(phase=Phase.MOVE_ROBBER)
    move = session.peers[FOUR[steal.mover]].with_secrets(moves[0], before)
    waiting = step(before, move)[0]
    bare = session.peers[FOUR[v]].with_secrets(GiveCard(FOUR[v]), waiting)
    with pytest.raises(IllegalAction, match="must show its earlier steals"):
        step(waiting, replace(bare, steals=None))
    robbed = step(waiting, bare)[0]  # the peer shows it on its own
    assert steal not in robbed.steals and len(robbed.steals) == len(state.steals)
    check_invariants(robbed)


def test_a_monopoly_waits_for_every_robbed_player_and_takes_the_true_cards(played):
    session = played

    def monopoly(state):
        """(player, r, waiting): a bystander's plain monopoly of the stolen kind."""
        steal = state.steals[0]
        player = next(
            (s for s in range(4) if all(s not in (x.mover, x.victim) for x in state.steals)),
            None,
        )
        if player is None:
            return None
        r = stolen_card(steal, steal.mover, _secret(session, steal.mover))
        hands = list(state.hands)
        hands[player] = hands[player]._replace(dev_cards=one(4))  # a monopoly card, plain game
        plain = state._replace(current=player, hands=tuple(hands), dev_played=False, deck=None)
        # Without a hidden deck the card comes from the hand; the keys stay for the steals.
        plain = plain._replace(deck=state.deck)
        try:
            waiting = step(plain._replace(deck=None), PlayMonopoly(FOUR[player], Resource(r)))[0]
        except IllegalAction:
            return None
        return player, r, waiting

    state = _with_pending(session, monopoly, " with a plain monopoly to play")
    steal = state.steals[0]
    player, r, waiting = monopoly(state)
    assert waiting.phase is Phase.MONOPOLY and waiting.monopoly == r
    assert concurrent.owed_answers(waiting) == {FOUR[s.victim] for s in state.steals}
    with pytest.raises(IllegalAction, match="to show the cards stolen from them"):
        step(waiting, EndTurn(FOUR[player]))  # nothing else goes on meanwhile
    keyed = waiting._replace(deck=state.deck)
    for s in keyed.steals:
        with pytest.raises(IllegalAction, match="does not hold"):
            step(
                keyed,
                ShowSteal(FOUR[s.victim], cards_deck.exchange(_secret(session, s.mover), s.answer)),
            )
    truth = state
    for s in state.steals:
        truth = settle(truth, s, _shared(session, s))
    expected = sum(h.resources[r] for i, h in enumerate(truth.hands) if i != player)
    after = keyed
    for s in keyed.steals:
        proof = cards_deck.exchange(_secret(session, s.victim), s.token)
        after = step(after, ShowSteal(FOUR[s.victim], proof))[0]
    assert after.phase is not Phase.MONOPOLY and after.monopoly == NOBODY and not after.steals
    assert after.hands[player].resources[r] == truth.hands[player].resources[r] + expected
    assert all(h.resources[r] == 0 for i, h in enumerate(after.hands) if i != player)
    with pytest.raises(IllegalAction, match="robbed in no pending steal"):
        step(keyed._replace(steals=()), ShowSteal(FOUR[steal.victim], "0" * 192))


def test_the_robber_shows_its_own_steals_to_play_a_monopoly(played):
    session = played
    state = _with_pending(session)
    m = state.steals[0].mover
    hands = list(state.hands)
    hands[m] = hands[m]._replace(dev_cards=one(4))
    plain = state._replace(hands=tuple(hands), dev_played=False, deck=None)
    with pytest.raises(IllegalAction, match="shows its pending steals"):
        step(plain, PlayMonopoly(FOUR[m], Resource.ORE))


def _both_answer_an_offer(session):
    """A pending steal, a third seat's trade offer, and the robber's and the robbed
    player's answers to it (each made on the opening, so each shows the steal)."""
    state = _with_pending(session)
    steal = state.steals[0]
    third = next(s for s in range(4) if s not in (steal.mover, steal.victim))
    offer = TradeOffer(one(0), one(1), (Reply.PENDING,) * 4)
    opening = state._replace(phase=Phase.TRADE, current=third, trade=offer)
    answers = [
        Answer(
            FOUR[s], f"{s:040x}", AnswerTrade(FOUR[s], False, steals=_proof(session, opening, s))
        )
        for s in sorted((steal.mover, steal.victim))
    ]
    return steal, opening, answers


def test_robber_and_robbed_both_showing_one_steal_in_a_trade_merge_show_it_once(played):
    steal, opening, answers = _both_answer_an_offer(played)
    for a in answers:
        step(opening, a.action)  # each is legal on its own
    merged = concurrent.with_answers(opening, answers)
    assert steal not in merged.steals
    check_invariants(merged)


def test_an_offer_needing_the_stolen_card_shows_it(played):
    session = played

    def four_to_one(state) -> bool:  # the robber trades the stolen kind at 4:1
        steal = state.steals[0]
        return (
            state.rate(steal.mover, stolen_card(steal, steal.mover, _secret(session, steal.mover)))
            == 4
        )

    state = _with_pending(session, four_to_one, " with a robber trading the stolen kind at 4:1")
    steal = state.steals[0]
    m = steal.mover
    r = stolen_card(steal, m, _secret(session, m))
    give = one(r, state.hands[m].resources[r] + 1)
    get = one((r + 1) % 5)
    offer = OfferTrade(FOUR[m], give, get)
    with pytest.raises(IllegalAction, match="not shown yet"):
        step(state, offer)
    made = session.peers[FOUR[m]].with_secrets(offer, state)
    assert made.steals
    assert step(state, made)[0].phase is Phase.TRADE


# --- a crafted tree ---------------------------------------------------------------------------


def test_a_crafted_pending_steal_in_a_tree_is_refused_in_one_sentence(played):
    session = played
    state = _with_pending(session)
    commit = next(c for c, s in _states(session) if s == state)
    files = read_files(session.repo.store, session.repo.commit(commit).tree, "test")
    text = files["turn.json"].decode()
    steal = state.steals[0]
    for bad in (
        text.replace(steal.answer, "00" * 32),  # not a point
        text.replace(f'"victim": "{FOUR[steal.victim]}"', f'"victim": "{FOUR[steal.mover]}"', 1),
        text.replace(f'"victim": "{FOUR[steal.victim]}"', '"victim": "black"', 1),
    ):
        if bad == text:
            continue
        spoiled = dict(files)
        spoiled["turn.json"] = bad.encode()
        with pytest.raises(StateFileError, match="turn.json"):
            decode(spoiled, "commit x")


def test_log_as_a_player_names_the_cards_of_its_own_steals_only(played):
    from catan_p2p.commands.log import stolen_for

    session = played
    entries = session.history()
    gives = [e for e in entries if e.action.kind == "give_card"]
    seen = {p: stolen_for(session, p, entries) for p in FOUR}
    for e in gives:
        state = _state_at(session, e.commit)
        steal = state.steals[-1]
        knows = {FOUR[steal.mover], FOUR[steal.victim]}
        card = Resource(stolen_resource(steal, _shared(session, steal))).label
        for p in FOUR:
            assert seen[p].get(e.commit) == (card if p in knows else None)


def test_verify_names_each_steal_whose_card_waits_to_be_shown(played):
    from catan_p2p.commands.verify import pending

    session = played
    wanted = _with_pending(session)
    commit = next(c for c, s in _states(session) if s == wanted)
    state = _state_at(session, commit)
    lines = [line for line in pending(session.repo, commit, state) if "stole" in line]
    assert len(lines) == len(state.steals)
    steal = state.steals[0]
    assert f"turn {steal.turn}: the card {FOUR[steal.mover].capitalize()} stole" in lines[0]


def test_a_replay_counts_one_steal_shown_in_two_answers_of_a_merge_once(played):
    """Found by a six-bot game whose replay (the final PNG, the replay window) stopped on
    it while every peer verified it: the log lists a merge's answers one after another,
    each made on the opening, so robber and robbed both show the steal; the replay must
    apply them as the merge does."""
    _, opening, answers = _both_answer_an_offer(played)
    entries = [LogEntry(a.commit, a.player, a.action, "", opening="o" * 40) for a in answers]
    *_, last = replayed(opening, entries)
    assert last == concurrent.with_answers(opening, answers)
    with pytest.raises(CatanError, match="action 2 .* is refused: steal"):
        list(replayed(opening, [replace(e, opening=None) for e in entries]))  # one by one


def test_a_robbed_offerer_shows_its_steal_to_take_a_counter_that_needs_the_card(played):
    """A counter-offer may ask the offerer for more than the offer did: taking it then
    spends what may be the card a pending steal took, so the confirm shows the steal
    first (``confirm_trade`` carries ``steals``), as any move that spends does."""
    session = played

    def victim_holds(state) -> bool:
        return any(state.hands[state.steals[0].victim].resources)

    state = _with_pending(session, victim_holds, " whose robbed player holds a card")
    steal = state.steals[0]
    v = steal.victim
    o = next(s for s in range(4) if s not in (steal.mover, steal.victim))
    r = next(k for k in range(5) if state.hands[v].resources[k])
    g = next(k for k in range(5) if k != r)
    n = state.hands[v].resources[r]
    hands = list(state.hands)
    hands[o] = hands[o]._replace(
        resources=tuple(c + 1 if k == g else c for k, c in enumerate(hands[o].resources))
    )
    # Red offered one card of r; the third seat counters asking for every card of r.
    terms = Terms(tuple(n if k == r else 0 for k in range(5)), one(g))
    answers = tuple(Reply.COUNTER if s == o else Reply.PENDING for s in range(4))
    counters = tuple(terms if s == o else None for s in range(4))
    offer = TradeOffer(one(r), one(g), answers, NOBODY, counters)
    trading = state._replace(
        phase=Phase.TRADE,
        current=v,
        trade=offer,
        hands=tuple(hands),
        bank=tuple(c - 1 if k == g else c for k, c in enumerate(state.bank)),
    )
    confirm = ConfirmTrade(FOUR[v], FOUR[o])
    with pytest.raises(IllegalAction, match="not shown yet"):
        step(trading, confirm)
    showing = replace(confirm, steals=_proof(session, trading, v))
    if stolen_card(steal, v, _secret(session, v)) == r:  # shown, it holds one card too few
        with pytest.raises(IllegalAction, match="cannot take"):
            step(trading, showing)
    else:
        after = step(trading, showing)[0]
        assert after.hands[v].resources[r] == 0 and after.trade is None
        assert steal not in after.steals
