"""The rules: which actions are legal now, and what an action does to the state.

``legal_actions(state)`` lists what may be done; ``apply(state, action, chance)``
returns the next state or raises ``IllegalAction`` naming the rule broken, leaving the
given state untouched (states are immutable). ``step`` also returns the action with
its chance outcomes filled in, which is what a replicated log records.
"""

from __future__ import annotations

from collections.abc import Callable

from catan_p2p.errors import IllegalAction
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
    ShowsSteals,
    ShowSteal,
)
from catan_p2p.rules.board import NO_PORT, BoardGraph
from catan_p2p.rules.cards import (
    CITY_COST,
    NO_CARDS,
    ROAD_COST,
    SETTLEMENT_COST,
    Resource,
    add,
    covers,
    format_counts,
    one,
    sub,
)
from catan_p2p.rules.chance import Chance, roll_of
from catan_p2p.rules.common import (
    Phase,
    need_chance,
    pay,
    pick_card,
    replaced,
    seat_name,
    spendable,
    unshown,
)
from catan_p2p.rules.dev_cards import (
    buy_dev_card,
    claim_victory,
    end_road_building,
    play_knight,
    play_monopoly,
    play_road_building,
    play_year_of_plenty,
    show_steal,
)
from catan_p2p.rules.hexgrid import format_place, format_tile
from catan_p2p.rules.roads import longest_road, road_edges, setup_settlement_without_road
from catan_p2p.rules.seat_keys import NO_KEYS, SeatKeys
from catan_p2p.rules.state import (
    DISCARD_LIMIT,
    LONGEST_ROAD_MIN,
    NOBODY,
    GameState,
    Steal,
)
from catan_p2p.rules.steals import show_steals
from catan_p2p.rules.trade import (
    answer_trade,
    cancel_trade,
    confirm_trade,
    maritime_trade,
    offer_trade,
)
from catan_p2p.rules.turns import after_robber_phase, check_victory, next_special_builder, next_turn
from catan_p2p.rules.waiting import actors, expecting, need_phase, need_turn, waits_for

# --- small helpers -----------------------------------------------------------------------


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


def _victims(state: GameState, seat: int, tile: int) -> list[int]:
    owner = state.vertex_owner
    found = []
    for v in state.board.graph.tile_vertices[tile]:
        o = owner[v]
        if o != NOBODY and o != seat and o not in found and state.hands[o].card_count > 0:
            found.append(o)
    return sorted(found)


# --- handlers: one per action type ------------------------------------------------------


def _build_settlement(
    state: GameState, seat: int, a: BuildSettlement, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    graph = state.board.graph
    v = _vertex(graph, a.vertex)
    need_phase(state, "build a settlement", Phase.SETUP_SETTLEMENT, Phase.MAIN, Phase.SPECIAL_BUILD)
    need_turn(state, seat, "build a settlement")
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
    return check_victory(state), a


def _build_road(
    state: GameState, seat: int, a: BuildRoad, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    graph = state.board.graph
    e = _edge(graph, a.edge)
    need_phase(
        state,
        "build a road",
        Phase.SETUP_ROAD,
        Phase.MAIN,
        Phase.ROAD_BUILDING,
        Phase.SPECIAL_BUILD,
    )
    need_turn(state, seat, "build a road")
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
        fresh = setup_settlement_without_road(state, seat)
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
        if left <= 0 or hand.roads_left <= 0 or not road_edges(state, seat):
            state = state._replace(free_roads=0, phase=after_robber_phase(state))
        else:
            state = state._replace(free_roads=left)
    return check_victory(state), a


def _build_city(
    state: GameState, seat: int, a: BuildCity, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    graph = state.board.graph
    v = _vertex(graph, a.vertex)
    need_phase(state, "build a city", Phase.MAIN, Phase.SPECIAL_BUILD)
    need_turn(state, seat, "build a city")
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
    return check_victory(state), a


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
    need_phase(state, "roll the dice", Phase.ROLL)
    need_turn(state, seat, "roll the dice")
    state = _take_shares(state, seat, a.shares, keys)
    if state.reveals:  # a game with seat keys: the dice come from the players' chains
        decided = dice_step_due(state, seat)
        state = keys.take_reveal(state, seat, a.reveal, "rolling")._replace(fresh_beacon=False)
        beacon = (seat - 1) % len(state.players)
        if decided:  # the seat before reveals the element the roll takes (reveal_dice)
            if a.dice is not None:
                raise IllegalAction(
                    f"dice: {seat_name(state, seat)} decided something before rolling, so "
                    f"{seat_name(state, beacon)}'s next dice-chain element gives this roll; "
                    "roll without naming the dice"
                )
            rolled = RollDice(a.player, None, a.reveal, a.shares)
            return state._replace(phase=Phase.DICE, current=beacon), rolled
        a = RollDice(a.player, _chain_roll(state, seat, beacon, a.dice), a.reveal, a.shares)
    dice = a.dice if a.dice is not None else need_chance(chance, "rolling").roll()
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
    state: GameState, seat: int, a: RevealDice, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    """The seat before the roller reveals its next dice-chain element, which with the
    roller's element in its ``roll_dice`` gives the roll; the roller then goes on."""
    need_phase(state, "reveal the dice", Phase.DICE)
    need_turn(state, seat, "reveal the dice")
    roller = (seat + 1) % len(state.players)
    state = keys.take_reveal(state, seat, a.reveal, "revealing the dice")
    derived = _chain_roll(state, roller, seat, a.dice)
    rolled = _rolled(state._replace(current=roller), derived)
    return rolled, RevealDice(a.player, a.reveal, derived)


def _chain_roll(
    state: GameState, roller: int, beacon: int, claimed: tuple[int, int] | None
) -> tuple[int, int]:
    """The roll the roller's and the beacon seat's revealed elements give; a roll the
    action names (``claimed``) must be that one."""
    derived = roll_of(state.turn, state.reveals[roller], state.reveals[beacon])
    if claimed is not None and tuple(claimed) != derived:
        raise IllegalAction(
            f"dice: the revealed chain elements give {derived[0]}+{derived[1]}, "
            f"not {claimed[0]}+{claimed[1]}"
        )
    return derived


def _rolled(state: GameState, dice: tuple[int, int]) -> GameState:
    """The state once the turn's dice show ``dice``: production, or a seven's discards."""
    total = dice[0] + dice[1]
    if total != 7:
        state = state._replace(dice=dice, phase=Phase.MAIN)
        return check_victory(_produce(state, total))
    owed = tuple(h.card_count // 2 if h.card_count > DISCARD_LIMIT else 0 for h in state.hands)
    phase = Phase.DISCARD if any(owed) else Phase.MOVE_ROBBER
    return state._replace(dice=dice, discards=owed, phase=phase)


def _discard(
    state: GameState, seat: int, a: Discard, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    need_phase(state, "discard", Phase.DISCARD)
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
    need_phase(state, "move the robber", Phase.MOVE_ROBBER)
    need_turn(state, seat, "move the robber")
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
    state = state._replace(robber=tile, phase=after_robber_phase(state))
    if victim == NOBODY:
        return check_victory(state), MoveRobber(a.player, a.tile, None, None)
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
        # steals, ``trust.views``): a bot's search takes none of them.
        return check_victory(state), MoveRobber(a.player, a.tile, a.victim, None)
    else:
        pick = need_chance(chance, "stealing").randrange(sum(loser.resources))
        stolen = pick_card(loser.resources, pick)
    card = one(stolen)
    winner = state.hands[seat]
    hands = replaced(state.hands, victim, loser._replace(resources=sub(loser.resources, card)))
    hands = replaced(hands, seat, winner._replace(resources=add(winner.resources, card)))
    resolved = MoveRobber(a.player, a.tile, a.victim, Resource(stolen))
    return check_victory(state._replace(hands=hands)), resolved


def _give_card(
    state: GameState, seat: int, a: GiveCard, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    """The robbed player's answer: with the robber's token it picks the card, which
    only the two of them learn (``Steal``)."""
    need_phase(state, "give the robber a card", Phase.STEAL)
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
        phase=after_robber_phase(state),
    )
    return check_victory(state), a


def _end_turn(
    state: GameState, seat: int, a: EndTurn, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    need_phase(state, "end the turn", Phase.MAIN)
    need_turn(state, seat, "end the turn")
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
        return next_special_builder(state._replace(hands=hands), seat), a
    return next_turn(state._replace(hands=hands), seat), a


def _end_special_build(
    state: GameState, seat: int, a: EndSpecialBuild, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    need_phase(state, "end the special building phase", Phase.SPECIAL_BUILD)
    need_turn(state, seat, "end its special building")
    return next_special_builder(state, seat), a


def _claim_seat(
    state: GameState, seat: int, a: ClaimSeat, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    if not state.lobby_open:
        raise IllegalAction("seats: every seat is taken; the game has started")
    return keys.claim_seat(state, seat, a), a


# --- the hidden deck of a game with seat keys (rules.deck) ---------------------------------


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


def _abandon(
    state: GameState, seat: int, a: Abandon, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    """End the game without a player the game waits on; whether it waited long enough
    is the verifier's to judge (commit times, ``protocol.verify``)."""
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
            f"abandon: the game does not wait on {seat_name(state, absent)} ({expecting(state)})"
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
    RevealDice: _reveal_dice,  # type: ignore[dict-item]
    Discard: _discard,  # type: ignore[dict-item]
    MoveRobber: _move_robber,  # type: ignore[dict-item]
    EndTurn: _end_turn,  # type: ignore[dict-item]
    BuyDevCard: buy_dev_card,  # type: ignore[dict-item]
    PlayKnight: play_knight,  # type: ignore[dict-item]
    PlayRoadBuilding: play_road_building,  # type: ignore[dict-item]
    EndRoadBuilding: end_road_building,  # type: ignore[dict-item]
    PlayYearOfPlenty: play_year_of_plenty,  # type: ignore[dict-item]
    PlayMonopoly: play_monopoly,  # type: ignore[dict-item]
    MaritimeTrade: maritime_trade,  # type: ignore[dict-item]
    OfferTrade: offer_trade,  # type: ignore[dict-item]
    AnswerTrade: answer_trade,  # type: ignore[dict-item]
    ConfirmTrade: confirm_trade,  # type: ignore[dict-item]
    CancelTrade: cancel_trade,  # type: ignore[dict-item]
    ClaimSeat: _claim_seat,  # type: ignore[dict-item]
    ClaimVictory: claim_victory,  # type: ignore[dict-item]
    RevealDeck: _reveal_deck,  # type: ignore[dict-item]
    GiveCard: _give_card,  # type: ignore[dict-item]
    ShowSteal: show_steal,  # type: ignore[dict-item]
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
        state = show_steals(state, seat, action.steals, keys)
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
