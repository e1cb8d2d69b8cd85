"""The hidden deck under attack: every way to cheat with a development card is refused.

A 3-player game in memory is played by bots until the player on turn holds a card it
can read. Then each attack is tried on the public state, as any peer would check it:
a card shown as something it is not, another seat's card, a card bought this turn, a
roll that withholds or forges a share, a purchase that names its card, a claim of
victory short of the points, a seat claim with a key its claimer cannot prove, a
malformed shuffle, a dishonest shuffle found at the end, and a wrong deck secret.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from catan_p2p.bots import make_bot
from catan_p2p.errors import IllegalAction, StateFileError, VerificationError
from catan_p2p.net.driver import Driver
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.rules.actions import (
    BuildSettlement,
    BuyDevCard,
    ClaimSeat,
    ClaimVictory,
    PlayKnight,
    PlayMonopoly,
    RevealDeck,
    RollDice,
)
from catan_p2p.rules.cards import DevCard, Resource
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import Phase, new_game
from catan_p2p.rules.waiting import owed_reveal
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.codec import dumps
from catan_p2p.store.memory import MemoryRepo
from catan_p2p.store.reading import decode, read_files
from catan_p2p.trust import poker as cards_deck
from catan_p2p.trust.engine import step
from catan_p2p.trust.views import own_cards, private_view

THREE = ("red", "blue", "white")


def _holding(seed: str, playable: bool = False):
    """(session, seat, pos, card) of the first moment the seat on turn can read its card
    ``pos`` (old enough; with ``playable``, a knight or monopoly), or None if the game
    of ``seed`` ends first."""
    repo = MemoryRepo()
    create_game(repo, THREE, seed=seed, game_id="g")
    session = GitSession(repo, "g")
    driver = Driver(session, {p: make_bot("greedy", f"d/{p}") for p in THREE})
    wanted = (DevCard.KNIGHT, DevCard.MONOPOLY) if playable else tuple(DevCard)
    for _ in range(3000):
        state = session.committed_state
        if state.phase in (Phase.ROLL, Phase.MAIN) and not state.dev_played:
            seat = state.current
            peer = session.peers[state.players[seat]]
            readable = [
                (pos, card)
                for pos, card in own_cards(state, seat, peer.deck_secret)
                if state.deck.bought[pos] < state.turn
                and card is not DevCard.VICTORY_POINT
                and card in wanted
            ]
            if readable:
                return session, seat, *readable[0]
        if driver.step() is None:
            return None
    return None


@pytest.fixture(scope="module")
def holding():
    """(session, seat, pos, card): the seat on turn can read its card ``pos`` (old enough)."""
    found = _holding("deck-attacks")
    if found is None:
        pytest.fail("no player ever held a readable card")
    return found


@pytest.fixture(scope="module")
def playing():
    """Like ``holding``, a card the holder can play: a knight or a monopoly.

    A seed search, not a skip: the first game where a player holds one, failing when
    none of the games does.
    """
    seeds = ("deck-attacks", *(f"deck-attacks-{i}" for i in range(1, 6)))
    for seed in seeds:
        found = _holding(seed, playable=True)
        if found is not None:
            return found
    pytest.fail(f"no player of the games {seeds} ever held a readable knight or monopoly")


def _proof(session, seat: int, pos: int, state=None) -> str:
    state = state or session.committed_state
    peer = session.peers[state.players[seat]]
    return peer._card_proof(state, pos)


def _refused(state, action, match: str) -> None:
    with pytest.raises(IllegalAction, match=match):
        step(state, action)


def _play_as(player: str, card: DevCard, proof: str):
    if card is DevCard.KNIGHT:
        return PlayKnight(player, proof)
    if card is DevCard.MONOPOLY:
        return PlayMonopoly(player, Resource.ORE, proof)
    return None


def test_the_holder_plays_its_card_and_everyone_reads_it(playing):
    session, seat, pos, card = playing
    state = session.committed_state
    play = _play_as(state.players[seat], card, _proof(session, seat, pos))
    after = step(state, play)[0]
    assert after.deck.shown[pos] == card and after.hands[seat].played[card] == 1


def test_a_card_shown_as_another_kind_is_refused(holding):
    session, seat, pos, card = holding
    state = session.committed_state
    other = DevCard.MONOPOLY if card is DevCard.KNIGHT else DevCard.KNIGHT
    play = _play_as(state.players[seat], other, _proof(session, seat, pos))
    _refused(state, play, f"card {pos} is a {card.label}, not a {other.label}")


def test_another_seats_card_or_a_forged_proof_is_refused(holding):
    session, seat, pos, card = holding
    state = session.committed_state
    thief = state.players[(seat + 1) % 3]
    _refused(
        state._replace(current=(seat + 1) % 3),
        PlayKnight(thief, _proof(session, seat, pos)),
        "not one of",
    )
    # The holder's position with a share made by another seat's key.
    other = session.peers[thief]
    forged = f"{pos}:{cards_deck.share(other.deck_secret, state.deck.opened[pos], state.deck.keys[seat])}"
    _refused(state, PlayKnight(state.players[seat], forged), "not made with its deck key")
    # No proof at all, and a malformed one.
    _refused(state, PlayKnight(state.players[seat]), "shows which card it is")
    _refused(state, PlayKnight(state.players[seat], f"0{pos}:{'0' * 192}"), "position:proof")


def test_a_card_bought_this_turn_cannot_be_played(holding):
    session, seat, pos, card = holding
    state = session.committed_state
    bought_now = state.deck._replace(
        bought=tuple(state.turn if p == pos else b for p, b in enumerate(state.deck.bought))
    )
    play = PlayKnight(state.players[seat], _proof(session, seat, pos))
    _refused(state._replace(deck=bought_now), play, "bought this turn")


def test_a_purchase_naming_its_card_is_refused_and_a_draw_reads_nothing(holding):
    session, seat, _, _ = holding
    state = session.committed_state._replace(phase=Phase.MAIN, dice=(2, 3))
    state = state._replace(
        hands=tuple(h._replace(resources=(3, 3, 3, 3, 3)) for h in state.hands),
        bank=(19 - 9,) * 5,
    )
    player = state.players[seat]
    _refused(state, BuyDevCard(player, DevCard.VICTORY_POINT), "drawn face down")
    after = step(state, BuyDevCard(player))[0]
    new = len(after.deck.holders) - 1
    assert after.deck.holders[new] == seat and after.dev_deck == state.dev_deck
    assert new not in [p for p, _ in own_cards(after, seat, session.peers[player].deck_secret)]


def test_a_roll_must_share_every_owed_card_with_its_own_key(holding):
    session, seat, _, _ = holding
    state = session.committed_state
    # The next seat to roll owes shares of the cards bought since its last roll: make one.
    nxt = (seat + 1) % 3
    rich = state._replace(
        phase=Phase.MAIN,
        dice=(2, 3),
        hands=tuple(h._replace(resources=(3, 3, 3, 3, 3)) for h in state.hands),
        bank=(19 - 9,) * 5,
    )
    bought = step(rich, BuyDevCard(state.players[seat]))[0]
    at_roll = bought._replace(current=nxt, phase=Phase.ROLL, dice=None, turn=bought.turn + 1)
    roller = session.peers[state.players[nxt]]
    honest = roller.with_secrets(RollDice(roller.player), at_roll)
    assert honest.shares and step(at_roll, honest)[0].deck.owed_shares(nxt) == []
    _refused(at_roll, replace(honest, shares=honest.shares[:-1]), "share of every card")
    _refused(at_roll, replace(honest, shares=()), "share of every card")
    pos, _, proof = honest.shares[-1].partition(":")
    bad = proof[:64] + ("1" if proof[64] == "0" else "0") + proof[65:]
    forged = (*honest.shares[:-1], f"{pos}:{bad}")
    _refused(at_roll, replace(honest, shares=forged), "not made with its deck key")


def test_victory_needs_the_points_and_real_victory_point_cards(holding):
    session, seat, pos, card = holding
    state = session.committed_state
    player = state.players[seat]
    _refused(state, ClaimVictory(player, (_proof(session, seat, pos),)), "not a victory point")
    _refused(state, ClaimVictory(player, ()), "at least one")


def _key(letter: str) -> str:
    """A seat key made from a secret, as every key of a real game is."""
    return SeatKey.from_seed(letter.encode() * 32).public


def test_a_seat_claim_must_prove_its_deck_key():
    state = new_game(THREE, seated=True)
    secret = b"\x01" * 32
    key = _key("a")
    honest = ClaimSeat(
        "red", key, "0" * 64, cards_deck.public_key(secret), cards_deck.key_proof(secret, key)
    )
    assert step(state, honest)[0].deck.keys[0] == honest.deck
    # A rogue key: the joint key minus the others' would let its claimer read every card;
    # without the secret behind it no proof can be made.
    rogue = replace(honest, deck=cards_deck.public_key(b"\x02" * 32))
    _refused(state, rogue, "proof that its claimer knows it")
    # The proof is bound to the seat's signing key: carried over to a claim with another
    # signing key (another seat, another game) it proves nothing.
    other = _key("b")
    _refused(state, replace(honest, key=other), "proof that its claimer knows it")


def _seated(players: tuple[str, ...], secrets: list[bytes]):
    state = new_game(players, seated=True)
    for p, secret in zip(players, secrets, strict=True):
        key = _key(p[0])
        claim = ClaimSeat(
            p, key, "0" * 64, cards_deck.public_key(secret), cards_deck.key_proof(secret, key)
        )
        state = step(state, claim)[0]
    return state


def _pass(state, seat: int, secret: bytes, before=None):
    """A seat's shuffle of the deck and its proof, made as its peer makes them."""
    deck = state.deck
    before = before or (deck.passes[-1] if deck.passes else cards_deck.first_cards())
    context = cards_deck.shuffle_context(deck.keys, seat)
    return cards_deck.prove_shuffle(before, secret, context)


def test_a_malformed_shuffle_is_refused_at_once():
    secrets = [bytes([i + 1]) * 32 for i in range(3)]
    state = _seated(THREE, secrets)
    first = next(iter(state.board.graph.vertices))
    cards, proof = _pass(state, 0, secrets[0])
    _refused(state, BuildSettlement("red", first), "carries its shuffle")
    _refused(state, BuildSettlement("red", first, cards), "carries its shuffle")
    _refused(state, BuildSettlement("red", first, (cards[0],) * 25, proof), "25 distinct cards")
    _refused(state, BuildSettlement("red", first, cards[:24], proof), "25 distinct cards")
    _refused(state, BuildSettlement("red", first, cards, proof[:-2]), "lower-case hex")
    _refused(state, BuildSettlement("red", first, cards, proof.upper()), "lower-case hex")
    after = step(state, BuildSettlement("red", first, cards, proof))[0]
    assert after.deck.passes == (cards,)


def _after_red(secrets):
    """Three seats claimed and Red's first settlement (with its shuffle) made."""
    state = _seated(THREE, secrets)
    first = next(iter(state.board.graph.vertices))
    state = step(state, BuildSettlement("red", first, *_pass(state, 0, secrets[0])))[0]
    red_road = next(a for a in legal_actions(state, "red"))
    return step(state, red_road)[0]


def _blue_settles(state, cards, proof):
    spot = next(a for a in legal_actions(state, "blue"))
    return replace(spot, deck=cards, proof=proof)


def test_a_shuffle_that_is_not_the_deck_reordered_under_the_seats_key_is_refused():
    """Blue's pass must be Red's, permuted and multiplied by Blue's own deck key."""
    secrets = [bytes([i + 1]) * 32 for i in range(3)]
    state = _after_red(secrets)
    assert state.players[state.current] == "blue"
    honest, proof = _pass(state, 1, secrets[1])
    assert step(state, _blue_settles(state, honest, proof))[0].deck.passes[-1] == honest
    why = "not the previous deck reordered under its own key"
    # The same shuffle under another key (one Blue could later lie about) ...
    other, other_proof = _pass(state, 1, b"\x09" * 32)
    _refused(state, _blue_settles(state, other, other_proof), why)
    # ... one card swapped for one of its own making ...
    forged = (*honest[:24], cards_deck.shuffle(cards_deck.first_cards(), secrets[1])[0])
    _refused(state, _blue_settles(state, forged, proof), why)
    # ... Red's deck passed on unchanged, or merely reordered (Blue would know the order) ...
    red = state.deck.passes[-1]
    _refused(state, _blue_settles(state, red, proof), why)
    _refused(state, _blue_settles(state, (*red[1:], red[0]), proof), why)
    # ... and Red's own proof, made for another seat, replayed.
    first_proof = _pass(_seated(THREE, secrets), 0, secrets[0])[1]
    _refused(state, _blue_settles(state, honest, first_proof), why)


def test_a_shuffle_proof_that_answers_every_round_one_way_is_refused():
    """The cut-and-choose attack: a dishonest pass can only answer one opening per round.

    Blue fixes the pass (the deck where it knows which card is where: Red's, reordered
    in a way it chose) and makes every round answer the first kind of opening; the hash
    of the rounds then asks for the other kind in about half of them.
    """
    secrets = [bytes([i + 1]) * 32 for i in range(3)]
    state = _after_red(secrets)
    red = state.deck.passes[-1]
    key = cards_deck.deck_key(secrets[1])
    rigged = tuple(cards_deck._mul(key, cards_deck._point(c)).hex() for c in reversed(red))
    context = cards_deck.shuffle_context(state.deck.keys, 1)
    for attempt in range(20):
        seeds = [bytes([attempt, i]) * 16 for i in range(cards_deck.SHUFFLE_ROUNDS)]
        h = cards_deck._point(state.deck.keys[1])
        points = tuple(cards_deck._point(c) for c in rigged)
        rounds = []
        for seed in seeds:
            e, perm = cards_deck._round(seed)
            rounds.append(cards_deck._mul(e, h) + b"".join(cards_deck._apply(e, perm, points)))
        digest = cards_deck._rounds_digest(
            tuple(cards_deck._point(c) for c in red), points, h, rounds, context
        )
        proof = digest.hex() + "".join(seed.hex() for seed in seeds)
        _refused(state, _blue_settles(state, rigged, proof), "shuffle")


def test_a_dishonest_shuffle_is_named_when_the_secrets_are_revealed():
    """A tree that skipped the proof (a pass never checked) is still caught at the end."""
    secrets = [b"\x05" * 32, b"\x06" * 32]
    state = _seated(("red", "blue"), secrets)
    honest = cards_deck.shuffle(cards_deck.first_cards(), secrets[0])
    rigged = cards_deck.shuffle(honest, b"\x07" * 32)  # not Blue's key
    deck = state.deck._replace(passes=(honest, rigged))
    over = state._replace(deck=deck, phase=Phase.GAME_OVER, winner=0)
    assert owed_reveal(over) == "red"
    after_red = step(over, RevealDeck("red", secrets[0].hex()))[0]
    _refused(after_red, RevealDeck("blue", secrets[1].hex()), "Blue's shuffle .* dishonest")
    _refused(after_red, RevealDeck("blue", (b"\x09" * 32).hex()), "not the one behind")
    _refused(over, RevealDeck("blue", secrets[1].hex()), "seat order")


def test_the_view_shows_only_the_viewers_own_cards(holding):
    session, seat, pos, card = holding
    state = session.committed_state
    for s, p in enumerate(state.players):
        view = private_view(state, s, session.peers[p].deck_secret)
        assert view.deck is None
        mine = sum(view.hands[s].dev_cards) - sum(state.hands[s].dev_cards)
        assert mine == len(own_cards(state, s, session.peers[p].deck_secret))
        for o in range(3):
            if o != s:  # the others' cards stay hidden (but a steal with them is read)
                assert view.hands[o].dev_cards == state.hands[o].dev_cards
                assert view.hands[o].new_dev_cards == state.hands[o].new_dev_cards
    assert session.view(state.players[seat]).hands[seat].dev_cards[card] >= 1


def test_a_peer_refuses_a_forged_play_commit(holding):
    from gitgames import sign_commit

    session, seat, pos, card = holding
    state = session.committed_state
    other = DevCard.MONOPOLY if card is DevCard.KNIGHT else DevCard.KNIGHT
    player = state.players[seat]
    play = _play_as(player, other, _proof(session, seat, pos))
    tree = session.repo.commit(session.head).tree  # any tree: the rules refuse it first
    oid = sign_commit(session.repo, session.head, player, play, tree, session.keys[player])
    with pytest.raises(VerificationError, match=f"card {pos} is a {card.label}"):
        session.peers[state.players[(seat + 1) % 3]].verifier.verify(oid)


def test_verify_names_each_commit_that_waits_on_a_reveal(holding):
    from catan_p2p.commands.verify import pending

    session, seat, pos, _ = holding
    state = session.committed_state
    lines = pending(session.repo, session.head, state)
    assert not [line for line in lines if "shuffle" in line]  # proved when they arrived
    face_down = [line for line in lines if "face down" in line]
    assert len(face_down) == sum(1 for t in state.deck.shown if t < 0)
    assert any(f"card {pos} is face down" in line for line in face_down)


def test_the_strong_bot_searches_its_own_view_through_steals_and_hidden_cards():
    """A bot decides on its view (no deck, no dice chains): its search resolves a steal
    and a draw the simple way instead of waiting on answers only the session gives."""
    repo = MemoryRepo()
    create_game(repo, THREE, seed="strong-view", game_id="g")
    session = GitSession(repo, "g")
    driver = Driver(session, {p: make_bot("strong", p, think=0.01) for p in THREE})
    steals = 0
    for _ in range(600):
        if driver.step() is None:
            break
        steals += session.history()[-1].action.kind == "give_card"
        if steals and session.state.deck.holders:
            break
    assert steals, "no steal happened in 600 actions"
    view = session.view("red")
    assert view.deck is None and view.reveals == () and view.seats == ()


def _spoiled(session, change) -> str:
    """The committed tree's files with ``change`` applied, read back: one clear refusal."""
    store = session.repo.store
    files = read_files(store, session.repo.commit(session.head).tree, "test")
    change(files)
    with pytest.raises(StateFileError) as refused:
        decode(files, "commit x")
    return str(refused.value)


def _player_file(files, seat_name, change):
    path = f"players/{seat_name}.json"
    data = json.loads(files[path])
    change(data)
    files[path] = dumps(data)


@pytest.mark.parametrize(
    ("what", "match"),
    [
        ("secret-before-the-end", "only after the game"),
        ("bought-in-the-future", "bought after this turn"),
        ("opened-not-a-point", "not a point"),
        ("drawn-before-every-shuffle", "before every seat shuffled"),
        ("one-card-in-two-hands", "drawn twice"),
    ],
)
def test_a_hand_crafted_deck_in_a_tree_is_refused_when_read(holding, what, match):
    """``show`` and ``join`` read trees nobody has verified yet: an inconsistent deck
    must be one sentence naming the file, not an IndexError later in a view."""
    session, seat, pos, _ = holding
    state = session.committed_state
    holder = state.players[seat]
    other = state.players[(seat + 1) % 3]

    def change(files):
        if what == "secret-before-the-end":
            path = f"deck/{holder}.json"
            data = json.loads(files[path])
            data["secret"] = "ab" * 32
            files[path] = dumps(data)
        elif what == "bought-in-the-future":
            _player_file(files, holder, lambda d: d["cards"][0].update(bought=state.turn + 5))
        elif what == "opened-not-a-point":
            _player_file(files, holder, lambda d: d["cards"][0].update(opened="ff" * 32))
        elif what == "drawn-before-every-shuffle":
            last = state.players[-1]
            path = f"deck/{last}.json"
            data = json.loads(files[path])
            del data["shuffle"]
            files[path] = dumps(data)
        else:
            card = json.loads(files[f"players/{holder}.json"])["cards"][0]
            card["shared"] = []  # (else: "shares its own card", refused all the same)
            _player_file(files, other, lambda d: d.setdefault("cards", []).append(card))

    message = _spoiled(session, change)
    assert re.search(match, message), message


@pytest.mark.parametrize("phase", [Phase.DISCARD, Phase.STEAL, Phase.TRADE, Phase.ROAD_BUILDING])
def test_victory_is_claimed_only_in_ones_own_roll_or_main_phase(holding, phase):
    """Mid-step (a robbed player's answer, discards, an open trade, free roads) the
    game waits on something else: a claim then would end it under the others' feet."""
    session, seat, pos, _ = holding
    state = session.committed_state._replace(phase=phase)
    claim = ClaimVictory(state.players[seat], (_proof(session, seat, pos),))
    _refused(state, claim, "cannot claim victory now")


def test_a_shuffle_proof_checks_in_a_process_that_did_not_make_it():
    """The maker skips re-checking its own proofs; everyone else checks them in full."""
    secret = b"\x04" * 32
    keys = (cards_deck.public_key(secret),)
    context = cards_deck.shuffle_context(keys, 0)
    before = cards_deck.first_cards()
    after, proof = cards_deck.prove_shuffle(before, secret, context)
    cards_deck._proved.clear()
    cards_deck.check_shuffle.cache_clear()
    cards_deck.check_shuffle(before, after, keys[0], proof, context)
    assert after == cards_deck.shuffle(before, secret)
    for wrong in (proof[:-1] + ("0" if proof[-1] != "0" else "1"), proof[:64] + proof[64:][::-1]):
        with pytest.raises(ValueError):
            cards_deck.check_shuffle(before, after, keys[0], wrong, context)
    with pytest.raises(ValueError):
        cards_deck.check_shuffle(before, after, keys[0], proof, context + b"x")
