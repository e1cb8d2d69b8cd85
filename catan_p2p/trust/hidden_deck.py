"""The hidden development-card deck of a game with seat keys, as moves carry it.

Every seat shuffles the deck under its own key (its first set-up settlement), a drawn
card is opened to its holder by the other seats' shares (their rolls), a played card
shows its type with a proof, and after the game every secret is revealed and every
card read (``trust.poker`` holds the mental poker these check).
"""

from __future__ import annotations

import re

from catan_p2p.errors import IllegalAction
from catan_p2p.rules.actions import BuildSettlement, BuyDevCard, RevealDeck
from catan_p2p.rules.cards import DEV_CARD_COST, DevCard, add, one, sub
from catan_p2p.rules.common import pay, replaced, seat_name
from catan_p2p.rules.state import GameState
from catan_p2p.rules.steals import settle
from catan_p2p.rules.waiting import owed_reveal
from catan_p2p.trust import poker as cards_deck

_POSITION = re.compile(r"(0|[1-9][0-9]?)")


def take_shuffle(state: GameState, seat: int, a: BuildSettlement) -> GameState:
    """The shuffle a seat's first set-up settlement carries, checked against its key."""
    deck = state.deck
    assert deck is not None
    name = seat_name(state, seat)
    if a.deck is None or a.proof is None:
        raise IllegalAction(
            f"deck: {name}'s first settlement carries its shuffle of the development cards "
            "and the proof that it is one"
        )
    before = cards_deck.pass_before(deck)
    try:
        cards_deck.check_pass(a.deck, deck.size)
        cards_deck.check_shuffle(
            before, a.deck, deck.keys[seat], a.proof, cards_deck.shuffle_context(deck.keys, seat)
        )
    except ValueError as exc:
        raise IllegalAction(
            f"deck: {name}'s shuffle is not the previous deck reordered under its own key ({exc})"
        ) from None
    return state._replace(deck=deck._replace(passes=(*deck.passes, a.deck)))


def card_proof(text: object, what: str) -> tuple[int, str]:
    """``"position:proof"`` split; ``IllegalAction`` when malformed."""
    pos, _, proof = text.partition(":") if isinstance(text, str) else ("", "", "")
    if not _POSITION.fullmatch(pos) or not cards_deck.is_hex(proof, cards_deck.PROOF_HEX):
        raise IllegalAction(
            f"development cards: {what} names a card as position:proof "
            f"(a position and {cards_deck.PROOF_HEX} lower-case hex digits)"
        )
    return int(pos), proof


def checked_share(state: GameState, seat: int, pos: int, proof: str, what: str) -> str:
    """Card ``pos`` with ``seat``'s layer removed, once its proof checks."""
    deck = state.deck
    assert deck is not None
    try:
        return cards_deck.check_share(proof, deck.opened[pos], deck.keys[seat])
    except ValueError as exc:
        raise IllegalAction(
            f"development cards: {seat_name(state, seat)}'s share of card {pos} in {what} is "
            f"not made with its deck key ({exc})"
        ) from None


def take_shares(state: GameState, seat: int, given: tuple[str, ...] | None) -> GameState:
    """The roller opens, with its share, every card other seats drew since its last roll."""
    deck = state.deck
    assert deck is not None
    owed = deck.owed_shares(seat)
    if len(given or ()) != len(owed):
        raise IllegalAction(
            f"development cards: {seat_name(state, seat)}'s roll carries its share of every "
            f"card drawn since its last roll ({len(owed)}, positions {owed})"
        )
    opened, shared = list(deck.opened), list(deck.shared)
    for pos, text in zip(owed, given or (), strict=True):
        at, proof = card_proof(text, "a roll")
        if at != pos:
            raise IllegalAction(
                f"development cards: the roll's shares go in position order ({owed}), not {at}"
            )
        opened[pos] = checked_share(state, seat, pos, proof, "a roll")
        shared[pos] |= 1 << seat
    return state._replace(deck=deck._replace(opened=tuple(opened), shared=tuple(shared)))


def draw_hidden(state: GameState, seat: int, a: BuyDevCard) -> GameState:
    """Pay and take the top card face down: nobody, the buyer included, can read it yet."""
    deck = state.deck
    assert deck is not None
    if a.card is not None:
        raise IllegalAction("development cards: the card is drawn face down; buy without naming it")
    if not deck.left:
        raise IllegalAction("development cards: the deck is empty")
    resources, bank = pay(state, seat, DEV_CARD_COST, "a development card")
    pos = len(deck.holders)
    deck = deck._replace(
        holders=(*deck.holders, seat),
        bought=(*deck.bought, state.turn),
        opened=(*deck.opened, deck.cards[pos]),
        shared=(*deck.shared, 1 << seat),
        shown=(*deck.shown, -1),
    )
    hand = state.hands[seat]._replace(resources=resources)
    return state._replace(hands=replaced(state.hands, seat, hand), bank=bank, deck=deck)


def show_card(
    state: GameState, seat: int, card: DevCard, proof: str | None, what: str
) -> GameState:
    """Turn one of the seat's hidden cards face up, proving it is a ``card``."""
    deck = state.deck
    assert deck is not None
    if proof is None:
        raise IllegalAction(
            f"development cards: to {what}, {seat_name(state, seat)} shows which card it is"
        )
    pos, share_proof = card_proof(proof, what)
    if pos >= len(deck.holders) or deck.holders[pos] != seat or deck.shown[pos] >= 0:
        raise IllegalAction(
            f"development cards: card {pos} is not one of {seat_name(state, seat)}'s hidden cards"
        )
    if card is not DevCard.VICTORY_POINT and deck.bought[pos] == state.turn:
        raise IllegalAction(
            f"development cards: a {card.label} bought this turn cannot be played "
            "until the next turn"
        )
    if deck.shared[pos] != deck.complete(len(state.players)):
        raise IllegalAction(
            f"development cards: card {pos} is not open to its holder yet (every other "
            "seat shares it when it next rolls)"
        )
    found = cards_deck.card_type(checked_share(state, seat, pos, share_proof, what))
    if found is None:
        raise IllegalAction(f"development cards: card {pos} does not open to a card of the deck")
    if found is not card:
        raise IllegalAction(f"development cards: card {pos} is a {found.label}, not a {card.label}")
    deck = deck._replace(shown=replaced(deck.shown, pos, int(card)))
    return state._replace(deck=deck, dev_deck=sub(state.dev_deck, one(card)))


def reveal_deck(state: GameState, seat: int, a: RevealDeck) -> GameState:
    """Check the seat's key and shuffle from its secret; the last reveal opens every card."""
    deck = state.deck
    assert deck is not None
    if owed_reveal(state) != state.players[seat]:
        raise IllegalAction(
            f"deck: secrets are revealed in seat order; the game waits for "
            f"{(owed_reveal(state) or 'nobody').capitalize()}"
        )
    text = a.secret
    if len(text) != 64 or text != text.lower() or any(c not in "0123456789abcdef" for c in text):
        raise IllegalAction("deck: a deck secret is 64 lower-case hex digits")
    secret = bytes.fromhex(text)
    name = seat_name(state, seat)
    if not cards_deck.secret_matches(secret, deck.keys[seat]):
        raise IllegalAction(f"deck: that secret is not the one behind {name}'s deck key")
    if seat < len(deck.passes):  # (a game abandoned in its lobby has no shuffles)
        before = deck.passes[seat - 1] if seat else cards_deck.first_cards(deck.size)
        if cards_deck.shuffle(before, secret) != deck.passes[seat]:
            raise IllegalAction(f"deck: {name}'s shuffle of the development cards was dishonest")
    deck = deck._replace(secrets=replaced(deck.secrets, seat, text))
    state = state._replace(deck=deck)
    if "" not in deck.secrets:  # an abandoned game stays closed: one layer is missing
        state = open_all(state)
    return state


def open_all(state: GameState) -> GameState:
    """Every secret is known: every drawn card is read, and held cards are shown."""
    deck = state.deck
    assert deck is not None
    secrets = [bytes.fromhex(x) for x in deck.secrets]
    shown = list(deck.shown)
    hands = list(state.hands)
    dev_deck = state.dev_deck
    for pos, holder in enumerate(deck.holders):
        found = cards_deck.read_card(secrets, deck.cards[pos])
        if found is None or (shown[pos] >= 0 and shown[pos] != found):
            raise IllegalAction(f"deck: card {pos} does not open to the card it was played as")
        if shown[pos] < 0:
            shown[pos] = int(found)
            h = hands[holder]
            hands[holder] = h._replace(dev_cards=add(h.dev_cards, one(found)))
            dev_deck = sub(dev_deck, one(found))
    state = state._replace(
        deck=deck._replace(shown=tuple(shown)), hands=tuple(hands), dev_deck=dev_deck
    )
    for steal in state.steals:  # every steal is read too, with the robber's secret
        shared = cards_deck.shared_value(secrets[steal.mover], steal.answer)
        state = settle(state, steal, shared)
    return state._replace(steals=())
