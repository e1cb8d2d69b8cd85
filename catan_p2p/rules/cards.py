"""Resources, terrains, development cards and building costs: the game's vocabulary.

Card counts are plain 5-tuples indexed by ``Resource`` or ``DevCard`` so the hot path
adds and subtracts tuples of ints.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TypeAlias

Counts: TypeAlias = tuple[int, int, int, int, int]


class Resource(IntEnum):
    """The five resource cards, in the order of every 5-tuple of resources."""

    LUMBER = 0
    BRICK = 1
    WOOL = 2
    GRAIN = 3
    ORE = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Resource:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            names = ", ".join(r.label for r in cls)
            raise ValueError(f"unknown resource {text!r}; expected one of {names}") from None


RESOURCES: tuple[Resource, ...] = tuple(Resource)


class Terrain(IntEnum):
    """Land tiles; each but the desert produces one resource."""

    FOREST = 0
    HILLS = 1
    PASTURE = 2
    FIELDS = 3
    MOUNTAINS = 4
    DESERT = 5

    @property
    def resource(self) -> Resource | None:
        return None if self is Terrain.DESERT else Resource(int(self))

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Terrain:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown terrain {text!r}") from None


class DevCard(IntEnum):
    """Development cards, in the order of every 5-tuple of development cards."""

    KNIGHT = 0
    VICTORY_POINT = 1
    ROAD_BUILDING = 2
    YEAR_OF_PLENTY = 3
    MONOPOLY = 4

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")

    @classmethod
    def parse(cls, text: str) -> DevCard:
        try:
            return cls[text.strip().upper().replace(" ", "_").replace("-", "_")]
        except KeyError:
            raise ValueError(f"unknown development card {text!r}") from None


DEV_CARDS: tuple[DevCard, ...] = tuple(DevCard)

NO_CARDS: Counts = (0, 0, 0, 0, 0)
RESOURCE_SUPPLY: Counts = (19, 19, 19, 19, 19)
DEV_DECK: Counts = (14, 5, 2, 2, 2)

#: The 5-6 player extension: up to six seats, five more of each resource card, nine more
#: development cards (6 knights, 1 road building, 1 year of plenty, 1 monopoly).
MAX_PLAYERS = 6
EXTENSION_PLAYERS = 5  # from this many seats on, the extension's box and rules apply
EXTENSION_SUPPLY: Counts = (24, 24, 24, 24, 24)
EXTENSION_DEV_DECK: Counts = (20, 5, 3, 3, 3)


def is_extension(n_players: int) -> bool:
    """True when a game of ``n_players`` is played with the 5-6 player extension."""
    return n_players >= EXTENSION_PLAYERS


def resource_supply(n_players: int) -> Counts:
    """Resource cards of each kind in the box: 19, or 24 with the 5-6 player extension."""
    return EXTENSION_SUPPLY if is_extension(n_players) else RESOURCE_SUPPLY


def dev_deck(n_players: int) -> Counts:
    """Development cards of each kind: 25 in all, or 34 with the 5-6 player extension."""
    return EXTENSION_DEV_DECK if is_extension(n_players) else DEV_DECK


ROAD_COST: Counts = (1, 1, 0, 0, 0)
SETTLEMENT_COST: Counts = (1, 1, 1, 1, 0)
CITY_COST: Counts = (0, 0, 0, 2, 3)
DEV_CARD_COST: Counts = (0, 0, 1, 1, 1)

ROAD_PIECES = 15
SETTLEMENT_PIECES = 5
CITY_PIECES = 4


def add(a: Counts, b: Counts) -> Counts:
    """Card-wise sum of two 5-tuples."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4])


def sub(a: Counts, b: Counts) -> Counts:
    """Card-wise difference ``a - b`` (callers check ``covers`` first)."""
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3], a[4] - b[4])


def covers(have: Counts, need: Counts) -> bool:
    """True when ``have`` holds at least ``need`` of every card."""
    return (
        have[0] >= need[0]
        and have[1] >= need[1]
        and have[2] >= need[2]
        and have[3] >= need[3]
        and have[4] >= need[4]
    )


def one(index: int, amount: int = 1) -> Counts:
    """A 5-tuple with ``amount`` at ``index`` and zero elsewhere."""
    counts = [0, 0, 0, 0, 0]
    counts[index] = amount
    return tuple(counts)  # type: ignore[return-value]


def format_counts(counts: Counts, names: tuple[IntEnum, ...] = RESOURCES) -> str:
    """``2 lumber, 1 ore``: the readable form of a 5-tuple (``nothing`` when empty)."""
    parts = [f"{n} {names[i].label}" for i, n in enumerate(counts) if n]  # type: ignore[attr-defined]
    return ", ".join(parts) if parts else "nothing"
