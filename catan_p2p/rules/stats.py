"""A game worth looking back on: the dice against the odds and where every card went.

``tally(states, actions)`` reads a replayed game (``states[i + 1]`` is ``states[i]``
after ``actions[i]``) and counts, per player, what it produced, received and gave by
trade, lost to the robber and to discards, its development cards, and its points turn
by turn. It reads only what every player sees in the public state: a face-down
development card is counted as bought, never by type, a victory point card only once
the game's end shows it, and a stolen card as a card, never by type.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from catan_p2p.rules.actions import Action, Discard, MaritimeTrade
from catan_p2p.rules.cards import DEV_CARDS, NO_CARDS, RESOURCES, Counts, add, one, sub
from catan_p2p.rules.state import GameState

#: The sums of two dice, and in how many of the 36 ways each falls.
SUMS: tuple[int, ...] = tuple(range(2, 13))
WAYS: dict[int, int] = {s: 6 - abs(7 - s) for s in SUMS}

#: Actions that give a roll's outcome (with seat keys a roll after a decision is
#: revealed by the seat before the roller).
DICE_KINDS = frozenset({"roll_dice", "reveal_dice"})
#: Actions whose robber takes a card (with seat keys: the robbed player's answer).
ROBBER_KINDS = frozenset({"move_robber", "give_card"})


def _gained(delta: Counts) -> Counts:
    return tuple(max(0, n) for n in delta)  # type: ignore[return-value]


def _lost(delta: Counts) -> Counts:
    return tuple(max(0, -n) for n in delta)  # type: ignore[return-value]


@dataclass
class PlayerStats:
    """One player's figures over the game (resource 5-tuples in ``Resource`` order)."""

    player: str
    produced: Counts = NO_CARDS  # from the dice
    start: Counts = NO_CARDS  # from the second set-up settlement
    bank_got: Counts = NO_CARDS
    bank_gave: Counts = NO_CARDS
    trade_got: Counts = NO_CARDS  # from other players
    trade_gave: Counts = NO_CARDS
    discarded: Counts = NO_CARDS
    robbed: int = 0  # cards the robber took from this player
    stole: int = 0  # cards this player's robber took
    dev_bought: int = 0
    dev_played: Counts = NO_CARDS  # face up, by ``DevCard``
    victory_cards: int | None = None  # shown at the game's end; None until then
    points: int = 0  # the points the table sees (all of them once the game is over)

    def to_json(self) -> dict[str, Any]:
        def res(c: Counts) -> dict[str, int]:
            return {r.label: n for r, n in zip(RESOURCES, c, strict=True)}

        return {
            "produced": res(self.produced),
            "start": res(self.start),
            "bank_got": res(self.bank_got),
            "bank_gave": res(self.bank_gave),
            "trade_got": res(self.trade_got),
            "trade_gave": res(self.trade_gave),
            "discarded": res(self.discarded),
            "robbed": self.robbed,
            "stole": self.stole,
            "dev_bought": self.dev_bought,
            "dev_played": {d.label: n for d, n in zip(DEV_CARDS, self.dev_played, strict=True)},
            "victory_cards": self.victory_cards,
            "points": self.points,
        }


@dataclass
class GameStats:
    """The figures of a whole game, or of the game so far."""

    players: tuple[str, ...]
    over: bool
    winner: str | None
    turns: int
    dice: dict[int, int]  # sum -> times rolled
    per_player: dict[str, PlayerStats]
    points: list[tuple[int, ...]] = field(default_factory=list)  # per turn, per seat

    @property
    def rolls(self) -> int:
        return sum(self.dice.values())

    def expected(self, total: int) -> float:
        """How often ``total`` should have fallen in this many rolls."""
        return self.rolls * WAYS[total] / 36

    def to_json(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "over": self.over,
            "winner": self.winner,
            "turns": self.turns,
            "rolls": self.rolls,
            "dice": {
                str(s): {"rolled": self.dice[s], "expected": round(self.expected(s), 2)}
                for s in SUMS
            },
            "per_player": {p: s.to_json() for p, s in self.per_player.items()},
            "points": [list(row) for row in self.points],
        }


def _shown_points(state: GameState, seat: int) -> int:
    return state.points(seat) if state.is_over else state.public_points(seat)


def tally(states: Sequence[GameState], actions: Sequence[Action]) -> GameStats:
    """Count a replayed game's figures from its public states and actions.

    Raises:
        ValueError: ``states`` is not one longer than ``actions``.
    """
    if len(states) != len(actions) + 1:
        raise ValueError(
            f"a tally needs the state before every action and after the last: "
            f"{len(states)} states for {len(actions)} actions"
        )
    first = states[0]
    stats = {p: PlayerStats(p) for p in first.players}
    dice = dict.fromkeys(SUMS, 0)
    points: dict[int, tuple[int, ...]] = {}
    for before, action, after in zip(states, actions, states[1:], strict=False):
        _count(before, action, after, stats, dice)
        points[after.turn] = tuple(_shown_points(after, s) for s in range(len(after.players)))
    last = states[-1]
    for seat, player in enumerate(last.players):
        s, hand = stats[player], last.hands[seat]
        s.dev_played = hand.played
        s.points = _shown_points(last, seat)
        s.victory_cards = hand.victory_cards if last.is_over else None
    return GameStats(
        players=last.players,
        over=last.is_over,
        winner=last.players[last.winner] if last.winner >= 0 else None,
        turns=last.turn,
        dice=dice,
        per_player=stats,
        points=[points[t] for t in sorted(points)],
    )


def _count(
    before: GameState,
    action: Action,
    after: GameState,
    stats: dict[str, PlayerStats],
    dice: dict[int, int],
) -> None:
    """Add one action's figures: each kind of figure reads one kind of action."""
    kind = action.kind
    deltas = [sub(a.resources, b.resources) for b, a in zip(before.hands, after.hands, strict=True)]
    if kind in DICE_KINDS and getattr(action, "dice", None):
        dice[sum(action.dice)] += 1  # type: ignore[attr-defined]
        for seat, player in enumerate(after.players):
            stats[player].produced = add(stats[player].produced, _gained(deltas[seat]))
    elif before.is_setup and kind == "build_settlement":
        for seat, player in enumerate(after.players):
            stats[player].start = add(stats[player].start, _gained(deltas[seat]))
    elif isinstance(action, MaritimeTrade):
        s, seat = stats[action.player], before.seat(action.player)
        s.bank_gave = add(s.bank_gave, one(action.give, before.rate(seat, action.give)))
        s.bank_got = add(s.bank_got, one(action.get))
    elif isinstance(action, Discard):
        s = stats[action.player]
        s.discarded = add(s.discarded, action.cards)
    elif kind == "buy_dev_card":
        stats[action.player].dev_bought += 1
    elif kind in ROBBER_KINDS:
        for seat, player in enumerate(after.players):
            change = after.hands[seat].card_count - before.hands[seat].card_count
            stats[player].robbed += max(0, -change)
            stats[player].stole += max(0, change)
    if before.trade is not None and after.trade is None and kind != "cancel_trade":
        # the offer closed with a trade: the cards moved between the two partners
        for seat, player in enumerate(after.players):
            s = stats[player]
            s.trade_got = add(s.trade_got, _gained(deltas[seat]))
            s.trade_gave = add(s.trade_gave, _lost(deltas[seat]))
