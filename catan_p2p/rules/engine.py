"""The rules: which actions are legal now, and what an action does to the state.

``legal_actions(state)`` lists what may be done; ``apply(state, action, chance)``
returns the next state or raises ``IllegalAction`` naming the rule broken, leaving the
given state untouched (states are immutable). ``step`` also returns the action with
its chance outcomes filled in, which is what a replicated log records.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import combinations_with_replacement

from catan_p2p.errors import IllegalAction, UsageError
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
    RollDice,
    ShowsSteals,
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
from catan_p2p.rules.chance import Chance, roll_of, stolen_index
from catan_p2p.rules.common import Answer, Phase, pay, replaced, seat_name, spendable, unshown
from catan_p2p.rules.hexgrid import format_place, format_tile
from catan_p2p.rules.roads import longest_road
from catan_p2p.rules.seat_keys import NO_KEYS, SeatKeys
from catan_p2p.rules.state import (
    DISCARD_LIMIT,
    LARGEST_ARMY_MIN,
    LONGEST_ROAD_MIN,
    NOBODY,
    GameState,
    Steal,
    TradeOffer,
)
from catan_p2p.rules.state import Phase as _PhaseEnum

# --- small helpers -----------------------------------------------------------------------


def _need_turn(state: GameState, seat: int, what: str) -> None:
    if seat != state.current:
        raise IllegalAction(
            f"turn order: it is {seat_name(state, state.current)}'s turn, "
            f"{seat_name(state, seat)} cannot {what}"
        )


def _need_phase(state: GameState, what: str, *phases: _PhaseEnum) -> None:
    if state.phase not in phases:
        raise IllegalAction(f"cannot {what} now: {_expecting(state)}")


def _expecting(state: GameState) -> str:
    """What the game is waiting for, as a phrase for error messages and the client."""
    who = seat_name(state, state.current)
    phase = state.phase
    if phase is Phase.SETUP_SETTLEMENT:
        return f"{who} must place a set-up settlement"
    if phase is Phase.SETUP_ROAD:
        return f"{who} must place a road next to the new settlement"
    if phase is Phase.ROLL:
        return f"{who} must roll the dice"
    if phase is Phase.DISCARD:
        owing = [f"{seat_name(state, s)} ({n})" for s, n in enumerate(state.discards) if n]
        return f"waiting for discards from {', '.join(owing)}"
    if phase is Phase.MOVE_ROBBER:
        return f"{who} must move the robber"
    if phase is Phase.ROAD_BUILDING:
        return f"{who} must place {state.free_roads} free road(s)"
    if phase is Phase.TRADE:
        return f"{who}'s trade offer is open"
    if phase is Phase.GAME_OVER:
        if state.abandoned != NOBODY:
            return (
                f"the game is over: the others ended it without {seat_name(state, state.abandoned)}"
            )
        return f"the game is over, {seat_name(state, state.winner)} won"
    if phase is Phase.STEAL:
        return f"waiting for {seat_name(state, state.victim)} to give {who} a card"
    if phase is Phase.MONOPOLY:
        owing = ", ".join(seat_name(state, s.victim) for s in state.steals)
        return f"waiting for {owing} to show the cards stolen from them ({who}'s monopoly)"
    if phase is Phase.SPECIAL_BUILD:
        return f"special building: {who} may build or buy"
    return f"it is {who}'s turn"


def expecting(state: GameState) -> str:
    """A short sentence saying who must do what next."""
    return _expecting(state)


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
            hands = replaced(hands, s, h._replace(road_length=length))
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
    state: GameState, seat: int, a: BuildSettlement, chance: Chance | None, keys: SeatKeys
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
            f"{seat_name(state, state.vertex_owner[v])}'s building"
        )
    if not _distance_ok(state, v):
        near = next(n for n in graph.vertex_neighbours[v] if state.vertex_owner[n] != NOBODY)
        raise IllegalAction(
            f"distance rule: vertex {where} is next to {seat_name(state, state.vertex_owner[near])}'s "
            f"building at {format_place(graph.vertices[near])}"
        )
    hand = state.hands[seat]
    if hand.settlements_left <= 0:
        raise IllegalAction(f"pieces: {seat_name(state, seat)} has no settlements left")
    state = _take_shuffle(state, seat, a, keys)
    resources, bank = hand.resources, state.bank
    if state.phase is Phase.MAIN or state.phase is Phase.SPECIAL_BUILD:
        if not any(state.edge_owner[e] == seat for e in graph.vertex_edges[v]):
            raise IllegalAction(
                f"connection: a settlement must touch one of {seat_name(state, seat)}'s roads; "
                f"{where} does not"
            )
        resources, bank = pay(state, seat, SETTLEMENT_COST, "a settlement")
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
        hands=replaced(state.hands, seat, hand),
        vertex_owner=replaced(state.vertex_owner, v, seat),
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
    state: GameState, seat: int, a: BuildRoad, chance: Chance | None, keys: SeatKeys
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
            f"occupied: edge {where} already holds {seat_name(state, state.edge_owner[e])}'s road"
        )
    hand = state.hands[seat]
    if hand.roads_left <= 0:
        raise IllegalAction(f"pieces: {seat_name(state, seat)} has no roads left")
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
            f"connection: road {where} does not connect to {seat_name(state, seat)}'s roads or "
            f"buildings (an opponent's settlement blocks the way through it)"
        )
    if state.phase is Phase.MAIN or state.phase is Phase.SPECIAL_BUILD:
        resources, bank = pay(state, seat, ROAD_COST, "a road")
    hand = hand._replace(resources=resources, roads=hand.roads | {e})
    state = state._replace(
        hands=replaced(state.hands, seat, hand),
        edge_owner=replaced(state.edge_owner, e, seat),
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
    state: GameState, seat: int, a: BuildCity, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    graph = state.board.graph
    v = _vertex(graph, a.vertex)
    _need_phase(state, "build a city", Phase.MAIN, Phase.SPECIAL_BUILD)
    _need_turn(state, seat, "build a city")
    hand = state.hands[seat]
    if v not in hand.settlements:
        raise IllegalAction(
            f"city: a city replaces one of {seat_name(state, seat)}'s own settlements; "
            f"{format_place(a.vertex)} holds none"
        )
    if hand.cities_left <= 0:
        raise IllegalAction(f"pieces: {seat_name(state, seat)} has no cities left")
    resources, bank = pay(state, seat, CITY_COST, "a city")
    hand = hand._replace(
        resources=resources, settlements=hand.settlements - {v}, cities=hand.cities | {v}
    )
    state = state._replace(hands=replaced(state.hands, seat, hand), bank=bank)
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
    state: GameState, seat: int, a: RollDice, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    _need_phase(state, "roll the dice", Phase.ROLL)
    _need_turn(state, seat, "roll the dice")
    state = _take_shares(state, seat, a.shares, keys)
    if state.reveals:  # a game with seat keys: the dice come from the players' chains
        state = keys.take_reveal(state, seat, a.reveal, "rolling")
        beacon = state.reveals[(seat - 1) % len(state.players)]
        derived = roll_of(state.turn, state.reveals[seat], beacon)
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
    a = RollDice(a.player, dice, a.reveal, a.shares)  # type: ignore[arg-type]
    total = dice[0] + dice[1]
    if total != 7:
        state = state._replace(dice=dice, phase=Phase.MAIN)
        return _check_victory(_produce(state, total)), a
    owed = tuple(h.card_count // 2 if h.card_count > DISCARD_LIMIT else 0 for h in state.hands)
    phase = Phase.DISCARD if any(owed) else Phase.MOVE_ROBBER
    return state._replace(dice=dice, discards=owed, phase=phase), a


def _discard(
    state: GameState, seat: int, a: Discard, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    _need_phase(state, "discard", Phase.DISCARD)
    owed = state.discards[seat]
    if owed == 0:
        raise IllegalAction(f"discard: {seat_name(state, seat)} owes no discard")
    cards = tuple(a.cards)
    if len(cards) != 5 or any(n < 0 for n in cards) or sum(cards) != owed:
        raise IllegalAction(
            f"discard: {seat_name(state, seat)} must discard exactly {owed} cards "
            f"(half of {state.hands[seat].card_count}, rounded down), not {sum(cards)}"
        )
    hand = state.hands[seat]
    if not covers(spendable(state, seat), cards):
        raise IllegalAction(
            f"discard: {seat_name(state, seat)} cannot discard {format_counts(cards)} "
            f"holding {format_counts(hand.resources)}{unshown(state, seat)}"
        )
    hand = hand._replace(resources=sub(hand.resources, cards))
    discards = replaced(state.discards, seat, 0)
    state = state._replace(
        hands=replaced(state.hands, seat, hand),
        bank=add(state.bank, cards),
        discards=discards,
        phase=Phase.DISCARD if any(discards) else Phase.MOVE_ROBBER,
    )
    return state, a


def _move_robber(
    state: GameState, seat: int, a: MoveRobber, chance: Chance | None, keys: SeatKeys
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
                f"robber: {seat_name(state, victim)} has no building with cards at "
                f"{format_tile(a.tile)} to rob"
            )
    elif victims:
        names = ", ".join(seat_name(state, s) for s in victims)
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
        token = keys.steal_token(state, seat, a.token, tile, victim)
        return state._replace(phase=Phase.STEAL, victim=victim, token=token), MoveRobber(
            a.player, a.tile, a.victim, None, a.token
        )
    loser = state.hands[victim]
    if a.stolen is not None:
        stolen = int(a.stolen)
        if loser.resources[stolen] <= 0:
            raise IllegalAction(
                f"robber: {seat_name(state, victim)} holds no {Resource(stolen).label}"
            )
    elif not any(loser.resources):
        # Only a player's view has a hand of unknown cards alone (others' pending
        # steals, ``rules.views``): a bot's search takes none of them.
        return _check_victory(state), MoveRobber(a.player, a.tile, a.victim, None)
    else:
        pick = _need_chance(chance, "stealing").randrange(sum(loser.resources))
        stolen = _pick_card(loser.resources, pick)
    card = one(stolen)
    winner = state.hands[seat]
    hands = replaced(state.hands, victim, loser._replace(resources=sub(loser.resources, card)))
    hands = replaced(hands, seat, winner._replace(resources=add(winner.resources, card)))
    resolved = MoveRobber(a.player, a.tile, a.victim, Resource(stolen))
    return _check_victory(state._replace(hands=hands)), resolved


def _give_card(
    state: GameState, seat: int, a: GiveCard, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    """The robbed player's answer: with the robber's token it picks the card, which
    only the two of them learn (``Steal``)."""
    _need_phase(state, "give the robber a card", Phase.STEAL)
    if seat != state.victim:
        raise IllegalAction(
            f"robber: {seat_name(state, state.victim)} is the one robbed, not {seat_name(state, seat)}"
        )
    if any(seat in (s.mover, s.victim) for s in state.steals):
        raise IllegalAction(
            f"robber: {seat_name(state, seat)} must show its earlier steals (`steals`) when it "
            "is robbed: the card is picked from a hand whose every card it knows"
        )
    assert state.deck is not None
    answer = keys.steal_answer(state, seat, a.answer)
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


def _show_steals(state: GameState, seat: int, proofs: tuple[str, ...], keys: SeatKeys) -> GameState:
    """``seat`` shows every pending steal it took part in: one proof each, oldest first.

    Robber or robbed, it gives the steal's shared value with the proof that its deck
    key made it (``rules.deck.exchange``); the value picks the card, which moves now.
    """
    name = seat_name(state, seat)
    mine = [i for i, s in enumerate(state.steals) if seat in (s.mover, s.victim)]
    if not state.reveals:
        raise IllegalAction("steal: only a game with seat keys has steals to show")
    if not proofs or len(proofs) != len(mine):
        raise IllegalAction(
            f"steal: {name} shows all of its {len(mine)} pending steal(s) at once, one "
            f"proof each, oldest first, not {len(proofs)}"
        )
    done = set()
    for i, proof in zip(mine, proofs, strict=True):
        s = state.steals[i]
        shared = keys.shared_value(state, seat, s, proof, s.other_value(seat))
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
        raise IllegalAction(f"steal: {seat_name(state, steal.victim)} no longer holds the card")
    loser = loser._replace(resources=sub(loser.resources, one(r)))
    winner = winner._replace(resources=add(winner.resources, one(r)))
    hands[steal.victim] = loser._replace(hidden=loser.hidden + 1)
    hands[steal.mover] = winner._replace(hidden=winner.hidden - 1)
    return state._replace(hands=tuple(hands))


def _end_turn(
    state: GameState, seat: int, a: EndTurn, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    _need_phase(state, "end the turn", Phase.MAIN)
    _need_turn(state, seat, "end the turn")
    if state.reveals:
        state = keys.take_reveal(state, seat, a.reveal, "ending the turn")
    hands = state.hands
    hand = hands[seat]
    if any(hand.new_dev_cards):
        hand = hand._replace(
            dev_cards=add(hand.dev_cards, hand.new_dev_cards), new_dev_cards=NO_CARDS
        )
        hands = replaced(hands, seat, hand)
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
    return state._replace(phase=Phase.SPECIAL_BUILD, current=builder)


def _end_special_build(
    state: GameState, seat: int, a: EndSpecialBuild, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    _need_phase(state, "end the special building phase", Phase.SPECIAL_BUILD)
    _need_turn(state, seat, "end its special building")
    return _next_special_builder(state, seat), a


def _buy_dev_card(
    state: GameState, seat: int, a: BuyDevCard, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    _need_phase(state, "buy a development card", Phase.MAIN, Phase.SPECIAL_BUILD)
    _need_turn(state, seat, "buy a development card")
    if state.deck is not None:
        state = keys.draw_hidden(state, seat, a)
        if state.phase is Phase.SPECIAL_BUILD:
            state = _check_victory(state)  # (nobody wins here: the builder may be done)
        return state, a
    deck = state.dev_deck
    if not any(deck):
        raise IllegalAction("development cards: the deck is empty")
    resources, bank = pay(state, seat, DEV_CARD_COST, "a development card")
    if a.card is not None:
        card = int(a.card)
        if deck[card] <= 0:
            raise IllegalAction(f"development cards: no {DevCard(card).label} is left in the deck")
    else:
        card = _pick_card(deck, _need_chance(chance, "drawing").randrange(sum(deck)))
    hand = state.hands[seat]
    hand = hand._replace(resources=resources, new_dev_cards=add(hand.new_dev_cards, one(card)))
    state = state._replace(
        hands=replaced(state.hands, seat, hand), bank=bank, dev_deck=sub(deck, one(card))
    )
    return _check_victory(state), BuyDevCard(a.player, DevCard(card))


def _take_dev_card(
    state: GameState, seat: int, card: DevCard, proof: str | None, keys: SeatKeys
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
        state = keys.show_card(state, seat, card, proof, what)
        hand = state.hands[seat]
        hand = hand._replace(played=add(hand.played, one(card)))
        return state._replace(hands=replaced(state.hands, seat, hand), dev_played=True)
    if proof is not None:
        raise IllegalAction("development cards: this game has no hidden deck; play without a proof")
    hand = state.hands[seat]
    if hand.dev_cards[card] <= 0:
        if hand.new_dev_cards[card] > 0:
            raise IllegalAction(
                f"development cards: a {card.label} bought this turn cannot be played "
                "until the next turn"
            )
        raise IllegalAction(f"development cards: {seat_name(state, seat)} holds no {card.label}")
    hand = hand._replace(
        dev_cards=sub(hand.dev_cards, one(card)), played=add(hand.played, one(card))
    )
    return state._replace(hands=replaced(state.hands, seat, hand), dev_played=True)


def _play_knight(
    state: GameState, seat: int, a: PlayKnight, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    state = _take_dev_card(state, seat, DevCard.KNIGHT, a.card, keys)
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
    state: GameState, seat: int, a: PlayRoadBuilding, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    hand = state.hands[seat]
    if seat == state.current and hand.roads_left <= 0:
        raise IllegalAction(f"road building: {seat_name(state, seat)} has no road pieces left")
    if seat == state.current and not _road_edges(state, seat):
        raise IllegalAction(f"road building: {seat_name(state, seat)} has nowhere to build a road")
    state = _take_dev_card(state, seat, DevCard.ROAD_BUILDING, a.card, keys)
    return state._replace(phase=Phase.ROAD_BUILDING, free_roads=min(2, hand.roads_left)), a


def _end_road_building(
    state: GameState, seat: int, a: EndRoadBuilding, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    _need_phase(state, "stop road building", Phase.ROAD_BUILDING)
    _need_turn(state, seat, "stop road building")
    return state._replace(free_roads=0, phase=_after_robber_phase(state)), a


def _play_year_of_plenty(
    state: GameState, seat: int, a: PlayYearOfPlenty, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    take = add(one(int(a.first)), one(int(a.second)))
    if not covers(state.bank, take):
        raise IllegalAction(f"year of plenty: the bank cannot give {format_counts(take)}")
    state = _take_dev_card(state, seat, DevCard.YEAR_OF_PLENTY, a.card, keys)
    hand = state.hands[seat]
    hand = hand._replace(resources=add(hand.resources, take))
    state = state._replace(hands=replaced(state.hands, seat, hand), bank=sub(state.bank, take))
    return _check_victory(state), a


def _play_monopoly(
    state: GameState, seat: int, a: PlayMonopoly, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    state = _take_dev_card(state, seat, DevCard.MONOPOLY, a.card, keys)
    r = int(a.resource)
    if any(seat in (s.mover, s.victim) for s in state.steals):
        raise IllegalAction(
            f"monopoly: {seat_name(state, seat)} shows its pending steals (`steals`) with the "
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
            hands[s] = h._replace(resources=replaced(h.resources, r, 0))
    hands[seat] = hands[seat]._replace(resources=add(hands[seat].resources, one(r, taken)))
    return state._replace(hands=tuple(hands))


def _show_steal(
    state: GameState, seat: int, a: ShowSteal, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    """A robbed player shows its steal for a pending monopoly; the last one lets the
    monopoly take its cards."""
    _need_phase(state, "show a stolen card", Phase.MONOPOLY)
    name = seat_name(state, seat)
    found = [i for i, s in enumerate(state.steals) if s.victim == seat]
    if not found:
        raise IllegalAction(f"monopoly: {name} was robbed in no pending steal")
    i = found[0]
    steal = state.steals[i]
    shared = keys.shared_value(state, seat, steal, a.proof, steal.token)
    state = settle(state, steal, shared)
    state = state._replace(steals=state.steals[:i] + state.steals[i + 1 :])
    if state.steals:
        return state, a
    state = _take_monopoly(state, state.current, state.monopoly)
    state = state._replace(monopoly=NOBODY, phase=_after_robber_phase(state))
    return _check_victory(state), a


def _maritime_trade(
    state: GameState, seat: int, a: MaritimeTrade, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    _need_phase(state, "trade with the bank", Phase.MAIN)
    _need_turn(state, seat, "trade with the bank")
    give, get = int(a.give), int(a.get)
    if give == get:
        raise IllegalAction("maritime trade: giving and getting the same resource makes no trade")
    rate = state.rate(seat, give)
    hand = state.hands[seat]
    if spendable(state, seat)[give] < rate:
        raise IllegalAction(
            f"maritime trade: {seat_name(state, seat)} trades {Resource(give).label} at {rate}:1 "
            f"and holds only {hand.resources[give]}{unshown(state, seat)}"
        )
    if state.bank[get] <= 0:
        raise IllegalAction(f"maritime trade: the bank has no {Resource(get).label} left")
    paid = one(give, rate)
    hand = hand._replace(resources=add(sub(hand.resources, paid), one(get)))
    state = state._replace(
        hands=replaced(state.hands, seat, hand), bank=sub(add(state.bank, paid), one(get))
    )
    return state, a


def _offer_trade(
    state: GameState, seat: int, a: OfferTrade, chance: Chance | None, keys: SeatKeys
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
    if not covers(spendable(state, seat), give):  # type: ignore[arg-type]
        raise IllegalAction(
            f"player trade: {seat_name(state, seat)} cannot offer {format_counts(give)} "  # type: ignore[arg-type]
            f"holding {format_counts(state.hands[seat].resources)}{unshown(state, seat)}"
        )
    answers = tuple(Answer.PENDING for _ in state.players)
    offer = TradeOffer(give, get, answers)  # type: ignore[arg-type]
    return state._replace(phase=Phase.TRADE, trade=offer), a


def _answer_trade(
    state: GameState, seat: int, a: AnswerTrade, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    _need_phase(state, "answer a trade offer", Phase.TRADE)
    offer = state.trade
    assert offer is not None
    if seat == state.current:
        raise IllegalAction("player trade: the player who made the offer does not answer it")
    if offer.answers[seat] is not Answer.PENDING:
        raise IllegalAction(f"player trade: {seat_name(state, seat)} has already answered")
    if a.accept and not covers(spendable(state, seat), offer.get):
        raise IllegalAction(
            f"player trade: {seat_name(state, seat)} cannot accept, it asks for "
            f"{format_counts(offer.get)} and they hold {format_counts(state.hands[seat].resources)}"
            f"{unshown(state, seat)}"
        )
    answer = Answer.ACCEPT if a.accept else Answer.DECLINE
    offer = offer._replace(answers=replaced(offer.answers, seat, answer))
    return state._replace(trade=offer), a


def _confirm_trade(
    state: GameState, seat: int, a: ConfirmTrade, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    _need_phase(state, "close a trade", Phase.TRADE)
    _need_turn(state, seat, "close a trade")
    offer = state.trade
    assert offer is not None
    if a.partner not in state.players:
        raise IllegalAction(f"player trade: there is no player {a.partner!r}")
    partner = state.seat(a.partner)
    if partner == seat or offer.answers[partner] is not Answer.ACCEPT:
        raise IllegalAction(f"player trade: {seat_name(state, partner)} has not accepted the offer")
    mine, theirs = state.hands[seat], state.hands[partner]
    if not covers(spendable(state, seat), offer.give) or not covers(
        spendable(state, partner), offer.get
    ):
        raise IllegalAction("player trade: one side no longer holds the cards of the offer")
    hands = replaced(
        state.hands, seat, mine._replace(resources=add(sub(mine.resources, offer.give), offer.get))
    )
    hands = replaced(
        hands, partner, theirs._replace(resources=add(sub(theirs.resources, offer.get), offer.give))
    )
    return state._replace(hands=hands, trade=None, phase=Phase.MAIN), a


def _cancel_trade(
    state: GameState, seat: int, a: CancelTrade, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    _need_phase(state, "withdraw a trade offer", Phase.TRADE)
    _need_turn(state, seat, "withdraw a trade offer")
    return state._replace(trade=None, phase=Phase.MAIN), a


def _claim_seat(
    state: GameState, seat: int, a: ClaimSeat, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    if not state.lobby_open:
        raise IllegalAction("seats: every seat is taken; the game has started")
    return keys.claim_seat(state, seat, a), a


# --- the hidden deck of a game with seat keys (rules.deck) ---------------------------------


def _deck_left(state: GameState) -> int:
    return state.deck.left if state.deck is not None else sum(state.dev_deck)


def _take_shuffle(state: GameState, seat: int, a: BuildSettlement, keys: SeatKeys) -> GameState:
    """A seat's first set-up settlement carries its shuffle; nothing else does."""
    due = (
        state.deck is not None
        and state.phase is Phase.SETUP_SETTLEMENT
        and state.setup_step < len(state.players)
    )
    if due:
        return keys.take_shuffle(state, seat, a)
    if a.deck is not None or a.proof is not None:
        raise IllegalAction("deck: only a seat's first set-up settlement shuffles the deck")
    return state


def _take_shares(
    state: GameState, seat: int, given: tuple[str, ...] | None, keys: SeatKeys
) -> GameState:
    """The roller opens, with its share, every card other seats drew since its last roll."""
    if state.deck is not None:
        return keys.take_shares(state, seat, given)
    if given is not None:
        raise IllegalAction("development cards: this game has no hidden deck to share")
    return state


def _claim_victory(
    state: GameState, seat: int, a: ClaimVictory, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    _need_turn(state, seat, "claim victory")
    if state.deck is None:
        raise IllegalAction("victory: only a hidden deck has victory point cards to show")
    _need_phase(state, "claim victory", Phase.ROLL, Phase.MAIN)
    if not a.cards:
        raise IllegalAction("victory: a claim shows at least one victory point card")
    for proof in a.cards:
        state = keys.show_card(state, seat, DevCard.VICTORY_POINT, proof, "claim victory")
        hand = state.hands[seat]
        hand = hand._replace(dev_cards=add(hand.dev_cards, one(DevCard.VICTORY_POINT)))
        state = state._replace(hands=replaced(state.hands, seat, hand))
    points = state.points(seat)
    if points < state.victory_points:
        raise IllegalAction(
            f"victory: showing these cards gives {seat_name(state, seat)} {points} points, "
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
    state: GameState, seat: int, a: Abandon, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    """End the game without a player the game waits on; whether it waited long enough
    is the verifier's to judge (commit times, ``sync.verify``)."""
    name = seat_name(state, seat)
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
            f"abandon: the game does not wait on {seat_name(state, absent)} ({_expecting(state)})"
        )
    return state._replace(phase=Phase.GAME_OVER, abandoned=absent, winner=NOBODY), a


def _reveal_deck(
    state: GameState, seat: int, a: RevealDeck, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    """Check the seat's key and shuffle from its secret; the last reveal opens every card."""
    if state.deck is None or not state.is_over:
        raise IllegalAction("deck: deck secrets are revealed once the game is over")
    return keys.reveal_deck(state, seat, a), a


Handler = Callable[[GameState, int, Action, "Chance | None", SeatKeys], "tuple[GameState, Action]"]

HANDLERS: dict[type[Action], Handler] = {
    BuildSettlement: _build_settlement,  # type: ignore[dict-item]
    BuildRoad: _build_road,  # type: ignore[dict-item]
    BuildCity: _build_city,  # type: ignore[dict-item]
    RollDice: _roll_dice,  # type: ignore[dict-item]
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
    state: GameState, action: Action, chance: Chance | None = None, keys: SeatKeys = NO_KEYS
) -> tuple[GameState, Action]:
    """Apply ``action`` and also return it with its chance outcomes filled in.

    Raises:
        IllegalAction: the action breaks a rule; the message names it. ``state`` is
            unchanged (it is immutable).
    """
    if state.phase is Phase.GAME_OVER and not isinstance(action, RevealDeck):
        if state.abandoned != NOBODY:
            raise IllegalAction(
                f"game over: the game was ended without {seat_name(state, state.abandoned)}"
            )
        raise IllegalAction(f"game over: {seat_name(state, state.winner)} has already won")
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
    if isinstance(action, ShowsSteals) and action.steals is not None:
        state = _show_steals(state, seat, action.steals, keys)
    return handler(state, seat, action, chance, keys)


def apply(
    state: GameState, action: Action, chance: Chance | None = None, keys: SeatKeys = NO_KEYS
) -> GameState:
    """The state after ``action``; see ``step``."""
    return step(state, action, chance, keys)[0]


def is_legal(state: GameState, action: Action, keys: SeatKeys = NO_KEYS) -> bool:
    """True when ``action`` may be applied now (its chance outcomes, if given, are possible)."""
    return refusal(state, action, keys) is None


def refusal(state: GameState, action: Action, keys: SeatKeys = NO_KEYS) -> str | None:
    """The rule ``action`` breaks in ``state`` (the engine's sentence), or None when legal."""
    try:
        step(state, action, _ProbeChance(), keys)
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
                    if p != cur and ans is Answer.ACCEPT and covers(spendable(state, p), offer.get)
                )
            elif offer.answers[s] is Answer.PENDING:
                if covers(spendable(state, s), offer.get):
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
