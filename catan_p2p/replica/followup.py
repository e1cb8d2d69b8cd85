"""The moves nobody chooses: what a local seat owes the game after any commit.

The seat before the roller gives the dice (``RevealDice``), a robbed seat gives a card
(``GiveCard``) and shows it for a monopoly (``ShowSteal``),
a player whose hidden victory point cards make ten claims the win, and once the game is
over every seat reveals its deck secret in turn. The session records them as soon as
they are owed, for its own seats only; nobody else can sign them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from catan_p2p.protocol import concurrent
from catan_p2p.protocol.concurrent import Answer
from catan_p2p.replica.peer import Peer
from catan_p2p.rules.actions import Action, GiveCard, RevealDice, ShowSteal
from catan_p2p.rules.state import GameState, Phase
from catan_p2p.rules.waiting import owed_reveal


def owed_move(
    state: GameState, peers: Mapping[str, Peer], answers: Callable[[], Sequence[Answer]]
) -> Action | None:
    """The move a seat of ``peers`` owes in ``state`` (the state with its answers), or None.

    ``answers`` gives the verified answers of the open step (asked only for a monopoly).
    """
    owed = owed_reveal(state)
    if owed is not None:
        return peers[owed].reveal_deck() if owed in peers else None
    if state.is_over or state.lobby_open:
        return None
    if state.phase is Phase.STEAL:  # a robbed local seat answers (it has no choice)
        victim = state.players[state.victim]
        return GiveCard(victim) if victim in peers else None
    if state.phase is Phase.DICE:  # a local seat before the roller gives the dice
        giver = state.players[state.current]
        return RevealDice(giver) if giver in peers else None
    if state.phase is Phase.MONOPOLY:  # so do robbed local seats for a monopoly
        owed_by = concurrent.owed_answers(state) - {a.player for a in answers()}
        owing = [p for p in state.players if p in owed_by and p in peers]
        return ShowSteal(owing[0]) if owing else None
    current = state.players[state.current]
    if current in peers and state.phase in (Phase.ROLL, Phase.MAIN):
        return peers[current].victory_claim(state)
    return None
