"""A seat claimed with keys, and the dice chain its claim anchors."""

from __future__ import annotations

import base64
import re

from catan_p2p.errors import IllegalAction
from catan_p2p.rules.actions import ClaimSeat
from catan_p2p.rules.chance import follows
from catan_p2p.rules.common import replaced, seat_name
from catan_p2p.rules.state import GameState
from catan_p2p.trust import poker as cards_deck

#: A seat key as the rules see it: ``ssh-ed25519`` and the base64 of its 51-byte wire form.
#: The character after the fixed prefix also holds the low bits of the key's length
#: (32), which must be zero: ``[A-P]``, so a key has one text.
SEAT_KEY = re.compile(r"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-P][A-Za-z0-9+/]{42}")
#: The URL forms a publication point may take (protocol 6, PROTOCOL.md section 2a), one
#: pattern each: a host, a user, a port and path parts of a few safe characters only, so
#: that no form can carry a Git option (``-o...``), a command (``ext::``, ``fd::``), a
#: percent-escape or a ``..``; a path on a disk names a bare repository (``NAME.git``),
#: never a player's clone. Anything else is refused when claimed, verified or fetched.
_HOST = r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])"
_USER = r"(?:[A-Za-z0-9][A-Za-z0-9._-]{0,63}@)"
_PORT = r"(?::[0-9]{1,5})"
_PART = r"[A-Za-z0-9_+~][A-Za-z0-9._+~-]{0,99}"
_PATH = rf"{_PART}(?:/{_PART})*"
_BARE = rf"(?:{_PART}/)*[A-Za-z0-9_+~][A-Za-z0-9._+~-]{{0,95}}\.git"
POINT_FORMS: dict[str, re.Pattern[str]] = {
    "https://HOST[:PORT]/PATH": re.compile(rf"https?://{_HOST}{_PORT}?/{_PATH}/?"),
    "ssh://[USER@]HOST[:PORT]/PATH": re.compile(rf"ssh://{_USER}?{_HOST}{_PORT}?/{_PATH}/?"),
    "git://HOST[:PORT]/PATH": re.compile(rf"git://{_HOST}{_PORT}?/{_PATH}/?"),
    "[USER@]HOST:PATH (ssh)": re.compile(rf"{_USER}?{_HOST}:/?{_PATH}/?"),
    "/PATH/NAME.git (a bare repository on a disk)": re.compile(rf"/{_BARE}"),
}
POINT_CHARS = 200


def key_refusal(key: str) -> str | None:
    """Why ``key`` cannot hold a seat, or None when it is an ``ssh-ed25519`` key whose
    point lies in Ed25519's prime-order group, as every key made from a secret does.

    A key of small order (the identity, say) is refused: under it anyone's signature
    checks out with OpenSSL and with OpenSSH's check (``git verify-commit``), so any peer
    could sign as its seat and a fork signed by it would prove nothing; so is a key with
    a part of small order (``aB + T``), whose holder could make signatures that some
    checks take and others refuse.
    """
    if not SEAT_KEY.fullmatch(key):
        return "a seat is claimed with an ssh-ed25519 public key"
    point = base64.b64decode(key.partition(" ")[2])[19:]
    if not cards_deck.in_group(point):
        return (
            "a seat key must be a point of Ed25519's prime-order group (one of small "
            "order would let anyone sign as the seat); make one with ssh-keygen -t ed25519"
        )
    return None


def point_refusal(url: str) -> str | None:
    """Why ``url`` cannot be a publication point, or None when it takes one of the
    ``POINT_FORMS`` (at most ``POINT_CHARS`` characters)."""
    if len(url) <= POINT_CHARS and any(f.fullmatch(url) for f in POINT_FORMS.values()):
        if not any(part in ("..", ".", ".git") for part in url.split("/")):
            return None
    return (
        "a publication point is a Git URL of one of the forms "
        f"{', '.join(POINT_FORMS)}, of at most {POINT_CHARS} characters (letters, digits "
        "and ._+~- in its parts)"
    )


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
    if (why := key_refusal(a.key)) is not None:
        raise IllegalAction(f"seats: {why}")
    if a.key in state.seats:
        raise IllegalAction("seats: that key already holds another seat")
    if len(a.dice) != 64 or any(ch not in "0123456789abcdef" for ch in a.dice):
        raise IllegalAction("seats: a seat claim anchors a dice chain (64 hex digits)")
    if a.publish is not None and (why := point_refusal(a.publish)) is not None:
        raise IllegalAction(f"seats: {why}")
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
