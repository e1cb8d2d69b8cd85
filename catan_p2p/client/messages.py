"""What the status box says of a roll, and how long that stays true."""

from __future__ import annotations

from catan_p2p.rules.actions import RollDice
from catan_p2p.rules.cards import format_counts, sub
from catan_p2p.rules.state import GameState


def production_text(before: GameState, after: GameState, roll: RollDice) -> str:
    """``Red rolled 8: Red +1 grain · Blue +2 ore`` (who got what from a roll)."""
    total = sum(roll.dice) if roll.dice else 0
    gains = []
    for seat, player in enumerate(after.players):
        got = sub(after.hands[seat].resources, before.hands[seat].resources)
        if any(n > 0 for n in got):
            gains.append(f"{player.capitalize()} +{format_counts(got)}")
    head = f"{roll.player.capitalize()} rolled {total}"
    if total == 7:
        return f"{head}: the robber moves"
    return f"{head}: " + (" · ".join(gains) if gains else "no one produces")


def same_hands(rolled: GameState, later: GameState) -> bool:
    """Whether ``later`` is the turn of the roll in ``rolled`` with every hand unchanged:
    while it is, what the roll gave (``production_text``) is still what the hands show."""
    return later.turn == rolled.turn and all(
        a.resources == b.resources for a, b in zip(rolled.hands, later.hands, strict=True)
    )
