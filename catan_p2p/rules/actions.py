"""Actions: one small frozen class per thing a player can do.

Each action names its player (a seat colour such as ``"red"``) and its places by
board-independent ids, so it serialises to one JSON object without the board and
reads like a commit summary (``str(action)``). Outcomes of chance (dice, stolen card,
drawn card) are fields that are ``None`` until the engine resolves them.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, TypeAlias

from catan_p2p.errors import InvalidAction
from catan_p2p.rules.cards import NO_CARDS, Counts, DevCard, Resource, format_counts
from catan_p2p.rules.hexgrid import EdgeId, Tile, VertexId, format_place, format_tile, parse_place

ACTION_TYPES: dict[str, type[Action]] = {}


def _register(cls: type[Action]) -> type[Action]:
    """Make ``Action.from_json`` know ``cls`` by its ``kind``."""
    ACTION_TYPES[cls.kind] = cls
    return cls


@dataclass(frozen=True, slots=True)
class Action:
    """Base of all actions; subclasses register themselves under ``kind``."""

    kind: ClassVar[str] = ""
    player: str

    def describe(self) -> str:
        """What the player does, without the player's name."""
        return self.kind.replace("_", " ")

    def __str__(self) -> str:
        return f"{self.player.capitalize()}: {self.describe()}"

    def to_json(self) -> dict[str, Any]:
        """One JSON-ready object; ``Action.from_json`` is its inverse.

        A field left at its default of None is left out (no outcome yet, no proof).
        """
        data: dict[str, Any] = {"type": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.default is None:
                continue
            data[f.name] = _encode(str(f.type), value)
        return data

    def dumps(self) -> str:
        """Canonical one-line JSON text (sorted keys, no spaces)."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @staticmethod
    def from_json(data: dict[str, Any]) -> Action:
        """Rebuild an action from ``to_json`` output; raises ``InvalidAction`` when malformed."""
        if not isinstance(data, dict):
            raise InvalidAction(f"an action must be a JSON object, got {type(data).__name__}")
        kind = data.get("type")
        cls = ACTION_TYPES.get(kind)  # type: ignore[arg-type]
        if cls is None:
            known = ", ".join(sorted(ACTION_TYPES))
            raise InvalidAction(f"unknown action type {kind!r}; expected one of: {known}")
        kwargs = {}
        for f in fields(cls):
            if f.name not in data:
                if f.default is not MISSING:
                    continue
                raise InvalidAction(f"{kind} action is missing its {f.name!r} field")
            try:
                kwargs[f.name] = _decode(f.name, str(f.type), data[f.name])
            except (TypeError, ValueError, KeyError) as exc:
                raise InvalidAction(f"{kind} action has a bad {f.name!r}: {exc}") from None
        extra = set(data) - {"type"} - {f.name for f in fields(cls)}
        if extra:
            raise InvalidAction(f"{kind} action has unknown fields: {', '.join(sorted(extra))}")
        return cls(**kwargs)

    @staticmethod
    def loads(text: str) -> Action:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidAction(f"action is not valid JSON: {exc}") from None
        return Action.from_json(data)

    def unresolved(self) -> Action:
        """This action with its chance outcomes cleared (what the player chose)."""
        return self


@dataclass(frozen=True, slots=True)
class ShowsSteals(Action):
    """A move that may show, before it is made, every pending steal its player took part in.

    With seat keys a stolen card stays hidden (``rules.state.Steal``) until a move of the
    robber's or the robbed player's needs its type; such a move carries ``steals``: one
    proof each, oldest first (``trust.poker.exchange``), filled in by the player's peer.
    The field is keyword-only, so it stays last in every move's constructor.
    """

    steals: tuple[str, ...] | None = field(default=None, kw_only=True)


def _encode(kind: str, value: Any) -> Any:
    """JSON form of one field, chosen by the field's declared type."""
    if value is None or isinstance(value, (bool, str)):
        return value
    base = kind.removesuffix(" | None")
    if base in ("VertexId", "EdgeId"):
        return format_place(value)
    if base == "Tile":
        return format_tile(value)
    if base == "Counts":
        return {r.label: n for r, n in zip(Resource, value, strict=True) if n}
    if base == "Resource":
        return Resource(value).label
    if base == "DevCard":
        return DevCard(value).label
    if base in ("tuple[int, int]", "tuple[str, ...]"):
        return list(value)
    return value


def _decode(name: str, kind: str, value: Any) -> Any:
    """Inverse of ``_encode``; raises ``ValueError``/``TypeError`` on malformed input."""
    base = kind.removesuffix(" | None")
    if value is None:
        if base == kind:
            raise TypeError(f"{name} may not be null")
        return None
    if base == "str":
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string")
        return value
    if base == "bool":
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be true or false")
        return value
    if base in ("VertexId", "EdgeId", "Tile", "Resource", "DevCard") and not isinstance(value, str):
        raise TypeError(f"{name} must be a string")
    if base in ("VertexId", "EdgeId", "Tile"):
        tiles = parse_place(value)
        size = {"VertexId": 3, "EdgeId": 2, "Tile": 1}[base]
        if len(tiles) != size:
            raise ValueError(f"{name} names {size} tile(s) like (q,r|...), got {value!r}")
        return tiles[0] if base == "Tile" else tiles
    if base == "Counts":
        counts = [0] * 5
        if not isinstance(value, dict):
            raise TypeError(f"{name} must map resources to counts")
        for label, n in value.items():
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise ValueError(f"card count {n!r} must be a non-negative integer")
            counts[Resource.parse(label)] = n
        return tuple(counts)
    if base == "Resource":
        return Resource.parse(value)
    if base == "DevCard":
        return DevCard.parse(value)
    if base == "tuple[str, ...]":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise TypeError(f"{name} must be a list of strings")
        return tuple(value)
    if base == "tuple[int, int]":
        a, b = value
        if not (isinstance(a, int) and isinstance(b, int)):
            raise TypeError("dice must be two integers")
        return (a, b)
    raise TypeError(f"no decoder for {name} of type {kind}")


# --- setup and building ---------------------------------------------------------------


@_register
@dataclass(frozen=True, slots=True)
class BuildSettlement(ShowsSteals):
    """Place a settlement (free in the setup rounds).

    In a game with seat keys a seat's first set-up settlement also carries its shuffle
    of the development cards (``deck``) and the proof that it is one (``proof``, see
    ``trust.poker``), both filled in by its peer.
    """

    kind: ClassVar[str] = "build_settlement"
    vertex: VertexId
    deck: tuple[str, ...] | None = None
    proof: str | None = None

    def describe(self) -> str:
        return f"build settlement {format_place(self.vertex)}"


@_register
@dataclass(frozen=True, slots=True)
class BuildRoad(ShowsSteals):
    """Place a road (free in the setup rounds and with road building)."""

    kind: ClassVar[str] = "build_road"
    edge: EdgeId

    def describe(self) -> str:
        return f"build road {format_place(self.edge)}"


@_register
@dataclass(frozen=True, slots=True)
class BuildCity(ShowsSteals):
    """Upgrade one of one's settlements to a city."""

    kind: ClassVar[str] = "build_city"
    vertex: VertexId

    def describe(self) -> str:
        return f"build city {format_place(self.vertex)}"


# --- the turn ----------------------------------------------------------------------------


@_register
@dataclass(frozen=True, slots=True)
class RollDice(Action):
    """Roll the two dice; ``dice`` is filled in by chance.

    In a game with seat keys ``reveal`` is the roller's next dice-chain element (hex),
    which the roll's outcome is derived from (``rules.chance.roll_of``), and ``shares``
    the roller's decryption shares of the development cards other seats drew since its
    last roll (``"position:proof"``, see ``trust.poker``).
    """

    kind: ClassVar[str] = "roll_dice"
    dice: tuple[int, int] | None = None
    reveal: str | None = None
    shares: tuple[str, ...] | None = None

    def describe(self) -> str:
        if self.dice is None:
            return "roll dice"
        return f"roll {self.dice[0]}+{self.dice[1]}={sum(self.dice)}"

    def unresolved(self) -> Action:
        return RollDice(self.player, None, self.reveal, self.shares)


@_register
@dataclass(frozen=True, slots=True)
class RevealDice(Action):
    """Give the dice of a roll that followed a decision (phase ``DICE``, with seat keys).

    The seat before the roller reveals ``reveal``, its next dice-chain element, after the
    roller's ``roll_dice``: so the roller committed to everything it did before rolling
    without knowing the roll. ``dice`` is the outcome, filled in like ``roll_dice``'s.
    """

    kind: ClassVar[str] = "reveal_dice"
    reveal: str | None = None
    dice: tuple[int, int] | None = None

    def describe(self) -> str:
        if self.dice is None:
            return "reveal the dice"
        return f"reveal the dice: {self.dice[0]}+{self.dice[1]}={sum(self.dice)}"

    def unresolved(self) -> Action:
        return RevealDice(self.player, self.reveal, None)


@_register
@dataclass(frozen=True, slots=True)
class Discard(ShowsSteals):
    """Give half of a hand of more than seven cards back to the bank after a seven."""

    kind: ClassVar[str] = "discard"
    cards: Counts = NO_CARDS

    def describe(self) -> str:
        return f"discard {format_counts(self.cards)}"


@_register
@dataclass(frozen=True, slots=True)
class MoveRobber(Action):
    """Move the robber to ``tile`` and steal from ``victim`` (None: nobody to rob).

    In a game with seat keys a move that robs carries the robber's ``token`` for the
    steal (``trust.poker.token``), filled in by its peer; the victim's answer picks the card.
    """

    kind: ClassVar[str] = "move_robber"
    tile: Tile
    victim: str | None = None
    stolen: Resource | None = None
    token: str | None = None

    def describe(self) -> str:
        text = f"move robber to {format_tile(self.tile)}"
        if self.victim is not None:
            text += f", rob {self.victim.capitalize()}"
            if self.stolen is not None:
                text += f" of 1 {Resource(self.stolen).label}"
        return text

    def unresolved(self) -> Action:
        return MoveRobber(self.player, self.tile, self.victim, None, self.token)


@_register
@dataclass(frozen=True, slots=True)
class GiveCard(ShowsSteals):
    """The robbed player's answer: its value for this steal, which picks the card.

    Only in a game with seat keys, on the concurrent step the robber opens. ``answer``
    is ``V = x·P`` for the steal's point ``P`` with its proof (``trust.poker.token``);
    with the robber's token it gives a value only those two seats can compute, which
    picks the card (``rules.chance.stolen_index``), so nobody else learns it. ``steals``
    shows the robbed player's own pending steals first: the card is picked from a hand
    whose every card its owner knows.
    """

    kind: ClassVar[str] = "give_card"
    answer: str | None = None

    def describe(self) -> str:
        return "give the robber a card"


@_register
@dataclass(frozen=True, slots=True)
class ShowSteal(Action):
    """A robbed player's answer to a monopoly played while its steal was pending.

    The monopoly takes every card of a resource, so the card of every pending steal
    must be known first: each robbed player shows the steal it was robbed in (the
    shared value with its proof, ``trust.poker.exchange``), on the concurrent step the
    monopoly opens. Only the robbed answer, so no two answers show the same steal.
    """

    kind: ClassVar[str] = "show_steal"
    proof: str | None = None

    def describe(self) -> str:
        return "show the card stolen from them"


@_register
@dataclass(frozen=True, slots=True)
class Abandon(Action):
    """End the game because ``absent`` kept it waiting longer than the players agreed.

    Only in a game with a timeout (``catan-p2p new --timeout``), by another seated
    player, once the commit the game waits after is that old (PROTOCOL.md "Liveness").
    Nobody wins an abandoned game.
    """

    kind: ClassVar[str] = "abandon"
    absent: str

    def describe(self) -> str:
        return f"end the game: {self.absent.capitalize()} has kept it waiting too long"


@_register
@dataclass(frozen=True, slots=True)
class EndTurn(Action):
    """Pass the dice to the next player (revealing a dice-chain element, with seat keys)."""

    kind: ClassVar[str] = "end_turn"
    reveal: str | None = None

    def describe(self) -> str:
        return "end turn"


@_register
@dataclass(frozen=True, slots=True)
class EndSpecialBuild(Action):
    """Build nothing more in the special building phase (5-6 players); the next seat may."""

    kind: ClassVar[str] = "end_special_build"

    def describe(self) -> str:
        return "done building"


# --- development cards -------------------------------------------------------------------


@_register
@dataclass(frozen=True, slots=True)
class BuyDevCard(ShowsSteals):
    """Buy the top development card; ``card`` is filled in by chance."""

    kind: ClassVar[str] = "buy_dev_card"
    card: DevCard | None = None

    def describe(self) -> str:
        return "buy development card"  # the card stays secret in the summary

    def unresolved(self) -> Action:
        return BuyDevCard(self.player, None, steals=self.steals)


@_register
@dataclass(frozen=True, slots=True)
class PlayKnight(Action):
    """Play a knight: the robber moves next."""

    kind: ClassVar[str] = "play_knight"
    card: str | None = None  # with seat keys: which card, and the proof ("position:proof")


@_register
@dataclass(frozen=True, slots=True)
class PlayRoadBuilding(Action):
    """Play road building: up to two free roads follow."""

    kind: ClassVar[str] = "play_road_building"
    card: str | None = None  # with seat keys: which card, and the proof ("position:proof")


@_register
@dataclass(frozen=True, slots=True)
class PlayYearOfPlenty(Action):
    """Play year of plenty: take two resources of one's choice from the bank."""

    kind: ClassVar[str] = "play_year_of_plenty"
    first: Resource
    second: Resource
    card: str | None = None  # with seat keys: which card, and the proof ("position:proof")

    def describe(self) -> str:
        first, second = Resource(self.first).label, Resource(self.second).label
        return f"play year of plenty for {first} and {second}"


@_register
@dataclass(frozen=True, slots=True)
class PlayMonopoly(ShowsSteals):
    """Play monopoly: every other player hands over all cards of ``resource``."""

    kind: ClassVar[str] = "play_monopoly"
    resource: Resource
    card: str | None = None  # with seat keys: which card, and the proof ("position:proof")

    def describe(self) -> str:
        return f"play monopoly on {Resource(self.resource).label}"


@_register
@dataclass(frozen=True, slots=True)
class EndRoadBuilding(Action):
    """Stop road building early (keep the second free road unbuilt)."""

    kind: ClassVar[str] = "end_road_building"


# --- trade -------------------------------------------------------------------------------


@_register
@dataclass(frozen=True, slots=True)
class MaritimeTrade(ShowsSteals):
    """Trade with the bank at 4:1, or 3:1 / 2:1 through one's ports."""

    kind: ClassVar[str] = "maritime_trade"
    give: Resource
    get: Resource

    def describe(self) -> str:
        return f"trade {Resource(self.give).label} for 1 {Resource(self.get).label} with the bank"

    def in_full(self, rate: int) -> str:
        """``trade 4 brick for 1 lumber with the bank``: with the cards given, for people
        (the commit subject, ``describe``, is the protocol's and names no count)."""
        return (
            f"trade {rate} {Resource(self.give).label} for 1 {Resource(self.get).label} "
            "with the bank"
        )


@_register
@dataclass(frozen=True, slots=True)
class OfferTrade(ShowsSteals):
    """Offer ``give`` in exchange for ``get``: to one player ``to``, or to every other."""

    kind: ClassVar[str] = "offer_trade"
    give: Counts
    get: Counts
    to: str | None = None

    def describe(self) -> str:
        offer = f"offer {format_counts(self.give)} for {format_counts(self.get)}"
        return offer if self.to is None else f"{offer} to {self.to.capitalize()}"


@_register
@dataclass(frozen=True, slots=True)
class AnswerTrade(ShowsSteals):
    """Accept or decline the open trade offer, or counter it with other counts.

    A counter-offer declines the offer as made (``accept`` false) and names the trade
    its player would make instead, from its own side: it gives ``give`` and gets ``get``
    (so the offerer would get ``give`` and give ``get``).
    """

    kind: ClassVar[str] = "answer_trade"
    accept: bool
    give: Counts | None = None
    get: Counts | None = None

    @property
    def is_counter(self) -> bool:
        """True for a counter-offer (it names counts)."""
        return self.give is not None or self.get is not None

    def describe(self) -> str:
        if self.is_counter:
            give, get = self.give or NO_CARDS, self.get or NO_CARDS
            return f"counter-offer {format_counts(give)} for {format_counts(get)}"
        return "accept the offer" if self.accept else "decline the offer"


@_register
@dataclass(frozen=True, slots=True)
class ConfirmTrade(ShowsSteals):
    """Close the open offer by trading with one player who accepted it or countered it.

    Taking a counter-offer may spend more than the offer did, so the offerer may show
    its pending steals first (``steals``), as any move that spends may.
    """

    kind: ClassVar[str] = "confirm_trade"
    partner: str

    def describe(self) -> str:
        return f"trade with {self.partner.capitalize()}"


@_register
@dataclass(frozen=True, slots=True)
class CancelTrade(Action):
    """Withdraw the open offer."""

    kind: ClassVar[str] = "cancel_trade"


@_register
@dataclass(frozen=True, slots=True)
class ClaimSeat(Action):
    """Take a seat by publishing the key that signs its moves, its dice-chain anchor and
    its deck key with the proof that it knows the key's secret (``trust.poker``)."""

    kind: ClassVar[str] = "claim_seat"
    key: str
    dice: str
    deck: str
    proof: str
    publish: str | None = None  # protocol 6: the Git URL only this seat writes to

    def describe(self) -> str:
        return "take a seat"


@_register
@dataclass(frozen=True, slots=True)
class ClaimVictory(Action):
    """Show enough hidden victory point cards to win (``"position:proof"`` each)."""

    kind: ClassVar[str] = "claim_victory"
    cards: tuple[str, ...]

    def describe(self) -> str:
        n = len(self.cards)
        return f"show {n} victory point card{'s' if n != 1 else ''} and win"


@_register
@dataclass(frozen=True, slots=True)
class RevealDeck(Action):
    """After the game: reveal the seat's deck secret, so every shuffle and card is checked."""

    kind: ClassVar[str] = "reveal_deck"
    secret: str

    def describe(self) -> str:
        return "reveal the deck secret"


ActionT: TypeAlias = Action
