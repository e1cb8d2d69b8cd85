"""catanatron's players: weighted random, value function and AlphaBeta.

The weighted-random player ships with catanatron 3.2.1. Its value-function and
AlphaBeta players lived in the unpublished ``catanatron_experimental`` package at that
version (and moved into ``catanatron.players`` later), so ``load_player`` takes them
from wherever they are installed and otherwise uses the faithful ports below, written
for catanatron 3.2.1's engine after its source: the same value function (``base_fn``
with ``DEFAULT_WEIGHTS``: public points, effective production and variety, the next
player's production, production reachable with one road, hand synergy, buildable
nodes, tiles touched, hand size, discard penalty, road length, development cards,
army) and the same search (AlphaBeta to depth 2 where every node is the expectation
over the outcomes of its action: each roll, each development card at the starting
deck's odds, each stolen resource at one fifth).

``implementation(kind)`` says which one a run used. Checked against catanatron's own
code of that era (``catanatron_experimental`` and ``catanatron_gym.features`` at commit
87c4aec, the 3.2.0 release) on positions of three random catanatron games: the value
function agreed on 1800 of 1800 positions, AlphaBeta chose the same action in 83 of 84
decisions.
"""

from __future__ import annotations

import importlib
import math
import random
import time
from collections.abc import Callable

from catanatron.models.decks import starting_devcard_proba
from catanatron.models.enums import (
    CITY,
    DEVELOPMENT_CARDS,
    RESOURCES,
    SETTLEMENT,
    Action,
    ActionType,
)
from catanatron.models.map import number_probability
from catanatron.models.player import Player
from catanatron.players.weighted_random import WeightedRandomPlayer

#: catanatron's DEFAULT_WEIGHTS of ``base_fn``.
DEFAULT_WEIGHTS: dict[str, float] = {
    "public_vps": 3e14,
    "production": 1e8,
    "enemy_production": -1e8,
    "num_tiles": 1,
    "reachable_production_0": 0,
    "reachable_production_1": 1e4,
    "buildable_nodes": 1e3,
    "longest_road": 10,
    "hand_synergy": 1e2,
    "hand_resources": 1,
    "discard_penalty": -5,
    "hand_devs": 10,
    "army_size": 10.1,
}
TRANSLATE_VARIETY = 4  # each resource produced at all is worth 4 production points
ALPHABETA_DEPTH = 2
MAX_SEARCH_SECONDS = 20

_GENUINE = {
    "value": [
        ("catanatron.players.value", "ValueFunctionPlayer"),
        ("catanatron_experimental.machine_learning.players.minimax", "ValueFunctionPlayer"),
    ],
    "alphabeta": [
        ("catanatron.players.minimax", "AlphaBetaPlayer"),
        ("catanatron_experimental.machine_learning.players.minimax", "AlphaBetaPlayer"),
    ],
}

KINDS: tuple[str, ...] = ("weighted", "value", "alphabeta")


def _genuine(kind: str) -> type | None:
    for module, name in _GENUINE.get(kind, []):
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
    return None


def implementation(kind: str) -> str:
    """Where the player of ``kind`` comes from: catanatron itself or our port."""
    if kind == "weighted":
        return "catanatron.players.weighted_random.WeightedRandomPlayer"
    cls = _genuine(kind)
    if cls is not None:
        return f"{cls.__module__}.{cls.__name__}"
    return f"catan_p2p port of catanatron's {'AlphaBetaPlayer' if kind == 'alphabeta' else 'ValueFunctionPlayer'}"


def load_player(kind: str, color) -> Player:  # type: ignore[no-untyped-def]
    """A catanatron player of ``kind`` (weighted, value, alphabeta) for ``color``."""
    if kind == "weighted":
        return WeightedRandomPlayer(color)
    cls = _genuine(kind)
    if cls is not None:
        return cls(color)
    if kind == "value":
        return ValueFunctionPort(color)
    if kind == "alphabeta":
        return AlphaBetaPort(color)
    raise ValueError(f"unknown catanatron player {kind!r}; choose from {', '.join(KINDS)}")


# --- the value function ---------------------------------------------------------------


def _node_production(catan_map, node: int) -> float:  # type: ignore[no-untyped-def]
    return sum(
        number_probability(t.number) for t in catan_map.adjacent_tiles.get(node, ()) if t.resource
    )


def _production(game, color) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Production per resource of a colour's buildings, robbed nodes left out."""
    state = game.state
    board = state.board
    cmap = board.map
    robbed = set(cmap.tiles[board.robber_coordinate].nodes.values())
    out = dict.fromkeys(RESOURCES, 0.0)
    for kind, mult in ((SETTLEMENT, 1), (CITY, 2)):
        for node in state.buildings_by_color[color][kind]:
            if node in robbed:
                continue
            for t in cmap.adjacent_tiles[node]:
                if t.resource is not None:
                    out[t.resource] += mult * number_probability(t.number)
    return out


def _value_production(prod: dict[str, float], variety: bool) -> float:
    total = sum(prod.values())
    if variety:
        total += sum(1 for v in prod.values() if v) * TRANSLATE_VARIETY * 2.778 / 100
    return total


def _reachable_at_one(game, color) -> float:  # type: ignore[no-untyped-def]
    """Production of the owned or buildable nodes reachable with at most one more road."""
    from catanatron.models.board import STATIC_GRAPH

    state = game.state
    board = state.board
    zero = set()
    for component in board.connected_components[color]:
        zero |= component
    enemy_nodes = {n for n, b in board.buildings.items() if b[0] != color}
    level = set(zero)
    for node in zero:
        if node in enemy_nodes:
            continue
        for nb in STATIC_GRAPH.neighbors(node):
            c = board.roads.get((node, nb))
            if c is None or c == color:
                level.add(nb)
    owned = set(state.buildings_by_color[color][SETTLEMENT]) | set(
        state.buildings_by_color[color][CITY]
    )
    targets = (owned | board.board_buildable_ids) & level
    return sum(_node_production(board.map, n) for n in targets)


def base_value(game, color, weights: dict[str, float] = DEFAULT_WEIGHTS) -> float:  # type: ignore[no-untyped-def]
    """catanatron's ``base_fn`` value of ``game`` for ``color``."""
    state = game.state
    ps = state.player_state
    index = state.colors.index(color)
    key = f"P{index}"
    nxt = state.colors[(index + 1) % len(state.colors)]
    production = _value_production(_production(game, color), True)
    enemy = _value_production(_production(game, nxt), False)
    reach1 = _reachable_at_one(game, color)
    hand = {r: ps[f"{key}_{r}_IN_HAND"] for r in RESOURCES}
    to_city = (max(2 - hand["WHEAT"], 0) + max(3 - hand["ORE"], 0)) / 5.0
    to_settlement = (
        max(1 - hand["WHEAT"], 0)
        + max(1 - hand["SHEEP"], 0)
        + max(1 - hand["BRICK"], 0)
        + max(1 - hand["WOOD"], 0)
    ) / 4.0
    synergy = (2 - to_city - to_settlement) / 2
    in_hand = sum(hand.values())
    discard = weights["discard_penalty"] if in_hand > 7 else 0
    owned = state.buildings_by_color[color][SETTLEMENT] + state.buildings_by_color[color][CITY]
    tiles = set()
    for n in owned:
        tiles.update(id(t) for t in state.board.map.adjacent_tiles[n])
    buildable = len(state.board.buildable_node_ids(color))
    road_factor = weights["longest_road"] if buildable == 0 else 0.1
    devs = sum(ps[f"{key}_{c}_IN_HAND"] for c in DEVELOPMENT_CARDS)
    return float(
        ps[f"{key}_VICTORY_POINTS"] * weights["public_vps"]
        + production * weights["production"]
        + enemy * weights["enemy_production"]
        + reach1 * weights["reachable_production_1"]
        + synergy * weights["hand_synergy"]
        + buildable * weights["buildable_nodes"]
        + len(tiles) * weights["num_tiles"]
        + in_hand * weights["hand_resources"]
        + discard
        + ps[f"{key}_LONGEST_ROAD_LENGTH"] * road_factor
        + devs * weights["hand_devs"]
        + ps[f"{key}_PLAYED_KNIGHT"] * weights["army_size"]
    )


class ValueFunctionPort(Player):
    """catanatron's ValueFunctionPlayer: the action whose (sampled) result values best."""

    def __init__(self, color, value_fn: Callable = base_value) -> None:  # type: ignore[no-untyped-def]
        super().__init__(color)
        self.value_fn = value_fn

    def decide(self, game, playable_actions):  # type: ignore[no-untyped-def]
        if len(playable_actions) == 1:
            return playable_actions[0]
        best, best_value = None, float("-inf")
        for action in playable_actions:
            copy = game.copy()
            copy.execute(action, validate_action=False)
            v = self.value_fn(copy, self.color)
            if v > best_value:
                best, best_value = action, v
        return best


# --- AlphaBeta ---------------------------------------------------------------------------

_DETERMINISTIC = {
    ActionType.END_TURN,
    ActionType.BUILD_SETTLEMENT,
    ActionType.BUILD_ROAD,
    ActionType.BUILD_CITY,
    ActionType.PLAY_KNIGHT_CARD,
    ActionType.PLAY_YEAR_OF_PLENTY,
    ActionType.PLAY_ROAD_BUILDING,
    ActionType.MARITIME_TRADE,
    ActionType.DISCARD,
    ActionType.PLAY_MONOPOLY,
}


def outcomes(game, action) -> list[tuple[object, float]]:  # type: ignore[no-untyped-def]
    """(game after, probability) for each outcome of ``action`` (catanatron's spectrum)."""
    t = action.action_type
    if t in _DETERMINISTIC:
        copy = game.copy()
        copy.execute(action, validate_action=False)
        return [(copy, 1.0)]
    results = []
    if t is ActionType.BUY_DEVELOPMENT_CARD:
        for card in DEVELOPMENT_CARDS:
            copy = game.copy()
            try:
                copy.execute(Action(action.color, t, card), validate_action=False)
            except Exception:  # noqa: BLE001 - an impossible card leaves the node as it was
                pass
            results.append((copy, starting_devcard_proba(card)))
        return results
    if t is ActionType.ROLL:
        for roll in range(2, 13):
            copy = game.copy()
            dice = (roll // 2, math.ceil(roll / 2))
            copy.execute(Action(action.color, t, dice), validate_action=False)
            results.append((copy, number_probability(roll)))
        return results
    if t is ActionType.MOVE_ROBBER:
        coordinate, victim, _ = action.value
        if victim is None:
            copy = game.copy()
            copy.execute(action, validate_action=False)
            return [(copy, 1.0)]
        for card in RESOURCES:
            copy = game.copy()
            try:
                copy.execute(
                    Action(action.color, t, (coordinate, victim, card)), validate_action=False
                )
            except Exception:  # noqa: BLE001 - as catanatron: the victim may lack the card
                pass
            results.append((copy, 0.2))
        return results
    raise RuntimeError(f"unknown action type {t}")


class AlphaBetaPort(Player):
    """catanatron's AlphaBetaPlayer: depth-2 expecti-alpha-beta on ``base_value``."""

    def __init__(
        self, color, depth: int = ALPHABETA_DEPTH, value_fn: Callable = base_value
    ) -> None:  # type: ignore[no-untyped-def]
        super().__init__(color)
        self.depth = depth
        self.value_fn = value_fn

    def decide(self, game, playable_actions):  # type: ignore[no-untyped-def]
        if len(playable_actions) == 1:
            return playable_actions[0]
        deadline = time.monotonic() + MAX_SEARCH_SECONDS
        action, _ = self._search(game.copy(), self.depth, float("-inf"), float("inf"), deadline)
        return action if action is not None else random.choice(playable_actions)

    def _search(self, game, depth, alpha, beta, deadline):  # type: ignore[no-untyped-def]
        if depth == 0 or game.winning_color() is not None or time.monotonic() >= deadline:
            return None, self.value_fn(game, self.color)
        maximising = game.state.current_color() == self.color
        best_action = None
        best = float("-inf") if maximising else float("inf")
        for action in list(game.state.playable_actions):
            expected = 0.0
            for child, p in outcomes(game, action):
                expected += p * self._search(child, depth - 1, alpha, beta, deadline)[1]
            if maximising:
                if expected > best:
                    best_action, best = action, expected
                alpha = max(alpha, best)
            else:
                if expected < best:
                    best_action, best = action, expected
                beta = min(beta, best)
            if alpha >= beta:
                break
        return best_action, best


# --- as a seat of our games --------------------------------------------------------------


class CatanatronBot:
    """A catanatron player in one of our seats (our ``Bot`` protocol).

    It sees the position as its player may: the opponents' development cards are a
    determinisation (``bots.strong.determinise``), never the real ones. catanatron has
    no player trade, so it declines every offer and makes none; where catanatron lets
    chance pick the cards of a discard, its own generator picks them among ours.
    """

    def __init__(self, kind: str, seed: object = 0) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown catanatron player {kind!r}; choose from {', '.join(KINDS)}")
        self.kind = kind
        self.rng = random.Random(str(seed))
        self._players: dict = {}
        self.decision_ms: list[float] = []

    def decide(self, state, actions):  # type: ignore[no-untyped-def]
        from catan_p2p.bots.strong import determinise
        from catan_p2p.bridges.catanatron import (
            action_from_catanatron,
            action_key,
            action_to_catanatron,
            colors_of,
            to_catanatron,
        )
        from catan_p2p.rules.actions import AnswerTrade, CancelTrade, Discard, OfferTrade
        from catan_p2p.rules.state import Phase

        if len(actions) == 1:
            return actions[0]
        start = time.perf_counter()
        try:
            if state.phase is Phase.TRADE:
                for a in actions:
                    if isinstance(a, (CancelTrade,)) or (
                        isinstance(a, AnswerTrade) and not a.accept
                    ):
                        return a
                return actions[0]
            if state.phase is Phase.DISCARD:
                return self.rng.choice([a for a in actions if isinstance(a, Discard)])
            player = actions[0].player
            seat = state.seat(player)
            view = determinise(state, seat, self.rng)
            game = to_catanatron(view, actor=player)
            ours = {}
            for a in actions:
                if isinstance(a, OfferTrade):
                    continue
                c = action_to_catanatron(state, a)
                if c is not None:
                    ours[action_key(c)] = a
            playable = [c for c in game.state.playable_actions if action_key(c) in ours]
            if not playable:
                return self.rng.choice(
                    [a for a in actions if not isinstance(a, OfferTrade)] or actions
                )
            game.state.playable_actions = playable
            color = colors_of(state)[seat]
            bot = self._players.get(color)
            if bot is None:
                bot = self._players[color] = load_player(self.kind, color)
            choice = bot.decide(game, playable)
            back = action_from_catanatron(state, choice)
            if back is not None and back.unresolved() in actions:
                return back.unresolved()
            return ours[action_key(choice)]
        finally:
            self.decision_ms.append((time.perf_counter() - start) * 1000)
