"""The small checks and bookkeeping the rules' handlers share: a seat's name, paying.

Kept apart from ``engine`` so that the layers built on the rules (``catan_p2p.trust``)
use the same words and the same sentences without reaching into the engine.
"""

from __future__ import annotations

from types import SimpleNamespace

from catan_p2p.errors import IllegalAction, UsageError
from catan_p2p.rules.cards import Counts, add, covers, format_counts, sub
from catan_p2p.rules.chance import Chance
from catan_p2p.rules.state import Answer as _AnswerEnum
from catan_p2p.rules.state import GameState
from catan_p2p.rules.state import Phase as _PhaseEnum

# Python 3.11's EnumType defines __getattr__, which makes every ``Phase.MAIN`` a slow
# lookup (about ten times a dict lookup); the hot path reads the same members from
# plain namespaces instead.
Phase = SimpleNamespace(**_PhaseEnum.__members__)
Answer = SimpleNamespace(**_AnswerEnum.__members__)


def replaced(items: tuple, index: int, value: object) -> tuple:
    """``items`` with one element replaced (tuples are never mutated)."""
    return items[:index] + (value,) + items[index + 1 :]


def seat_name(state: GameState, seat: int) -> str:
    """The seat's player as a sentence names it (``Red``)."""
    return state.players[seat].capitalize()


def pay(state: GameState, seat: int, cost: Counts, what: str) -> tuple[Counts, Counts]:
    """The seat's resources and the bank after ``seat`` pays ``cost`` for ``what``.

    Raises:
        IllegalAction: the seat cannot pay from the cards it surely holds.
    """
    hand = state.hands[seat].resources
    if not covers(spendable(state, seat), cost):
        raise IllegalAction(
            f"cost: {what} costs {format_counts(cost)}; {seat_name(state, seat)} has "
            f"{format_counts(hand)}{unshown(state, seat)}"
        )
    return sub(hand, cost), add(state.bank, cost)


def spendable(state: GameState, seat: int) -> Counts:
    """The cards ``seat`` surely holds of each resource, as the state shows them.

    A robbed seat's ``resources`` still count the card it lost until the steal is
    shown (``Steal``), which could be of any resource; cards it gained are not counted
    yet. So a move may spend what this leaves, and anything more needs the steals shown.
    """
    hand = state.hands[seat].resources
    if not state.steals:
        return hand
    lost = sum(1 for s in state.steals if s.victim == seat)
    return tuple(max(0, n - lost) for n in hand) if lost else hand  # type: ignore[return-value]


def unshown(state: GameState, seat: int) -> str:
    """The end of a sentence saying that ``seat``'s steals are not shown yet, if any."""
    n = sum(1 for s in state.steals if seat in (s.mover, s.victim))
    if not n:
        return ""
    return (
        f", with {n} steal(s) not shown yet (a move that needs those cards shows them "
        "in its `steals`)"
    )


def deck_left(state: GameState) -> int:
    """Development cards left to buy, with a hidden deck or without."""
    return state.deck.left if state.deck is not None else sum(state.dev_deck)


def pick_card(counts: Counts, index: int) -> int:
    """The card at ``index`` when ``counts`` is laid out in canonical order."""
    for kind, n in enumerate(counts):
        if index < n:
            return kind
        index -= n
    raise ValueError("index beyond the cards held")


def need_chance(chance: Chance | None, what: str) -> Chance:
    """``chance``, which a move whose outcome is left to chance needs."""
    if chance is None:
        raise UsageError(f"{what} needs a chance source (pass chance= to apply)")
    return chance
