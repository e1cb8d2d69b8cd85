"""The game as it is played: the rules with the seat keys' checks plugged in.

``step``/``apply``/``refusal``/``is_legal`` are ``rules.engine``'s, given ``SEAT_KEYS``
(``rules.seat_keys.SeatKeys``), so a game with seat keys and a game without are
played by the same calls. Everything above the rules calls these.
"""

from __future__ import annotations

from catan_p2p.rules import engine
from catan_p2p.rules.actions import Action
from catan_p2p.rules.chance import Chance
from catan_p2p.rules.seat_keys import SeatKeys
from catan_p2p.rules.state import GameState
from catan_p2p.trust import hidden_deck, seats, steals


class _SeatKeyChecks:
    """``SeatKeys`` answered by this package's modules."""

    claim_seat = staticmethod(seats.claim_seat)
    take_reveal = staticmethod(seats.take_reveal)
    take_shuffle = staticmethod(hidden_deck.take_shuffle)
    take_shares = staticmethod(hidden_deck.take_shares)
    draw_hidden = staticmethod(hidden_deck.draw_hidden)
    show_card = staticmethod(hidden_deck.show_card)
    reveal_deck = staticmethod(hidden_deck.reveal_deck)
    steal_token = staticmethod(steals.steal_token)
    steal_answer = staticmethod(steals.steal_answer)
    shared_value = staticmethod(steals.shared_value)


SEAT_KEYS: SeatKeys = _SeatKeyChecks()


def step(
    state: GameState, action: Action, chance: Chance | None = None
) -> tuple[GameState, Action]:
    """Apply ``action`` and also return it with its chance outcomes filled in.

    Raises:
        IllegalAction: the action breaks a rule or a key, proof or secret it carries
            does not hold; the message names it. ``state`` is unchanged.
    """
    return engine.step(state, action, chance, SEAT_KEYS)


def apply(state: GameState, action: Action, chance: Chance | None = None) -> GameState:
    """The state after ``action``; see ``step``."""
    return engine.step(state, action, chance, SEAT_KEYS)[0]


def refusal(state: GameState, action: Action) -> str | None:
    """The rule ``action`` breaks in ``state`` (the engine's sentence), or None when legal."""
    return engine.refusal(state, action, SEAT_KEYS)


def is_legal(state: GameState, action: Action) -> bool:
    """True when ``action`` may be applied now (its chance outcomes, if given, are possible)."""
    return engine.refusal(state, action, SEAT_KEYS) is None
