"""The state files' schema: one pydantic model per file of a commit's tree.

These models are the contract (``state_schema/*.schema.json`` is generated from
them by ``tools/schema.py``). They are used when reading files, to say exactly
which field of which file is wrong; writing takes a faster path in codec.py that
produces the same JSON.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

SCHEMA_VERSION = 7

NonNeg = Field(ge=0)


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class DevCardCounts(_File):
    """A count of each development card."""

    knight: int = Field(ge=0, le=20)
    victory_point: int = Field(ge=0, le=5)
    road_building: int = Field(ge=0, le=3)
    year_of_plenty: int = Field(ge=0, le=3)
    monopoly: int = Field(ge=0, le=3)


MAX_TIMEOUT = 90 * 24 * 3600  # three months


class GameFile(_File):
    """``game.json``: fixed options of the game, written once in the genesis commit."""

    schema_version: int = Field(ge=1)
    game: str
    players: list[str] = Field(min_length=2, max_length=6)
    seed: str
    victory_points: int = Field(ge=3, le=30)
    # Seconds a player may keep the game waiting before the others may end it (absent:
    # no limit); PROTOCOL.md "Liveness".
    timeout: int | None = Field(default=None, ge=60, le=MAX_TIMEOUT)


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


class SomeResources(_File):
    """Resource cards of a trade side or a discard: only the kinds given, each at least 1."""

    lumber: int = Field(default=0, ge=1, le=24)
    brick: int = Field(default=0, ge=1, le=24)
    wool: int = Field(default=0, ge=1, le=24)
    grain: int = Field(default=0, ge=1, le=24)
    ore: int = Field(default=0, ge=1, le=24)


class SomeDevCards(_File):
    """Development cards of one group of a hand: only the kinds held, each at least 1."""

    knight: int = Field(default=0, ge=1, le=20)
    victory_point: int = Field(default=0, ge=1, le=5)
    road_building: int = Field(default=0, ge=1, le=3)
    year_of_plenty: int = Field(default=0, ge=1, le=3)
    monopoly: int = Field(default=0, ge=1, le=3)


class CounterEntry(_File):
    """A counter-offer's counts, as the offerer would trade them."""

    give: SomeResources
    get: SomeResources


class TradeEntry(_File):
    give: SomeResources
    get: SomeResources
    answers: dict[str, Literal["pending", "accept", "decline", "counter"]]
    to: str | None = None  # the one player the offer is made to
    counters: dict[str, CounterEntry] = {}  # the players who countered, with their counts


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
    "steal",
    "monopoly",
    "special_build",
    "dice",
]


Holders = dict[str, Annotated[int, Field(ge=0, le=24)]]


class ResourceTable(_File):
    """For each resource, how many cards the bank (``bank``) and each player hold.

    Resource-major, so a roll (which pays out one resource per number, mostly) changes
    one block, and the bank's count sits next to the counts it moved to or from."""

    lumber: Holders
    brick: Holders
    wool: Holders
    grain: Holders
    ore: Holders


Hex64 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


RESOURCE_NAMES = Literal["lumber", "brick", "wool", "grain", "ore"]


class StealEntry(_File):
    """A steal whose card only the robber and the robbed know yet (PROTOCOL.md "Steals")."""

    mover: str
    victim: str
    turn: int = Field(ge=1)
    token: Hex64  # the robber's token T = x_r·P
    answer: Hex64  # the victim's value V = x_v·P
    hand: SomeResources  # the victim's cards when it was robbed


class TurnFile(_File):
    """``turn.json``: what changes turn by turn: whose turn, the phase, dice and robber,
    discards owed, an open trade, the winner, and every resource card (bank and hands).

    Optional keys are left out while they hold their default, so the file stays short
    and a diff shows what started or ended."""

    phase: PHASES
    current: str
    turn: int = Field(ge=0)
    robber: str
    resources: ResourceTable
    setup_step: int | None = Field(default=None, ge=0)  # only during set-up
    dice: tuple[int, int] | None = None  # after this turn's roll
    dev_played: bool = False
    fresh_beacon: bool = False  # 5-6 players: the next roll takes a fresh element (phase dice)
    free_roads: int = Field(default=0, ge=0, le=2)
    discards: dict[str, int] = {}  # cards each player still owes after a seven
    trade: TradeEntry | None = None
    winner: str | None = None
    victim: str | None = None  # the robbed player, while its answer is owed (phase steal)
    token: Hex64 | None = None  # the robber's token for that steal, while it is owed
    steals: list[StealEntry] = []  # steals whose card is not shown yet, oldest first
    monopoly: RESOURCE_NAMES | None = None  # a monopoly's resource, while steals are shown
    abandoned: str | None = None  # the player the others ended the game without


class DeckFile(DevCardCounts):
    """``deck.json``: the development cards left in the deck, every kind written.

    In a game with seat keys the deck is hidden: the counts are of the cards whose type
    no one has shown yet (in the deck or face down in a hand).
    """


class DrawnCard(_File):
    """One development card a player drew from the hidden deck (PROTOCOL.md "Deck")."""

    position: int = Field(ge=0, le=33)  # its place in the shuffled deck, in draw order
    bought: int = Field(ge=0)  # the turn it was bought in
    opened: Hex64  # the card with every layer removed so far
    shared: list[str]  # the other players whose shares are in, in seat order
    # Its type once shown (played, shown to win, or read at the game's end); else absent.
    shown: (
        Literal["knight", "victory_point", "road_building", "year_of_plenty", "monopoly"] | None
    ) = None


class SeatDeckFile(_File):
    """``deck/<player>.json``: one seat's layer of the hidden deck.

    ``key`` (its deck key, from its claim), ``shuffle`` (its pass, from its first
    settlement) and ``secret`` (revealed when the game is over) appear as they happen.
    """

    key: Hex64
    shuffle: list[Hex64] = Field(default=[], max_length=34)
    secret: Hex64 | None = None


class PlayerFile(_File):
    """``players/<player>.json``: one player's development cards (resource cards are in
    turn.json, pieces on the board in map/); kinds not held are left out."""

    dev_cards: SomeDevCards
    new_dev_cards: SomeDevCards  # bought this turn, playable from the next
    played: SomeDevCards
    cards: list[DrawnCard] = Field(default=[], max_length=34)  # drawn from a hidden deck


class PlacesFile(RootModel[dict[str, str]]):
    """``map/settlements.json``, ``map/cities.json``, ``map/roads.json``: place -> owner."""


class AwardsFile(_File):
    """``awards.json``: holders of longest road and largest army (null: nobody)."""

    longest_road: str | None
    largest_army: str | None


class SeatsFile(RootModel[dict[str, str]]):
    """``seats.json``: player -> the ``ssh-ed25519`` public key that signs its commits.

    Written from the genesis on (``{}`` there); every seat is filled by the merge of the
    seat claims that starts the game.
    """


class ChainFile(RootModel[Hex64]):
    """``chain/<player>.json``: the last dice-chain element the player revealed.

    A seat claim writes its chain's anchor; every ``roll_dice``, ``reveal_dice`` and
    ``end_turn`` of the player the next element, which hashes (SHA-256) to the one before
    it (nothing else reveals one: a card given to the robber does not). One file per
    player, so a reveal rewrites one line.
    """


#: Every state file and its model, for decoding and for schema generation.
FILES: dict[str, type[BaseModel]] = {
    "game.json": GameFile,
    "board/board.json": BoardFile,
    "turn.json": TurnFile,
    "deck.json": DeckFile,
    "players/<player>.json": PlayerFile,
    "map/settlements.json": PlacesFile,
    "map/cities.json": PlacesFile,
    "map/roads.json": PlacesFile,
    "awards.json": AwardsFile,
    "seats.json": SeatsFile,
    "chain/<player>.json": ChainFile,
    "deck/<player>.json": SeatDeckFile,
}
