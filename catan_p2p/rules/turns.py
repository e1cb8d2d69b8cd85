"""The turn moves on: a win on one's own turn, the next seat's turn, and between turns
the special building phase of the 5-6 player extension (``special_build``)."""

from __future__ import annotations

from catan_p2p.rules import special_build
from catan_p2p.rules.common import Phase
from catan_p2p.rules.state import GameState
from catan_p2p.rules.state import Phase as PhaseEnum


def check_victory(state: GameState) -> GameState:
    """The active player wins as soon as they hold enough points on their own turn.

    The game ends at once, so a free road of road building still to place is dropped.
    In the special building phase nobody wins (it is no one's own turn); a builder who
    can pay for nothing more is done.
    """
    if state.phase is Phase.SPECIAL_BUILD:
        if special_build.may_build(state, state.current):
            return state
        return next_special_builder(state, state.current)
    if state.phase >= Phase.ROLL and state.points(state.current) >= state.victory_points:
        return state._replace(phase=Phase.GAME_OVER, winner=state.current, free_roads=0)
    return state


def after_robber_phase(state: GameState) -> PhaseEnum:
    """Where the turn resumes after the robber or free roads: before or after the roll."""
    return Phase.ROLL if state.dice is None else Phase.MAIN


def next_turn(state: GameState, seat: int) -> GameState:
    """The turn after ``seat``'s begins: the next seat rolls (and wins if it may)."""
    nxt = (seat + 1) % len(state.players)
    state = state._replace(
        current=nxt,
        turn=state.turn + 1,
        dice=None,
        dev_played=False,
        phase=Phase.ROLL,
    )
    return check_victory(state)


def next_special_builder(state: GameState, after: int) -> GameState:
    """The special building phase moves on to the next seat that may build after
    ``after``; after the last one, the next turn begins (5-6 players)."""
    if after != special_build.turn_player(state):
        state = special_build.keep_bought_cards(state, after)
    builder = special_build.next_builder(state, after)
    if builder is None:
        return next_turn(state, special_build.turn_player(state))
    if state.reveals and builder == (special_build.turn_player(state) + 1) % len(state.players):
        # the seat rolling next builds knowing the element its roll would take ("Dice")
        state = state._replace(fresh_beacon=True)
    return state._replace(phase=Phase.SPECIAL_BUILD, current=builder)
