"""Bots playing whole games in memory: the loop behind ``simulate`` and the benchmarks.

Randomness comes only from ``derive_chance(seed, str(action_index))`` and from the
bots' own seeded generators, so the same seed plays the same game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from catan_p2p.bots import Bot
from catan_p2p.errors import UsageError
from catan_p2p.net.driver import Driver
from catan_p2p.net.game import Session
from catan_p2p.rules.actions import Action
from catan_p2p.rules.board import Board
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.invariants import check_invariants as _check_invariants
from catan_p2p.rules.menu import legal_actions, with_counters
from catan_p2p.rules.state import NOBODY, GameState, Phase, new_game
from catan_p2p.rules.waiting import actors
from catan_p2p.trust.engine import step

#: A game still running after this many actions is stopped without a winner.
MAX_ACTIONS = 100_000

# Enum members read once: Python 3.11 makes ``Phase.X`` a slow lookup in a hot loop.
_GAME_OVER = Phase.GAME_OVER
_TRADE = Phase.TRADE


@dataclass(frozen=True)
class GameResult:
    """How one game went: who won, how long it took, and where it ended."""

    winner: str | None  # None only when the game hit ``max_actions``
    actions: int
    turns: int
    state: GameState
    log: tuple[Action, ...] = ()  # resolved actions, when ``record=True``


def next_actor(state: GameState) -> str:
    """Who acts next when several may: answers and discards before the active player."""
    who = actors(state)
    if len(who) > 1 and state.phase is Phase.TRADE:
        return who[1]  # a pending answer comes before closing the offer
    return who[0]


def play_game(
    players: Sequence[str],
    bots: Mapping[str, Bot] | Sequence[Bot],
    seed: str,
    board: Board | None = None,
    check_invariants: bool = True,
    max_actions: int = MAX_ACTIONS,
    record: bool = False,
) -> GameResult:
    """Play one game from set-up to victory.

    Args:
        players: seat colours in turn order (2 to 6; 5-6 play the extension).
        bots: one bot per seat, by colour or in seat order.
        seed: the game seed; action ``i`` draws from ``derive_chance(seed, str(i))``.
        board: the board to play on (default: the standard board for the seats).
        check_invariants: run ``check_invariants`` after every action (slower).
        max_actions: stop a game that has not ended after this many actions.
        record: keep the resolved actions in ``GameResult.log``.

    Raises:
        InvariantViolation: an action left a state that breaks an invariant.
    """
    players = tuple(players)
    if isinstance(bots, Mapping):
        missing = [p for p in players if p not in bots]
        if missing:
            raise UsageError(f"no bot for player(s) {', '.join(missing)}")
        by_player = dict(bots)
    else:
        if len(bots) != len(players):
            raise UsageError(f"{len(players)} players need {len(players)} bots, got {len(bots)}")
        by_player = dict(zip(players, bots, strict=True))
    seed = str(seed)
    state = new_game(players, board)
    log: list[Action] = []
    n = 0
    while state.phase is not _GAME_OVER and n < max_actions:
        who = actors(state)
        player = who[1] if len(who) > 1 and state.phase is _TRADE else who[0]
        options = with_counters(state, player, legal_actions(state, player))
        action = by_player[player].decide(state, options)
        state, resolved = step(state, action, derive_chance(seed, str(n)))
        if check_invariants:
            _check_invariants(state)
        if record:
            log.append(resolved)
        n += 1
    winner = None if state.winner == NOBODY else players[state.winner]
    return GameResult(winner, n, state.turn, state, tuple(log))


def play_session_game(
    session: Session,
    bots: Mapping[str, Bot],
    check_invariants: bool = True,
    max_actions: int = MAX_ACTIONS,
) -> GameResult:
    """Play a game through a ``Session`` (e.g. a ``GitSession`` that commits every action).

    The session derives the chance outcomes itself (in Git: from the parent commit);
    the loop is the one bot driver of net/driver.py.
    """
    driver = Driver(session, bots, check_invariants=check_invariants)
    n = driver.play(max_actions)
    state = driver.state or session.state
    winner = None if state.winner == NOBODY else state.players[state.winner]
    return GameResult(winner, n, state.turn, state)
