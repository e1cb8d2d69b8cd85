"""The strong bot: expectimax over our engine on a hand-tuned value function, in a time budget.

How it decides:

- **Only what its player may know.** Before searching, every opponent's development
  cards are replaced by a sample drawn from the cards nobody has seen (the deck plus
  everyone else's hidden cards), keeping each hand's size: the determinisation. Resource
  hands are taken as observed (every gain and payment is announced; a steal between two
  others is the one thing a card-counting player cannot see, a small simplification).
  Chance inside the search comes from the bot's own generator, never from the game's
  seed, so it cannot foresee dice, draws or steals.
- **Expectimax within the turn.** Each legal action (pruned where many are alike) is
  applied to the determinised position; chance nodes are expanded exactly (each
  development card the deck may hold, each card a robbed player may lose) and weighted
  by their probabilities; in the main phase a second ply of the bot's own builds and
  trades follows. Leaves are scored by ``value``: victory points first, then production
  (pips, diversity, ports), room to expand, progress of the hand toward the next build,
  development cards, army and road, minus the leading opponents' scores.
- **A time budget** (``think`` seconds, default 1): the second ply and the rollouts
  stop when it is spent. Left-over time goes to Monte Carlo rollouts of the best few
  candidates (each a few turns of greedy play by everyone on a fresh determinisation,
  with the bot's own dice), whose mean value refines the ranking.
- **Set-up.** A settlement is scored by ``value`` after it, in the first round plus a
  share of the best spot left open; a seat that places twice in a row scores its first
  spot by the best pair it makes with a second one.
- **Trades.** It offers one or two trades a turn when a trade raises its value and
  some opponent would gain from accepting (judged with the same value function from
  that opponent's seat), closes with the partner that leaves it best off, and accepts
  an offer only when its own gain outweighs what the offer gives a leading opponent.
"""

from __future__ import annotations

import random
import time
from functools import lru_cache

from catan_p2p.bots.greedy import GreedyBot
from catan_p2p.errors import IllegalAction
from catan_p2p.rules.actions import (
    Action,
    AnswerTrade,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ConfirmTrade,
    EndRoadBuilding,
    EndTurn,
    MoveRobber,
    OfferTrade,
    PlayKnight,
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
    DevCard,
    Resource,
    add,
    covers,
    dev_deck,
    sub,
)
from catan_p2p.rules.chance import Chance
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import NOBODY, GameState, Phase
from catan_p2p.rules.waiting import actors
from catan_p2p.trust.engine import step

DEFAULT_THINK = 1.0  # seconds per decision
MAX_OFFERS_PER_TURN = 2

# --- the value function -----------------------------------------------------------------

#: Weights of the value function (set by hand, checked in short matches against greedy
#: and catanatron's AlphaBeta; not fitted by self-play).
W_POINT = 30.0  # one victory point
W_PIP = 1.0  # one pip (a 36th of a card per roll) of production
W_NEW_RESOURCE = 3.0  # producing a resource at all
W_SPOT_NOW = 0.5  # pips of the best settlement spot on one's network
W_SPOT_NEAR = 0.25  # pips of the best spot one road away
W_CARD = 0.4  # any card in hand
W_OVER_SEVEN = -1.2  # each card beyond seven (half may be lost to a seven)
W_DEV = 2.5  # an unplayed development card
W_KNIGHT = 1.5  # a knight played (toward largest army)
W_ROAD = 0.5  # one road of one's longest road
W_BUILD = (6.0, 5.0, 2.0, 1.0)  # progress toward a city, settlement, dev card, road
W_OPP_MAX = 0.5  # the strongest opponent's score counts against
W_OPP_MEAN = 0.15  # ... and the others' mean
WIN = 10_000.0

#: Relative worth of a pip of each resource (brick and ore are scarcer).
RESOURCE_WEIGHT: tuple[float, ...] = (1.0, 1.05, 0.85, 1.05, 1.05)
_BUILDS: tuple[Counts, ...] = (CITY_COST, SETTLEMENT_COST, DEV_CARD_COST, ROAD_COST)


@lru_cache(maxsize=16)
def _tables(graph: BoardGraph) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Per vertex: pips of each resource around it; and its total pips."""
    per: list[tuple[int, ...]] = []
    for v in range(len(graph.vertices)):
        row = [0, 0, 0, 0, 0]
        for t in graph.vertex_tiles[v]:
            r = graph.tile_resource[t]
            if r >= 0:
                row[r] += PIPS.get(graph.tile_number[t], 0)
        per.append(tuple(row))
    return tuple(per), tuple(sum(r) for r in per)


def production(state: GameState, seat: int) -> list[float]:
    """Pips of each resource the seat's buildings collect (cities twice, robbed tile not)."""
    graph = state.board.graph
    hand = state.hands[seat]
    prod = [0.0] * 5
    robber = state.robber
    for v in hand.settlements:
        for t in graph.vertex_tiles[v]:
            r = graph.tile_resource[t]
            if r >= 0 and t != robber:
                prod[r] += PIPS.get(graph.tile_number[t], 0)
    for v in hand.cities:
        for t in graph.vertex_tiles[v]:
            r = graph.tile_resource[t]
            if r >= 0 and t != robber:
                prod[r] += 2 * PIPS.get(graph.tile_number[t], 0)
    return prod


def _spots(state: GameState, seat: int) -> tuple[float, float]:
    """Pips of the best open spot on the seat's network, and of the best one road away."""
    graph = state.board.graph
    owner = state.vertex_owner
    _, pips = _tables(graph)
    hand = state.hands[seat]
    if hand.settlements_left <= 0:
        return 0.0, 0.0
    neighbours = graph.vertex_neighbours
    network = set(hand.settlements | hand.cities)
    for e in hand.roads:
        a, b = graph.edge_vertices[e]
        network.add(a)
        network.add(b)
    now = near = 0.0
    edge_owner = state.edge_owner
    for v in network:
        if owner[v] != NOBODY and owner[v] != seat:
            continue
        if owner[v] == NOBODY and all(owner[n] == NOBODY for n in neighbours[v]):
            if pips[v] > now and hand.roads:
                now = pips[v]
        if hand.roads_left <= 0:
            continue
        for e in graph.vertex_edges[v]:
            if edge_owner[e] != NOBODY:
                continue
            a, b = graph.edge_vertices[e]
            w = b if a == v else a
            if owner[w] == NOBODY and all(owner[n] == NOBODY for n in neighbours[w]):
                if pips[w] > near:
                    near = pips[w]
    return now, near


def score(state: GameState, seat: int) -> float:
    """How well one seat stands, in points-equivalent units (from the state as given)."""
    hand = state.hands[seat]
    pts = state.points(seat)
    if pts >= state.victory_points:
        return WIN
    s = W_POINT * pts
    prod = production(state, seat)
    for r in range(5):
        if prod[r]:
            s += W_PIP * RESOURCE_WEIGHT[r] * prod[r] + W_NEW_RESOURCE
    for code in hand.ports:
        s += 2.0 if code == GENERIC_PORT else 0.8 + 0.25 * prod[code]
    now, near = _spots(state, seat)
    s += W_SPOT_NOW * now + W_SPOT_NEAR * near
    res = hand.resources
    n = res[0] + res[1] + res[2] + res[3] + res[4]
    s += W_CARD * min(n, 7)
    if n > 7:
        s += W_OVER_SEVEN * (n - 7)
    best = second = 0.0
    for i, cost in enumerate(_BUILDS):
        if i == 0 and (not hand.settlements or hand.cities_left <= 0):
            continue
        if i == 1 and ((now == 0 and near == 0) or hand.settlements_left <= 0):
            continue
        if i == 2 and not any(state.dev_deck):
            continue
        if i == 3 and hand.roads_left <= 0:
            continue
        have = 0
        for r in range(5):
            c = cost[r]
            if c:
                have += res[r] if res[r] < c else c
        frac = have / sum(cost)
        v = W_BUILD[i] * frac * frac
        if i == 1 and now == 0:
            v *= 0.6  # the spot is still a road away
        if v > best:
            best, second = v, best
        elif v > second:
            second = v
    s += best + 0.3 * second
    dev = hand.dev_cards
    new = hand.new_dev_cards
    s += W_DEV * (dev[0] + dev[2] + dev[3] + dev[4] + new[0] + new[2] + new[3] + new[4])
    s += W_KNIGHT * min(hand.knights, 5)
    s += W_ROAD * min(hand.road_length, 12)
    return s


def value(state: GameState, seat: int) -> float:
    """The seat's score minus the leading opponents' (a win is worth everything)."""
    if state.winner != NOBODY:
        return WIN if state.winner == seat else -WIN
    mine = score(state, seat)
    others = [score(state, s) for s in range(len(state.players)) if s != seat]
    top = max(others)
    return mine - W_OPP_MAX * top - W_OPP_MEAN * (sum(others) / len(others))


# --- hidden information -----------------------------------------------------------------


def unseen_cards(state: GameState, seat: int) -> list[int]:
    """Development cards the seat has not seen: the deck plus the others' hidden cards."""
    pool = list(dev_deck(len(state.players)))
    for s, hand in enumerate(state.hands):
        for c in range(5):
            pool[c] -= hand.played[c]
            if s == seat:
                pool[c] -= hand.dev_cards[c] + hand.new_dev_cards[c]
    return pool


def determinise(state: GameState, seat: int, rng: random.Random) -> GameState:
    """``state`` with the opponents' hidden development cards and the deck resampled.

    Each opponent keeps as many held and as many new cards as the state says (that is
    public); which cards they are is drawn from the cards ``seat`` has not seen.
    """
    pool = unseen_cards(state, seat)
    bag = [c for c in range(5) for _ in range(pool[c])]
    rng.shuffle(bag)
    hands = list(state.hands)
    for s, hand in enumerate(hands):
        if s == seat:
            continue
        held, new = sum(hand.dev_cards), sum(hand.new_dev_cards)
        if not held and not new:
            continue
        d = [0] * 5
        for _ in range(held):
            d[bag.pop()] += 1
        nd = [0] * 5
        for _ in range(new):
            nd[bag.pop()] += 1
        hands[s] = hand._replace(dev_cards=tuple(d), new_dev_cards=tuple(nd))
    deck = [0] * 5
    for c in bag:
        deck[c] += 1
    return state._replace(hands=tuple(hands), dev_deck=tuple(deck))


class OwnChance(Chance):
    """Chance for the search: the bot's own generator, never the game's seed."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def randrange(self, n: int) -> int:
        return self.rng.randrange(n)


# --- the bot ----------------------------------------------------------------------------


class StrongBot:
    """Expectimax over the engine on ``value``, with a time budget per decision."""

    def __init__(self, seed: object = 0, think: float = DEFAULT_THINK) -> None:
        self.rng = random.Random(str(seed))
        self.think = float(think)
        self.chance = OwnChance(self.rng)
        self.decision_ms: list[float] = []  # wall time of every decision with a choice
        self._turn = -1
        self._offers = 0
        self._offered: set[tuple] = set()

    def decide(self, state: GameState, actions: list[Action]) -> Action:
        if len(actions) == 1:
            return actions[0]
        start = time.perf_counter()
        try:
            return self._decide(state, actions, start + self.think)
        finally:
            self.decision_ms.append((time.perf_counter() - start) * 1000)

    # --- dispatch ---------------------------------------------------------------------

    def _decide(self, state: GameState, actions: list[Action], deadline: float) -> Action:
        seat = state.players.index(actions[0].player)
        if state.turn != self._turn:
            self._turn, self._offers, self._offered = state.turn, 0, set()
        view = determinise(state, seat, self.rng)
        phase = state.phase
        if phase is Phase.TRADE:
            return self._trade_step(view, seat, actions)
        if phase is Phase.DISCARD:
            return self._best(view, seat, actions, deadline, depth=1)
        if phase is Phase.ROLL:
            return self._roll_phase(view, seat, actions, deadline)
        if phase is Phase.MAIN:
            return self._main(view, seat, actions, deadline)
        if phase in (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD):
            return self._setup(view, seat, actions, deadline)
        return self._best(view, seat, actions, deadline, depth=1)

    # --- evaluation of one action --------------------------------------------------------

    def _outcomes(self, state: GameState, action: Action) -> list[tuple[float, Action]]:
        """The chance outcomes of ``action`` with their probabilities (exact where small)."""
        if isinstance(action, BuyDevCard):
            deck = state.dev_deck
            total = sum(deck)
            return [
                (deck[c] / total, BuyDevCard(action.player, DevCard(c)))
                for c in range(5)
                if deck[c]
            ]
        if isinstance(action, MoveRobber) and action.victim is not None:
            res = state.hands[state.seat(action.victim)].resources
            total = sum(res)
            return [
                (res[r] / total, MoveRobber(action.player, action.tile, action.victim, Resource(r)))
                for r in range(5)
                if res[r]
            ]
        if isinstance(action, RollDice):
            return [(1.0, action)]  # sampled by the bot's own chance
        return [(1.0, action)]

    def _apply(self, state: GameState, action: Action) -> GameState | None:
        try:
            return step(state, action, self.chance)[0]
        except IllegalAction:
            return None

    def _eval(
        self, state: GameState, seat: int, action: Action, depth: int, deadline: float
    ) -> float:
        total = 0.0
        for p, outcome in self._outcomes(state, action):
            child = self._apply(state, outcome)
            if child is None:
                return float("-inf")
            v = value(child, seat)
            if (
                depth > 1
                and child.current == seat
                and child.phase in _SECOND_PLY
                and child.winner == NOBODY
                and time.perf_counter() < deadline
            ):
                follow = _followups(child, seat)
                if child.phase is not Phase.MAIN and follow:
                    v = float("-inf")  # the robber or the free roads must be placed
                for b in follow:
                    v2 = 0.0
                    for p2, o2 in self._outcomes(child, b):
                        c2 = self._apply(child, o2)
                        v2 += p2 * (value(c2, seat) if c2 is not None else -WIN)
                    if v2 > v:
                        v = v2
            total += p * v
        return total

    def _ranked(
        self, state: GameState, seat: int, actions: list[Action], deadline: float, depth: int
    ) -> list[tuple[float, Action]]:
        scored = []
        for i, a in enumerate(actions):
            d = depth if time.perf_counter() < deadline else 1
            scored.append((self._eval(state, seat, a, d, deadline), -i, a))
        scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
        return [(s, a) for s, _, a in scored]

    def _best(
        self, state: GameState, seat: int, actions: list[Action], deadline: float, depth: int
    ) -> Action:
        ranked = self._ranked(state, seat, actions, deadline, depth)
        return self._refine(state, seat, ranked, deadline)

    def _refine(
        self, state: GameState, seat: int, ranked: list[tuple[float, Action]], deadline: float
    ) -> Action:
        """Spend the time left on rollouts of the best few candidates when they are close."""
        best = ranked[0]
        close = [r for r in ranked[:4] if r[0] > best[0] - 8.0 and r[0] > -WIN / 2]
        if len(close) < 2 or best[0] >= WIN / 2:
            return best[1]
        sums = {id(a): [0.0, 0] for _, a in close}
        while time.perf_counter() < deadline:
            view = determinise(state, seat, self.rng)
            for _, a in close:
                if time.perf_counter() >= deadline:
                    break
                v = self._rollout(view, seat, a, deadline)
                if v is None:
                    continue
                acc = sums[id(a)]
                acc[0] += v
                acc[1] += 1
        if min(acc[1] for acc in sums.values()) < 2:
            return best[1]

        # Blend the static value with the rollout mean (both are in value units).
        def blended(item: tuple[float, Action]) -> float:
            static, a = item
            acc = sums[id(a)]
            return 0.5 * static + 0.5 * acc[0] / acc[1]

        return max(close, key=blended)[1]

    def _rollout(
        self, state: GameState, seat: int, action: Action, deadline: float
    ) -> float | None:
        """Play ``action`` then about one round of greedy play by everyone; value at the end."""
        s = self._apply(state, action)
        if s is None:
            return None
        players = state.players
        bots = {p: GreedyBot(self.rng.random()) for p in players}
        start_turn = s.turn
        n = 0
        while s.phase is not Phase.GAME_OVER and n < 400:
            if s.turn >= start_turn + len(players) + (0 if s.current != seat else 0):
                break
            if n % 16 == 0 and time.perf_counter() >= deadline:
                break
            who = actors(s)
            player = who[1] if len(who) > 1 and s.phase is Phase.TRADE else who[0]
            options = legal_actions(s, player)
            if not options:
                break  # nothing to choose here (a step only the session answers)
            if s.phase is Phase.MAIN:
                options = [a for a in options if not isinstance(a, OfferTrade)]
            a = bots[player].decide(s, options)
            nxt = self._apply(s, a)
            if nxt is None:
                break
            s = nxt
            n += 1
        return value(s, seat)

    # --- phases -----------------------------------------------------------------------

    def _setup(self, state: GameState, seat: int, actions: list[Action], deadline: float) -> Action:
        if state.phase is Phase.SETUP_ROAD:
            return self._best(state, seat, actions, deadline, depth=1)
        # Settlement: its own value, plus the best second spot still open (first round).
        graph = state.board.graph
        _, pips = _tables(graph)
        at = state.setup_step
        first_round = at < len(state.players)
        # The seat that places twice in a row picks its pair outright: nobody can take
        # the second spot in between. (Guessing the others' picks in between was tried
        # for every seat and lost more games in the first seat than it won.)
        twice = first_round and state.setup_order[at + 1] == seat
        scored = []
        for i, a in enumerate(actions):
            child = self._apply(state, a)
            if child is None:
                continue
            if twice:
                v = _pair_value(child, seat, pips)
            else:
                v = value(child, seat)
                if first_round:
                    v += 0.3 * _best_open(child, pips)
            scored.append((v, -i, a))
        scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
        return scored[0][2]

    def _roll_phase(
        self, state: GameState, seat: int, actions: list[Action], deadline: float
    ) -> Action:
        roll = next(a for a in actions if isinstance(a, RollDice))
        knight = next((a for a in actions if isinstance(a, PlayKnight)), None)
        if knight is None:
            return roll
        graph = state.board.graph
        robbed_me = any(state.vertex_owner[v] == seat for v in graph.tile_vertices[state.robber])
        after = self._apply(state, knight)
        if after is None:
            return roll
        army = after.largest_army == seat and state.largest_army != seat
        if robbed_me or army or after.winner == seat:
            return knight
        return roll

    def _main(self, state: GameState, seat: int, actions: list[Action], deadline: float) -> Action:
        candidates = _prune(state, seat, actions)
        ranked = self._ranked(state, seat, candidates, deadline, depth=2)
        best_v, best = ranked[0]
        end_v = next((v for v, a in ranked if isinstance(a, EndTurn)), None)
        # A trade offer when no build or trade with the bank does better.
        if self._offers < MAX_OFFERS_PER_TURN and (
            isinstance(best, EndTurn) or (end_v is not None and best_v - end_v < 1.0)
        ):
            offer = self._offer(state, seat)
            if offer is not None:
                self._offers += 1
                return offer
        return (
            self._refine(state, seat, ranked, deadline) if not isinstance(best, EndTurn) else best
        )

    # --- trades -------------------------------------------------------------------------

    def _offer(self, state: GameState, seat: int) -> Action | None:
        """The best one- or two-for-one offer that helps us and some opponent would take."""
        hand = state.hands[seat].resources
        name = state.players[seat]
        now = value(state, seat)
        best: tuple[float, Action] | None = None
        for get in range(5):
            for give in range(5):
                if give == get:
                    continue
                for n_give in (1, 2):
                    if hand[give] < n_give:
                        continue
                    g = [0] * 5
                    g[give] = n_give
                    w = [0] * 5
                    w[get] = 1
                    key = (tuple(g), tuple(w))
                    if key in self._offered:
                        continue
                    after = _swap(state, seat, tuple(g), tuple(w))
                    gain = value(after, seat) - now
                    if gain < 1.0:
                        continue
                    if not any(
                        _would_accept(state, o, tuple(g), tuple(w), seat)
                        for o in range(len(state.players))
                        if o != seat
                    ):
                        continue
                    gain -= 0.5 * (n_give - 1)
                    if best is None or gain > best[0]:
                        best = (gain, OfferTrade(name, tuple(g), tuple(w)))
        if best is None:
            return None
        a = best[1]
        self._offered.add((a.give, a.get))  # type: ignore[attr-defined]
        return a

    def _trade_step(self, state: GameState, seat: int, actions: list[Action]) -> Action:
        offer = state.trade
        assert offer is not None
        if seat == state.current:
            now = value(state._replace(trade=None, phase=Phase.MAIN), seat)
            best: tuple[float, Action] | None = None
            for a in actions:
                if isinstance(a, ConfirmTrade):
                    after = self._apply(state, a)
                    if after is None:
                        continue
                    v = value(after, seat)
                    if v > now and (best is None or v > best[0]):
                        best = (v, a)
            if best is not None:
                return best[1]
            return next((a for a in actions if isinstance(a, CancelTrade)), actions[0])
        accept = next((a for a in actions if isinstance(a, AnswerTrade) and a.accept), None)
        decline = next((a for a in actions if isinstance(a, AnswerTrade) and not a.accept), None)
        if accept is not None and _would_accept(state, seat, offer.give, offer.get, state.current):
            return accept
        if decline is not None:
            counter = self._counter(state, seat, actions)
            if counter is not None:
                return counter
        return decline or actions[0]

    def _counter(self, state: GameState, seat: int, actions: list[Action]) -> AnswerTrade | None:
        """The counter-offer that raises our value most, when we would take it ourselves
        (``_would_accept``) and the offerer gains from it too (it may take it)."""
        offerer = state.current
        base = state._replace(trade=None, phase=Phase.MAIN)
        now = value(base, seat)
        best: tuple[float, AnswerTrade] | None = None
        for a in actions:
            if not isinstance(a, AnswerTrade) or not a.is_counter:
                continue
            give, get = a.give or NO_CARDS, a.get or NO_CARDS
            if not _would_accept(state, seat, get, give, offerer):
                continue
            after = _swap(_swap(base, seat, give, get), offerer, get, give)
            if value(after, offerer) <= value(base, offerer):
                continue  # the offerer would not take it
            gain = value(after, seat) - now
            if best is None or gain > best[0]:
                best = (gain, a)
        return None if best is None else best[1]


# --- helpers ------------------------------------------------------------------------------


def _swap(state: GameState, seat: int, give: Counts, get: Counts) -> GameState:
    """``state`` after the seat gave ``give`` and got ``get`` (no checks; for evaluation)."""
    hands = list(state.hands)
    h = hands[seat]
    hands[seat] = h._replace(resources=add(sub(h.resources, give), get))
    return state._replace(hands=tuple(hands))


def _would_accept(state: GameState, seat: int, receive: Counts, pay: Counts, offerer: int) -> bool:
    """Whether ``seat`` gains from receiving ``receive`` for ``pay`` from ``offerer``."""
    if not covers(state.hands[seat].resources, pay):
        return False
    if state.public_points(offerer) >= state.victory_points - 2:
        return False  # never hand a player about to win the last cards
    base = state._replace(trade=None, phase=Phase.MAIN) if state.phase is Phase.TRADE else state
    after = _swap(_swap(base, seat, pay, receive), offerer, receive, pay)
    mine = score(after, seat) - score(base, seat)
    return mine > 0.5 and value(after, seat) - value(base, seat) > 0.3


def _place(state: GameState, seat: int, v: int) -> GameState:
    """``state`` with a settlement of the seat at ``v`` (no checks, no cards; for evaluation)."""
    port = state.board.graph.vertex_port[v]
    h = state.hands[seat]
    hands = list(state.hands)
    hands[seat] = h._replace(
        settlements=h.settlements | {v}, ports=h.ports | {port} if port != NO_PORT else h.ports
    )
    owner = list(state.vertex_owner)
    owner[v] = seat
    return state._replace(hands=tuple(hands), vertex_owner=tuple(owner))


def _open_by_pips(state: GameState, pips: tuple[int, ...]) -> list[int]:
    """Open settlement spots (distance rule), the richest first."""
    owner = state.vertex_owner
    neighbours = state.board.graph.vertex_neighbours
    spots = [
        v
        for v in range(len(pips))
        if owner[v] == NOBODY and all(owner[n] == NOBODY for n in neighbours[v])
    ]
    spots.sort(key=lambda v: -pips[v])
    return spots


def _pair_value(child: GameState, seat: int, pips: tuple[int, ...], top: int = 8) -> float:
    """Value after a first set-up settlement and the best second one (of the richest
    ``top`` still open), for a seat that places both in a row.

    Scoring the first spot alone plus a bonus for the best spot left open picks spots
    that are good apart but poor together (in 2p the second seat ended with one pip of
    grain and no city in sight); scoring the pair weighs what the two produce together.
    """
    best = value(child, seat)
    for v in _open_by_pips(child, pips)[:top]:
        best = max(best, value(_place(child, seat, v), seat))
    return best


def _best_open(state: GameState, pips: tuple[int, ...]) -> float:
    owner = state.vertex_owner
    neighbours = state.board.graph.vertex_neighbours
    best = 0
    for v, p in enumerate(pips):
        if p > best and owner[v] == NOBODY and all(owner[n] == NOBODY for n in neighbours[v]):
            best = p
    return float(best)


_FOLLOW = (BuildCity, BuildSettlement, BuildRoad, BuyDevCard)
_SECOND_PLY = (Phase.MAIN, Phase.MOVE_ROBBER, Phase.ROAD_BUILDING)


def _followups(state: GameState, seat: int) -> list[Action]:
    """The second ply: the seat's builds after a first action (or its robber move or
    free road when the first action was a card)."""
    actions = legal_actions(state, state.players[seat])
    if state.phase is not Phase.MAIN:
        return [a for a in actions if not isinstance(a, EndRoadBuilding)]
    return [a for a in actions if isinstance(a, _FOLLOW)]


def _prune(state: GameState, seat: int, actions: list[Action]) -> list[Action]:
    """Main-phase candidates: everything but player offers (those are made apart)."""
    out = []
    for a in actions:
        if isinstance(a, OfferTrade):
            continue
        out.append(a)
    return out


__all__ = ["DEFAULT_THINK", "StrongBot", "determinise", "score", "unseen_cards", "value"]
