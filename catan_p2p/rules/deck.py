"""The hidden development-card deck of a game with seat keys, as the rules see it.

Who holds each drawn card, when it was bought, which seats have opened it and what it
was shown to be; the cards themselves are points of a group that only the seats'
keys open (``catan_p2p.trust.poker``, mental poker without a dealer).
"""

from __future__ import annotations

from typing import NamedTuple

from catan_p2p.rules.cards import DEV_DECK, EXTENSION_DEV_DECK, DevCard, dev_deck

DECK_SIZE = sum(DEV_DECK)  # the base game's deck; ``deck_size`` for any number of seats
MAX_DECK_SIZE = sum(EXTENSION_DEV_DECK)

#: The type of the card encoded at each index: 14 knights, 5 victory points, 2 each else
#: (cards 0-24, the base deck); then the 5-6 player extension's nine (25-33): 6 knights,
#: a road building, a year of plenty and a monopoly. A deck of ``n`` cards is cards
#: 0..n-1, so a base game's deck is the same with or without the extension.
CARD_TYPES: tuple[DevCard, ...] = tuple(
    DevCard(kind) for kind, n in enumerate(DEV_DECK) for _ in range(n)
) + tuple(
    DevCard(kind)
    for kind, (big, base) in enumerate(zip(EXTENSION_DEV_DECK, DEV_DECK, strict=True))
    for _ in range(big - base)
)


def deck_size(n_players: int) -> int:
    """Cards in the hidden deck of a game of ``n_players``: 25, or 34 for 5-6 players."""
    return sum(dev_deck(n_players))


class Deck(NamedTuple):
    """The public deck of a game with seat keys (``deck.json`` and ``deck/<player>.json``).

    ``passes`` grows by one shuffle per seat during the first set-up round; the last
    one is the deck played with. Drawn cards are listed by position (the order drawn).
    """

    keys: tuple[str, ...]  # each seat's deck key h (hex), "" while unclaimed
    passes: tuple[tuple[str, ...], ...] = ()  # each seat's shuffle, in seat order
    holders: tuple[int, ...] = ()  # seat holding each drawn card
    bought: tuple[int, ...] = ()  # turn in which each drawn card was bought
    opened: tuple[str, ...] = ()  # each drawn card with the layers removed so far
    shared: tuple[int, ...] = ()  # bit s set: seat s has removed its layer (or holds it)
    shown: tuple[int, ...] = ()  # each drawn card's type once revealed, else -1
    secrets: tuple[str, ...] = ()  # deck secrets revealed at the end, "" until then

    @property
    def cards(self) -> tuple[str, ...]:
        """The shuffled deck (the last pass)."""
        return self.passes[-1]

    @property
    def size(self) -> int:
        """Cards in this deck (25, or 34 with six or five seats)."""
        return deck_size(len(self.keys))

    @property
    def left(self) -> int:
        return self.size - len(self.holders)

    def held(self, seat: int) -> list[int]:
        """Positions of the cards ``seat`` holds and has not revealed."""
        return [
            p
            for p, (h, t) in enumerate(zip(self.holders, self.shown, strict=True))
            if h == seat and t < 0
        ]

    def owed_shares(self, seat: int) -> list[int]:
        """Positions of other seats' cards still waiting for ``seat``'s share."""
        return [p for p, m in enumerate(self.shared) if not m >> seat & 1]

    def complete(self, n_players: int) -> int:
        """The ``shared`` mask of a card every seat has opened."""
        return (1 << n_players) - 1


def new_deck(n_players: int) -> Deck:
    return Deck(keys=("",) * n_players, secrets=("",) * n_players)
