"""The state files' schema: one pydantic model per file of a commit's tree.

These models are the contract (``state_schema/*.schema.json`` is generated from
them by ``tools/schema.py``). They are used when reading files, to say exactly
which field of which file is wrong; writing takes a faster path in codec.py that
produces the same JSON.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

SCHEMA_VERSION = 1

NonNeg = Field(ge=0)


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ResourceCounts(_File):
    """A count of each resource card."""

    lumber: int = Field(ge=0, le=19)
    brick: int = Field(ge=0, le=19)
    wool: int = Field(ge=0, le=19)
    grain: int = Field(ge=0, le=19)
    ore: int = Field(ge=0, le=19)


class DevCardCounts(_File):
    """A count of each development card."""

    knight: int = Field(ge=0, le=14)
    victory_point: int = Field(ge=0, le=5)
    road_building: int = Field(ge=0, le=2)
    year_of_plenty: int = Field(ge=0, le=2)
    monopoly: int = Field(ge=0, le=2)


class GameFile(_File):
    """``game.json``: fixed options of the game, written once in the genesis commit."""

    schema_version: int = Field(ge=1)
    game: str
    players: list[str] = Field(min_length=2, max_length=4)
    seed: str
    victory_points: int = Field(ge=3, le=30)


class TileEntry(_File):
    tile: tuple[int, int]
    terrain: Literal["forest", "hills", "pasture", "fields", "mountains", "desert"]
    number: int | None = Field(ge=2, le=12)


class PortEntry(_File):
    edge: tuple[tuple[int, int], tuple[int, int]]
    resource: Literal["lumber", "brick", "wool", "grain", "ore"] | None


class BoardFile(_File):
    """``board/board.json``: terrain, number tokens and ports; never rewritten."""

    name: str
    radius: int = Field(ge=1, le=8)
    tiles: list[TileEntry]
    ports: list[PortEntry]


class TradeEntry(_File):
    give: ResourceCounts
    get: ResourceCounts
    answers: dict[str, Literal["pending", "accept", "decline"]]


PHASES = Literal[
    "setup_settlement",
    "setup_road",
    "roll",
    "discard",
    "move_robber",
    "main",
    "road_building",
    "trade",
    "game_over",
]


class TurnFile(_File):
    """``turn.json``: whose turn, the phase, dice, robber and any open concurrent step."""

    phase: PHASES
    current: str
    turn: int = Field(ge=0)
    setup_step: int = Field(ge=0)
    dice: tuple[int, int] | None
    dev_played: bool
    free_roads: int = Field(ge=0, le=2)
    robber: str
    discards: dict[str, int]
    trade: TradeEntry | None
    winner: str | None


class BankFile(_File):
    """``bank.json``: the bank's resource cards and the development card deck."""

    resources: ResourceCounts
    dev_cards: DevCardCounts


class PlayerFile(_File):
    """``players/<player>.json``: one player's cards (pieces on the board are in map/)."""

    resources: ResourceCounts
    dev_cards: DevCardCounts
    new_dev_cards: DevCardCounts
    played: DevCardCounts


class PlacesFile(RootModel[dict[str, str]]):
    """``map/settlements.json``, ``map/cities.json``, ``map/roads.json``: place -> owner."""


class AwardsFile(_File):
    """``awards.json``: holders of longest road and largest army (null: nobody)."""

    longest_road: str | None
    largest_army: str | None


#: Every state file and its model, for decoding and for schema generation.
FILES: dict[str, type[BaseModel]] = {
    "game.json": GameFile,
    "board/board.json": BoardFile,
    "turn.json": TurnFile,
    "bank.json": BankFile,
    "players/<player>.json": PlayerFile,
    "map/settlements.json": PlacesFile,
    "map/cities.json": PlacesFile,
    "map/roads.json": PlacesFile,
    "awards.json": AwardsFile,
}
