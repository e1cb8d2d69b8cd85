"""The greedy bot: settles well, builds what it can, trades toward what it needs.

It plans one build at a time (a city, then a settlement, then a development card,
then a road; roads first when there is no place left to settle), trades surplus
cards with the bank toward that build, robs the leader, discards what the plan needs
least and accepts only trades that help the plan. It reads the rules only through
the legal actions it is offered; it looks at the state to score them.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

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
from catan_p2p.rules.board import GENERIC_PORT, NO_PORT, PIPS, BoardGraph
from catan_p2p.rules.cards import (
    CITY_COST,
    DEV_CARD_COST,
    NO_CARDS,
    ROAD_COST,
    SETTLEMENT_COST,
    Counts,
    add,
    covers,
    sub,
)
from catan_p2p.rules.state import NOBODY, Answer, GameState, Phase

#: Resources a young economy lacks most (brick and ore have only three tiles).
SCARCITY: tuple[float, ...] = (1.0, 1.15, 0.9, 1.0, 1.15)
#: A bot offers a player trade at most every this many of its own turns ("now and then"):
#: each offer waits on every other player's answer, which a networked game pays for.
OFFER_GAP_TURNS = 2
MAX_BANK_TRADES = 6  # per turn, so a plan that keeps changing cannot trade forever


class GreedyBot:
    """A one-step planner: the best build it can reach this turn, or the cards toward it."""

    #: Player trades: offer now and then, answer by what the trade does for the plan.
    trades = True

    def __init__(self, seed: object = 0) -> None:
        self.rng = random.Random(str(seed))
        self._turn = -1
        self._bank_trades = 0
        self._offered = False
        self._offer_turn = -(10**6)  # turn of the last offer (none yet)

    # --- entry point ----------------------------------------------------------------------

    def decide(self, state: GameState, actions: list[Action]) -> Action:
        if len(actions) == 1:
            return actions[0]
        seat = state.players.index(actions[0].player)
        if state.turn != self._turn:
            self._turn, self._bank_trades, self._offered = state.turn, 0, False
        phase = state.phase
        if phase is Phase.SETUP_SETTLEMENT:
            return self._best(actions, lambda a: _spot_score(state, seat, _vertex(state, a)))
        if phase is Phase.SETUP_ROAD or phase is Phase.ROAD_BUILDING:
            roads = [a for a in actions if isinstance(a, BuildRoad)]
            if not roads:
                return actions[0]
            return self._best(roads, lambda a: _road_score(state, seat, a))
        if phase is Phase.ROLL:
            knight = _first(actions, PlayKnight)
            if knight is not None and _robber_hurts(state, seat):
                return knight
            return _first(actions, RollDice) or actions[0]
        if phase is Phase.DISCARD:
            return self._discard(state, seat, actions)
        if phase is Phase.MOVE_ROBBER:
            return self._best(actions, lambda a: _robber_score(state, seat, a))
        if phase is Phase.TRADE:
            return self._trade_step(state, seat, actions)
        if phase is Phase.MAIN or phase is Phase.SPECIAL_BUILD:
            # (the special building phase lists only builds and end_special_build, so
            # the plan's build or one from spare cards is made, else the bot is done)
            return self._main(state, seat, actions)
        return actions[0]

    def _best(self, actions: Iterable[Action], score) -> Action:  # type: ignore[no-untyped-def]
        """The highest-scoring action; ties broken by the bot's own generator."""
        best: list[Action] = []
        top = float("-inf")
        for a in actions:
            s = score(a)
            if s > top:
                top, best = s, [a]
            elif s == top:
                best.append(a)
        return best[0] if len(best) == 1 else self.rng.choice(best)

    # --- the main phase ---------------------------------------------------------------------

    def _main(self, state: GameState, seat: int, actions: list[Action]) -> Action:
        hand = state.hands[seat].resources
        goal = _goal(state, seat, hand)
        cost = goal[1] if goal else NO_CARDS
        spare = _spare(hand, cost)

        # Development cards first: they are free and may complete the plan.
        knight = _first(actions, PlayKnight)
        if knight is not None:
            return knight
        plenty = [a for a in actions if isinstance(a, PlayYearOfPlenty)]
        if plenty and goal and not covers(hand, cost):
            return self._best(plenty, lambda a: _plenty_score(hand, cost, a))
        if goal and goal[0] is BuildRoad:
            rb = _first(actions, PlayRoadBuilding)
            if rb is not None:
                return rb
        monopolies = [a for a in actions if isinstance(a, PlayMonopoly)]
        if monopolies and goal:
            missing = _missing(hand, cost)
            if any(missing):
                r = max(range(5), key=lambda i: (missing[i], -i))
                mono = next((a for a in monopolies if int(a.resource) == r), None)
                if mono is not None:
                    return mono

        # Builds: the plan itself, or anything that only uses cards the plan does not need.
        for kind in (BuildCity, BuildSettlement, BuyDevCard, BuildRoad):
            options = [a for a in actions if type(a) is kind]
            if not options:
                continue
            own = goal is not None and goal[0] is kind
            if not own and not covers(spare, _COSTS[kind]):
                continue
            if kind is BuildRoad and not own and _open_spots(state, seat):
                if not _roads_worth_it(state, seat):
                    continue
            if kind is BuyDevCard:
                return options[0]
            return self._best(options, lambda a: _build_score(state, seat, a))

        # Trades toward the plan.
        if goal and self._bank_trades < MAX_BANK_TRADES:
            trade = _bank_trade(state, seat, hand, cost, actions)
            if trade is not None:
                self._bank_trades += 1
                return trade
        if (
            goal
            and self.trades
            and not self._offered
            and state.turn - self._offer_turn >= OFFER_GAP_TURNS * len(state.players)
        ):
            offer = _offer(state, seat, hand, cost, actions)
            if offer is not None:
                self._offered = True
                self._offer_turn = state.turn
                return offer
        return _first(actions, EndTurn) or actions[0]

    # --- concurrent steps ---------------------------------------------------------------

    def _discard(self, state: GameState, seat: int, actions: list[Action]) -> Action:
        owed = state.discards[seat]
        hand = state.hands[seat].resources
        goal = _goal(state, seat, hand)
        need = goal[1] if goal else NO_CARDS
        left = list(hand)
        drop = [0] * 5
        for _ in range(owed):
            r = max(
                (i for i in range(5) if left[i]),
                key=lambda i: (left[i] - need[i], -SCARCITY[i], left[i]),
            )
            left[r] -= 1
            drop[r] += 1
        wanted = tuple(drop)
        for a in actions:
            if isinstance(a, Discard) and a.cards == wanted:
                return a
        return self._best(actions, lambda a: -_distance(sub(hand, a.cards), need))

    def _trade_step(self, state: GameState, seat: int, actions: list[Action]) -> Action:
        offer = state.trade
        assert offer is not None
        if seat == state.current:
            confirms = [a for a in actions if isinstance(a, ConfirmTrade)]
            hand = state.hands[seat].resources
            now = hand_worth(state, seat, hand)

            def gain(a: ConfirmTrade) -> float:  # what the trade with a.partner is worth
                give, get = offer.terms_with(state.seat(a.partner))
                return hand_worth(state, seat, add(sub(hand, give), get)) - now

            # Its own offer helps (it made it for that); a counter-offer only if it does.
            confirms = [
                a
                for a in confirms
                if offer.answers[state.seat(a.partner)] is Answer.ACCEPT or gain(a) > 0.01
            ]
            if confirms:
                return self._best(
                    confirms, lambda a: gain(a) - 0.01 * state.points(state.seat(a.partner))
                )
            return _first(actions, CancelTrade) or actions[0]
        accept = next((a for a in actions if isinstance(a, AnswerTrade) and a.accept), None)
        decline = next((a for a in actions if isinstance(a, AnswerTrade) and not a.accept), None)
        if self.trades and accept is not None and _trade_helps(state, seat, offer.give, offer.get):
            return accept
        if self.trades and decline is not None:
            counter = _counter(state, seat, actions)
            if counter is not None:
                return counter
        return decline or actions[0]


class NoTradeGreedyBot(GreedyBot):
    """The greedy bot without player trades: it never offers and declines every offer.

    The baseline for measuring what trading is worth (``benchmarks/trading.py``).
    """

    trades = False


# --- planning ----------------------------------------------------------------------------

_COSTS: dict[type, Counts] = {
    BuildCity: CITY_COST,
    BuildSettlement: SETTLEMENT_COST,
    BuyDevCard: DEV_CARD_COST,
    BuildRoad: ROAD_COST,
}


def _goal(state: GameState, seat: int, hand: Counts) -> tuple[type, Counts] | None:
    """What to build next: the first possible build whose cards are within trading reach."""
    h = state.hands[seat]
    possible: list[type] = []
    if h.settlements and h.cities_left > 0:
        possible.append(BuildCity)
    spots = _open_spots(state, seat)
    if spots and h.settlements_left > 0:
        possible.append(BuildSettlement)
    elif h.roads_left > 0 and h.settlements_left > 0:
        possible.append(BuildRoad)  # nowhere to settle: reach for a new spot
    if any(state.dev_deck):
        possible.append(BuyDevCard)
    if h.roads_left > 0 and BuildRoad not in possible:
        possible.append(BuildRoad)
    if not possible:
        return None
    for kind in possible:
        cost = _COSTS[kind]
        if _reach(state, seat, hand, cost) >= 0:
            return kind, cost
    return possible[0], _COSTS[possible[0]]


def _missing(hand: Counts, cost: Counts) -> list[int]:
    return [max(0, cost[i] - hand[i]) for i in range(5)]


def _spare(hand: Counts, cost: Counts) -> Counts:
    return tuple(max(0, hand[i] - cost[i]) for i in range(5))  # type: ignore[return-value]


def _reach(state: GameState, seat: int, hand: Counts, cost: Counts) -> int:
    """Bank trades to spare after trading for ``cost`` (negative: out of reach)."""
    missing = sum(_missing(hand, cost))
    spare = _spare(hand, cost)
    capacity = sum(spare[r] // state.rate(seat, r) for r in range(5))
    return capacity - missing


def _distance(hand: Counts, need: Counts) -> float:
    return sum(_missing(hand, need)) + 0.01 * sum(hand)


def _bank_trade(
    state: GameState, seat: int, hand: Counts, cost: Counts, actions: list[Action]
) -> Action | None:
    missing = _missing(hand, cost)
    if not any(missing) or _reach(state, seat, hand, cost) < 0:
        return None
    spare = _spare(hand, cost)
    trades = [a for a in actions if isinstance(a, MaritimeTrade)]
    best: Action | None = None
    best_key: tuple = ()
    for a in trades:
        give, get = int(a.give), int(a.get)
        if not missing[get] or spare[give] < state.rate(seat, give):
            continue
        key = (missing[get], spare[give] - state.rate(seat, give), -give)
        if best is None or key > best_key:
            best, best_key = a, key
    return best


def _offer(
    state: GameState, seat: int, hand: Counts, cost: Counts, actions: list[Action]
) -> Action | None:
    """One spare card for one card a build misses, when that build misses one or two.

    The plan's build is tried first, then the nearest other one; the card given is
    the one held most beyond that build's cost, and the offer must raise the hand's
    worth as an answer would judge it (``hand_worth``).
    """
    offers = {(a.give, a.get): a for a in actions if isinstance(a, OfferTrade)}
    costs = [cost] + sorted(
        (c for c in _COSTS.values() if c != cost), key=lambda c: sum(_missing(hand, c))
    )
    for target in costs:
        missing = _missing(hand, target)
        if not 1 <= sum(missing) <= 2:
            continue
        spare = _spare(hand, target)
        if not any(spare):
            continue
        get = max(range(5), key=lambda i: (missing[i], -SCARCITY[i], -i))
        give = max(range(5), key=lambda i: (spare[i], -i))
        one = [0] * 5
        want = [0] * 5
        one[give], want[get] = 1, 1
        offer = offers.get((tuple(one), tuple(want)))
        if offer is None:
            continue
        after = tuple(hand[r] - one[r] + want[r] for r in range(5))
        if hand_worth(state, seat, after) > hand_worth(state, seat, hand):  # type: ignore[arg-type]
            return offer
    return None


def hand_worth(state: GameState, seat: int, hand: Counts) -> float:
    """What a hand is worth to the seat's plans: near builds count most, cards a little.

    Each build the seat could still make adds its weight divided by one plus the cards
    it misses; every card adds a little; cards beyond seven (robber bait) cost a little.
    """
    h = state.hands[seat]
    weights: list[tuple[float, Counts]] = []
    if h.settlements and h.cities_left > 0:
        weights.append((3.0, CITY_COST))
    if h.settlements_left > 0 and _open_spots(state, seat):
        weights.append((3.0, SETTLEMENT_COST))
    if any(state.dev_deck):
        weights.append((1.5, DEV_CARD_COST))
    if h.roads_left > 0:
        weights.append((1.0, ROAD_COST))
    near = max((w / (1 + sum(_missing(hand, c))) for w, c in weights), default=0.0)
    cards = sum(hand)
    return near + 0.05 * cards - 0.1 * max(0, cards - 7)


def _trade_helps(state: GameState, seat: int, receive: Counts, pay: Counts) -> bool:
    """Accept when the hand is worth more after the trade, unless it feeds the leader.

    Fair and generous offers that bring a build nearer are taken; an offer from a
    player two points or less from victory, or leading the table, is refused.
    """
    offerer = state.current
    if state.public_points(offerer) >= state.victory_points - 2:
        return False  # do not hand the leader their last cards
    others = [state.public_points(s) for s in range(len(state.players)) if s != offerer]
    if state.public_points(offerer) > max(others) + 1:
        return False  # feeds the clear leader
    hand = state.hands[seat].resources
    if not covers(hand, pay):
        return False
    after = tuple(hand[r] - pay[r] + receive[r] for r in range(5))
    return hand_worth(state, seat, after) > hand_worth(state, seat, hand) + 0.01  # type: ignore[arg-type]


def _counter(state: GameState, seat: int, actions: list[Action]) -> AnswerTrade | None:
    """The counter-offer among ``actions`` that raises the hand's worth most
    (``_trade_helps``), if any (the bot loops offer a few: ``rules.menu.with_counters``)."""
    hand = state.hands[seat].resources
    best: tuple[float, AnswerTrade] | None = None
    for a in actions:
        if not isinstance(a, AnswerTrade) or not a.is_counter:
            continue
        give, get = a.give or NO_CARDS, a.get or NO_CARDS
        if not _trade_helps(state, seat, get, give):
            continue
        worth = hand_worth(state, seat, add(sub(hand, give), get))
        if best is None or worth > best[0]:
            best = (worth, a)
    return None if best is None else best[1]


def _plenty_score(hand: Counts, cost: Counts, a: PlayYearOfPlenty) -> float:
    missing = _missing(hand, cost)
    gain = 0.0
    for r in (int(a.first), int(a.second)):
        if missing[r] > 0:
            missing[r] -= 1
            gain += 1
        else:
            gain += 0.1 * SCARCITY[r]
    return gain


# --- places ------------------------------------------------------------------------------


def _vertex(state: GameState, a: Action) -> int:
    return state.board.graph.vertex_index[a.vertex]  # type: ignore[attr-defined]


def _production(state: GameState, seat: int) -> list[float]:
    """Pips the seat's buildings collect per resource (cities count twice)."""
    graph = state.board.graph
    hand = state.hands[seat]
    prod = [0.0] * 5
    for v in hand.settlements | hand.cities:
        mult = 2 if v in hand.cities else 1
        for t in graph.vertex_tiles[v]:
            r = graph.tile_resource[t]
            if r >= 0:
                prod[r] += mult * PIPS.get(graph.tile_number[t], 0)
    return prod


def _spot_score(state: GameState, seat: int, v: int, prod: list[float] | None = None) -> float:
    """How good a settlement at ``v`` is for the seat: pips, new resources and ports."""
    graph = state.board.graph
    if prod is None:
        prod = _production(state, seat)
    score = 0.0
    for t in graph.vertex_tiles[v]:
        r = graph.tile_resource[t]
        if r < 0:
            continue
        pips = PIPS.get(graph.tile_number[t], 0)
        fresh = 1.5 if prod[r] == 0 else 1.0
        blocked = 0.5 if t == state.robber else 1.0
        score += pips * SCARCITY[r] * fresh * blocked
    port = graph.vertex_port[v]
    if port == GENERIC_PORT:
        score += 1.5
    elif port != NO_PORT:
        score += 1.0 + prod[port] / 3
    return score


def _is_open(state: GameState, graph: BoardGraph, v: int) -> bool:
    owner = state.vertex_owner
    return owner[v] == NOBODY and all(owner[n] == NOBODY for n in graph.vertex_neighbours[v])


def _open_spots(state: GameState, seat: int) -> list[int]:
    """Vertices on the seat's roads where a settlement may go."""
    graph = state.board.graph
    hand = state.hands[seat]
    ends = {v for e in hand.roads for v in graph.edge_vertices[e]}
    return [v for v in ends if _is_open(state, graph, v)]


def _roads_worth_it(state: GameState, seat: int) -> bool:
    """Spare roads go toward the longest road award when it is within reach."""
    hand = state.hands[seat]
    best_other = max(
        (h.road_length for s, h in enumerate(state.hands) if s != seat),
        default=0,
    )
    return state.longest_road != seat and hand.road_length + 2 >= max(5, best_other)


def _road_score(state: GameState, seat: int, a: BuildRoad) -> float:
    """A road is worth the best open spot it leads to (one step further counts less)."""
    graph = state.board.graph
    e = graph.edge_index[a.edge]
    prod = _production(state, seat)
    best = 0.0
    for x in graph.edge_vertices[e]:
        if _is_open(state, graph, x):
            best = max(best, _spot_score(state, seat, x, prod))
        owner = state.vertex_owner[x]
        if owner != NOBODY and owner != seat:
            continue  # an opponent's building blocks the way on
        for y in graph.vertex_neighbours[x]:
            if _is_open(state, graph, y):
                best = max(best, 0.6 * _spot_score(state, seat, y, prod))
    return best


def _build_score(state: GameState, seat: int, a: Action) -> float:
    if isinstance(a, BuildCity):
        graph = state.board.graph
        v = _vertex(state, a)
        return sum(
            PIPS.get(graph.tile_number[t], 0) for t in graph.vertex_tiles[v] if t != state.robber
        )
    if isinstance(a, BuildSettlement):
        return _spot_score(state, seat, _vertex(state, a))
    if isinstance(a, BuildRoad):
        return _road_score(state, seat, a)
    return 0.0


# --- the robber --------------------------------------------------------------------------


def _leader(state: GameState, seat: int) -> int:
    others = [s for s in range(len(state.players)) if s != seat]
    return max(others, key=lambda s: (state.public_points(s), state.hands[s].card_count))


def _robber_hurts(state: GameState, seat: int) -> bool:
    graph = state.board.graph
    owner = state.vertex_owner
    return graph.tile_number[state.robber] > 0 and any(
        owner[v] == seat for v in graph.tile_vertices[state.robber]
    )


def _robber_score(state: GameState, seat: int, a: Action) -> float:
    assert isinstance(a, MoveRobber)
    graph = state.board.graph
    t = graph.tile_index[a.tile]
    pips = PIPS.get(graph.tile_number[t], 0)
    leader = _leader(state, seat)
    owner = state.vertex_owner
    score = 0.0
    for v in graph.tile_vertices[t]:
        o = owner[v]
        if o == NOBODY:
            continue
        weight = 2 if v in state.hands[o].cities else 1
        if o == seat:
            score -= 3 * pips * weight
        else:
            score += pips * weight * (2.0 if o == leader else 1.0)
    if a.victim is not None:
        victim = state.seat(a.victim)
        score += 2.0 if victim == leader else 1.0
    return score


def _first(actions: list[Action], kind: type) -> Action | None:
    for a in actions:
        if type(a) is kind:
            return a
    return None
