"""catanatron as an outside referee: the same game, two engines, choices and outcomes compared.

At every position of a game played in our engine, ``compare_position`` lists our legal
actions and catanatron's for the same position (translated by the bridge), and checks
that our ``step`` itself refuses every road, settlement and city both lists leave out
and takes every one both offer (side "apply": a rule kept only in ``legal_actions``
would let a peer's commit through). ``Replay`` runs the whole game through catanatron's
engine beside ours: catanatron's game is built once and moves only by executing the
actions taken, and after every step the hands, bank, deck, robber, buildings, roads,
points, awards, discards owed, whose turn and phase and the winner are compared
(side "outcome"); a confirmed player trade, which catanatron lacks, moves the offered
cards as the rule says and the hands are compared. Differences that come from
catanatron's known deviations from the official rules are classified by ``ALLOWED``
(each names the rule); anything else is a finding.

``python -m catan_p2p.bridges.referee --games 20`` prints a report (``--players`` 2 to 4:
catanatron has four colours and no 5-6 player extension, so any other count is refused).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from catan_p2p.bridges.catanatron import (
    CAT_DEV_CARDS,
    CAT_RESOURCES,
    ActionPrompt,
    ActionType,
    CAction,
    Game,
    action_key,
    action_to_catanatron,
    colors_of,
    geometry,
    to_catanatron,
)
from catan_p2p.bridges.strategies import make_bot
from catan_p2p.errors import IllegalAction, UsageError
from catan_p2p.rules.actions import (
    Action,
    AnswerTrade,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    CancelTrade,
    ConfirmTrade,
    Discard,
    MoveRobber,
    OfferTrade,
    RollDice,
)
from catan_p2p.rules.cards import (
    CITY_COST,
    RESOURCES,
    ROAD_COST,
    SETTLEMENT_COST,
    DevCard,
    covers,
)
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import LONGEST_ROAD_MIN, NOBODY, GameState, Phase, new_game
from catan_p2p.rules.waiting import actors
from catan_p2p.sim import next_actor
from catan_p2p.trust.engine import step

#: Each allowed difference: (name, the rule concerned, predicate on a difference).
#: A difference is (side, key, state): side "ours" (only we allow it), "theirs" (only
#: catanatron), "apply" (our ``step`` judges a placement otherwise than both lists) or
#: "outcome" (a figure after a step; key: the figure, detail: tags and values).


@dataclass(frozen=True)
class Difference:
    """One action only one engine allows, or one figure the engines disagree on."""

    side: str  # "ours"/"theirs": only one engine allows it; "apply"; "outcome": figures
    key: tuple
    state: GameState
    action: Action | None = None  # the action taken (for state differences)
    detail: str = ""

    def describe(self) -> str:
        where = f"turn {self.state.turn}, {self.state.phase.label}"
        if self.side in ("outcome", "apply"):
            return f"after {self.action} ({where}): {self.detail}"
        who = "only our engine allows" if self.side == "ours" else "only catanatron allows"
        return f"{who} {self.key} ({where})"


def _seat_of_key(state: GameState, key: tuple) -> int:
    colors = [c.value for c in colors_of(state)]
    return colors.index(key[0])


def _dev(state: GameState, key: tuple, card: DevCard) -> bool:
    kinds = {
        DevCard.KNIGHT: "PLAY_KNIGHT_CARD",
        DevCard.ROAD_BUILDING: "PLAY_ROAD_BUILDING",
        DevCard.YEAR_OF_PLENTY: "PLAY_YEAR_OF_PLENTY",
        DevCard.MONOPOLY: "PLAY_MONOPOLY",
    }
    return key[1] == kinds[card]


def _bought_this_turn(d: Difference) -> bool:
    """catanatron 3.2.1 lets a card be played on the turn it was bought."""
    if d.side != "theirs" or not d.key[1].startswith("PLAY_"):
        return False
    hand = d.state.hands[_seat_of_key(d.state, d.key)]
    return any(
        _dev(d.state, d.key, c) and hand.new_dev_cards[c] and not hand.dev_cards[c]
        for c in (DevCard.KNIGHT, DevCard.ROAD_BUILDING, DevCard.YEAR_OF_PLENTY, DevCard.MONOPOLY)
    )


def _before_roll(d: Difference) -> bool:
    """catanatron allows only the knight before the roll; the rules allow any card."""
    return (
        d.side == "ours"
        and d.state.phase is Phase.ROLL
        and d.key[1] in ("PLAY_ROAD_BUILDING", "PLAY_YEAR_OF_PLENTY", "PLAY_MONOPOLY")
    )


def _road_building_needs_cost(d: Difference) -> bool:
    """catanatron offers road building (and its free roads) only to a player who could
    pay for a road."""
    if d.side == "outcome":
        return "road-building-cost" in d.detail.split()
    if d.side != "ours":
        return False
    hand = d.state.hands[_seat_of_key(d.state, d.key)].resources
    broke = hand[0] < 1 or hand[1] < 1
    if d.key[1] == "PLAY_ROAD_BUILDING":
        return broke
    return d.key[1] == "BUILD_ROAD" and d.state.phase is Phase.ROAD_BUILDING and broke


def _one_card_plenty(d: Difference) -> bool:
    """catanatron offers a one-card year of plenty when the bank lacks the second card."""
    return d.side == "theirs" and d.key[1] == "PLAY_YEAR_OF_PLENTY" and len(d.key[2]) == 1


def _road_building_no_edge(d: Difference) -> bool:
    """With road building and roads but no free edge catanatron still waits for a road."""
    return False


def _lone_shortage(d: Difference) -> bool:
    """Bank shortage: when one player alone is owed a short resource, the rules give
    what is left; catanatron gives nothing."""
    return d.side == "outcome" and "shortage" in d.detail.split()


def _longest_road_cut(d: Difference) -> bool:
    """After a settlement cuts a road, catanatron hands longest road to the longest
    remaining road even under 5 or tied; the rules set it aside (or keep the holder)."""
    return d.side == "outcome" and "road-cut" in d.detail.split()


def _longest_road_tie(d: Difference) -> bool:
    """A settlement that splits any opponent's road makes catanatron hand longest road
    anew to the first colour of its list with the longest road; the rules keep a tied
    holder (and give nobody a tied award nobody holds)."""
    return d.side == "outcome" and "road-tie" in d.detail.split()


def _road_into_building(d: Difference) -> bool:
    """catanatron's longest road leaves out a road that ends at an opponent's building;
    the rules count it (a building breaks a road only where the road passes through)."""
    return d.side == "outcome" and "road-into-building" in d.detail.split()


def _win_off_turn(d: Difference) -> bool:
    """catanatron declares a winner whenever anyone reaches 10 points; the rules only
    on that player's own turn."""
    return d.side == "outcome" and "off-turn" in d.detail.split()


ALLOWED: tuple[tuple[str, str, Callable[[Difference], bool]], ...] = (
    (
        "bought-this-turn",
        "a development card may not be played on the turn it was bought "
        "(victory point cards excepted)",
        _bought_this_turn,
    ),
    (
        "card-before-roll",
        "any one development card may be played before the roll, not only the knight",
        _before_roll,
    ),
    (
        "road-building-cost",
        "road building gives two free roads: it needs no lumber and brick in hand",
        _road_building_needs_cost,
    ),
    ("one-card-plenty", "year of plenty takes two cards from the bank", _one_card_plenty),
    (
        "lone-shortage",
        "bank shortage: a lone player owed a short resource gets what is left",
        _lone_shortage,
    ),
    (
        "longest-road-tie",
        "a tie for longest road keeps its holder; with no holder, nobody gets it",
        _longest_road_tie,
    ),
    (
        "longest-road-cut",
        "longest road after a cut: at least 5 roads, ties set aside or kept by the holder",
        _longest_road_cut,
    ),
    (
        "road-into-building",
        "longest road counts a road up to an opponent's building",
        _road_into_building,
    ),
    ("win-off-turn", "a player wins only on their own turn", _win_off_turn),
)


def classify(d: Difference) -> str | None:
    """The name of the allowed difference that explains ``d``, or None (a finding)."""
    for name, _, test in ALLOWED:
        if test(d):
            return name
    return None


def compare_position(state: GameState) -> list[Difference]:
    """Legal actions of both engines at ``state`` (for each player who may act)."""
    if state.phase in (Phase.TRADE, Phase.GAME_OVER):
        return []
    out: list[Difference] = []
    who = actors(state)
    for player in who:
        game = to_catanatron(state, actor=player if state.phase is Phase.DISCARD else None)
        theirs = {action_key(a) for a in game.state.playable_actions}
        ours = set()
        for a in legal_actions(state, player):
            c = action_to_catanatron(state, a)
            if c is not None:
                ours.add(action_key(c))
        out += [Difference("ours", k, state) for k in sorted(ours - theirs, key=repr)]
        out += [Difference("theirs", k, state) for k in sorted(theirs - ours, key=repr)]
        out += _compare_refusals(state, player, ours, theirs)
    return out


def _placements(state: GameState, player: str) -> list[Action]:
    """Every road, settlement and city ``player`` might try now, legal or not, of the
    kinds the phase and the player's hand allow (both engines refuse the rest for cost)."""
    graph = state.board.graph
    hand = state.hands[state.seat(player)].resources
    phase = state.phase
    out: list[Action] = []
    if phase in (Phase.SETUP_ROAD, Phase.ROAD_BUILDING) or (
        phase is Phase.MAIN and covers(hand, ROAD_COST)
    ):
        out += [BuildRoad(player, e) for e in graph.edges]
    if phase is Phase.SETUP_SETTLEMENT or (phase is Phase.MAIN and covers(hand, SETTLEMENT_COST)):
        out += [BuildSettlement(player, v) for v in graph.vertices]
    if phase is Phase.MAIN and covers(hand, CITY_COST):
        out += [BuildCity(player, v) for v in graph.vertices]
    return out


def _compare_refusals(
    state: GameState, player: str, ours: set[tuple], theirs: set[tuple]
) -> list[Difference]:
    """What ``step`` itself does with every placement both engines list alike.

    Listing the same choices is not enough: ``step`` (``apply``) must refuse what both
    refuse and take what both offer, or a rule that holds only in ``legal_actions``
    (a road through an opponent's building, say) lets a peer's commit through. A
    placement ``step`` judges otherwise than both lists is a difference of side
    "apply".
    """
    if state.phase not in (
        Phase.SETUP_SETTLEMENT,
        Phase.SETUP_ROAD,
        Phase.MAIN,
        Phase.ROAD_BUILDING,
    ):
        return []
    if state.players[state.current] != player:
        return []
    out = []
    for a in _placements(state, player):
        key = action_key(action_to_catanatron(state, a))
        listed = key in ours
        if listed != (key in theirs):
            continue  # compare_position reports it already
        try:
            step(state, a)
            taken = True
        except IllegalAction:
            taken = False
        if taken != listed:
            side = "apply"
            what = "takes" if taken else "refuses"
            out.append(Difference(side, key, state, a, f"step {what} {a} ({key[1]})"))
    return out


def _ends_at_building(state: GameState, seat: int) -> bool:
    """True when one of the seat's roads ends at an opponent's building."""
    graph = state.board.graph
    owner = state.vertex_owner
    return any(
        owner[v] not in (NOBODY, seat)
        for e in state.hands[seat].roads
        for v in graph.edge_vertices[e]
    )


def _cut(state: GameState, after: GameState) -> bool:
    """True when the step (a settlement) shortened an opponent's longest road."""
    return any(b.road_length < a.road_length for a, b in zip(state.hands, after.hands, strict=True))


def _split_to_tie(state: GameState, action: Action, after: GameState) -> bool:
    """True when ``action`` is a settlement that splits an opponent's road (two of the
    corner's edges are that player's: catanatron then recounts every road and hands the
    award to its first colour with the most) and the longest road, 5 or more, is tied."""
    if not isinstance(action, BuildSettlement) or state.phase is not Phase.MAIN:
        return False
    graph = after.board.graph
    v = graph.vertex_index[action.vertex]
    seat = after.seat(action.player)
    owners = [after.edge_owner[e] for e in graph.vertex_edges[v]]
    split = any(owners.count(s) == 2 for s in range(len(after.players)) if s != seat)
    lengths = [h.road_length for h in after.hands]
    best = max(lengths)
    return split and best >= LONGEST_ROAD_MIN and lengths.count(best) > 1


def _lone_short(state: GameState, number: int) -> bool:
    """True when a roll of ``number`` owes one lone player more of a resource than the bank has."""
    graph = state.board.graph
    owed: dict[int, Counter[int]] = {}
    for t in graph.number_tiles[number]:
        if t == state.robber:
            continue
        r = graph.tile_resource[t]
        for v in graph.tile_vertices[t]:
            o = state.vertex_owner[v]
            if o != NOBODY:
                owed.setdefault(r, Counter())[o] += 2 if v in state.hands[o].cities else 1
    return any(
        sum(row.values()) > state.bank[r] and len(row) == 1 and state.bank[r] > 0
        for r, row in owed.items()
    )


# --- whole games replayed: outcomes compared ----------------------------------------------

#: Our phases as catanatron's prompts name them (an open trade offer is its play turn).
_PHASE_NAMES = {
    Phase.SETUP_SETTLEMENT: "BUILD_INITIAL_SETTLEMENT",
    Phase.SETUP_ROAD: "BUILD_INITIAL_ROAD",
    Phase.ROLL: "ROLL",
    Phase.MAIN: "PLAY_TURN",
    Phase.TRADE: "PLAY_TURN",
    Phase.DISCARD: "DISCARD",
    Phase.MOVE_ROBBER: "MOVE_ROBBER",
    Phase.ROAD_BUILDING: "ROAD_BUILDING",
    Phase.GAME_OVER: "GAME_OVER",
}


def _their_phase(game: Game, winner: bool) -> str:
    s = game.state
    if winner:
        return "GAME_OVER"
    prompt = s.current_prompt.value
    if prompt == "PLAY_TURN":
        key = f"P{s.current_turn_index}_HAS_ROLLED"
        if s.is_road_building and s.free_roads_available > 0:
            return "ROAD_BUILDING"
        return "PLAY_TURN" if s.player_state[key] else "ROLL"
    return prompt


def their_outcome(game: Game, owed: tuple[int, ...]) -> dict:
    """The figures of catanatron's position compared after every step: the bank and the
    deck, the robber, whose turn and what it waits for, and per seat its hand, cards,
    buildings, roads, points, awards and the discard it owes (``owed``: catanatron
    keeps no count, ``Replay`` reads it off catanatron's own discards)."""
    s = game.state
    winner = game.winning_color()
    out: dict = {
        "bank": tuple(s.resource_freqdeck),
        "deck": len(s.development_listdeck),
        "robber": tuple(s.board.robber_coordinate),
        "turn": s.current_turn_index,
        "phase": _their_phase(game, winner is not None),
        "winner": None if winner is None else winner.value,
    }
    ps = s.player_state
    for i, color in enumerate(s.colors):
        k = f"P{i}"
        built = s.buildings_by_color[color]
        out[color.value] = {
            "resources": tuple(ps[f"{k}_{r}_IN_HAND"] for r in CAT_RESOURCES),
            "dev_cards": tuple(ps[f"{k}_{c}_IN_HAND"] for c in CAT_DEV_CARDS),
            "played": tuple(ps[f"{k}_PLAYED_{c}"] for c in CAT_DEV_CARDS),
            "settlements": frozenset(built["SETTLEMENT"]),
            "cities": frozenset(built["CITY"]),
            "roads": frozenset(tuple(sorted(e)) for e in built["ROAD"]),
            "points": ps[f"{k}_ACTUAL_VICTORY_POINTS"],
            "public_points": ps[f"{k}_VICTORY_POINTS"],
            "longest_road": bool(ps[f"{k}_HAS_ROAD"]),
            "largest_army": bool(ps[f"{k}_HAS_ARMY"]),
            "discards": owed[i],
        }
    return out


def our_outcome(state: GameState) -> dict:
    """``their_outcome`` of our position."""
    geo = geometry(state.board)
    out: dict = {
        "bank": tuple(state.bank),
        "deck": sum(state.dev_deck),
        "robber": tuple(geo.coordinate_of_tile[state.robber]),
        "turn": state.current,
        "phase": _PHASE_NAMES[state.phase],
        "winner": None if state.winner == NOBODY else colors_of(state)[state.winner].value,
    }
    for seat, color in enumerate(colors_of(state)):
        hand = state.hands[seat]
        out[color.value] = {
            "resources": tuple(hand.resources),
            "dev_cards": tuple(
                a + b for a, b in zip(hand.dev_cards, hand.new_dev_cards, strict=True)
            ),
            "played": tuple(hand.played),
            "settlements": frozenset(geo.node_of_vertex[v] for v in hand.settlements),
            "cities": frozenset(geo.node_of_vertex[v] for v in hand.cities),
            "roads": frozenset(tuple(sorted(geo.edge_of_edge[e])) for e in hand.roads),
            "points": state.points(seat),
            "public_points": state.public_points(seat),
            "longest_road": state.longest_road == seat,
            "largest_army": state.largest_army == seat,
            "discards": state.discards[seat] if state.discards else 0,
        }
    return out


def _differences(ours: dict, theirs: dict) -> list[tuple[str, object, object]]:
    """(figure, ours, catanatron's) for every figure the two outcomes disagree on."""
    out = []
    for key, value in ours.items():
        if isinstance(value, dict):
            for field_, mine in value.items():
                if mine != theirs[key][field_]:
                    out.append((f"{key}.{field_}", mine, theirs[key][field_]))
        elif value != theirs[key]:
            out.append((key, value, theirs[key]))
    return out


def _playable(state: GameState) -> GameState:
    """A position catanatron can hold: an open offer is its play turn (it has no trade)."""
    if state.phase is Phase.TRADE:
        return state._replace(phase=Phase.MAIN, trade=None)
    return state


class Replay:
    """One game replayed through catanatron's engine beside ours, step by step.

    catanatron's ``Game`` is built once from the first position and then moves only by
    executing the actions taken (chance outcomes given), so its own rules decide what
    each action does; after every step ``their_outcome`` is compared with ours. After a
    difference catanatron is set to our position again (``to_catanatron``), so one
    deviation is counted once and does not spill into every later step.

    What catanatron lacks is bridged, not judged: it asks for discards in seat order
    while ours come in any order (catanatron is pointed at the seat that discards); it
    has no player trade, so a confirmed trade moves the offered cards between the two
    hands as the rule says, and the hands are then compared; an action without a twin
    (ending road building early) sets it to our position.
    """

    def __init__(self, state: GameState) -> None:
        self.game = to_catanatron(_playable(state))
        self.owed: tuple[int, ...] = tuple(state.discards) or (0,) * len(state.players)
        self.resyncs = 0

    def _resync(self, state: GameState) -> None:
        self.game = to_catanatron(_playable(state))
        self.owed = tuple(state.discards) or (0,) * len(state.players)
        self.resyncs += 1

    def _their_discards(self) -> tuple[int, ...]:
        """Who catanatron makes discard after its seven, and how many: its own discards
        played out on a copy (catanatron decides both, ``apply_action``)."""
        copy = self.game.copy()
        owed = [0] * len(copy.state.colors)
        while copy.state.is_discarding:
            seat = copy.state.current_player_index
            done = copy.execute(
                CAction(copy.state.colors[seat], ActionType.DISCARD, None), validate_action=False
            )
            owed[seat] = len(done.value)
        return tuple(owed)

    def _point_at_discarder(self, seat: int) -> None:
        s = self.game.state
        s.current_player_index = seat
        s.current_prompt = ActionPrompt.DISCARD
        s.is_discarding = True

    def _after_discard(self) -> None:
        """catanatron asks the next seat that owes, else the roller moves the robber."""
        s = self.game.state
        left = [i for i, n in enumerate(self.owed) if n]
        if left:
            self._point_at_discarder(left[0])
        else:
            s.current_player_index = s.current_turn_index
            s.current_prompt = ActionPrompt.MOVE_ROBBER
            s.is_discarding = False
            s.is_moving_knight = True
        s.playable_actions = []

    def _trade(self, state: GameState, action: ConfirmTrade) -> None:
        """A confirmed trade: the offer's cards change hands, or the partner's
        counter-offer's (catanatron has no trade)."""
        assert state.trade is not None
        ps = self.game.state.player_state
        partner = state.seat(action.partner)
        give, get = state.trade.terms_with(partner)
        for seat, gives, gets in ((state.current, give, get), (partner, get, give)):
            for r in RESOURCES:
                ps[f"P{seat}_{CAT_RESOURCES[r]}_IN_HAND"] += gets[r] - gives[r]

    def step(self, state: GameState, resolved: Action, after: GameState) -> list[Difference]:
        """Execute ``resolved`` (taken at ``state``, giving ``after``) in catanatron and
        compare the outcomes."""
        if isinstance(resolved, ConfirmTrade):
            self._trade(state, resolved)
        elif isinstance(resolved, (OfferTrade, AnswerTrade, CancelTrade)):
            pass  # nothing changes hands until a trade is confirmed
        else:
            c = action_to_catanatron(state, resolved)
            if c is None:
                self._resync(after)
                return []
            if isinstance(resolved, Discard):
                self._point_at_discarder(state.seat(resolved.player))
            self.game.execute(c, validate_action=False)
            if isinstance(resolved, RollDice) and self.game.state.is_discarding:
                self.owed = self._their_discards()
            elif isinstance(resolved, Discard):
                self.owed = tuple(
                    0 if i == state.seat(resolved.player) else n for i, n in enumerate(self.owed)
                )
                self._after_discard()
            else:
                self.owed = (0,) * len(self.owed)
        found = _differences(our_outcome(after), their_outcome(self.game, self.owed))
        out = [
            Difference(
                "outcome",
                (figure,),
                state,
                resolved,
                _tag(self.game, state, resolved, after, figure, mine, theirs),
            )
            for figure, mine, theirs in found
        ]
        if out:
            self._resync(after)
        return out


#: Figures that follow from the longest road award.
_AWARD_FIGURES = ("longest_road", "points", "public_points")


def _tag(game: Game, state, resolved, after, figure, mine, theirs) -> str:  # type: ignore[no-untyped-def]
    """The difference in words, led by the tags of the situations that explain a known
    deviation (``ALLOWED`` reads them)."""
    text = f"{figure}: ours {mine}, catanatron {theirs}"
    tags = []
    field_ = figure.rsplit(".", 1)[-1]
    if isinstance(resolved, RollDice) and resolved.dice and sum(resolved.dice) != 7:
        if _lone_short(state, sum(resolved.dice)) and field_ in ("bank", "resources"):
            tags.append("shortage")
    if field_ in (*_AWARD_FIGURES, "winner", "phase"):
        colors = colors_of(after)
        lengths = game.state.board.road_lengths
        if _split_to_tie(state, resolved, after):
            tags.append("road-tie")
        if _cut(state, after):
            tags.append("road-cut")
        if any(
            lengths.get(colors[seat], 0) != hand.road_length and _ends_at_building(after, seat)
            for seat, hand in enumerate(after.hands)
        ):
            tags.append("road-into-building")
    if field_ in ("winner", "phase") and theirs in (
        "GAME_OVER",
        *(c.value for c in colors_of(after)),
    ):
        winner = game.winning_color()
        if winner is not None and colors_of(after).index(winner) != after.current:
            tags.append("off-turn")
    if field_ == "phase" and state.phase is Phase.ROAD_BUILDING:
        seat = state.seat(resolved.player)
        if not covers(after.hands[seat].resources, ROAD_COST):
            tags.append("road-building-cost")
    return " ".join([*tags, text])


@dataclass
class Report:
    """Differences found over some games, allowed ones counted by name."""

    games: int = 0
    positions: int = 0
    steps: int = 0
    compared: Counter[str] = field(default_factory=Counter)  # outcomes compared, by action
    allowed: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)  # first case of each allowed kind
    findings: list[tuple[str, Difference]] = field(default_factory=list)

    def note(self, game: str, d: Difference) -> None:
        """Count an allowed difference, or keep it as a finding."""
        name = classify(d)
        if name is None:
            self.findings.append((game, d))
            return
        self.allowed[name] += 1
        self.examples.setdefault(name, f"[{game}] {d.describe()}")

    def to_json(self) -> dict:
        return {
            "games": self.games,
            "positions": self.positions,
            "steps": self.steps,
            "compared": dict(self.compared),
            "allowed": dict(self.allowed),
            "examples": dict(self.examples),
            "findings": [
                {"game": g, "side": d.side, "what": d.describe()} for g, d in self.findings
            ],
        }


#: The player counts catanatron can referee: its four colours. A game of 5 or 6 plays
#: the extension (its box, its island and the special building phase), which it lacks.
PLAYER_COUNTS = (2, 3, 4)
SEATS = ("red", "blue", "white", "orange")


def check_players(players: int) -> None:
    """Raise ``UsageError`` unless catanatron can referee a game of ``players``."""
    if players not in PLAYER_COUNTS:
        raise UsageError(
            f"catanatron can referee games of 2 to 4 players, not {players}: it has four "
            "colours and no 5-6 player extension"
        )


def referee_game(
    seed: str,
    players: int = 4,
    strategy: str = "random",
    report: Report | None = None,
    max_actions: int = 3000,
) -> Report:
    """Play one game in our engine and compare with catanatron at every step.

    Raises:
        UsageError: catanatron cannot referee a game of ``players`` (``PLAYER_COUNTS``).
    """
    check_players(players)
    report = report or Report()
    names = SEATS[:players]
    bots = {p: make_bot(strategy, f"{seed}/{p}") for p in names}
    state = new_game(names)
    replay = Replay(state)
    n = 0
    while state.phase is not Phase.GAME_OVER and n < max_actions:
        for d in compare_position(state):
            report.note(seed, d)
        report.positions += 1
        player = next_actor(state)
        action = bots[player].decide(state, legal_actions(state, player))
        after, resolved = step(state, action, derive_chance(seed, str(n)))
        for d in replay.step(state, resolved, after):
            report.note(seed, d)
        report.compared[resolved.kind] += 1
        report.steps += 1
        state = after
        n += 1
    report.games += 1
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--players", type=int, default=4, help="2 to 4 (catanatron's colours)")
    parser.add_argument("--strategy", default="random")
    parser.add_argument("--seed", default="referee")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        check_players(args.players)
    except UsageError as exc:
        print(f"referee: {exc}", file=sys.stderr)
        return 2
    report = Report()
    for g in range(args.games):
        referee_game(f"{args.seed}/{g}", args.players, args.strategy, report)
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        print(f"{report.games} games, {report.positions} positions, {report.steps} steps")
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(report.compared.items()))
        print(f"  outcomes compared after: {kinds}")
        for name, n in sorted(report.allowed.items()):
            print(f"  allowed {name}: {n}, e.g. {report.examples[name]}")
        seen: Counter[str] = Counter()
        for g, d in report.findings:
            kind = d.describe().split("(")[0]
            seen[kind] += 1
            if seen[kind] <= 3:
                print(f"  FINDING [{g}] {d.describe()}")
        print(f"{len(report.findings)} finding(s)")
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = [
    "ALLOWED",
    "PLAYER_COUNTS",
    "Difference",
    "Report",
    "classify",
    "compare_position",
    "Replay",
    "referee_game",
    "MoveRobber",
]
