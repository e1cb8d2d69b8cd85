"""Board generation: the beginner board, the rulebook's random set-up, boards on a balance dial.

``make_board`` is what ``new``, ``play`` and ``simulate`` call; ``score_board`` gives
any board's balance with its factor breakdown.
"""

from __future__ import annotations

from catan_p2p.boards.balanced import balanced_board, check_balance
from catan_p2p.boards.constraints import RULEBOOK, Constraints
from catan_p2p.boards.layout import EXTENSION, MAX_RADIUS, MIN_RADIUS, Island, check_radius
from catan_p2p.boards.score import FACTORS, BoardScore, score_board
from catan_p2p.boards.shuffled import random_board
from catan_p2p.errors import UsageError
from catan_p2p.rules.board import EXTENSION_BOARD, STANDARD_BOARD, Board
from catan_p2p.rules.cards import is_extension

KINDS = ("standard", "random", "balanced")
#: The dial's setting when ``balanced`` is asked for without one: fairer than a
#: typical random board, but not the glacial "perfect" board of seed 004.
DEFAULT_BALANCE = 0.15


def make_board(
    kind: str,
    seed: object,
    radius: Island = 2,
    balance: float | None = None,
    constraints: Constraints = RULEBOOK,
    players: int = 4,
) -> Board:
    """The board of ``kind`` for ``seed`` (the same board every time).

    Args:
        kind: ``standard`` (the beginner board), ``random`` or ``balanced``.
        seed: any value; its text form seeds the generator.
        radius: island radius, 2 (19 tiles) to 5 (91 tiles), or ``EXTENSION`` (the 5-6
            player extension's 30 tiles).
        players: with 5 or 6 and radius 2, the island is the extension's instead.
        balance: for ``balanced``, the score to aim at: 0 fairest .. 1 wildest.
        constraints: placement rules a balanced board keeps (6/8 apart by default).

    Raises:
        UsageError: an unknown kind, an unsupported radius or a balance off the dial.
    """
    if kind not in KINDS:
        raise UsageError(f"unknown board kind {kind!r}; choose one of {', '.join(KINDS)}")
    if radius == 2 and is_extension(players):
        radius = EXTENSION
    check_radius(radius)
    if balance is not None and kind != "balanced":
        raise UsageError(f"a balance only applies to balanced boards, not to {kind} ones")
    if kind == "standard":
        if radius == EXTENSION:
            return EXTENSION_BOARD
        if radius != 2:
            raise UsageError(
                "the standard board has radius 2; use a random or balanced board "
                f"for radius {radius}"
            )
        return STANDARD_BOARD
    if kind == "random":
        return random_board(seed, radius)
    value = DEFAULT_BALANCE if balance is None else balance
    check_balance(value)
    return balanced_board(seed, value, radius, constraints)


__all__ = [
    "EXTENSION",
    "FACTORS",
    "KINDS",
    "MAX_RADIUS",
    "MIN_RADIUS",
    "RULEBOOK",
    "BoardScore",
    "Constraints",
    "balanced_board",
    "make_board",
    "random_board",
    "score_board",
]
