"""Our positions and actions in catanatron's terms, and back.

catanatron (https://github.com/bcollazo/catanatron, ``pip install catanatron``) is an
independent Python implementation of the base game. This module translates a
``GameState`` of ours into a catanatron ``Game`` (board, ports, robber, buildings,
roads with their connected components, hands, development cards, phase, awards) and
actions both ways, for radius-2 boards (catanatron's map topology).

Geometry: our axial tile ``(q, r)`` is catanatron's cube coordinate ``(q, -q-r, r)``
(both are pointy-top; east is ``(1, 0)`` here and ``(1, -1, 0)`` there). A vertex is
matched to the catanatron node at the same point of the plane, an edge to the pair
of nodes at its ends.

catanatron 3.2.1 has no player-to-player trade and no "end road building" action;
``action_to_catanatron`` returns None for those. Importing this module raises
``ImportError`` with an install hint when catanatron is missing.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

try:
    from catanatron.game import Game
    from catanatron.models.enums import Action as CAction
    from catanatron.models.enums import ActionPrompt, ActionType
    from catanatron.models.map import (
        BASE_MAP_TEMPLATE,
        CatanMap,
        LandTile,
        NodeRef,
        initialize_tiles,
    )
    from catanatron.models.player import Color, Player
    from catanatron.state import State
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "the catanatron bridge needs catanatron: pip install 'catan_p2p[bench]' "
        "(or pip install catanatron==3.2.1)"
    ) from exc

from catan_p2p.errors import UsageError
from catan_p2p.rules.actions import (
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    Discard,
    EndTurn,
    MaritimeTrade,
    MoveRobber,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
)
from catan_p2p.rules.board import GENERIC_PORT, NO_PORT, Board
from catan_p2p.rules.cards import DEV_CARDS, RESOURCES, DevCard, Resource
from catan_p2p.rules.state import NOBODY, GameState, Phase

#: Resource names of catanatron, in the order of our ``Resource``.
CAT_RESOURCES: tuple[str, ...] = ("WOOD", "BRICK", "SHEEP", "WHEAT", "ORE")
#: Development card names of catanatron, in the order of our ``DevCard``.
CAT_DEV_CARDS: tuple[str, ...] = (
    "KNIGHT",
    "VICTORY_POINT",
    "ROAD_BUILDING",
    "YEAR_OF_PLENTY",
    "MONOPOLY",
)
#: catanatron colours by seat (our colour names when they match).
SEAT_COLORS: tuple[Color, ...] = (Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE)

_SQRT3 = math.sqrt(3.0)
_NODE_OFFSETS: dict[NodeRef, tuple[float, float]] = {
    NodeRef.NORTH: (0.0, -1.0),
    NodeRef.NORTHEAST: (_SQRT3 / 2, -0.5),
    NodeRef.SOUTHEAST: (_SQRT3 / 2, 0.5),
    NodeRef.SOUTH: (0.0, 1.0),
    NodeRef.SOUTHWEST: (-_SQRT3 / 2, 0.5),
    NodeRef.NORTHWEST: (-_SQRT3 / 2, -0.5),
}


def _centre(q: float, r: float) -> tuple[float, float]:
    """Centre of a pointy-top hex of circumradius 1 (y grows southwards)."""
    return (_SQRT3 * (q + r / 2), 1.5 * r)


def _key(x: float, y: float) -> tuple[int, int]:
    return (round(x * 1000), round(y * 1000))


def cube(tile: tuple[int, int]) -> tuple[int, int, int]:
    """catanatron's cube coordinate of our axial tile."""
    q, r = tile
    return (q, -q - r, r)


def axial(coordinate: tuple[int, int, int]) -> tuple[int, int]:
    """Our axial tile of catanatron's cube coordinate."""
    x, _, z = coordinate
    return (x, z)


@dataclass(frozen=True)
class Geometry:
    """Index tables between one board of ours and its catanatron map."""

    catan_map: CatanMap
    node_of_vertex: tuple[int, ...]  # our vertex index -> catanatron node id
    vertex_of_node: dict[int, int]
    edge_of_edge: tuple[tuple[int, int], ...]  # our edge index -> sorted node pair
    edge_of_nodes: dict[tuple[int, int], int]
    coordinate_of_tile: tuple[tuple[int, int, int], ...]  # our tile index -> cube
    tile_of_coordinate: dict[tuple[int, int, int], int]


@lru_cache(maxsize=16)
def geometry(board: Board) -> Geometry:
    """The catanatron map of ``board`` and the index tables between the two.

    Raises:
        UsageError: the board is not of radius 2 (catanatron's only land shape).
    """
    if board.radius != 2:
        raise UsageError(
            f"catanatron plays only radius-2 boards; this board has radius {board.radius}"
        )
    graph = board.graph
    tiles = initialize_tiles(
        BASE_MAP_TEMPLATE,
        list(BASE_MAP_TEMPLATE.numbers),
        list(BASE_MAP_TEMPLATE.port_resources),
        list(BASE_MAP_TEMPLATE.tile_resources),
    )
    # Put our terrain and numbers on catanatron's land tiles (node ids depend only on
    # the topology, so they stay those of catanatron's static graph).
    for coordinate, tile in tiles.items():
        if isinstance(tile, LandTile):
            t = graph.tile_index[axial(coordinate)]
            r = graph.tile_resource[t]
            tile.resource = None if r < 0 else CAT_RESOURCES[r]
            tile.number = graph.tile_number[t] or None
    catan_map = CatanMap.from_tiles(tiles)
    positions: dict[tuple[int, int], int] = {}
    for coordinate, tile in tiles.items():
        cx, cy = _centre(*axial(coordinate))
        for ref, node in tile.nodes.items():
            dx, dy = _NODE_OFFSETS[ref]
            positions.setdefault(_key(cx + dx, cy + dy), node)
    node_of_vertex = []
    for vid in graph.vertices:
        xs = [_centre(*t) for t in vid]
        x = sum(p[0] for p in xs) / 3
        y = sum(p[1] for p in xs) / 3
        node_of_vertex.append(positions[_key(x, y)])
    edge_of_edge = tuple(
        tuple(sorted((node_of_vertex[a], node_of_vertex[b]))) for a, b in graph.edge_vertices
    )
    land_nodes = set(catan_map.land_nodes)
    if set(node_of_vertex) != land_nodes:
        raise UsageError("board geometry does not match catanatron's map")
    port_nodes: dict[str | None, set[int]] = defaultdict(set)
    for v, code in enumerate(graph.vertex_port):
        if code != NO_PORT:
            port_nodes[None if code == GENERIC_PORT else CAT_RESOURCES[code]].add(node_of_vertex[v])
    catan_map.port_nodes = port_nodes
    coordinate_of_tile = tuple(cube(t) for t in graph.tiles)
    return Geometry(
        catan_map=catan_map,
        node_of_vertex=tuple(node_of_vertex),
        vertex_of_node={n: v for v, n in enumerate(node_of_vertex)},
        edge_of_edge=edge_of_edge,  # type: ignore[arg-type]
        edge_of_nodes={e: i for i, e in enumerate(edge_of_edge)},  # type: ignore[misc]
        coordinate_of_tile=coordinate_of_tile,
        tile_of_coordinate={c: i for i, c in enumerate(coordinate_of_tile)},
    )


class _Seat(Player):
    """A placeholder player: catanatron's State wants player objects with a colour."""

    def decide(self, game, playable_actions):  # type: ignore[no-untyped-def]
        raise NotImplementedError("the bridge's placeholder players never decide")


def colors_of(state: GameState) -> tuple[Color, ...]:
    """catanatron colour of each seat: our colour when catanatron has it, else by seat."""
    names = {c.value.lower(): c for c in Color}
    chosen: list[Color] = []
    for seat, name in enumerate(state.players):
        c = names.get(name.lower())
        if c is None or c in chosen:
            c = next(x for x in (*SEAT_COLORS[seat:], *SEAT_COLORS) if x not in chosen)
        chosen.append(c)
    return tuple(chosen)


# Long on purpose (about 140 lines): catanatron's Game is built field by field (its
# constructor would reseed the global ``random``), in the sections marked inside; they
# share the colours, geometry and board of one scope, read beside catanatron's State.
def to_catanatron(
    state: GameState, actor: str | None = None, hidden_dev_cards: dict[int, tuple] | None = None
) -> Game:
    """catanatron's ``Game`` at the same position as ``state``.

    Args:
        state: our position (any phase but an open trade offer, which catanatron lacks).
        actor: during discards, the player catanatron should ask (default: the first
            seat that owes cards).
        hidden_dev_cards: seat -> development card counts to use instead of the
            state's (a determinisation, so a bot never sees others' cards).

    Raises:
        UsageError: a trade offer is open, or the board is not of radius 2.
    """
    if state.phase is Phase.TRADE:
        raise UsageError(
            "catanatron has no player trade: a position with an open offer has no twin"
        )
    geo = geometry(state.board)
    graph = state.board.graph
    colors = colors_of(state)
    players = [_Seat(c) for c in colors]
    # Game() would reseed the global ``random``; build it field by field instead.
    game = Game(players, initialize=False)
    game.seed = 0
    game.id = "catan_p2p"
    game.vps_to_win = state.victory_points
    cstate = game.state = State(players, geo.catan_map)
    cstate.players = players
    cstate.colors = colors
    cstate.color_to_index = {c: i for i, c in enumerate(colors)}
    # --- board ---
    board = cstate.board
    board.robber_coordinate = geo.coordinate_of_tile[state.robber]
    board.buildings = {}
    board.roads = {}
    cstate.buildings_by_color = {c: defaultdict(list) for c in colors}
    for seat, hand in enumerate(state.hands):
        color = colors[seat]
        for v in sorted(hand.settlements, key=lambda v: _placed_order(state, seat, v)):
            board.buildings[geo.node_of_vertex[v]] = (color, "SETTLEMENT")
            cstate.buildings_by_color[color]["SETTLEMENT"].append(geo.node_of_vertex[v])
        for v in sorted(hand.cities):
            board.buildings[geo.node_of_vertex[v]] = (color, "CITY")
            cstate.buildings_by_color[color]["CITY"].append(geo.node_of_vertex[v])
        for e in sorted(hand.roads):
            a, b = geo.edge_of_edge[e]
            board.roads[(a, b)] = color
            board.roads[(b, a)] = color
            cstate.buildings_by_color[color]["ROAD"].append((a, b))
    buildable = set(geo.catan_map.land_nodes)
    for v, o in enumerate(state.vertex_owner):
        if o != NOBODY:
            buildable.discard(geo.node_of_vertex[v])
            for n in graph.vertex_neighbours[v]:
                buildable.discard(geo.node_of_vertex[n])
    board.board_buildable_ids = buildable
    board.connected_components = defaultdict(list)
    for seat in range(len(state.players)):
        board.connected_components[colors[seat]] = _components(state, seat, geo)
    board.road_lengths = defaultdict(int)
    for seat, hand in enumerate(state.hands):
        if hand.road_length:
            board.road_lengths[colors[seat]] = hand.road_length
    if state.longest_road != NOBODY:
        board.road_color = colors[state.longest_road]
        board.road_length = state.hands[state.longest_road].road_length
    else:
        board.road_color = None
        best = max(h.road_length for h in state.hands)
        board.road_length = best if best >= 5 else 0
    # --- bank and deck ---
    cstate.resource_freqdeck = list(state.bank)
    cstate.development_listdeck = [
        CAT_DEV_CARDS[c] for c in DEV_CARDS for _ in range(state.dev_deck[c])
    ]
    # --- players ---
    ps = cstate.player_state
    for seat, hand in enumerate(state.hands):
        k = f"P{seat}"
        for r in RESOURCES:
            ps[f"{k}_{CAT_RESOURCES[r]}_IN_HAND"] = hand.resources[r]
        devs = (hidden_dev_cards or {}).get(seat)
        held = (
            devs
            if devs is not None
            else tuple(a + b for a, b in zip(hand.dev_cards, hand.new_dev_cards, strict=True))
        )
        for c in DEV_CARDS:
            ps[f"{k}_{CAT_DEV_CARDS[c]}_IN_HAND"] = held[c]
            ps[f"{k}_PLAYED_{CAT_DEV_CARDS[c]}"] = hand.played[c]
        ps[f"{k}_ROADS_AVAILABLE"] = hand.roads_left
        ps[f"{k}_SETTLEMENTS_AVAILABLE"] = hand.settlements_left
        ps[f"{k}_CITIES_AVAILABLE"] = hand.cities_left
        ps[f"{k}_HAS_ROAD"] = state.longest_road == seat
        ps[f"{k}_HAS_ARMY"] = state.largest_army == seat
        ps[f"{k}_HAS_ROLLED"] = seat == state.current and state.dice is not None
        ps[f"{k}_HAS_PLAYED_DEVELOPMENT_CARD_IN_TURN"] = seat == state.current and state.dev_played
        public = state.public_points(seat)
        ps[f"{k}_VICTORY_POINTS"] = public
        ps[f"{k}_ACTUAL_VICTORY_POINTS"] = public + held[DevCard.VICTORY_POINT]
        ps[f"{k}_LONGEST_ROAD_LENGTH"] = hand.road_length
    # --- whose move and what kind ---
    cstate.num_turns = max(0, state.turn - 1)
    cstate.current_turn_index = state.current
    cstate.current_player_index = state.current
    cstate.is_initial_build_phase = state.is_setup
    cstate.is_discarding = False
    cstate.is_moving_knight = False
    cstate.is_road_building = False
    cstate.free_roads_available = 0
    phase = state.phase
    if phase is Phase.SETUP_SETTLEMENT:
        cstate.current_prompt = ActionPrompt.BUILD_INITIAL_SETTLEMENT
    elif phase is Phase.SETUP_ROAD:
        cstate.current_prompt = ActionPrompt.BUILD_INITIAL_ROAD
    elif phase is Phase.DISCARD:
        owing = [s for s, n in enumerate(state.discards) if n]
        who = state.seat(actor) if actor is not None else owing[0]
        cstate.current_player_index = who
        cstate.current_prompt = ActionPrompt.DISCARD
        cstate.is_discarding = True
    elif phase is Phase.MOVE_ROBBER:
        cstate.current_prompt = ActionPrompt.MOVE_ROBBER
        cstate.is_moving_knight = True
    elif phase is Phase.ROAD_BUILDING:
        cstate.current_prompt = ActionPrompt.PLAY_TURN
        cstate.is_road_building = True
        cstate.free_roads_available = state.free_roads
    else:
        cstate.current_prompt = ActionPrompt.PLAY_TURN
    cstate.actions = []
    if phase is not Phase.GAME_OVER:
        from catanatron.models.actions import generate_playable_actions

        cstate.playable_actions = generate_playable_actions(cstate)
    else:
        cstate.playable_actions = []
    return game


def _placed_order(state: GameState, seat: int, v: int) -> tuple[int, int]:
    """Sort key putting a set-up settlement still without its road last."""
    graph = state.board.graph
    has_road = any(state.edge_owner[e] == seat for e in graph.vertex_edges[v])
    return (0 if has_road else 1, v)


def _components(state: GameState, seat: int, geo: Geometry) -> list[set[int]]:
    """catanatron's connected components of a seat: node sets joined by its roads.

    A walk stops at an opponent's building (which still belongs to the component),
    the way catanatron's ``Board.bfs_walk`` does.
    """
    graph = state.board.graph
    owner_v = state.vertex_owner
    hand = state.hands[seat]
    seen: set[int] = set()
    out: list[set[int]] = []
    starts = set(hand.settlements | hand.cities)
    for e in hand.roads:
        starts.update(graph.edge_vertices[e])
    for start in sorted(starts):
        if start in seen or (owner_v[start] not in (NOBODY, seat)):
            continue
        comp = {start}
        agenda = [start]
        while agenda:
            v = agenda.pop()
            if owner_v[v] not in (NOBODY, seat):
                continue
            for e in graph.vertex_edges[v]:
                if state.edge_owner[e] != seat:
                    continue
                a, b = graph.edge_vertices[e]
                n = b if a == v else a
                if n not in comp:
                    comp.add(n)
                    agenda.append(n)
        seen |= {v for v in comp if owner_v[v] in (NOBODY, seat)}
        out.append({geo.node_of_vertex[v] for v in comp})
    return out


# --- actions ---------------------------------------------------------------------------


def action_to_catanatron(state: GameState, action: Action) -> CAction | None:
    """catanatron's form of ``action`` (chance outcomes kept), or None when it has none."""
    geo = geometry(state.board)
    graph = state.board.graph
    color = colors_of(state)[state.seat(action.player)]
    if isinstance(action, BuildSettlement):
        node = geo.node_of_vertex[graph.vertex_index[action.vertex]]
        return CAction(color, ActionType.BUILD_SETTLEMENT, node)
    if isinstance(action, BuildCity):
        node = geo.node_of_vertex[graph.vertex_index[action.vertex]]
        return CAction(color, ActionType.BUILD_CITY, node)
    if isinstance(action, BuildRoad):
        return CAction(
            color, ActionType.BUILD_ROAD, geo.edge_of_edge[graph.edge_index[action.edge]]
        )
    if isinstance(action, RollDice):
        return CAction(color, ActionType.ROLL, None if action.dice is None else tuple(action.dice))
    if isinstance(action, Discard):
        cards = [CAT_RESOURCES[r] for r in RESOURCES for _ in range(action.cards[r])]
        return CAction(color, ActionType.DISCARD, cards)
    if isinstance(action, MoveRobber):
        victim = None
        if action.victim is not None:
            victim = colors_of(state)[state.seat(action.victim)]
        stolen = None if action.stolen is None else CAT_RESOURCES[int(action.stolen)]
        coordinate = geo.coordinate_of_tile[graph.tile_index[action.tile]]
        return CAction(color, ActionType.MOVE_ROBBER, (coordinate, victim, stolen))
    if isinstance(action, EndTurn):
        return CAction(color, ActionType.END_TURN, None)
    if isinstance(action, BuyDevCard):
        card = None if action.card is None else CAT_DEV_CARDS[int(action.card)]
        return CAction(color, ActionType.BUY_DEVELOPMENT_CARD, card)
    if isinstance(action, PlayKnight):
        return CAction(color, ActionType.PLAY_KNIGHT_CARD, None)
    if isinstance(action, PlayRoadBuilding):
        return CAction(color, ActionType.PLAY_ROAD_BUILDING, None)
    if isinstance(action, PlayYearOfPlenty):
        return CAction(
            color,
            ActionType.PLAY_YEAR_OF_PLENTY,
            (CAT_RESOURCES[int(action.first)], CAT_RESOURCES[int(action.second)]),
        )
    if isinstance(action, PlayMonopoly):
        return CAction(color, ActionType.PLAY_MONOPOLY, CAT_RESOURCES[int(action.resource)])
    if isinstance(action, MaritimeTrade):
        give = int(action.give)
        rate = state.rate(state.seat(action.player), give)
        value = (
            [CAT_RESOURCES[give]] * rate + [None] * (4 - rate) + [CAT_RESOURCES[int(action.get)]]
        )
        return CAction(color, ActionType.MARITIME_TRADE, tuple(value))
    return None  # player trade offers and answers, ending road building early


def action_from_catanatron(state: GameState, action: CAction) -> Action | None:
    """Our form of catanatron's ``action``, or None when ours has no such action.

    A discard without cards (catanatron lets chance pick them) comes back as None:
    the caller chooses the cards (``random_discard``).
    """
    geo = geometry(state.board)
    graph = state.board.graph
    colors = colors_of(state)
    name = state.players[colors.index(action.color)]
    t, value = action.action_type, action.value
    if t is ActionType.BUILD_SETTLEMENT:
        return BuildSettlement(name, graph.vertices[geo.vertex_of_node[value]])
    if t is ActionType.BUILD_CITY:
        return BuildCity(name, graph.vertices[geo.vertex_of_node[value]])
    if t is ActionType.BUILD_ROAD:
        return BuildRoad(name, graph.edges[geo.edge_of_nodes[tuple(sorted(value))]])
    if t is ActionType.ROLL:
        return RollDice(name, None if value is None else (int(value[0]), int(value[1])))
    if t is ActionType.DISCARD:
        if value is None:
            return None
        counts = [0] * 5
        for r in value:
            counts[CAT_RESOURCES.index(r)] += 1
        return Discard(name, tuple(counts))  # type: ignore[arg-type]
    if t is ActionType.MOVE_ROBBER:
        coordinate, victim, stolen = value
        tile = graph.tiles[geo.tile_of_coordinate[tuple(coordinate)]]
        who = None if victim is None else state.players[colors.index(victim)]
        card = None if stolen is None else Resource(CAT_RESOURCES.index(stolen))
        return MoveRobber(name, tile, who, card)
    if t is ActionType.END_TURN:
        return EndTurn(name)
    if t is ActionType.BUY_DEVELOPMENT_CARD:
        return BuyDevCard(name, None if value is None else DevCard(CAT_DEV_CARDS.index(value)))
    if t is ActionType.PLAY_KNIGHT_CARD:
        return PlayKnight(name)
    if t is ActionType.PLAY_ROAD_BUILDING:
        return PlayRoadBuilding(name)
    if t is ActionType.PLAY_YEAR_OF_PLENTY:
        if len(value) != 2:
            return None  # catanatron's one-card year of plenty when the bank is short
        a, b = (Resource(CAT_RESOURCES.index(x)) for x in value)
        return PlayYearOfPlenty(name, a, b)
    if t is ActionType.PLAY_MONOPOLY:
        return PlayMonopoly(name, Resource(CAT_RESOURCES.index(value)))
    if t is ActionType.MARITIME_TRADE:
        give = Resource(CAT_RESOURCES.index(value[0]))
        return MaritimeTrade(name, give, Resource(CAT_RESOURCES.index(value[-1])))
    return None


def action_key(action: CAction) -> tuple:
    """A comparable form of a catanatron action (edges sorted, colour by name)."""
    value = action.value
    if action.action_type is ActionType.BUILD_ROAD:
        value = tuple(sorted(value))
    elif action.action_type is ActionType.PLAY_YEAR_OF_PLENTY and value is not None:
        value = tuple(sorted(value, key=CAT_RESOURCES.index))
    elif action.action_type is ActionType.MOVE_ROBBER:
        coordinate, victim, _ = value
        value = (tuple(coordinate), None if victim is None else victim.value)
    elif action.action_type is ActionType.DISCARD:
        value = None  # catanatron offers one discard and lets chance pick the cards
    return (action.color.value, action.action_type.value, value)


def summary(game: Game) -> dict:
    """The figures of a catanatron position that the referee compares with ours."""
    s = game.state
    out: dict = {"bank": tuple(s.resource_freqdeck)}
    ps = s.player_state
    for i, color in enumerate(s.colors):
        k = f"P{i}"
        out[color.value] = {
            "resources": tuple(ps[f"{k}_{r}_IN_HAND"] for r in CAT_RESOURCES),
            "points": ps[f"{k}_ACTUAL_VICTORY_POINTS"],
            "public_points": ps[f"{k}_VICTORY_POINTS"],
            "longest_road": bool(ps[f"{k}_HAS_ROAD"]),
            "largest_army": bool(ps[f"{k}_HAS_ARMY"]),
        }
    return out


def our_summary(state: GameState) -> dict:
    """``summary`` of our position, for comparison."""
    out: dict = {"bank": tuple(state.bank)}
    for seat, color in enumerate(colors_of(state)):
        hand = state.hands[seat]
        out[color.value] = {
            "resources": tuple(hand.resources),
            "points": state.points(seat),
            "public_points": state.public_points(seat),
            "longest_road": state.longest_road == seat,
            "largest_army": state.largest_army == seat,
        }
    return out
