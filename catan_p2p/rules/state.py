"""The game state: frozen plain data that ``apply`` replaces rather than mutates.

``GameState`` and ``PlayerState`` are named tuples of ints, tuples and frozensets.
Places are int indices into the board's ``graph`` tables; seats are ints in the order
of ``players``. Everything here is a pure function of the state.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from catan_p2p.rules.board import GENERIC_PORT, Board, standard_board
from catan_p2p.rules.cards import (
    CITY_PIECES,
    MAX_PLAYERS,
    NO_CARDS,
    ROAD_PIECES,
    SETTLEMENT_PIECES,
    Counts,
    DevCard,
    dev_deck,
    resource_supply,
)
from catan_p2p.rules.deck import Deck, new_deck

NOBODY = -1
#: The seats' colours in the box: the base game's four and the 5-6 player extension's two.
SEAT_COLOURS = ("red", "blue", "white", "orange", "green", "brown")
VICTORY_POINTS = 10
LONGEST_ROAD_MIN = 5
LARGEST_ARMY_MIN = 3
DISCARD_LIMIT = 7  # a hand of more than this many cards loses half on a seven


class Phase(IntEnum):
    """What the game waits for next."""

    SETUP_SETTLEMENT = 0  # the seat in ``setup_order`` places a settlement
    SETUP_ROAD = 1  # ... and then a road touching it
    ROLL = 2  # the active player rolls (or plays a development card first)
    DISCARD = 3  # players with more than seven cards give half back (concurrently)
    MOVE_ROBBER = 4  # the active player moves the robber and steals
    MAIN = 5  # the active player trades, builds, buys and plays cards, then ends the turn
    ROAD_BUILDING = 6  # the active player places the free roads of a road building card
    TRADE = 7  # an offer is open: the others answer, then the active player closes it
    GAME_OVER = 8
    STEAL = 9  # with seat keys: the robbed player's answer decides which card is stolen
    MONOPOLY = 10  # with seat keys: robbed players show their steals for a monopoly
    # 5-6 players: after a turn each other seat in turn builds or buys (``current``; the
    # turn's player is ``(turn - 1) % players``); rules/special_build.py
    SPECIAL_BUILD = 11
    # With seat keys: the roller took a decision before rolling (it played or held a
    # development card, or built in the special building phase), so the seat before it
    # (``current``) reveals the dice-chain element its roll takes ("Dice", PROTOCOL.md).
    DICE = 12

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


class Answer(IntEnum):
    """A player's answer to an open trade offer."""

    PENDING = 0
    ACCEPT = 1
    DECLINE = 2
    COUNTER = 3  # other counts: the trade this player would make instead


class Terms(NamedTuple):
    """The counts of a trade as its offerer sees them: it gives ``give`` and gets ``get``."""

    give: Counts
    get: Counts


class TradeOffer(NamedTuple):
    """An open offer of the active player: ``give`` for ``get``, with each seat's answer.

    ``to`` is the one seat the offer is made to (NOBODY: every other player); only it
    may answer. ``counters`` holds, per seat, the terms of its counter-offer (the offer
    with other counts, seen from the offerer) when it answered ``COUNTER``, else None;
    it is empty until someone counters.
    """

    give: Counts
    get: Counts
    answers: tuple[Answer, ...]
    to: int = NOBODY
    counters: tuple[Terms | None, ...] = ()

    def may_answer(self, seat: int) -> bool:
        """Whether the offer is made to ``seat`` (the offerer aside, which never answers)."""
        return self.to == NOBODY or self.to == seat

    def counter_of(self, seat: int) -> Terms | None:
        """The terms ``seat`` countered with, or None."""
        return self.counters[seat] if self.counters else None

    def terms_with(self, seat: int) -> Terms:
        """The counts a trade with ``seat`` moves: its counter's, else the offer's."""
        counter = self.counter_of(seat)
        return Terms(self.give, self.get) if counter is None else counter


class Steal(NamedTuple):
    """A card stolen with seat keys whose type only the robber and the robbed know yet.

    The card is still counted in the victim's ``resources`` and not in the robber's;
    ``hidden`` of both hands says one card has moved. It is picked from ``hand`` (the
    victim's cards then, every one known to it) by the value ``x_r·answer = x_v·token``
    that only the two seats can compute (``rules.chance.stolen_index``). Either shows it
    when a move of theirs needs the card's type; at the end every one is read.
    """

    mover: int
    victim: int
    turn: int
    token: str  # the robber's token T = x_r·P (hex)
    answer: str  # the victim's value V = x_v·P (hex)
    hand: Counts  # the victim's cards when it was robbed

    def other_value(self, seat: int) -> str:
        """The other party's value, which ``seat``'s deck key turns into the shared one."""
        return self.answer if seat == self.mover else self.token


class PlayerState(NamedTuple):
    """One seat: hand, development cards, pieces on the board and cached road length."""

    resources: Counts = NO_CARDS
    dev_cards: Counts = NO_CARDS  # held since before this turn (playable; VP cards count)
    new_dev_cards: Counts = NO_CARDS  # bought this turn, playable from the next one
    played: Counts = NO_CARDS  # development cards played face up (knights make the army)
    settlements: frozenset[int] = frozenset()
    cities: frozenset[int] = frozenset()
    roads: frozenset[int] = frozenset()
    road_length: int = 0  # longest road of this player's network (cached)
    ports: frozenset[int] = frozenset()  # port codes touched by this player's buildings
    # Cards gained minus cards lost in steals whose type is not shown yet (``Steal``);
    # derived from ``GameState.steals``, kept here because hand sizes are read often.
    hidden: int = 0

    @property
    def card_count(self) -> int:
        return sum(self.resources) + self.hidden

    @property
    def knights(self) -> int:
        return self.played[DevCard.KNIGHT]

    @property
    def victory_cards(self) -> int:
        return self.dev_cards[DevCard.VICTORY_POINT] + self.new_dev_cards[DevCard.VICTORY_POINT]

    @property
    def roads_left(self) -> int:
        return ROAD_PIECES - len(self.roads)

    @property
    def settlements_left(self) -> int:
        return SETTLEMENT_PIECES - len(self.settlements)

    @property
    def cities_left(self) -> int:
        return CITY_PIECES - len(self.cities)


class GameState(NamedTuple):
    """The whole game at one moment (the thesis's state variables, full rules)."""

    board: Board
    players: tuple[str, ...]  # seat colours in turn order
    phase: Phase
    current: int  # seat to act (during setup, the seat placing)
    setup_step: int  # position in ``setup_order``; len(setup_order) once set-up is over
    turn: int  # number of the current turn, 0 during set-up
    dice: tuple[int, int] | None  # this turn's roll, None before rolling
    bank: Counts
    dev_deck: Counts
    hands: tuple[PlayerState, ...]
    vertex_owner: tuple[int, ...]  # seat with a building on each vertex, or NOBODY
    edge_owner: tuple[int, ...]  # seat with a road on each edge, or NOBODY
    robber: int  # tile index
    longest_road: int = NOBODY
    largest_army: int = NOBODY
    dev_played: bool = False  # a development card was played this turn
    discards: tuple[int, ...] = ()  # cards each seat still owes after a seven
    trade: TradeOffer | None = None
    free_roads: int = 0  # roads left to place with road building
    winner: int = NOBODY
    victory_points: int = VICTORY_POINTS
    victim: int = NOBODY  # the seat the robber steals from while its answer is owed
    token: str = ""  # the robber's token for that steal (``trust.poker.token``)
    # Steals whose card only the robber and the robbed know, oldest first (``Steal``).
    steals: tuple[Steal, ...] = ()
    # The resource of a monopoly played while steals were pending, until every robbed
    # player has shown its steal (phase MONOPOLY); NOBODY otherwise.
    monopoly: int = NOBODY
    # The seat the others ended the game without, after it kept them waiting longer
    # than they agreed (``Abandon``); NOBODY otherwise. An abandoned game has no winner.
    abandoned: int = NOBODY
    # Seat keys of a replicated game, in seat order ("" while a seat is unclaimed); ()
    # when nobody signs (a simulation). Set-up starts once every seat is claimed.
    seats: tuple[str, ...] = ()
    # Each seat's last revealed dice-chain element (its anchor until the first reveal).
    reveals: tuple[str, ...] = ()
    # The hidden development-card deck of a game with seat keys (``rules.deck``); None
    # in a simulation, where ``dev_deck`` is the deck. With a deck, ``dev_deck`` counts
    # the cards whose type the state does not show (in the deck or face down in hands).
    deck: Deck | None = None
    # 5-6 players: the seat rolling next took a step in the special building phase after
    # the element its roll would take was revealed, so that roll takes a fresh one (DICE).
    fresh_beacon: bool = False

    # --- derived views ---------------------------------------------------------------

    @property
    def setup_order(self) -> tuple[int, ...]:
        return setup_order(len(self.players))

    @property
    def lobby_open(self) -> bool:
        """True while some seat of a replicated game has no key yet."""
        return "" in self.seats

    @property
    def settled(self) -> bool:
        """True once the game is over and every secret behind it is revealed."""
        if not self.is_over:
            return False
        if self.deck is None:
            return True
        deck = self.deck
        return all(x or s == self.abandoned or not deck.keys[s] for s, x in enumerate(deck.secrets))

    @property
    def is_setup(self) -> bool:
        return self.phase <= Phase.SETUP_ROAD

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    def seat(self, player: str) -> int:
        """Seat index of a colour; ``ValueError`` naming the players when unknown."""
        try:
            return self.players.index(player)
        except ValueError:
            raise ValueError(
                f"no player {player!r} in this game (players: {', '.join(self.players)})"
            ) from None

    def points(self, seat: int) -> int:
        """Victory points of a seat, hidden victory point cards included."""
        hand = self.hands[seat]
        pts = len(hand.settlements) + 2 * len(hand.cities) + hand.victory_cards
        if self.longest_road == seat:
            pts += 2
        if self.largest_army == seat:
            pts += 2
        return pts

    def public_points(self, seat: int) -> int:
        """Points everyone can see (without hidden victory point cards)."""
        return self.points(seat) - self.hands[seat].victory_cards

    def rate(self, seat: int, resource: int) -> int:
        """How many cards of ``resource`` the seat gives the bank for one card."""
        ports = self.hands[seat].ports
        if resource in ports:
            return 2
        if GENERIC_PORT in ports:
            return 3
        return 4


def setup_order(n_players: int) -> tuple[int, ...]:
    """Snake order of the two set-up rounds: 0, 1, ..., n-1, n-1, ..., 0."""
    forward = tuple(range(n_players))
    return forward + forward[::-1]


def new_game(
    players: tuple[str, ...] | list[str],
    board: Board | None = None,
    victory_points: int = VICTORY_POINTS,
    seated: bool = False,
) -> GameState:
    """The state before the first settlement: full bank and deck, robber on the desert.

    ``seated`` opens the seats of a replicated game: nobody may act until every
    player has claimed a seat with a key.
    """
    players = tuple(players)
    if board is None:
        board = standard_board(len(players))
    if not 2 <= len(players) <= MAX_PLAYERS:
        raise ValueError(
            f"Catan is played by 2 to {MAX_PLAYERS} players (5-6 with the extension), "
            f"got {len(players)}"
        )
    if len(set(players)) != len(players):
        raise ValueError(f"player names must differ: {', '.join(players)}")
    graph = board.graph
    return GameState(
        board=board,
        players=players,
        phase=Phase.SETUP_SETTLEMENT,
        current=0,
        setup_step=0,
        turn=0,
        dice=None,
        bank=resource_supply(len(players)),
        dev_deck=dev_deck(len(players)),
        hands=tuple(PlayerState() for _ in players),
        vertex_owner=(NOBODY,) * len(graph.vertices),
        edge_owner=(NOBODY,) * len(graph.edges),
        robber=graph.desert,
        discards=(0,) * len(players),
        victory_points=victory_points,
        seats=("",) * len(players) if seated else (),
        reveals=("",) * len(players) if seated else (),
        deck=new_deck(len(players)) if seated else None,
    )
