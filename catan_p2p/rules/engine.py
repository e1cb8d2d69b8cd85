"""The rules: which actions are legal now, and what an action does to the state.

``legal_actions(state)`` lists what may be done; ``apply(state, action, chance)``
returns the next state or raises ``IllegalAction`` naming the rule broken, leaving the
given state untouched (states are immutable). ``step`` also returns the action with
its chance outcomes filled in, which is what a replicated log records.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from itertools import combinations_with_replacement
from types import SimpleNamespace

from catan_p2p.errors import IllegalAction, UsageError
from catan_p2p.rules import deck as cards_deck
from catan_p2p.rules import special_build
from catan_p2p.rules.actions import (
    Abandon,
    Action,
    AnswerTrade,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ClaimSeat,
    ClaimVictory,
    ConfirmTrade,
    Discard,
    EndRoadBuilding,
    EndSpecialBuild,
    EndTurn,
    GiveCard,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RevealDeck,
    RevealDice,
    RollDice,
    ShowSteal,
)
from catan_p2p.rules.board import NO_PORT, BoardGraph
from catan_p2p.rules.cards import (
    CITY_COST,
    DEV_CARD_COST,
    NO_CARDS,
    RESOURCES,
    ROAD_COST,
    SETTLEMENT_COST,
    Counts,
    DevCard,
    Resource,
    add,
    covers,
    format_counts,
    one,
    sub,
)
from catan_p2p.rules.chance import Chance, follows, roll_of, stolen_index
from catan_p2p.rules.hexgrid import format_place, format_tile
from catan_p2p.rules.roads import longest_road
from catan_p2p.rules.state import (
    DISCARD_LIMIT,
    LARGEST_ARMY_MIN,
    LONGEST_ROAD_MIN,
    NOBODY,
    GameState,
    Steal,
    TradeOffer,
)
from catan_p2p.rules.state import Answer as _AnswerEnum
from catan_p2p.rules.state import Phase as _PhaseEnum

# Python 3.11's EnumType defines __getattr__, which makes every ``Phase.MAIN`` a slow
# lookup (about ten times a dict lookup); the hot path reads the same members from
# plain namespaces instead.
Phase = SimpleNamespace(**_PhaseEnum.__members__)
Answer = SimpleNamespace(**_AnswerEnum.__members__)

# --- small helpers -----------------------------------------------------------------------


def _with(items: tuple, index: int, value: object) -> tuple:
    """``items`` with one element replaced (tuples are never mutated)."""
    return items[:index] + (value,) + items[index + 1 :]


def _name(state: GameState, seat: int) -> str:
    return state.players[seat].capitalize()


def _need_turn(state: GameState, seat: int, what: str) -> None:
    if seat != state.current:
        raise IllegalAction(
            f"turn order: it is {_name(state, state.current)}'s turn, "
            f"{_name(state, seat)} cannot {what}"
        )


def _need_phase(state: GameState, what: str, *phases: _PhaseEnum) -> None:
    if state.phase not in phases:
        raise IllegalAction(f"cannot {what} now: {_expecting(state)}")


def _expecting(state: GameState) -> str:
    """What the game is waiting for, as a phrase for error messages and the client."""
    who = _name(state, state.current)
    phase = state.phase
    if phase is Phase.SETUP_SETTLEMENT:
        return f"{who} must place a set-up settlement"
    if phase is Phase.SETUP_ROAD:
        return f"{who} must place a road next to the new settlement"
    if phase is Phase.ROLL:
        return f"{who} must roll the dice"
    if phase is Phase.DISCARD:
        owing = [f"{_name(state, s)} ({n})" for s, n in enumerate(state.discards) if n]
        return f"waiting for discards from {', '.join(owing)}"
    if phase is Phase.MOVE_ROBBER:
        return f"{who} must move the robber"
    if phase is Phase.ROAD_BUILDING:
        return f"{who} must place {state.free_roads} free road(s)"
    if phase is Phase.TRADE:
        return f"{who}'s trade offer is open"
    if phase is Phase.GAME_OVER:
        if state.abandoned != NOBODY:
            return f"the game is over: the others ended it without {_name(state, state.abandoned)}"
        return f"the game is over, {_name(state, state.winner)} won"
    if phase is Phase.STEAL:
        return f"waiting for {_name(state, state.victim)} to give {who} a card"
    if phase is Phase.MONOPOLY:
        owing = ", ".join(_name(state, s.victim) for s in state.steals)
        return f"waiting for {owing} to show the cards stolen from them ({who}'s monopoly)"
    if phase is Phase.SPECIAL_BUILD:
        return f"special building: {who} may build or buy"
    if phase is Phase.DICE:
        roller = _name(state, (state.current + 1) % len(state.players))
        return f"waiting for {who} to reveal the dice of {roller}'s roll"
    return f"it is {who}'s turn"


def expecting(state: GameState) -> str:
    """A short sentence saying who must do what next."""
    return _expecting(state)


def _pay(state: GameState, seat: int, cost: Counts, what: str) -> tuple[Counts, Counts]:
    hand = state.hands[seat].resources
    if not covers(_spendable(state, seat), cost):
        raise IllegalAction(
            f"cost: {what} costs {format_counts(cost)}; {_name(state, seat)} has "
            f"{format_counts(hand)}{_unshown(state, seat)}"
        )
    return sub(hand, cost), add(state.bank, cost)


def _spendable(state: GameState, seat: int) -> Counts:
    """The cards ``seat`` surely holds of each resource, as the state shows them.

    A robbed seat's ``resources`` still count the card it lost until the steal is
    shown (``Steal``), which could be of any resource; cards it gained are not counted
    yet. So a move may spend what this leaves, and anything more needs the steals shown.
    """
    hand = state.hands[seat].resources
    if not state.steals:
        return hand
    lost = sum(1 for s in state.steals if s.victim == seat)
    return tuple(max(0, n - lost) for n in hand) if lost else hand  # type: ignore[return-value]


def _unshown(state: GameState, seat: int) -> str:
    """The end of a sentence saying that ``seat``'s steals are not shown yet, if any."""
    n = sum(1 for s in state.steals if seat in (s.mover, s.victim))
    if not n:
        return ""
    return (
        f", with {n} steal(s) not shown yet (a move that needs those cards shows them "
        "in its `steals`)"
    )


def _vertex(graph: BoardGraph, vid: tuple) -> int:
    try:
        return graph.vertex_index[vid]
    except (KeyError, TypeError):
        raise IllegalAction(
            f"board: {format_place(vid)} is not a vertex on this board's land"
        ) from None


def _edge(graph: BoardGraph, eid: tuple) -> int:
    try:
        return graph.edge_index[eid]
    except (KeyError, TypeError):
        raise IllegalAction(
            f"board: {format_place(eid)} is not an edge on this board's land"
        ) from None


def _distance_ok(state: GameState, v: int) -> bool:
    owner = state.vertex_owner
    return all(owner[n] == NOBODY for n in state.board.graph.vertex_neighbours[v])


def _road_connects(state: GameState, seat: int, e: int) -> bool:
    """True when edge ``e`` touches the seat's building, or its road through a free vertex."""
    graph = state.board.graph
    owner_v = state.vertex_owner
    owner_e = state.edge_owner
    for v in graph.edge_vertices[e]:
        o = owner_v[v]
        if o == seat:
            return True
        if o != NOBODY:
            continue  # an opponent's building: no connection through it
        for other in graph.vertex_edges[v]:
            if other != e and owner_e[other] == seat:
                return True
    return False


def _update_longest_road(state: GameState, seats: list[int]) -> GameState:
    """Recompute the road lengths of ``seats`` and hand the longest road award on."""
    graph = state.board.graph
    hands = state.hands
    for s in seats:
        h = hands[s]
        length = longest_road(graph, h.roads, state.vertex_owner, s)
        if length != h.road_length:
            hands = _with(hands, s, h._replace(road_length=length))
    lengths = [h.road_length for h in hands]
    best = max(lengths)
    holder = state.longest_road
    if best < LONGEST_ROAD_MIN:
        holder = NOBODY
    elif holder != NOBODY and lengths[holder] == best:
        pass  # ties keep the holder
    else:
        leaders = [s for s, n in enumerate(lengths) if n == best]
        holder = leaders[0] if len(leaders) == 1 else NOBODY  # a tie sets the award aside
    return state._replace(hands=hands, longest_road=holder)


def _check_victory(state: GameState) -> GameState:
    """The active player wins as soon as they hold enough points on their own turn.

    The game ends at once, so a free road of road building still to place is dropped.
    In the special building phase nobody wins (it is no one's own turn); a builder who
    can pay for nothing more is done.
    """
    if state.phase is Phase.SPECIAL_BUILD:
        if special_build.may_build(state, state.current):
            return state
        return _next_special_builder(state, state.current)
    if state.phase >= Phase.ROLL and state.points(state.current) >= state.victory_points:
        return state._replace(phase=Phase.GAME_OVER, winner=state.current, free_roads=0)
    return state


def _after_robber_phase(state: GameState) -> _PhaseEnum:
    """Where the turn resumes after the robber or free roads: before or after the roll."""
    return Phase.ROLL if state.dice is None else Phase.MAIN


def _victims(state: GameState, seat: int, tile: int) -> list[int]:
    owner = state.vertex_owner
    found = []
    for v in state.board.graph.tile_vertices[tile]:
        o = owner[v]
        if o != NOBODY and o != seat and o not in found and state.hands[o].card_count > 0:
            found.append(o)
    return sorted(found)


def _pick_card(counts: Counts, index: int) -> int:
    """The card at ``index`` when ``counts`` is laid out in canonical order."""
    for kind, n in enumerate(counts):
        if index < n:
            return kind
        index -= n
    raise ValueError("index beyond the cards held")


def _need_chance(chance: Chance | None, what: str) -> Chance:
    if chance is None:
        raise UsageError(f"{what} needs a chance source (pass chance= to apply)")
    return chance


# --- handlers: one per action type ------------------------------------------------------


def _build_settlement(
    state: GameState, seat: int, a: BuildSettlement, chance: Chance | None
) -> tuple[GameState, Action]:
    graph = state.board.graph
    v = _vertex(graph, a.vertex)
    _need_phase(
        state, "build a settlement", Phase.SETUP_SETTLEMENT, Phase.MAIN, Phase.SPECIAL_BUILD
    )
    _need_turn(state, seat, "build a settlement")
    where = format_place(a.vertex)
    if state.vertex_owner[v] != NOBODY:
        raise IllegalAction(
            f"occupied: vertex {where} already holds "
            f"{_name(state, state.vertex_owner[v])}'s building"
        )
    if not _distance_ok(state, v):
        near = next(n for n in graph.vertex_neighbours[v] if state.vertex_owner[n] != NOBODY)
        raise IllegalAction(
            f"distance rule: vertex {where} is next to {_name(state, state.vertex_owner[near])}'s "
            f"building at {format_place(graph.vertices[near])}"
        )
    hand = state.hands[seat]
    if hand.settlements_left <= 0:
        raise IllegalAction(f"pieces: {_name(state, seat)} has no settlements left")
    state = _take_shuffle(state, seat, a)
    resources, bank = hand.resources, state.bank
    if state.phase is Phase.MAIN or state.phase is Phase.SPECIAL_BUILD:
        if not any(state.edge_owner[e] == seat for e in graph.vertex_edges[v]):
            raise IllegalAction(
                f"connection: a settlement must touch one of {_name(state, seat)}'s roads; "
                f"{where} does not"
            )
        resources, bank = _pay(state, seat, SETTLEMENT_COST, "a settlement")
    elif state.setup_step >= len(state.players):
        # Second set-up settlement: one card from each adjacent producing tile.
        for t in graph.vertex_tiles[v]:
            r = graph.tile_resource[t]
            if r >= 0 and bank[r] > 0:
                resources = add(resources, one(r))
                bank = sub(bank, one(r))
    ports = hand.ports
    if graph.vertex_port[v] != NO_PORT:
        ports = ports | {graph.vertex_port[v]}
    hand = hand._replace(resources=resources, settlements=hand.settlements | {v}, ports=ports)
    state = state._replace(
        hands=_with(state.hands, seat, hand),
        vertex_owner=_with(state.vertex_owner, v, seat),
        bank=bank,
    )
    if state.phase is Phase.SETUP_SETTLEMENT:
        return state._replace(phase=Phase.SETUP_ROAD), a
    broken = [
        s
        for s in range(len(state.players))
        if s != seat and any(state.edge_owner[e] == s for e in graph.vertex_edges[v])
    ]
    if broken:
        state = _update_longest_road(state, broken)
    return _check_victory(state), a


def _setup_settlement_without_road(state: GameState, seat: int) -> int:
    graph = state.board.graph
    for v in state.hands[seat].settlements:
        if not any(state.edge_owner[e] == seat for e in graph.vertex_edges[v]):
            return v
    return NOBODY


def _build_road(
    state: GameState, seat: int, a: BuildRoad, chance: Chance | None
) -> tuple[GameState, Action]:
    graph = state.board.graph
    e = _edge(graph, a.edge)
    _need_phase(
        state,
        "build a road",
        Phase.SETUP_ROAD,
        Phase.MAIN,
        Phase.ROAD_BUILDING,
        Phase.SPECIAL_BUILD,
    )
    _need_turn(state, seat, "build a road")
    where = format_place(a.edge)
    if state.edge_owner[e] != NOBODY:
        raise IllegalAction(
            f"occupied: edge {where} already holds {_name(state, state.edge_owner[e])}'s road"
        )
    hand = state.hands[seat]
    if hand.roads_left <= 0:
        raise IllegalAction(f"pieces: {_name(state, seat)} has no roads left")
    resources, bank = hand.resources, state.bank
    if state.phase is Phase.SETUP_ROAD:
        fresh = _setup_settlement_without_road(state, seat)
        if fresh not in graph.edge_vertices[e]:
            raise IllegalAction(
                f"set-up: the road must touch the settlement just placed at "
                f"{format_place(graph.vertices[fresh])}; {where} does not"
            )
    elif not _road_connects(state, seat, e):
        raise IllegalAction(
            f"connection: road {where} does not connect to {_name(state, seat)}'s roads or "
            f"buildings (an opponent's settlement blocks the way through it)"
        )
    if state.phase is Phase.MAIN or state.phase is Phase.SPECIAL_BUILD:
        resources, bank = _pay(state, seat, ROAD_COST, "a road")
    hand = hand._replace(resources=resources, roads=hand.roads | {e})
    state = state._replace(
        hands=_with(state.hands, seat, hand),
        edge_owner=_with(state.edge_owner, e, seat),
        bank=bank,
    )
    state = _update_longest_road(state, [seat])
    if state.phase is Phase.SETUP_ROAD:
        step = state.setup_step + 1
        order = state.setup_order
        if step < len(order):
            return state._replace(
                phase=Phase.SETUP_SETTLEMENT, setup_step=step, current=order[step]
            ), a
        return state._replace(phase=Phase.ROLL, setup_step=step, current=0, turn=1), a
    if state.phase is Phase.ROAD_BUILDING:
        left = state.free_roads - 1
        if left <= 0 or hand.roads_left <= 0 or not _road_edges(state, seat):
            state = state._replace(free_roads=0, phase=_after_robber_phase(state))
        else:
            state = state._replace(free_roads=left)
    return _check_victory(state), a


def _build_city(
    state: GameState, seat: int, a: BuildCity, chance: Chance | None
) -> tuple[GameState, Action]:
    graph = state.board.graph
    v = _vertex(graph, a.vertex)
    _need_phase(state, "build a city", Phase.MAIN, Phase.SPECIAL_BUILD)
    _need_turn(state, seat, "build a city")
    hand = state.hands[seat]
    if v not in hand.settlements:
        raise IllegalAction(
            f"city: a city replaces one of {_name(state, seat)}'s own settlements; "
            f"{format_place(a.vertex)} holds none"
        )
    if hand.cities_left <= 0:
        raise IllegalAction(f"pieces: {_name(state, seat)} has no cities left")
    resources, bank = _pay(state, seat, CITY_COST, "a city")
    hand = hand._replace(
        resources=resources, settlements=hand.settlements - {v}, cities=hand.cities | {v}
    )
    state = state._replace(hands=_with(state.hands, seat, hand), bank=bank)
    return _check_victory(state), a


def _produce(state: GameState, number: int) -> GameState:
    """Pay every building next to a tile showing ``number``, minding bank shortages."""
    graph = state.board.graph
    n = len(state.players)
    owner = state.vertex_owner
    hands = state.hands
    robber = state.robber
    tile_resource = graph.tile_resource
    tile_vertices = graph.tile_vertices
    owed: dict[int, list[int]] = {}  # resource -> cards owed to each seat
    for t in graph.number_tiles[number]:
        if t == robber:
            continue
        r = tile_resource[t]
        for v in tile_vertices[t]:
            o = owner[v]
            if o != NOBODY:
                row = owed.get(r)
                if row is None:
                    row = owed[r] = [0] * n
                row[o] += 2 if v in hands[o].cities else 1
    if not owed:
        return state
    bank = list(state.bank)
    gains = [[0] * 5 for _ in range(n)]
    for r, row in owed.items():
        total = sum(row)
        if total <= bank[r]:
            for s in range(n):
                gains[s][r] = row[s]
            bank[r] -= total
        else:
            takers = [s for s in range(n) if row[s]]
            if len(takers) == 1:  # a lone player gets what is left
                gains[takers[0]][r] = bank[r]
                bank[r] = 0
            # several players owed a short resource: nobody gets any
    new_hands = list(hands)
    for s in range(n):
        if any(gains[s]):
            h = hands[s]
            new_hands[s] = h._replace(resources=add(h.resources, tuple(gains[s])))
    return state._replace(bank=tuple(bank), hands=tuple(new_hands))


def _roll_dice(
    state: GameState, seat: int, a: RollDice, chance: Chance | None
) -> tuple[GameState, Action]:
    _need_phase(state, "roll the dice", Phase.ROLL)
    _need_turn(state, seat, "roll the dice")
    state = _take_shares(state, seat, a.shares)
    if state.reveals:  # a game with seat keys: the dice come from the players' chains
        decided = dice_step_due(state, seat)
        state = _take_reveal(state, seat, a.reveal, "rolling")._replace(fresh_beacon=False)
        beacon = (seat - 1) % len(state.players)
        if decided:  # the seat before reveals the element the roll takes (reveal_dice)
            if a.dice is not None:
                raise IllegalAction(
                    f"dice: {_name(state, seat)} decided something before rolling, so "
                    f"{_name(state, beacon)}'s next dice-chain element gives this roll; "
                    "roll without naming the dice"
                )
            rolled = RollDice(a.player, None, a.reveal, a.shares)
            return state._replace(phase=Phase.DICE, current=beacon), rolled
        derived = roll_of(state.turn, state.reveals[seat], state.reveals[beacon])
        if a.dice is not None and tuple(a.dice) != derived:
            raise IllegalAction(
                f"dice: the revealed chain elements give {derived[0]}+{derived[1]}, "
                f"not {a.dice[0]}+{a.dice[1]}"
            )
        a = RollDice(a.player, derived, a.reveal, a.shares)
    dice = a.dice if a.dice is not None else _need_chance(chance, "rolling").roll()
    if len(dice) != 2 or not (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6):
        raise IllegalAction(f"dice: {dice} is not a roll of two six-sided dice")
    dice = tuple(dice)
    return _rolled(state, dice), RollDice(a.player, dice, a.reveal, a.shares)  # type: ignore[arg-type]


def dice_step_due(state: GameState, seat: int) -> bool:
    """True when ``seat``'s roll takes an element revealed after it (phase ``DICE``).

    So it is when the roller took, or could take, a decision since the element the roll
    would otherwise take was revealed: it played a development card before rolling,
    holds one face down it could play, or built in the special building phase. Deciding
    not to play a card is a decision too, which is why holding one is enough: a roller
    who could read its roll and then choose between it and a fresh one would re-roll.
    """
    if state.dev_played or state.fresh_beacon:
        return True
    if state.deck is not None:
        return bool(state.deck.held(seat))
    return any(state.hands[seat].dev_cards)


def _reveal_dice(
    state: GameState, seat: int, a: RevealDice, chance: Chance | None
) -> tuple[GameState, Action]:
    """The seat before the roller reveals its next dice-chain element, which with the
    roller's element in its ``roll_dice`` gives the roll; the roller then goes on."""
    _need_phase(state, "reveal the dice", Phase.DICE)
    _need_turn(state, seat, "reveal the dice")
    roller = (seat + 1) % len(state.players)
    state = _take_reveal(state, seat, a.reveal, "revealing the dice")
    derived = roll_of(state.turn, state.reveals[roller], state.reveals[seat])
    if a.dice is not None and tuple(a.dice) != derived:
        raise IllegalAction(
            f"dice: the revealed chain elements give {derived[0]}+{derived[1]}, "
            f"not {a.dice[0]}+{a.dice[1]}"
        )
    rolled = _rolled(state._replace(current=roller), derived)
    return rolled, RevealDice(a.player, a.reveal, derived)


def _rolled(state: GameState, dice: tuple[int, int]) -> GameState:
    """The state once the turn's dice show ``dice``: production, or a seven's discards."""
    total = dice[0] + dice[1]
    if total != 7:
        state = state._replace(dice=dice, phase=Phase.MAIN)
        return _check_victory(_produce(state, total))
    owed = tuple(h.card_count // 2 if h.card_count > DISCARD_LIMIT else 0 for h in state.hands)
    phase = Phase.DISCARD if any(owed) else Phase.MOVE_ROBBER
    return state._replace(dice=dice, discards=owed, phase=phase)


def _discard(
    state: GameState, seat: int, a: Discard, chance: Chance | None
) -> tuple[GameState, Action]:
    _need_phase(state, "discard", Phase.DISCARD)
    owed = state.discards[seat]
    if owed == 0:
        raise IllegalAction(f"discard: {_name(state, seat)} owes no discard")
    cards = tuple(a.cards)
    if len(cards) != 5 or any(n < 0 for n in cards) or sum(cards) != owed:
        raise IllegalAction(
            f"discard: {_name(state, seat)} must discard exactly {owed} cards "
            f"(half of {state.hands[seat].card_count}, rounded down), not {sum(cards)}"
        )
    hand = state.hands[seat]
    if not covers(_spendable(state, seat), cards):
        raise IllegalAction(
            f"discard: {_name(state, seat)} cannot discard {format_counts(cards)} "
            f"holding {format_counts(hand.resources)}{_unshown(state, seat)}"
        )
    hand = hand._replace(resources=sub(hand.resources, cards))
    discards = _with(state.discards, seat, 0)
    state = state._replace(
        hands=_with(state.hands, seat, hand),
        bank=add(state.bank, cards),
        discards=discards,
        phase=Phase.DISCARD if any(discards) else Phase.MOVE_ROBBER,
    )
    return state, a


def _move_robber(
    state: GameState, seat: int, a: MoveRobber, chance: Chance | None
) -> tuple[GameState, Action]:
    graph = state.board.graph
    _need_phase(state, "move the robber", Phase.MOVE_ROBBER)
    _need_turn(state, seat, "move the robber")
    tile = graph.tile_index.get(a.tile)  # type: ignore[arg-type]
    if tile is None:
        raise IllegalAction(f"robber: {format_tile(a.tile)} is not a land tile of this board")
    if tile == state.robber:
        raise IllegalAction(
            f"robber: the robber must leave {format_tile(a.tile)}, it is already there"
        )
    victims = _victims(state, seat, tile)
    victim = NOBODY
    if a.victim is not None:
        if a.victim not in state.players:
            raise IllegalAction(f"robber: there is no player {a.victim!r} to rob")
        victim = state.seat(a.victim)
        if victim == seat:
            raise IllegalAction("robber: you cannot rob yourself")
        if victim not in victims:
            raise IllegalAction(
                f"robber: {_name(state, victim)} has no building with cards at "
                f"{format_tile(a.tile)} to rob"
            )
    elif victims:
        names = ", ".join(_name(state, s) for s in victims)
        raise IllegalAction(f"robber: you must rob one of {names} at {format_tile(a.tile)}")
    if a.token is not None and (victim == NOBODY or not state.reveals):
        raise IllegalAction("robber: only a move that robs, in a game with seat keys, has a token")
    state = state._replace(robber=tile, phase=_after_robber_phase(state))
    if victim == NOBODY:
        return _check_victory(state), MoveRobber(a.player, a.tile, None, None)
    if state.reveals:  # with seat keys the victim's answer picks the card (give_card)
        if a.stolen is not None:
            raise IllegalAction(
                "robber: the stolen card is picked by the robbed player's answer; "
                "move the robber without naming it"
            )
        try:
            token = cards_deck.check_token(
                a.token, state.deck.keys[seat], steal_context(state.turn, tile, victim)
            )
        except ValueError as exc:
            raise IllegalAction(
                f"robber: {_name(state, seat)}'s move carries its token for this steal, made "
                f"with its deck key ({exc})"
            ) from None
        return state._replace(phase=Phase.STEAL, victim=victim, token=token), MoveRobber(
            a.player, a.tile, a.victim, None, a.token
        )
    loser = state.hands[victim]
    if a.stolen is not None:
        stolen = int(a.stolen)
        if loser.resources[stolen] <= 0:
            raise IllegalAction(f"robber: {_name(state, victim)} holds no {Resource(stolen).label}")
    elif not any(loser.resources):
        # Only a player's view has a hand of unknown cards alone (others' pending
        # steals, ``rules.views``): a bot's search takes none of them.
        return _check_victory(state), MoveRobber(a.player, a.tile, a.victim, None)
    else:
        pick = _need_chance(chance, "stealing").randrange(sum(loser.resources))
        stolen = _pick_card(loser.resources, pick)
    card = one(stolen)
    winner = state.hands[seat]
    hands = _with(state.hands, victim, loser._replace(resources=sub(loser.resources, card)))
    hands = _with(hands, seat, winner._replace(resources=add(winner.resources, card)))
    resolved = MoveRobber(a.player, a.tile, a.victim, Resource(stolen))
    return _check_victory(state._replace(hands=hands)), resolved


def steal_context(turn: int, tile: int, victim: int) -> bytes:
    """What a steal's token and answer are for: the turn, the robber's new tile (it
    moves at most twice a turn, never to where it is) and the victim."""
    return f"steal\0{turn}\0{tile}\0{victim}".encode()


def _give_card(
    state: GameState, seat: int, a: GiveCard, chance: Chance | None
) -> tuple[GameState, Action]:
    """The robbed player's answer: with the robber's token it picks the card, which
    only the two of them learn (``Steal``)."""
    _need_phase(state, "give the robber a card", Phase.STEAL)
    if seat != state.victim:
        raise IllegalAction(
            f"robber: {_name(state, state.victim)} is the one robbed, not {_name(state, seat)}"
        )
    if any(seat in (s.mover, s.victim) for s in state.steals):
        raise IllegalAction(
            f"robber: {_name(state, seat)} must show its earlier steals (`steals`) when it "
            "is robbed: the card is picked from a hand whose every card it knows"
        )
    assert state.deck is not None
    try:
        answer = cards_deck.check_token(
            a.answer, state.deck.keys[seat], steal_context(state.turn, state.robber, seat)
        )
    except ValueError as exc:
        raise IllegalAction(
            f"robber: {_name(state, seat)}'s answer carries its value for this steal, made "
            f"with its deck key ({exc})"
        ) from None
    mover = state.current
    steal = Steal(mover, seat, state.turn, state.token, answer, state.hands[seat].resources)
    hands = list(state.hands)
    hands[seat] = hands[seat]._replace(hidden=hands[seat].hidden - 1)
    hands[mover] = hands[mover]._replace(hidden=hands[mover].hidden + 1)
    state = state._replace(
        hands=tuple(hands),
        steals=(*state.steals, steal),
        victim=NOBODY,
        token="",
        phase=_after_robber_phase(state),
    )
    return _check_victory(state), a


def _show_steals(state: GameState, seat: int, proofs: tuple[str, ...]) -> GameState:
    """``seat`` shows every pending steal it took part in: one proof each, oldest first.

    Robber or robbed, it gives the steal's shared value with the proof that its deck
    key made it (``rules.deck.exchange``); the value picks the card, which moves now.
    """
    name = _name(state, seat)
    mine = [i for i, s in enumerate(state.steals) if seat in (s.mover, s.victim)]
    if not state.reveals:
        raise IllegalAction("steal: only a game with seat keys has steals to show")
    if not proofs or len(proofs) != len(mine):
        raise IllegalAction(
            f"steal: {name} shows all of its {len(mine)} pending steal(s) at once, one "
            f"proof each, oldest first, not {len(proofs)}"
        )
    assert state.deck is not None
    key = state.deck.keys[seat]
    done = set()
    for i, proof in zip(mine, proofs, strict=True):
        s = state.steals[i]
        try:
            shared = cards_deck.check_exchange(proof, key, s.other_value(seat))
        except ValueError as exc:
            raise IllegalAction(
                f"steal: {name}'s proof for the card stolen in turn {s.turn} does not hold ({exc})"
            ) from None
        state = settle(state, s, shared)
        done.add(i)
    return state._replace(steals=tuple(s for i, s in enumerate(state.steals) if i not in done))


def stolen_resource(steal: Steal, shared: str) -> int:
    """The resource ``steal`` takes, given its shared value (``rules.chance.stolen_index``)."""
    return _pick_card(steal.hand, stolen_index(steal.turn, shared, sum(steal.hand)))


def settle(state: GameState, steal: Steal, shared: str) -> GameState:
    """Move the card ``steal`` picked from its victim to its robber; the caller drops
    ``steal`` from ``state.steals``."""
    return _move_stolen(state, steal, stolen_resource(steal, shared))


def _move_stolen(state: GameState, steal: Steal, r: int) -> GameState:
    hands = list(state.hands)
    loser, winner = hands[steal.victim], hands[steal.mover]
    if loser.resources[r] <= 0:  # cannot happen: spending keeps the card (_spendable)
        raise IllegalAction(f"steal: {_name(state, steal.victim)} no longer holds the card")
    loser = loser._replace(resources=sub(loser.resources, one(r)))
    winner = winner._replace(resources=add(winner.resources, one(r)))
    hands[steal.victim] = loser._replace(hidden=loser.hidden + 1)
    hands[steal.mover] = winner._replace(hidden=winner.hidden - 1)
    return state._replace(hands=tuple(hands))


def _end_turn(
    state: GameState, seat: int, a: EndTurn, chance: Chance | None
) -> tuple[GameState, Action]:
    _need_phase(state, "end the turn", Phase.MAIN)
    _need_turn(state, seat, "end the turn")
    if state.reveals:
        state = _take_reveal(state, seat, a.reveal, "ending the turn")
    hands = state.hands
    hand = hands[seat]
    if any(hand.new_dev_cards):
        hand = hand._replace(
            dev_cards=add(hand.dev_cards, hand.new_dev_cards), new_dev_cards=NO_CARDS
        )
        hands = _with(hands, seat, hand)
    if special_build.applies(state):
        return _next_special_builder(state._replace(hands=hands), seat), a
    return _next_turn(state._replace(hands=hands), seat), a


def _next_turn(state: GameState, seat: int) -> GameState:
    """The turn after ``seat``'s begins: the next seat rolls (and wins if it may)."""
    nxt = (seat + 1) % len(state.players)
    state = state._replace(
        current=nxt,
        turn=state.turn + 1,
        dice=None,
        dev_played=False,
        phase=Phase.ROLL,
    )
    return _check_victory(state)


def _next_special_builder(state: GameState, after: int) -> GameState:
    """The special building phase moves on to the next seat that may build after
    ``after``; after the last one, the next turn begins (5-6 players)."""
    if after != special_build.turn_player(state):
        state = special_build.keep_bought_cards(state, after)
    builder = special_build.next_builder(state, after)
    if builder is None:
        return _next_turn(state, special_build.turn_player(state))
    if state.reveals and builder == (special_build.turn_player(state) + 1) % len(state.players):
        # the seat rolling next builds knowing the element its roll would take
        state = state._replace(fresh_beacon=True)
    return state._replace(phase=Phase.SPECIAL_BUILD, current=builder)


def _end_special_build(
    state: GameState, seat: int, a: EndSpecialBuild, chance: Chance | None
) -> tuple[GameState, Action]:
    _need_phase(state, "end the special building phase", Phase.SPECIAL_BUILD)
    _need_turn(state, seat, "end its special building")
    return _next_special_builder(state, seat), a


def _buy_dev_card(
    state: GameState, seat: int, a: BuyDevCard, chance: Chance | None
) -> tuple[GameState, Action]:
    _need_phase(state, "buy a development card", Phase.MAIN, Phase.SPECIAL_BUILD)
    _need_turn(state, seat, "buy a development card")
    if state.deck is not None:
        state, a = _draw_hidden(state, seat, a)
        if state.phase is Phase.SPECIAL_BUILD:
            state = _check_victory(state)  # (nobody wins here: the builder may be done)
        return state, a
    deck = state.dev_deck
    if not any(deck):
        raise IllegalAction("development cards: the deck is empty")
    resources, bank = _pay(state, seat, DEV_CARD_COST, "a development card")
    if a.card is not None:
        card = int(a.card)
        if deck[card] <= 0:
            raise IllegalAction(f"development cards: no {DevCard(card).label} is left in the deck")
    else:
        card = _pick_card(deck, _need_chance(chance, "drawing").randrange(sum(deck)))
    hand = state.hands[seat]
    hand = hand._replace(resources=resources, new_dev_cards=add(hand.new_dev_cards, one(card)))
    state = state._replace(
        hands=_with(state.hands, seat, hand), bank=bank, dev_deck=sub(deck, one(card))
    )
    return _check_victory(state), BuyDevCard(a.player, DevCard(card))


def _take_dev_card(
    state: GameState, seat: int, card: DevCard, proof: str | None = None
) -> GameState:
    """Common checks and bookkeeping of playing a development card.

    With a hidden deck the card is named by ``proof`` (``"position:proof"``), which
    shows its type to everyone; without one it comes from the hand's counts.
    """
    what = f"play {card.label}"
    _need_turn(state, seat, what)
    _need_phase(state, what, Phase.ROLL, Phase.MAIN)
    if state.dev_played:
        raise IllegalAction("development cards: only one development card may be played per turn")
    if state.deck is not None:
        state = _show_card(state, seat, card, proof, what)
        hand = state.hands[seat]
        hand = hand._replace(played=add(hand.played, one(card)))
        return state._replace(hands=_with(state.hands, seat, hand), dev_played=True)
    if proof is not None:
        raise IllegalAction("development cards: this game has no hidden deck; play without a proof")
    hand = state.hands[seat]
    if hand.dev_cards[card] <= 0:
        if hand.new_dev_cards[card] > 0:
            raise IllegalAction(
                f"development cards: a {card.label} bought this turn cannot be played "
                "until the next turn"
            )
        raise IllegalAction(f"development cards: {_name(state, seat)} holds no {card.label}")
    hand = hand._replace(
        dev_cards=sub(hand.dev_cards, one(card)), played=add(hand.played, one(card))
    )
    return state._replace(hands=_with(state.hands, seat, hand), dev_played=True)


def _play_knight(
    state: GameState, seat: int, a: PlayKnight, chance: Chance | None
) -> tuple[GameState, Action]:
    state = _take_dev_card(state, seat, DevCard.KNIGHT, a.card)
    knights = state.hands[seat].knights
    holder = state.largest_army
    if knights >= LARGEST_ARMY_MIN and (holder == NOBODY or knights > state.hands[holder].knights):
        state = state._replace(largest_army=seat)
    return _check_victory(state._replace(phase=Phase.MOVE_ROBBER)), a


def _road_edges(state: GameState, seat: int) -> list[int]:
    """Edges where the seat may build a road now (ignoring cost)."""
    graph = state.board.graph
    owner_v = state.vertex_owner
    owner_e = state.edge_owner
    hand = state.hands[seat]
    frontier: set[int] = set()
    for v in hand.settlements:
        frontier.add(v)
    for v in hand.cities:
        frontier.add(v)
    for e in hand.roads:
        for v in graph.edge_vertices[e]:
            if owner_v[v] == NOBODY or owner_v[v] == seat:
                frontier.add(v)
    found = set()
    for v in frontier:
        for e in graph.vertex_edges[v]:
            if owner_e[e] == NOBODY:
                found.add(e)
    return sorted(found)


def _play_road_building(
    state: GameState, seat: int, a: PlayRoadBuilding, chance: Chance | None
) -> tuple[GameState, Action]:
    hand = state.hands[seat]
    if seat == state.current and hand.roads_left <= 0:
        raise IllegalAction(f"road building: {_name(state, seat)} has no road pieces left")
    if seat == state.current and not _road_edges(state, seat):
        raise IllegalAction(f"road building: {_name(state, seat)} has nowhere to build a road")
    state = _take_dev_card(state, seat, DevCard.ROAD_BUILDING, a.card)
    return state._replace(phase=Phase.ROAD_BUILDING, free_roads=min(2, hand.roads_left)), a


def _end_road_building(
    state: GameState, seat: int, a: EndRoadBuilding, chance: Chance | None
) -> tuple[GameState, Action]:
    _need_phase(state, "stop road building", Phase.ROAD_BUILDING)
    _need_turn(state, seat, "stop road building")
    return state._replace(free_roads=0, phase=_after_robber_phase(state)), a


def _play_year_of_plenty(
    state: GameState, seat: int, a: PlayYearOfPlenty, chance: Chance | None
) -> tuple[GameState, Action]:
    take = add(one(int(a.first)), one(int(a.second)))
    if not covers(state.bank, take):
        raise IllegalAction(f"year of plenty: the bank cannot give {format_counts(take)}")
    state = _take_dev_card(state, seat, DevCard.YEAR_OF_PLENTY, a.card)
    hand = state.hands[seat]
    hand = hand._replace(resources=add(hand.resources, take))
    state = state._replace(hands=_with(state.hands, seat, hand), bank=sub(state.bank, take))
    return _check_victory(state), a


def _play_monopoly(
    state: GameState, seat: int, a: PlayMonopoly, chance: Chance | None
) -> tuple[GameState, Action]:
    state = _take_dev_card(state, seat, DevCard.MONOPOLY, a.card)
    r = int(a.resource)
    if any(seat in (s.mover, s.victim) for s in state.steals):
        raise IllegalAction(
            f"monopoly: {_name(state, seat)} shows its pending steals (`steals`) with the "
            "monopoly: how many cards it takes depends on them"
        )
    if state.steals and not state.reveals:
        # Only a player's view has steals but no keys (``rules.views``): a bot's search
        # plays them the simple way, each the victim's first card it still holds.
        for steal in state.steals:
            r0 = next(k for k, n in enumerate(state.hands[steal.victim].resources) if n)
            state = _move_stolen(state, steal, r0)
        state = state._replace(steals=())
    if state.steals:  # the others' steals must be shown first: the robbed players answer
        return state._replace(phase=Phase.MONOPOLY, monopoly=r), a
    return _check_victory(_take_monopoly(state, seat, r)), a


def _take_monopoly(state: GameState, seat: int, r: int) -> GameState:
    hands = list(state.hands)
    taken = 0
    for s, h in enumerate(hands):
        if s != seat and h.resources[r]:
            taken += h.resources[r]
            hands[s] = h._replace(resources=_with(h.resources, r, 0))
    hands[seat] = hands[seat]._replace(resources=add(hands[seat].resources, one(r, taken)))
    return state._replace(hands=tuple(hands))


def _show_steal(
    state: GameState, seat: int, a: ShowSteal, chance: Chance | None
) -> tuple[GameState, Action]:
    """A robbed player shows its steal for a pending monopoly; the last one lets the
    monopoly take its cards."""
    _need_phase(state, "show a stolen card", Phase.MONOPOLY)
    name = _name(state, seat)
    found = [i for i, s in enumerate(state.steals) if s.victim == seat]
    if not found:
        raise IllegalAction(f"monopoly: {name} was robbed in no pending steal")
    i = found[0]
    steal = state.steals[i]
    assert state.deck is not None
    try:
        shared = cards_deck.check_exchange(a.proof, state.deck.keys[seat], steal.token)
    except ValueError as exc:
        raise IllegalAction(
            f"steal: {name}'s proof for the card stolen in turn {steal.turn} does not hold ({exc})"
        ) from None
    state = settle(state, steal, shared)
    state = state._replace(steals=state.steals[:i] + state.steals[i + 1 :])
    if state.steals:
        return state, a
    state = _take_monopoly(state, state.current, state.monopoly)
    state = state._replace(monopoly=NOBODY, phase=_after_robber_phase(state))
    return _check_victory(state), a


def _maritime_trade(
    state: GameState, seat: int, a: MaritimeTrade, chance: Chance | None
) -> tuple[GameState, Action]:
    _need_phase(state, "trade with the bank", Phase.MAIN)
    _need_turn(state, seat, "trade with the bank")
    give, get = int(a.give), int(a.get)
    if give == get:
        raise IllegalAction("maritime trade: giving and getting the same resource makes no trade")
    rate = state.rate(seat, give)
    hand = state.hands[seat]
    if _spendable(state, seat)[give] < rate:
        raise IllegalAction(
            f"maritime trade: {_name(state, seat)} trades {Resource(give).label} at {rate}:1 "
            f"and holds only {hand.resources[give]}{_unshown(state, seat)}"
        )
    if state.bank[get] <= 0:
        raise IllegalAction(f"maritime trade: the bank has no {Resource(get).label} left")
    paid = one(give, rate)
    hand = hand._replace(resources=add(sub(hand.resources, paid), one(get)))
    state = state._replace(
        hands=_with(state.hands, seat, hand), bank=sub(add(state.bank, paid), one(get))
    )
    return state, a


def _offer_trade(
    state: GameState, seat: int, a: OfferTrade, chance: Chance | None
) -> tuple[GameState, Action]:
    _need_phase(state, "offer a trade", Phase.MAIN)
    _need_turn(state, seat, "offer a trade")
    give, get = tuple(a.give), tuple(a.get)
    if len(give) != 5 or len(get) != 5 or min(give) < 0 or min(get) < 0:
        raise IllegalAction(
            "player trade: an offer lists non-negative counts of the five resources"
        )
    if not any(give) or not any(get):
        raise IllegalAction("player trade: no gifts, both sides of a trade must give something")
    if any(g and w for g, w in zip(give, get, strict=True)):
        raise IllegalAction("player trade: no like-for-like, a resource cannot be on both sides")
    if not covers(_spendable(state, seat), give):  # type: ignore[arg-type]
        raise IllegalAction(
            f"player trade: {_name(state, seat)} cannot offer {format_counts(give)} "  # type: ignore[arg-type]
            f"holding {format_counts(state.hands[seat].resources)}{_unshown(state, seat)}"
        )
    answers = tuple(Answer.PENDING for _ in state.players)
    offer = TradeOffer(give, get, answers)  # type: ignore[arg-type]
    return state._replace(phase=Phase.TRADE, trade=offer), a


def _answer_trade(
    state: GameState, seat: int, a: AnswerTrade, chance: Chance | None
) -> tuple[GameState, Action]:
    _need_phase(state, "answer a trade offer", Phase.TRADE)
    offer = state.trade
    assert offer is not None
    if seat == state.current:
        raise IllegalAction("player trade: the player who made the offer does not answer it")
    if offer.answers[seat] is not Answer.PENDING:
        raise IllegalAction(f"player trade: {_name(state, seat)} has already answered")
    if a.accept and not covers(_spendable(state, seat), offer.get):
        raise IllegalAction(
            f"player trade: {_name(state, seat)} cannot accept, it asks for "
            f"{format_counts(offer.get)} and they hold {format_counts(state.hands[seat].resources)}"
            f"{_unshown(state, seat)}"
        )
    answer = Answer.ACCEPT if a.accept else Answer.DECLINE
    offer = offer._replace(answers=_with(offer.answers, seat, answer))
    return state._replace(trade=offer), a


def _confirm_trade(
    state: GameState, seat: int, a: ConfirmTrade, chance: Chance | None
) -> tuple[GameState, Action]:
    _need_phase(state, "close a trade", Phase.TRADE)
    _need_turn(state, seat, "close a trade")
    offer = state.trade
    assert offer is not None
    if a.partner not in state.players:
        raise IllegalAction(f"player trade: there is no player {a.partner!r}")
    partner = state.seat(a.partner)
    if partner == seat or offer.answers[partner] is not Answer.ACCEPT:
        raise IllegalAction(f"player trade: {_name(state, partner)} has not accepted the offer")
    mine, theirs = state.hands[seat], state.hands[partner]
    if not covers(_spendable(state, seat), offer.give) or not covers(
        _spendable(state, partner), offer.get
    ):
        raise IllegalAction("player trade: one side no longer holds the cards of the offer")
    hands = _with(
        state.hands, seat, mine._replace(resources=add(sub(mine.resources, offer.give), offer.get))
    )
    hands = _with(
        hands, partner, theirs._replace(resources=add(sub(theirs.resources, offer.get), offer.give))
    )
    return state._replace(hands=hands, trade=None, phase=Phase.MAIN), a


def _cancel_trade(
    state: GameState, seat: int, a: CancelTrade, chance: Chance | None
) -> tuple[GameState, Action]:
    _need_phase(state, "withdraw a trade offer", Phase.TRADE)
    _need_turn(state, seat, "withdraw a trade offer")
    return state._replace(trade=None, phase=Phase.MAIN), a


#: A seat key as the rules see it: ``ssh-ed25519`` and the base64 of its 51-byte wire form.
SEAT_KEY = re.compile(r"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43}")
#: A publication point's URL: printable ASCII without spaces, not an option (protocol 6).
PUBLISH_URL = re.compile(r"[!-~]{1,200}")


def _take_reveal(state: GameState, seat: int, reveal: str | None, what: str) -> GameState:
    """Record ``seat``'s next dice-chain element, which must hash to its last one."""
    if reveal is None or not follows(reveal, state.reveals[seat]):
        raise IllegalAction(
            f"dice: {what} reveals {_name(state, seat)}'s next dice-chain element, "
            "whose SHA-256 is the element revealed before it"
        )
    return state._replace(reveals=_with(state.reveals, seat, reveal))


def _claim_seat(
    state: GameState, seat: int, a: ClaimSeat, chance: Chance | None
) -> tuple[GameState, Action]:
    if not state.lobby_open:
        raise IllegalAction("seats: every seat is taken; the game has started")
    if state.seats[seat]:
        raise IllegalAction(f"seats: {_name(state, seat)}'s seat is already claimed")
    if not SEAT_KEY.fullmatch(a.key):
        raise IllegalAction("seats: a seat is claimed with an ssh-ed25519 public key")
    if a.key in state.seats:
        raise IllegalAction("seats: that key already holds another seat")
    if len(a.dice) != 64 or any(ch not in "0123456789abcdef" for ch in a.dice):
        raise IllegalAction("seats: a seat claim anchors a dice chain (64 hex digits)")
    if a.publish is not None and (
        not PUBLISH_URL.fullmatch(a.publish) or a.publish.startswith("-")
    ):
        raise IllegalAction(
            "seats: a publication point is a Git URL of 1-200 printable characters without "
            "spaces, not starting with '-'"
        )
    deck = state.deck
    if deck is not None:
        try:
            cards_deck.check_key(a.deck, a.proof, a.key)
        except ValueError as exc:
            raise IllegalAction(
                f"seats: a seat claim publishes a deck key with the proof that its claimer "
                f"knows it ({exc})"
            ) from None
        if a.deck in deck.keys:
            raise IllegalAction("seats: that deck key already holds another seat")
        deck = deck._replace(keys=_with(deck.keys, seat, a.deck))
    return state._replace(
        seats=_with(state.seats, seat, a.key),
        reveals=_with(state.reveals, seat, a.dice),
        deck=deck,
    ), a


# --- the hidden deck of a game with seat keys (rules.deck) ---------------------------------


def _deck_left(state: GameState) -> int:
    return state.deck.left if state.deck is not None else sum(state.dev_deck)


def _take_shuffle(state: GameState, seat: int, a: BuildSettlement) -> GameState:
    """A seat's first set-up settlement carries its shuffle; nothing else does."""
    deck = state.deck
    due = (
        deck is not None
        and state.phase is Phase.SETUP_SETTLEMENT
        and state.setup_step < len(state.players)
    )
    if not due:
        if a.deck is not None or a.proof is not None:
            raise IllegalAction("deck: only a seat's first set-up settlement shuffles the deck")
        return state
    assert deck is not None
    name = _name(state, seat)
    if a.deck is None or a.proof is None:
        raise IllegalAction(
            f"deck: {name}'s first settlement carries its shuffle of the development cards "
            "and the proof that it is one"
        )
    before = deck.passes[-1] if deck.passes else cards_deck.first_cards(deck.size)
    try:
        cards_deck.check_pass(a.deck, deck.size)
        cards_deck.check_shuffle(
            before, a.deck, deck.keys[seat], a.proof, cards_deck.shuffle_context(deck.keys, seat)
        )
    except ValueError as exc:
        raise IllegalAction(
            f"deck: {name}'s shuffle is not the previous deck reordered under its own key ({exc})"
        ) from None
    return state._replace(deck=deck._replace(passes=(*deck.passes, a.deck)))


_POSITION = re.compile(r"(0|[1-9][0-9]?)")


def _card_proof(text: object, what: str) -> tuple[int, str]:
    """``"position:proof"`` split; ``IllegalAction`` when malformed."""
    pos, _, proof = text.partition(":") if isinstance(text, str) else ("", "", "")
    if not _POSITION.fullmatch(pos) or not cards_deck.is_hex(proof, cards_deck.PROOF_HEX):
        raise IllegalAction(
            f"development cards: {what} names a card as position:proof "
            f"(a position and {cards_deck.PROOF_HEX} lower-case hex digits)"
        )
    return int(pos), proof


def _checked_share(state: GameState, seat: int, pos: int, proof: str, what: str) -> str:
    """Card ``pos`` with ``seat``'s layer removed, once its proof checks."""
    deck = state.deck
    assert deck is not None
    try:
        return cards_deck.check_share(proof, deck.opened[pos], deck.keys[seat])
    except ValueError as exc:
        raise IllegalAction(
            f"development cards: {_name(state, seat)}'s share of card {pos} in {what} is not "
            f"made with its deck key ({exc})"
        ) from None


def _take_shares(state: GameState, seat: int, given: tuple[str, ...] | None) -> GameState:
    """The roller opens, with its share, every card other seats drew since its last roll."""
    deck = state.deck
    if deck is None:
        if given is not None:
            raise IllegalAction("development cards: this game has no hidden deck to share")
        return state
    owed = deck.owed_shares(seat)
    if len(given or ()) != len(owed):
        raise IllegalAction(
            f"development cards: {_name(state, seat)}'s roll carries its share of every card "
            f"drawn since its last roll ({len(owed)}, positions {owed})"
        )
    opened, shared = list(deck.opened), list(deck.shared)
    for pos, text in zip(owed, given or (), strict=True):
        at, proof = _card_proof(text, "a roll")
        if at != pos:
            raise IllegalAction(
                f"development cards: the roll's shares go in position order ({owed}), not {at}"
            )
        opened[pos] = _checked_share(state, seat, pos, proof, "a roll")
        shared[pos] |= 1 << seat
    return state._replace(deck=deck._replace(opened=tuple(opened), shared=tuple(shared)))


def _draw_hidden(state: GameState, seat: int, a: BuyDevCard) -> tuple[GameState, Action]:
    """Pay and take the top card face down: nobody, the buyer included, can read it yet."""
    deck = state.deck
    assert deck is not None
    if a.card is not None:
        raise IllegalAction("development cards: the card is drawn face down; buy without naming it")
    if not deck.left:
        raise IllegalAction("development cards: the deck is empty")
    resources, bank = _pay(state, seat, DEV_CARD_COST, "a development card")
    pos = len(deck.holders)
    deck = deck._replace(
        holders=(*deck.holders, seat),
        bought=(*deck.bought, state.turn),
        opened=(*deck.opened, deck.cards[pos]),
        shared=(*deck.shared, 1 << seat),
        shown=(*deck.shown, -1),
    )
    hand = state.hands[seat]._replace(resources=resources)
    state = state._replace(hands=_with(state.hands, seat, hand), bank=bank, deck=deck)
    return state, a


def _show_card(
    state: GameState, seat: int, card: DevCard, proof: str | None, what: str
) -> GameState:
    """Turn one of the seat's hidden cards face up, proving it is a ``card``."""
    deck = state.deck
    assert deck is not None
    if proof is None:
        raise IllegalAction(
            f"development cards: to {what}, {_name(state, seat)} shows which card it is"
        )
    pos, share_proof = _card_proof(proof, what)
    if pos >= len(deck.holders) or deck.holders[pos] != seat or deck.shown[pos] >= 0:
        raise IllegalAction(
            f"development cards: card {pos} is not one of {_name(state, seat)}'s hidden cards"
        )
    if card is not DevCard.VICTORY_POINT and deck.bought[pos] == state.turn:
        raise IllegalAction(
            f"development cards: a {card.label} bought this turn cannot be played "
            "until the next turn"
        )
    if deck.shared[pos] != deck.complete(len(state.players)):
        raise IllegalAction(
            f"development cards: card {pos} is not open to its holder yet (every other "
            "seat shares it when it next rolls)"
        )
    found = cards_deck.card_type(_checked_share(state, seat, pos, share_proof, what))
    if found is None:
        raise IllegalAction(f"development cards: card {pos} does not open to a card of the deck")
    if found is not card:
        raise IllegalAction(f"development cards: card {pos} is a {found.label}, not a {card.label}")
    deck = deck._replace(shown=_with(deck.shown, pos, int(card)))
    return state._replace(deck=deck, dev_deck=sub(state.dev_deck, one(card)))


def _claim_victory(
    state: GameState, seat: int, a: ClaimVictory, chance: Chance | None
) -> tuple[GameState, Action]:
    _need_turn(state, seat, "claim victory")
    if state.deck is None:
        raise IllegalAction("victory: only a hidden deck has victory point cards to show")
    _need_phase(state, "claim victory", Phase.ROLL, Phase.MAIN)
    if not a.cards:
        raise IllegalAction("victory: a claim shows at least one victory point card")
    for proof in a.cards:
        state = _show_card(state, seat, DevCard.VICTORY_POINT, proof, "claim victory")
        hand = state.hands[seat]
        hand = hand._replace(dev_cards=add(hand.dev_cards, one(DevCard.VICTORY_POINT)))
        state = state._replace(hands=_with(state.hands, seat, hand))
    points = state.points(seat)
    if points < state.victory_points:
        raise IllegalAction(
            f"victory: showing these cards gives {_name(state, seat)} {points} points, "
            f"not the {state.victory_points} that win"
        )
    return _check_victory(state), a


def owed_reveal(state: GameState) -> str | None:
    """The player whose deck secret the game waits for after it ends (seat order; never
    the player the game was abandoned without)."""
    if not state.is_over or state.deck is None:
        return None
    deck = state.deck
    for s, (p, secret) in enumerate(zip(state.players, deck.secrets, strict=True)):
        if not secret and s != state.abandoned and deck.keys[s]:
            return p
    return None


def _abandon(
    state: GameState, seat: int, a: Abandon, chance: Chance | None
) -> tuple[GameState, Action]:
    """End the game without a player the game waits on; whether it waited long enough
    is the verifier's to judge (commit times, ``sync.verify``)."""
    name = _name(state, seat)
    if state.is_over:
        raise IllegalAction("abandon: the game is over already")
    if a.absent not in state.players:
        raise IllegalAction(f"abandon: there is no player {a.absent!r}")
    absent = state.seat(a.absent)
    if absent == seat:
        raise IllegalAction(f"abandon: {name} cannot end the game for waiting on itself")
    if state.seats and not state.seats[seat]:
        raise IllegalAction(f"abandon: {name} has not claimed its seat")
    if a.absent not in waits_for(state) and absent != state.current:
        raise IllegalAction(
            f"abandon: the game does not wait on {_name(state, absent)} ({_expecting(state)})"
        )
    return state._replace(phase=Phase.GAME_OVER, abandoned=absent, winner=NOBODY), a


def _reveal_deck(
    state: GameState, seat: int, a: RevealDeck, chance: Chance | None
) -> tuple[GameState, Action]:
    """Check the seat's key and shuffle from its secret; the last reveal opens every card."""
    deck = state.deck
    if deck is None or not state.is_over:
        raise IllegalAction("deck: deck secrets are revealed once the game is over")
    if owed_reveal(state) != state.players[seat]:
        raise IllegalAction(
            f"deck: secrets are revealed in seat order; the game waits for "
            f"{(owed_reveal(state) or 'nobody').capitalize()}"
        )
    text = a.secret
    if len(text) != 64 or text != text.lower() or any(c not in "0123456789abcdef" for c in text):
        raise IllegalAction("deck: a deck secret is 64 lower-case hex digits")
    secret = bytes.fromhex(text)
    name = _name(state, seat)
    if not cards_deck.secret_matches(secret, deck.keys[seat]):
        raise IllegalAction(f"deck: that secret is not the one behind {name}'s deck key")
    if seat < len(deck.passes):  # (a game abandoned in its lobby has no shuffles)
        before = deck.passes[seat - 1] if seat else cards_deck.first_cards(deck.size)
        if cards_deck.shuffle(before, secret) != deck.passes[seat]:
            raise IllegalAction(f"deck: {name}'s shuffle of the development cards was dishonest")
    deck = deck._replace(secrets=_with(deck.secrets, seat, text))
    state = state._replace(deck=deck)
    if "" not in deck.secrets:  # an abandoned game stays closed: one layer is missing
        state = _open_all(state)
    return state, a


def _open_all(state: GameState) -> GameState:
    """Every secret is known: every drawn card is read, and held cards are shown."""
    deck = state.deck
    assert deck is not None
    secrets = [bytes.fromhex(x) for x in deck.secrets]
    shown = list(deck.shown)
    hands = list(state.hands)
    dev_deck = state.dev_deck
    for pos, holder in enumerate(deck.holders):
        found = cards_deck.read_card(secrets, deck.cards[pos])
        if found is None or (shown[pos] >= 0 and shown[pos] != found):
            raise IllegalAction(f"deck: card {pos} does not open to the card it was played as")
        if shown[pos] < 0:
            shown[pos] = int(found)
            h = hands[holder]
            hands[holder] = h._replace(dev_cards=add(h.dev_cards, one(found)))
            dev_deck = sub(dev_deck, one(found))
    state = state._replace(
        deck=deck._replace(shown=tuple(shown)), hands=tuple(hands), dev_deck=dev_deck
    )
    for steal in state.steals:  # every steal is read too, with the robber's secret
        shared = cards_deck.shared_value(secrets[steal.mover], steal.answer)
        state = settle(state, steal, shared)
    return state._replace(steals=())


Handler = Callable[[GameState, int, Action, "Chance | None"], "tuple[GameState, Action]"]

HANDLERS: dict[type[Action], Handler] = {
    BuildSettlement: _build_settlement,  # type: ignore[dict-item]
    BuildRoad: _build_road,  # type: ignore[dict-item]
    BuildCity: _build_city,  # type: ignore[dict-item]
    RollDice: _roll_dice,  # type: ignore[dict-item]
    RevealDice: _reveal_dice,  # type: ignore[dict-item]
    Discard: _discard,  # type: ignore[dict-item]
    MoveRobber: _move_robber,  # type: ignore[dict-item]
    EndTurn: _end_turn,  # type: ignore[dict-item]
    BuyDevCard: _buy_dev_card,  # type: ignore[dict-item]
    PlayKnight: _play_knight,  # type: ignore[dict-item]
    PlayRoadBuilding: _play_road_building,  # type: ignore[dict-item]
    EndRoadBuilding: _end_road_building,  # type: ignore[dict-item]
    PlayYearOfPlenty: _play_year_of_plenty,  # type: ignore[dict-item]
    PlayMonopoly: _play_monopoly,  # type: ignore[dict-item]
    MaritimeTrade: _maritime_trade,  # type: ignore[dict-item]
    OfferTrade: _offer_trade,  # type: ignore[dict-item]
    AnswerTrade: _answer_trade,  # type: ignore[dict-item]
    ConfirmTrade: _confirm_trade,  # type: ignore[dict-item]
    CancelTrade: _cancel_trade,  # type: ignore[dict-item]
    ClaimSeat: _claim_seat,  # type: ignore[dict-item]
    ClaimVictory: _claim_victory,  # type: ignore[dict-item]
    RevealDeck: _reveal_deck,  # type: ignore[dict-item]
    GiveCard: _give_card,  # type: ignore[dict-item]
    ShowSteal: _show_steal,  # type: ignore[dict-item]
    Abandon: _abandon,  # type: ignore[dict-item]
    EndSpecialBuild: _end_special_build,  # type: ignore[dict-item]
}


def step(
    state: GameState, action: Action, chance: Chance | None = None
) -> tuple[GameState, Action]:
    """Apply ``action`` and also return it with its chance outcomes filled in.

    Raises:
        IllegalAction: the action breaks a rule; the message names it. ``state`` is
            unchanged (it is immutable).
    """
    if state.phase is Phase.GAME_OVER and not isinstance(action, RevealDeck):
        if state.abandoned != NOBODY:
            raise IllegalAction(
                f"game over: the game was ended without {_name(state, state.abandoned)}"
            )
        raise IllegalAction(f"game over: {_name(state, state.winner)} has already won")
    handler = HANDLERS.get(type(action))
    if handler is None:
        raise IllegalAction(f"unknown action {action!r}")
    if state.lobby_open and handler not in (_claim_seat, _abandon):
        waiting = ", ".join(p.capitalize() for p in actors(state))
        raise IllegalAction(
            f"seats: the game starts once every seat is claimed (waiting for {waiting})"
        )
    try:
        seat = state.players.index(action.player)
    except ValueError:
        raise IllegalAction(
            f"players: {action.player!r} is not in this game ({', '.join(state.players)})"
        ) from None
    proofs = getattr(action, "steals", None)
    if proofs is not None:
        state = _show_steals(state, seat, proofs)
    return handler(state, seat, action, chance)


def apply(state: GameState, action: Action, chance: Chance | None = None) -> GameState:
    """The state after ``action``; see ``step``."""
    return step(state, action, chance)[0]


def is_legal(state: GameState, action: Action) -> bool:
    """True when ``action`` may be applied now (its chance outcomes, if given, are possible)."""
    return refusal(state, action) is None


def refusal(state: GameState, action: Action) -> str | None:
    """The rule ``action`` breaks in ``state`` (the engine's sentence), or None when legal."""
    try:
        step(state, action, _ProbeChance())
    except IllegalAction as exc:
        return str(exc)
    return None


class _ProbeChance(Chance):
    """A chance source for legality probes: always the first outcome."""

    def __init__(self) -> None:
        pass

    def randrange(self, n: int) -> int:
        return 0


# --- legal actions -----------------------------------------------------------------------


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
    if held[DevCard.ROAD_BUILDING] and hand.roads_left > 0 and _road_edges(state, seat):
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
        out.extend([_action(BuildRoad, name, edges[e]) for e in _road_edges(state, seat)])
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
    if covers(res, DEV_CARD_COST) and _deck_left(state):
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
                    if p != cur and ans is Answer.ACCEPT and covers(_spendable(state, p), offer.get)
                )
            elif offer.answers[s] is Answer.PENDING:
                if covers(_spendable(state, s), offer.get):
                    out.append(AnswerTrade(name, True))
                out.append(AnswerTrade(name, False))
        return out
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
        fresh = _setup_settlement_without_road(state, seat)
        return [
            BuildRoad(name, graph.edges[e])
            for e in graph.vertex_edges[fresh]
            if state.edge_owner[e] == NOBODY
        ]
    if phase is Phase.MOVE_ROBBER:
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
    if phase is Phase.ROAD_BUILDING:
        return [BuildRoad(name, graph.edges[e]) for e in _road_edges(state, seat)] + [
            EndRoadBuilding(name)
        ]
    return []


#: What the special building phase allows: building and buying, no trade, no card played.
_SPECIAL_BUILDS = (BuildRoad, BuildSettlement, BuildCity, BuyDevCard)


def waits_for(state: GameState) -> list[str]:
    """Whom the game waits on: the players who may act, or after the end the one whose
    deck secret is owed (nobody chooses it, but a silent player still stalls the game)."""
    owed = owed_reveal(state)
    return [owed] if owed is not None else actors(state)


def actors(state: GameState) -> list[str]:
    """Players who may act now (several during discards and trade answers)."""
    if state.lobby_open:
        return [p for p, k in zip(state.players, state.seats, strict=True) if not k]
    if state.phase is Phase.DISCARD:
        return [state.players[s] for s, n in enumerate(state.discards) if n]
    if state.phase is Phase.TRADE:
        assert state.trade is not None
        return [state.players[state.current]] + [
            state.players[s]
            for s, a in enumerate(state.trade.answers)
            if s != state.current and a is Answer.PENDING
        ]
    if state.phase is Phase.GAME_OVER:
        return []
    if state.phase is Phase.STEAL:
        return [state.players[state.victim]]
    if state.phase is Phase.MONOPOLY:
        return [state.players[s.victim] for s in state.steals]
    return [state.players[state.current]]
