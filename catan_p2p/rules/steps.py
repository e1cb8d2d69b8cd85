"""The concurrent steps: the moments the game waits on several players at once.

After a seven every player with more than seven cards discards; a trade offer is
answered by each other player; a robbed player gives the robber a card; the players
robbed earlier show their stolen cards before a monopoly; at the start every seat is
claimed. Each is a **kind of step** and ``STEPS`` is the one table of them: the ref
names (``store.refs``), the plan of where an action goes and the merge
(``protocol.concurrent``), the merge message (``protocol.message``), the verifier and the
hook all read it, so a new kind is one entry here (with its answer action and its
rule in the engine). The table is the game's part: who answers, with what, when the
step is open and when it is over; the protocol's part (the answer branch
``<kind>/<opening>/<player>``, the merge commit) is the same for every kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from catan_p2p.rules.actions import (
    Action,
    AnswerTrade,
    CancelTrade,
    ClaimSeat,
    ConfirmTrade,
    Discard,
    GiveCard,
    ShowSteal,
)
from catan_p2p.rules.state import GameState, Phase


@dataclass(frozen=True)
class StepKind:
    """One kind of concurrent step.

    Attributes:
        name: its word in ref names and in a merge's ``Catan-Merge`` trailer.
        answer: the one action an answer to it is (and that goes nowhere else).
        phase: the phase that opens it; None for the seat step, open while a seat is
            unclaimed (``GameState.lobby_open``).
        owed: the players whose answers it waits for, in the state that opens it.
        merged_when_owed_in: the active player merges it as soon as every owed answer
            is in; False for a trade, which its offerer closes by a confirm or cancel.
        settled_first: an other move of the active player while it is open first
            writes the merge, if it is due.
        closed_by: the offerer's moves that close it, merging the answers given.
        merged: what a merge of it takes, in the merge's summary line
            (``Red: merge discards of Red, Blue``).
        incomplete: why a merge that leaves it open is refused.
    """

    name: str
    answer: type[Action]
    phase: Phase | None
    owed: Callable[[GameState], frozenset[str]]
    merged_when_owed_in: bool
    settled_first: bool
    closed_by: tuple[type[Action], ...]
    merged: str
    incomplete: str

    def is_open(self, state: GameState) -> bool:
        """Whether this step is open in ``state``."""
        return state.lobby_open if self.phase is None else state.phase is self.phase


def unclaimed_seats(state: GameState) -> frozenset[str]:
    """The players whose seat has no key yet."""
    return frozenset(p for p, k in zip(state.players, state.seats, strict=True) if not k)


def owed_discards(state: GameState) -> frozenset[str]:
    """The players who still owe a discard in ``state``."""
    return frozenset(state.players[s] for s, n in enumerate(state.discards) if n)


def _nobody(state: GameState) -> frozenset[str]:
    return frozenset()  # a trade waits for nobody: its offerer closes it when it likes


def _robbed(state: GameState) -> frozenset[str]:
    return frozenset((state.players[state.victim],))


def _robbed_earlier(state: GameState) -> frozenset[str]:
    return frozenset(state.players[s.victim] for s in state.steals)


SEAT = StepKind(
    name="seat",
    answer=ClaimSeat,
    phase=None,
    owed=unclaimed_seats,
    merged_when_owed_in=True,
    settled_first=False,
    closed_by=(),
    merged="seat claims",
    incomplete="the seat merge must take a claim for every seat",
)
DISCARD = StepKind(
    name="discard",
    answer=Discard,
    phase=Phase.DISCARD,
    owed=owed_discards,
    merged_when_owed_in=True,
    settled_first=True,
    closed_by=(),
    merged="discards",
    incomplete="a discard merge must include every discard owed",
)
TRADE = StepKind(
    name="trade",
    answer=AnswerTrade,
    phase=Phase.TRADE,
    owed=_nobody,
    merged_when_owed_in=False,
    settled_first=False,
    closed_by=(ConfirmTrade, CancelTrade),
    merged="trade answers",
    incomplete="",
)
STEAL = StepKind(
    name="steal",
    answer=GiveCard,
    phase=Phase.STEAL,
    owed=_robbed,
    merged_when_owed_in=True,
    settled_first=True,
    closed_by=(),
    merged="the card given",
    incomplete="a steal merge must include the robbed player's answer",
)
MONOPOLY = StepKind(
    name="monopoly",
    answer=ShowSteal,
    phase=Phase.MONOPOLY,
    owed=_robbed_earlier,
    merged_when_owed_in=True,
    settled_first=True,
    closed_by=(),
    merged="the stolen cards shown",
    incomplete="a monopoly merge must include every robbed player's answer",
)

STEPS: tuple[StepKind, ...] = (SEAT, DISCARD, TRADE, STEAL, MONOPOLY)
"""Every kind of concurrent step; everything about one is read from here."""

BY_NAME: dict[str, StepKind] = {s.name: s for s in STEPS}
ANSWERS: tuple[type[Action], ...] = tuple(s.answer for s in STEPS)
"""The answer actions: each goes only on an answer branch, never on a player's log."""

_BY_PHASE = {s.phase: s for s in STEPS if s.phase is not None}


def open_step(state: GameState) -> StepKind | None:
    """The kind of concurrent step open in ``state``, or None.

    The seat step is open from the genesis until every seat is claimed; its opening
    is the genesis and its merge, by the first player, starts the set-up.
    """
    if state.lobby_open:
        return SEAT
    return _BY_PHASE.get(state.phase)
