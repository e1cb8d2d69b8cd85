"""Whom the game waits on, and the refusals of a move made out of turn or out of phase."""

from __future__ import annotations

from catan_p2p.errors import IllegalAction
from catan_p2p.rules.common import Answer, Phase, seat_name
from catan_p2p.rules.state import NOBODY, GameState
from catan_p2p.rules.state import Phase as PhaseEnum


def need_turn(state: GameState, seat: int, what: str) -> None:
    """Refuse unless it is ``seat``'s turn to ``what``."""
    if seat != state.current:
        raise IllegalAction(
            f"turn order: it is {seat_name(state, state.current)}'s turn, "
            f"{seat_name(state, seat)} cannot {what}"
        )


def need_phase(state: GameState, what: str, *phases: PhaseEnum) -> None:
    """Refuse unless the game is in one of ``phases``, saying what it waits for instead."""
    if state.phase not in phases:
        raise IllegalAction(f"cannot {what} now: {expecting(state)}")


def expecting(state: GameState) -> str:
    """A short sentence saying who must do what next (for refusals and the window)."""
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
    if phase is Phase.DICE:
        roller = seat_name(state, (state.current + 1) % len(state.players))
        return f"waiting for {who} to reveal the dice of {roller}'s roll"
    return f"it is {who}'s turn"


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
            if s != state.current and a is Answer.PENDING and state.trade.may_answer(s)
        ]
    if state.phase is Phase.GAME_OVER:
        return []
    if state.phase is Phase.STEAL:
        return [state.players[state.victim]]
    if state.phase is Phase.MONOPOLY:
        return [state.players[s.victim] for s in state.steals]
    return [state.players[state.current]]
