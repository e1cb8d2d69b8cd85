"""Input mapping: from the legal actions to buttons, keys and board targets, and back.

The rules stay in the engine: this module only sorts the actions the session lists
into what the window offers (which buttons are live, which places light up) and
turns a click on a place into the action it means. Explanations of refusals come
from the engine's own ``IllegalAction`` messages wherever possible.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from catan_p2p.rules.actions import (
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    EndRoadBuilding,
    EndSpecialBuild,
    EndTurn,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
)
from catan_p2p.rules.cards import (
    CITY_COST,
    ROAD_COST,
    SETTLEMENT_COST,
    Counts,
    Resource,
    covers,
    format_counts,
)
from catan_p2p.rules.hexgrid import EdgeId, Tile, VertexId
from catan_p2p.rules.state import GameState, Phase
from catan_p2p.rules.waiting import expecting
from catan_p2p.trust import engine as trust_engine


class Mode(Enum):
    """What a click on the board means."""

    NONE = "none"
    ROAD = "road"
    SETTLEMENT = "settlement"
    CITY = "city"
    ROBBER = "robber"


@dataclass(frozen=True)
class Targets:
    """Places where the acting player may build or move the robber now."""

    settlements: frozenset[VertexId] = frozenset()
    cities: frozenset[VertexId] = frozenset()
    roads: frozenset[EdgeId] = frozenset()
    robber: frozenset[Tile] = frozenset()

    def for_mode(self, mode: Mode) -> tuple[frozenset[VertexId], frozenset[EdgeId], frozenset]:
        """(vertices, edges, tiles) to highlight in ``mode``."""
        if mode is Mode.SETTLEMENT:
            return self.settlements, frozenset(), frozenset()
        if mode is Mode.CITY:
            return self.cities, frozenset(), frozenset()
        if mode is Mode.ROAD:
            return frozenset(), self.roads, frozenset()
        if mode is Mode.ROBBER:
            return frozenset(), frozenset(), self.robber
        return frozenset(), frozenset(), frozenset()


def targets(actions: Iterable[Action]) -> Targets:
    """Sort the building and robber actions among ``actions`` by place."""
    settlements, cities, roads, robber = set(), set(), set(), set()
    for a in actions:
        if isinstance(a, BuildSettlement):
            settlements.add(a.vertex)
        elif isinstance(a, BuildCity):
            cities.add(a.vertex)
        elif isinstance(a, BuildRoad):
            roads.add(a.edge)
        elif isinstance(a, MoveRobber):
            robber.add(a.tile)
    return Targets(frozenset(settlements), frozenset(cities), frozenset(roads), frozenset(robber))


def forced_mode(state: GameState) -> Mode | None:
    """The mode the phase imposes (set-up placement, free roads, robber), if any."""
    phase = state.phase
    if phase is Phase.SETUP_SETTLEMENT:
        return Mode.SETTLEMENT
    if phase in (Phase.SETUP_ROAD, Phase.ROAD_BUILDING):
        return Mode.ROAD
    if phase is Phase.MOVE_ROBBER:
        return Mode.ROBBER
    return None


def vertex_action(state: GameState, player: str, mode: Mode, vertex: VertexId) -> Action:
    """What a click on ``vertex`` means: a city on one's own settlement, else a settlement."""
    if mode is Mode.CITY:
        return BuildCity(player, vertex)
    if mode is Mode.NONE:
        graph = state.board.graph
        v = graph.vertex_index.get(vertex)
        if v is not None and v in state.hands[state.seat(player)].settlements:
            return BuildCity(player, vertex)
    return BuildSettlement(player, vertex)


def robber_choices(actions: Iterable[Action], tile: Tile) -> list[MoveRobber]:
    """The legal robber moves to ``tile`` (one per possible victim)."""
    return [a for a in actions if isinstance(a, MoveRobber) and a.tile == tile]


# --- the action bar ----------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    """One button of the action bar: its name, label and keyboard shortcut."""

    name: str
    label: str
    key: str


COMMANDS: tuple[Command, ...] = (
    Command("roll", "Roll dice", "R"),
    Command("road", "Road", "1"),
    Command("settlement", "Settlement", "2"),
    Command("city", "City", "3"),
    Command("buy", "Buy card", "D"),
    Command("end", "End turn", "E"),
    Command("knight", "Knight", "K"),
    Command("road_building", "Road building", "B"),
    Command("year_of_plenty", "Year of plenty", "Y"),
    Command("monopoly", "Monopoly", "M"),
    Command("bank", "Bank trade", "T"),
    Command("offer", "Offer trade", "O"),
)

COMMAND_TYPES: dict[str, tuple[type[Action], ...]] = {
    "roll": (RollDice,),
    "road": (BuildRoad,),
    "settlement": (BuildSettlement,),
    "city": (BuildCity,),
    "buy": (BuyDevCard,),
    "end": (EndTurn, EndRoadBuilding, EndSpecialBuild),
    "knight": (PlayKnight,),
    "road_building": (PlayRoadBuilding,),
    "year_of_plenty": (PlayYearOfPlenty,),
    "monopoly": (PlayMonopoly,),
    "bank": (MaritimeTrade,),
    "offer": (OfferTrade,),
}

KEYS: dict[str, str] = {c.key.lower(): c.name for c in COMMANDS}


def enabled_commands(actions: Iterable[Action]) -> set[str]:
    """Names of the commands with at least one legal action now."""
    kinds = {type(a) for a in actions}
    return {name for name, types in COMMAND_TYPES.items() if kinds.intersection(types)}


def end_label(actions: Iterable[Action]) -> str:
    """``End turn``, ``Stop roads`` while free roads of road building are pending, or
    ``Done building`` in the special building phase (5-6 players)."""
    if any(isinstance(a, EndRoadBuilding) for a in actions):
        return "Stop roads"
    if any(isinstance(a, EndSpecialBuild) for a in actions):
        return "Done building"
    return "End turn"


def end_action(state: GameState, player: str) -> Action:
    """What the end command does now: end the turn, the free roads or one's special build."""
    if state.phase is Phase.ROAD_BUILDING:
        return EndRoadBuilding(player)
    if state.phase is Phase.SPECIAL_BUILD:
        return EndSpecialBuild(player)
    return EndTurn(player)


def refusal(state: GameState, action: Action) -> str | None:
    """The engine's reason why ``action`` is illegal in ``state``, or None when legal."""
    return trust_engine.refusal(state, action)


def _build_refusal(state: GameState, player: str, what: str, cost: Counts, left: int) -> str:
    building = state.phase is Phase.MAIN or state.phase is Phase.SPECIAL_BUILD
    if not building or state.players[state.current] != player:
        return f"cannot build a {what} now: {expecting(state)}"
    hand = state.hands[state.seat(player)].resources
    if not covers(hand, cost):
        return (
            f"cost: a {what} costs {format_counts(cost)}; "
            f"{player.capitalize()} has {format_counts(hand)}"
        )
    if left <= 0:
        return f"pieces: {player.capitalize()} has no {what} pieces left"
    if what == "city":
        return "city: a city replaces one of your settlements, and you have none on the board"
    return f"no place for a {what}: it must connect to your roads and keep the distance rule"


def why_not(state: GameState, player: str, command: str) -> str:
    """One line saying why ``command`` is not possible for ``player`` now."""
    hand = state.hands[state.seat(player)]
    probes: dict[str, Action] = {
        "roll": RollDice(player),
        "buy": BuyDevCard(player),
        "end": end_action(state, player),
        "knight": PlayKnight(player),
        "road_building": PlayRoadBuilding(player),
        "year_of_plenty": PlayYearOfPlenty(player, Resource.LUMBER, Resource.BRICK),
        "monopoly": PlayMonopoly(player, Resource.LUMBER),
    }
    if command == "road":
        return _build_refusal(state, player, "road", ROAD_COST, hand.roads_left)
    if command == "settlement":
        return _build_refusal(state, player, "settlement", SETTLEMENT_COST, hand.settlements_left)
    if command == "city":
        return _build_refusal(state, player, "city", CITY_COST, hand.cities_left)
    if command == "bank":
        if state.phase is not Phase.MAIN or state.players[state.current] != player:
            return f"cannot trade now: {expecting(state)}"
        return "maritime trade: you need 4 of a kind (3 with a 3:1 port, 2 with its 2:1 port)"
    if command == "offer":
        if state.phase is not Phase.MAIN or state.players[state.current] != player:
            return f"cannot offer a trade now: {expecting(state)}"
        return "player trade: you hold no cards to offer"
    probe = probes.get(command)
    if probe is None:
        return f"{command} is not possible now"
    return refusal(state, probe) or f"{command} is not possible now"
