"""The action menu: every action that may be applied now (``legal_actions``).

Built for speed, since bots and peers ask after every action: geometry comes from the
board's tables, and each distinct action value is built once and reused.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement

from catan_p2p.rules.actions import (
    Action,
    AnswerTrade,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ConfirmTrade,
    Discard,
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
    RevealDice,
    RollDice,
)
from catan_p2p.rules.board import BoardGraph
from catan_p2p.rules.cards import (
    CITY_COST,
    DEV_CARD_COST,
    RESOURCES,
    ROAD_COST,
    SETTLEMENT_COST,
    Counts,
    DevCard,
    covers,
    one,
)
from catan_p2p.rules.common import Answer, Phase, deck_left, spendable
from catan_p2p.rules.roads import road_edges, setup_settlement_without_road
from catan_p2p.rules.state import NOBODY, GameState, TradeOffer
from catan_p2p.rules.trade import counter_offers


def _settlement_spots(state: GameState, seat: int, setup: bool) -> list[int]:
    graph = state.board.graph
    owner_v = state.vertex_owner
    neighbours = graph.vertex_neighbours
    if setup:
        candidates = range(len(owner_v))
    else:
        candidates = {v for e in state.hands[seat].roads for v in graph.edge_vertices[e]}
    spots = []
    for v in candidates:
        if owner_v[v] != NOBODY:
            continue
        for n in neighbours[v]:
            if owner_v[n] != NOBODY:
                break
        else:
            spots.append(v)
    spots.sort()
    return spots


def _discard_options(hand: Counts, owed: int) -> list[Counts]:
    options: list[Counts] = []
    kinds = [r for r in range(5) if hand[r]]
    for combo in combinations_with_replacement(kinds, owed):
        counts = [0] * 5
        for r in combo:
            counts[r] += 1
        if all(counts[r] <= hand[r] for r in range(5)):
            options.append(tuple(counts))  # type: ignore[arg-type]
    return options


def _dev_card_actions(state: GameState, seat: int, name: str) -> list[Action]:
    if state.dev_played:
        return []
    hand = state.hands[seat]
    held = hand.dev_cards
    out: list[Action] = []
    if held[DevCard.KNIGHT]:
        out.append(PlayKnight(name))
    if held[DevCard.ROAD_BUILDING] and hand.roads_left > 0 and road_edges(state, seat):
        out.append(PlayRoadBuilding(name))
    if held[DevCard.YEAR_OF_PLENTY]:
        bank = state.bank
        for r1 in range(5):
            for r2 in range(r1, 5):
                if (bank[r1] >= 2) if r1 == r2 else (bank[r1] and bank[r2]):
                    out.append(PlayYearOfPlenty(name, RESOURCES[r1], RESOURCES[r2]))
    if held[DevCard.MONOPOLY]:
        out.extend(PlayMonopoly(name, r) for r in RESOURCES)
    return out


def _main_actions(state: GameState, seat: int, name: str) -> list[Action]:
    graph = state.board.graph
    hand = state.hands[seat]
    res = hand.resources
    out: list[Action] = [_action(EndTurn, name)]
    if covers(res, ROAD_COST) and hand.roads_left > 0:
        edges = graph.edges
        out.extend([_action(BuildRoad, name, edges[e]) for e in road_edges(state, seat)])
    if covers(res, SETTLEMENT_COST) and hand.settlements_left > 0:
        vertices = graph.vertices
        out.extend(
            [
                _action(BuildSettlement, name, vertices[v])
                for v in _settlement_spots(state, seat, False)
            ]
        )
    if covers(res, CITY_COST) and hand.cities_left > 0:
        out.extend(BuildCity(name, graph.vertices[v]) for v in sorted(hand.settlements))
    if covers(res, DEV_CARD_COST) and deck_left(state):
        out.append(_action(BuyDevCard, name))
    if not state.dev_played and any(hand.dev_cards):
        out.extend(_dev_card_actions(state, seat, name))
    bank = state.bank
    trades = _maritime_trades(name)
    for give in range(5):
        if res[give] >= state.rate(seat, give):
            out.extend([t for get, t in enumerate(trades[give]) if get != give and bank[get]])
    # Player trade offers are unbounded; list the one-for-one offers as representatives.
    offers = _one_for_one_offers(name)
    for give in range(5):
        if res[give]:
            out.extend(offers[give])
    return out


#: Legal-action lists are rebuilt after every action; actions are immutable values, so
#: each distinct one is built once and reused (``_action(BuildRoad, "red", edge)``).
_action = lru_cache(maxsize=1 << 16)(lambda cls, *fields: cls(*fields))


@lru_cache(maxsize=64)
def _maritime_trades(name: str) -> tuple[tuple[Action, ...], ...]:
    """``[give][get]``: the seat's bank trades (the diagonal is never listed)."""
    return tuple(
        tuple(MaritimeTrade(name, RESOURCES[give], RESOURCES[get]) for get in range(5))
        for give in range(5)
    )


@lru_cache(maxsize=64)
def _robber_moves(name: str, graph: BoardGraph) -> tuple[MoveRobber, ...]:
    """``[tile]``: moving the robber to each tile without robbing anyone."""
    return tuple(MoveRobber(name, tile) for tile in graph.tiles)


@lru_cache(maxsize=64)
def _one_for_one_offers(name: str) -> tuple[tuple[Action, ...], ...]:
    """``[give]``: the one-for-one trade offers giving one card of ``give``."""
    return tuple(
        tuple(OfferTrade(name, one(give), one(get)) for get in range(5) if get != give)
        for give in range(5)
    )


def _trade_actions(state: GameState, player: str | None) -> list[Action]:
    """While an offer is open: the offerer closes or withdraws it, the others answer."""
    players = state.players
    offer = state.trade
    assert offer is not None
    out: list[Action] = []
    cur = state.current
    for s, name in enumerate(players):
        if player is not None and name != player:
            continue
        if s == cur:
            out.append(CancelTrade(name))
            out.extend(
                ConfirmTrade(name, players[p])
                for p, ans in enumerate(offer.answers)
                if p != cur and _may_pick(state, offer, p, ans)
            )
        elif offer.answers[s] is Answer.PENDING and offer.may_answer(s):
            if covers(spendable(state, s), offer.get):
                out.append(AnswerTrade(name, True))
            out.append(AnswerTrade(name, False))
    return out


def _may_pick(state: GameState, offer: TradeOffer, seat: int, answer: int) -> bool:
    """Whether the offerer may trade with ``seat``: it accepted, or countered with terms
    the offerer can pay, and both still hold their side."""
    if answer is Answer.ACCEPT:
        return covers(spendable(state, seat), offer.get)
    if answer is not Answer.COUNTER:
        return False
    give, get = offer.terms_with(seat)
    return covers(spendable(state, state.current), give) and covers(spendable(state, seat), get)


def _robber_actions(state: GameState, seat: int, name: str) -> list[Action]:
    """Every tile the robber may move to, with each player it may rob there."""
    players = state.players
    graph = state.board.graph
    vertex_tiles = graph.vertex_tiles
    robbed: dict[int, list[int]] = {}  # tile -> seats with cards and a building on it
    for s, h in enumerate(state.hands):
        if s != seat and h.card_count > 0:
            for buildings in (h.settlements, h.cities):
                for v in buildings:
                    for t in vertex_tiles[v]:
                        victims = robbed.setdefault(t, [])
                        if s not in victims:
                            victims.append(s)
    out = []
    for t, move in enumerate(_robber_moves(name, graph)):
        if t == state.robber:
            continue
        victims = robbed.get(t)
        if victims is None:
            out.append(move)
        else:
            out.extend([_action(MoveRobber, name, move.tile, players[v]) for v in victims])
    return out


def legal_actions(state: GameState, player: str | None = None) -> list[Action]:
    """Every action that may be applied now (of ``player`` only, when given).

    Several players may act at once while discards or trade answers are owed. Player
    trade offers are unbounded, so only the one-for-one offers are listed; any other
    valid offer is accepted by ``apply`` all the same.
    """
    if state.lobby_open:
        return []  # seats are claimed with keys, not chosen among moves
    phase = state.phase
    players = state.players
    graph = state.board.graph
    if phase is Phase.DISCARD:
        return [
            Discard(players[s], c)
            for s, owed in enumerate(state.discards)
            if owed and (player is None or players[s] == player)
            for c in _discard_options(state.hands[s].resources, owed)
        ]
    if phase is Phase.TRADE:
        return _trade_actions(state, player)
    seat = state.current
    name = players[seat]
    if player is not None and player != name:
        return []
    if phase is Phase.MAIN:
        return _main_actions(state, seat, name)
    if phase is Phase.SPECIAL_BUILD:
        return [_action(EndSpecialBuild, name)] + [
            x for x in _main_actions(state, seat, name) if isinstance(x, _SPECIAL_BUILDS)
        ]
    if phase is Phase.DICE:
        return [RevealDice(name)]
    if phase is Phase.ROLL:
        if state.dev_played or not any(state.hands[seat].dev_cards):
            return [_action(RollDice, name)]
        return [_action(RollDice, name), *_dev_card_actions(state, seat, name)]
    if phase is Phase.SETUP_SETTLEMENT:
        return [
            BuildSettlement(name, graph.vertices[v]) for v in _settlement_spots(state, seat, True)
        ]
    if phase is Phase.SETUP_ROAD:
        fresh = setup_settlement_without_road(state, seat)
        return [
            BuildRoad(name, graph.edges[e])
            for e in graph.vertex_edges[fresh]
            if state.edge_owner[e] == NOBODY
        ]
    if phase is Phase.MOVE_ROBBER:
        return _robber_actions(state, seat, name)
    if phase is Phase.ROAD_BUILDING:
        return [BuildRoad(name, graph.edges[e]) for e in road_edges(state, seat)] + [
            EndRoadBuilding(name)
        ]
    return []


#: What the special building phase allows: building and buying, no trade, no card played.
_SPECIAL_BUILDS = (BuildRoad, BuildSettlement, BuildCity, BuyDevCard)


def with_counters(state: GameState, player: str, actions: list[Action]) -> list[Action]:
    """``actions`` (``player``'s legal actions) and, while ``player`` may answer an open
    offer, the rules' few counter-offers (``rules.trade.counter_offers``): what the bot
    loops offer a bot. ``legal_actions`` lists no counter-offer: they are unbounded,
    as offers are, and any legal one is as good as these."""
    if state.phase is not Phase.TRADE or player not in state.players:
        return actions
    counters = counter_offers(state, state.players.index(player))
    return actions + counters if counters else actions
