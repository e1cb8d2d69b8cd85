"""The games of the protocol test vectors, played by this code's own peers.

``tools/vectors.py`` describes and checks what these write: the seats' fixed keys, a clock
that moves one second per reading, and the three games (``play``, ``abandon``,
``extension``), each with the chooser that steers its moves so that it holds the commits
the vectors want.
"""

from __future__ import annotations

import random
from contextlib import contextmanager
from dataclasses import replace

from catan_p2p import clock as timekeeping
from catan_p2p.bots import make_bot
from catan_p2p.protocol import liveness
from catan_p2p.protocol import message as proto
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.rules import chance as chance_mod
from catan_p2p.rules.actions import (
    Abandon,
    Action,
    AnswerTrade,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ClaimVictory,
    ConfirmTrade,
    EndRoadBuilding,
    OfferTrade,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
)
from catan_p2p.rules.cards import CITY_COST, ROAD_COST, SETTLEMENT_COST, covers
from catan_p2p.rules.common import spendable
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import SEAT_COLOURS, Answer, Phase
from catan_p2p.rules.trade import counter_offers
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.repo import Repository
from catan_p2p.trust.engine import step

WHEN = 1_767_225_600  # 2026-01-01T00:00:00Z: the genesis of the first game
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
PLAY = ("red", "blue", "white")
PLAY_SEED = "vectors-11"  # a seed whose game holds a commit of every kind (found by search)
PLAY_POINTS = 8
ABANDON = ("red", "blue")
TIMEOUT = 3600
CHAT_LINE = "good luck, have fun"
EXTENSION = SEAT_COLOURS  # six seats: red, blue, white, orange, green, brown
EXTENSION_SEED = "vectors-8"
EXTENSION_POINTS = 3  # one more than the set-up gives: the game's first city or settlement wins


def key_of(player: str) -> SeatKey:
    """The test seat's key: its Ed25519 private key is the name repeated to 32 bytes."""
    return SeatKey.from_seed((player.encode() * 32)[:32])


KEYS = {p: key_of(p) for p in EXTENSION}


# --- a clock that moves one second per reading ------------------------------------------------


class Clock:
    """The time the peers read: one second later at every reading, and jumps on demand."""

    def __init__(self, start: int) -> None:
        self.now = start

    def time(self) -> float:
        self.now += 1
        return float(self.now)


@contextmanager
def fixed_clock(clock: Clock):
    """Every commit time and every clock check of the peers reads ``clock``
    (``catan_p2p.clock``, the one place a process reads the time)."""
    saved = timekeeping.source
    timekeeping.source = clock.time
    try:
        yield
    finally:
        timekeeping.source = saved


# --- playing the games ------------------------------------------------------------------------

#: The turn from which the ``play`` game makes a counter-offer and an offer to one player
#: (later moves change the game less: most other kinds are in it by then).
LATE = 30


class Player:
    """Chooses the moves of the ``play`` game: the greedy bot's, but first any move of a
    kind the vectors lack (when it can lead to the commit they want)."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.bots = {p: make_bot("greedy", f"{seed}/{p}") for p in PLAY}
        self.seen: set[str] = set()

    def choose(self, state, player: str, actions: list[Action]) -> Action:
        if state.phase is Phase.TRADE:
            if player != state.players[state.current]:
                counters = counter_offers(state, state.players.index(player))
                if counters and "counter" not in self.seen and state.turn >= LATE:
                    self.seen.add("counter")
                    return counters[0]
                accept = [a for a in actions if isinstance(a, AnswerTrade) and a.accept]
                want = "accept" if "accept" not in self.seen else self.rng.choice(("accept", "no"))
                if accept and want == "accept":
                    self.seen.add("accept")
                    return accept[0]
                return next(a for a in actions if isinstance(a, AnswerTrade) and not a.accept)
            confirm = [a for a in actions if isinstance(a, ConfirmTrade)]
            countered = [
                a for a in confirm if state.trade.answers[state.seat(a.partner)] is Answer.COUNTER
            ]
            if countered and "confirm_counter" not in self.seen:
                self.seen.add("confirm_counter")
                return countered[0]
            confirm = [a for a in confirm if a not in countered]
            if confirm and "confirm" not in self.seen:
                self.seen.add("confirm")
                return confirm[0]
            return next(a for a in actions if isinstance(a, CancelTrade))
        steals_of_others = [
            s for s in state.steals if state.players.index(player) not in (s.mover, s.victim)
        ]
        if not steals_of_others or "monopoly" in self.seen:
            actions = [a for a in actions if not isinstance(a, PlayMonopoly)] or actions
        for kind, label in (
            (PlayMonopoly, "monopoly"),
            (PlayRoadBuilding, "road_building"),
            (PlayYearOfPlenty, "year_of_plenty"),
            (PlayKnight, "knight"),
        ):
            found = [a for a in actions if isinstance(a, kind)]
            if found and label not in self.seen:
                self.seen.add(label)
                return found[0]
        if state.phase is Phase.ROAD_BUILDING and "end_rb" not in self.seen:
            ends = [a for a in actions if isinstance(a, EndRoadBuilding)]
            if ends and state.free_roads == 1:
                self.seen.add("end_rb")
                return ends[0]
        offers = [a for a in actions if isinstance(a, OfferTrade)]
        if offers and len([k for k in self.seen if k.startswith("offer")]) < 3:
            self.seen.add(f"offer{len(self.seen)}")
            return self.rng.choice(offers)
        if offers and "offer_to" not in self.seen and state.turn >= LATE:
            self.seen.add("offer_to")  # then one offer to one player
            others = [p for p in state.players if p != player]
            return replace(self.rng.choice(offers), to=self.rng.choice(others))
        return self.bots[player].decide(state, actions)


def actors(session: GitSession) -> list[tuple[str, list[Action]]]:
    """Each seat that may act now, with its legal moves, the active seat last."""
    state = session.state
    current = state.players[state.current]
    out = []
    for p in state.players:
        acts = session.legal_actions(p)
        if acts:
            out.append((p, acts))
    out.sort(key=lambda pa: pa[0] == current)
    return out


def play_game(repo: Repository, clock: Clock, seed: str, limit: int = 3000) -> str:
    """The ``play`` game, played to its last deck reveal; returns the game id."""
    game = "vectors-play"
    create_game(
        repo, PLAY, seed=seed, game_id=game, victory_points=PLAY_POINTS, keys=KEYS, when=clock.now
    )
    session = GitSession(repo, game, keys=KEYS)
    chooser = Player(seed)
    try:
        for _ in range(limit):
            state = session.state
            if state.settled:
                break
            who = actors(session)
            if not who:
                raise RuntimeError(f"nobody can act in phase {state.phase.label}")
            player, acts = who[0]
            session.submit(chooser.choose(session.view(player), player, acts))
        else:
            raise RuntimeError("the vectors' game did not end")
    finally:
        session.close()
    return game


def abandon_game(repo: Repository, clock: Clock) -> str:
    """The ``abandon`` game: Red keeps it waiting, Blue ends it, Red's late move is joined."""
    game = "vectors-abandon"
    create_game(
        repo, ABANDON, seed="abandon", game_id=game, keys=KEYS, timeout=TIMEOUT, when=clock.now
    )
    session = GitSession(repo, game, keys=KEYS)
    try:
        session.submit(legal_actions(session.state, "red")[0])  # red's first settlement
        waited = session.head  # the game now waits on red's road
        clock.now += TIMEOUT + 10
        session.submit(Abandon("blue", "red"))  # blue's reveal_deck follows by itself
        over = session.peers["blue"].head
        red = session.peers["red"]
        state = red.verifier.verify(waited)
        move = red.with_secrets(legal_actions(state, "red")[0], state)
        new, resolved = step(state, move, chance_mod.derive_chance(session.info.seed, waited))
        late = repo.write_commit(
            repo.writer(session.info).write(new),
            [waited],
            "red",
            proto.action_message(resolved, game),
            KEYS["red"],
            int(clock.time()),
        )
        close = liveness.closing(repo, red.verifier.verify, over, late)
        assert close is not None, "the abandon and the late move did not make a closing merge"
        session.peers["blue"].record_close(close)
        # one line of table talk, as net.chat.ChatLog.send writes it
        chat = repo.write_commit(
            EMPTY_TREE, [], "blue", CHAT_LINE + "\n", KEYS["blue"], int(clock.time())
        )
        repo.refs.set(f"refs/catan-chat/{game}/blue", chat, None)
    finally:
        session.close()
    return game


class ExtensionPlayer:
    """Chooses the moves of the ``extension`` game: the greedy bot's, steered so that the
    game shows what the other games cannot.

    The first time the special building phase reaches the seat after the turn's player
    with something it may buy, it buys (a development card, else a road): its roll then
    takes a fresh beacon. No card is ever played and no trade offered, so cards stay
    face down; and nobody takes a point (a settlement, a city, a fifth road, a card
    shown to win) until that turn is over, a card is face down and a steal is pending,
    and then only with what its counts pay for without showing a steal. So the game
    ends with cards face down and a steal pending, which its last ``reveal_deck`` reads.
    """

    QUIET = (OfferTrade, PlayKnight, PlayMonopoly, PlayRoadBuilding, PlayYearOfPlenty)

    def __init__(self, seed: str) -> None:
        self.bots = {p: make_bot("greedy", f"{seed}/{p}") for p in EXTENSION}
        self.special = False  # the seat after the turn's player built in the phase

    def ready(self, state) -> bool:
        """True once that phase is over, a card is face down and a steal is pending."""
        face_down = state.deck is not None and any(t < 0 for t in state.deck.shown)
        return self.special and face_down and bool(state.steals)

    def choose(self, state, view, player: str, actions: list[Action]) -> Action:
        """``state``: the whole game's; ``view``: what ``player`` sees."""
        keep = [a for a in actions if not isinstance(a, self.QUIET)]
        if state.phase in (Phase.ROLL, Phase.MAIN, Phase.SPECIAL_BUILD):
            seat = state.players.index(player)
            sure = spendable(state, seat)
            roads = len(state.hands[seat].roads)
            ready = self.ready(state)

            def allowed(a: Action) -> bool:
                if isinstance(a, ClaimVictory):
                    return ready
                if isinstance(a, BuildRoad):
                    return roads < 4 and covers(sure, ROAD_COST)
                if isinstance(a, BuildSettlement):
                    return ready and covers(sure, SETTLEMENT_COST)
                if isinstance(a, BuildCity):
                    return ready and covers(sure, CITY_COST)
                return True

            keep = [a for a in keep if allowed(a)]
            first = (state.turn % len(state.players)) == seat  # after the turn's player
            if state.phase is Phase.SPECIAL_BUILD and first and not self.special:
                buys = [a for a in keep if isinstance(a, BuyDevCard)]
                buys += [a for a in keep if isinstance(a, BuildRoad)]
                if buys:
                    self.special = True
                    return buys[0]
        return self.bots[player].decide(view, keep or actions)


def extension_game(repo: Repository, clock: Clock, limit: int = 3000) -> str:
    """The ``extension`` game of six seats, played to its last deck reveal."""
    game = "vectors-extension"
    create_game(
        repo,
        EXTENSION,
        seed=EXTENSION_SEED,
        game_id=game,
        victory_points=EXTENSION_POINTS,
        keys=KEYS,
        when=clock.now,
    )
    session = GitSession(repo, game, keys=KEYS)
    chooser = ExtensionPlayer(EXTENSION_SEED)
    try:
        for _ in range(limit):
            state = session.state
            if state.settled:
                break
            who = actors(session)
            if not who:
                raise RuntimeError(f"nobody can act in phase {state.phase.label}")
            player, acts = who[0]
            session.submit(chooser.choose(state, session.view(player), player, acts))
        else:
            raise RuntimeError("the vectors' six-seat game did not end")
    finally:
        session.close()
    return game
