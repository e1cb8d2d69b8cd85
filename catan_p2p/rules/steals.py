"""Steals with seat keys as the rules see them: shown, a stolen card moves to its robber.

A steal stays pending (``rules.state.Steal``) until the robber or the robbed player
shows it; the shared value that picks the card is checked by ``catan_p2p.trust``.
"""

from __future__ import annotations

from catan_p2p.errors import IllegalAction
from catan_p2p.rules.cards import add, one, sub
from catan_p2p.rules.chance import stolen_index
from catan_p2p.rules.common import pick_card, seat_name
from catan_p2p.rules.seat_keys import SeatKeys
from catan_p2p.rules.state import GameState, Steal


def show_steals(state: GameState, seat: int, proofs: tuple[str, ...], keys: SeatKeys) -> GameState:
    """``seat`` shows every pending steal it took part in: one proof each, oldest first.

    Robber or robbed, it gives the steal's shared value with the proof that its deck
    key made it (``trust.poker.exchange``); the value picks the card, which moves now.
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
    return pick_card(steal.hand, stolen_index(steal.turn, shared, sum(steal.hand)))


def settle(state: GameState, steal: Steal, shared: str) -> GameState:
    """Move the card ``steal`` picked from its victim to its robber; the caller drops
    ``steal`` from ``state.steals``."""
    return move_stolen(state, steal, stolen_resource(steal, shared))


def move_stolen(state: GameState, steal: Steal, r: int) -> GameState:
    hands = list(state.hands)
    loser, winner = hands[steal.victim], hands[steal.mover]
    if loser.resources[r] <= 0:  # cannot happen: spending keeps the card (_spendable)
        raise IllegalAction(f"steal: {seat_name(state, steal.victim)} no longer holds the card")
    loser = loser._replace(resources=sub(loser.resources, one(r)))
    winner = winner._replace(resources=add(winner.resources, one(r)))
    hands[steal.victim] = loser._replace(hidden=loser.hidden + 1)
    hands[steal.mover] = winner._replace(hidden=winner.hidden - 1)
    return state._replace(hands=tuple(hands))
