"""A seat claimed with keys, and the dice chain its claim anchors."""

from __future__ import annotations

import re

from catan_p2p.errors import IllegalAction
from catan_p2p.rules.actions import ClaimSeat
from catan_p2p.rules.chance import follows
from catan_p2p.rules.common import replaced, seat_name
from catan_p2p.rules.state import GameState
from catan_p2p.trust import poker as cards_deck

#: A seat key as the rules see it: ``ssh-ed25519`` and the base64 of its 51-byte wire form.
SEAT_KEY = re.compile(r"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43}")
#: A publication point's URL: printable ASCII without spaces, not an option (protocol 6).
PUBLISH_URL = re.compile(r"[!-~]{1,200}")


def take_reveal(state: GameState, seat: int, reveal: str | None, what: str) -> GameState:
    """Record ``seat``'s next dice-chain element, which must hash to its last one."""
    if reveal is None or not follows(reveal, state.reveals[seat]):
        raise IllegalAction(
            f"dice: {what} reveals {seat_name(state, seat)}'s next dice-chain element, "
            "whose SHA-256 is the element revealed before it"
        )
    return state._replace(reveals=replaced(state.reveals, seat, reveal))


def claim_seat(state: GameState, seat: int, a: ClaimSeat) -> GameState:
    """Take ``seat`` with ``a``'s seat key, dice-chain anchor, deck key and publication point."""
    if not state.lobby_open:
        raise IllegalAction("seats: every seat is taken; the game has started")
    if state.seats[seat]:
        raise IllegalAction(f"seats: {seat_name(state, seat)}'s seat is already claimed")
    if not SEAT_KEY.fullmatch(a.key):
        raise IllegalAction("seats: a seat is claimed with an ssh-ed25519 public key")
    if a.key in state.seats:
        raise IllegalAction("seats: that key already holds another seat")
    if len(a.dice) != 64 or any(ch not in "0123456789abcdef" for ch in a.dice):
        raise IllegalAction("seats: a seat claim anchors a dice chain (64 hex digits)")
    if a.publish is not None and (
        not PUBLISH_URL.fullmatch(a.publish) or a.publish.startswith("-")
    ):
        raise IllegalAction(
            "seats: a publication point is a Git URL of 1-200 printable characters without "
            "spaces, not starting with '-'"
        )
    deck = state.deck
    if deck is not None:
        try:
            cards_deck.check_key(a.deck, a.proof, a.key)
        except ValueError as exc:
            raise IllegalAction(
                f"seats: a seat claim publishes a deck key with the proof that its claimer "
                f"knows it ({exc})"
            ) from None
        if a.deck in deck.keys:
            raise IllegalAction("seats: that deck key already holds another seat")
        deck = deck._replace(keys=replaced(deck.keys, seat, a.deck))
    return state._replace(
        seats=replaced(state.seats, seat, a.key),
        reveals=replaced(state.reveals, seat, a.dice),
        deck=deck,
    )
